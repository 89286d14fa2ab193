"""MDP-design paper: scenarios, MDP variants as env options, config checks, evaluation and transfer."""

from __future__ import annotations

import copy
import json

import gymnasium as gym
import numpy as np
import pandas as pd
import pytest

import schedrl.envs  # noqa: F401
from schedrl.config import load_yaml
from schedrl.errors import ConfigError
from schedrl.papers import paper_values
from schedrl.papers.mdp import cost as mc
from schedrl.papers.mdp import evaluation as me
from schedrl.papers.mdp import layout as ml
from schedrl.papers.mdp import training as mt

VALUES = paper_values("mdp")
SMOKE = load_yaml("config/smoke.yaml")["mdp"]


def test_scenarios_are_table3_and_hyperparams_are_table2():
    table3 = {int(k): tuple(v) for k, v in VALUES["table3"].items()}
    assert {sid: (s.procs, s.max_len, s.max_size) for sid, s in ml.SCENARIOS.items()} == table3
    from schedrl.agents.hyperparams import load_hyperparams

    hp = load_hyperparams(ml.ALGO, ml.HYPERPARAMS_VARIANT)
    assert {k: hp[k] for k in VALUES["table2"]} == VALUES["table2"]
    assert hp["n_envs"] == 1 and hp["policy"] == "MlpPolicy"


