"""Experiments of the MDP-design paper (mdp-design.txt, sections 4-5).

What runs
---------
* **Scenarios** (Table 3): one resource (processors) with ``n_p`` units, jobs of at most ``d`` time
  steps and ``j_s`` processors (``SCENARIOS``).
* **Variants** (``VARIANTS``): the paper's MDPs as named combinations of options of the one env
  ``schedrl/DeepRM-v0`` (``obs_mode``, ``transitions``, ``reward``, and for sparse transitions
  ``skipped_reward="charge"``: sched-rl-gym's rule, an allocation keeps the clock and waiting is
  charged once where the agent is asked again; issue 36); see ``Variant``
  and the env's docstring for what each option does. The second experiment set ("event-based simulation and
  bounded rewards, in dense and compact MDPs") is ``image-sparse-reduced`` and
  ``compact-sparse-reduced``: sched-rl-gym's event-based simulator is the sparse transition and its
  "bounded" reward is the window ("reduced") reward (see ``VARIANTS``).
* **Fixed setup** (section 5): W = 10 job slots, simulations of T = 100 time steps (arrivals during
  100 steps, episode truncated at step 100), a Bernoulli(0.3) arrival per step, 80% small jobs
  (length U{1..d/5}, large U{2d/3..d}, processors U{j_s/2..j_s}: the env's ``cunha`` workload),
  backlog 60 (DeepRM's and sched-rl-gym's default), jobs start now or wait (``placement="now"``:
  sched-rl-gym allocates at the current time only; it also lets d = 48 exceed H = 20). The image's
  job slots are ``n_p`` columns wide (``max_job_size = n_p``), as sched-rl-gym draws them, so the
  parameter counts are the paper's.
* **Training**: SB3 PPO with Table 2's hyperparameters (``hyperparams/ppo.yaml``, block ``mdp``)
  through the generic ``schedrl train``; each episode draws a fresh job set from the env's RNG
  (``jobset_seed=None``), as sched-rl-gym's generator does.
* **Evaluation**: ``trials`` episodes per agent on job sets ``jobset_seed + k`` (k = 0..trials-1),
  the same for every agent, horizon and scenario (the workload does not depend on H or on the MDP),
  greedy actions by default (sched-rl-gym's tutorial evaluates with ``deterministic=True``).
  ``evaluate_model`` plays the trials with the core's ``envs.rollout.run_lockstep`` (one policy forward per step for the whole
  batch). An episode's slowdown is the mean over the jobs that arrived; jobs running at T count with
  their known finish, jobs never started count as if started at T, 1 + (T - arrival) / length, as
  sched-rl-gym's PPO tutorial computes it (``mean_slowdown``); the env's value so far, (T - arrival)
  / length, is kept as ``mean_slowdown_sofar`` (issue 25: the paper is silent).
* **Budgets** (issue 24): the checkpoints at 1/8, 1/4 and 1/2 of training (kept by ``schedrl train
  --keep-steps``) are evaluated like the final model (``evaluate_budgets``, ``budget_episodes.csv``).
* **Transfer** (Fig. 6): the compact agent of one scenario (config ``transfer``) evaluated in every
  scenario without retraining, in the compact env *without* sparse transitions ("without
  event-based updates"); with greedy actions a sparse-trained agent makes the same schedule in the
  dense env (skipped steps are steps where every action moves time on), so its numbers compare with
  the scenario's own agents on the same job sets.

Statistics: an agent's value per trial is the mean over training seeds of that trial's episode
slowdown (every seed plays the same job sets); two agents are compared with Welch's t-test over the
trials (two-sided, ``welch_p``). Layout: ``run_dir`` / ``transfer_dir``; the Snakemake rules build
their path patterns from these functions called with wildcards.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from schedrl.agents.sparse_setting import use_sparse
from schedrl.errors import ConfigError, InputFileError
from schedrl.io import read_result
from schedrl.report.budget import SLOWER_KIND

ROOT = "results/mdp"
ENV_ID = "schedrl.envs:schedrl/DeepRM-v0"
WRAPPERS = ("schedrl.agents.wrappers:JobMetricsInfo",)
ALGO = "ppo"
HYPERPARAMS_VARIANT = "mdp"  # block of hyperparams/ppo.yaml holding Table 2

# Section 5's environment, the same for every scenario and MDP.
FIXED_ENV: dict[str, Any] = {
    "num_res": 1,
    "num_nw": 10,               # W = 10 job slots
    "backlog_size": 60,
    "simu_len": 100,            # T = 100: jobs arrive during 100 time steps ...
    "episode_max_length": 100,  # ... and the simulation stops at step 100
    "new_job_rate": 0.3,
    "workload": "cunha",
    "placement": "now",
}


@dataclass(frozen=True)
class Scenario:
    """One row of Table 3."""

    id: int
    procs: int      # n_p, processors in the cluster
    max_len: int    # d, maximum job length (time steps)
    max_size: int   # j_s, maximum processors of a job


# Table 3 (the text says n_p in {10, 32, 64}; Table 3 and the parameter counts use 38).
SCENARIOS: dict[int, Scenario] = {s.id: s for s in (
    Scenario(1, 10, 15, 10), Scenario(2, 10, 48, 10), Scenario(3, 38, 15, 32), Scenario(4, 38, 33, 32),
    Scenario(5, 38, 48, 32), Scenario(6, 64, 15, 64), Scenario(7, 64, 33, 32), Scenario(8, 64, 33, 64),
    Scenario(9, 64, 48, 32), Scenario(10, 64, 48, 64),
)}


@dataclass(frozen=True)
class Variant:
    """One MDP: env options and the paper's name for it."""

    obs_mode: str
    transitions: str
    reward: str
    label: str
    source: str
    # sparse transitions: what skipped time earns (the env's ``skipped_reward``); the paper's MDPs
    # use sched-rl-gym's "charge" rule (issue 36), "-zero" / "-sum" twins the other readings
    skipped_reward: str = "sum"


