"""HPC envs (schedrl/HPCPickReserve-v0, schedrl/HPCTimeStepped-v0, schedrl/HPC-v0): API checks, hand-checked transitions and rewards, FCFS cross-check, MaskablePPO."""

import warnings

import gymnasium as gym
import numpy as np
import pandas as pd
import pytest
import torch

import schedrl.envs  # noqa: F401  (registers the envs)
from env_play import random_episode
from schedrl.envs import make_hpc_env
from schedrl.envs.rewards import get_reward, runtime_utilisation_so_far
from schedrl.errors import ConfigError
from schedrl.metrics import runtime_utilization
from schedrl.sim import ClusterSpec, simulate
from schedrl.workloads.lublin import generate


def _jobs(submit, run, procs, req=None, **extra):
    frame = pd.DataFrame({"job_id": np.arange(1, len(submit) + 1), "submit_time": submit, "run_time": run,
                          "req_procs": procs, "req_time": req if req is not None else run})
    for k, v in extra.items():
        frame[k] = v
    return frame


def _busy(n_jobs=120, nodes=16, seed=0):
    jobs = generate("lublin256", n_jobs=n_jobs, seed=seed, max_nodes=nodes)
    jobs["submit_time"] = jobs["submit_time"] // 10
    jobs["req_time"] = np.ceil(jobs["run_time"] * 1.5)
    return jobs


CONFIGS = {
    "dras-sem": dict(decision="pick_reserve", encoder="sem", reward="dras_theta", window=5, k=4),
    "dras-dras": dict(decision="pick_reserve", encoder="dras", reward="neg_inv_runtime", window=5),
    "dras-sem-slowdown": dict(decision="pick_reserve", encoder="sem", reward="neg_slowdown", window=5, k=4),
    "dras-mrsch": dict(decision="pick_reserve", encoder="mrsch", reward="dras_theta", window=5, bb=True),
    "runtime-baseline": dict(decision="time_stepped", encoder="runtime_baseline", reward="runtime_final", window=6,
                             max_steps=200),
    "runtime-proposal": dict(decision="time_stepped", encoder="runtime_proposal", reward="runtime_final", window=6,
                             max_steps=200),
}


def _make(name, n_jobs=60, **over):
    kw = dict(CONFIGS[name])
    kw.update(over)
    bb = kw.pop("bb", False)
    jobs = _busy(n_jobs)
    cluster = ClusterSpec(nodes=16, bb_units=6 if bb else 0)
    if bb:
        jobs["bb_request"] = np.random.default_rng(0).integers(0, 4, len(jobs))
    return gym.make("schedrl/HPC-v0", jobs=jobs, cluster=cluster, episode_jobs=min(n_jobs, 40), **kw)


@pytest.mark.parametrize("name", list(CONFIGS))
def test_gymnasium_and_sb3_check_env(name):
    from gymnasium.utils.env_checker import check_env as gym_check
    from stable_baselines3.common.env_checker import check_env as sb3_check

    env = _make(name)
    gym_check(env.unwrapped, skip_render_check=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # SB3's checker warns about anything dubious
        sb3_check(_make(name).unwrapped, warn=True)


@pytest.mark.parametrize("name", list(CONFIGS))
def test_random_valid_episodes_keep_invariants(name):
    env = _make(name).unwrapped
    rng = np.random.default_rng(1)
    for ep in range(2):
        obs, info = env.reset(seed=ep)
        done = False
        while not done:
            assert env.observation_space.contains(obs)
            mask = env.action_masks()
            assert np.array_equal(mask, info["action_mask"]) and mask.any()
            obs, r, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(mask))))
            assert np.isfinite(r) and not info["invalid_action"]
            done = term or trunc
        sched = info["schedule"]
        assert len(sched) == 40 and info["episode_start"] == env.episode_start
        ran = sched["start_time"].notna()
        if CONFIGS[name]["decision"] == "pick_reserve":  # runs every job (time-stepped may truncate)
            assert term and ran.all()
        assert (sched.loc[ran, "start_time"] >= sched.loc[ran, "submit_time"]).all()


