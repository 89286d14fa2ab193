"""Render a paper-vs-ours comparison table as markdown and as a figure (PNG/PDF + CSV).

Input is a long table with one row per (row label, column label) cell and the numeric columns
``ours`` and ``paper`` (``diff`` = ours - paper is added when missing). Any paper can reuse it:
the runtime paper's Table 4 is workloads x heuristics.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from schedrl.io import write_text
from schedrl.plots import new_figure, save_figure


def _fmt(value: float, digits: int, signed: bool = False) -> str:
    if value is None or (isinstance(value, float) and np.isnan(value)):
        return "-"
    return f"{value:+.{digits}f}" if signed else f"{value:.{digits}f}"


def markdown_table(frame: pd.DataFrame) -> str:
    """A plain GitHub-flavoured markdown table of ``frame`` (values as ``str``)."""
    cols = [str(c) for c in frame.columns]
    lines = ["| " + " | ".join(cols) + " |", "|" + "|".join("---" for _ in cols) + "|"]
    for row in frame.itertuples(index=False):
        lines.append("| " + " | ".join(str(v).replace("|", "\\|") for v in row) + " |")
    return "\n".join(lines)


def comparison_wide(table: pd.DataFrame, row: str, col: str, digits: int = 2) -> pd.DataFrame:
    """Wide table: one row per ``row`` value, one column per ``col`` value, cells
    ``ours (paper, diff)``; rows and columns keep their order of first appearance."""
    table = _with_diff(table)
    rows = list(dict.fromkeys(table[row]))
    cols = list(dict.fromkeys(table[col]))
    cells = {(r[row], r[col]): r for r in table.to_dict("records")}
    out = []
    for r in rows:
        entry = {row: r}
        for c in cols:
            cell = cells.get((r, c))
            if cell is None:
                entry[c] = "-"
            elif np.isnan(cell["paper"]):
                entry[c] = _fmt(cell["ours"], digits)
            else:
                entry[c] = (f"{_fmt(cell['ours'], digits)} ({_fmt(cell['paper'], digits)}, "
                            f"{_fmt(cell['diff'], digits, signed=True)})")
        out.append(entry)
    return pd.DataFrame(out, columns=[row, *cols])


def write_comparison_markdown(path: str | Path, table: pd.DataFrame, *, row: str, col: str,
                              title: str, notes: list[str] = (), digits: int = 2) -> str:
    """Write a markdown section: title, the wide table (ours (paper, diff)), a summary and notes."""
    table = _with_diff(table)
    has_paper = table["paper"].notna()
    lines = [f"### {title}", "", "Cells: ours (paper, ours - paper).", "",
             markdown_table(comparison_wide(table, row, col, digits)), ""]
    if has_paper.any():
        gaps = table.loc[has_paper, "diff"].abs()
        lines += [f"Mean |ours - paper| over {int(has_paper.sum())} cells: {gaps.mean():.3f}; "
                  f"largest {gaps.max():.3f}.", ""]
    lines += [f"- {n}" for n in notes]
    text = "\n".join(lines).rstrip() + "\n"
    write_text(path, text)
    return text


def plot_comparison(png: str | Path, table: pd.DataFrame, *, row: str, col: str, title: str,
                    ylabel: str, xlabel: str = "") -> dict:
    """Dot plot: x = ``row`` values, one colour per ``col`` value; filled = ours, hollow = paper.

    Saved with ``save_figure`` (PNG, PDF and the long table as CSV)."""
    table = _with_diff(table)
    rows = list(dict.fromkeys(table[row]))
    cols = list(dict.fromkeys(table[col]))
    fig, ax = new_figure(figsize=(max(6.0, 0.7 * len(rows) + 2), 3.8))
    width = 0.8 / max(len(cols), 1)
    colours = [f"C{i}" for i in range(len(cols))]
    x = np.arange(len(rows))
    for i, c in enumerate(cols):
        sub = table[table[col] == c].set_index(row).reindex(rows)
        offset = (i - (len(cols) - 1) / 2) * width
        ax.plot(x + offset, sub["ours"], "o", color=colours[i], label=f"{c} (ours)")
        if sub["paper"].notna().any():
            ax.plot(x + offset, sub["paper"], "o", mfc="none", color=colours[i], label=f"{c} (paper)")
            for xi, o, p in zip(x + offset, sub["ours"], sub["paper"]):
                if not (np.isnan(o) or np.isnan(p)):
                    ax.plot([xi, xi], [o, p], "-", color=colours[i], lw=0.8, alpha=0.6)
    ax.set_xticks(x, rows, rotation=45, ha="right")
    ax.set_xlabel(xlabel or row)
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(ncol=2, fontsize=7, loc="best")
    return save_figure(fig, png, table)


def _with_diff(table: pd.DataFrame) -> pd.DataFrame:
    table = table.copy()
    if "paper" not in table.columns:
        table["paper"] = np.nan
    table["paper"] = table["paper"].astype(float)
    table["ours"] = table["ours"].astype(float)
    if "diff" not in table.columns:
        table["diff"] = table["ours"] - table["paper"]
    return table
