"""Classic queue orders: FCFS, SJF and relatives (all with or without backfilling); defined with the
registry in ``schedrl.sim.queue_policies`` and named here, their public home (policy specs such as
``schedrl.schedulers.queue_policies:SAF``)."""

from schedrl.sim.queue_policies import FCFS, LIST, LJF, SAF, SJF, SQF

__all__ = ["FCFS", "LIST", "LJF", "SAF", "SJF", "SQF"]
