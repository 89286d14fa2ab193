"""Gymnasium environments over the schedrl simulators; importing this package registers them.

* ``schedrl/DeepRM-v0`` -- ``schedrl.envs.deeprm.DeepRMEnv`` (DeepRM's time-slot grid).
* ``schedrl/HPCPickReserve-v0`` -- ``schedrl.envs.pick_reserve.PickReserveEnv``: event-driven HPC
  scheduling where a pick starts the job or reserves it while EASY backfilling runs.
* ``schedrl/HPCTimeStepped-v0`` -- ``schedrl.envs.time_stepped.TimeSteppedPickEnv``: ticks of
  ``sim_step`` seconds, a pick starts the job if it fits, advance rules move the clock.
* ``schedrl/HPC-v0`` -- either of the two by ``decision="pick_reserve" | "time_stepped"``.

``jobset_count(env)``: how many fixed job sets an env cycles through (None: a new workload per episode).
"""

from __future__ import annotations

import gymnasium as gym

DEEPRM_ID = "schedrl/DeepRM-v0"
PICK_RESERVE_ID = "schedrl/HPCPickReserve-v0"
TIME_STEPPED_ID = "schedrl/HPCTimeStepped-v0"
HPC_ID = "schedrl/HPC-v0"
DECISIONS = {"pick_reserve": "schedrl.envs.pick_reserve:PickReserveEnv",
             "time_stepped": "schedrl.envs.time_stepped:TimeSteppedPickEnv"}


def jobset_count(env) -> int | None:
    """How many fixed job sets ``env`` cycles through (reset with ``options={"jobset": k}``), or
    ``None`` for an env that draws a new workload every episode."""
    base = env.unwrapped
    if getattr(base, "num_jobsets", None) is None or getattr(base, "_jobsets", None) is None:
        return None
    return int(base.num_jobsets)


def make_hpc_env(decision: str = "pick_reserve", **kwargs):
    """The HPC env of decision process ``decision`` (``pick_reserve`` or ``time_stepped``)."""
    import importlib

    from schedrl.errors import ConfigError

    if decision not in DECISIONS:
        raise ConfigError(f"unknown decision process '{decision}' (choose from: {', '.join(DECISIONS)})")
    module, _, name = DECISIONS[decision].partition(":")
    return getattr(importlib.import_module(module), name)(**kwargs)


for _id, _entry in ((DEEPRM_ID, "schedrl.envs.deeprm:DeepRMEnv"), (PICK_RESERVE_ID, DECISIONS["pick_reserve"]),
                    (TIME_STEPPED_ID, DECISIONS["time_stepped"]), (HPC_ID, "schedrl.envs:make_hpc_env")):
    if _id not in gym.registry:
        gym.register(id=_id, entry_point=_entry)
