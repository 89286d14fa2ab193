"""Tables and figures of the runtime paper, ours beside the paper's (``paper_values.yaml``).

Table 4 (heuristics), Table 5 (RL on its own training half), Table 6 (trained on each "a", tested
on each "b"), the learning curves and the estimate-sensitivity figure (beyond the paper).
``TARGETS`` lists every output. The data frames they draw are ``tables.py``'s.

Imports flow one way (A -> B: B imports A): experiments -> tables -> claims -> figures.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from schedrl.papers.runtime import claims
from schedrl.papers.runtime.experiments import (
    ALGORITHMS,
    FIT_ALGORITHMS,
    FIT_LABELS,
    LABELS,
    METHODS,
    TEST_WORKLOADS,
    TRAIN_WORKLOADS,
    VALUES,
    halving_against_full,
    read_evaluations,
    same_tendency,
)
from schedrl.papers.runtime.tables import heuristics_table, sensitivity_frame, table5_frame, table6_frame
from schedrl.papers.targets import Target

TITLE = "Runtime paper Table 4: utilisation of classic heuristics"
CAPTIONS = {
    "table5": "RL utilisation on its own training half (Table 5), heuristics as reference",
    "table6": "RL utilisation trained on each 'a' half, tested on each 'b' half (Table 6)",
    "curves": "PPO learning curves (final episode reward) per method and training half",
    "sensitivity": "Proposal utilisation under oracle, online-predicted and request-only estimates",
    "budget": "Each RL claim against training steps (checkpoints at 1/8, 1/4, 1/2 and all of training), "
              "the paper's value as a line, the tolerance as a band",
}
ORACLE_NOTE = ("Estimates at scheduling time: the perfect oracle (actual runtime); the paper says only "
               "'a predicted value' without naming a predictor. Training uses the actual runtime, as the paper.")


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


def _reference_columns(table: pd.DataFrame, references: dict | None, frame, keys: list[str]) -> list[str]:
    """Add each no-learning reference's cell values (same table rule) as a column named after it."""
    added = []
    for ref, evals in (references or {}).items():
        cells = frame(evals).set_index(keys)["ours"]
        table[ref] = [cells.get(k, np.nan) for k in zip(*(table[c] for c in keys))]
        added.append(ref)
    return added


def _reference_note(table: pd.DataFrame, refs: list[str]) -> list[str]:
    if not refs:
        return []
    means = "; ".join(f"{LABELS[m]} ours {g['ours'].mean():.3f}, " +
                      ", ".join(f"{REF_LABELS[r]} {g[r].mean():.3f}" for r in refs)
                      for m, g in table.groupby("method", sort=False))
    return [f"No-learning references (issue 41/38: the same cells played by uniform-random valid play and by the "
            f"untrained network, same episodes and tuning rule), mean over the cells: {means}. "
            "Per cell: the CSV's columns random and untrained."]


REF_LABELS = {"random": "random play", "untrained": "untrained network"}


