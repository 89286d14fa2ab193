"""An env that does no work, for measuring a trainer's own cost (imported by the bench scripts)."""

from __future__ import annotations

import gymnasium as gym
import numpy as np


class NullEnv(gym.Env):
    """The spaces of ``like``; a constant observation, reward 0, episodes of ``length`` steps; every
    action valid (``action_masks``, for MaskablePPO) on a discrete action space."""

    def __init__(self, like: gym.Env, length: int = 200):
        self.observation_space, self.action_space = like.observation_space, like.action_space
        self._obs = np.zeros(self.observation_space.shape, dtype=self.observation_space.dtype)
        self._length, self._t = length, 0

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self._t = 0
        return self._obs, {}

    def step(self, action):
        self._t += 1
        return self._obs, 0.0, False, self._t >= self._length, {}

    def action_masks(self) -> np.ndarray:
        n = getattr(self.action_space, "n", None)
        if n is None:
            raise NotImplementedError(f"no action masks for {self.action_space}")
        return np.ones(int(n), dtype=bool)
