"""The DeepRM report's tuned agent (issue 69): what ``schedrl tune deeprm`` searches and writes.

The report's agents (discrete phase 2, A2C / PPO / TRPO for slowdown, SB2's default values, one
training sequence) memorise the sequence they train on, while DeepRM's own REINFORCE trained over
many job sets beats SJF held out (status.md). The study (``deeprm.tune``;
``schedrl.experiments.tune``) trains one SB3 algorithm family (``algo``: ppo, a2c or trpo) for
``objective`` in ``variant`` at the training rate, on the training job sets as the pipeline's runs
do, and scores each trial by the negative mean slowdown (completion time) over ``validation_jobsets``
job sets at the training rate, played as the held-out protocol plays (its episode cap, every job
counted, actions greedy or sampled as ``eval.deterministic``, the sampler seeded with the first set's
seed). The validation sets are pcg64 sets ``validation_jobset_seed``, ``+ 1``, ...: ``tune_spec``
refuses seeds inside the held-out sets' (``eval.jobset_seed`` .. ``+ eval.episodes - 1``, what the
tables and claims test on: choosing on them would report a selected agent's luck on its own test) or
the training sets' (``train.jobset_seed`` .. ``+ num_jobsets - 1`` at the most searched: a trial
scored on sets it trains on measures memorisation, the very failure at issue). Searched (every one
beyond the report, so a deviation):

* the algorithm's values under rl-zoo3's names (``layout.HYPERPARAM_KEYS``): PPO ``learning_rate``,
  ``n_steps``, ``batch_size`` (cut to ``n_steps`` as rl-zoo3 does), ``n_epochs``, ``gamma``,
  ``gae_lambda``, ``ent_coef``, ``clip_range``, ``vf_coef``, ``max_grad_norm``; A2C's own
  (``use_rms_prop``, ``normalize_advantage``, ...); TRPO's (``target_kl``, ``cg_max_steps``, ...);
* ``net``: the hidden layers of actor and critic (the report's: SB2's 64-64, tanh);
* the remedies: ``mask`` (PPO only: MaskablePPO with the env's ``action_masks()``, only slots whose
  job fits and "void" can be picked) and ``num_jobsets`` (training cycles through that many job sets,
  as DeepRM's agent does, instead of the report's one sequence).

A dimension left out of ``space`` keeps the report's value. The recipe is a config overlay
(``config/tuned/deeprm.yml``): the variant's ``algos`` and ``hyperparams`` (the override block the
training rule and the untrained reference read), ``train.num_jobsets``, ``seeds`` [0, 1, 2], so the
tuned agent trains, plays and is recorded by the report's own rules at its budget:
``snakemake deeprm_paper_budget --configfile config/paper-budget.yaml config/tuned/deeprm.yml``.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from schedrl.errors import ConfigError
from schedrl.experiments.tune import SB3Learner, StudySpec, check_kinds, recipe_text, study_spec, tune_paper
from schedrl.papers.deeprm.layout import (
    ENV_ID,
    HYPERPARAM_KEYS,
    OBJECTIVES,
    WRAPPERS,
    check_spec,
    protocol_setup,
    variant_spec,
)
from schedrl.papers.deeprm.training import env_kwargs, run_hyperparams

ROOT = "results/tuned/deeprm"
ALGOS = ("ppo", "a2c", "trpo")
REMEDIES = ("mask", "num_jobsets")
INT_KEYS = ("n_steps", "batch_size", "n_epochs", "cg_max_steps", "n_critic_updates")
BOOL_KEYS = ("use_rms_prop", "normalize_advantage")
STUDY_KEYS = tuple(StudySpec.__dataclass_fields__)
DEFAULTS = {"variant": "discrete-image", "objective": "slowdown"}
#: the tuned agent trains three seeds at the report's budget (issue 69)
TUNED_SEEDS = (0, 1, 2)


def _searchable(algo: str) -> tuple[str, ...]:
    return HYPERPARAM_KEYS[algo] + (REMEDIES if algo == "ppo" else ("num_jobsets",))


def _kind(key: str) -> str:
    """What a searched key takes (``tune.check_kinds``), as ``trial_spec`` writes it."""
    if key == "net":
        return "widths"
    if key in INT_KEYS or key == "num_jobsets":
        return "int"
    return "bool" if key in BOOL_KEYS or key == "mask" else "real"


def tune_spec(spec: dict) -> tuple[dict, StudySpec]:
    """(the deeprm-specific keys, defaults filled, the study) of ``deeprm.tune``; ConfigError names the key."""
    raw = spec.get("tune")
    if raw is None:
        raise ConfigError("deeprm.tune: missing (the study of `schedrl tune deeprm`)")
    own = {**DEFAULTS, **{k: v for k, v in raw.items() if k not in STUDY_KEYS}}
    study = study_spec({k: v for k, v in raw.items() if k in STUDY_KEYS}, "deeprm.tune")
    if own["variant"] not in spec["variants"]:
        raise ConfigError(f"deeprm.tune.variant: '{own['variant']}' is not one of deeprm.variants "
                          f"({', '.join(spec['variants'])})")
    if own.get("algo") not in ALGOS:
        raise ConfigError(f"deeprm.tune.algo: '{own.get('algo')}' (choose from: {', '.join(ALGOS)})")
    if own["objective"] not in OBJECTIVES:
        raise ConfigError(f"deeprm.tune.objective: '{own['objective']}' (choose from: {', '.join(OBJECTIVES)})")
    for key, least in (("validation_jobset_seed", 0), ("validation_jobsets", 1)):
        value = own.get(key)
        if not isinstance(value, int) or isinstance(value, bool) or value < least:
            raise ConfigError(f"deeprm.tune.{key}: expected a whole number >= {least}, got {value!r}")
    searchable = _searchable(own["algo"])
    unknown = sorted(set(study.space) - set(searchable))
    if unknown:
        raise ConfigError(f"deeprm.tune.space.{unknown[0]}: not searchable for {own['algo']} "
                          f"(choose from: {', '.join(searchable)})")
    check_kinds(study.space, "deeprm.tune.space", _kind)
    counts = [int(spec["train"]["num_jobsets"])]
    if "num_jobsets" in study.space:
        dim = study.space["num_jobsets"]
        counts += dim["choices"] if dim["type"] == "categorical" else [dim["high"]]
        if not all(isinstance(c, int) and not isinstance(c, bool) and c >= 1 for c in counts):
            raise ConfigError(f"deeprm.tune.space.num_jobsets: expected whole numbers >= 1, got {counts[1:]}")
    _check_validation_seeds(spec, own, max(int(c) for c in counts))
    return own, study


def _check_validation_seeds(spec: dict, own: dict, most_jobsets: int) -> None:
    """The validation sets are pcg64 sets of seeds ``first .. first + n - 1``, as the held-out protocol
    draws its test sets (set k of seed s is ``default_rng(s + k)``): a seed in the held-out range would
    be a test set, one in the training range a training set (with ``train.jobset_rng: pcg64``; with
    ``legacy`` the training sets come from another generator, but those seeds stay out all the same)."""
    first, n = int(own["validation_jobset_seed"]), int(own["validation_jobsets"])
    heldout = protocol_setup(spec, "heldout")
    train = int(spec["train"]["jobset_seed"])
    ranges = {"the held-out test sets (eval.jobset_seed, eval.episodes)": (heldout["jobset_seed"], int(spec["eval"]["episodes"])),
              "the training sets (train.jobset_seed, the most num_jobsets)": (train, most_jobsets)}
    for what, (start, count) in ranges.items():
        if first < start + count and start < first + n:
            raise ConfigError(f"deeprm.tune.validation_jobset_seed: sets {first}..{first + n - 1} share seeds with "
                              f"{what}: {start}..{start + count - 1}")


def trial_spec(spec: dict, params: dict[str, Any], own: dict | None = None) -> dict:
    """``spec`` with a trial's parameters in the places the report's runs read them: the variant's
    ``algos`` (MaskablePPO with ``mask``) and ``hyperparams.<algo>`` (over any the config has),
    ``train.num_jobsets``. ``own``: ``tune_spec``'s keys (default: read from ``spec``)."""
    own = own if own is not None else tune_spec(spec)[0]
    out = copy.deepcopy(spec)
    variant, base = own["variant"], own["algo"]
    algo = "maskable_ppo" if base == "ppo" and params.get("mask", False) else base
    block = variant_spec(out, variant)
    block["algos"] = [algo]
    hp = dict((block.get("hyperparams") or {}).get(algo) or {})
    for key in HYPERPARAM_KEYS[base]:
        if key not in params:
            continue
        if key == "net":
            hp["net"] = [int(n) for n in params["net"]]
        elif key in INT_KEYS:
            hp[key] = int(params[key])
        elif key in BOOL_KEYS:
            hp[key] = bool(params[key])
        else:
            hp[key] = float(params[key])
    block.pop("hyperparams", None)
    if hp:
        block["hyperparams"] = {algo: hp}
    if "batch_size" in HYPERPARAM_KEYS[base] and {"n_steps", "batch_size"} & set(hp):
        # rl-zoo3's rule: a minibatch is at most one rollout (the file's batch too, under a shorter rollout)
        merged = run_hyperparams(out, variant, algo)
        rollout = int(merged["n_steps"]) * int(merged.get("n_envs", 1))
        if int(merged["batch_size"]) > rollout:
            hp["batch_size"] = rollout
    if "num_jobsets" in params:
        out["train"]["num_jobsets"] = int(params["num_jobsets"])
    out.pop("tune", None)
    return check_spec(out)


