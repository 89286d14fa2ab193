"""``schedrl sem``: the SEM encoding paper's steps (trace analysis of running jobs, K-largest
coverage, its figures and claims), like ``schedrl deeprm``, ``schedrl mdp`` and ``schedrl runtime``.

Steps (the work is in ``schedrl.papers.sem``):

* ``trace`` - analyse one cleaned trace (``results/workloads/traces/<key>.swf``: a real log or its
  announced stand-in) into ``summary.json``, ``running_cdf.csv``, ``k_largest.csv`` and
  ``running_steps.csv`` (``--steps``) in ``--out-dir``.
* ``figures`` - Fig. 5, Table 2, Table 3, Fig. 7 of sem-encoding.txt and its claims table from
  several ``trace`` folders.
* ``train`` - train one DRAS- or SEM-encoded agent on a trace's SEM split, validating after each
  episode, and test it (``schedrl.papers.sem.agents.train_agent``).
* ``reference`` - a no-learning reference (uniform random valid play, or the untrained network of
  the run's seed) played on the test part as ``train`` tests its agent (issue 41).
* ``heuristics`` - FCFS + EASY and SJF + EASY on a split's test part (Fig. 9's reference points).
* ``scaling`` - one point of Fig. 11: train and infer on the same jobs on a machine f times larger.
* ``agent-figures`` - Table 4, Figs. 8-11 and the claims table (the trace analysis's claims first).
"""

from __future__ import annotations

from pathlib import Path

from schedrl.errors import ConfigError, SchedrlError
from schedrl.papers.sem.agents import ENCODERS, REFERENCES
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

    def agent_options(a):
        a.add_argument("--split-dir", required=True, metavar="DIR",
                       help="a SEM split (train.swf, val.swf, test.swf, split.json: 'schedrl workload split')")
        a.add_argument("--trace", required=True, help="trace key (e.g. theta)")
        a.add_argument("--encoder", required=True, choices=ENCODERS, help="state encoding")
        a.add_argument("--nodes", type=int, required=True, help="machine size")
        a.add_argument("--k", type=int, required=True, help="SEM's K (largest running jobs encoded)")
        a.add_argument("--reward", required=True, help="reward name (dras_theta, neg_slowdown, neg_inv_runtime)")
        a.add_argument("--reward-kwargs", default="{}", metavar="JSON",
                       help="the reward's parameters as a JSON mapping, e.g. '{\"wait_floor\": 0}' for "
                       "dras_theta's t_i / t_max (default {}: DRAS's code, t_i / max(t_max, 6 h))")
        a.add_argument("--hidden", type=int, nargs="+", required=True, help="dense layer widths (Table 4)")
        a.add_argument("--hyperparams", default="{}", metavar="JSON",
                       help="REINFORCE hyperparameters as a JSON mapping (discount, learning_rate, ...)")
        a.add_argument("--priority-queues", type=int, nargs="*", default=[], metavar="Q",
                       help="SWF queue numbers whose jobs get the priority flag 1 (default: none, flag 0)")
        a.add_argument("--seed", type=int, default=0)
        a.add_argument("--process", default="hold",
                       help="the env's decision process: hold (ours, default) or dras (DRAS's code: the queue head "
                       "reserved, backfilled jobs chosen by the agent); see schedrl.envs.pick_reserve")
        a.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
        a.add_argument("--out-dir", required=True, metavar="DIR")

    tr = sub.add_parser("train", help="train, validate per episode and test one agent",
                        description="REINFORCE with Table 4's network on the pick-and-reserve env: one "
                        "training block per episode, greedy validation after each, greedy test at the end.")
    agent_options(tr)
    tr.add_argument("--episodes", type=int, default=0, help="training episodes (0: the split's)")
    tr.add_argument("--episode-jobs", type=int, default=0, metavar="N",
                    help="jobs per training episode, blocks over the same training part (0: the split's; "
                    "beyond the paper, e.g. a tuned recipe's)")
    tr.add_argument("--play-seeds", type=int, nargs="*", default=[], metavar="S",
                    help="also test with sampled play (actions drawn from the policy), one pass per seed "
                    "(test_sampled.csv; default none)")
    tr.add_argument("--validation", default="split",
                    help="validation jobs: split (the split's part, default) or test_like (the block before the "
                    "test part whose offered load is closest to the test's)")
    tr.set_defaults(func=run_train)

    rf = sub.add_parser("reference", help="play a no-learning reference agent on the test part",
                        description="Play uniform random valid picks, or the untrained network built with --seed as "
                        "training builds it, greedily on a split's test part; writes test.json, test_jobs.csv and "
                        "fingerprint.json like 'train'.")
    agent_options(rf)
    rf.add_argument("--agent", required=True, choices=REFERENCES, help="which reference")
    rf.set_defaults(func=run_reference)

    h = sub.add_parser("heuristics", help="FCFS+EASY and SJF+EASY on a split's test part",
                       description="Schedule a SEM split's test part with FCFS and SJF, both with EASY backfilling.")
    h.add_argument("--split-dir", required=True, metavar="DIR")
    h.add_argument("--nodes", type=int, required=True)
    h.add_argument("--out", required=True, metavar="CSV")
    h.set_defaults(func=run_heuristics)

    sc = sub.add_parser("scaling", help="one Fig. 11 point: time on a machine f times larger",
                        description="Train one episode on --jobs jobs and infer on the next --jobs, with the "
                        "machine and every job's size scaled by --factor.")
    agent_options(sc)
    sc.add_argument("--factor", type=int, required=True, help="machine size factor (1, 2, 4, 8)")
    sc.add_argument("--jobs", type=int, default=1000, help="jobs for training and for inference (default 1000)")
    sc.set_defaults(func=run_scaling)

    w = sub.add_parser("window", help="one Fig. 6 point: DRAS training time with a window of W jobs",
                       description="Train one episode on --jobs jobs of the training part, their arrivals "
                       "--density times denser, with a window of --window jobs.")
    agent_options(w)
    w.add_argument("--window", type=int, required=True, help="window W (jobs the agent sees and picks from)")
    w.add_argument("--jobs", type=int, default=1000, help="training jobs (default 1000)")
    w.add_argument("--density", type=float, default=1.0, help="arrival rate factor (default 1: as logged)")
    w.set_defaults(func=run_window)

    af = sub.add_parser("agent-figures", help="Table 4, Figs. 8-11 and the claims table",
                        description="Draw SEM's agent table and figures from 'train', 'heuristics' and "
                        "'scaling' outputs and write the paper's claims table.")
    af.add_argument("--agents-dir", required=True, metavar="DIR", help="results/sem/agents")
    af.add_argument("--traces", nargs="*", default=[], help="trace keys with agent folders")
    af.add_argument("--networks", required=True, metavar="JSON",
                    help="per trace: {nodes, k, hidden: {sem: [...], dras: [...]}} (Table 4)")
    af.add_argument("--scaling", nargs="*", default=[], metavar="DIR", help="scaling folders")
    af.add_argument("--windows", nargs="*", default=[], metavar="DIR", help="window-study folders (Fig. 6)")
    af.add_argument("--trace-claims", metavar="CSV", help="the trace analysis's claims (listed first)")
    af.add_argument("--tolerance", type=float, default=0.05, help="convergence rule: relative band (0.05)")
    af.add_argument("--window", type=int, default=10, help="convergence rule: plateau = mean of the last N")
    af.add_argument("--saturation", type=float, default=0.99,
                    help="a settled curve whose policy's median top probability is at least this is saturated, "
                         "not converged (0.99)")
    af.add_argument("--figures-dir", required=True, metavar="DIR")
    af.add_argument("--claims", required=True, metavar="CSV")
    af.add_argument("--fingerprints", metavar="CSV", help="also write every agent's fingerprint here (one row each)")
    af.set_defaults(func=run_agent_figures)


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


