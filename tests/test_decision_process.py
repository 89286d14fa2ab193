"""PickReserveEnv's decision process (issue 35): ``hold`` (a failed pick is reserved, the agent is
silent until it starts), ``every_event`` (MRSch: asked at every event, the head gets EASY's
reservation, re-planned at the next event) and ``dras`` (issue 37: DRAS's code, the head held and
reserved, the agent choosing each backfilled job)."""

import numpy as np
import pandas as pd
import pytest

from env_play import random_episode
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
    with pytest.raises(ConfigError, match="'sometimes'.*hold, every_event, dras"):
        make_hpc_env(jobs=jobs, cluster=4, decision="pick_reserve", process="sometimes")
    assert make_hpc_env(jobs=jobs, cluster=4).process == "hold"


def test_every_event_random_picks_keep_capacity_and_integrate_rewards():
    from gymnasium.utils.env_checker import check_env

    jobs = _busy(120, nodes=16, seed=3)
    env = make_hpc_env(jobs=jobs, cluster=16, process="every_event", encoder="sem", reward="neg_slowdown",
                       window=WINDOW, k=4)
    check_env(env, skip_render_check=True)
    total, info = random_episode(env, seed=0)
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
    with pytest.raises(ConfigError, match="ask_when_none_fits=False applies to processes 'every_event' and 'dras' only"):
        make_hpc_env(jobs=jobs, cluster=4, process="hold", ask_when_none_fits=False)
    with pytest.raises(ConfigError, match="ask_when_none_fits must be true or false"):
        make_hpc_env(jobs=jobs, cluster=4, process="every_event", ask_when_none_fits="no")
    assert make_hpc_env(jobs=jobs, cluster=4, process="every_event").ask_when_none_fits is True


# dras: DRAS's public code (issue 37 item 2)

def _play_masked(env, pick):
    """Run an episode with ``pick(env, mask) -> action``; return the schedule, the decision instants
    and the decision kinds (``info["decision"]``, None outside dras)."""
    _, info = env.reset(seed=0)
    instants, kinds, term = [], [], False
    while not term:
        instants.append(info["clock"])
        kinds.append(info.get("decision"))
        *_, term, trunc, info = env.step(pick(env, info["action_mask"]))
        assert not trunc
    return info["schedule"], instants, kinds


def _first_valid(env, mask):
    return int(np.flatnonzero(mask)[0])


def _last_valid(env, mask):
    return int(np.flatnonzero(mask)[-1])


def _largest_valid_fitting(env, mask):
    """The largest valid window job that fits now (earliest on ties), else the first valid action."""
    sim = env.sim
    fit = [i for i in np.flatnonzero(mask) if i < len(sim.queue) and sim.fits(i)]
    return max(fit, key=lambda i: (sim.jobs.req_procs[sim.queue[i]], -i)) if fit else int(np.flatnonzero(mask)[0])


