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
    # Ctrl-C saved iteration 6 although the default interval (10 / 10 = 1) had saved it already;
    # only the newest two are kept
    assert [n for n, _ in folder.checkpoints()] == [5, 6] and not folder.model_file.exists()
    resumed = train_reinforce(Bandit, cfg, 10, 3, tmp_path / "killed", examples=2)  # no flag
    assert resumed.iterations_trained == 4
    for name in ("learning_curve.csv", "hyperparams.yaml"):
        assert (tmp_path / "full" / name).read_bytes() == (tmp_path / "killed" / name).read_bytes()
    a = torch.load(tmp_path / "full" / "model.zip", weights_only=False)["weights"]
    b = torch.load(tmp_path / "killed" / "model.zip", weights_only=False)["weights"]
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert yaml.safe_load((tmp_path / "full" / "hyperparams.yaml").read_text())["hidden"] == [8]
    assert len((tmp_path / "killed" / "command.txt").read_text().splitlines()) == 2  # one per invocation


def test_sb3_interrupted_run_resumes_and_sums_timing(tmp_path, monkeypatch):
    from schedrl.experiments import train as T

    kwargs = {"num_res": 1, "time_horizon": 10, "max_job_len": 5, "res_slot": 5, "max_job_size": 5,
              "backlog_size": 10, "num_nw": 3, "simu_len": 10, "episode_max_length": 40, "obs_mode": "compact"}
    hp = {"n_steps": 5, "policy_kwargs": {"net_arch": [8]}}
    make = T.make_env
    calls = {"steps": 0}

    class Stop(gym.Wrapper):
        def step(self, action):
            calls["steps"] += 1
            if calls["steps"] == 130:
                raise KeyboardInterrupt
            return self.env.step(action)

    monkeypatch.setattr(T, "make_env", lambda *a, **k: Stop(make(*a, **k)))
    with pytest.raises(KeyboardInterrupt):
        T.train("schedrl.envs:schedrl/DeepRM-v0", kwargs, "a2c", hp, 200, 0, tmp_path / "run")
    folder = RunFolder(tmp_path / "run")
    saved = [n for n, _ in folder.checkpoints()]
    assert saved and saved[-1] >= 120  # Ctrl-C wrote a checkpoint at the interrupt
    first = json.loads(folder.timing_file.read_text())
    assert first["interrupted"] and not folder.model_file.exists()
    monkeypatch.setattr(T, "make_env", make)
    result = T.train("schedrl.envs:schedrl/DeepRM-v0", kwargs, "a2c", hp, 200, 0, tmp_path / "run")
    assert result.resumed_from == saved[-1] and result.steps >= 200  # whole rollouts of n_steps
    timing = json.loads(folder.timing_file.read_text())
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
