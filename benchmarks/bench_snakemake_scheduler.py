"""Snakemake's own CPU while jobs run: its default job-rate limiter against a wide one.

Snakemake (9.x) ends every pass of its scheduling loop by arming a ``threading.Timer`` that wakes
the loop again after the rate limiter's timespan (``--max-jobs-per-timespan``, default 100/1s).
Each wake-up runs a pass, which arms another timer, and each finished job adds a wake-up of its
own: after N jobs ~N passes a second run while the next jobs work, so the scheduler's CPU grows
with the jobs finished times the run's length. In one run, on a workflow of ``--jobs`` jobs that
each sleep ``--sleep`` seconds (no work of their own), this measures the process CPU (user + sys,
children included: the jobs' ``sleep`` and ``bash`` are the same in both) of ``snakemake --cores 2``
with the default and with the timespan the workflow profile sets (``workflow/profiles/default``),
and prints both and their ratio. Usage:

    python benchmarks/bench_snakemake_scheduler.py [--jobs 120] [--sleep 2]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SNAKEFILE = """
rule all:
    input: expand("out/{{i}}.txt", i=range({jobs}))

rule sleep:
    output: "out/{{i}}.txt"
    shell: "sleep {sleep} && touch {{output}}"
"""


def run(folder: Path, extra: list[str]) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of one snakemake run in ``folder``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "snakemake", "--cores", "2", "--quiet", "all", *extra], cwd=folder,
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=120, help="jobs in the test workflow (default: %(default)s)")
    parser.add_argument("--sleep", type=float, default=2.0, help="seconds each job sleeps (default: %(default)s)")
    parser.add_argument("--timespan", default="1000/10s",
                        help="the wide limit to compare (default: %(default)s, the workflow profile's)")
    args = parser.parse_args()
    print(f"{args.jobs} jobs of {args.sleep:g} s on 2 cores; load average {os.getloadavg()[0]:.2f}")
    results = {}
    for name, extra in (("default 100/1s", []), (f"--max-jobs-per-timespan {args.timespan}",
                                                 ["--max-jobs-per-timespan", args.timespan])):
        with tempfile.TemporaryDirectory() as tmp:
            Path(tmp, "Snakefile").write_text(SNAKEFILE.format(jobs=args.jobs, sleep=args.sleep))
            cpu, wall = run(Path(tmp), extra)
        results[name] = cpu
        print(f"{name:40s} {cpu:7.1f} CPU-s  {wall:6.1f} s wall  {cpu / args.jobs * 1000:6.0f} CPU-ms per job")
    default, wide = results.values()
    print(f"default / wide: {default / wide:.2f}x the CPU")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
