"""Classic priority functions that RL-scheduling papers compare against, as schedrl user policies.

Each is a queue-order function ``f(jobs) -> keys`` (lower runs first; see ``schedrl.score.policy``
for what ``jobs`` holds): ``schedrl score examples/priorities.py:wfp3``. With waits ``w``, requested
times ``r``, sizes ``n`` and submit times ``s`` of the waiting jobs:

* ``wfp3`` (Tang et al., "Fault-aware, utility-based job scheduling on Blue Gene/P systems",
  CLUSTER 2009): utility ``(w / r)^3 * n``, highest first: long-waiting jobs climb fast, large
  ones faster.
* ``unicef`` (same paper): utility ``w / (log2(n) * r)``, highest first: favours small, short
  jobs. ``log2(1) = 0`` makes a one-node job's utility infinite once it waits; we floor the
  logarithm at a tiny constant, so waiting one-node jobs go first (shortest request first among them).
* ``f1`` (Carastan-Dos-Santos and de Camargo, "Obtaining dynamic scheduling policies with
  simulation and machine learning", SC'17): the learnt score ``log10(r) * n + 870 * log10(s)``,
  lowest first. ``s`` is the submit time in seconds from the trace's start (floored at 1 s so that
  the first job's logarithm exists).

Requests are floored at 1 s (a zero request would divide by zero). These are the formulas as the
RL-scheduling literature (e.g. RLScheduler, SC'20) restates them, not code from any repository.
"""

import numpy as np

TINY = 1e-6


def wfp3(jobs):
    r = np.maximum(jobs.req_time, 1.0)
    return -((jobs.wait / r) ** 3) * jobs.req_procs


def unicef(jobs):
    r = np.maximum(jobs.req_time, 1.0)
    log_n = np.maximum(np.log2(np.maximum(jobs.req_procs, 1.0)), TINY)
    return -jobs.wait / (log_n * r)


def f1(jobs):
    r = np.maximum(jobs.req_time, 1.0)
    s = np.maximum(jobs.submit, 1.0)
    return np.log10(r) * jobs.req_procs + 870.0 * np.log10(s)
