"""``schedrl runtime``: the runtime-prediction paper's tables (schedrl.papers.runtime)."""

from __future__ import annotations


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "runtime",
        help="runtime-prediction paper: Table 4 (heuristics) beside the paper's, and its claims",
        description="Steps of the runtime-prediction paper (runtime-prediction.txt) after "
        "'schedrl heuristics run' has simulated each workload half.",
    )
    sub = p.add_subparsers(dest="runtime_command", metavar="STEP", required=True)
    t = sub.add_parser("table4", help="Table 4: utilisation of the classic heuristics, ours vs the paper's",
                       description="Gather the 12 'heuristics run' CSVs into Table 4 beside the paper's values "
                       "(paper_values.yaml): PNG/PDF/CSV and markdown, plus the claims table.")
    t.add_argument("runs", nargs="+", metavar="RUN.csv", help="outputs of 'schedrl heuristics run'")
    t.add_argument("--nodes", type=int, required=True, help="cluster nodes the runs used (for the note)")
    t.add_argument("--sim-step", type=float, required=True, help="Sim_Step the runs used (0: event-driven)")
    t.add_argument("--seed", type=int, default=0, help="seed of the Lublin workloads (for the note)")
    t.add_argument("--out-png", required=True, metavar="PNG", help="table figure (.pdf, .csv and .md beside it)")
    t.add_argument("--claims-out", required=True, metavar="CSV", help="claims table to write")
    t.set_defaults(func=run_table4)


def run_table4(args) -> int:
    from schedrl.commands import write_paper_claims
    from schedrl.papers.runtime import claims, figures

    table = figures.table4(args.runs, args.out_png, nodes=args.nodes, sim_step=args.sim_step, seed=args.seed)
    write_paper_claims(args.claims_out, claims.claims_rows(table, args.seed))
    return 0
