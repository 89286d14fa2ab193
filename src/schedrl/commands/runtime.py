"""``schedrl runtime``: the runtime-prediction paper's steps (schedrl.papers.runtime)."""

from __future__ import annotations

import sys

from schedrl.commands import (
    add_claims_step,
    add_figure_step,
    add_spec_options,
    add_threads_option,
    load_spec,
    spec_text,
    write_paper_claims,
)

FIGURES = ("table5", "table6", "curves", "sensitivity", "budget")


def _spec(text: str) -> dict:
    """The runtime section, which must configure the agents (train, evaluate, figures)."""
    from schedrl.papers.runtime.experiments import load_spec as load_runtime_spec

    load_spec("runtime", text)  # the shared loader's checks first (one error line either way)
    return load_runtime_spec(text, agents=True)


def _heuristics_runs(spec: dict, root: str, draws: list[int] | None = None) -> list[str]:
    """Table 4's heuristics files of ``draws`` (default: the agents' draws)."""
    from schedrl.papers.runtime import experiments as rx

    ds = rx.draws(spec) if draws is None else draws
    return [rx.heuristics_file(w, d).replace(rx.ROOT, root, 1) for d in ds for w in rx.WORKLOADS]


def _fit_runs(spec: dict, root: str, draws: list[int] | None = None) -> list[str]:
    """The heuristics-under-the-agent's-action-set files of ``draws`` (default: the agents' draws)
    when all exist (older result folders have none: their tables and claims go without those columns)."""
    from pathlib import Path

    from schedrl.papers.runtime import experiments as rx

    files = [rx.fit_file(d).replace(rx.ROOT, root, 1) for d in (rx.draws(spec) if draws is None else draws)]
    return files if all(Path(f).exists() for f in files) else []


