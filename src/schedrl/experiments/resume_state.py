"""What an SB3 run's next step depends on beyond its ``model.zip``, so that a resumed run is the run
it replaced (issue 70): kill a training anywhere, rerun the same command, get the same files.

SB3's ``model.save`` keeps the weights, the optimiser, the step and update counters and the
schedules' progress, but not what the *next* rollout depends on: the envs in the middle of their
episodes (and the RNGs inside them), the observation the next action is chosen from, the global
numpy / torch / Python RNGs (PPO draws its actions from torch and its minibatches from numpy), and
counters that ``load`` resets (DQN's ``_n_calls``, which times its target updates). ``capture``
takes all of it at a rollout boundary (SB3's ``on_rollout_start``: the previous update is done, the
rollout buffer is empty), ``restore`` puts it back after ``load``. Off-policy replay buffers travel
beside the checkpoint as SB3 saves them (``train``). The envs are pickled below their ``Monitor``
(which holds an open log file), with cloudpickle as SB3's ``SubprocVecEnv`` does, so a job source
given as a function travels too.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from schedrl.io import atomic_path

#: The side file beside checkpoint ``step_<n>.zip``; a checkpoint without one (written before
#: issue 70) still resumes, but not exactly (``timing.json`` says so).
STATE_SUFFIX = ".state.pkl"
FORMAT = 2  # 2: torch's RNG states as bytes

# Attributes of an SB3 algorithm that the next rollout reads and ``load`` does not bring back as
# they were (``_last_obs`` is dropped on load; ``_n_calls`` is reset by ``_setup_model``).
_MODEL_FIELDS = ("num_timesteps", "_n_updates", "_n_calls", "_episode_num", "_last_obs", "_last_episode_starts",
                 "_last_original_obs", "_current_progress_remaining", "ep_info_buffer", "ep_success_buffer")
# SB3's Monitor: the episode in progress and its counters. Left out, so that the same run writes the
# same state file: its wall-clock start and episode times (nothing in training reads them).
_MONITOR_FIELDS = ("rewards", "needs_reset", "episode_returns", "episode_lengths", "total_steps",
                   "current_reset_info")
# DummyVecEnv's pending reset arguments and last reset infos.
_VEC_FIELDS = ("_seeds", "_options", "reset_infos")


def _rng_states() -> dict[str, Any]:
    import numpy as np
    import torch

    # torch's states as bytes: a pickled tensor carries its storage's memory address
    states = {"python": random.getstate(), "numpy": np.random.get_state(),
              "torch": torch.get_rng_state().numpy().tobytes()}
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        states["cuda"] = [s.numpy().tobytes() for s in torch.cuda.get_rng_state_all()]
    return states


def _byte_tensor(raw: bytes):
    import numpy as np
    import torch

    return torch.from_numpy(np.frombuffer(raw, dtype=np.uint8).copy())


def _set_rng_states(states: dict[str, Any]) -> None:
    import numpy as np
    import torch

    random.setstate(states["python"])
    np.random.set_state(states["numpy"])
    torch.set_rng_state(_byte_tensor(states["torch"]))
    if "cuda" in states and torch.cuda.is_available():
        torch.cuda.set_rng_state_all([_byte_tensor(s) for s in states["cuda"]])


def _no_wall_time(key: str, value):
    """SB3's episode-info buffer less each episode's elapsed seconds (``t``): only its returns and
    lengths are read (the logger's means)."""
    if key == "ep_info_buffer" and value is not None:
        from collections import deque

        return deque(({k: v for k, v in info.items() if k != "t"} for info in value), maxlen=value.maxlen)
    return value


def capture(model, venv, eval_env=None) -> dict[str, Any]:
    """The state to resume ``model`` training on ``venv`` exactly, taken at a rollout boundary.
    ``eval_env``: an env the run keeps between checks (best-model selection), restored as it was."""
    return {"format": FORMAT,
            "rng": _rng_states(),
            "model": {k: _no_wall_time(k, getattr(model, k)) for k in _MODEL_FIELDS if hasattr(model, k)},
            "action_space_rng": model.action_space.np_random,  # the Generator: its seed sequence pickles too
            "envs": venv.get_attr("env"),  # below each Monitor
            "monitors": {k: venv.get_attr(k) for k in _MONITOR_FIELDS},
            "vec": {k: getattr(venv, k) for k in _VEC_FIELDS if hasattr(venv, k)},
            "eval_env": eval_env}


def restore(state: dict[str, Any], model, venv) -> Any:
    """Put ``capture``'s state back into a freshly loaded ``model`` and a new ``venv`` of the same
    shape; returns the kept eval env (or None). The RNGs are set last, after anything that draws."""
    if state.get("format") != FORMAT:
        raise ValueError(f"resume state format {state.get('format')} (expected {FORMAT})")
    envs = state["envs"]
    if len(envs) != venv.num_envs:
        raise ValueError(f"resume state holds {len(envs)} envs, the run has {venv.num_envs}")
    for i, env in enumerate(envs):
        venv.set_attr("env", env, indices=[i])
        for key, values in state["monitors"].items():
            venv.set_attr(key, values[i], indices=[i])
    for key, value in state["vec"].items():
        setattr(venv, key, value)
    for key, value in state["model"].items():
        setattr(model, key, value)
    # DQN's exploration draws from it; the VecEnv's own object, as a model built on it holds (the
    # copy SB3 unpickled from the zip holds the same values but pickles differently)
    venv.action_space._np_random = state["action_space_rng"]
    model.action_space = venv.action_space
    _set_rng_states(state["rng"])
    return state.get("eval_env")


def save(path: str | Path, state: dict[str, Any]) -> None:
    import cloudpickle

    with atomic_path(path) as tmp, open(tmp, "wb") as fh:
        cloudpickle.dump(state, fh)


def load(path: str | Path) -> dict[str, Any] | None:
    """The state saved at ``path``; None when it was written in another format (the trainer then
    resumes as from a checkpoint without one, and says so)."""
    import pickle

    with open(path, "rb") as fh:
        state = pickle.load(fh)
    return state if isinstance(state, dict) and state.get("format") == FORMAT else None
