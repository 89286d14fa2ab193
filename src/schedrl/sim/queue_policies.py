"""Queue policies: which waiting job the scheduler considers next, and the classic ones (FCFS, SJF
and relatives, each with or without backfilling).

A policy gives every job a static priority key (lower runs first; ties go to the earlier arrival).
The simulator keeps its waiting queue sorted by that key and applies backfilling separately
(``schedrl.sim.core``), so any policy combines with any backfilling mode. The registry lives in the
simulator's layer, which looks policies up by name; ``schedrl.schedulers`` is their public home.
"""


from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from schedrl.errors import SchedrlError


@dataclass(frozen=True)
class QueuePolicy:
    """A named queue order. ``key_fn(jobs)`` maps a ``schedrl.sim.cluster.JobArrays`` to float keys."""

    name: str
    description: str
    key_fn: Callable[[object], np.ndarray]

    def key(self, jobs) -> np.ndarray:
        """Priority key per job (float64, lower first), aligned with ``jobs``' arrays."""
        key = np.asarray(self.key_fn(jobs), dtype=np.float64)
        if key.shape != (len(jobs),):
            raise ValueError(f"policy {self.name} returned {key.shape} keys for {len(jobs)} jobs")
        return key


_REGISTRY: dict[str, QueuePolicy] = {}


def register_policy(policy: QueuePolicy) -> QueuePolicy:
    """Add a policy to the registry (names are unique)."""
    if policy.name in _REGISTRY:
        raise ValueError(f"policy {policy.name!r} already registered")
    _REGISTRY[policy.name] = policy
    return policy


def get_policy(name: str) -> QueuePolicy:
    """The registered policy called ``name``; an unknown name raises ``SchedrlError``."""
    try:
        return _REGISTRY[name]
    except KeyError:
        raise SchedrlError(f"unknown policy '{name}' (known: {', '.join(policy_names())})") from None


def policy_names() -> list[str]:
    return sorted(_REGISTRY)

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
