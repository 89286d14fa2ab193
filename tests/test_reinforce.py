"""REINFORCE (DeepRM's agent): baseline/advantage arithmetic by hand, learning on a toy bandit,
seeded determinism, resume == uninterrupted run, and the DeepRM pipeline with the agent."""

from __future__ import annotations

import copy
import json

import gymnasium as gym
import numpy as np
import pandas as pd
import pytest

from schedrl.agents.reinforce import (
    ReinforceConfig,
    ReinforcePolicy,
    advantages,
    discounted_returns,
    make_policy,
    segment_advantages,
    time_baseline,
    train_reinforce,
    trajectory_rngs,
)
from schedrl.errors import ConfigError


class Bandit(gym.Env):
    """Two arms over ``horizon`` steps: arm 1 pays 1, arm 0 pays 0. Observation constant."""

    def __init__(self, horizon: int = 5):
        self.observation_space = gym.spaces.Box(0.0, 1.0, (2, 2), dtype=np.float32)
        self.action_space = gym.spaces.Discrete(2)
        self.horizon, self.t = horizon, 0

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.t = 0
        return np.ones((2, 2), dtype=np.float32), {}

    def step(self, action):
        self.t += 1
        return np.ones((2, 2), dtype=np.float32), float(action == 1), False, self.t >= self.horizon, {"arm": action}

    def action_masks(self):
        return np.array([True, False])


def test_returns_baseline_and_advantages_by_hand():
    assert discounted_returns([1, 2, 3], 1.0).tolist() == [6, 5, 3]
    assert np.allclose(discounted_returns([1, 2, 3], 0.5), [1 + 0.5 * (2 + 0.5 * 3), 2 + 1.5, 3])
    rets = [np.array([6.0, 5.0, 3.0]), np.array([2.0])]
    # padded with zeros like DeepRM: [[6,5,3],[2,0,0]] -> baseline [4, 2.5, 1.5]
    assert time_baseline(rets).tolist() == [4.0, 2.5, 1.5]
    adv = advantages(rets, "time")
    assert adv[0].tolist() == [2.0, 2.5, 1.5] and adv[1].tolist() == [-2.0]
    norm = np.concatenate(advantages(rets, "normalise"))
    assert np.isclose(norm.mean(), 0) and np.isclose(norm.std(), 1)
    assert np.allclose(norm, (np.array([6, 5, 3, 2]) - 4) / np.std([6, 5, 3, 2]))
    with pytest.raises(ConfigError):
        ReinforceConfig.from_dict({"baseline": "median"})
    with pytest.raises(ConfigError, match="unknown hyperparameter"):
        ReinforceConfig.from_dict({"lr": 0.1})


def test_segment_advantages_by_hand():
    # DRAS's batch training: returns stop at the segment's end, advantages per segment
    rewards = [1, 2, 3, 4, 5]
    none = segment_advantages(rewards, 2, 0.5, "none")
    assert [a.tolist() for a in none] == [[1 + 0.5 * 2, 2], [3 + 0.5 * 4, 4], [5]]
    norm = segment_advantages(rewards, 2, 0.5, "normalise")
    # [2, 2]: std 0, so only centred; [5, 4]: mean 4.5, std 0.5; [5]: centred
    assert [a.tolist() for a in norm] == [[0.0, 0.0], [1.0, -1.0], [0.0]]
    whole = segment_advantages(rewards, 5, 0.5, "normalise")
    assert len(whole) == 1 and np.allclose(whole[0], advantages([discounted_returns(rewards, 0.5)], "normalise")[0])


CFG = dict(hidden=[8], trajectories=4, examples_per_update=1, learning_rate=0.05, optimizer="adam")
ONE = dict(hidden=[8], trajectories=1, examples_per_update=1, learning_rate=0.05, optimizer="adam")


def test_update_every_checks_and_records():
    with pytest.raises(ConfigError, match="update_every > 0 needs trajectories 1"):
        ReinforceConfig.from_dict({**CFG, "update_every": 2})
    with pytest.raises(ConfigError, match="update_every must be an integer"):
        ReinforceConfig.from_dict({**ONE, "update_every": -1})
    # unset, the record is the one from before the option (runs keep their config, no retraining)
    assert "update_every" not in ReinforceConfig.from_dict(ONE).record()
    assert ReinforceConfig.from_dict({**ONE, "update_every": 3}).record()["update_every"] == 3


