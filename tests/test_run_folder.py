"""One run folder for every trainer (schedrl.agents.runs.RunFolder): checkpoints on by default, a
killed run resumes without a flag, Ctrl-C saves a checkpoint, timing sums the segments, and the
command and resolved hyperparameters are saved."""

from __future__ import annotations

import json

import gymnasium as gym
import numpy as np
import pytest
import yaml

from schedrl.agents.reinforce import ReinforceConfig, train_reinforce
from schedrl.agents.runs import RunFolder, default_checkpoint_every
from schedrl.errors import ConfigError

CFG = {"hidden": [8], "learning_rate": 0.01, "trajectories": 3, "discount": 1.0, "examples_per_update": 2}


class Bandit(gym.Env):
    def __init__(self):
        self.observation_space = gym.spaces.Box(0.0, 1.0, (2,), dtype=np.float32)
        self.action_space = gym.spaces.Discrete(2)
        self.t = 0

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.t = 0
        return np.ones(2, dtype=np.float32), {}

    def step(self, action):
        self.t += 1
        return np.ones(2, dtype=np.float32), float(action == 1), False, self.t >= 4, {}


def test_default_checkpoint_interval():
    assert default_checkpoint_every(1000, None) == 100 and default_checkpoint_every(5, None) == 1
    assert default_checkpoint_every(1000, 7) == 7


def test_reinforce_killed_run_resumes_without_a_flag_and_equals_an_uninterrupted_one(tmp_path):
    import torch

    cfg = ReinforceConfig.from_dict(CFG)
    train_reinforce(Bandit, cfg, 10, 3, tmp_path / "full", examples=2)

    def interrupt(iteration, rows):
        if iteration == 6:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        train_reinforce(Bandit, cfg, 10, 3, tmp_path / "killed", examples=2, on_iteration=interrupt)
    folder = RunFolder(tmp_path / "killed", prefix="iter_", suffix=".pt")
    # Ctrl-C in the hook saved iteration 6 (the default interval, 10 / 10 = 1, saved 1..5); the
    # newest two are kept, and those at 1/8, 1/4 and 1/2 of the 10 iterations (2, 3, 5)
    assert [n for n, _ in folder.checkpoints()] == [2, 3, 5, 6] and not folder.model_file.exists()
    resumed = train_reinforce(Bandit, cfg, 10, 3, tmp_path / "killed", examples=2)  # no flag
    assert resumed.iterations_trained == 4
    for name in ("learning_curve.csv", "hyperparams.yaml"):
        assert (tmp_path / "full" / name).read_bytes() == (tmp_path / "killed" / name).read_bytes()
    a = torch.load(tmp_path / "full" / "model.zip", weights_only=False)["weights"]
    b = torch.load(tmp_path / "killed" / "model.zip", weights_only=False)["weights"]
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert yaml.safe_load((tmp_path / "full" / "hyperparams.yaml").read_text())["hidden"] == [8]
    assert len((tmp_path / "killed" / "command.txt").read_text().splitlines()) == 2  # one per invocation


class _StopAt(gym.Wrapper):
    """Raises KeyboardInterrupt at env step ``_CALLS["limit"]`` (a module-level class and dict: a
    resume state holds its envs with their wrappers, pickled by reference, so the rerun reads the
    live limit)."""

    def step(self, action):
        _CALLS["steps"] += 1
        if _CALLS["steps"] == _CALLS["limit"]:
            raise KeyboardInterrupt
        return self.env.step(action)


_CALLS = {"steps": 0, "limit": None}


