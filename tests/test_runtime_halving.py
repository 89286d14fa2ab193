"""Successive halving over the runtime paper's grid (issue 72's lever; halving.py): the rung
budgets, the ranking, and a tiny three-point grid through the CLI where the survivor ends bit for bit
as the full grid's run and the pruned points are never picked."""

import json

import pandas as pd
import pytest

from schedrl.errors import ConfigError
from schedrl.papers.runtime import budget as rb
from schedrl.papers.runtime import experiments as rx
from schedrl.papers.runtime import halving as rh
from test_runtime_rl import SPEC


def _spec(**halving) -> dict:
    spec = json.loads(json.dumps(SPEC))
    spec["agents"].update(steps=4_000_000, halving=halving)
    return spec


def _tiny_grid(tmp_path, monkeypatch) -> dict:
    """The full grid's spec of three points (baseline, one half, 256 steps) in ``tmp_path``, with its
    workloads written there."""
    from schedrl.workloads.lublin import generate
    from schedrl.workloads.swf import write_swf

    monkeypatch.chdir(tmp_path)
    (tmp_path / "results/workloads/runtime").mkdir(parents=True)
    for w in rx.WORKLOADS:
        write_swf(generate(w[:3], 40, seed=0), tmp_path / rx.workload_file(w))
    full = json.loads(json.dumps(SPEC))
    full["agents"].update(methods=["baseline"], workloads=["wl1_100a"], steps=256,
                          grid={"n_steps": [8], "batch_size": [32], "n_epochs": [1, 2, 3]})
    full["evaluate"].update(episodes=1, max_steps=200)
    return full


def test_rungs_are_the_budget_checkpoints_and_halve_the_grid():
    spec = _spec(eta=2, rungs=4)
    assert rh.settings(spec) == (2, 4)
    assert rh.rung_steps(spec) == [*rx.budget_steps(4_000_000), 4_000_000]
    assert [rh.survivors_count(75, 2, r) for r in range(3)] == [38, 19, 10]
    assert rh.settings(_spec()) == (2, 4)                     # the defaults
    assert rh.settings(json.loads(json.dumps(SPEC))) is None  # the paper's full grid
    with pytest.raises(ConfigError, match="1/9 of training"):
        rh.settings(_spec(eta=3, rungs=3))                    # before the first budget checkpoint
    with pytest.raises(ConfigError, match=">= 2"):
        rh.settings(_spec(eta=1, rungs=4))
    with pytest.raises(ConfigError, match="halving is not set"):
        rh.train_core_hours(json.loads(json.dumps(SPEC)))


def test_survivors_rank_by_mean_utilisation_over_runs_ties_to_the_lower_id():
    def rec(grid, seed, u):
        return {"grid": grid, "seed": seed, "trained": u is not None, "utilization": u}

    records = [rec("T8-M8-K1", 0, 0.70), rec("T8-M8-K1", 1, 0.80),   # mean 0.75
               rec("T8-M8-K2", 0, 0.76), rec("T8-M8-K2", 1, 0.74),   # 0.75: tie, higher id
               rec("T8-M8-K3", 0, 0.90), rec("T8-M8-K3", 1, 0.50),   # 0.70
               rec("T8-M8-K4", 0, None), rec("T8-M8-K4", 1, None)]   # pruned before: not ranked
    assert rh.survivors(records, 2) == ["T8-M8-K1", "T8-M8-K2"]      # ceil(3 / 2)
    assert rh.survivors(records, 3) == ["T8-M8-K1"]
    assert rh.survivors([rec("T8-M8-K4", 0, None)], 2) == []


def test_cost_model_with_halving_is_the_rungs_steps():
    paper = _spec(eta=2, rungs=4)
    paper["agents"]["grid"] = {"n_steps": [512], "batch_size": [512, 1024, 2048, 4096], "n_epochs": [4]}
    full = rx.estimate_core_hours(json.loads(json.dumps({**paper, "agents": {
        k: v for k, v in paper["agents"].items() if k != "halving"}})))
    half = rh.estimate_core_hours(paper)
    # 4 points: all to 1/8, 2 to 1/4, 1 to 1/2 and to the end: 4/8 + 2/8 + 1/4 + 1/2 = 1.5 of 4 runs' steps
    assert half["train"] - rh.rung_play_core_hours(paper) == pytest.approx(full["train"] * 1.5 / 4)
    assert half["halving"] == (2, 4) and "halving" not in full


