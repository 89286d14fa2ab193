"""Where does training time go? Each trainer on our env and on a null env of the same spaces.

For every SB3 algorithm (with the hyperparameters of ``schedrl/agents/hyperparams`` for a DeepRM
variant) it trains for ``--steps`` env steps twice in one run: on ``schedrl/DeepRM-v0`` and on
``NullEnv``, an env with the same observation and action spaces that returns a constant
observation (so the trainer's own cost is all that is left). ``--sb3-own`` also trains with SB3's own
MlpPolicy (MaskablePPO's own) and torch's RMSprop in place of ``LeanMlpPolicy`` (``LeanMaskablePolicy``) and the exact-root RMSprop (the same
numbers: tests/test_lean_policy.py) and prints the speed-up. It prints env steps per second of
process CPU time for both and the env's share of training time, ``1 - ours/null``, with the
issue's goal (the env costs <= 10%). ``--n-envs`` compares vectorised rollouts (DummyVecEnv) with
n_envs = 1 at equal sample budgets; ``--profile`` prints the top of a cProfile of the slowest run.

    OMP_NUM_THREADS=1 python benchmarks/bench_trainers.py [--steps 4000] [--algos a2c ppo] [--n-envs 1 8]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import time

from nullenv import NullEnv  # benchmarks/nullenv.py (the script folder is on sys.path)

from schedrl.agents import load_hyperparams
from schedrl.agents.hyperparams import resolve_hyperparams
from schedrl.agents.registry import algo_class
from schedrl.experiments.envs import make_env
from schedrl.experiments.envs import parse_pairs as parse_hp
from schedrl.papers.deeprm import layout as dl
from schedrl.papers.deeprm import training as dt

SPEC = {"env": {}, "train": {"rate": 0.7, "jobset_seed": 0, "num_jobsets": 10},
        "variants": {"discrete-image": {"env": {"num_nw": 10}}, "multibinary-image": {"env": {"num_nw": 5}},
                     "discrete-stacked": {"env": {"num_nw": 5}}}}
GOAL_ENV_SHARE = 0.10


def _rate(algo: str, hp: dict, make, steps: int, n_envs: int, profile: bool = False, sb3_own: bool = False):
    import torch
    from stable_baselines3.common.vec_env import DummyVecEnv

    policy, _, kwargs = resolve_hyperparams(algo, hp)
    if sb3_own:  # SB3's MlpPolicy and torch's RMSprop: what schedrl.agents.lean_policy / rmsprop replace
        policy = hp.get("policy", "MlpPolicy")
        if kwargs["policy_kwargs"].get("optimizer_class").__name__ == "RMSprop":
            kwargs["policy_kwargs"]["optimizer_class"] = torch.optim.RMSprop
    env = DummyVecEnv([make for _ in range(n_envs)])
    model = algo_class(algo)(policy, env, seed=0, device="cpu", verbose=0, **kwargs)
    prof = cProfile.Profile() if profile else None
    t0 = time.process_time()
    if prof:
        prof.enable()
    model.learn(steps)
    if prof:
        prof.disable()
    rate = steps / (time.process_time() - t0)
    env.close()
    return rate, prof


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=4000, help="env steps per measurement")
    parser.add_argument("--algos", nargs="+", default=["a2c", "ppo", "dqn", "trpo", "deeprm_pg"])
    parser.add_argument("--variants", nargs="+", default=["discrete-image"])
    parser.add_argument("--n-envs", type=int, nargs="+", default=[1], help="vectorised env counts to compare")
    parser.add_argument("--hp", action="append", default=[], metavar="KEY=VALUE",
                        help="hyperparameter over the variant's (as schedrl train --hp; e.g. n_steps=64 for the "
                        "deeprm tuned recipe's rollouts); repeatable")
    parser.add_argument("--profile", action="store_true", help="profile the slowest run on our env")
    parser.add_argument("--sb3-own", action="store_true",
                        help="also train with SB3's MlpPolicy and torch's RMSprop and print our speed-up")
    args = parser.parse_args()
    import torch

    torch.set_num_threads(1)
    print(f"{'variant':18s} {'algo':5s} {'n_envs':>6s} {'ours steps/s':>12s} {'null steps/s':>12s} "
          f"{'env share':>9s} {'goal':>6s} {'vs n_envs=1':>11s}" + (f" {'SB3 own':>8s} {'ours/own':>8s}"
                                                                   if args.sb3_own else ""))
    slowest = None
    for variant in args.variants:
        kwargs = dt.env_kwargs(SPEC, variant, "slowdown")
        for algo in args.algos:
            if algo == "dqn" and variant.startswith("multibinary"):
                continue
            if algo == "deeprm_pg":  # our REINFORCE: its own loop, measured by bench_reinforce.py
                print(f"{variant:18s} {algo:9s} see benchmarks/bench_reinforce.py (lockstep vs sequential vs "
                      "env-only vs null env)")
                continue
            hp = load_hyperparams(algo, dt.hyperparams_variant(variant))
            hp.update(parse_hp(args.hp, "--hp"))
            base = None
            for n in args.n_envs:
                ours, _ = _rate(algo, hp, lambda kw=kwargs: make_env(dl.ENV_ID, kw), args.steps, n)
                null, _ = _rate(algo, hp, lambda kw=kwargs: NullEnv(make_env(dl.ENV_ID, kw)), args.steps, n)
                share = max(0.0, 1 - ours / null)
                base = base or ours
                own = ""
                if args.sb3_own:
                    rate, _ = _rate(algo, hp, lambda kw=kwargs: make_env(dl.ENV_ID, kw), args.steps, n, sb3_own=True)
                    own = f" {rate:8.0f} {ours / rate:7.2f}x"
                print(f"{variant:18s} {algo:5s} {n:6d} {ours:12.0f} {null:12.0f} {share:9.1%} "
                      f"{'met' if share <= GOAL_ENV_SHARE else 'missed':>6s} {ours / base:10.2f}x{own}", flush=True)
                if slowest is None or ours < slowest[0]:
                    slowest = (ours, algo, hp, kwargs, n)
    if args.profile and slowest:
        _, algo, hp, kwargs, n = slowest
        _, prof = _rate(algo, hp, lambda kw=kwargs: make_env(dl.ENV_ID, kw), args.steps, n, profile=True)
        out = io.StringIO()
        pstats.Stats(prof, stream=out).sort_stats("cumulative").print_stats(18)
        print(f"\nprofile of the slowest run ({algo}, n_envs {n}), by cumulative time:")
        print("\n".join(out.getvalue().splitlines()[:45]))


if __name__ == "__main__":
    main()
