"""schedrl: one core (workloads, cluster simulator, environments, agents) reproducing five
papers on reinforcement-learning job scheduling; see README.md."""

__version__ = "0.1.0"
