"""Figures 3-10 of MRSch, ours beside what the paper states.

One function per figure, named after its file; each saves PNG, PDF and the plotted numbers as
CSV. The paper prints no bar heights, so its stated numbers (up to 7 %, 48 %, 41 %, the 0.6-0.9
range of r_BB, ...) are drawn as reference lines or quoted in the panel next to ours.
Data: the Theta 2022 trace (``workloads.traces.theta``; the paper used five months of 2018, not
public) extended to S1-S10 by ``schedrl.workloads.extend``, or its stand-in when the trace is
missing (the workload files' notes say which).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from schedrl.papers import paper_values
from schedrl.papers.mrsch import claims
from schedrl.papers.mrsch import evaluation as mev
from schedrl.papers.mrsch import layout as ml
from schedrl.papers.targets import Target
from schedrl.plots import new_figure, save_figure

VALUES = paper_values("mrsch")
COLORS = {"fcfs": "tab:gray", "ga": "tab:orange", "exhaustive": "tab:olive", "scalar_rl": "tab:blue",
          "mrsch": "tab:red", "mrsch_cnn": "tab:purple", "ga_hold": "tab:brown"}
MAIN = ("fcfs", "ga", "scalar_rl", "mrsch")  # the paper's four methods


def _shown(frame: pd.DataFrame) -> list[str]:
    """The paper's four methods (those the evaluation holds: a scale may train no scalar RL), then
    the diagnostic rows it holds (issue 35's GA under ``hold``: drawn hatched or dashed, in no claim)."""
    return [m for m in (*MAIN, *ml.DIAGNOSTIC) if (frame["method"] == m).any()]


def _process(spec) -> str:
    return f"; decision process {ml.process(spec)}"
AXES2 = ["node_util", "bb_util", "mean_wait_h", "mean_slowdown"]
AXES3 = AXES2[:2] + ["power_util"] + AXES2[2:]
AXIS_LABELS = {"node_util": "node util.", "bb_util": "BB util.", "power_util": "power util.",
               "mean_wait_h": "1 / wait", "mean_slowdown": "1 / slowdown"}
METRIC_LABELS = {"node_util": "node utilisation", "bb_util": "burst-buffer utilisation",
                 "mean_wait_h": "mean wait (h)", "mean_slowdown": "mean slowdown"}


def _bars(ax, frame: pd.DataFrame, metric: str, methods, workloads) -> None:
    width = 0.8 / len(methods)
    x = np.arange(len(workloads))
    for i, m in enumerate(methods):
        part = frame[frame["method"] == m].set_index("workload").reindex(workloads)
        ax.bar(x + (i - (len(methods) - 1) / 2) * width, part[metric], width, label=ml.LABELS[m], color=COLORS[m],
               hatch="//" if m in ml.DIAGNOSTIC else None, alpha=0.6 if m in ml.DIAGNOSTIC else 1.0)
    ax.set_xticks(x, workloads)
    ax.set_ylabel(METRIC_LABELS[metric])
    ax.set_xlabel("workload (test split)")


def _seeds(spec) -> str:
    """Title suffix: MRSch's bars and polygons are its mean over the main agents' seeds."""
    n = len(ml.seeds(spec))
    return f"; MRSch: mean of {n} training seeds" if n > 1 else ""


def _two(spec):
    return [w for w in ml.GROUPS["two"] if w in spec["workloads"]]


def _three(spec):
    return [w for w in ml.GROUPS["three"] if w in spec["workloads"]]


# Fig. 3 --------------------------------------------------------------------------------------
def fig3(spec: dict, root, png) -> pd.DataFrame:
    """MLP vs CNN state module: the four metrics per workload S1-S5 and MLP's relative advantage."""
    if not ml.has_cnn(spec):
        from schedrl.errors import ConfigError

        raise ConfigError("MRSch Fig. 3 needs the CNN variant, and mrsch.cnn is null (no CNN trained at this scale)")
    wls = _two(spec)
    frame = mev.all_metrics(spec, root, wls)
    frame = frame[frame["method"].isin(["mrsch", "mrsch_cnn"])]
    adv = claims.mlp_advantage(frame)
    fig, axes = new_figure(1, 5, figsize=(20, 3.8))
    for ax, metric in zip(axes[:4], AXES2):
        _bars(ax, frame, metric, ["mrsch", "mrsch_cnn"], wls)
    axes[0].legend(fontsize=7, loc="lower left")
    a = adv.set_index("metric")["advantage"]
    axes[4].bar([AXIS_LABELS[m] for m in a.index], 100 * a.to_numpy(), color="tab:red")
    axes[4].axhline(100 * VALUES["fig3.mlp_over_cnn_max"], ls="--", color="k", label="paper: up to 7 %")
    axes[4].axhline(0, color="k", lw=0.5)
    axes[4].set_ylabel("MLP advantage over CNN (%), best workload")
    axes[4].legend(fontsize=8)
    fig.suptitle("MRSch Fig. 3: MLP vs CNN state module (greedy, dynamic goal, test splits)"
                 + (_seeds(spec).replace("MRSch", "MLP") + f", CNN: seed {spec['seed']}" if _seeds(spec) else ""))
    save_figure(fig, png, frame.merge(adv, how="cross") if len(adv) else frame)
    return frame


# Fig. 4 --------------------------------------------------------------------------------------
def fig4(spec: dict, root, png) -> pd.DataFrame:
    """Training loss (MSE) against agent steps for each job-set ordering (group two, MLP)."""
    frames = []
    for o in spec["orderings"]:
        losses = mev.read_csv(ml.dfp_dir(root, "two", "mlp", o) / "losses.csv")
        w = max(1, len(losses) // 20)
        losses["smoothed"] = losses["loss"].rolling(w, min_periods=1).mean()
        frames.append(losses.assign(ordering=o))
    data = pd.concat(frames, ignore_index=True)
    fig, ax = new_figure(figsize=(7, 4.2))
    for o, part in data.groupby("ordering", sort=False):
        style = {"color": "tab:brown", "lw": 2.2} if o == ml.PAPER_ORDERING else {"lw": 1.2}
        ax.plot(part["timesteps"], part["smoothed"], label=o + (" (paper's)" if o == ml.PAPER_ORDERING else ""), **style)
    ax.set_xlabel("agent steps (decisions)")
    ax.set_ylabel("training loss (MSE, rolling mean)")
    ax.set_yscale("log")
    best = claims.best_ordering(data)
    ax.set_title(f"MRSch Fig. 4: job-set orderings (group two, MLP)\nlowest final loss: ours {best}, "
                 f"paper {VALUES['fig4.best_ordering']}", fontsize=9)
    ax.legend(fontsize=8)
    save_figure(fig, png, data)
    return data


# Figs. 5 and 6 -------------------------------------------------------------------------------
def _pair(spec, root, png, metrics, title, notes) -> pd.DataFrame:
    wls = _two(spec)
    frame = mev.all_metrics(spec, root, wls)
    shown = _shown(frame)
    frame = frame[frame["method"].isin(shown)]
    fig, axes = new_figure(1, 2, figsize=(12, 4))
    for ax, metric, note in zip(axes, metrics, notes):
        _bars(ax, frame, metric, shown, wls)
        if note:
            ax.set_title(note, fontsize=9)
    axes[0].legend(fontsize=8)
    fig.suptitle(f"{title}\ndata: {ml.data_source()}{_seeds(spec)}{_process(spec)}", fontsize=10)
    save_figure(fig, png, frame)
    return frame


def fig5(spec: dict, root, png) -> pd.DataFrame:
    """Node and burst-buffer utilisation per method on S1-S5."""
    return _pair(spec, root, png, ["node_util", "bb_util"],
                 "MRSch Fig. 5: system-level metrics (test splits, EASY backfilling for every method)",
                 ["paper: MRSch highest on every workload, FCFS lowest", ""])


def fig6(spec: dict, root, png) -> pd.DataFrame:
    """Mean wait and slowdown per method on S1-S5, with MRSch's largest reductions vs the paper's."""
    frame = mev.all_metrics(spec, root, _two(spec))
    w = claims.max_gain(frame, "mean_wait_h")
    s = claims.max_gain(frame, "mean_slowdown")
    return _pair(spec, root, png, ["mean_wait_h", "mean_slowdown"],
                 "MRSch Fig. 6: user-level metrics (test splits)",
                 [f"largest wait reduction: ours {w:.0%}, paper {VALUES['fig6.wait_reduction_max']:.0%}",
                  f"largest slowdown reduction: ours {s:.0%}, paper {VALUES['fig6.slowdown_reduction_max']:.0%}"])


# Figs. 7 and 10 ------------------------------------------------------------------------------
def _kiviat(spec, root, png, wls, axes_names, title) -> pd.DataFrame:
    frame = mev.all_metrics(spec, root, wls)
    shown = _shown(frame)
    # the paper's methods scaled among themselves (as the claims); a diagnostic row against their best
    scores = mev.kiviat_scores(frame[frame["method"].isin(shown)], axes_names, scale_by=MAIN)
    n = len(axes_names)
    angles = np.linspace(0, 2 * np.pi, n, endpoint=False)
    fig, axes = new_figure(1, len(wls), figsize=(3.6 * len(wls), 4), subplot_kw={"projection": "polar"}, squeeze=False)
    for ax, wl in zip(axes.flat, wls):
        part = scores[scores["workload"] == wl]
        for m in shown:
            row = part[part["method"] == m]
            if row.empty:
                continue
            k = row[[f"k_{a}" for a in axes_names]].to_numpy(dtype=float)[0]
            diag = m in ml.DIAGNOSTIC
            ax.plot(np.append(angles, angles[0]), np.append(k, k[0]), color=COLORS[m], label=ml.LABELS[m],
                    ls="--" if diag else "-")
            if not diag:
                ax.fill(angles, k, color=COLORS[m], alpha=0.08)
        ax.set_xticks(angles, [AXIS_LABELS[a] for a in axes_names], fontsize=7)
        ax.set_ylim(0, max(1.05, float(np.nanmax(part[[f"k_{a}" for a in axes_names]].to_numpy(dtype=float))) * 1.02))
        ax.set_yticks([0.25, 0.5, 0.75, 1.0])
        ax.tick_params(axis="y", labelsize=6)
        main = part[part["method"].isin(MAIN)]
        best = main.loc[main["area"].idxmax(), "method"]
        ax.set_title(f"{wl} (largest area: {ml.LABELS[best]})", fontsize=8)
    axes.flat[0].legend(fontsize=7, loc="lower left", bbox_to_anchor=(-0.3, -0.35))
    fig.suptitle(f"{title}\ndata: {ml.data_source()}{_seeds(spec)}{_process(spec)}", fontsize=10)
    save_figure(fig, png, scores)
    return scores


def fig7(spec: dict, root, png) -> pd.DataFrame:
    """Kiviat charts on S1-S5 (each axis scaled so the best method is 1)."""
    return _kiviat(spec, root, png, _two(spec), AXES2,
                   "MRSch Fig. 7: overall performance, S1-S5 (paper: MRSch largest area on every workload)")


def fig10(spec: dict, root, png) -> pd.DataFrame:
    """Kiviat charts on S6-S10 with power utilisation as a fifth axis."""
    frame = mev.all_metrics(spec, root, _three(spec))
    u = max(claims.max_gain(frame, m) for m in ("node_util", "bb_util", "power_util"))
    return _kiviat(spec, root, png, _three(spec), AXES3,
                   f"MRSch Fig. 10: with power, S6-S10; largest utilisation gain ours {u:.0%}, paper "
                   f"{VALUES['fig10.util_gain_max']:.0%}")


# Figs. 8 and 9 -------------------------------------------------------------------------------
def fig8(spec: dict, root, png) -> pd.DataFrame:
    """r_BB (goal weight of the burst buffer, eq. 1) over a 12-hour window of the S5 test run."""
    window = claims.rbb_window(spec, root)
    fig, ax = new_figure(figsize=(7, 3.8))
    hours = (window["clock"] - window["clock"].min()) / 3600.0
    ax.step(hours, window["r_bb"], where="post", color="tab:red", label=f"ours (MRSch, greedy, seed {spec['seed']})")
    ax.axhspan(VALUES["fig8.rbb_low"], VALUES["fig8.rbb_high"], color="k", alpha=0.1, label="paper's range 0.6-0.9")
    ax.axhline(0.5, ls=":", color="tab:blue", label="scalar RL's fixed 0.5")
    ax.set_xlabel(f"hours into the window (from {window['clock'].min() / 3600:.1f} h of the test split)")
    ax.set_ylabel("r_BB")
    ax.set_ylim(0, 1)
    ax.legend(fontsize=8)
    ax.set_title(f"MRSch Fig. 8: r_BB on {spec['fig8']['workload']}, {spec['fig8']['hours']} h", fontsize=10)
    save_figure(fig, png, window)
    return window


def fig9(spec: dict, root, png) -> pd.DataFrame:
    """Box plots of r_BB over every decision of MRSch's test run on S1-S5."""
    wls = _two(spec)
    goals = mev.all_goals(spec, root, wls)
    fig, ax = new_figure(figsize=(7, 4))
    data = [goals.loc[goals["workload"] == w, "r_bb"].to_numpy() for w in wls]
    ax.boxplot(data, showmeans=True)
    ax.set_xticks(range(1, len(wls) + 1), wls)
    ax.axhline(0.5, ls=":", color="tab:blue", label="scalar RL's fixed 0.5")
    if "S5" in wls:  # the range the paper reports for S5 (Fig. 8)
        x = wls.index("S5") + 1
        ax.fill_between([x - 0.4, x + 0.4], VALUES["fig8.rbb_low"], VALUES["fig8.rbb_high"], color="k", alpha=0.12,
                        label="paper: S5 range 0.6-0.9 (Fig. 8)")
    ax.set_xlabel("workload (test split)")
    ax.set_ylabel("r_BB at each decision")
    ax.legend(fontsize=8)
    ax.set_title(f"MRSch Fig. 9: r_BB per workload (paper: largest on {VALUES['fig9.rbb_largest_on']}; "
                 f"seed {spec['seed']}'s agent)", fontsize=10)
    stats = goals.groupby("workload")["r_bb"].describe().reset_index()
    save_figure(fig, png, stats)
    return stats


# Budget figure (issue 24) --------------------------------------------------------------------
def budget(spec: dict, root, png) -> pd.DataFrame:
    """Each DFP-backed claim's value at 1/8, 1/4, 1/2 and all of training (claims_budget.csv)."""
    from pathlib import Path

    from schedrl.plots.budget import budget_figure
    from schedrl.report.convergence import read_budget_table

    frame = read_budget_table(Path(root) / "claims_budget.csv")
    budget_figure(frame, png, title="MRSch: claims against the DFP agents' training (jobs)")
    return frame


TARGETS: list[Target] = [
    Target("mrsch", "fig3", fig3, "mrsch_fig3", "MLP vs CNN state module", claims=("fig3",)),
    Target("mrsch", "fig4", fig4, "mrsch_fig4", "Training loss for job-set orderings", claims=("fig4",)),
    Target("mrsch", "fig5", fig5, "mrsch_fig5", "Node and burst-buffer utilisation per method, S1-S5",
           claims=("fig5",)),
    Target("mrsch", "fig6", fig6, "mrsch_fig6", "Mean wait and slowdown per method, S1-S5", claims=("fig6",)),
    Target("mrsch", "fig7", fig7, "mrsch_fig7", "Kiviat charts per workload, S1-S5", claims=("fig7",)),
    Target("mrsch", "fig8", fig8, "mrsch_fig8", "r_BB over 12 hours on S5", claims=("fig8",)),
    Target("mrsch", "fig9", fig9, "mrsch_fig9", "Box plots of r_BB, S1-S5", claims=("fig9",)),
    Target("mrsch", "fig10", fig10, "mrsch_fig10", "Kiviat charts with power, S6-S10", claims=("fig10",)),
    Target("mrsch", "budget", budget, "mrsch_budget", "Claims against training budget (1/8, 1/4, 1/2, all)",
           claims=("",)),
    Target("mrsch", "claims", claims.claims_rows, "mrsch_claims", "Claims of MRSch: ours vs the paper's",
           kind="claims", claims=("",)),
]
CAPTIONS = {t.name: t.caption for t in TARGETS}


def trained_targets(spec: dict) -> list[Target]:
    """The targets a scale that trains only the main agents can build (``config/paper-budget.yaml``):
    every figure but Fig. 3 without the CNN variant and Fig. 4 without the other orderings, the
    budget figure and the claims."""
    skip = ({"fig3"} if not ml.has_cnn(spec) else set()) | ({"fig4"} if not ml.has_orderings(spec) else set())
    return [t for t in TARGETS if t.name not in skip]
