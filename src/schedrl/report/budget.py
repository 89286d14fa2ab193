"""What each paper's rules cost, from Snakemake's ``benchmark:`` files, against the budget.

Every rule that trains, simulates or evaluates writes ``benchmarks/results/<paper>/...tsv`` (wall
seconds ``s`` and process ``cpu_time``). Summed per paper, the CPU time is the core-hours the
paper's target used, whatever else ran beside it on the machine; the wall time summed is what it
would take on one core. The budget (config key ``budget.core_hours``, per paper) is the project's
own: the whole default DAG in <= 4 hours on 8 cores.

Snakemake samples a rule's CPU time every 0.5 s for its first 15 s and every 30 s after, and writes
the last sample, so the sum is a lower bound: a rule that runs longer than 15 s misses up to 30 s
(per thread; the rules run one). ``cpu_core_hours_max`` adds that interval to every rule. An exact
figure for a whole run comes from ``scripts/timed_run.py`` (the CPU of every process the run waited
for).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

COLUMNS = ["paper", "rule_runs", "wall_hours", "cpu_core_hours", "cpu_core_hours_max", "budget_core_hours",
           "share_of_budget"]
#: The slower of the two 2-core machine kinds sessions and CI get (docs/cost-and-budgets.md, "Two
#: kinds of machine"); each paper's ``SLOWER_MACHINE`` = (this, its cost model's factor there).
SLOWER_KIND = "AMD EPYC, AVX2 only (2026-11-27)"


def on_slower_kind(total: float, factor: float) -> str:
    """The cost commands' last clause: ``total`` core-hours at the slower kind's ``factor``."""
    return f"~{total * factor:.1f} on the slower machine seen ({SLOWER_KIND}: x{factor:g})"


#: Snakemake's benchmark sampling: every SHORT_INTERVAL s for the first SHORT_SPAN s, then every INTERVAL s.
INTERVAL, SHORT_INTERVAL, SHORT_SPAN = 30.0, 0.5, 15.0


def read_benchmarks(root: str | Path = "benchmarks/results") -> pd.DataFrame:
    """One row per benchmark file: its group (first folder under ``root``), wall s and CPU s."""
    rows = []
    root = Path(root)
    for tsv in sorted(root.glob("*/**/*.tsv")):
        try:
            row = pd.read_csv(tsv, sep="\t").iloc[0]
            wall, cpu = float(row["s"]), float(row.get("cpu_time", float("nan")))
        except (pd.errors.ParserError, pd.errors.EmptyDataError, KeyError, IndexError, ValueError, TypeError):
            continue  # a half-written or foreign file: not a rule's benchmark
        rows.append({"group": tsv.relative_to(root).parts[0], "file": str(tsv), "seconds": wall, "cpu_seconds": cpu})
    return pd.DataFrame(rows, columns=["group", "file", "seconds", "cpu_seconds"])


def budget_table(root: str | Path = "benchmarks/results", budget: dict[str, float] | None = None) -> pd.DataFrame:
    """Per paper (and the total): rule runs, wall hours, CPU core-hours (sampled, and that plus one
    sampling interval per rule), budget and share of it (of the sampled figure).
    Papers with a budget but no benchmark files yet are listed with zero runs."""
    runs = read_benchmarks(root)
    budget = dict(budget or {})
    groups = list(dict.fromkeys([*runs["group"], *budget]))
    rows = []
    for group in groups:
        mine = runs[runs["group"] == group]
        cpu = mine["cpu_seconds"].fillna(mine["seconds"]).sum() / 3600
        missed = [INTERVAL if wall > SHORT_SPAN else SHORT_INTERVAL for wall in mine["seconds"]]
        limit = budget.get(group)
        rows.append({"paper": group, "rule_runs": len(mine), "wall_hours": mine["seconds"].sum() / 3600,
                     "cpu_core_hours": cpu, "cpu_core_hours_max": cpu + sum(missed) / 3600, "budget_core_hours": limit,
                     "share_of_budget": cpu / limit if limit else None})
    table = pd.DataFrame(rows, columns=COLUMNS)
    total_budget = sum(budget.values()) if budget else None
    total = {"paper": "total", "rule_runs": int(table["rule_runs"].sum()), "wall_hours": table["wall_hours"].sum(),
             "cpu_core_hours": table["cpu_core_hours"].sum(),
             "cpu_core_hours_max": table["cpu_core_hours_max"].sum(), "budget_core_hours": total_budget,
             "share_of_budget": table["cpu_core_hours"].sum() / total_budget if total_budget else None}
    return pd.concat([table, pd.DataFrame([total], columns=COLUMNS)], ignore_index=True)


def formatted(table: pd.DataFrame) -> pd.DataFrame:
    """The table with hours to two decimals (three below 0.1) and shares as percentages."""
    out = table.copy().astype(object)
    for col in ("wall_hours", "cpu_core_hours", "cpu_core_hours_max", "budget_core_hours"):
        out[col] = [("" if pd.isna(v) else f"{v:.3f}" if v < 0.1 else f"{v:.2f}") for v in table[col]]
    out["share_of_budget"] = ["" if pd.isna(v) else f"{v:.0%}" for v in table["share_of_budget"]]
    return out