def test_update_every_steps_within_the_episode(tmp_path):
    import torch

    # 3 iterations of one 5-step episode, an update every 2 decisions: 3 updates per episode
    cfg = ReinforceConfig.from_dict({**ONE, "update_every": 2})
    train_reinforce(Bandit, cfg, 3, 0, tmp_path / "two", examples=1)
    state = torch.load(tmp_path / "two" / "checkpoints" / "iter_3.pt", weights_only=False)
    assert {int(v["step"]) for v in state["optimizer"]["state"].values()} == {9}
    assert json.loads((tmp_path / "two" / "config.json").read_text())["hyperparams"]["update_every"] == 2
    # an update every 5 or more decisions is the usual one update per episode: the same run
    train_reinforce(Bandit, ReinforceConfig.from_dict(ONE), 3, 0, tmp_path / "zero", examples=1)
    train_reinforce(Bandit, ReinforceConfig.from_dict({**ONE, "update_every": 7}), 3, 0, tmp_path / "seven",
                    examples=1)
    assert (tmp_path / "zero" / "learning_curve.csv").read_bytes() == (tmp_path / "seven" / "learning_curve.csv").read_bytes()
    a = torch.load(tmp_path / "zero" / "model.zip", weights_only=False)["weights"]
    b = torch.load(tmp_path / "seven" / "model.zip", weights_only=False)["weights"]
    assert all(torch.equal(a[k], b[k]) for k in a)


def test_update_every_by_hand(tmp_path):
    """One iteration, SGD, discount 1, no baseline, an update every 2 decisions of the 5-step
    bandit, replayed by hand: segment [r1, r2] has advantages [r1 + r2, r2], loss
    -(log p(a1) (r1 + r2) + log p(a2) r2) / 2; then [r3, r4]; then [r5] alone."""
    import torch

    cfg = ReinforceConfig.from_dict({**ONE, "update_every": 2, "optimizer": "sgd", "learning_rate": 0.5,
                                     "discount": 1.0, "baseline": "none"})
    train_reinforce(Bandit, cfg, 1, 0, tmp_path / "run", examples=1)
    torch.manual_seed(0)
    env = Bandit()
    policy = make_policy(env, cfg)
    initial = {k: v.clone() for k, v in policy.net.state_dict().items()}
    opt = torch.optim.SGD(policy.net.parameters(), lr=0.5)
    rng = trajectory_rngs(0, 0, 0, 1)[0]
    obs = np.ones((2, 2), dtype=np.float32)
    rewards = []
    for segment in ([0, 1], [2, 3], [4]):
        acts = [policy.sample_batch(obs[None], [rng])[0] for _ in segment]  # one policy per segment
        r = [float(a == 1) for a in acts]
        rewards += r
        adv = [r[0] + r[1], r[1]] if len(r) == 2 else [r[0]]
        logp = policy.log_prob(np.stack([obs] * len(acts)), np.asarray(acts))
        opt.zero_grad()
        (-(logp * torch.tensor(adv)).sum() / len(acts)).backward()
        opt.step()
        policy.invalidate()
    curve = _curve(tmp_path / "run")
    assert curve["reward"].tolist() == [sum(rewards)]
    trained = torch.load(tmp_path / "run" / "model.zip", weights_only=False)["weights"]
    assert all(torch.allclose(trained[k], v) for k, v in policy.net.state_dict().items())
    assert not all(torch.equal(trained[k], initial[k]) for k in initial)  # it learned


def _curve(run_dir):
    return pd.read_csv(run_dir / "learning_curve.csv")


def test_bandit_return_improves_and_is_seeded(tmp_path):
    cfg = ReinforceConfig.from_dict(CFG)
    a = train_reinforce(Bandit, cfg, 25, 3, tmp_path / "a", examples=2)
    curve = _curve(tmp_path / "a")
    assert len(curve) == 25 * 2 * 4 and a.steps == 25 * 2 * 4 * 5
    first, last = curve["reward"].head(16).mean(), curve["reward"].tail(16).mean()
    assert last > first + 1.0 and last > 4.0
    train_reinforce(Bandit, cfg, 25, 3, tmp_path / "b", examples=2)
    assert (tmp_path / "a" / "learning_curve.csv").read_bytes() == (tmp_path / "b" / "learning_curve.csv").read_bytes()
    # the model too is byte-identical (torch.save to a temporary file would embed its random name)
    assert (tmp_path / "a" / "model.zip").read_bytes() == (tmp_path / "b" / "model.zip").read_bytes()
    train_reinforce(Bandit, cfg, 25, 4, tmp_path / "c", examples=2)
    assert not _curve(tmp_path / "c").equals(curve)
    # the saved policy loads and prefers arm 1 (SB3-style predict)
    policy = ReinforcePolicy.load(tmp_path / "a" / "model.zip")
    assert policy.predict(np.ones((2, 2)), deterministic=True)[0] == 1
    # a different config in the same folder is refused
    with pytest.raises(ConfigError, match="different run"):
        train_reinforce(Bandit, ReinforceConfig.from_dict({**CFG, "learning_rate": 0.1}), 25, 3, tmp_path / "a", examples=2)


