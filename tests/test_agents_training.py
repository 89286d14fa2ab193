"""Generic agent layer: algorithm registry, hyperparameter YAML, training run folders, resume,
evaluation. Runs on CartPole-v1 with a few hundred steps so it does not depend on any paper env."""

from __future__ import annotations

import json

import gymnasium as gym
import numpy as np
import pandas as pd
import pytest

from schedrl.agents import load_hyperparams, resolve_hyperparams
from schedrl.agents.registry import ALGOS, algo_class, check_action_space, is_own_loop
from schedrl.agents.runs import RunFolder
from schedrl.agents.wrappers import JobMetricsInfo, job_metrics
from schedrl.errors import ConfigError
from schedrl.experiments.evaluate import evaluate_run, load_run
from schedrl.experiments.train import checkpoints, train

ENV = "CartPole-v1"


def small(algo: str) -> dict:
    hp = load_hyperparams(algo, ENV)
    if algo == "dqn":
        hp.update(learning_starts=50, buffer_size=1000)
    if algo == "trpo":
        hp.update(n_steps=128, batch_size=64)
    return hp


def test_every_algo_has_a_yaml_that_resolves():
    for algo in ALGOS:
        if is_own_loop(algo):  # schedrl's REINFORCE: its YAML is checked in test_reinforce.py
            continue
        policy, n_envs, kwargs = resolve_hyperparams(algo, load_hyperparams(algo))
        assert getattr(policy, "__name__", policy) in ("MlpPolicy", "LeanMlpPolicy", "DenseInputLeanMlpPolicy",
                                                       "LeanMaskablePolicy") and n_envs >= 1
        assert "activation_fn" in kwargs["policy_kwargs"]
        assert not isinstance(kwargs["policy_kwargs"]["activation_fn"], str)


@pytest.mark.parametrize("algo,eps", [("ppo", 1e-5), ("trpo", 1e-5), ("dqn", 1e-8)])
def test_default_adam_is_the_fused_kernel_with_sb3s_eps(algo, eps):
    """Where SB3 builds its default Adam we ask for torch's fused kernel, keeping SB3's eps."""
    import torch

    policy, _, kwargs = resolve_hyperparams(algo, load_hyperparams(algo))
    opt = algo_class(algo)(policy, gym.make("CartPole-v1"), **kwargs).policy.optimizer
    assert isinstance(opt, torch.optim.Adam)
    assert opt.defaults["fused"] is True and opt.defaults["eps"] == pytest.approx(eps)


def test_a2c_keeps_rmsprop_and_a_named_optimizer_is_left_alone():
    import torch

    policy, _, kwargs = resolve_hyperparams("a2c", load_hyperparams("a2c", overrides={"rms_prop_eps": 1e-4}))
    opt = algo_class("a2c")(policy, gym.make("CartPole-v1"), **kwargs).policy.optimizer
    assert isinstance(opt, torch.optim.RMSprop) and opt.defaults["foreach"] is True
    assert (opt.defaults["alpha"], opt.defaults["eps"], opt.defaults["weight_decay"]) == (0.99, 1e-4, 0)
    _, _, kwargs = resolve_hyperparams("ppo", load_hyperparams("ppo", overrides={
        "policy_kwargs": {"optimizer_class": "sgd"}}))
    assert "optimizer_kwargs" not in kwargs["policy_kwargs"]


