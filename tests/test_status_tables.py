"""One source for every status number (issue 71, item 1): README's status table and
docs/reproduction-status.md are ``schedrl status`` output from the papers' ``recorded_runs.csv``.

* The committed pages equal what the records give (a new record fails this test until
  ``schedrl status --write`` is run).
* A run's label gives its date, commit, machine kind and core-hours (``~``, ``exact``, missing: "not
  recorded"); the last run of a scale is the latest date, then the last in file order; counts, *not
  run* and *uninformative* (the report's rule) come from the rows.
* ``--check`` exits 1 naming the stale page, 0 when current; a missing or malformed CSV, or a page
  without its markers, gives one line and exit 2.
"""

from __future__ import annotations

import csv
import shutil
from pathlib import Path

import pytest

from schedrl.cli import main
from schedrl.commands.status import FRONT, generated
from schedrl.commands.status import pages as all_pages
from schedrl.papers import PAPERS, paper_values
from schedrl.report.claims import reference_fields
from schedrl.report.recorded import RECORDED_COLUMNS, read_recorded
from schedrl.report.status_tables import (
    BEGIN,
    END,
    latest_run,
    paper_status,
    parse_label,
    readme_block,
    replace_block,
    shorten,
)

ROOT = Path(__file__).resolve().parents[1]
PAPERS_DIR = ROOT / "src" / "schedrl" / "papers"


# --- the committed pages ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def pages():
    return generated(ROOT)  # every page from one read of the records (the rliable bootstraps are the cost)


@pytest.mark.parametrize("page", list(all_pages()))
def test_committed_page_is_what_the_records_say(page, pages):
    now, new = pages[ROOT / page]
    assert now == new, f"{page} is stale: run `schedrl status --write` (its status block differs from the records)"


def test_committed_figure_table_is_what_the_records_say(pages):
    now, new = pages[ROOT / FRONT]
    assert now == new, f"{FRONT} is stale: run `schedrl status --write` (the README figure's numbers differ)"
    assert (ROOT / FRONT).with_suffix(".png").is_file()


def test_every_paper_names_headline_claims_its_records_hold():
    for paper in PAPERS:
        ids = set(read_recorded(PAPERS_DIR / paper / "recorded_runs.csv")["claim_id"])
        heads = paper_values(paper).headline_claims
        assert heads and set(heads) <= ids, f"{paper}: headline_claims {heads} not all recorded"


def test_readme_status_rows_fit():
    block = readme_block([paper_status(p, read_recorded(PAPERS_DIR / p / "recorded_runs.csv"),
                                       paper_values(p).headline_claims) for p in PAPERS])
    rows = [line for line in block.splitlines() if line.startswith("| `")]
    assert len(rows) == len(PAPERS) and all(len(r) <= 400 for r in rows)


# --- labels ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("label, date, commit, kind, core_h, exact, seeds, description", [
    ("2026-11-29, 56a2723, paper budget: discrete phase 2 A2C/PPO/TRPO 1 M steps, seeds 0 and 1, faster kind, "
     "1.40 core-h", "2026-11-29", "56a2723", "faster", "1.40", False, "seeds 0 and 1",
     "discrete phase 2 A2C/PPO/TRPO 1 M steps"),
    ("2026-11-28, b332110, paper budget: discrete phase 2 A2C/PPO/TRPO 1 M steps, seed 0 of 2, slower kind, "
     "~2.0 core-h", "2026-11-28", "b332110", "slower", "~2.0", False, "seed 0 of 2",
     "discrete phase 2 A2C/PPO/TRPO 1 M steps"),
    ("2026-11-26, 944eb96, issue 37's agents (4 trajectories, lr 0.001, sampled test play), kind not recorded, "
     "1.39 core-h", "2026-11-26", "944eb96", "", "1.39", False, "",
     "issue 37's agents (4 trajectories, lr 0.001, sampled test play)"),
    ("2026-11-27, f1685a9: 100k steps (5.06 core-h, slower kind)", "2026-11-27", "f1685a9", "slower", "5.06",
     False, "", "100k steps"),
    ("2026-11-27, 73a11a5: issue 38's code, 320k steps (7.8 core-h)", "2026-11-27", "73a11a5", "", "7.8", False,
     "", "issue 38's code, 320k steps"),
    ("2026-11-28, 15aac6e, DQN 100k, AVX-512 EPYC (faster kind), 1.90 core-h exact", "2026-11-28", "15aac6e",
     "faster", "1.90", True, "", "DQN 100k, AVX-512 EPYC"),
    ("2026-11-29, ad2dd28, C+S+R on scenario 9, seed 0, faster kind, ~1.95 core-h (1.360 exact after a resume)",
     "2026-11-29", "ad2dd28", "faster", "~1.95", False, "seed 0", "C+S+R on scenario 9"),
    ("2026-11-28, 9acfb3f (evaluated at 646b472), paper budget: 200,000 training jobs, seed 0, slower kind, "
     "2.62 core-h", "2026-11-28", "9acfb3f", "slower", "2.62", False, "seed 0", "200,000 training jobs"),
    ("2026-11-29, scenarios 3 and 6 together, paper budget: C+S+R at 3 M steps, 2 seeds", "2026-11-29", "", "", "",
     False, "2 seeds", "scenarios 3 and 6 together, C+S+R at 3 M steps"),
    ("a rerun of the default", "", "", "", "", False, "", "a rerun of the default"),
])
def test_label_parts(label, date, commit, kind, core_h, exact, seeds, description):
    got = parse_label(label)
    assert (got.date, got.commit, got.kind, got.core_h, got.exact, got.seeds, got.description) == \
        (date, commit, kind, core_h, exact, seeds, description)


def test_missing_label_parts_read_not_recorded():
    got = parse_label("a rerun of the default")
    assert got.core_h_text() == "not recorded" and got.kind_text() == "kind not recorded"
    assert parse_label("2026-11-28, 15aac6e, 1.90 core-h exact").core_h_text() == "1.90 exact"
    assert parse_label("2026-11-29, 5c0ff50 (evaluated at fe2806a), x").code == "5c0ff50 (evaluated at fe2806a)"


def test_shorten_keeps_the_protocol_tag():
    claim = "Discrete phase 2, 130% load: A2C and TRPO beat SJF on slowdown [heldout]"
    assert shorten(claim, 200) == claim
    assert shorten(claim, 50) == "A2C and TRPO beat SJF on slowdown [heldout]"
    assert shorten(claim, 30) == "A2C and TRPO... [heldout]"
    assert shorten("Theta: SEM converges faster than DRAS (Fig. 8)") == "Theta: SEM converges faster than DRAS"


# --- counts on a small synthetic record ------------------------------------------------------------

