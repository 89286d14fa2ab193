"""MRSch's tuned agent (issue 69): what ``schedrl tune mrsch`` searches and writes.

MRSch's DFP agent at the paper's budget beats random valid picks on three of ten workloads and not
on S1-S5 together (status.md). The study (``mrsch.tune``; ``schedrl.experiments.tune``) trains the
main agent of one group (``group``: ``two``, S1-S5 with nodes and burst buffer, or ``three``,
S6-S10 with power; ``state``: ``mlp``, the main agents' state module) as ``train_dfp_run`` trains it
(``schedrl.agents.dfp.DFPTrainer``, the same env, measurements, goal and seeding; the trial's seed
seeds the agent only, as ``extra_seeds`` do), and scores each trial as ``select_model`` ranks the
kept checkpoints: greedy play on the group's **validation** splits (never a test split), the mean
over its workloads of (wait / FCFS wait + slowdown / FCFS slowdown) / 2, negated (higher is better;
-1 is FCFS's).

A step of the study is a **job set** (``DFPLearner``: DFP trains episode by episode, its
run-relative exploration stretched over the run, so ``steps`` counts job sets and must be a multiple
of ``checks``). A trial trains ``steps`` job sets of the group's training splits: the paper's
curriculum (``jobsets``, e.g. 10 sampled, 10 real, 20 synthetic, in the paper's order) scaled to
``steps`` sets, at least one of each kind (``trial_counts``), of ``jobs_per_set`` jobs each (default
the spec's; smaller sets buy more trials).

Searched (every one beyond the paper, so a deviation), under ``DFPConfig``'s names, which are
``mrsch.dfp``'s keys: ``learning_rate``, the replay ratio (``batch_size`` and ``update_every``),
``replay_size``, ``min_replay``, the exploration schedule (``epsilon_start``, ``epsilon_min``,
``epsilon_per``, ``epsilon_decay``), the network (``state_hidden``, ``state_out``, ``meas_hidden``,
``goal_hidden``, ``stream_hidden``, ``leaky_slope``), ``offsets`` / ``offset_weights`` and
``target_scale``; not the state module (``state``) or the CNN's sizes. A value left out of ``space``
keeps the config's. The recipe is a config overlay (``config/tuned/mrsch.yml``): ``mrsch.dfp`` (the
block every DFP run of both groups reads) and ``extra_seeds`` (three seeds), so the tuned agents of
both groups train, are selected, play and are recorded by the paper's own rules at its budget:
``snakemake mrsch_paper_budget --configfile config/paper-budget.yaml config/tuned/mrsch.yml``.
"""

from __future__ import annotations

import copy
import math
from pathlib import Path
from typing import Any

from schedrl.agents.dfp import DFPConfig
from schedrl.errors import ConfigError
from schedrl.experiments.tune import (
    StudySpec,
    check_space,
    recipe_text,
    run_paper_study,
    study_spec,
    with_trials,
)
from schedrl.papers.mrsch.layout import (
    GROUPS,
    KINDS,
    PAPER_ORDERING,
    STUDY_PINS,
    WORKLOAD_DIR,
    check_spec,
    dfp_config,
    env_kwargs,
    groups,
    jobsets,
    kinds_of,
    make_env,
)

ROOT = "results/tuned/mrsch"
STUDY_KEYS = tuple(StudySpec.__dataclass_fields__)
#: DFPConfig's values a study may not set: the state module is ``state``; the CNN's sizes are an ablation's
NOT_SEARCHABLE = ("state_module", "cnn_channels", "cnn_kernel", "cnn_stride")
SEARCHABLE = tuple(k for k in DFPConfig.__dataclass_fields__ if k not in NOT_SEARCHABLE)
STATES = ("mlp",)
DEFAULTS = {"state": "mlp"}
#: the tuned agent trains three seeds at the paper's budget (issue 69): ``seed`` and two ``extra_seeds``
TUNED_SEEDS = (0, 1, 2)


