"""docs/tuned-agents.md's table of the studies (``schedrl.report.tuned_studies``): each number from
the study's files, the recipe placed on its references' scale, and the recorded run of that recipe."""

from __future__ import annotations

from types import SimpleNamespace

import pandas as pd
import pytest

from schedrl.errors import InputFileError
from schedrl.experiments.tune import recipe_id
from schedrl.report.tuned_studies import read_study, recorded_tuned, study_row

HEADER = ("# The X paper's tuned recipe (issue 69), written by `schedrl tune x --write-config`; a step is a job set of 9 jobs:\n"
          "# trial 2 of a study of 3 trials (2 complete, 1 pruned; median pruner, TPE seed 0),\n"
          "# best 0.7000. Study CPU 0.01 core-h; 2026-12-01, commit abc1234. Trials: results/tuned/x/trials.csv.\n"
          "# Learning probe (schedrl.experiments.probes): passed (gain +50%, +60% on seeds 0, 1); trial 2.\n")


def _study(tmp_path, references=None, header=HEADER):
    (tmp_path / "x.yml").write_text(header + "x:\n  lr: 0.1\n")
    pd.DataFrame({"number": [0, 1, 2], "state": ["complete", "pruned", "complete"], "value": [0.5, 0.9, 0.7],
                  "steps_per_seed": [100, 50, 100], "seed_values": ["0.4 0.6", "0.9 0.9", "0.6 0.8"],
                  "cpu_s": [1800.0, 900.0, 1800.0]}).to_csv(tmp_path / "x.trials.csv", index=False)
    refs = references if references is not None else {"random valid play": 0.6, "uniform over all actions": 0.4,
                                                       "SJF": 0.8, "Packer": 1.0, "untrained network": 2.0}
    pd.DataFrame({"reference": list(refs), "score": list(refs.values())}).to_csv(tmp_path / "x.references.csv",
                                                                                 index=False)
    return read_study("x", tmp_path)


def test_the_study_reads_from_its_files_and_places_the_recipe_on_its_references_scale(tmp_path):
    s = _study(tmp_path)
    assert (s.trials, s.complete, s.pruned, s.seeds, s.steps, s.chosen) == (3, 2, 1, 2, 100, 2)
    assert s.core_h == pytest.approx(1.25) and s.value == 0.7  # the header's trial, not the pruned 0.9
    # the untrained network and uniform play are no heuristics, whatever they score; Packer is the best
    assert s.random == ("random valid play", 0.6) and s.best == ("Packer", 1.0)
    assert s.position() == pytest.approx(0.25) and s.probe.startswith("passed")
    assert (s.date, s.commit, s.unit) == ("2026-12-01", "abc1234", "job set of 9 jobs")
    row = study_row("x", s, None, tmp_path)
    assert row[2] == "trial 2 (0.700)" and row[5] == "0.25" and row[6] == "passes" and row[7] == "not yet run"
    assert "(a step: job set of 9 jobs)" in row[1] and "1.25 core-h" in row[1]


def test_a_rechecked_gate_counts_the_pruned_trials_that_learn_today(tmp_path):
    """``scripts/recheck_gates.py --write`` adds regate columns: a trial the gate pruned that passes
    today counts against the study (not a complete trial, not one the gate let through); a study
    never rechecked reads as None, and its row as before."""
    from schedrl.experiments.tune import gate_recheck

    s = _study(tmp_path)
    assert s.regate is None and gate_recheck("x", tmp_path) is None
    trials = pd.read_csv(tmp_path / "x.trials.csv")
    trials["gate"] = ["passed", "failed", "passed"]
    trials["regate"], trials["regate_gain"] = ["passed", "passed", "passed"], [0.7, 0.6, 0.7]
    trials["regate_when"] = "2026-12-07, abc1234"
    trials.to_csv(tmp_path / "x.trials.csv", index=False)
    found = gate_recheck("x", tmp_path)
    assert (found.rechecked, found.wrongly_pruned, found.when) == (3, 1, "2026-12-07, abc1234")
    row = study_row("x", read_study("x", tmp_path), None, tmp_path)
    assert row[6].startswith("passes; the study's gate") and "pruned 1 trial(s) that pass today" in row[6]
    trials["regate"] = ["passed", "failed", "passed"]
    trials.to_csv(tmp_path / "x.trials.csv", index=False)
    assert gate_recheck("x", tmp_path).wrongly_pruned == 0
    assert study_row("x", read_study("x", tmp_path), None, tmp_path)[6] == "passes"