R, P, N, C = "reproduced", "partly reproduced", "not reproduced", "not comparable"
OLD = "2026-11-20, aaaaaaa, 100k steps, slower kind, 3.00 core-h"
NEW = "2026-11-25, bbbbbbb, 200k steps, faster kind, ~2.5 core-h"
LATE_IN_FILE = "2026-11-22, ccccccc, 150k steps, kind not recorded, 4.00 core-h"  # recorded last, dated between
SEED0 = "2026-11-28, ddddddd, paper budget: 1 M steps, seed 0, slower kind, 1.10 core-h"
SEED1 = "2026-11-29, eeeeeee, paper budget: 1 M steps, seed 1, faster kind, 1.20 core-h"
OTHER = "2026-11-27, fffffff, paper budget: 3 M steps, seed 0, faster kind, 2.00 core-h"

#: (claim_id, verdict, ours, random, untrained) per claim of the runs below
ROWS = {
    NEW: [("a", R, "1.0", R, ""), ("b", P, "2.0", N, P), ("c", N, "3.0", R, R), ("d", C, "n/a", "", ""),
          ("e", R, "5.0", "", "")],
    OLD: [("a", N, "9.0", N, N), ("b", N, "8.0", "", "")],
    LATE_IN_FILE: [("a", P, "1.5", "", "")],
    SEED0: [("a", R, "1.1", N, N), ("b", C, "n/a", "", ""), ("d", C, "0.4", "", "")],
    OTHER: [("a", N, "7.0", N, N)],
    SEED1: [("a", P, "1.2", P, N), ("b", C, "n/a", "", ""), ("d", C, "0.5", "", "")],
}


def _write_record(path: Path, runs=ROWS) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as fh:
        out = csv.DictWriter(fh, fieldnames=RECORDED_COLUMNS)
        out.writeheader()
        for run, rows in runs.items():
            for cid, verdict, ours, random, untrained in rows:
                out.writerow({"run": run, "claim_id": cid, "claim": f"claim {cid} (Fig. 1)", "verdict": verdict,
                              "ours": ours, "random_verdict": random, "untrained_verdict": untrained,
                              "source": "test", "scale": "paper-budget" if "paper budget" in run else "default"})
    return path


def test_latest_run_is_by_date_then_file_order(tmp_path):
    recorded = read_recorded(_write_record(tmp_path / "recorded_runs.csv"))
    assert latest_run(recorded, "default") == NEW
    assert latest_run(recorded, "paper-budget") == SEED1
    # NEW is recorded first: a run of the same date recorded after it is the later one
    same_day = recorded.copy()
    same_day["run"] = same_day["run"].replace({OLD: "2026-11-25, aaaaaaa, recorded after NEW"})
    assert latest_run(same_day, "default") == "2026-11-25, aaaaaaa, recorded after NEW"
    # a label without a date sorts first
    undated = read_recorded(_write_record(tmp_path / "b.csv", {OLD: ROWS[OLD], "no date, x": ROWS[NEW]}))
    assert latest_run(undated, "default") == OLD


def test_counts_uninformative_and_same_setup(tmp_path, monkeypatch):
    recorded = read_recorded(_write_record(tmp_path / "recorded_runs.csv"))
    status = paper_status("alpha", recorded, ["a", "d"])
    d, b = status.default, status.budget
    assert d.run == NEW and d.claims == 5 and d.counts == {"R": 2, "P": 1, "N": 1, "C": 1}
    # the report's rule: R or P while a reference is R or P; out of the claims with a reference
    expected = [reference_fields(v, r, u)["uninformative"] for _, v, _, r, u in ROWS[NEW]]
    assert (d.uninformative, d.with_references) == (expected.count("yes"), 3) == (2, 3)
    assert d.label.core_h == "~2.5" and d.label.kind == "faster"
    assert b.run == SEED1 and b.counts == {"R": 0, "P": 1, "N": 0, "C": 2} and b.not_run == 1
    assert (b.uninformative, b.with_references) == (1, 1)
    assert [o.run for o in status.same_setup] == [SEED0]  # the 3 M run is another setup
    assert [r.run for r in status.runs] == [OLD, LATE_IN_FILE, NEW, OTHER, SEED0, SEED1]
    row = readme_block([status]).splitlines()[3]
    assert row.startswith("| `alpha` | 5: 2 R, 1 P, 1 N, 1 C; 2/3 uninf. | ~2.5 | 2026-11-25 | ")
    assert "3: 1 P, 2 C (1 not run); 2026-11-29, seed 1, faster kind, 1.20 core-h; seed 0: 1 R, 2 C" in row
    assert "claim a: default 1.0 (R); paper budget 1.2 (P)" in row
    # a row too long for the README counts the other runs, then its note keeps the paper budget's value
    import schedrl.report.status_tables as st

    for limit, note in ((len(row) - 1, "claim a: default 1.0 (R); paper budget 1.2 (P)"),
                        (len(row) - 15, "claim a: paper budget 1.2 (P)")):
        monkeypatch.setattr(st, "README_ROW", limit)
        short = readme_block([status]).splitlines()[3]
        assert "; +1 run |" in short and note in short and "seed 0: 1 R" not in short and len(short) <= limit


def test_a_budget_run_of_some_workloads_says_which_and_how_many_runs_are_pooled(tmp_path, monkeypatch):
    """mdp's scenario-seeds are runs of their own, pooled for the scale's score: the README's budget cell
    names the latest run's workloads and how many runs the scale pools, not "+N runs" of its setup."""
    import pandas as pd

    import schedrl.report.status_tables as st

    monkeypatch.setattr(st, "normalised_text", lambda status: "-")  # no per-seed scores to score here
    status = paper_status("alpha", read_recorded(_write_record(tmp_path / "recorded_runs.csv")), ["a"])
    status.scores = pd.DataFrame({"run": [SEED0, SEED1, SEED1], "workload": ["scenario 3", "scenario 9", "scenario 9"]})
    status.merged = {"paper-budget": ([SEED0, SEED1], None)}
    row = readme_block([status]).splitlines()[3]
    assert "3: 1 P, 2 C (1 not run); 2026-11-29, seed 1, faster kind, 1.20 core-h; scenario 9 of 2 runs pooled |" in row
    status.scores = pd.DataFrame({"run": [SEED0, SEED1], "workload": ["scenario 9", "scenario 9"]})  # one setup
    assert "; seed 0: 1 R, 2 C" in readme_block([status]).splitlines()[3]


def test_a_claim_not_run_at_the_budget_reads_not_run(tmp_path):
    from schedrl.report.status_tables import headline_text

    status = paper_status("alpha", read_recorded(_write_record(tmp_path / "r.csv")), ["d", "e"])
    assert headline_text(status, "d") == "claim d: default n/a (C); paper budget 0.5 (C)"
    assert headline_text(status, "e") == "claim e: default 5.0 (R); paper budget not run"


