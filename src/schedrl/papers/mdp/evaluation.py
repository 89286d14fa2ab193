"""Playing and evaluating the MDP-design paper's agents, and the statistics the claims and figures
read.

* **Evaluation**: ``trials`` episodes per agent on job sets ``jobset_seed + k`` (k = 0..trials-1),
  the same for every agent, horizon and scenario (the workload does not depend on H or on the MDP),
  greedy actions by default (sched-rl-gym's tutorial evaluates with ``deterministic=True``).
  ``evaluate_model`` plays the trials with the core's ``envs.rollout.run_lockstep`` (one policy forward per step for the whole
  batch). An episode's slowdown is the mean over the jobs that arrived; jobs running at T count with
  their known finish, jobs never started count as if started at T, 1 + (T - arrival) / length, as
  sched-rl-gym's PPO tutorial computes it (``mean_slowdown``); the env's value so far, (T - arrival)
  / length, is kept as ``mean_slowdown_sofar`` (issue 25: the paper is silent). Every evaluation
  fingerprints the decisions it played (issue 41: ``fingerprint.json`` beside its table).
* **Budgets** (issue 24): the checkpoints at 1/8, 1/4 and 1/2 of training (kept by ``schedrl train
  --keep-steps``) are evaluated like the final model (``evaluate_budgets``, ``budget_episodes.csv``).
* **Transfer** (Fig. 6): the compact agent of one scenario (config ``transfer``) evaluated in every
  scenario without retraining, in the compact env *without* sparse transitions ("without
  event-based updates"); with greedy actions a sparse-trained agent makes the same schedule in the
  dense env (skipped steps are steps where every action moves time on), so its numbers compare with
  the scenario's own agents on the same job sets.

Statistics: an agent's value per trial is the mean over training seeds of that trial's episode
slowdown (every seed plays the same job sets); two agents are compared with Welch's t-test over the
trials (two-sided, ``welch_p``). Also here: Fig. 3's learning curves (``fig3_data``), the timings
Fig. 5 reads, and the offered load of the two readings of the job sizes (``offered_load``).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pandas as pd

from schedrl.errors import ConfigError, InputFileError
from schedrl.io import read_result
from schedrl.papers.mdp.layout import (
    ENV_ID,
    FIXED_ENV,
    budget_fingerprint_path,
    budget_fractions,
    budget_path,
    env_kwargs,
    eval_path,
    fig3_scenarios,
    fingerprint_path,
    reference_root,
    run_dir,
    scenario,
    scenario_of,
    transfer_dir,
    variant,
    variant_of,
)
from schedrl.papers.mdp.training import budget_steps

# ---------------------------------------------------------------------------------------------
# Evaluation: trials in lockstep batches.

EVAL_COLUMNS = ("trial", "jobset_seed", "mean_slowdown", "mean_slowdown_sofar", "mean_slowdown_drained", "n_jobs",
                "jobs_finished", "jobs_unstarted", "return", "agent_steps", "time_steps", "truncated")
# Jobs never started when the episode stops at T (issue 25; the paper is silent): ``mean_slowdown``
# (the verdicts' reading, sched-rl-gym's tutorial) counts them as if started at T, i.e.
# (T - arrival + length) / length >= 1, so withholding a job never lowers the metric;
# ``mean_slowdown_sofar`` counts (T - arrival) / length, the env's slowdown so far, which can be < 1;
# ``mean_slowdown_drained`` starts them after T by SJF, the same rule for every policy, with no new
# arrivals (``schedrl.sim.drain``): what leaving jobs waiting at the end really costs, a check on
# the verdicts' reading, not a verdict (a policy may hold long jobs back for short ones at the cap's
# price; tables written before 2026-12-04 lack the column).
METRIC, METRIC_SOFAR, METRIC_DRAINED = "mean_slowdown", "mean_slowdown_sofar", "mean_slowdown_drained"
#: the drain's rule: SJF, work conserving (every waiting job starts once it fits; SJF's own episode
#: continues as it played), where the better anchor, SJF holding long jobs back, would never start them
DRAIN_RULE = "sjf"


def episode_slowdowns(jobs, now: int | None = None, capacity: int | None = None) -> tuple[float, float, float]:
    """(mean slowdown with never-started jobs counted as started at the cap, mean slowdown so far,
    mean slowdown with them drained after the cap ``now`` on a machine of ``capacity`` units (nan
    without ``now`` and ``capacity``))."""
    if not len(jobs):
        return float("nan"), float("nan"), float("nan")
    sofar = np.asarray(jobs["slowdown"], dtype=float)
    unstarted = np.asarray(jobs["state"] == "waiting")
    drained = float("nan")
    if now is not None and capacity is not None:
        from schedrl.sim.drain import drained_slowdowns

        drained = float(np.mean(drained_slowdowns(jobs, now, capacity, DRAIN_RULE)))
    return float(np.mean(sofar + unstarted)), float(np.mean(sofar)), drained


def _lockstep(model, envs: list, seeds: list[int], *, deterministic: bool, recorders: list | None) -> list[dict]:
    """One episode per env side by side (``envs.rollout.run_lockstep``: one policy forward per step
    for all live envs), recording each decision into ``recorders[i]`` first; ``model`` is an SB3
    model or a ``RandomValid`` picker."""
    from schedrl.envs.rollout import run_lockstep

    return run_lockstep(model, envs, seeds, deterministic=deterministic, recorders=recorders)


# Trials per scenario whose decisions a fingerprint records: ~25,000 contested decisions at 100
# agent steps a trial are plenty, and recording costs ~60 us a step (as much as playing it).
FINGERPRINT_TRIALS = 250


def evaluate_model(model, kwargs: dict, trials: int, jobset_seed: int, *, deterministic: bool = True,
                   batch: int = 250, seed: int = 0, decisions=None) -> pd.DataFrame:
    """Play ``trials`` episodes of an SB3 ``model`` (or a ``RandomValid``) on job sets
    ``jobset_seed + k``; one row per trial.

    Up to ``batch`` episodes run side by side: each step stacks their observations, asks the model
    once, then steps each env. ``deterministic=False`` samples (torch seeded with ``seed``).
    ``decisions``: a ``fingerprint.Decisions`` that the decisions of the first ``FINGERPRINT_TRIALS``
    trials are recorded into (issue 41).
    """
    import torch

    from schedrl.experiments.envs import make_env
    from schedrl.experiments.fingerprint import FingerprintRecorder

    if trials < 1:
        raise ConfigError(f"evaluation trials must be >= 1, got {trials}")
    torch.distributions.Distribution.set_default_validate_args(False)  # checks only; see experiments/train.py
    torch.manual_seed(int(seed))
    rows = []
    for first in range(0, trials, batch):
        ks = list(range(first, min(trials, first + batch)))
        seeds = [int(jobset_seed) + k for k in ks]
        envs = [make_env(ENV_ID, {**kwargs, "jobset_seed": s, "num_jobsets": 1}) for s in seeds]
        recorders = None
        if decisions is not None:
            recorders = [FingerprintRecorder(env) if k < FINGERPRINT_TRIALS else None for k, env in zip(ks, envs)]
            for r in recorders:
                if r is not None:
                    r.decisions = decisions  # one pool over every recorded trial (and scenario) of the agent
        played = _lockstep(model, envs, seeds, deterministic=deterministic, recorders=recorders)
        for k, s, env, ep in zip(ks, seeds, envs, played):
            jobs = ep["info"]["jobs"]
            now = int(env.unwrapped.grid.now)
            capped, sofar, drained = episode_slowdowns(jobs, now, int(env.unwrapped.params.res_slot))
            rows.append({"trial": k, "jobset_seed": s, METRIC: capped, METRIC_SOFAR: sofar, METRIC_DRAINED: drained,
                         "n_jobs": int(len(jobs)), "jobs_finished": int(np.sum(jobs["state"] == "finished")),
                         "jobs_unstarted": int(np.sum(jobs["state"] == "waiting")),
                         "return": ep["return"], "agent_steps": ep["steps"],
                         "time_steps": now, "truncated": ep["truncated"]})
            env.close()
    return pd.DataFrame(rows, columns=list(EVAL_COLUMNS)).sort_values("trial", ignore_index=True)


def evaluate_agent(model, spec: dict, variant_name: str, source: int, horizon: int, *,
                   scenario_id: int | None = None, transitions: str | None = None, decisions=None,
                   where: str = "") -> pd.DataFrame:
    """Evaluate an agent of ``variant_name`` trained in scenario ``source`` at ``horizon`` in its own
    scenario, or in ``scenario_id`` (transfer): ``eval.trials`` trials, the same job sets for every
    agent."""
    from schedrl.experiments.envs import make_env

    target = int(source) if scenario_id is None else int(scenario_id)
    kwargs = env_kwargs(variant_name, target, horizon, transitions=transitions)
    if hasattr(model, "observation_space"):  # a network (not a picker such as RandomValid or SJF)
        space = model.observation_space.shape
        probe = make_env(ENV_ID, {**kwargs, "jobset_seed": 0})
        shape = probe.observation_space.shape
        probe.close()
        if shape != space:
            raise ConfigError(f"{where}: the agent's observations have shape {space}, scenario {target}'s "
                              f"{shape}: only compact agents transfer between cluster sizes")
    ev = spec["eval"]
    frame = evaluate_model(model, kwargs, int(ev["trials"]), int(ev["jobset_seed"]),
                           deterministic=bool(ev["deterministic"]), seed=int(ev["jobset_seed"]), decisions=decisions)
    frame.insert(0, "scenario", target)
    frame.insert(1, "trained_in", int(source))
    frame.insert(2, "variant", variant_name)
    frame.insert(3, "horizon", int(horizon))
    return frame


def evaluate_run(folder: str | Path, spec: dict, *, scenario_id: int | None = None,
                 transitions: str | None = None, threads: int = 1, decisions=None) -> pd.DataFrame:
    """Evaluate a trained run folder's final model in its own scenario, or in ``scenario_id`` (transfer)."""
    import torch

    from schedrl.experiments.evaluate import load_run

    torch.set_num_threads(max(1, int(threads)))
    model, config = load_run(folder)
    trained = config["env_kwargs"]
    return evaluate_agent(model, spec, variant_of(trained), scenario_of(trained), int(trained["time_horizon"]),
                          scenario_id=scenario_id, transitions=transitions, decisions=decisions, where=str(folder))


