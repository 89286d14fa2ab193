"""``schedrl analyze``: trace analysis behind SEM's encoding (running jobs, K-largest coverage).

Subcommands:

* ``trace`` - analyse one trace (a recorded schedule, or a simulated FCFS + EASY schedule where the
  log has no wait times) into ``summary.json``, ``running_cdf.csv``, ``k_largest.csv`` and
  ``running_steps.csv`` (``--steps``) in ``--out-dir``. A trace that cannot be found is replaced by
  a synthetic stand-in (``--stand-in PRESET``) and the outputs say so.
* ``sem-figures`` - Fig. 5, Table 2, Table 3, Fig. 7 of sem-encoding.txt and its claims table from
  several ``trace`` folders.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pandas as pd

from schedrl.errors import SchedrlError
from schedrl.io import write_csv, write_json
from schedrl.workloads import analysis as A

SCHEDULES = ("auto", "recorded", "simulated")


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "analyze",
        help="trace analysis: running jobs over time, K-largest-job coverage (SEM section 3)",
        description="Running jobs over time from a recorded schedule (start = submit + wait) or a "
        "simulated FCFS + EASY schedule, their CDF and maximum, and the coverage and node-hour loss "
        "of encoding only the K largest running jobs; plus the SEM paper's figures and tables.",
    )
    sub = p.add_subparsers(dest="analysis", metavar="ANALYSIS", required=True)

    t = sub.add_parser("trace", help="analyse one trace into a folder of CSV/JSON files",
                       description="Analyse one SWF trace: running-jobs CDF, maximum running jobs, "
                       "K-largest coverage (90%/95%) and node-hour loss for K = 0..--k-max.")
    t.add_argument("trace", metavar="TRACE", help="SWF file, or a file name looked up in --dirs")
    t.add_argument("--dirs", nargs="*", default=[], metavar="DIR", help="folders searched for TRACE")
    t.add_argument("--name", required=True, help="short trace name used in outputs (e.g. datastar)")
    t.add_argument("--label", help="display name (default: --name)")
    t.add_argument("--nodes", type=int, required=True, metavar="N",
                   help="system size in the trace's unit (cores for DataStar/Atlas, nodes for Theta)")
    t.add_argument("--unit", default="nodes", help="what --nodes counts, shown in tables (default: nodes)")
    t.add_argument("--schedule", choices=SCHEDULES, default="auto",
                   help="recorded (start = submit + wait), simulated (FCFS + EASY on --nodes), or "
                   "auto: simulated when most wait times are missing (default)")
    t.add_argument("--max-jobs", type=int, default=0, metavar="N",
                   help="analyse only the first N jobs (0: all)")
    t.add_argument("--k-max", type=int, default=80, metavar="K", help="largest K analysed (default 80)")
    t.add_argument("--thresholds", type=float, nargs="+", default=list(A.PAPER_THRESHOLDS),
                   help="coverage thresholds (default 0.9 0.95)")
    t.add_argument("--stand-in", metavar="PRESET",
                   help="Lublin preset (schedrl.workloads.lublin) generated on --nodes when TRACE is "
                   "not found (else: error)")
    t.add_argument("--stand-in-jobs", type=int, default=20000, metavar="N", help="stand-in size")
    t.add_argument("--seed", type=int, default=0, help="seed of the stand-in workload")
    t.add_argument("--steps", action="store_true", help="also write running_steps.csv (per interval)")
    t.add_argument("--out-dir", required=True, metavar="DIR", help="folder for the outputs")
    t.set_defaults(func=run_trace)

    f = sub.add_parser("sem-figures", help="SEM Fig. 5, Tables 2-3, Fig. 7 and claims from trace folders",
                       description="Draw the SEM trace-analysis figures and tables (paper's numbers "
                       "beside ours) from folders written by 'schedrl analyze trace'.")
    f.add_argument("folders", nargs="+", metavar="DIR", help="analysis folders (one per trace)")
    f.add_argument("--figures-dir", required=True, metavar="DIR", help="e.g. figures/sem")
    f.add_argument("--claims", required=True, metavar="CSV", help="claims table to write")
    f.set_defaults(func=run_figures)


# --------------------------------------------------------------------------- trace
def resolve_trace(trace: str, dirs: list[str]) -> Path | None:
    """TRACE itself if it is a file, else ``find_trace`` over ``dirs`` (None if nowhere)."""
    path = Path(trace)
    if path.is_file():
        return path
    from schedrl.workloads.traces import find_trace

    return find_trace(path.name, dirs)


def load_schedule(args) -> tuple[pd.DataFrame, dict]:
    """The schedule to analyse and a description of where it came from."""
    path = resolve_trace(args.trace, args.dirs)
    info: dict = {}
    if path is not None:
        from schedrl.workloads.swf import read_swf

        jobs = read_swf(path)
        info.update(source=path.name, source_kind="trace", cleaning=jobs.attrs.get("cleaning", {}))
    elif args.stand_in:
        from schedrl.workloads.lublin import generate

        # the preset's job-size model on this machine's size (for Atlas: datastar_like on 9,216 CPUs)
        jobs = generate(args.stand_in, args.stand_in_jobs, args.seed, max_nodes=args.nodes)
        info.update(source=args.stand_in, source_kind="stand-in", cleaning={})
    else:
        raise SchedrlError(f"trace '{args.trace}' not found in {', '.join(args.dirs) or 'the current folder'}")
    info["jobs_in_source"] = len(jobs)
    info["max_jobs"] = 0  # recorded only when it cut the trace short
    if args.max_jobs and args.max_jobs < len(jobs):
        jobs = jobs.iloc[: args.max_jobs].reset_index(drop=True)
        info["max_jobs"] = args.max_jobs
    mode = args.schedule
    if mode == "auto":
        mode = "simulated" if (jobs["wait_time"].to_numpy() < 0).mean() > 0.5 else "recorded"
    if mode == "recorded":
        schedule = A.schedule_from_trace(jobs)
    else:
        from schedrl.sim import ClusterSpec, simulate

        too_big = jobs["req_procs"].to_numpy() > args.nodes
        if too_big.any():
            raise SchedrlError(f"{int(too_big.sum())} job(s) of {info['source']} request more than "
                               f"--nodes {args.nodes}")
        sim = simulate(jobs, ClusterSpec(nodes=args.nodes), policy="fcfs", backfill="easy")
        schedule = A.schedule_from_simulation(sim)
        info["simulation"] = sim.attrs.get("sim", {})
    info.update(schedule=mode, jobs_read=len(jobs), dropped=schedule.attrs.get("dropped", {}))
    return schedule, info


def run_trace(args) -> int:
    if args.nodes < 1 or args.k_max < 1 or args.max_jobs < 0:
        raise SchedrlError("--nodes and --k-max must be positive, --max-jobs >= 0")
    t0 = time.perf_counter()
    schedule, info = load_schedule(args)
    if schedule.empty:
        raise SchedrlError(f"trace '{args.trace}' has no job with a start time and a positive run time")
    steps = A.running_jobs(schedule)
    cdf = A.running_jobs_cdf(steps)
    k_largest = A.k_largest_summary(schedule, range(0, args.k_max + 1), thresholds=args.thresholds)
    elapsed = time.perf_counter() - t0
    out = Path(args.out_dir)
    period = float(steps["duration"].sum())
    summary = {
        "name": args.name, "label": args.label or args.name, "system_size": args.nodes, "unit": args.unit,
        **info, "jobs_analysed": len(schedule),
        "min_job_size": int(schedule["size"].min()), "max_job_size": int(schedule["size"].max()),
        "period_days": period / 86400, "max_running": A.max_running_jobs(steps),
        "mean_running": float(np.average(steps["running"], weights=steps["duration"])),
        "p50_running": A.running_quantile(cdf, 0.5), "p99_running": A.running_quantile(cdf, 0.99),
        "mean_utilisation": float(np.average(steps["allocated"], weights=steps["duration"]) / args.nodes),
        "over_capacity_share": float(steps.loc[steps["allocated"] > args.nodes, "duration"].sum() / period),
        "thresholds": list(args.thresholds), "k_max": args.k_max,
    }
    write_csv(out / "running_cdf.csv", cdf)
    write_csv(out / "k_largest.csv", k_largest)
    if args.steps:
        write_csv(out / "running_steps.csv", steps)
    write_json(out / "summary.json", summary)  # last: marks the folder complete
    print(f"{args.name}: {len(schedule):,} jobs ({summary['schedule']} schedule, {summary['source_kind']}), "
          f"max running {summary['max_running']}, p99 {summary['p99_running']}, "
          f"{len(schedule) / max(elapsed, 1e-9):,.0f} jobs/s")
    return 0


# --------------------------------------------------------------------------- figures
def run_figures(args) -> int:
    from schedrl.plots.sem import write_sem_analysis

    for folder in args.folders:
        if not (Path(folder) / "summary.json").is_file():
            raise SchedrlError(f"{folder}: not an analysis folder (no summary.json)")
    write_sem_analysis(args.folders, args.figures_dir, args.claims)
    return 0
