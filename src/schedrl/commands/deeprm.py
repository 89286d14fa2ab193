"""``schedrl deeprm``: evaluation across loads, report figures 5.1-5.18 and the claims table of the
SB3 DeepRM report. SB3 agents are trained with the generic ``schedrl train``; DeepRM's own
REINFORCE agent (one per rate) with ``schedrl deeprm train-agent``."""

from __future__ import annotations

from schedrl.commands import add_spec_options, load_spec, spec_text, write_paper_claims
from schedrl.errors import ConfigError


def _spec(text: str) -> dict:
    return load_spec("deeprm", text)


def _spec_arg(parser) -> None:
    add_spec_options(parser, "deeprm")


def _spec_and_root(parser) -> None:
    """``--spec`` plus ``--root``, the results folder the report steps read."""
    add_spec_options(parser, "deeprm", root=True)


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "deeprm",
        help="SB3 DeepRM report: evaluate agents/heuristics across loads, figures 5.1-5.18, claims",
        description="Steps of the SB3 DeepRM report (deeprm-sb3-report.txt) after training "
        "('schedrl train'). --spec is the pipeline's deeprm config section as JSON (or a config "
        "YAML file holding it).",
    )
    sub = p.add_subparsers(dest="deeprm_command", metavar="STEP", required=True)

    e = sub.add_parser("evaluate", help="evaluate a trained agent or a heuristic across loads under one protocol",
                       description="Play a trained run folder (--run-dir) or a heuristic (--baseline) at every "
                       "rate of eval.rates under --protocol: 'heldout' (eval.episodes unseen job sets, every job "
                       "counted, episodes run to the end) or 'report' (the SB3 report's seed-42 sequence drawn as "
                       "its code does, sampled actions, placed jobs only) or 'heldout_greedy' (agents: 'heldout' with greedy "
                       "actions at eval.box_rate); write per-job and per-episode CSVs.")
    _spec_arg(e)
    e.add_argument("--variant", required=True, help="discrete|multibinary - stacked|image")
    who = e.add_mutually_exclusive_group(required=True)
    who.add_argument("--run-dir", metavar="DIR", help="run folder written by 'schedrl train'")
    who.add_argument("--baseline", choices=["sjf", "packer", "first_slot", "random"], help="heuristic to evaluate")
    who.add_argument("--authors", metavar="NAME",
                     help="a published agent of the report's authors, <algo>-<objective> (a2c-slowdown, "
                     "ppo-completion_time, deeprm_pg-slowdown, ...), read from deeprm.reference_dirs and "
                     "played with SB2's integer cast (schedrl.agents.sb2_reference)")
    e.add_argument("--protocol", nargs="+", choices=["heldout", "report", "heldout_greedy"], default=["heldout"],
                   help="evaluation protocol(s), played one after another in one process (default: heldout)")
    e.add_argument("--out-dir", metavar="DIR", help="write each protocol's eval_<protocol>_jobs.csv and "
                   "_episodes.csv (agents: also _fingerprint.json) into DIR (needed for several protocols)")
    e.add_argument("--out-jobs", metavar="CSV", help="one protocol: per-job table to write")
    e.add_argument("--out-episodes", metavar="CSV", help="one protocol: per-episode table to write")
    e.add_argument("--rates", type=float, nargs="+", metavar="RATE",
                   help="evaluate at these rates only (default: the protocol's rates: eval.rates; "
                   "heldout_greedy: eval.box_rate)")
    e.add_argument("--out-fingerprint", metavar="JSON",
                   help="agents: also write the behaviour fingerprint of the played decisions (issue 41)")
    e.add_argument("--threads", type=int, default=1, help="torch threads (default: %(default)s)")
    e.set_defaults(func=run_evaluate)

    r = sub.add_parser("evaluate-reference", help="play a no-learning reference (random valid policy or untrained "
                       "network) under every agent protocol",
                       description="Play the uniform-random valid policy or the untrained network of --algo "
                       "(built as training builds it, with --seed, no training step) as the trained agents are "
                       "played under each protocol (heldout, report, heldout_greedy); write the per-job and "
                       "per-episode CSVs and fingerprints into --out-dir. The claims are recomputed with them "
                       "(random_verdict, untrained_verdict).")
    _spec_arg(r)
    r.add_argument("--variant", required=True, help="discrete|multibinary - stacked|image")
    r.add_argument("--reference", required=True, choices=["random", "untrained"], help="which reference")
    r.add_argument("--algo", default="", help="untrained: the algorithm whose network is built (or deeprm_pg)")
    r.add_argument("--seed", type=int, required=True, help="the trained agent's seed")
    r.add_argument("--out-dir", required=True, metavar="DIR", help="folder to write")
    r.add_argument("--threads", type=int, default=1, help="torch threads (default: %(default)s)")
    r.set_defaults(func=run_evaluate_reference)

    b = sub.add_parser("evaluate-budgets", help="evaluate a run's checkpoints at 1/8, 1/4 and 1/2 of its training",
                       description="Play the checkpoints of a trained run folder at 1/8, 1/4 and 1/2 of its "
                       "training (the first checkpoint at or after each share) under --protocol at one rate "
                       "(default: eval.box_rate), as the final evaluation plays the final model; write one "
                       "per-episode CSV with columns fraction and budget (claims against training budget).")
    _spec_arg(b)
    b.add_argument("--run-dir", required=True, metavar="DIR", help="run folder ('schedrl train' or train-agent)")
    b.add_argument("--protocol", nargs="+", choices=["heldout", "report"], default=["heldout"],
                   help="evaluation protocol(s) (default: heldout)")
    b.add_argument("--rate", type=float, help="job arrival rate (default: eval.box_rate)")
    b.add_argument("--out", metavar="CSV", help="one protocol: per-episode table to write")
    b.add_argument("--out-dir", metavar="DIR", help="write each protocol's eval_<protocol>_budget.csv into DIR")
    b.add_argument("--threads", type=int, default=1, help="torch threads (default: %(default)s)")
    b.set_defaults(func=run_evaluate_budgets)

    y = sub.add_parser("replay", help="replay the report protocol's model with many sampling seeds",
                       description="The report protocol plays one sampled episode of a run's best-in-sample model "
                       "(best_model.zip of the training-time selection) on its seed-42 sequence, so a win can be "
                       "a lucky draw. Replay that model on the same sequence (the protocol's job-set seed, "
                       "overrides and episodes) at --rate once per sampling seed 0..N-1 (the samplers seeded "
                       "with it; seed 42 would be the protocol's own episode) and write one row per episode: "
                       "sampling_seed, mean_slowdown as the protocol counts it (placed jobs only), the played "
                       "model and its training step.")
    _spec_arg(y)
    y.add_argument("--run-dir", required=True, metavar="DIR", help="run folder written by 'schedrl train'")
    y.add_argument("--sampling-seeds", type=int, metavar="N", default=None,
                   help="replays, with sampling seeds 0..N-1 (default: REPLAY_SAMPLING_SEEDS of "
                   "schedrl.papers.deeprm.layout, 20)")
    y.add_argument("--rate", type=float, help="job arrival rate (default: eval.box_rate)")
    y.add_argument("--out", required=True, metavar="CSV", help="per-episode table to write")
    y.add_argument("--threads", type=int, default=1, help="torch threads (default: %(default)s)")
    y.set_defaults(func=run_replay)

    a = sub.add_parser("train-agent", help="train DeepRM's own REINFORCE agent (Mao et al.) at one rate",
                       description="Train the policy-gradient agent of Mao et al. 2016 (algorithm "
                       "deeprm_pg, hyperparams/deeprm_pg.yaml) for slowdown at --rate with the "
                       "deeprm_agent block of the spec (iterations, job sets, trajectories). A rerun "
                       "resumes from the newest checkpoint; a changed config restarts the run.")
    _spec_arg(a)
    a.add_argument("--rate", required=True, type=float, help="training rate, one of deeprm_agent.rates")
    a.add_argument("--seed", type=int, default=0, help="training seed (default: %(default)s)")
    a.add_argument("--run-dir", required=True, metavar="DIR", help="run folder to write")
    a.add_argument("--threads", type=int, default=1, help="torch threads (default: %(default)s)")
    a.set_defaults(func=run_train_agent)

    f = sub.add_parser("figure", help="draw one figure (fig5_1 ... fig5_18, never_placed, deeprm_agent_curve)",
                       description="Draw report figure NAME from results under --root into --out "
                       "(.png, plus .pdf and the plotted numbers as .csv).")
    f.add_argument("name", help="fig5_1 ... fig5_18, never_placed, deeprm_agent_curve or budget")
    _spec_and_root(f)
    f.add_argument("--out", required=True, metavar="PNG", help="figure to write")
    f.set_defaults(func=run_figure)

    c = sub.add_parser("claims", help="write the claims table (claim, paper value, ours, verdict)",
                       description="Compare the report's numbers and statements with ours; write "
                       "results/deeprm/claims.csv.")
    _spec_and_root(c)
    c.add_argument("--out", required=True, metavar="CSV", help="claims table to write")
    c.add_argument("--budget-out", metavar="CSV", help="also write the RL claims' values at each training "
                   "budget (claims_budget.csv; needs the runs' eval_<protocol>_budget.csv)")
    c.set_defaults(func=run_claims)

    g = sub.add_parser("fingerprints", help="one table of every evaluated agent's behaviour fingerprint",
                       description="Collect the fingerprint.json of every evaluated agent (SB3 runs, DeepRM's agent, "
                       "the random and untrained references; one row per agent and protocol) into one CSV "
                       "(results/deeprm/fingerprints.csv).")
    _spec_and_root(g)
    g.add_argument("--out", required=True, metavar="CSV", help="table to write")
    g.set_defaults(func=run_fingerprints)

    k = sub.add_parser("cost", help="estimate the core-hours of a config's deeprm section",
                       description="SB3 runs, DeepRM-agent runs and the estimated core-hours of training, "
                       "evaluation, rule start-up, the no-learning references and the report protocol's "
                       "checks during training (rates in schedrl.papers.deeprm.cost).")
    add_spec_options(k, "deeprm", several=True)
    k.set_defaults(func=run_cost)

    t = sub.add_parser("table", help="markdown tables for the reproduction report",
                       description="Write the 130%-load table (every policy beside the report's numbers) "
                       "or, with --timing, the training-throughput table, or, with --replay, the report "
                       "protocol's in-sample result replayed with many sampling seeds (reads the runs' "
                       "replay_report.csv of 'schedrl deeprm replay').")
    _spec_and_root(t)
    which = t.add_mutually_exclusive_group()
    which.add_argument("--timing", action="store_true", help="training throughput instead of results")
    which.add_argument("--replay", action="store_true",
                       help="discrete phase 2's slowdown agents replayed on the seed-42 sequence: median, "
                       "10-90%% and share below SJF of their sampling seeds")
    t.add_argument("--out", required=True, metavar="MD", help="markdown file to write")
    t.set_defaults(func=run_table)


