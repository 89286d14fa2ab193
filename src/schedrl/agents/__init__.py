"""Agents: the Stable-Baselines3 algorithm registry and rl-zoo style hyperparameter files.

``registry`` maps algorithm names (dqn, a2c, ppo, trpo, maskable_ppo) to their classes and says
which action spaces each supports; ``hyperparams`` loads ``hyperparams/<algo>.yaml`` keyed by env
variant with a ``default`` fallback and turns YAML values (activation names, net_arch, linear
schedules) into the objects SB3 expects. Heavy imports (torch, SB3) happen on first use.
"""

from schedrl.agents.hyperparams import load_hyperparams, resolve_hyperparams
from schedrl.agents.registry import ALGOS, UNAVAILABLE, algo_class, check_action_space

__all__ = ["ALGOS", "UNAVAILABLE", "algo_class", "check_action_space", "load_hyperparams",
           "resolve_hyperparams"]