def tune_spec(spec: dict) -> tuple[dict, StudySpec]:
    """(the mrsch-specific keys, defaults filled, the study) of ``mrsch.tune``; ConfigError names the key."""
    raw = spec.get("tune")
    if raw is None:
        raise ConfigError("mrsch.tune: missing (the study of `schedrl tune mrsch`)")
    own = {**DEFAULTS, "jobs_per_set": int(spec["jobs_per_set"]),
           **{k: v for k, v in raw.items() if k not in STUDY_KEYS}}
    study = study_spec({k: v for k, v in raw.items() if k in STUDY_KEYS}, "mrsch.tune")
    unknown = sorted(set(own) - {"group", "state", "jobs_per_set"})
    if unknown:
        raise ConfigError(f"mrsch.tune.{unknown[0]}: unknown key (known: group, state, jobs_per_set and the study's "
                          f"{', '.join(STUDY_KEYS)})")
    if own.get("group") not in GROUPS:
        raise ConfigError(f"mrsch.tune.group: '{own.get('group')}' (choose from: {', '.join(GROUPS)})")
    if own["group"] not in groups(spec):
        raise ConfigError(f"mrsch.tune.group: '{own['group']}' has none of its workloads ({', '.join(GROUPS[own['group']])}) "
                          "in mrsch.workloads")
    if own["state"] not in STATES:
        raise ConfigError(f"mrsch.tune.state: '{own['state']}' (choose from: {', '.join(STATES)}; the main agents')")
    n = own["jobs_per_set"]
    if not isinstance(n, int) or isinstance(n, bool) or n < 2:
        raise ConfigError(f"mrsch.tune.jobs_per_set: expected a whole number >= 2, got {n!r}")
    if study.steps < len(KINDS):
        raise ConfigError(f"mrsch.tune.steps: {study.steps} job sets; a trial trains at least one of each kind "
                          f"({', '.join(KINDS)})")
    unknown = sorted(set(study.space) - set(SEARCHABLE))
    if unknown:
        raise ConfigError(f"mrsch.tune.space.{unknown[0]}: not searchable (choose from: {', '.join(SEARCHABLE)})")
    _check_space(spec, study.space)
    return own, study


def _check_space(spec: dict, space: dict) -> None:
    """Every searched value alone and every pair of extremes makes a valid DFP config (e.g. no
    ``epsilon_min`` above ``epsilon_start``, no replay smaller than a batch; ``tune.check_space``)."""
    base = {k: v for k, v in spec.items() if k != "tune"}
    check_space(space, "mrsch.tune.space", lambda params: dfp_config(trial_spec(base, params), "mlp"), "valid DFP config")


def _coerce(name: str, value):
    """``value`` as DFPConfig's field ``name`` holds it (Optuna's numbers, YAML's lists)."""
    kind = str(DFPConfig.__dataclass_fields__[name].type)
    if kind.startswith("list["):
        item = int if kind == "list[int]" else float
        return [item(v) for v in value]
    return {"int": int, "float": float, "str": str}[kind](value)


def trial_spec(spec: dict, params: dict[str, Any]) -> dict:
    """``spec`` with a trial's values in ``mrsch.dfp`` (over the config's, where every DFP run of
    both groups reads them: ``layout.dfp_config``), without the study's block, checked."""
    out = copy.deepcopy(spec)
    out.pop("tune", None)
    out["dfp"] = {**out["dfp"], **{k: _coerce(k, v) for k, v in params.items()}}
    return check_spec(out)


def trial_counts(spec: dict, steps: int) -> dict[str, int]:
    """The paper's curriculum (``jobsets``: job sets of each kind) scaled to ``steps`` job sets, at
    least one of each kind (largest remainders, ties to the paper's order of kinds)."""
    counts = {k: int(spec["jobsets"][k]) for k in KINDS}
    total = sum(counts.values())
    share = {k: steps * c / total for k, c in counts.items()}
    out = {k: max(1, math.floor(v)) for k, v in share.items()}
    order = kinds_of(PAPER_ORDERING)
    while sum(out.values()) < steps:
        out[max(order, key=lambda k: share[k] - out[k])] += 1
    while sum(out.values()) > steps:
        out[max((k for k in order if out[k] > 1), key=lambda k: out[k] - share[k])] -= 1
    return out


