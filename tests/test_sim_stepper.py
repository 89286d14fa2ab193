"""Step API (HPCSimulator): state arrays, actions, reservations, time-stepped mode."""

import math

import numpy as np
import pandas as pd
import pytest

from schedrl.errors import SchedrlError
from schedrl.sim import QUEUE_FEATURES, ClusterSpec, HPCSimulator


def _jobs(submit, run, procs, req=None):
    return pd.DataFrame({"job_id": np.arange(1, len(submit) + 1), "submit_time": submit,
                         "run_time": run, "req_procs": procs,
                         "req_time": req if req is not None else run})


def test_state_arrays_and_node_assignment():
    sim = HPCSimulator(ClusterSpec(nodes=4))
    state = sim.reset(_jobs([0, 0, 0], [10, 20, 30], [2, 1, 4], req=[15, 20, 40]))
    assert state.clock == 0 and list(state.queue) == [0, 1, 2]
    assert state.queue_features.shape == (3, len(QUEUE_FEATURES))
    assert sim.start(0) and sim.start(0)          # jobs 0 (2 nodes) then 1 (1 node)
    assert not sim.start(0)                       # job 2 needs 4 nodes, 1 free
    state = sim.state()
    assert list(state.node_job) == [0, 0, 1, -1]  # lowest-numbered free nodes first
    assert list(state.node_remaining_req) == [15, 15, 20, 0]
    assert list(state.free) == [1]
    feats, mask = state.window(3)
    assert list(mask) == [True, False, False] and feats[0, 0] == 4 and feats[1].sum() == 0
    state = sim.advance()                         # job 0 ends at 10
    assert state.clock == 10 and list(state.node_job) == [-1, -1, 1, -1]
    assert list(state.node_remaining_req) == [0, 0, 10, 0]
    assert state.queue_features[0, QUEUE_FEATURES.index("wait")] == 10


def test_reservation_limits_starts_to_valid_backfills():
    # 4 nodes: job 0 holds 3 nodes until 100 (requested); job 1 (4 nodes) reserved at 100.
    sim = HPCSimulator(ClusterSpec(nodes=4))
    sim.reset(_jobs([0, 0, 0, 0], [100, 10, 50, 200], [3, 4, 1, 1]))
    assert sim.start(0)
    assert sim.reserve(0) == 100 and sim.state().reserved == 1
    # job 3 (200 s) would delay the reservation; job 2 (50 s) ends before it
    assert not sim.start(2)
    assert sim.start(1)
    sim.advance()  # job 2 ends at 50
    assert sim.clock == 50 and not sim.start(1)
    sim.advance()
    assert sim.clock == 100 and sim.start(0)      # the reserved job; the reservation is released
    assert sim.state().reserved == -1
    while not sim.done:
        sim.start(0)
        sim.advance()
    sched = sim.schedule()
    assert list(sched["start_time"]) == [0, 100, 0, 110]


def test_backfill_reserves_head_when_nothing_reserved():
    sim = HPCSimulator(ClusterSpec(nodes=4))
    sim.reset(_jobs([0, 0, 0, 0], [100, 10, 50, 200], [3, 4, 1, 1]))
    sim.start(0)
    assert sim.backfill() == 1 and sim.shadow == 100
    assert list(sim.state().queue) == [1, 3]


def test_time_stepped_mode_ticks_and_releases():
    sim = HPCSimulator(ClusterSpec(nodes=1), sim_step=60)
    sim.reset(_jobs([0, 30], [100, 10], [1, 1]))
    assert sim.start(0)
    assert sim.advance().clock == 60              # job 1 arrived: a decision point
    assert not sim.start(0)
    # no idle node: jump to the tick at which job 0's node is released (first tick >= 100)
    assert sim.advance().clock == 120
    assert sim.start(0)
    sim.advance()
    assert sim.done
    sched = sim.schedule()
    assert list(sched["start_time"]) == [0, 120] and list(sched["end_time"]) == [100, 130]


