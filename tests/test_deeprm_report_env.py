"""The SB3 report code's job sequence, multi-binary rule and phase-1 state as options of DeepRM-v0."""

from __future__ import annotations

import random

import gymnasium as gym
import numpy as np
import pytest

import schedrl.envs  # noqa: F401
from schedrl.envs.deeprm import DeepRMEnv
from schedrl.envs.rollout import grid_policy, run_policy
from schedrl.errors import ConfigError
from schedrl.workloads.deeprm import JobSet, legacy_jobsets, mao_model, sb3_phase1_code_model

SMALL = dict(num_res=1, num_nw=2, time_horizon=5, res_slot=4, max_job_len=5, max_job_size=4,
             backlog_size=2, simu_len=4, episode_max_length=50, machine_colors=False, placement="now")


def hand_env(jobs, **kw) -> DeepRMEnv:
    env = DeepRMEnv(**{**SMALL, **kw})
    env._jobsets = [JobSet.from_lists(*jobs, simu_len=2)]
    env.num_jobsets = 1
    return env


def test_legacy_sequence_draw_order():
    # RandomState(42).rand() gives 0.3745 (< 0.7: a job at step 0), 0.9507 (>= 0.8: a large job),
    # then randint(10, 16) = 12; the first jobs of the report's "seed 42" sequence at rate 0.7:
    js = legacy_jobsets(mao_model(new_job_rate=0.7), 50, 1, 42)[0]
    assert len(js) == 35
    assert js.arrival[:5].tolist() == [0, 1, 2, 4, 5]
    assert js.length[:5].tolist() == [12, 3, 1, 10, 3]
    assert js.demand[:3].tolist() == [[1, 9], [9, 2], [2, 8]]
    # num_ex sequences are one stream cut in pieces (the report's reshape), not one seed each
    two = legacy_jobsets(mao_model(new_job_rate=0.7), 25, 2, 42)
    assert two[0].length.tolist() == js.length[js.arrival < 25].tolist()
    assert two[1].arrival.tolist() == (js.arrival[js.arrival >= 25] - 25).tolist()


def test_sjf_on_seed42_sequence_matches_report():
    """SJF 4.93 and Packer 21.19 on the report's in-sample sequence (rate 0.7; report: 4.9 and 21.2)."""
    env = gym.make("schedrl/DeepRM-v0", jobset_rng="legacy", jobset_seed=42, num_jobsets=1,
                   new_job_rate=0.7, episode_max_length=2000)
    sjf = run_policy(env, grid_policy("sjf", env), 1, seed=0)
    assert sjf["slowdown"].mean() == pytest.approx(4.93, abs=0.01)
    assert (sjf["state"] != "waiting").all()
    packer = run_policy(env, grid_policy("packer", env), 1, seed=0)
    assert packer["slowdown"].mean() == pytest.approx(21.19, abs=0.01)


def test_legacy_env_replays_the_same_set_and_reports_its_index():
    env = DeepRMEnv(jobset_rng="legacy", jobset_seed=42, num_jobsets=3)
    _, info = env.reset(seed=1)
    first = env.jobset
    assert info["jobset"] == 0
    _, info = env.reset()
    assert info["jobset"] == 1 and env.jobset is not first
    with pytest.raises(ConfigError, match="jobset_rng"):
        DeepRMEnv(jobset_rng="mt")


def test_phase1_code_workload():
    m = sb3_phase1_code_model(res_slot=10)
    assert m.dominant == (2, 5) and m.other == (1, 1)  # numpy truncates the 2.5 low bound
    assert m.work_cap == pytest.approx(1.3 * 10 ** 2 * 20)
    js = legacy_jobsets(m, 400, 1, 42)[0]
    work = js.length * js.demand.prod(axis=1)
    assert work[:-1].sum() <= m.work_cap < work.sum()  # the job that crosses the cap is the last
    assert js.demand.max() <= 5 and js.demand.min() >= 1
    # the dominant resource comes from Python's random, in step with numpy's draws
    py = random.Random(42)
    doms = [py.randint(0, 1) for _ in range(len(js))]
    big = js.demand.argmax(axis=1)
    both = js.demand.max(axis=1) > 1  # dominant demand 1 is indistinguishable from the other's 1
    assert (big[both] == np.array(doms)[both]).all()


def test_try_all_multibinary_hand_sequence():
    """j0 (len 2, 3 units) and j1 (len 1, 2 units) at 0, j2 (len 3, 1 unit) at 1; 4 units, start now."""
    env = hand_env(([0, 0, 1], [2, 1, 3], [[3], [2], [1]]), action_mode="multibinary",
                   multibinary_rule="try_all")
    env.reset(seed=0)
    # t=0, slots [j0, j1]: j0 placed (0..2); j1 needs 2 of 1 free -> move on to t=1, j2 -> slot 0.
    # One placement: charged once, at the end state: j0 1/2 + j1 1/1 + j2 1/3.
    _, r, term, trunc, info = env.step(np.array([1, 1]))
    assert (info["time"], r, term) == (1, pytest.approx(-(0.5 + 1 + 1 / 3)), False)
    assert env.grid.slots == [2, 1]
    # t=1: j2 placed (1..4); j1 still does not fit -> t=2, j0 leaves. Charge j2 1/3 + j1 1.
    _, r, term, _, info = env.step(np.array([1, 1]))
    assert (info["time"], r) == (2, pytest.approx(-(1 / 3 + 1)))
    # all-zero: one move per slot (2 slots, cap 4) -> t=4, j2 leaves at 4; one charge: j1.
    _, r, _, _, info = env.step(np.array([0, 0]))
    assert (info["time"], r) == (4, pytest.approx(-1.0))
    # bit 1: j1 placed now (4..5), time frozen, one placement: still charged (j1 in the system).
    _, r, term, _, info = env.step(np.array([0, 1]))
    assert (info["time"], r, term) == (4, pytest.approx(-1.0), False)
    # empty slots: move on -> t=5, j1 done, every job finished: terminated, nothing to charge.
    _, r, term, trunc, info = env.step(np.array([1, 1]))
    assert (info["time"], r, term, trunc) == (5, 0.0, True, False)
    assert info["jobs"]["slowdown"].tolist() == [1.0, 5.0, 1.0]  # j0, j1 (4 + 1 - 0) / 1, j2


