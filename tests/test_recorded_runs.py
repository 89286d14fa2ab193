"""Recorded default runs' verdicts: ``schedrl record`` keeps them, the report shows them side by side
and marks the claims whose verdict changed."""

from __future__ import annotations

import pandas as pd
import pytest

from schedrl.cli import main
from schedrl.commands.record import recorded_path
from schedrl.report.claims import write_claims
from schedrl.report.recorded import budget_side_by_side, read_recorded, side_by_side
from schedrl.report.render import PaperInfo, render_report


def _claims(path, verdicts: dict[str, str], paper: str = "alpha"):
    rows = [{"paper": paper, "claim_id": cid, "claim": f"claim {cid}", "paper_value": "1", "ours": "1",
             "verdict": v, "note": "", **({"random_verdict": "reproduced"} if cid == "rl" else {})}
            for cid, v in verdicts.items()]
    write_claims(path, rows)
    return path


def test_record_replaces_a_run_and_keeps_the_others(tmp_path, capsys):
    into = tmp_path / "recorded_runs.csv"
    old = _claims(tmp_path / "old.csv", {"rl": "reproduced", "t4": "not reproduced"})
    new = _claims(tmp_path / "new.csv", {"rl": "not reproduced", "t4": "not reproduced", "extra": "partly reproduced"})
    assert main(["record", "--claims", str(old), "--run", "2026-01-01 old", "--into", str(into)]) == 0
    assert main(["record", "--claims", str(new), "--run", "2026-01-02 new", "--into", str(into),
                 "--source", "the run's claims.csv"]) == 0
    # recording the first run again replaces its rows, it does not add a third run
    assert main(["record", "--claims", str(old), "--run", "2026-01-01 old", "--into", str(into)]) == 0
    frame = read_recorded(into)
    assert list(dict.fromkeys(frame["run"])) == ["2026-01-02 new", "2026-01-01 old"]
    assert len(frame) == 5
    got = frame.set_index(["run", "claim_id"])
    assert got.loc[("2026-01-01 old", "rl"), "random_verdict"] == "reproduced"
    assert got.loc[("2026-01-02 new", "rl"), "source"] == "the run's claims.csv"
    assert capsys.readouterr().out.strip().splitlines()[-1].endswith("2 run(s) recorded")


def test_side_by_side_marks_changes_and_missing_records(tmp_path):
    recorded = pd.DataFrame([
        {"run": "a", "claim_id": "rl", "claim": "RL", "verdict": "reproduced"},
        {"run": "a", "claim_id": "t4", "claim": "T4", "verdict": "partly reproduced"},
        {"run": "b", "claim_id": "rl", "claim": "RL", "verdict": "not reproduced"},
        {"run": "b", "claim_id": "t4", "claim": "T4", "verdict": "partly reproduced"},
        {"run": "b", "claim_id": "new", "claim": "New", "verdict": "not comparable"},
    ])
    table = side_by_side(recorded).set_index("claim_id")
    assert table.loc["rl", ["a", "b", "changed"]].tolist() == ["R", "N", "yes"]
    assert table.loc["t4", ["a", "b", "changed"]].tolist() == ["P", "P", ""]
    # a claim one run did not have is no change
    assert table.loc["new", ["a", "b", "changed"]].tolist() == ["-", "C", ""]
    current = pd.DataFrame([{"claim_id": "t4", "claim": "T4", "verdict": "reproduced"}])
    table = side_by_side(recorded, current).set_index("claim_id")
    assert table.loc["t4", ["this build", "changed"]].tolist() == ["R", "yes"]
    assert table.loc["rl", "this build"] == "-"


