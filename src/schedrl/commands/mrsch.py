"""``schedrl mrsch``: train the DFP and scalar-RL agents, evaluate every method, Figures 3-10 and the
claims of MRSch (schedrl.papers.mrsch)."""

from __future__ import annotations

from functools import partial

from schedrl.commands import (
    add_claims_step,
    add_figure_step,
    add_spec_options,
    add_threads_option,
    draw_paper_figure,
    load_spec,
    spec_text,
    write_claims_of,
)

FIGURES = ("fig3", "fig4", "fig5", "fig6", "fig7", "fig8", "fig9", "fig10", "budget")
GROUPS = ("two", "three")


def _spec(text: str) -> dict:
    return load_spec("mrsch", text)


def _seed_option(p) -> None:
    p.add_argument("--seed", type=int, default=None,
                   help="one of mrsch.extra_seeds: that seed's main (MLP) agent, in its seed<N>/ folders "
                   "(default: mrsch.agent_seed, itself mrsch.seed by default: every agent)")


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "mrsch", help="MRSch paper: DFP and scalar-RL training, evaluation, Figures 3-10, claims",
        description="Steps of the MRSch paper (mrsch.txt). --spec is the pipeline's mrsch config section as "
        "JSON (or a config YAML file holding it). Workloads are read from results/workloads/mrsch "
        "(rule workload_mrsch).")
    sub = p.add_subparsers(dest="mrsch_command", metavar="STEP", required=True)

    t = sub.add_parser("train-dfp", help="train a DFP agent on a group's job sets in one ordering",
                       description="Train MRSch's DFP agent: group 'two' (S1-S5, nodes + burst buffer) or 'three' "
                       "(S6-S10, + power), state module mlp or cnn, job sets in ORDERING (e.g. "
                       "sampled-real-synthetic). Resumes from the run folder's newest checkpoint.")
    add_spec_options(t, "mrsch", root=True)
    t.add_argument("--group", required=True, choices=GROUPS, help="resource group")
    t.add_argument("--state", default="mlp", choices=("mlp", "cnn"), help="state module (default: %(default)s)")
    t.add_argument("--ordering", default="sampled-real-synthetic", help="job-set ordering (default: %(default)s)")
    _seed_option(t)
    add_threads_option(t)
    t.set_defaults(func=run_train_dfp)

    s = sub.add_parser("train-scalar", help="train the scalar-RL baseline (REINFORCE, fixed-weight reward)",
                       description="REINFORCE with reward = equal weights . per-resource utilisation after each pick.")
    add_spec_options(s, "mrsch", root=True)
    s.add_argument("--group", required=True, choices=GROUPS, help="resource group")
    add_threads_option(s)
    s.set_defaults(func=run_train_scalar)

    e = sub.add_parser("evaluate", help="run every method on a workload's test split (or its training sets)",
                       description="FCFS, GA, exhaustive Pareto, scalar RL and MRSch (MLP; CNN too on S1-S5), all "
                       "with EASY backfilling; writes metrics.csv (and, on the test split, MRSch's goal trace "
                       "goals.csv) into --out-dir, each trained agent's behaviour fingerprint into fingerprints/ and "
                       "its seat played by a random and an untrained policy into references/.")
    add_spec_options(e, "mrsch", root=True)
    e.add_argument("--workload", required=True, help="S1 ... S10")
    e.add_argument("--out-dir", required=True, metavar="DIR", help="folder for metrics.csv and goals.csv")
    e.add_argument("--split", default="test", choices=("test", "train"),
                   help="test: the held-out test split (the paper's protocol); train: the real job sets the "
                   "agents trained on, in-sample as the public MRSch code evaluates (default: %(default)s)")
    _seed_option(e)
    add_threads_option(e)
    e.set_defaults(func=run_evaluate)

    b = sub.add_parser("evaluate-budgets", help="MRSch's models after 1/8, 1/4, 1/2 of training on a group's workloads",
                       description="The DFP agents (MLP; CNN too for group two) saved at shares of their training, "
                       "played greedily on every workload's test split and in-sample real training sets (batched "
                       "in lockstep); writes metrics.csv and goals.csv into --out-dir.")
    add_spec_options(b, "mrsch", root=True)
    b.add_argument("--group", required=True, choices=GROUPS, help="resource group")
    b.add_argument("--out-dir", required=True, metavar="DIR", help="folder for metrics.csv and goals.csv")
    _seed_option(b)
    add_threads_option(b)
    b.set_defaults(func=run_evaluate_budgets)

    v = sub.add_parser("select", help="pick a DFP agent's checkpoint on its group's validation splits",
                       description="Play the agent's kept models (1/8, 1/4, 1/2, all of training; paper ordering) "
                       "greedily on every validation split of its group, score each by the mean over workloads of "
                       "(wait / FCFS wait + slowdown / FCFS slowdown) / 2, and write validation.csv, selection.json "
                       "and selected.zip (a copy of the best) into the run folder.")
    add_spec_options(v, "mrsch", root=True)
    v.add_argument("--group", required=True, choices=GROUPS, help="resource group")
    v.add_argument("--state", default="mlp", choices=("mlp", "cnn"), help="state module (default: %(default)s)")
    _seed_option(v)
    add_threads_option(v)
    v.set_defaults(func=run_select)

    f = sub.add_parser("fingerprints", help="collect the evaluations' agent fingerprints into one table",
                       description="One row per fingerprints/*.json under the given evaluation folders "
                       "(schedrl.papers.mrsch.fingerprints), written to --out (results/mrsch/fingerprints.csv).")
    f.add_argument("dirs", nargs="+", metavar="DIR", help="fingerprints/ folders of the evaluations")
    f.add_argument("--out", required=True, metavar="CSV", help="the table to write")
    f.set_defaults(func=run_fingerprints)

    c = sub.add_parser("compare-budgets", help="the main agent at the default and at the paper budget, same test splits",
                       description="Reads two results/mrsch trees (a default run and a paper-budget run, "
                       "config/paper-budget.yaml) and writes, per workload and group, FCFS, the GA, random valid "
                       "picks, the untrained network and both agents with 95% intervals, and both agents' "
                       "fingerprints (schedrl.papers.mrsch.budgets).")
    c.add_argument("--default", required=True, metavar="DIR", help="results/mrsch of the default-budget run")
    c.add_argument("--paper", required=True, metavar="DIR", help="results/mrsch of the paper-budget run")
    c.add_argument("--out", required=True, metavar="MD", help="the Markdown table to write (a .csv beside it)")
    c.add_argument("--title", default="", help="the table's heading")
    c.set_defaults(func=run_compare_budgets)

    add_figure_step(sub, "mrsch", FIGURES, partial(draw_paper_figure, "mrsch"), help="draw one figure (fig3 ... fig10)",
                    description="Draw figure NAME from the results under --root into --out (.png, .pdf, .csv).")

    k = sub.add_parser("cost", help="estimate the core-hours of a config's mrsch section",
                       description="DFP runs, REINFORCE runs and evaluations, in core-hours by the rates measured "
                       "with benchmarks/bench_dfp.py (schedrl.papers.mrsch.cost).")
    add_spec_options(k, "mrsch", several=True)
    k.set_defaults(func=run_cost)

    add_claims_step(sub, "mrsch", partial(write_claims_of, "mrsch"))