def test_no_scale_where_random_play_beats_every_heuristic_or_none_was_scored(tmp_path):
    s = _study(tmp_path, {"FCFS + EASY": -1.0, "random valid picks": -0.8})
    assert s.position() is None and "random valid play matches or beats" in study_row("x", s, None, tmp_path)[5]
    (tmp_path / "x.references.csv").unlink()
    s = read_study("x", tmp_path)
    assert s.random is None and study_row("x", s, None, tmp_path)[5] == "no scale: references not scored"


def test_no_recipe_is_no_study_and_a_recipe_without_trials_names_the_file(tmp_path):
    assert read_study("x", tmp_path) is None
    assert study_row("x", None, None, tmp_path)[1] == "no study committed yet"
    (tmp_path / "x.yml").write_text(HEADER)
    with pytest.raises(InputFileError, match="x.trials.csv"):
        read_study("x", tmp_path)


def test_the_recorded_run_counts_only_for_the_recipe_it_trained(tmp_path):
    _study(tmp_path)
    row = {"run": "r", "player": "PPO", "role": "agent", "scale": "tuned", "seeds": 3, "workloads": 2,
           "iqm": 0.4, "iqm_lo": 0.1, "iqm_hi": 0.6, "mean": 0.4}
    status = SimpleNamespace(tuned=SimpleNamespace(run="r", label=SimpleNamespace(date="2026-12-03")),
                             tuned_recipe=recipe_id("x", tmp_path), merged={}, normalised=pd.DataFrame([row]))
    assert recorded_tuned(status, "x", tmp_path) == "0.40 [0.10, 0.60] PPO (3 seeds, 2026-12-03)"
    status.tuned_recipe = "0123456789ab"  # a newer study's recipe is committed since
    assert recorded_tuned(status, "x", tmp_path).startswith("not yet run (the recorded tuned run, 2026-12-03, "
                                                            "trained recipe 0123456789ab")


def _score_row(scale, workload, player, role, seed, normalised, anchor="ok", recipe="r1"):
    return {"run": f"{scale} run", "scale": scale, "paper": "x", "workload": workload, "player": player, "role": role,
            "seed": seed, "metric": "wait", "better": "lower", "value": 1.0, "random": 2.0, "best_heuristic": "SJF",
            "best_heuristic_value": 1500.0, "anchor": anchor, "normalised": normalised, "placed_from": "",
            "recipe": recipe if scale == "tuned" else ""}


def test_each_workload_of_the_tuned_run_reads_from_the_per_seed_scores():
    from schedrl.report.tuned_studies import per_workload_rows

    rows = [_score_row("tuned", "a", "PPO", "agent", 0, 0.2), _score_row("tuned", "a", "PPO", "agent", 1, 0.6),
            _score_row("tuned", "a", "PPO", "agent", 1, 0.4),  # the same seed recorded again: the later one counts
            _score_row("tuned", "a", "untrained PPO", "untrained", 0, -1.0),
            _score_row("tuned", "b", "PPO", "agent", 0, 9.0, anchor="degenerate"),  # no scale: left out
            _score_row("paper-budget", "a", "A2C", "agent", 0, -2.0), _score_row("paper-budget", "a", "TRPO", "agent", 0, 0.1),
            _score_row("paper-budget", "a", "TRPO", "agent", 1, 0.3)]
    out = per_workload_rows("x", pd.DataFrame(rows), committed="r1")
    assert out == [["`x`", "a (wait)", "SJF (1,500)", "PPO", "**+0.30** (+0.20, +0.40)", "-1.00", "-", "+0.20 TRPO"]]
    assert per_workload_rows("x", pd.DataFrame(rows), committed="r2")[0][3] == "PPO (recipe r1, an earlier study's)"
    assert per_workload_rows("x", None) == [] and per_workload_rows("x", pd.DataFrame(rows[5:])) == []


def test_a_paper_whose_default_is_its_budget_reads_its_recipe_from_the_default_runs():
    from schedrl.report.tuned_studies import per_workload_rows

    rows = [_score_row("tuned", "a", "SEM agent", "agent", 0, 0.3), _score_row("default", "a", "SEM agent", "agent", 0, -0.2),
            _score_row("paper-budget", "a", "SEM agent", "agent", 0, 5.0)]
    frame = pd.DataFrame(rows).assign(paper="sem")
    assert per_workload_rows("sem", frame)[0][-1] == "-0.20 SEM agent"
    assert per_workload_rows("x", frame)[0][-1] == "+5.00 SEM agent"


