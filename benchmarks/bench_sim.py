"""Throughput of the whole-trace simulator: jobs per second for FCFS and FCFS+EASY (and friends).

    python benchmarks/bench_sim.py [--jobs 100000] [--nodes 256] [--repeat 3]

Workload: a Lublin-Feitelson trace (``lublin256`` preset, seeded) whose requested walltimes are the
runtimes (the generator's output) and, second, the same jobs with requests overestimated by a
factor drawn uniformly from [1, 5] (so reservations and backfilling work harder). The first call
compiles the numba loop and is not timed. Prints one line per case; the goal is >= 100,000 jobs/s
for FCFS+EASY on one core.
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from schedrl.sim import ClusterSpec, HPCSimulator, simulate  # noqa: E402
from schedrl.workloads.lublin import generate  # noqa: E402


def bench(jobs, cluster, policy, backfill, repeat):
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        sched = simulate(jobs, cluster, policy, backfill)
        best = min(best, time.perf_counter() - t0)
    return best, sched


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=100_000)
    parser.add_argument("--nodes", type=int, default=256)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--step-jobs", type=int, default=10_000, help="jobs for the step-API runs")
    args = parser.parse_args(argv)

    base = generate("lublin256", n_jobs=args.jobs, seed=args.seed)
    rng = np.random.default_rng(args.seed)
    over = base.copy()
    over["req_time"] = np.ceil(over["run_time"] * rng.uniform(1, 5, len(over))).astype(np.int64)
    cluster = ClusterSpec(nodes=args.nodes)
    simulate(base.iloc[:200], cluster, "fcfs", "easy")  # compile (cached on disk after the first run)
    print(f"{len(base)} Lublin jobs on {args.nodes} nodes, best of {args.repeat}")
    cases = [("fcfs", "none"), ("fcfs", "easy"), ("sjf", "none"), ("sjf", "easy"), ("fcfs", "conservative")]
    for label, jobs in (("requests = runtimes", base), ("requests = runtime x U[1,5]", over)):
        for policy, backfill in cases:
            n = len(jobs) if backfill != "conservative" else min(len(jobs), 20_000)
            secs, sched = bench(jobs.iloc[:n], cluster, policy, backfill, args.repeat)
            print(f"  {label:28s} {policy:5s} {backfill:13s} {n:7d} jobs {secs:8.3f} s "
                  f"{n / secs:12,.0f} jobs/s  mean wait {sched['wait_time'].mean():10.0f} s")
    # The Python step API that RL environments drive (same decisions, one call per action).
    n = min(len(base), args.step_jobs)
    for sim_step in (None, 60.0):
        sim = HPCSimulator(cluster, sim_step=sim_step, double_idle=False)
        sim.reset(base.iloc[:n])
        t0 = time.perf_counter()
        sim.run_policy("fcfs", "easy")
        secs = time.perf_counter() - t0
        mode = "event-driven" if sim_step is None else f"Sim_Step {sim_step:g} s"
        print(f"  step API, FCFS+EASY, {mode:15s} {n:7d} jobs {secs:8.3f} s {n / secs:12,.0f} jobs/s "
              f"{sim.decision_points / secs:10,.0f} decision points/s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
