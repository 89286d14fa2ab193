"""``schedrl sem``: the SEM encoding paper's steps (trace analysis of running jobs, K-largest
coverage, its figures and claims), like ``schedrl deeprm``, ``schedrl mdp`` and ``schedrl runtime``.

Steps (the work is in ``schedrl.papers.sem``):

* ``trace`` - analyse one cleaned trace (``results/workloads/traces/<key>.swf``: a real log or its
  announced stand-in) into ``summary.json``, ``running_cdf.csv``, ``k_largest.csv`` and
  ``running_steps.csv`` (``--steps``) in ``--out-dir``.
* ``figures`` - Fig. 5, Table 2, Table 3, Fig. 7 of sem-encoding.txt and its claims table from
  several ``trace`` folders.
"""

from __future__ import annotations

from pathlib import Path

from schedrl.errors import SchedrlError
from schedrl.papers.sem.experiments import SCHEDULES
from schedrl.workloads.analysis import PAPER_THRESHOLDS


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "sem",
        help="SEM encoding paper: trace analysis (running jobs, K-largest coverage), figures, claims",
        description="Running jobs over time from a recorded schedule (start = submit + wait) or a "
        "simulated FCFS + EASY schedule, their CDF and maximum, and the coverage and node-hour loss "
        "of encoding only the K largest running jobs; plus the SEM paper's figures and tables.",
    )
    sub = p.add_subparsers(dest="sem_command", metavar="STEP", required=True)

    t = sub.add_parser("trace", help="analyse one trace into a folder of CSV/JSON files",
                       description="Analyse one SWF trace: running-jobs CDF, maximum running jobs, "
                       "K-largest coverage (90%/95%) and node-hour loss for K = 0..--k-max.")
    t.add_argument("trace", metavar="TRACE.swf", help="cleaned trace (schedrl workload trace writes it)")
    t.add_argument("--name", required=True, help="short trace name used in outputs (e.g. datastar)")
    t.add_argument("--label", help="display name (default: --name)")
    t.add_argument("--source", help="name of the original log, shown in tables (default: the file name)")
    t.add_argument("--nodes", type=int, required=True, metavar="N",
                   help="system size in the trace's unit (cores for DataStar/Atlas, nodes for Theta)")
    t.add_argument("--unit", default="nodes", help="what --nodes counts, shown in tables (default: nodes)")
    t.add_argument("--schedule", choices=SCHEDULES, default="auto",
                   help="recorded (start = submit + wait), simulated (FCFS + EASY on --nodes), or "
                   "auto: simulated when most wait times are missing (default)")
    t.add_argument("--max-jobs", type=int, default=0, metavar="N",
                   help="analyse only the first N jobs (0: all)")
    t.add_argument("--k-max", type=int, default=80, metavar="K", help="largest K analysed (default 80)")
    t.add_argument("--thresholds", type=float, nargs="+", default=list(PAPER_THRESHOLDS),
                   help="coverage thresholds (default 0.9 0.95)")
    t.add_argument("--steps", action="store_true", help="also write running_steps.csv (per interval)")
    t.add_argument("--out-dir", required=True, metavar="DIR", help="folder for the outputs")
    t.set_defaults(func=run_trace)

    f = sub.add_parser("figures", help="SEM Fig. 5, Tables 2-3, Fig. 7 and claims from trace folders",
                       description="Draw the SEM trace-analysis figures and tables (paper's numbers "
                       "beside ours) from folders written by 'schedrl sem trace'.")
    f.add_argument("folders", nargs="+", metavar="DIR", help="analysis folders (one per trace)")
    f.add_argument("--figures-dir", required=True, metavar="DIR", help="e.g. figures/sem")
    f.add_argument("--claims", required=True, metavar="CSV", help="claims table to write")
    f.set_defaults(func=run_figures)


def run_trace(args) -> int:
    from schedrl.errors import InputFileError
    from schedrl.papers.sem.experiments import analyze_trace

    if not Path(args.trace).is_file():
        raise InputFileError(args.trace, "no such file (the workload rule writes the cleaned trace)")
    if args.nodes < 1 or args.k_max < 1 or args.max_jobs < 0:
        raise SchedrlError("--nodes and --k-max must be positive, --max-jobs >= 0")
    analyze_trace(args.trace, args.out_dir, name=args.name, label=args.label, nodes=args.nodes, unit=args.unit,
                  schedule=args.schedule, max_jobs=args.max_jobs, k_max=args.k_max, thresholds=args.thresholds,
                  source=args.source, steps=args.steps)
    return 0


def run_figures(args) -> int:
    from schedrl.papers.sem.figures import trace_analysis

    for folder in args.folders:
        if not (Path(folder) / "summary.json").is_file():
            raise SchedrlError(f"{folder}: not an analysis folder (no summary.json)")
    trace_analysis(args.folders, args.figures_dir, args.claims)
    return 0