def probed(monkeypatch, tmp_path, rows=(("alpha", "default", "A2C", None), ("alpha", "default", "PPO", None),
                                        ("alpha", "paper-budget", "PPO", None))):
    """config/recipe-probes.csv stood in by one holding ``rows`` ((paper, scale, player, probe); probe
    None: passed), so that a made-up paper's agents read as probed or not as a test needs."""
    import pandas as pd

    from schedrl.report import recipe_probes as rp

    path = tmp_path / "recipe-probes.csv"
    rp.write_recipe_probes(pd.DataFrame([{"paper": p, "scale": s, "player": pl, "trainer": "t", "kind": "sb3",
                                          "algo": "ppo", "recipe": "", "probe": probe or "passed (gain +60%)", "date": "",
                                          "commit": "",
                                          "machine": "", "cpu_s": ""} for p, s, pl, probe in rows], columns=rp.COLUMNS), path)
    monkeypatch.setattr(rp, "FILE", path)


def test_record_normalised_feeds_the_best_agent_column(tmp_path, capsys, monkeypatch):
    """Issue 68: `schedrl record --normalised` keeps the paper's rows of aggregate.csv beside its
    recorded runs; the README column shows the best agent's IQM of the paper-budget run, else the
    default run's, else 'not recorded'; a bad aggregate is one line, exit 2, nothing written."""
    import pandas as pd

    from schedrl.report.normalised import AGGREGATE_COLUMNS
    from schedrl.report.status_tables import normalised_text, read_paper_status

    probed(monkeypatch, tmp_path)
    record = _write_record(tmp_path / "alpha" / "recorded_runs.csv")
    assert normalised_text(read_paper_status("alpha", record)) == "not recorded"
    claims = tmp_path / "claims.csv"
    pd.DataFrame([{"paper": "alpha", "claim_id": "a", "claim": "claim a (Fig. 1)", "paper_value": "1", "ours": "1.0",
                   "verdict": R, "note": ""}]).to_csv(claims, index=False)

    def agg(rows):
        frame = pd.DataFrame([{c: "" for c in AGGREGATE_COLUMNS} | row for row in rows])
        path = tmp_path / f"agg{len(rows)}.csv"
        frame.to_csv(path, index=False)
        return path

    row = {"paper": "alpha", "scale": "default", "seeds": 3, "workloads": 4}
    default = agg([{**row, "player": "PPO", "role": "agent", "iqm": 0.25, "iqm_lo": 0.1, "iqm_hi": 0.4},
                   {**row, "player": "A2C", "role": "agent", "iqm": 0.5, "iqm_lo": 0.2, "iqm_hi": 0.7},
                   {**row, "player": "SJF", "role": "heuristic", "iqm": 1.0, "iqm_lo": 1.0, "iqm_hi": 1.0},
                   # one seed: higher, but no interval over seeds, so not the column's agent
                   {**row, "seeds": 1, "player": "DQN", "role": "agent", "iqm": 0.8, "iqm_lo": 0.8, "iqm_hi": 0.8},
                   {**row, "paper": "beta", "player": "X", "role": "agent", "iqm": 0.9, "iqm_lo": 0.9, "iqm_hi": 0.9}])
    assert main(["record", "--claims", str(claims), "--run", NEW, "--into", str(record), "--normalised", str(default)]) == 0
    kept = pd.read_csv(record.with_name("recorded_normalised.csv"))
    assert set(kept["paper"]) == {"alpha"} and set(kept["run"]) == {NEW} and len(kept) == 4
    assert normalised_text(read_paper_status("alpha", record)) == ("0.50 [0.20, 0.70] A2C, default: above random "
                                                                   "valid play, below the best heuristic")
    # the paper's own recipe's learning probe (config/recipe-probes.csv, `schedrl probe`) decides it too
    for found, tail in (("failed (gain +5%; seed 0: ...)", " (trainer fails probe)"), (None, " (trainer not probed)")):
        probed(monkeypatch, tmp_path, [("alpha", "default", "A2C", found)] if found else [])
        assert normalised_text(read_paper_status("alpha", record)).endswith("below the best heuristic" + tail)
    probed(monkeypatch, tmp_path)
    budget = agg([{**row, "scale": "paper-budget", "player": "PPO", "role": "agent", "iqm": -0.1, "iqm_lo": -0.3,
                   "iqm_hi": 0.05}])
    assert main(["record", "--claims", str(claims), "--run", SEED1, "--scale", "paper-budget", "--into", str(record),
                 "--normalised", str(budget)]) == 0
    assert normalised_text(read_paper_status("alpha", record)) == ("-0.10 [-0.30, 0.05] PPO, paper budget: "
                                                                   "no better than random valid play")
    # a tuned recipe's run (issue 69) stands where it beats the paper's recipe; its rows say tuned
    tuned = agg([{**row, "scale": "paper-budget", "player": "PPO", "role": "agent", "iqm": 0.3, "iqm_lo": 0.1,
                  "iqm_hi": 0.45}])
    label = "2026-12-03, abc1234, tuned recipe at the paper budget, seeds 0-2, faster kind, 1.0 core-h"
    assert main(["record", "--claims", str(claims), "--run", label, "--scale", "tuned", "--into", str(record),
                 "--normalised", str(tuned)]) == 0
    kept = pd.read_csv(record.with_name("recorded_normalised.csv"))
    assert set(kept.loc[kept["run"] == label, "scale"]) == {"tuned"}
    assert normalised_text(read_paper_status("alpha", record)) == ("0.30 [0.10, 0.45] PPO, tuned: "
                                                                   "above random valid play, below the best heuristic"
                                                                   " (trainer not probed)")
    # the tuned recipe's learning probe (its header, config/tuned/alpha.yml) decides whether it is a verdict
    from schedrl.experiments import tune

    for line, tail in (("passed (gain +60%, +55% on seeds 0, 1)", ""),
                       ("failed by all 3 trials probed", " (trainer fails probe)")):
        (tmp_path / "alpha.yml").write_text(f"# Learning probe (schedrl.experiments.probes): {line}.\n")
        monkeypatch.setattr(tune, "TUNED_DIR", tmp_path)
        assert normalised_text(read_paper_status("alpha", record)).endswith("below the best heuristic" + tail)
    # a study whose probe gate, rechecked (scripts/recheck_gates.py), pruned a trial that learns
    (tmp_path / "alpha.yml").write_text("# Learning probe (schedrl.experiments.probes): passed (gain +60%).\n")
    pd.DataFrame({"number": [0, 1], "state": ["pruned", "complete"], "gate": ["failed", "passed"],
                  "regate": ["passed", "passed"], "regate_when": "2026-12-07, abc1234"}).to_csv(
        tmp_path / "alpha.trials.csv", index=False)
    assert normalised_text(read_paper_status("alpha", record)).endswith(" (study's gate pruned learners)")
    (tmp_path / "alpha.trials.csv").unlink()
    (tmp_path / "alpha.yml").write_text("# Learning probe (schedrl.experiments.probes): failed by all 3 trials probed.\n")
    # recorded with the run: a later recipe (a new study's) does not change what this run's trainer did
    assert main(["record", "--claims", str(claims), "--run", label, "--scale", "tuned", "--into", str(record),
                 "--normalised", str(tuned)]) == 0  # recorded while the recipe says it fails
    kept = pd.read_csv(record.with_name("recorded_normalised.csv"), keep_default_na=False)
    assert set(kept.loc[kept["run"] == label, "recipe_probe"]) == {"failed by all 3 trials probed"}
    assert set(kept.loc[kept["run"] != label, "recipe_probe"]) == {""}
    (tmp_path / "alpha.yml").write_text("# Learning probe (schedrl.experiments.probes): passed (gain +60%).\n")
    assert normalised_text(read_paper_status("alpha", record)).endswith(" (trainer fails probe)")
    from schedrl.report.normalised import headroom_sentences
    from schedrl.report.status_tables import recorded_players

    players = recorded_players(record)
    assert "fails the learning probe" in headroom_sentences(players)[0]
    # the status page's generated bullet: each scale's best agent, in lines of at most 120 characters
    from schedrl.report.status_tables import status_page_block

    block = status_page_block(read_paper_status("alpha", record), width=60)
    lines = block.splitlines()
    assert lines[0] == BEGIN and lines[-1] == END and all(len(line) <= 60 for line in lines)
    text = " ".join(line.strip() for line in lines[1:-1])
    assert "default **0.50 [0.20, 0.70]** A2C (3 seeds): above random valid play, below the best heuristic" in text
    assert "paper budget **-0.10 [-0.30, 0.05]** PPO (3 seeds): no better than random valid play" in text
    assert "tuned **0.30 [0.10, 0.45]** PPO (3 seeds, trainer fails probe)" in text
    assert "- **Runs** (claims R reproduced, P partly" in text and "tuned seeds 0-2 (2026-12-03, abc1234" in text
    assert not any(line.rstrip().endswith("[") or "[" in line and "]" not in line.split("[")[-1]
                   for line in lines[1:-1])  # an interval is never split across lines
    capsys.readouterr()
    before = record.read_bytes()
    for bad, says in ((tmp_path / "none.csv", "not a normalised aggregate"), (claims, "lacks column(s)"),
                      (agg([{**row, "paper": "beta", "player": "X", "role": "agent"}] * 2), "holds no row of alpha")):
        assert main(["record", "--claims", str(claims), "--run", OTHER, "--into", str(record),
                     "--normalised", str(bad)]) == 2
        err = capsys.readouterr().err
        assert says in err and len(err.strip().splitlines()) == 1
    assert record.read_bytes() == before