def test_report_shows_recorded_runs_and_this_build_only_at_default_scale(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    claims = _claims(tmp_path / "results" / "alpha" / "claims.csv", {"rl": "not reproduced", "t4": "reproduced"})
    recorded = pd.DataFrame([{"run": "2026-01-01 old", "claim_id": "rl", "claim": "claim rl", "verdict": "reproduced",
                              "ours": "", "random_verdict": "", "untrained_verdict": "", "source": "status.md"}])
    papers = {"alpha": PaperInfo("Alpha paper", recorded=recorded)}
    text, _ = render_report([claims], [], "default", papers)
    section = text[text.index("### Verdicts across recorded runs (1)"):]
    assert "| rl | claim rl | R | N | yes |" in section and "1 of 2 claims changed verdict" in section
    assert "- *2026-01-01 old*: status.md" in section
    text, _ = render_report([claims], [], "smoke", papers)  # smoke verdicts are not set beside default runs
    section = text[text.index("### Verdicts across recorded runs (1)"):text.index("### All claims")]
    assert "this build" not in section and "| rl | claim rl | R |  |" in section


@pytest.mark.parametrize("content, needles", [
    ("run,claim_id\n", ["lacks column", "verdict"]),
    ("run,claim_id,claim,verdict,ours,random_verdict,untrained_verdict,source\na,c,C,won,,,,x\n", [":2:", "'won'"]),
    ("run,claim_id,claim,verdict,ours,random_verdict,untrained_verdict,source\n"
     "a,c,C,reproduced,,,,x\na,c,C,reproduced,,,,x\n", [":3:", "recorded twice"]),
])
def test_bad_recorded_file_is_one_line_naming_it(tmp_path, capsys, content, needles):
    into = tmp_path / "recorded_runs.csv"
    into.write_text(content)
    claims = _claims(tmp_path / "c.csv", {"rl": "reproduced"})
    assert main(["record", "--claims", str(claims), "--run", "r", "--into", str(into)]) != 0
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and str(into) in err[0] and "Traceback" not in err[0]
    assert all(n in err[0] for n in needles), err[0]


def test_record_refuses_a_table_of_two_papers_and_an_empty_name(tmp_path, capsys):
    a = _claims(tmp_path / "a.csv", {"x": "reproduced"})
    frame = pd.concat([pd.read_csv(a), pd.read_csv(_claims(tmp_path / "b.csv", {"y": "reproduced"}, paper="beta"))])
    frame.to_csv(tmp_path / "both.csv", index=False)
    assert main(["record", "--claims", str(tmp_path / "both.csv"), "--run", "r", "--into", str(tmp_path / "o.csv")]) != 0
    assert "2 papers" in capsys.readouterr().err
    assert main(["record", "--claims", str(a), "--run", " ", "--into", str(tmp_path / "o.csv")]) != 0
    assert "--run is empty" in capsys.readouterr().err
    assert not (tmp_path / "o.csv").exists()


def test_a_run_on_stand_in_trace_splits_must_say_so(tmp_path, capsys, monkeypatch):
    import json

    monkeypatch.chdir(tmp_path)
    claims = _claims(tmp_path / "c.csv", {"x": "reproduced"}, paper="sem")
    split = tmp_path / "results" / "workloads" / "sem" / "theta"
    split.mkdir(parents=True)
    (split / "split.json").write_text(json.dumps({"stand_in": True}))
    into = tmp_path / "o.csv"
    assert main(["record", "--claims", str(claims), "--run", "2026-01-01 r", "--into", str(into)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "theta/split.json" in err and "stand-in" in err
    assert not into.exists()
    assert main(["record", "--claims", str(claims), "--run", "2026-01-01 r, stand-in traces", "--into", str(into)]) == 0
    (split / "split.json").write_text(json.dumps({"stand_in": False}))  # the real trace: recorded as usual
    assert main(["record", "--claims", str(claims), "--run", "2026-01-02 r", "--into", str(into)]) == 0


def test_every_paper_recorded_file_reads():
    for paper in ("deeprm", "mdp", "mrsch", "runtime", "sem"):
        frame = read_recorded(recorded_path(paper))  # absent is no runs; present must be well formed
        assert set(frame["verdict"]) <= {"reproduced", "partly reproduced", "not reproduced", "not comparable"}


def _rl_claims(path, rows, paper: str = "alpha"):
    write_claims(path, [{"paper": paper, "claim_id": cid, "claim": f"claim {cid}", "paper_value": "3.9", "ours": ours,
                         "verdict": verdict, "note": "", "ci95": ci, "trend": trend, "random_verdict": rnd,
                         "untrained_verdict": "not reproduced" if rnd else ""}
                        for cid, ours, verdict, ci, trend, rnd in rows])
    return path


def test_paper_budget_run_is_recorded_with_its_scale_and_values_beside_the_default(tmp_path):
    into = tmp_path / "recorded_runs.csv"
    default = _rl_claims(tmp_path / "d.csv", [("rl-a", "9.47", "not reproduced", "[8.5, 10.4]", "flat", "not reproduced"),
                                              ("rl-b", "3.0", "reproduced", "", "flat", "reproduced"),
                                              ("sim", "4.93", "reproduced", "", "", "")])
    budget = _rl_claims(tmp_path / "b.csv", [("rl-a", "3.8", "reproduced", "[3.6, 4.0]", "toward paper", "not reproduced"),
                                             ("rl-b", "n/a", "not comparable", "", "", ""),
                                             ("sim", "4.93", "reproduced", "", "", "")])
    assert main(["record", "--claims", str(default), "--run", "2026-11-28, abc, 300k", "--into", str(into)]) == 0
    assert main(["record", "--claims", str(budget), "--run", "2026-11-29, def, paper budget 1 M", "--into", str(into),
                 "--scale", "paper-budget"]) == 0
    frame = read_recorded(into)
    assert frame.drop_duplicates("run").set_index("run")["scale"].to_dict() == {
        "2026-11-28, abc, 300k": "default", "2026-11-29, def, paper budget 1 M": "paper-budget"}
    table, d, b = budget_side_by_side(frame)
    assert (d, b) == ("2026-11-28, abc, 300k", "2026-11-29, def, paper budget 1 M")
    table = table.set_index("claim_id")
    assert list(table.index) == ["rl-a", "rl-b"]  # the simulator's claim is no RL claim
    assert table.loc["rl-a", ["paper", "default: ours", "default: 95% CI", "paper budget: ours",
                              "paper budget: 95% CI", "paper budget: trend", "paper budget: verdict"]].tolist() == [
        "3.9", "9.47", "[8.5, 10.4]", "3.8", "[3.6, 4.0]", "toward paper", "R (N/N)"]
    # a claim whose agents the paper-budget run did not train (not comparable, no value) says so
    assert table.loc["rl-b", ["default: verdict", "paper budget: ours", "paper budget: verdict"]].tolist() == [
        "R (R/N)", "not run", "not run"]


def test_a_file_recorded_before_the_scale_column_reads_as_default_runs(tmp_path):
    old = tmp_path / "recorded_runs.csv"
    old.write_text("run,claim_id,claim,verdict,ours,random_verdict,untrained_verdict,source\n"
                   "r,c,C,reproduced,1,reproduced,,x\n")
    frame = read_recorded(old)
    assert frame.loc[0, "scale"] == "default" and frame.loc[0, "ci95"] == ""
    table, d, b = budget_side_by_side(frame)
    assert (d, b) == ("r", None) and table.loc[0, "paper budget: ours"] == "not run"


def test_report_says_when_no_paper_budget_run_is_recorded_and_that_sems_default_is_its_budget(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    claims = [_claims(tmp_path / "results" / p / "claims.csv", {"rl": "reproduced"}, paper=p) for p in ("alpha", "sem")]
    recorded = pd.DataFrame([{"run": "2026-01-01 old", "claim_id": "rl", "claim": "claim rl", "verdict": "reproduced",
                              "ours": "1", "random_verdict": "not reproduced", "untrained_verdict": "",
                              "source": "x"}])
    papers = {"alpha": PaperInfo("Alpha paper", recorded=recorded), "sem": PaperInfo("SEM", recorded=recorded)}
    text, _ = render_report(claims, [], "default", papers)
    alpha = text[text.index("## Alpha paper"):text.index("## SEM")]
    assert "### RL claims at the default budget and at the paper's" in alpha
    assert "No run at the paper's budget is recorded yet" in alpha and "| rl | claim rl |" in alpha
    assert "already trains at the paper's budget" in text[text.index("## SEM"):]
    assert "Verdicts over seeds" not in text  # no paper stands on several runs here
    seeds = ["#### `alpha`, paper budget: 3 of 4 claims the same on every run", ""]
    papers["alpha"].seed_verdicts = seeds
    text, _ = render_report(claims, [], "default", papers)
    alpha = text[text.index("## Alpha paper"):text.index("## SEM")]
    assert "### Verdicts over seeds" in alpha and seeds[0] in alpha
    assert alpha.index("### RL claims at the default budget") < alpha.index("### Verdicts over seeds")


def test_status_history_is_folded_and_its_markdown_still_renders(tmp_path, monkeypatch):
    from schedrl.report.render import render_html, status_lines

    status = "Current: **15 R**.\n\n## History\n\n**2026-11-25 run**\n\n| a | b |\n| --- | --- |\n| 1 | 2 |\n"
    lines = status_lines(status)
    assert lines[0] == "Current: **15 R**." and lines[-1] == "</details>"
    assert status_lines("no history heading") == ["no history heading"]
    html_text = render_html("\n".join(lines), tmp_path)
    body = html_text[html_text.index("<details"):html_text.index("</details>")]
    assert "<strong>2026-11-25 run</strong>" in body and "<table>" in body


def test_the_cli_offers_every_recorded_scale():
    from schedrl.commands.record import SCALES as CLI_SCALES
    from schedrl.report.recorded import SCALES

    assert CLI_SCALES == SCALES and "tuned" in SCALES