def run_train_dfp(args) -> int:
    from schedrl.papers.mrsch import layout as ml
    from schedrl.papers.mrsch import training as mtr

    ml.kinds_of(args.ordering)
    r = mtr.train_dfp_run(_spec(args.spec), args.group, args.state, args.ordering, root=args.root, threads=args.threads,
                          seed=args.seed)
    print(f"{r.run_dir}: {r.episodes} job sets, {r.steps:,} agent steps" + (" (already trained)" if r.skipped else
                                                                            f" in {r.wall_time_s:.0f} s"))
    return 0


def run_train_scalar(args) -> int:
    from schedrl.papers.mrsch import training as mtr

    r = mtr.train_scalar_run(_spec(args.spec), args.group, root=args.root, threads=args.threads)
    print(f"{r.run_dir}: {r.iterations} iterations, {r.steps:,} agent steps")
    return 0


def run_evaluate(args) -> int:
    from pathlib import Path

    from schedrl.io import write_csv
    from schedrl.papers.mrsch import evaluation as mev

    spec = _spec(args.spec)
    if args.workload not in spec["workloads"]:
        from schedrl.errors import ConfigError

        raise ConfigError(f"workload '{args.workload}' is not in mrsch.workloads ({', '.join(spec['workloads'])})")
    from schedrl.papers.mrsch import fingerprints as fps
    from schedrl.papers.mrsch import references

    record = fps.Record()
    metrics, goals, jobs = mev.evaluate_workload(spec, args.workload, root=args.root, threads=args.threads,
                                                 split=args.split, seed=args.seed, record=record)
    out = Path(args.out_dir)
    references.write_record(record, out, args.split)
    write_csv(out / "metrics.csv", metrics, float_format="%.6g")
    write_csv(out / "jobs.csv", jobs, float_format="%.6g")
    if args.split == "test":
        write_csv(out / "goals.csv", goals, float_format="%.6g")
    print(metrics[["method", "node_util", "bb_util", "mean_wait_h", "mean_slowdown"]].to_string(index=False))
    return 0


