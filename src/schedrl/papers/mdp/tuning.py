"""The MDP-design paper's tuned agent (issue 69): what ``schedrl tune mdp`` searches and writes.

The paper trains PPO with Table 2's values ("found in the literature", no tuning) in each MDP. At
its 3 M steps, compact + sparse + reduced (C+S+R) beats SJF in scenarios 3, 6 and 9 (status.md);
a tuned agent in the same MDP says how much of the rest is the recipe. The study (``mdp.tune``;
``schedrl.experiments.tune``) trains ``variant`` (default C+S+R) in ``scenario`` at ``mdp.horizon``
on fresh job sets per episode, as the paper's runs do, and scores each trial by minus the mean
slowdown (the paper's metric, never-started jobs counted as started at T) over
``validation_trials`` episodes, played as the pipeline's evaluation plays them (``eval.deterministic``,
torch seeded with the first set's seed, ``evaluation.evaluate_model``). The validation job sets are
seeds ``validation_jobset_seed``, ``+ 1``, ...: ``tune_spec`` refuses seeds among the evaluation
trials' (``eval.jobset_seed`` .. ``+ eval.trials - 1``: what every table, claim and reference plays;
choosing on them would report a selected agent's luck on its own test) and among the training
seeds (the spec's, the tuned run's 0-2 and the study's own): a training env seeded with s draws its
first job set from the stream that job-set seed s names, so that set is one it trained on. Searched
(every one beyond the paper, so a deviation):

* PPO's values under rl-zoo3's names: ``learning_rate``, ``n_steps``, ``batch_size`` (cut to the
  rollout, as rl-zoo3 does), ``n_epochs``, ``gamma``, ``gae_lambda``, ``ent_coef``, ``clip_range``
  (and ``vf_coef``, ``max_grad_norm``);
* ``net``: the hidden layers of the separate pi and vf nets (the paper's: SB3's default 64-64, tanh);
* ``mask``: sb3-contrib's MaskablePPO on the env's ``action_masks()`` (only slots whose job fits now,
  and the void action, can be picked; in training and in the evaluation's play).

A dimension left out of ``space`` keeps Table 2's value. The compact state has the same size in every
scenario, so one recipe trains in each: the recipe is a config overlay (``config/tuned/mdp.yml``):
``mdp.hyperparams.<variant>`` (the block the training rule and the untrained reference read) and
``mdp.seeds`` [0, 1, 2]. ``snakemake mdp_tuned`` trains, evaluates and fingerprints the tuned variant
alone in every configured scenario (with SJF on the same trials); ``mdp_paper_budget`` adds the
image-like runs of the new seeds at the paper's recipe and the claims.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from schedrl.errors import ConfigError
from schedrl.experiments.tune import SB3Learner, StudySpec, check_kinds, recipe_text, study_spec, tune_paper
from schedrl.papers.mdp.evaluation import METRIC, evaluate_model
from schedrl.papers.mdp.layout import (
    ENV_ID,
    HYPERPARAM_KEYS,
    PROPOSED,
    WRAPPERS,
    check_spec,
    env_kwargs,
    scenario,
)
from schedrl.papers.mdp.training import run_algo, run_hyperparams

ROOT = "results/tuned/mdp"
INT_KEYS = ("n_steps", "batch_size", "n_epochs")
STUDY_KEYS = tuple(StudySpec.__dataclass_fields__)
DEFAULTS = {"variant": PROPOSED}
#: the tuned agent trains three seeds at the paper's budget (issue 69)
TUNED_SEEDS = (0, 1, 2)


def tune_spec(spec: dict) -> tuple[dict, StudySpec]:
    """(the mdp-specific keys, defaults filled, the study) of ``mdp.tune``; ConfigError names the key."""
    raw = spec.get("tune")
    if raw is None:
        raise ConfigError("mdp.tune: missing (the study of `schedrl tune mdp`)")
    if not isinstance(raw, dict):
        raise ConfigError(f"mdp.tune: expected a mapping, got {raw!r}")
    own = {**DEFAULTS, **{k: v for k, v in raw.items() if k not in STUDY_KEYS}}
    study = study_spec({k: v for k, v in raw.items() if k in STUDY_KEYS}, "mdp.tune")
    if own["variant"] not in spec["variants"]:
        raise ConfigError(f"mdp.tune.variant: '{own['variant']}' is not one of mdp.variants "
                          f"({', '.join(spec['variants'])}): the recipe trains in the configured runs")
    try:
        scenario(own.get("scenario"))
    except (ConfigError, TypeError, ValueError):
        raise ConfigError(f"mdp.tune.scenario: {own.get('scenario')!r} is not a Table 3 scenario (1..10)") from None
    for key, least in (("validation_jobset_seed", 0), ("validation_trials", 1)):
        value = own.get(key)
        if not isinstance(value, int) or isinstance(value, bool) or value < least:
            raise ConfigError(f"mdp.tune.{key}: expected a whole number >= {least}, got {value!r}")
    unknown = sorted(set(study.space) - set(HYPERPARAM_KEYS))
    if unknown:
        raise ConfigError(f"mdp.tune.space.{unknown[0]}: not searchable (choose from: {', '.join(HYPERPARAM_KEYS)})")
    check_kinds(study.space, "mdp.tune.space", lambda key: {"net": "widths", "mask": "bool"}.get(
        key, "int" if key in INT_KEYS else "real"))  # as trial_spec writes them
    _check_validation_seeds(spec, own, study)
    return own, study


def _check_validation_seeds(spec: dict, own: dict, study: StudySpec) -> None:
    """The validation sets are job sets ``first .. first + n - 1``, drawn as the evaluation draws its
    trials (set k of seed s is ``default_rng(s + k)``). A seed among the evaluation trials' would be
    a test set the tables report; a training seed's set is the first one its env trained on (the env
    draws episode job sets from ``np_random``, seeded by the run's seed as ``default_rng(seed)``
    is)."""
    first, n = int(own["validation_jobset_seed"]), int(own["validation_trials"])
    ev = spec["eval"]
    start, count = int(ev["jobset_seed"]), int(ev["trials"])
    if first < start + count and start < first + n:
        raise ConfigError(f"mdp.tune.validation_jobset_seed: sets {first}..{first + n - 1} share seeds with the "
                          f"evaluation trials (eval.jobset_seed, eval.trials): {start}..{start + count - 1}")
    # the runs' seeds are in the section the pipeline checks (layout.check_spec), not in the study's rule's
    training = sorted({int(s) for s in spec.get("seeds", ())} | set(TUNED_SEEDS) | set(range(study.seeds)))
    hit = [s for s in training if first <= s < first + n]
    if hit:
        raise ConfigError(f"mdp.tune.validation_jobset_seed: sets {first}..{first + n - 1} hold training seed "
                          f"{hit[0]} (its env's first job set; training seeds: mdp.seeds, the tuned run's "
                          f"{list(TUNED_SEEDS)}, the study's 0..{study.seeds - 1})")


def trial_spec(spec: dict, params: dict[str, Any], own: dict | None = None) -> dict:
    """``spec`` with a trial's parameters where the paper's runs read them:
    ``hyperparams.<variant>`` (over any the config has; ``mask`` makes the runs MaskablePPO).
    ``own``: ``tune_spec``'s keys (default: read from ``spec``)."""
    own = own if own is not None else tune_spec(spec)[0]
    out = copy.deepcopy(spec)
    variant = own["variant"]
    block = dict((out.get("hyperparams") or {}).get(variant) or {})
    for key in HYPERPARAM_KEYS:
        if key not in params:
            continue
        if key == "net":
            block["net"] = [int(n) for n in params["net"]]
        elif key == "mask":
            block["mask"] = bool(params["mask"])
        elif key in INT_KEYS:
            block[key] = int(params[key])
        else:
            block[key] = float(params[key])
    if {"n_steps", "batch_size"} & set(block):
        # rl-zoo3's rule: a minibatch is at most one rollout (Table 2's 64 too, under a rollout it searched)
        merged = run_hyperparams({"hyperparams": {variant: block}}, variant)
        rollout = int(merged["n_steps"]) * int(merged.get("n_envs", 1))
        if int(merged["batch_size"]) > rollout:
            block["batch_size"] = rollout
    out.pop("tune", None)
    out["hyperparams"] = {**(out.get("hyperparams") or {}), variant: block}
    return check_spec(out)