def test_tuned_runs_that_drew_random_play_apart_are_scored_on_the_pooled_anchor():
    """Two tuned runs, each with its own random valid draw (12 and 6; SJF 10): r0's own column would
    score the agent's 9 as +1.5 (r1 has no scale); pooled, random play is 9, below SJF: no scale. With
    the agent's 8 and 9.5 against a pooled random 11 (draws 11.05 and 10.95; SJF 10), +3 and +1.5 on the merged score's scale."""
    from schedrl.report.tuned_studies import per_workload_rows

    def row(run, player, role, seed, value, rand):
        return {**_score_row("tuned", "a", player, role, seed, 0.0), "run": run, "value": value, "random": rand,
                "best_heuristic_value": 10.0}

    rows = [row("r0", "random valid", "random", 0, 12.0, 12.0), row("r0", "SJF", "heuristic", 0, 10.0, 12.0),
            row("r0", "PPO", "agent", 0, 9.0, 12.0), row("r1", "random valid", "random", 100, 6.0, 6.0),
            row("r1", "SJF", "heuristic", 0, 10.0, 6.0), row("r1", "PPO", "agent", 1, 9.0, 6.0)]
    assert per_workload_rows("x", pd.DataFrame(rows)) == []  # pooled: degenerate
    # draws 11.05 and 10.95: their mean's 95% t-interval (+-0.64) leaves SJF's 10 outside, a scale
    rows[0], rows[1] = row("r0", "random valid", "random", 0, 11.05, 11.05), row("r0", "SJF", "heuristic", 0, 10.0, 11.05)
    rows[3] = row("r1", "random valid", "random", 100, 10.95, 10.95)
    rows[2], rows[5] = row("r0", "PPO", "agent", 0, 8.0, 11.05), row("r1", "PPO", "agent", 1, 9.5, 10.95)
    out = per_workload_rows("x", pd.DataFrame(rows))
    assert out[0][4] == "**+2.25** (+3.00, +1.50)"


def _recheck_script():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "scripts" / "recheck_gates.py"
    spec = importlib.util.spec_from_file_location("recheck_gates", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_recheck_gates_probes_each_trial_as_built_today_and_writes_the_verdicts(tmp_path, monkeypatch, capsys):
    """The script rebuilds each trial's trainer with the paper's ``tuning.trainer`` (the runtime study's
    space: the trial's reward decides the probe's reward scale) and records what the gate finds today;
    the probe itself is stood in for (its own tests train it)."""
    from schedrl.experiments import probes
    from schedrl.experiments.tune import gate_recheck

    seen = []

    def fake_probe(trainer, work, seeds=probes.TRAINER_SEEDS):
        seen.append((trainer.get("reward_scale"), tuple(seeds)))
        return probes.TrainerProbe(passed=True, gains=[0.7], problems=[], lines=[])

    monkeypatch.setattr(probes, "probe_trainer", fake_probe)
    from pathlib import Path

    monkeypatch.chdir(Path(__file__).resolve().parents[1])  # the script's default --spec files
    trials = pd.read_csv("config/tuned/runtime.trials.csv").iloc[:2].drop(
        columns=["regate", "regate_gain", "regate_when"], errors="ignore")
    trials.loc[:, "state"] = ["pruned", "complete"]
    trials.loc[:, "gate"] = ["failed", "passed"]
    path = tmp_path / "runtime.trials.csv"
    trials.to_csv(path, index=False)
    assert _recheck_script().main(["runtime", str(path), "--write"]) == 0
    assert seen == [(0.01, (0,)), (0.01, (0,))]  # both rewards of the space are probed at x0.01, seed 0 as the gate
    assert "verdict changed for 1 (trials 0)" in capsys.readouterr().out
    found = gate_recheck("runtime", tmp_path)
    assert (found.rechecked, found.wrongly_pruned) == (2, 1)


def test_recheck_gates_bad_input_is_one_line(tmp_path, capsys):
    path = tmp_path / "t.csv"
    pd.DataFrame({"number": [0], "state": ["complete"]}).to_csv(path, index=False)
    assert _recheck_script().main(["runtime", str(path)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no 'gate' column" in err[0] and str(path) in err[0]