def test_time_stepped_idle_steps_double():
    # 2 nodes; job 0 (1 node, 1000 s) runs; job 1 needs both nodes: waiting job + idle node.
    sim = HPCSimulator(ClusterSpec(nodes=2), sim_step=60)
    sim.reset(_jobs([0, 0], [1000, 10], [1, 2]))
    sim.start(0)
    clocks = [sim.advance().clock for _ in range(5)]
    assert clocks == [60, 180, 420, 900, 1020]    # steps 60, 120, 240, 480, then 960 stops at job 0's end
    assert sim.start(0)                           # node released on the 1020 tick (the first at or after 1000)
    jump = HPCSimulator(ClusterSpec(nodes=2), sim_step=60, idle_overshoot=True)
    jump.reset(_jobs([0, 0], [1000, 10], [1, 2]))
    jump.start(0)
    assert [jump.advance().clock for _ in range(5)] == [60, 180, 420, 900, 1860]  # the end is seen 860 s late
    fixed = HPCSimulator(ClusterSpec(nodes=2), sim_step=60, double_idle=False)
    fixed.reset(_jobs([0, 0], [1000, 10], [1, 2]))
    fixed.start(0)
    assert [fixed.advance().clock for _ in range(3)] == [60, 120, 180]


def test_start_reserved_and_stall():
    sim = HPCSimulator(ClusterSpec(nodes=2))
    sim.reset(_jobs([0, 0, 5], [10, 10, 1], [2, 2, 1]))
    assert not sim.start_reserved()
    sim.start(0)
    assert sim.reserve(0) == 10 and sim.state().shadow == 10
    assert not sim.start_reserved()
    sim.advance()                                  # arrival at 5: shadow refreshed, still 10
    assert sim.clock == 5 and sim.state().shadow == 10
    assert not sim.start(1)                        # job 2 (1 s) ends by 10 but no node is free
    sim.advance()
    assert sim.clock == 10 and sim.start_reserved() and sim.state().reserved == -1
    sim.advance()
    assert sim.clock == 20
    # job 2 waits on an empty machine with nothing to come: advancing cannot help
    assert sim.stalled and sim.advance().clock == 20
    assert sim.start(0)
    sim.advance()
    assert sim.done and not sim.stalled


def test_bad_arguments():
    with pytest.raises(SchedrlError):
        HPCSimulator(ClusterSpec(nodes=2), sim_step=0)
    sim = HPCSimulator(ClusterSpec(nodes=2))
    sim.reset(_jobs([0], [5], [1]))
    assert not sim.start(3)
    with pytest.raises(IndexError):
        sim.reserve(3)
    with pytest.raises(SchedrlError):
        sim.run_policy("fcfs", "conservative")


def test_idle_doubling_is_capped():
    # 2 nodes: job 0 (1 node) ends at 10; job 1 (2 nodes) is never started by the caller, so it
    # waits on an idle machine with nothing running and nothing left to arrive: only idle-only
    # decision points come. Doubling 60 s steps
    # would pass 1e308 s (inf) within ~1,000 of them; the step stops at max_idle_step.
    sim = HPCSimulator(ClusterSpec(nodes=2), sim_step=60, max_idle_step=3600)
    sim.reset(_jobs([0, 0], [10, 10], [1, 2]))
    sim.start(0)
    clocks = [sim.next_decision_point() for _ in range(3000)]
    steps = np.diff([0.0] + clocks)
    assert np.isfinite(clocks).all() and steps.max() == 3600
    # 60 (job 0's end is seen), then 60, 120, ..., 1920, then 3600 s steps for ever
    assert list(steps[:7]) == [60, 60, 120, 240, 480, 960, 1920] and (steps[7:] == 3600).all()
    assert sim.clock == clocks[-1] and not sim.done
    assert sim.start(0) and sim.next_decision_point() == clocks[-1] + 60 and sim.done
    # default cap: one day; never below sim_step
    assert HPCSimulator(ClusterSpec(nodes=2), sim_step=60).max_idle_step == 86_400
    assert HPCSimulator(ClusterSpec(nodes=2), sim_step=60, max_idle_step=30).max_idle_step == 60
    with pytest.raises(SchedrlError):
        HPCSimulator(ClusterSpec(nodes=2), sim_step=60, max_idle_step=math.inf)