def test_hand_trace_dras_differs_from_hold_and_every_event():
    # 4 nodes; J0 3 nodes 100 s at t=0; at t=10 J1 4 nodes 50 s, J2 1 node 20 s, J3 1 node 80 s,
    # J4 2 nodes 30 s (requested = actual). The agent plays the newest valid job.
    jobs = _jobs([0, 10, 10, 10, 10], [100, 50, 20, 80, 30], [3, 4, 1, 1, 2])
    # hold: t=0 J0 starts. t=10 pick J4 (2 > 1 free) is reserved at 100 (extra 2); EASY backfills J2
    # (ends 30 <= 100); t=30 J3 (ends 110 > 100) backfills into the extra. t=100 J4 starts; asked,
    # J1 picked and reserved at 130 (J4's end); J1 starts 130. Starts [0, 130, 10, 30, 100].
    sched, instants, _ = _play_masked(_env(jobs, 4, "hold"), _last_valid)
    assert instants == [0, 10, 100]
    assert list(sched["start_time"]) == [0, 130, 10, 30, 100]
    # every_event: t=10 pick J4 fails, head J1 reserved at 100 (extra 0), EASY backfills J2; t=30
    # asked again, nothing starts (J3 ends past 100); t=100 J4 then J3 picked and started, J1
    # reserved at 180; t=130 asked, J1 does not fit; t=180 J1 starts. Starts [0, 180, 10, 100, 100].
    sched, instants, _ = _play_masked(_env(jobs, 4, "every_event"), _last_valid)
    assert instants == [0, 10, 30, 100, 100, 130, 180]
    assert list(sched["start_time"]) == [0, 180, 10, 100, 100]
    # dras: t=0 J0 picked, starts. t=10 pick J4 fails: the head J1 is held, reserved at 100 (extra
    # 0); backfill decision among {J2, J3} (both end by 100): the agent takes J3 (EASY would take
    # J2), then no job is eligible (nothing free). t=30: no event (J2 still waits). t=90 J3 ends:
    # J1 held, J2 would end at 110 > 100: no decision. t=100 J0 ends: the held J1 starts (no
    # decision), pick J4 fails, the head J2 is held (no node free: no reservation). t=150 J1 ends:
    # J2 starts (held), the agent picks J4, it starts. Starts [0, 100, 150, 10, 150].
    sched, instants, kinds = _play_masked(_env(jobs, 4, "dras"), _last_valid)
    assert instants == [0, 10, 10, 100, 150]
    assert kinds == ["pick", "pick", "backfill", "pick", "pick"]
    assert list(sched["start_time"]) == [0, 100, 150, 10, 150]
    assert list(sched["reservation"].fillna(-1)) == [-1, 100, -1, -1, -1]


def test_dras_held_fitting_head_waits_for_the_next_event():
    # DRAS's code reserves the head after a failed pick even when the head fits, and starts it at
    # the next event. 4 nodes; J0 2 nodes 100 s at t=0; at t=10 J1 1 node 50 s, J2 4 nodes 10 s.
    # t=10: pick J2 fails, J1 (fits) is held, reserved now; nothing else to backfill; t=100 (J0
    # ends) J1 starts, then J2 is picked... and does not fit (J1 runs): J2 held, starts at 150.
    jobs = _jobs([0, 10, 10], [100, 50, 10], [2, 1, 4])
    sched, instants, kinds = _play_masked(_env(jobs, 4, "dras"), _last_valid)
    assert list(sched["start_time"]) == [0, 100, 150]
    assert instants == [0, 10, 100] and kinds == ["pick"] * 3


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_dras_first_valid_picker_is_fcfs_easy(seed):
    jobs = _busy(200, nodes=32, seed=seed)
    ref = simulate(jobs, ClusterSpec(nodes=32), policy="fcfs", backfill="easy")
    for window in (WINDOW, 50):  # 5: eligible jobs behind the window are EASY's without a decision
        sched, _, kinds = _play_masked(_env(jobs, 32, "dras", window=window), _first_valid)
        np.testing.assert_array_equal(sched["start_time"].to_numpy(), ref["start_time"].to_numpy())
        np.testing.assert_array_equal(sched["reservation"].to_numpy(), ref["reservation"].to_numpy())
        assert {"pick", "backfill"} <= set(kinds)


def _delays_reservation(env, i):
    """Whether starting window job ``i`` now (ignoring EASY's test) moves the reserved job's
    earliest start (by requested walltimes) later."""
    import copy

    sim = copy.deepcopy(env.sim)
    before = sim.shadow
    pos = sim.queue.index(sim.reserved)
    sim.release()
    sim.start(i)
    sim.reserve(pos if pos < i else pos - 1)
    return sim.shadow > before


