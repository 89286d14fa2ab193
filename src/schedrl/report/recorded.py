"""Verdicts of recorded default runs, so a report can show which verdicts a change of code moved.

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

#: ``run`` names the run (date, code, what set it apart); ``source`` says where its rows come from
#: (the run's claims.csv, or a record reconstructed from its status.md when the file was lost).
RECORDED_COLUMNS = ("run", "claim_id", "claim", "verdict", "ours", "random_verdict", "untrained_verdict", "source")
SHORT = {**VERDICT_SHORT, "": "-"}  # "-": the run has no record of the claim


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
    missing = [c for c in RECORDED_COLUMNS if c not in frame.columns]
    if missing:
        raise InputFileError(path, f"recorded-runs table lacks column(s) {', '.join(missing)}")
    for col in ("verdict", "random_verdict", "untrained_verdict"):
        bad = [i for i, v in enumerate(frame[col]) if v and v not in VERDICTS]
        if bad or (col == "verdict" and (frame[col] == "").any()):
            line = (bad or list(frame.index[frame[col] == ""]))[0] + 2  # header is line 1
            raise InputFileError(path, f"{col} {frame[col].iloc[line - 2]!r} is none of {', '.join(VERDICTS)}", line)
    dup = frame.duplicated(["run", "claim_id"])
    if dup.any():
        line = int(dup.to_numpy().nonzero()[0][0]) + 2
        raise InputFileError(path, f"claim {frame['claim_id'].iloc[line - 2]!r} recorded twice for run "
                             f"{frame['run'].iloc[line - 2]!r}", line)
    return frame[list(RECORDED_COLUMNS)].copy()


def record_run(recorded: pd.DataFrame, claims: pd.DataFrame, run: str, source: str) -> pd.DataFrame:
    """``recorded`` with ``run``'s rows replaced by ``claims`` (a paper's claims table)."""
    if not run.strip():
        raise ValueError("a recorded run needs a name (date, code, what set it apart)")
    rows = pd.DataFrame({c: claims[c] if c in claims.columns else "" for c in RECORDED_COLUMNS if c not in ("run", "source")})
    rows.insert(0, "run", run)
    rows["source"] = source
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
    lines = [f"### Verdicts across recorded default runs ({len(runs)})", "",
             f"Each column is one recorded default run (`recorded_runs.csv`, written by `schedrl record`), in the "
             f"order recorded{', then this build' if current is not None else ''}; R reproduced, P partly, N not, "
             f"C not comparable, - not recorded. {changed} of {len(table)} claims changed verdict.", "",
             md_table(table), ""]
    lines += [f"- *{run}*: {sources[run]}" for run in runs] + [""]
    return lines