def _add_run_identity(p) -> None:
    """The options naming one run: method x training half x grid point x seed x draw."""
    p.add_argument("--method", required=True, help="baseline, proposal_nn1 or proposal_nn2")
    p.add_argument("--workload", required=True, help="training half, e.g. wl1_100a")
    p.add_argument("--grid", required=True, help="grid point, e.g. T512-M512-K4 (n_steps, batch_size, n_epochs)")
    p.add_argument("--seed", type=int, required=True, help="seed of the run (its agent, envs, untrained network)")
    p.add_argument("--draw", type=int, default=0, help="Lublin draw of the workloads (0: the config seed's)")


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "runtime",
        help="runtime-prediction paper: Table 4 (heuristics), PPO agents, Tables 5-6, claims",
        description="Steps of the runtime-prediction paper (runtime-prediction.txt) after 'schedrl heuristics "
        "run' has simulated each workload half. --spec is the pipeline's runtime config section as JSON "
        "(or a config YAML file holding it).",
    )
    sub = p.add_subparsers(dest="runtime_command", metavar="STEP", required=True)
    t = sub.add_parser("table4", help="Table 4: utilisation of the classic heuristics, ours vs the paper's",
                       description="Gather the 12 'heuristics run' CSVs into Table 4 beside the paper's values "
                       "(paper_values.yaml): PNG/PDF/CSV and markdown, optionally the Table 4 claims.")
    t.add_argument("runs", nargs="+", metavar="RUN.csv", help="outputs of 'schedrl heuristics run'")
    t.add_argument("--nodes", type=int, required=True, help="cluster nodes the runs used (for the note)")
    t.add_argument("--sim-step", type=float, required=True, help="Sim_Step the runs used (0: event-driven)")
    t.add_argument("--seed", type=int, default=0, help="seed of the Lublin workloads (for the note)")
    t.add_argument("--out-png", required=True, metavar="PNG", help="table figure (.pdf, .csv and .md beside it)")
    t.add_argument("--claims-out", metavar="CSV", help="Table 4 claims table to write (optional)")
    t.set_defaults(func=run_table4)

    tr = sub.add_parser("train", help="train one PPO agent (method x training half x grid point x seed)",
                        description="Train SB3 PPO (hyperparams ppo.yaml, variant 'runtime', the method's "
                        "network and the grid point T/M/K) on one 'a' half with the actual runtime as the "
                        "estimate and idle-step doubling; resumable run folder as 'schedrl train'.")
    add_spec_options(tr, "runtime")
    _add_run_identity(tr)
    tr.add_argument("--run-dir", required=True, metavar="DIR", help="run folder to write")
    tr.add_argument("--previous", nargs="+", metavar="JSON",
                    help="with runtime.agents.halving: the last rung's records of every run of this method and "
                    "training half (rungs/<r>.json); a survivor trains to the end, a pruned point keeps its last "
                    "rung's model")
    add_threads_option(tr)
    tr.set_defaults(func=run_train)

    ru = sub.add_parser("train-rung", help="successive halving: train one run to a rung and play it on its own half",
                        description="With runtime.agents.halving (beyond the paper): if the point survived the rung "
                        "before (--previous: that rung's records of every run of this method and training half; "
                        "rung 0 takes none), train it to the rung's steps, pause there with an exact checkpoint "
                        "and play the paused model on its own half; write RUN_DIR/rungs/<rung>.json.")
    add_spec_options(ru, "runtime")
    _add_run_identity(ru)
    ru.add_argument("--run-dir", required=True, metavar="DIR", help="run folder to write")
    ru.add_argument("--rung", type=int, required=True, help="the rung, 0 .. rungs-2 (the last is 'schedrl runtime train')")
    ru.add_argument("--previous", nargs="*", default=[], metavar="JSON", help="the rung before's records (rung > 0)")
    add_threads_option(ru)
    ru.set_defaults(func=run_train_rung)

    e = sub.add_parser("evaluate", help="play a trained agent on its own 'a' half and every 'b' half",
                       description="Play evaluate.episodes episodes (sampled actions, no idle doubling, oracle "
                       "estimates) on the agent's own half and each 'b' half, and on the same-tendency 'b' half "
                       "under each other estimator; one row per episode.")
    add_spec_options(e, "runtime")
    e.add_argument("--run-dir", required=True, metavar="DIR", help="run folder written by 'schedrl runtime train'")
    e.add_argument("--out", required=True, metavar="CSV", help="per-episode table to write")
    add_threads_option(e)
    e.set_defaults(func=run_evaluate)

    r = sub.add_parser("evaluate-reference", help="play a no-learning reference in place of a group of trained runs",
                       description="Play 'random' (uniform among the valid actions) or 'untrained' (METHOD's "
                       "network built with SEED, no training step) once under the final evaluation's protocol "
                       "(same cases and episode seeds) over the cases of every run it stands in for: untrained, "
                       "the runs of METHOD x every training half of --spec at GRID x SEED x DRAW; random, those "
                       "of every method. Writes each run's table under ROOT/references/<ref>/<method>/<half>/ and "
                       "the group's play and fingerprint.json under <ref>/<method or any>/all/. Needs no trained "
                       "model.")
    add_spec_options(r, "runtime")
    r.add_argument("--reference", required=True, choices=("random", "untrained", "uniform"),
                   help="which reference (uniform: every action, valid or not; for the normalised scale)")
    r.add_argument("--method", default="", help="untrained: baseline, proposal_nn1 or proposal_nn2 (random: ignored)")
    r.add_argument("--grid", required=True, help="grid point of the runs, e.g. T512-M512-K4")
    r.add_argument("--seed", type=int, required=True, help="seed of the runs (the untrained network's)")
    r.add_argument("--draw", type=int, default=0, help="Lublin draw of the workloads (0: the config seed's)")
    r.add_argument("--root", default="results/runtime", help="results folder of the runs (default: %(default)s)")
    add_threads_option(r)
    r.set_defaults(func=run_evaluate_reference)

    f = sub.add_parser("fingerprints", help="gather every evaluated agent's fingerprint.json into one CSV",
                       description="One row per trained agent and per no-learning reference of --spec "
                       "(results/runtime/fingerprints.csv): agreement with FCFS/SJF/smallest-area/largest and "
                       "each window slot over contested decisions, entropy, spreads, dead units.")
    add_spec_options(f, "runtime")
    f.add_argument("--root", default="results/runtime", help="results folder of the runs")
    f.add_argument("--out", required=True, metavar="CSV", help="table to write")
    f.set_defaults(func=run_fingerprints)

    b = sub.add_parser("evaluate-budget", help="play a run's 1/8, 1/4 and 1/2 checkpoints (claims at each budget)",
                       description="Play the checkpoints training kept at 1/8, 1/4 and 1/2 of its steps under the "
                       "final evaluation's protocol (same episode seeds, sampled actions) on the agent's own half "
                       "and every 'b' half with oracle estimates; one row per episode with fraction and budget.")
    add_spec_options(b, "runtime")
    b.add_argument("--run-dir", required=True, metavar="DIR", help="run folder written by 'schedrl runtime train'")
    b.add_argument("--out", required=True, metavar="CSV", help="per-episode table to write")
    add_threads_option(b)
    b.set_defaults(func=run_evaluate_budget)

    add_figure_step(sub, "runtime", FIGURES, run_figure, help="draw table5, table6, curves, sensitivity or budget",
                    description="Draw NAME from the run folders under --root (runs listed by --spec) into "
                    "--out (.png, .pdf, the numbers as .csv; tables also .md).")

    h = sub.add_parser("fit-heuristics", help="FCFS / SJF / largest first under the agent's action set",
                       description="Play FCFS, SJF and largest first among the window's jobs that fit now (X when "
                       "none does: the agent's own action set) on every workload half of one Lublin draw, "
                       "through the evaluation env; one row per half and heuristic (utilisation, steps).")
    add_spec_options(h, "runtime")
    h.add_argument("--draw", type=int, default=0, help="Lublin draw of the workloads (0: the config seed's)")
    h.add_argument("--out", required=True, metavar="CSV", help="table to write")
    h.set_defaults(func=run_fit_heuristics)

    q = sub.add_parser("questions", help="does PPO learn, does the estimate help: answers with intervals",
                       description="The paper's two questions at every budget of the runs listed by --spec: each "
                       "trained agent against random valid play, the untrained network and the best fit heuristic; "
                       "proposal minus baseline where the estimate carries information (*_rnd halves); 95% "
                       "intervals over episodes (schedrl.papers.runtime.questions).")
    add_spec_options(q, "runtime")
    q.add_argument("--root", default="results/runtime", help="results folder of the runs (default: %(default)s)")
    q.add_argument("--extra", action="append", default=[], metavar="LABEL=DIR",
                   help="another evaluated run folder to add as an agent (e.g. a MaskablePPO run); repeatable")
    q.add_argument("--out", required=True, metavar="MD", help="the Markdown to write")
    q.set_defaults(func=run_questions)

    k = sub.add_parser("cost", help="estimate the core-hours of a config's runtime agents",
                       description="PPO runs (methods x grid points x training halves x seeds) and their "
                       "evaluations, budget checkpoints and no-learning references, in core-hours by the exact "
                       "per-rule CPU of the default run of 2026-11-27 (schedrl.papers.runtime.experiments).")
    add_spec_options(k, "runtime", several=True)
    k.set_defaults(func=run_cost)

    c = add_claims_step(sub, "runtime", run_claims, help="claims of Tables 4-6 and the sensitivity study",
                        description="Compare Tables 4-6 with the paper's counts (paper_values.yaml) and write "
                        "the claims table.")
    c.add_argument("--seed", type=int, default=0, help="seed of the Lublin workloads (for the notes)")
    c.add_argument("--no-agents", action="store_true", help="Table 4 claims only (no trained agents)")
    c.add_argument("--budget-out", metavar="CSV", help="RL claims at each training budget (claims_budget.csv); "
                   "reads each run's evaluation_budget.csv")


