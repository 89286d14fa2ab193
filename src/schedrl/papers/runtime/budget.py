"""Where the runtime paper's RL claims are heading, and how sure they are (issue 24).

* **Checkpoints.** Each training run keeps its checkpoints at 1/8, 1/4 and 1/2 of its steps
  (``experiments.budget_steps``). ``evaluate_checkpoints`` plays each under the final evaluation's
  protocol (sampled actions, the same episode seeds, lockstep batches) on the cases the RL claims
  read: the agent's own "a" half (Table 5) and every "b" half (Table 6), oracle estimates. The
  sensitivity estimators are left out: the only claim on them is beyond the paper. They play the
  first ``evaluate.budget_episodes`` of its episode seeds per case (3 of 5 at default scale: the
  checkpoints' plays were 20% of the run's CPU time with all 5; the issue's aim is <= 15%), and the
  whole-budget point of the series is the final evaluation's same first episodes (``with_final``),
  so every budget rests on one protocol; the claim's own value uses all of them.
* **Claims at each budget.** ``budget_rows`` rebuilds Tables 5 and 6 from each budget's rows and
  recounts every RL claim with the same functions as the final claims (``claims.rl_counts``).
  "Flat" means the last doubling (1/2 -> all) moved the count by at most half the claim's
  tolerance (``convergence.flat_noise``).
* **Intervals.** ``comparison_cis`` gives each method comparison a 95% bootstrap interval of the
  mean utilisation difference over the cells the claim counts (two levels: agent seeds x Lublin
  draws, then episodes; paired where both sides played the same episodes).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from schedrl.papers.runtime import experiments as rx
from schedrl.report import convergence as cv

BUDGET_FILE = "evaluation_budget.csv"
UNIT = "env steps"


def budget_path(run: str | Path) -> Path:
    return Path(run) / BUDGET_FILE


def budget_files(spec: dict, root: str | Path = rx.ROOT) -> list[str]:
    return [str(budget_path(r[-1])) for r in rx.runs(spec, root)]


def checkpoint_for(run: str | Path, target: int) -> tuple[int, Path]:
    """The first checkpoint of ``run`` at or after ``target`` steps (the one training keeps)."""
    from schedrl.errors import InputFileError
    from schedrl.experiments.train import checkpoints

    found = [(n, p) for n, p in checkpoints(run) if n >= target]
    if not found:
        raise InputFileError(Path(run) / "checkpoints", f"no checkpoint at or after step {target} "
                             "(retrain the run: budget checkpoints are kept since issue 24)")
    return found[0]


def evaluate_checkpoints(run: str | Path, spec: dict, out: str | Path, threads: int = 1) -> pd.DataFrame:
    """Play the run's 1/8, 1/4 and 1/2 checkpoints like ``experiments.evaluate`` plays the final
    model (own half and every "b" half, oracle estimates), on the first ``budget_episodes`` of its
    episodes per case; one row per episode, with ``fraction`` and ``budget`` (the checkpoint's steps)."""
    from schedrl.io import atomic_path

    steps = int(spec["agents"]["steps"])
    fractions = [f for f in cv.BUDGET_FRACTIONS if f < 1]
    frames = []
    for f, target in zip(fractions, rx.budget_steps(steps), strict=True):
        n, path = checkpoint_for(run, target)
        frames.append(rx.evaluate(run, spec, None, threads=threads, model_file=path, estimators=False,
                                  episodes=rx.budget_episodes(spec))
                      .assign(fraction=f, budget=n))
    table = pd.concat(frames, ignore_index=True)
    with atomic_path(out) as tmp:
        table.to_csv(tmp, index=False)
    return table


def with_final(final: pd.DataFrame, budget: pd.DataFrame, steps: int, episodes: int | None = None) -> pd.DataFrame:
    """Checkpoint rows plus the final evaluation's oracle rows as fraction 1 (budget = ``steps``);
    ``episodes``: only its first that many per cell, the checkpoints' (``budget_episodes``), so a
    trend compares like with like (the claim's own value stays on all of them)."""
    last = final[final["estimator"] == "actual"]
    if episodes is not None:
        last = last[last["episode"] < int(episodes)]
    last = last.assign(fraction=1.0, budget=float(steps))
    return pd.concat([budget, last], ignore_index=True)


def _tables(evals: pd.DataFrame, t4: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    from schedrl.papers.runtime import figures

    return figures.table5_frame(evals, t4), figures.table6_frame(evals)


def _value(key: str, counts: dict) -> float:
    if key == "below_heuristics_split":
        (bh, bn), (ph, pn) = counts[key]
        return ph / pn - bh / bn if bn and pn else float("nan")
    if key in ("table5_cells_within_tolerance", "table6_cells_within_tolerance"):
        return counts[key]
    hits, total = counts[key]
    return float(hits) if total else float("nan")


def _within_share(table: pd.DataFrame, key: str) -> float:
    from schedrl.papers.runtime.experiments import VALUES

    has = table["paper"].notna()
    return float((table.loc[has, "diff"].abs() <= VALUES.tolerance(key, "abs")).mean()) if has.any() else float("nan")


def claim_values(evals: pd.DataFrame, t4: pd.DataFrame) -> dict[str, float]:
    """Every RL claim's value (a count, a share, a difference of shares) from one set of rows."""
    from schedrl.papers.runtime import claims

    t5, t6 = _tables(evals, t4)
    counts = claims.rl_counts(t5, t4, t6)
    counts["table5_cells_within_tolerance"] = _within_share(t5, "table5")
    counts["table6_cells_within_tolerance"] = _within_share(t6, "table6")
    return {k: _value(k, counts) for k in counts if not k.endswith(("_strict", "_weaker_backfilling"))}


def _paper_targets() -> dict[str, tuple[float, float]]:
    """claim id -> (paper value, noise for ``trend``), on the claim's own scale."""
    from schedrl.papers.runtime import claims
    from schedrl.papers.runtime.experiments import VALUES

    paper = claims.rl_counts(claims.paper_table5(), claims.paper_table4(), claims.paper_table6())
    out = {}
    for key in claims.COUNT_CLAIMS:
        value = paper[key][0] if key == "same_tendency_best" else float(VALUES[key])
        out[key] = (float(value), cv.flat_noise(value, abs_tol=VALUES.tolerance(key, "abs")))
    (bh, bn), (ph, pn) = paper["below_heuristics_split"]
    out["below_heuristics_split"] = (ph / pn - bh / bn, 1.0 / bn)   # noise: one baseline cell
    out["table5_cells_within_tolerance"] = (1.0, 0.05)
    out["table6_cells_within_tolerance"] = (1.0, 0.05)
    return out


def budget_rows(evals: pd.DataFrame, t4: pd.DataFrame) -> tuple[dict[str, dict], list[dict]]:
    """(claim id -> convergence fields for its claims row, long rows of ``claims_budget.csv``) from
    per-episode rows of every budget (``fraction`` 1/8 ... 1; ``budget`` in steps)."""
    from schedrl.papers.runtime import claims

    fractions = sorted(evals["fraction"].unique())
    per = {f: claim_values(rx.tuned(evals[evals["fraction"] == f]), t4) for f in fractions}
    steps = {f: float(evals.loc[evals["fraction"] == f, "budget"].median()) for f in fractions}
    labels = {**claims.COUNT_CLAIMS, "below_heuristics_split": "proposal minus baseline share below SJF/FCFS",
              "table5_cells_within_tolerance": "share of Table 5 cells within tolerance",
              "table6_cells_within_tolerance": "share of Table 6 cells within tolerance"}
    per_cell = [int(evals.loc[evals["fraction"] == f, "episode"].nunique()) for f in fractions]
    if len(set(per_cell)) == 1:
        note = f"at budgets: {per_cell[0]} episode(s) per cell at each, the first of the final evaluation's episode seeds"
    else:
        note = (f"at budgets: {per_cell[0]} episode(s) per cell at the checkpoints (the first of the final "
                f"evaluation's episode seeds), {per_cell[-1]} at all")
    fields, long_rows = {}, []
    for key, (paper_value, noise) in _paper_targets().items():
        if not all(key in per[f] for f in fractions):
            continue
        values = [per[f][key] for f in fractions]
        band = (paper_value - 2 * noise, paper_value + 2 * noise)
        f_, rows = cv.budget_fields(rx.PAPER, key, [steps[f] for f in fractions], values, paper_value, unit=UNIT,
                                    noise=noise, label=labels.get(key, key), band=band, fractions=fractions)
        fields[key] = {**f_, "note": note}
        long_rows += rows
    return fields, long_rows


# -- intervals ---------------------------------------------------------------------------------
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


def comparison_cis(evals: pd.DataFrame, t4: pd.DataFrame | None) -> dict[str, dict]:
    """claim id -> {fields: {ci95}, guard: verdict -> verdict, note} for the method comparisons:
    RL minus the better of SJF/FCFS and minus the better backfilling variant (Table 5 cells),
    NN2 minus NN1 (Table 6), the better proposal minus the baseline (same-tendency pairs), the
    proposal minus the baseline (the 75 different-tendency cells). Mean utilisation differences."""
    from schedrl.papers.runtime.claims import ALL_BELOW, BACKFILL, PLAIN

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
        for key, algs, win in (("rl_vs_heuristics", PLAIN, True), ("rl_vs_backfilling", BACKFILL, False)):
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
                                "guard": lambda v, lo=lo, hi=hi: cv.guard_win(v, lo, hi),
                                "note": note(by["proposal_nn2"].groupby(["train", "test"]).ngroups)}
    same = t6[t6["train"].map(rx.same_tendency) == t6["test"]]
    props = [m for m in ("proposal_nn1", "proposal_nn2") if (same["method"] == m).any()]
    if (same["method"] == "baseline").any() and props:
        # the better proposal per pair (by its mean), as the count takes it
        means = same[same["method"].isin(props)].groupby(["train", "method"])["utilization"].mean()
        best = means.groupby(level="train").idxmax().map(lambda ix: ix[1])
        chosen = same[same["method"] == same["train"].map(best)]
        d, lo, hi = _diff(chosen, same[same["method"] == "baseline"], keys)
        out["proposal_gain"] = {"fields": {"ci95": cv.format_ci(d, lo, hi)}, "guard": lambda v: v,
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


def per_draw_counts(evals: pd.DataFrame, spec: dict, root: str | Path = rx.ROOT) -> dict[str, list[str]]:
    """claim id -> its count on each Lublin draw alone (that draw's agents against that draw's
    heuristics): the draw-to-draw spread. Empty with one draw."""
    from schedrl.papers.runtime import claims, figures

    ds = rx.draws(spec)
    if len(ds) < 2 or "draw" not in evals.columns:
        return {}
    out: dict[str, list[str]] = {}
    for d in ds:
        rows = evals[evals["draw"] == d]
        if rows.empty:
            continue
        t4 = figures.heuristics_table([rx.heuristics_file(w, d).replace(rx.ROOT, str(root), 1) for w in rx.WORKLOADS])
        counts = claims.rl_counts(figures.table5_frame(rows, t4), t4, figures.table6_frame(rows))
        for key, value in counts.items():
            if key == "below_heuristics_split":
                (bh, _), (ph, _) = value
                out.setdefault(key, []).append(f"{bh} vs {ph}")
            else:
                out.setdefault(key, []).append(str(value[0]))
    return out