def _json_arg(text: str, what: str):
    import json

    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{what}: not valid JSON ({exc.msg})") from None


def _spec(args):
    from schedrl.papers.sem.agents import AgentSpec

    hp = _json_arg(args.hyperparams, "--hyperparams")
    if not isinstance(hp, dict):
        raise ConfigError("--hyperparams: expected a JSON mapping")
    rk = _json_arg(args.reward_kwargs, "--reward-kwargs")
    if not isinstance(rk, dict):
        raise ConfigError("--reward-kwargs: expected a JSON mapping")
    if args.threads < 1 or any(h < 1 for h in args.hidden):
        raise ConfigError("--threads and --hidden widths must be positive")
    return AgentSpec(trace=args.trace, encoder=args.encoder, nodes=args.nodes, k=args.k, hidden=list(args.hidden),
                     reward=args.reward, reward_kwargs=rk, hyperparams=hp, seed=args.seed, threads=args.threads,
                     priority_queues=tuple(sorted(set(args.priority_queues))), process=args.process)


def _split_dir(path) -> Path:
    from schedrl.errors import InputFileError

    for name in ("train.swf", "val.swf", "test.swf", "split.json"):
        if not (Path(path) / name).is_file():
            raise InputFileError(Path(path) / name, "missing (the workload_sem_split rule writes it)")
    return Path(path)


def run_train(args) -> int:
    from schedrl.papers.sem.agents import train_agent

    if args.episodes < 0 or args.episode_jobs < 0:
        raise ConfigError("--episodes and --episode-jobs must be >= 0")
    train_agent(_split_dir(args.split_dir), _spec(args), args.out_dir, episodes=args.episodes or None,
                play_seeds=args.play_seeds, validation=args.validation, episode_jobs=args.episode_jobs or None)
    return 0


def run_reference(args) -> int:
    from schedrl.papers.sem.agents import reference_agent

    reference_agent(_split_dir(args.split_dir), _spec(args), args.agent, args.out_dir)
    return 0


def run_heuristics(args) -> int:
    from schedrl.papers.sem.agents import heuristics

    if args.nodes < 1:
        raise ConfigError("--nodes must be positive")
    heuristics(_split_dir(args.split_dir), args.nodes, args.out)
    return 0


def run_scaling(args) -> int:
    from schedrl.papers.sem.agents import scaling_run

    scaling_run(_split_dir(args.split_dir), _spec(args), args.factor, args.jobs, args.out_dir)
    return 0


def run_window(args) -> int:
    from schedrl.papers.sem.agents import window_run

    if args.window < 1 or args.jobs < 1 or args.density <= 0:
        raise ConfigError("--window and --jobs must be positive, --density > 0")
    window_run(_split_dir(args.split_dir), _spec(args), args.window, args.jobs, args.density, args.out_dir)
    return 0


def run_agent_figures(args) -> int:
    from schedrl.papers.sem.figures import agent_figures

    networks = _json_arg(args.networks, "--networks")
    if args.trace_claims and not Path(args.trace_claims).is_file():
        raise SchedrlError(f"{args.trace_claims}: no such claims file")
    agent_figures(args.agents_dir, args.traces, networks, args.scaling, args.figures_dir, args.claims,
                  args.trace_claims, {"tolerance": args.tolerance, "window": args.window,
                                                          "saturation": args.saturation},
                  windows=args.windows, fingerprints=args.fingerprints)
    return 0