# ---------------------------------------------------------------------------------------------
# Fingerprints (issue 41): what every evaluated agent plays, recorded from its evaluation trials.

def agent_label(kind: str, variant_name: str, source: int, horizon: int, seed: int, transfer: bool = False) -> str:
    """Readable name of an evaluated agent, e.g. "PPO compact + sparse + reduced s1 H20 seed 0"."""
    who = {"trained": "PPO", "untrained": "untrained PPO", "random": "random valid"}[kind]
    where = f"from s{source}, every scenario (dense)" if transfer else f"s{source}"
    return f"{who} {variant(variant_name).label} {where} H{horizon} seed {seed}"


def evaluate_fingerprinted(model, spec: dict, variant_name: str, source: int, horizon: int, *,
                           transfer: bool = False, where: str = "") -> tuple[pd.DataFrame, dict]:
    """Evaluate an agent (in its own scenario, or with ``transfer`` in every scenario of the spec,
    dense transitions) and fingerprint the decisions it played."""
    from schedrl.experiments.fingerprint import AgentView, Decisions, fingerprint, sb3_view

    decisions = Decisions()
    targets = [int(s) for s in spec["scenarios"]] if transfer else [None]
    frame = pd.concat([evaluate_agent(model, spec, variant_name, source, horizon, scenario_id=t,
                                      transitions="dense" if transfer else None, decisions=decisions, where=where)
                       for t in targets], ignore_index=True)
    # a network has an observation space; a picker (``references.RandomValid``) has none
    view = sb3_view(model) if hasattr(model, "observation_space") else AgentView()
    return frame, fingerprint(decisions, view)