def test_invalid_actions_are_safe():
    for name in CONFIGS:
        env = _make(name).unwrapped
        env.reset(seed=0)
        for a in (env.action_space.n - 1, 10_000, -3, np.array([2])):
            obs, r, term, trunc, info = env.step(a)
            assert env.observation_space.contains(obs) and np.isfinite(r)
            if term or trunc:
                break
    jobs = _jobs([0, 0], [100, 50], [2, 4])
    env = make_hpc_env(jobs=jobs, cluster=4, encoder="sem", window=3, k=2)
    env.reset()
    obs, r, term, trunc, info = env.step(2)   # empty slot: treated as the head (J0 starts)
    assert info["invalid_action"] and info["started"] == 1 and info["clock"] == 0
    env = make_hpc_env(jobs=jobs, cluster=4, decision="time_stepped", encoder="runtime_baseline", reward="runtime_final",
                 window=3)
    env.reset()
    assert env.step(7)[4]["invalid_action"] and not env.step(3)[4]["invalid_action"]  # 3 is X


def test_pick_reserve_hand_case_start_reserve_backfill():
    # 4 nodes: J0 2 nodes 100 s, J1 4 nodes 50 s, J2 1 node 50 s, all at t = 0
    jobs = _jobs([0, 0, 0], [100, 50, 50], [2, 4, 1])
    env = make_hpc_env(jobs=jobs, cluster=4, decision="pick_reserve", encoder="sem", reward="dras_theta", window=3, k=2,
                 time_scale=100.0, wait_scale=100.0)
    obs, info = env.reset(seed=0)
    assert info["waiting"] == 3 and list(info["action_mask"]) == [True, True, True]
    np.testing.assert_allclose(obs, [.5, 1, 0, 0, 1, .5, 0, 0, .25, .5, 0, 0, 0, 0, 0, 0])
    obs, r, term, trunc, info = env.step(0)          # J0 fits: starts, same instant, agent asked again
    assert info["clock"] == 0 and info["waiting"] == 2 and not term
    assert r == pytest.approx((2 / 4 + 0 + 2 / 4) / 3)   # N_used/N, t_i/max(t_max, 6 h), n_i/N
    np.testing.assert_allclose(obs, [1, .5, 0, 0, .25, .5, 0, 0, 0, 0, 0, 0, .5, 1, 0, 0])
    obs, r, term, trunc, info = env.step(0)          # J1 does not fit: reserved at 100, J2 backfilled
    assert r == pytest.approx((3 / 4 + 0 + 4 / 4) / 3)
    assert term  # no decision left: J1 starts at its reservation, the episode runs out
    assert list(info["schedule"]["start_time"]) == [0, 100, 0]
    assert list(info["schedule"]["reservation"])[1] == 100

    env.reset()
    env.step(1)                                       # J1 first: fits the empty machine
    obs, r, term, trunc, info = env.step(0)           # J0 reserved at 50; J2 cannot backfill (0 free)
    assert info["clock"] == 50 and info["waiting"] == 1 and info["reserved"] == -1 and not term
    obs, r, term, trunc, info = env.step(0)           # J2 starts at 50 beside J0
    assert term and list(info["schedule"]["start_time"]) == [50, 0, 50]


