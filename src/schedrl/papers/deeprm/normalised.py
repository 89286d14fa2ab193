"""DeepRM's evaluation outputs as the long table of the normalised score (issue 68).

Workloads: each configured variant at each evaluated arrival rate, on the held-out job sets
(``heldout`` protocol); headline metric ``mean_slowdown`` (every arrived job counted), lower is
better, each player's value the mean over the job sets. Players:

* random valid play (the 0): the uniform-random valid references (``reference/random/seed<k>``),
  its seeds;
* uniform play over all actions: the ``random`` baseline, DeepRM's random agent (uniform over the
  W + 1 actions, ``schedulers.grid.random``: a job that does not fit or an empty slot acts as the
  void action), role ``uniform``; it was counted as random valid play before 2026-12-01;
* heuristics: SJF and Packer, and (beyond the report) ``first_slot``, the lowest slot the env can
  place: a fixed rule that beats SJF and random valid play at rates 0.9 and 1.0, where SJF does not
  beat random valid play (``spec["baselines"]`` other than random; issue 68: the best heuristic is
  the best of the paper's and the strongest the project has there);
* agents: the SB3 agents trained for slowdown, each seed, and our DeepRM (Mao et al.) agent at its
  own training rate;
* untrained: each agent's untrained network (same architecture and seed);
* authors: the report authors' published slowdown agents and DeepRM's own weights, where
  ``deeprm.reference_dirs`` holds them; and the report's own numbers, placed (not measured,
  ``schedrl.report.normalised.place_authors``): its slowdown agents at 130% load (``new_job_rate``
  0.7) against its SJF in the same figure, Fig. 5.3 (discrete phase 2: A2C 3.9, TRPO 4.0, SJF 4.9)
  and Fig. 5.2 (discrete phase 1: DQN 3.8, SJF 2.9), each on our held-out ``<variant> rate 0.7``.
  The report gives no Packer slowdown, so where our best heuristic is Packer its SJF is used (the
  note says so).

A rate's held-out job sets are the same for every player and seed (``eval.jobset_seed`` on), so random
valid play's rows carry their slowdown per job set (``PER_JOBSET``): the tie test of a workload's anchors
measures random play's noise between its seeds on each job set, not between two seeds' means at default scale.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from schedrl.papers.deeprm import layout as dl
from schedrl.report.normalised import PER_JOBSET, jobset_cell, long_rows, missing_gap, with_authors

PAPER = "deeprm"
METRIC = "mean_slowdown"
PROTOCOL = "heldout"
UNIFORM = "uniform over all actions (DeepRM's random)"
#: roles whose rows carry their value per held-out job set (``PER_JOBSET``): the anchors' tie test reads them
PAIRED_ROLES = ("random",)
REPORT_RATE = 0.7  # the report's "130%" cluster load (paper_values: load_box)
#: (variant, algo, figure) of the report's slowdown agents beside its SJF in the same figure
REPORTED = (("discrete-image", "a2c", "Fig. 5.3"), ("discrete-image", "trpo", "Fig. 5.3"),
            ("discrete-stacked", "dqn", "Fig. 5.2"))


def placements(values) -> list[dict]:
    """The report's agents and its SJF at 130% load (``paper_values.yaml`` keys
    ``<variant>.<algo>.mean_slowdown``), one placement each on ``<variant> rate 0.7``."""
    out = []
    for variant, algo, figure in REPORTED:
        agent, sjf = f"{variant}.{algo}.{METRIC}", f"{variant}.sjf.{METRIC}"
        if agent in values and sjf in values:
            out.append({"paper": PAPER, "workload": _workload(variant, REPORT_RATE),
                        "player": f"report's {dl.label(algo)}", "value": float(values[agent]),
                        "heuristics": {dl.label("sjf"): float(values[sjf])},
                        "source": f"{figure} (130% load, the report's own job sequence)"})
    return out


def _workload(variant: str, rate: float) -> str:
    return f"{variant} rate {rate:g}"


def _episodes(path: Path) -> pd.DataFrame | None:
    return pd.read_csv(path) if Path(path).is_file() else None


def long_table(spec: dict, root: str | Path = dl.ROOT) -> tuple[pd.DataFrame, list[dict]]:
    """(long table, gaps): every player's mean slowdown per held-out workload; a gap row per
    player that has no evaluation (not built, or not evaluated by this project yet)."""
    rows, gaps = [], []

    def add(path, player, role, seed, variant, rates=None):
        frame = _episodes(path)
        if frame is None:
            gaps.append(missing_gap(PAPER, player, path))
            return
        for rate, g in frame.groupby("rate", sort=True):
            if rates is None or any(np.isclose(rate, r) for r in rates):
                row = long_rows(PAPER, _workload(variant, rate), player, role, seed, METRIC, "lower", g[METRIC].mean())
                if role in PAIRED_ROLES:  # random play's noise measured on each held-out job set (anchors' tie test)
                    row[PER_JOBSET] = jobset_cell(g["jobset_seed"], g[METRIC])
                rows.append(row)

    for variant in spec["variants"]:
        for name in spec["baselines"]:
            role = "uniform" if name == "random" else "heuristic"
            player = UNIFORM if name == "random" else dl.label(name)
            add(dl.eval_paths(dl.baseline_dir(root, variant, name), PROTOCOL)["episodes"], player, role, -1, variant)
        for algo, _, seed in dl.agent_runs(spec, variant, objectives=["slowdown"]):
            add(dl.eval_paths(dl.run_dir(root, variant, algo, "slowdown", seed), PROTOCOL)["episodes"],
                dl.label(algo), "agent", seed, variant)
        for v, ref, algo, seed in dl.reference_runs(spec):
            if v != variant:
                continue
            path = dl.eval_paths(dl.reference_dir(root, v, ref, algo, seed), PROTOCOL)["episodes"]
            if ref == "random":
                add(path, "random valid", "random", seed, variant)
            elif algo == dl.DEEPRM_AGENT:
                rates = [r for r, s in dl.deeprm_agent_runs(spec) if s == seed]
                add(path, "untrained DeepRM agent", "untrained", seed, variant, rates)
            else:
                add(path, f"untrained {dl.label(algo)}", "untrained", seed, variant)
    agent = spec.get("deeprm_agent")
    for rate, seed in dl.deeprm_agent_runs(spec):
        path = dl.eval_paths(dl.deeprm_agent_dir(root, agent["variant"], rate, seed), PROTOCOL)["episodes"]
        add(path, dl.DEEPRM_AGENT_PLAYER, "agent", seed, agent["variant"], [rate])
    authors = dl.authors_runs(spec)
    for variant, name, _ in authors:
        if not name.endswith("-slowdown"):
            continue
        algo = name.removesuffix("-slowdown")
        add(dl.eval_paths(dl.authors_dir(root, variant, name), PROTOCOL)["episodes"],
            f"authors' {dl.label(algo)}", "authors", 0, variant)
    if not authors:
        gaps.append({"paper": PAPER, "player": "authors' agents",
                     "gap": "deeprm.reference_dirs names no folder that exists here: the authors' agents are not played"})
    from schedrl.papers import paper_values

    return with_authors(pd.DataFrame(rows), gaps, placements(paper_values(PAPER)))
