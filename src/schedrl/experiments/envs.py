"""Build Gymnasium envs (with optional wrappers) the same way for training and evaluation.

``env_id`` may carry the module that registers it, Gymnasium style: ``"schedrl.envs:schedrl/DeepRM-v0"``.
A wrapper is named ``"module:Class"`` or given as ``{"module:Class": {kwargs}}`` (rl-zoo's
``env_wrapper`` syntax); a wrapper class may list the info keys it adds in ``INFO_KEYWORDS``.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any

import yaml

from schedrl.envs import jobset_count  # noqa: F401 - the trainers take it from here
from schedrl.errors import ConfigError

WrapperSpec = str | dict[str, dict[str, Any]]


def import_object(spec: str):
    """``"package.module:Name"`` -> the object; errors name the spec."""
    module, _, name = spec.partition(":")
    if not module or not name:
        raise ConfigError(f"'{spec}': expected 'module:Name'")
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as exc:
        raise ConfigError(f"cannot import '{spec}': {exc}") from None


def _wrapper_items(wrappers: Sequence[WrapperSpec]) -> list[tuple[type, dict]]:
    items = []
    for spec in wrappers or ():
        if isinstance(spec, str):
            items.append((import_object(spec), {}))
        elif isinstance(spec, dict) and len(spec) == 1:
            (name, kwargs), = spec.items()
            items.append((import_object(name), dict(kwargs or {})))
        else:
            raise ConfigError(f"env wrapper {spec!r}: expected 'module:Class' or {{'module:Class': kwargs}}")
    return items


def wrapper_info_keywords(wrappers: Sequence[WrapperSpec]) -> tuple[str, ...]:
    """The info keys the wrappers declare (``INFO_KEYWORDS``), in order, without duplicates."""
    keys: list[str] = []
    for cls, _ in _wrapper_items(wrappers):
        for key in getattr(cls, "INFO_KEYWORDS", ()):
            if key not in keys:
                keys.append(key)
    return tuple(keys)


def make_env(env_id: str, env_kwargs: dict[str, Any] | None = None,
             wrappers: Sequence[WrapperSpec] = ()):
    """``gymnasium.make(env_id, **env_kwargs)`` with ``wrappers`` applied innermost first."""
    import gymnasium as gym

    render_mode = (env_kwargs or {}).get("render_mode")
    if render_mode is not None and not isinstance(render_mode, str):  # gym.make calls its str methods
        raise ConfigError(f"env '{env_id}': render_mode must be a name, not {render_mode!r}")
    try:
        env = gym.make(env_id, **(env_kwargs or {}))
    except gym.error.Error as exc:
        raise ConfigError(f"env '{env_id}': {exc}") from None
    except ImportError as exc:
        raise ConfigError(f"env '{env_id}': {exc}") from None
    except TypeError as exc:
        raise ConfigError(f"env '{env_id}': bad keyword argument ({exc})") from None
    for cls, kwargs in _wrapper_items(wrappers):
        env = cls(env, **kwargs)
    return env


def parse_pairs(pairs: list[str] | None, what: str = "--env-kwarg") -> dict:
    """Command-line ``KEY=VALUE`` pairs (values read as YAML) as a dict.

    ``["a=1", "b=[1, 2]", "c=x"]`` -> ``{"a": 1, "b": [1, 2], "c": "x"}``."""
    out = {}
    for pair in pairs or ():
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise ConfigError(f"{what} '{pair}': expected KEY=VALUE")
        try:
            out[key.strip()] = yaml.safe_load(value) if value.strip() else None
        except yaml.YAMLError:
            raise ConfigError(f"{what} '{pair}': value is not valid YAML") from None
    return out
