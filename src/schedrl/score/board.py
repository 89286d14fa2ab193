"""Leaderboards: per paper and board, every policy's metrics with 95% bootstrap intervals.

``leaderboard(entries)`` gives one long row per (paper, board, policy, metric): mean, lo, hi (the
convergence core's two-level bootstrap: seeds or workloads, then episodes, trials or jobs), n and
the unit, and on the board's headline metric (``HEADLINE``) each policy's ``normalised`` score: its
mean on the board's scale, random valid play 0 and the best heuristic on the board 1 (the core's
``report.normalised``: the same anchors and formula as ``schedrl normalised``), empty where the
board has no random valid play or no heuristic, or where random valid play matches or beats every
heuristic (``normalised_note`` says which). ``markdown`` and ``console`` lay each board out wide (one column per metric), sorted by
the board's first metric (best first); ``write`` writes CSV, markdown and a self-contained HTML page
in the report's style.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from schedrl.report.convergence import bootstrap_ci, format_ci

ROLE_MARK = {"yours": "yours", "baseline": "baseline", "agent": "trained agent"}
COLUMNS = ["paper", "board", "policy", "role", "metric", "better", "mean", "lo", "hi", "n", "unit", "note",
           "normalised", "normalised_note"]
#: the metric each paper's normalised column is on (its reader's headline metric in
#: ``schedrl.papers.<paper>.normalised``); a board without it uses its first metric
HEADLINE = {"deeprm": "mean slowdown", "mdp": "mean slowdown", "sem": "wait (h)", "mrsch": "mean slowdown",
            "runtime": "utilisation"}
#: baselines that are not heuristics, by name: random valid play (the 0) and DeepRM's random agent
#: (uniform over all actions, scored as uniform play); every other baseline is a heuristic
RANDOM_VALID = "Random valid"
BASELINE_ROLES = {RANDOM_VALID: "random", "Random": "uniform"}
NO_SCALE = {"degenerate": "random valid play matches or beats every heuristic on this board",
            "tie": "the best heuristic lies within random valid play's 95% interval on this board",
            "no-random": "no random valid play on this board", "no-heuristic": "no heuristic on this board",
            "no-anchor": "no random valid play and no heuristic on this board"}


def leaderboard(entries) -> pd.DataFrame:
    rows = []
    for e in entries:
        groups = [np.asarray(v, dtype=np.float64) for v in e.values]
        groups = [g[np.isfinite(g)] for g in groups]
        groups = [g for g in groups if g.size]
        if not groups:
            mean = lo = hi = float("nan")
            n = 0
        else:
            mean, lo, hi = bootstrap_ci(groups)
            n = int(sum(g.size for g in groups))
            if n == 1:
                lo = hi = float("nan")
        rows.append({"paper": e.paper, "board": e.board, "policy": e.policy, "role": e.role, "metric": e.metric,
                     "better": e.better, "mean": mean, "lo": lo, "hi": hi, "n": n, "unit": e.unit, "note": e.note})
    return normalised(pd.DataFrame(rows, columns=COLUMNS[:-2]))


def headline(paper: str, metrics: list[str]) -> str:
    """The metric of a board's normalised column: the paper's headline where the board has it."""
    want = HEADLINE.get(paper)
    return want if want in metrics else metrics[0]


def normalised(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with ``normalised`` (on each board's headline-metric rows: the policy's mean on the
    board's scale) and ``normalised_note`` (the scale's anchors, or why the board has none)."""
    from schedrl.report.normalised import anchors, check_long, normalise

    frame = frame.assign(normalised=np.nan, normalised_note="")
    for (paper, board), part in frame.groupby(["paper", "board"], sort=False):
        metric = headline(paper, list(dict.fromkeys(part["metric"])))
        rows = part[(part["metric"] == metric) & np.isfinite(part["mean"].astype(float))]
        if rows.empty:
            continue
        long = pd.DataFrame({"paper": paper, "workload": board, "player": rows["role"] + ":" + rows["policy"],
                             "role": [BASELINE_ROLES.get(p, "heuristic") if r == "baseline" else "agent"
                                      for p, r in zip(rows["policy"], rows["role"])],
                             "seed": 0, "metric": metric, "better": rows["better"].iloc[0], "value": rows["mean"]})
        anchor = anchors(check_long(long, f"{paper} {board}")).iloc[0]
        frame.loc[rows.index, "normalised"] = normalise(rows["mean"], anchor["random"],
                                                        anchor["best_heuristic_value"], anchor["anchor"])
        best = anchor["best_heuristic"].split(":", 1)[-1]
        frame.loc[rows.index, "normalised_note"] = (f"{metric}: {RANDOM_VALID} 0, {best} 1" if anchor["anchor"] == "ok"
                                                    else f"{metric}: {NO_SCALE[anchor['anchor']]}")
    return frame


