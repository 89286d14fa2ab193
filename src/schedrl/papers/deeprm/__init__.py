"""The SB3 DeepRM report (deeprm-sb3-report.txt): DQN/A2C/PPO/TRPO vs SJF/Packer/Random over loads.

What runs, split by concern: ``layout`` (constants, the config section, run folders and the files
the rules ask for), ``training`` (env arguments, run steps, model selection, DeepRM's own agent),
``evaluation`` (playing agents across loads, replays, budgets, fingerprints, reading results back),
``references`` (heuristics, random play, the untrained network, the authors' agents) and ``cost``
(the cost model); then ``figures`` (Figures 5.1-5.18, the 130% table, training speed), ``claims``,
``normalised``, ``paper_values.yaml``.
"""