def write_agent_fingerprint(path: str | Path, frame: pd.DataFrame, fp: dict, *, kind: str, variant_name: str,
                            source: int, horizon: int, seed: int, transfer: bool, spec: dict,
                            fraction: float | None = None, steps: int | None = None) -> Path:
    """``fingerprint.json`` of an agent evaluated in ``frame``; a budget checkpoint's names its
    ``fraction`` of training and ``steps``."""
    from schedrl.experiments.fingerprint import write_fingerprint

    scenarios = sorted(int(s) for s in frame["scenario"].unique())
    label = agent_label(kind, variant_name, source, horizon, seed, transfer)
    at = {} if fraction is None else {"fraction": float(fraction), "steps": int(steps)}
    write_fingerprint(path, fp, agent=label + (f" at {fraction:g} of training" if fraction is not None else ""),
                      kind=kind, variant=variant_name, scenario=int(source), horizon=int(horizon), seed=int(seed),
                      transfer=bool(transfer), **at, evaluated_in=" ".join(map(str, scenarios)),
                      episodes=int(len(frame)),
                      recorded_episodes=int(sum(min(FINGERPRINT_TRIALS, (frame["scenario"] == s).sum())
                                                for s in scenarios)),
                      deterministic=bool(spec["eval"]["deterministic"]))
    return Path(path)


