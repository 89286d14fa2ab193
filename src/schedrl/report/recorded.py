"""Verdicts of recorded runs, so a report can show which verdicts a change of code moved, and each RL
claim at the default budget beside the paper's own training budget (``config/paper-budget.yaml``).

A run's ``results/<paper>/claims.csv`` lives on the machine that made it; what a paper keeps in the
repository is ``recorded_runs.csv`` beside its ``status.md`` (``schedrl.commands.record.recorded_path``): one row per claim per recorded run
(``RECORDED_COLUMNS``), written by ``schedrl record`` from the run's claims table. The report puts the
recorded runs side by side in the order they were recorded (a run recorded again moves last), with the current build's verdicts when it is at the
recorded runs' scale, and marks the claims whose verdict differs between them.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from schedrl.errors import InputFileError
from schedrl.io import write_csv
from schedrl.report.claims import VERDICT_SHORT, VERDICTS
from schedrl.report.normalised import (
    AGGREGATE_COLUMNS,
    LATER_SCORE_COLUMNS,
    LONG_COLUMNS,
    PER_JOBSET,
    PLACED_FROM,
    PROBE_COLUMN,
    SCORE_COLUMNS,
    aggregate,
    probe_of,
    scores,
)

#: ``run`` names the run (date, code, machine kind, core-hours, what set it apart); ``source`` says where
#: its rows come from (the run's claims.csv, or a record reconstructed from its status.md when the file
#: was lost); ``scale`` is the config it ran (``SCALES``); the value columns are the claims table's.
RECORDED_COLUMNS = ("run", "claim_id", "claim", "verdict", "ours", "random_verdict", "untrained_verdict", "source",
                    "scale", "paper_value", "ci95", "at_budgets", "trend")
#: Columns a file recorded before they existed may lack (read as empty; ``scale`` as "default").
LATER_COLUMNS = ("scale", "paper_value", "ci95", "at_budgets", "trend")
#: The scales a recorded run can be of: default (config/config.yaml), the papers' own training budgets,
#: or a tuned recipe at the paper's budget (config/tuned/<paper>.yml over paper-budget.yaml; issue 69).
SCALES = ("default", "paper-budget", "tuned")
SHORT = {**VERDICT_SHORT, "": "-"}  # "-": the run has no record of the claim
#: Papers whose default scale already trains at the paper's own budget (no paper-budget part).
DEFAULT_IS_PAPER_BUDGET = {"sem": "SEM's default already trains at the paper's budget (section 4.1: 100 episodes "
                                  "of 600 jobs), so its default runs are its paper-budget runs."}


def read_recorded(path: str | Path) -> pd.DataFrame:
    """The recorded runs of one paper, in file order; an absent file is no runs. A malformed one
    raises ``InputFileError`` naming the file and, for a bad verdict, its line."""
    path = Path(path)
    if not path.exists():
        return pd.DataFrame(columns=list(RECORDED_COLUMNS))
    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    except (pd.errors.EmptyDataError, pd.errors.ParserError, UnicodeDecodeError, IsADirectoryError) as exc:
        raise InputFileError(path, f"not a recorded-runs CSV ({str(exc).splitlines()[0]})") from None
    frame = with_later_columns(frame)
    missing = [c for c in RECORDED_COLUMNS if c not in frame.columns]
    if missing:
        raise InputFileError(path, f"recorded-runs table lacks column(s) {', '.join(missing)}")
    for col in ("verdict", "random_verdict", "untrained_verdict"):
        bad = [i for i, v in enumerate(frame[col]) if v and v not in VERDICTS]
        if bad or (col == "verdict" and (frame[col] == "").any()):
            line = (bad or list(frame.index[frame[col] == ""]))[0] + 2  # header is line 1
            raise InputFileError(path, f"{col} {frame[col].iloc[line - 2]!r} is none of {', '.join(VERDICTS)}", line)
    bad = [i for i, v in enumerate(frame["scale"]) if v not in SCALES]
    if bad:
        raise InputFileError(path, f"scale {frame['scale'].iloc[bad[0]]!r} is none of {', '.join(SCALES)}", bad[0] + 2)
    dup = frame.duplicated(["run", "claim_id"])
    if dup.any():
        line = int(dup.to_numpy().nonzero()[0][0]) + 2
        raise InputFileError(path, f"claim {frame['claim_id'].iloc[line - 2]!r} recorded twice for run "
                             f"{frame['run'].iloc[line - 2]!r}", line)
    return frame[list(RECORDED_COLUMNS)].copy()


def with_later_columns(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with the ``LATER_COLUMNS`` a file recorded before them lacks (empty; scale "default")."""
    frame = frame.copy()
    for col in LATER_COLUMNS:
        if col not in frame.columns:
            frame[col] = ""
    frame["scale"] = frame["scale"].fillna("").astype(str).replace("", "default")
    return frame


