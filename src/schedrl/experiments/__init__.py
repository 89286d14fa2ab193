"""Experiments: generic SB3 training and evaluation (``train``, ``evaluate``) and the paper-specific
drivers built on them (``deeprm``). Everything here is driven by arguments a Snakemake rule or the
CLI passes; nothing reads the pipeline config on its own.
"""
