"""``schedrl evaluate``: play a trained run folder's model for some episodes (generic)."""

from __future__ import annotations

from schedrl.experiments.envs import parse_pairs


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "evaluate",
        help="evaluate a trained run folder on fresh episodes",
        description="Load RUN_DIR/model.zip and its env from RUN_DIR/config.json (--env-kwarg overrides, "
        "e.g. another load or held-out jobset seed), play --episodes episodes seeded SEED, SEED+1, ... "
        "and write one CSV row per episode: reward, length and the wrappers' episode metrics.",
    )
    p.add_argument("--run-dir", required=True, metavar="DIR", help="run folder written by 'schedrl train'")
    p.add_argument("--episodes", type=int, default=10, help="episodes to play (default: %(default)s)")
    p.add_argument("--seed", type=int, default=10_000, help="seed of the first episode (default: %(default)s)")
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
    frame = evaluate_run(args.run_dir, args.episodes, args.seed, parse_pairs(args.env_kwarg),
                         deterministic=not args.stochastic, threads=args.threads)
    write_csv(args.out, frame, float_format="%.6g")
    print(f"{args.out}: {len(frame)} episodes, mean reward {frame['reward'].mean():.3f}")
    return 0