def _outputs(args, protocols: list[str], paths, single: dict, what: str) -> list[tuple[str, dict]]:
    """(protocol, {file kind: path}) for each protocol asked: ``paths(protocol)`` under ``--out-dir``,
    else the one-protocol options ``single`` (kind -> value, None when not given)."""
    protocols = list(dict.fromkeys(protocols))
    given = [f"--{k.replace('_', '-')}" for k, v in single.items() if v]
    if args.out_dir:
        if given:
            raise ConfigError(f"--out-dir names every {what} file; leave out {', '.join(given)}")
        return [(p, paths(p)) for p in protocols]
    if len(protocols) > 1:
        raise ConfigError(f"--protocol {' '.join(protocols)}: several protocols write into --out-dir, "
                          f"not {', '.join(given) or 'one file'}")
    needed = [f"--{k.replace('_', '-')}" for k, v in single.items() if not v and k != "out_fingerprint"]
    if needed:
        raise ConfigError(f"give --out-dir, or {' and '.join(needed)}")
    return [(protocols[0], {k.removeprefix("out_"): v for k, v in single.items()})]


def run_evaluate(args) -> int:
    """Every protocol of ``--protocol`` in one process: an agent's three evaluations pay one start-up
    (torch, SB3, numba) and one Snakemake job."""
    import torch

    from schedrl.papers.deeprm import layout as dl

    torch.set_num_threads(max(1, args.threads))
    spec = _spec(args.spec)
    if args.baseline and dl.GREEDY in args.protocol:
        raise ConfigError(f"--protocol {dl.GREEDY} plays trained agents greedily; give --run-dir, not --baseline")

    def paths(protocol):
        out = dict(dl.eval_paths(args.out_dir, protocol))
        out["fingerprint"] = dl.fingerprint_path(args.out_dir, protocol) if args.run_dir else None
        return out

    single = {"out_jobs": args.out_jobs, "out_episodes": args.out_episodes, "out_fingerprint": args.out_fingerprint}
    for protocol, out in _outputs(args, args.protocol, paths, single, "evaluation"):
        setup = dl.protocol_setup(spec, protocol)
        if args.authors:
            _evaluate_authors(args, spec, setup, protocol, out)
        else:
            _evaluate_one(args, spec, setup, protocol, out)
    return 0