def test_a2c_rmsprop_learns_sb3s_weights_up_to_the_rounding_of_the_root():
    """The multi-tensor RMSprop with an exact root is a speed-up: A2C trained both ways ends on the
    same weights up to torch's one-ulp roots (schedrl.agents.rmsprop)."""
    import torch
    from stable_baselines3 import A2C

    from schedrl.agents.rmsprop import RMSprop

    policy, _, kwargs = resolve_hyperparams("a2c", load_hyperparams("a2c"))
    ours = A2C(policy, gym.make("CartPole-v1"), seed=3, device="cpu", **kwargs).learn(300)
    assert type(ours.policy.optimizer) is RMSprop
    kwargs["policy_kwargs"] = {k: v for k, v in kwargs["policy_kwargs"].items() if not k.startswith("optimizer")}
    sb3 = A2C("MlpPolicy", gym.make("CartPole-v1"), seed=3, device="cpu", **kwargs).learn(300)
    assert not sb3.policy.optimizer.defaults["foreach"]
    for a, b in zip(ours.policy.parameters(), sb3.policy.parameters(), strict=True):
        torch.testing.assert_close(a, b, rtol=1e-4, atol=1e-6)


def test_acktr_and_unknown_algorithms_are_user_errors():
    with pytest.raises(ConfigError, match="no stable-baselines3"):
        algo_class("ACKTR")
    with pytest.raises(ConfigError, match="unknown algorithm"):
        algo_class("sac2")


def test_dqn_refuses_multibinary():
    with pytest.raises(ConfigError, match="MultiBinary"):
        check_action_space("dqn", gym.spaces.MultiBinary(5))
    check_action_space("a2c", gym.spaces.MultiBinary(5))


def test_variant_block_is_merged_over_default(tmp_path):
    (tmp_path / "a2c.yaml").write_text(
        "default:\n  n_steps: 5\n  ent_coef: 0.01\n  policy_kwargs: {net_arch: [8], activation_fn: relu}\n"
        "myenv:\n  n_steps: 16\n  learning_rate: lin_0.001\n")
    hp = load_hyperparams("a2c", "myenv", tmp_path)
    assert hp["n_steps"] == 16 and hp["ent_coef"] == 0.01 and hp["policy"] == "MlpPolicy"
    assert load_hyperparams("a2c", "other", tmp_path)["n_steps"] == 5
    _, _, kwargs = resolve_hyperparams("a2c", hp)
    assert kwargs["learning_rate"](1.0) == pytest.approx(1e-3)
    assert kwargs["learning_rate"](0.5) == pytest.approx(5e-4)
    import torch.nn as nn
    assert kwargs["policy_kwargs"]["activation_fn"] is nn.ReLU


@pytest.mark.parametrize("bad, match", [
    ({"n_stepz": 3}, "unknown hyperparameter 'n_stepz'"),
    ({"policy_kwargs": {"activation_fn": "swish9"}}, "activation_fn"),
    ({"policy_kwargs": {"net_arch": [64, -1]}}, "net_arch"),
    ({"policy_kwargs": {"shared_net": []}}, "shared_net"),
    ({"policy_kwargs": {"shared_net": [8], "net_arch": [8]}}, "either shared_net or net_arch"),
    ({"learning_rate": "cos_3"}, "learning_rate"),
    ({"policy": "TransformerPolicy"}, "unknown policy"),
    ({"vec_env": "threads"}, "vec_env"),
])
def test_bad_hyperparameters_name_the_key(bad, match):
    hp = {**load_hyperparams("a2c"), **bad}
    with pytest.raises(ConfigError, match=match):
        resolve_hyperparams("a2c", hp)


def test_missing_default_block(tmp_path):
    (tmp_path / "ppo.yaml").write_text("cartpole: {n_steps: 3}\n")
    with pytest.raises(ConfigError, match="default"):
        load_hyperparams("ppo", "cartpole", tmp_path)


