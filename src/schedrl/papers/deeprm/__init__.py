"""The SB3 DeepRM report (deeprm-sb3-report.txt): DQN/A2C/PPO/TRPO vs SJF/Packer/Random over loads.

``experiments`` (run layout, env arguments, evaluation across loads, DeepRM's own agent),
``figures`` (Figures 5.1-5.18, the 130% table, training speed), ``claims``, ``paper_values.yaml``.
"""