def test_masks_are_respected_when_asked(tmp_path):
    cfg = ReinforceConfig.from_dict({**CFG, "mask_actions": True})
    train_reinforce(Bandit, cfg, 3, 0, tmp_path / "m", examples=1)
    assert (_curve(tmp_path / "m")["reward"] == 0).all()  # only arm 0 is ever allowed


def test_resume_equals_uninterrupted(tmp_path):
    cfg = ReinforceConfig.from_dict(CFG)
    train_reinforce(Bandit, cfg, 8, 1, tmp_path / "full", examples=2)
    first = train_reinforce(Bandit, cfg, 5, 1, tmp_path / "part", examples=2, checkpoint_every=2)
    assert first.iterations == 5
    again = train_reinforce(Bandit, cfg, 5, 1, tmp_path / "part", examples=2, checkpoint_every=2)
    assert again.skipped
    # the workflow may delete outputs before a resume: the checkpoint carries the curve
    (tmp_path / "part" / "learning_curve.csv").unlink()
    resumed = train_reinforce(Bandit, cfg, 8, 1, tmp_path / "part", examples=2, checkpoint_every=2)
    assert resumed.iterations_trained == 3
    assert (tmp_path / "full" / "learning_curve.csv").read_bytes() == (tmp_path / "part" / "learning_curve.csv").read_bytes()
    # without periodic checkpoints a finished run still continues to a higher target
    train_reinforce(Bandit, cfg, 5, 1, tmp_path / "plain", examples=2)
    assert train_reinforce(Bandit, cfg, 8, 1, tmp_path / "plain", examples=2).iterations_trained == 3
    assert (tmp_path / "full" / "learning_curve.csv").read_bytes() == (tmp_path / "plain" / "learning_curve.csv").read_bytes()
    import torch

    a = torch.load(tmp_path / "full" / "model.zip", weights_only=False)["weights"]
    b = torch.load(tmp_path / "part" / "model.zip", weights_only=False)["weights"]
    assert all(torch.equal(a[k], b[k]) for k in a)


