"""The MDP-design paper's evaluation outputs as the long table of the normalised score (issue 68).

Workloads: each configured Table 3 scenario at the main horizon H (``scenario <id>``), on its
``eval.trials`` evaluation trials (the same job sets for every player); headline metric
``mean_slowdown`` (never-started jobs counted as started at T: the verdicts' reading), lower is
better, each player's value the mean over the trials. Players:

* random valid play (the anchor, role ``random``): the uniform-random valid reference played in the
  base MDP (image-like, DeepRM's env, where SJF plays too), one seed per training seed
  (``reference/random/H<H>/image/...``). Random valid play in every other MDP of the spec is role
  ``reference``: scored, never the 0 (the MDPs differ in their decision points, so random play
  differs too; anchoring on the base MDP keeps the 0 the same whichever MDPs a scale trains);
* heuristics: SJF and SJF holding long jobs back (``schedulers.grid.SJFHold``, its longest startable
  job chosen on validation job sets; tables since 2026-12-04), both in
  ``reference/sjf/H<H>/eval_episodes.csv`` (rule ``mdp_sjf``); the better of the two per scenario is
  the 1. The paper compares MDPs, not heuristics, so these are the project's own anchors;
* agents: PPO in each MDP of the spec, each seed (the final model), and Fig. 6's transferred agent
  (trained in one scenario, played in every scenario), each seed;
* untrained: each MDP's untrained network, each seed (``reference/untrained/...``);
* uniform play over all actions, valid or not (role ``uniform``): played in the base MDP's env like
  SJF, once per seed (``reference/uniform/H<H>/eval_episodes.csv``, rule ``mdp_uniform``).

Left out, each a gap: the horizon study's second horizon (SJF and the anchor are played at the main
horizon only), the budget checkpoints (the scale is of final models), the references' plays of the
transferred agent (the same network or picker as the source scenario's own reference) and the
paper's own agents: the paper prints no bar heights
for Figs. 3-6 and runs no heuristic beside its agents (SJF is ours), so there is nothing to place
(``AUTHORS_GAP``).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from schedrl.papers.mdp import evaluation as me
from schedrl.papers.mdp import layout as ml
from schedrl.papers.mdp import references as mr
from schedrl.report.normalised import PLACED, long_rows, missing_gap

PAPER = "mdp"
METRIC = me.METRIC
ANCHOR_MDP = ml.BASE  # random valid play in this MDP is the 0
AUTHORS_GAP = {"paper": PAPER, "player": "paper's agents" + PLACED,
               "gap": "not placed: the paper reports no heuristic beside its agents (it compares MDPs with each "
               "other) and prints no slowdown values for Figs. 3-6, only t-test outcomes"}


def workload_name(sid: int) -> str:
    """A scenario's workload name in the long table ("scenario 3")."""
    return f"scenario {int(sid)}"


def agent_player(name: str) -> str:
    """The long table's player name of PPO trained in MDP ``name`` ("PPO image-like")."""
    return f"PPO {ml.variant(name).label}"


def long_table(spec: dict, root: str | Path = ml.ROOT) -> tuple[pd.DataFrame, list[dict]]:
    """(long table, gaps): every player's mean slowdown per scenario; a gap row per player whose
    evaluation is not on disk (not built yet) or not made by this project."""
    rows, gaps = [], []
    H = int(spec["horizon"])

    def add(path, sid, player, role, seed, policy=None):
        path = Path(path)
        if not path.is_file():
            gaps.append(missing_gap(PAPER, player, path))
            return
        frame = pd.read_csv(path)
        if policy is not None:  # SJF's table holds SJF and SJF holding long jobs back
            frame = mr.heuristic_rows(frame, policy)
        if "scenario" in frame.columns:  # a transfer table holds every scenario
            frame = frame[frame["scenario"] == int(sid)]
        if frame.empty:
            gaps.append({"paper": PAPER, "player": player, "gap": f"{path} has no trial of scenario {sid}"})
            return
        rows.append(long_rows(PAPER, workload_name(sid), player, role, seed, METRIC, "lower", frame[METRIC].mean()))

    sjf = ml.sjf_path(root, H)
    uniform = ml.uniform_path(root, H)
    uniform_frame = pd.read_csv(uniform) if uniform.is_file() else None
    if uniform_frame is None:
        gaps.append(missing_gap(PAPER, "uniform over all actions", uniform))
    for sid in spec["scenarios"]:
        add(sjf, sid, "SJF", "heuristic", 0, mr.SJF)
        if sjf.is_file() and len(mr.heuristic_rows(pd.read_csv(sjf), mr.SJF_HOLD)):  # tables since 2026-12-04
            add(sjf, sid, mr.HOLD_LABEL, "heuristic", 0, mr.SJF_HOLD)
        for seed in spec["seeds"] if uniform_frame is not None else ():
            part = uniform_frame[(uniform_frame["scenario"] == int(sid)) & (uniform_frame["seed"] == int(seed))]
            if part.empty:
                gaps.append({"paper": PAPER, "player": "uniform over all actions",
                             "gap": f"{uniform} has no trial of scenario {sid}, seed {seed}"})
            else:
                rows.append(long_rows(PAPER, workload_name(sid), "uniform over all actions", "uniform", seed, METRIC,
                                      "lower", part[METRIC].mean()))
        for name in spec["variants"]:
            label = ml.variant(name).label
            for seed in spec["seeds"]:
                add(ml.eval_path(ml.run_dir(root, H, name, sid, seed)), sid, agent_player(name), "agent", seed)
                ref = ml.reference_root(root, "random")
                add(ml.eval_path(ml.run_dir(ref, H, name, sid, seed)), sid, f"random valid in {label}",
                    "random" if name == ANCHOR_MDP else "reference", seed)
                ref = ml.reference_root(root, "untrained")
                add(ml.eval_path(ml.run_dir(ref, H, name, sid, seed)), sid, f"untrained {label}", "untrained", seed)
    t = ml.transfer_spec(spec)
    if t is not None:
        for name in ml.transfer_variants(spec):
            player = f"PPO {ml.variant(name).label} from scenario {t['scenario']}"
            for seed in spec["seeds"]:
                for sid in spec["scenarios"]:
                    add(ml.eval_path(ml.transfer_dir(root, H, name, t["scenario"], seed)), sid, player, "agent", seed)
    study = ml.horizon_study(spec)
    if study is not None:
        gaps.append({"paper": PAPER, "player": f"agents at H {study['horizon']}",
                     "gap": f"not placed: SJF and random valid play are played at the main horizon H {H} only"})
    gaps.append(dict(AUTHORS_GAP))
    return pd.DataFrame(rows), gaps