def run_table4(args) -> int:
    from schedrl.papers.runtime import claims, figures

    table = figures.table4(args.runs, args.out_png, nodes=args.nodes, sim_step=args.sim_step, seed=args.seed)
    if args.claims_out:
        write_paper_claims(args.claims_out, claims.claims_rows(table, seed=args.seed))
    return 0


def run_train(args) -> int:
    from schedrl.errors import ConfigError
    from schedrl.papers.runtime import experiments as rx
    from schedrl.papers.runtime import halving

    spec = _spec(args.spec)
    if halving.settings(spec) is not None:
        if not args.previous:
            raise ConfigError("runtime.agents.halving is set: --previous needs the last rung's records")
        out = halving.finish(spec, args.method, args.workload, args.grid, args.seed, args.run_dir, args.previous,
                             threads=args.threads, draw=args.draw)
        if out["pruned_at"] is not None:
            print(f"{args.run_dir}: pruned by successive halving at {out['pruned_at']} steps")
            return 0
        print(f"{args.run_dir}: survived every rung, trained to {spec['agents']['steps']} steps")
        return 0
    if args.previous:
        raise ConfigError("--previous is for runtime.agents.halving, which this spec does not set")
    result = rx.train(spec, args.method, args.workload, args.grid, args.seed, args.run_dir,
                      threads=args.threads, draw=args.draw)
    rate = result.steps_trained / result.wall_time_s if result.wall_time_s > 0 else float("nan")
    print(f"{result.run_dir}: {result.steps} steps (from {result.resumed_from}), {result.wall_time_s:.1f} s, "
          f"{rate:.0f} steps/s")
    return 0


