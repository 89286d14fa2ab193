"""The runtime paper's data frames, not drawn: Table 4 (workload x heuristic, wide), the long
Tables 5 and 6 and the estimate-sensitivity table from per-episode evaluation rows, and the
heuristic groups the claims compare with. Shared by ``claims``, ``budget`` and ``figures``.

Imports flow one way (A -> B: B imports A): experiments -> tables -> (intervals, claims, budget,
figures).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from schedrl.papers.runtime.experiments import (
    ALGORITHMS,
    FIT_ALGORITHMS,
    LABELS,
    METHODS,
    TEST_WORKLOADS,
    TRAIN_WORKLOADS,
    VALUES,
    same_tendency,
    tuned,
)

PLAIN = [a for a in ALGORITHMS if a.endswith(":none")]
FIT = FIT_ALGORITHMS  # the heuristics under the agent's action set (columns only when played)
BACKFILL = [a for a in ALGORITHMS if not a.endswith(":none")]
ALL_BELOW = "wl1_050b"  # the test half where the paper finds every RL result below SJF and FCFS


def heuristics_table(runs, fit=()) -> pd.DataFrame:
    """workload x algorithm utilisation of ``schedrl heuristics run`` CSVs (wide); the mean over
    Lublin draws where ``runs`` holds several draws of a workload. ``fit``: ``fit.csv`` files of
    the heuristics under the agent's action set (``FIT_ALGORITHMS``), added as columns."""
    from schedrl.experiments.heuristics import read_runs

    ours = read_runs(runs, ALGORITHMS, "utilization")
    wide = ours.pivot_table(index="workload", columns="algorithm", values="utilization", aggfunc="mean")[ALGORITHMS]
    if fit:
        rows = pd.concat([pd.read_csv(f) for f in fit], ignore_index=True)
        extra = rows.pivot_table(index="workload", columns="algorithm", values="utilization", aggfunc="mean")
        wide = wide.join(extra[[a for a in FIT_ALGORITHMS if a in extra.columns]])
    return wide


def _cell_stats(rows: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    return (rows.groupby(keys, as_index=False, sort=False)
            .agg(ours=("utilization", "mean"), std=("utilization", "std"), runs=("utilization", "size"),
                 scheduled=("scheduled", "mean"), grid=("grid", "first")))


def table5_frame(evals: pd.DataFrame, heuristics: pd.DataFrame) -> pd.DataFrame:
    """Long Table 5: workload, method, ours (mean of episodes), std, paper, diff, heuristics."""
    rows = tuned(evals)
    own = rows[(rows["test"] == rows["train"]) & (rows["estimator"] == "actual")]
    table = _cell_stats(own, ["train", "method"]).rename(columns={"train": "workload"})
    paper = VALUES["table5"]["rows"]
    cols = VALUES["table5"]["columns"]
    table["paper"] = [paper.get(w, [np.nan] * 3)[cols.index(m)] for w, m in zip(table["workload"], table["method"])]
    table["diff"] = table["ours"] - table["paper"]
    table["label"] = table["method"].map(LABELS)
    for a in ALGORITHMS + [a for a in FIT_ALGORITHMS if a in heuristics]:
        table[a] = table["workload"].map(heuristics[a]) if a in heuristics else np.nan
    order = {w: i for i, w in enumerate(TRAIN_WORKLOADS)}
    morder = {m: i for i, m in enumerate(METHODS)}
    return (table.sort_values(["workload", "method"], key=lambda s: s.map(order if s.name == "workload" else morder))
            .reset_index(drop=True))


def table6_frame(evals: pd.DataFrame) -> pd.DataFrame:
    """Long Table 6: train, test, method, ours, std, paper, diff, same_tendency."""
    rows = tuned(evals)
    rows = rows[rows["test"].isin(TEST_WORKLOADS) & (rows["estimator"] == "actual")]
    table = _cell_stats(rows, ["train", "test", "method"])
    paper = VALUES["table6"]["rows"]
    cols = VALUES["table6"]["columns"]
    table["paper"] = [paper.get(a, {}).get(b, [np.nan] * 3)[cols.index(m)]
                      for a, b, m in zip(table["train"], table["test"], table["method"])]
    table["diff"] = table["ours"] - table["paper"]
    table["same_tendency"] = table["test"] == table["train"].map(same_tendency)
    table["label"] = table["method"].map(LABELS)
    return table


def sensitivity_frame(evals: pd.DataFrame) -> pd.DataFrame:
    """Utilisation on the same-tendency "b" half per method, training half and estimator."""
    rows = tuned(evals)
    rows = rows[rows["test"] == rows["train"].map(same_tendency)]
    table = _cell_stats(rows, ["train", "method", "estimator"])
    base = table[(table["estimator"] == "actual")].set_index(["train", "method"])["ours"]
    table["oracle"] = [base.get((t, m), np.nan) for t, m in zip(table["train"], table["method"])]
    table["kept"] = table["ours"] / table["oracle"]
    return table