def _evaluate_one(args, spec: dict, setup: dict, protocol: str, out: dict) -> None:
    """A trained run (``--run-dir``) or a heuristic (``--baseline``) under ``protocol``."""
    from schedrl.papers.deeprm import evaluation as de
    from schedrl.papers.deeprm import references as dr
    from schedrl.papers.deeprm import training as dt

    if args.run_dir:
        best = setup["overrides"] if protocol == "report" else None
        make_policy, kwargs = de.agent_policy_factory(args.run_dir, setup["deterministic"], setup["jobset_seed"],
                                                      best_in_sample=best)
    else:
        make_policy = dr.baseline_policy_factory(args.baseline)
        kwargs = dt.env_kwargs(spec, args.variant, "slowdown")
    kwargs = {**kwargs, **setup["overrides"]}
    rates = setup["rates"] if not args.rates else args.rates
    play = de.evaluate_recorded if args.run_dir else de.evaluate_over_rates  # agents are fingerprinted
    jobs, episodes, *decisions = play(make_policy, kwargs, rates, setup["episodes"], setup["jobset_seed"],
                                      protocol=protocol)
    if args.run_dir:
        episodes["model"] = make_policy.chosen  # which checkpoint was played (report: best in-sample)
        print(f"{protocol}: played {make_policy.chosen}")
        if out.get("fingerprint"):
            _write_fingerprint(args, make_policy, decisions[0], rates, len(episodes), protocol, out["fingerprint"])
    _write_tables(out, jobs, episodes)


