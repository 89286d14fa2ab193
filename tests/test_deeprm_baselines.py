"""Grid heuristics (SJF, Packer, Random) and the rollout helper shared with the agents."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pandas as pd
import pytest

import schedrl.envs  # noqa: F401
from schedrl.envs.deeprm import DeepRMEnv
from schedrl.envs.rollout import episode_summary, grid_policy, run_policy, sb3_policy
from schedrl.errors import ConfigError
from schedrl.schedulers.grid import POLICIES, first_slot, get_policy, packer, random, sjf
from schedrl.sim.grid import Grid, GridParams
from schedrl.workloads.deeprm import JobSet

P = GridParams(num_res=2, num_nw=3, time_horizon=5, res_slot=10, max_job_len=5, max_job_size=10,
               backlog_size=5)


def grid_with(jobs, placed=()):
    """Grid with ``jobs`` (length, cpu, mem) waiting at t=0, after placing the slots in ``placed``."""
    g = Grid(P)
    g.reset(JobSet.from_lists([0] * len(jobs), [j[0] for j in jobs], [j[1:] for j in jobs]))
    for slot in placed:
        assert g.allocate(slot)
    return g


def test_sjf_and_packer_hand_choices():
    # slots: A (len 4, 6 cpu, 1 mem), B (len 1, 2 cpu, 2 mem), C (len 3, 9 cpu, 9 mem)
    g = grid_with([(4, 6, 1), (1, 2, 2), (3, 9, 9)])
    assert sjf(g) == 1
    # free now (10, 10): alignment A 70, B 40, C 180
    assert packer(g) == 2
    g = grid_with([(4, 6, 1), (1, 2, 2), (3, 9, 9)], placed=[0])  # A placed: free now (4, 9)
    # C no longer fits now (and the backlog is empty, so slot 0 is empty); B fits
    assert sjf(g) == 1 and packer(g) == 1
    g = grid_with([(4, 6, 1), (1, 2, 2), (3, 9, 9)], placed=[0, 1])  # free now (2, 7): nothing fits
    assert sjf(g) == 3 and packer(g) == 3  # void


def test_first_slot_takes_the_lowest_slot_the_env_can_place_whatever_the_jobs():
    # slots: A (len 4, 6 cpu, 1 mem), B (len 1, 2 cpu, 2 mem), C (len 3, 9 cpu, 9 mem): all fit, A first
    g = grid_with([(4, 6, 1), (1, 2, 2), (3, 9, 9)])
    assert first_slot(g) == 0 != sjf(g)
    g = grid_with([(4, 6, 1), (1, 2, 2), (3, 9, 9)], placed=[0])  # free now (4, 9): slot 0 empty, C too big
    assert first_slot(g) == 1
    # B fits only after A (earliest placement books it later, as the env's mask allows), C now
    g = grid_with([(3, 6, 1), (2, 9, 9), (1, 2, 2)], placed=[0])
    assert g.fits(1) and not g.fits(1, now_only=True) and first_slot(g) == 1 and sjf(g) == 2
    now_only = Grid(GridParams(**{**P.__dict__, "placement": "now"}))
    now_only.reset(JobSet.from_lists([0] * 3, [3, 2, 1], [[6, 1], [9, 9], [2, 2]]))
    assert now_only.allocate(0) and first_slot(now_only) == 2
    g = grid_with([(5, 9, 9), (5, 9, 9), (5, 9, 9)], placed=[0])  # B and C cannot start within the horizon
    assert not g.fit_mask().any() and first_slot(g) == 3  # void


def test_sjf_hold_never_starts_a_job_longer_than_its_limit():
    from schedrl.schedulers.grid import SJFHold

    # slots: A (len 4, 6 cpu, 1 mem), B (len 1, 2 cpu, 2 mem), C (len 3, 9 cpu, 9 mem)
    g = grid_with([(4, 6, 1), (1, 2, 2), (3, 9, 9)])
    assert SJFHold(1)(g) == sjf(g) == 1 and SJFHold(None)(g) == 1
    g = grid_with([(4, 6, 1), (1, 2, 2), (3, 9, 9)], placed=[1])  # B placed: free (8, 8), A fits now, C not
    assert sjf(g) == 0 and SJFHold(4)(g) == 0  # A (4) is within the limit
    assert SJFHold(3)(g) == 3  # A longer than 3: held back, the void action (SJF starts it)
    assert SJFHold(2).__name__ == "sjf_hold_2"
    with pytest.raises(ValueError, match="max_len must be >= 1"):
        SJFHold(0)


def test_ties_go_to_the_lowest_slot():
    g = grid_with([(2, 3, 1), (2, 1, 3), (2, 3, 1)])
    assert sjf(g) == 0 and packer(g) == 0


def test_heuristics_ignore_jobs_that_fit_only_later():
    # with earliest placement the env could book C after A, but SJF/Packer only start jobs now
    g = grid_with([(3, 6, 1), (2, 9, 9)], placed=[0])  # A holds rows 0-2; C fits at rows 3-4
    assert g.fits(1) and not g.fits(1, now_only=True)
    assert sjf(g) == 3 and packer(g) == 3


def test_random_uses_the_env_rng_and_covers_all_actions():
    env = DeepRMEnv(num_nw=5)
    env.reset(seed=4)
    a = [random(env) for _ in range(300)]
    env.reset(seed=4)
    assert a == [random(env) for _ in range(300)]
    assert set(a) == set(range(6))
    assert set(POLICIES) == {"sjf", "packer", "first_slot", "random"}
    with pytest.raises(ConfigError, match="unknown grid policy"):
        get_policy("tetris")


def test_run_policy_table_and_returns():
    env = gym.make("schedrl/DeepRM-v0", num_nw=5, simu_len=30, num_jobsets=3)
    table = run_policy(env, grid_policy("sjf", env), n_episodes=4, seed=0)
    assert isinstance(table, pd.DataFrame)
    for col in ("episode", "jobset_seed", "length", "arrival", "start", "finish", "slowdown",
                "completion_time", "state", "withheld"):
        assert col in table.columns
    assert table.groupby("episode")["jobset_seed"].first().tolist() == [0, 1, 2, 0]
    returns = [e["return"] for e in table.attrs["episodes"]]
    per_episode = table.groupby("episode")["slowdown"].sum()
    assert np.allclose(returns, -per_episode.to_numpy())
    assert returns[0] == pytest.approx(returns[3])  # same job set, deterministic policy
    again = run_policy(env, grid_policy("sjf", env), n_episodes=4, seed=0)
    pd.testing.assert_frame_equal(table, again)
    summary = episode_summary(table)
    assert summary["mean_slowdown"].min() >= 1.0


def test_sjf_beats_random_at_high_load_and_heuristics_work_in_multibinary():
    results = {}
    for mode in ("discrete", "multibinary"):
        env = gym.make("schedrl/DeepRM-v0", action_mode=mode, num_nw=10, new_job_rate=0.7, num_jobsets=4)
        for name in ("sjf", "random"):
            table = run_policy(env, grid_policy(name, env), n_episodes=4, seed=0)
            results[mode, name] = table["slowdown"].mean()
    assert results["discrete", "sjf"] < results["discrete", "random"]
    # one job per call: the multi-binary env with one-hot actions replays the discrete schedule
    assert results["multibinary", "sjf"] == pytest.approx(results["discrete", "sjf"])


class _FakeModel:
    """Stands in for an SB3 model: records what predict received."""

    def __init__(self, masked):
        self.masked, self.calls = masked, []

    def predict(self, obs, state=None, episode_start=None, deterministic=False, action_masks=None):
        self.calls.append((deterministic, action_masks))
        return np.int64(len(action_masks) - 1 if action_masks is not None else 0), None


def test_sb3_adapter_passes_masks_when_supported():
    env = DeepRMEnv(num_nw=5, simu_len=10)
    obs, info = env.reset(seed=0)
    model = _FakeModel(masked=True)
    policy = sb3_policy(model)
    assert policy(obs, info) == 5
    assert model.calls[0][0] is True and model.calls[0][1] is info["action_mask"]

    class Plain:
        def predict(self, obs, state=None, episode_start=None, deterministic=False):
            return np.int64(1), None

    assert sb3_policy(Plain())(obs, info) == 1