def run_fingerprints(args) -> int:
    from schedrl.papers.mrsch.references import fingerprint_csv

    frame = fingerprint_csv(args.dirs, args.out)
    cols = [c for c in ("agent", "decisions", "contested", "asked_per_job", "plays_as") if c in frame]
    print(frame[cols].to_string(index=False))
    return 0


def run_compare_budgets(args) -> int:
    from pathlib import Path

    from schedrl.io import write_csv, write_text
    from schedrl.papers.mrsch import budgets

    table = budgets.compare(args.default, args.paper)
    fingerprints = budgets.fingerprint_rows(args.default, args.paper)
    out = Path(args.out)
    write_csv(out.with_suffix(".csv"), table, float_format="%.6g")
    write_text(out, budgets.markdown(table, fingerprints, args.title))
    print(f"{out}: {len(table)} rows ({out.with_suffix('.csv')})")
    return 0


def run_evaluate_budgets(args) -> int:
    from pathlib import Path

    from schedrl.io import write_csv
    from schedrl.papers.mrsch import evaluation as mev
    from schedrl.papers.mrsch import layout as ml

    spec = _spec(args.spec)
    if args.group not in ml.groups(spec):
        from schedrl.errors import ConfigError

        raise ConfigError(f"group '{args.group}' has no workload in mrsch.workloads ({', '.join(spec['workloads'])})")
    metrics, goals = mev.evaluate_budgets(spec, args.group, root=args.root, threads=args.threads, seed=args.seed)
    out = Path(args.out_dir)
    write_csv(out / "metrics.csv", metrics, float_format="%.6g")
    write_csv(out / "goals.csv", goals, float_format="%.6g")
    print(metrics[["fraction", "split", "workload", "method", "mean_wait_h", "mean_slowdown"]].to_string(index=False))
    return 0


def run_select(args) -> int:
    from schedrl.papers.mrsch import layout as ml
    from schedrl.papers.mrsch import training as mtr

    spec = _spec(args.spec)
    if args.group not in ml.groups(spec):
        from schedrl.errors import ConfigError

        raise ConfigError(f"group '{args.group}' has no workload in mrsch.workloads ({', '.join(spec['workloads'])})")
    scored, best = mtr.select_model(spec, args.group, args.state, root=args.root, threads=args.threads, seed=args.seed)
    print(scored.groupby("fraction")["score"].first().to_string())
    print(f"selected: {ml.budget_name(best)} ({best:g} of training)")
    return 0


def run_cost(args) -> int:
    from schedrl.papers.mrsch import cost as mcost
    from schedrl.papers.mrsch import layout as ml
    from schedrl.report.budget import on_slower_kind

    spec = _spec(spec_text("mrsch", args.spec))
    c = mcost.estimate_core_hours(spec)
    total = sum(c[k] for k in mcost.COST_PARTS)
    extra = len(ml.seed_runs(spec))
    print(f"~{total:.1f} core-hours: {c['dfp_runs']} DFP runs"
          + (f" ({extra} on extra seeds {ml.extra_seeds(spec)})" if extra else "")
          + f" {c['dfp']:.1f}, scalar RL {c['scalar']:.2f}, "
          f"evaluation {c['evaluate']:.2f}, models at 1/8-1/2 of training {c['budgets']:.2f} "
          f"({c['budgets'] / total:.0%}), selection on the validation splits {c['select']:.3f}; "
          + on_slower_kind(total, mcost.SLOWER_MACHINE[1]))
    return 0
