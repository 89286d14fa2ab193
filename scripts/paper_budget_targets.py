#!/usr/bin/env python
"""Print the Snakemake target of each paper's part of config/paper-budget.yaml (`<paper>_paper_budget`),
one per line: what `make dryrun` dry-runs at that scale. A paper whose part is absent has no target."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))

from schedrl.config import load_yaml  # noqa: E402

PAPERS = ("sem", "mdp", "deeprm", "mrsch", "runtime")

if __name__ == "__main__":
    config = load_yaml(Path(__file__).resolve().parents[1] / "config" / "paper-budget.yaml")
    print("\n".join(f"{p}_paper_budget" for p in PAPERS if p in config))
