"""Throughput of the SEM trace analysis and of the GA window optimiser.

* analysis: jobs/s of the running-jobs sweep and of the K-largest sweep (K = 0..80) on the
  DataStar log (96k jobs; ../shared/traces or data/raw), numba compile excluded (one warm-up);
* GA window optimiser: decisions/s for the exhaustive search (w = 10, MRSch's window) and for the
  GA (w = 20, BBSched settings), 2 resources.

Usage: OMP_NUM_THREADS=1 python benchmarks/bench_sem_analysis.py [--trace PATH]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from schedrl.schedulers.ga import optimise_window
from schedrl.workloads import analysis as A
from schedrl.workloads.swf import read_swf


def timed(fn, repeat=3):
    fn()  # warm-up (numba compile, caches)
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trace", default=None, help="SWF trace (default: DataStar in the usual folders)")
    args = parser.parse_args()
    trace = Path(args.trace) if args.trace else next(
        (Path(d) / "SDSC-DS-2004-2.1-cln.swf.gz" for d in ("data/raw", "../shared/traces")
         if (Path(d) / "SDSC-DS-2004-2.1-cln.swf.gz").is_file()), None)
    if trace is not None:
        schedule = A.schedule_from_trace(read_swf(trace))
        n = len(schedule)
        t = timed(lambda: A.running_jobs_cdf(A.running_jobs(schedule)))
        print(f"running jobs + CDF   {trace.name}: {n:,} jobs in {t * 1e3:.1f} ms = {n / t:,.0f} jobs/s")
        t = timed(lambda: A.k_largest_summary(schedule, range(81)))
        print(f"K-largest (K 0..80)  {trace.name}: {n:,} jobs in {t * 1e3:.1f} ms = {n / t:,.0f} jobs/s")
    else:
        print("DataStar trace not found: analysis benchmark skipped")
    rng = np.random.default_rng(0)
    for w, exhaustive_max in ((10, 16), (20, 16)):
        windows = [rng.integers(1, 200, size=(w, 2)) for _ in range(50)]
        free = np.array([600, 600])

        def run(windows=windows, free=free, exhaustive_max=exhaustive_max):
            for i, d in enumerate(windows):
                optimise_window(d, free, seed=i, exhaustive_max=exhaustive_max)

        t = timed(run, repeat=2)
        kind = "exhaustive" if w <= exhaustive_max else "GA"
        print(f"window optimiser w={w:<2} ({kind:10s}): {len(windows) / t:,.0f} decisions/s")


if __name__ == "__main__":
    main()
