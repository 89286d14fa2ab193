"""The runtime paper's env (brief 4.1-4.4) in the paper's configuration: a hand-worked trace of every
advance rule and of the final reward, idle doubling in training only, the estimators, check_env."""

import gymnasium as gym
import numpy as np
import pandas as pd
import pytest

import schedrl.envs  # noqa: F401  (registers the envs)
from schedrl.envs import make_hpc_env
from schedrl.errors import ConfigError
from schedrl.papers.runtime import experiments as rx


def _jobs(submit, run, procs, req):
    return pd.DataFrame({"job_id": np.arange(1, len(submit) + 1), "submit_time": submit, "run_time": run,
                         "req_procs": procs, "req_time": req})


def _env(jobs, **kw):
    args = dict(jobs=jobs, cluster=4, decision="time_stepped", encoder="runtime_proposal", reward="runtime_final",
                window=3, sim_step=60.0, time_scale=240.0, max_steps=20)
    args.update(kw)
    return make_hpc_env(**args)


def test_hand_worked_trace_of_every_rule():
    # 4 nodes, Sim_Step 60 s. J0: t=0, 4 nodes, runs 120 s (requests 240); J1: t=0, 2 nodes, 60 s (120);
    # J2: t=30, 1 node, 60 s (60).
    env = _env(_jobs([0, 0, 30], [120, 60, 60], [4, 2, 1], [240, 120, 60]))
    obs, info = env.reset(seed=0)
    assert env.action_space.n == 4                     # N_jobs + 1 (X last)
    assert info["clock"] == 0 and info["waiting"] == 2  # J2 not yet submitted
    # proposal state: node remaining (req), node remaining (est), nodes, requested, estimated time
    np.testing.assert_allclose(obs, [0] * 8 + [1, .5, 0, 1, .5, 0, .5, .25, 0])
    obs, r, term, trunc, info = env.step(1)            # J1 fits: starts, J0 still waits -> same instant
    assert (info["clock"], info["started"], r) == (0, 1, 0)
    np.testing.assert_allclose(obs[:8], [.5, .5, 0, 0, .25, .25, 0, 0])   # J1's 120 s request, 60 s runtime
    for _ in range(3):                                 # J0 does not fit: failed picks keep the clock
        obs, r, term, trunc, info = env.step(0)
        assert info["clock"] == 0 and r == 0 and info["started"] == 1
    obs, r, term, trunc, info = env.step(0)            # the 4th failed pick in a row advances:
    assert info["clock"] == 60 and info["waiting"] == 2   # J1 ended and J2 arrived by the 60 s tick
    obs, r, term, trunc, info = env.step(1)            # J2 starts; J0 still waits: no advance
    assert (info["clock"], info["started"]) == (60, 2)
    obs, r, term, trunc, info = env.step(2)            # an empty slot acts as X: next decision point,
    assert info["clock"] == 120 and r == 0             # J2's end at the 120 s tick
    obs, r, term, trunc, info = env.step(0)            # J0 starts, the queue empties: episode over
    assert term and not trunc and env.steps == 8
    # final reward = scheduled share + utilisation + share of steps left; 0 before
    used = 2 * 60 + 1 * 60 + 4 * 120                   # node-seconds of J1, J2, J0
    util = used / (4 * 240)                            # from the first submission to the last end
    assert r == pytest.approx(1.0 + util + (20 - 8) / 20)
    assert list(info["schedule"]["start_time"]) == [120, 0, 60]


def test_pick_that_empties_the_queue_advances():
    # J0 (1 node, 60 s) at 0, J1 at 300: starting J0 empties the queue, so the clock moves on; the
    # end of J0 (60 s) leaves nothing to decide (empty queue) and is skipped: the next decision
    # point is J1's arrival tick
    env = _env(_jobs([0, 300], [60, 60], [1, 1], [60, 60]))
    env.reset()
    obs, r, term, trunc, info = env.step(0)
    assert (info["clock"], info["waiting"], info["running"], r, term) == (300, 1, 0, 0, False)


