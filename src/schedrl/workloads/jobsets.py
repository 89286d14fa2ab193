"""Training job sets cut, resampled or synthesised from a job table (curriculum training).

Three kinds, each a job table of ``n_jobs`` rows with submit times from 0 and job ids 1..n:

* ``real_jobsets(frame, k, n_jobs)`` -- ``k`` blocks of consecutive jobs, their starts spread
  evenly over the table (the trace as it was, with its bursts and lulls);
* ``sampled_jobset(frame, n_jobs, rng)`` -- jobs drawn at random (without replacement) from the
  table, arriving as a Poisson process at the table's mean rate (the easiest, "averaged" case);
* ``synthetic_jobset(frame, n_jobs, rng)`` -- new jobs: arrivals from a non-homogeneous Poisson
  process whose rate follows the table's hour-of-week profile (hourly and daily cycle), each
  request attribute (nodes with their per-node power; requested walltime with its runtime;
  burst buffer) drawn independently from the table's own values, so combinations the trace never
  held appear (a power draw stays with its node count, so a draw capped to a budget stays within it).

Every other column keeps the sampled row's value; the table's header and notes are kept.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from schedrl.errors import ConfigError
from schedrl.workloads.table import add_note, copy_attrs

__all__ = ["JOBSET_KINDS", "real_jobsets", "sampled_jobset", "synthetic_jobset", "hour_of_week_rates"]

JOBSET_KINDS = ("sampled", "real", "synthetic")
WEEK = 7 * 86_400.0


def _check(frame: pd.DataFrame, n_jobs: int) -> None:
    if n_jobs < 1:
        raise ConfigError(f"a job set needs at least one job, not {n_jobs}")
    if len(frame) < 2:
        raise ConfigError("a job set needs a table of at least two jobs to draw from")


def _finish(frame: pd.DataFrame, rows: pd.DataFrame, submit: np.ndarray, note: str) -> pd.DataFrame:
    out = rows.reset_index(drop=True).copy()
    out["submit_time"] = np.round(np.asarray(submit, dtype=float) - float(np.min(submit)))
    out = out.sort_values("submit_time", kind="stable").reset_index(drop=True)
    out["job_id"] = np.arange(1, len(out) + 1)
    if "wait_time" in out:
        out["wait_time"] = -1
    out = copy_attrs(frame, out)
    add_note(out, note)
    return out


def real_jobsets(frame: pd.DataFrame, k: int, n_jobs: int) -> list[pd.DataFrame]:
    """``k`` blocks of ``n_jobs`` consecutive jobs, starting at evenly spread rows."""
    _check(frame, n_jobs)
    n = len(frame)
    if k < 1:
        raise ConfigError(f"need at least one real job set, not {k}")
    n_jobs = min(n_jobs, n)
    starts = np.linspace(0, n - n_jobs, k).round().astype(int)
    out = []
    for s in starts:
        rows = frame.iloc[s: s + n_jobs]
        out.append(_finish(frame, rows, rows["submit_time"].to_numpy(dtype=float),
                           f"real job set: rows {s + 1}-{s + len(rows)}"))
    return out


def mean_interarrival(frame: pd.DataFrame) -> float:
    t = np.sort(frame["submit_time"].to_numpy(dtype=float))
    gap = (t[-1] - t[0]) / (len(t) - 1)
    if not gap > 0:
        raise ConfigError("the table's jobs all arrive at once: no arrival rate to follow")
    return float(gap)


def sampled_jobset(frame: pd.DataFrame, n_jobs: int, rng: np.random.Generator) -> pd.DataFrame:
    """``n_jobs`` random jobs of the table arriving as a Poisson process at its mean rate."""
    _check(frame, n_jobs)
    idx = np.sort(rng.choice(len(frame), size=min(n_jobs, len(frame)), replace=False))
    gap = mean_interarrival(frame)
    submit = np.cumsum(rng.exponential(gap, size=len(idx)))
    return _finish(frame, frame.iloc[idx], submit,
                   f"sampled job set: {len(idx)} random jobs, Poisson arrivals every {gap:.0f} s on average")


def hour_of_week_rates(frame: pd.DataFrame) -> np.ndarray:
    """Arrivals per second in each of the 168 hours of the week (the table's average)."""
    t = frame["submit_time"].to_numpy(dtype=float)
    start = float(frame.attrs.get("header", {}).get("UnixStartTime", 0) or 0)
    hours = (((t + start) % WEEK) // 3600).astype(int)
    weeks = max((t.max() - t.min()) / WEEK, 1.0 / 168)
    counts = np.bincount(hours, minlength=168).astype(float)
    return counts / weeks / 3600.0


def synthetic_jobset(frame: pd.DataFrame, n_jobs: int, rng: np.random.Generator) -> pd.DataFrame:
    """``n_jobs`` new jobs mimicking the table's weekly arrival profile and request distributions."""
    _check(frame, n_jobs)
    rates = hour_of_week_rates(frame)
    peak = rates.max()
    if not peak > 0:
        raise ConfigError("the table has no arrivals to mimic")
    start = float(frame.attrs.get("header", {}).get("UnixStartTime", 0) or 0)
    # thinning: candidates at the peak rate, each kept with probability rate(hour) / peak
    submit, t = [], float(rng.uniform(0, WEEK))
    while len(submit) < n_jobs:
        t += rng.exponential(1.0 / peak)
        if rng.random() < rates[int(((t + start) % WEEK) // 3600)] / peak:
            submit.append(t)
    n = len(frame)
    rows = frame.iloc[rng.integers(0, n, size=n_jobs)].reset_index(drop=True).copy()
    procs = frame.iloc[rng.integers(0, n, size=n_jobs)]
    for col in ("req_procs", "alloc_procs", "power_per_node"):  # a job's draw stays with its size
        if col in rows:
            rows[col] = procs[col].to_numpy()
    times = frame.iloc[rng.integers(0, n, size=n_jobs)]
    for col in ("req_time", "run_time"):
        rows[col] = times[col].to_numpy()
    for col in ("bb_request",):
        if col in rows:
            rows[col] = frame[col].to_numpy()[rng.integers(0, n, size=n_jobs)]
    return _finish(frame, rows, np.asarray(submit),
                   f"synthetic job set: {n_jobs} jobs, hour-of-week arrival profile, independent "
                   "draws of nodes, walltime/runtime, burst buffer and power")