def write_evaluation(out_csv: str | Path, frame: pd.DataFrame, fp: dict, *, kind: str, variant_name: str,
                     source: int, horizon: int, seed: int, transfer: bool, spec: dict) -> Path:
    """The per-trial table and ``fingerprint.json`` beside it; returns the fingerprint's path."""
    from schedrl.io import write_csv

    write_csv(out_csv, frame, float_format="%.6g")
    return write_agent_fingerprint(fingerprint_path(Path(out_csv).parent), frame, fp, kind=kind,
                                   variant_name=variant_name, source=source, horizon=horizon, seed=seed,
                                   transfer=transfer, spec=spec)


def evaluate_trained(folder: str | Path, spec: dict, out_csv: str | Path, *, transfer: bool = False,
                     threads: int = 1) -> pd.DataFrame:
    """``schedrl mdp evaluate`` / ``transfer``: the run's final model, its table and fingerprint."""
    import torch

    from schedrl.experiments.evaluate import load_run

    torch.set_num_threads(max(1, int(threads)))
    model, config = load_run(folder)
    trained = config["env_kwargs"]
    name, source, H = variant_of(trained), scenario_of(trained), int(trained["time_horizon"])
    frame, fp = evaluate_fingerprinted(model, spec, name, source, H, transfer=transfer, where=str(folder))
    write_evaluation(out_csv, frame, fp, kind="trained", variant_name=name, source=source, horizon=H,
                     seed=int(config["seed"]), transfer=transfer, spec=spec)
    return frame


def agent_fingerprint(root: str | Path, horizon, variant_name: str, scenario_id, seed, *, transfer: bool = False,
                      kind: str = "trained", fraction: float = 1.0) -> dict | None:
    """A run's (or transferred agent's) fingerprint, None when not written; ``fraction`` < 1 reads
    the budget checkpoint's at that share of training."""
    base = Path(root) if kind == "trained" else reference_root(root, kind)
    folder = (transfer_dir if transfer else run_dir)(base, horizon, variant_name, scenario_id, seed)
    path = fingerprint_path(folder) if fraction >= 1.0 else budget_fingerprint_path(folder, fraction)
    return json.loads(path.read_text()) if path.exists() else None


