"""95% intervals of the runtime paper's method comparisons (issue 24): ``comparison_cis`` gives
each a bootstrap interval of the mean utilisation difference over the cells the claim counts (two
levels: agent seeds x Lublin draws, then episodes; paired where both sides played the same
episodes), and a guard on the verdict: a "reproduced" win over the heuristics whose interval
spans zero is "partly reproduced"; NN2 over NN1 whose interval reaches zero is no win at all
("not reproduced", issue 38); "the proposal does not raise utilisation" is "not reproduced" when
the interval lies above zero.

Imports flow one way (A -> B: B imports A): experiments -> tables -> intervals -> claims.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from schedrl.papers.runtime import experiments as rx
from schedrl.papers.runtime.tables import ALL_BELOW, BACKFILL, FIT, PLAIN
from schedrl.report import convergence as cv


def _replicate(evals: pd.DataFrame) -> pd.Series:
    """One label per independent replicate (agent seed x Lublin draw)."""
    cols = [c for c in ("draw", "run_seed") if c in evals.columns]
    if not cols:
        return pd.Series("0", index=evals.index)
    return evals[cols].astype(str).agg("/".join, axis=1)


def _matrix(rows: pd.DataFrame, key_cols: list[str]) -> list[np.ndarray]:
    """Per replicate, the utilisations ordered by ``key_cols`` (cells x episodes, flattened)."""
    rows = rows.assign(_rep=_replicate(rows)).sort_values(["_rep", *key_cols])
    return [g["utilization"].to_numpy(float) for _, g in rows.groupby("_rep", sort=True)]


def _diff(a: pd.DataFrame, b: pd.DataFrame, keys: list[str]) -> tuple[float, float, float]:
    ga, gb = _matrix(a, keys), _matrix(b, keys)
    paired = len(ga) == len(gb) and all(x.size == y.size for x, y in zip(ga, gb))
    return cv.bootstrap_diff(ga, gb, paired=paired)


def no_win(verdict: str, low: float) -> str:
    """A claimed win whose 95% interval of the difference reaches zero (or lies below) is no win."""
    return "not reproduced" if low <= 0 and verdict in ("reproduced", "partly reproduced") else verdict


def comparison_cis(evals: pd.DataFrame, t4: pd.DataFrame | None) -> dict[str, dict]:
    """claim id -> {fields: {ci95}, guard: verdict -> verdict, note} for the method comparisons:
    RL minus the better of SJF/FCFS, minus the better backfilling variant and minus the best
    heuristic under the agent's own action set (Table 5 cells, the last when played),
    NN2 minus NN1 (Table 6), the better proposal minus the baseline (same-tendency pairs), the
    proposal minus the baseline (the 75 different-tendency cells). Mean utilisation differences."""
    out: dict[str, dict] = {}
    oracle = evals[evals["estimator"] == "actual"]
    reps = _replicate(oracle).nunique()
    keys = ["train", "test", "episode"]

    def note(n_cells: int) -> str:
        per = int(oracle.groupby(["method", "train", "test"]).size().median()) // max(reps, 1) if len(oracle) else 0
        return (f"95% CI of the mean utilisation difference: {cv.evidence(reps, per)} per cell "
                f"(a seed = one agent seed on one Lublin draw), {n_cells} cells")

    own = oracle[oracle["test"] == oracle["train"]]
    if t4 is not None and len(own):
        fit = [a for a in FIT if a in t4.columns]  # beyond the paper: heuristics under the agent's action set
        for key, algs, win in (("rl_vs_heuristics", PLAIN, True), ("rl_vs_backfilling", BACKFILL, False),
                               ("rl_vs_fit_heuristics", fit, True)):
            if not algs:
                continue
            ref = own["train"].map(t4[algs].max(axis=1))
            if ref.isna().any():
                continue
            d, lo, hi = _diff(own, own.assign(utilization=ref), ["method", *keys])
            guard = ((lambda v, lo=lo, hi=hi: cv.guard_win(v, lo, hi)) if win
                     else (lambda v, lo=lo, hi=hi: cv.guard_win(v, -hi, -lo)))
            out[key] = {"fields": {"ci95": cv.format_ci(d, lo, hi)}, "guard": guard,
                        "note": note(own.groupby(["method", "train"]).ngroups)}
    t6 = oracle[oracle["test"].isin(rx.TEST_WORKLOADS)]
    by = {m: t6[t6["method"] == m] for m in rx.METHODS}
    if len(by["proposal_nn1"]) and len(by["proposal_nn2"]):
        d, lo, hi = _diff(by["proposal_nn2"], by["proposal_nn1"], keys)
        out["nn2_beats_nn1"] = {"fields": {"ci95": cv.format_ci(d, lo, hi)},
                                "guard": lambda v, lo=lo: no_win(v, lo),
                                "note": note(by["proposal_nn2"].groupby(["train", "test"]).ngroups)}
    same = t6[t6["train"].map(rx.same_tendency) == t6["test"]]
    props = [m for m in ("proposal_nn1", "proposal_nn2") if (same["method"] == m).any()]
    if (same["method"] == "baseline").any() and props:
        # the better proposal per pair (by its mean), as the count takes it
        means = same[same["method"].isin(props)].groupby(["train", "method"])["utilization"].mean()
        best = means.groupby(level="train").idxmax().map(lambda ix: ix[1])
        chosen = same[same["method"] == same["train"].map(best)]
        d, lo, hi = _diff(chosen, same[same["method"] == "baseline"], keys)
        out["proposal_gain"] = {"fields": {"ci95": cv.format_ci(d, lo, hi)},
                                "guard": lambda v, lo=lo: "not reproduced" if lo > 0 else v,
                                "note": note(same["train"].nunique())}
    other = t6[(t6["test"] != ALL_BELOW) & (t6["train"].map(rx.same_tendency) != t6["test"])]
    if (other["method"] == "baseline").any() and props:
        base = other[other["method"] == "baseline"]
        prop = other[other["method"].isin(props)]
        d, lo, hi = cv.bootstrap_diff(_matrix(prop, ["method", *keys]), _matrix(base, keys))
        out["below_heuristics_split"] = {"fields": {"ci95": cv.format_ci(d, lo, hi)}, "guard": lambda v: v,
                                         "note": "95% CI of the proposal's minus the baseline's mean utilisation "
                                                 f"over these cells ({reps} replicate(s), episodes)"}
    return out
