"""Claims tables: one row per claim a paper makes, the paper's value, ours and a verdict.

Every paper's rules write ``results/<paper>/claims.csv`` with ``CLAIM_COLUMNS``; the report
concatenates them. Verdicts come from ``VERDICTS`` so the report can count them.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from schedrl.errors import InputFileError
from schedrl.io import write_csv
from schedrl.report.convergence import NOT_CONVERGED

#: No-learning references of an RL claim (issue 41): its verdict recomputed with the trained agent
#: replaced by the uniform-random valid policy and by the untrained network (same seeds, jobs and
#: protocol), ``uninformative`` ("yes" when either reference also reproduces it, fully or partly,
#: "no" otherwise) and ``plays_as``, the picker the agent follows (``fingerprint.describe``).
REFERENCE_COLUMNS = ("random_verdict", "untrained_verdict", "uninformative", "plays_as")
CLAIM_COLUMNS = ("paper", "claim_id", "claim", "paper_value", "ours", "verdict", "note",
                 "ci95", "at_budgets", "trend", "converged") + REFERENCE_COLUMNS + ("cause",)
#: Columns a claim row may leave out (filled with ""): the 95% interval of a compared difference,
#: the convergence columns of ``schedrl.report.convergence``, the references (RL claims only) and
#: ``cause`` (one of ``CAUSES`` that only the paper's code knows: ``claim_cause`` derives the rest).
OPTIONAL_COLUMNS = ("ci95", "at_budgets", "trend", "converged") + REFERENCE_COLUMNS + ("cause",)
VERDICTS = ("reproduced", "partly reproduced", "not reproduced", "not comparable")
#: One letter per verdict, as the report's tables and the figures' captions print it.
VERDICT_SHORT = {"reproduced": "R", "partly reproduced": "P", "not reproduced": "N", "not comparable": "C"}
#: Why a claim is not (or only partly) reproduced, one per claim (issue 39).
CAUSES = ("trainer fails probe", "not converged", "in-sample only", "setup", "process", "agent = heuristic", "uninformative",
          "paper value not comparable", "disagrees")


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


#: The cause of an RL claim whose agents' trainer fails the learning probe (``with_trainer_probes``).
TRAINER_FAILS = CAUSES[0]


def is_rl_claim(row) -> bool:
    """Whether a claim row rests on trained agents: it has a no-learning reference or a convergence status."""
    return any(str(row.get(c, "") or "") not in ("", "nan") for c in ("random_verdict", "untrained_verdict", "converged"))


def with_trainer_probes(rows: list[dict], probes: dict[str, str | None]) -> list[dict]:
    """``rows`` with the RL claims marked where every player the run trains has a trainer that fails the
    learning probe (``probes``: player -> finding, ``recipe_probes.run_probes``): a verdict on RL then
    says nothing about learning (issue 41's rule). Each RL claim's note says so; one not (fully)
    reproduced and comparable gets the cause ``TRAINER_FAILS`` unless the paper's code set one. Where
    only some players' trainers fail a claim cannot be pinned on them, and the rows stay as they are."""
    failing = {p: f for p, f in probes.items() if f is not None and not f.startswith("passed")}
    if not probes or len(failing) < len(probes):
        return rows
    players = ", ".join(failing)
    out = []
    for row in rows:
        row = dict(row)
        if is_rl_claim(row):
            said = f"the trainer of {players} fails the learning probe (`schedrl probe`): no verdict on learning"
            row["note"] = "; ".join(x for x in (str(row.get("note", "") or ""), said) if x)
            if row.get("verdict") in ("not reproduced", "partly reproduced") and not row.get("cause"):
                row["cause"] = TRAINER_FAILS
        out.append(row)
    return out


def claim_cause(row) -> str:
    """The cause of a claim that is not (fully) reproduced, "" for a reproduced one.

    A cause the paper's code set (``in-sample only``, ``setup``, ``process``: facts about its
    protocol only it knows) wins; otherwise it is derived from the row: a paper value that is not
    comparable; a reference (random play, the untrained network) that gets the verdict too
    (``uninformative``); an agent that follows one picker (``agent = heuristic``, from its
    fingerprint); a value still moving with training (``not converged``); else ``disagrees``, our
    evidence against the paper's.
    """
    verdict = row.get("verdict", "")
    if verdict == "reproduced":
        return ""
    if row.get("cause", "") in CAUSES:
        return row["cause"]
    if verdict == "not comparable":
        return "paper value not comparable"
    if row.get("uninformative", "") == "yes":
        return "uninformative"
    if row.get("plays_as", ""):
        return "agent = heuristic"
    if row.get("converged", "") == NOT_CONVERGED:
        return "not converged"
    return "disagrees"


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
    bad = sorted(set(frame["cause"]) - set(CAUSES) - {""})
    if bad:
        raise ValueError(f"unknown cause(s) {bad}; use one of {CAUSES}")
    frame["cause"] = [claim_cause(row) for row in frame.to_dict("records")]
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
    frame = frame[list(CLAIM_COLUMNS)].copy()
    frame["cause"] = [claim_cause(row) for row in frame.to_dict("records")]  # tables written before causes
    return frame


