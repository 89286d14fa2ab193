"""Named workload presets and the machine constants of the papers' systems.

Other layers import the machine constants and presets from here. Data flows one way: the machines
(``schedrl.workloads.machines``) -> the Lublin model and its named parameter sets
(``schedrl.workloads.lublin``) -> this module, which adds the stand-ins for missing real traces.
"""

from __future__ import annotations

from schedrl.errors import ConfigError
from schedrl.workloads.lublin import LUBLIN_PRESETS, lublin_preset
from schedrl.workloads.machines import DATASTAR, LUBLIN256, MACHINES, THETA, Machine

__all__ = ["Machine", "MACHINES", "THETA", "DATASTAR", "LUBLIN256", "LUBLIN_PRESETS", "lublin_preset",
           "STAND_INS", "stand_in_for"]

# Real trace -> the preset standing in for it when the file is missing.
STAND_INS = {
    "theta_2022.swf": "theta_like",
    "SDSC-DS-2004-2.1-cln.swf.gz": "datastar_like",
    "lublin_256.swf": "lublin256",
}


def stand_in_for(trace_name: str) -> str:
    try:
        return STAND_INS[trace_name]
    except KeyError:
        raise ConfigError(f"no stand-in preset for trace '{trace_name}' (known: {', '.join(STAND_INS)})") from None
