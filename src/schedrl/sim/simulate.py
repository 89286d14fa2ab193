"""Whole-trace simulation: a job table in, a per-job schedule out."""

from __future__ import annotations

import numpy as np
import pandas as pd

from schedrl.errors import SchedrlError
from schedrl.sim.cluster import ClusterSpec, JobArrays, job_arrays
from schedrl.sim.core import BACKFILL_CODES, simulate_arrays

SCHEDULE_COLUMNS = (
    "job_id", "submit_time", "start_time", "end_time", "wait_time", "run_time", "req_procs",
    "req_time", "bb_request", "power_per_node", "reservation",
)


def simulate(jobs: pd.DataFrame, cluster: ClusterSpec, policy="fcfs", backfill: str = "easy",
             overrun: str = "kill") -> pd.DataFrame:
    """Run every job of ``jobs`` (the job table) on ``cluster``; return the schedule.

    ``policy`` is a name in ``schedrl.schedulers`` (or a ``QueuePolicy``); ``backfill`` one of
    ``none``, ``easy``, ``conservative`` or ``greedy`` (any job that fits starts, no reservation); ``overrun`` says what happens to a job whose runtime
    exceeds its requested walltime: ``kill`` (ends at the request, as production schedulers do) or
    ``continue`` (runs to its actual runtime).

    The schedule has one row per job, in the input's row order, with ``SCHEDULE_COLUMNS``:
    ``run_time`` is the simulated runtime, ``reservation`` the start time first promised to the job
    by backfilling (NaN if it never had one). ``attrs["sim"]`` records the cluster, options and
    input fixes (e.g. requested times taken from runtimes).
    """
    from schedrl.sim.queue_policies import get_policy

    pol = get_policy(policy) if isinstance(policy, str) else policy
    if backfill not in BACKFILL_CODES:
        raise SchedrlError(f"unknown backfill mode '{backfill}' (use one of {', '.join(BACKFILL_CODES)})")
    arr = job_arrays(jobs, cluster, overrun)
    start, end, res = simulate_arrays(arr.submit, arr.req_time, arr.run_time, arr.demand,
                                      pol.key(arr), cluster.capacity(), BACKFILL_CODES[backfill])
    return schedule_frame(arr, start, end, res, {
        "nodes": cluster.nodes, "bb_units": cluster.bb_units, "power_budget": cluster.power_budget,
        "idle_power": cluster.idle_power, "policy": pol.name, "backfill": backfill,
        "overrun": overrun, "input_fixes": arr.notes,
    })


def schedule_frame(arr: JobArrays, start, end, reservation, info: dict) -> pd.DataFrame:
    """Assemble the schedule DataFrame (input row order) from per-job arrays in ``arr`` order."""
    inverse = np.empty_like(arr.order)
    inverse[arr.order] = np.arange(len(arr.order))
    frame = pd.DataFrame({
        "job_id": arr.job_id,
        "submit_time": arr.submit,
        "start_time": start,
        "end_time": end,
        "wait_time": start - arr.submit,
        "run_time": arr.run_time,
        "req_procs": arr.req_procs,
        "req_time": arr.req_time,
        "bb_request": arr.bb,
        "power_per_node": arr.power,
        "reservation": reservation,
    }).iloc[inverse].reset_index(drop=True)
    frame.attrs["sim"] = dict(info)
    return frame