def _write_tables(out: dict, jobs, episodes) -> None:
    from schedrl.io import write_csv

    write_csv(out["jobs"], jobs, float_format="%.6g")
    write_csv(out["episodes"], episodes, float_format="%.6g")
    print(f"{out['episodes']}: {len(episodes)} episodes, {len(jobs)} jobs")


def _evaluate_authors(args, spec: dict, setup: dict, protocol: str, out: dict) -> None:
    """The authors' agent under ``protocol``; DeepRM's agent plays each rate with the file
    trained at that rate (rates without one are skipped)."""
    import pandas as pd

    from schedrl.papers.deeprm import evaluation as de
    from schedrl.papers.deeprm import references as dr
    from schedrl.papers.deeprm import training as dt

    algo, _, objective = args.authors.partition("-")
    kwargs = {**dt.env_kwargs(spec, args.variant, objective or "slowdown"), **setup["overrides"]}
    rates = setup["rates"] if not args.rates else args.rates
    jobs, episodes = [], []
    for rate in rates:
        make_policy = dr.authors_policy_factory(spec, args.variant, args.authors, setup["deterministic"],
                                                setup["jobset_seed"], rate=rate)
        if make_policy is None:
            print(f"authors' {args.authors}: no file trained at rate {rate:g}, skipped")
            continue
        j, e = de.evaluate_over_rates(make_policy, kwargs, [rate], setup["episodes"], setup["jobset_seed"],
                                      protocol=protocol)
        e["model"] = make_policy.chosen
        jobs.append(j)
        episodes.append(e)
    if not episodes:
        raise ConfigError(f"authors' {args.authors}: nothing to play at rates {rates}")
    _write_tables(out, pd.concat(jobs, ignore_index=True), pd.concat(episodes, ignore_index=True))


