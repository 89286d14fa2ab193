"""Claims tables: one row per claim a paper makes, the paper's value, ours and a verdict.

Every paper's rules write ``results/<paper>/claims.csv`` with ``CLAIM_COLUMNS``; the report
concatenates them. Verdicts come from ``VERDICTS`` so the report can count them.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from schedrl.errors import InputFileError
from schedrl.io import write_csv

#: No-learning references of an RL claim (issue 41): its verdict recomputed with the trained agent
#: replaced by the uniform-random valid policy and by the untrained network (same seeds, jobs and
#: protocol), ``uninformative`` ("yes" when either reference also reproduces it, fully or partly,
#: "no" otherwise) and ``plays_as``, the picker the agent follows (``fingerprint.describe``).
REFERENCE_COLUMNS = ("random_verdict", "untrained_verdict", "uninformative", "plays_as")
CLAIM_COLUMNS = ("paper", "claim_id", "claim", "paper_value", "ours", "verdict", "note",
                 "ci95", "at_budgets", "trend", "converged") + REFERENCE_COLUMNS
#: Columns a claim row may leave out (filled with ""): the 95% interval of a compared difference,
#: the convergence columns of ``schedrl.report.convergence`` and the references (RL claims only).
OPTIONAL_COLUMNS = ("ci95", "at_budgets", "trend", "converged") + REFERENCE_COLUMNS
VERDICTS = ("reproduced", "partly reproduced", "not reproduced", "not comparable")


def reference_fields(verdict: str, random_verdict: str, untrained_verdict: str = "", plays_as: str = "") -> dict:
    """The claim row's ``REFERENCE_COLUMNS`` from its verdict and the references' verdicts."""
    for v in (verdict, random_verdict, untrained_verdict):
        if v and v not in VERDICTS:
            raise ValueError(f"unknown verdict {v!r}; use one of {VERDICTS}")
    held = ("reproduced", "partly reproduced")
    refs = [v for v in (random_verdict, untrained_verdict) if v]
    uninformative = "" if not refs else ("yes" if verdict in held and any(v in held for v in refs) else "no")
    return {"random_verdict": random_verdict, "untrained_verdict": untrained_verdict,
            "uninformative": uninformative, "plays_as": plays_as}


def make_claims(rows: list[dict]) -> pd.DataFrame:
    """Build a claims table, checking columns and verdicts."""
    extra = sorted({k for row in rows for k in row} - set(CLAIM_COLUMNS))
    if extra:
        raise ValueError(f"unknown claim column(s) {extra}; use {CLAIM_COLUMNS}")
    frame = pd.DataFrame(rows, columns=list(CLAIM_COLUMNS))
    frame[list(OPTIONAL_COLUMNS)] = frame[list(OPTIONAL_COLUMNS)].astype(object).fillna("")
    bad = sorted(set(frame["verdict"]) - set(VERDICTS))
    if bad:
        raise ValueError(f"unknown verdict(s) {bad}; use one of {VERDICTS}")
    return frame


def write_claims(path: str | Path, rows: list[dict]) -> pd.DataFrame:
    frame = make_claims(rows)
    write_csv(path, frame)
    return frame


def read_claims(path: str | Path) -> pd.DataFrame:
    """Read a claims table; a missing, empty or malformed file raises ``InputFileError``."""
    if not Path(path).is_file():
        raise InputFileError(path, "no such file" if not Path(path).exists() else "not a file")
    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    except (pd.errors.EmptyDataError, pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise InputFileError(path, f"not a claims CSV ({str(exc).splitlines()[0]})") from None
    for col in OPTIONAL_COLUMNS:  # tables written before these columns existed
        if col not in frame.columns:
            frame[col] = ""
    missing = [c for c in CLAIM_COLUMNS if c not in frame.columns]
    if missing:
        raise InputFileError(path, f"claims table lacks column(s) {', '.join(missing)}")
    return frame[list(CLAIM_COLUMNS)]


def verdict(ours: float, paper: float, *, rel_tol: float = 0.1, abs_tol: float = 0.0) -> str:
    """'reproduced' within tolerance, 'partly reproduced' within twice it, else 'not reproduced'."""
    gap = abs(ours - paper)
    tol = max(rel_tol * abs(paper), abs_tol)
    if gap <= tol:
        return "reproduced"
    if gap <= 2 * tol:
        return "partly reproduced"
    return "not reproduced"