def table5(evaluations, heuristics_runs, png: str | Path, fit=(), references: dict | None = None) -> pd.DataFrame:
    """Table 5 (PNG/PDF/CSV + markdown): bars = ours, hollow markers = paper, lines = Table 4;
    ``fit``: with the heuristics under the agent's action set, a dashed line at their best;
    ``references``: name -> evaluation rows of a no-learning reference, drawn as small markers."""
    from schedrl.experiments.heuristics import algorithm_label
    from schedrl.plots import new_figure, save_figure
    from schedrl.plots.tables import write_comparison_markdown

    heur = heuristics_table(heuristics_runs, fit)
    evals = read_evaluations(evaluations)
    table = table5_frame(evals, heur)
    refs = _reference_columns(table, references, lambda e: table5_frame(e, heur), ["workload", "method"])
    workloads = list(dict.fromkeys(table["workload"]))
    methods = list(dict.fromkeys(table["method"]))
    fig, ax = new_figure(figsize=(max(7.0, 1.3 * len(workloads) + 2), 4.2))
    x = np.arange(len(workloads))
    width = 0.8 / max(len(methods), 1)
    for i, m in enumerate(methods):
        sub = table[table["method"] == m].set_index("workload").reindex(workloads)
        off = (i - (len(methods) - 1) / 2) * width
        ax.bar(x + off, sub["ours"], width * 0.9, yerr=sub["std"].fillna(0), color=f"C{i}", label=f"{LABELS[m]} (ours)")
        ax.plot(x + off, sub["paper"], "o", mfc="none", mec="black", ms=5,
                label="paper (Table 5)" if i == 0 else None)
        for ref, (marker, colour) in zip(refs, (("x", "black"), ("^", "purple"))):  # apart from the black error bars
            ax.plot(x + off, sub[ref], marker, color=colour, mfc="none", ms=6, label=REF_LABELS[ref] if i == 0 else None)
    styles = {"sjf:none": ("C7", ":"), "sjf:easy": ("C7", "-"), "fcfs:none": ("C3", ":"), "fcfs:easy": ("C3", "-")}
    for a in ALGORITHMS:
        col, ls = styles.get(a, ("k", "--"))
        vals = table.drop_duplicates("workload").set_index("workload").reindex(workloads)[a]
        for xi, v in zip(x, vals):
            ax.hlines(v, xi - 0.45, xi + 0.45, colors=col, linestyles=ls, lw=1.2)
        ax.plot([], [], color=col, ls=ls, label=f"{algorithm_label(a)} (ours, Table 4)")
    fits = [a for a in FIT_ALGORITHMS if a in table.columns]
    if fits:  # issue 38: what a heuristic reaches with the agent's own actions
        best = table.drop_duplicates("workload").set_index("workload").reindex(workloads)[fits].max(axis=1)
        for xi, v in zip(x, best):
            ax.hlines(v, xi - 0.45, xi + 0.45, colors="C2", linestyles="--", lw=1.2)
        ax.plot([], [], color="C2", ls="--", label="best first-fit heuristic (agent's action set)")
    ax.set_xticks(x, workloads)
    ax.set_xlabel("training workload half (evaluated on itself)")
    ax.set_ylabel("utilization (fraction)")
    ax.set_ylim(0, 1.3)  # head room for the legend above the 0-1 bars
    ax.set_yticks(np.arange(0, 1.01, 0.2))
    ax.set_title("Runtime paper Table 5: PPO on its own training half")
    ax.legend(ncol=3, fontsize=7, loc="upper left")
    save_figure(fig, png, table)
    n = int(table["runs"].min()) if len(table) else 0
    write_comparison_markdown(Path(png).with_suffix(".md"), table, row="workload", col="label",
                              title="Runtime paper Table 5: RL utilisation on the training half",
                              notes=[f"Mean of {n} episodes per cell with sampled actions (the paper: mean of 5 runs); "
                                     "per method and half the grid point with the best mean (the paper's tuning).",
                                     ORACLE_NOTE] + _halving_note(evals) + _fit_note(table, fits)
                              + _reference_note(table, refs))
    return table


def _halving_note(evals: pd.DataFrame) -> list[str]:
    """Markdown note where successive halving chose which grid points trained to the end."""
    if "pruned_at" not in evals.columns:
        return []
    check = halving_against_full(evals)
    if check is not None:  # a check run: every point trained to the end
        lines = [f"Successive halving checked against the full grid (`runtime.agents.halving.check`, beyond the paper: "
                 f"every point trained to the end, the rungs recording what halving would have kept): halving's pick "
                 f"is the full grid's in {int(check['same'].sum())} of {len(check)} (method, half) cells"]
        differ = check[~check["same"]]
        if len(differ):
            loss = differ["full_utilization"] - differ["halving_utilization"]
            lines[0] += (f"; where not, its own-half utilisation is {loss.mean():.3f} below the full grid's on average "
                         f"(at most {loss.max():.3f}: "
                         + ", ".join(f"{LABELS.get(m, m)} {t} {g} vs {h}" for m, t, g, h in
                                     differ[["method", "train", "halving_grid", "full_grid"]].itertuples(False))
                         + ")")
        return [lines[0] + ". The tables use the full grid's pick (the paper's rule)."]
    points = evals.groupby(["method", "train"])["grid"].nunique()
    full = evals[evals["pruned_at"].isna()].groupby(["method", "train"])["grid"].nunique()
    return [f"Successive halving over the grid (`runtime.agents.halving`, beyond the paper): "
            f"{int(full.sum())} of {int(points.sum())} (method, half, grid point) cells trained to the end, the rest "
            "stopped at a rung by their own-half utilisation there; the tuning rule picked among those trained to "
            "the end (`schedrl.papers.runtime.halving`)."]