def _write_fingerprint(args, make_policy, decisions, rates, n_episodes: int, protocol: str, path) -> None:
    from schedrl.io import read_json
    from schedrl.papers.deeprm import evaluation as de
    from schedrl.papers.deeprm import layout as dl

    config = read_json(f"{args.run_dir}/config.json")
    algo, seed = config["algo"], int(config["seed"])
    objective = config["env_kwargs"].get("reward", "slowdown")
    rate = float(config["env_kwargs"]["new_job_rate"]) if algo == dl.DEEPRM_AGENT else None
    fp = de.write_agent_fingerprint(
        path, decisions, make_policy.model,
        agent=de.agent_name(args.variant, algo, objective, seed, rate=rate), kind="trained", variant=args.variant,
        algo=algo, objective=objective, seed=seed, protocol=protocol, rates=";".join(f"{r:g}" for r in rates),
        episodes=int(n_episodes), model=make_policy.chosen)
    print(f"{path}: {fp['contested']} contested of {fp['decisions']} decisions"
          + (f", plays as {fp['plays_as']}" if fp.get("plays_as") else ""))


def run_evaluate_reference(args) -> int:
    import time

    import torch

    from schedrl.papers.deeprm import references as dr

    torch.set_num_threads(max(1, args.threads))
    spec = _spec(args.spec)
    if args.reference == "untrained" and not args.algo:
        raise ConfigError("--reference untrained needs --algo (the network to build)")
    start = time.process_time()
    out = dr.evaluate_reference(spec, args.variant, args.reference, args.algo, args.seed, args.out_dir)
    print(f"{args.out_dir}: {sum(len(e) for e in out.values())} episodes under {', '.join(out)} "
          f"in {time.process_time() - start:.1f} CPU-s")
    return 0


def run_evaluate_budgets(args) -> int:
    import torch

    from schedrl.io import write_csv
    from schedrl.papers.deeprm import evaluation as de
    from schedrl.papers.deeprm import layout as dl

    torch.set_num_threads(max(1, args.threads))
    spec = _spec(args.spec)
    rate = float(spec["eval"]["box_rate"] if args.rate is None else args.rate)
    for protocol, out in _outputs(args, args.protocol, lambda p: {"out": dl.budget_path(args.out_dir, p)},
                                  {"out": args.out}, "budget"):
        episodes = de.evaluate_budgets(spec, args.run_dir, protocol, rate)
        path = out["out"]
        write_csv(path, episodes, float_format="%.6g")
        print(f"{path}: {len(episodes)} episodes of checkpoints {sorted(set(episodes['model']))}")
    return 0


