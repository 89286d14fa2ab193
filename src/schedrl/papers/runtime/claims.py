"""Claims of the runtime paper: Table 4 (utilisation of classic heuristics), ours vs the paper's.

Per workload every algorithm within Table 4's tolerance (``paper_values.yaml``), the share of
cells within it, whether backfilling helps each policy, and the best algorithm per workload.
"""

from __future__ import annotations

import pandas as pd

from schedrl.experiments.heuristics import heuristic_claims
from schedrl.papers.runtime.experiments import ALGORITHMS, PAPER, VALUES


def claims_rows(table: pd.DataFrame, seed: int = 0) -> list[dict]:
    """Claims rows from ``figures.table4``'s long table (workload, algorithm, ours, paper, diff)."""
    return heuristic_claims(table, ALGORITHMS, paper_name=PAPER, tolerance=VALUES.tolerance("table4", "abs"),
                            note=f"our Lublin draws (seed {seed}) differ from the paper's", claim_prefix="table4")
