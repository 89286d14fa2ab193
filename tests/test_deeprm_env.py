"""The Gymnasium env ``schedrl/DeepRM-v0``: API checks, hand-checked rewards, masks, episode ends."""

from __future__ import annotations

import warnings

import gymnasium as gym
import numpy as np
import pytest

import schedrl.envs  # noqa: F401
from schedrl.envs.deeprm import DeepRMEnv
from schedrl.errors import ConfigError
from schedrl.workloads.deeprm import JobSet

SMALL = dict(num_res=1, num_nw=2, time_horizon=5, res_slot=4, max_job_len=5, max_job_size=4,
             backlog_size=2, simu_len=4, episode_max_length=50, machine_colors=False)


def hand_env(**kw) -> DeepRMEnv:
    """An env whose job set is the hand scenario of test_deeprm_grid (jobs j0, j1 at 0, j2 at 1)."""
    env = DeepRMEnv(**{**SMALL, **kw})
    env._jobsets = [JobSet.from_lists([0, 0, 1], [2, 1, 3], [[3], [2], [1]], simu_len=2)]
    env.num_jobsets = 1
    return env


@pytest.mark.parametrize("obs_mode", ["image", "stacked", "compact"])
@pytest.mark.parametrize("action_mode", ["discrete", "multibinary"])
def test_check_env_gymnasium_and_sb3(obs_mode, action_mode):
    from gymnasium.utils.env_checker import check_env as gym_check
    from stable_baselines3.common.env_checker import check_env as sb3_check

    env = gym.make("schedrl/DeepRM-v0", obs_mode=obs_mode, action_mode=action_mode, num_nw=5)
    gym_check(env.unwrapped, skip_render_check=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # SB3 notes the 2-D (non-image) shape; MlpPolicy flattens it
        sb3_check(DeepRMEnv(obs_mode=obs_mode, action_mode=action_mode, num_nw=5), warn=True)


def test_defaults_are_phase_two():
    env = gym.make("schedrl/DeepRM-v0")
    assert env.observation_space.shape == (20, 224)
    assert env.observation_space.dtype == np.float32
    assert env.action_space == gym.spaces.Discrete(11)
    e = env.unwrapped
    assert (e.params.num_res, e.params.res_slot, e.params.time_horizon, e.params.backlog_size) == (2, 10, 20, 60)
    assert e.model.new_job_rate == 0.7 and (e.simu_len, e.episode_max_length, e.num_jobsets) == (50, 200, 10)
    assert gym.make("schedrl/DeepRM-v0", num_nw=5).observation_space.shape == (20, 124)
    mb = gym.make("schedrl/DeepRM-v0", action_mode="multibinary", num_nw=5)
    assert mb.action_space == gym.spaces.MultiBinary(5)


def test_hand_episode_discrete_slowdown():
    env = hand_env()
    obs, info = env.reset(seed=0)
    assert info["action_mask"].tolist() == [True, True, True]
    steps = [(0, 0.0), (1, 0.0),  # j0 now, j1 booked at t=2 (earliest placement); time frozen
             (2, -1.5),  # void: [0,1) holds j0 (1/2) and j1 (1)
             (0, 0.0),  # t=1: j2 now
             (2, -(0.5 + 1 + 1 / 3)), (2, -(1 + 1 / 3)), (2, -1 / 3)]
    for k, (action, reward) in enumerate(steps):
        obs, r, term, trunc, info = env.step(action)
        assert r == pytest.approx(reward), k
        assert term == (k == len(steps) - 1) and not trunc
    assert info["jobs"]["slowdown"].tolist() == pytest.approx([1, 3, 1])
    assert info["withheld"].tolist() == [] and info["dropped"] == 0


def test_hand_episode_completion_time_and_invalid_actions():
    env = hand_env(reward="completion_time")
    env.reset(seed=0)
    rewards = []
    for action in (0, 0, 0, 1, 2, 2, 2):
        # t=0: j0 placed; slot 0 is then empty, so action 0 moves on (j0, j1 in the system: -2);
        # t=1: j2 placed now, j1 booked at t=2; three void steps with 3, 2, 1 jobs in the system
        _, r, term, trunc, info = env.step(action)
        rewards.append(r)
    assert rewards == [0.0, -2.0, 0.0, 0.0, -3.0, -2.0, -1.0] and term
    assert info["jobs"]["completion_time"].tolist() == [2, 3, 3]
    assert sum(rewards) == -info["jobs"]["completion_time"].sum()
    env.reset(seed=0)
    _, r, *_ = env.step(99)  # out of range: a safe void action
    assert r == -2.0 and env.grid.now == 1
    env.reset(seed=0)
    env.step(np.array([0]))  # a one-element array, as some vectorised callers send
    assert env.grid.start[0] == 0 and env.grid.now == 0


def test_withheld_definition_in_env():
    env = hand_env()
    env.reset(seed=0)
    env.step(2)  # void at t=0: both j0 (3 units) and j1 (2 units) fit the empty machine -> withheld
    assert env.grid.withheld[:2].tolist() == [1, 1]
    env.step(0)  # j0 now (t=1)
    _, _, _, _, info = env.step(2)  # j1 (2 units) does not fit next to j0 (1 free); j2 (1 unit) does
    assert env.grid.withheld.tolist() == [1, 1, 1]


def test_multibinary_semantics():
    env = hand_env(action_mode="multibinary")
    env.reset(seed=0)
    # both bits: j0 placed, j1 booked later (earliest placement) -> all succeeded, time frozen
    _, r, *_ = env.step(np.array([1, 1], dtype=np.int8))
    assert r == 0.0 and env.grid.now == 0 and env.grid.slots == [-1, -1]
    _, r, *_ = env.step(np.array([0, 0], dtype=np.int8))  # all zeros: move on
    assert env.grid.now == 1 and r == pytest.approx(-1.5)
    env2 = hand_env(action_mode="multibinary", placement="now")
    env2.reset(seed=0)
    _, r, *_ = env2.step(np.array([1, 1], dtype=np.int8))  # j0 fits, j1 then fails -> MoveOn
    assert env2.grid.now == 1 and env2.grid.start[0] == 0 and env2.grid.start[1] == -1
    mask = env2.action_masks()
    assert mask.shape == (4,) and mask[0::2].all()


def test_masks_match_outcomes():
    env = DeepRMEnv(num_nw=5, new_job_rate=0.9, jobset_seed=5)
    obs, info = env.reset(seed=1)
    rng = np.random.default_rng(0)
    for _ in range(400):
        mask = env.action_masks()
        np.testing.assert_array_equal(mask, info["action_mask"])
        assert mask[-1]
        a = int(rng.integers(6))
        before = env.grid.now
        obs, r, term, trunc, info = env.step(a)
        # a masked-in slot action allocates (time frozen, reward 0); anything else moves on
        assert (env.grid.now == before) == (a < 5 and bool(mask[a]))
        if term or trunc:
            obs, info = env.reset()


def test_truncation_reports_unfinished_jobs():
    env = DeepRMEnv(new_job_rate=1.0, simu_len=100, episode_max_length=30, jobset_seed=3, num_jobsets=1)
    env.reset(seed=0)
    total, done = 0.0, False
    while not done:
        _, r, term, trunc, info = env.step(10)  # never schedule
        total += r
        done = term or trunc
    assert trunc and not term and env.grid.now == 30
    jobs = info["jobs"]
    assert set(jobs["state"]) == {"waiting"} and np.all(jobs["start"] == -1)
    # never-placed jobs report the slowdown accrued so far, exactly what the reward charged
    assert total == pytest.approx(-jobs["slowdown"].sum())
    assert np.array_equal(jobs["completion_time"], 30 - jobs["arrival"])
    assert len(jobs) == 31 and info["dropped"] == 0  # arrivals at 0..30 fit in 10 slots + 60 backlog


def test_jobset_cycle_and_seeding():
    env = DeepRMEnv(jobset_seed=7, num_jobsets=3)
    seeds = []
    env.reset(seed=0)
    seeds.append(env.jobset.seed)
    for _ in range(3):
        env.reset()
        seeds.append(env.jobset.seed)
    assert seeds == [7, 8, 9, 7]
    env.reset(seed=123)
    assert env.jobset.seed == 7
    env.reset(options={"jobset": 2})
    assert env.jobset.seed == 9
    fresh = DeepRMEnv(jobset_seed=None)
    o1, _ = fresh.reset(seed=5)
    a1 = fresh.jobset.arrival.copy()
    o2, _ = fresh.reset(seed=5)
    np.testing.assert_array_equal(o1, o2)
    np.testing.assert_array_equal(a1, fresh.jobset.arrival)
    fresh.reset(seed=6)
    assert not np.array_equal(a1, fresh.jobset.arrival)


def test_bad_arguments():
    with pytest.raises(ConfigError, match="obs_mode"):
        DeepRMEnv(obs_mode="pixels")
    with pytest.raises(ConfigError, match="reward"):
        DeepRMEnv(reward="makespan")
    with pytest.raises(ConfigError, match="max_job_len"):
        DeepRMEnv(max_job_len=30)


def test_render_modes():
    env = DeepRMEnv(render_mode="ansi", num_nw=5)
    env.reset(seed=0)
    assert env.render().startswith("t=0")
    env = DeepRMEnv(render_mode="rgb_array", num_nw=5)
    env.reset(seed=0)
    assert env.render().shape == (20, 124, 3)


@pytest.mark.parametrize("action_mode", ["discrete", "multibinary"])
def test_maskable_ppo_learns_a_few_steps(action_mode):
    import torch
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(1)
    env = DeepRMEnv(num_nw=5, simu_len=20, action_mode=action_mode)
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, n_epochs=1, seed=0, device="cpu")
    model.learn(128)
    obs, info = env.reset(seed=0)
    action, _ = model.predict(obs, action_masks=info["action_mask"], deterministic=True)
    if action_mode == "discrete":
        assert info["action_mask"][int(action)]
    else:  # per slot [bit 0 allowed, bit 1 allowed]: a set bit must be allowed
        assert all(info["action_mask"][2 * i + int(b)] for i, b in enumerate(action))