def run_replay(args) -> int:
    import torch

    from schedrl.io import write_csv
    from schedrl.papers.deeprm import evaluation as de
    from schedrl.papers.deeprm import layout as dl

    torch.set_num_threads(max(1, args.threads))
    spec = _spec(args.spec)
    seeds = dl.REPLAY_SAMPLING_SEEDS if args.sampling_seeds is None else args.sampling_seeds
    if seeds < 1:
        raise ConfigError(f"--sampling-seeds must be >= 1, got {seeds}")
    rate = float(spec["eval"]["box_rate"] if args.rate is None else args.rate)
    if not any(abs(rate - r) < 1e-9 for r in spec["eval"]["rates"]):
        raise ConfigError(f"--rate {rate:g} is not one of eval.rates {spec['eval']['rates']}")
    replays = de.replay_report(spec, args.run_dir, seeds, rate=rate)
    write_csv(args.out, replays, float_format="%.6g")
    values = replays.groupby("sampling_seed")["mean_slowdown"].mean()
    print(f"{args.out}: {replays['model'].iloc[0]} replayed with {len(values)} sampling seeds at rate "
          f"{rate:g}: mean slowdown median {values.median():.2f}, {values.min():.2f}-{values.max():.2f}")
    return 0


def run_train_agent(args) -> int:
    from schedrl.papers.deeprm import training as dt

    spec = _spec(args.spec)
    result = dt.train_deeprm_agent(spec, args.rate, args.seed, args.run_dir, threads=args.threads)
    state = "already trained" if result.skipped else f"{result.iterations_trained} iterations in {result.wall_time_s:.1f} s"
    print(f"{args.run_dir}: {result.iterations} iterations, {result.steps} env steps ({state})")
    return 0


def run_figure(args) -> int:
    from schedrl.papers.deeprm import figures

    if args.name not in figures.EXTRA_FIGURES:
        figures.figure_spec(args.name)  # one clear line for an unknown name
    getattr(figures, args.name)(_spec(args.spec), args.root, args.out)
    return 0


def run_claims(args) -> int:
    from schedrl.papers.deeprm.claims import claims_rows
    from schedrl.report.convergence import write_budget_table

    budget = [] if args.budget_out else None
    spec = _spec(args.spec)
    write_paper_claims(args.out, claims_rows(spec, args.root, budget=budget), "deeprm", spec)
    if args.budget_out:
        write_budget_table(args.budget_out, budget)
    return 0


def run_fingerprints(args) -> int:
    from schedrl.experiments.fingerprint import write_fingerprint_table
    from schedrl.papers.deeprm import layout as dl

    table = write_fingerprint_table(dl.fingerprint_files(_spec(args.spec), args.root), args.out)
    print(f"{args.out}: {len(table)} fingerprints")
    return 0


def run_cost(args) -> int:
    from schedrl.papers.deeprm import cost as dc
    from schedrl.report.budget import on_slower_kind

    spec = _spec(spec_text("deeprm", args.spec))
    c = dc.estimate_core_hours(spec)
    total = sum(c[k] for k in dc.COST_PARTS)
    print(f"~{total:.2f} core-hours: {c['runs']} SB3 runs, {c['steps'] / 1e6:.1f} M steps {c['sb3']:.2f}, "
          f"DeepRM agent ({c['pg_runs']} runs) {c['deeprm_agent']:.2f}, evaluation {c['evaluate']:.2f}, "
          f"rule start-up {c['startup']:.2f}, no-learning references ({c['reference_runs']} agents) "
          f"{c['references']:.2f}, report-protocol selection ({c['selection_checks']} checks) {c['selection']:.2f}; "
          + on_slower_kind(total, dc.SLOWER_MACHINE[1]))
    return 0


def run_table(args) -> int:
    from schedrl.papers.deeprm import figures

    draw = figures.training_speed if args.timing else figures.replay_insample if args.replay else figures.table_load130
    draw(_spec(args.spec), args.root, args.out)
    return 0
