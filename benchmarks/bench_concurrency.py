"""Do parallel training rules use the cores? One training alone vs N at once, as Snakemake runs them.

Starts ``--jobs`` copies (default: 1, then 2) of the same short training as separate processes at
the same time, each with the thread settings the ``schedrl`` CLI gives a rule (one BLAS / OpenMP /
numba thread, one torch thread), and prints each copy's env steps per wall second and the ratio to
the lone copy, and the same per CPU-second of the copy's process (all its threads) with the CPU
seconds it burned per wall second. With enough idle cores the wall ratio stays near 1 (the goal: 8
rules on 8 cores run at full speed). On a loaded machine the wall ratio measures the load; the
CPU-time columns still answer the question: with one thread per process a copy uses at most one
core (CPU/wall <= 1) and its steps per CPU-second do not drop when copies run side by side, while
extra library threads show up as CPU/wall > 1 and fewer steps per CPU-second. ``--threads-default`` repeats the run with the libraries' own defaults (a thread per
core each) to show what oversubscription costs. The trainer is REINFORCE on the DeepRM env
(``--algo deeprm_pg``) or an SB3 algorithm (``--algo a2c``). Usage:

    python benchmarks/bench_concurrency.py [--jobs 1 2] [--algo deeprm_pg] [--threads-default]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

CHILD = r"""
import sys, tempfile, time
import gymnasium as gym
import torch
from pathlib import Path
from schedrl.config import load_yaml
from schedrl.papers.deeprm import layout as dl
from schedrl.papers.deeprm import training as dt
algo, size, cap = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1"
if cap:
    torch.set_num_threads(1)
spec = load_yaml(Path("config/config.yaml"))["deeprm"]
with tempfile.TemporaryDirectory() as tmp:
    t0, c0 = time.perf_counter(), time.process_time()
    if algo == "deeprm_pg":
        from schedrl.agents.hyperparams import load_hyperparams
        from schedrl.agents.reinforce import ReinforceConfig, train_reinforce
        make = lambda: gym.make(dl.ENV_ID, **dt.deeprm_agent_env_kwargs({**spec, "deeprm_agent": {**spec["deeprm_agent"], "jobsets": size}}, 0.7))
        cfg = ReinforceConfig.from_dict(load_hyperparams("deeprm_pg", "deeprm-discrete-image"))
        steps = train_reinforce(make, cfg, 1, 0, tmp, examples=size).steps
    else:
        from schedrl.agents import load_hyperparams
        from schedrl.experiments.train import train
        hp = load_hyperparams(algo, dt.hyperparams_variant("discrete-image"))
        steps = train(dl.ENV_ID, dt.env_kwargs(spec, "discrete-image", "slowdown"), algo, hp, size, 0, tmp).steps
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    print(steps / wall, steps / cpu, cpu / wall)
"""
THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS")


def _run(n: int, algo: str, size: int, capped: bool) -> list[list[float]]:
    env = dict(os.environ)
    for var in THREAD_VARS:
        if capped:
            env[var] = "1"
        else:
            env.pop(var, None)
    env["SCHEDRL_PROGRESS_SECONDS"] = "100000"
    procs = [subprocess.Popen([sys.executable, "-c", CHILD, algo, str(size), "1" if capped else "0"],
                              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, text=True)
             for _ in range(n)]
    # per copy: steps per wall second, steps per CPU second, CPU seconds per wall second
    return [[float(x) for x in p.communicate()[0].strip().splitlines()[-1].split()] for p in procs]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, nargs="+", default=[1, 2], help="concurrent copies to compare")
    parser.add_argument("--algo", default="deeprm_pg", help="deeprm_pg, or an SB3 algorithm such as a2c")
    parser.add_argument("--size", type=int, default=5,
                        help="job sets of one REINFORCE iteration, or SB3 env steps (default: %(default)s)")
    parser.add_argument("--threads-default", action="store_true",
                        help="also run with the libraries' default thread counts")
    args = parser.parse_args()
    print(f"{args.algo} on DeepRM discrete-image, size {args.size}; {os.cpu_count()} cores; "
          f"load average before: {os.getloadavg()[0]:.1f}")
    print(f"{'threads':>8} {'jobs':>5} {'steps/s (wall)':>15} {'vs alone':>9} {'steps/CPU-s':>12} "
          f"{'vs alone':>9} {'CPU/wall':>9}")
    for capped in (True, False) if args.threads_default else (True,):
        alone = None
        for n in args.jobs:
            t0 = time.perf_counter()
            copies = _run(n, args.algo, args.size, capped)
            wall, cpu, busy = (sum(c[i] for c in copies) / len(copies) for i in range(3))
            alone = alone or (wall, cpu)
            print(f"{'1 each' if capped else 'default':>8} {n:5d} {wall:15.0f} {wall / alone[0]:8.2f}x "
                  f"{cpu:12.0f} {cpu / alone[1]:8.2f}x {busy:9.2f}   ({time.perf_counter() - t0:.0f} s)")


if __name__ == "__main__":
    main()