def trial_episodes(spec: dict, own: dict, steps: int, base=WORKLOAD_DIR) -> list[dict]:
    """The reset options of a trial's ``steps`` job sets: ``layout.jobsets`` of the group's training
    splits at ``trial_counts`` with ``own['jobs_per_set']`` jobs, in the paper's order of kinds."""
    sets = jobsets({**spec, "jobsets": trial_counts(spec, steps), "jobs_per_set": int(own["jobs_per_set"])},
                   own["group"], base)
    return [{"jobs": frame} for kind in kinds_of(PAPER_ORDERING) for frame in sets[kind]]


def validation_value(spec: dict, agent, validation) -> float:
    """``select_model``'s score of ``agent`` (lower is better; 1 = FCFS): its greedy play on the
    validation splits of ``validation`` (``training.validation_splits``), all in lockstep."""
    from schedrl.papers.mrsch.evaluation import play_dfp_batch

    frames = validation[1]
    w = int(spec["window"])
    return _value(validation, play_dfp_batch(agent, [make_env(f, w, **env_kwargs(spec)) for f in frames], frames)[0])


def _value(validation, schedules) -> float:
    """``training.validation_score`` of one model's schedules on the validation splits."""
    import pandas as pd

    from schedrl.papers.mrsch.evaluation import metrics_row
    from schedrl.papers.mrsch.layout import cluster_of
    from schedrl.papers.mrsch.training import validation_score

    names, frames, fcfs = validation
    rows = [metrics_row(sched, cluster_of(f), "mrsch", wl, fraction=1.0, fcfs_wait_h=b["mean_wait_h"],
                        fcfs_slowdown=b["mean_slowdown"]) for sched, f, wl, b in zip(schedules, frames, names, fcfs)]
    return float(validation_score(pd.DataFrame(rows))["score"].iloc[0])


def reference_scores(spec: dict, base=WORKLOAD_DIR, threads: int = 1) -> list[dict]:
    """What a trial's score means: the same score (minus ``validation_value``) of the no-learning
    players in the agent's seat on the same validation splits, each the mean over the study's seeds:
    FCFS + EASY (-1 by construction), the GA re-planning under the config's decision process (the
    paper's strongest baseline, seeded with ``mrsch.seed`` as the pipeline plays it), SJF and smallest
    area first with EASY (beyond the paper, as the evaluation plays them for the normalised scale), uniformly random
    valid picks (the reference the status page compares the agent with) and the untrained network of
    the config's DFP values, initialised as a trial's seed initialises it (``schedrl tune mrsch
    --references``)."""
    import numpy as np
    import torch

    from schedrl.agents.dfp import DFPAgent
    from schedrl.papers.mrsch.evaluation import play_dfp_batch, play_picker, process
    from schedrl.papers.mrsch.fingerprints import random_picker
    from schedrl.papers.mrsch.layout import REFERENCE_HEURISTICS, cluster_of
    from schedrl.papers.mrsch.training import validation_splits
    from schedrl.schedulers.ga import simulate_window_optimiser
    from schedrl.sim import simulate

    torch.set_num_threads(max(1, int(threads)))
    own, study = tune_spec(spec)
    run = trial_spec(spec, {})
    validation = validation_splits(run, own["group"], base)
    frames, w = validation[1], int(run["window"])
    seeds = [int(spec["seed"]) + k for k in range(study.seeds)]
    where = {"workloads": " ".join(validation[0]), "seeds": " ".join(str(s) for s in seeds)}
    probe = make_env(frames[0], w, **env_kwargs(run))
    obs, info = probe.reset(options={"jobs": frames[0]})
    dims = (int(np.prod(obs.shape)), len(info["utilization"]), int(probe.action_space.n))
    probe.close()
    random, untrained = [], []
    state = torch.get_rng_state()
    try:
        for s in seeds:
            random.append(_value(validation, [play_picker(random_picker([s, k]), make_env(f, w, **env_kwargs(run)), f)[0]
                                              for k, f in enumerate(frames)]))
            torch.manual_seed(s)  # as a trial's seed initialises its network (DFPTrainer)
            agent = DFPAgent(*dims, dfp_config(run, own["state"]))
            untrained.append(_value(validation, play_dfp_batch(agent, [make_env(f, w, **env_kwargs(run)) for f in frames],
                                                               frames)[0]))
    finally:
        torch.set_rng_state(state)
    ga = _value(validation, [simulate_window_optimiser(f, cluster_of(f), window=w, seed=int(spec["seed"]),
                                                       exhaustive_max=0, process=process(run)) for f in frames])
    queue = [{"reference": f"{name} (beyond the paper)", "score": -_value(
        validation, [simulate(f, cluster_of(f), policy=m, backfill="easy") for f in frames]), **where}
        for m, name in REFERENCE_HEURISTICS.items()]
    return [{"reference": "FCFS + EASY", "score": -1.0, **where},
            {"reference": "GA re-planning", "score": -ga, **where}, *queue,
            {"reference": "random valid picks", "score": -float(np.mean(random)), **where},
            {"reference": "untrained network", "score": -float(np.mean(untrained)), **where}]


