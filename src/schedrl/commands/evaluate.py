"""``schedrl evaluate``: play a trained run folder's model for some episodes (generic)."""

from __future__ import annotations

from schedrl.experiments.envs import parse_pairs


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "evaluate",
        help="evaluate a trained run folder on fresh episodes",
        description="Load RUN_DIR/model.zip and its env from RUN_DIR/config.json (--env-kwarg overrides, "
        "e.g. another load), play --episodes episodes seeded SEED, SEED+1, ... and write one CSV row per "
        "episode: reward, length and the wrappers' episode metrics. Envs with seeded job sets (a "
        "'jobset_seed' keyword, set or by default, e.g. schedrl/DeepRM-v0) play one distinct job set per "
        "episode, seeded --jobset-seed, --jobset-seed+1, ... (column jobset_seed); seeds of the run's "
        "training job sets are refused, so the evaluation is held out. HPC envs play episodes of the job "
        "table they are given: the training table unless --env-kwarg jobs=HELD_OUT.swf, which is then "
        "in-sample (the output says so).",
    )
    p.add_argument("--run-dir", required=True, metavar="DIR", help="run folder written by 'schedrl train'")
    p.add_argument("--episodes", type=int, default=10, help="episodes to play (default: %(default)s)")
    p.add_argument("--seed", type=int, default=10_000, help="seed of the first episode (default: %(default)s)")
    p.add_argument("--jobset-seed", type=int, default=None, metavar="N",
                   help="first held-out job-set seed, for envs with seeded job sets (default: SEED)")
    p.add_argument("--env-kwarg", action="append", metavar="KEY=VALUE",
                   help="override an env keyword argument (value read as YAML); repeatable")
    p.add_argument("--stochastic", action="store_true", help="sample actions instead of the greedy action")
    p.add_argument("--threads", type=int, default=1, help="torch threads (default: %(default)s)")
    p.add_argument("--out", required=True, metavar="CSV", help="per-episode CSV to write")
    p.set_defaults(func=run)


def run(args) -> int:
    from pathlib import Path

    import schedrl.envs  # noqa: F401  (registers schedrl/* ids recorded without a module prefix)
    from schedrl.errors import ConfigError, InputFileError
    from schedrl.experiments.evaluate import env_keyword_values, evaluate_run
    from schedrl.io import read_json, write_csv

    if args.episodes < 1:
        raise ConfigError(f"--episodes must be >= 1, got {args.episodes}")
    overrides = parse_pairs(args.env_kwarg)
    path = Path(args.run_dir) / "config.json"
    if not path.exists():
        raise InputFileError(path, "missing (has the run been trained?)")
    config = read_json(path)
    # the env's defaults count: config.json holds only the keywords the user passed
    train = env_keyword_values(config["env_id"], config["env_kwargs"])
    seeds = heldout_jobset_seeds(train, overrides, args.episodes, args.jobset_seed, args.seed)
    frame = evaluate_run(args.run_dir, args.episodes, args.seed, overrides, deterministic=not args.stochastic,
                         threads=args.threads, jobset_seeds=seeds)
    write_csv(args.out, frame, float_format="%.6g")
    if seeds is not None:
        print(f"held-out job sets: seeds {seeds[0]}..{seeds[-1]}")
    elif "jobs" in train and overrides.get("jobs", train["jobs"]) == train["jobs"]:
        kw = {**train, **overrides}
        # reset(seed=...) restarts a sequential block cycle, so every episode replays block 0
        what = ("all" if kw.get("episode_jobs") is None else "the first block"
                if kw.get("episode_sampling") == "sequential" else "a random block")
        print(f"note: in-sample: every episode plays {what} of the training job table (jobs={train['jobs']}); "
              "pass --env-kwarg jobs=HELD_OUT.swf to hold it out")
    print(f"{args.out}: {len(frame)} episodes, mean reward {frame['reward'].mean():.3f}")
    return 0


def heldout_jobset_seeds(train: dict, overrides: dict, episodes: int, first: int | None,
                         seed: int) -> list[int] | None:
    """Job-set seeds ``first .. first + episodes - 1`` (``first`` None: ``seed``, or the
    ``jobset_seed`` override) when the env has seeded job sets (a ``jobset_seed`` keyword in
    ``train``, the run's effective env kwargs), else None. ConfigError where the evaluation would
    not be held out. Pops ``jobset_seed`` from ``overrides``."""
    from schedrl.errors import ConfigError

    if "jobset_seed" not in train:
        if first is not None:
            raise ConfigError("--jobset-seed: this env has no seeded job sets")
        return None
    if "num_jobsets" in overrides:
        raise ConfigError("--env-kwarg num_jobsets: evaluation plays one job set per episode (see --jobset-seed)")
    if "jobset_seed" in overrides:
        if first is not None:
            raise ConfigError("give --jobset-seed or --env-kwarg jobset_seed, not both")
        first = overrides.pop("jobset_seed")
        if first is None:  # fresh draws at reset(seed=S) are the seeded set S: name them instead
            raise ConfigError("--env-kwarg jobset_seed=null: evaluation plays seeded held-out job sets; "
                              "choose them with --jobset-seed")
    first = seed if first is None else first
    if isinstance(first, bool) or not isinstance(first, int):
        raise ConfigError(f"jobset_seed {first!r}: expected an integer")
    seeds = list(range(first, first + episodes))
    if train["jobset_seed"] is None:  # trained on fresh draws, not on a fixed cycle
        return seeds
    t0, n = int(train["jobset_seed"]), int(train.get("num_jobsets", 1))
    # pcg64 sets are one seed each; legacy sets are pieces of the stream of one seed
    trained = {t0} if train.get("jobset_rng") == "legacy" else set(range(t0, t0 + n))
    clash = sorted(trained.intersection(seeds)) if overrides.get("jobset_rng", train.get("jobset_rng")) == \
        train.get("jobset_rng") else []
    if clash:
        raise ConfigError(f"job-set seeds {clash[0]}..{clash[-1]} are training job sets of this run "
                          f"(seeds {min(trained)}..{max(trained)}); choose --jobset-seed outside them")
    return seeds
