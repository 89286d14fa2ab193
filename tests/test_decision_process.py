"""PickReserveEnv's decision process (issue 35): ``hold`` (a failed pick is reserved, the agent is
silent until it starts) and ``every_event`` (MRSch: asked at every event, the head gets EASY's
reservation, re-planned at the next event)."""

import numpy as np
import pandas as pd
import pytest

from schedrl.envs import make_hpc_env
from schedrl.errors import ConfigError
from schedrl.sim import ClusterSpec, HPCSimulator, simulate
from schedrl.workloads.lublin import generate

WINDOW = 5


def _jobs(submit, run, procs):
    return pd.DataFrame({"job_id": np.arange(1, len(submit) + 1), "submit_time": submit, "run_time": run,
                         "req_procs": procs, "req_time": run})


def _busy(n_jobs, nodes, seed):
    jobs = generate("lublin256", n_jobs=n_jobs, seed=seed, max_nodes=nodes)
    jobs["submit_time"] = jobs["submit_time"] // 10  # a loaded machine: queues form
    jobs["req_time"] = np.ceil(jobs["run_time"] * 1.5)
    return jobs


def _env(jobs, cluster, process, window=WINDOW, **kwargs):
    return make_hpc_env(jobs=jobs, cluster=cluster, decision="pick_reserve", process=process, encoder="sem",
                        reward="neg_inv_runtime", window=window, k=4, **kwargs)


def _play(env, pick):
    """Run an episode with ``pick(sim) -> action``; return the schedule and the decision instants."""
    _, info = env.reset(seed=0)
    instants, term = [], False
    while not term:
        instants.append(info["clock"])
        assert info["reserved"] == -1 or env.process == "hold"  # every_event re-plans: nothing held
        *_, term, trunc, info = env.step(pick(env.sim))
        assert not trunc
    return info["schedule"], instants


def _last(sim):
    return min(len(sim.queue), WINDOW) - 1


def _largest_fitting(sim, window=WINDOW):
    """The largest job of the window that fits now (earliest on ties), else the head (position 0)."""
    fit = [i for i in range(min(window, len(sim.queue))) if sim.fits(i)]
    return max(fit, key=lambda i: (sim.jobs.req_procs[sim.queue[i]], -i)) if fit else 0


def test_hand_trace_hold_and_every_event_ask_at_different_times():
    # 4 nodes; J0 3 nodes 100 s, J1 2 nodes 50 s, J2 1 node 60 s at t=0; J3 2 nodes 40 s at t=30.
    # The agent always picks the newest waiting job.
    jobs = _jobs([0, 0, 0, 30], [100, 50, 60, 40], [3, 2, 1, 2])
    # hold: t=0 J2 and J1 start, J0 does not fit and is reserved at 50 (J1's end); the agent is
    # silent at J3's arrival (30); J0 starts at 50, then J3 is picked, reserved at 150 (J0's end)
    sched, instants = _play(_env(jobs, 4, "hold"), _last)
    assert instants == [0, 0, 0, 50]
    assert list(sched["start_time"]) == [50, 0, 0, 150]
    assert list(sched["reservation"].fillna(-1)) == [50, -1, -1, 150]
    # every_event: t=0 J2, J1 start; no job of the window fits 1 free node, so the agent is not asked
    # again: the head J0 is reserved at 50. t=30 (J3 arrives): asked, picks J3, which does not fit:
    # no reservation for J3, the head's holds. t=50 (J1 ends): re-planned, J3 fits and starts, J0
    # waits; t=60 (J2 ends): J0 still does not fit; t=90 (J3 ends): J0 starts.
    sched, instants = _play(_env(jobs, 4, "every_event"), _last)
    assert instants == [0, 0, 30, 50, 60, 90]
    assert list(sched["start_time"]) == [90, 0, 0, 50]
    assert list(sched["reservation"].fillna(-1)) == [50, -1, -1, -1]  # only the head was ever reserved


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_head_picker_is_fcfs_easy_under_both_processes(seed):
    jobs = _busy(200, nodes=32, seed=seed)
    ref = simulate(jobs, ClusterSpec(nodes=32), policy="fcfs", backfill="easy")
    for process in ("hold", "every_event"):
        sched, _ = _play(_env(jobs, 32, process), lambda sim: 0)
        np.testing.assert_array_equal(sched["start_time"].to_numpy(), ref["start_time"].to_numpy())
        if process == "every_event":  # the same reservations too (hold also reserves with no node free)
            np.testing.assert_array_equal(sched["reservation"].to_numpy(), ref["reservation"].to_numpy())
    assert (ref["start_time"] > ref["submit_time"]).mean() > 0.3  # queueing happened


def _largest_fitting_reference(jobs, nodes):
    """The same rule coded as a heuristic directly on the simulator, asked at every event."""
    sim = HPCSimulator(ClusterSpec(nodes=nodes))
    sim.reset(jobs)
    while not sim.done:
        sim.release()
        while sim.queue:
            i = _largest_fitting(sim)
            if not sim.start(i):
                break
        if sim.queue and sim.free[0] > 0:  # EASY around the head
            sim.reserve(0)
            sim.backfill()
        sim.next_decision_point()
    return sim.schedule()


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_one_picker_same_schedule_as_heuristic_and_as_policy(seed):
    jobs = _busy(200, nodes=32, seed=seed)
    ref = _largest_fitting_reference(jobs, 32)
    sched, _ = _play(_env(jobs, 32, "every_event"), _largest_fitting)
    np.testing.assert_array_equal(sched["start_time"].to_numpy(), ref["start_time"].to_numpy())
    fcfs = simulate(jobs, ClusterSpec(nodes=32), policy="fcfs", backfill="easy")
    assert not np.array_equal(ref["start_time"].to_numpy(), fcfs["start_time"].to_numpy())  # not FCFS