def test_deeprm_pipeline_with_the_deeprm_agent(tmp_path, capsys):
    """Train (CLI) and evaluate Mao et al.'s agent per rate, draw fig 5.4 with it, claims compare."""
    import json

    from schedrl.cli import main
    from schedrl.io import write_csv
    from schedrl.papers.deeprm import evaluation as de
    from schedrl.papers.deeprm import figures as df
    from schedrl.papers.deeprm import layout as dl
    from schedrl.papers.deeprm import references as dr
    from schedrl.papers.deeprm import training as dt
    from schedrl.papers.deeprm.claims import claims_rows
    from schedrl.papers.deeprm.figures import draw

    spec = {
        "env": {"num_res": 2, "time_horizon": 20, "max_job_len": 15, "res_slot": 10, "max_job_size": 10,
                "backlog_size": 60, "simu_len": 10, "episode_max_length": 40},
        "variants": {"discrete-image": {"env": {"num_nw": 10, "workload": "deeprm"}, "algos": ["a2c", "trpo"]}},
        "objectives": ["slowdown"], "baselines": ["sjf", "random"], "seeds": [0],
        "train": {"rate": 0.7, "steps": 100, "jobset_seed": 0, "num_jobsets": 2, "checkpoint_every": 100,
                  "episodes_per_iteration": 2},
        "eval": {"rates": [0.3, 0.7, 1.0], "box_rate": 0.7, "withheld_rate": 0.3, "episodes": 1,
                 "jobset_seed": 1000, "deterministic": False},
        "deeprm_agent": {"variant": "discrete-image", "rates": [0.7, 1.0], "iterations": 2, "jobsets": 2,
                         "trajectories": 2, "checkpoint_every": 1},
    }
    bad = copy.deepcopy(spec)
    bad["deeprm_agent"]["rates"] = [0.65]
    with pytest.raises(ConfigError, match="deeprm_agent.rates"):
        dl.check_spec(bad)
    root = tmp_path / "results"
    text = json.dumps(spec)
    for rate, seed in dl.deeprm_agent_runs(spec):
        run = dl.deeprm_agent_dir(root, "discrete-image", rate, seed)
        assert main(["deeprm", "train-agent", "--spec", text, "--rate", str(rate), "--seed", str(seed),
                     "--run-dir", str(run)]) == 0
        config = json.loads((run / "config.json").read_text())
        assert config["algo"] == "deeprm_pg" and config["env_kwargs"]["new_job_rate"] == rate
        assert len(pd.read_csv(run / "learning_curve.csv")) == 2 * 2 * 2
        for protocol in dl.AGENT_PROTOCOLS:
            if rate not in dl.protocol_setup(spec, protocol)["rates"]:
                continue  # greedy play at the box rate only
            paths = dl.eval_paths(run, protocol)
            assert main(["deeprm", "evaluate", "--spec", text, "--variant", "discrete-image", "--run-dir", str(run),
                         "--rates", str(rate), "--protocol", protocol, "--out-jobs", str(paths["jobs"]),
                         "--out-episodes", str(paths["episodes"])]) == 0
            assert pd.read_csv(paths["episodes"])["rate"].tolist() == [rate]
    for name in spec["baselines"]:
        jobs, episodes = de.evaluate_over_rates(dr.baseline_policy_factory(name),
                                                dt.env_kwargs(spec, "discrete-image", "slowdown"),
                                                spec["eval"]["rates"], 1, 1000)
        for protocol in dl.PROTOCOLS:  # the plumbing is under test here, not the protocols
            write_csv(dl.eval_paths(dl.baseline_dir(root, "discrete-image", name), protocol)["episodes"], episodes)
    # SB3 agents' results by hand: A2C within 5% of the DeepRM agent, TRPO 50% worse
    ours = de.deeprm_agent_episodes(spec, root)
    assert set(ours["policy"]) == {dl.DEEPRM_AGENT_LABEL} and sorted(ours["rate"]) == [0.7, 1.0]
    ref = episodes.copy()
    for algo, factor in (("a2c", 1.05), ("trpo", 1.5)):
        frame = ref.copy()
        for rate in (0.7, 1.0):
            frame.loc[np.isclose(frame["rate"], rate), "mean_slowdown"] = factor * float(
                ours.loc[np.isclose(ours["rate"], rate), "mean_slowdown"].mean())
        for protocol in dl.AGENT_PROTOCOLS:
            write_csv(dl.eval_paths(dl.run_dir(root, "discrete-image", algo, "slowdown", 0), protocol)["episodes"],
                      frame)
        (dl.run_dir(root, "discrete-image", algo, "slowdown", 0) / "timing.json").write_text(
            json.dumps({"steps": 100, "wall_time_total_s": 1.0, "steps_per_s": 100.0}))
    inputs = [str(p) for p in df.figure_inputs(spec, root, "fig5_4")]
    assert any("deeprm_pg/slowdown/rate1/seed0/eval_heldout_episodes.csv" in p for p in inputs)
    assert not any("deeprm_pg" in str(p) for p in df.figure_inputs(spec, root, "fig5_3"))
    table = draw("fig5_4", spec, root, tmp_path / "fig5_4.png")
    assert dl.DEEPRM_AGENT_LABEL in set(table["policy"])
    rows = {r["claim_id"]: r for r in claims_rows(spec, root)}
    assert rows["deeprm-agent@heldout"]["verdict"] == "partly reproduced", rows["deeprm-agent@heldout"]
    assert "rate 1: DeepRM agent" in rows["deeprm-agent@heldout"]["ours"]
    assert rows["deeprm-agent-mb@heldout"]["verdict"] == "not comparable"
    assert rows["finding-greedy-deeprm_pg"]["verdict"] in {"reproduced", "partly reproduced", "not reproduced"}
    assert "greedy: all jobs" in rows["finding-greedy-deeprm_pg"]["ours"]
    from schedrl.papers.deeprm.figures import table_load130_markdown as table_markdown
    from schedrl.papers.deeprm.figures import training_speed_markdown as timing_markdown

    md = table_markdown(spec, root).splitlines()
    ours_row = next(line for line in md if f"| {dl.DEEPRM_AGENT_LABEL} |" in line)
    sjf_row = next(line for line in md if "| SJF |" in line)
    assert float(ours_row.split("|")[4]) > 0 and sjf_row.split("|")[4].strip() == ""  # greedy: agents only
    assert "| DeepRM agent | 2 |" in timing_markdown(spec, root)