def test_tiny_grid_survivor_is_the_full_runs_model_and_pruned_points_are_not_picked(tmp_path, monkeypatch):
    import torch
    from stable_baselines3 import PPO

    from schedrl.cli import main
    from schedrl.io import read_json

    full = _tiny_grid(tmp_path, monkeypatch)
    spec = json.loads(json.dumps(full))
    spec["agents"]["halving"] = {"eta": 2, "rungs": 3}       # rungs at 64, 128 and 256 steps
    text = json.dumps(spec)
    grids = [rx.grid_id(g) for g in rx.grid_points(spec)]

    def ident(grid):
        return ["--spec", text, "--method", "baseline", "--workload", "wl1_100a", "--grid", grid, "--seed", "0",
                "--run-dir", str(rx.run_dir(rx.ROOT, "baseline", "wl1_100a", grid, 0))]

    for rung in (0, 1):
        previous = rh.group_records(spec, "baseline", "wl1_100a", rung - 1) if rung else []
        for grid in grids:
            assert main(["runtime", "train-rung", *ident(grid), "--rung", str(rung),
                         *(["--previous", *previous] if previous else [])]) == 0
    records = rh.read_records(rh.group_records(spec, "baseline", "wl1_100a", 1))
    assert sum(r["trained"] for r in records) == 2 and all(r["steps"] == 128 for r in records if r["trained"])
    last = rh.group_records(spec, "baseline", "wl1_100a", 1)
    for grid in grids:
        # Snakemake deletes the last rung job's declared outputs first: timing.json among them
        (rx.run_dir(rx.ROOT, "baseline", "wl1_100a", grid, 0) / "timing.json").unlink()
        assert main(["runtime", "train", *ident(grid), "--previous", *last]) == 0
    outcome = {g: read_json(rx.run_dir(rx.ROOT, "baseline", "wl1_100a", g, 0) / rx.HALVING_FILE)["pruned_at"]
               for g in grids}
    survivor = rh.survivors(records, 2)[0]
    assert sorted(outcome.values(), key=lambda v: -1 if v is None else v) == [None, 64, 128]
    assert outcome[survivor] is None
    timings = {g: read_json(rx.run_dir(rx.ROOT, "baseline", "wl1_100a", g, 0) / "timing.json") for g in grids}
    # every rung's time is summed though the file was deleted: a survivor paused twice, a pruned point
    # keeps its rungs' time
    assert [r["from"] for r in timings[survivor]["resumes"]] == [64, 128]
    assert all(t["wall_time_total_s"] > 0 and t["process_cpu_total_s"] > 0 for t in timings.values())
    assert timings[survivor]["wall_time_total_s"] > timings[survivor]["wall_time_s"]

    # the survivor paused twice and resumed exactly: the full grid's uninterrupted run, weight for weight
    ref = tmp_path / "reference"
    assert main(["runtime", "train", "--spec", json.dumps(full), "--method", "baseline", "--workload", "wl1_100a",
                 "--grid", survivor, "--seed", "0", "--run-dir", str(ref)]) == 0
    ours = PPO.load(rx.run_dir(rx.ROOT, "baseline", "wl1_100a", survivor, 0) / "model.zip", device="cpu")
    theirs = PPO.load(ref / "model.zip", device="cpu")
    assert ours.num_timesteps == theirs.num_timesteps == 256
    for (name, a), (_, b) in zip(ours.policy.state_dict().items(), theirs.policy.state_dict().items(), strict=True):
        assert torch.equal(a, b), name

    # the pruned points: their last rung's model, marked on every final row, never the tuned point
    frames = []
    for grid in grids:
        run = rx.run_dir(rx.ROOT, "baseline", "wl1_100a", grid, 0)
        assert main(["runtime", "evaluate", "--spec", text, "--run-dir", str(run), "--out", str(rx.eval_path(run))]) == 0
        frames.append(pd.read_csv(rx.eval_path(run)))
        assert PPO.load(run / "model.zip", device="cpu").num_timesteps == (outcome[grid] or 256)
        checkpoints = rb.evaluate_checkpoints(run, spec, run / rb.BUDGET_FILE)
        # targets 32, 64, 128 (a rollout is 64 steps): a point pruned at 64 plays 1/8 and 1/4 only
        assert sorted(set(checkpoints["fraction"])) == [0.125, 0.25, 0.5][:2 if outcome[grid] == 64 else 3]
    evals = pd.concat(frames, ignore_index=True)
    pruned = evals[evals["pruned_at"].notna()]
    assert set(pruned["grid"]) == set(grids) - {survivor}
    # even where a pruned point's short model plays better on its own half, the rule passes it over
    evals.loc[evals["grid"] != survivor, "utilization"] = 1.0
    assert rx.best_grid(evals)["grid"].tolist() == [survivor]
    from schedrl.papers.runtime import figures

    note = figures._halving_note(evals)
    assert len(note) == 1 and "1 of 3" in note[0] and figures._halving_note(evals.drop(columns="pruned_at")) == []


