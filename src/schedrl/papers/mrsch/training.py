"""What trains for MRSch: the DFP agents (``train_dfp_run``), the scalar-RL baseline
(``train_scalar_run``), and the choice, on the validation splits, of the checkpoint the evaluation
plays (``select_model``).

Agents. One DFP agent per resource count, not per workload (the paper does not say; the goal
vector is what adapts to a workload): group ``two`` (nodes and burst buffer) trains on job sets
from the training splits of S1-S5, group ``three`` (plus power) on S6-S10 (the job sets:
``layout.jobsets``). The agent order of kinds is an *ordering*; the paper's,
``sampled-real-synthetic``, trains the main agents; Fig. 4 trains group ``two`` once per ordering.
Fig. 3 trains a CNN state module on the paper's ordering.

Scalar RL: REINFORCE (``schedrl.agents.reinforce``) with reward ``0.5 node util + 0.5 BB util`` after
each pick (three resources: 1/3 each), trained on blocks of the group's training splits.

Model selection (``dfp.select_on_validation``, issue 25) plays the kept checkpoints with
``evaluation.play_dfp_batch``: this module imports ``evaluation``, which never imports it.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pandas as pd

from schedrl.errors import ConfigError
from schedrl.papers.mrsch.evaluation import metrics_row, play_dfp_batch
from schedrl.papers.mrsch.layout import (
    BUDGET_SNAPSHOTS,
    PAPER_ORDERING,
    RESOURCES,
    ROOT,
    SELECTED_NAME,
    SELECTION_NAME,
    VALIDATION_NAME,
    WORKLOAD_DIR,
    agent_seed,
    budget_model,
    budget_name,
    budget_sets,
    check_seed_run,
    cluster_of,
    dfp_config,
    dfp_dir,
    env_kwargs,
    group_workloads,
    has_scalar,
    jobsets,
    kinds_of,
    make_env,
    read_part,
    scalar_dir,
    val_jobs,
)
from schedrl.protocol import BUDGET_FRACTIONS

# ---------------------------------------------------------------------------------------------
# DFP

def train_dfp_run(spec: dict, group: str, state: str, ordering: str, root=ROOT, threads: int = 1,
                  base=WORKLOAD_DIR, seed: int | None = None):
    """Train one DFP agent; ``seed`` (an extra seed; None: ``agent_seed``, by default ``spec["seed"]``) seeds the agent only
    (network init, exploration, replay sampling): the job sets stay those of ``spec['seed']``."""
    from schedrl.agents.dfp import train_dfp

    extra = check_seed_run(spec, state, ordering, seed)
    sets = jobsets(spec, group, base)
    episodes, labels = [], []
    for kind in kinds_of(ordering):
        for i, frame in enumerate(sets[kind]):
            episodes.append({"jobs": frame})
            labels.append(f"{kind}{i}")
    keep: dict[int, list[str]] = {}
    for f in BUDGET_SNAPSHOTS:
        keep.setdefault(budget_sets(spec, f), []).append(budget_name(f))
    first = episodes[0]["jobs"]
    return train_dfp(lambda: make_env(first, int(spec["window"]), **env_kwargs(spec)), dfp_config(spec, state), episodes,
                     agent_seed(spec) if extra is None else extra, dfp_dir(root, group, state, ordering, extra),
                     measurement_key="utilization",
                     goal_key="demand_share", config={"paper": "mrsch", "group": group, "state": state,
                                                       "ordering": ordering, "jobs_per_set": int(spec["jobs_per_set"]),
                                                       "window": int(spec["window"]), **env_kwargs(spec),
                                                       "budget_models": {str(k): v for k, v in keep.items()}},
                     threads=threads, on_mismatch="restart", episode_labels=labels,
                     checkpoint_every=spec["checkpoint_every"], keep_at=keep, device=spec.get("device", "cpu"))


# ---------------------------------------------------------------------------------------------
# scalar RL (REINFORCE with a fixed-weight utilisation reward)

class FixedWeightReward(gym.Wrapper):
    """Reward = ``weights . info["utilization"]`` after each pick (the scalar-RL baseline)."""

    def __init__(self, env, weights):
        super().__init__(env)
        self.weights = np.asarray(weights, dtype=np.float64)

    def step(self, action):
        obs, _, terminated, truncated, info = self.env.step(action)
        return obs, float(self.weights @ np.asarray(info["utilization"], dtype=np.float64)), terminated, truncated, info

    def action_masks(self):
        return self.env.unwrapped.action_masks()


def scalar_config(spec: dict) -> dict:
    """The scalar-RL baseline's ``ReinforceConfig`` values (``mrsch.scalar_rl``): the learning probe
    trains the same (``tuning.recipe_trainers``)."""
    s = spec["scalar_rl"]
    return {"hidden": list(s["hidden"]), "learning_rate": float(s["learning_rate"]),
            "trajectories": int(s["trajectories"]), "examples_per_update": int(s["examples"]),
            "mask_actions": True, "optimizer": "adam", "discount": float(s["discount"])}


def train_scalar_run(spec: dict, group: str, root=ROOT, threads: int = 1, base=WORKLOAD_DIR):
    from schedrl.agents.reinforce import ReinforceConfig, train_reinforce

    if not has_scalar(spec):
        raise ConfigError("mrsch.scalar_rl is null: this config trains no scalar-RL baseline")
    s = spec["scalar_rl"]
    names = group_workloads(spec, group)
    frames = [read_part(w, "train", base) for w in names]
    n_jobs = int(spec["jobs_per_set"])

    def block(rng) -> pd.DataFrame:  # a random block of a random workload of the group
        f = frames[int(rng.integers(len(frames)))]
        s0 = int(rng.integers(0, max(1, len(f) - n_jobs + 1)))
        return f.iloc[s0: s0 + n_jobs]

    weights = np.full(len(RESOURCES[group]), 1.0 / len(RESOURCES[group]))
    cfg = ReinforceConfig.from_dict(scalar_config(spec))

    def make():
        return FixedWeightReward(make_env(frames[0], int(spec["window"]), jobs=block, **env_kwargs(spec)), weights)

    return train_reinforce(make, cfg, int(s["iterations"]), agent_seed(spec), scalar_dir(root, group),
                           config={"paper": "mrsch", "group": group, "reward_weights": weights.tolist(),
                                   "jobs_per_set": n_jobs, **env_kwargs(spec)}, examples=int(s["examples"]), threads=threads,
                           on_mismatch="restart", lockstep=False)


# ---------------------------------------------------------------------------------------------
# model selection on the validation split (issue 25): the paper keeps two weeks after the training
# months "for model validation"; it does not say with what score

#: FCFS waits below this (hours) count as this in the normalisation (a near-empty validation split
#: would otherwise divide by ~0).
WAIT_FLOOR_H = 1.0 / 60.0


def validation_score(table: pd.DataFrame) -> pd.DataFrame:
    """Per checkpoint (``fraction``), the score: the mean over the group's workloads of the mean of
    the wait and the slowdown each divided by FCFS's on the same split (lower is better; 1 = FCFS).
    ``table`` has one row per fraction and workload with ``mean_wait_h``, ``mean_slowdown``,
    ``fcfs_wait_h`` and ``fcfs_slowdown``; returns it with ``wait_norm``, ``slowdown_norm`` and the
    per-fraction ``score`` added."""
    t = table.copy()
    t["wait_norm"] = t["mean_wait_h"] / np.maximum(t["fcfs_wait_h"], WAIT_FLOOR_H)
    t["slowdown_norm"] = t["mean_slowdown"] / np.maximum(t["fcfs_slowdown"], 1.0)
    per = (0.5 * (t["wait_norm"] + t["slowdown_norm"])).groupby(t["fraction"]).mean()
    t["score"] = t["fraction"].map(per)
    return t


def best_fraction(scored: pd.DataFrame) -> float:
    """The checkpoint with the lowest score; a tie goes to the one trained longer."""
    per = scored.groupby("fraction")["score"].first().sort_index()
    best = per.min()
    return float(per.index[np.isclose(per.to_numpy(), best, rtol=1e-12, atol=0.0)].max())


def validation_splits(spec: dict, group: str, base=WORKLOAD_DIR) -> tuple[list[str], list[pd.DataFrame], list[dict]]:
    """(the group's workloads, their validation splits, FCFS + EASY's metrics row on each): what
    ``select_model`` plays a model on and divides its waits and slowdowns by (also the tuning study's
    score, ``schedrl.papers.mrsch.tuning``)."""
    from schedrl.sim import simulate

    names = group_workloads(spec, group)
    frames = [val_jobs(spec, wl, base).reset_index(drop=True) for wl in names]
    fcfs = [metrics_row(simulate(f, cluster_of(f), policy="fcfs", backfill="easy"), cluster_of(f), "fcfs", wl)
            for f, wl in zip(frames, names)]
    return names, frames, fcfs


def select_model(spec: dict, group: str, state: str, root=ROOT, base=WORKLOAD_DIR, threads: int = 1,
                 player=None, seed: int | None = None) -> tuple[pd.DataFrame, float]:
    """Play each kept checkpoint of the (group, state) agent on the paper's ordering greedily on the
    group's validation splits (all splits of one model in lockstep, as ``evaluate_budgets``), score
    it (``validation_score``), copy the best to ``selected.zip`` and write ``validation.csv`` and
    ``selection.json`` into the run folder. ``player(agent_path, frames) -> schedules`` replaces the
    play (tests); ``seed``: an extra seed's agent. Returns (the scored table, the selected fraction)."""
    import json
    import shutil

    import torch

    extra = check_seed_run(spec, state, PAPER_ORDERING, seed)
    torch.set_num_threads(max(1, threads))
    w = int(spec["window"])
    names, frames, fcfs = validation_splits(spec, group, base)
    if player is None:
        from schedrl.agents.dfp import DFPAgent

        def player(path, fs):
            return play_dfp_batch(DFPAgent.load(path), [make_env(f, w, **env_kwargs(spec)) for f in fs], fs)[0]

    rows = []
    for fraction in BUDGET_FRACTIONS:
        path = budget_model(root, group, state, fraction, seed=extra)
        for f, wl, base_row, sched in zip(frames, names, fcfs, player(path, frames)):
            row = metrics_row(sched, cluster_of(f), "mrsch" if state == "mlp" else "mrsch_cnn", wl)
            row.update(checkpoint=budget_name(fraction), fraction=fraction,
                       budget_jobs=budget_sets(spec, fraction) * int(spec["jobs_per_set"]),
                       fcfs_wait_h=base_row["mean_wait_h"], fcfs_slowdown=base_row["mean_slowdown"])
            rows.append(row)
    scored = validation_score(pd.DataFrame(rows))
    best = best_fraction(scored)
    scored["selected"] = np.isclose(scored["fraction"], best)
    run = dfp_dir(root, group, state, PAPER_ORDERING, extra)
    from schedrl.io import write_csv

    cols = ["checkpoint", "fraction", "budget_jobs", "workload", "method", "jobs", "node_util", "bb_util", "power_util",
            "mean_wait_h", "mean_slowdown", "fcfs_wait_h", "fcfs_slowdown", "wait_norm", "slowdown_norm", "score",
            "selected"]
    write_csv(run / VALIDATION_NAME, scored[cols], float_format="%.6g")
    shutil.copyfile(budget_model(root, group, state, best, seed=extra), run / SELECTED_NAME)
    (run / SELECTION_NAME).write_text(json.dumps(
        {"fraction": best, "checkpoint": budget_name(best), "score": float(scored.loc[scored["selected"], "score"].iloc[0]),
         "score_rule": "mean over the group's validation splits of (wait / FCFS wait + slowdown / FCFS slowdown) / 2",
         "workloads": names}, indent=2) + "\n")
    return scored, best


def selected_fraction(root, group: str, state: str, seed: int | None = None) -> float | None:
    """The share of training of the model ``select_model`` chose for (group, state) and ``seed``
    (an extra seed; None: the base one), or None."""
    import json

    path = dfp_dir(root, group, state, PAPER_ORDERING, seed) / SELECTION_NAME
    return float(json.loads(path.read_text())["fraction"]) if path.is_file() else None