# ---------------------------------------------------------------------------------------------
# Budget checkpoints (issue 24): the agents behind the RL claims at 1/8, 1/4 and 1/2 of training.

def budget_checkpoints(folder: str | Path, spec: dict) -> list[tuple[float, int, Path]]:
    """``(fraction, steps, path)`` of the kept checkpoint for each budget fraction: the first at or
    after ``fraction * steps`` (what ``schedrl train --keep-steps`` keeps)."""
    from schedrl.agents.runs import RunFolder

    found = RunFolder(folder).checkpoints()
    out = []
    for f, m in zip(budget_fractions(), budget_steps(spec)):
        hit = next(((n, p) for n, p in found if n >= m), None)
        if hit is None or hit[0] >= int(spec["train"]["steps"]):
            raise InputFileError(Path(folder) / "checkpoints", f"no checkpoint at or after step {m} (1/{round(1 / f)} "
                                 "of training): train with --keep-steps (the mdp_train rule does)")
        out.append((f, hit[0], hit[1]))
    return out


def evaluate_budgets(folder: str | Path, spec: dict, *, transfer: bool = False, threads: int = 1,
                     fingerprint_dir: str | Path | None = None) -> pd.DataFrame:
    """Evaluate a run's budget checkpoints under the final evaluation's protocol (same trials, job
    sets and greedy actions): in its own scenario, or with ``transfer`` in every scenario of the
    spec (the compact env without sparse transitions, as ``schedrl mdp transfer``). Each checkpoint's
    decisions are fingerprinted as the final model's, written to ``fingerprint_dir`` (default: the
    run folder; ``budget_fingerprint_path``): what the agent plays at 1/8, 1/4 and 1/2 of training
    (issue 60)."""
    import torch

    from schedrl.agents.registry import algo_class
    from schedrl.io import read_json

    torch.set_num_threads(max(1, int(threads)))
    config = read_json(Path(folder) / "config.json")
    trained = config["env_kwargs"]
    name, source, H = variant_of(trained), scenario_of(trained), int(trained["time_horizon"])
    frames = []
    for f, steps, path in budget_checkpoints(folder, spec):
        model = algo_class(config["algo"]).load(path, device="cpu")
        frame, fp = evaluate_fingerprinted(model, spec, name, source, H, transfer=transfer, where=str(path))
        write_agent_fingerprint(budget_fingerprint_path(fingerprint_dir or folder, f), frame, fp, kind="trained",
                                variant_name=name, source=source, horizon=H, seed=int(config["seed"]),
                                transfer=transfer, spec=spec, fraction=f, steps=steps)
        frame.insert(0, "fraction", f)
        frame.insert(1, "steps", steps)
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


# ---------------------------------------------------------------------------------------------
# Reading results back and the statistics the figures and claims share.

read_csv = read_result  # results written by this paper's rules (missing: one clear line)


def _trials(folder: Path, fraction: float) -> pd.DataFrame:
    """A run's (or transfer's) per-trial table: the final model's, or a budget checkpoint's."""
    if float(fraction) >= 1.0:
        return read_csv(eval_path(folder))
    frame = read_csv(budget_path(folder))
    part = frame[np.isclose(frame["fraction"], float(fraction))]
    if part.empty:
        raise InputFileError(budget_path(folder), f"no evaluation at fraction {fraction:g} of training")
    return part


def per_seed(root: str | Path, spec: dict, horizon: int, variant_name: str, scenario_id: int,
             metric: str = METRIC, fraction: float = 1.0) -> pd.DataFrame:
    """Per trial (rows) and training seed (columns), ``metric`` of the agent after ``fraction`` of
    its training."""
    frames = {int(seed): _trials(run_dir(root, horizon, variant_name, scenario_id, seed), fraction)
              .set_index("trial")[metric] for seed in spec["seeds"]}
    return pd.DataFrame(frames)