def _fit_note(table: pd.DataFrame, fits: list[str]) -> list[str]:
    """Markdown note: the heuristics under the agent's action set on each half (issue 38)."""
    if not fits:
        return []
    per = table.drop_duplicates("workload").set_index("workload")[fits]
    cells = "; ".join(f"{w} " + ", ".join(f"{FIT_LABELS[a]} {per.loc[w, a]:.2f}" for a in fits) for w in per.index)
    return [f"Beyond the paper, heuristics with the agent's own action set (any fitting job of the first N_jobs, "
            f"played through the evaluation env): {cells}."]


def table6(evaluations, heuristics_runs, png: str | Path, references: dict | None = None) -> pd.DataFrame:
    """Table 6 as heatmaps (train x test per method; ours top, paper bottom; Table 4's heuristics
    on each test half as reference rows, ours above and the paper's below) and markdown, with our
    Table 4 utilisation of each test half as the reference row; ``references``: the no-learning
    references' cells as CSV columns and a markdown note."""
    from schedrl.io import write_text
    from schedrl.plots import new_figure, save_figure
    from schedrl.plots.tables import comparison_wide, markdown_table

    evals = read_evaluations(evaluations)
    table = table6_frame(evals)
    refs = _reference_columns(table, references, table6_frame, ["train", "test", "method"])
    heuristics = heuristics_table(heuristics_runs)
    for a in ALGORITHMS:
        table[a] = table["test"].map(heuristics[a]) if a in heuristics else np.nan
    from schedrl.experiments.heuristics import algorithm_label

    methods = list(dict.fromkeys(m for m in METHODS if m in set(table["method"])))
    trains = [w for w in TRAIN_WORKLOADS if w in set(table["train"])]
    # reference rows under the training halves: Table 4 on each test half (ours / the paper's)
    references = {"ours": heuristics.reindex(index=TEST_WORKLOADS, columns=ALGORITHMS),
                  "paper": pd.DataFrame(VALUES["table4"]["rows"], index=ALGORITHMS).T.reindex(TEST_WORKLOADS)}
    rows = trains + [f"{algorithm_label(a)} (Table 4)" for a in ALGORITHMS]
    fig, axes = new_figure(2, len(methods), figsize=(4.2 * len(methods), 4.0 + 0.45 * len(rows)), squeeze=False)
    for j, m in enumerate(methods):
        sub = table[table["method"] == m]
        for i, (col, who) in enumerate((("ours", "ours"), ("paper", "paper"))):
            grid = sub.pivot(index="train", columns="test", values=col).reindex(index=trains, columns=TEST_WORKLOADS)
            grid = pd.concat([grid, references[who].T.set_axis(rows[len(trains):])])
            ax = axes[i][j]
            ax.grid(False)
            im = ax.imshow(grid.to_numpy(dtype=float), vmin=0.4, vmax=0.95, cmap="viridis", aspect="auto")
            for r in range(grid.shape[0]):
                for c in range(grid.shape[1]):
                    v = grid.iat[r, c]
                    same = r < len(trains) and same_tendency(trains[r]) == TEST_WORKLOADS[c]
                    if np.isfinite(v):
                        ax.text(c, r, f"{v:.2f}", ha="center", va="center", fontsize=7,
                                color="white" if v < 0.7 else "black", fontweight="bold" if same else "normal")
            ax.set_xticks(range(len(TEST_WORKLOADS)), TEST_WORKLOADS, rotation=45, ha="right", fontsize=7)
            ax.set_yticks(range(len(rows)), rows, fontsize=7)
            ax.axhline(len(trains) - 0.5, color="white", lw=3)
            ax.set_title(f"{LABELS[m]} ({who})", fontsize=9)
            if j == 0:
                ax.set_ylabel("training half / heuristic")
            if i == 1:
                ax.set_xlabel("test half")
    fig.colorbar(im, ax=axes, label="utilization (fraction); bold = same tendency", shrink=0.8)
    fig.suptitle("Runtime paper Table 6: trained on 'a', tested on 'b'")
    save_figure(fig, png, table)
    lines = ["### Runtime paper Table 6: trained on each 'a' half, tested on each 'b' half", "",
             "Cells: ours (paper, ours - paper); rows: training half, columns: test half.", ""]
    for m in methods:
        sub = table[table["method"] == m]
        lines += [f"**{LABELS[m]}**", "", markdown_table(comparison_wide(sub, "train", "test")), ""]

    ref = heuristics.reindex([t for t in TEST_WORKLOADS if t in heuristics.index])
    if len(ref):
        lines += ["**Reference: our Table 4 on the test halves**", "",
                  markdown_table(pd.DataFrame([{"algorithm": algorithm_label(a), **{t: f"{ref.at[t, a]:.2f}" for t in ref.index}}
                                               for a in ALGORITHMS])), ""]
    gaps = table["diff"].abs().dropna()
    if len(gaps):
        lines += [f"Mean |ours - paper| over {len(gaps)} cells: {gaps.mean():.3f}; largest {gaps.max():.3f}.", ""]
    lines += ["- Mean of the episodes of the tuned grid point per cell (sampled actions); same-tendency pairs "
              "(the paper's underlined cells): X_a -> X_b.", f"- {ORACLE_NOTE}"]
    lines += [f"- {n}" for n in _halving_note(evals) + _reference_note(table, refs)]
    write_text(Path(png).with_suffix(".md"), "\n".join(lines) + "\n")
    return table