def test_a_tuned_run_without_claims_is_recorded_by_its_normalised_scores(tmp_path, capsys):
    """A tuned target that writes no claims (mdp_tuned) is recorded from its aggregate alone: the
    normalised rows, not a verdict row; any other scale still needs --claims (one line, exit 2)."""
    import pandas as pd

    from schedrl.report.normalised import AGGREGATE_COLUMNS
    from schedrl.report.status_tables import normalised_text, read_paper_status

    record = _write_record(tmp_path / "alpha" / "recorded_runs.csv")
    before = record.read_bytes()
    agg = tmp_path / "aggregate.csv"
    pd.DataFrame([{c: "" for c in AGGREGATE_COLUMNS} | {"paper": "alpha", "scale": "paper-budget", "seeds": 1,
                   "workloads": 3, "player": "PPO C+S+R", "role": "agent", "iqm": 1.2, "iqm_lo": 1.1,
                   "iqm_hi": 1.3}]).to_csv(agg, index=False)
    label = "2026-12-03, abc1234, tuned recipe (mdp_tuned), seed 0, faster kind, 1.5 core-h (exact)"
    assert main(["record", "--run", label, "--into", str(record), "--normalised", str(agg)]) == 2
    assert "--claims: missing" in capsys.readouterr().err
    assert main(["record", "--run", label, "--scale", "tuned", "--into", str(record), "--normalised", str(agg)]) == 0
    assert record.read_bytes() == before
    kept = pd.read_csv(record.with_name("recorded_normalised.csv"))
    assert set(kept["run"]) == {label} and set(kept["scale"]) == {"tuned"}
    assert normalised_text(read_paper_status("alpha", record)).startswith("1.20 [1.10, 1.30] PPO C+S+R, tuned")
    from schedrl.report.status_tables import recorded_players

    assert set(recorded_players(record).query("scale == 'tuned'")["player"]) == {"PPO C+S+R"}