def validation_score(spec: dict, own: dict, model) -> float:
    """Negative mean slowdown (completion time) of ``model`` over the validation job sets at the
    training rate, played as the held-out protocol plays (higher is better). torch's RNG is restored
    afterwards, so scoring does not change how training goes on."""
    import torch

    from schedrl.papers.deeprm.evaluation import evaluate_over_rates, model_policy_factory

    setup = protocol_setup(spec, "heldout")
    first, n = int(own["validation_jobset_seed"]), int(own["validation_jobsets"])
    kwargs = {**env_kwargs(spec, own["variant"], own["objective"]), **setup["overrides"]}
    state = torch.get_rng_state()
    try:
        _, episodes = evaluate_over_rates(model_policy_factory(model, setup["deterministic"], first), kwargs,
                                          [float(spec["train"]["rate"])], n, first, protocol="heldout")
    finally:
        torch.set_rng_state(state)
    return -float(episodes[f"mean_{own['objective']}"].mean())


def start_learner(spec: dict, own: dict, params: dict[str, Any], seed: int, threads: int = 1) -> SB3Learner:
    """One training seed of a trial: the report's training env (its job sets, the trial's count) for
    the objective at the training rate, with the trial's hyperparameters."""
    import torch

    torch.set_num_threads(max(1, int(threads)))
    run = trial_spec(spec, params, own)
    variant = own["variant"]
    algo = run["variants"][variant]["algos"][0]
    return SB3Learner(ENV_ID, env_kwargs(run, variant, own["objective"]), algo, run_hyperparams(run, variant, algo),
                      seed, lambda model: validation_score(run, own, model), wrappers=WRAPPERS)


