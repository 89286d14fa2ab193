"""The budget figure every paper with trained agents draws: each RL claim's value against the
training its agents had (log x), the paper's value as a line and its tolerance as a band.

It reads the long table ``schedrl.report.convergence.write_budget_table`` writes
(``results/<paper>/claims_budget.csv``), so a paper needs no plotting code of its own.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd

from schedrl.plots import new_figure, save_figure


def budget_figure(frame: pd.DataFrame, png: str | Path, *, title: str) -> dict[str, Path]:
    """One panel per claim: our value at each checkpoint, the paper's value, the tolerance band."""
    claims = list(dict.fromkeys(frame["claim_id"])) or ["(no RL claim)"]
    ncols = min(3, len(claims))
    nrows = math.ceil(len(claims) / ncols)
    fig, axes = new_figure(nrows, ncols, figsize=(4.3 * ncols, 3.0 * nrows), squeeze=False)
    for ax in axes.ravel()[len(claims):]:
        ax.set_visible(False)
    for ax, claim in zip(axes.ravel(), claims):
        rows = frame[frame["claim_id"] == claim].sort_values("budget")
        if rows.empty:
            ax.text(0.5, 0.5, "no checkpoints evaluated", ha="center", va="center", transform=ax.transAxes)
            continue
        x = rows["budget"].to_numpy(float)
        ax.plot(x, rows["value"], "o-", color="C0", label="ours")
        paper = float(rows["paper_value"].iloc[0]) if rows["paper_value"].notna().any() else float("nan")
        if np.isfinite(paper):
            ax.axhline(paper, color="C3", ls="--", lw=1.2, label="paper")
        lo, hi = rows["band_low"].iloc[0], rows["band_high"].iloc[0]
        if np.isfinite(lo) and np.isfinite(hi) and hi > lo:  # a zero-width band (exact claims) is not drawn
            ax.axhspan(lo, hi, color="C3", alpha=0.12, label="tolerance")
        if (x > 0).all():
            ax.set_xscale("log")
        ax.set_xlabel(f"training ({rows['unit'].iloc[0]}, log scale)")
        ax.set_ylabel("claim value")
        label = str(rows["label"].iloc[0])
        ax.set_title(label if len(label) <= 48 else label[:45] + "...", fontsize=9)
        ax.legend(fontsize=7)
    fig.suptitle(title)
    return save_figure(fig, png, frame)
