"""``schedrl score``: a user's scheduler beside the five papers' baselines and agents.

* ``policy``: one policy interface over every env family (DeepRM's grid, pick-and-reserve,
  time-stepped): ``load_policy(spec)`` reads a callable, a queue-order function, a registered
  heuristic, an SB3 model zip or a run folder; ``Policy.bind(env)`` gives ``policy(obs, info)``
  with the action checked at every step (``PolicyError`` names the policy, the env and the step).
* ``suites``: per paper its held-out evaluation workloads, metrics and protocol, its baselines
  played on the same jobs, and its trained agents read from ``results/<paper>/`` where they exist.
* ``board``: leaderboards with 95% bootstrap intervals, written as CSV, markdown and HTML.

This package sits beside ``schedrl.commands`` (it reads the paper packages); the core never imports it.
"""