def trainer(spec: dict, own: dict, params: dict[str, Any]) -> dict:
    """The trial's trainer as the learning probe trains it (``probes.train_trainer``): its algorithm
    and hyperparameters (network included); the job sets it trains over are the MDP's."""
    run = trial_spec(spec, params, own)
    return sb3_trainer(run, own["variant"], run["variants"][own["variant"]]["algos"][0])


def sb3_trainer(spec: dict, variant: str, algo: str) -> dict:
    """The trainer of SB3 ``algo`` in ``variant``: its hyperparameters as the training rule reads them."""
    return {"kind": "sb3", "algo": algo, "hyperparams": run_hyperparams(spec, variant, algo)}


def recipe_trainers(spec: dict) -> list[tuple[str, dict]]:
    """(player, trainer) of every agent the configured runs train (``schedrl probe``: the learning probe
    of the paper's own recipe): each SB3 algorithm per variant and, where configured, DeepRM's own
    REINFORCE as ``train_deeprm_agent`` trains it (20 trajectories a job set, 10 job sets an update, no
    masks; tests/test_learning_probes.py probes a denser-update variant of it)."""
    from schedrl.papers.deeprm.layout import DEEPRM_AGENT, DEEPRM_AGENT_PLAYER, label
    from schedrl.papers.deeprm.training import deeprm_agent_hyperparams

    own = ([(DEEPRM_AGENT_PLAYER, {"kind": "pg", "hyperparams": deeprm_agent_hyperparams(spec["deeprm_agent"])})]
           if spec.get("deeprm_agent") else [])
    return [(label(algo), sb3_trainer(spec, variant, algo))
            for variant in spec["variants"] for algo in variant_spec(spec, variant)["algos"] if algo != DEEPRM_AGENT] + own


