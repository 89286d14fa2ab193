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
