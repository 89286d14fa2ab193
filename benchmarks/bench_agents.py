"""Training and evaluation throughput of the SB3 agents on the DeepRM env (env steps per second).

For each (variant, algorithm) it trains a fresh agent for ``--steps`` env steps with the
hyperparameters of ``schedrl/agents/hyperparams`` (one torch thread) and then plays the greedy
policy for ``--steps`` steps. Rates are per second of process CPU time, so other work on a shared
machine does not count. This is what sizes the ``deeprm.train.steps`` budget of each scale. Usage:

    OMP_NUM_THREADS=1 python benchmarks/bench_agents.py [--steps 3000] [--algos a2c ppo dqn trpo]
"""

from __future__ import annotations

import argparse
import tempfile
import time

from schedrl.agents import load_hyperparams
from schedrl.experiments.envs import make_env
from schedrl.experiments.evaluate import load_run, run_policy_fn
from schedrl.experiments.train import train
from schedrl.papers.deeprm import layout as dl
from schedrl.papers.deeprm import training as dt

SPEC = {"env": {}, "train": {"rate": 0.7, "jobset_seed": 0, "num_jobsets": 10},
        "variants": {"discrete-image": {"env": {"num_nw": 10}}, "discrete-stacked": {"env": {"num_nw": 5}},
                     "multibinary-image": {"env": {"num_nw": 5}}}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=3000)
    parser.add_argument("--algos", nargs="+", default=["a2c", "ppo", "dqn", "trpo"])
    parser.add_argument("--variants", nargs="+", default=list(SPEC["variants"]))
    args = parser.parse_args()
    print(f"{'variant':20s} {'algo':6s} {'train steps/s':>14s} {'eval steps/s':>13s}")
    for variant in args.variants:
        kwargs = dt.env_kwargs(SPEC, variant, "slowdown")
        for algo in args.algos:
            if algo == "dqn" and variant.startswith("multibinary"):
                continue  # DQN has no multi-binary actions
            with tempfile.TemporaryDirectory() as tmp:
                hp = load_hyperparams(algo, dt.hyperparams_variant(variant))
                t0 = time.process_time()
                result = train(dl.ENV_ID, kwargs, algo, hp, args.steps, 0, tmp, wrappers=dl.WRAPPERS)
                train_rate = result.steps_trained / (time.process_time() - t0)
                model, config = load_run(tmp)
                policy = run_policy_fn(model, config)
                env = make_env(dl.ENV_ID, kwargs)
                obs, _ = env.reset(seed=0)
                t0 = time.process_time()
                for _ in range(args.steps):
                    obs, _, terminated, truncated, _ = env.step(policy(obs, env))
                    if terminated or truncated:
                        obs, _ = env.reset()
                eval_rate = args.steps / (time.process_time() - t0)
            print(f"{variant:20s} {algo:6s} {train_rate:14.0f} {eval_rate:13.0f}", flush=True)


if __name__ == "__main__":
    main()
