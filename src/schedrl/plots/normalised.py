"""The two figures of the report's "Where RL stands" (issue 68): each paper's players on the
normalised scale (random valid play = 0, the best heuristic = 1), and, where a paper has enough
workloads, their performance profiles. They draw what ``schedrl.report.normalised`` computed
(``aggregate.csv``, the profiles' long table); nothing is estimated here.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from schedrl.plots import new_figure, save_figure

#: One colour per role, the same in both figures.
ROLE_COLOURS = {"agent": "C0", "authors": "C3", "untrained": "C7", "uniform": "C5", "reference": "C8",
                "random": "k", "heuristic": "C2"}
ROLE_LABELS = {"agent": "our agents", "authors": "paper's agents (placed)", "untrained": "untrained network",
               "uniform": "uniform over all actions", "reference": "random valid in another MDP",
               "random": "random valid play (0)", "heuristic": "heuristic"}


def _panels(n: int, width: float, height_per: float):
    ncols = 1 if n <= 1 else 2
    nrows = max(1, math.ceil(n / ncols))
    fig, axes = new_figure(nrows, ncols, figsize=(width * ncols, height_per * nrows), squeeze=False)
    for ax in axes.ravel()[n:]:
        ax.set_visible(False)
    return fig, axes.ravel()


def where_rl_stands_figure(aggregated: pd.DataFrame, png: str | Path) -> dict[str, Path]:
    """One panel per paper: each player's IQM normalised score (dot) with its 95% interval (bar),
    coloured by role; the heuristics are left out (the best is 1 by construction); dashed lines at
    random valid play (0) and the best heuristic (1). Plotted numbers: ``<png>.csv``."""
    shown = aggregated[(aggregated["role"] != "heuristic") & aggregated["iqm"].notna()].copy()
    papers = list(dict.fromkeys(shown["paper"])) or ["(no paper scored yet)"]
    sizes = [max(1, int((shown["paper"] == p).sum())) for p in papers]
    fig, axes = _panels(len(papers), 5.6, 0.32 * max(sizes) + 1.2)
    for ax, paper in zip(axes, papers):
        rows = shown[shown["paper"] == paper].reset_index(drop=True)
        if rows.empty:
            ax.text(0.5, 0.5, "no normalised score yet", ha="center", va="center", transform=ax.transAxes)
            ax.set_axis_off()
            continue
        y = np.arange(len(rows))[::-1]
        for yi, (_, r) in zip(y, rows.iterrows()):
            colour = ROLE_COLOURS.get(r["role"], "C1")
            ax.errorbar(r["iqm"], yi, xerr=[[r["iqm"] - r["iqm_lo"]], [r["iqm_hi"] - r["iqm"]]], fmt="o",
                        color=colour, ms=5, capsize=2, lw=1.2)
        ax.axvline(0.0, color="k", ls="--", lw=0.9)
        ax.axvline(1.0, color=ROLE_COLOURS["heuristic"], ls="--", lw=0.9)
        ax.set_yticks(y, [f"{p} ({int(s)}x{int(w)})" for p, s, w in zip(rows["player"], rows["seeds"], rows["workloads"])],
                      fontsize=8)
        scale = str(rows["scale"].iloc[0]) if "scale" in rows and str(rows["scale"].iloc[0]) not in ("", "nan") else ""
        ax.set_title(f"{paper}" + (f" ({scale} scale)" if scale else ""), fontsize=10)
    fig.supxlabel("IQM normalised score with its 95% interval (0: random valid play, 1: the best heuristic); "
                  "players as seeds x workloads", fontsize=8)
    handles = [ax.plot([], [], "o", color=c, label=ROLE_LABELS[r])[0] for r, c in ROLE_COLOURS.items()
               if r in set(shown["role"])]
    if handles:
        fig.legend(handles=handles, loc="outside upper center", ncols=min(4, len(handles)), fontsize=8)
    data = shown[[c for c in ("paper", "scale", "player", "role", "seeds", "workloads", "iqm", "iqm_lo", "iqm_hi")
                  if c in shown.columns]]
    return save_figure(fig, png, data)


def profiles_figure(table: pd.DataFrame, png: str | Path) -> dict[str, Path]:
    """rliable's performance profiles, one panel per paper: for each player the fraction of its runs x
    workloads whose normalised score exceeds tau, with the bootstrap band; dashed lines at tau = 0
    (random valid play) and 1 (best heuristic). Plotted numbers: ``<png>.csv``."""
    papers = list(dict.fromkeys(table["paper"])) or ["(no paper with enough workloads)"]
    fig, axes = _panels(len(papers), 5.0, 3.4)
    for ax, paper in zip(axes, papers):
        rows = table[table["paper"] == paper]
        if rows.empty:
            ax.text(0.5, 0.5, "no paper has enough scaled workloads", ha="center", va="center", transform=ax.transAxes)
            ax.set_axis_off()
            continue
        for k, (player, g) in enumerate(rows.groupby("player", sort=False)):
            role = g["role"].iloc[0]
            colour = ROLE_COLOURS.get(role, "C1") if role in ("random", "uniform") else f"C{k % 10}"
            ax.plot(g["tau"], g["fraction"], color=colour, lw=1.4, label=player)
            ax.fill_between(g["tau"], g["fraction_lo"], g["fraction_hi"], color=colour, alpha=0.15, lw=0)
        ax.axvline(0.0, color="k", ls="--", lw=0.8)
        ax.axvline(1.0, color=ROLE_COLOURS["heuristic"], ls="--", lw=0.8)
        ax.set_ylim(-0.02, 1.02)
        ax.set_title(paper, fontsize=10)
        ax.set_xlabel("normalised score tau", fontsize=8)
        ax.set_ylabel("fraction of runs x workloads > tau", fontsize=8)
        ax.legend(fontsize=6, loc="lower left")
    return save_figure(fig, png, table)


#: the front figure's x range: a point beyond it is drawn at the edge as an arrow head with its value
FRONT_XLIM = (-3.0, 2.0)


def front_figure(table: pd.DataFrame, png: str | Path) -> Path:
    """The README's "Where RL stands" (``schedrl.report.front``): one block of rows per paper, each row
    a player's IQM normalised score (dot) and 95% interval (bar), coloured by role, its value and the
    agents' headroom words at the right; dashed lines at random valid play (0) and the best heuristic
    (1). Writes the PNG alone (its numbers are the table, written by the caller)."""
    lo_x, hi_x = FRONT_XLIM
    papers = list(dict.fromkeys(table["paper"]))
    n = len(table) + len(papers)
    fig, ax = new_figure(figsize=(11.0, 0.24 * n + 1.3))
    y, ticks, labels, notes = float(n), [], [], []
    for paper in papers:
        y -= 1
        ax.text(lo_x - 0.02 * (hi_x - lo_x), y, paper, ha="right", va="center", fontsize=9, fontweight="bold",
                transform=ax.transData)
        ax.axhline(y + 0.5, color="0.6", lw=0.6)
        for _, r in table[table["paper"] == paper].iterrows():
            y -= 1
            ticks.append(y)
            labels.append(r["row"])
            notes.append(("", "k"))
            if r["role"] == "none" or pd.isna(r["iqm"]):
                continue
            colour = ROLE_COLOURS.get(r["role"], "C1")
            x = float(np.clip(r["iqm"], lo_x, hi_x))
            if x != r["iqm"]:  # off the range: an arrow head at the edge
                ax.plot(x, y, "<" if r["iqm"] < lo_x else ">", color=colour, ms=6, clip_on=False)
            else:
                ax.errorbar(x, y, xerr=[[x - max(r["iqm_lo"], lo_x)], [min(r["iqm_hi"], hi_x) - x]], fmt="o",
                            color=colour, ms=5, capsize=2, lw=1.2)
            same = f"{r['iqm_lo']:.2f}" == f"{r['iqm_hi']:.2f}"
            text = f"{r['iqm']:.2f}" + ("" if same else f" [{r['iqm_lo']:.2f}, {r['iqm_hi']:.2f}]")
            if r["role"] != "authors":  # theirs: one model played, or the paper's number placed
                # seeds x workloads: one paper's scales may score different workload sets (deeprm's
                # default four variants, its paper budget one), so the count is part of the number
                w = int(r["workloads"]) if "workloads" in r and not pd.isna(r["workloads"]) else 0
                text += (f"  ({int(r['seeds'])} seed{'s' * (int(r['seeds']) != 1)}"
                         + (f" x {w} workload{'s' * (w != 1)})" if w else ")"))
            if r["verdict"] and not pd.isna(r["verdict"]):
                text += f": {r['verdict']}"
            notes[-1] = (text, colour)
    ax.set_yticks(ticks, labels, fontsize=7)
    ax.set_ylim(y - 0.6, n - 0.4)
    # the values and verdicts as the right axis' tick labels: the layout makes room for them
    right = ax.twinx()
    right.set_ylim(ax.get_ylim())
    right.set_yticks(ticks, [t for t, _ in notes], fontsize=7)
    right.tick_params(axis="y", length=0)
    right.grid(False)
    for label, (_, colour) in zip(right.get_yticklabels(), notes):
        label.set_color(colour)
    ax.set_xlim(lo_x, hi_x)
    ax.axvline(0.0, color=ROLE_COLOURS["random"], ls="--", lw=0.9)
    ax.axvline(1.0, color=ROLE_COLOURS["heuristic"], ls="--", lw=0.9)
    ax.grid(axis="y", visible=False)
    ax.set_xlabel("IQM normalised score, 95% interval over seeds x workloads (0: random valid play, "
                  "1: the best heuristic on each workload)", fontsize=8)
    handles = [ax.plot([], [], "o", color=ROLE_COLOURS[r], label=label)[0] for r, label in (
        ("agent", "our best agent of a scale"), ("authors", "the papers' agents (theirs, played or placed)"),
        ("untrained", "untrained network"), ("uniform", "uniform over all actions"))]
    fig.legend(handles=handles, loc="outside upper center", ncols=4, fontsize=8)
    return save_figure(fig, png, kinds=("png",), tight=True)["png"]
