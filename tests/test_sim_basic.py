"""simulate(): options, resource dimensions, input checks."""

import numpy as np
import pandas as pd
import pytest

from schedrl.errors import SchedrlError
from schedrl.sim import SCHEDULE_COLUMNS, ClusterSpec, simulate


def _jobs(submit, run, procs, req=None, **ext):
    n = len(submit)
    frame = pd.DataFrame({
        "job_id": np.arange(1, n + 1), "submit_time": submit, "run_time": run,
        "req_procs": procs, "req_time": req if req is not None else run,
    })
    for key, values in ext.items():
        frame[key] = values
    return frame


def test_schedule_columns_and_input_order():
    jobs = _jobs([5, 0, 0], [10, 10, 10], [1, 1, 1])
    sched = simulate(jobs, ClusterSpec(nodes=1), "fcfs", "none")
    assert tuple(sched.columns) == SCHEDULE_COLUMNS
    assert list(sched["job_id"]) == [1, 2, 3]  # the input's row order
    # arrival order is by submit time, ties by row: job 2, job 3, job 1
    assert list(sched["start_time"]) == [20, 0, 10]
    assert sched.attrs["sim"]["policy"] == "fcfs"


def test_easy_backfills_short_job_only():
    # 4 nodes. Job 1 holds 3 nodes for 100 s; job 2 (4 nodes) is reserved at t=100.
    # Job 3 (1 node, 50 s) ends before the shadow and backfills; job 4 (1 node, 200 s) would
    # delay job 2 and must wait; with no backfilling job 3 waits too.
    jobs = _jobs([0, 1, 2, 3], [100, 10, 50, 200], [3, 4, 1, 1])
    easy = simulate(jobs, ClusterSpec(nodes=4), "fcfs", "easy")
    assert list(easy["start_time"]) == [0, 100, 2, 110]
    assert easy["reservation"][1] == 100
    none = simulate(jobs, ClusterSpec(nodes=4), "fcfs", "none")
    assert list(none["start_time"]) == [0, 100, 110, 110]


def test_easy_extra_resources_backfill_long_job():
    # 4 nodes; job 1 3 nodes 100 s; job 2 needs 2 nodes -> shadow 100, extra 4 - 2 = 2 nodes.
    # Job 3 (1 node, 500 s) does not end before 100 but fits in the extra: backfilled.
    jobs = _jobs([0, 1, 2], [100, 10, 500], [3, 2, 1])
    easy = simulate(jobs, ClusterSpec(nodes=4), "fcfs", "easy")
    assert list(easy["start_time"]) == [0, 100, 2]


def test_easy_checks_every_dimension():
    # Same as above but job 3 needs all the burst buffer the head will need at the shadow time.
    jobs = _jobs([0, 1, 2], [100, 10, 500], [3, 2, 1], bb_request=[0.0, 6.0, 5.0])
    easy = simulate(jobs, ClusterSpec(nodes=4, bb_units=10), "fcfs", "easy")
    assert list(easy["start_time"]) == [0, 100, 110]


def test_sjf_orders_by_requested_time():
    jobs = _jobs([0, 1, 1, 1], [100, 30, 20, 10], [4, 4, 4, 4], req=[100, 30, 20, 50])
    sched = simulate(jobs, ClusterSpec(nodes=4), "sjf", "none")
    assert list(sched["start_time"]) == [0, 120, 100, 150]


def test_power_budget_counts_idle_nodes():
    # 4 nodes, idle 10 W, budget 250 W: head room above idle = 210 W.
    # Job 1: 2 nodes at 100 W -> +180 W; job 2: 1 node at 50 W -> +40 W; together 220 > 210.
    jobs = _jobs([0, 0], [10, 10], [2, 1], power_per_node=[100.0, 50.0])
    sched = simulate(jobs, ClusterSpec(nodes=4, power_budget=250, idle_power=10), "fcfs", "easy")
    assert list(sched["start_time"]) == [0, 10]
    roomy = simulate(jobs, ClusterSpec(nodes=4, power_budget=260, idle_power=10), "fcfs", "easy")
    assert list(roomy["start_time"]) == [0, 0]
    # a job drawing less than idle costs nothing
    low = _jobs([0, 0], [10, 10], [2, 2], power_per_node=[5.0, 5.0])
    assert list(simulate(low, ClusterSpec(nodes=4, power_budget=40, idle_power=10))["start_time"]) == [0, 0]


def test_overrun_kill_or_continue():
    jobs = _jobs([0, 0], [50, 10], [1, 1], req=[20, 10])
    kill = simulate(jobs, ClusterSpec(nodes=1), "fcfs", "easy", overrun="kill")
    assert list(kill["end_time"]) == [20, 30] and kill.attrs["sim"]["input_fixes"]["killed_at_walltime"] == 1
    cont = simulate(jobs, ClusterSpec(nodes=1), "fcfs", "easy", overrun="continue")
    assert list(cont["end_time"]) == [50, 60]
    cons = simulate(jobs, ClusterSpec(nodes=1), "fcfs", "conservative", overrun="continue")
    assert list(cons["end_time"]) == [50, 60]


def test_missing_walltime_uses_runtime():
    jobs = _jobs([0, 0], [50, 10], [1, 1], req=[-1, 10])
    sched = simulate(jobs, ClusterSpec(nodes=1), "sjf", "none")
    assert list(sched["req_time"]) == [50, 10]
    assert sched.attrs["sim"]["input_fixes"]["walltime_from_runtime"] == 1


def test_user_errors():
    jobs = _jobs([0], [10], [5])
    with pytest.raises(SchedrlError, match="job 1 needs more nodes"):
        simulate(jobs, ClusterSpec(nodes=4))
    with pytest.raises(SchedrlError, match="unknown policy"):
        simulate(jobs, ClusterSpec(nodes=8), policy="nope")
    with pytest.raises(SchedrlError, match="unknown backfill"):
        simulate(jobs, ClusterSpec(nodes=8), backfill="aggressive")
    with pytest.raises(SchedrlError, match="overrun"):
        simulate(jobs, ClusterSpec(nodes=8), overrun="stop")
    with pytest.raises(SchedrlError):
        ClusterSpec(nodes=0)
    with pytest.raises(SchedrlError, match="no valid submit time"):
        simulate(_jobs([np.nan], [10], [1]), ClusterSpec(nodes=8))
    with pytest.raises(SchedrlError, match="no valid runtime"):
        simulate(_jobs([0], [np.nan], [1]), ClusterSpec(nodes=8))
    with pytest.raises(SchedrlError, match="burst"):
        simulate(_jobs([0], [10], [1], bb_request=[20.0]), ClusterSpec(nodes=8, bb_units=10))


def test_empty_workload():
    sched = simulate(_jobs([], [], []), ClusterSpec(nodes=4))
    assert len(sched) == 0 and tuple(sched.columns) == SCHEDULE_COLUMNS


def test_greedy_starts_whatever_fits():
    # EASY protects job 2 (4 nodes) at t=100 (test_easy_backfills_short_job_only). Greedy list
    # scheduling starts job 3 at 2 and, when it ends at 52, the 200 s job 4 on the freed node:
    # job 2 then waits until 252 (a large job can starve).
    jobs = _jobs([0, 1, 2, 3], [100, 10, 50, 200], [3, 4, 1, 1])
    greedy = simulate(jobs, ClusterSpec(nodes=4), "fcfs", "greedy")
    assert list(greedy["start_time"]) == [0, 252, 2, 52]
    assert greedy["reservation"].isna().all()