def test_seeds_recorded_as_separate_runs_are_merged(tmp_path, capsys, monkeypatch):
    """Issue 68 item 4: a seed trained as its own run is recorded with its per-seed scores (the
    scores.csv beside the aggregate); two runs of one scale are pooled and aggregated again, so the
    README's column reads the agent over both seeds, not one run's single seed."""
    import pandas as pd

    from schedrl.report.normalised import aggregate, long_rows, scores
    from schedrl.report.recorded import SCORES_FILE, read_recorded_scores
    from schedrl.report.status_tables import normalised_text, read_paper_status

    record = _write_record(tmp_path / "alpha" / "recorded_runs.csv")
    s0 = "2026-12-01, 1111111, paper budget: 1 M steps, seed 0, faster kind, 1.00 core-h"
    s1 = "2026-12-02, 2222222, paper budget: 1 M steps, seed 1, faster kind, 1.00 core-h"
    claims = tmp_path / "claims.csv"
    pd.DataFrame([{"paper": "alpha", "claim_id": "a", "claim": "claim a", "paper_value": "1", "ours": "1.0",
                   "verdict": R, "note": ""}]).to_csv(claims, index=False)

    def run_folder(name: str, seed: int, agent: dict) -> Path:
        rows = [long_rows("alpha", w, p, role, s, "slowdown", "lower", v)
                for w, (rand, sjf) in {"w1": (10.0, 5.0), "w2": (8.0, 4.0)}.items()
                for p, role, s, v in (("random valid", "random", 0, rand), ("SJF", "heuristic", 0, sjf))]
        rows += [long_rows("alpha", w, "PPO", "agent", seed, "slowdown", "lower", v) for w, v in agent.items()]
        scored = scores(pd.DataFrame(rows))
        folder = tmp_path / name
        folder.mkdir()
        scored.to_csv(folder / "scores.csv", index=False)
        aggregate(scored, reps=200, scale="paper-budget").to_csv(folder / "aggregate.csv", index=False)
        return folder / "aggregate.csv"

    first = run_folder("s0", 0, {"w1": 7.5, "w2": 6.0})   # normalised 0.5 on both
    second = run_folder("s1", 1, {"w1": 5.0, "w2": 4.0})  # 1.0 on both
    assert main(["record", "--claims", str(claims), "--run", s0, "--scale", "paper-budget", "--into", str(record),
                 "--normalised", str(first)]) == 0
    assert "per-seed scores of alpha recorded" in capsys.readouterr().out
    status = read_paper_status("alpha", record)
    assert status.merged == {}  # one run of the scale: nothing to merge
    assert normalised_text(status).startswith("0.50 PPO, paper budget:")  # a collapsed interval is not shown
    assert main(["record", "--claims", str(claims), "--run", s1, "--scale", "paper-budget", "--into", str(record),
                 "--normalised", str(second)]) == 0
    kept = read_recorded_scores(record.with_name(SCORES_FILE))
    assert list(dict.fromkeys(kept["run"])) == [s0, s1]
    status = read_paper_status("alpha", record)
    runs, merged = status.merged["paper-budget"]
    assert runs == [s0, s1]
    ppo = merged[merged["player"] == "PPO"].iloc[0]
    # random and SJF are the same draws in both runs: counted once; PPO's seeds 0 and 1 pooled
    assert (ppo["seeds"], ppo["workloads"], ppo["mean"]) == (2, 2, 0.75)
    assert normalised_text(status).startswith("0.75 [0.50, 1.00] PPO, paper budget (2 runs):")
    # the same rows aggregate once per process; each caller gets its own copy
    from schedrl.report.recorded import merged_normalised

    merged.loc[:, "iqm"] = 99.0
    again = merged_normalised(read_recorded_scores(record.with_name(SCORES_FILE)), "paper-budget")[1]
    assert again[again["player"] == "PPO"].iloc[0]["mean"] == 0.75 and (again["iqm"] != 99.0).all()
    # recording a run again replaces its rows and moves it last
    assert main(["record", "--claims", str(claims), "--run", s0, "--scale", "paper-budget", "--into", str(record),
                 "--normalised", str(first)]) == 0
    assert list(dict.fromkeys(read_recorded_scores(record.with_name(SCORES_FILE))["run"])) == [s1, s0]
    # an aggregate without its scores.csv records the aggregate only, and says so
    lone = tmp_path / "lone"
    lone.mkdir()
    (lone / "aggregate.csv").write_bytes(first.read_bytes())
    capsys.readouterr()
    assert main(["record", "--claims", str(claims), "--run", OTHER, "--scale", "paper-budget", "--into", str(record),
                 "--normalised", str(lone / "aggregate.csv")]) == 0
    assert "no scores.csv beside" in capsys.readouterr().out
    assert OTHER not in set(read_recorded_scores(record.with_name(SCORES_FILE))["run"])
    # tuned runs pool only with the latest-recorded run's recipe: a new study's recipe starts afresh
    from schedrl.experiments import tune

    t0, t1, t2 = (f"2026-12-0{d}, 333333{d}, tuned recipe at the paper budget, seed {d - 3}" for d in (3, 4, 5))
    recipes = tmp_path / "tuned"
    recipes.mkdir()
    monkeypatch.setattr(tune, "TUNED_DIR", recipes)
    for run, folder, lr in ((t0, first, 1e-3), (t1, second, 1e-3), (t2, second, 2e-5)):
        (recipes / "alpha.yml").write_text(f"# a header\nalpha: {{agents: {{learning_rate: {lr}}}}}\n")
        assert main(["record", "--claims", str(claims), "--run", run, "--scale", "tuned", "--into", str(record),
                     "--normalised", str(folder)]) == 0
        if run == t1:
            assert read_paper_status("alpha", record).merged["tuned"][0] == [t0, t1]
    assert "tuned" not in read_paper_status("alpha", record).merged  # t2 alone: its recipe's only run
    assert read_paper_status("alpha", record).tuned.run == t2


def test_replace_block_needs_one_pair_of_markers():
    text = f"intro\n{BEGIN}\nold\n{END}\nafter\n"
    assert replace_block(text, f"{BEGIN}\nnew\n{END}", "x.md") == f"intro\n{BEGIN}\nnew\n{END}\nafter\n"
    from schedrl.errors import InputFileError

    for bad in ("no markers\n", f"{END}\n{BEGIN}\n", f"{BEGIN}\n{BEGIN}\n{END}\n"):
        with pytest.raises(InputFileError, match="x.md: expected one"):
            replace_block(bad, "", "x.md")


# --- the command -----------------------------------------------------------------------------------

@pytest.fixture
def checkout(tmp_path):
    """A checkout with both pages (their blocks empty) and a copy of every paper's records."""
    root, records = tmp_path / "repo", tmp_path / "records"
    for page in all_pages():
        (root / page).parent.mkdir(parents=True, exist_ok=True)
        (root / page).write_text(f"# {page}\n\nProse.\n\n{BEGIN}\n{END}\n\nMore prose.\n")
    for paper in PAPERS:
        (records / paper).mkdir(parents=True)
        shutil.copy(PAPERS_DIR / paper / "recorded_runs.csv", records / paper / "recorded_runs.csv")
    return root, records


def _status(capsys, *args):
    code = main(["status", *map(str, args)])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_check_fails_naming_the_stale_page_then_write_fixes_it(checkout, capsys):
    root, records = checkout
    code, _, err = _status(capsys, "--check", "--root", root, "--records", records)
    assert code == 1 and len(err.strip().splitlines()) == 1 and "README.md" in err and "--write" in err
    code, out, _ = _status(capsys, "--write", "--root", root, "--records", records)
    assert code == 0 and "rewrote" in out and (root / FRONT).with_suffix(".png").is_file()
    text = (root / "README.md").read_text()
    assert text.startswith("# README.md\n\nProse.\n\n" + BEGIN) and text.endswith(END + "\n\nMore prose.\n")
    assert _status(capsys, "--check", "--root", root, "--records", records)[0] == 0
    # a new record makes the pages stale again
    with (records / "mdp" / "recorded_runs.csv").open("a") as fh:
        fh.write('"2026-12-31, 1234567, rerun, faster kind, 1.00 core-h",params-compact,c,reproduced,1,,,t,'
                 "default,,,,\n")
    code, _, err = _status(capsys, "--check", "--root", root, "--records", records)
    assert code == 1 and "README.md and " in err and "reproduction-status.md and " in err
    assert "mdp/status.md are stale" in err  # its Runs bullet names the latest default run


def test_print_without_flags_shows_every_block(checkout, capsys):
    _, records = checkout
    code, out, _ = _status(capsys, "--records", records)
    assert code == 0 and out.count(BEGIN) == len(all_pages()) and "| `deeprm` |" in out and "recipe on that scale" in out


