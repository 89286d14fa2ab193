"""The queue-policy interface: which waiting job the scheduler considers next.

A policy gives every job a static priority key (lower runs first; ties go to the earlier arrival).
The simulator keeps its waiting queue sorted by that key and applies backfilling separately
(``schedrl.sim.core``), so any policy combines with any backfilling mode.
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
