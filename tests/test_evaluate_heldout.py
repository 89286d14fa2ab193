"""``schedrl evaluate`` holds out the training job sets for a user's own run (issue 41).

The README's example trains on DeepRM without naming ``jobset_seed``: the env's default (job sets
0..9) is then missing from config.json, and evaluation used to replay training set 0 every episode.
"""

from __future__ import annotations

import json

import gymnasium as gym
import pandas as pd
import pytest

import schedrl.envs  # noqa: F401  (registers the schedrl/* ids)
from schedrl.cli import main
from schedrl.experiments.evaluate import env_keyword_values

DEEPRM = "schedrl/DeepRM-v0"
SWF = "; MaxNodes: 16\n" + "".join(f"{i} {30 * i} 0 {50 + 37 * i % 400} {1 + 5 * i % 16} -1 -1 "
                                   f"{1 + 5 * i % 16} 600 -1 1 1 1 1 1 1 -1 -1\n" for i in range(1, 41))


def _train(run_dir, env: str, *kwargs: str) -> None:
    argv = ["train", "--env", env, "--algo", "ppo", "--steps", "128", "--hp", "n_steps=32", "--seed", "0",
            "--run-dir", str(run_dir)]
    for pair in kwargs:
        argv += ["--env-kwarg", pair]
    assert main(argv) == 0


def _evaluate(run_dir, out, *extra: str) -> int:
    return main(["evaluate", "--run-dir", str(run_dir), "--episodes", "4", "--out", str(out), *extra])


def _one_error_line(capsys, needle: str) -> None:
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and ": error: " in lines[0] and needle in lines[0], err


@pytest.fixture(scope="module")
def deeprm_run(tmp_path_factory):
    # the README's example, small: no jobset_seed given, so the env's default sets 0..9 train
    run = tmp_path_factory.mktemp("deeprm") / "ppo"
    _train(run, DEEPRM, "obs_mode=compact", "num_nw=3", "simu_len=20")
    assert "jobset_seed" not in json.loads((run / "config.json").read_text())["env_kwargs"]
    return run


def test_env_defaults_count_where_config_json_is_silent():
    kw = env_keyword_values("schedrl.envs:" + DEEPRM, {"simu_len": 20})
    assert (kw["jobset_seed"], kw["num_jobsets"], kw["jobset_rng"], kw["simu_len"]) == (0, 10, "pcg64", 20)


def test_every_env_that_seeds_job_sets_is_tested_here(tmp_path):
    table = tmp_path / "t.swf"
    table.write_text(SWF)
    ids = [i for i in gym.registry if i.startswith("schedrl/")]
    assert len(ids) == 4
    seeded = {i for i in ids if "jobset_seed" in env_keyword_values(i, {"jobs": str(table)} if "HPC" in i else {})}
    assert seeded == {DEEPRM}  # a new one needs its own held-out test below


def test_deeprm_default_run_plays_distinct_heldout_sets(deeprm_run, tmp_path, capsys):
    out = tmp_path / "e.csv"
    assert _evaluate(deeprm_run, out) == 0
    frame = pd.read_csv(out)
    assert frame["jobset_seed"].tolist() == [10_000, 10_001, 10_002, 10_003]
    assert not frame["jobset_seed"].between(0, 9).any()
    assert frame["reward"].nunique() > 1 or frame["length"].nunique() > 1
    assert "held-out job sets: seeds 10000..10003" in capsys.readouterr().out


def test_deeprm_jobset_seed_changes_what_is_played(deeprm_run, tmp_path):
    base, flag, kwarg = (tmp_path / f"{n}.csv" for n in ("base", "flag", "kwarg"))
    assert _evaluate(deeprm_run, base) == 0
    assert _evaluate(deeprm_run, flag, "--jobset-seed", "20000") == 0
    assert _evaluate(deeprm_run, kwarg, "--env-kwarg", "jobset_seed=20000") == 0
    a, b, c = (pd.read_csv(p) for p in (base, flag, kwarg))
    assert b["jobset_seed"].tolist() == [20_000, 20_001, 20_002, 20_003]
    assert not a["reward"].equals(b["reward"])
    pd.testing.assert_frame_equal(b, c)  # the env kwarg names the same first held-out set
    assert b["reward"].nunique() > 1 or b["length"].nunique() > 1


@pytest.mark.parametrize("extra", [["--jobset-seed", "7"], ["--env-kwarg", "jobset_seed=0"],
                                   ["--jobset-seed", "-2"]])
def test_deeprm_training_sets_are_refused(deeprm_run, tmp_path, capsys, extra):
    out = tmp_path / "e.csv"
    assert _evaluate(deeprm_run, out, *extra) == 2
    _one_error_line(capsys, "training job sets of this run (seeds 0..9)")
    assert not out.exists()


def test_hpc_evaluation_says_it_is_in_sample(tmp_path, capsys):
    # HPC envs seed no job sets: they play the job table they are given, the training one by default
    table = tmp_path / "t.swf"
    table.write_text(SWF)
    run = tmp_path / "hpc"
    _train(run, "schedrl/HPCPickReserve-v0", f"jobs={table}", "episode_jobs=10")
    capsys.readouterr()
    assert _evaluate(run, tmp_path / "e.csv") == 0
    assert "note: in-sample" in capsys.readouterr().out
    assert _evaluate(run, tmp_path / "e.csv", "--jobset-seed", "5") == 2
    _one_error_line(capsys, "no seeded job sets")
