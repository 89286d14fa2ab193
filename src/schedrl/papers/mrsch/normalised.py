"""MRSch's evaluation outputs as the long table of the normalised score (issue 68).

Workloads: S1-S10 (as configured), each on its test split; headline metric ``mean_slowdown``, lower
is better (the paper's wait and slowdown gains are both reported; slowdown is the one every other
paper also has). Players, from ``eval/<workload>/metrics.csv`` (each extra seed's MRSch from its
``seed<s>/`` folder) and ``eval/<workload>/references/metrics.csv``:

* heuristics: FCFS and the GA re-planning (the paper's), SJF and smallest area first, each with EASY
  (beyond the paper: the strongest the project has on mean slowdown; evaluation tables written before
  2026-12-04 lack them, and their workloads are scaled by the paper's two alone); the exhaustive
  Pareto check and diagnostic variants are left out;
* agents: MRSch DFP (MLP) per training seed, its CNN variant and scalar RL (REINFORCE) where trained;
* random valid play: the random reference played in each trained agent's seat (one seed per seat);
* untrained: each trained agent's untrained network.

Uniform play over all actions is not a gap here: MRSch's env has no invalid action to add.

The paper's own agent, placed (not measured; ``schedrl.report.normalised.place_authors``): the paper
prints no per-workload numbers, only its largest slowdown reductions "vs another method", up to 41%
on S1-S5 (section V-C; the most noticeable in S4 and S5, its best improvements in S5) and up to 34%
on S6-S10 (section V-E, workload not named). FCFS is the method the text calls the worst on every
workload, so the largest reduction is read as over FCFS, and the S1-S5 one as S5's: placed on S5 as
an improvement ratio (1 - 0.41) over the paper's FCFS, carried onto our best heuristic there (FCFS,
the GA re-planning, SJF or smallest area first, whichever is ours). It is an upper bound twice over (the maximum over
workloads, against the weakest baseline). S1-S4 and S6-S10 have no number of their own: gaps.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from schedrl.papers.mrsch import layout as ml
from schedrl.papers.mrsch.fingerprints import AGENTS, NAMES, REFERENCE_DIR
from schedrl.report.normalised import PLACED, improvement_ratio, long_rows, missing_gap, with_authors

PAPER = "mrsch"
METRIC = "mean_slowdown"
HEURISTICS = {"fcfs": "FCFS", "ga": "GA re-planning", **ml.REFERENCE_HEURISTICS}
#: (paper_values key, the workload it is placed on or None, the workloads it speaks of, section)
REPORTED = (("fig6.slowdown_reduction_max", "S5", "S1-S5", "section V-C"),
            ("fig10.slowdown_reduction_max", None, "S6-S10", "section V-E"))
PLAYER = "paper's MRSch, largest slowdown gain over FCFS"


def placements(values) -> tuple[list[dict], list[dict]]:
    """(placements, gaps): the paper's largest slowdown reductions as improvement ratios over FCFS,
    S1-S5's on S5 (the workload the paper names for its best improvements); S6-S10's names none."""
    out, gaps = [], []
    for key, workload, group, section in REPORTED:
        if key not in values:
            continue
        pct = 100 * float(values[key])
        if workload is None:
            gaps.append({"paper": PAPER, "player": f"{PLAYER} ({group}){PLACED}",
                         "gap": f"not placed: 'up to {pct:g}%' ({section}) names no workload of {group}"})
            continue
        out.append({"paper": PAPER, "workload": workload, "player": f"{PLAYER} ({group})",
                    "value": improvement_ratio(pct, "lower"), "heuristics": {HEURISTICS["fcfs"]: 1.0},
                    "source": f"{section}, Fig. 6: up to {pct:g}% below FCFS (its maximum over {group}, "
                              f"read as {workload}'s)"})
    gaps.append({"paper": PAPER, "player": f"{PLAYER} (other workloads){PLACED}",
                 "gap": "not placed: the paper prints no per-workload slowdown, only its largest gains"})
    return out, gaps


def long_table(spec: dict, root: str | Path = ml.ROOT) -> tuple[pd.DataFrame, list[dict]]:
    rows, gaps = [], []
    base = ml.agent_seed(spec)
    for seed in ml.seeds(spec):
        for workload in spec["workloads"]:
            folder = ml.eval_dir(root, workload, "test", None if seed == base else seed)
            if not (folder / "metrics.csv").is_file():
                gaps.append(missing_gap(PAPER, "all", folder / "metrics.csv"))
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
    from schedrl.papers import paper_values

    placed, unplaced = placements(paper_values(PAPER))
    return with_authors(pd.DataFrame(rows), gaps, placed, unplaced)
