"""Training throughput of the REINFORCE agent (deeprm_pg) on the DeepRM env, against its own limits.

In one run, at DeepRM's sizes (discrete image, 10 slots, rate ``--rate``, ``--jobsets`` job sets x
``--trajectories`` episodes per iteration, DeepRM's hyperparameters, one torch thread), it measures
env steps per second of process CPU time for:

* ``sequential``: today's loop before batching, one trajectory after another, a forward pass per step;
* ``lockstep``: the trajectories of a job set stepped together, one batched forward pass per step;
* ``env only``: the same envs stepped with random valid actions, no agent at all (the ceiling any
  trainer on this env can reach on this core);
* ``null env``: lockstep training on an env of the same spaces that does no work (the trainer's
  own cost).

and prints the speed-up of lockstep over sequential (the issue's goal: >= 4x) and the env's share
of lockstep training time, ``1 - lockstep/null`` (goal <= 10%). Usage:

    OMP_NUM_THREADS=1 python benchmarks/bench_reinforce.py [--iterations 2] [--rate 0.7]
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

GOAL_SPEEDUP, GOAL_ENV_SHARE = 4.0, 0.10


def _train(make, cfg: ReinforceConfig, iterations: int, jobsets: int, lockstep: bool) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.process_time()
        result = train_reinforce(make, cfg, iterations, 0, tmp, examples=jobsets, lockstep=lockstep,
                                 checkpoint_every=10**6)
        return result.steps / (time.process_time() - t0)


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
    parser.add_argument("--iterations", type=int, default=2, help="training iterations per measurement")
    parser.add_argument("--jobsets", type=int, default=10, help="job sets per iteration (DeepRM: 10)")
    parser.add_argument("--trajectories", type=int, default=20, help="episodes per job set (DeepRM: 20)")
    parser.add_argument("--rate", type=float, default=0.7, help="job arrival rate of the env")
    args = parser.parse_args()
    spec = load_yaml(CONFIG)["deeprm"]  # the default config's DeepRM env (the agent's variant)
    spec["deeprm_agent"] = {**spec["deeprm_agent"], "jobsets": args.jobsets}
    make = lambda: gym.make(dx.ENV_ID, **dx.deeprm_agent_env_kwargs(spec, args.rate))  # noqa: E731
    cfg = ReinforceConfig.from_dict(load_hyperparams("deeprm_pg", "deeprm-discrete-image",
                                                     overrides={"trajectories": args.trajectories}))
    env = make()
    length = max(1, round(_env_only(make, 1, 2)[1] / 2))  # null episodes as long as ours
    rates = {
        "sequential": _train(make, cfg, args.iterations, args.jobsets, lockstep=False),
        "lockstep": _train(make, cfg, args.iterations, args.jobsets, lockstep=True),
        "env only": _env_only(make, args.jobsets, args.trajectories)[0],
        "null env": _train(lambda: NullEnv(env, length), cfg, args.iterations, args.jobsets, lockstep=True),
    }
    print(f"deeprm_pg on {dx.ENV_ID} (discrete image, 10 slots, rate {args.rate}), {args.jobsets} job sets x "
          f"{args.trajectories} trajectories, OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}")
    print(f"{'run':>12} {'env steps/s (CPU)':>18}")
    for name, rate in rates.items():
        print(f"{name:>12} {rate:18.0f}")
    speedup = rates["lockstep"] / rates["sequential"]
    share = max(0.0, 1 - rates["lockstep"] / rates["null env"])
    ceiling = rates["env only"] / rates["sequential"]
    print(f"lockstep / sequential = {speedup:.2f}x (goal >= {GOAL_SPEEDUP:g}x; the env alone allows at most "
          f"{ceiling:.2f}x)")
    print(f"env share of lockstep training = {share:.0%} (goal <= {GOAL_ENV_SHARE:.0%})")


if __name__ == "__main__":
    main()
