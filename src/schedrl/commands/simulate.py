"""``schedrl simulate``: run a heuristic scheduler over an SWF trace; write the schedule and metrics."""

from __future__ import annotations

import json
from pathlib import Path

from schedrl.errors import SchedrlError


def register(subparsers) -> None:
    from schedrl.schedulers import policy_names
    from schedrl.sim.cluster import BACKFILL_MODES, OVERRUN_HELP  # no numba import at start-up

    p = subparsers.add_parser(
        "simulate",
        help="simulate a queue policy with or without backfilling on an SWF trace",
        description="Event-driven simulation of a trace (SWF, .gz transparently) on a cluster of "
        "--nodes nodes (default: the trace header's MaxProcs, else MaxNodes), optionally with a "
        "burst buffer and a power budget (extension columns bb_request, power_per_node). Writes "
        "the per-job schedule CSV and a metrics JSON, and prints the metrics.",
    )
    p.add_argument("trace", metavar="TRACE.swf", help="input workload (SWF)")
    p.add_argument("--policy", default="fcfs", choices=policy_names(),
                   help="queue order (default: %(default)s)")
    p.add_argument("--backfill", default="easy", choices=list(BACKFILL_MODES),
                   help="backfilling (default: %(default)s)")
    p.add_argument("--overrun", default="kill", choices=["kill", "continue"], help=OVERRUN_HELP)
    p.add_argument("--nodes", type=int, default=None, help="cluster nodes (default: from the header)")
    p.add_argument("--oversize", choices=("error", "drop", "clip"), default=None,
                   help="a job asking for more nodes than the cluster: stop with an error (default "
                   "with --nodes), drop it (default without: the trace-cleaning rule) or clip it")
    p.add_argument("--bb-units", type=int, default=0, help="burst-buffer units (0: none)")
    p.add_argument("--power-budget", type=float, default=0.0, help="power budget in W (0: none)")
    p.add_argument("--idle-power", type=float, default=0.0, help="idle power per node in W")
    p.add_argument("--sim-step", type=float, default=0.0,
                   help="seconds per tick for a time-stepped run (0: event-driven; default)")
    p.add_argument("--span", default="submit", choices=["submit", "start"],
                   help="utilisation span: [first submit, last end] or [first start, last end]")
    p.add_argument("--max-jobs", type=int, default=None, help="simulate only the first N jobs")
    p.add_argument("--schedule", default=None, metavar="CSV",
                   help="per-job schedule (default: TRACE stem + .<policy>-<backfill>.schedule.csv)")
    p.add_argument("--metrics", default=None, metavar="JSON",
                   help="metrics (default: TRACE stem + .<policy>-<backfill>.metrics.json)")
    p.set_defaults(func=run)


def require_jobs(jobs, path) -> None:
    """An empty trace (no data lines, or none left after cleaning) is an error, not null metrics."""
    from schedrl.errors import InputFileError

    if jobs.empty:
        read = (jobs.attrs.get("cleaning") or {}).get("input_jobs", 0)
        raise InputFileError(path, f"no job left after cleaning ({read} read)" if read else
                             "no jobs (empty or header-only trace)")


def machine_nodes(frame, path) -> int:
    """The machine size the cleaning used (header MaxProcs, else MaxNodes): job sizes in SWF count
    processors, so MaxNodes alone (184 on DataStar, against 1,664 processors) would be too small."""
    from schedrl.workloads.table import machine_size

    size = machine_size(frame)
    if size is None:
        raise SchedrlError(f"{path}: no MaxNodes/MaxProcs in the header; give --nodes")
    return size


def run(args) -> int:
    from schedrl import metrics
    from schedrl.experiments.heuristics import simulate_algorithm
    from schedrl.io import write_json
    from schedrl.sim import ClusterSpec
    from schedrl.workloads.swf import read_swf

    path = Path(args.trace)
    # keep runtimes above their request as they are: --overrun decides what happens to them
    if args.nodes is not None and args.nodes < 1:
        raise SchedrlError(f"--nodes must be >= 1, got {args.nodes}")
    if args.max_jobs is not None and args.max_jobs < 1:
        raise SchedrlError(f"--max-jobs must be >= 1, got {args.max_jobs}")
    # a job that does not fit an explicit --nodes is an error, not a silent drop
    oversize = args.oversize or ("error" if args.nodes else "drop")
    jobs = read_swf(path, max_procs=args.nodes, oversize=oversize, over_request="keep")
    require_jobs(jobs, path)
    nodes = args.nodes or machine_nodes(jobs, path)
    if args.max_jobs is not None:
        jobs = jobs.iloc[: args.max_jobs]
    cluster = ClusterSpec(nodes=nodes, bb_units=args.bb_units, power_budget=args.power_budget,
                          idle_power=args.idle_power)
    schedule = simulate_algorithm(jobs, cluster, args.policy, args.backfill, overrun=args.overrun,
                                  sim_step=args.sim_step)
    summary = metrics.summary(schedule, cluster, span=args.span)
    summary.update({"trace": str(path), "policy": args.policy, "backfill": args.backfill,
                    "overrun": args.overrun, "nodes": nodes, "sim_step": args.sim_step or None,
                    "cleaning": jobs.attrs.get("cleaning", {}),
                    "input_fixes": schedule.attrs.get("sim", {}).get("input_fixes", {})})
    stem = path.name.removesuffix(".gz").removesuffix(".swf")
    tag = f"{args.policy}-{args.backfill}"
    schedule_path = args.schedule or f"{stem}.{tag}.schedule.csv"
    metrics_path = args.metrics or f"{stem}.{tag}.metrics.json"
    metrics.write_schedule(schedule_path, schedule)
    write_json(metrics_path, summary)
    print(json.dumps({k: summary[k] for k in ("jobs", "utilization", "mean_wait", "mean_slowdown",
                                              "mean_bounded_slowdown", "makespan")}, indent=1))
    return 0
