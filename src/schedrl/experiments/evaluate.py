"""Evaluate a trained run folder (or any policy function) on fresh episodes.

``load_run`` reads ``config.json`` and ``model.zip`` of a run folder written by
``schedrl.experiments.train``; ``rollout_episodes`` plays a policy ``policy(obs, env) -> action``
for n episodes with seeds ``seed, seed + 1, ...`` and returns one row per episode (reward, length
and the wrappers' scalar info keywords at episode end). Paper drivers use the same pieces with
their own per-job collectors.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from schedrl.errors import InputFileError
from schedrl.experiments.envs import make_env, wrapper_info_keywords
from schedrl.io import read_json


def load_run(run_dir: str | Path, device: str = "cpu") -> tuple[Any, dict]:
    """``(model, config)`` of a finished run folder; a missing file raises InputFileError."""
    from schedrl.agents.registry import algo_class

    run_dir = Path(run_dir)
    for name in ("config.json", "model.zip"):
        if not (run_dir / name).exists():
            raise InputFileError(run_dir / name, "missing (has the run been trained?)")
    config = read_json(run_dir / "config.json")
    model = algo_class(config["algo"]).load(run_dir / "model.zip", device=device)
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


def evaluate_run(run_dir: str | Path, n_episodes: int, seed: int, env_kwargs: dict | None = None,
                 deterministic: bool = True, threads: int = 1):
    """Evaluate a run folder's model on its env (``env_kwargs`` override the training ones)."""
    import torch

    torch.set_num_threads(max(1, int(threads)))
    model, config = load_run(run_dir)
    kwargs = {**config["env_kwargs"], **(env_kwargs or {})}
    env = make_env(config["env_id"], kwargs, config.get("wrappers", ()))
    try:
        return rollout_episodes(env, run_policy_fn(model, config, deterministic), n_episodes, seed,
                                wrapper_info_keywords(config.get("wrappers", ())))
    finally:
        env.close()