# The paper's MDPs (sections 4.1-4.4 and the second experiment set of section 4). Names say which
# changes of sections 4.2-4.4 are applied to the base MDP.
VARIANTS: dict[str, Variant] = {
    "image": Variant("image", "dense", "slowdown", "image-like", "section 4.1 (base MDP, DeepRM)"),
    "compact": Variant("compact", "dense", "slowdown", "compact", "section 4.2"),
    "compact-sparse": Variant("compact", "sparse", "slowdown", "compact + sparse", "section 4.3", "charge"),
    "compact-sparse-reduced": Variant("compact", "sparse", "slowdown_window", "compact + sparse + reduced",
                                      "section 4.4; = compact + event-based + bounded (second set)", "charge"),
    "image-sparse-reduced": Variant("image", "sparse", "slowdown_window", "image-like + sparse + reduced",
                                    "second set: dense (image) state, event-based, bounded reward", "charge"),
}
# The other readings of section 4.3, each the same MDP with another ``skipped_reward``:
# ``<sparse variant>-sum`` (issue 25: the skipped time steps' rewards summed into the step that
# skips them, so training optimises the slowdown the evaluation measures) and ``-zero`` (the
# paper's sentence alone: skipped time earns 0, so every work-conserving order earns the same
# return; the verdict reading until issue 36).
SUM_SUFFIX, ZERO_SUFFIX = "-sum", "-zero"
for _name in [n for n, v in VARIANTS.items() if v.transitions == "sparse"]:
    _v = VARIANTS[_name]
    VARIANTS[_name + SUM_SUFFIX] = Variant(_v.obs_mode, _v.transitions, _v.reward, _v.label + " (skipped time charged)",
                                           _v.source + "; skipped time steps charged (sum)", "sum")
    VARIANTS[_name + ZERO_SUFFIX] = Variant(_v.obs_mode, _v.transitions, _v.reward, _v.label + " (skipped time free)",
                                            _v.source + "; skipped time steps earn zero", "zero")
FIG4_VARIANTS = ("image", "compact", "compact-sparse", "compact-sparse-reduced", "image-sparse-reduced",
                 "compact-sparse-sum", "compact-sparse-reduced-sum", "image-sparse-reduced-sum")


def sum_twin(name: str) -> str | None:
    """The skipped-time-charged twin of a sparse variant (None for dense ones)."""
    twin = name + SUM_SUFFIX
    return twin if twin in VARIANTS else None
BASE = "image"        # Fig. 4's reference MDP
PROPOSED = "compact-sparse-reduced"  # the MDP the paper's Fig. 4 claims are about


def variant(name: str) -> Variant:
    if name not in VARIANTS:
        raise ConfigError(f"unknown MDP variant '{name}' (choose from: {', '.join(VARIANTS)})")
    return VARIANTS[name]


def scenario(sid: int | str) -> Scenario:
    sid = int(sid)
    if sid not in SCENARIOS:
        raise ConfigError(f"unknown scenario {sid} (Table 3 has 1..{len(SCENARIOS)})")
    return SCENARIOS[sid]


def env_kwargs(variant_name: str, scenario_id: int | str, horizon: int | str, *,
               transitions: str | None = None, jobset_seed: int | None = None,
               num_jobsets: int = 1) -> dict[str, Any]:
    """Keyword arguments of ``schedrl/DeepRM-v0`` for one MDP, scenario and horizon H.

    ``transitions`` overrides the variant's (transfer evaluation); ``jobset_seed=None`` draws a fresh
    job set per episode (training), an int fixes them (evaluation).
    """
    v, s = variant(variant_name), scenario(scenario_id)
    return {**FIXED_ENV, "time_horizon": int(horizon), "res_slot": s.procs, "max_job_size": s.procs,
            "workload_max_job_size": s.max_size, "max_job_len": s.max_len, "obs_mode": v.obs_mode,
            "transitions": transitions or v.transitions, "skipped_reward": v.skipped_reward,
            "reward": v.reward, "jobset_seed": jobset_seed,
            "num_jobsets": int(num_jobsets)}


# ---------------------------------------------------------------------------------------------
# The config section (``mdp:``): which scenarios, variants, horizons and seeds run, and how long.

def load_spec(text: str) -> dict:
    """The ``mdp`` config section from JSON text or a config YAML file, schema- and cross-checked."""
    from schedrl.config import load_section

    return check_spec(load_section(text, "mdp"))


def check_spec(spec: dict) -> dict:
    """Cross-key checks the JSON schema cannot express; ConfigError names the key. ``fig3``,
    ``transfer``, ``horizon_study`` and ``fig5`` may be null (a scale that trains only the runs behind
    Fig. 4, config/paper-budget.yaml): their claims then read "not comparable"."""
    scenarios, variants = list(spec["scenarios"]), list(spec["variants"])
    for sid in scenarios:
        scenario(sid)
    for name in variants:
        variant(name)
    for name in variants:
        for suffix in (SUM_SUFFIX, ZERO_SUFFIX):
            if name.endswith(suffix) and name[:-len(suffix)] not in variants:
                raise ConfigError(f"mdp.variants: '{name}' is another reading of '{name[:-len(suffix)]}', "
                                  "which must run too")
    if BASE not in variants:
        raise ConfigError(f"mdp.variants must hold '{BASE}' (the base MDP every comparison refers to)")
    for sid in fig3_scenarios(spec):
        if sid not in scenarios:
            raise ConfigError(f"mdp.fig3.scenarios: {sid} is not one of mdp.scenarios")
    if fig3_scenarios(spec) and "compact" not in variants:
        raise ConfigError("mdp.variants must hold 'compact' (Fig. 3 contrasts it with 'image'; or set mdp.fig3 null)")
    t = spec.get("transfer")
    if t is not None:
        if t["variant"] not in variants or variant(t["variant"]).obs_mode != "compact":
            raise ConfigError("mdp.transfer.variant must be a compact variant of mdp.variants (only the "
                              "compact state has the same size in every scenario)")
        if t["scenario"] not in scenarios:
            raise ConfigError(f"mdp.transfer.scenario {t['scenario']} is not one of mdp.scenarios")
    for sid in (spec.get("fig5") or {}).get("scenarios", []):
        scenario(sid)
    train = spec["train"]
    if int(train["steps"]) % (8 * int(train["checkpoint_every"])):
        raise ConfigError("mdp.train.checkpoint_every must divide mdp.train.steps / 8 (the budget evaluations "
                          "read the checkpoints at 1/8, 1/4 and 1/2 of training)")
    study = horizon_study(spec)
    if study is not None:
        if study["horizon"] == spec["horizon"]:
            raise ConfigError("mdp.horizon_study.horizon must differ from mdp.horizon")
        for sid in study["scenarios"]:
            if sid not in scenarios:
                raise ConfigError(f"mdp.horizon_study.scenarios: {sid} is not one of mdp.scenarios")
        for name in study["variants"]:
            if name not in variants:
                raise ConfigError(f"mdp.horizon_study.variants: '{name}' is not one of mdp.variants")
    return spec