def validation_score(spec: dict, own: dict, model) -> float:
    """Minus the mean slowdown of ``model`` over the validation job sets, played as the pipeline's
    evaluation plays (``eval.deterministic``; torch seeded with the first set's seed; higher is
    better). torch's RNG is restored afterwards, so scoring does not change how training goes on."""
    import torch

    first, n = int(own["validation_jobset_seed"]), int(own["validation_trials"])
    kwargs = env_kwargs(own["variant"], own["scenario"], spec["horizon"])
    state = torch.get_rng_state()
    try:
        frame = evaluate_model(model, kwargs, n, first, deterministic=bool(spec["eval"]["deterministic"]), seed=first)
    finally:
        torch.set_rng_state(state)
    return -float(frame[METRIC].mean())


def start_learner(spec: dict, own: dict, params: dict[str, Any], seed: int, threads: int = 1) -> SB3Learner:
    """One training seed of a trial: the paper's training env (fresh job sets per episode) of the
    variant in the study's scenario at ``mdp.horizon``, with the trial's values over Table 2."""
    import torch

    torch.set_num_threads(max(1, int(threads)))
    run = trial_spec(spec, params, own)
    variant = own["variant"]
    return SB3Learner(ENV_ID, env_kwargs(variant, own["scenario"], run["horizon"]), run_algo(run, variant),
                      run_hyperparams(run, variant), seed, lambda model: validation_score(run, own, model),
                      wrappers=WRAPPERS)