def test_deeprm_pg_is_registered_with_deeprm_defaults(tmp_path):
    from schedrl.agents import load_hyperparams, resolve_hyperparams
    from schedrl.agents.registry import check_action_space
    from schedrl.experiments.evaluate import evaluate_run
    from schedrl.experiments.train import train

    cfg = ReinforceConfig.from_dict(load_hyperparams("deeprm_pg", "deeprm-discrete-image"))
    assert (cfg.hidden, cfg.discount, cfg.baseline, cfg.optimizer, cfg.learning_rate, cfg.trajectories) == \
        ([20], 1.0, "time", "rmsprop", 1e-3, 20)
    with pytest.raises(ConfigError, match="not a Stable-Baselines3"):
        resolve_hyperparams("deeprm_pg", {})
    check_action_space("deeprm_pg", gym.spaces.MultiBinary(5))
    with pytest.raises(ConfigError):
        check_action_space("deeprm_pg", gym.spaces.Box(0, 1, (2,)))
    # the generic train/evaluate entry points: for deeprm_pg, total_steps counts iterations
    gym.register("schedrl-test/Bandit-v0", entry_point=Bandit, max_episode_steps=50)
    hp = {**CFG, "trajectories": 2}
    result = train("schedrl-test/Bandit-v0", {}, "deeprm_pg", hp, 3, 0, tmp_path / "run")
    assert result.steps == 3 * 2 * 5 and (tmp_path / "run" / "model.zip").exists()
    table = evaluate_run(tmp_path / "run", 3, seed=0, deterministic=False)
    assert len(table) == 3 and table["length"].eq(5).all()


def test_numpy_forward_matches_torch_and_sampling_follows_the_softmax():
    import torch

    torch.manual_seed(0)
    env = Bandit()
    for hidden, act in (([20], "relu"), ([6, 5], "tanh"), ([4], "leaky_relu")):
        policy = make_policy(
            env, ReinforceConfig.from_dict({"hidden": hidden, "activation": act}))
        obs = np.random.default_rng(1).random((2, 2)).astype(np.float32)
        with torch.no_grad():
            expected = policy.logits(obs)[0].numpy()
        assert np.allclose(policy._forward_numpy(obs), expected, atol=1e-5)
    probs = torch.softmax(torch.as_tensor(expected, dtype=torch.float64), 0).numpy()
    rng = np.random.default_rng(0)
    draws = np.array([policy.sample(obs, rng) for _ in range(4000)])
    assert abs(draws.mean() - probs[1]) < 0.03


class BitsBandit(Bandit):
    """MultiBinary(2): reward 1 per bit equal to the target (1, 0)."""

    def __init__(self):
        super().__init__(horizon=3)
        self.action_space = gym.spaces.MultiBinary(2)

    def step(self, action):
        obs, _, term, trunc, info = super().step(0)
        return obs, float(action[0] == 1) + float(action[1] == 0), term, trunc, info


def test_bernoulli_head_learns_a_multibinary_toy(tmp_path):
    cfg = ReinforceConfig.from_dict({**CFG, "baseline": "normalise", "discount": 0.6})
    train_reinforce(BitsBandit, cfg, 25, 0, tmp_path / "bits", examples=2)
    curve = _curve(tmp_path / "bits")
    assert curve["reward"].tail(16).mean() > curve["reward"].head(16).mean() + 1.0
    policy = ReinforcePolicy.load(tmp_path / "bits" / "model.zip")
    assert policy.head == "bernoulli"
    assert policy.predict(np.ones((2, 2)), deterministic=True)[0].tolist() == [1, 0]


def test_lockstep_rollouts_learn_exactly_as_one_at_a_time(tmp_path):
    """Batched rollouts change speed, not results: same curve and weights as sequential play."""
    import torch

    cfg = ReinforceConfig.from_dict({**CFG, "trajectories": 4})
    train_reinforce(Bandit, cfg, 6, 2, tmp_path / "lockstep", examples=2)
    train_reinforce(Bandit, cfg, 6, 2, tmp_path / "sequential", examples=2, lockstep=False)
    pd.testing.assert_frame_equal(_curve(tmp_path / "lockstep"), _curve(tmp_path / "sequential"))
    a, b = (torch.load(tmp_path / d / "model.zip", weights_only=False)["weights"] for d in ("lockstep", "sequential"))
    assert all(torch.allclose(a[k], b[k], atol=1e-6) for k in a)  # the loss sums its samples in another order


