"""Evaluate a trained run folder (or any policy function) on fresh episodes.

``load_run`` reads ``config.json`` and ``model.zip`` of a run folder written by
``schedrl.experiments.train``; ``rollout_episodes`` plays a policy ``policy(obs, env) -> action``
for n episodes with seeds ``seed, seed + 1, ...`` and returns one row per episode (reward, length
and the wrappers' scalar info keywords at episode end). Paper drivers use the same pieces with
their own per-job collectors. ``env_keyword_values`` completes a run's recorded env kwargs with the
env's own defaults (what ``schedrl evaluate`` needs to hold out the training job sets).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from schedrl.errors import ConfigError, InputFileError
from schedrl.experiments.envs import make_env, wrapper_info_keywords
from schedrl.io import read_json


def load_run(run_dir: str | Path, device: str = "cpu", model_file: str | Path | None = None) -> tuple[Any, dict]:
    """``(model, config)`` of a finished run folder, or of ``model_file`` (a checkpoint: the run need
    not be finished); a missing file raises InputFileError."""
    from schedrl.agents.registry import algo_class

    run_dir = Path(run_dir)
    model_file = Path(model_file) if model_file is not None else run_dir / "model.zip"
    for path in (run_dir / "config.json", model_file):
        if not path.exists():
            raise InputFileError(path, "missing (has the run been trained?)")
    config = read_json(run_dir / "config.json")
    model = algo_class(config["algo"]).load(model_file, device=device)
    return model, config


def run_policy_fn(model, config: dict, deterministic: bool = True) -> Callable:
    """The run's model as ``policy(obs, env) -> action`` (masked for maskable algorithms)."""
    from schedrl.agents.policy import model_policy
    from schedrl.agents.registry import uses_masks

    return model_policy(model, deterministic=deterministic, masked=uses_masks(config["algo"]))


def rollout_episodes(env, policy: Callable, n_episodes: int, seed: int,
                     info_keywords: tuple[str, ...] = (), on_episode_end: Callable | None = None):
    """Play ``n_episodes`` of ``policy`` in ``env``; one row per episode as a DataFrame.

    ``on_episode_end(episode_index, info)`` sees the final info of each episode (e.g. to collect
    a per-job table).
    """
    import pandas as pd

    rows = []
    for episode in range(n_episodes):
        obs, info = env.reset(seed=seed + episode)
        total, length, done = 0.0, 0, False
        while not done:
            obs, reward, terminated, truncated, info = env.step(policy(obs, env))
            total += float(reward)
            length += 1
            done = terminated or truncated
        row = {"episode": episode, "seed": seed + episode, "reward": total, "length": length,
               "truncated": bool(truncated)}
        for key in info_keywords:
            row[key] = float(info.get(key, float("nan")))
        rows.append(row)
        if on_episode_end is not None:
            on_episode_end(episode, info)
    return pd.DataFrame(rows)


def env_keyword_values(env_id: str, env_kwargs: dict | None = None) -> dict:
    """The keyword arguments the env behind ``env_id`` runs with: ``env_kwargs`` over the
    registration's kwargs over the ``__init__`` defaults along its class's MRO. A run's config.json
    records only what was passed, so a default such as DeepRM's ``jobset_seed=0`` is missing there
    yet played."""
    import importlib
    import inspect

    import gymnasium as gym
    from gymnasium.envs.registration import load_env_creator

    module, _, name = env_id.rpartition(":")
    try:
        if module:
            importlib.import_module(module)
        spec = gym.spec(name)
    except (gym.error.Error, ImportError) as exc:
        raise ConfigError(f"env '{env_id}': {exc}") from None
    creator = load_env_creator(spec.entry_point) if isinstance(spec.entry_point, str) else spec.entry_point
    if not isinstance(creator, type):  # a factory (e.g. schedrl/HPC-v0) hides its env's keywords: build one
        env = make_env(env_id, env_kwargs)
        creator = type(env.unwrapped)
        env.close()
    defaults: dict = {}
    for cls in creator.__mro__:  # a subclass's **kwargs pass the rest on to its bases
        if "__init__" in vars(cls):
            for p in inspect.signature(cls.__init__).parameters.values():
                if p.default is not p.empty:
                    defaults.setdefault(p.name, p.default)
    return {**defaults, **spec.kwargs, **(env_kwargs or {})}


def evaluate_run(run_dir: str | Path, n_episodes: int, seed: int, env_kwargs: dict | None = None,
                 deterministic: bool = True, threads: int = 1, jobset_seeds: Sequence[int] | None = None):
    """Evaluate a run folder's model on its env (``env_kwargs`` override the training ones).

    ``jobset_seeds`` (envs with seeded job sets): play one episode per seed instead, episode i on
    the job set of seed ``jobset_seeds[i]`` (column jobset_seed), env seed ``seed + i``."""
    import pandas as pd
    import torch

    torch.set_num_threads(max(1, int(threads)))
    model, config = load_run(run_dir)
    kwargs = {**config["env_kwargs"], **(env_kwargs or {})}
    wrappers = config.get("wrappers", ())
    policy, keywords = run_policy_fn(model, config, deterministic), wrapper_info_keywords(wrappers)
    # A seeded job-set cycle restarts at every reset(seed=...), so one env would replay its first
    # set each episode: one env per job set instead.
    plays = [(kwargs, n_episodes, seed)] if jobset_seeds is None else [
        ({**kwargs, "jobset_seed": int(s), "num_jobsets": 1}, 1, seed + i) for i, s in enumerate(jobset_seeds)]
    frames = []
    for i, (play_kwargs, n, first) in enumerate(plays):
        env = make_env(config["env_id"], play_kwargs, wrappers)
        try:
            frame = rollout_episodes(env, policy, n, first, keywords)
        finally:
            env.close()
        frames.append(frame if jobset_seeds is None else frame.assign(episode=i, jobset_seed=int(jobset_seeds[i])))
    return pd.concat(frames, ignore_index=True)