def run_train_rung(args) -> int:
    from schedrl.errors import ConfigError
    from schedrl.papers.runtime import halving

    if args.rung > 0 and not args.previous:
        raise ConfigError(f"--rung {args.rung}: --previous needs rung {args.rung - 1}'s records")
    record = halving.train_rung(_spec(args.spec), args.method, args.workload, args.grid, args.seed, args.run_dir,
                                args.rung, args.previous, threads=args.threads, draw=args.draw)
    if record["trained"]:
        print(f"{args.run_dir}: rung {args.rung} at {record['steps']} steps, own-half utilisation "
              f"{record['utilization']:.4f}")
    else:
        print(f"{args.run_dir}: rung {args.rung}: pruned before it")
    return 0


def run_evaluate(args) -> int:
    from schedrl.papers.runtime import experiments as rx

    table = rx.evaluate(args.run_dir, _spec(args.spec), args.out, threads=args.threads)
    print(f"{args.out}: {len(table)} episodes")
    return 0


def run_evaluate_reference(args) -> int:
    from schedrl.papers.runtime import references

    files = references.evaluate_reference(args.reference, _spec(args.spec), args.method, args.grid, args.seed,
                                          args.draw, args.root, threads=args.threads)
    print(f"{files[-2]}: {args.reference} play of {len(files) - 2} runs' cases, and their tables")
    return 0


def run_questions(args) -> int:
    from pathlib import Path

    from schedrl.errors import InputFileError, SchedrlError
    from schedrl.papers.runtime import questions

    extra = {}
    for pair in args.extra:
        label, sep, folder = pair.partition("=")
        if not sep or not label or not folder:
            raise SchedrlError(f"--extra '{pair}': expected LABEL=DIR")
        if not (Path(folder) / "evaluation.csv").exists():
            raise InputFileError(Path(folder) / "evaluation.csv", "not found (evaluate the run first)")
        extra[label] = folder
    text = questions.write_questions(_spec(args.spec), args.out, args.root, extra)
    print(f"{args.out}: {text.count(chr(10))} lines")
    return 0


def run_fingerprints(args) -> int:
    from schedrl.papers.runtime import references

    table = references.write_fingerprints(references.fingerprint_files(_spec(args.spec), args.root), args.out)
    print(f"{args.out}: {len(table)} agents")
    return 0


def _references(spec: dict, root: str) -> dict:
    """Reference name -> its evaluation rows; {} (with a warning) when none was played yet."""
    from pathlib import Path

    from schedrl.errors import InputFileError
    from schedrl.papers.runtime import experiments as rx
    from schedrl.papers.runtime import references

    files = {ref: references.reference_files(spec, ref, root) for ref in references.REFERENCES}
    present = [f for fs in files.values() for f in fs if Path(f).exists()]
    if not present:
        print("schedrl: runtime claims: no reference evaluations ('schedrl runtime evaluate-reference'): "
              "the reference columns stay empty", file=sys.stderr)
        return {}
    missing = [f for fs in files.values() for f in fs if not Path(f).exists()]
    if missing:
        raise InputFileError(missing[0], f"missing ({len(missing)} reference evaluations missing)")
    return {ref: rx.read_evaluations(fs) for ref, fs in files.items()}


def _plays(spec: dict, root: str, evals) -> dict:
    """claim id -> what the tuned trained agents play as (their fingerprint.json files)."""
    from pathlib import Path

    from schedrl.papers.runtime import experiments as rx
    from schedrl.papers.runtime import references

    fps = {}
    for m, w, g, s, d, run in rx.runs(spec, root):
        path = Path(run) / "fingerprint.json"
        if path.exists():
            fps[(m, w, g, s, d)] = references.read_fingerprint(path)
    return references.claim_plays_as(fps, rx.best_grid(evals)) if fps else {}


def run_evaluate_budget(args) -> int:
    from schedrl.papers.runtime import budget

    table = budget.evaluate_checkpoints(args.run_dir, _spec(args.spec), args.out, threads=args.threads)
    print(f"{args.out}: {len(table)} episodes at budgets {sorted(table['budget'].unique().tolist())}")
    return 0