def test_lockstep_play_gives_each_trajectory_its_own_stream_on_the_deeprm_env():
    """On the DeepRM env (variable-length episodes, masks): trajectory i of a lockstep batch equals
    trajectory i played alone with the same stream, and different streams differ."""
    from schedrl.agents.reinforce import play, play_lockstep, trajectory_rngs

    make = lambda: gym.make("schedrl/DeepRM-v0", num_jobsets=2, simu_len=30, jobset_seed=3)  # noqa: E731
    env = make()
    policy = make_policy(env, ReinforceConfig.from_dict({"hidden": [8], "mask_actions": True}))
    together = play_lockstep([make() for _ in range(3)], policy, trajectory_rngs(0, 0, 1, 3), None, {"jobset": 1})
    alone = [play(env, policy, r, None, {"jobset": 1}) for r in trajectory_rngs(0, 0, 1, 3)]
    for j, (t, s) in enumerate(zip(together.trajs, (r.trajs[0] for r in alone))):
        assert t["actions"] == s["actions"] and t["rewards"] == s["rewards"]
        assert np.array_equal(together.trajectory_obs(j), alone[j].obs)
        assert np.array_equal(np.stack(t["masks"]), np.stack(s["masks"]))
    assert len({tuple(t["actions"]) for t in together.trajs}) > 1


def test_device_auto_trains_where_torch_can_and_records_it(tmp_path):
    """``device="auto"`` picks CUDA where torch sees it, else the CPU (this test runs anywhere)."""
    import json

    import torch

    from schedrl.agents.reinforce import resolve_device

    expected = "cuda" if torch.cuda.is_available() else "cpu"
    assert resolve_device("auto") == expected and resolve_device("cpu") == "cpu"
    train_reinforce(Bandit, ReinforceConfig.from_dict(CFG), 2, 0, tmp_path / "run", examples=1, device="auto")
    assert json.loads((tmp_path / "run" / "timing.json").read_text())["device"] == expected
    policy = ReinforcePolicy.load(tmp_path / "run" / "model.zip", device="auto")
    assert policy.device == expected and policy.predict(np.ones((2, 2)), deterministic=True)[0] in (0, 1)


@pytest.mark.parametrize("per_update", [2, 3])
def test_batched_job_sets_learn_exactly_as_one_job_set_at_a_time_on_the_deeprm_env(tmp_path, per_update):
    """Every job set of an update stepped in one batch (``batch_examples``, the default) gives the
    same trajectories, returns, curve and weights, bit for bit, as the job sets played one after
    another (each in lockstep): the weights are fixed within an update, each trajectory has its own
    random stream, and each job set's loss is computed on its own samples in the same order."""
    import torch

    import schedrl.envs  # noqa: F401  (registers the env)

    make = lambda: gym.make("schedrl/DeepRM-v0", num_jobsets=4, simu_len=20, jobset_seed=3)  # noqa: E731
    cfg = ReinforceConfig.from_dict({"hidden": [16], "trajectories": 3, "examples_per_update": per_update})
    train_reinforce(make, cfg, 3, 1, tmp_path / "batched", checkpoint_every=1)
    train_reinforce(make, cfg, 3, 1, tmp_path / "lockstep", checkpoint_every=1, batch_examples=False)
    curve = _curve(tmp_path / "batched")
    assert len(curve) == 3 * 4 * 3 and curve["length"].nunique() > 1
    pd.testing.assert_frame_equal(curve, _curve(tmp_path / "lockstep"))
    for k in (2, 3):  # the weights after the last two iterations (the checkpoints kept) agree exactly
        a, b = (torch.load(tmp_path / d / "checkpoints" / f"iter_{k}.pt", weights_only=False)
                for d in ("batched", "lockstep"))
        assert all(torch.equal(a["model"]["weights"][n], b["model"]["weights"][n]) for n in a["model"]["weights"])
        assert a["steps"] == b["steps"]