class DFPLearner:
    """One training seed of a trial (``schedrl.experiments.tune.Learner``): a DFP agent trained in
    memory by ``DFPTrainer`` (what ``train_dfp`` runs; no run folder: the tuned recipe is retrained
    by the paper's rules) on ``episodes``, the trial's job sets.

    The step unit is a **job set** (an episode): ``advance(n)`` trains the next ``n`` job sets, so a
    study's ``steps`` counts job sets (a multiple of ``checks``); the exploration schedules relative
    to the run (``run``, ``run_inverse``) are stretched over all of ``episodes``. ``score()``: minus
    ``validation_value`` of the agent as it stands (higher is better, -1 = FCFS): greedy play, which
    draws from no RNG, so scoring does not change how training goes on."""

    def __init__(self, spec: dict, episodes: list[dict], seed: int, validation, device: str = "cpu"):
        from schedrl.agents.allocator import keep_freed_blocks
        from schedrl.agents.dfp import DFPTrainer

        keep_freed_blocks()
        self.spec, self.episodes, self.validation, self.done = spec, episodes, validation, 0
        self.env = make_env(episodes[0]["jobs"], int(spec["window"]), **env_kwargs(spec))
        self.trainer = DFPTrainer(self.env, dfp_config(spec, "mlp"), int(seed), episodes[0], len(episodes),
                                  measurement_key="utilization", goal_key="demand_share", device=device)

    def advance(self, steps: int) -> None:
        end = self.done + int(steps)
        if end > len(self.episodes):
            raise ConfigError(f"DFPLearner: {end} job sets asked, the trial has {len(self.episodes)}")
        for ep in range(self.done, end):
            self.trainer.play_episode(ep, self.episodes[ep])
        self.done = end

    def score(self) -> float:
        return -validation_value(self.spec, self.trainer.agent, self.validation)

    def close(self) -> None:
        self.env.close()
        self.trainer = None  # the network, Adam's moments and the replay memory go with it


def start_learner(spec: dict, own: dict, params: dict[str, Any], seed: int, threads: int = 1, *,
                  episodes: list[dict] | None = None, validation=None, steps: int | None = None,
                  base=WORKLOAD_DIR) -> DFPLearner:
    """One training seed of a trial: the group's agent on the trial's job sets (``episodes``, built
    from ``steps`` when not given) with the trial's values; ``validation``: ``validation_splits``'s
    (built when not given)."""
    import torch

    from schedrl.papers.mrsch.training import validation_splits

    torch.set_num_threads(max(1, int(threads)))
    run = trial_spec(spec, params)
    if episodes is None:
        episodes = trial_episodes(run, own, int(steps if steps is not None else tune_spec(spec)[1].steps), base)
    if validation is None:
        validation = validation_splits(run, own["group"], base)
    return DFPLearner(run, episodes, seed, validation, device=run.get("device", "cpu"))


