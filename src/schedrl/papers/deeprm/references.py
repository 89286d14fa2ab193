"""DeepRM experiments of the SB3 report: the no-learning and outside references.

What the trained agents are measured against, played through the same evaluation (``evaluation``)
as they are: the heuristic baselines (SJF, Packer, Random; ``baseline_policy_factory``), the
no-learning references every RL claim is recomputed with (issue 41: the uniform-random valid policy
and the untrained network, ``evaluate_reference``) and the report authors' own trained agents
(issue 40: SB2 models of phase 2 and DeepRM's REINFORCE weights per load, played in numpy by
``schedrl.agents.sb2_reference``; ``authors_policy_factory``, ``authors_episodes``). Their folders
and file lists are in ``layout``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

from schedrl.errors import ConfigError
from schedrl.papers.deeprm.evaluation import (
    agent_name,
    evaluate_recorded,
    model_policy_factory,
    read_csv,
    valid_mask,
    write_agent_fingerprint,
)
from schedrl.papers.deeprm.layout import (
    AGENT_PROTOCOLS,
    AUTHORS_PREFIX,
    BASELINES,
    DEEPRM_AGENT,
    ENV_ID,
    WRAPPERS,
    authors_dir,
    authors_runs,
    eval_paths,
    fingerprint_path,
    label,
    protocol_setup,
)
from schedrl.papers.deeprm.training import (
    deeprm_agent_env_kwargs,
    env_kwargs,
    hyperparams_variant,
    run_hyperparams,
)


def baseline_policy_factory(name: str) -> Callable:
    from schedrl.envs.rollout import grid_policy

    if name not in BASELINES:
        raise ConfigError(f"unknown DeepRM baseline '{name}' (choose from: {', '.join(BASELINES)})")
    return lambda env: grid_policy(name, env)



# ---------------------------------------------------------------------------------------------
# The no-learning references (issue 41): the uniform-random valid policy and the untrained network,
# played through the same evaluation as the trained agents, with their fingerprints.

def random_policy_factory(seed: int) -> Callable:
    """``make_policy(env)`` of the uniform-random valid policy: a seeded choice among the actions
    ``action_masks()`` allows (multi-binary: a fitting slot or void, as a one-hot vector), reseeded
    for every rate as the agents' sampler is."""
    from gymnasium import spaces

    def make_policy(env):
        rng = np.random.default_rng(int(seed))
        discrete = isinstance(env.action_space, spaces.Discrete)

        def policy(obs, info=None):
            mask = valid_mask(env)
            a = int(rng.choice(np.flatnonzero(mask)))
            if discrete:
                return a
            bits = np.zeros(len(mask) - 1, dtype=np.int8)
            if a < len(bits):
                bits[a] = 1
            return bits

        policy.__name__ = "uniform_random_valid"
        return policy

    return make_policy


def untrained_model(spec: dict, variant: str, algo: str, seed: int):
    """The network ``algo`` starts its training from in ``variant`` with ``seed``: the same
    hyperparameters (``deeprm-<variant>`` as the training rule passes it, with the config's
    overrides, ``training.run_hyperparams``) and the same
    constructor call with the same seed, no training step. DeepRM's agent as ``train_reinforce``
    builds it (torch seeded, then the network)."""
    import torch

    from schedrl.agents.hyperparams import load_hyperparams
    from schedrl.experiments.envs import make_env

    if algo == DEEPRM_AGENT:
        from schedrl.agents.reinforce import ReinforceConfig, make_policy

        agent = spec["deeprm_agent"]
        hp = load_hyperparams(DEEPRM_AGENT, hyperparams_variant(agent["variant"]),
                              overrides={"trajectories": int(agent["trajectories"])})
        env = make_env(ENV_ID, deeprm_agent_env_kwargs(spec, float(agent["rates"][0])), WRAPPERS)
        try:
            torch.manual_seed(int(seed))
            return make_policy(env, ReinforceConfig.from_dict(hp))
        finally:
            env.close()
    from stable_baselines3.common.vec_env import DummyVecEnv

    from schedrl.agents.hyperparams import resolve_hyperparams
    from schedrl.agents.registry import algo_class, is_off_policy

    hp = run_hyperparams(spec, variant, algo)  # the training rule's, the config's overrides included
    policy, n_envs, kwargs = resolve_hyperparams(algo, hp)
    if is_off_policy(algo):
        kwargs["buffer_size"] = 1  # the replay buffer draws nothing from the seeded RNGs; spare its memory
    kwargs.setdefault("device", "cpu")
    train_kwargs = env_kwargs(spec, variant, "slowdown")
    venv = DummyVecEnv([lambda: make_env(ENV_ID, train_kwargs, WRAPPERS) for _ in range(n_envs)])
    try:
        return algo_class(algo)(policy, venv, seed=int(seed), verbose=0, **kwargs)
    finally:
        venv.close()