def test_sparse_transitions_hand_episode():
    env = hand_env(placement="now", transitions="sparse")
    env.reset(seed=0)
    # t=0: j0 placed; j1 (2 units) cannot start now, so time skips to t=1 (j0 and j1 charged)
    _, r, term, _, _ = env.step(0)
    assert r == pytest.approx(-1.5) and env.grid.now == 1 and env.grid.slots == [2, 1]
    # t=1: j2 placed; j1 still blocked -> skip to t=2, where j0 has ended
    _, r, term, _, _ = env.step(0)
    assert r == pytest.approx(-(0.5 + 1 + 1 / 3)) and env.grid.now == 2
    # t=2: j1 placed; nothing left to place -> skip to the end of the episode
    _, r, term, _, info = env.step(1)
    assert r == pytest.approx(-(1 + 1 / 3) - 1 / 3) and term and env.grid.now == 4
    assert info["jobs"]["slowdown"].tolist() == pytest.approx([1, 3, 1])


def test_sparse_agent_always_has_a_placeable_job():
    env = DeepRMEnv(num_nw=5, transitions="sparse", new_job_rate=0.9, jobset_seed=1)
    obs, info = env.reset(seed=0)
    rng = np.random.default_rng(1)
    for _ in range(300):
        obs, r, term, trunc, info = env.step(int(rng.integers(6)))
        if term or trunc:
            obs, info = env.reset()
        else:
            assert info["action_mask"][:-1].any()


