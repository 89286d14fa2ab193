"""Training throughput of the REINFORCE agent (deeprm_pg) on the DeepRM env, against its own limits.

In one run, at DeepRM's sizes (discrete image, 10 slots, rate ``--rate``, ``--jobsets`` job sets x
``--trajectories`` episodes per iteration, DeepRM's hyperparameters, one torch thread), it measures
env steps per second of process CPU time, in steady state (after a first, untimed iteration that
builds the envs and sizes the buffers), for:

* ``sequential`` (with ``--sequential``): one trajectory after another, a forward pass per step;
* ``lockstep``: the trajectories of one job set stepped together, one batched forward pass per
  step, job sets one after another (the trainer before issue 26);
* ``batched``: every trajectory of every job set of an update (10 x 20 = 200 envs) stepped
  together, observations written into one preallocated array, one forward pass per step (today's
  default);
* ``env only``: the same envs stepped with random valid actions, no agent at all (the ceiling any
  trainer on this env can reach on this core);
* ``null env``: batched training on an env of the same spaces that does no work (the trainer's
  own cost).

and prints batched / lockstep, the env's share of batched training time ``1 - batched/null``, and
the CPU time DeepRM's 1,000 iterations would take at the batched rate (goal: <= 10 CPU-minutes,
i.e. >= 68 k env steps per CPU-second at rate 0.7). Usage:

    OMP_NUM_THREADS=1 python benchmarks/bench_reinforce.py [--iterations 3] [--rate 0.7]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import gymnasium as gym
import numpy as np
from nullenv import NullEnv  # benchmarks/nullenv.py (the script folder is on sys.path)

from schedrl.agents.hyperparams import load_hyperparams
from schedrl.agents.reinforce import ReinforceConfig, train_reinforce
from schedrl.config import load_yaml
from schedrl.papers.deeprm import experiments as dx

CONFIG = Path(__file__).resolve().parents[1] / "config" / "config.yaml"

GOAL_RATE = 68_000  # env steps per CPU-second: 1,000 iterations in <= 10 CPU-minutes (issue 26)
STEPS_PER_ITERATION = 32_818  # env steps of one iteration at rate 0.7 (10 x 20 episodes; measured, seed 0)


def _train(make, cfg: ReinforceConfig, iterations: int, jobsets: int, lockstep: bool = True,
           batch_examples: bool = True) -> float:
    """Env steps per CPU-second over iterations 2..``iterations`` (the first builds the envs)."""
    marks = {}

    def on_iteration(it, rows):
        marks[it] = (time.process_time(), rows[-1]["timesteps"])

    with tempfile.TemporaryDirectory() as tmp:
        train_reinforce(make, cfg, iterations, 0, tmp, examples=jobsets, lockstep=lockstep,
                        batch_examples=batch_examples, checkpoint_every=10**6, on_iteration=on_iteration)
    (t0, s0), (t1, s1) = marks[1], marks[iterations]
    return (s1 - s0) / (t1 - t0)


def _env_only(make, jobsets: int, trajectories: int) -> tuple[float, int]:
    env, steps = make(), 0
    draws = iter(np.random.default_rng(0).random(10**7))  # cheap draws: the env's cost is measured
    t0 = time.process_time()
    for k in range(jobsets):
        for _ in range(trajectories):
            _, info = env.reset(options={"jobset": k})
            done = False
            while not done:
                valid = np.flatnonzero(info["action_mask"])
                _, _, term, trunc, info = env.step(int(valid[int(next(draws) * len(valid))]))
                done, steps = term or trunc, steps + 1
    return steps / (time.process_time() - t0), steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=3, help="training iterations per measurement (>= 2; "
                        "the first is not timed)")
    parser.add_argument("--jobsets", type=int, default=10, help="job sets per iteration (DeepRM: 10)")
    parser.add_argument("--trajectories", type=int, default=20, help="episodes per job set (DeepRM: 20)")
    parser.add_argument("--rate", type=float, default=0.7, help="job arrival rate of the env")
    parser.add_argument("--sequential", action="store_true", help="also time one trajectory at a time (slow)")
    args = parser.parse_args()
    if args.iterations < 2:
        parser.error("--iterations must be >= 2 (the first iteration is not timed)")
    spec = load_yaml(CONFIG)["deeprm"]  # the default config's DeepRM env (the agent's variant)
    spec["deeprm_agent"] = {**spec["deeprm_agent"], "jobsets": args.jobsets}
    make = lambda: gym.make(dx.ENV_ID, **dx.deeprm_agent_env_kwargs(spec, args.rate))  # noqa: E731
    cfg = ReinforceConfig.from_dict(load_hyperparams("deeprm_pg", "deeprm-discrete-image",
                                                     overrides={"trajectories": args.trajectories}))
    env = make()
    length = max(1, round(_env_only(make, 1, 2)[1] / 2))  # null episodes as long as ours
    rates = {}
    if args.sequential:
        rates["sequential"] = _train(make, cfg, args.iterations, args.jobsets, lockstep=False)
    rates["lockstep"] = _train(make, cfg, args.iterations, args.jobsets, batch_examples=False)
    rates["batched"] = _train(make, cfg, args.iterations, args.jobsets)
    rates["env only"] = _env_only(make, args.jobsets, args.trajectories)[0]
    rates["null env"] = _train(lambda: NullEnv(env, length), cfg, args.iterations, args.jobsets)
    print(f"deeprm_pg on {dx.ENV_ID} (discrete image, 10 slots, rate {args.rate}), {args.jobsets} job sets x "
          f"{args.trajectories} trajectories, OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}")
    print(f"{'run':>12} {'env steps/s (CPU)':>18}")
    for name, rate in rates.items():
        print(f"{name:>12} {rate:18.0f}")
    share = max(0.0, 1 - rates["batched"] / rates["null env"])
    print(f"batched / lockstep = {rates['batched'] / rates['lockstep']:.2f}x (the env alone allows at most "
          f"{rates['env only'] / rates['lockstep']:.2f}x)")
    print(f"env share of batched training = {share:.0%}")
    steps = STEPS_PER_ITERATION * 1000
    print(f"DeepRM's 1,000 iterations at rate 0.7 (~{steps / 1e6:.0f} M env steps): "
          f"{steps / rates['batched'] / 60:.1f} CPU-minutes at the batched rate (goal <= 10, "
          f">= {GOAL_RATE / 1000:.0f} k steps/s), {steps / rates['lockstep'] / 60:.1f} at the lockstep rate")


if __name__ == "__main__":
    main()
