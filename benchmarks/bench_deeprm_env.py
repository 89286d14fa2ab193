"""Steps per second of the DeepRM env under random actions (goal: >= 40,000 for the image env).

Setting of the brief: W = 10 slots, H = 20, res_slot 10 ("10 processors"), DeepRM's other
defaults. Actions are drawn up front (so the sampler is not timed); the env is stepped directly
(``env.unwrapped``) and through ``gymnasium.make``'s default wrappers. Rates are per second of
process CPU time (best of ``--repeats``), so other work on a shared machine does not count. Usage:

    OMP_NUM_THREADS=1 python benchmarks/bench_deeprm_env.py [--steps 200000]
"""

from __future__ import annotations

import argparse
import time

import gymnasium as gym
import numpy as np

import schedrl.envs  # noqa: F401  (registers the env)


def bench(env, actions, repeats: int = 1) -> float:
    best = 0.0
    for _ in range(repeats):
        env.reset(seed=0)
        t0 = time.process_time()
        for a in actions:
            _, _, terminated, truncated, _ = env.step(a)
            if terminated or truncated:
                env.reset()
        best = max(best, len(actions) / (time.process_time() - t0))
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    rows = []
    cases = [(o, a, {}) for o in ("image", "stacked") for a in ("discrete", "multibinary")]
    # the mdp paper's compact, event-based MDP (one resource, sched-rl-gym's placement "now")
    cases.append(("compact", "discrete", dict(num_res=1, placement="now", transitions="sparse",
                                              workload="cunha", new_job_rate=0.3)))
    for obs_mode, action_mode, extra in cases:
        kwargs = dict(obs_mode=obs_mode, action_mode=action_mode, num_nw=10, time_horizon=20, res_slot=10,
                      **extra)
        wrapped = gym.make("schedrl/DeepRM-v0", **kwargs)
        if action_mode == "discrete":
            actions = rng.integers(0, 11, args.steps).tolist()
        else:
            actions = list(rng.integers(0, 2, (args.steps, 10), dtype=np.int8))
        bench(wrapped.unwrapped, actions[:2000])  # warm up numba and caches
        raw = bench(wrapped.unwrapped, actions, args.repeats)
        made = bench(wrapped, actions, args.repeats)
        label = obs_mode + ("+sparse" if extra else "")
        rows.append((label, action_mode, raw, made))
    print(f"{'obs':15} {'action':12} {'steps/s (env)':>14} {'steps/s (gym.make)':>19}   (per CPU second)")
    for obs_mode, action_mode, raw, made in rows:
        print(f"{obs_mode:15} {action_mode:12} {raw:14,.0f} {made:19,.0f}")


if __name__ == "__main__":
    main()
