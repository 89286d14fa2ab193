"""``schedrl mdp``: evaluation, transfer, Figures 3-6, t-test tables and claims of the MDP-design
paper (schedrl.papers.mdp). Agents are trained with the generic ``schedrl train``."""

from __future__ import annotations

from schedrl.commands import add_spec_options, load_spec, spec_text, write_paper_claims

FIGURES = ("fig3", "fig4", "fig5", "fig6", "budget")
TABLES = ("fig4_ttests", "fig4_budget", "fig6_ttests", "horizon_ttests")


def _spec(text: str) -> dict:
    return load_spec("mdp", text)


def _spec_arg(parser, root: bool = False) -> None:
    add_spec_options(parser, "mdp", root)


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "mdp",
        help="MDP-design paper: evaluate and transfer agents, Figures 3-6, t-tests, claims",
        description="Steps of the MDP-design paper (mdp-design.txt) after training ('schedrl train "
        "--variant mdp'). --spec is the pipeline's mdp config section as JSON (or a config YAML "
        "file holding it).",
    )
    sub = p.add_subparsers(dest="mdp_command", metavar="STEP", required=True)

    e = sub.add_parser("evaluate", help="evaluate a trained agent on the evaluation trials of its scenario",
                       description="Play eval.trials episodes (job sets eval.jobset_seed + k, the same for "
                       "every agent) with the run's model in the scenario and MDP it was trained in; write one "
                       "row per trial.")
    _spec_arg(e)
    e.add_argument("--run-dir", required=True, metavar="DIR", help="run folder written by 'schedrl train'")
    e.add_argument("--out", required=True, metavar="CSV", help="per-trial table to write")
    e.add_argument("--threads", type=int, default=1, help="torch threads (default: %(default)s)")
    e.set_defaults(func=run_evaluate)

    t = sub.add_parser("transfer", help="evaluate a compact agent in every scenario without retraining (Fig. 6)",
                       description="Play the evaluation trials of every scenario of --spec with the run's "
                       "model, in the compact env without sparse transitions; one row per scenario and trial.")
    _spec_arg(t)
    t.add_argument("--run-dir", required=True, metavar="DIR", help="run folder of the agent to transfer")
    t.add_argument("--out", required=True, metavar="CSV", help="per-scenario, per-trial table to write")
    t.add_argument("--threads", type=int, default=1, help="torch threads (default: %(default)s)")
    t.set_defaults(func=run_transfer)

    b = sub.add_parser("budget-evaluate", help="evaluate a run's checkpoints at 1/8, 1/4 and 1/2 of training",
                       description="Play the final evaluation's trials with the run's kept checkpoints at 1/8, 1/4 "
                       "and 1/2 of train.steps (issue 24), in its own scenario or, with --transfer, in every "
                       "scenario (compact env without sparse transitions); one row per fraction, scenario and trial. Each "
                       "checkpoint's behaviour fingerprint goes beside --out as fingerprint_at_<fraction>.json.")
    _spec_arg(b)
    b.add_argument("--run-dir", required=True, metavar="DIR", help="run folder written by 'schedrl train'")
    b.add_argument("--transfer", action="store_true", help="evaluate in every scenario (Fig. 6's transfer)")
    b.add_argument("--out", required=True, metavar="CSV", help="per-fraction, per-trial table to write")
    b.add_argument("--threads", type=int, default=1, help="torch threads (default: %(default)s)")
    b.set_defaults(func=run_budget_evaluate)

    r = sub.add_parser("reference", help="play every evaluation with a no-learning reference agent (issue 41)",
                       description="Replace every trained agent (own scenario and transfer) by the uniform-random "
                       "valid policy or by the untrained network (the run's seed, no training step) and play the same "
                       "trials; tables and fingerprints go under ROOT/reference/AGENT in the trained runs' layout.")
    _spec_arg(r, root=True)
    r.add_argument("--agent", required=True, choices=("random", "untrained"), help="reference agent")
    r.add_argument("--threads", type=int, default=1, help="torch threads (default: %(default)s)")
    r.set_defaults(func=run_reference)

    sj = sub.add_parser("sjf", help="play every scenario's evaluation trials with SJF (issue 60) and SJF holding "
                        "long jobs back",
                        description="Play the evaluation trials of every scenario of --spec (main horizon) with "
                        "shortest-job-first, the level beside the agents in fig4_budget, and with SJF that never starts "
                        "a job longer than a length chosen on validation job sets (every length tried; the normalised "
                        "scale's 1 is the better of the two); one row per policy, scenario and trial.")
    _spec_arg(sj)
    sj.add_argument("--out", required=True, metavar="CSV", help="per-scenario, per-trial table to write")
    sj.set_defaults(func=run_sjf)

    un = sub.add_parser("uniform", help="play every scenario's evaluation trials uniformly over all actions (issue 68)",
                        description="Play the evaluation trials of every scenario of --spec (main horizon, the base "
                        "MDP's env) uniformly at random over every action, valid or not, once per seed of --spec: "
                        "the unmasked random player of the normalised scale; one row per seed, scenario and trial.")
    _spec_arg(un)
    un.add_argument("--out", required=True, metavar="CSV", help="per-seed, per-scenario, per-trial table to write")
    un.set_defaults(func=run_uniform)

    fp = sub.add_parser("fingerprints", help="one row per evaluated agent's behaviour fingerprint",
                        description="Collect the fingerprint.json of every trained, transferred and reference "
                        "agent under --root into one CSV (results/mdp/fingerprints.csv).")
    _spec_arg(fp, root=True)
    fp.add_argument("--out", required=True, metavar="CSV", help="table to write")
    fp.set_defaults(func=run_fingerprints)

    h = sub.add_parser("bench-horizon", help="CPU seconds per PPO step at several horizons (Fig. 5's claim)",
                       description="Train Table 2's PPO for fig5.steps agent steps in the image-like and compact "
                       "MDPs of each fig5.scenarios at each fig5.horizons; write process CPU seconds per step.")
    _spec_arg(h)
    h.add_argument("--out", required=True, metavar="CSV", help="table to write")
    h.add_argument("--threads", type=int, default=1, help="torch threads (default: %(default)s)")
    h.set_defaults(func=run_bench_horizon)

    f = sub.add_parser("figure", help="draw one figure (fig3, fig4, fig5, fig6, budget)",
                       description="Draw figure NAME from the results under --root into --out (.png, plus "
                       ".pdf and the plotted numbers as .csv).")
    f.add_argument("name", choices=FIGURES, help="figure to draw")
    _spec_arg(f, root=True)
    f.add_argument("--out", required=True, metavar="PNG", help="figure to write")
    f.set_defaults(func=run_figure)

    tb = sub.add_parser("table", help="write a t-test table (fig4_ttests, fig4_budget, fig6_ttests, horizon_ttests)",
                        description="Write the markdown table NAME from the results under --root.")
    tb.add_argument("name", choices=TABLES, help="table to write")
    _spec_arg(tb, root=True)
    tb.add_argument("--out", required=True, metavar="MD", help="markdown file to write")
    tb.set_defaults(func=run_table)

    c = sub.add_parser("claims", help="write the claims table (claim, paper value, ours, verdict)",
                       description="Compare the paper's statements and numbers with ours; write the claims CSV.")
    _spec_arg(c, root=True)
    c.add_argument("--out", required=True, metavar="CSV", help="claims table to write")
    c.add_argument("--budget-out", metavar="CSV",
                   help="also write the RL claims' values at each training budget (claims_budget.csv)")
    c.set_defaults(func=run_claims)

    k = sub.add_parser("cost", help="estimate the core-hours of a config's mdp section",
                       description="Training runs, agent steps and the estimated core-hours of training and "
                       "evaluation (cost model in schedrl.papers.mdp.cost).")
    add_spec_options(k, "mdp", several=True)
    k.set_defaults(func=run_cost)