@pytest.mark.parametrize("algo", ["a2c", "ppo", "dqn", "trpo"])
def test_train_writes_the_run_folder_and_evaluates(tmp_path, algo):
    run = tmp_path / algo
    result = train(ENV, {}, algo, small(algo), 300, seed=3, run_dir=run, checkpoint_every=100)
    assert result.steps >= 300 and not result.skipped
    for name in ("config.json", "model.zip", "learning_curve.csv", "timing.json", "monitor/0.monitor.csv"):
        assert (run / name).exists(), name
    config = json.loads((run / "config.json").read_text())
    assert config["algo"] == algo and config["seed"] == 3 and config["total_steps"] == 300
    assert config["hyperparams"] == small(algo)
    timing = json.loads((run / "timing.json").read_text())
    assert timing["steps"] == result.steps and timing["steps_per_s"] > 0
    curve = pd.read_csv(run / "learning_curve.csv")
    assert list(curve.columns[:4]) == ["timesteps", "env", "reward", "length"]
    assert curve["timesteps"].is_monotonic_increasing and (curve["reward"] == curve["length"]).all()
    kept = [n for n, _ in checkpoints(run)]  # the newest two and the budget ones (1/8, 1/4, 1/2 of 300)
    assert set(kept) <= set(kept[-2:]) | {n for _, n, _ in RunFolder(run).budget_checkpoints(300)}
    episodes = evaluate_run(run, n_episodes=2, seed=10)
    assert len(episodes) == 2 and (episodes["length"] > 0).all()


def test_same_seed_same_learning_curve(tmp_path):
    for name in ("a", "b"):
        train(ENV, {}, "a2c", small("a2c"), 250, seed=7, run_dir=tmp_path / name)
    a = (tmp_path / "a" / "learning_curve.csv").read_bytes()
    assert a == (tmp_path / "b" / "learning_curve.csv").read_bytes()
    train(ENV, {}, "a2c", small("a2c"), 250, seed=8, run_dir=tmp_path / "c")
    assert a != (tmp_path / "c" / "learning_curve.csv").read_bytes()


def test_rerun_is_skipped_and_a_higher_target_resumes(tmp_path):
    run = tmp_path / "run"
    first = train(ENV, {}, "ppo", small("ppo"), 256, seed=0, run_dir=run, checkpoint_every=128)
    again = train(ENV, {}, "ppo", small("ppo"), 256, seed=0, run_dir=run, checkpoint_every=128)
    assert again.skipped and again.steps == first.steps
    curve_before = pd.read_csv(run / "learning_curve.csv")
    more = train(ENV, {}, "ppo", small("ppo"), 512, seed=0, run_dir=run, checkpoint_every=128)
    assert more.resumed_from == first.steps and more.steps >= 512
    model, _ = load_run(run)
    assert model.num_timesteps == more.steps
    curve = pd.read_csv(run / "learning_curve.csv")
    assert len(curve) > len(curve_before)
    pd.testing.assert_frame_equal(curve.iloc[: len(curve_before)], curve_before)
    timing = json.loads((run / "timing.json").read_text())
    assert timing["resumed_from"] == first.steps and timing["wall_time_total_s"] >= timing["wall_time_s"]
    assert timing["process_cpu_total_s"] > timing["process_cpu_s"] > 0  # the first segment's CPU is counted too


def test_resume_from_checkpoint_after_a_crash(tmp_path):
    run = tmp_path / "run"
    train(ENV, {}, "dqn", small("dqn"), 200, seed=0, run_dir=run, checkpoint_every=100)
    curve_200 = pd.read_csv(run / "learning_curve.csv")
    # Simulate a run killed after its checkpoint at 200 steps (or a workflow that deleted the
    # declared outputs before rerunning): no final model, timing or learning curve.
    for name in ("model.zip", "timing.json", "learning_curve.csv"):
        (run / name).unlink()
    assert checkpoints(run)[-1][0] == 200
    assert (run / "checkpoints" / "step_200.replay.pkl").exists()
    result = train(ENV, {}, "dqn", small("dqn"), 300, seed=0, run_dir=run, checkpoint_every=100)
    assert result.resumed_from == 200 and result.steps == 300
    curve = pd.read_csv(run / "learning_curve.csv")
    assert len(curve_200) > 0
    pd.testing.assert_frame_equal(curve.iloc[: len(curve_200)], curve_200)


