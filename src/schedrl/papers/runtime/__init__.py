"""The runtime-prediction paper (runtime-prediction.txt, English brief beside it): do runtime
estimates in the state help a PPO scheduler?

``experiments`` (the 12 workload halves, the heuristics, the PPO runs and their evaluation),
``recording`` (the evaluation's decisions for fingerprints), ``references`` (no-learning stand-ins),
``tables`` (the data frames), ``intervals`` (95% intervals), ``claims``, ``budget`` (claims at
each training budget), ``figures`` (the drawings and ``TARGETS``), ``paper_values.yaml``.
Imports flow one way, in that order (``references`` and ``budget`` aside: nothing imports them
but the commands and the workflow).
"""
