"""Scheduling policies: a registry of queue orders (``get_policy``) used by the simulator.

Grid heuristics for the DeepRM environment and the GA live beside this in their own modules.
"""

from schedrl.sim.queue_policies import QueuePolicy, get_policy, policy_names, register_policy

__all__ = ["QueuePolicy", "get_policy", "policy_names", "register_policy"]
