"""Run a policy on an environment for whole episodes and collect one row per job.

A policy here is any callable ``policy(obs, info) -> action``. Adapters:

* ``grid_policy(name_or_fn, env)`` -- a heuristic of ``schedrl.schedulers.grid`` (``"sjf"``,
  ``"packer"``, ``"random"``) reading the env's grid; for a multi-binary env its slot choice is
  sent as a one-hot vector (void = all zeros).
* ``sb3_policy(model, deterministic=True)`` -- a Stable-Baselines3 model's ``predict``; models
  that accept ``action_masks`` (sb3-contrib MaskablePPO) get ``info["action_mask"]``.

``run_policy(env, policy, n_episodes, seed)`` resets with ``seed`` once, then plain resets, so a
DeepRM env with ``jobset_seed`` walks its job-set cycle; same env arguments, policy and seed give
the same table. ``run_lockstep(model, envs, seeds)`` plays one episode in each of many envs side by
side, asking an SB3 model once per step for all of them (evaluating thousands of trials).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
from gymnasium import spaces

Policy = Callable[[Any, dict], Any]


def grid_policy(name_or_fn: str | Callable, env) -> Policy:
    """Adapter from a grid heuristic (name or function of the env) to ``policy(obs, info)``."""
    from schedrl.schedulers.grid import get_policy

    fn = get_policy(name_or_fn) if isinstance(name_or_fn, str) else name_or_fn
    base = env.unwrapped
    multibinary = isinstance(env.action_space, spaces.MultiBinary)
    width = base.params.num_nw

    def policy(obs, info):
        a = fn(base)
        if not multibinary:
            return a
        bits = np.zeros(width, dtype=np.int8)
        if a < width:
            bits[a] = 1
        return bits

    policy.__name__ = getattr(fn, "__name__", str(name_or_fn))
    return policy


def sb3_policy(model, deterministic: bool = True) -> Policy:
    """Adapter from a Stable-Baselines3 model to ``policy(obs, info)`` (masks passed when supported)."""
    masked = "action_masks" in inspect.signature(model.predict).parameters

    def policy(obs, info):
        if masked:
            action, _ = model.predict(obs, deterministic=deterministic, action_masks=info.get("action_mask"))
        else:
            action, _ = model.predict(obs, deterministic=deterministic)
        return action

    return policy


def run_policy(env, policy: Policy, n_episodes: int, seed: int | None = None,
               max_steps_per_episode: int = 1_000_000) -> pd.DataFrame:
    """Play ``n_episodes`` episodes and return the finished-episode job records as one table.

    Columns: episode, jobset_seed, truncated, then the env's ``info["jobs"]`` fields (job,
    arrival, length, demand_*, start, finish, slowdown, completion_time, state, withheld).
    ``frame.attrs["episodes"]`` is a list of per-episode dicts: episode, return, steps, terminated,
    truncated, n_jobs, n_withheld, dropped.
    """
    frames, episodes = [], []
    for ep in range(n_episodes):
        obs, info = env.reset(seed=seed if ep == 0 else None)
        total, steps = 0.0, 0
        terminated = truncated = False
        while not (terminated or truncated):
            obs, reward, terminated, truncated, info = env.step(policy(obs, info))
            total += float(reward)
            steps += 1
            if steps >= max_steps_per_episode:
                raise RuntimeError(f"episode {ep} did not end within {max_steps_per_episode} steps")
        jobs = pd.DataFrame(info["jobs"])
        jobset = getattr(env.unwrapped, "jobset", None)
        jobs.insert(0, "episode", ep)
        jobs.insert(1, "jobset_seed", -1 if jobset is None or jobset.seed is None else jobset.seed)
        jobs.insert(2, "truncated", bool(truncated))
        frames.append(jobs)
        episodes.append({"episode": ep, "return": total, "steps": steps, "terminated": bool(terminated),
                         "truncated": bool(truncated), "n_jobs": len(jobs),
                         "n_withheld": len(info.get("withheld", ())), "dropped": int(info.get("dropped", 0))})
    table = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()
    table.attrs["episodes"] = episodes
    return table


def episode_summary(jobs: pd.DataFrame) -> pd.DataFrame:
    """Mean slowdown and completion time per episode of a ``run_policy`` table."""
    grouped = jobs.groupby("episode", sort=True)
    return pd.DataFrame({
        "jobset_seed": grouped["jobset_seed"].first(),
        "n_jobs": grouped.size(),
        "mean_slowdown": grouped["slowdown"].mean(),
        "mean_completion_time": grouped["completion_time"].mean(),
    }).reset_index()


def run_lockstep(model, envs: list, seeds: list[int], *, deterministic: bool = True,
                 recorders: list | None = None) -> list[dict]:
    """One episode in each env, side by side: each step stacks the live envs' observations and asks
    the SB3 ``model`` once, then steps each env. Returns per env (in order) its ``return``,
    ``steps``, ``truncated`` and the final ``info`` (e.g. the DeepRM env's ``jobs``).

    A model whose ``predict`` takes ``action_masks`` (sb3-contrib's MaskablePPO) gets the live envs'
    ``action_masks()``, as it trained. ``model`` may instead be a picker ``model(env) -> action`` (no
    ``predict``), asked per env; its ``start(env, seed)``, if it has one, is called after each reset.
    ``recorders[i].record(obs, action)`` (e.g. a ``FingerprintRecorder``) sees each decision of env i
    before it is played."""
    obs = [env.reset(seed=int(seed))[0] for env, seed in zip(envs, seeds)]
    batched = hasattr(model, "predict")
    masked = batched and "action_masks" in inspect.signature(model.predict).parameters
    if not batched and hasattr(model, "start"):
        for env, seed in zip(envs, seeds):
            model.start(env, seed)
    out = [{"return": 0.0, "steps": 0, "truncated": False, "info": {}} for _ in envs]
    active = list(range(len(envs)))
    while active:
        if batched:
            stacked = np.stack([obs[i] for i in active])
            if masked:
                masks = np.stack([envs[i].unwrapped.action_masks() for i in active])
                actions, _ = model.predict(stacked, deterministic=deterministic, action_masks=masks)
            else:
                actions, _ = model.predict(stacked, deterministic=deterministic)
            actions = np.asarray(actions).reshape(len(active), -1)[:, 0]
        else:
            actions = [model(envs[i]) for i in active]
        still = []
        for i, action in zip(active, actions):
            if recorders is not None and recorders[i] is not None:
                recorders[i].record(obs[i], int(action))
            obs[i], reward, terminated, truncated, info = envs[i].step(int(action))
            out[i]["return"] += float(reward)
            out[i]["steps"] += 1
            if terminated or truncated:
                out[i].update(truncated=bool(truncated), info=info)
            else:
                still.append(i)
        active = still
    return out
