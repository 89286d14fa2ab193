"""The MDP-design paper (mdp-design.txt, Cunha and Chaimowicz, BRACIS 2021): image-like vs compact
state, dense vs sparse (event-based) transitions, all-jobs vs window (bounded) reward, and transfer of
compact agents between cluster sizes.

``experiments`` (Table 3 scenarios, the named MDP variants as options of ``schedrl/DeepRM-v0``, run
layout, batched evaluation, parameter counts, t-tests), ``figures`` (Figures 3-6 and the t-test
tables, ``TARGETS``), ``claims``, ``paper_values.yaml``.
"""