def curves(curve_files, png: str | Path, window: int = 5) -> pd.DataFrame:
    """Learning curves: final episode reward vs env steps (episodes ending at the same step
    averaged, then a rolling mean over ``window`` points), one panel per training half, one line
    per method, grid point and seed."""
    from schedrl.errors import InputFileError
    from schedrl.plots import new_figure, save_figure

    frames = []
    for f in curve_files:
        path = Path(f)
        if not path.exists():
            raise InputFileError(path, "missing (train the run first)")
        parts = path.parts  # .../agents/<method>/<workload>/<grid>/seed<k>/learning_curve.csv
        frame = pd.read_csv(path)
        frame = frame.assign(method=parts[-5], workload=parts[-4], grid=parts[-3], seed=parts[-2])
        frames.append(frame)
    data = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    seen = {Path(f).parts[-4] for f in curve_files}
    workloads = [w for w in TRAIN_WORKLOADS if w in seen]
    ncols = min(3, max(1, len(workloads)))
    nrows = int(np.ceil(len(workloads) / ncols)) or 1
    fig, axes = new_figure(nrows, ncols, figsize=(4.4 * ncols, 3.4 * nrows), squeeze=False)
    out = []
    for k, w in enumerate(workloads):
        ax = axes[k // ncols][k % ncols]
        drawn = False
        for i, m in enumerate(METHODS):
            runs = data[(data["workload"] == w) & (data["method"] == m)].groupby(["grid", "seed"]) if len(data) else []
            for n, ((grid, seed), run) in enumerate(runs):
                # episodes ending at the same step (the 8 copies often do) become one point: their mean
                run = run.groupby("timesteps", as_index=False).agg(reward=("reward", "mean"), episodes=("reward", "size"))
                smooth = run["reward"].rolling(window, min_periods=1).mean()
                ax.plot(run["timesteps"], smooth, "-o", ms=3, color=f"C{i}", lw=1.2, alpha=0.9,
                        label=LABELS[m] if n == 0 else None)
                out.append(run.assign(method=m, workload=w, grid=grid, seed=seed, reward_smooth=smooth.to_numpy()))
                drawn = True
        if not drawn:  # e.g. smoke scale: no env copy reached the end of an episode
            ax.text(0.5, 0.5, "no training episode finished\n(an episode ends when every job has started\n"
                    "or after Max_Episode_Steps per env copy)", ha="center", va="center", fontsize=8,
                    transform=ax.transAxes)
        else:
            ax.legend(fontsize=7)
        ax.set_title(w, fontsize=9)
        ax.set_xlabel("env steps (all 8 copies)")
        ax.set_ylabel(f"episode reward (rolling mean of {window})")
    for k in range(len(workloads), nrows * ncols):
        axes[k // ncols][k % ncols].axis("off")
    fig.suptitle("Runtime paper: PPO learning curves\nreward = scheduled share + utilisation\n"
                 "+ share of steps left (at most 3)", fontsize=9)
    save_figure(fig, png, pd.concat(out, ignore_index=True) if out else data)
    return data


def sensitivity(evaluations, png: str | Path) -> pd.DataFrame:
    """Beyond the paper: how much of the proposal's utilisation survives imperfect estimates
    (oracle vs the online request x mean-accuracy predictor vs the bare request), baseline beside."""
    from schedrl.plots import new_figure, save_figure

    table = sensitivity_frame(read_evaluations(evaluations))
    trains = [w for w in TRAIN_WORKLOADS if w in set(table["train"])]
    cases = [("baseline", "actual")] + [(m, e) for m in ("proposal_nn1", "proposal_nn2")
                                        for e in ("actual", "running_accuracy", "request")]
    names = {"actual": "oracle", "running_accuracy": "online predictor", "request": "request only"}
    cases = [c for c in cases if ((table["method"] == c[0]) & (table["estimator"] == c[1])).any()]
    fig, ax = new_figure(figsize=(max(7.0, 1.4 * len(trains) + 2), 4.0))
    x = np.arange(len(trains))
    width = 0.8 / max(len(cases), 1)
    for i, (m, e) in enumerate(cases):
        sub = table[(table["method"] == m) & (table["estimator"] == e)].set_index("train").reindex(trains)
        off = (i - (len(cases) - 1) / 2) * width
        hatch = {"actual": None, "running_accuracy": "//", "request": ".."}[e]
        colour = {"baseline": "C0", "proposal_nn1": "C1", "proposal_nn2": "C2"}[m]
        ax.bar(x + off, sub["ours"], width * 0.9, yerr=sub["std"].fillna(0), color=colour, hatch=hatch,
               edgecolor="white", label=f"{LABELS[m]}, {names[e]}")
    paper = VALUES["table6"]["rows"]
    for xi, t in zip(x, trains):
        vals = paper.get(t, {}).get(same_tendency(t))
        if vals:
            ax.hlines(vals[0], xi - 0.45, xi + 0.45, colors="black", linestyles="--", lw=1)
    ax.plot([], [], "k--", lw=1, label="paper baseline (Table 6, same tendency)")
    ax.set_xticks(x, [f"{t} -> {same_tendency(t)}" for t in trains], rotation=20, ha="right", fontsize=8)
    ax.set_ylabel("utilization (fraction)")
    ax.set_ylim(0, 1.3)  # head room for the legend
    ax.set_yticks(np.arange(0, 1.01, 0.2))
    ax.set_title("Beyond the paper: proposal utilisation with imperfect runtime estimates")
    ax.legend(ncol=2, fontsize=7, loc="upper left")
    save_figure(fig, png, table)
    return table


def budget(claims_budget: str | Path, png: str | Path) -> pd.DataFrame:
    """Every RL claim's value against training budget (``results/runtime/claims_budget.csv``)."""
    from schedrl.plots.budget import budget_figure
    from schedrl.report.convergence import read_budget_table

    frame = read_budget_table(claims_budget)
    budget_figure(frame, png, title="Runtime paper: RL claims against training budget")
    return frame


TARGETS: list[Target] = [
    Target("runtime", "table4", table4, "runtime_table4", "Utilisation of classic heuristics on the 12 workloads",
           kind="table", claims=("table4_",)),
    Target("runtime", "table5", table5, "runtime_table5", CAPTIONS["table5"], kind="table",
           claims=("table5_", "rl_vs_")),
    Target("runtime", "table6", table6, "runtime_table6", CAPTIONS["table6"], kind="table",
           claims=("table6_", "nn2_", "same_tendency", "proposal_")),
    Target("runtime", "curves", curves, "runtime_curves", CAPTIONS["curves"]),
    Target("runtime", "sensitivity", sensitivity, "runtime_sensitivity", CAPTIONS["sensitivity"],
           claims=("sensitivity_",)),
    Target("runtime", "budget", budget, "runtime_budget", CAPTIONS["budget"]),
    Target("runtime", "claims", claims.claims_rows, "runtime_claims", "Claims of Tables 4-6: ours vs the paper's",
           kind="claims", claims=("",)),
]


def trained_targets(spec: dict) -> list[Target]:
    """The targets a scale that trains only some runs can build (``config/paper-budget.yaml``):
    Table 4 and the claims always; with agents, Tables 5-6, the learning curves and the budget
    figure (drawn from whatever runs it trains); the sensitivity figure only when a proposal
    method trains (the baseline reads no estimate)."""
    methods = spec.get("agents", {}).get("methods", [])
    def drawn(target: Target) -> bool:
        if target.name in ("table4", "claims"):
            return True
        if not methods:
            return False
        return target.name != "sensitivity" or any(METHODS[m][0] == "runtime_proposal" for m in methods)
    return [t for t in TARGETS if drawn(t)]