def test_try_all_two_placements_earn_zero_and_cap_limits_moves():
    env = hand_env(([0, 0], [1, 1], [[1], [1]]), action_mode="multibinary", multibinary_rule="try_all",
                   move_on_cap=1)
    env.reset(seed=0)
    _, r, term, _, info = env.step(np.array([1, 1]))  # both placed: 0 reward, time frozen
    assert (info["time"], r, term) == (0, 0.0, False)
    _, r, term, _, info = env.step(np.array([0, 0]))  # all-zero, cap 1: one move only
    assert (info["time"], r, term) == (1, 0.0, True)


def test_first_failure_rule_unchanged():
    """The default multi-binary rule stops at the first failure (one move) and charges per move."""
    env = hand_env(([0, 0, 1], [2, 1, 3], [[3], [2], [1]]), action_mode="multibinary")
    env.reset(seed=0)
    _, r, _, _, info = env.step(np.array([1, 1]))
    # charged for [0, 1): j0 1/2 + j1 1/1 (j2 not yet arrived)
    assert (info["time"], r) == (1, pytest.approx(-1.5))


def test_profile_observation_hand_values():
    env = hand_env(([0, 0, 1], [2, 1, 3], [[3], [2], [1]]), obs_mode="profile")
    obs, _ = env.reset(seed=0)
    assert obs.shape == (3, 5, 1) and env.observation_space.contains(obs)
    assert obs[0, :, 0].tolist() == [4, 4, 4, 4, 4]
    assert obs[1, :, 0].tolist() == [3, 3, 0, 0, 0]
    assert obs[2, :, 0].tolist() == [2, 0, 0, 0, 0]
    obs, *_ = env.step(0)  # j0 placed now: 1 unit free for two steps; slot 0 empty
    assert obs[0, :, 0].tolist() == [1, 1, 4, 4, 4]
    assert obs[1].sum() == 0
    # the report code's phase-1 state: (6, 20, 2) for 5 slots, 2 resources
    assert gym.make("schedrl/DeepRM-v0", obs_mode="profile", num_nw=5).observation_space.shape == (6, 20, 2)


def test_report_multibinary_env_shape():
    """The report code's multi-binary env: 20 units per resource, 5 slots -> a 20 x 144 image."""
    env = gym.make("schedrl/DeepRM-v0", action_mode="multibinary", multibinary_rule="try_all", num_nw=5,
                   res_slot=20, new_job_rate=1.0, simu_len=100, num_jobsets=10, jobset_rng="legacy",
                   jobset_seed=42)
    assert env.observation_space.shape == (20, 144)
    obs, _ = env.reset(seed=0)
    _, r, *_ = env.step(np.zeros(5, dtype=np.int8))
    assert env.unwrapped.grid.now == 4 and r < 0  # an all-zero action moves time on 4 times


def test_full_backlog_retry_keeps_every_job_by_hand():
    """Two slots, a backlog of one, four jobs that take the whole machine for 5 steps (arrivals 0-3)
    then two short ones (4, 5); the policy places the first slot job that fits. Job 0 starts at 0,
    jobs 1 and 2 fill the slots, job 3 the backlog; at t4 job 4 finds the queue full: with 'drop'
    it is lost, with 'retry' (the report's phase-1 code) it and job 5 arrive later, so the episode
    keeps all six jobs and ends when they are done."""
    jobs = ([0, 1, 2, 3, 4, 5], [5, 5, 5, 5, 1, 1], [[4], [4], [4], [4], [1], [1]])
    kept = {}
    for rule in ("drop", "retry"):
        env = hand_env(jobs, backlog_full=rule, placement="now", backlog_size=1, episode_max_length=100)
        env.reset(seed=0)
        for _ in range(200):
            fits = [i for i in range(2) if env.grid.fits(i)]
            _, _, term, trunc, info = env.step(fits[0] if fits else 2)
            if term or trunc:
                break
        assert term, rule
        kept[rule] = (info["dropped"], len(info["jobs"]), info["jobs"]["arrival"].tolist())
    assert kept["drop"][0] >= 1 and kept["drop"][1] == 6 - kept["drop"][0]
    assert kept["retry"][0] == 0 and kept["retry"][1] == 6
    assert kept["retry"][2][:4] == [0, 1, 2, 3] and kept["retry"][2][4] > 4  # the fifth job slipped
