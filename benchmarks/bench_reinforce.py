"""Training throughput of DeepRM's REINFORCE agent (deeprm_pg) on the DeepRM env (env steps per second).

Trains a fresh agent for ``--iterations`` iterations of ``--jobsets`` job sets x ``--trajectories``
episodes at each ``--rates`` value with the default config's env (discrete phase 2, 10 slots) and
DeepRM's hyperparameters, on one torch thread. Rates are per second of the training loop's wall time
(a shared machine slows them down); process CPU is printed beside them. This sizes ``deeprm.deeprm_agent``. Usage:

    OMP_NUM_THREADS=1 python benchmarks/bench_reinforce.py [--iterations 2] [--rates 0.3 0.7 1.0]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from schedrl.config import load_yaml
from schedrl.papers.deeprm import experiments as dx

CONFIG = Path(__file__).resolve().parents[1] / "config" / "config.yaml"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=2)
    parser.add_argument("--jobsets", type=int, default=10)
    parser.add_argument("--trajectories", type=int, default=20)
    parser.add_argument("--rates", type=float, nargs="+", default=[0.3, 0.7, 1.0])
    args = parser.parse_args()
    spec = load_yaml(CONFIG)["deeprm"]
    spec["deeprm_agent"] = {"variant": "discrete-image", "rates": args.rates, "iterations": args.iterations,
                            "jobsets": args.jobsets, "trajectories": args.trajectories}
    print(f"{'rate':>5} {'env steps':>10} {'steps/s (wall)':>14} {'s/iteration':>12}")
    for rate in args.rates:
        with tempfile.TemporaryDirectory() as tmp:
            began = time.process_time()
            result = dx.train_deeprm_agent(spec, rate, 0, tmp)
            cpu = time.process_time() - began
        print(f"{rate:5.2f} {result.steps:10d} {result.steps / result.wall_time_s:14.0f} "
              f"{result.wall_time_s / args.iterations:12.2f}   (process CPU incl. setup {cpu:.1f} s)")


if __name__ == "__main__":
    main()