def record_run(recorded: pd.DataFrame, claims: pd.DataFrame, run: str, source: str,
               scale: str = "default") -> pd.DataFrame:
    """``recorded`` with ``run``'s rows replaced by ``claims`` (a paper's claims table) of ``scale``."""
    if not run.strip():
        raise ValueError("a recorded run needs a name (date, code, what set it apart)")
    if scale not in SCALES:
        raise ValueError(f"scale {scale!r} is none of {', '.join(SCALES)}")
    rows = pd.DataFrame({c: claims[c] if c in claims.columns else ""
                         for c in RECORDED_COLUMNS if c not in ("run", "source", "scale")})
    rows.insert(0, "run", run)
    rows["source"] = source
    rows["scale"] = scale
    kept = recorded[recorded["run"] != run]
    return pd.concat([kept, rows[list(RECORDED_COLUMNS)]], ignore_index=True)


def write_recorded(path: str | Path, frame: pd.DataFrame) -> None:
    write_csv(path, frame[list(RECORDED_COLUMNS)])


def side_by_side(recorded: pd.DataFrame, current: pd.DataFrame | None = None,
                 current_name: str = "this build") -> pd.DataFrame:
    """One row per claim: its verdict (R/P/N/C, ``-`` where a run has no record of it) in each
    recorded run, in the order recorded, then in ``current`` (a claims table) when given, and ``changed``:
    "yes" where the recorded verdicts differ (a missing one counts as no verdict)."""
    runs = list(dict.fromkeys(recorded["run"]))
    order = list(dict.fromkeys(list(recorded["claim_id"]) + ([] if current is None else list(current["claim_id"]))))
    claim = dict(zip(recorded["claim_id"], recorded["claim"]))
    if current is not None:
        claim.update(zip(current["claim_id"], current["claim"]))
    table = pd.DataFrame({"claim_id": order, "claim": [claim.get(c, "") for c in order]})
    for run in runs:
        got = dict(zip(*recorded.loc[recorded["run"] == run, ["claim_id", "verdict"]].T.to_numpy()))
        table[run] = [SHORT[got.get(c, "")] for c in order]
    columns = runs
    if current is not None:
        got = dict(zip(current["claim_id"], current["verdict"]))
        table[current_name] = [SHORT[got.get(c, "")] for c in order]
        columns = runs + [current_name]
    table["changed"] = ["yes" if len({v for v in row if v != "-"}) > 1 else "" for row in table[columns].to_numpy()]
    return table


def recorded_section(recorded: pd.DataFrame, current: pd.DataFrame | None, md_table) -> list[str]:
    """Markdown lines of a paper's "verdicts across recorded runs" (``md_table`` renders a frame)."""
    if recorded.empty:
        return []
    table = side_by_side(recorded, current)
    runs = list(dict.fromkeys(recorded["run"]))
    sources = recorded.drop_duplicates("run").set_index("run")["source"]
    changed = int((table["changed"] == "yes").sum())
    lines = [f"### Verdicts across recorded runs ({len(runs)})", "",
             f"Each column is one recorded run (`recorded_runs.csv`, written by `schedrl record`; a paper-budget "
             f"run says so in its name), in the "
             f"order recorded{', then this build' if current is not None else ''}; R reproduced, P partly, N not, "
             f"C not comparable, - not recorded. {changed} of {len(table)} claims changed verdict.", "",
             md_table(table), ""]
    lines += [f"- *{run}*: {sources[run]}" for run in runs] + [""]
    return lines


def _last_run(recorded: pd.DataFrame, scale: str) -> str | None:
    runs = list(dict.fromkeys(recorded.loc[recorded["scale"] == scale, "run"]))
    return runs[-1] if runs else None