# The parts of the design a scale may leave out (null in its config): each helper says what runs.

def fig3_scenarios(spec: dict) -> list[int]:
    """Scenarios of Fig. 3's learning-curve panels ([] when ``fig3`` is null)."""
    return [int(s) for s in (spec.get("fig3") or {}).get("scenarios", [])]


def horizon_study(spec: dict) -> dict | None:
    """The second-horizon study (None when ``horizon_study`` is null)."""
    return spec.get("horizon_study") or None


def transfer_spec(spec: dict) -> dict | None:
    """Fig. 6's transfer (None when ``transfer`` is null)."""
    return spec.get("transfer") or None


def only_scenarios(spec: dict, scenarios) -> dict:
    """The spec narrowed to ``scenarios`` (one recorded run per scenario, the per-scenario claims):
    Fig. 3's panels and the horizon study keep theirs among them, the transfer goes where its source
    scenario is not among them; Fig. 5's benchmark stays (it trains no agent of a scenario)."""
    keep = [int(s) for s in spec["scenarios"] if int(s) in {int(x) for x in scenarios}]
    if not keep:
        raise ConfigError(f"mdp: none of scenarios {sorted(scenarios)} is one of mdp.scenarios {spec['scenarios']}")
    out = {**spec, "scenarios": keep}
    panels = [s for s in fig3_scenarios(spec) if s in keep]
    out["fig3"] = {**spec["fig3"], "scenarios": panels} if panels else None
    t = transfer_spec(spec)
    out["transfer"] = t if t is not None and int(t["scenario"]) in keep else None
    study = horizon_study(spec)
    kept = [int(s) for s in study["scenarios"] if int(s) in keep] if study else []
    out["horizon_study"] = {**study, "scenarios": kept} if kept else None
    return out


@dataclass(frozen=True)
class Run:
    horizon: int
    variant: str
    scenario: int
    seed: int


def runs(spec: dict) -> list[Run]:
    """Every training run: all variants x scenarios at the main horizon, then the horizon study."""
    main = [Run(int(spec["horizon"]), v, int(s), int(seed)) for v in spec["variants"] for s in spec["scenarios"]
            for seed in spec["seeds"]]
    study = horizon_study(spec)
    other = [Run(int(study["horizon"]), v, int(s), int(seed)) for v in study["variants"]
             for s in study["scenarios"] for seed in spec["seeds"]] if study else []
    return main + other


def horizons(spec: dict) -> list[int]:
    study = horizon_study(spec)
    return [int(spec["horizon"])] + ([int(study["horizon"])] if study else [])


# ---------------------------------------------------------------------------------------------
# Layout (shared by the Snakemake rules and the CLI).

def run_dir(root: str | Path, horizon, variant_name, scenario_id, seed) -> Path:
    return Path(root) / f"H{horizon}" / str(variant_name) / f"scenario{scenario_id}" / f"seed{seed}"


def eval_path(folder: str | Path) -> Path:
    """Per-trial evaluation table inside a run (or transfer) folder."""
    return Path(folder) / "eval_episodes.csv"


def transfer_dir(root: str | Path, horizon, variant_name, scenario_id, seed) -> Path:
    """Evaluations in every scenario of the agent trained in ``scenario_id`` (Fig. 6)."""
    return Path(root) / "transfer" / f"H{horizon}" / f"{variant_name}-from-scenario{scenario_id}" / f"seed{seed}"


def run_folder(root: str | Path, run: Run) -> Path:
    return run_dir(root, run.horizon, run.variant, run.scenario, run.seed)


def train_env_args(variant_name: str, scenario_id: int | str, horizon: int | str) -> str:
    """``--env-kwarg`` options of ``schedrl train`` for one training run."""
    import shlex

    kwargs = env_kwargs(variant_name, scenario_id, horizon)
    return " ".join(shlex.quote(f"--env-kwarg={k}={json.dumps(v)}") for k, v in sorted(kwargs.items()))


def evaluation_files(spec: dict, root: str | Path = ROOT, horizon: int | None = None,
                     variants: Iterable[str] | None = None, scenarios: Iterable[int] | None = None) -> list[str]:
    """Evaluation tables of the selected runs (default: every run)."""
    out = []
    for run in runs(spec):
        if (horizon is None or run.horizon == horizon) and (variants is None or run.variant in variants) \
                and (scenarios is None or run.scenario in scenarios):
            out.append(str(eval_path(run_folder(root, run))))
    return out


def curve_files(spec: dict, root: str | Path = ROOT) -> list[str]:
    """Learning curves Fig. 3 reads: image and compact at the main horizon, Fig. 3's scenarios."""
    return [str(run_dir(root, spec["horizon"], v, s, seed) / "learning_curve.csv")
            for v in ("image", "compact") for s in fig3_scenarios(spec) for seed in spec["seeds"]]


def timing_files(spec: dict, root: str | Path = ROOT) -> list[str]:
    return [str(run_folder(root, r) / "timing.json") for r in runs(spec)]


def transfer_files(spec: dict, root: str | Path = ROOT) -> list[str]:
    t = transfer_spec(spec)
    if t is None:
        return []
    return [str(eval_path(transfer_dir(root, spec["horizon"], name, t["scenario"], seed)))
            for name in transfer_variants(spec) for seed in spec["seeds"]]


