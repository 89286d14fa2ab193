"""MRSch's fingerprint tables and the claims' no-learning references (issue 41), written and read
after the evaluations: ``write_record`` (an evaluation's fingerprints and reference rows),
``fingerprint_csv`` (``results/mrsch/fingerprints.csv``) and ``add_references`` (each RL claim
computed again on a results tree whose trained agents are a reference's). What is recorded and how
the references play: ``schedrl.papers.mrsch.fingerprints``; where they play (beside the trained
agents, in the same evaluation): ``evaluation.evaluate_frame`` and ``evaluation.baseline_rows``.
Imports flow one way: fingerprints -> evaluation -> this module -> claims (``layout`` under all).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pandas as pd

from schedrl.experiments import fingerprint as fpm
from schedrl.papers.mrsch import evaluation as mev
from schedrl.papers.mrsch import layout as ml
from schedrl.papers.mrsch.fingerprints import (
    FINGERPRINT_DIR,
    REFERENCE_DIR,
    REFERENCES,
    Record,
)


def write_record(record: Record, out_dir, split: str) -> list[Path]:
    """``fingerprints/<label>.json`` per recorded agent and ``references/{metrics,jobs,goals}.csv``."""
    from schedrl.io import write_csv

    out, paths = Path(out_dir), []
    for label, (rec, view_fn, meta) in record.recorders.items():
        fp = fpm.fingerprint(rec.decisions, view_fn() if view_fn is not None else None)
        jobs = record.jobs[label]
        path = out / FINGERPRINT_DIR / f"{label}.json"
        if split != "test":  # the same agent on its training sets: a row of its own in the table
            meta = {**meta, "agent": f"{meta['agent']} in-sample"}
        fpm.write_fingerprint(path, fp, **meta, split=split, jobs=jobs,
                              asked_per_job=float(rec.decisions.total / jobs) if jobs else float("nan"))
        paths.append(path)
    (out / FINGERPRINT_DIR).mkdir(parents=True, exist_ok=True)
    refs = out / REFERENCE_DIR
    refs.mkdir(parents=True, exist_ok=True)
    if record.ref_metrics:
        metrics = pd.DataFrame(record.ref_metrics)
        if split != "test":  # in-sample: per reference, the mean over job sets as the main table
            metrics = pd.concat([mev.pool_metrics([g.drop(columns=["reference", "part"])]).assign(
                reference=r, jobsets=g["part"].nunique()) for r, g in metrics.groupby("reference", sort=False)],
                ignore_index=True)
        else:
            metrics = metrics.drop(columns="part")
        write_csv(refs / "metrics.csv", metrics, float_format="%.6g")
        jobs = pd.concat(record.ref_jobs, ignore_index=True)
        # the test split is one table: its per-job rows carry no job set, as the main jobs.csv
        write_csv(refs / "jobs.csv", jobs.drop(columns="jobset") if split == "test" else jobs, float_format="%.6g")
        if record.ref_goals:
            write_csv(refs / "goals.csv", pd.concat(record.ref_goals, ignore_index=True), float_format="%.6g")
    return paths


# -- the paper's table -----------------------------------------------------------------------------
def fingerprint_paths(dirs) -> list[Path]:
    return sorted(p for d in dirs for p in Path(d).glob("*.json"))


def fingerprint_csv(dirs, out) -> pd.DataFrame:
    """``results/mrsch/fingerprints.csv``: one row per fingerprinted agent of every evaluation."""
    from schedrl.io import write_csv

    paths = fingerprint_paths(dirs)
    frame = fpm.fingerprint_table(paths) if paths else pd.DataFrame(columns=["path", "agent"])
    write_csv(out, frame, float_format="%.6g")
    return frame


def pooled(frame: pd.DataFrame) -> dict:
    """One fingerprint for several (the agents a claim rests on): shares weighted by contested
    decisions, counts summed; enough for ``plays_as`` and ``describe``."""
    n = frame["contested"].fillna(0).astype(float)
    out = {"contested": int(n.sum()), "decisions": int(frame["decisions"].fillna(0).sum())}
    if not out["contested"]:
        return out
    for c in [c for c in frame.columns if c.startswith("agree_")]:
        out[c] = float((frame[c].fillna(0).astype(float) * n).sum() / n.sum())
    slots = sorted((c for c in out if c.startswith("agree_slot_")), key=lambda c: int(c.rsplit("_", 1)[1]))
    if slots:
        best = max(slots, key=out.get)
        out["top_slot"], out["top_slot_share"] = int(best.rsplit("_", 1)[1]), out[best]
    out["plays_as"] = fpm.plays_as(out)
    return out


def claim_agents(claim_id: str) -> tuple[list[str], str, str] | None:
    """(methods, group, split) of the trained agents a claim rests on; None for a claim about no
    evaluated agent (the state size, the training-loss ordering of Fig. 4)."""
    if claim_id in ("state-size", "fig4-ordering"):
        return None
    split = "train" if claim_id.startswith("insample-") else "test"
    group = "three" if ("fig10" in claim_id or claim_id == "decision-three") else "two"
    if claim_id.startswith("fig3"):
        return ["mrsch", "mrsch_cnn"], group, split
    if claim_id == "fig5-scalar-over-ga-s3":
        return ["scalar_rl"], group, split
    return ["mrsch"], group, split


def plays_as_of(table: pd.DataFrame | None, claim_id: str) -> str:
    who = claim_agents(claim_id)
    if who is None or table is None or table.empty:
        return ""
    methods, group, split = who
    ref = table["reference"].map(lambda v: "" if pd.isna(v) else str(v))
    part = table[(ref == "") & table["method"].isin(methods) & (table["group"] == group) & (table["split"] == split)]
    return fpm.describe(pooled(part)) if len(part) else ""


# -- the claims on the references ----------------------------------------------------------------
def _in_order(main: pd.DataFrame, ref: pd.DataFrame, keys=("method",)) -> pd.DataFrame:
    """``main`` with the rows of every method in ``ref`` replaced by ``ref``'s, in ``main``'s order
    (ties in the claims go to the first row)."""
    methods = set(ref["method"])
    ref = ref[[c for c in main.columns if c in ref.columns]]  # the main table's columns only
    parts = []
    for m in dict.fromkeys(main["method"]):
        parts.append(ref[ref["method"] == m] if m in methods else main[main["method"] == m])
    return pd.concat(parts, ignore_index=True)


def substitute_tree(spec: dict, root, reference: str, dest) -> bool:
    """A results tree at ``dest`` where every trained agent's metrics, per-job rows and goal trace
    are ``reference``'s (the training folders linked as they are, no budget evaluation); False when
    an evaluation has no references (a tree written before them)."""
    root, dest = Path(root), Path(dest)
    for s in ml.seeds(spec):
        extra = ml.extra_or_none(spec, s)
        for split in ("test", "train"):
            for w in spec["workloads"]:
                src = ml.eval_dir(root, w, split, extra)
                if not (src / "metrics.csv").is_file():
                    continue
                refs = src / REFERENCE_DIR
                if not (refs / "metrics.csv").is_file():
                    return False
                out = ml.eval_dir(dest, w, split, extra)
                out.mkdir(parents=True, exist_ok=True)
                for name in ("metrics.csv", "jobs.csv", "goals.csv"):
                    if not (src / name).is_file():
                        continue
                    main = mev.read_csv(src / name)
                    ref = mev.read_csv(refs / name) if (refs / name).is_file() else None
                    if ref is not None:
                        ref = ref[ref["reference"] == reference].drop(columns="reference")
                    if name == "goals.csv":  # MRSch's goal trace: the reference's when it has one
                        table = ref.drop(columns="method") if ref is not None and len(ref) else main
                    else:
                        table = _in_order(main, ref) if ref is not None else main
                    table.to_csv(out / name, index=False)
    for name in ("dfp", "scalar_rl"):
        if (root / name).exists():
            (dest / name).symlink_to((root / name).resolve(), target_is_directory=True)
    return True


def reference_verdicts(spec: dict, root, claims_rows) -> dict[str, dict[str, str]]:
    """reference -> claim_id -> verdict, from ``claims_rows(spec, tree, references=False)`` on each
    substituted tree ({} where the evaluations have no references)."""
    out = {}
    for reference in REFERENCES:
        with tempfile.TemporaryDirectory(prefix=f"mrsch-{reference}-") as tmp:
            if not substitute_tree(spec, root, reference, tmp):
                continue
            out[reference] = {r["claim_id"]: r["verdict"] for r in claims_rows(spec, tmp, references=False)}
    return out


def read_table(root) -> pd.DataFrame | None:
    path = Path(root) / "fingerprints.csv"
    if not path.is_file():
        return None
    return mev.read_csv(path)


def add_references(spec: dict, root, rows: list[dict], claims_rows) -> list[dict]:
    """Fill each RL claim row's reference columns (``reference_fields``) and append ``plays_as``
    to its note; rows about no trained agent are left as they are."""
    from schedrl.report.claims import reference_fields

    verdicts = reference_verdicts(spec, root, claims_rows)
    table = read_table(root)
    for row in rows:
        cid = row["claim_id"]
        if claim_agents(cid) is None or ml.is_missing(row):  # no agent, or its runs not trained at this scale
            continue
        plays = plays_as_of(table, cid)
        row.update(reference_fields(row["verdict"], verdicts.get("random", {}).get(cid, ""),
                                    verdicts.get("untrained", {}).get(cid, ""), plays))
        if plays:
            row["note"] = f"{row['note']}; {plays}" if row.get("note") else plays
    return rows