def recipe(spec: dict, own: dict, params: dict[str, Any], result, study: StudySpec, commit: str | None) -> str:
    """The chosen recipe as a config overlay (YAML text with a header saying where it came from)."""

    run = trial_spec(spec, params, own)
    variant = own["variant"]
    block = run["variants"][variant]
    body: dict = {"deeprm": {
        "seeds": list(TUNED_SEEDS), "objectives": [own["objective"]],
        "variants": {variant: {"algos": block["algos"], **({"hyperparams": block["hyperparams"]}
                                                           if "hyperparams" in block else {})}},
    }}
    if "num_jobsets" in params:
        body["deeprm"]["train"] = {"num_jobsets": int(run["train"]["num_jobsets"])}
    first, n = own["validation_jobset_seed"], own["validation_jobsets"]
    return recipe_text(body, result, study, title="The DeepRM report's tuned recipe (issue 69), written by "
                       f"`schedrl tune deeprm --write-config`; {own['algo']} in {variant} for {own['objective']}",
                       scored=f"-mean {own['objective'].replace('_', ' ')} on validation job sets {first}..{first + n - 1} "
                       f"at rate {spec['train']['rate']:g} (never a training or held-out set)",
                       trials_csv=f"{ROOT}/trials.csv", commit=commit,
                       train="snakemake deeprm_paper_budget --configfile config/paper-budget.yaml config/tuned/deeprm.yml")


def tune(spec: dict, out: str | Path = ROOT, *, threads: int = 1, trials: int | None = None, log=None):
    """Run ``deeprm.tune``'s study into ``out`` (``trials.csv``); returns (own keys, study, result)."""
    from schedrl.papers.deeprm.layout import STUDY_PINS

    return tune_paper("deeprm", spec, tune_spec, start_learner, out, threads=threads, trials=trials, log=log,
                      trainer=trainer, pins=STUDY_PINS)


#: the players a study's scores are read against, on the same validation sets: name -> what plays
#: (``baseline`` a grid heuristic, ``random`` the uniform-random valid policy, ``untrained`` the
#: network the report's recipe starts from)
REFERENCES = {"random valid play": "random", "uniform over all actions (DeepRM's random)": "baseline:random",
              "SJF": "baseline:sjf", "Packer": "baseline:packer", "untrained network": "untrained"}


def reference_scores(spec: dict, threads: int = 1) -> list[dict]:
    """What a trial's score means: the same score (minus the mean slowdown or completion time over the
    study's validation job sets at the training rate, played as the held-out protocol plays) of the
    no-learning players and the report's heuristics: random valid play and the untrained network of the
    report's recipe once per study seed (their mean), uniform play over all actions (DeepRM's random),
    SJF and Packer (``schedrl tune deeprm --references``)."""
    import numpy as np
    import torch

    from schedrl.papers.deeprm.evaluation import evaluate_over_rates, model_policy_factory
    from schedrl.papers.deeprm.references import (
        baseline_policy_factory,
        random_policy_factory,
        untrained_model,
    )

    torch.set_num_threads(max(1, int(threads)))
    own, study = tune_spec(spec)
    setup = protocol_setup(spec, "heldout")
    first, n = int(own["validation_jobset_seed"]), int(own["validation_jobsets"])
    kwargs = {**env_kwargs(spec, own["variant"], own["objective"]), **setup["overrides"]}
    rate = float(spec["train"]["rate"])
    seeds = list(range(study.seeds))  # a trial's seeds (run_study's seed_base 0)
    where = {"objective": own["objective"], "rate": rate, "jobsets": f"{first}..{first + n - 1}",
             "seeds": " ".join(str(s) for s in seeds)}

    def score(make_policy) -> float:
        _, episodes = evaluate_over_rates(make_policy, kwargs, [rate], n, first, protocol="heldout")
        return -float(episodes[f"mean_{own['objective']}"].mean())

    state = torch.get_rng_state()
    rows = []
    try:
        for name, player in REFERENCES.items():
            if player.startswith("baseline:"):
                value = score(baseline_policy_factory(player.split(":", 1)[1]))
            elif player == "random":
                value = float(np.mean([score(random_policy_factory(s)) for s in seeds]))
            else:
                value = float(np.mean([score(model_policy_factory(untrained_model(spec, own["variant"], own["algo"], s),
                                                                  setup["deterministic"], first)) for s in seeds]))
            rows.append({"reference": name, "score": value, **where})
    finally:
        torch.set_rng_state(state)
    return rows