# ---------------------------------------------------------------------------------------------
# Cost: measured training speed, for Snakemake's runtime resources and the config's budget.

# Training CPU seconds per agent step of SB3 PPO with Table 2's hyperparameters on one core, as a
# function of the policy's parameter count: a + b * params, fitted on 2026-11-29 to the two 3 M-step
# runs of the paper-budget scale's scenario 3 on the faster machine kind (AVX-512 EPYC, two rules at
# a time; process CPU less PROCESS_SECONDS of start-up): compact + sparse + reduced (24,332
# parameters) 1,245 CPU-s, ~2,400 steps per CPU-second; image-like (1,089,548) 4,303 CPU-s, ~700.
# It put the smoke config's scenario-9 image-like command (1,821,708 parameters, 8,192 steps) at
# 22.5 CPU-s; measured 25.0 beside three other processes. The fit before, (8.96e-4, 2.0e-9), was
# made on 2026-11-26 to a default run whose machine kind went unrecorded; it was the slower kind's
# speed (its x1.06 below), 1.6-2.1x this kind's.
SECONDS_PER_STEP = (3.90e-4, 9.57e-10)
#: Cluster time limits: the cost model at a quarter of its speed (a loaded or slower node) + 10 min.
SAFETY = 4.0


def obs_size(variant_name: str, scenario_id: int | str, horizon: int | str) -> int:
    """Length of the (flattened) observation: image H x (n_p (W + 1) + backlog/H + 1), compact 2H + 7W + 8."""
    v, s, H = variant(variant_name), scenario(scenario_id), int(horizon)
    W = FIXED_ENV["num_nw"]
    if v.obs_mode == "compact":
        return 2 * H + 7 * W + 8
    return H * (s.procs * (W + 1) + -(-FIXED_ENV["backlog_size"] // H) + 1)


def mlp_params(obs: int, actions: int = FIXED_ENV["num_nw"] + 1, hidden: int = 64) -> int:
    """Parameters of SB3's default MlpPolicy (separate 64-64 tanh nets for pi and vf)."""
    trunk = (obs * hidden + hidden) + (hidden * hidden + hidden)
    return 2 * trunk + (hidden * actions + actions) + (hidden + 1)


#: Image-like training with the sparse-input first layer (issue 72; ``sparse_input: auto`` turns it
#: on from 1,024 inputs, so for every image-like state and no compact one) against the dense layer
#: the fit above was made with: PPO steps per CPU-second, sparse over dense, in two runs of
#: ``benchmarks/bench_sparse_input.py`` (2026-12-01, faster kind, other processes busy): scenario 3
#: 1.44x / 1.45x, 6 1.66x / 1.51x, 9 1.40x / 1.49x. The model divides the dense cost by the lowest.
SPARSE_SPEEDUP = 1.40


def train_seconds(run: Run, steps: int) -> float:
    a, b = SECONDS_PER_STEP
    obs = obs_size(run.variant, run.scenario, run.horizon)
    dense = steps * (a + b * mlp_params(obs))
    return dense / SPARSE_SPEEDUP if use_sparse("auto", obs) else dense


def train_minutes(variant_name: str, scenario_id, horizon, steps: int) -> int:
    """Snakemake ``runtime`` of one training run: ``SAFETY`` times the cost model, plus 10 minutes."""
    run = Run(int(horizon), variant_name, int(scenario_id), 0)
    return int(SAFETY * train_seconds(run, int(steps)) / 60) + 10


# Evaluation seconds per agent step of a batched trial: env step plus a share of the forward pass,
# fitted to the 62 evaluation rules of the same run (1,000 trials each; start-up excluded): most of
# an evaluation rule is its start-up (5-11 CPU s in all, 17-42 before the batched trials).
EVAL_SECONDS_PER_STEP = (5e-6, 2.4e-11)
EVAL_STEPS_PER_TRIAL = 120  # agent steps of a 100-step episode (allocations add steps, sparse ones skip)
#: Recording one decision for a fingerprint (mask, window, heuristics' picks; issue 41), measured
#: 2026-11-26 on the loaded 2-core machine: ~60 us, as much as playing the step.
FINGERPRINT_SECONDS_PER_STEP = 6e-5
PROCESS_SECONDS = 5  # start-up of one 'schedrl' job (imports, model set-up; measured 3-5 CPU s)


def eval_seconds(run: Run, trials: int) -> float:
    a, b = EVAL_SECONDS_PER_STEP
    return trials * EVAL_STEPS_PER_TRIAL * (a + b * mlp_params(obs_size(run.variant, run.scenario, run.horizon)))


def estimate_core_hours(spec: dict) -> dict[str, float]:
    """Estimated core-hours of a config: training (cost model above), evaluation of every agent and
    of the transferred agents, and the start-up of every job."""
    steps, trials = int(spec["train"]["steps"]), int(spec["eval"]["trials"])
    all_runs = runs(spec)
    H = int(spec["horizon"])
    moved = [Run(H, name, int(s), 0) for name in transfer_variants(spec) for s in spec["scenarios"]] \
        * len(spec["seeds"])
    train = sum(train_seconds(r, steps) for r in all_runs)
    evaluate = sum(eval_seconds(r, trials) for r in all_runs + moved)
    checkpoints = len(budget_fractions())
    budget = checkpoints * sum(eval_seconds(r, trials) for r in budget_runs(spec) + moved)
    bench = spec.get("fig5")
    timing = sum(train_seconds(Run(int(h), name, int(s), 0), int(bench["steps"]) + 50)
                 for name in ("image", "compact") for s in bench["scenarios"] for h in bench["horizons"]) if bench else 0.0
    # issue 41: recording the fingerprinted trials of every evaluation, and the two reference agents
    # playing every evaluation again (no training); SJF plays each scenario's trials once
    recorded = (len(all_runs) + len(moved)) * min(trials, FINGERPRINT_TRIALS) * EVAL_STEPS_PER_TRIAL
    record = recorded * FINGERPRINT_SECONDS_PER_STEP
    sjf = sum(eval_seconds(Run(H, BASE, int(s), 0), trials) + trials * EVAL_STEPS_PER_TRIAL * SJF_SECONDS_PER_STEP
              for s in spec["scenarios"])
    # uniform play over all actions (issue 68): each scenario's trials in the base MDP once per seed,
    # counted as an evaluation of the base MDP's network (an upper bound: it runs no network)
    uniform = len(spec["seeds"]) * sum(eval_seconds(Run(H, BASE, int(s), 0), trials) for s in spec["scenarios"])
    references = len(REFERENCE_AGENTS) * (evaluate + record) + sjf + uniform
    jobs = 2 * len(all_runs) + len(budget_runs(spec)) + 2 * len(transfer_variants(spec)) * len(spec["seeds"]) + 14
    return {"train": train / 3600, "evaluate": (evaluate + record) / 3600, "budget": budget / 3600,
            "bench": timing / 3600, "references": references / 3600,
            "startup": jobs * PROCESS_SECONDS / 3600, "runs": len(all_runs)}


#: The parts of ``estimate_core_hours`` that sum to a config's core-hours.
COST_PARTS = ("train", "evaluate", "budget", "bench", "references", "startup")
#: SJF's pick (the slot jobs that fit now, the shortest) per agent step, on top of the env's step.
SJF_SECONDS_PER_STEP = 2e-5

#: The slower machine kind (docs/cost-and-budgets.md) against this model: the smoke config's
#: scenario-9 image-like training command, 8,192 steps on one thread, took 44.6 CPU-s there (issue
#: 60, 2026-11-28) where the model says 22.5 with its start-up (x1.98; 25.0 measured on the faster
#: kind under load, x1.78). Compact runs (SB3's per-step overhead) have not been timed on the slower
#: kind; other papers' SB3 steps cost 1.4-2.6x there.
SLOWER_MACHINE = (SLOWER_KIND, 1.98)


def cost_total(spec: dict) -> float:
    cost = estimate_core_hours(spec)
    return float(sum(cost[k] for k in COST_PARTS))


def scenario_costs(spec: dict) -> dict[int, float]:
    """Per scenario, the core-hours of the spec narrowed to it (``only_scenarios``): what one
    recorded run of one scenario costs (``mdp_paper_budget_s<N>``), the no-learning references of
    that scenario and its share of the fixed jobs included."""
    return {int(s): cost_total(only_scenarios(spec, [s])) for s in spec["scenarios"]}


def cost_note(spec: dict) -> str:
    """What ``schedrl mdp cost`` can add to its line after the total (as the other papers' cost
    commands do): the slower machine kind, and with several scenarios each as its own run."""
    from schedrl.report.budget import on_slower_kind

    factor = SLOWER_MACHINE[1]
    note = on_slower_kind(cost_total(spec), factor) + " (image-like training timed there, compact not)"
    if len(spec["scenarios"]) > 1:
        note += "; per scenario (each a run of its own at the paper-budget scale: mdp_paper_budget_s<N>): " + ", ".join(
            f"scenario {s} ~{c:.2f} (slower kind ~{c * factor:.2f})" for s, c in scenario_costs(spec).items())
    return note


def reference_minutes(spec: dict) -> int:
    """Snakemake ``runtime`` of one reference agent's job (every evaluation played once): ``SAFETY``
    times the cost model, plus 10 minutes."""
    hours = estimate_core_hours(spec)["references"] / len(REFERENCE_AGENTS)
    return int(SAFETY * hours * 60) + 10


def param_count(variant_name: str, scenario_id: int | str, horizon: int | str) -> int:
    """Trainable parameters of the PPO policy (Table 2's hyperparameters) on this MDP, counted on
    the SB3 model itself."""
    import warnings

    from schedrl.agents.hyperparams import load_hyperparams, resolve_hyperparams
    from schedrl.agents.registry import algo_class
    from schedrl.experiments.envs import make_env

    hp = load_hyperparams(ALGO, HYPERPARAMS_VARIANT)
    policy, _, kwargs = resolve_hyperparams(ALGO, hp)
    env = make_env(ENV_ID, env_kwargs(variant_name, scenario_id, horizon))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # batch_size > n_steps (Table 2 as given)
        model = algo_class(ALGO)(policy, env, device="cpu", **kwargs)
    env.close()
    return int(sum(p.numel() for p in model.policy.parameters() if p.requires_grad))


# ---------------------------------------------------------------------------------------------
# Evaluation: trials in lockstep batches.

EVAL_COLUMNS = ("trial", "jobset_seed", "mean_slowdown", "mean_slowdown_sofar", "n_jobs", "jobs_finished",
                "jobs_unstarted", "return", "agent_steps", "time_steps", "truncated")
# Jobs never started when the episode stops at T (issue 25; the paper is silent): ``mean_slowdown``
# (the verdicts' reading, sched-rl-gym's tutorial) counts them as if started at T, i.e.
# (T - arrival + length) / length >= 1, so withholding a job never lowers the metric;
# ``mean_slowdown_sofar`` counts (T - arrival) / length, the env's slowdown so far, which can be < 1.
METRIC, METRIC_SOFAR = "mean_slowdown", "mean_slowdown_sofar"


def episode_slowdowns(jobs) -> tuple[float, float]:
    """(mean slowdown with never-started jobs counted as started at the cap, mean slowdown so far)."""
    if not len(jobs):
        return float("nan"), float("nan")
    sofar = np.asarray(jobs["slowdown"], dtype=float)
    unstarted = np.asarray(jobs["state"] == "waiting")
    return float(np.mean(sofar + unstarted)), float(np.mean(sofar))


class RandomValid:
    """The uniform-random valid policy (issue 41's no-learning reference): in each env, a uniform
    choice among the actions ``action_masks()`` allows (the void action included), from a generator
    seeded by (``seed``, the env's job set), so a trial's play does not depend on the batching."""

    def __init__(self, seed: int):
        self.seed = int(seed)
        self._rngs: dict[int, np.random.Generator] = {}

    def start(self, env, jobset_seed: int) -> None:
        self._rngs[id(env)] = np.random.default_rng([self.seed, int(jobset_seed)])

    def __call__(self, env) -> int:
        return int(self._rngs[id(env)].choice(np.flatnonzero(env.unwrapped.action_masks())))


class UniformAll(RandomValid):
    """Uniform play over every action, valid or not (issue 68's unmasked random player): in DeepRM's
    env an action the grid cannot start moves time on, as the void action does. Its own stream per
    (``seed``, job set), apart from ``RandomValid``'s."""

    def start(self, env, jobset_seed: int) -> None:
        self._rngs[id(env)] = np.random.default_rng([self.seed, int(jobset_seed), 0xA11])

    def __call__(self, env) -> int:
        return int(self._rngs[id(env)].integers(env.unwrapped.action_space.n))


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
            capped, sofar = episode_slowdowns(jobs)
            rows.append({"trial": k, "jobset_seed": s, METRIC: capped, METRIC_SOFAR: sofar,
                         "n_jobs": int(len(jobs)), "jobs_finished": int(np.sum(jobs["state"] == "finished")),
                         "jobs_unstarted": int(np.sum(jobs["state"] == "waiting")),
                         "return": ep["return"], "agent_steps": ep["steps"],
                         "time_steps": int(env.unwrapped.grid.now), "truncated": ep["truncated"]})
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
# What the agents learned (issue 41): behaviour fingerprints of every evaluated agent, and the
# no-learning references every RL claim is computed again with.
#
# ``fingerprint.json`` sits beside each ``eval_episodes.csv`` (own scenario or transfer), from the
# decisions of the evaluation trials themselves. The references replace every trained agent by the
# uniform-random valid policy (``RandomValid``, seeded by the run's seed) or by the untrained network
# (Table 2's PPO built with the run's seed, as ``schedrl train`` builds it, no training step) and
# play the same trials and transfers; their tables mirror the trained layout under
# ``reference_root(root, agent)``, so the claims code reads them with the same functions.

REFERENCE_AGENTS = ("random", "untrained")
AGENT_KINDS = ("trained",) + REFERENCE_AGENTS


def fingerprint_path(folder: str | Path) -> Path:
    return Path(folder) / "fingerprint.json"


def reference_root(root: str | Path, agent: str) -> Path:
    """Where the ``agent`` reference's evaluations go (``agent`` may be a Snakemake wildcard)."""
    return Path(root) / "reference" / agent


def untrained_model(variant_name: str, scenario_id: int | str, horizon: int | str, seed: int):
    """Table 2's PPO for this MDP built with ``seed`` and never trained: SB3 seeds torch before it
    builds the policy, so these are the weights the run with this seed started from."""
    import warnings

    from schedrl.agents.hyperparams import load_hyperparams, resolve_hyperparams
    from schedrl.agents.registry import algo_class
    from schedrl.experiments.envs import make_env

    hp = load_hyperparams(ALGO, HYPERPARAMS_VARIANT)
    policy, _, kwargs = resolve_hyperparams(ALGO, hp)
    env = make_env(ENV_ID, env_kwargs(variant_name, scenario_id, horizon))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # batch_size > n_steps (Table 2 as given)
        model = algo_class(ALGO)(policy, env, device="cpu", seed=int(seed), **kwargs)
    env.close()
    return model


def reference_model(agent: str, variant_name: str, scenario_id: int | str, horizon: int | str, seed: int):
    if agent not in REFERENCE_AGENTS:
        raise ConfigError(f"unknown reference agent '{agent}' (choose from: {', '.join(REFERENCE_AGENTS)})")
    if agent == "random":
        return RandomValid(seed)
    return untrained_model(variant_name, scenario_id, horizon, seed)


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
    view = AgentView() if isinstance(model, RandomValid) else sb3_view(model)
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


def _reference_jobs(spec: dict, root: str | Path, agent: str) -> list[tuple[Run, bool, Path]]:
    """(run, transfer?, evaluation table) of every reference evaluation: each run's, then the
    transferred agents'."""
    ref = reference_root(root, agent)
    out = [(r, False, eval_path(run_folder(ref, r))) for r in runs(spec)]
    t, H = transfer_spec(spec), int(spec["horizon"])
    out += [(Run(H, name, int(t["scenario"]), int(seed)), True,
             eval_path(transfer_dir(ref, H, name, t["scenario"], seed)))
            for name in transfer_variants(spec) for seed in spec["seeds"]]
    return out


def reference_files(spec: dict, root: str | Path, agent: str) -> list[str]:
    """Every table and fingerprint a reference agent's evaluation writes."""
    return [str(p) for _, _, path in _reference_jobs(spec, root, agent) for p in (path, fingerprint_path(path.parent))]


def evaluate_references(spec: dict, root: str | Path, agent: str, *, threads: int = 1) -> list[Path]:
    """Play every run's and transfer's evaluation with the ``agent`` reference instead of the
    trained model; returns the tables written."""
    import torch

    torch.set_num_threads(max(1, int(threads)))
    written = []
    for run, transfer, path in _reference_jobs(spec, root, agent):
        model = reference_model(agent, run.variant, run.scenario, run.horizon, run.seed)
        frame, fp = evaluate_fingerprinted(model, spec, run.variant, run.scenario, run.horizon, transfer=transfer,
                                           where=f"{agent} reference")
        write_evaluation(path, frame, fp, kind=agent, variant_name=run.variant, source=run.scenario,
                         horizon=run.horizon, seed=run.seed, transfer=transfer, spec=spec)
        written.append(path)
    return written


# SJF on the same trials (issue 60's third reference, beside random and untrained play): each
# scenario's evaluation trials at the main horizon played once by the grid's SJF (of the slot jobs
# that fit now the shortest, the void action when none fits) in the base MDP's env. SJF reads the
# cluster, not the observation, so one play per scenario stands for every MDP; its number is a
# level to read the agents against, not a claim's verdict.
SJF = "sjf"


class Heuristic:
    """A grid heuristic (``schedrl.schedulers.grid``: sjf, packer, random) as a picker ``picker(env)``."""

    def __init__(self, name: str):
        from schedrl.schedulers.grid import get_policy

        self.name, self.fn = name, get_policy(name)

    def __call__(self, env) -> int:
        return int(self.fn(env.unwrapped))


def sjf_path(root: str | Path, horizon: int | str) -> Path:
    """SJF's per-trial table of every scenario at ``horizon`` (column ``scenario``)."""
    return reference_root(root, SJF) / f"H{horizon}" / "eval_episodes.csv"


def evaluate_sjf(spec: dict) -> pd.DataFrame:
    """SJF on ``eval.trials`` trials of every scenario of the spec at the main horizon, the job sets
    every agent plays (one row per scenario and trial; ``variant`` names the env played in)."""
    H = int(spec["horizon"])
    frames = [evaluate_agent(Heuristic(SJF), spec, BASE, int(s), H) for s in spec["scenarios"]]
    frame = pd.concat(frames, ignore_index=True)
    frame.insert(0, "policy", SJF)
    return frame


# Uniform play over all actions (issue 68), for the normalised scale: each scenario's evaluation
# trials at the main horizon played in the base MDP's env (where random valid play is the 0 and SJF
# plays) by ``UniformAll``, once per training seed.
UNIFORM = "uniform"


def uniform_path(root: str | Path, horizon: int | str) -> Path:
    """Uniform play's per-trial table of every scenario and seed at ``horizon`` (columns ``scenario``, ``seed``)."""
    return reference_root(root, UNIFORM) / f"H{horizon}" / "eval_episodes.csv"


def evaluate_uniform(spec: dict) -> pd.DataFrame:
    """``UniformAll`` on ``eval.trials`` trials of every scenario of the spec at the main horizon,
    one play per seed of the spec (one row per seed, scenario and trial)."""
    H = int(spec["horizon"])
    frames = []
    for seed in spec["seeds"]:
        for s in spec["scenarios"]:
            frame = evaluate_agent(UniformAll(int(seed)), spec, BASE, int(s), H)
            frame.insert(0, "seed", int(seed))
            frames.append(frame)
    frame = pd.concat(frames, ignore_index=True)
    frame.insert(0, "policy", UNIFORM)
    return frame


def sjf_trials(root: str | Path, spec: dict, scenario_id: int, metric: str = METRIC) -> pd.Series | None:
    """Per trial, SJF's ``metric`` in ``scenario_id`` (None when SJF's table or that scenario is absent)."""
    path = sjf_path(root, spec["horizon"])
    if not Path(path).exists():
        return None
    frame = read_csv(path)
    part = frame[frame["scenario"] == int(scenario_id)]
    return None if part.empty else part.set_index("trial")[metric]


def reference_levels(spec: dict, root: str | Path, scenario_id: int) -> dict[str, float]:
    """Mean slowdown over the trials of ``scenario_id`` (main horizon) of the no-learning references
    that exist on disk: SJF, and per MDP of the spec's Fig. 4 pair the uniform-random valid policy
    and the untrained network (their seeds' mean); keys like "SJF", "random image-like"."""
    H, out = int(spec["horizon"]), {}
    sjf = sjf_trials(root, spec, scenario_id)
    if sjf is not None:
        out["SJF"] = float(sjf.mean())
    for agent in REFERENCE_AGENTS:
        for name in (BASE, PROPOSED):
            if name not in spec["variants"]:
                continue
            try:
                values = per_trial(reference_root(root, agent), spec, H, name, scenario_id)
            except (InputFileError, FileNotFoundError):
                continue
            out[f"{'random' if agent == 'random' else 'untrained'} {VARIANTS[name].label}"] = float(values.mean())
    return out


def fingerprint_files(spec: dict, root: str | Path = ROOT, kinds: Iterable[str] = AGENT_KINDS) -> list[str]:
    """``fingerprint.json`` of every evaluated agent: trained runs and transfers, their budget
    checkpoints, then references."""
    out = []
    for kind in kinds:
        if kind == "trained":
            out += [str(fingerprint_path(Path(p).parent)) for p in evaluation_files(spec, root) + transfer_files(spec, root)]
            out += [str(p) for b in budget_files(spec, root) for p in budget_fingerprint_paths(Path(b).parent)]
        else:
            out += [p for p in reference_files(spec, root, kind) if p.endswith("fingerprint.json")]
    return out


def claims_inputs(spec: dict, root: str | Path = ROOT) -> dict[str, list[str]]:
    """What the claims of ``spec`` read, by kind (the inputs of the rules ``mdp_claims`` and
    ``mdp_claims_scenario``): evaluations, transfers, Fig. 3's curves, timings, Fig. 5's benchmark,
    budget checkpoints, the trained agents' fingerprints, the no-learning references and SJF."""
    return {"evaluations": evaluation_files(spec, root), "transfer": transfer_files(spec, root),
            "curves": curve_files(spec, root), "timings": timing_files(spec, root),
            "bench": [str(bench_path(root))] if spec.get("fig5") else [],
            "budgets": budget_files(spec, root), "fingerprints": fingerprint_files(spec, root, kinds=["trained"]),
            "references": [p for agent in REFERENCE_AGENTS for p in reference_files(spec, root, agent)],
            "sjf": [str(sjf_path(root, spec["horizon"]))]}


def fingerprints_path(root: str | Path = ROOT) -> Path:
    return Path(root) / "fingerprints.csv"


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

def budget_fractions() -> tuple[float, ...]:
    from schedrl.protocol import BUDGET_FRACTIONS

    return tuple(f for f in BUDGET_FRACTIONS if f < 1.0)


def budget_steps(spec: dict) -> list[int]:
    """Steps at which the checkpoints behind the budget evaluations are kept (1/8, 1/4, 1/2)."""
    steps = int(spec["train"]["steps"])
    return [max(1, int(round(f * steps))) for f in budget_fractions()]


def budget_path(folder: str | Path) -> Path:
    """Per-trial evaluations of a run's budget checkpoints (column ``fraction``)."""
    return Path(folder) / "budget_episodes.csv"


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


def budget_fingerprint_path(folder: str | Path, fraction: float) -> Path:
    """Fingerprint of the checkpoint at ``fraction`` of training, beside ``budget_episodes.csv``."""
    return Path(folder) / f"fingerprint_at_{fraction:g}.json"


def budget_fingerprint_paths(folder: str | Path) -> list[Path]:
    return [budget_fingerprint_path(folder, f) for f in budget_fractions()]


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


def budget_files(spec: dict, root: str | Path = ROOT) -> list[str]:
    """Budget evaluations behind the RL claims: every run at the main horizon of the base and the
    proposed MDPs (and its skipped-time-charged twin), the transfer variant's own agents, the
    horizon study's runs, and the transferred agents."""
    out = [str(budget_path(run_folder(root, r))) for r in runs(spec) if r in set(budget_runs(spec))]
    t = transfer_spec(spec)
    for name in transfer_variants(spec):
        out += [str(budget_path(transfer_dir(root, spec["horizon"], name, t["scenario"], seed))) for seed in spec["seeds"]]
    return out


def budget_runs(spec: dict) -> list[Run]:
    H, study, t = int(spec["horizon"]), horizon_study(spec), transfer_spec(spec)
    wanted = {BASE, PROPOSED} | ({t["variant"]} if t else set())
    wanted |= {sum_twin(n) for n in list(wanted) if sum_twin(n)}
    return [r for r in runs(spec)
            if (r.horizon == H and r.variant in wanted)
            or (study is not None and r.variant in study["variants"] and r.scenario in study["scenarios"])]


def transfer_variants(spec: dict) -> list[str]:
    """The transfer variant and, when it runs too, its skipped-time-charged twin ([] without a transfer)."""
    if transfer_spec(spec) is None:
        return []
    name = spec["transfer"]["variant"]
    twin = sum_twin(name)
    return [name] + ([twin] if twin and twin in spec["variants"] else [])


def variant_of(kwargs: dict) -> str:
    """The variant whose options an env's kwargs carry."""
    got = (kwargs.get("obs_mode"), kwargs.get("transitions"), kwargs.get("reward"), kwargs.get("skipped_reward", "sum"))
    for name, v in VARIANTS.items():
        if got == (v.obs_mode, v.transitions, v.reward, v.skipped_reward):
            return name
    raise ConfigError(f"env arguments {kwargs.get('obs_mode')}/{kwargs.get('transitions')}/{kwargs.get('reward')} "
                      "are not one of the paper's MDP variants")


def scenario_of(kwargs: dict) -> int:
    key = (kwargs.get("res_slot"), kwargs.get("max_job_len"), kwargs.get("workload_max_job_size"))
    for sid, s in SCENARIOS.items():
        if key == (s.procs, s.max_len, s.max_size):
            return sid
    raise ConfigError(f"env arguments n_p={key[0]}, d={key[1]}, j_s={key[2]} are not a Table 3 scenario")


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


def read_timing(path: str | Path) -> dict:
    from schedrl.io import read_json

    path = Path(path)
    if not path.exists():
        raise InputFileError(path, "missing (train the run first)")
    return read_json(path)


# ---------------------------------------------------------------------------------------------
# Fig. 5's horizon benchmark: CPU seconds per PPO agent step at several horizons.

BENCH_COLUMNS = ("variant", "scenario", "horizon", "params", "steps", "repeats", "cpu_s", "cpu_s_per_step")


def bench_horizon(spec: dict, *, threads: int = 1, seed: int = 0) -> pd.DataFrame:
    """Train Table 2's PPO for ``fig5.steps`` agent steps in the image-like and compact MDPs of each
    ``fig5.scenarios`` at each ``fig5.horizons``; the process CPU time of ``learn`` per step (set-up
    and the first rollout excluded, so start-up does not blur the slope), the fastest of
    ``fig5.repeats`` timings: on a shared machine a neighbour's cache traffic only ever adds time, so
    the minimum is the least disturbed figure (timeit's convention)."""
    import time
    import warnings

    import torch

    from schedrl.agents.hyperparams import load_hyperparams, resolve_hyperparams
    from schedrl.agents.registry import algo_class
    from schedrl.experiments.envs import make_env

    torch.set_num_threads(max(1, int(threads)))
    bench = spec["fig5"]
    steps = int(bench["steps"])
    repeats = int(bench.get("repeats", 3))
    hp = load_hyperparams(ALGO, HYPERPARAMS_VARIANT)
    policy, _, kwargs = resolve_hyperparams(ALGO, hp)
    rows = []
    for name in ("image", "compact"):
        for sid in bench["scenarios"]:
            for H in bench["horizons"]:
                env = make_env(ENV_ID, env_kwargs(name, sid, H))
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    model = algo_class(ALGO)(policy, env, device="cpu", seed=seed, **kwargs)
                    model.learn(int(kwargs.get("n_steps", 50)))  # warm-up: first rollout and update
                    timings = []
                    for _ in range(repeats):
                        t0 = time.process_time()
                        model.learn(steps, reset_num_timesteps=False)
                        timings.append(time.process_time() - t0)
                    cpu = min(timings)
                env.close()
                params = int(sum(p.numel() for p in model.policy.parameters() if p.requires_grad))
                rows.append({"variant": name, "scenario": int(sid), "horizon": int(H), "params": params,
                             "steps": steps, "repeats": repeats, "cpu_s": cpu, "cpu_s_per_step": cpu / steps})
    return pd.DataFrame(rows, columns=list(BENCH_COLUMNS))


def linear_fit(x, y) -> tuple[float, float, float]:
    """(slope, intercept, R^2) of the least-squares line y = slope x + intercept."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    slope, intercept = np.polyfit(x, y, 1)
    resid = y - (slope * x + intercept)
    total = float(np.sum((y - y.mean()) ** 2))
    r2 = 1.0 - float(np.sum(resid ** 2)) / total if total > 0 else 1.0
    return float(slope), float(intercept), r2


def bench_path(root: str | Path = ROOT) -> Path:
    return Path(root) / "fig5_bench.csv"


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
