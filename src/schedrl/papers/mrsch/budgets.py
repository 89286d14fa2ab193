"""MRSch's main agent at two training budgets on the same test splits (issue 58).

The default scale trains the main DFP agents on 30,400 jobs at 8x the reference's replay ratio; the
paper-budget scale (``config/paper-budget.yaml``) on the paper's 200,000 at the reference's ratio.
Both evaluate on each workload's whole test split, which does not depend on the training jobs, so
their results trees can be compared player by player. ``compare`` reads two results trees (each
``results/mrsch`` of one run) and puts, per workload and per group, the no-learning players (FCFS,
the GA re-planning and holding, random valid picks, the untrained network) beside the agent of each
budget: its mean, its reduction against FCFS and against random play with paired block-bootstrap 95%
intervals (``claims.gain_ci``: blocks of 100 consecutive test jobs), and the paper-budget agent
against the default one. ``fingerprint_rows`` sets the two agents' behaviour side by side.

The heuristics and references do not depend on the training budget (same jobs, same seeds): the
comparison takes them from the paper-budget tree and refuses two trees whose FCFS schedules differ.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from schedrl.errors import InputFileError
from schedrl.papers.mrsch import claims as mc
from schedrl.papers.mrsch import layout as ml
from schedrl.report import convergence as cv

# players in table order: label -> (method in the eval tree, reference or "")
NO_LEARNING = {"FCFS": ("fcfs", ""), "GA": ("ga", ""), "GA holding": ("ga_hold", ""),
               "random valid picks": ("mrsch", "random"), "untrained network": ("mrsch", "untrained")}
AGENTS = ("default", "paper budget")
METRICS = {"mean_wait_h": ("wait_h", "mean wait (h)"), "mean_slowdown": ("slowdown", "mean slowdown")}
FINGERPRINT_COLUMNS = ("asked_per_job", "contested", "agree_ga", "ga_set_share", "agree_fcfs", "agree_slot_0",
                       "agree_sjf", "top_slot", "top_slot_share", "plays_as")


def _read(path: Path) -> pd.DataFrame:
    if not path.is_file():
        raise InputFileError(path, "no such file (run the scale's evaluation first)")
    return pd.read_csv(path)


def player_jobs(root: str | Path, workload: str) -> pd.DataFrame:
    """Per-job rows of every player on ``workload``'s test split under ``root`` (a results/mrsch tree),
    labelled ``player``: the no-learning labels and ``agent`` (the main MLP agent, seed 0)."""
    d = ml.eval_dir(root, workload)
    jobs, refs = _read(d / "jobs.csv"), _read(d / "references" / "jobs.csv")
    parts = []
    for label, (method, reference) in NO_LEARNING.items():
        src = refs[(refs["method"] == method) & (refs["reference"] == reference)] if reference else \
            jobs[jobs["method"] == method]
        parts.append(src.assign(player=label))
    parts.append(jobs[jobs["method"] == "mrsch"].assign(player="agent"))
    out = pd.concat(parts, ignore_index=True)
    return out[["workload", "player", "job", "wait_h", "slowdown"]]


def _blocks(jobs: pd.DataFrame, player: str, column: str) -> np.ndarray:
    # blocks within each workload: the bootstrap pairs the same test jobs of two players
    part = jobs[jobs["player"] == player].rename(columns={"workload": "jobset"}).assign(method=player)
    return mc.job_blocks(part, player, column)


def reduction(jobs: pd.DataFrame, player: str, baseline: str, column: str) -> tuple[float, float, float]:
    """Relative reduction of ``column``'s mean, ``player`` against ``baseline``, with its paired 95%
    interval (positive: ``player`` lower)."""
    d, lo, hi = cv.bootstrap_diff(_blocks(jobs, player, column), _blocks(jobs, baseline, column),
                                  relative=True, paired=True)
    return -d, -hi, -lo


def compare(default_root: str | Path, paper_root: str | Path, workloads=None) -> pd.DataFrame:
    """One row per (scope, metric): scope a workload or a group ("S1-S5"); the mean of each
    no-learning player and of both agents, and each agent's reduction vs FCFS and vs random play and
    the paper-budget agent's vs the default one, with 95% intervals."""
    rows = []
    names = workloads or [w for ws in ml.GROUPS.values() for w in ws]
    per_workload = {}
    for w in names:
        paper = player_jobs(paper_root, w)
        default = player_jobs(default_root, w)
        a, b = (x[x["player"] == "FCFS"].sort_values("job")["wait_h"].to_numpy() for x in (paper, default))
        if a.shape != b.shape or not np.allclose(a, b):
            raise InputFileError(ml.eval_dir(default_root, w) / "jobs.csv",
                                 f"FCFS differs from {ml.eval_dir(paper_root, w) / 'jobs.csv'}: not the same test split")
        agents = [default[default["player"] == "agent"].assign(player="default"),
                  paper[paper["player"] == "agent"].assign(player="paper budget")]
        per_workload[w] = pd.concat([paper[paper["player"] != "agent"], *agents], ignore_index=True)
    scopes = [(w, [w]) for w in names]
    for group in ml.GROUPS.values():
        have = [w for w in group if w in per_workload]
        if len(have) > 1:
            scopes.append((f"{have[0]}-{have[-1]}", have))
    for scope, ws in scopes:
        jobs = pd.concat([per_workload[w] for w in ws], ignore_index=True)
        for metric, (column, _) in METRICS.items():
            row = {"scope": scope, "metric": metric, "jobs": int((jobs["player"] == "FCFS").sum())}
            for label in [*NO_LEARNING, *AGENTS]:
                row[label] = float(jobs.loc[jobs["player"] == label, column].mean())
            for agent in AGENTS:
                for base, key in (("FCFS", "vs FCFS"), ("random valid picks", "vs random")):
                    row[f"{agent} {key}"], row[f"{agent} {key} low"], row[f"{agent} {key} high"] = \
                        reduction(jobs, agent, base, column)
            row["paper vs default"], row["paper vs default low"], row["paper vs default high"] = \
                reduction(jobs, "paper budget", "default", column)
            rows.append(row)
    return pd.DataFrame(rows)


