"""Cleaning rules for job tables, each one counted in ``attrs["cleaning"]``.

The rules common in the field (PWA conventions, RLScheduler / CQSim / sched-rl-gym loaders), in the
order applied:

1. ``filled_req_procs`` / ``filled_req_time``: a missing (<= 0) requested size or time falls back
   to the allocated size or actual runtime (``fill_requests=True``).
2. ``dropped_missing_submit``: jobs without a submit time (< 0) are dropped.
3. ``dropped_nonpositive_runtime``, ``dropped_nonpositive_size``: jobs whose runtime or size is
   still <= 0 (missing or zero) are dropped; a zero-length or empty job cannot be scheduled.
4. ``oversize_dropped`` / ``oversize_clipped``: jobs asking for more than ``max_procs`` (default:
   the header's MaxProcs, else MaxNodes) are dropped (``oversize="drop"``), clipped to the
   machine (``"clip"``, allocated size too), or stop the read (``"error"``).
5. ``over_request_raised`` / ``over_request_kept`` / ``over_request_dropped``: a runtime longer
   than the requested time is kept so the simulator kills the job at its limit (``over_request=
   "keep"``, the default: the PWA convention, used by the API, every CLI command and the pipeline
   alike), raises the request to the runtime (``"raise"``, RLScheduler's loader), or is dropped
   (``"drop"``).
6. ``sorted``: 1 when submit times were out of order and the table was stably sorted (a warning is
   issued); job ids are kept.

Every count is present (0 when the rule did nothing), so reports can list them all.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from schedrl.errors import ConfigError, InputFileError
from schedrl.workloads.table import copy_attrs, machine_size

OVERSIZE_MODES = ("drop", "clip", "error")
OVER_REQUEST_MODES = ("raise", "keep", "drop")
CLEANING_KEYS = (
    "input_jobs",
    "filled_req_procs",
    "filled_req_time",
    "dropped_missing_submit",
    "dropped_nonpositive_runtime",
    "dropped_nonpositive_size",
    "oversize_dropped",
    "oversize_clipped",
    "over_request_raised",
    "over_request_kept",
    "over_request_dropped",
    "sorted",
    "output_jobs",
)


class UnsortedSubmitWarning(UserWarning):
    """Submit times were out of order; the table was sorted."""


def clean_jobs(
    frame: pd.DataFrame,
    *,
    max_procs: int | None = None,
    oversize: str = "drop",
    over_request: str = "keep",
    fill_requests: bool = True,
    sort: bool = True,
    source: str | Path | None = None,
) -> pd.DataFrame:
    """Apply the cleaning rules to a copy of ``frame``; counts go to ``attrs["cleaning"]``."""
    if oversize not in OVERSIZE_MODES:
        raise ConfigError(f"oversize must be one of {', '.join(OVERSIZE_MODES)}, not {oversize!r}")
    if over_request not in OVER_REQUEST_MODES:
        raise ConfigError(f"over_request must be one of {', '.join(OVER_REQUEST_MODES)}, not {over_request!r}")
    source = source if source is not None else frame.attrs.get("source", "<table>")
    counts = dict.fromkeys(CLEANING_KEYS, 0)
    counts["input_jobs"] = len(frame)
    out = frame.copy()
    for col in ("req_procs", "req_time", "run_time", "alloc_procs", "submit_time"):
        out[col] = out[col].to_numpy()  # own the arrays (copy-on-write friendly in-place edits below)

    if fill_requests:
        rp, ap = out["req_procs"].to_numpy(), out["alloc_procs"].to_numpy()
        fill = (rp <= 0) & (ap > 0)
        counts["filled_req_procs"] = int(fill.sum())
        out["req_procs"] = np.where(fill, ap, rp).astype(rp.dtype)
        rt, run = out["req_time"].to_numpy(), out["run_time"].to_numpy()
        fill = (rt <= 0) & (run > 0)
        counts["filled_req_time"] = int(fill.sum())
        out["req_time"] = np.where(fill, run, rt).astype(rt.dtype)
        if len(out) and fill.sum() > 0.5 * len(out):
            # e.g. a conversion that put the walltime in another field: estimates would be perfect
            print(f"schedrl: warning: {source}: {int(fill.sum())} of {len(out)} jobs have no requested time; "
                  "it is set to the run time (perfect estimates)", file=sys.stderr)

    keep = out["submit_time"].to_numpy() >= 0
    counts["dropped_missing_submit"] = int((~keep).sum())
    bad_run = keep & (out["run_time"].to_numpy() <= 0)
    counts["dropped_nonpositive_runtime"] = int(bad_run.sum())
    keep &= ~bad_run
    bad_size = keep & (out["req_procs"].to_numpy() <= 0)
    counts["dropped_nonpositive_size"] = int(bad_size.sum())
    keep &= ~bad_size
    out = out[keep]

    size = max_procs if max_procs is not None else machine_size(frame)
    if size is not None:
        if size <= 0:
            raise ConfigError(f"max_procs must be positive, not {size}")
        big = out["req_procs"].to_numpy() > size
        if big.any():
            if oversize == "error":
                row = int(np.flatnonzero(big)[0])
                job = int(out["job_id"].iloc[row])
                raise InputFileError(source, f"job {job} requests {int(out['req_procs'].iloc[row])} "
                                             f"processors, more than the machine's {size}")
            if oversize == "drop":
                counts["oversize_dropped"] = int(big.sum())
                out = out[~big]
            else:
                counts["oversize_clipped"] = int(big.sum())
                out["req_procs"] = np.minimum(out["req_procs"].to_numpy(), size)
                ap = out["alloc_procs"].to_numpy()
                out["alloc_procs"] = np.where(ap > size, size, ap)

    rt, run = out["req_time"].to_numpy(), out["run_time"].to_numpy()
    over = (rt > 0) & (run > rt)
    if over.any():
        if over_request == "raise":
            counts["over_request_raised"] = int(over.sum())
            out["req_time"] = np.where(over, run, rt).astype(np.result_type(rt, run))
        elif over_request == "keep":
            counts["over_request_kept"] = int(over.sum())
        else:
            counts["over_request_dropped"] = int(over.sum())
            out = out[~over]

    if sort:
        submit = out["submit_time"].to_numpy()
        if submit.size > 1 and np.any(np.diff(submit) < 0):
            warnings.warn(f"{source}: submit times are not sorted; sorting the jobs by submit time",
                          UnsortedSubmitWarning, stacklevel=2)
            counts["sorted"] = 1
            out = out.iloc[np.argsort(submit, kind="stable")]

    out = out.reset_index(drop=True)
    copy_attrs(frame, out)
    counts["output_jobs"] = len(out)
    out.attrs["cleaning"] = counts
    return out


def cleaning_summary(frame: pd.DataFrame) -> str:
    """One line listing the non-zero cleaning counts of a table (for logs)."""
    counts = frame.attrs.get("cleaning") or {}
    parts = [f"{k}={v}" for k, v in counts.items() if v and k not in ("input_jobs", "output_jobs")]
    head = f"{counts.get('input_jobs', len(frame))} -> {counts.get('output_jobs', len(frame))} jobs"
    return head + (": " + ", ".join(parts) if parts else ": no changes")
