"""Chronological train / validation / test splits of a trace.

* :func:`sem_split` -- the SEM paper: 60,000 training jobs (100 episodes of 600), the next 1,200
  for validation, the next 6,000 for testing. A trace too short for the requested counts either
  fails (``fit="error"``) or has every count scaled down by the same factor (``fit="shrink"``,
  keeping the number of episodes); the manifest records what was done.
* :func:`load_matched_block` -- a block of ``n`` jobs, out of those before a test part, whose
  offered load (:func:`offered_load`) is closest to the test's: a validation set loaded like the
  test (SEM's issue 37).
* :func:`mrsch_split` -- the MRSch paper: of a five-month log, the first three and a half months
  train, the next two weeks validate, the rest tests (month = 365.25 / 12 days, counted from the
  first submit).

Each part keeps its job ids; with ``rebase=True`` its submit times are shifted to start at 0.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from schedrl.errors import ConfigError
from schedrl.workloads.table import add_note, copy_attrs

__all__ = ["sem_split", "mrsch_split", "MONTH_SECONDS", "take_part", "rebase_submit", "offered_load",
           "load_matched_block", "TRACE_SPLITS", "stand_in_split"]

#: papers whose runs read splits of real traces -> the folder of those splits (one split.json each)
TRACE_SPLITS = {"mrsch": "results/workloads/mrsch", "sem": "results/workloads/sem"}

MONTH_SECONDS = 365.25 / 12 * 86_400
DAY_SECONDS = 86_400


def rebase_submit(frame: pd.DataFrame) -> pd.DataFrame:
    """Shift submit times so the first job arrives at 0, in place; the header's UnixStartTime
    (when it is an integer) moves by the same amount, so absolute times are kept."""
    if len(frame) == 0:
        return frame
    shift = int(frame["submit_time"].iloc[0])
    if shift == 0:
        return frame
    frame["submit_time"] = frame["submit_time"] - shift
    header = dict(frame.attrs.get("header") or {})
    start = header.get("UnixStartTime")
    if isinstance(start, str):
        try:
            header["UnixStartTime"] = str(int(start) + shift)
        except ValueError:
            pass
    frame.attrs["header"] = header
    return frame


def take_part(frame: pd.DataFrame, rows: slice | np.ndarray, label: str, rebase: bool = True) -> pd.DataFrame:
    """Rows of ``frame`` as a new table with a header note (and MaxJobs/MaxRecords updated)."""
    part = copy_attrs(frame, frame.iloc[rows].reset_index(drop=True))
    if rebase:
        rebase_submit(part)
    header = dict(part.attrs.get("header") or {})
    for key in ("MaxJobs", "MaxRecords"):
        if key in header:
            header[key] = str(len(part))
    part.attrs["header"] = header
    return add_note(part, label + (", submit times shifted to start at 0" if rebase else ""))


def sem_split(frame: pd.DataFrame, train_jobs: int = 60_000, episode_jobs: int = 600, val_jobs: int = 1_200,
              test_jobs: int = 6_000, fit: str = "error", rebase: bool = True) -> tuple[dict, dict]:
    """Split into ``{"train", "val", "test"}`` job tables and a manifest (counts, episodes, note)."""
    for key, v in (("train_jobs", train_jobs), ("episode_jobs", episode_jobs), ("val_jobs", val_jobs),
                   ("test_jobs", test_jobs)):
        if not isinstance(v, (int, np.integer)) or v < 1:
            raise ConfigError(f"sem split: {key} must be a positive integer, not {v!r}")
    if train_jobs % episode_jobs:
        raise ConfigError(f"sem split: train_jobs ({train_jobs}) must be a multiple of episode_jobs ({episode_jobs})")
    if fit not in ("error", "shrink"):
        raise ConfigError(f"sem split: fit must be 'error' or 'shrink', not {fit!r}")
    n = len(frame)
    need = train_jobs + val_jobs + test_jobs
    episodes = train_jobs // episode_jobs
    note = ""
    if need > n:
        if fit == "error":
            raise ConfigError(f"sem split needs {need} jobs but the trace has {n} (use fit: shrink)")
        factor = n / need
        episode_jobs = max(1, math.floor(episode_jobs * factor))
        train_jobs = episode_jobs * episodes
        val_jobs = max(1, math.floor(val_jobs * factor))
        test_jobs = max(1, min(math.floor(test_jobs * factor), n - train_jobs - val_jobs))
        if train_jobs + val_jobs + test_jobs > n or test_jobs < 1:
            raise ConfigError(f"sem split: the trace's {n} jobs are too few to split")
        note = f"trace has {n} < {need} jobs: counts scaled by {factor:.4f}"
    bounds = {"train": (0, train_jobs), "val": (train_jobs, train_jobs + val_jobs),
              "test": (train_jobs + val_jobs, train_jobs + val_jobs + test_jobs)}
    parts = {k: take_part(frame, slice(a, b), f"SEM split: {k} = jobs {a + 1}-{b} of {n}", rebase)
             for k, (a, b) in bounds.items()}
    manifest = {
        "scheme": "sem", "input_jobs": n, "episodes": episodes, "episode_jobs": episode_jobs,
        "counts": {k: b - a for k, (a, b) in bounds.items()},
        "rows": {k: [a, b] for k, (a, b) in bounds.items()}, "note": note,
    }
    return parts, manifest


def mrsch_split(frame: pd.DataFrame, train_months: float = 3.5, val_days: float = 14.0,
                total_months: float | None = 5.0, rebase: bool = True) -> tuple[dict, dict]:
    """Split by submit time into ``{"train", "val", "test"}`` and a manifest."""
    if train_months <= 0 or val_days <= 0:
        raise ConfigError("mrsch split: train_months and val_days must be positive")
    if total_months is not None and total_months * MONTH_SECONDS <= train_months * MONTH_SECONDS + val_days * DAY_SECONDS:
        raise ConfigError("mrsch split: total_months leaves no test period")
    n = len(frame)
    if n == 0:
        raise ConfigError("mrsch split: empty trace")
    submit = frame["submit_time"].to_numpy()
    t0 = submit[0]
    t_train = t0 + train_months * MONTH_SECONDS
    t_val = t_train + val_days * DAY_SECONDS
    t_end = t0 + total_months * MONTH_SECONDS if total_months is not None else np.inf
    idx = np.searchsorted(submit, [t_train, t_val, t_end], side="left")
    bounds = {"train": (0, int(idx[0])), "val": (int(idx[0]), int(idx[1])), "test": (int(idx[1]), int(idx[2]))}
    empty = [k for k, (a, b) in bounds.items() if b <= a]
    if empty:
        raise ConfigError(f"mrsch split: the {', '.join(empty)} part(s) would be empty "
                          f"(trace spans {(submit[-1] - t0) / MONTH_SECONDS:.2f} months)")
    parts = {k: take_part(frame, slice(a, b), f"MRSch split: {k} = jobs {a + 1}-{b} of {n}", rebase)
             for k, (a, b) in bounds.items()}
    span = (submit[-1] - t0) / MONTH_SECONDS
    manifest = {
        "scheme": "mrsch", "input_jobs": n, "counts": {k: b - a for k, (a, b) in bounds.items()},
        "rows": {k: [a, b] for k, (a, b) in bounds.items()},
        "months": {"train": train_months, "val_days": val_days, "total": total_months},
        "note": "" if total_months is None or span >= total_months else
        f"trace spans only {span:.2f} months < {total_months}",
    }
    return parts, manifest


def offered_load(table: pd.DataFrame, nodes: int) -> float:
    """Requested node-seconds (run time x size) over the machine's node-seconds between the first
    and the last submission: how loaded a block of jobs keeps the machine (1 = full; NaN for fewer
    than two distinct submit times)."""
    submit = pd.to_numeric(table["submit_time"], errors="coerce").to_numpy(dtype=np.float64)
    run = np.clip(pd.to_numeric(table["run_time"], errors="coerce").to_numpy(dtype=np.float64), 0, None)
    size = np.clip(pd.to_numeric(table["req_procs"], errors="coerce").to_numpy(dtype=np.float64), 0, None)
    span = float(np.nanmax(submit) - np.nanmin(submit)) if len(submit) > 1 else 0.0
    return float(np.nansum(run * size) / (nodes * span)) if span > 0 else float("nan")


def load_matched_block(before: pd.DataFrame, n: int, nodes: int, target: float) -> tuple[int, int]:
    """Rows ``(start, end)`` of the block of ``n`` consecutive jobs of ``before`` (the jobs ahead of a
    test part, in order) whose offered load is closest to ``target``. Candidates end at the last
    row and step back one block length at a time; the latest wins a tie. ConfigError when
    ``before`` holds fewer than ``n`` jobs."""
    best, best_d = None, np.inf
    for end in range(len(before), n - 1, -n):
        d = abs(offered_load(before.iloc[end - n:end], nodes) - target)
        if d < best_d - 1e-12:
            best, best_d = end, d
    if best is None or n <= 0:
        raise ConfigError(f"a load-matched block of {n} jobs needs at least {n} jobs before the test part "
                          f"(there are {len(before)})")
    return best - n, best


def missing_traces(paper: str, config: dict, root=None) -> list[str]:
    """Files of the real traces ``paper`` reads (``workloads.<paper>.trace`` or ``.traces``, keys of
    ``workloads.traces``) that no folder of the config's ``traces.dirs`` holds (relative folders from
    ``root``, the repository): the pipeline would build that paper's splits from a synthetic stand-in.
    Papers that read no trace (not in ``TRACE_SPLITS``) have none."""
    from pathlib import Path

    from schedrl.workloads.traces import find_trace

    if paper not in TRACE_SPLITS:
        return []
    root = Path(root or ".")
    workloads = config.get("workloads", {})
    section = workloads.get(paper, {}) or {}
    keys = [section["trace"]] if "trace" in section else list(section.get("traces", []))
    dirs = [d if Path(d).is_absolute() else root / d for d in config.get("traces", {}).get("dirs", [])]
    files = [workloads.get("traces", {}).get(k, {}).get("file") for k in keys]
    return [f for f in files if f and find_trace(f, dirs) is None]


def stand_in_split(paper: str, root: str | None = None):
    """The first ``split.json`` of ``paper``'s trace splits (``TRACE_SPLITS``, under ``root``: default
    the current folder, where the pipeline runs) that says it was built from a synthetic stand-in for a
    missing trace; None where there is none, or where the paper reads no trace. A run or a study on
    such splits is about another workload than the paper's (the 2026-12-02 mrsch and sem studies ran
    on them in a clone without ../shared)."""
    import json
    from pathlib import Path

    if paper not in TRACE_SPLITS:
        return None
    for manifest in sorted((Path(root or ".") / TRACE_SPLITS[paper]).glob("*/split.json")):
        try:
            if json.loads(manifest.read_text()).get("stand_in", False):
                return manifest
        except (OSError, ValueError, AttributeError):
            continue  # the paper's own reader names a broken split
    return None