def test_time_stepped_hand_case_and_final_reward():
    # 4 nodes, Sim_Step 60: J0 4 nodes 120 s, J1 and J2 2 nodes 60 s, all at 0
    jobs = _jobs([0, 0, 0], [120, 60, 60], [4, 2, 2])
    env = make_hpc_env(jobs=jobs, cluster=4, decision="time_stepped", encoder="runtime_baseline", reward="runtime_final",
                 window=3, max_steps=10, sim_step=60.0, time_scale=120.0)
    obs, info = env.reset(seed=0)
    assert env.action_space.n == 4 and list(info["action_mask"]) == [True] * 4
    np.testing.assert_allclose(obs, [0, 0, 0, 0, 1, .5, .5, 1, .5, .5])
    obs, r, *_ , info = env.step(0)                   # J0 starts; two jobs wait: same instant
    assert r == 0 and info["clock"] == 0 and info["started"] == 1
    for k in range(3):                                # failed picks do not move the clock ...
        obs, r, term, trunc, info = env.step(k % 2)
        assert info["clock"] == 0 and r == 0
    obs, r, term, trunc, info = env.step(1)           # ... until the 4th in a row
    assert info["clock"] == 120                       # J0 freed at the first tick >= its end
    env.step(0)
    obs, r, term, trunc, info = env.step(0)           # the last job starts: episode over
    assert term and not trunc and env.steps == 7
    sched = info["schedule"]
    util = 720 / (4 * 180)
    assert util == pytest.approx(runtime_utilization(sched, 4))
    assert r == pytest.approx(1.0 + util + (10 - 7) / 10)

    env.reset()
    env = make_hpc_env(jobs=jobs, cluster=4, decision="time_stepped", encoder="runtime_proposal", reward="runtime_final",
                 window=3, max_steps=3, sim_step=60.0)
    env.reset()
    env.step(0)
    obs, r, term, trunc, info = env.step(3)           # X: to the next event (J0's end at 120)
    assert info["clock"] == 120 and r == 0
    obs, r, term, trunc, info = env.step(0)           # J1 starts; the step budget is spent
    assert trunc and not term
    assert r == pytest.approx(2 / 3 + 480 / (4 * 120) + 0)   # completed J0 only, over [0, 120]
    assert np.isnan(info["schedule"]["start_time"][2])


def test_step_limit_pays_the_final_reward():
    env = _make("runtime-baseline", max_steps=5)
    env.reset(seed=0)
    for a in (0, 6, 6, 6, 6):                            # start the head, then X
        obs, r, term, trunc, info = env.step(a)
    assert trunc and "schedule" in info
    assert r == pytest.approx(1 / 40 + runtime_utilisation_so_far(env.unwrapped.sim, False)) and r > 1 / 40


def test_time_stepped_empty_slot_advances_and_idle_steps_double():
    # J0 needs all 4 nodes but J1 (1 node, long) holds one: idle decision points double the step
    jobs = _jobs([0, 0], [600, 600], [1, 4])
    env = make_hpc_env(jobs=jobs, cluster=4, decision="time_stepped", encoder="runtime_baseline", reward="runtime_final",
                 window=3, sim_step=60.0)
    env.reset()
    env.step(0)                                       # J0 (1 node) starts; J1 waits with 3 idle nodes
    clocks = [env.step(2)[4]["clock"] for _ in range(3)]   # an empty slot acts as X
    assert clocks == [60, 180, 420]
    env_nd = make_hpc_env(jobs=jobs, cluster=4, decision="time_stepped", encoder="runtime_baseline", reward="runtime_final",
                    window=3, sim_step=60.0, double_idle=False)
    env_nd.reset()
    env_nd.step(0)
    assert [env_nd.step(3)[4]["clock"] for _ in range(3)] == [60, 120, 180]
    # once nothing runs and every job has arrived, X no longer moves the clock (no overflow)
    idle = make_hpc_env(jobs=_jobs([0, 0], [100, 100], [1, 1]), cluster=4, decision="time_stepped", encoder="runtime_proposal",
                  reward="runtime_final", window=3, max_steps=3000)
    idle.reset()
    for _ in range(2000):
        obs, r, term, trunc, info = idle.step(3)
    assert info["clock"] == 0 and np.isfinite(obs).all() and not (term or trunc)
    obs, r, term, trunc, info = idle.step(0)
    obs, r, term, trunc, info = idle.step(0)
    assert term and r == pytest.approx(1 + 200 / 400 + (3000 - 2002) / 3000)
    env_m = make_hpc_env(jobs=jobs, cluster=4, decision="time_stepped", encoder="runtime_baseline", reward="runtime_final",
                   window=3, mask_unfit=True)
    env_m.reset()
    env_m.step(0)
    assert list(env_m.action_masks()) == [False, False, False, True]


