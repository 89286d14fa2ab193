"""What MRSch's trained agents do (issue 41): behaviour fingerprints and no-learning references.

Fingerprints. The test and in-sample evaluations (``experiments.evaluate_frame`` with a ``Record``)
record every decision of the DFP agents (MLP, CNN; ``dfp_view``: inputs are (observation,
measurements, goal)) and of the scalar-RL baseline (REINFORCE, ``reinforce_view``), and write one
``fingerprint.json``-style file per agent into ``<eval dir>/fingerprints/<method>[-<reference>].json``
with the agent's identity and ``asked_per_job`` (decisions / jobs: issue 35 found the agent asked
a fraction of the times the paper's simulator asks it). Budget checkpoints are not fingerprinted.
The GA and FCFS are heuristics and play outside the env: no fingerprint.

References. The same evaluation plays each trained agent's seat twice more with no learning:
``random`` (a seeded uniform choice among the env's valid actions) and ``untrained`` (the same
network built with the training seed, no update), with the same job sets, window, protocol and
timing. Their metrics, per-job rows and goal traces go to ``<eval dir>/references/``. The claims
are then computed again on a copy of the results tree in which every trained agent's rows (MRSch,
its CNN variant and scalar RL at once) are those of the reference (``reference_verdicts``), and
each RL claim row gets ``random_verdict`` / ``untrained_verdict`` / ``uninformative`` / ``plays_as``.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

from schedrl.experiments import fingerprint as fpm

REFERENCES = ("random", "untrained")
AGENTS = ("mrsch", "mrsch_cnn", "scalar_rl")  # the trained agents of an evaluation
NAMES = {"mrsch": "MRSch DFP (MLP)", "mrsch_cnn": "MRSch DFP (CNN)", "scalar_rl": "scalar RL (REINFORCE)"}
FINGERPRINT_DIR, REFERENCE_DIR = "fingerprints", "references"


# -- the references' policies ----------------------------------------------------------------------
def random_picker(seed_parts):
    """``pick(obs, info, env)``: a uniform choice among the env's valid actions (any action when
    none is valid), from a generator seeded with ``seed_parts``."""
    rng = np.random.default_rng(seed_parts)

    def pick(_obs, _info, env):
        mask = np.asarray(env.unwrapped.action_masks(), dtype=bool)
        valid = np.flatnonzero(mask) if mask.any() else np.arange(len(mask))
        return int(rng.choice(valid))

    return pick


def untrained_dfp(trained, seed: int):
    """The trained DFP agent's architecture and config, initialised as ``train_dfp`` initialises
    it with ``seed`` (``torch.manual_seed`` then the constructor), never updated."""
    import torch

    from schedrl.agents.dfp import DFPAgent

    torch.manual_seed(int(seed))
    agent = DFPAgent(trained.obs_dim, trained.n_meas, trained.n_actions, trained.cfg)
    agent.net.eval()
    return agent


def untrained_reinforce(trained, seed: int):
    """The scalar-RL policy's network as ``train_reinforce`` builds it with ``seed``, never updated."""
    import torch

    from schedrl.agents.reinforce import ReinforcePolicy, build_network

    meta = trained.meta
    torch.manual_seed(int(seed))
    net = build_network(int(np.prod(trained.obs_shape)), int(trained.n_actions), meta["hidden"], meta["activation"],
                        meta.get("network", "mlp"))
    return ReinforcePolicy(net, trained.head, trained.n_actions, trained.obs_shape, meta, trained.mask_actions)


# -- what one evaluation records -----------------------------------------------------------------
@dataclass
class Record:
    """Recorders per played agent (kept across the job sets of an in-sample evaluation) and the
    references' rows; ``evaluate_frame`` fills it, ``write_record`` writes it."""

    recorders: dict = field(default_factory=dict)  # label -> (FingerprintRecorder, view, meta)
    jobs: dict = field(default_factory=dict)  # label -> jobs played
    ref_metrics: list = field(default_factory=list)
    ref_jobs: list = field(default_factory=list)
    ref_goals: list = field(default_factory=list)
    part: int = 0  # the job set being played (in-sample: one evaluate_frame per set)

    def recorder(self, label: str, view_fn, meta: dict, dfp: bool):
        if label not in self.recorders:
            # DFP scores need (obs, measurements, goal); play_picker fills the last two per decision
            rec = fpm.FingerprintRecorder(None, policy_input=(lambda o, e: None) if view_fn is None else None)
            rec.dfp = dfp
            self.recorders[label] = (rec, view_fn, meta)
            self.jobs[label] = 0
        return self.recorders[label][0]


def label_of(method: str, reference: str = "") -> str:
    return f"{method}-{reference}" if reference else method


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
        from schedrl.papers.mrsch.experiments import pool_metrics

        metrics = pd.DataFrame(record.ref_metrics)
        if split != "test":  # in-sample: per reference, the mean over job sets as the main table
            metrics = pd.concat([pool_metrics([g.drop(columns=["reference", "part"])]).assign(
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
    from schedrl.papers.mrsch import experiments as mx

    root, dest = Path(root), Path(dest)
    for s in mx.seeds(spec):
        extra = None if s == int(spec["seed"]) else s
        for split in ("test", "train"):
            for w in spec["workloads"]:
                src = mx.eval_dir(root, w, split, extra)
                if not (src / "metrics.csv").is_file():
                    continue
                refs = src / REFERENCE_DIR
                if not (refs / "metrics.csv").is_file():
                    return False
                out = mx.eval_dir(dest, w, split, extra)
                out.mkdir(parents=True, exist_ok=True)
                for name in ("metrics.csv", "jobs.csv", "goals.csv"):
                    if not (src / name).is_file():
                        continue
                    main = mx.read_csv(src / name)
                    ref = mx.read_csv(refs / name) if (refs / name).is_file() else None
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
    from schedrl.papers.mrsch.experiments import read_csv

    return read_csv(path)


def add_references(spec: dict, root, rows: list[dict], claims_rows) -> list[dict]:
    """Fill each RL claim row's reference columns (``reference_fields``) and append ``plays_as``
    to its note; rows about no trained agent are left as they are."""
    from schedrl.report.claims import reference_fields

    verdicts = reference_verdicts(spec, root, claims_rows)
    table = read_table(root)
    for row in rows:
        cid = row["claim_id"]
        if claim_agents(cid) is None:
            continue
        plays = plays_as_of(table, cid)
        row.update(reference_fields(row["verdict"], verdicts.get("random", {}).get(cid, ""),
                                    verdicts.get("untrained", {}).get(cid, ""), plays))
        if plays:
            row["note"] = f"{row['note']}; {plays}" if row.get("note") else plays
    return rows