def test_dras_backfill_mask_only_allows_jobs_that_do_not_delay_the_reservation():
    jobs = _busy(150, nodes=32, seed=5)
    env = _env(jobs, 32, "dras", window=8)
    _, info = env.reset(seed=0)
    rng = np.random.default_rng(1)
    checked, term = 0, False
    while not term:
        mask = info["action_mask"]
        if info["decision"] == "backfill":
            sim = env.sim
            assert sim.reserved == sim.queue[0] and not mask[0] and mask.any()
            for i in range(1, min(env.window, len(sim.queue))):
                if sim.fits(i):  # a job that fits starts now; eligible iff it does not delay
                    assert mask[i] == (not _delays_reservation(env, i))
                    checked += 1
                else:
                    assert not mask[i]
        *_, term, _, info = env.step(int(rng.choice(np.flatnonzero(mask))))
    assert checked > 20
    s = info["schedule"]
    start, end = s["start_time"].to_numpy(), s["end_time"].to_numpy()
    assert all(s["req_procs"][(start <= t) & (t < end)].sum() <= 32 for t in np.unique(start))


def test_decision_counts_per_job_by_process(capsys):
    jobs = _busy(200, nodes=32, seed=4)
    per_job = {}
    for process in ("hold", "every_event", "dras"):
        env = _env(jobs, 32, process, window=10)
        sched, instants, kinds = _play_masked(env, _largest_valid_fitting)
        assert sched["start_time"].notna().all()
        per_job[process] = len(instants) / len(jobs)
        if process == "dras":
            n_backfill = kinds.count("backfill")
            per_job["dras pick"], per_job["dras backfill"] = (len(kinds) - n_backfill) / len(jobs), n_backfill / len(jobs)
    with capsys.disabled():
        print("\ndecisions per job (200 loaded Lublin jobs, 32 nodes, window 10, largest valid fitting picker): "
              + ", ".join(f"{k} {v:.2f}" for k, v in per_job.items()))
    assert per_job["dras backfill"] > 0 and per_job["dras pick"] > 0


def test_dras_no_fit_asks_off_same_schedules():
    jobs = _busy(200, nodes=32, seed=1)
    for pick in (_largest_valid_fitting, _last_valid):
        with_asks, n_with, _ = _play_masked(_env(jobs, 32, "dras"), pick)
        without, n_without, _ = _play_masked(_env(jobs, 32, "dras", ask_when_none_fits=False), pick)
        pd.testing.assert_frame_equal(with_asks, without)
        assert len(n_without) < len(n_with)


def test_dras_check_env_and_invalid_backfill_action():
    from gymnasium.utils.env_checker import check_env

    jobs = _busy(120, nodes=16, seed=3)
    env = make_hpc_env(jobs=jobs, cluster=16, process="dras", encoder="sem", reward="neg_slowdown",
                       window=WINDOW, k=4)
    check_env(env, skip_render_check=True)
    _, info = env.reset(seed=0)
    total, term, invalid_backfills = 0.0, False, 0
    while not term:
        mask = info["action_mask"]
        if info["decision"] == "backfill" and not mask.all():
            a, first = int(np.flatnonzero(~mask)[0]), int(np.flatnonzero(mask)[0])
            job = env.sim.queue[first]
            *_, r, term, _, info = env.step(a)  # an ineligible slot plays the first eligible job
            assert info["invalid_action"] and job not in env.sim.queue
            invalid_backfills += 1
        else:
            *_, r, term, _, info = env.step(_first_valid(env, mask))
        total += r
    assert invalid_backfills > 0
    s = info["schedule"]
    slowdown = (s["end_time"] - s["submit_time"]) / np.maximum(s["run_time"], 1.0)
    assert total == pytest.approx(-slowdown.sum(), rel=1e-9)  # the clock's moves are all integrated


def test_dras_bad_values():
    jobs = _jobs([0], [10], [1])
    with pytest.raises(ConfigError, match="unknown decision process 'DRAS'"):
        make_hpc_env(jobs=jobs, cluster=4, process="DRAS")
    with pytest.raises(ConfigError, match="ask_when_none_fits must be true or false"):
        make_hpc_env(jobs=jobs, cluster=4, process="dras", ask_when_none_fits=0)
    env = make_hpc_env(jobs=jobs, cluster=4, process="dras", ask_when_none_fits=False)
    assert env.process == "dras" and env.ask_when_none_fits is False
