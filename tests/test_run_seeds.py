"""scripts/run_seeds.py: one seed of a paper-budget or tuned run at a time, each with its normalised
scores, claims and the `schedrl record` command whose label sums the seed's timed segments."""

from __future__ import annotations

import importlib.util
import json
import shlex
from pathlib import Path

import pytest

from schedrl.report.normalised import MISSING, missing_files

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "run_seeds.py"


@pytest.fixture
def rs():
    spec = importlib.util.spec_from_file_location("run_seeds", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_dry_run_prints_each_seeds_commands_in_merge_order(rs, capsys):
    # --again: the committed records hold some of these seeds, which a plain run would skip
    assert rs.main(["deeprm", "--scale", "tuned", "--seeds", "1", "2", "--dry-run", "--again", "--out", "o"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 4
    train = shlex.split(lines[2])
    assert train[train.index("--") + 1:train.index("--configfile")] == [
        "snakemake", "deeprm_paper_budget", "--cores", "1", "--rerun-incomplete"]
    assert train[train.index("--configfile") + 1:] == ["config/paper-budget.yaml", "config/tuned/deeprm.yml",
                                                        "config/seed/2.yaml"]
    assert train[train.index("--record") + 1].endswith("o/tuned/seed2/segments.jsonl")
    normalised = shlex.split(lines[3])
    assert normalised[normalised.index("--") + 1:][:4] == ["schedrl", "normalised", "--paper", "deeprm"]
    assert normalised[normalised.index("--scale") + 1] == "tuned"


def test_papers_without_seed_overlays_and_missing_overlays_are_one_line(rs, capsys):
    with pytest.raises(SystemExit) as e:
        rs.main(["sem"])
    assert e.value.code == 2 and "sem trains its seeds as one run" in capsys.readouterr().err
    with pytest.raises(SystemExit, match=r"config/seed/9.yaml: no such file"):
        rs.main(["runtime", "--seeds", "9", "--dry-run"])


def test_the_label_sums_the_segments_and_says_so(rs):
    one = [{"date": "2026-12-03T11:21:44+00:00", "commit": "0143868", "core_hours": 0.26}]
    assert rs.label(one, "tuned recipe", 0, "faster") == ("2026-12-03, 0143868, tuned recipe, seed 0, faster kind, "
                                                          "0.26 core-h (exact)")
    two = one + [{"date": "2026-12-04T08:00:00+00:00", "commit": "abcdef0", "core_hours": 0.5}]
    assert rs.label(two, "x", 1, "slower").endswith("seed 1, slower kind, 0.76 core-h (exact, 2 segments summed)")
    killed = [{**one[0], "exit": "killed"}, two[1]]
    assert rs.label(killed, "x", 1, "slower").endswith(
        "0.76 core-h (2 segments summed, 1 killed: CPU to their last minute)")


def test_a_seed_runs_its_steps_writes_its_record_and_is_skipped_once_done(rs, tmp_path, monkeypatch, capsys):
    root = tmp_path / "repo"
    for f in ("config/paper-budget.yaml", "config/seed/0.yaml", "results/runtime/claims.csv"):
        (root / f).parent.mkdir(parents=True, exist_ok=True)
        (root / f).write_text("x\n")
    monkeypatch.setattr(rs, "ROOT", root)
    monkeypatch.setattr(rs, "machine_kind", lambda: "faster")
    calls = []

    def fake_run(command, cwd, env, **kw):
        if command[1:3] == ["runtime", "cost"]:  # the cost model's line, printed before the seed starts
            return type("Done", (), {"returncode": 0, "stdout": "~1.7 core-hours: 2 PPO runs\n"})()
        calls.append(command)
        assert env["PATH"].split(rs.os.pathsep)[0] == str(Path(rs.sys.executable).parent)
        record = Path(command[command.index("--record") + 1])
        rest = command[command.index("--") + 1:]
        with record.open("a") as fh:
            fh.write(json.dumps({"date": "2026-12-03T12:00:00+00:00", "commit": "1234567", "command": rest,
                                 "core_hours": 0.4 if rest[0] == "snakemake" else 0.05}) + "\n")
        if rest[1] == "normalised":
            _write_gaps(Path(rest[rest.index("--out-dir") + 1]), gaps)
        return type("Done", (), {"returncode": 0})()

    monkeypatch.setattr(rs.subprocess, "run", fake_run)
    out = tmp_path / "seeds"
    # an input of the normalised scores the target did not build: no record, one line naming it
    gaps = [{"paper": "runtime", "player": "uniform over all actions", "gap": f"results/u.csv {MISSING}"},
            {"paper": "runtime", "player": "paper's NN2", "gap": "not placed: no such workload"}]
    assert rs.main(["runtime", "--seeds", "0", "--out", str(out), "--what", "baseline 4 M"]) == 1
    assert not (out / "paper-budget" / "seed0" / "record.txt").exists()
    err = capsys.readouterr().err
    assert "did not build 1 input(s) of the normalised scores (results/u.csv)" in err
    assert "runtime paper-budget seed 0, modelled: ~1.7 core-hours: 2 PPO runs" in err
    gaps, calls[:] = gaps[1:], []  # built: a gap that is no file does not stop the record
    (out / "paper-budget" / "seed0" / "segments.jsonl").unlink()
    assert rs.main(["runtime", "--seeds", "0", "--out", str(out), "--what", "baseline 4 M"]) == 0
    record = (out / "paper-budget" / "seed0" / "record.txt").read_text()
    assert (out / "paper-budget" / "seed0" / "claims.csv").read_text() == "x\n" and len(calls) == 2
    run = shlex.split(record)[shlex.split(record).index("--run") + 1]
    assert run == "2026-12-03, 1234567, baseline 4 M, seed 0, faster kind, 0.40 core-h (exact)"  # normalised not counted
    assert "--scale paper-budget" in record and "seed0/normalised/aggregate.csv" in record
    assert rs.main(["runtime", "--seeds", "0", "--out", str(out)]) == 0 and len(calls) == 2  # done: skipped
    assert "seed 0 done" in capsys.readouterr().err


def _write_gaps(out: Path, gaps: list[dict]):
    import pandas as pd

    out.mkdir(parents=True, exist_ok=True)
    pd.DataFrame(gaps, columns=["paper", "player", "gap"]).to_csv(out / "gaps.csv", index=False)


@pytest.mark.parametrize(("paper", "scale"), [*((p, s) for s in ("paper-budget", "tuned")
                                                 for p in ("deeprm", "mdp", "runtime", "mrsch")),
                                               *((p, "default") for p in ("sem", "mdp", "deeprm", "mrsch", "runtime"))])
def test_each_seeds_target_builds_every_input_of_its_normalised_scores(rs, paper, scale, tmp_path, monkeypatch):
    """What `schedrl normalised` reads for a seed (its missing-file gaps, with nothing on disk) is in the
    DAG of the seed's Snakemake target (`--summary`), but for what NOT_BUILT leaves out by design: a
    player left out of the target (uniform play was, for runtime and mdp) is a player missing from the
    recorded seed's scale."""
    import re
    import subprocess

    from schedrl.commands.normalised import paper_long_table
    from schedrl.config import load_yaml, merge_config

    root = SCRIPT.parents[1]
    configs = rs.configs_of(paper, scale, 0, [])
    config = load_yaml(root / "config" / "config.yaml")
    for f in configs:
        config = merge_config(config, load_yaml(root / f) or {})
    monkeypatch.chdir(tmp_path)  # nothing on disk: every input is a missing-file gap
    wanted = missing_files(paper_long_table(paper, config)[1])
    monkeypatch.chdir(root)
    assert wanted
    exe = Path(rs.sys.executable).parent / "snakemake"
    proc = subprocess.run([str(exe), rs.target_of(paper, scale), "--summary", "--configfile", *configs],
                          capture_output=True, text=True, cwd=root)
    assert proc.returncode == 0, proc.stderr[-2000:]
    built = {line.split("\t")[0] for line in proc.stdout.splitlines()[1:]}
    pattern = rs.NOT_BUILT.get((paper, scale), (None,))[0]
    assert [f for f in wanted if f not in built and not (pattern and re.search(pattern, f))] == []


def test_mdps_tuned_recipe_runs_mdp_tuned_and_is_recorded_without_claims(rs, capsys):
    """mdp's tuned run is its C+S+R seeds and their references (mdp_tuned), which write no claims:
    the record command gives the normalised aggregate alone."""
    assert rs.main(["mdp", "--scale", "tuned", "--seeds", "0", "--dry-run", "--again", "--out", "o"]) == 0
    train = shlex.split(capsys.readouterr().out.splitlines()[0])
    assert train[train.index("--") + 1:train.index("--") + 3] == ["snakemake", "mdp_tuned"]
    record = shlex.split(rs.record_command("mdp", "tuned", Path("o/tuned/seed0"), "r"))
    assert "--claims" not in record and record[record.index("--normalised") + 1] == "o/tuned/seed0/normalised/aggregate.csv"
    assert "--claims" in rs.record_command("mdp", "paper-budget", Path("o"), "r")


def test_an_mdp_scenario_alone_is_a_seed_of_its_own(rs, capsys, tmp_path):
    """--scenario N: mdp's paper-budget seed of one scenario (~1.2-1.7 core-h where the three are ~4.6),
    an overlay beside the seed's files setting mdp.scenarios, files under scenarioN/; other papers refuse."""
    assert rs.main(["mdp", "--seeds", "1", "--scenario", "6", "--dry-run", "--again", "--out", str(tmp_path)]) == 0
    train, normalised = (shlex.split(line) for line in capsys.readouterr().out.splitlines())
    overlay = str(tmp_path / "paper-budget" / "scenario6" / "seed1" / "scenario.yaml")
    for command in (train, normalised):
        assert command[command.index("config/paper-budget.yaml") + 1:][:2] == [overlay, "config/seed/1.yaml"]
    assert not Path(overlay).exists()  # a dry run writes nothing
    # several scenarios: each seed's scenarios in turn (a whole seed first), each its own run and folder
    assert rs.main(["mdp", "--seeds", "0", "1", "--scenario", "3", "9", "--dry-run", "--again", "--out", str(tmp_path)]) == 0
    trains = [shlex.split(line) for line in capsys.readouterr().out.splitlines() if "snakemake" in line]
    assert [c[c.index("config/paper-budget.yaml") + 1:][:2] for c in trains] == [
        [str(tmp_path / "paper-budget" / f"scenario{n}" / f"seed{s}" / "scenario.yaml"), f"config/seed/{s}.yaml"]
        for s in (0, 1) for n in (3, 9)]
    with pytest.raises(SystemExit):
        rs.main(["runtime", "--scenario", "3", "--dry-run"])
    assert "--scenario is mdp's" in capsys.readouterr().err
    with pytest.raises(SystemExit):  # before any folder is made
        rs.main(["mdp", "--scenario", "3", "42", "--dry-run", "--out", str(tmp_path / "x")])
    assert "--scenario 42: the MDP paper's Table 3 has scenarios 1..10" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def test_mrschs_seed_overlay_trains_that_seed_of_the_main_agents_alone(rs, capsys):
    """mrsch's seeds are runs of their own too: config/seed/<n>.yaml sets mrsch.agent_seed (the base
    folders' agents) and no extra seeds, on the job sets of mrsch.seed."""
    import yaml

    assert rs.main(["mrsch", "--seeds", "2", "--dry-run", "--again", "--out", "o"]) == 0
    train = shlex.split(capsys.readouterr().out.splitlines()[0])
    assert train[train.index("--") + 1:train.index("--") + 3] == ["snakemake", "mrsch_paper_budget"]
    assert train[-1] == "config/seed/2.yaml"
    for n in (0, 1, 2):
        overlay = yaml.safe_load((SCRIPT.parents[1] / "config" / "seed" / f"{n}.yaml").read_text())
        assert overlay["mrsch"] == {"agent_seed": n, "extra_seeds": []}


def test_a_killed_segments_stale_lock_is_removed_before_the_seed_resumes(rs, tmp_path, monkeypatch, capsys):
    """A session cut off leaves timed_run's heartbeat file of a process that is gone, and Snakemake's
    lock: the resumed seed unlocks first. A heartbeat of a live process (a run still going) is left alone."""
    root = tmp_path / "repo"
    for f in ("config/paper-budget.yaml", "config/seed/0.yaml"):
        (root / f).parent.mkdir(parents=True, exist_ok=True)
        (root / f).write_text("x\n")
    monkeypatch.setattr(rs, "ROOT", root)
    seed_dir = tmp_path / "seeds" / "paper-budget" / "seed0"
    seed_dir.mkdir(parents=True)
    assert not rs.killed_segment(seed_dir)
    (seed_dir / f"segments.jsonl.open-{rs.os.getpid()}.json").write_text("{}")
    assert not rs.killed_segment(seed_dir)  # this process lives: its run holds the lock rightly
    (seed_dir / f"segments.jsonl.open-{rs.os.getpid()}.json").unlink()
    dead = rs.subprocess.Popen([rs.sys.executable, "-c", "pass"])
    dead.wait()
    (seed_dir / f"segments.jsonl.open-{dead.pid}.json").write_text("{}")
    assert rs.killed_segment(seed_dir)
    calls = []
    monkeypatch.setattr(rs.subprocess, "run", lambda command, cwd, env, **kw: (
        calls.append(command), type("Failed", (), {"returncode": 1})())[1])
    assert rs.main(["runtime", "--seeds", "0", "--out", str(tmp_path / "seeds"), "--kind", "slower"]) == 1
    assert calls[0] == ["snakemake", "runtime_paper_budget", "--unlock", "--configfile", "config/paper-budget.yaml",
                        "config/seed/0.yaml"]
    assert calls[1][1:3] == ["runtime", "cost"]  # failed here: no cost line, the seed goes on
    assert "--unlock" not in calls[2] and "last segment was killed" in capsys.readouterr().err


def test_a_paper_reading_a_missing_real_trace_is_refused_before_it_trains(rs, tmp_path, monkeypatch, capsys):
    """mrsch reads Theta: without it in traces.dirs the pipeline trains on a synthetic stand-in, and a
    seed recorded on it is not comparable with the others (a clone outside the checkout's folder, no
    ../shared, did exactly that): one line, exit 2, nothing run; --allow-stand-in runs anyway."""
    root = tmp_path / "repo"
    files = {"config/config.yaml": "traces: {dirs: [data/raw, ../shared/traces]}\n"
                                   "workloads:\n  traces:\n    theta: {file: theta_2022.swf}\n  mrsch: {trace: theta}\n",
             "config/paper-budget.yaml": "scale: paper-budget\n", "config/seed/2.yaml": "seed: 0\n"}
    for f, text in files.items():
        (root / f).parent.mkdir(parents=True, exist_ok=True)
        (root / f).write_text(text)
    monkeypatch.setattr(rs, "ROOT", root)
    calls = []
    monkeypatch.setattr(rs.subprocess, "run", lambda command, cwd, env, **kw: (
        calls.append(command), type("Failed", (), {"returncode": 1})())[1])
    args = ["mrsch", "--seeds", "2", "--out", str(tmp_path / "seeds"), "--kind", "faster"]
    assert rs.main(args) == 2 and not calls
    err = capsys.readouterr().err
    assert "theta_2022.swf not found" in err and "stand-in" in err and len(err.strip().splitlines()) == 1
    assert rs.missing_traces("runtime", ["config/paper-budget.yaml"]) == []  # synthetic workloads only
    assert rs.main([*args, "--allow-stand-in"]) == 1 and calls                # runs (the fake run fails)
    calls.clear()
    (tmp_path / "shared" / "traces").mkdir(parents=True)
    (tmp_path / "shared" / "traces" / "theta_2022.swf").write_text("; a trace\n")
    assert rs.missing_traces("mrsch", ["config/paper-budget.yaml", "config/seed/2.yaml"]) == []
    assert rs.main(args) == 1 and calls                                        # found: it runs


def test_a_default_run_is_the_papers_own_target_once_with_its_configs_seeds(rs, capsys):
    """--scale default: `snakemake <paper>` on config/config.yaml (no seed overlay: the default run
    trains the seeds config.yaml gives), its normalised scores at scale default, files under
    OUT/default/<paper>/, a label without a seed; any paper, sem included; --seeds is refused."""
    assert rs.main(["sem", "--scale", "default", "--dry-run", "--out", "o", "--config", "config/smoke.yaml"]) == 0
    train, normalised = (shlex.split(line) for line in capsys.readouterr().out.splitlines())
    assert train[train.index("--") + 1:train.index("--configfile")] == ["snakemake", "sem", "--cores", "1",
                                                                        "--rerun-incomplete"]
    assert train[train.index("--configfile") + 1:] == ["config/config.yaml", "config/smoke.yaml"]
    assert train[train.index("--record") + 1].endswith("o/default/sem/segments.jsonl")
    assert normalised[normalised.index("--scale") + 1] == "default"
    assert normalised[normalised.index("--config") + 1:normalised.index("--scale")] == ["config/config.yaml",
                                                                                        "config/smoke.yaml"]
    one = [{"date": "2026-12-05T20:00:00+00:00", "commit": "3b824d9", "core_hours": 1.9}]
    assert rs.label(one, "default (deeprm)", None, "faster") == ("2026-12-05, 3b824d9, default (deeprm), faster kind, "
                                                                 "1.90 core-h (exact)")
    assert "--scale default" in rs.record_command("deeprm", "default", Path("o/default/deeprm"), "r")
    with pytest.raises(SystemExit) as e:
        rs.main(["deeprm", "--scale", "default", "--seeds", "1", "--dry-run"])
    assert e.value.code == 2 and "not for --scale default" in capsys.readouterr().err


def test_mdps_scenario_seeds_are_put_together_once_each_seed_has_every_scenario(rs, tmp_path, monkeypatch, capsys):
    """--scenario 3 9 --seeds 0 1: after seed 0's two scenario runs, the seeds so far (0) are put together
    over both scenarios (mdp_paper_budget under mtime triggers with SJF and uniform play forced, an overlay
    of the scenarios and seeds, claims alone recorded, the runs' core-hours and its own summed in the
    label); after seed 1's, seeds 0 and 1. A dry run that would retrain stops it before it runs."""
    root = tmp_path / "repo"
    for f in ("config/paper-budget.yaml", "config/seed/0.yaml", "config/seed/1.yaml", "results/mdp/claims.csv"):
        (root / f).parent.mkdir(parents=True, exist_ok=True)
        (root / f).write_text("x\n")
    monkeypatch.setattr(rs, "ROOT", root)
    calls, retrain = [], []

    def fake_run(command, cwd, env, **kw):
        if command[1:3] == ["mdp", "cost"]:
            return type("Done", (), {"returncode": 0, "stdout": ""})()
        if command[-1] == "-n":  # the together step's dry run: its job table
            return type("Done", (), {"returncode": 0, "stdout": "Job stats:\njob  count\n" + "".join(retrain)})()
        calls.append(command)
        if "--unlock" in command:
            return type("Done", (), {"returncode": 0})()
        rest = command[command.index("--") + 1:]
        with Path(command[command.index("--record") + 1]).open("a") as fh:
            fh.write(json.dumps({"date": "2026-12-06T10:00:00+00:00", "commit": "abc1234", "command": rest,
                                 "core_hours": 1.0 if rest[0] == "snakemake" else 0.01}) + "\n")
        if rest[1] == "normalised":
            _write_gaps(Path(rest[rest.index("--out-dir") + 1]), [])
        return type("Done", (), {"returncode": 0})()

    monkeypatch.setattr(rs.subprocess, "run", fake_run)
    out = tmp_path / "seeds"
    retrain.append("mdp_train  2\n")
    assert rs.main(["mdp", "--seeds", "0", "1", "--scenario", "9", "3", "--out", str(out), "--kind", "faster"]) == 1
    assert "would run mdp_train" in capsys.readouterr().err
    retrain.clear()
    calls.clear()
    # a together step killed (its heartbeat names a process that is gone): its lock is removed before it resumes
    (out / "paper-budget" / "together-scenarios3-9-seeds0" / "segments.jsonl.open-999999999.json").write_text(
        json.dumps({"date": "2026-12-06T09:00:00+00:00", "commit": "abc1234", "command": ["snakemake"], "cpu_s": 0}))
    assert rs.main(["mdp", "--seeds", "0", "1", "--scenario", "9", "3", "--out", str(out), "--kind", "faster"]) == 0
    assert [c[:3] for c in calls if "--unlock" in c] == [["snakemake", "mdp_paper_budget", "--unlock"]]
    calls[:] = [c for c in calls if "--unlock" not in c]
    together = [c for c in calls if "--rerun-triggers" in c]
    assert len(together) == 2 and len(calls) == 2 * 2 + 2  # seed 1's two runs (each with its normalised) + two steps
    first = together[0]
    assert first[first.index("--forcerun") + 1:first.index("--forcerun") + 3] == ["mdp_sjf", "mdp_uniform"]
    overlay = Path(first[-1])
    assert overlay.parent.name == "together-scenarios3-9-seeds0" and "seeds: [0]" in overlay.read_text()
    assert "scenarios: [3, 9]" in overlay.read_text() and "config/seed/0.yaml" not in first
    record = shlex.split((out / "paper-budget" / "together-scenarios3-9-seeds0-1" / "record.txt").read_text())
    assert "--normalised" not in record and record[record.index("--claims") + 1].endswith("seeds0-1/claims.csv")
    assert record[record.index("--run") + 1] == (
        "2026-12-06, abc1234, paper budget (mdp_paper_budget), scenarios 3 and 9 together (the 4 scenario-seed runs), "
        "seeds 0-1, faster kind, 5.00 core-h (the runs' and this step's summed)")
    from schedrl.report.status_tables import parse_label

    label = parse_label(record[record.index("--run") + 1])
    assert (label.seeds, label.core_h, label.kind) == ("seeds 0-1", "5.00", "faster")
    assert label.description == "paper budget (mdp_paper_budget), scenarios 3 and 9 together (the 4 scenario-seed runs)"


def test_a_seed_the_records_hold_is_skipped_and_not_put_together(rs, tmp_path, monkeypatch, capsys):
    """A machine is not kept between sessions: a scenario-seed recorded from another one has no record.txt
    here, but the paper's recorded_scores.csv holds its agents' rows, so it is not trained again (--again
    does), and the seed whose scenarios are not all on this disk is not put together (one line says so)."""
    import pandas as pd

    root = tmp_path / "repo"
    for f in ("config/paper-budget.yaml", "config/seed/0.yaml", "config/seed/1.yaml", "results/mdp/claims.csv"):
        (root / f).parent.mkdir(parents=True, exist_ok=True)
        (root / f).write_text("x\n")
    scores = root / "src" / "schedrl" / "papers" / "mdp" / "recorded_scores.csv"
    scores.parent.mkdir(parents=True)
    row = {"paper": "mdp", "player": "PPO image-like", "role": "agent", "metric": "mean_slowdown", "better": "lower",
           "value": 4.0, "random": 8.0, "best_heuristic": "SJF", "best_heuristic_value": 3.0, "anchor": "ok",
           "normalised": 0.8, "placed_from": "", "per_jobset": "", "recipe": ""}
    pd.DataFrame([{"run": "elsewhere s3 seed 0", "scale": "paper-budget", "workload": "scenario 3", "seed": 0, **row},
                  {"run": "elsewhere s9 seed 1", "scale": "tuned", "workload": "scenario 9", "seed": 1, **row},
                  {**{"run": "random s9", "scale": "paper-budget", "workload": "scenario 9", "seed": 0}, **row,
                   "role": "random"}]).to_csv(scores, index=False)
    monkeypatch.setattr(rs, "ROOT", root)
    calls = []

    def fake_run(command, cwd, env, **kw):
        if command[1:3] == ["mdp", "cost"]:
            return type("Done", (), {"returncode": 0, "stdout": ""})()
        calls.append(command)
        rest = command[command.index("--") + 1:]
        with Path(command[command.index("--record") + 1]).open("a") as fh:
            fh.write(json.dumps({"date": "2026-12-06T10:00:00+00:00", "commit": "abc1234", "command": rest,
                                 "core_hours": 1.0}) + "\n")
        if rest[1] == "normalised":
            _write_gaps(Path(rest[rest.index("--out-dir") + 1]), [])
        return type("Done", (), {"returncode": 0})()

    monkeypatch.setattr(rs.subprocess, "run", fake_run)
    out = tmp_path / "seeds"
    assert rs.main(["mdp", "--seeds", "0", "--scenario", "3", "9", "--out", str(out), "--kind", "faster"]) == 0
    trained = [Path(c[c.index("--record") + 1]).parent.parent.name for c in calls if "snakemake" in c]
    assert trained == ["scenario9"]  # scenario 3's seed 0 is in the records; a random player's row is no agent's
    err = capsys.readouterr().err
    assert "seed 0 of scenario 3 already recorded (elsewhere s3 seed 0); --again trains it anew" in err
    assert "seed 0 is not put together: scenario(s) 3 recorded on another machine" in err
    assert not list((out / "paper-budget").glob("together-*"))
    assert rs.recorded_as("mdp", "tuned", 1, 9) is None  # a tuned row of another recipe (none committed here)
    calls.clear()
    assert rs.main(["mdp", "--seeds", "0", "--scenario", "3", "--again", "--out", str(out), "--kind", "faster"]) == 0
    assert [Path(c[c.index("--record") + 1]).parent.parent.name for c in calls if "snakemake" in c] == ["scenario3"]