@pytest.mark.parametrize("mask_actions", [False, True])
def test_compiled_env_step_learns_exactly_as_the_python_envs(tmp_path, mask_actions):
    """DeepRM's agent's env options run on the compiled batched step (``CompiledRollouts``) by
    default; the Python envs (``compiled_env=False``, the batched trainer before it) give the same
    curve (with the wrappers' final-info metrics), steps and weights, bit for bit, also with masked
    actions and a last update of fewer job sets (5 job sets, 2 per update)."""
    import torch

    import schedrl.envs  # noqa: F401  (registers the env)
    from schedrl.agents.reinforce import compiled_env_ok
    from schedrl.agents.wrappers import JobMetricsInfo

    make = lambda: JobMetricsInfo(gym.make("schedrl/DeepRM-v0", num_jobsets=5, simu_len=30,  # noqa: E731
                                           jobset_seed=7, new_job_rate=0.8))
    keys = JobMetricsInfo.INFO_KEYWORDS
    assert compiled_env_ok(make(), keys) and not compiled_env_ok(make(), keys + ("withheld_jobs",))
    cfg = ReinforceConfig.from_dict({"hidden": [16], "trajectories": 3, "examples_per_update": 2,
                                     "mask_actions": mask_actions})
    for name, compiled in (("compiled", True), ("python", False)):
        train_reinforce(make, cfg, 3, 2, tmp_path / name, checkpoint_every=1, info_keywords=keys,
                        compiled_env=compiled)
    for name, n_envs in (("compiled", 6), ("python", 6)):
        timing = json.loads((tmp_path / name / "timing.json").read_text())
        assert (timing["env_step"], timing["n_envs"]) == (name, n_envs)
    curve = _curve(tmp_path / "compiled")
    assert len(curve) == 3 * 5 * 3 and curve["mean_slowdown"].notna().all()
    pd.testing.assert_frame_equal(curve, _curve(tmp_path / "python"))
    for k in (2, 3):
        a, b = (torch.load(tmp_path / d / "checkpoints" / f"iter_{k}.pt", weights_only=False)
                for d in ("compiled", "python"))
        assert all(torch.equal(a["model"]["weights"][n], b["model"]["weights"][n]) for n in a["model"]["weights"])
        assert a["steps"] == b["steps"]


# -- issue 37: contested decisions only, agents' own streams ---------------------------------------
class MaskedBandit(Bandit):
    """The bandit with arm 1 allowed on odd steps only: steps 0, 2, 4 have one valid action
    (uncontested), steps 1 and 3 two (contested)."""

    def action_masks(self):
        return np.array([True, self.t % 2 == 1])


def test_contested_only_advantages_by_hand():
    # 5 decisions, valid actions per decision [1, 3, 1, 2, 1]: contested at steps 1 and 3
    masks = np.array([[1, 0, 0], [1, 1, 1], [0, 1, 0], [1, 0, 1], [0, 0, 1]], dtype=bool)
    from schedrl.agents.reinforce import contested_rows

    contested = contested_rows(masks)
    assert contested.tolist() == [False, True, False, True, False]
    rets = discounted_returns([1, 0, 2, 1, 0], 0.5)  # discounted over every reward
    assert rets.tolist() == [1.625, 1.25, 2.5, 1.0, 0.0]
    # normalised over the contested returns alone [1.25, 1.0]: mean 1.125, std 0.125
    adv = advantages([rets], "normalise", [contested])[0]
    assert adv.tolist() == [0.0, 1.0, 0.0, -1.0, 0.0]
    # over every decision (the default) the same two are centred on 1.275 instead: both below the mean
    assert np.all(advantages([rets], "normalise")[0][[1, 3]] < 0)
    # time baseline: every step's return counts in the baseline, uncontested steps leave the loss
    other = np.array([2.0, 1.0])
    adv = advantages([rets, other], "time", [contested, np.array([True, True])])
    assert adv[0].tolist() == [0.0, 1.25 - 1.125, 0.0, 1.0 - 0.5, 0.0] and adv[1].tolist() == [2 - 1.8125, 1 - 1.125]
    assert advantages([rets], "none", [contested])[0].tolist() == [0.0, 1.25, 0.0, 1.0, 0.0]
    # segments (update_every) take the same per segment
    seg = segment_advantages([1, 0, 2, 1, 0], 5, 0.5, "normalise", contested)
    assert seg[0].tolist() == [0.0, 1.0, 0.0, -1.0, 0.0]