def test_every_event_asks_more_often_and_terminates():
    jobs = _busy(200, nodes=32, seed=4)
    per_job = {}
    for process in ("hold", "every_event"):
        sched, instants = _play(_env(jobs, 32, process), _largest_fitting)
        assert sched["start_time"].notna().all()
        per_job[process] = len(instants) / len(jobs)
        n_instants = len(set(instants))
        if process == "every_event":  # each decision starts a job or moves the clock to the next event
            assert len(instants) <= len(jobs) + n_instants
    assert per_job["every_event"] >= per_job["hold"]


def test_bad_process_is_a_config_error():
    jobs = _jobs([0], [10], [1])
    with pytest.raises(ConfigError, match="'sometimes'.*hold, every_event"):
        make_hpc_env(jobs=jobs, cluster=4, decision="pick_reserve", process="sometimes")
    assert make_hpc_env(jobs=jobs, cluster=4).process == "hold"


def test_every_event_random_picks_keep_capacity_and_integrate_rewards():
    from gymnasium.utils.env_checker import check_env

    jobs = _busy(120, nodes=16, seed=3)
    env = make_hpc_env(jobs=jobs, cluster=16, process="every_event", encoder="sem", reward="neg_slowdown",
                       window=WINDOW, k=4)
    check_env(env, skip_render_check=True)
    env.reset(seed=0)
    rng = np.random.default_rng(0)
    total, term = 0.0, False
    while not term:
        *_, r, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        total += r
    s = info["schedule"]
    start, end = s["start_time"].to_numpy(), s["end_time"].to_numpy()
    assert all(s["req_procs"][(start <= t) & (t < end)].sum() <= 16 for t in np.unique(start))
    slowdown = (s["end_time"] - s["submit_time"]) / np.maximum(s["run_time"], 1.0)
    assert total == pytest.approx(-slowdown.sum(), rel=1e-9)  # the clock's moves are all integrated


def test_every_event_failed_pick_starts_a_fitting_head_first():
    # 4 nodes; J0 3 nodes 100 s at t=0; J1 1 node 30 s and J2 2 nodes 30 s at t=10. At t=10 the
    # agent picks the newest (J2), which does not fit 1 free node: EASY as MRSch's CQSim runs it
    # starts the fitting head J1 at once (it does not reserve a head that fits and let the clock
    # run on); J2 is then reserved at J0's end and starts at 100.
    jobs = _jobs([0, 10, 10], [100, 30, 30], [3, 1, 2])
    sched, instants = _play(_env(jobs, 4, "every_event"), _last)
    assert list(sched["start_time"]) == [0, 10, 100]
    assert instants == [0, 10, 40, 100]


# ask_when_none_fits=False: every_event without the decisions where no window job fits

def test_hand_trace_every_event_without_no_fit_asks():
    # the first hand trace: at t=30 (J3 arrives, 2 nodes, 1 free) and t=60 (J2 ends, 2 free, J0 needs
    # 3) no window job fits, so every pick would fail the same way and the agent is not asked; the
    # schedule is the one with those asks
    jobs = _jobs([0, 0, 0, 30], [100, 50, 60, 40], [3, 2, 1, 2])
    sched, instants = _play(_env(jobs, 4, "every_event", ask_when_none_fits=False), _last)
    assert instants == [0, 0, 50, 90]
    assert list(sched["start_time"]) == [90, 0, 0, 50]
    assert list(sched["reservation"].fillna(-1)) == [50, -1, -1, -1]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_no_fit_asks_off_same_schedules_fewer_decisions(seed):
    # the head picker is still FCFS+EASY, and any state-driven picker gets the schedule it gets
    # with the asks: a no-fit instant has one outcome whatever is picked
    jobs = _busy(200, nodes=32, seed=seed)
    ref = simulate(jobs, ClusterSpec(nodes=32), policy="fcfs", backfill="easy")
    sched, _ = _play(_env(jobs, 32, "every_event", ask_when_none_fits=False), lambda sim: 0)
    np.testing.assert_array_equal(sched["start_time"].to_numpy(), ref["start_time"].to_numpy())
    np.testing.assert_array_equal(sched["reservation"].to_numpy(), ref["reservation"].to_numpy())
    for pick in (_largest_fitting, _last):
        with_asks, n_with = _play(_env(jobs, 32, "every_event"), pick)
        without, n_without = _play(_env(jobs, 32, "every_event", ask_when_none_fits=False), pick)
        pd.testing.assert_frame_equal(with_asks, without)
        assert len(n_without) < len(n_with)


def test_no_fit_asks_off_only_asks_where_a_pick_can_start():
    jobs = _busy(200, nodes=32, seed=4)
    env = _env(jobs, 32, "every_event", ask_when_none_fits=False)
    _, info = env.reset(seed=0)
    term = False
    while not term:
        assert env._window_fits()
        *_, term, _, info = env.step(_largest_fitting(env.sim))


def test_ask_when_none_fits_bad_values():
    jobs = _jobs([0], [10], [1])
    with pytest.raises(ConfigError, match="ask_when_none_fits=False applies to process 'every_event' only"):
        make_hpc_env(jobs=jobs, cluster=4, process="hold", ask_when_none_fits=False)
    with pytest.raises(ConfigError, match="ask_when_none_fits must be true or false"):
        make_hpc_env(jobs=jobs, cluster=4, process="every_event", ask_when_none_fits="no")
    assert make_hpc_env(jobs=jobs, cluster=4, process="every_event").ask_when_none_fits is True