def _cell(row) -> str:
    if not np.isfinite(row["mean"]):
        return "n/a"
    if not np.isfinite(row["lo"]):
        return f"{row['mean']:.3g} (n={row['n']})"
    return format_ci(row["mean"], row["lo"], row["hi"])


def wide(frame: pd.DataFrame) -> list[tuple[str, str, pd.DataFrame]]:
    """Per (paper, board): a table policy x metric (text cells), best first by the first metric."""
    out = []
    for (paper, board), part in frame.groupby(["paper", "board"], sort=False):
        metrics = list(dict.fromkeys(part["metric"]))
        first = metrics[0]
        better = part.loc[part["metric"] == first, "better"].iloc[0]
        order = (part[part["metric"] == first].sort_values("mean", ascending=better == "lower", na_position="last")
                 [["policy", "role"]].apply(tuple, axis=1).tolist())
        keys = order + [k for k in dict.fromkeys(part[["policy", "role"]].apply(tuple, axis=1)) if k not in order]
        rows = []
        for rank, (policy, role) in enumerate(keys, 1):
            mine = part[(part["policy"] == policy) & (part["role"] == role)]
            row = {"#": rank, "policy": policy, "role": ROLE_MARK.get(role, role)}
            for metric in metrics:
                m = mine[mine["metric"] == metric]
                bett = part.loc[part["metric"] == metric, "better"].iloc[0]
                head = f"{metric} ({'lower' if bett == 'lower' else 'higher'} is better)"
                row[head] = _cell(m.iloc[0]) if len(m) else ""
            row[_normalised_head(part)] = _normalised_cell(mine)
            notes = "; ".join(dict.fromkeys(n for n in mine["note"] if isinstance(n, str) and n))
            n = mine.iloc[0]
            row["n"] = f"{n['n']} {n['unit']}s"
            row["note"] = notes
            rows.append(row)
        out.append((paper, board, pd.DataFrame(rows)))
    return out


def _normalised_head(part: pd.DataFrame) -> str:
    """The normalised column's header: its metric and anchors, or why the board has no scale."""
    said = [n for n in part.get("normalised_note", pd.Series(dtype=str)) if isinstance(n, str) and n]
    return f"normalised ({said[0]})" if said else "normalised"


def _normalised_cell(mine: pd.DataFrame) -> str:
    values = [v for v in mine.get("normalised", pd.Series(dtype=float)) if pd.notna(v)]
    return f"{values[0]:.2f}" if values else ""


def _md_table(table: pd.DataFrame) -> str:
    cols = list(table.columns)
    lines = ["| " + " | ".join(cols) + " |", "| " + " | ".join("---" for _ in cols) + " |"]
    for _, row in table.iterrows():
        lines.append("| " + " | ".join(str(row[c]).replace("|", "/") for c in cols) + " |")
    return "\n".join(lines)


