"""Workloads: SWF traces, synthetic generators (Lublin-Feitelson, DeepRM) and trace extensions."""
