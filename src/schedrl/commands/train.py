"""``schedrl train``: train one SB3 agent into a run folder (generic over Gymnasium envs)."""

from __future__ import annotations

from schedrl.experiments.envs import parse_pairs


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "train",
        help="train an agent (SB3 DQN, A2C, PPO, TRPO, MaskablePPO; DeepRM REINFORCE) into a run folder",
        description="Train one agent on a Gymnasium env into RUN_DIR (config.json, hyperparams.yaml, "
        "command.txt, model.zip, checkpoints/, monitor/, learning_curve.csv, timing.json). "
        "Hyperparameters come from hyperparams/<algo>.yaml, block VARIANT merged over 'default', then "
        "--hp overrides. A rerun resumes from the newest checkpoint up to --steps (no flag needed) and "
        "writes the files the uninterrupted run would have; Ctrl-C or SIGTERM stops at the next "
        "rollout boundary with a checkpoint there. A finished run is left alone.",
    )
    p.add_argument("--env", required=True, metavar="ID",
                   help="Gymnasium env id, optionally 'module:id' (e.g. schedrl.envs:schedrl/DeepRM-v0)")
    p.add_argument("--env-config", metavar="YAML", help="YAML mapping of env keyword arguments")
    p.add_argument("--env-kwarg", action="append", metavar="KEY=VALUE",
                   help="env keyword argument (value read as YAML); repeatable, overrides --env-config")
    p.add_argument("--env-wrapper", action="append", default=[], metavar="MODULE:CLASS",
                   help="Gymnasium wrapper applied to each env copy; repeatable, innermost first")
    p.add_argument("--algo", required=True, help="dqn, a2c, ppo, trpo, maskable_ppo or deeprm_pg (REINFORCE; --steps counts iterations)")
    p.add_argument("--variant", help="key of the hyperparameter block (default: the 'default' block)")
    p.add_argument("--hyperparams-dir", metavar="DIR",
                   help="folder of <algo>.yaml files (default: the package's agents/hyperparams)")
    p.add_argument("--hp", action="append", metavar="KEY=VALUE",
                   help="hyperparameter override (value read as YAML); repeatable")
    p.add_argument("--steps", type=int, required=True, help="target number of env steps")
    p.add_argument("--stop-at", type=int, metavar="STEPS",
                   help="pause at the first rollout boundary at or past STEPS, with a checkpoint there and "
                   "no final model; the same command without it (or with a later STEPS) continues exactly "
                   "as if it had never paused (SB3 agents): a run in pieces, or successive halving's rungs")
    p.add_argument("--seed", type=int, required=True, help="seed of the agent and the envs")
    p.add_argument("--run-dir", required=True, metavar="DIR", help="run folder to write")
    p.add_argument("--checkpoint-every", type=int, metavar="STEPS", help="checkpoint interval (default: a tenth of --steps, so a killed run resumes)")
    p.add_argument("--keep-steps", metavar="N[,N...]", default="",
                   help="also keep the first checkpoint at or after each of these step counts (SB3 agents; "
                   "checkpoints for budget evaluations); the rest keep only the newest two")
    p.add_argument("--select-every", type=int, metavar="STEPS",
                   help="best-model selection (SB3 agents): every STEPS env steps play --select-episodes "
                   "episodes on the evaluation env and save best_model.zip when the mean return is >= the "
                   "best so far (a later check wins a tie); selection.csv lists every check. Part of the "
                   "run's identity; a resumed run continues the selection from its checkpoint")
    p.add_argument("--select-episodes", type=int, default=1, metavar="N",
                   help="episodes per selection check (default: %(default)s)")
    p.add_argument("--select-env-kwarg", action="append", metavar="KEY=VALUE",
                   help="env keyword argument of the selection's evaluation env over the training env's "
                   "(value read as YAML; repeatable), e.g. a fixed job sequence")
    p.add_argument("--select-deterministic", action="store_true",
                   help="selection checks play greedy actions (default: sampled, as Stable-Baselines' "
                   "predict() and the DeepRM SB3 report's check did; seeded from the run seed and step)")
    p.add_argument("--threads", type=int, default=1, help="torch threads (default: %(default)s)")
    p.add_argument("--device", default="cpu",
                   help="torch device of the network: cpu, cuda, cuda:N or auto (CUDA where there is "
                   "one) (default: %(default)s)")
    p.add_argument("--tensorboard", metavar="DIR",
                   help="also log training scalars for TensorBoard into DIR (needs the tensorboard extra: "
                   "pip install 'schedrl[tensorboard]')")
    p.add_argument("--restart-if-changed", action="store_true",
                   help="if RUN_DIR holds a run with another config, delete it and start afresh "
                   "(default: refuse)")
    p.set_defaults(func=run)


def run(args) -> int:
    import schedrl.envs  # noqa: F401  (registers schedrl/* ids, so '--env schedrl/DeepRM-v0' works)
    from schedrl.agents.device import check_device
    from schedrl.agents.hyperparams import load_hyperparams
    from schedrl.agents.registry import check_action_space
    from schedrl.agents.tensorboard import require_tensorboard
    from schedrl.config import load_yaml
    from schedrl.errors import ConfigError
    from schedrl.experiments.envs import make_env
    from schedrl.experiments.selection import check_selection_args
    from schedrl.experiments.train import train

    check_device(args.device)
    require_tensorboard(args.tensorboard)
    env_kwargs = {}
    if args.env_config:
        env_kwargs = load_yaml(args.env_config) or {}
        if not isinstance(env_kwargs, dict):
            raise ConfigError(f"{args.env_config}: expected a mapping of env keyword arguments")
    env_kwargs.update(parse_pairs(args.env_kwarg))
    selection = check_selection_args(args.select_every, args.select_episodes, args.select_env_kwarg,
                                     args.select_deterministic)
    hyperparams = load_hyperparams(args.algo, args.variant, args.hyperparams_dir, parse_pairs(args.hp, "--hp"))
    # build one env first: a bad id, env argument or action space stops here, before RUN_DIR is written
    env = make_env(args.env, env_kwargs, args.env_wrapper)
    env.close()
    check_action_space(args.algo, env.action_space)
    result = train(args.env, env_kwargs, args.algo, hyperparams, args.steps, args.seed, args.run_dir,
                   wrappers=args.env_wrapper, variant=args.variant,
                   checkpoint_every=args.checkpoint_every, threads=args.threads, device=args.device,
                   on_mismatch="restart" if args.restart_if_changed else "error", tensorboard=args.tensorboard,
                   keep_steps=_keep_steps(args.keep_steps), selection=selection, stop_at=args.stop_at)
    if result.paused:
        print(f"{result.run_dir}: paused at {result.steps} steps (--stop-at {args.stop_at}); "
              "rerun without --stop-at to continue")
    elif result.skipped:
        print(f"{result.run_dir}: already trained to {result.steps} steps")
    else:
        rate = result.steps_trained / result.wall_time_s if result.wall_time_s > 0 else float("nan")
        print(f"{result.run_dir}: {result.steps} steps (from {result.resumed_from}), "
              f"{result.wall_time_s:.1f} s, {rate:.0f} steps/s")
    return 0


def _keep_steps(text: str) -> list[int]:
    from schedrl.errors import ConfigError

    try:
        steps = [int(x) for x in str(text).split(",") if x.strip()]
    except ValueError:
        raise ConfigError(f"--keep-steps: '{text}' is not a comma-separated list of step counts") from None
    if any(n < 1 for n in steps):
        raise ConfigError(f"--keep-steps: step counts must be >= 1, got '{text}'")
    return steps
