"""Steps per second of the HPC envs (pick-and-reserve, time-stepped) under random valid actions, plus a profile of the hot path.

Cases (the papers' machines):

* pick-and-reserve, SEM encoder (268 inputs) and DRAS encoder (8,920 inputs) on Theta (4,360 nodes),
  window 50, K 34, ``theta_like`` Lublin workload (128-node minimum), SEM's 600-job episodes;
* time-stepped, baseline and proposal encoders on 256 nodes, N_jobs 100, Sim_Step 60 s with idle
  doubling, the ``wl2`` workload (1000 jobs, Max_Episode_Steps 10,000).

Actions are drawn uniformly from the valid ones (``action_masks()``), with the sampler's time
included (an agent pays for its masks too). Rates are per second of process CPU time, best of
``--repeats``. ``--profile`` prints the top functions of cProfile for the SEM and DRAS cases.

    OMP_NUM_THREADS=1 python benchmarks/bench_hpc_env.py [--steps 5000] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import time

import numpy as np

from schedrl.envs import make_hpc_env
from schedrl.envs.hpc import HPCEnv
from schedrl.workloads.lublin import generate


def run(env: HPCEnv, steps: int, seed: int = 0) -> tuple[float, int]:
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    episodes = 0
    t0 = time.process_time()
    for _ in range(steps):
        valid = np.flatnonzero(env.action_masks())
        _, _, terminated, truncated, _ = env.step(int(valid[rng.integers(len(valid))]))
        if terminated or truncated:
            episodes += 1
            env.reset()
    return steps / (time.process_time() - t0), episodes


def cases():
    theta = generate("theta_like", n_jobs=6000, seed=0)
    wl2 = generate("wl2", n_jobs=1000, seed=0)
    dras = dict(jobs=theta, cluster=4360, decision="pick_reserve", window=50, k=34, episode_jobs=600, reward="dras_theta")
    runtime = dict(jobs=wl2, cluster=256, decision="time_stepped", window=100, reward="runtime_final", sim_step=60.0,
                   max_steps=10_000)
    return [
        ("pick-reserve, sem, Theta 4,360 nodes", dict(dras, encoder="sem")),
        ("pick-reserve, dras, Theta 4,360 nodes", dict(dras, encoder="dras")),
        ("time-stepped, baseline, 256 nodes", dict(runtime, encoder="runtime_baseline")),
        ("time-stepped, proposal, 256 nodes", dict(runtime, encoder="runtime_proposal")),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=5000)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    rows = []
    for label, kwargs in cases():
        env = make_hpc_env(**kwargs)
        obs_size = env.observation_space.shape[0]
        run(env, 200)  # warm up
        best, eps = 0.0, 0
        for _ in range(args.repeats):
            rate, eps = run(env, args.steps)
            best = max(best, rate)
        rows.append((label, obs_size, best, eps))
        if args.profile and kwargs["decision"] == "pick_reserve":
            prof = cProfile.Profile()
            prof.enable()
            run(env, min(args.steps, 3000))
            prof.disable()
            print(f"--- profile: {label}")
            pstats.Stats(prof).sort_stats("tottime").print_stats(12)
    print(f"{'case':38} {'obs':>6} {'steps/s':>9} {'episodes':>9}   (per CPU second, random valid actions)")
    for label, size, rate, eps in rows:
        print(f"{label:38} {size:6d} {rate:9.0f} {eps:9d}")


if __name__ == "__main__":
    main()
