"""Which RL algorithms exist here, where they come from, and which action spaces they handle.

The SB3 report trained Stable-Baselines (v2) DQN, A2C, PPO2 and TRPO and imported ACKTR. In the
maintained successors DQN, A2C and PPO live in stable-baselines3, TRPO and MaskablePPO in
sb3-contrib; ACKTR was never ported, so asking for it is a user error that says so.
"""

from __future__ import annotations

import importlib

from schedrl.errors import ConfigError

# name -> (module, class, action spaces it supports)
ALGOS: dict[str, tuple[str, str, frozenset[str]]] = {
    "dqn": ("stable_baselines3", "DQN", frozenset({"Discrete"})),
    "a2c": ("stable_baselines3", "A2C", frozenset({"Discrete", "MultiDiscrete", "MultiBinary", "Box"})),
    "ppo": ("stable_baselines3", "PPO", frozenset({"Discrete", "MultiDiscrete", "MultiBinary", "Box"})),
    "trpo": ("sb3_contrib", "TRPO", frozenset({"Discrete", "MultiDiscrete", "MultiBinary", "Box"})),
    "maskable_ppo": ("sb3_contrib", "MaskablePPO", frozenset({"Discrete", "MultiDiscrete", "MultiBinary"})),
    # DeepRM's own agent (Mao et al. 2016): REINFORCE with a time-dependent baseline, in PyTorch.
    # MultiBinary gets one Bernoulli per slot (our extension; DeepRM's head is discrete only).
    "deeprm_pg": ("schedrl.agents.reinforce", "ReinforcePolicy", frozenset({"Discrete", "MultiBinary"})),
}

# Algorithms trained by schedrl's own loops rather than by an SB3 ``learn``.
OWN_LOOPS = frozenset({"deeprm_pg"})

# Algorithms a paper used that have no maintained SB3 implementation, with the reason.
UNAVAILABLE: dict[str, str] = {
    "acktr": "ACKTR (Stable-Baselines v2, TensorFlow 1) has no stable-baselines3 or sb3-contrib "
    "implementation",
    "ppo2": "PPO2 is Stable-Baselines v2's name; use 'ppo' (stable-baselines3 PPO)",
}


def check_name(name: str) -> str:
    """The lower-case registry key of ``name``; unknown or unported names raise ConfigError."""
    key = name.lower()
    if key in UNAVAILABLE:
        raise ConfigError(f"algorithm '{name}': {UNAVAILABLE[key]}")
    if key not in ALGOS:
        raise ConfigError(f"unknown algorithm '{name}' (known: {', '.join(sorted(ALGOS))})")
    return key


def algo_class(name: str):
    """The SB3 class for ``name`` (case-insensitive); unknown or unported names raise ConfigError."""
    module, cls, _ = ALGOS[check_name(name)]
    return getattr(importlib.import_module(module), cls)


def uses_masks(name: str) -> bool:
    """True when the algorithm takes ``action_masks`` in ``predict`` (MaskablePPO)."""
    return check_name(name) == "maskable_ppo"


def is_own_loop(name: str) -> bool:
    """True for algorithms trained by a schedrl loop (``schedrl.agents.reinforce``), not by SB3."""
    return check_name(name) in OWN_LOOPS


def is_off_policy(name: str) -> bool:
    """True for replay-buffer algorithms (their buffer is checkpointed too)."""
    return check_name(name) == "dqn"


def check_action_space(name: str, space) -> None:
    """Raise ConfigError when ``name`` cannot act in ``space`` (e.g. DQN with MultiBinary)."""
    supported = ALGOS[check_name(name)][2]
    kind = type(space).__name__
    if kind not in supported:
        raise ConfigError(f"algorithm '{name}' does not support {kind} action spaces "
                          f"(supports: {', '.join(sorted(supported))})")