def test_a_different_config_is_refused(tmp_path):
    run = tmp_path / "run"
    train(ENV, {}, "a2c", small("a2c"), 50, seed=0, run_dir=run)
    with pytest.raises(ConfigError, match="seed"):
        train(ENV, {}, "a2c", small("a2c"), 50, seed=1, run_dir=run)
    fresh = train(ENV, {}, "a2c", small("a2c"), 50, seed=1, run_dir=run, on_mismatch="restart")
    assert fresh.resumed_from == 0 and not fresh.skipped
    assert json.loads((run / "config.json").read_text())["seed"] == 1


def test_maskable_ppo_needs_masks(tmp_path):
    with pytest.raises(ConfigError, match="action_masks"):
        train(ENV, {}, "maskable_ppo", small("maskable_ppo"), 64, seed=0, run_dir=tmp_path / "m")


def test_unknown_env_is_a_config_error(tmp_path):
    with pytest.raises(ConfigError, match="NoSuchEnv"):
        train("NoSuchEnv-v9", {}, "a2c", small("a2c"), 10, seed=0, run_dir=tmp_path / "x")


class _JobsEnv(gym.Env):
    """Three-step episode that reports two finished jobs at the end."""

    observation_space = gym.spaces.Box(0, 1, (1,), np.float32)
    action_space = gym.spaces.Discrete(2)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.t = 0
        return np.zeros(1, np.float32), {}

    def step(self, action):
        self.t += 1
        done = self.t == 3
        info = {"jobs": pd.DataFrame({"slowdown": [1.0, 3.0], "completion_time": [2.0, 6.0]})} if done else {}
        return np.zeros(1, np.float32), -1.0, done, False, info


def test_job_metrics_wrapper_summarises_the_final_jobs():
    env = JobMetricsInfo(_JobsEnv())
    env.reset(seed=0)
    info = {}
    for _ in range(3):
        _, _, terminated, _, info = env.step(0)
    assert terminated and info["mean_slowdown"] == 2.0 and info["mean_completion_time"] == 4.0
    assert info["jobs_finished"] == 2.0
    empty = job_metrics([])
    assert empty["jobs_finished"] == 0.0 and np.isnan(empty["mean_slowdown"])
    # the DeepRM grid also reports running and waiting jobs: only finished ones are counted
    mixed = job_metrics({"slowdown": [1.0, 2.0, 4.0], "state": ["finished", "running", "waiting"]})
    assert mixed["jobs_finished"] == 1.0 and mixed["mean_slowdown"] == pytest.approx(7 / 3)


def test_cli_train_evaluate_and_errors(tmp_path, capsys):
    from schedrl.cli import main

    run = tmp_path / "cli"
    args = ["train", "--env", ENV, "--algo", "a2c", "--steps", "60", "--seed", "0", "--run-dir", str(run),
            "--hp", "n_steps=6"]
    assert main(args) == 0
    assert json.loads((run / "config.json").read_text())["hyperparams"]["n_steps"] == 6
    assert main(args) == 0 and "already trained" in capsys.readouterr().out
    out = tmp_path / "eval.csv"
    assert main(["evaluate", "--run-dir", str(run), "--episodes", "2", "--out", str(out)]) == 0
    assert len(pd.read_csv(out)) == 2
    assert main(["train", "--env", ENV, "--algo", "acktr", "--steps", "5", "--seed", "0",
                 "--run-dir", str(tmp_path / "x")]) == 2
    assert "no stable-baselines3" in capsys.readouterr().err
    assert main(["train", "--env", ENV, "--algo", "a2c", "--steps", "5", "--seed", "0",
                 "--run-dir", str(tmp_path / "y"), "--env-kwarg", "novalue"]) == 2
    assert main(["evaluate", "--run-dir", str(tmp_path / "nothing"), "--out", str(out)]) == 2