@pytest.mark.parametrize("damage, says", [
    (lambda root, records: (records / "sem" / "recorded_runs.csv").unlink(), "no recorded-runs file for sem"),
    (lambda root, records: (records / "mrsch" / "recorded_runs.csv").write_text(
        "run,claim_id,claim,verdict,ours,random_verdict,untrained_verdict,source\nr,x,c,great,1,,,s\n"),
     "verdict 'great' is none of"),
    (lambda root, records: (records / "runtime" / "recorded_runs.csv").write_text("run,claim_id\n"),
     "lacks column"),
    (lambda root, records: (records / "runtime" / "recorded_runs.csv").write_text(
        "run,claim_id,claim,verdict,ours,random_verdict,untrained_verdict,source\n"), "no recorded run of runtime"),
    (lambda root, records: (root / "README.md").write_text("# no markers\n"), "README.md: expected one"),
    (lambda root, records: (root / "docs" / "reproduction-status.md").unlink(), "no such file"),
])
def test_bad_input_is_one_line_and_exit_2(checkout, capsys, damage, says):
    root, records = checkout
    damage(root, records)
    code, _, err = _status(capsys, "--check", "--root", root, "--records", records)
    assert code == 2 and len(err.strip().splitlines()) == 1 and says in err and "Traceback" not in err


def test_help(capsys):
    with pytest.raises(SystemExit) as exc:
        main(["status", "--help"])
    assert exc.value.code == 0 and "--check" in capsys.readouterr().out


def test_coverage_names_the_workloads_off_the_scale_and_the_agents_wins_there():
    """A score that stands on some of the workloads an agent played says on how many, and on the
    degenerate ones (no scale) where the agent's mean over seeds beats random valid play's, in the
    metric's direction; every workload on the scale, or nothing recorded: nothing to say."""
    import pandas as pd

    from schedrl.report.status_tables import coverage_text

    def row(workload, anchor, seed, value, rand=10.0, player="A", better="lower"):
        return {"run": "r", "workload": workload, "player": player, "anchor": anchor, "seed": seed,
                "value": value, "random": rand, "better": better}

    rows = pd.DataFrame([row("S1", "ok", 0, 5.0), row("S1", "ok", 1, 6.0),
                         row("S2", "degenerate", 0, 9.0), row("S2", "degenerate", 1, 10.5),  # mean 9.75 < 10
                         row("S3", "degenerate", 0, 9.0), row("S3", "degenerate", 1, 11.5),  # mean 10.25
                         row("S4", "no-heuristic", 0, 1.0),
                         row("S9", "degenerate", 0, 1.0, player="B")])  # another player's workload
    assert coverage_text(rows, "A") == "1 of 4 workloads; degenerate: 2, it beats random valid play on S2"
    higher = rows.assign(better="higher")
    assert coverage_text(higher, "A").endswith("it beats random valid play on S3")
    assert coverage_text(rows[rows["workload"] == "S1"], "A") == ""
    assert coverage_text(rows, "nobody") == ""
    assert coverage_text(rows[rows["workload"].isin(["S1", "S4"])], "A") == "1 of 2 workloads"
    tied = rows.assign(anchor=rows["anchor"].replace({"no-heuristic": "tie"}))  # S4: a tie, no scale either
    assert coverage_text(tied, "A") == "1 of 4 workloads; degenerate: 3 (ties: S4), it beats random valid play on S2, S4"


def test_shared_leading_words_are_said_once():
    from schedrl.report.status_tables import shared_prefix_list

    assert shared_prefix_list(["discrete-image rate 0.9", "discrete-image rate 1"]) == "discrete-image rate 0.9, 1"
    assert shared_prefix_list(["S1", "S2", "S10"]) == "S1, S2, S10"
    assert shared_prefix_list(["rate 0.9"]) == "rate 0.9" and shared_prefix_list([]) == ""


def test_per_workload_words_place_the_median_seed_between_random_play_and_the_best_heuristic():
    """Each workload a player played goes to one group by its median over seeds against random valid
    play and the best heuristic, in the metric's direction; a degenerate workload (random play beats
    every heuristic) is said too; one lucky seed of three moves no word; natural order (S2 before S10)."""
    import pandas as pd

    from schedrl.report.status_tables import workload_words

    def row(workload, seed, value, rand=10.0, best=6.0, player="A", better="lower"):
        return {"workload": workload, "player": player, "seed": seed, "value": value, "random": rand,
                "best_heuristic_value": best, "better": better}

    rows = pd.DataFrame([row("S10", 0, 5.0), row("S10", 1, 5.5), row("S10", 2, 20.0),  # median 5.5 < 6
                         row("S2", 0, 8.0), row("S2", 1, 1.0), row("S2", 2, 9.0),  # median 8: one lucky seed
                         row("S3", 0, 11.0), row("S3", 1, 10.0), row("S3", 2, 12.0),  # median 11: worse than random
                         row("S4", 0, 9.0, rand=8.0, best=12.0),  # degenerate: beats the heuristic, not random
                         row("S1", 0, 5.0), row("S1", 1, 5.2), row("S1", 2, 5.1),
                         row("S9", 0, 1.0, player="B")])
    assert workload_words(rows, "A") == ("beats every heuristic on S1 (by 15%), S4 (by 25%), S10 (by 8.3%); between random valid "
                                         "play and the best heuristic on S2; no better than random valid play on S3")  # S1: 5.1 vs 6
    higher = rows[rows["workload"] == "S2"].assign(better="higher", random=2.0, best_heuristic_value=8.5)
    assert workload_words(higher, "A") == "between random valid play and the best heuristic on S2"  # 2 < 8 < 8.5
    assert workload_words(rows, "nobody") == ""


def test_name_ranges_say_counting_runs_by_their_ends():
    from schedrl.report.status_tables import name_ranges

    assert name_ranges(["S1", "S2", "S3", "S6", "S8", "S9", "S10"]) == "S1-S3, S6, S8-S10"
    assert name_ranges(["scenario 3", "scenario 6", "scenario 9"]) == "scenario 3, 6, 9"
    assert name_ranges(["rate 0.1", "rate 0.2", "rate 0.3"]) == "rate 0.1, 0.2, 0.3"  # not integers: listed
    assert name_ranges(["theta"]) == "theta" and name_ranges([]) == ""