def test_sb3_interrupted_run_resumes_and_sums_timing(tmp_path, monkeypatch):
    from schedrl.experiments import train as T

    kwargs = {"num_res": 1, "time_horizon": 10, "max_job_len": 5, "res_slot": 5, "max_job_size": 5,
              "backlog_size": 10, "num_nw": 3, "simu_len": 10, "episode_max_length": 40, "obs_mode": "compact"}
    hp = {"n_steps": 5, "policy_kwargs": {"net_arch": [8]}}
    make = T.make_env
    _CALLS.update(steps=0, limit=130)
    monkeypatch.setattr(T, "make_env", lambda *a, **k: _StopAt(make(*a, **k)))
    with pytest.raises(KeyboardInterrupt):
        T.train("schedrl.envs:schedrl/DeepRM-v0", kwargs, "a2c", hp, 200, 0, tmp_path / "run")
    folder = RunFolder(tmp_path / "run")
    saved = [n for n, _ in folder.checkpoints()]
    # an interrupt mid-rollout writes no checkpoint (it could not be resumed exactly): the last
    # periodic one, at a rollout boundary, stands
    assert saved and 100 <= saved[-1] < 130 and saved[-1] % 5 == 0
    first = json.loads(folder.timing_file.read_text())
    assert first["interrupted"] and not folder.model_file.exists()
    _CALLS["limit"] = None
    result = T.train("schedrl.envs:schedrl/DeepRM-v0", kwargs, "a2c", hp, 200, 0, tmp_path / "run")
    assert result.resumed_from == saved[-1] and result.steps >= 200  # whole rollouts of n_steps
    timing = json.loads(folder.timing_file.read_text())
    assert timing["resumes"] == [{"from": saved[-1], "exact": True}]
    assert timing["wall_time_total_s"] == pytest.approx(first["wall_time_total_s"] + timing["wall_time_s"], abs=2e-3)
    resolved = yaml.safe_load((tmp_path / "run" / "hyperparams.yaml").read_text())
    assert resolved["n_steps"] == 5 and resolved["n_envs"] == 1 and resolved["policy"] == "MlpPolicy"
    assert len((tmp_path / "run" / "command.txt").read_text().splitlines()) == 2  # one line per invocation
    # a different config is refused, or cleared with on_mismatch="restart"
    with pytest.raises(ConfigError, match="different run"):
        T.train("schedrl.envs:schedrl/DeepRM-v0", kwargs, "a2c", {**hp, "n_steps": 6}, 200, 0, tmp_path / "run")
    T.train("schedrl.envs:schedrl/DeepRM-v0", kwargs, "a2c", {**hp, "n_steps": 6}, 50, 0, tmp_path / "run",
            on_mismatch="restart")
    assert 50 <= json.loads(folder.timing_file.read_text())["steps"] < 60  # trained afresh


def test_reinforce_ctrl_c_mid_iteration_saves_the_last_finished_one_and_timing_sums(tmp_path):
    import torch

    cfg = ReinforceConfig.from_dict({**CFG, "examples_per_update": 1})  # updates inside an iteration
    full = train_reinforce(Bandit, cfg, 7, 5, tmp_path / "full", examples=2, checkpoint_every=100)
    steps = {"n": 0}

    class Killed(Bandit):
        def step(self, action):
            steps["n"] += 1
            if steps["n"] == 4 * 3 * 2 * 4 + 14:  # iteration 5, after its first job set's update
                raise KeyboardInterrupt
            return super().step(action)

    with pytest.raises(KeyboardInterrupt):
        train_reinforce(Killed, cfg, 7, 5, tmp_path / "killed", examples=2, checkpoint_every=100)
    folder = RunFolder(tmp_path / "killed", prefix="iter_", suffix=".pt")
    # no periodic one: Ctrl-C wrote 4; 1 and 2 are the budget checkpoints (1/8, 1/4 and 1/2 of 7 iterations)
    assert [n for n, _ in folder.checkpoints()] == [1, 2, 4]
    first = json.loads(folder.timing_file.read_text())
    assert first["interrupted"]["iterations"] == 4 and first["interrupted"]["steps"] == 4 * 3 * 2 * 4
    assert "steps" not in first and folder.finished("iterations") is None
    resumed = train_reinforce(Bandit, cfg, 7, 5, tmp_path / "killed", examples=2, checkpoint_every=100)
    assert resumed.iterations_trained == 3 and resumed.steps == full.steps
    assert (tmp_path / "full" / "learning_curve.csv").read_bytes() == (tmp_path / "killed" / "learning_curve.csv").read_bytes()
    assert (tmp_path / "full" / "model.zip").read_bytes() == (tmp_path / "killed" / "model.zip").read_bytes()
    a = torch.load(tmp_path / "full" / "checkpoints" / "iter_7.pt", weights_only=False)
    b = torch.load(tmp_path / "killed" / "checkpoints" / "iter_7.pt", weights_only=False)
    assert all(torch.equal(a["optimizer"]["state"][k]["square_avg"], b["optimizer"]["state"][k]["square_avg"])
               for k in a["optimizer"]["state"])
    timing = json.loads(folder.timing_file.read_text())
    assert "interrupted" not in timing and timing["iterations"] == 7 and timing["resumed_from_iteration"] == 4
    assert timing["wall_time_total_s"] == pytest.approx(first["wall_time_total_s"] + timing["wall_time_s"], abs=2e-3)