def run_evaluate(args) -> int:
    from pathlib import Path

    from schedrl.papers.mdp import evaluation as me
    from schedrl.papers.mdp import layout as ml

    frame = me.evaluate_trained(args.run_dir, _spec(args.spec), args.out, threads=args.threads)
    print(f"{args.out}: {len(frame)} trials, mean slowdown {frame['mean_slowdown'].mean():.3f}; "
          f"{ml.fingerprint_path(Path(args.out).parent)}")
    return 0


def run_transfer(args) -> int:
    from schedrl.papers.mdp import evaluation as me

    frame = me.evaluate_trained(args.run_dir, _spec(args.spec), args.out, transfer=True, threads=args.threads)
    means = frame.groupby("scenario")["mean_slowdown"].mean()
    print(f"{args.out}: " + ", ".join(f"scenario {s} {m:.3f}" for s, m in means.items()))
    return 0


def run_reference(args) -> int:
    import time

    from schedrl.papers.mdp import layout as ml
    from schedrl.papers.mdp import references as mr

    t0 = time.process_time()
    written = mr.evaluate_references(_spec(args.spec), args.root, args.agent, threads=args.threads)
    print(f"{args.agent} reference: {len(written)} evaluations under {ml.reference_root(args.root, args.agent)}; "
          f"{time.process_time() - t0:.1f} CPU s")
    return 0


