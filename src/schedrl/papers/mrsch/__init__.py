"""MRSch (mrsch.txt, Li et al.): multi-resource HPC scheduling with a Direct Future Prediction agent
on the Theta workloads S1-S10 (nodes and burst buffer; S6-S10 add power).

``experiments`` (groups of workloads, job sets, DFP / scalar-RL training, evaluation of every
method on the test splits), ``figures`` (Figures 3-10, ``TARGETS``), ``claims``,
``paper_values.yaml``.
"""
