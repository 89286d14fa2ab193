"""Named workload presets and the machine constants of the papers' systems.

Other layers import the machine constants from here (one place): Theta's node count and the MRSch
burst buffer and power budget, DataStar's processor count, the runtime paper's 256 nodes.
"""

from __future__ import annotations

from dataclasses import dataclass

from schedrl.errors import ConfigError
from schedrl.workloads.lublin import LublinParams

__all__ = ["Machine", "MACHINES", "THETA", "DATASTAR", "LUBLIN256", "LUBLIN_PRESETS", "lublin_preset",
           "STAND_INS", "stand_in_for"]


@dataclass(frozen=True)
class Machine:
    """A machine's schedulable capacities.

    ``bb_units`` / ``bb_unit_tb``: burst buffer in allocation units and terabytes per unit;
    ``node_idle_watts`` / ``power_budget_watts``: the power model of MRSch's case study (S6-S10).
    """

    name: str
    nodes: int
    bb_units: int = 0
    bb_unit_tb: float = 0.0
    node_idle_watts: float = 0.0
    node_watts_range: tuple[float, float] = (0.0, 0.0)
    power_budget_watts: float = 0.0

    @property
    def bb_capacity_tb(self) -> float:
        return self.bb_units * self.bb_unit_tb


# MRSch (Theta): 4,360 KNL nodes; a shared 1.26 PB burst buffer, which the paper's state size
# 4W + 2*N1 + 2*N2 = 11,410 with W = 10, N1 = 4,360 puts at N2 = 1,325 units (so ~0.951 TB/unit);
# per-node power U(100, 215) W (215 W = KNL 7230 TDP), idle node 60 W, system budget 500 kW.
THETA = Machine(
    name="theta",
    nodes=4360,
    bb_units=1325,
    bb_unit_tb=1260.0 / 1325,
    node_idle_watts=60.0,
    node_watts_range=(100.0, 215.0),
    power_budget_watts=500_000.0,
)
DATASTAR = Machine(name="datastar", nodes=1664)  # SDSC DataStar: 1,664 CPUs (allocation by CPU)
LUBLIN256 = Machine(name="lublin256", nodes=256)  # runtime paper and RLScheduler's Lublin traces
MACHINES = {m.name: m for m in (THETA, DATASTAR, LUBLIN256)}

_HOUR = 3600.0

LUBLIN_PRESETS: dict[str, LublinParams] = {
    "lublin256": LublinParams(
        name="lublin256", max_nodes=256, n_jobs=10_000,
        description="typeless model on 256 nodes, as lublin_256.swf (RLScheduler's trace)"),
    # Runtime paper, Table 1: 2000 jobs on 256 nodes; the Lublin time is the requested walltime
    # (max 6 h, mean 0.5 h); inter-arrival max 0.5 h, mean 100 s. These caps and means hold
    # exactly on the generated values, which needs a stationary arrival process (no daily cycle).
    "wl1": LublinParams(
        name="wl1", max_nodes=256, n_jobs=2000, serial_share=0.8, runtime_max=6 * _HOUR,
        runtime_mean=0.5 * _HOUR, arrival_max=0.5 * _HOUR, arrival_mean=100.0, daily_cycle=False,
        description="runtime paper WL1: 80% single-node jobs"),
    "wl2": LublinParams(
        name="wl2", max_nodes=256, n_jobs=2000, serial_share=0.2, runtime_max=6 * _HOUR,
        runtime_mean=0.5 * _HOUR, arrival_max=0.5 * _HOUR, arrival_mean=100.0, daily_cycle=False,
        description="runtime paper WL2: 20% single-node jobs"),
    # Stand-ins for the real traces (used only when the trace file is missing). Sizes follow the
    # machines' published rules; runtimes capped at the queues' longest walltime; offered load 0.9;
    # requests rounded up to round walltimes (the real traces' requests are not exact).
    "theta_like": LublinParams(
        name="theta_like", max_nodes=THETA.nodes, min_nodes=128, n_jobs=20_000, runtime_max=24 * _HOUR,
        load=0.9, request_rule="round_up",
        description="stand-in for ALCF Theta: 4,360 nodes, 128-node minimum, 24 h limit"),
    "datastar_like": LublinParams(
        name="datastar_like", max_nodes=DATASTAR.nodes, n_jobs=20_000, job_types=True,
        runtime_max=18 * _HOUR, load=0.9, request_rule="round_up",
        description="stand-in for SDSC DataStar: 1,664 CPUs, batch + interactive, 18 h limit"),
}

# Real trace -> the preset standing in for it when the file is missing.
STAND_INS = {
    "theta_2022.swf": "theta_like",
    "SDSC-DS-2004-2.1-cln.swf.gz": "datastar_like",
    "lublin_256.swf": "lublin256",
}


def lublin_preset(name: str) -> LublinParams:
    """The preset's parameters; an unknown name raises ConfigError listing the known ones."""
    try:
        return LUBLIN_PRESETS[name]
    except KeyError:
        raise ConfigError(f"unknown workload preset '{name}' (known: {', '.join(LUBLIN_PRESETS)})") from None


def stand_in_for(trace_name: str) -> str:
    try:
        return STAND_INS[trace_name]
    except KeyError:
        raise ConfigError(f"no stand-in preset for trace '{trace_name}' (known: {', '.join(STAND_INS)})") from None
