"""The machine constants of the papers' systems, in one place: Theta's node count and the MRSch
burst buffer and power budget, DataStar's processor count, the runtime paper's 256 nodes."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Machine", "MACHINES", "THETA", "DATASTAR", "LUBLIN256"]


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
