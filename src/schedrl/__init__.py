"""schedrl: one core (workloads, cluster simulator, environments, agents) reproducing five
papers on reinforcement-learning job scheduling; see README.md."""

from schedrl import codepaths as _codepaths

# Before any math library runs a kernel: the same code path on every x86 machine (issue 61;
# SCHEDRL_NO_PINS=1 opts out).
_codepaths.apply()

__version__ = "0.1.0"