def test_next_decision_point_matches_advance():
    jobs = _jobs([0, 0, 5, 7, 7], [10, 20, 3, 8, 1], [2, 2, 1, 3, 1], req=[12, 20, 4, 9, 2])
    for sim_step in (None, 3.0):
        a, b = HPCSimulator(ClusterSpec(nodes=4), sim_step=sim_step), \
            HPCSimulator(ClusterSpec(nodes=4), sim_step=sim_step)
        a.reset(jobs)
        b.reset(jobs)
        while not a.done:
            for sim in (a, b):
                sim.release()
                while sim.queue and sim.start(0):
                    pass
                if sim.queue:
                    sim.backfill()
            assert a.advance().clock == b.next_decision_point() == b.clock
            assert a.decision_points == b.decision_points
        assert b.done
        np.testing.assert_array_equal(a.start_time, b.start_time)


def test_run_policy_step_limit_by_hand():
    """4 nodes, event-driven FCFS + EASY: j0 (3 nodes, 0-100), j1 (4 nodes) reserved at 100, j2
    (1 node, 50 s) backfills at 0. Steps: start j0, start j2, advance at 0 (j1 waits); advance at 50
    (j2 ends, j1 still waits); start j1 at 100; its end needs no step (queue empty): 5 in all.
    A limit of 2 stops after j2's start: j1 never starts."""
    jobs = _jobs([0, 0, 0], [100, 100, 50], [3, 4, 1])
    sim = HPCSimulator(ClusterSpec(nodes=4))
    sim.reset(jobs)
    full = sim.run_policy("fcfs", "easy")
    assert full["start_time"].tolist() == [0, 100, 0] and sim.policy_steps == 5
    for limit, starts in ((5, [0, 100, 0]), (4, [0, math.nan, 0]), (2, [0, math.nan, 0]),
                          (1, [0, math.nan, math.nan]), (0, [math.nan] * 3)):
        sim.reset(jobs)
        cut = sim.run_policy("fcfs", "easy", max_steps=limit)
        np.testing.assert_array_equal(cut["start_time"].to_numpy(), np.array(starts, dtype=float))
        assert sim.policy_steps == min(limit, 5)
    sim.reset(jobs)
    sim.start(0)  # steps are counted inside run_policy only
    assert sim.policy_steps == 0
    with pytest.raises(SchedrlError, match="max_steps"):
        sim.run_policy("fcfs", "easy", max_steps=-1)


@pytest.mark.parametrize("backfill", ["none", "easy", "greedy"])
def test_run_policy_step_limit_is_a_prefix(backfill):
    """On random jobs, a limit at or above the steps a run spends changes nothing, and a shorter
    limit starts a subset of the full run's jobs at the same times (the run is cut, not changed)."""
    rng = np.random.default_rng(7)
    n = 60
    jobs = _jobs(np.sort(rng.integers(0, 2000, n)), rng.integers(10, 500, n), rng.integers(1, 9, n))
    sim = HPCSimulator(ClusterSpec(nodes=8), sim_step=60, double_idle=False)
    sim.reset(jobs)
    full = sim.run_policy("sjf", backfill)["start_time"].to_numpy()
    steps = sim.policy_steps
    assert steps > n             # one step per start, plus the advances while jobs wait (they do here)
    sim.reset(jobs)
    np.testing.assert_array_equal(sim.run_policy("sjf", backfill, max_steps=steps)["start_time"], full)
    for limit in (steps // 3, steps - 1):
        sim.reset(jobs)
        cut = sim.run_policy("sjf", backfill, max_steps=limit)["start_time"].to_numpy()
        started = ~np.isnan(cut)
        assert sim.policy_steps == limit and started.sum() < n
        np.testing.assert_array_equal(cut[started], full[started])
        if limit == steps - 1:   # the last step starts the last waiting job: one job short
            assert started.sum() == n - 1