def test_smoke_dag_with_halving_has_a_rung_job_per_run_and_rung(tmp_path):
    """The rules wire the rungs: with the smoke config, three grid points and 3 rungs, every run
    has rung 0 and 1 jobs before its training job (a dry run, forced)."""
    import shutil
    import subprocess
    import sys
    from pathlib import Path

    repo = Path(__file__).resolve().parents[1]
    overlay = tmp_path / "halving.yaml"
    overlay.write_text("runtime:\n  agents:\n    grid: {n_steps: [64], batch_size: [256], n_epochs: [1, 2, 3]}\n"
                       "    halving: {eta: 2, rungs: 3}\n")
    exe = shutil.which("snakemake") or str(Path(sys.executable).parent / "snakemake")
    proc = subprocess.run([exe, "runtime", "-n", "-p", "-F", "--configfile", "config/smoke.yaml", str(overlay)],
                          cwd=repo, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    counts = {}
    for line in proc.stdout.split("Job stats:")[1].splitlines()[3:]:
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit():
            counts[parts[0]] = int(parts[1])
    runs = 3 * 3 * 2  # methods x grid points x draws, one training half, one seed
    assert counts["runtime_train_rung"] == 2 * runs and counts["runtime_train"] == runs
    # rung 1 and the last rung rank the rung before over the group: three grid points x two draws
    assert "--rung 1 --previous" in proc.stdout
    train = [line for line in proc.stdout.splitlines() if "schedrl runtime train " in line]
    assert len(train) == runs and all(line.count("/rungs/1.json") == 6 for line in train)


def test_check_run_trains_every_point_and_sets_halvings_pick_beside_the_full_grids(tmp_path, monkeypatch):
    """``halving.check``: every point trains to the end, the rungs still record what halving would
    have kept (the same records as a halving run: kept points train the same steps), ``halving.json``
    says where halving would have stopped each point, and Table 5's note compares the two picks."""
    from stable_baselines3 import PPO

    from schedrl.io import read_json
    from schedrl.papers.runtime import figures

    spec = _tiny_grid(tmp_path, monkeypatch)
    spec["agents"]["halving"] = {"eta": 2, "rungs": 3, "check": True}
    assert rx.halving_check(spec) and not rx.halving_check(_spec(eta=2, rungs=4))
    grids = [rx.grid_id(g) for g in rx.grid_points(spec)]
    runs = {g: rx.run_dir(rx.ROOT, "baseline", "wl1_100a", g, 0) for g in grids}
    for rung in (0, 1):
        previous = rh.group_records(spec, "baseline", "wl1_100a", rung - 1) if rung else []
        for g in grids:
            rh.train_rung(spec, "baseline", "wl1_100a", g, 0, runs[g], rung, previous)
    records = rh.read_records(rh.group_records(spec, "baseline", "wl1_100a", 1))
    assert all(r["trained"] for r in records) and sum(r["kept"] for r in records) == 2
    last = rh.group_records(spec, "baseline", "wl1_100a", 1)
    for g in grids:
        assert rh.finish(spec, "baseline", "wl1_100a", g, 0, runs[g], last)["pruned_at"] is None
    would = {g: read_json(runs[g] / rx.HALVING_FILE)["would_prune_at"] for g in grids}
    assert sorted(would.values(), key=lambda v: -1 if v is None else v) == [None, 64, 128]
    assert all(PPO.load(runs[g] / "model.zip", device="cpu").num_timesteps == 256 for g in grids)

    evals = pd.concat([rx.evaluate(runs[g], spec, None) for g in grids], ignore_index=True)
    assert evals["pruned_at"].isna().all() and set(evals["would_prune_at"].dropna()) == {64, 128}
    halving_pick = next(g for g in grids if would[g] is None)
    evals["utilization"] = [1.0 if g == halving_pick else 0.5 for g in evals["grid"]]
    check = rx.halving_against_full(evals)
    assert check["same"].tolist() == [True] and check["halving_grid"].tolist() == [halving_pick]
    assert "1 of 1" in figures._halving_note(evals)[0]
    other = next(g for g in grids if g != halving_pick)
    evals["utilization"] = [0.9 if g == other else 0.5 for g in evals["grid"]]  # a point halving pruned was best
    check = rx.halving_against_full(evals)
    assert check["full_grid"].tolist() == [other] and check["halving_utilization"].tolist() == [0.5]
    note = figures._halving_note(evals)[0]
    assert "0 of 1" in note and "0.400 below" in note and f"{halving_pick} vs {other}" in note
    # the cost model prices a check as the full grid plus every point's rung plays
    full = json.loads(json.dumps(spec))
    del full["agents"]["halving"]
    assert rh.estimate_core_hours(spec)["train"] == pytest.approx(
        rx.estimate_core_hours(full)["train"] + rh.rung_play_core_hours(spec))