def test_bad_algorithm_for_env_leaves_no_run_folder(tmp_path):
    from schedrl.errors import SchedrlError
    from schedrl.experiments.train import train

    run_dir = tmp_path / "run"
    with pytest.raises(SchedrlError):
        # DQN needs a Discrete action space; this env's is MultiBinary
        train("schedrl.envs:schedrl/DeepRM-v0", {"action_mode": "multibinary", "num_nw": 5}, "dqn", {},
              total_steps=10, seed=0, run_dir=run_dir)
    assert not run_dir.exists()


def test_subproc_vec_env_learns_the_same_as_dummy(tmp_path):
    """``vec_env: subproc`` steps each env copy in its own process; for a seeded run the learning
    curve equals the in-process DummyVecEnv's (only where the env steps changes)."""
    hp = {**small("a2c"), "n_envs": 2}
    train(ENV, {}, "a2c", hp, 200, seed=1, run_dir=tmp_path / "dummy")
    train(ENV, {}, "a2c", {**hp, "vec_env": "subproc"}, 200, seed=1, run_dir=tmp_path / "subproc")
    curves = [pd.read_csv(tmp_path / d / "learning_curve.csv") for d in ("dummy", "subproc")]
    pd.testing.assert_frame_equal(*curves)
    assert json.loads((tmp_path / "subproc" / "timing.json").read_text())["n_envs"] == 2


def test_tensorboard_logs_sb3_and_reinforce_runs_alike(tmp_path):
    pytest.importorskip("tensorboard")
    from schedrl.cli import main

    board = tmp_path / "tb"
    train(ENV, {}, "ppo", {**small("ppo"), "n_steps": 64, "batch_size": 32}, 128, 0, tmp_path / "ppo",
          tensorboard=str(board))
    assert main(["train", "--env", ENV, "--algo", "deeprm_pg", "--steps", "2", "--seed", "0",
                 "--run-dir", str(tmp_path / "pg"), "--hp", "trajectories=2", "--tensorboard", str(board)]) == 0
    logs = {p.parent.name for p in board.rglob("events.out.tfevents.*")}
    assert any(n.startswith("ppo_seed0") for n in logs) and "deeprm_pg_seed0" in logs


def test_tensorboard_without_the_package_or_as_a_hyperparameter_is_one_line(tmp_path, monkeypatch):
    import builtins

    real = builtins.__import__

    def no_tensorboard(name, *args, **kwargs):
        if name == "tensorboard":
            raise ImportError(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_tensorboard)
    with pytest.raises(ConfigError, match="pip install 'schedrl\\[tensorboard\\]'"):
        train(ENV, {}, "a2c", small("a2c"), 100, 0, tmp_path / "run", tensorboard=str(tmp_path / "tb"))
    assert not (tmp_path / "run").exists()  # refused before anything was written
    with pytest.raises(ConfigError, match="--tensorboard DIR"):
        resolve_hyperparams("a2c", {**small("a2c"), "tensorboard_log": "x"})


def test_env_copies_of_a_jobset_env_start_on_different_sets():
    """n_envs copies of an env with fixed job sets start their cycles at sets 0, 1, ..., so one
    rollout covers several sets instead of the same set n_envs times; other envs are untouched."""
    from stable_baselines3.common.vec_env import DummyVecEnv

    from schedrl.experiments.envs import make_env
    from schedrl.experiments.train import stagger_jobsets

    make = lambda: make_env("schedrl.envs:schedrl/DeepRM-v0", {"num_jobsets": 3, "simu_len": 20})  # noqa: E731
    venv = DummyVecEnv([make] * 4)
    stagger_jobsets(venv, make())
    venv.reset()
    arrivals = [tuple(e.unwrapped.jobset.arrival) for e in venv.envs]
    assert arrivals[3] == arrivals[0] and len(set(arrivals[:3])) == 3
    cartpole = DummyVecEnv([lambda: gym.make(ENV)] * 2)
    stagger_jobsets(cartpole, gym.make(ENV))
    cartpole.reset()
