"""Scheduling metrics over a schedule DataFrame, shared by every paper.

A *schedule* has one row per job with at least ``submit_time``, ``start_time``, ``end_time`` and
``req_procs`` (nodes held from start to end); ``bb_request`` and ``power_per_node`` are used when
present. ``schedrl.sim.simulate`` returns one; any other simulator can produce the same columns.

Utilisation spans (``span=``):

* ``"submit"``: [first submit, last end] (the span of the whole experiment; default);
* ``"start"``: [first start, last end] (drops the empty machine before the first job starts);
* ``(t0, t1)``: an explicit window; jobs are clipped to it.

Unless a paper says otherwise, utilisation is used node-seconds / offered node-seconds over the
span, counting each job's nodes from its start to its end.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from schedrl.io import write_csv

MIN_RUNTIME = 1.0
"""Runtimes below this (seconds or time steps) count as this in slowdowns: SWF runtimes are whole
seconds, so 0 means 'under a second' and would otherwise divide by zero."""


def _col(schedule: pd.DataFrame, name: str, default: float = 0.0) -> np.ndarray:
    if name not in schedule.columns:
        return np.full(len(schedule), default, dtype=np.float64)
    values = schedule[name].to_numpy(dtype=np.float64, na_value=np.nan)
    return np.where(np.isnan(values), default, values)


def span_bounds(schedule: pd.DataFrame, span="submit") -> tuple[float, float]:
    """The (t0, t1) window a utilisation is measured over (see the module docstring)."""
    if isinstance(span, tuple | list):
        t0, t1 = float(span[0]), float(span[1])
    elif span == "submit":
        t0, t1 = float(schedule["submit_time"].min()), float(schedule["end_time"].max())
    elif span == "start":
        t0, t1 = float(schedule["start_time"].min()), float(schedule["end_time"].max())
    else:
        raise ValueError(f"unknown span {span!r}: use 'submit', 'start' or (t0, t1)")
    return t0, t1


def _overlap(schedule: pd.DataFrame, t0: float, t1: float) -> np.ndarray:
    """Seconds of each job's [start, end) inside [t0, t1]."""
    start = _col(schedule, "start_time")
    end = _col(schedule, "end_time")
    return np.clip(np.minimum(end, t1) - np.maximum(start, t0), 0.0, None)


def used_node_seconds(schedule: pd.DataFrame, span="submit") -> float:
    t0, t1 = span_bounds(schedule, span)
    return float(np.sum(_col(schedule, "req_procs") * _overlap(schedule, t0, t1)))


def utilization(schedule: pd.DataFrame, nodes: int, span="submit") -> float:
    """Node utilisation: used node-seconds / (nodes x span length)."""
    if len(schedule) == 0:
        return float("nan")
    t0, t1 = span_bounds(schedule, span)
    if t1 <= t0:
        return float("nan")
    return used_node_seconds(schedule, (t0, t1)) / (nodes * (t1 - t0))


def runtime_utilization(schedule: pd.DataFrame, nodes: int) -> float:
    """The runtime paper's utilisation (brief 4.4): node-seconds used by all jobs from the start of
    scheduling (the first submission, when the simulation starts) to the end of the last job,
    divided by the node-seconds the machine offered over that span, i.e. ``span="submit"``."""
    return utilization(schedule, nodes, span="submit")


def bb_utilization(schedule: pd.DataFrame, bb_units: int, span="submit") -> float:
    """Burst-buffer utilisation: used unit-seconds / (units x span length); NaN without a buffer."""
    if not bb_units or len(schedule) == 0:
        return float("nan")
    t0, t1 = span_bounds(schedule, span)
    if t1 <= t0:
        return float("nan")
    used = np.sum(_col(schedule, "bb_request") * _overlap(schedule, t0, t1))
    return float(used / (bb_units * (t1 - t0)))


def mean_power(schedule: pd.DataFrame, nodes: int, idle_power: float = 0.0, span="submit") -> float:
    """Average machine draw in watts over the span: busy nodes draw ``max(power_per_node, idle)``,
    free nodes ``idle_power``."""
    t0, t1 = span_bounds(schedule, span)
    if t1 <= t0:
        return float("nan")
    overlap = _overlap(schedule, t0, t1)
    procs = _col(schedule, "req_procs")
    busy = np.sum(procs * np.maximum(_col(schedule, "power_per_node"), idle_power) * overlap)
    idle = idle_power * (nodes * (t1 - t0) - np.sum(procs * overlap))
    return float((busy + idle) / (t1 - t0))


