"""MRSch (mrsch.txt, Li et al.): multi-resource HPC scheduling with a Direct Future Prediction agent
on the Theta workloads S1-S10 (nodes and burst buffer; S6-S10 add power).

``layout`` (constants, the spec and its checks, folders, workload files, job sets and the env),
``training`` (DFP and scalar-RL training, model selection on validation), ``evaluation`` (every
method on the test splits and in-sample, the agents at shares of training, the tables read back),
``cost`` (the core-hour model), ``fingerprints`` and ``references`` (what the agents play, the
no-learning references), ``budgets`` (two training budgets compared), ``figures`` (Figures 3-10,
``TARGETS``), ``claims``, ``normalised``, ``tuning`` (the hyperparameter study of ``schedrl tune
mrsch``, issue 69), ``paper_values.yaml``.
"""
