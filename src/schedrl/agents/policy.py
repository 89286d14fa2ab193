"""A trained SB3 model as a plain policy function ``policy(obs, env) -> action``.

Baseline heuristics and trained agents are then evaluated by the same rollout code. Maskable
algorithms get the env's current action mask; others act on the observation alone.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


def model_policy(model, *, deterministic: bool = True, masked: bool = False) -> Callable:
    """Wrap ``model.predict``; ``masked`` passes ``env.action_masks()`` (MaskablePPO)."""

    def policy(obs, env=None):
        kwargs = {}
        if masked and env is not None:
            kwargs["action_masks"] = np.asarray(env.get_wrapper_attr("action_masks")())
        action, _ = model.predict(obs, deterministic=deterministic, **kwargs)
        return action

    policy.__name__ = type(model).__name__.lower()
    return policy