def per_trial(root: str | Path, spec: dict, horizon: int, variant_name: str, scenario_id: int,
              metric: str = METRIC, fraction: float = 1.0) -> pd.Series:
    """Per trial, the mean over training seeds of ``metric`` (index: trial)."""
    return per_seed(root, spec, horizon, variant_name, scenario_id, metric, fraction).mean(axis=1)


def transfer_seeds(root: str | Path, spec: dict, scenario_id: int, metric: str = METRIC,
                   fraction: float = 1.0, variant_name: str | None = None) -> pd.DataFrame:
    """Per trial (rows) and seed (columns) in ``scenario_id``, the transferred agent's ``metric``."""
    t = spec["transfer"]
    name = variant_name or t["variant"]
    frames = {}
    for seed in spec["seeds"]:
        frame = _trials(transfer_dir(root, spec["horizon"], name, t["scenario"], seed), fraction)
        frames[int(seed)] = frame[frame["scenario"] == int(scenario_id)].set_index("trial")[metric]
    return pd.DataFrame(frames)


def transfer_trials(root: str | Path, spec: dict, scenario_id: int, metric: str = METRIC,
                    fraction: float = 1.0, variant_name: str | None = None) -> pd.Series:
    """Per trial in ``scenario_id``, the transferred agent's ``metric`` averaged over seeds."""
    return transfer_seeds(root, spec, scenario_id, metric, fraction, variant_name).mean(axis=1)


def welch_p(a, b) -> float:
    """Two-sided p-value of Welch's t-test; 1.0 when both samples are constant and equal, 0.0 when
    constant and different (scipy returns NaN there)."""
    from scipy import stats

    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    a, b = a[np.isfinite(a)], b[np.isfinite(b)]
    if len(a) < 2 or len(b) < 2:
        return float("nan")
    if np.ptp(a) == 0 and np.ptp(b) == 0:
        return 1.0 if a[0] == b[0] else 0.0
    return float(stats.ttest_ind(a, b, equal_var=False).pvalue)


def summary(values: pd.Series) -> dict[str, float]:
    v = values.to_numpy(dtype=float)
    v = v[np.isfinite(v)]
    n = len(v)
    return {"mean": float(v.mean()) if n else float("nan"), "std": float(v.std(ddof=1)) if n > 1 else 0.0,
            "sem": float(v.std(ddof=1) / math.sqrt(n)) if n > 1 else 0.0, "trials": n}


# Learning curves ------------------------------------------------------------------------------

def smoothed(curve: pd.DataFrame, grid: np.ndarray, window: int, column: str = "reward") -> np.ndarray:
    """Moving average (``window`` episodes) of ``column`` against agent steps, read on ``grid``."""
    curve = curve.sort_values("timesteps")
    y = curve[column].rolling(max(1, int(window)), min_periods=1).mean().to_numpy(dtype=float)
    return np.interp(grid, curve["timesteps"].to_numpy(dtype=float), y)


def curve_stats(curves: list[pd.DataFrame], window: int, points: int = 100,
                column: str = "reward") -> pd.DataFrame:
    """Mean and std over runs of the smoothed curves on a common grid of agent steps."""
    curves = [c for c in curves if len(c)]
    if not curves:
        raise ConfigError("no training episode finished: train for more steps")
    start = max(float(c["timesteps"].min()) for c in curves)
    end = min(float(c["timesteps"].max()) for c in curves)
    grid = np.linspace(start, max(end, start), points)
    values = np.vstack([smoothed(c, grid, window, column) for c in curves])
    return pd.DataFrame({"timesteps": grid, "mean": values.mean(axis=0),
                         "std": values.std(axis=0, ddof=1) if len(curves) > 1 else np.zeros(points),
                         "runs": len(curves)})


# a curve has flattened when its smoothed mean moved by at most this share of its whole range
# over the last quarter of training
FLAT_TAIL, FLAT_TOL = 0.25, 0.10


