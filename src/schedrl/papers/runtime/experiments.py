"""What the runtime paper runs: classic heuristics on its 12 Lublin workload halves (Table 4).

The workloads (WL1/WL2 x walltime accuracy 100% / 50% / random x halves a/b) come from the
workload rule (``results/workloads/runtime/<name>.swf``); each is simulated with the core's
``schedrl heuristics run`` under the paper's four algorithms, in the paper's time-stepped
simulator (Sim_Step seconds per tick) on N_nodes nodes.
"""

from __future__ import annotations

from schedrl.papers import paper_values

PAPER = "runtime"
VALUES = paper_values(PAPER)
#: Table 4's columns (POLICY:BACKFILL), in the paper's order.
ALGORITHMS: list[str] = list(VALUES["table4"]["columns"])
#: The 12 workload halves, in Table 4's row order within each half.
WORKLOADS: list[str] = [f"{wl}_{wra}{half}" for half in ("a", "b") for wl in ("wl1", "wl2")
                        for wra in ("100", "050", "rnd")]
HEURISTICS_DIR = "results/runtime/heuristics"


def heuristics_file(workload: str) -> str:
    """Metrics of the four algorithms on one workload (``schedrl heuristics run --out``)."""
    return f"{HEURISTICS_DIR}/{workload}.csv"
