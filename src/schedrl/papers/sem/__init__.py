"""The SEM encoding paper (sem-encoding.txt): scalable state encoding vs DRAS's per-node encoding.

``experiments`` (trace analysis of running jobs, section 3), ``figures`` (Fig. 5, Tables 2-3,
Fig. 7 and ``TARGETS``), ``claims``, ``paper_values.yaml``. The RL agents (Table 4, Figs. 8-11)
come with their issue.
"""
