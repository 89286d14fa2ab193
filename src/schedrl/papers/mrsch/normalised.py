"""MRSch's evaluation outputs as the long table of the normalised score (issue 68).

Workloads: S1-S10 (as configured), each on its test split; headline metric ``mean_slowdown``, lower
is better (the paper's wait and slowdown gains are both reported; slowdown is the one every other
paper also has). Players, from ``eval/<workload>/metrics.csv`` (each extra seed's MRSch from its
``seed<s>/`` folder) and ``eval/<workload>/references/metrics.csv``:

* heuristics: FCFS and the GA re-planning (the exhaustive Pareto check and diagnostic variants are
  left out);
* agents: MRSch DFP (MLP) per training seed, its CNN variant and scalar RL (REINFORCE) where trained;
* random valid play: the random reference played in each trained agent's seat (one seed per seat);
* untrained: each trained agent's untrained network.

Uniform play over all actions is not a gap here: MRSch's env has no invalid action to add.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from schedrl.papers.mrsch import experiments as mx
from schedrl.papers.mrsch.fingerprints import AGENTS, NAMES, REFERENCE_DIR
from schedrl.report.normalised import long_rows

PAPER = "mrsch"
METRIC = "mean_slowdown"
HEURISTICS = {"fcfs": "FCFS", "ga": "GA re-planning"}


def long_table(spec: dict, root: str | Path = mx.ROOT) -> tuple[pd.DataFrame, list[dict]]:
    rows, gaps = [], []
    base = int(spec["seed"])
    for seed in mx.seeds(spec):
        for workload in spec["workloads"]:
            folder = mx.eval_dir(root, workload, "test", None if seed == base else seed)
            if not (folder / "metrics.csv").is_file():
                gaps.append({"paper": PAPER, "player": "all", "gap": f"{folder / 'metrics.csv'} missing (run its rule first)"})
                continue
            metrics = pd.read_csv(folder / "metrics.csv")
            for _, m in metrics.iterrows():
                method = m["method"]
                if method in HEURISTICS and seed == base:
                    rows.append(long_rows(PAPER, workload, HEURISTICS[method], "heuristic", 0, METRIC, "lower", m[METRIC]))
                elif method in AGENTS:
                    rows.append(long_rows(PAPER, workload, NAMES[method], "agent", seed, METRIC, "lower", m[METRIC]))
            refs = folder / REFERENCE_DIR / "metrics.csv"
            if not refs.is_file():
                gaps.append({"paper": PAPER, "player": "random valid, untrained", "gap": f"{refs} missing"})
                continue
            for _, r in pd.read_csv(refs).iterrows():
                if r["method"] not in AGENTS:
                    continue
                if r["reference"] == "random":
                    # one random play per trained agent's seat: seeds 100 * seed + seat
                    rows.append(long_rows(PAPER, workload, "random valid", "random",
                                          100 * seed + AGENTS.index(r["method"]), METRIC, "lower", r[METRIC]))
                elif r["reference"] == "untrained":
                    rows.append(long_rows(PAPER, workload, f"untrained {NAMES[r['method']]}", "untrained", seed,
                                          METRIC, "lower", r[METRIC]))
    return pd.DataFrame(rows), gaps
