"""Table 4 of the runtime paper: utilisation of SJF, SJF w/ BF, FCFS, FCFS w/ BF per workload half,
ours beside the paper's (``paper_values.yaml``). ``TARGETS`` lists every output."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from schedrl.papers.runtime import claims
from schedrl.papers.runtime.experiments import ALGORITHMS, VALUES
from schedrl.papers.targets import Target

TITLE = "Runtime paper Table 4: utilisation of classic heuristics"


def table4(runs: list[str | Path], png: str | Path, *, nodes: int, sim_step: float, seed: int) -> pd.DataFrame:
    """Draw Table 4 (PNG/PDF/CSV long table with paper and diff) and its markdown (``.md``)."""
    from schedrl.experiments.heuristics import compare_with_paper, read_runs
    from schedrl.plots.tables import plot_comparison, write_comparison_markdown

    ours = read_runs(runs, ALGORITHMS, "utilization")
    table = compare_with_paper(ours, VALUES["table4"]["rows"], ALGORITHMS, "utilization")
    plot_comparison(png, table, row="workload", col="label", title=TITLE, ylabel="utilization (fraction)",
                    xlabel="workload")
    simulation = (f"time-stepped simulation, Sim_Step {sim_step:g} s." if sim_step else "event-driven simulation.")
    note = (f"Lublin workloads drawn by us (seed {seed}): the paper's draws are not published, so values are "
            f"compared within a tolerance (abs {VALUES.tolerance('table4', 'abs'):g}) and qualitatively. Utilisation = node-seconds used / "
            f"node-seconds offered from the first submission to the last end (brief 4.4); {nodes} nodes; "
            f"BF = EASY backfilling; {simulation}")
    write_comparison_markdown(Path(png).with_suffix(".md"), table, row="workload", col="label", title=TITLE,
                              notes=[note])
    return table


TARGETS: list[Target] = [
    Target("runtime", "table4", table4, "runtime_table4", "Utilisation of classic heuristics on the 12 workloads",
           kind="table", claims=("table4_",)),
    Target("runtime", "claims", claims.claims_rows, "runtime_table4", "Claims of Table 4: ours vs the paper's",
           kind="claims", claims=("",)),
]
