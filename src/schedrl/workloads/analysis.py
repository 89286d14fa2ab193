"""Trace analysis behind SEM's encoding choices (sem-encoding.txt, section 3.1 and 3.3).

Pure functions over a *schedule*: a DataFrame with one row per job and the columns
``start_time``, ``end_time`` (seconds) and a size column (``size`` by default; see
``schedule_from_trace``). A job occupies its nodes on the half-open interval
``[start_time, end_time)``, so a job ending at ``t`` and another starting at ``t`` never overlap.

Everything is an event sweep: the schedule's start and end times cut the time axis into intervals
on which the set of running jobs is constant. On each interval we know the number of running jobs,
the allocated nodes and (for the K-largest-job method) the nodes of the K largest running jobs.

Definitions (the paper's, made exact here):

* **Trace period** - from the first job start to the last job end of the schedule. Idle stretches
  inside it count (with 0 running jobs); the time before the first start does not.
* **CDF of running jobs** (Fig. 5) - ``F(c)`` = share of the trace period during which at most
  ``c`` jobs run.
* **Maximum running jobs** (Table 2) - the largest number of jobs running at the same time on an
  interval of positive length (zero-length jobs never count).
* **K-largest coverage** (Fig. 7) - on an interval where jobs run, the nodes of the K largest running
  jobs divided by all allocated nodes; the share of the trace period where that ratio is at least
  90% (95%). An interval with no running job counts as covered (there is nothing to miss), so the
  share is over the whole trace period, as the paper's "out of thirteen months".
* **Node-hour loss** (Table 3) - the paper encodes only the K largest jobs when more than K run, so
  the node-hours of the jobs left out are lost to the state. The loss is
  ``integral over time of (allocated nodes - nodes of the K largest running jobs)`` divided by the
  total node-hours of the schedule (``sum over jobs of nodes x run time``), in percent.
  Ties between equal-sized jobs do not matter: only the sum of the K largest sizes enters.

Units: the paper counts *cores* as the system size for DataStar and Atlas ("their resources are
expressed in the number of cores") and nodes for Theta and Mira. The SWF processor fields of the
DataStar and Atlas logs count processors (cores) and theta_2022.swf counts nodes, so the size column
is used as is: "nodes" below means the trace's own allocation unit, matching the paper.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numba
import numpy as np
import pandas as pd

from schedrl.errors import SchedrlError

PAPER_THRESHOLDS: tuple[float, ...] = (0.90, 0.95)
PAPER_KS: tuple[int, ...] = (30, 40, 50)


# --------------------------------------------------------------------------- schedules
def schedule_from_trace(jobs: pd.DataFrame, *, size: str = "alloc_procs") -> pd.DataFrame:
    """The recorded schedule of a trace: start = submit + wait, end = start + run time.

    ``size`` names the column counting a job's nodes (``alloc_procs``, what the job held);
    where it is missing (-1 or 0) ``req_procs`` is used. Jobs without a wait time, without a
    positive run time or without any size are dropped; ``attrs["dropped"]`` counts them.
    """
    _require(jobs, ("submit_time", "wait_time", "run_time", size))
    nodes = jobs[size].to_numpy(dtype=np.int64)
    if "req_procs" in jobs.columns and size != "req_procs":
        req = jobs["req_procs"].to_numpy(dtype=np.int64)
        nodes = np.where(nodes > 0, nodes, req)
    wait = jobs["wait_time"].to_numpy(dtype=np.int64)
    run = jobs["run_time"].to_numpy(dtype=np.int64)
    keep = (wait >= 0) & (run > 0) & (nodes > 0)
    start = jobs["submit_time"].to_numpy(dtype=np.int64) + wait
    out = pd.DataFrame({
        "job_id": jobs["job_id"].to_numpy()[keep] if "job_id" in jobs.columns else np.flatnonzero(keep) + 1,
        "submit_time": jobs["submit_time"].to_numpy(dtype=np.int64)[keep],
        "start_time": start[keep],
        "end_time": start[keep] + run[keep],
        "size": nodes[keep],
    })
    out.attrs["dropped"] = {
        "no_wait_time": int((wait < 0).sum()),
        "no_run_time": int(((run <= 0) & (wait >= 0)).sum()),
        "no_size": int(((nodes <= 0) & (run > 0) & (wait >= 0)).sum()),
    }
    return out


def schedule_from_simulation(schedule: pd.DataFrame, *, size: str = "req_procs") -> pd.DataFrame:
    """Normalise a simulator output (``schedrl.sim.simulate``) to the analysis columns."""
    _require(schedule, ("start_time", "end_time", size))
    start = schedule["start_time"].to_numpy(dtype=np.int64)
    end = schedule["end_time"].to_numpy(dtype=np.int64)
    nodes = schedule[size].to_numpy(dtype=np.int64)
    keep = (end > start) & (nodes > 0)
    out = pd.DataFrame({
        "job_id": schedule["job_id"].to_numpy()[keep] if "job_id" in schedule.columns else np.flatnonzero(keep) + 1,
        "submit_time": schedule["submit_time"].to_numpy(dtype=np.int64)[keep]
        if "submit_time" in schedule.columns else start[keep],
        "start_time": start[keep],
        "end_time": end[keep],
        "size": nodes[keep],
    })
    out.attrs["dropped"] = {"no_run_time": int((end <= start).sum()), "no_size": int((nodes <= 0).sum())}
    return out


def _require(frame: pd.DataFrame, columns: Iterable[str]) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise SchedrlError(f"schedule lacks column(s) {', '.join(missing)}")


def _arrays(schedule: pd.DataFrame, size: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    _require(schedule, ("start_time", "end_time", size))
    start = schedule["start_time"].to_numpy(dtype=np.int64)
    end = schedule["end_time"].to_numpy(dtype=np.int64)
    nodes = schedule[size].to_numpy(dtype=np.int64)
    if np.any(end < start):
        raise SchedrlError("schedule has a job that ends before it starts")
    if np.any(nodes < 0):
        raise SchedrlError("schedule has a job with a negative size")
    return start, end, nodes


# --------------------------------------------------------------------------- running jobs
def running_jobs(schedule: pd.DataFrame, *, size: str = "size") -> pd.DataFrame:
    """The step functions of running jobs and allocated nodes over the trace period.

    Returns one row per interval of positive length: ``time`` (start), ``duration`` (seconds),
    ``running`` (jobs running on it) and ``allocated`` (their nodes). Vectorised: the +1/-1
    start/end events are bucketed by unique time and summed cumulatively.
    """
    start, end, nodes = _arrays(schedule, size)
    live = end > start  # zero-length jobs occupy nothing
    start, end, nodes = start[live], end[live], nodes[live]
    if start.size == 0:
        return pd.DataFrame({"time": np.zeros(0, np.int64), "duration": np.zeros(0, np.int64),
                             "running": np.zeros(0, np.int64), "allocated": np.zeros(0, np.int64)})
    times, inverse = np.unique(np.concatenate([start, end]), return_inverse=True)
    n = start.size
    d_jobs = np.bincount(inverse, weights=np.concatenate([np.ones(n), -np.ones(n)]), minlength=times.size)
    d_nodes = np.bincount(inverse, weights=np.concatenate([nodes, -nodes]).astype(float), minlength=times.size)
    running = np.cumsum(np.rint(d_jobs).astype(np.int64))[:-1]
    allocated = np.cumsum(np.rint(d_nodes).astype(np.int64))[:-1]
    return pd.DataFrame({"time": times[:-1], "duration": np.diff(times), "running": running,
                         "allocated": allocated})


def running_jobs_cdf(steps: pd.DataFrame) -> pd.DataFrame:
    """Time-weighted CDF of the number of running jobs (Fig. 5) from ``running_jobs`` output.

    One row per observed count ``running`` with ``share`` (share of the trace period with exactly
    that many jobs) and ``cdf`` (share with at most that many).
    """
    if steps.empty:
        return pd.DataFrame({"running": np.zeros(0, np.int64), "share": np.zeros(0), "cdf": np.zeros(0)})
    counts = steps["running"].to_numpy(dtype=np.int64)
    weights = steps["duration"].to_numpy(dtype=float)
    values, inverse = np.unique(counts, return_inverse=True)
    time_at = np.bincount(inverse, weights=weights, minlength=values.size)
    share = time_at / weights.sum()
    cdf = np.cumsum(share)
    cdf[-1] = 1.0  # exact, not 0.9999999999
    return pd.DataFrame({"running": values, "share": share, "cdf": cdf})


def max_running_jobs(steps: pd.DataFrame) -> int:
    """The most jobs running at once on an interval of positive length (Table 2)."""
    return int(steps["running"].max()) if not steps.empty else 0


def running_quantile(cdf: pd.DataFrame, q: float) -> int:
    """The smallest running-job count c with F(c) >= q (e.g. q = 0.99)."""
    if cdf.empty:
        return 0
    idx = int(np.searchsorted(cdf["cdf"].to_numpy(), q - 1e-12, side="left"))
    return int(cdf["running"].to_numpy()[min(idx, len(cdf) - 1)])


# --------------------------------------------------------------------------- K largest jobs
def k_largest_summary(schedule: pd.DataFrame, ks: Sequence[int], *,
                      thresholds: Sequence[float] = PAPER_THRESHOLDS, size: str = "size") -> pd.DataFrame:
    """Coverage and node-hour loss of the K-largest-job encoding for every K in ``ks``.

    Returns one row per K: ``k``, ``share_<pct>`` for each threshold (share of the trace period
    where the K largest running jobs hold at least that share of the allocated nodes),
    ``node_hour_loss_pct`` (see the module docstring) and ``lost_node_hours``. One sweep serves
    every K; cost O(events x (max running + max K)).
    """
    ks_arr = np.asarray(sorted({int(k) for k in ks}), dtype=np.int64)
    if ks_arr.size == 0 or ks_arr[0] < 0:
        raise SchedrlError("K values must be non-negative integers")
    thr = np.asarray(thresholds, dtype=float)
    if np.any((thr <= 0) | (thr > 1)):
        raise SchedrlError("coverage thresholds must be in (0, 1]")
    start, end, nodes = _arrays(schedule, size)
    live = end > start
    start, end, nodes = start[live], end[live], nodes[live]
    ev_time, ev_size, ev_sign = _events(start, end, nodes)
    covered, lost, period = _k_largest_sweep(ev_time, ev_size, ev_sign, ks_arr, thr)
    total_node_seconds = float(np.sum(nodes * (end - start)))
    out = pd.DataFrame({"k": ks_arr})
    for j, t in enumerate(thr):
        out[share_column(t)] = covered[:, j] / period if period > 0 else 1.0
    out["node_hour_loss_pct"] = 100.0 * lost / total_node_seconds if total_node_seconds > 0 else 0.0
    out["lost_node_hours"] = lost / 3600.0
    return out


def k_largest_coverage_steps(schedule: pd.DataFrame, k: int, *, size: str = "size") -> pd.DataFrame:
    """Per-interval coverage of the K largest jobs (for plots and checks): ``running_jobs``
    columns plus ``top_k`` (nodes of the K largest running jobs) and ``coverage`` (top_k /
    allocated; 1 on idle intervals)."""
    start, end, nodes = _arrays(schedule, size)
    live = end > start
    start, end, nodes = start[live], end[live], nodes[live]
    steps = running_jobs(schedule, size=size)
    ev_time, ev_size, ev_sign = _events(start, end, nodes)
    top = _top_k_per_interval(ev_time, ev_size, ev_sign, int(k))
    steps["top_k"] = top
    alloc = steps["allocated"].to_numpy()
    steps["coverage"] = np.where(alloc > 0, top / np.maximum(alloc, 1), 1.0)
    return steps


def share_column(threshold: float) -> str:
    """Name of the coverage column of ``threshold`` in ``k_largest_summary`` (0.9 -> ``share_90``)."""
    return "share_" + f"{round(threshold * 100, 6):g}".replace(".", "_")


def _events(start: np.ndarray, end: np.ndarray, nodes: np.ndarray):
    """Start/end events sorted by time, ends before starts at equal times."""
    n = start.size
    ev_time = np.concatenate([end, start])
    ev_sign = np.concatenate([-np.ones(n, np.int64), np.ones(n, np.int64)])
    ev_size = np.concatenate([nodes, nodes]).astype(np.int64)
    order = np.lexsort((ev_sign, ev_time))
    return ev_time[order], ev_size[order], ev_sign[order]


@numba.njit(cache=True)
def _apply(active, count, size, sign):
    """Insert (sign +1) or remove (sign -1) ``size`` in the ascending ``active[:count]``."""
    pos = np.searchsorted(active[:count], size)
    # shift in place with plain loops: no temporary array per event on this hot path
    if sign > 0:
        for j in range(count, pos, -1):
            active[j] = active[j - 1]
        active[pos] = size
        return count + 1
    for j in range(pos, count - 1):
        active[j] = active[j + 1]
    return count - 1


@numba.njit(cache=True)
def _k_largest_sweep(ev_time, ev_size, ev_sign, ks, thr):
    n_ev = ev_time.size
    active = np.zeros(n_ev // 2 + 1, np.int64)
    count = 0
    allocated = 0
    covered = np.zeros((ks.size, thr.size))
    lost = np.zeros(ks.size)
    period = 0.0
    kmax = ks[-1]
    for i in range(n_ev):
        count = _apply(active, count, ev_size[i], ev_sign[i])
        allocated += ev_sign[i] * ev_size[i]
        if i + 1 >= n_ev or ev_time[i + 1] == ev_time[i]:
            continue
        dt = float(ev_time[i + 1] - ev_time[i])
        period += dt
        if allocated == 0:
            for a in range(ks.size):
                for b in range(thr.size):
                    covered[a, b] += dt
            continue
        # walk the largest jobs downwards, reading the prefix sums at each requested K
        top = 0
        a = 0
        while a < ks.size and ks[a] == 0:  # K = 0 encodes nothing
            _score(covered, lost, a, 0, allocated, dt, thr)
            a += 1
        for rank in range(1, min(kmax, count) + 1):
            top += active[count - rank]
            while a < ks.size and ks[a] == rank:
                _score(covered, lost, a, top, allocated, dt, thr)
                a += 1
        while a < ks.size:  # K at or above the running count: everything covered
            _score(covered, lost, a, top, allocated, dt, thr)
            a += 1
    return covered, lost, period


@numba.njit(cache=True)
def _score(covered, lost, a, top, allocated, dt, thr):
    lost[a] += (allocated - top) * dt
    for b in range(thr.size):
        # relative slack guards against thr * allocated rounding just above an exact hit
        if top >= thr[b] * allocated * (1.0 - 1e-12):
            covered[a, b] += dt


@numba.njit(cache=True)
def _top_k_per_interval(ev_time, ev_size, ev_sign, k):
    n_ev = ev_time.size
    active = np.zeros(n_ev // 2 + 1, np.int64)
    out = np.zeros(max(n_ev - 1, 0), np.int64)
    count = 0
    j = 0
    for i in range(n_ev):
        count = _apply(active, count, ev_size[i], ev_sign[i])
        if i + 1 >= n_ev or ev_time[i + 1] == ev_time[i]:
            continue
        top = 0
        for rank in range(1, min(k, count) + 1):
            top += active[count - rank]
        out[j] = top
        j += 1
    return out[:j]
