#!/usr/bin/env python
"""Run a command (a Snakemake target) and measure what it cost, exactly.

    python scripts/timed_run.py --record benchmarks/results/runs.jsonl -- snakemake mdp --cores 2

Prints, and appends as one JSON line to ``--record``: wall seconds, the CPU seconds (user + system)
of the command and every process it waited for (``os.wait4``'s resource usage, so every rule's
process, its start-up included), core-hours, mean parallelism, the date, machine and git commit.

Why: Snakemake's ``benchmark:`` files (what ``schedrl budget`` sums) sample a rule's CPU time every
0.5 s for its first 15 s and every 30 s after, and keep the last sample, so a rule that runs longer
than 15 s loses up to 30 s of CPU. With ``--benchmarks`` the script also sums the benchmark files
written during the run and prints that sum's ratio to the exact figure, measured in the same run.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path


def _commit() -> str | None:
    try:
        return subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None


def _cpu_model() -> str:
    """The CPU's model name and clock (virtual machines often report a generic name, and the same
    name has run the same command at different speeds on different days)."""
    fields = {}
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            fields.setdefault(key.strip(), value.strip())
    except OSError:
        pass
    name = fields.get("model name") or platform.processor() or platform.machine()
    return f"{name}, {fields['cpu MHz']} MHz" if "cpu MHz" in fields else name


def _sampled_cpu(root: Path, since: float) -> tuple[int, float]:
    """Benchmark files under ``root`` written since ``since`` (read by ``schedrl budget``'s reader):
    how many, and their CPU seconds summed."""
    from schedrl.report.budget import read_benchmarks

    runs = read_benchmarks(root)
    mine = runs[[Path(f).stat().st_mtime >= since for f in runs["file"]]]
    return len(mine), float(mine["cpu_seconds"].fillna(0).sum())


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                epilog="Everything after -- is the command, run as given.")
    p.add_argument("--record", metavar="JSONL", help="append the measurement to this file (one JSON object per line)")
    p.add_argument("--benchmarks", metavar="DIR",
                   help="also sum the Snakemake benchmark files written under DIR during the run, for the ratio")
    p.add_argument("command", nargs=argparse.REMAINDER, help="the command, after --")
    args = p.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        p.error("no command given (put it after --)")
    if args.benchmarks and not Path(args.benchmarks).is_dir():
        Path(args.benchmarks).mkdir(parents=True, exist_ok=True)

    started, t0 = time.time(), time.perf_counter()
    try:
        child = subprocess.Popen(command)
    except OSError as e:
        print(f"timed_run: cannot start {command[0]!r}: {e.strerror}", file=sys.stderr)
        return 127
    while True:
        try:
            _, status, usage = os.wait4(child.pid, 0)
            break
        except KeyboardInterrupt:  # the child got the same Ctrl-C; wait for it to stop
            continue
    wall = time.perf_counter() - t0
    rc = os.waitstatus_to_exitcode(status)
    cpu = usage.ru_utime + usage.ru_stime
    record = {"date": datetime.fromtimestamp(started, UTC).isoformat(timespec="seconds"),
              "command": command, "exit": rc, "commit": _commit(), "machine": _cpu_model(),
              "cpus": os.cpu_count(), "wall_s": round(wall, 1), "cpu_s": round(cpu, 1),
              "core_hours": round(cpu / 3600, 3), "parallelism": round(cpu / wall, 2) if wall > 0 else None}
    if args.benchmarks:
        n, sampled = _sampled_cpu(Path(args.benchmarks), started)
        record.update(benchmark_files=n, benchmark_cpu_s=round(sampled, 1),
                      benchmark_over_exact=round(sampled / cpu, 3) if cpu > 0 else None)
    print(f"timed_run: exit {rc}, wall {wall / 60:.1f} min, CPU {cpu / 3600:.3f} core-hours "
          f"(parallelism {record['parallelism']})"
          + (f"; {record['benchmark_files']} benchmark files sum to {record['benchmark_cpu_s'] / 3600:.3f} "
             f"core-hours ({record['benchmark_over_exact']} of the exact figure)" if args.benchmarks else ""),
          file=sys.stderr)
    if args.record:
        Path(args.record).parent.mkdir(parents=True, exist_ok=True)
        with open(args.record, "a") as fh:
            fh.write(json.dumps(record) + "\n")
    return rc


if __name__ == "__main__":
    sys.exit(main())