@pytest.mark.parametrize("seed,bb", [(0, False), (1, False), (2, True)])
def test_pick_the_head_reproduces_fcfs_easy(seed, bb):
    jobs = _busy(300, nodes=32, seed=seed)
    cluster = ClusterSpec(nodes=32, bb_units=8 if bb else 0)
    if bb:
        jobs["bb_request"] = np.random.default_rng(seed).integers(0, 5, len(jobs))
    env = make_hpc_env(jobs=jobs, cluster=cluster, decision="pick_reserve", encoder="sem", reward="neg_inv_runtime", window=10, k=8)
    env.reset(seed=seed)
    term, steps = False, 0
    while not term:
        *_, term, trunc, info = env.step(0)
        steps += 1
    ours = info["schedule"]
    ref = simulate(jobs, cluster, policy="fcfs", backfill="easy")
    np.testing.assert_array_equal(ours["start_time"].to_numpy(), ref["start_time"].to_numpy())
    assert steps < len(jobs) * 2 and (ours["start_time"] > ours["submit_time"]).any()  # queueing happened


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_random_agents_respect_capacity_and_reservations(seed):
    """Any policy under pick-and-reserve: nodes and burst buffer never overbooked, no job starts before its
    submission, and a reserved job starts no later than the time first promised to it (EASY's
    guarantee, exact here since jobs end by their requested walltime)."""
    jobs = _busy(250, nodes=32, seed=seed)
    jobs["bb_request"] = np.random.default_rng(seed).integers(0, 4, len(jobs))
    env = make_hpc_env(jobs=jobs, cluster=ClusterSpec(nodes=32, bb_units=10), encoder="mrsch", window=8)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    term = False
    while not term:
        *_, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
    s = info["schedule"]
    start, end = s["start_time"].to_numpy(), s["end_time"].to_numpy()
    for t in np.unique(start):
        on = (start <= t) & (t < end)
        assert s["req_procs"][on].sum() <= 32 and np.ceil(s["bb_request"][on]).sum() <= 10
    assert (start >= s["submit_time"]).all()
    promised = s["reservation"].notna()
    assert promised.sum() > 10 and (start[promised] <= s["reservation"][promised] + 1e-9).all()


def test_neg_slowdown_return_is_minus_the_sum_of_slowdowns():
    jobs = _busy(80, nodes=16, seed=3)
    env = make_hpc_env(jobs=jobs, cluster=16, encoder="sem", reward="neg_slowdown", window=5, k=4)
    total, info = random_episode(env, seed=0)
    s = info["schedule"]
    slowdown = (s["end_time"] - s["submit_time"]) / np.maximum(s["run_time"], 1.0)
    assert total == pytest.approx(-slowdown.sum(), rel=1e-9)
    assert (s["wait_time"] > 0).any()


def test_measurements_in_info():
    # 4 nodes, 4 BB units: J0 (2 nodes, 1 unit, 100 s) runs; J1 (4 nodes, 2 units, 50 s) waits
    jobs = _jobs([0, 0], [100, 50], [2, 4], bb_request=[1, 2])
    env = make_hpc_env(jobs=jobs, cluster=ClusterSpec(nodes=4, bb_units=4), encoder="mrsch", window=2,
                 measurements=True)
    env.reset()
    info = env.step(0)[4]
    np.testing.assert_allclose(info["utilization"], [0.5, 0.25])
    nodes, bb = 2 / 4 * 100 + 4 / 4 * 50, 1 / 4 * 100 + 2 / 4 * 50  # sum of P_ij t_i
    np.testing.assert_allclose(info["demand_share"], [nodes / (nodes + bb), bb / (nodes + bb)])


