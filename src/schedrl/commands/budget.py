"""``schedrl budget``: core-hours each paper's rules used (Snakemake benchmark files) vs the budget."""

from __future__ import annotations

import sys


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "budget",
        help="core-hours per paper from Snakemake's benchmark files, against the config's budget",
        description="Sum the benchmark files of every rule run (benchmarks/results/<paper>/...tsv) per "
        "paper: rule runs, wall hours, CPU core-hours, and the share of the paper's budget "
        "(config key budget.core_hours). Run it after a DAG run to see what each paper cost. "
        "Snakemake samples a rule's CPU every 30 s, so the CPU sum is a lower bound and "
        "cpu_core_hours_max adds one interval per rule; scripts/timed_run.py measures a run exactly.",
    )
    p.add_argument("--benchmarks", default="benchmarks/results", metavar="DIR",
                   help="folder of Snakemake benchmark files (default: %(default)s)")
    p.add_argument("--config", default="config/config.yaml", metavar="YAML",
                   help="config holding budget.core_hours (default: %(default)s)")
    p.add_argument("--format", choices=("text", "markdown", "csv"), default="text")
    p.set_defaults(func=run)


def run(args) -> int:
    from pathlib import Path

    from schedrl.config import load_yaml
    from schedrl.errors import InputFileError
    from schedrl.plots.tables import markdown_table
    from schedrl.report.budget import budget_table, formatted

    if not Path(args.benchmarks).is_dir():
        raise InputFileError(args.benchmarks, "no benchmark folder (run the DAG first, or give --benchmarks)")
    budget = (load_yaml(args.config) or {}).get("budget", {}).get("core_hours", {})
    table = budget_table(args.benchmarks, budget)
    if args.format == "csv":
        table.to_csv(sys.stdout, index=False)
    elif args.format == "markdown":
        print(markdown_table(formatted(table)))
    else:
        print(formatted(table).to_string(index=False))
    return 0