def test_failed_picks_count_in_a_row_only():
    # J0 (2 nodes, 300 s) and J1 (3 nodes) at 0; J2 (1 node, 60 s) at 100; no idle doubling
    env = _env(_jobs([0, 0, 100], [300, 60, 60], [2, 3, 1], [300, 60, 60]), double_idle=False)
    env.reset()
    env.step(0)                                        # J0 starts
    for _ in range(3):
        assert env.step(0)[4]["clock"] == 0            # J1 (3 nodes) fails three times
    obs, r, term, trunc, info = env.step(3)            # X: the next tick is a decision point because
    assert info["clock"] == 60 and info["waiting"] == 1   # a job waits while nodes idle
    assert env.step(3)[4]["clock"] == 120              # X again: J2 arrived by the 120 s tick
    for _ in range(3):                                 # three failures ...
        assert env.step(0)[4]["clock"] == 120
    obs, r, term, trunc, info = env.step(1)            # ... a success (J2) breaks the run; J1 still
    assert info["clock"] == 120 and info["waiting"] == 1   # waits: no advance
    for _ in range(3):
        assert env.step(0)[4]["clock"] == 120          # three fresh failures: still no advance
    assert env.step(0)[4]["clock"] == 180              # the 4th in a row: J2's end at 180


def test_idle_steps_double_in_training_only():
    # J0 (1 node, 600 s) runs; J1 needs all 4 nodes: every decision point is an idle one
    jobs = _jobs([0, 0], [600, 600], [1, 4], [600, 600])
    for training, expected in ((True, [60, 180, 420, 600]), (False, [60, 120, 180, 240])):
        env = _env(jobs, **{k: v for k, v in rx.env_kwargs(
            {"nodes": 4, "env": {"jobs_window": 3, "sim_step": 60, "max_steps": 20, "time_scale": 240},
             "evaluate": {"max_steps": 50}}, "runtime_proposal", "wl1_100a", training=training).items()
            if k in ("double_idle", "max_steps")})
        env.reset()
        env.step(0)
        clocks = [env.step(3)[4]["clock"] for _ in range(4)]
        assert clocks == expected                      # training: +60, +120, +240, then the 480 s step
        # stops at J0's end (600 s) instead of jumping to 900 s (issue 38: training saw events late)
        assert env.unwrapped.max_episode_steps == (20 if training else 50)


def test_estimators():
    # every job requests 100 s and runs 50 s (accuracy 0.5); 1 node each on 4 nodes
    jobs = _jobs([0, 0, 200, 200], [50, 50, 50, 50], [1, 1, 1, 1], [100, 100, 100, 100])
    oracle = _env(jobs, time_scale=100.0)
    obs, _ = oracle.reset()
    np.testing.assert_allclose(obs[-3:], [.5, .5, 0])  # estimated time per job = actual runtime
    request = _env(jobs, time_scale=100.0, estimator="request")
    obs, _ = request.reset()
    np.testing.assert_allclose(obs[-3:], [1, 1, 0])
    online = _env(jobs, time_scale=100.0, estimator="running_accuracy")
    obs, _ = online.reset()
    np.testing.assert_allclose(obs[-3:], [1, 1, 0])    # nothing finished yet: the request
    online.step(0)                                     # J0 starts
    obs, *_ = online.step(0)                           # J1 starts, the queue empties: both end at the
    assert online.unwrapped.sim.clock == 240           # 60 s tick, the next arrivals' tick is 240
    np.testing.assert_allclose(obs[-3:], [.5, .5, 0])  # request x mean accuracy of finished jobs (0.5)
    obs, *_ = online.step(0)                           # a started job keeps its estimate on its node
    np.testing.assert_allclose(obs[4:8], [.5, 0, 0, 0])
    with pytest.raises(ConfigError, match="unknown estimator"):
        _env(jobs, estimator="psychic")


@pytest.mark.parametrize("encoder", ["runtime_baseline", "runtime_proposal"])
def test_paper_configuration_passes_check_env(tmp_path, encoder):
    from gymnasium.utils.env_checker import check_env

    from schedrl.workloads.lublin import generate
    from schedrl.workloads.swf import write_swf

    swf = tmp_path / "wl1.swf"
    write_swf(generate("wl1", 120, seed=0), swf)
    spec = {"nodes": 256, "env": {"jobs_window": 100, "sim_step": 60, "max_steps": 10000, "time_scale": 21600},
            "evaluate": {"max_steps": 100000}}
    kwargs = rx.env_kwargs(spec, encoder, "wl1_100a", training=True)
    kwargs["jobs"] = str(swf)
    env = gym.make(rx.ENV_ID, **kwargs)
    assert env.action_space.n == 101
    assert env.observation_space.shape == ((256 + 200,) if encoder == "runtime_baseline" else (512 + 300,))
    check_env(env.unwrapped, skip_render_check=True)
    env.reset(seed=0)
    rewards, done, steps = [], False, 0
    while not done:                                    # always X or the head: the episode ends
        obs, r, term, trunc, info = env.step(0)
        rewards.append(r)
        done = term or trunc
        steps += 1
    assert all(x == 0 for x in rewards[:-1]) and 1.0 < rewards[-1] <= 3.0


