"""``schedrl heuristics``: classic schedulers over workload files and a table against a paper's."""

from __future__ import annotations

from pathlib import Path

from schedrl.errors import SchedrlError

DEFAULT_ALGORITHMS = ["sjf:none", "sjf:easy", "fcfs:none", "fcfs:easy"]


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "heuristics",
        help="run heuristic schedulers on workloads and compare with a paper's table",
        description="'run' simulates one workload under several POLICY:BACKFILL algorithms and "
        "writes their metrics; 'table' gathers such files into a comparison with the paper's "
        "values (CSV + markdown + figure) and a claims table.",
    )
    sub = p.add_subparsers(dest="heuristics_command", metavar="ACTION")
    sub.required = True

    r = sub.add_parser("run", help="simulate one workload under several algorithms",
                       description="Simulate a workload (SWF) under each POLICY:BACKFILL algorithm "
                       "(e.g. sjf:easy) and write one metrics row per algorithm as CSV; optionally "
                       "every per-job schedule.")
    r.add_argument("workload", metavar="WORKLOAD.swf", help="input workload (SWF)")
    r.add_argument("--label", default=None, help="workload name in the table (default: file stem)")
    r.add_argument("--nodes", type=int, required=True, help="cluster nodes")
    r.add_argument("--algorithms", nargs="+", default=DEFAULT_ALGORITHMS, metavar="POLICY:BACKFILL",
                   help="algorithms (default: %(default)s)")
    r.add_argument("--oversize", choices=("error", "drop", "clip"), default="error",
                   help="a job asking for more than --nodes: stop with an error (default), drop or "
                   "clip it")
    r.add_argument("--sim-step", type=float, default=0.0,
                   help="seconds per tick for time-stepped runs (0: event-driven; default)")
    r.add_argument("--overrun", default="kill", choices=["kill", "continue"],
                   help="jobs running past their request are killed (default) or continue")
    r.add_argument("--out", required=True, metavar="CSV", help="metrics per algorithm")
    r.add_argument("--schedules-dir", default=None, metavar="DIR",
                   help="also write DIR/<policy>-<backfill>.csv per-job schedules")
    r.set_defaults(func=run_one)

    t = sub.add_parser("table", help="compare run outputs with a paper's table",
                       description="Gather 'heuristics run' CSVs into a table of one metric, put the "
                       "paper's values beside ours (--paper WORKLOAD=v1,v2,... in --algorithms order), "
                       "write the long CSV + PNG/PDF figure, a markdown section and a claims table.")
    t.add_argument("runs", nargs="+", metavar="RUN.csv", help="outputs of 'heuristics run'")
    t.add_argument("--algorithms", nargs="+", default=DEFAULT_ALGORITHMS, metavar="POLICY:BACKFILL",
                   help="column order (default: %(default)s)")
    t.add_argument("--metric", default="utilization", help="metric compared (default: %(default)s)")
    t.add_argument("--paper", nargs="*", default=[], metavar="WORKLOAD=V1,V2,...",
                   help="the paper's values per workload, in --algorithms order")
    t.add_argument("--paper-name", required=True, help="paper short name for the claims (e.g. runtime)")
    t.add_argument("--claim-prefix", default="table", help="claim id prefix (default: %(default)s)")
    t.add_argument("--tolerance", type=float, default=0.05,
                   help="absolute tolerance for 'reproduced' values (default: %(default)s)")
    t.add_argument("--title", default="Heuristics vs paper", help="table and figure title")
    t.add_argument("--note", action="append", default=[], help="note under the table (repeatable)")
    t.add_argument("--claims-note", default="", help="short note added to every claim row")
    t.add_argument("--out-png", required=True, help="figure .png (also .pdf and the .csv table)")
    t.add_argument("--out-md", required=True, help="markdown section")
    t.add_argument("--claims-out", required=True, help="claims CSV")
    t.set_defaults(func=run_table)


def run_one(args) -> int:
    from schedrl.commands.simulate import require_jobs
    from schedrl.experiments.heuristics import run_heuristics
    from schedrl.io import write_csv
    from schedrl.metrics import write_schedule
    from schedrl.sim import ClusterSpec
    from schedrl.workloads.swf import read_swf

    path = Path(args.workload)
    if args.nodes < 1:
        raise SchedrlError(f"--nodes must be >= 1, got {args.nodes}")
    jobs = read_swf(path, max_procs=args.nodes, oversize=args.oversize, over_request="keep")
    require_jobs(jobs, path)
    label = args.label or path.name.removesuffix(".gz").removesuffix(".swf")
    rows, schedules = run_heuristics(jobs, ClusterSpec(nodes=args.nodes), args.algorithms,
                                     workload=label, sim_step=args.sim_step, overrun=args.overrun)
    if args.schedules_dir:
        for spec, sched in schedules.items():
            write_schedule(Path(args.schedules_dir) / f"{spec.replace(':', '-')}.csv", sched)
    write_csv(args.out, rows)
    return 0


def _metric_unit(metric: str) -> str:
    """Axis unit of a ``heuristics run`` metric column."""
    if metric == "utilization":
        return "fraction"
    if metric in ("mean_wait", "max_wait", "makespan"):
        return "s"
    return "ratio" if "slowdown" in metric else "value"


def parse_paper(items) -> dict[str, list[float]]:
    paper = {}
    for item in items:
        name, sep, values = item.partition("=")
        try:
            if not sep or not name:
                raise ValueError
            paper[name] = [float(v) for v in values.split(",")]
        except ValueError:
            raise SchedrlError(f"bad --paper value '{item}': use WORKLOAD=V1,V2,...") from None
    return paper


def run_table(args) -> int:
    from schedrl.experiments.heuristics import (
        algorithm_label,
        compare_with_paper,
        heuristic_claims,
        read_runs,
    )
    from schedrl.plots.tables import plot_comparison, write_comparison_markdown
    from schedrl.report.claims import write_claims

    ours = read_runs(args.runs, args.algorithms, args.metric)
    table = compare_with_paper(ours, parse_paper(args.paper), args.algorithms, args.metric)
    plot_comparison(args.out_png, table, row="workload", col="label", title=args.title,
                    ylabel=f"{args.metric.replace('_', ' ')} ({_metric_unit(args.metric)})", xlabel="workload")
    notes = list(args.note)
    write_comparison_markdown(args.out_md, table, row="workload", col="label", title=args.title,
                              notes=notes)
    if table["paper"].notna().any():
        rows = heuristic_claims(table, args.algorithms, paper_name=args.paper_name,
                                tolerance=args.tolerance, note=args.claims_note,
                                claim_prefix=args.claim_prefix)
    else:
        rows = [{"paper": args.paper_name, "claim_id": f"{args.claim_prefix}_values",
                 "claim": f"{args.metric} of {', '.join(map(algorithm_label, args.algorithms))}",
                 "paper_value": "", "ours": "", "verdict": "not comparable",
                 "note": "no paper values given"}]
    write_claims(args.claims_out, rows)
    return 0