def test_window_reward_counts_only_visible_jobs():
    env = hand_env(reward="slowdown_window")
    env.reset(seed=0)
    env.step(0)  # j0 to the machine
    _, r, *_ = env.step(2)  # void: only j1 is in a slot (j0 runs, not counted)
    assert r == pytest.approx(-1.0)


def test_mdp_scenario_arguments():
    # scenario 3 of mdp-design Table 3: 38 processors, max length 15, max size 32; slots 38 wide
    env = gym.make("schedrl/DeepRM-v0", obs_mode="image", num_res=1, res_slot=38, max_job_size=38,
                   workload="cunha", workload_max_job_size=32, new_job_rate=0.3, max_job_len=15,
                   simu_len=100, placement="now", transitions="sparse", reward="slowdown_window")
    assert np.prod(env.observation_space.shape) == 8_440
    e = env.unwrapped
    assert e.model.dominant == (16, 32)
    env.reset(seed=0)
    assert e.jobset.demand.max() <= 32
    compact = gym.make("schedrl/DeepRM-v0", obs_mode="compact", num_res=1, res_slot=64, max_job_size=64,
                       workload="cunha", max_job_len=48, placement="now", time_horizon=20)
    assert compact.observation_space.shape == (118,)
    compact.reset(seed=0)
    with pytest.raises(ConfigError, match="larger"):
        DeepRMEnv(max_job_size=10, workload_max_job_size=12, res_slot=12)


@pytest.mark.parametrize("layout, shape", [("native", (20, 124)), ("flat", (2480,)), ("chw", (1, 20, 124))])
def test_obs_layouts(layout, shape):
    env = DeepRMEnv(num_nw=5, obs_layout=layout)
    obs, _ = env.reset(seed=0)
    assert env.observation_space.shape == shape and obs.shape == shape
    ref = DeepRMEnv(num_nw=5)
    np.testing.assert_array_equal(obs.reshape(20, 124), ref.reset(seed=0)[0])
    obs, *_ = env.step(0)
    assert obs.shape == shape and env.observation_space.contains(obs)
