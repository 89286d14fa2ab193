"""Test helper: play one episode of an HPC env with uniformly random valid actions."""

from __future__ import annotations

import numpy as np


def random_episode(env, seed: int = 0) -> tuple[float, dict]:
    """Reset ``env`` and play to the end with actions drawn uniformly among the valid ones
    (``env.action_masks()``, a generator seeded with ``seed``); returns (summed reward, last info)."""
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    total, term, info = 0.0, False, {}
    while not term:
        *_, r, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        total += r
    return total, info