def trainer(spec: dict, own: dict, params: dict[str, Any]) -> dict:
    """The trial's trainer as the learning probe trains it (``probes.train_trainer``): its algorithm
    (MaskablePPO with ``mask``) and hyperparameters, network included."""
    return variant_trainer(trial_spec(spec, params, own), own["variant"])


def variant_trainer(spec: dict, variant: str) -> dict:
    """The trainer the runs of MDP ``variant`` train with: its algorithm and hyperparameters."""
    return {"kind": "sb3", "algo": run_algo(spec, variant), "hyperparams": run_hyperparams(spec, variant)}


def recipe_trainers(spec: dict) -> list[tuple[str, dict]]:
    """(player, trainer) of every agent the configured runs train (``schedrl probe``: the learning
    probe of the paper's own recipe): PPO per MDP variant with its ``hyperparams`` block."""
    from schedrl.papers.mdp.normalised import agent_player

    return [(agent_player(v), variant_trainer(spec, v)) for v in spec["variants"]]


def recipe(spec: dict, own: dict, params: dict[str, Any], result, study: StudySpec, commit: str | None) -> str:
    """The chosen recipe as a config overlay (YAML text with a header saying where it came from)."""
    run = trial_spec(spec, params, own)
    variant = own["variant"]
    body = {"mdp": {"seeds": list(TUNED_SEEDS), "hyperparams": {variant: run["hyperparams"][variant]}}}
    first, n = own["validation_jobset_seed"], own["validation_trials"]
    return recipe_text(body, result, study, title="The MDP-design paper's tuned recipe (issue 69), written by "
                       f"`schedrl tune mdp --write-config`; PPO in {variant}, scenario {own['scenario']}, "
                       f"H {spec['horizon']}",
                       scored=f"-mean slowdown on validation job sets {first}..{first + n - 1} (never an "
                       "evaluation trial's or a training seed's)",
                       trials_csv=f"{ROOT}/trials.csv", commit=commit,
                       train="snakemake mdp_tuned --configfile config/paper-budget.yaml config/tuned/mdp.yml  "
                       f"({variant} alone; mdp_paper_budget adds the image-like seeds and the claims)")


def tune(spec: dict, out: str | Path = ROOT, *, threads: int = 1, trials: int | None = None, log=None):
    """Run ``mdp.tune``'s study into ``out`` (``trials.csv``); returns (own keys, study, result)."""
    from schedrl.papers.mdp.layout import STUDY_PINS

    return tune_paper("mdp", spec, tune_spec, start_learner, out, threads=threads, trials=trials, log=log,
                      trainer=trainer, pins=STUDY_PINS)


def reference_scores(spec: dict, threads: int = 1) -> list[dict]:
    """What a trial's score means: the same score (minus the mean slowdown over the study's validation
    job sets in its scenario, ``eval.deterministic``, torch seeded with the first set's seed) of the
    no-learning players and SJF: random valid play and the untrained network (Table 2's PPO with the
    config's overrides, as the paper-recipe runs start) in the tuned variant's MDP, once per study seed
    (their mean); uniform play over all actions (per seed) and SJF in the base MDP's env, where the
    pipeline's normalised scale plays them (``schedrl tune mdp --references``)."""
    import numpy as np
    import torch

    from schedrl.papers.mdp.layout import BASE, SJF
    from schedrl.papers.mdp.references import Heuristic, RandomValid, UniformAll, untrained_model

    torch.set_num_threads(max(1, int(threads)))
    own, study = tune_spec(spec)
    first, n = int(own["validation_jobset_seed"]), int(own["validation_trials"])
    variant, where_id, horizon = own["variant"], own["scenario"], spec["horizon"]
    seeds = list(range(study.seeds))  # a trial's seeds (run_study's seed_base 0)
    deterministic = bool(spec["eval"]["deterministic"])
    where = {"scenario": where_id, "horizon": horizon, "jobsets": f"{first}..{first + n - 1}",
             "seeds": " ".join(str(s) for s in seeds)}

    def score(player, name: str) -> float:
        frame = evaluate_model(player, env_kwargs(name, where_id, horizon), n, first, deterministic=deterministic,
                               seed=first)
        return -float(frame[METRIC].mean())

    players = {"random valid play": lambda s: score(RandomValid(s), variant),
               "uniform over all actions": lambda s: score(UniformAll(s), BASE),
               "SJF": None,
               "untrained network": lambda s: score(untrained_model(variant, where_id, horizon, s, spec), variant)}
    state = torch.get_rng_state()
    rows = []
    try:
        for name, play in players.items():
            value = score(Heuristic(SJF), BASE) if play is None else float(np.mean([play(s) for s in seeds]))
            rows.append({"reference": name, "score": value, **where})
    finally:
        torch.set_rng_state(state)
    return rows
