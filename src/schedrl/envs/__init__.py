"""Gymnasium environments over the schedrl simulators; importing this package registers them.

* ``schedrl/DeepRM-v0`` -- ``schedrl.envs.deeprm.DeepRMEnv`` (DeepRM time-slot grid).
* ``schedrl/HPC-v0`` -- ``schedrl.envs.hpc.HPCEnv`` (event-driven HPC scheduling: DRAS, SEM, MRSch, runtime).
"""

from __future__ import annotations

import gymnasium as gym

DEEPRM_ID = "schedrl/DeepRM-v0"

if DEEPRM_ID not in gym.registry:
    gym.register(id=DEEPRM_ID, entry_point="schedrl.envs.deeprm:DeepRMEnv")

HPC_ID = "schedrl/HPC-v0"

if HPC_ID not in gym.registry:
    gym.register(id=HPC_ID, entry_point="schedrl.envs.hpc:HPCEnv")
