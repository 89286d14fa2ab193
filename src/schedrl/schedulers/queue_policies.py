"""Classic queue orders: FCFS, SJF and relatives (all with or without backfilling)."""

from __future__ import annotations

import numpy as np

from schedrl.schedulers.base import QueuePolicy, register_policy

FCFS = register_policy(QueuePolicy(
    "fcfs", "first come, first served: by submit time", lambda jobs: jobs.submit))
SJF = register_policy(QueuePolicy(
    "sjf", "shortest job first by requested walltime (ties: arrival)", lambda jobs: jobs.req_time))
LJF = register_policy(QueuePolicy(
    "ljf", "longest requested walltime first", lambda jobs: -jobs.req_time))
SAF = register_policy(QueuePolicy(
    "saf", "smallest area (requested nodes x walltime) first",
    lambda jobs: jobs.req_procs.astype(np.float64) * jobs.req_time))
SQF = register_policy(QueuePolicy(
    "sqf", "smallest requested node count first", lambda jobs: jobs.req_procs.astype(np.float64)))
# MRSch's "Heuristic" baseline: FCFS extended to several resources, a list-scheduling method. The
# queue order is FCFS; the cluster's extra dimensions (burst buffer, power) make it multi-resource.
LIST = register_policy(QueuePolicy(
    "list", "multi-resource FCFS list scheduling (MRSch's heuristic): arrival order, every "
    "resource dimension checked", lambda jobs: jobs.submit))