@pytest.mark.parametrize("name", list(ml.VARIANTS))
def test_every_variant_is_an_option_set_of_the_one_env(name):
    v = ml.VARIANTS[name]
    for sid in (2, 10):  # d = 48 > H = 20 needs placement "now"
        env = gym.make("schedrl/DeepRM-v0", **ml.env_kwargs(name, sid, 20, jobset_seed=5))
        e = env.unwrapped
        assert (e.obs_mode, e.sparse, e.reward_name) == (v.obs_mode, v.transitions == "sparse", v.reward)
        assert e.model.new_job_rate == 0.3 and e.params.num_nw == 10 and e.episode_max_length == 100
        assert e.model.dominant == (-(-ml.SCENARIOS[sid].max_size // 2), ml.SCENARIOS[sid].max_size)
        obs, info = env.reset(seed=0)
        assert env.observation_space.contains(obs)
        done, steps = False, 0
        while not done:
            obs, _, term, trunc, info = env.step(0)
            done, steps = term or trunc, steps + 1
        assert e.grid.now <= 100 and len(info["jobs"]) > 0
        assert ml.variant_of(ml.env_kwargs(name, sid, 20)) == name
        assert ml.scenario_of(ml.env_kwargs(name, sid, 20)) == sid


def test_check_env_on_the_compact_sparse_reduced_mdp():
    from gymnasium.utils.env_checker import check_env

    check_env(gym.make("schedrl/DeepRM-v0", **ml.env_kwargs("compact-sparse-reduced", 9, 20)).unwrapped)


def test_configs_validate_and_bad_specs_fail_in_one_line():
    for name in ("config", "smoke", "paper"):
        spec = ml.load_spec(f"config/{name}.yaml")
        assert ml.runs(spec) and mc.estimate_core_hours(spec)["train"] > 0
    bad = copy.deepcopy(SMOKE)
    bad["transfer"]["variant"] = "image"
    with pytest.raises(ConfigError, match="transfer.variant must be a compact"):
        ml.check_spec(bad)
    bad = copy.deepcopy(SMOKE)
    bad["fig3"]["scenarios"] = [4]
    with pytest.raises(ConfigError, match="fig3.scenarios: 4"):
        ml.check_spec(bad)
    with pytest.raises(ConfigError, match="mdp spec"):
        ml.load_spec(json.dumps({**SMOKE, "seeds": "zero"}))
    with pytest.raises(ConfigError, match="unknown MDP variant"):
        ml.env_kwargs("sparse-image", 1, 20)


def test_evaluation_trials_share_job_sets_and_batches_do_not_matter():
    class Void:
        def predict(self, obs, deterministic=True):
            return np.full(len(obs), 10), None

    kwargs = ml.env_kwargs("compact", 1, 20)
    a = me.evaluate_model(Void(), kwargs, 7, 123, batch=7)
    b = me.evaluate_model(Void(), kwargs, 7, 123, batch=2)
    pd.testing.assert_frame_equal(a, b)
    assert a["jobset_seed"].tolist() == list(range(123, 130))
    # the job sets do not depend on the MDP or H: the image env at H 60 draws the same jobs
    c = me.evaluate_model(Void(), ml.env_kwargs("image", 1, 60), 7, 123)
    assert c["n_jobs"].tolist() == a["n_jobs"].tolist()
    assert (a["mean_slowdown"] > 1).all()  # nothing ever runs under the void policy
    # ... so every job is unstarted at T and counts one more than its slowdown so far
    assert (a["jobs_unstarted"] == a["n_jobs"]).all()
    np.testing.assert_allclose(a["mean_slowdown"], a["mean_slowdown_sofar"] + 1)


def test_budget_checkpoints_are_kept_and_misconfigured_intervals_refused(tmp_path):
    from schedrl.agents.runs import RunFolder

    spec = copy.deepcopy(SMOKE)  # 1,600 steps, checkpoints every 200
    assert mt.budget_steps(spec) == [200, 400, 800]
    folder = RunFolder(tmp_path, keep_steps=mt.budget_steps(spec))
    for n in range(200, 1600, 200):
        folder.checkpoint_path(n).write_text("x")
        folder.prune()
    assert [n for n, _ in folder.checkpoints()] == [200, 400, 800, 1200, 1400]
    assert [(f, n) for f, n, _ in me.budget_checkpoints(tmp_path, spec)] == [(0.125, 200), (0.25, 400), (0.5, 800)]
    bad = copy.deepcopy(SMOKE)
    bad["train"]["checkpoint_every"] = 300
    with pytest.raises(ConfigError, match="checkpoint_every must divide"):
        ml.check_spec(bad)
    bad = copy.deepcopy(SMOKE)
    bad["variants"] = ["image", "compact", "compact-sparse-reduced-sum"]
    with pytest.raises(ConfigError, match="other reading of 'compact-sparse-reduced'"):
        ml.check_spec(bad)
    with pytest.raises(Exception, match="no checkpoint at or after step 200"):
        me.budget_checkpoints(tmp_path / "none", spec)


def test_budget_checkpoints_are_evaluated_and_fingerprinted_like_the_final_model(tmp_path):
    """Issue 60: each kept checkpoint plays the final evaluation's trials (recording its decisions
    does not change what it plays) and its fingerprint names the fraction and steps."""
    from schedrl.agents.hyperparams import load_hyperparams
    from schedrl.agents.registry import algo_class
    from schedrl.experiments.train import train

    spec = copy.deepcopy(SMOKE)
    spec["train"].update(steps=400, checkpoint_every=50)
    spec["eval"]["trials"] = 3
    hp = load_hyperparams(ml.ALGO, ml.HYPERPARAMS_VARIANT)
    run = tmp_path / "run"
    train(ml.ENV_ID, ml.env_kwargs("compact-sparse-reduced", 1, 20), ml.ALGO, hp, 400, 0, run,
          wrappers=ml.WRAPPERS, variant=ml.HYPERPARAMS_VARIANT, checkpoint_every=50, keep_steps=mt.budget_steps(spec))
    frame = me.evaluate_budgets(run, spec, fingerprint_dir=tmp_path / "out")
    assert sorted(frame["fraction"].unique()) == [0.125, 0.25, 0.5] and len(frame) == 9
    for f, steps, path in me.budget_checkpoints(run, spec):
        fp = json.loads(ml.budget_fingerprint_path(tmp_path / "out", f).read_text())
        assert (fp["fraction"], fp["steps"], fp["episodes"]) == (f, steps, 3)
        assert fp["agent"].endswith(f"at {f:g} of training") and fp["contested"] > 0
        model = algo_class(ml.ALGO).load(path, device="cpu")
        plain = me.evaluate_agent(model, spec, "compact-sparse-reduced", 1, 20)
        got = frame[frame["fraction"] == f].drop(columns=["fraction", "steps"]).reset_index(drop=True)
        pd.testing.assert_frame_equal(got, plain)
    listed = ml.fingerprint_files(spec, tmp_path, kinds=["trained"])
    assert any(p.endswith("fingerprint_at_0.125.json") for p in listed)


def test_the_skipped_time_reading_is_a_variant_and_job_size_readings_change_load():
    twin = ml.VARIANTS["compact-sparse-reduced-sum"]
    assert twin.skipped_reward == "sum" and ml.sum_twin("compact-sparse-reduced") == "compact-sparse-reduced-sum"
    assert ml.sum_twin("image") is None
    # j_s < n_p only in scenarios 3, 4, 5, 7, 9: the text's U{n_p/2..n_p} loads them more
    assert me.offered_load(1, "j_s", 50) == me.offered_load(1, "n_p", 50)
    assert me.offered_load(9, "n_p", 50) / me.offered_load(9, "j_s", 50) == pytest.approx(2.0, rel=0.05)
    with pytest.raises(ConfigError, match="job-size reading"):
        me.offered_load(9, "procs")


def test_linear_fit_is_exact_on_a_line():
    slope, icpt, r2 = mt.linear_fit([20, 40, 60], [3.0, 5.0, 7.0])
    assert (slope, icpt, r2) == pytest.approx((0.1, 1.0, 1.0))


def test_sparse_and_dense_give_the_same_schedule_for_a_greedy_policy():
    """Why Fig. 6 may evaluate a sparse-trained agent in the dense env: the skipped steps are steps
    where every action moves time on, so a deterministic policy makes the same schedule."""
    from stable_baselines3 import PPO

    env = gym.make("schedrl/DeepRM-v0", **ml.env_kwargs("compact-sparse-reduced", 3, 20))
    model = PPO("MlpPolicy", env, seed=0, device="cpu")
    sparse = me.evaluate_model(model, ml.env_kwargs("compact-sparse-reduced", 3, 20), 6, 50)
    dense = me.evaluate_model(model, ml.env_kwargs("compact-sparse-reduced", 3, 20, transitions="dense"), 6, 50)
    np.testing.assert_allclose(sparse["mean_slowdown"], dense["mean_slowdown"])
    assert (sparse["agent_steps"] <= dense["agent_steps"]).all()
    assert (sparse["agent_steps"] < dense["agent_steps"]).any()


def test_a_compact_agent_trained_in_one_scenario_runs_in_another(tmp_path):
    """Transfer works because the compact state has a fixed size; an image agent cannot move."""
    from schedrl.agents.hyperparams import load_hyperparams
    from schedrl.experiments.train import train

    hp = load_hyperparams(ml.ALGO, ml.HYPERPARAMS_VARIANT)
    spec = copy.deepcopy(SMOKE)
    spec["eval"]["trials"] = 3
    for name, sid in (("compact-sparse-reduced", 1), ("image", 1)):
        train(ml.ENV_ID, ml.env_kwargs(name, sid, 20), ml.ALGO, hp, 100, 0, tmp_path / name,
              wrappers=ml.WRAPPERS, variant=ml.HYPERPARAMS_VARIANT)
    moved = me.evaluate_run(tmp_path / "compact-sparse-reduced", spec, scenario_id=10, transitions="dense")
    assert (moved["scenario"] == 10).all() and (moved["trained_in"] == 1).all() and len(moved) == 3
    own = me.evaluate_run(tmp_path / "compact-sparse-reduced", spec)
    assert (own["scenario"] == 1).all() and own["variant"].iloc[0] == "compact-sparse-reduced"
    with pytest.raises(ConfigError, match="only compact agents transfer"):
        me.evaluate_run(tmp_path / "image", spec, scenario_id=10)


def test_welch_and_curve_helpers():
    assert me.welch_p([1, 1, 1], [1, 1, 1]) == 1.0 and me.welch_p([1, 1], [2, 2]) == 0.0
    rng = np.random.default_rng(0)
    assert me.welch_p(rng.normal(0, 1, 500), rng.normal(1, 1, 500)) < 1e-6
    x = np.linspace(0, 1, 100)
    assert me.flattened(1 - np.exp(-20 * x))[0] and not me.flattened(x)[0]
    stats = pd.DataFrame({"timesteps": x * 1000, "mean": 1 - np.exp(-10 * x)})
    assert 150 < me.steps_to_converge(stats) < 300
    curve = pd.DataFrame({"timesteps": [100, 200, 300, 400], "reward": [0.0, 1.0, 2.0, 3.0]})
    stats = me.curve_stats([curve, curve.assign(reward=curve["reward"] + 1)], window=1, points=4)
    assert stats["mean"].tolist() == [0.5, 1.5, 2.5, 3.5] and np.allclose(stats["std"], np.sqrt(0.5))


def test_training_learns_the_same_without_torch_distribution_checks():
    """``schedrl train`` turns torch's distribution argument checks off for speed: checks only."""
    import warnings

    import torch

    from schedrl.agents.hyperparams import load_hyperparams, resolve_hyperparams
    from schedrl.agents.registry import algo_class
    from schedrl.experiments.envs import make_env

    policy, _, kwargs = resolve_hyperparams(ml.ALGO, load_hyperparams(ml.ALGO, ml.HYPERPARAMS_VARIANT))
    params = []
    try:
        for validate in (True, False):
            torch.distributions.Distribution.set_default_validate_args(validate)
            env = make_env(ml.ENV_ID, {**ml.env_kwargs("compact", 1, 20), "jobset_seed": None})
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model = algo_class(ml.ALGO)(policy, env, device="cpu", seed=3, **kwargs)
                model.learn(150)
            params.append(torch.cat([p.detach().flatten() for p in model.policy.parameters()]))
    finally:
        torch.distributions.Distribution.set_default_validate_args(True)
    assert torch.equal(params[0], params[1])


def test_a_variants_hyperparams_block_changes_its_runs_and_none_leaves_them_as_the_paper():
    """mdp.hyperparams.<variant> (a tuned recipe, issue 69): the training rule's algo and --variant
    params and the untrained reference take it; without it (or for another variant) nothing changes."""
    import shlex

    from schedrl.agents.hyperparams import load_hyperparams
    from schedrl.experiments.envs import parse_pairs
    from schedrl.papers.mdp import references as mr

    table2 = load_hyperparams(ml.ALGO, ml.HYPERPARAMS_VARIANT)
    assert load_hyperparams(ml.MASKED_ALGO, ml.HYPERPARAMS_VARIANT) == table2  # maskable_ppo.yaml's mdp block
    spec = copy.deepcopy(SMOKE)
    spec.pop("tune", None)
    for variant in ("image", "compact-sparse-reduced"):  # no block: the paper's runs, params as before
        assert mt.run_algo(spec, variant) == "ppo" and mt.train_hp_args(spec, variant) == "mdp"
        assert mt.run_hyperparams(spec, variant) == table2 and mt.hyperparams_override(spec, variant) == {}
    spec["hyperparams"] = {"compact-sparse-reduced": {"learning_rate": 1e-05, "n_steps": 256, "net": [32, 16],
                                                      "mask": True}}
    ml.check_spec(spec)
    ml.load_spec(json.dumps(spec))  # the schema takes it
    hp = mt.run_hyperparams(spec, "compact-sparse-reduced")
    assert mt.run_algo(spec, "compact-sparse-reduced") == "maskable_ppo"
    assert hp["learning_rate"] == 1e-05 and hp["n_steps"] == 256 and hp["n_epochs"] == table2["n_epochs"]
    assert hp["policy_kwargs"] == {"net_arch": {"pi": [32, 16], "vf": [32, 16]}, "activation_fn": "tanh"}
    args = mt.train_hp_args(spec, "compact-sparse-reduced")
    assert args.startswith("mdp ") and "--hp=learning_rate=1.0e-05" in args and "--hp=n_steps=256" in args
    assert parse_pairs([a.removeprefix("--hp=") for a in shlex.split(args)[1:]], "--hp") == \
        {k: v for k, v in hp.items() if k in ("learning_rate", "n_steps", "policy_kwargs")}
    # the other variant keeps the paper's recipe
    assert mt.run_algo(spec, "image") == "ppo" and mt.run_hyperparams(spec, "image") == table2
    # the untrained reference is the tuned run's starting network; without a spec, Table 2's
    model = mr.untrained_model("compact-sparse-reduced", 9, 20, 0, spec)
    assert type(model).__name__ == "MaskablePPO" and model.policy.mlp_extractor.policy_net[0].out_features == 32
    assert type(mr.untrained_model("compact-sparse-reduced", 9, 20, 0)).__name__ == "PPO"
    for bad, key in (({"compact-sparse-reduced": {"colour": 1}}, "colour"), ({"sparse-image": {}}, "hyperparams")):
        with pytest.raises(ConfigError, match=key):
            ml.load_spec(json.dumps({**spec, "hyperparams": bad}))


def test_a_masked_agent_plays_the_evaluation_with_its_masks():
    """run_lockstep hands MaskablePPO the envs' action_masks(): greedy play never picks a masked slot
    (the same network unmasked does)."""
    import warnings

    from schedrl.envs.rollout import run_lockstep
    from schedrl.experiments.envs import make_env
    from schedrl.papers.mdp import references as mr

    spec = {**copy.deepcopy(SMOKE), "hyperparams": {"compact-sparse-reduced": {"mask": True}}}
    kwargs = ml.env_kwargs("compact-sparse-reduced", 9, 20)

    class Check:
        def __init__(self, env):
            self.env, self.valid = env, []

        def record(self, obs, action):  # before the step: the mask the model was given
            self.valid.append(bool(self.env.unwrapped.action_masks()[action]))

    played = {}
    for name, run_spec in (("masked", spec), ("plain", None)):
        model = mr.untrained_model("compact-sparse-reduced", 9, 20, 0, run_spec)
        envs = [make_env(ml.ENV_ID, {**kwargs, "jobset_seed": s, "num_jobsets": 1}) for s in (5, 6)]
        checks = [Check(env) for env in envs]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            run_lockstep(model, envs, [5, 6], deterministic=True, recorders=checks)
        played[name] = [v for c in checks for v in c.valid]
    assert played["masked"] and all(played["masked"])
    assert not all(played["plain"])