def markdown(frame: pd.DataFrame, notes: list[str], failures: list, *, scale: str, level: int = 2) -> str:
    h = "#" * level
    parts = [f"{h} Scored policies ({scale} scale)", "",
             "Each user policy (`schedrl score`, config `score.policies`) played on each paper's held-out "
             "workloads under the paper's protocol, beside the paper's baselines on the same jobs and, where a "
             "finished run left results, the pipeline's trained agents. Cells: mean [95% bootstrap interval] "
             "(two levels: seeds or workloads, then episodes, trials or jobs). *normalised*: each policy's mean on "
             "the board's scale, random valid play 0 and the best heuristic on the board 1 (the scale of "
             "`schedrl normalised`); its header names the metric and the anchors, or why the board has none.", ""]
    for paper, board, table in wide(frame):
        mine = table["role"] == ROLE_MARK["yours"]
        table.loc[mine, "policy"] = "**" + table.loc[mine, "policy"].astype(str) + "**"
        parts += [f"{h}# {paper}: {board}", "", _md_table(table), ""]
    fps = frame.attrs.get("fingerprints")
    if fps is not None and len(fps):
        cols = [c for c in ("policy", "paper", "contested", "chance", "agree_fcfs", "agree_sjf", "agree_smallest_area",
                            "agree_largest", "top_slot", "top_slot_share", "plays_as") if c in fps.columns]
        table = fps[cols].copy()
        for c in ("chance", "agree_fcfs", "agree_sjf", "agree_smallest_area", "agree_largest", "top_slot_share"):
            if c in table:
                table[c] = table[c].map(lambda v: "" if pd.isna(v) else f"{v:.2f}")
        parts += [f"{h}# What the policies do (behaviour fingerprints)", "",
                  "Share of each policy's contested decisions (two or more valid actions) on which it picks what "
                  "FCFS (queue head), SJF, smallest area or largest first would, its most-picked slot, and what "
                  "uniform random play agrees by chance; *plays as* names a picker it follows on >= 95%.", "",
                  _md_table(table.fillna("").rename(columns=lambda c: c.replace("agree_", ""))), ""]
    if notes:
        parts += [f"{h}# Did not fit or not run", ""] + [f"* {n}" for n in notes] + [""]
    if failures:
        parts += [f"{h}# Policies that failed", ""] + [f"* {line}" for _, line, _ in failures] + [""]
    return "\n".join(parts)


def console(frame: pd.DataFrame) -> str:
    blocks = []
    for paper, board, table in wide(frame):
        table = table.drop(columns=["note"])
        blocks.append(f"== {paper}: {board}\n{table.to_string(index=False)}")
    return "\n\n".join(blocks)


def write(frame: pd.DataFrame, notes: list[str], failures: list, out_dir: str | Path, *, scale: str,
          section: str | Path | None = None) -> dict[str, Path]:
    """leaderboard.csv, leaderboard.md and index.html under ``out_dir`` (+ ``section``: the report's
    markdown section, headings one level down)."""
    from schedrl.io import atomic_path
    from schedrl.report.render import render_html

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {"csv": out / "leaderboard.csv", "md": out / "leaderboard.md", "html": out / "index.html",
             "fingerprints": out / "fingerprints.csv"}
    with atomic_path(paths["csv"]) as tmp:
        frame.to_csv(tmp, index=False)
    with atomic_path(paths["fingerprints"]) as tmp:
        frame.attrs.get("fingerprints", pd.DataFrame(columns=["policy", "paper"])).to_csv(tmp, index=False)
    text = markdown(frame, notes, failures, scale=scale, level=1)
    with atomic_path(paths["md"]) as tmp:
        Path(tmp).write_text(text)
    html = render_html(text, out).replace("schedrl reproduction report", "schedrl score: leaderboards")
    with atomic_path(paths["html"]) as tmp:
        Path(tmp).write_text(html)
    if section:
        section = Path(section)
        section.parent.mkdir(parents=True, exist_ok=True)
        with atomic_path(section) as tmp:
            Path(tmp).write_text(markdown(frame, notes, failures, scale=scale, level=2))
        paths["section"] = section
    return paths