def test_idle_overshoot_sees_the_end_late():
    # the paper's literal doubling, kept as an option: the 480 s step jumps past J0's end (600 s)
    jobs = _jobs([0, 0], [600, 600], [1, 4], [600, 600])
    env = _env(jobs, double_idle=True, idle_overshoot=True, max_steps=20)
    env.reset()
    env.step(0)
    assert [env.step(3)[4]["clock"] for _ in range(4)] == [60, 180, 420, 900]



def test_idle_reward_hand_worked():
    # 4 nodes, Sim_Step 60, no doubling. J0 (t=0, 2 nodes, 120 s), J1 (t=0, 4 nodes, 60 s).
    # Start J0 at 0 (2 nodes idle), J1 cannot fit: X -> 60 (still 2 idle), X -> 120 (J0 ends), start
    # J1 at 120: every job started, J1 ends at 180 with all 4 nodes busy. Idle node-seconds:
    # 2 x 120 = 240 while J0 ran alone, none after: return -240 / (4 x 86,400).
    env = _env(_jobs([0, 0], [120, 60], [2, 4], [120, 60]), reward="runtime_idle", double_idle=False)
    env.reset()
    rewards = [env.step(a)[1] for a in (0, 3, 3)]
    obs, r, term, trunc, info = env.step(0)
    assert term and rewards[0] == 0.0                               # the clock has not moved yet
    assert sum(rewards) + r == pytest.approx(-240 / (4 * 86_400))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_idle_reward_ranks_policies_as_utilisation(seed):
    # random workloads: the return of a whole episode is -(N x span - used) / (N x 1 day), so the
    # returns of different players order exactly as the paper's utilisation orders them
    from schedrl.metrics import runtime_utilization
    from schedrl.papers.runtime.recording import FitPicker, RandomValid

    rng = np.random.default_rng(seed)
    n = 40
    jobs = _jobs(np.sort(rng.integers(0, 3_000, n)), rng.integers(30, 900, n), rng.integers(1, 5, n),
                 rng.integers(900, 1_000, n))
    results = []
    for player in ("random", "fcfs_fit", "sjf_fit", "largest_fit"):
        env = _env(jobs, reward="runtime_idle", window=8, max_steps=100_000, double_idle=True)
        env.reset(seed=seed)
        pick = RandomValid([env], ("test", seed)) if player == "random" else FitPicker([env], player)
        total, done = 0.0, False
        while not done:
            _, r, term, trunc, info = env.step(int(pick(None, [0])[0]))
            total, done = total + r, term or trunc
        assert term
        sched = info["schedule"]
        util = runtime_utilization(sched, 4)
        used = float(((sched["end_time"] - sched["start_time"]) * jobs["req_procs"]).sum())
        assert total == pytest.approx(-(used / util - used) / (4 * 86_400), rel=1e-9, abs=1e-12)
        results.append((util, total))
    order = sorted(range(len(results)), key=lambda i: results[i][0])
    assert [results[i][1] for i in order] == sorted(r for _, r in results)


def test_fit_pickers_by_hand():
    # 4 nodes, window 3. J0 1 node 300 s, J1 3 nodes 60 s, J2 2 nodes 120 s, all at t=0.
    from schedrl.papers.runtime.recording import FitPicker

    jobs = _jobs([0, 0, 0], [300, 60, 120], [1, 3, 2], [300, 60, 120])
    picks = {}
    for name in ("fcfs_fit", "sjf_fit", "largest_fit"):
        env = _env(jobs, double_idle=False)
        env.reset()
        picker = FitPicker([env], name)
        picks[name] = int(picker(None, [0])[0])
        if name == "largest_fit":
            env.step(picks[name])                       # J1 starts: 1 node left, J0 fits, J2 does not
            assert int(picker(None, [0])[0]) == 0
            env.step(0)                                 # J0 starts: nothing free, J2 waits
            assert int(picker(None, [0])[0]) == 3       # X (the last action) when no job fits
    assert picks == {"fcfs_fit": 0, "sjf_fit": 1, "largest_fit": 1}
