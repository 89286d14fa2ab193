"""What each normalised score of the README's figure is made of, from the records (issue 68):
``docs/where-rl-stands.md``'s generated block.

For every agent row of the figure (``front.front_table``: per paper and scale, the best agent of the
recorded runs), one table per workload of the paper's headline metric: the best heuristic (named,
the scale's 1), random valid play (the 0), uniform play over all actions and the untrained network the
agent started from (``normalised.untrained_name``), each the mean over the seeds recorded; then the
agent's value on each seed with its normalised score, and the mean of those scores. The rows are ``recorded_scores.csv``'s, pooled and scored again on the pooled anchors as the
figure's merged aggregate is (``recorded.pooled_rows``, ``recorded.rescored``), so the table is the
figure's numbers taken apart, and a history page can link it where it once copied them. The best
heuristic's gain over random valid play is the span each score is divided by: where it is a few
percent, a small difference in value is a large score (the IQM trims such outliers; the mean does
not). A workload without a scale (random valid play matches every heuristic, or an anchor is
missing) shows its values and says why it has no score.
"""

from __future__ import annotations

import pandas as pd

from schedrl.report.front import SCALE_NAMES
from schedrl.report.normalised import untrained_name
from schedrl.report.status_tables import mean_of, score_text, value_text

#: what a workload without a normalised scale says, by its ``anchor`` word
NO_SCALE = "no scale"


def _gain(best, random, better: str) -> str:
    """How much better the best heuristic is than random valid play, in % of random's value: the span a
    workload's scores are divided by (a span of 1% turns a 10% gain over random into a score of 10)."""
    if best is None or random is None or pd.isna(best) or pd.isna(random) or float(random) == 0:
        return ""
    gain = (float(best) - float(random)) / abs(float(random)) * (1 if better == "higher" else -1)
    return f"{abs(gain):.1%} {'better' if gain >= 0 else 'worse'}"


def _natural(text: str) -> list:
    """Sort key of a workload's name with its numbers as numbers: S2 before S10, rate 0.9 before 1."""
    import re

    return [float(t) if re.fullmatch(r"\d+(\.\d+)?", t) else t for t in re.split(r"(\d+(?:\.\d+)?)", text)]


def agent_rows(scores: pd.DataFrame, scale: str, player: str) -> tuple[list[str], list[list[str]]]:
    """(header, rows) of one agent's table: one row per workload of ``scale``'s pooled, rescored
    per-seed rows where ``player`` has a value."""
    from schedrl.report.recorded import pooled_rows, rescored, scale_rows

    rows_of_scale = rescored(pooled_rows(scale_rows(scores, scale)))
    mine = rows_of_scale[rows_of_scale["player"] == player]
    seeds = sorted({int(s) for s in mine["seed"]})
    start = untrained_name(rows_of_scale.loc[rows_of_scale["role"] == "untrained", "player"], player)
    header = ["workload (metric, better)", "best heuristic (= 1)", "random valid (= 0)", "uniform play",
              "untrained network", *[f"seed {s}: value (normalised)" for s in seeds], "normalised, mean"]
    out = []
    groups = dict(tuple(rows_of_scale[rows_of_scale["workload"].isin(set(mine["workload"]))].groupby("workload")))
    for workload in sorted(groups, key=_natural):
        here = groups[workload]
        first = here.iloc[0]
        anchored = str(first.get("anchor", "")) == "ok"
        best = (f"{first['best_heuristic']}: {value_text(first['best_heuristic_value'])}"
                if isinstance(first.get("best_heuristic"), str) else "-")
        gain = _gain(first["best_heuristic_value"], first["random"], first["better"])
        best += f" ({gain} than random)" if gain else ""
        agent = here[here["player"] == player].set_index("seed")
        cells = []
        for s in seeds:
            if s not in agent.index:
                cells.append("-")
                continue
            row = agent.loc[s]
            cells.append(f"{value_text(row['value'])} ({score_text(row['normalised']) if anchored else NO_SCALE})")
        note = score_text(mean_of(agent, "normalised")) if anchored else f"{NO_SCALE} ({first.get('anchor', '')})"
        out.append([f"{workload} ({first['metric']}, {first['better']})", best,
                    *(value_text(mean_of(here[here["role"] == role], "value")) for role in ("random", "uniform")),
                    value_text(mean_of(here[here["player"] == start], "value")) if start else "-",
                    *cells, note])
    return header, out


def values_block(front: pd.DataFrame, scores_by_paper: dict[str, pd.DataFrame | None]) -> str:
    """The generated block of docs/where-rl-stands.md: per agent row of ``front`` (the README figure's
    table), its table of values per workload and seed from that paper's recorded per-seed scores."""
    from schedrl.report.status_tables import BEGIN, END, _table

    lines = [BEGIN, "", "Generated by `schedrl status --write` from each paper's `recorded_scores.csv`, pooled over "
             "the recorded runs of a scale and scored on the pooled anchors as the figure's intervals are. "
             "Values are the paper's headline metric per workload, each a mean over the workload's evaluation "
             "episodes; the anchors' columns are means over the seeds recorded.", ""]
    agents = front[front["role"] == "agent"]
    if agents.empty:
        lines += ["No agent has a normalised score recorded yet.", ""]
    for _, r in agents.iterrows():
        scores = scores_by_paper.get(r["paper"])
        header, rows = agent_rows(scores, r["scale"], r["player"]) if scores is not None and len(scores) else ([], [])
        lines += [f"### `{r['paper']}`, {SCALE_NAMES[r['scale']]}: {r['player']} (IQM {r['iqm']:.2f}; "
                  f"{r['runs']})", ""]
        lines += [*_table(header, rows), ""] if rows else [
            "Its run recorded the aggregate alone (`recorded_normalised.csv`; it predates the per-seed "
            "`recorded_scores.csv`), so its values per workload are not in the records.", ""]
    return "\n".join([*lines, END])