def trainer(spec: dict, own: dict, params: dict[str, Any]) -> dict:
    """The trial's DFP as the learning probe trains it (``probes.train_trainer``): every ``mrsch.dfp``
    value, the state layers included (the probe's measurement and goal are its own)."""
    return dfp_trainer(trial_spec(spec, params))


def dfp_trainer(spec: dict) -> dict:
    """The DFP the runs train: every ``mrsch.dfp`` value but the checkpoint selection's."""
    return {"kind": "dfp", "hyperparams": {k: v for k, v in spec["dfp"].items() if k != "select_on_validation"}}


def recipe_trainers(spec: dict) -> list[tuple[str, dict]]:
    """(player, trainer) of the agents the configured runs train (``schedrl probe``: the learning probe
    of the paper's own recipe): DFP with every ``mrsch.dfp`` value (MRSch's [4000, 1000] state layers
    where the config names none) and, where the config trains it, the scalar-RL baseline's REINFORCE
    (its ``scalar_config``); the CNN variant is not probed (its layers read MRSch's image, not the
    probe's case)."""
    from schedrl.papers.mrsch.fingerprints import NAMES
    from schedrl.papers.mrsch.layout import has_scalar
    from schedrl.papers.mrsch.training import scalar_config

    scalar = [(NAMES["scalar_rl"], {"kind": "pg", "hyperparams": scalar_config(spec)})] if has_scalar(spec) else []
    return [(NAMES["mrsch"], dfp_trainer(spec)), *scalar]


def recipe(spec: dict, own: dict, params: dict[str, Any], result, study: StudySpec, commit: str | None) -> str:
    """The chosen recipe as a config overlay (YAML text with a header saying where it came from)."""
    run = trial_spec(spec, params)
    base = int(spec["seed"])
    extra = [s for s in TUNED_SEEDS if s != base][:len(TUNED_SEEDS) - 1]
    body = {"mrsch": {"dfp": {k: run["dfp"][k] for k in params}, "extra_seeds": extra}}
    group = own["group"]
    names = f"{GROUPS[group][0]}-{GROUPS[group][-1]}"
    return recipe_text(body, result, study, title="MRSch's tuned recipe (issue 69), written by `schedrl tune mrsch "
                       f"--write-config`; DFP ({own['state']} state) tuned on group {group} ({names}), "
                       f"applied to both groups; a step is a job set of {own['jobs_per_set']:,} jobs",
                       scored=f"minus select_model's validation score on {names}'s validation splits "
                       "(greedy; mean of wait / FCFS wait and slowdown / FCFS slowdown; -1 = FCFS; never a test split)",
                       trials_csv=f"{ROOT}/trials.csv", commit=commit,
                       train="snakemake mrsch_paper_budget --configfile config/paper-budget.yaml config/tuned/mrsch.yml")


def tune(spec: dict, out: str | Path = ROOT, *, threads: int = 1, trials: int | None = None, log=None,
         base=WORKLOAD_DIR):
    """Run ``mrsch.tune``'s study into ``out`` (``trials.csv``); returns (own keys, study, result).
    The trial's job sets and the validation splits (with FCFS's rows) are built once and shared."""
    from schedrl.papers.mrsch.training import validation_splits

    own, study = tune_spec(spec)
    study = with_trials(study, trials)
    plain = trial_spec(spec, {})
    episodes = trial_episodes(plain, own, study.steps, base)
    validation = validation_splits(plain, own["group"], base)
    result = run_paper_study("mrsch", spec, own, study,
                             lambda params, seed: start_learner(spec, own, params, seed, threads, episodes=episodes,
                                                               validation=validation, base=base),
                             out, seed_base=int(spec["seed"]), log=log, trainer=trainer, pins=STUDY_PINS)
    return own, study, result