def flattened(mean: np.ndarray) -> tuple[bool, float]:
    """(flat?, change over the last quarter as a share of the curve's range)."""
    mean = np.asarray(mean, dtype=float)
    span = float(np.nanmax(mean) - np.nanmin(mean))
    if not np.isfinite(span) or span == 0:
        return True, 0.0
    cut = int(len(mean) * (1 - FLAT_TAIL))
    x = np.arange(len(mean) - cut)
    slope = np.polyfit(x, mean[cut:], 1)[0] if len(x) > 1 else 0.0
    change = abs(slope * (len(x) - 1)) / span
    return bool(change <= FLAT_TOL), float(change)


def steps_to_converge(stats: pd.DataFrame, share: float = 0.9) -> float:
    """Agent steps until the smoothed mean first covers ``share`` of its way from start to its
    final level (mean of the last 10% of the grid)."""
    y = stats["mean"].to_numpy(dtype=float)
    x = stats["timesteps"].to_numpy(dtype=float)
    final = float(np.mean(y[-max(1, len(y) // 10):]))
    start = float(y[0])
    if final == start:
        return float(x[0])
    target = start + share * (final - start)
    reached = (y >= target) if final > start else (y <= target)
    return float(x[int(np.argmax(reached))])


def fig3_data(spec: dict, root) -> pd.DataFrame:
    """Smoothed training-reward curves (mean and std over seeds) of image and compact agents at the
    main horizon in Fig. 3's scenarios, with flatness and convergence speed per curve."""
    H, window = int(spec["horizon"]), int(spec["train"]["curve_window"])
    frames = []
    for sid in fig3_scenarios(spec):
        for name in ("image", "compact"):
            curves = [read_csv(run_dir(root, H, name, sid, seed) / "learning_curve.csv") for seed in spec["seeds"]]
            stats = curve_stats(curves, window)
            slowdown = curve_stats(curves, window, column="mean_slowdown")
            flat, change = flattened(stats["mean"].to_numpy())
            stats = stats.assign(variant=name, scenario=int(sid), mean_slowdown=slowdown["mean"].to_numpy(),
                                 flattened=flat, tail_change=round(change, 4),
                                 steps_to_90pct=steps_to_converge(stats))
            frames.append(stats)
    return pd.concat(frames, ignore_index=True)


def read_timing(path: str | Path) -> dict:
    from schedrl.io import read_json

    path = Path(path)
    if not path.exists():
        raise InputFileError(path, "missing (train the run first)")
    return read_json(path)


# ---------------------------------------------------------------------------------------------
# Job sizes: section 5's text draws "the number of processors used by any job ... from [n_p/2, n_p]"
# while j_s is "the size of the largest job" (Table 3's Max Size) and sched-rl-gym's generator draws
# U{j_s/2..j_s}. We use j_s (``SIZE_READINGS[0]``); the readings differ where j_s < n_p (scenarios
# 3, 4, 5, 7, 9). ``offered_load`` measures what the other reading does to a scenario's load.

SIZE_READINGS = ("j_s", "n_p")


def offered_load(scenario_id: int, reading: str = "j_s", jobsets: int = 1000, seed: int = 0) -> float:
    """Mean offered load of ``jobsets`` job sets of a scenario, sum(size x length) / (n_p T), with
    job sizes U{j_s/2..j_s} (``"j_s"``) or U{n_p/2..n_p} (``"n_p"``, the text's reading)."""
    from schedrl.workloads.deeprm import cunha_model, empirical_load, generate_jobset

    if reading not in SIZE_READINGS:
        raise ConfigError(f"unknown job-size reading '{reading}' (choose from: {', '.join(SIZE_READINGS)})")
    s = scenario(scenario_id)
    model = cunha_model(s.max_len, s.max_size if reading == "j_s" else s.procs, FIXED_ENV["new_job_rate"])
    loads = [float(empirical_load(generate_jobset(model, FIXED_ENV["simu_len"], seed + k), s.procs)[0])
             for k in range(int(jobsets))]
    return float(np.mean(loads))