def _is_rl(row) -> bool:
    """An RL claim: it has no-learning references or a budget trend (claims about trained agents)."""
    return any(str(row.get(c, "")).strip() for c in ("random_verdict", "untrained_verdict", "trend"))


def claim_not_run(row) -> bool:
    """A claim whose agents the run did not train (its claims code: not comparable, no value)."""
    return str(row["verdict"]) == "not comparable" and str(row["ours"]).strip() in ("", "n/a")


def _cell(row, missing: str) -> dict[str, str]:
    if row is None:
        return {"ours": missing, "95% CI": "", "at 1/8, 1/4, 1/2": "", "trend": "", "verdict": missing}
    refs = "/".join(SHORT[str(row[c])] for c in ("random_verdict", "untrained_verdict"))
    return {"ours": str(row["ours"]), "95% CI": str(row["ci95"]), "at 1/8, 1/4, 1/2": str(row["at_budgets"]),
            "trend": str(row["trend"]),
            "verdict": f"{SHORT[str(row['verdict'])]} ({refs})" if refs != "-/-" else SHORT[str(row["verdict"])]}


def budget_side_by_side(recorded: pd.DataFrame) -> tuple[pd.DataFrame, str | None, str | None]:
    """Each RL claim of the last recorded default run and the last paper-budget run side by side:
    the paper's value, then per budget ours, its 95% interval, its trend over the budget and its
    verdict with the random / untrained references' verdicts in brackets; "not run" where the
    paper-budget run has no record of the claim (or there is no such run). Returns (table, default
    run, paper-budget run)."""
    recorded = with_later_columns(recorded).fillna("")
    default, budget = _last_run(recorded, "default"), _last_run(recorded, "paper-budget")
    by_run = {name: recorded[recorded["run"] == name].set_index("claim_id") for name in (default, budget) if name}
    ids = [cid for name in (default, budget) if name for cid, row in by_run[name].iterrows() if _is_rl(row)]
    rows = []
    for cid in dict.fromkeys(ids):
        got = {name: (by_run[name].loc[cid] if name and cid in by_run[name].index else None) for name in (default, budget)}
        if budget and got[budget] is not None and claim_not_run(got[budget]):
            got[budget] = None  # not trained at the paper's budget: "not run", not "not comparable"
        first = next(r for r in got.values() if r is not None)
        paper = next((str(r["paper_value"]) for r in got.values() if r is not None and str(r["paper_value"])), "")
        row = {"claim_id": cid, "claim": first["claim"], "paper": paper}
        for prefix, name in (("default", default), ("paper budget", budget)):
            cell = _cell(got[name], "not recorded" if prefix == "default" else "not run")
            row.update({f"{prefix}: {k}": v for k, v in cell.items()})
        rows.append(row)
    return pd.DataFrame(rows), default, budget


def budget_section(paper: str, recorded: pd.DataFrame, md_table) -> list[str]:
    """Markdown lines of a paper's "RL claims at default and at the paper's budget"."""
    head = "### RL claims at the default budget and at the paper's"
    if paper in DEFAULT_IS_PAPER_BUDGET:
        return [head, "", DEFAULT_IS_PAPER_BUDGET[paper], ""]
    if recorded.empty:
        return []
    table, default, budget = budget_side_by_side(recorded)
    if table.empty:
        return []
    lines = [head, "",
             "Each RL claim (one with no-learning references or a budget trend) in the last recorded default run "
             f"(*{default or 'none recorded'}*) and the last run at the paper's own training budget "
             f"(*{budget or 'none recorded'}*, `config/paper-budget.yaml`). Verdict R/P/N/C with the uniform-random "
             "valid policy's and the untrained network's verdicts in brackets (the same verdict there means the "
             "claim says nothing about learning); the value at 1/8, 1/4 and 1/2 of that run's training and the trend "
             "to all of it; *not run*: the paper-budget run did not train the agents behind the claim.", ""]
    if budget is None:
        lines += ["No run at the paper's budget is recorded yet for this paper: every claim below reads *not run*.", ""]
    cols = [c for c in table.columns if c != "claim_id" and (table[c].astype(str) != "").any()]
    return lines + [md_table(table[["claim_id", *cols]]), ""]


