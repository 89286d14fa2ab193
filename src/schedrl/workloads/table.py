"""The one in-memory job table used by every layer.

A workload is a ``pandas.DataFrame`` with one row per job and these columns:

* the 18 fields of the Standard Workload Format, in SWF order, under the names in ``SWF_FIELDS``
  (integers; -1 means missing, as in SWF; times in seconds, submit relative to the trace start);
* optional extension columns ``EXT_FIELDS`` (floats; NaN when absent for a job):
  ``bb_request`` burst-buffer units requested, ``power_per_node`` watts per allocated node,
  ``runtime_estimate`` a predicted runtime in seconds.

Metadata travel in ``frame.attrs``: ``attrs["header"]`` is the SWF ``;`` header as an ordered dict
(e.g. ``MaxNodes``), ``attrs["source"]`` where the jobs came from, ``attrs["cleaning"]`` counts of
each cleaning rule applied. Downstream code (the simulator, encoders) reads the scheduler's view:
``req_procs`` (size), ``req_time`` (walltime) and ``run_time`` (actual runtime), which cleaning
guarantees to be positive.
"""

from __future__ import annotations

SWF_FIELDS: tuple[str, ...] = (
    "job_id",          # 1  job number
    "submit_time",     # 2  seconds since the log's start
    "wait_time",       # 3  seconds
    "run_time",        # 4  seconds, wall clock
    "alloc_procs",     # 5  allocated processors (or nodes)
    "avg_cpu_time",    # 6  average CPU time used per processor
    "used_memory",     # 7  KB per processor
    "req_procs",       # 8  requested processors (or nodes)
    "req_time",        # 9  requested (wall) time, seconds
    "req_memory",      # 10 KB per processor
    "status",          # 11 1 completed, 0 failed, 5 cancelled, ...
    "user_id",         # 12
    "group_id",        # 13
    "executable",      # 14 application number
    "queue",           # 15 queue number (Lublin: 0 interactive, 1 batch)
    "partition",       # 16
    "preceding_job",   # 17
    "think_time",      # 18 seconds after the preceding job ended
)

EXT_FIELDS: tuple[str, ...] = ("bb_request", "power_per_node", "runtime_estimate")

MISSING = -1

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

#: The columns the simulator reads; cleaning guarantees they are positive.
SCHEDULER_FIELDS: tuple[str, ...] = ("submit_time", "req_procs", "req_time", "run_time")


def new_table(n_jobs: int = 0, **columns) -> pd.DataFrame:
    """A job table of ``n_jobs`` rows: every SWF field -1 except those given in ``columns``.

    ``columns`` maps SWF or extension field names to arrays (or scalars) of length ``n_jobs``;
    ``job_id`` defaults to 1..n. SWF fields are int64 unless a given array holds fractions,
    extension fields are float64. ``attrs`` start with an empty header, source "" and no cleaning.
    """
    unknown = set(columns) - set(SWF_FIELDS) - set(EXT_FIELDS)
    if unknown:
        raise ValueError(f"unknown job-table columns: {sorted(unknown)}")
    data = {}
    for name in SWF_FIELDS:
        if name in columns:
            data[name] = _as_swf_column(np.broadcast_to(np.asarray(columns[name]), (n_jobs,)))
        elif name == "job_id":
            data[name] = np.arange(1, n_jobs + 1, dtype=np.int64)
        else:
            data[name] = np.full(n_jobs, MISSING, dtype=np.int64)
    for name in EXT_FIELDS:
        if name in columns:
            data[name] = np.broadcast_to(np.asarray(columns[name], dtype=np.float64), (n_jobs,)).copy()
    frame = pd.DataFrame(data)
    frame.attrs.update(header={}, source="", cleaning={})
    return frame


def _as_swf_column(values: np.ndarray) -> np.ndarray:
    """int64 when every value is integral, else float64 (SWF allows e.g. fractional CPU times)."""
    values = np.asarray(values)
    if values.dtype.kind in "iub":
        return values.astype(np.int64)
    values = values.astype(np.float64)
    if np.all(np.abs(values) < 2**62):  # also False for NaN / inf
        as_int = values.astype(np.int64)
        if np.array_equal(as_int, values):
            return as_int
    return values.copy()


def ext_columns(frame: pd.DataFrame) -> list[str]:
    """Extension (non-SWF) columns present in ``frame``, known ones first in EXT_FIELDS order."""
    known = [c for c in EXT_FIELDS if c in frame.columns]
    other = [c for c in frame.columns if c not in SWF_FIELDS and c not in EXT_FIELDS]
    return known + other


def copy_attrs(src: pd.DataFrame, dst: pd.DataFrame) -> pd.DataFrame:
    """Give ``dst`` a deep copy of ``src.attrs`` (pandas does not propagate attrs everywhere)."""
    import copy

    dst.attrs = copy.deepcopy(dict(src.attrs))
    return dst


def add_note(frame: pd.DataFrame, text: str) -> pd.DataFrame:
    """Append ``text`` as one more ``; Note:`` line of the SWF header (in place; returns ``frame``)."""
    header = dict(frame.attrs.get("header") or {})
    notes = header.get("Note", [])
    notes = list(notes) if isinstance(notes, list) else [notes]
    header["Note"] = notes + [text]
    frame.attrs["header"] = header
    return frame


def machine_size(frame: pd.DataFrame, default: int | None = None) -> int | None:
    """The machine size stated in the header: MaxProcs, else MaxNodes (leading integer), else default.

    Header values such as ``"1664 (72, 1368, 224)"`` give their first integer.
    """
    header = frame.attrs.get("header", {}) or {}
    for key in ("MaxProcs", "MaxNodes"):
        value = header.get(key)
        if isinstance(value, list):
            value = value[0] if value else None
        if value is None:
            continue
        token = str(value).split()
        if token:
            try:
                size = int(float(token[0]))
            except (ValueError, OverflowError):  # not a number, or inf / 1e999
                continue
            if size > 0:
                return size
    return default
