"""Event-driven multi-resource cluster simulator (CQSim-style).

* ``ClusterSpec`` describes the machine (nodes, burst buffer, power budget);
* ``simulate(jobs, cluster, policy, backfill, overrun)`` runs a whole trace with a queue policy and
  a backfilling mode (compiled loop in ``core``) and returns the per-job schedule;
* ``HPCSimulator`` is the step API for learning agents (``stepper``), event-driven or time-stepped.
"""

from schedrl.sim.cluster import ClusterSpec, JobArrays, job_arrays
from schedrl.sim.simulate import SCHEDULE_COLUMNS, simulate
from schedrl.sim.stepper import QUEUE_FEATURES, HPCSimulator, SimState

__all__ = [
    "QUEUE_FEATURES", "SCHEDULE_COLUMNS", "ClusterSpec", "HPCSimulator", "JobArrays", "SimState",
    "job_arrays", "simulate",
]