def test_pooled_runs_with_their_own_random_draws_share_the_merged_scores_anchor():
    """Two runs whose random valid play drew differently: coverage and the per-workload words read
    the anchor the merged score uses (random play's mean over its seeds, the best heuristic's mean),
    not the first run's own column. Here run r0 alone would call S1 scaled (random 12 worse than the
    heuristic 10), run r1 degenerate (random 6): pooled random is 9, better than 10, so degenerate."""
    import pandas as pd

    from schedrl.report.status_tables import coverage_text, workload_words

    def row(run, player, role, seed, value, rand):
        return {"run": run, "paper": "p", "workload": "S1", "player": player, "role": role, "seed": seed,
                "metric": "mean_slowdown", "better": "lower", "value": value, "random": rand,
                "best_heuristic_value": 10.0, "anchor": "ok" if rand > 10 else "degenerate"}

    rows = pd.DataFrame([row("r0", "random valid", "random", 0, 12.0, 12.0), row("r0", "SJF", "heuristic", 0, 10.0, 12.0),
                         row("r0", "A", "agent", 0, 9.5, 12.0),
                         row("r1", "random valid", "random", 100, 6.0, 6.0), row("r1", "SJF", "heuristic", 0, 10.0, 6.0),
                         row("r1", "A", "agent", 1, 8.0, 6.0)])
    assert coverage_text(rows, "A") == "0 of 1 workloads; degenerate: 1, it beats random valid play on S1"  # 8.75 < 9
    assert workload_words(rows, "A") == "beats every heuristic on S1 (by 12%)"  # median 8.75 < 10
    assert workload_words(rows.assign(value=rows["value"].where(rows["player"] != "A", 9.5)), "A") == (
        "beats every heuristic on S1 (by 5.0%)")
    assert workload_words(rows.assign(value=rows["value"].where(rows["player"] != "A", 11.0)), "A") == (
        "no better than random valid play on S1")  # 11 is worse than the pooled random 9, not r0's 12


def _summary(label: str, scale: str, verdicts: list[str]):
    import pandas as pd

    from schedrl.report.status_tables import summarise_run

    rows = pd.DataFrame([{"run": label, "claim_id": f"c{i}", "claim": "c", "verdict": v, "ours": "1",
                          "random_verdict": "", "untrained_verdict": "", "scale": scale}
                         for i, v in enumerate(verdicts)])
    return summarise_run(rows, label)


def test_runs_bullet_groups_seeds_by_commit_and_says_counts_once_where_they_agree():
    """The status page's Runs bullet comes from the labels and rows alone: seeds of one date, commit and
    kind said as one range with their core-hours in seed order ("exact" once where every label says it),
    the verdict counts once where the runs agree and per seed where not."""
    from schedrl.report.status_tables import runs_text_of

    same = [_summary(f"2026-12-05, f9330cf, PPO at 4 M steps, seed {s} again (per-seed scores), faster kind, "
                     f"{h} core-h (exact)", "paper-budget", ["reproduced", "not reproduced"])
            for s, h in ((0, "1.44"), (1, "1.33"), (2, "1.37"))]
    assert runs_text_of(same) == ("seeds 0-2 again (2026-12-05, f9330cf, faster kind, 1.44 / 1.33 / 1.37 core-h exact): "
                                  "2: 1 R, 1 N each")
    apart = [_summary("2026-12-04, 226201c, recipe, seed 1, slower kind, 1.65 core-h", "paper-budget",
                      ["reproduced", "reproduced"]),
             _summary("2026-12-05, 3af029f, recipe, seed 2, faster kind, 1.53 core-h exact", "paper-budget",
                      ["reproduced", "partly reproduced"])]
    assert runs_text_of(apart) == ("seed 1 (2026-12-04, 226201c, slower kind, core-h 1.65): 2: 2 R; "
                                   "seed 2 (2026-12-05, 3af029f, faster kind, 1.53 core-h exact): 2: 1 R, 1 P")
    mixed = [_summary(f"2026-12-05, 7b920b6, tuned, seed {s}, faster kind, {h}", "tuned", v)
             for s, h, v in ((0, "1.26 core-h exact", ["reproduced"]), (1, "1.17 core-h", ["not reproduced"]))]
    assert runs_text_of(mixed) == ("seeds 0, 1 (2026-12-05, 7b920b6, faster kind, core-h 1.26 (exact) / 1.17): "
                                   "1 each: 1 R / 1 N")
    undated = [_summary("a run someone typed", "default", ["reproduced"])]
    assert runs_text_of(undated) == "(date not recorded, core-h not recorded): 1: 1 R"


def test_the_trained_agent_is_set_beside_the_untrained_network_it_started_from():
    """Which untrained row is an agent's (its network's name as whole words of the agent's name, the
    longest such), and the words for the two intervals: apart above, apart below, overlapping, one seed."""
    import pandas as pd

    from schedrl.report.normalised import learned_word, untrained_of

    def row(player, role, iqm, lo, hi, seeds=3):
        return {"player": player, "role": role, "iqm": iqm, "iqm_lo": lo, "iqm_hi": hi, "seeds": seeds}

    frame = pd.DataFrame([row("untrained Baseline", "untrained", -1.4, -1.5, -1.3),
                          row("untrained DRAS", "untrained", 0.1, -0.1, 0.3),
                          row("untrained compact + sparse + reduced", "untrained", -0.9, -1.0, -0.8),
                          row("untrained sparse", "untrained", 0.5, 0.4, 0.6)])
    assert untrained_of(frame, "PPO Baseline")["player"] == "untrained Baseline"
    assert untrained_of(frame, "DRAS agent")["player"] == "untrained DRAS"
    assert untrained_of(frame, "SEM agent (DRAS's process)") is None  # "DRAS's" is not the word "DRAS"
    assert untrained_of(frame, "PPO compact + sparse + reduced")["player"] == "untrained compact + sparse + reduced"
    start = pd.Series(row("u", "untrained", 0.0, -0.1, 0.1))
    assert learned_word(pd.Series(row("a", "agent", 0.5, 0.4, 0.6)), start) == "training gained"
    assert learned_word(pd.Series(row("a", "agent", -0.5, -0.6, -0.2)), start) == "training lost"
    assert learned_word(pd.Series(row("a", "agent", 0.05, -0.05, 0.2)), start) == "no gain from training"
    assert learned_word(pd.Series(row("a", "agent", 0.5, 0.5, 0.5, seeds=1)), start) == ""


def test_verdicts_over_seeds_count_the_claims_every_seed_agrees_on_and_list_the_others():
    """Issue 68: a seed is a separate recorded run, merged for the verdicts. Claims with one verdict on
    every run are counted; each other claim shows every run's verdict and value, in the runs' order;
    a claim only some runs recorded is left out; long values are cut at a word."""
    from schedrl.report.status_tables import _clip, seed_verdicts

    a = _summary("2026-12-05, abc1234, x, seed 0, faster kind, 1 core-h", "paper-budget",
                 ["reproduced", "not reproduced", "partly reproduced"])
    b = _summary("2026-12-06, def5678, x, seed 1, faster kind, 1 core-h", "paper-budget",
                 ["reproduced", "reproduced"])
    b.rows.loc[1, "ours"] = "2.5"
    same, total, rows = seed_verdicts([a, b])
    assert (same, total) == (1, 2)  # c0 agrees, c1 differs, c2 is a's alone
    assert rows == [["c", "N (1)", "R (2.5)"]]
    assert _clip("word " * 20, 30) == "word word word word word..." and _clip("short") == "short"