def test_contested_only_update_by_hand(tmp_path):
    """One iteration of one 5-step episode (SGD, discount 0.5, normalised returns) with
    ``contested_only``: the loss is the mean over the two contested decisions alone, replayed by hand."""
    import torch

    hp = {**ONE, "optimizer": "sgd", "learning_rate": 0.5, "discount": 0.5, "baseline": "normalise",
          "mask_actions": True, "contested_only": True}
    cfg = ReinforceConfig.from_dict(hp)
    train_reinforce(MaskedBandit, cfg, 1, 0, tmp_path / "run", examples=1)
    torch.manual_seed(0)
    env = MaskedBandit()
    policy = make_policy(env, cfg)
    rng = trajectory_rngs(0, 0, 0, 1)[0]
    obs = np.ones((2, 2), dtype=np.float32)
    env.reset()
    acts, rewards, masks = [], [], []
    for _ in range(5):
        mask = env.action_masks()
        a = policy.sample_batch(obs[None], [rng], mask[None])[0]
        acts.append(a)
        masks.append(mask)
        rewards.append(env.step(a)[1])
    g = discounted_returns(rewards, 0.5)[[1, 3]]
    adv = (g - g.mean()) / (g.std() if g.std() > 0 else 1.0)
    logp = policy.log_prob(np.stack([obs] * 2), np.asarray(acts)[[1, 3]], np.stack(masks)[[1, 3]])
    opt = torch.optim.SGD(policy.net.parameters(), lr=0.5)
    (-(logp * torch.tensor(adv, dtype=torch.float32)).mean()).backward()
    opt.step()
    trained = torch.load(tmp_path / "run" / "model.zip", weights_only=False)["weights"]
    assert all(torch.allclose(trained[k], v) for k, v in policy.net.state_dict().items())
    # the default (every decision in the mean and the normalisation) learns something else
    train_reinforce(MaskedBandit, ReinforceConfig.from_dict({**hp, "contested_only": False}), 1, 0,
                    tmp_path / "all", examples=1)
    other = torch.load(tmp_path / "all" / "model.zip", weights_only=False)["weights"]
    assert not all(torch.allclose(trained[k], other[k]) for k in trained)
    # with update_every (DRAS's cadence) the option applies per segment; a run goes through
    train_reinforce(MaskedBandit, ReinforceConfig.from_dict({**hp, "update_every": 2}), 2, 0, tmp_path / "seg",
                    examples=1)


def test_contested_only_and_stream_checks_and_records(tmp_path):
    with pytest.raises(ConfigError, match="contested_only needs mask_actions"):
        ReinforceConfig.from_dict({**ONE, "contested_only": True})
    with pytest.raises(ConfigError, match="'contested_only' must be true or false"):
        ReinforceConfig.from_dict({**ONE, "mask_actions": True, "contested_only": "yes"})
    # unset, the record is the one from before the option (runs keep their config, no retraining)
    assert "contested_only" not in ReinforceConfig.from_dict(ONE).record()
    assert ReinforceConfig.from_dict({**ONE, "mask_actions": True, "contested_only": True}).record()["contested_only"]
    for bad in (-1, 1.5, True):
        with pytest.raises(ConfigError, match="stream must be"):
            train_reinforce(Bandit, ReinforceConfig.from_dict(ONE), 1, 0, tmp_path / "bad", stream=bad)
    assert not (tmp_path / "bad").exists()


def test_agents_streams_are_independent_and_the_default_unchanged(tmp_path):
    """Two agents with one seed and different stream keys draw different actions; one key and
    seed draws the same; no key is the stream keyed by the seed alone (as before the option)."""
    old = [np.random.default_rng(np.random.SeedSequence(3, spawn_key=(2, 1, j))).random(8) for j in range(2)]
    assert all(np.array_equal(a, r.random(8)) for a, r in zip(old, trajectory_rngs(3, 2, 1, 2)))
    sem = [r.random(8) for r in trajectory_rngs(3, 2, 1, 2, "sem/theta/sem/dras_theta")]
    dras = [r.random(8) for r in trajectory_rngs(3, 2, 1, 2, "sem/theta/dras/dras_theta")]
    again = [r.random(8) for r in trajectory_rngs(3, 2, 1, 2, "sem/theta/sem/dras_theta")]
    assert all(np.array_equal(a, b) for a, b in zip(sem, again))
    assert not any(np.array_equal(a, b) for a, b in zip(sem, dras))
    assert not any(np.array_equal(a, b) for a, b in zip(sem, old))
    assert np.array_equal(trajectory_rngs(0, 0, 0, 1, 7)[0].random(4), trajectory_rngs(0, 0, 0, 1, 7)[0].random(4))
    # whole runs: the untrained policy is the same (torch seeded alike), the actions are not
    cfg = ReinforceConfig.from_dict({**CFG, "learning_rate": 1e-4})  # ~50/50 all along: actions show the draws
    for name, stream in (("sem", "a"), ("sem2", "a"), ("dras", "b"), ("none", None), ("plain", None)):
        train_reinforce(Bandit, cfg, 3, 0, tmp_path / name, examples=1, stream=stream)
    assert _curve(tmp_path / "sem").equals(_curve(tmp_path / "sem2"))
    assert not _curve(tmp_path / "sem")["reward"].equals(_curve(tmp_path / "dras")["reward"])
    assert (tmp_path / "none" / "learning_curve.csv").read_bytes() == \
        (tmp_path / "plain" / "learning_curve.csv").read_bytes()
    assert json.loads((tmp_path / "sem" / "config.json").read_text())["stream"] == "a"
    assert "stream" not in json.loads((tmp_path / "none" / "config.json").read_text())
