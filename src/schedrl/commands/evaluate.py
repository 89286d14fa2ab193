"""``schedrl evaluate``: play a trained run folder's model for some episodes (generic)."""

from __future__ import annotations

from schedrl.experiments.envs import parse_pairs


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "evaluate",
        help="evaluate a trained run folder on fresh episodes",
        description="Load RUN_DIR/model.zip and its env from RUN_DIR/config.json (--env-kwarg overrides, "
        "e.g. another load), play --episodes episodes seeded SEED, SEED+1, ... and write one CSV row per "
        "episode: reward, length and the wrappers' episode metrics. Envs that cycle through seeded job sets "
        "(a 'jobset_seed' keyword, e.g. schedrl/DeepRM-v0) play one distinct job set per episode, seeded "
        "--jobset-seed, --jobset-seed+1, ... (column jobset_seed); seeds of the run's training job sets are "
        "refused, so the evaluation is held out.",
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
    import schedrl.envs  # noqa: F401  (registers schedrl/* ids recorded without a module prefix)
    from schedrl.errors import ConfigError
    from schedrl.experiments.evaluate import evaluate_run
    from schedrl.io import write_csv

    if args.episodes < 1:
        raise ConfigError(f"--episodes must be >= 1, got {args.episodes}")
    overrides = parse_pairs(args.env_kwarg)
    seeds = heldout_jobset_seeds(args.run_dir, overrides, args.episodes,
                                 args.seed if args.jobset_seed is None else args.jobset_seed)
    if seeds is None:
        frame = evaluate_run(args.run_dir, args.episodes, args.seed, overrides,
                             deterministic=not args.stochastic, threads=args.threads)
    else:
        # A seeded job-set cycle restarts at reset(seed=...): one env per held-out set instead.
        import pandas as pd

        frames = []
        for i, jobset_seed in enumerate(seeds):
            one = evaluate_run(args.run_dir, 1, args.seed + i, {**overrides, "jobset_seed": jobset_seed,
                                                                "num_jobsets": 1},
                               deterministic=not args.stochastic, threads=args.threads)
            frames.append(one.assign(episode=i, jobset_seed=jobset_seed))
        frame = pd.concat(frames, ignore_index=True)
        print(f"held-out job sets: seeds {seeds[0]}..{seeds[-1]}")
    write_csv(args.out, frame, float_format="%.6g")
    print(f"{args.out}: {len(frame)} episodes, mean reward {frame['reward'].mean():.3f}")
    return 0


def heldout_jobset_seeds(run_dir, overrides: dict, episodes: int, first: int) -> list[int] | None:
    """Job-set seeds ``first .. first + episodes - 1`` when the run's env has seeded job sets
    (keyword ``jobset_seed`` not None), else None; ConfigError if one is a training set's seed."""
    from pathlib import Path

    from schedrl.errors import ConfigError, InputFileError
    from schedrl.io import read_json

    path = Path(run_dir) / "config.json"
    if not path.exists():
        raise InputFileError(path, "missing (has the run been trained?)")
    train = read_json(path)["env_kwargs"]
    if train.get("jobset_seed") is None or ("jobset_seed" in overrides and overrides["jobset_seed"] is None):
        return None
    if "num_jobsets" in overrides:
        raise ConfigError("--env-kwarg num_jobsets: evaluation plays one job set per episode (see --jobset-seed)")
    if "jobset_seed" in overrides:
        first = int(overrides.pop("jobset_seed"))
    seeds = list(range(int(first), int(first) + episodes))
    t0, n = int(train["jobset_seed"]), int(train.get("num_jobsets", 1))
    # pcg64 sets are one seed each; legacy sets are pieces of the stream of one seed
    trained = {t0} if train.get("jobset_rng") == "legacy" else set(range(t0, t0 + n))
    rng_same = overrides.get("jobset_rng", train.get("jobset_rng")) == train.get("jobset_rng")
    clash = sorted(trained.intersection(seeds)) if rng_same else []
    if clash:
        raise ConfigError(f"job-set seeds {clash} are training job sets of this run (seeds {min(trained)}.."
                          f"{max(trained)}); choose --jobset-seed outside them")
    return seeds