def run_cost(args) -> int:
    from schedrl.papers.runtime import experiments as rx
    from schedrl.papers.runtime import halving
    from schedrl.report.budget import on_slower_kind

    c = halving.estimate_core_hours(_spec(spec_text("runtime", args.spec)))
    total = sum(c[k] for k in rx.COST_PARTS)
    halving = f" (successive halving, eta {c['halving'][0]}, {c['halving'][1]} rungs)" if c.get("halving") else ""
    print(f"~{total:,.1f} core-hours: {c['runs']} PPO runs{halving} "
          f"{c['train']:,.1f}, evaluation {c['evaluate']:,.2f}, budget checkpoints {c['budget']:,.2f}, "
          f"no-learning references {c['references']:,.2f}; " + on_slower_kind(total, rx.SLOWER_MACHINE[1]))
    return 0


def run_figure(args) -> int:
    from schedrl.papers.runtime import experiments as rx
    from schedrl.papers.runtime import figures

    spec = _spec(args.spec)
    if args.name == "table5":
        figures.table5(rx.evaluation_files(spec, args.root), _heuristics_runs(spec, args.root), args.out,
                       fit=_fit_runs(spec, args.root), references=_references(spec, args.root))
    elif args.name == "table6":
        figures.table6(rx.evaluation_files(spec, args.root), _heuristics_runs(spec, args.root), args.out,
                       references=_references(spec, args.root))
    elif args.name == "curves":
        figures.curves(rx.curve_files(spec, args.root), args.out)
    elif args.name == "budget":
        figures.budget(f"{args.root}/claims_budget.csv", args.out)
    else:
        figures.sensitivity(rx.evaluation_files(spec, args.root), args.out)
    return 0


def run_fit_heuristics(args) -> int:
    from schedrl.papers.runtime import experiments as rx

    spec = load_spec("runtime", args.spec)
    table = rx.play_fit_heuristics(spec, args.draw)
    rx._write_table(table, args.out)
    print(table.pivot(index="workload", columns="algorithm", values="utilization").round(4).to_string())
    return 0


def run_claims(args) -> int:
    from schedrl.experiments.heuristics import compare_with_paper, read_runs
    from schedrl.papers.runtime import claims, tables
    from schedrl.papers.runtime import experiments as rx

    spec = load_spec("runtime", args.spec)
    runs = _heuristics_runs(spec, args.root)
    draw0 = [rx.heuristics_file(w).replace(rx.ROOT, args.root, 1) for w in rx.WORKLOADS]   # Table 4: draw 0
    t4 = compare_with_paper(read_runs(draw0, rx.ALGORITHMS, "utilization"), rx.VALUES["table4"]["rows"],
                            rx.ALGORITHMS, "utilization")
    if args.no_agents or "agents" not in spec:
        rows = claims.claims_rows(t4, seed=args.seed)
    else:
        from schedrl.papers.runtime import budget

        evals = rx.read_evaluations(rx.evaluation_files(spec, args.root))
        heur = tables.heuristics_table(runs, _fit_runs(spec, args.root))
        budgets = None
        if args.budget_out:
            from schedrl.report.convergence import write_budget_table

            ckpts = rx.read_evaluations(budget.budget_files(spec, args.root))
            # the series' agents are those of budget_draws: compare them with the same draws' heuristics
            drawn = rx.budget_draws(spec)
            budget_heur = heur if drawn == rx.draws(spec) else tables.heuristics_table(
                _heuristics_runs(spec, args.root, drawn), _fit_runs(spec, args.root, drawn))
            budgets, long_rows = budget.budget_rows(budget.with_final(evals, ckpts, int(spec["agents"]["steps"]),
                                                                      rx.budget_episodes(spec)), budget_heur)
            write_budget_table(args.budget_out, long_rows)
        rows = claims.claims_rows(t4, tables.table5_frame(evals, heur), tables.table6_frame(evals),
                                  tables.sensitivity_frame(evals), seed=args.seed, evals=rx.tuned(evals),
                                  budgets=budgets, per_draw=budget.per_draw_counts(evals, spec, args.root),
                                  heuristics=heur, references=_references(spec, args.root),
                                  plays=_plays(spec, args.root, evals))
    write_paper_claims(args.out, rows, "runtime", spec if "agents" in spec else None)
    return 0
