"""Gymnasium environments over the schedrl simulators; importing this package registers them.

* ``schedrl/DeepRM-v0`` -- ``schedrl.envs.deeprm.DeepRMEnv`` (DeepRM time-slot grid).
"""

from __future__ import annotations

import gymnasium as gym

DEEPRM_ID = "schedrl/DeepRM-v0"

if DEEPRM_ID not in gym.registry:
    gym.register(id=DEEPRM_ID, entry_point="schedrl.envs.deeprm:DeepRMEnv")