def power_utilization(schedule: pd.DataFrame, cluster, span="submit") -> float:
    """Average draw (idle nodes included) / power budget; NaN without a budget."""
    if not cluster.power_budget or len(schedule) == 0:
        return float("nan")
    return mean_power(schedule, cluster.nodes, cluster.idle_power, span) / cluster.power_budget


def wait_times(schedule: pd.DataFrame) -> np.ndarray:
    return _col(schedule, "start_time") - _col(schedule, "submit_time")


def mean_wait(schedule: pd.DataFrame) -> float:
    return float(np.mean(wait_times(schedule))) if len(schedule) else float("nan")


def max_wait(schedule: pd.DataFrame) -> float:
    return float(np.max(wait_times(schedule))) if len(schedule) else float("nan")


def _runtimes(schedule: pd.DataFrame) -> np.ndarray:
    return _col(schedule, "end_time") - _col(schedule, "start_time")


def slowdowns(schedule: pd.DataFrame) -> np.ndarray:
    """Per-job slowdown (wait + run) / run (mdp-design eq. 1), run floored at ``MIN_RUNTIME``."""
    run = _runtimes(schedule)
    return (wait_times(schedule) + run) / np.maximum(run, MIN_RUNTIME)


def mean_slowdown(schedule: pd.DataFrame) -> float:
    return float(np.mean(slowdowns(schedule))) if len(schedule) else float("nan")


def bounded_slowdowns(schedule: pd.DataFrame, tau: float = 10.0) -> np.ndarray:
    """Per-job bounded slowdown max((wait + run) / max(run, tau), 1) (Feitelson's tau = 10 s)."""
    run = _runtimes(schedule)
    return np.maximum((wait_times(schedule) + run) / np.maximum(run, tau), 1.0)


def bounded_slowdown(schedule: pd.DataFrame, tau: float = 10.0) -> float:
    """Mean bounded slowdown with a ``tau`` second floor on the runtime."""
    return float(np.mean(bounded_slowdowns(schedule, tau))) if len(schedule) else float("nan")


def mean_completion_time(schedule: pd.DataFrame) -> float:
    """Mean job completion (turnaround) time: end - submit."""
    if not len(schedule):
        return float("nan")
    return float(np.mean(_col(schedule, "end_time") - _col(schedule, "submit_time")))


def makespan(schedule: pd.DataFrame) -> float:
    """Time to complete all jobs: last end - first submit."""
    if not len(schedule):
        return float("nan")
    return float(schedule["end_time"].max() - schedule["submit_time"].min())


def summary(schedule: pd.DataFrame, cluster, span="submit") -> dict:
    """Every metric of a schedule on ``cluster`` (a ``ClusterSpec``) as a JSON-ready dict."""
    t0, t1 = span_bounds(schedule, span) if len(schedule) else (float("nan"), float("nan"))
    out = {
        "jobs": int(len(schedule)),
        "span": span if isinstance(span, str) else "window",
        "span_start": t0,
        "span_end": t1,
        "utilization": utilization(schedule, cluster.nodes, span),
        "utilization_from_first_start": utilization(schedule, cluster.nodes, "start"),
        "mean_wait": mean_wait(schedule),
        "max_wait": max_wait(schedule),
        "mean_slowdown": mean_slowdown(schedule),
        "mean_bounded_slowdown": bounded_slowdown(schedule, 10.0),
        "mean_completion_time": mean_completion_time(schedule),
        "makespan": makespan(schedule),
    }
    if cluster.bb_units:
        out["bb_utilization"] = bb_utilization(schedule, cluster.bb_units, span)
    if cluster.power_budget:
        out["power_utilization"] = power_utilization(schedule, cluster, span)
        out["mean_power_w"] = mean_power(schedule, cluster.nodes, cluster.idle_power, span)
    return {k: (None if isinstance(v, float) and np.isnan(v) else v) for k, v in out.items()}


def write_schedule(path: str | Path, schedule: pd.DataFrame) -> None:
    """Write the per-job schedule CSV (atomically)."""
    write_csv(path, schedule)