def test_sb3_ctrl_c_while_continuing_a_finished_run_keeps_the_final_model_valid(tmp_path, monkeypatch):
    """An interrupted continuation must not pass its progress off as the final model's."""
    from schedrl.experiments import train as T

    kwargs = {"num_res": 1, "time_horizon": 10, "max_job_len": 5, "res_slot": 5, "max_job_size": 5,
              "backlog_size": 10, "num_nw": 3, "simu_len": 10, "episode_max_length": 40, "obs_mode": "compact"}
    hp = {"n_steps": 5, "policy_kwargs": {"net_arch": [8]}}
    env = "schedrl.envs:schedrl/DeepRM-v0"
    make = T.make_env
    T.train(env, kwargs, "a2c", hp, 100, 0, tmp_path / "run", checkpoint_every=1000)
    calls = {"steps": 0}

    class Stop(gym.Wrapper):
        def step(self, action):
            calls["steps"] += 1
            if calls["steps"] == 60:
                raise KeyboardInterrupt
            return self.env.step(action)

    monkeypatch.setattr(T, "make_env", lambda *a, **k: Stop(make(*a, **k)))
    with pytest.raises(KeyboardInterrupt):
        T.train(env, kwargs, "a2c", hp, 200, 0, tmp_path / "run", checkpoint_every=1000)
    folder = RunFolder(tmp_path / "run")
    # a hard interrupt mid-rollout writes no checkpoint (issue 70); model.zip still holds 100 steps
    assert not folder.checkpoints() and folder.finished() == 100
    monkeypatch.setattr(T, "make_env", make)
    assert T.train(env, kwargs, "a2c", hp, 100, 0, tmp_path / "run").skipped
    result = T.train(env, kwargs, "a2c", hp, 200, 0, tmp_path / "run", checkpoint_every=1000)
    # (an early bug loaded the 100-step model.zip as if it held the interrupt's steps and stopped short)
    assert result.resumed_from == 100 and 200 <= result.steps < 205 and folder.finished() == result.steps
    assert json.loads(folder.timing_file.read_text())["resumes"] == [{"from": 100, "exact": False}]


def test_sb3_ctrl_c_before_the_first_step_writes_no_checkpoint(tmp_path, monkeypatch):
    """Ctrl-C during the envs' first reset (before SB3 set up the callback): nothing to keep, the
    interrupt comes through as it is and a rerun trains from scratch."""
    from schedrl.experiments import train as T

    kwargs = {"num_res": 1, "time_horizon": 10, "max_job_len": 5, "res_slot": 5, "max_job_size": 5,
              "backlog_size": 10, "num_nw": 3, "simu_len": 10, "episode_max_length": 40, "obs_mode": "compact"}
    hp = {"n_steps": 5, "policy_kwargs": {"net_arch": [8]}}
    env = "schedrl.envs:schedrl/DeepRM-v0"
    make = T.make_env

    class StopAtReset(gym.Wrapper):
        def reset(self, **kw):
            raise KeyboardInterrupt

    monkeypatch.setattr(T, "make_env", lambda *a, **k: StopAtReset(make(*a, **k)))
    with pytest.raises(KeyboardInterrupt):
        T.train(env, kwargs, "a2c", hp, 50, 0, tmp_path / "run")
    folder = RunFolder(tmp_path / "run")
    assert folder.checkpoints() == [] and not folder.model_file.exists()
    assert json.loads(folder.timing_file.read_text())["interrupted"]["steps_trained"] == 0
    monkeypatch.setattr(T, "make_env", make)
    result = T.train(env, kwargs, "a2c", hp, 50, 0, tmp_path / "run")
    assert result.resumed_from == 0 and result.steps >= 50