# --- the normalised scale of a recorded run (issue 68: the README's one-number column) -----------
def read_recorded_normalised(path: str | Path) -> pd.DataFrame:
    """A paper's ``recorded_normalised.csv``: the rows of ``results/normalised/aggregate.csv`` that
    ``schedrl record --normalised`` kept, each under its run's name (an absent file: none)."""

    columns = ["run", *AGGREGATE_COLUMNS]
    path = Path(path)
    if not path.exists():
        return pd.DataFrame(columns=[*columns, PROBE_COLUMN])
    try:
        frame = pd.read_csv(path, keep_default_na=False, na_values={c: [""] for c in AGGREGATE_COLUMNS})
    except (pd.errors.EmptyDataError, pd.errors.ParserError, UnicodeDecodeError, IsADirectoryError) as exc:
        raise InputFileError(path, f"not a recorded normalised-score CSV ({str(exc).splitlines()[0]})") from None
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise InputFileError(path, f"recorded normalised scores lack column(s) {', '.join(missing)}")
    out = frame[columns].copy()
    out[PROBE_COLUMN] = frame[PROBE_COLUMN].astype(str) if PROBE_COLUMN in frame.columns else ""
    return out


def run_probe(recorded: pd.DataFrame, runs) -> str | None:
    """The learning probe recorded with ``runs`` (a run's name or several): a failing one where any
    failed, else a passing one; None where none was recorded (older records: read the recipe)."""
    if PROBE_COLUMN not in recorded.columns:
        return None
    names = [runs] if isinstance(runs, str) else list(runs)
    return probe_of(recorded.loc[recorded["run"].isin(names), PROBE_COLUMN])


def record_normalised(recorded: pd.DataFrame, aggregate: pd.DataFrame, paper: str, run: str,
                      scale: str | None = None, probe: str | None = None) -> pd.DataFrame:
    """``recorded`` with ``run``'s rows replaced by ``paper``'s rows of ``aggregate``; ``scale``: the
    scale the run is recorded as (a tuned recipe runs the paper-budget config, so its aggregate says
    paper-budget: the record says tuned); ``probe``: its recipe's learning probe (``PROBE_COLUMN``)."""
    rows = aggregate[aggregate["paper"] == paper].copy()
    if scale is not None:
        rows["scale"] = scale
    rows[PROBE_COLUMN] = probe or ""
    rows.insert(0, "run", run)
    if PROBE_COLUMN not in recorded.columns:
        recorded = recorded.assign(**{PROBE_COLUMN: ""})
    kept = recorded[recorded["run"] != run]
    return pd.concat([kept, rows[list(recorded.columns)]], ignore_index=True) if len(kept) else rows[list(recorded.columns)]


# --- the per-seed scores behind a recorded run's normalised rows: seeds of separate runs merged -----
#: ``recorded_scores.csv``: ``results/normalised/scores.csv``'s rows of a recorded run (one per workload,
#: player and seed), under the run's name and recorded scale. A seed trained as its own run (issue 68
#: item 4) is merged with the others of its scale from these rows (``merged_normalised``).
SCORES_FILE = "recorded_scores.csv"


def read_recorded_scores(path: str | Path) -> pd.DataFrame:
    """A paper's ``recorded_scores.csv`` (an absent file: none), in recording order."""

    columns = ["run", "scale", *SCORE_COLUMNS]
    path = Path(path)
    if not path.exists():
        return pd.DataFrame(columns=[*columns, RECIPE_COLUMN])
    try:
        frame = pd.read_csv(path, keep_default_na=False, na_values={"value": [""], "normalised": [""]})
    except (pd.errors.EmptyDataError, pd.errors.ParserError, UnicodeDecodeError, IsADirectoryError) as exc:
        raise InputFileError(path, f"not a recorded-scores CSV ({str(exc).splitlines()[0]})") from None
    for col in LATER_SCORE_COLUMNS:
        if col not in frame.columns:
            frame[col] = ""
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise InputFileError(path, f"recorded scores lack column(s) {', '.join(missing)}")
    bad = [i for i, v in enumerate(frame["scale"]) if v not in SCALES]
    if bad:
        raise InputFileError(path, f"scale {frame['scale'].iloc[bad[0]]!r} is none of {', '.join(SCALES)}", bad[0] + 2)
    out = frame[columns].copy()
    out[RECIPE_COLUMN] = frame[RECIPE_COLUMN].astype(str) if RECIPE_COLUMN in frame.columns else ""
    return out