def _play_every_scenario(args, evaluate: str, who: str) -> int:
    """Write ``references.<evaluate>(spec)``'s per-trial table to --out and print each scenario's mean."""
    from schedrl.io import write_csv
    from schedrl.papers.mdp import evaluation as me
    from schedrl.papers.mdp import references as mr

    frame = getattr(mr, evaluate)(_spec(args.spec))
    write_csv(args.out, frame, float_format="%.6g")
    if evaluate == "evaluate_sjf":  # SJF and SJF holding long jobs back, each with its own line
        for policy, label in ((mr.SJF, who), (mr.SJF_HOLD, mr.HOLD_LABEL)):
            part = mr.heuristic_rows(frame, policy)
            means = part.groupby("scenario")[me.METRIC].mean()
            longest = part.groupby("scenario")["hold_max_len"].first() if policy == mr.SJF_HOLD else {}
            print(f"{args.out}: {label} " + ", ".join(
                f"scenario {s} {m:.3f}" + (f" (jobs up to {int(longest[s])} long)" if s in longest else "")
                for s, m in means.items()))
        return 0
    means = frame.groupby("scenario")[me.METRIC].mean()
    print(f"{args.out}: {who} " + ", ".join(f"scenario {s} {m:.3f}" for s, m in means.items()))
    return 0


def run_sjf(args) -> int:
    return _play_every_scenario(args, "evaluate_sjf", "SJF")


def run_uniform(args) -> int:
    return _play_every_scenario(args, "evaluate_uniform", "uniform play")


def run_fingerprints(args) -> int:
    from schedrl.experiments.fingerprint import write_fingerprint_table
    from schedrl.papers.mdp import layout as ml

    frame = write_fingerprint_table(ml.fingerprint_files(_spec(args.spec), args.root), args.out)
    print(f"{args.out}: {len(frame)} agents")
    return 0


def run_figure(args) -> int:
    from schedrl.papers.mdp import figures

    getattr(figures, args.name)(_spec(args.spec), args.root, args.out)
    return 0


def run_table(args) -> int:
    from schedrl.papers.mdp import figures

    getattr(figures, args.name)(_spec(args.spec), args.root, args.out)
    return 0


def run_claims(args) -> int:
    from schedrl.papers.mdp.claims import claims_and_budgets
    from schedrl.report.convergence import write_budget_table

    spec = _spec(args.spec)
    rows, long = claims_and_budgets(spec, args.root)
    write_paper_claims(args.out, rows, "mdp", spec)
    if args.budget_out:
        write_budget_table(args.budget_out, long)
        print(f"{args.budget_out}: {len(long)} budget rows")
    return 0


def run_budget_evaluate(args) -> int:
    import time
    from pathlib import Path

    from schedrl.io import write_csv
    from schedrl.papers.mdp import evaluation as me

    t0 = time.process_time()
    frame = me.evaluate_budgets(args.run_dir, _spec(args.spec), transfer=args.transfer, threads=args.threads,
                                fingerprint_dir=Path(args.out).parent)
    write_csv(args.out, frame, float_format="%.6g")
    means = frame.groupby("fraction")["mean_slowdown"].mean()
    print(f"{args.out}: " + ", ".join(f"{f:g} of training {m:.3f}" for f, m in means.items())
          + f"; {time.process_time() - t0:.1f} CPU s")
    return 0


def run_bench_horizon(args) -> int:
    from schedrl.io import write_csv
    from schedrl.papers.mdp import training as mt

    frame = mt.bench_horizon(_spec(args.spec), threads=args.threads)
    write_csv(args.out, frame, float_format="%.6g")
    print(frame.to_string(index=False))
    return 0


def run_cost(args) -> int:
    from schedrl.papers.mdp import cost as mc

    spec = _spec(spec_text("mdp", args.spec))
    cost = mc.estimate_core_hours(spec)
    steps = cost["runs"] * int(spec["train"]["steps"])
    total = cost["train"] + cost["evaluate"] + cost["budget"] + cost["bench"] + cost["references"] + cost["startup"]
    print(f"{cost['runs']} training runs, {steps:,} agent steps: ~{total:.2f} core-hours (training "
          f"{cost['train']:.2f}, evaluation with fingerprints {cost['evaluate']:.2f}, budget checkpoints "
          f"{cost['budget']:.2f} ({cost['budget'] / total:.0%}), random and untrained references "
          f"{cost['references']:.2f} ({cost['references'] / total:.0%}), Fig. 5 benchmark {cost['bench']:.2f}, "
          f"job start-up {cost['startup']:.2f}); " + mc.cost_note(spec))
    return 0
