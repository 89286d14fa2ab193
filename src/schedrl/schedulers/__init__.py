"""Scheduling policies: a registry of queue orders (``get_policy``) used by the simulator.

Grid heuristics for the DeepRM environment and the GA live beside this in their own modules.
"""

from schedrl.schedulers import queue_policies  # noqa: F401  (registers the classic policies)
from schedrl.schedulers.base import QueuePolicy, get_policy, policy_names, register_policy

__all__ = ["QueuePolicy", "get_policy", "policy_names", "register_policy"]