def fingerprint_rows(default_root: str | Path, paper_root: str | Path) -> pd.DataFrame:
    """The main agent's test-split fingerprints (``fingerprints.csv`` of each tree), both budgets."""
    out = []
    for label, root in (("default", default_root), ("paper budget", paper_root)):
        fp = _read(Path(root) / "fingerprints.csv")
        fp = fp[(fp["method"] == "mrsch") & fp["reference"].isna() & (fp["split"] == "test")
                & (fp["seed"] == fp["seed"].min())]
        cols = [c for c in FINGERPRINT_COLUMNS if c in fp]
        out.append(fp[["workload", *cols]].assign(budget=label))
    return pd.concat(out, ignore_index=True)[["budget", "workload", *[c for c in FINGERPRINT_COLUMNS if c in fp]]]


def _pct(row, key: str) -> str:
    return cv.format_ci(row[key], row[f"{key} low"], row[f"{key} high"], percent=True)


def markdown(table: pd.DataFrame, fingerprints: pd.DataFrame | None, title: str = "") -> str:
    """The comparison as Markdown: one table per metric, then the fingerprints."""
    lines = [f"# {title or 'MRSch: the main agent at the default and at the paper budget'}", "",
             "Same test splits (each workload's whole split), one seed. Reductions are of the mean, "
             "positive = lower than the baseline, with paired block-bootstrap 95% intervals "
             "(blocks of 100 consecutive test jobs). FCFS, the GA and the references are the same "
             "players in both runs.", ""]
    for metric, (_, name) in METRICS.items():
        part = table[table["metric"] == metric]
        lines += [f"## {name}", "",
                  "| scope | jobs | FCFS | GA | GA holding | random | untrained | default | paper budget "
                  "| default vs FCFS | paper budget vs FCFS | default vs random | paper budget vs random "
                  "| paper budget vs default |",
                  "| --- " * 15 + "|"]
        for _, r in part.iterrows():
            vals = " | ".join(f"{r[k]:.3g}" for k in (*NO_LEARNING, *AGENTS))
            lines.append(f"| {r['scope']} | {r['jobs']} | {vals} | {_pct(r, 'default vs FCFS')} | "
                         f"{_pct(r, 'paper budget vs FCFS')} | {_pct(r, 'default vs random')} | "
                         f"{_pct(r, 'paper budget vs random')} | {_pct(r, 'paper vs default')} |")
        lines.append("")
    if fingerprints is not None and not fingerprints.empty:
        cols = list(fingerprints.columns)
        lines += ["## What each agent plays (test-split fingerprints)", "",
                  "Shares of contested decisions. agree_ga: the agent started a job the window optimiser "
                  "(exhaustive, the optimum the GA searches for) would start at that decision; ga_set_share: "
                  "the share of valid picks in that set (what uniform play agrees by expectation); "
                  "agree_fcfs: FCFS's job; agree_slot_0: the window's head; top_slot_share: its most "
                  "frequent slot.", "",
                  "| " + " | ".join(cols) + " |", "| --- " * len(cols) + "|"]
        for _, r in fingerprints.iterrows():
            lines.append("| " + " | ".join(f"{v:.3g}" if isinstance(v, float) else str(v) for v in r) + " |")
        lines.append("")
    return "\n".join(lines)
