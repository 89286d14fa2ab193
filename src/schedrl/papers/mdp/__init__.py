"""The MDP-design paper (mdp-design.txt, Cunha and Chaimowicz, BRACIS 2021): image-like vs compact
state, dense vs sparse (event-based) transitions, all-jobs vs window (bounded) reward, and transfer of
compact agents between cluster sizes.

What runs, by concern (each module imports only those before it): ``layout`` (Table 3 scenarios, the named MDP
variants as options of ``schedrl/DeepRM-v0``, the config section's checks, run layout and the file
lists the Snakemake rules ask for), ``training`` (``schedrl train``'s arguments, observation sizes and
parameter counts, Fig. 5's horizon benchmark), ``evaluation`` (batched evaluation, fingerprints,
budget checkpoints, per-trial statistics and t-tests), ``references`` (random valid, uniform and
untrained play, SJF), ``cost`` (the cost model). Then ``figures`` (Figures 3-6 and the t-test tables,
``TARGETS``), ``claims``, ``normalised``, ``tuning`` (``schedrl tune mdp``'s study, issue 69),
``paper_values.yaml``.
"""