def evaluate_reference(spec: dict, variant: str, reference: str, algo: str, seed: int, folder: str | Path) -> dict:
    """Play a no-learning reference under every agent protocol as the trained agents are played
    (same job sets, rates, sampling seed, overrides; the report protocol's best-in-sample choice has
    nothing to choose from) and write its CSVs and fingerprints into ``folder``. Returns
    {protocol: episodes table}."""
    from schedrl.io import write_csv

    model = untrained_model(spec, variant, algo, seed) if reference == "untrained" else None
    base = env_kwargs(spec, variant, "slowdown")
    out = {}
    for protocol in AGENT_PROTOCOLS:
        setup = protocol_setup(spec, protocol)
        make_policy = (random_policy_factory(seed) if model is None
                       else model_policy_factory(model, setup["deterministic"], setup["jobset_seed"]))
        jobs, episodes, decisions = evaluate_recorded(make_policy, {**base, **setup["overrides"]}, setup["rates"],
                                                      setup["episodes"], setup["jobset_seed"], protocol)
        episodes["model"] = reference
        paths = eval_paths(folder, protocol)
        write_csv(paths["jobs"], jobs, float_format="%.6g")
        write_csv(paths["episodes"], episodes, float_format="%.6g")
        write_agent_fingerprint(fingerprint_path(folder, protocol), decisions, model,
                                agent=agent_name(variant, algo, "", seed, reference), kind=reference,
                                variant=variant, algo=algo or "random", objective="", seed=int(seed),
                                protocol=protocol, rates=";".join(f"{r:g}" for r in setup["rates"]),
                                episodes=int(len(episodes)))
        out[protocol] = episodes
    return out



# ---------------------------------------------------------------------------------------------
# The report authors' published agents (issue 40): read from the first existing folder of
# ``deeprm.reference_dirs`` (``layout.authors_runs``) and played in numpy under the agents' protocols,
# beside ours.

def authors_policy_factory(spec: dict, variant: str, name: str, deterministic: bool, seed: int,
                           rate: float | None = None) -> Callable:
    """A factory playing the authors' agent ``name`` (DeepRM's: the file trained at ``rate``; None
    when that rate has no file) with SB2's integer cast where its space was integer; the sampler is
    reseeded with ``seed`` whenever a policy is made."""
    from schedrl.agents.sb2_reference import load_reference
    from schedrl.envs.rollout import sb3_policy

    runs = {(v, n): files for v, n, files in authors_runs(spec)}
    if (variant, name) not in runs:
        raise ConfigError(f"no authors' agent '{name}' for {variant} (deeprm.reference_dirs: "
                          f"{spec.get('reference_dirs')})")
    files = runs[variant, name]
    if name.startswith(DEEPRM_AGENT):
        files = [p for p in files if rate is not None and np.isclose(float(re.search(r"rate_([0-9.]+)_", p.name)
                                                                              .group(1)), rate)]
        if not files:
            return None
    model = load_reference(files[0], seed=seed)

    def make_policy(env):
        shape = tuple(env.observation_space.shape)
        if int(np.prod(shape)) != model.n_inputs:
            raise ConfigError(f"the authors' {name} ({files[0].name}) reads {model.n_inputs} inputs; "
                              f"{variant} gives {shape}")
        model.reseed(seed)
        return sb3_policy(model, deterministic=deterministic)

    make_policy.model = model
    make_policy.chosen = files[0].name
    return make_policy


def authors_label(name: str) -> str:
    algo, _, objective = name.partition("-")
    return f"authors' {label(algo, objective)}"


def authors_episodes(spec: dict, root: str | Path, variant: str, protocol: str = "heldout") -> pd.DataFrame | None:
    """The authors' agents' episodes of ``variant`` under ``protocol`` (None when there are none),
    with policy "authors' ...", algo ``authors_<algo>``, objective and seed -1."""
    frames = []
    for v, name, _ in authors_runs(spec):
        if v != variant:
            continue
        algo, _, objective = name.partition("-")
        frame = read_csv(eval_paths(authors_dir(root, variant, name), protocol)["episodes"])
        frames.append(frame.assign(policy=authors_label(name), algo=AUTHORS_PREFIX + algo, objective=objective,
                                   seed=-1))
    return pd.concat(frames, ignore_index=True) if frames else None
