"""The runtime-prediction paper (runtime-prediction.txt, English brief beside it): do runtime
estimates in the state help a PPO scheduler?

``experiments`` (the 12 workload halves and the paper's heuristics), ``figures`` (Table 4 and
``TARGETS``), ``claims``, ``paper_values.yaml``. The PPO agents (Tables 5-6) come with their issue.
"""
