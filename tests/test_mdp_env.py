"""DeepRM-v0 options the MDP-design paper needs: what skipped time earns under sparse transitions
(section 4.3: "zero", "sum", and sched-rl-gym's "charge" rule)."""

from __future__ import annotations

import numpy as np
import pytest

from schedrl.envs.deeprm import DeepRMEnv
from schedrl.errors import ConfigError
from schedrl.workloads.deeprm import JobSet

SMALL = dict(num_res=1, num_nw=2, time_horizon=5, res_slot=4, max_job_len=5, max_job_size=4,
             backlog_size=2, simu_len=4, episode_max_length=50, machine_colors=False, placement="now",
             transitions="sparse")


def hand_env(**kw) -> DeepRMEnv:
    """Jobs j0 (length 2, 3 units) and j1 (1, 2) at time 0, j2 (3, 1) at time 1 on 4 units."""
    env = DeepRMEnv(**{**SMALL, **kw})
    env._jobsets = [JobSet.from_lists([0, 0, 1], [2, 1, 3], [[3], [2], [1]], simu_len=2)]
    env.num_jobsets = 1
    return env


def test_skipped_steps_earn_zero_after_an_allocation():
    env = hand_env(skipped_reward="zero")
    env.reset(seed=0)
    # t=0: j0 placed; j1 cannot start now, time skips to t=1: the skipped step earns 0 ("sum": -1.5)
    _, r, *_ = env.step(0)
    assert r == 0.0 and env.grid.now == 1
    _, r, *_ = env.step(0)  # j2 placed, skip to t=2
    assert r == 0.0 and env.grid.now == 2
    _, r, term, _, info = env.step(1)  # j1 placed, skip to the end
    assert r == 0.0 and term and env.grid.now == 4
    assert info["jobs"]["slowdown"].tolist() == pytest.approx([1, 3, 1])  # the same schedule as "sum"


def test_a_void_action_earns_one_time_step_in_both_modes():
    for mode in ("sum", "zero"):
        env = hand_env(skipped_reward=mode)
        env.reset(seed=0)
        _, r, *_ = env.step(2)  # void at t=0: j0 (1/2) and j1 (1) wait during [0, 1); at t=1 j0 fits
        assert r == pytest.approx(-1.5) and env.grid.now == 1


def test_default_is_the_sum_and_the_option_is_checked():
    env = hand_env()
    env.reset(seed=0)
    assert env.step(0)[1] == pytest.approx(-1.5)
    with pytest.raises(ConfigError, match="unknown skipped_reward 'last'"):
        DeepRMEnv(skipped_reward="last")


def test_charge_rule_by_hand():
    """sched-rl-gym's rule: an allocation keeps the clock (the agent is asked again even when nothing
    else fits); waiting moves time to where a window job fits and is charged once, there."""
    env = hand_env(skipped_reward="charge")
    env.reset(seed=0)
    _, r, *_ = env.step(0)  # j0 placed at t=0; j1 (2 units) does not fit the 1 left, the clock stays
    assert r == 0.0 and env.grid.now == 0 and env.action_masks().tolist() == [False, False, True]
    _, r, *_ = env.step(2)  # wait: t=1, j2 arrives into slot 0 and fits; charged there: j0 1/2 + j1 1 + j2 1/3
    assert env.grid.now == 1 and r == pytest.approx(-(0.5 + 1 + 1 / 3))
    _, r, *_ = env.step(0)  # j2 placed at t=1, the clock stays
    assert r == 0.0 and env.grid.now == 1
    _, r, *_ = env.step(2)  # wait: j0 ends at t=2, j1 fits; charged j1 1 + j2 1/3
    assert env.grid.now == 2 and r == pytest.approx(-(1 + 1 / 3))
    _, r, *_ = env.step(1)  # j1 placed at t=2
    assert r == 0.0 and env.grid.now == 2
    _, r, term, _, info = env.step(2)  # nothing waits: time runs to the end, an empty system costs 0
    assert term and r == 0.0 and env.grid.now == 4
    assert info["jobs"]["slowdown"].tolist() == pytest.approx([1, 3, 1])


def _fitting_order(name: str, rng: np.random.Generator):
    def pick(env) -> int:
        g = env.grid
        idx = np.flatnonzero(env.action_masks()[:-1])
        if len(idx) == 0:
            return g.params.num_nw
        if name == "sjf":
            return int(idx[np.argmin(g.slot_len[idx])])
        if name == "ljf":
            return int(idx[np.argmax(g.slot_len[idx])])
        if name == "fifo":
            return int(idx[np.argmin(g.arrival[np.asarray(g.slots)[idx]])])
        return int(rng.choice(idx))
    return pick


def test_charge_rule_return_ranks_job_orders():
    """Issue 36: in the paper's compact + sparse + reduced MDP (scenario 1, the config's reading),
    the return ranks work-conserving orders as slowdown does (SJF above LJF); under "zero" every
    order earns exactly 0."""
    from schedrl.papers.mdp import layout as ml

    kw = ml.env_kwargs("compact-sparse-reduced", 1, 20, jobset_seed=1_000_000, num_jobsets=20)
    assert kw["skipped_reward"] == "charge"
    means = {}
    for rule in ("charge", "zero"):
        for name in ("sjf", "fifo", "random", "ljf"):
            env, pick = DeepRMEnv(**{**kw, "skipped_reward": rule}), _fitting_order(name, np.random.default_rng(0))
            returns = []
            for k in range(20):
                env.reset(options={"jobset": k})
                total, done = 0.0, False
                while not done:
                    _, r, term, trunc, _ = env.step(pick(env))
                    total, done = total + r, term or trunc
                returns.append(total)
            means[rule, name] = float(np.mean(returns))
    assert means["charge", "sjf"] > means["charge", "ljf"]
    assert len({round(means["charge", n], 6) for n in ("sjf", "fifo", "random", "ljf")}) > 1
    assert {means["zero", n] for n in ("sjf", "fifo", "random", "ljf")} == {0.0}


def test_zero_mode_returns_differ_only_by_the_skipped_charges():
    """Same actions, same schedule: "zero" returns are "sum" returns minus the skipped charges."""
    kw = dict(num_res=1, num_nw=5, res_slot=10, max_job_size=10, workload="cunha", new_job_rate=0.5,
              placement="now", transitions="sparse", reward="slowdown_window", jobset_seed=3)
    a, b = DeepRMEnv(**kw, skipped_reward="sum"), DeepRMEnv(**kw, skipped_reward="zero")
    a.reset(seed=0)
    b.reset(seed=0)
    rng = np.random.default_rng(0)
    total_a = total_b = 0.0
    for _ in range(400):
        action = int(rng.integers(6))
        _, ra, ta, ua, ia = a.step(action)
        _, rb, tb, ub, ib = b.step(action)
        assert ra <= rb + 1e-12 and a.grid.now == b.grid.now and (ta, ua) == (tb, ub)
        total_a, total_b = total_a + ra, total_b + rb
        if ta or ua:
            np.testing.assert_array_equal(ia["jobs"]["finish"], ib["jobs"]["finish"])
            break
    assert total_a < total_b
