"""Where the runtime paper's RL claims are heading, and how sure they are (issue 24).

* **Checkpoints.** Each training run keeps its checkpoints at 1/8, 1/4 and 1/2 of its steps
  (``experiments.budget_steps``). ``evaluate_checkpoints`` plays each under the final evaluation's
  protocol (sampled actions, the same episode seeds, lockstep batches) on the cases the RL claims
  read: the agent's own "a" half (Table 5) and every "b" half (Table 6), oracle estimates. The
  sensitivity estimators are left out: the only claim on them is beyond the paper. They play the
  first ``evaluate.budget_episodes`` of its episode seeds per case (1 of 5 at default scale: the
  checkpoints' plays were 20% of the run's CPU time with all 5; the issue's aim is <= 15%), and the
  whole-budget point of the series is the final evaluation's same first episodes (``with_final``),
  so every budget rests on one protocol; the claim's own value uses all of them. With
  ``evaluate.budget_draws`` only the runs on those Lublin draws play checkpoints (default scale:
  draw 0, 18 of the 54 runs; all three draws cost 17% of the run's CPU time), the whole-budget
  point is those same runs' final evaluation and the heuristics they are counted against are those
  draws' (``schedrl runtime claims``): the series is of one set of agents. Fewer episodes and
  draws per cell make a budget's count noisier than the claim's own, so "flat" is judged on
  noisier counts than before.
* **Claims at each budget.** ``budget_rows`` rebuilds Tables 5 and 6 from each budget's rows and
  recounts every RL claim with the same functions as the final claims (``claims.rl_counts``).
  "Flat" means the last doubling (1/2 -> all) moved the count by at most half the claim's
  tolerance (``convergence.flat_noise``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from schedrl.papers.runtime import experiments as rx
from schedrl.papers.runtime import tables
from schedrl.report import convergence as cv

BUDGET_FILE = "evaluation_budget.csv"
UNIT = "env steps"


def budget_path(run: str | Path) -> Path:
    return Path(run) / BUDGET_FILE


def budget_files(spec: dict, root: str | Path = rx.ROOT) -> list[str]:
    """The checkpoints' tables of the runs on ``experiments.budget_draws`` (default every run)."""
    chosen = set(rx.budget_draws(spec))
    return [str(budget_path(r[-1])) for r in rx.runs(spec, root) if r[4] in chosen]


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
    episodes per case; one row per episode, with ``fraction`` and ``budget`` (the checkpoint's steps).
    A run successive halving stopped early plays the checkpoints it reached (at least 1/8's)."""
    from schedrl.io import atomic_path

    steps = int(spec["agents"]["steps"])
    fractions = [f for f in cv.BUDGET_FRACTIONS if f < 1]
    reached = rx.pruned_at(run)  # successive halving stopped it there: no later checkpoints
    frames = []
    for f, target in zip(fractions, rx.budget_steps(steps), strict=True):
        if reached is not None and target > int(reached):
            continue
        n, path = checkpoint_for(run, target)
        frames.append(rx.evaluate(run, spec, None, threads=threads, model_file=path, estimators=False,
                                  episodes=rx.budget_episodes(spec))
                      .assign(fraction=f, budget=n))
    table = pd.concat(frames, ignore_index=True)
    with atomic_path(out) as tmp:
        table.to_csv(tmp, index=False)
    return table


#: columns naming one run in the evaluation tables
RUN_KEYS = ("method", "train", "grid", "draw", "run_seed")


def with_final(final: pd.DataFrame, budget: pd.DataFrame, steps: int, episodes: int | None = None) -> pd.DataFrame:
    """Checkpoint rows plus the final evaluation's oracle rows as fraction 1 (budget = ``steps``);
    ``episodes``: only its first that many per cell, the checkpoints' (``budget_episodes``), so a
    trend compares like with like (the claim's own value stays on all of them)."""
    last = final[final["estimator"] == "actual"]
    runs = [c for c in RUN_KEYS if c in last.columns and c in budget.columns]
    if runs:  # only the runs that played checkpoints (``evaluate.budget_draws``): one set of agents per series
        last = last.merge(budget[runs].drop_duplicates(), on=runs)
    if episodes is not None:
        last = last[last["episode"] < int(episodes)]
    last = last.assign(fraction=1.0, budget=float(steps))
    return pd.concat([budget, last], ignore_index=True)


def _tables(evals: pd.DataFrame, t4: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    return tables.table5_frame(evals, t4), tables.table6_frame(evals)


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
    return {k: _value(k, counts) for k in counts if not k.endswith(("_ties", "_weaker_backfilling"))}


def _paper_targets() -> dict[str, tuple[float, float]]:
    """claim id -> (paper value, noise for ``trend``), on the claim's own scale."""
    from schedrl.papers.runtime import claims
    from schedrl.papers.runtime.experiments import VALUES

    paper = claims.rl_counts(claims.paper_table5(), claims.paper_table4(), claims.paper_table6())
    out = {}
    for key in claims.COUNT_CLAIMS:
        value = paper[key][0]  # the paper's cells by our counting rule (no tie wins), as the verdicts use
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
    drawn = sorted(int(d) for d in evals["draw"].unique()) if "draw" in evals.columns else []
    if len(set(per_cell)) == 1:
        note = f"at budgets: {per_cell[0]} episode(s) per cell at each, the first of the final evaluation's episode seeds"
    else:
        note = (f"at budgets: {per_cell[0]} episode(s) per cell at the checkpoints (the first of the final "
                f"evaluation's episode seeds), {per_cell[-1]} at all")
    if drawn:
        note += f"; the runs on Lublin draw(s) {', '.join(map(str, drawn))}"
    # a scale that trains fewer methods or halves than the paper (config/paper-budget.yaml) has no
    # series for a claim on runs it did not train (its claims row says so)
    methods = [m for m in rx.METHODS if m in set(evals["method"])]
    halves = [w for w in rx.TRAIN_WORKLOADS if w in set(evals["train"])]
    absent = claims.untrained_claims(methods, halves) if claims.scope_note(methods, halves) else {}
    fields, long_rows = {}, []
    for key, (paper_value, noise) in _paper_targets().items():
        if key in absent or not all(key in per[f] for f in fractions):
            continue
        values = [per[f][key] for f in fractions]
        if not any(np.isfinite(v) for v in values):
            continue
        band = (paper_value - 2 * noise, paper_value + 2 * noise)
        f_, rows = cv.budget_fields(rx.PAPER, key, [steps[f] for f in fractions], values, paper_value, unit=UNIT,
                                    noise=noise, label=labels.get(key, key), band=band, fractions=fractions)
        fields[key] = {**f_, "note": note}
        long_rows += rows
    return fields, long_rows


def per_draw_counts(evals: pd.DataFrame, spec: dict, root: str | Path = rx.ROOT) -> dict[str, list[str]]:
    """claim id -> its count on each Lublin draw alone (that draw's agents against that draw's
    heuristics): the draw-to-draw spread. Empty with one draw."""
    from schedrl.papers.runtime import claims

    ds = rx.draws(spec)
    if len(ds) < 2 or "draw" not in evals.columns:
        return {}
    out: dict[str, list[str]] = {}
    for d in ds:
        rows = evals[evals["draw"] == d]
        if rows.empty:
            continue
        t4 = tables.heuristics_table([rx.heuristics_file(w, d).replace(rx.ROOT, str(root), 1) for w in rx.WORKLOADS])
        counts = claims.rl_counts(tables.table5_frame(rows, t4), t4, tables.table6_frame(rows))
        for key, value in counts.items():
            if key == "below_heuristics_split":
                (bh, _), (ph, _) = value
                out.setdefault(key, []).append(f"{bh} vs {ph}")
            else:
                out.setdefault(key, []).append(str(value[0]))
    return out
