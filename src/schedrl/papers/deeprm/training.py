"""DeepRM experiments of the SB3 report: what trains.

Agents are trained at one arrival rate (the report's "130%" = new_job_rate 0.7) on ``num_jobsets``
training job sets. This module holds ``env_kwargs`` (the env's keyword arguments for a variant,
objective and rate from the pipeline's ``deeprm`` config section, a "spec") and the training rules'
arguments (``train_env_args``, the hyperparameter block ``hyperparams_variant`` and the config's
overrides of it, ``run_hyperparams`` / ``train_options``, steps and checkpoint cadence per run), the
report protocol's model selection (``report_selection`` while training, ``best_in_sample_model``
for run folders trained before it) and DeepRM's own REINFORCE agent (``train_deeprm_agent``). Names
and folders come from ``layout``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from schedrl.errors import ConfigError
from schedrl.papers.deeprm.layout import (
    DEEPRM_AGENT,
    ENV_ID,
    OBJECTIVES,
    RUN_KEYS,
    WRAPPERS,
    parse_variant,
    protocol_setup,
    variant_obs_mode,
    variant_spec,
)


def hyperparams_variant(variant: str) -> str:
    """Key of a variant in the hyperparameter YAML files (``deeprm-discrete-image``)."""
    action, obs = parse_variant(variant)
    return f"deeprm-{action}-{obs}"


def hyperparams_override(spec: dict, variant: str, algo: str) -> dict[str, Any]:
    """Plain hyperparameters of ``algo``'s runs in ``variant`` that ``deeprm.variants.<variant>.
    hyperparams.<algo>`` sets over the hyperparameter file (beyond the report: a tuned recipe,
    config/tuned/deeprm.yml; issue 69); {} without that block, so the report's runs are unchanged.
    ``net`` (and ``sparse_input``) become ``policy_kwargs`` with ``net_arch`` {pi: net, vf: net} (and
    ``sparse_input``), the block's other ``policy_kwargs`` (the activation) kept: an override replaces a
    top-level key whole."""
    block = (variant_spec(spec, variant).get("hyperparams") or {}).get(algo) or {}
    policy_keys = ("net", "sparse_input")
    out = {k: v for k, v in block.items() if k not in policy_keys}
    if any(k in block for k in policy_keys):
        from schedrl.agents.hyperparams import load_hyperparams

        policy_kwargs = dict(load_hyperparams(algo, f"deeprm-{variant}").get("policy_kwargs") or {})
        if "net" in block:
            net = [int(n) for n in block["net"]]
            policy_kwargs["net_arch"] = {"pi": net, "vf": list(net)}
        if "sparse_input" in block:
            policy_kwargs["sparse_input"] = block["sparse_input"]
        out["policy_kwargs"] = policy_kwargs
    return out


def run_hyperparams(spec: dict, variant: str, algo: str) -> dict[str, Any]:
    """The plain hyperparameters an SB3 run of ``algo`` in ``variant`` trains with: the file's
    ``deeprm-<variant>`` block (as the training rule's ``--variant``), then ``hyperparams_override``."""
    from schedrl.agents.hyperparams import load_hyperparams

    return load_hyperparams(algo, f"deeprm-{variant}", overrides=hyperparams_override(spec, variant, algo))


def train_options(spec: dict, variant: str, algo: str) -> str:
    """``schedrl train``'s options beyond the env's: the report protocol's selection
    (``selection_args``) and one ``--hp`` per ``hyperparams_override`` value. Without overrides this
    is ``selection_args`` alone, so the training rule's params (and its runs) stay as they were."""
    import json
    import shlex

    def text(value) -> str:  # read back as YAML: 1e-05 would be a string there, 1.0e-05 is a number
        out = json.dumps(value)
        return out.replace("e", ".0e", 1) if isinstance(value, float) and "e" in out and "." not in out else out

    hp = [shlex.quote(f"--hp={k}={text(v)}") for k, v in sorted(hyperparams_override(spec, variant, algo).items())]
    return " ".join([a for a in [selection_args(spec)] if a] + hp)


def env_kwargs(spec: dict, variant: str, objective: str, *, rate: float | None = None,
               jobset_seed: int | None = None, num_jobsets: int | None = None) -> dict[str, Any]:
    """Env keyword arguments of ``variant`` for ``objective`` (training rate and job sets by default)."""
    action, _ = parse_variant(variant)
    obs = variant_obs_mode(spec, variant)
    if objective not in OBJECTIVES:
        raise ConfigError(f"unknown DeepRM objective '{objective}' (choose from: {', '.join(OBJECTIVES)})")
    block = variant_spec(spec, variant)
    kwargs = {**spec.get("env", {}), **block.get("env", {})}
    for key in RUN_KEYS:
        if key in kwargs:
            raise ConfigError(f"deeprm env key '{key}' is set by the experiment; remove it from the config")
    train = spec["train"]
    kwargs.update(obs_mode=obs, action_mode=action, reward=objective, jobset_rng=train.get("jobset_rng", "pcg64"),
                  new_job_rate=float(train["rate"] if rate is None else rate),
                  jobset_seed=int(train["jobset_seed"] if jobset_seed is None else jobset_seed),
                  num_jobsets=int(train["num_jobsets"] if num_jobsets is None else num_jobsets))
    return kwargs


def train_env_args(spec: dict, variant: str, objective: str) -> str:
    """``--env-kwarg`` options of a training run (variant, objective, training rate and job sets)."""
    import json
    import shlex

    kwargs = env_kwargs(spec, variant, objective)
    return " ".join(shlex.quote(f"--env-kwarg={k}={json.dumps(v)}") for k, v in sorted(kwargs.items()))


def run_steps(spec: dict, variant: str, algo: str, objective: str) -> int:
    """Env steps of one SB3 run: ``train.steps``, or the smallest ``steps_by`` entry naming its
    variant, algorithm or objective (so ``{discrete-image: 1000000, completion_time: 300000}``
    trains discrete-image's agents 1 M steps for slowdown and 300 k for completion time)."""
    by = spec.get("steps_by") or {}
    named = [int(by[key]) for key in (variant, algo, objective) if key in by]
    return min(named) if named else int(spec["train"]["steps"])


def run_checkpoint_every(spec: dict, variant: str, algo: str, objective: str) -> int:
    """``train.checkpoint_every`` at the same share of the run's steps (a run of 4x the steps
    checkpoints 4x less often), so the claims' budget checkpoints fall at 1/8, 1/4, 1/2 of each run."""
    share = int(spec["train"]["checkpoint_every"]) / int(spec["train"]["steps"])
    return max(1, round(share * run_steps(spec, variant, algo, objective)))


def report_selection(spec: dict) -> dict | None:
    """The report protocol's model selection during training (``report_selection``) as
    ``schedrl.experiments.selection.Selection`` fields: checks on the report protocol's job sequence
    (its overrides, seed and job sets at the training rate), actions sampled as the protocol plays
    them; None when not configured."""
    block = spec.get("report_selection")
    if not block:
        return None
    setup = protocol_setup(spec, "report")
    return {"check_every": int(block["check_every"]), "episodes": int(block.get("episodes", 1)),
            "env_kwargs": {**setup["overrides"], "jobset_seed": setup["jobset_seed"], "num_jobsets": setup["episodes"]},
            "deterministic": bool(setup["deterministic"])}


def selection_args(spec: dict) -> str:
    """``schedrl train``'s selection options for ``report_selection`` (empty without it)."""
    import json
    import shlex

    sel = report_selection(spec)
    if sel is None:
        return ""
    args = [f"--select-every={sel['check_every']}", f"--select-episodes={sel['episodes']}"]
    args += [f"--select-env-kwarg={k}={json.dumps(v)}" for k, v in sorted(sel["env_kwargs"].items())]
    if sel["deterministic"]:
        args.append("--select-deterministic")
    return " ".join(shlex.quote(a) for a in args)


def best_in_sample_model(run: str | Path, final_model, config: dict, overrides: dict, seed: int = 0):
    """The fallback for run folders without ``best_model.zip``: of the run's checkpoints and its final model, the one whose
    sampled episode on the training job set (training env, ``overrides`` applied) earns the highest
    return (a later one wins a tie, as the report code's ``>=``). Returns (model, file name,
    {file name: return}). The report checked every 1,000 steps; a run folder keeps only its last
    ``KEEP_CHECKPOINTS`` checkpoints and those at 1/8, 1/4 and 1/2 of training
    (``RunFolder.budget_checkpoints``), so the choice here is among those and the final model;
    runs trained with ``report_selection`` choose every ``check_every`` steps while training."""
    import torch

    from schedrl.agents.registry import algo_class
    from schedrl.envs.rollout import run_policy, sb3_policy
    from schedrl.experiments.envs import make_env
    from schedrl.experiments.train import checkpoints

    candidates = [(path.name, path) for _, path in checkpoints(run)] + [("model.zip", None)]
    kwargs = {**config["env_kwargs"], **overrides}
    scores, best = {}, None
    for name, path in candidates:
        model = final_model if path is None else algo_class(config["algo"]).load(path, device="cpu")
        env = make_env(ENV_ID, kwargs)
        try:
            torch.manual_seed(seed)
            table = run_policy(env, sb3_policy(model, deterministic=False), 1, seed=int(seed))
        finally:
            env.close()
        scores[name] = float(table.attrs["episodes"][0]["return"])
        if best is None or scores[name] >= scores[best[0]]:
            best = (name, model)
    return best[1], best[0], scores



# ---------------------------------------------------------------------------------------------
# DeepRM's own agent (Mao et al. 2016): REINFORCE trained for slowdown at every rate of the sweep.

def deeprm_agent_iterations(spec: dict, rate: float) -> int:
    """Training iterations of the DeepRM agent at ``rate``: ``converge.iterations`` at the
    ``converge.rates``, ``iterations`` elsewhere."""
    agent = spec["deeprm_agent"]
    long = agent.get("converge") or {}
    if any(np.isclose(rate, r) for r in long.get("rates", [])):
        return int(long["iterations"])
    return int(agent["iterations"])


def deeprm_agent_env_kwargs(spec: dict, rate: float) -> dict[str, Any]:
    agent = spec["deeprm_agent"]
    return env_kwargs(spec, agent["variant"], "slowdown", rate=rate, num_jobsets=int(agent["jobsets"]))


def deeprm_agent_hyperparams(agent: dict) -> dict:
    """DeepRM's REINFORCE values (hyperparams/deeprm_pg.yaml) with ``deeprm.deeprm_agent``'s trajectories:
    what ``train_deeprm_agent`` trains and the learning probe probes (``tuning.recipe_trainers``)."""
    from schedrl.agents.hyperparams import load_hyperparams

    return load_hyperparams(DEEPRM_AGENT, hyperparams_variant(agent["variant"]),
                            overrides={"trajectories": int(agent["trajectories"])})


def train_deeprm_agent(spec: dict, rate: float, seed: int, run: str | Path, threads: int = 1):
    """Train DeepRM's agent at ``rate`` (hyperparams/deeprm_pg.yaml; trajectories from the config)."""
    from schedrl.experiments.train import train_pg

    agent = spec.get("deeprm_agent")
    if not agent:
        raise ConfigError("deeprm.deeprm_agent is not configured")
    if not any(np.isclose(rate, r) for r in agent["rates"]):
        raise ConfigError(f"rate {rate} is not one of deeprm.deeprm_agent.rates {agent['rates']}")
    hp = deeprm_agent_hyperparams(agent)
    return train_pg(ENV_ID, deeprm_agent_env_kwargs(spec, rate), hp, deeprm_agent_iterations(spec, rate), seed, run,
                    wrappers=WRAPPERS, variant=hyperparams_variant(agent["variant"]),
                    checkpoint_every=int(agent.get("checkpoint_every", 10)), threads=threads,
                    on_mismatch="restart")