#: a tuned run's recipe (``schedrl.experiments.tune.recipe_id`` at record time): only the latest
#: recipe's tuned runs pool their seeds (``merged_normalised``)
RECIPE_COLUMN = "recipe"


def record_scores(recorded: pd.DataFrame, scored: pd.DataFrame, paper: str, run: str, scale: str,
                  recipe: str | None = None) -> pd.DataFrame:
    """``recorded`` with ``run``'s rows replaced (moved last) by ``paper``'s rows of ``scored``
    (``results/normalised/scores.csv``), recorded as ``scale``; ``recipe``: a tuned run's recipe."""
    rows = scored[scored["paper"] == paper].copy()
    rows.insert(0, "scale", scale)
    rows.insert(0, "run", run)
    rows[RECIPE_COLUMN] = recipe or ""
    if RECIPE_COLUMN not in recorded.columns:
        recorded = recorded.assign(**{RECIPE_COLUMN: ""})
    kept = recorded[recorded["run"] != run]
    rows = rows[list(recorded.columns)]
    return pd.concat([kept, rows], ignore_index=True) if len(kept) else rows.reset_index(drop=True)


def scale_rows(recorded_scores: pd.DataFrame, scale: str) -> pd.DataFrame:
    """The per-seed rows of ``scale``; of a tuned scale, only the latest-recorded recipe's runs."""
    rows = recorded_scores[recorded_scores["scale"] == scale]
    if scale == "tuned" and RECIPE_COLUMN in rows.columns and len(rows):
        rows = rows[rows[RECIPE_COLUMN].astype(str) == str(rows[RECIPE_COLUMN].iloc[-1])]
    return rows


def pooled_rows(rows: pd.DataFrame) -> pd.DataFrame:
    """Rows of several runs pooled: a (workload, player, seed) recorded twice, the later one."""
    return rows.drop_duplicates(["paper", "workload", "player", "seed"], keep="last")


def rescored(pooled: pd.DataFrame) -> pd.DataFrame:
    """Pooled per-seed rows scored again on their pooled anchors (random valid play's mean over all
    its draws, the best heuristic's mean: ``normalised.scores``), as ``merged_normalised`` aggregates
    them: runs that drew random play apart share one anchor. Rows without random valid play's (no
    anchor to recompute, as in a hand-built table): returned as they are."""
    if not len(pooled) or "role" not in pooled.columns or not (pooled["role"] == "random").any():
        return pooled
    long = pooled[[*LONG_COLUMNS, *(c for c in (PLACED_FROM, PER_JOBSET) if c in pooled.columns)]].copy()
    return scores(long)


def merged_normalised(recorded_scores: pd.DataFrame, scale: str) -> tuple[list[str], pd.DataFrame]:
    """(the runs merged, their aggregate) for the recorded runs of ``scale``: their per-seed rows
    pooled, a (workload, player, seed) recorded by more than one run taken from the one recorded last
    (a rerun replaces; random valid play and the heuristics are the same draws in every run), scored
    on the pooled anchors and aggregated with rliable (``schedrl.report.normalised.aggregate``). So a
    paper's seeds trained as separate runs, or its scenarios recorded apart, count as one set of
    seeds x workloads; tuned runs only with the latest-recorded run's recipe (``RECIPE_COLUMN``). Fewer
    than two runs of ``scale``: ``([], empty)``."""

    rows = scale_rows(recorded_scores, scale)
    runs = list(dict.fromkeys(rows["run"]))
    if len(runs) < 2:
        return [], pd.DataFrame(columns=["run", *AGGREGATE_COLUMNS])
    # the same rows aggregate to the same frame (a seeded bootstrap): `schedrl status` and the report
    # ask twice per paper and scale (its status and its players), each a few CPU-seconds of resampling
    key = (scale, len(rows), tuple(rows.columns), int(pd.util.hash_pandas_object(rows, index=False).sum()))
    if key not in _MERGED:
        out = aggregate(rescored(pooled_rows(rows)), scale=scale)
        out.insert(0, "run", f"{len(runs)} {scale} runs merged")
        _MERGED[key] = out
    return runs, _MERGED[key].copy()


#: ``merged_normalised``'s aggregates by their rows' content (process-wide)
_MERGED: dict[tuple, pd.DataFrame] = {}