def test_runs_on_other_workloads_are_not_seeds_of_each_other():
    """mdp records each scenario as a run of its own: the verdicts over seeds compare only runs whose
    per-seed scores cover the same workloads, one table per such group, named by its workloads."""
    import pandas as pd

    from schedrl.report.status_tables import PaperStatus, paper_seed_lines

    runs = [_summary(f"2026-12-0{d}, abc1234, x, seed {s}, faster kind, 1 core-h", "paper-budget", verdicts)
            for d, s, verdicts in ((1, 0, ["reproduced"]), (2, 1, ["not reproduced"]), (3, 0, ["reproduced"]))]
    status = PaperStatus(paper="p", status_link="", default=None, budget=runs[-1], same_setup=[], runs=runs,
                         headline=[])
    status.merged = {"paper-budget": ([r.run for r in runs], None)}
    status.scores = pd.DataFrame({"run": [runs[0].run, runs[1].run, runs[2].run],
                                  "workload": ["scenario 3", "scenario 3", "scenario 6"]})
    lines = paper_seed_lines(status)
    assert lines[0] == "### `p`, paper budget (scenario 3): 0 of 1 claims the same on every run"
    assert "| c | R (1) | N (1) |" in lines
    assert not any("scenario 6" in line for line in lines)  # one run there: nothing to compare


def test_runs_of_one_commit_on_other_scenarios_say_which_scenario():
    """mdp's scenario-seeds of one commit would read "seeds 0, 0": a seed twice in a group splits it by
    what sets the runs' labels apart."""
    from schedrl.report.status_tables import runs_text_of, setup_tails

    runs = [_summary(f"2026-12-06, abc1234, paper budget (mdp_paper_budget), scenario {n}, seed {s}, faster kind, "
                     "1.2 core-h (exact)", "paper-budget", ["reproduced"]) for n, s in ((3, 0), (3, 1), (6, 0))]
    assert runs_text_of(runs) == ("scenario 3: seeds 0, 1 (2026-12-06, abc1234, faster kind, 1.2 / 1.2 core-h exact); "
                                  "scenario 6: seed 0 (2026-12-06, abc1234, faster kind, 1.2 core-h exact); "
                                  "each run 1: 1 R")
    assert setup_tails(["a, b", "a, c", "a"]) == ["b", "c", ""]


def test_scenario_seeds_of_several_commits_are_listed_under_their_scenario():
    """Each scenario-seed recorded at its own commit: every run sits under the scenario it trained, each
    scenario said once before its first run, in the order the scenarios were first recorded (the 9s1 run
    of its own commit once read as scenario 6's, listed after it without a name)."""
    from schedrl.report.status_tables import runs_text_of

    runs = [_summary(f"2026-12-0{d}, {code}, paper budget (mdp_paper_budget), scenario {n}, seed {s}, faster kind, "
                     "1.5 core-h", "paper-budget", ["reproduced"] if n != 6 else ["not reproduced"])
            for d, code, n, s in ((5, "aaa1111", 3, 0), (5, "bbb2222", 6, 0), (6, "ccc3333", 3, 1),
                                  (6, "ccc3333", 6, 1), (6, "ddd4444", 9, 1))]
    assert runs_text_of(runs) == (
        "scenario 3: seed 0 (2026-12-05, aaa1111, faster kind, core-h 1.5): 1: 1 R; "
        "seed 1 (2026-12-06, ccc3333, faster kind, core-h 1.5): 1: 1 R; "
        "scenario 6: seed 0 (2026-12-05, bbb2222, faster kind, core-h 1.5): 1: 1 N; "
        "seed 1 (2026-12-06, ccc3333, faster kind, core-h 1.5): 1: 1 N; "
        "scenario 9: seed 1 (2026-12-06, ddd4444, faster kind, core-h 1.5): 1: 1 R")


def test_the_default_is_also_scored_on_the_paper_budgets_fewer_workloads(tmp_path, capsys, monkeypatch):
    probed(monkeypatch, tmp_path)
    """deeprm's default trains on four variants and its paper budget on one: the status page says the
    default's best agent on the paper budget's workloads too, so the two scales are read on one set."""
    import pandas as pd

    from schedrl.report.normalised import aggregate, long_rows, scores
    from schedrl.report.status_tables import read_paper_status, status_page_block

    record = _write_record(tmp_path / "alpha" / "recorded_runs.csv")
    claims = tmp_path / "claims.csv"
    pd.DataFrame([{"paper": "alpha", "claim_id": "a", "claim": "claim a", "paper_value": "1", "ours": "1.0",
                   "verdict": R, "note": ""}]).to_csv(claims, index=False)

    def run_folder(name: str, scale: str, agent: dict) -> Path:
        rows = [long_rows("alpha", w, p, role, 0, "slowdown", "lower", v)
                for w in agent for p, role, v in (("random valid", "random", 10.0), ("SJF", "heuristic", 5.0))]
        rows += [long_rows("alpha", w, "PPO", "agent", 0, "slowdown", "lower", v) for w, v in agent.items()]
        scored = scores(pd.DataFrame(rows))
        folder = tmp_path / name
        folder.mkdir()
        scored.to_csv(folder / "scores.csv", index=False)
        aggregate(scored, reps=200, scale=scale).to_csv(folder / "aggregate.csv", index=False)
        return folder / "aggregate.csv"

    default = run_folder("default", "default", {"w1": 7.5, "w2": 5.0, "w3": 5.0})  # 0.5, 1, 1: IQM 1.0
    budget = run_folder("budget", "paper-budget", {"w1": 6.0})
    runs = (("2026-12-01, 1111111, default, 2 seeds", "default", default),
            ("2026-12-02, 2222222, paper budget, seed 0", "paper-budget", budget))
    for run, scale, folder in runs:
        assert main(["record", "--claims", str(claims), "--run", run, "--scale", scale, "--into", str(record),
                     "--normalised", str(folder)]) == 0
    block = " ".join(status_page_block(read_paper_status("alpha", record)).split())
    assert "PPO (1 seed; 0.50 on the paper budget's 1 workload)" in block
    budget_only = run_folder("budget3", "paper-budget", {"w1": 6.0, "w2": 6.0, "w3": 6.0})
    assert main(["record", "--claims", str(claims), "--run", "2026-12-03, 3333333, paper budget, seed 0",
                 "--scale", "paper-budget", "--into", str(record), "--normalised", str(budget_only)]) == 0
    assert "on the paper budget's" not in status_page_block(read_paper_status("alpha", record))  # one set: said once