def test_episode_sampling_and_sources(tmp_path):
    jobs = _busy(100)
    env = make_hpc_env(jobs=jobs, cluster=16, episode_jobs=30, episode_sampling="sequential", window=4, k=4)
    starts = []
    for ep in range(4):
        env.reset(seed=0 if ep == 0 else None)
        starts.append(env.episode_start)
    assert starts == [0, 30, 60, 0]
    env = make_hpc_env(jobs=jobs, cluster=16, episode_jobs=30, window=4, k=4)
    firsts = []
    for _ in range(2):
        env.reset(seed=5)
        firsts.append([env.episode_start] + [env.reset()[1] and env.episode_start for _ in range(5)])
    assert firsts[0] == firsts[1] and len(set(firsts[0])) > 1 and all(0 <= s <= 70 for s in firsts[0])
    env.reset(options={"start": 7})
    assert env.episode_start == 7 and len(env.sim.jobs) == 30
    env.reset(options={"jobs": jobs.iloc[:5]})
    assert len(env.sim.jobs) == 5

    calls = []

    def factory(rng):
        calls.append(rng)
        return generate("lublin256", n_jobs=20, seed=int(rng.integers(1 << 30)), max_nodes=16)

    env = make_hpc_env(jobs=factory, cluster=16, window=4, k=4)
    o1, _ = env.reset(seed=3)
    o2, _ = env.reset(seed=3)
    np.testing.assert_array_equal(o1, o2)
    assert calls[-1] is env.np_random

    from schedrl.workloads.swf import write_swf

    path = write_swf(_busy(20), tmp_path / "w.swf")
    env = make_hpc_env(jobs=str(path), cluster=16, window=4, k=4)
    assert len(env.reset()[0]) == 4 * 4 + 2 * 4


def test_priority_flag_from_queues():
    jobs = _jobs([0, 0, 0], [100, 50, 50], [4, 1, 1], queue=[1, 2, 1])
    env = make_hpc_env(jobs=jobs, cluster=4, encoder="dras", window=3, priority_queues=[2])
    obs, _ = env.reset()
    assert list(obs[2:12:4]) == [0, 1, 0]


def test_bad_arguments_are_config_errors():
    jobs = _jobs([0], [10], [1])
    for kw in ({"decision": "x"}, {"encoder": "image"}, {"encoder": "nope"}, {"reward": "nope"},
               {"reward": "dras_theta", "reward_kwargs": {"bogus": 1}}, {"episode_sampling": "x"},
               {"episode_jobs": 5}, {"decision": "time_stepped", "max_failed_picks": 0}):
        with pytest.raises(ConfigError):
            make_hpc_env(jobs=jobs, cluster=4, **kw)
    with pytest.raises(TypeError, match="max_failed_picks"):  # a time-stepped argument only
        make_hpc_env(jobs=jobs, cluster=4, decision="pick_reserve", max_failed_picks=2)
    with pytest.raises(ConfigError):
        make_hpc_env(jobs=None, cluster=4)
    with pytest.raises(ConfigError):
        make_hpc_env(jobs=jobs)  # no cluster and no header
    w = get_reward("dras_theta", weights=(1.0, 0.0, 0.0))
    assert callable(w)


@pytest.mark.parametrize("name", ["dras-sem", "runtime-proposal"])
def test_maskable_ppo_trains_a_few_steps(name):
    from sb3_contrib import MaskablePPO

    torch.set_num_threads(1)
    env = _make(name)
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, n_epochs=1, seed=0,
                        policy_kwargs={"net_arch": [16]}, device="cpu")
    model.learn(total_timesteps=256)
    obs, _ = env.reset(seed=0)
    action, _ = model.predict(obs, action_masks=env.unwrapped.action_masks(), deterministic=True)
    assert env.unwrapped.action_masks()[int(action)]


def test_decision_processes_are_registered_with_their_defaults():
    from schedrl.envs.pick_reserve import PickReserveEnv
    from schedrl.envs.time_stepped import TimeSteppedPickEnv

    jobs = _jobs([0, 0], [10, 10], [1, 1])
    pick = gym.make("schedrl/HPCPickReserve-v0", jobs=jobs, cluster=4).unwrapped
    tick = gym.make("schedrl/HPCTimeStepped-v0", jobs=jobs, cluster=4, encoder="runtime_baseline",
                    reward="runtime_final").unwrapped
    assert isinstance(pick, PickReserveEnv) and isinstance(tick, TimeSteppedPickEnv)
    assert pick.action_space.n == 50 and pick.max_episode_steps is None and pick.sim.sim_step is None
    assert tick.action_space.n == 101 and tick.max_episode_steps == 10_000 and tick.sim.sim_step == 60.0