def test_progress_lines_in_logs(tmp_path, capsys, monkeypatch):
    """Off a terminal (a rule's log) training prints progress lines: done/total, rate, ETA, reward."""
    monkeypatch.setenv("SCHEDRL_PROGRESS_SECONDS", "0")
    train_reinforce(Bandit, ReinforceConfig.from_dict(CFG), 3, 0, tmp_path / "run", examples=2)
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("deeprm_pg seed0:")]
    assert len(lines) >= 3 and "3/3 iterations (100%)" in lines[-1]
    assert "iterations/s" in lines[0] and "ETA" in lines[0] and "mean episode reward" in lines[0]


def test_budget_checkpoints_survive_pruning(tmp_path):
    """The first checkpoint at or after 1/8, 1/4 and 1/2 of the target is kept besides the newest
    two, and a REINFORCE run saves one at exactly those iterations (16 iterations: 2, 4, 8)."""
    folder = RunFolder(tmp_path / "sb3")
    folder.start({"x": 1}, 1000)
    for n in (100, 200, 300, 400, 500, 600, 700, 800):
        folder.checkpoint_path(n).write_text("x")
        folder.prune()
    assert [n for n, _ in folder.checkpoints()] == [200, 300, 500, 700, 800]
    assert [(f, n) for f, n, _ in folder.budget_checkpoints()] == [(0.125, 200), (0.25, 300), (0.5, 500)]

    train_reinforce(Bandit, ReinforceConfig.from_dict(CFG), 16, 0, tmp_path / "pg", checkpoint_every=5)
    pg = RunFolder(tmp_path / "pg", prefix="iter_", suffix=".pt")
    assert [n for n, _ in pg.checkpoints()] == [2, 4, 8, 15, 16]
    assert [n for _, n, _ in pg.budget_checkpoints(16)] == [2, 4, 8]


def test_timing_sums_survive_a_job_that_removes_timing_json(tmp_path):
    """A run paused by one rule and finished by another (runtime's halving rungs): Snakemake deletes
    the second job's declared outputs, timing.json among them, before it runs; the copy beside the
    checkpoints still carries the first segment's time and resume records into the final timing."""
    from schedrl.experiments import train as T

    kwargs = {"num_res": 1, "time_horizon": 10, "max_job_len": 5, "res_slot": 5, "max_job_size": 5,
              "backlog_size": 10, "num_nw": 3, "simu_len": 10, "episode_max_length": 40, "obs_mode": "compact"}
    hp = {"n_steps": 5, "policy_kwargs": {"net_arch": [8]}}
    run = tmp_path / "run"
    paused = T.train("schedrl.envs:schedrl/DeepRM-v0", kwargs, "a2c", hp, 200, 0, run, stop_at=100)
    assert paused.paused
    folder = RunFolder(run)
    first = json.loads(folder.timing_file.read_text())
    assert json.loads(folder.timing_copy.read_text()) == first
    folder.timing_file.unlink()  # what Snakemake does to the finishing job's declared outputs
    T.train("schedrl.envs:schedrl/DeepRM-v0", kwargs, "a2c", hp, 200, 0, run)
    timing = json.loads(folder.timing_file.read_text())
    assert timing["resumes"] == [{"from": 100, "exact": True}]
    assert timing["wall_time_total_s"] == pytest.approx(first["wall_time_total_s"] + timing["wall_time_s"], abs=2e-3)
    assert timing["process_cpu_total_s"] > timing["process_cpu_s"]
    assert not folder.timing_copy.exists()  # finished: the run's files are an uninterrupted run's
