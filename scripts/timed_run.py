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

A run killed with SIGKILL (a session cut off, a node lost) writes no line, so with ``--record`` the
script also keeps ``<record>.open-<pid>.json`` beside it, written at the start and every ``--heartbeat`` s with
the CPU the command's live process tree has used so far (from ``/proc``: each process's own and its
waited-for children's time). The next ``timed_run`` with the same ``--record`` finds the files whose
process is gone and appends them as lines with ``"exit": "killed"``: a long run resumed in pieces
adds up to its real cost, short by at most one heartbeat per kill.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import threading
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


def tree_cpu_seconds(root_pid: int) -> float:
    """CPU seconds (user + system) used so far by ``root_pid`` and its live descendants, with the
    children each has waited for (``/proc/<pid>/stat``: utime, stime, cutime, cstime). A process
    that ended and was waited for is in its parent's cutime and nowhere else, so nothing counts
    twice. 0.0 where ``/proc`` cannot be read."""
    stats = {}
    for entry in Path("/proc").iterdir() if Path("/proc").is_dir() else ():
        if not entry.name.isdigit():
            continue
        try:
            text = (entry / "stat").read_text()
        except OSError:
            continue
        fields = text[text.rindex(")") + 2:].split()  # after "pid (comm) ": state, ppid, ...
        stats[int(entry.name)] = (int(fields[1]), sum(int(x) for x in fields[11:15]))
    tree, frontier = {root_pid}, [root_pid]
    children: dict[int, list[int]] = {}
    for pid, (ppid, _) in stats.items():
        children.setdefault(ppid, []).append(pid)
    while frontier:
        for kid in children.get(frontier.pop(), []):
            if kid not in tree:
                tree.add(kid)
                frontier.append(kid)
    return sum(stats[pid][1] for pid in tree if pid in stats) / os.sysconf("SC_CLK_TCK")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def fold_killed(record: Path) -> int:
    """Append the heartbeat files of killed runs beside ``record`` to it (``"exit": "killed"``) and
    remove them; how many."""
    folded = 0
    for open_file in sorted(record.parent.glob(record.name + ".open-*.json")):
        pid = open_file.name.rsplit("-", 1)[1].removesuffix(".json")
        if pid.isdigit() and _alive(int(pid)):
            continue
        try:
            line = json.loads(open_file.read_text())
        except (OSError, ValueError):
            continue  # half-written: the atomic replace makes this a foreign file; leave it
        line["exit"] = "killed"
        with open(record, "a") as fh:
            fh.write(json.dumps(line) + "\n")
        open_file.unlink()
        folded += 1
    return folded


def _heartbeat(open_file: Path, base: dict, child_pid: int, every: float, t0: float, stop: threading.Event) -> None:
    """Rewrite ``open_file`` (atomically) with the CPU used so far, at the start and every ``every`` seconds.

    The first write comes at once: a run killed before its first interval still leaves the file, which
    is what tells ``run_seeds.py`` that Snakemake's lock is stale."""
    while True:
        cpu, wall = tree_cpu_seconds(child_pid), time.perf_counter() - t0
        line = {**base, "exit": None, "wall_s": round(wall, 1), "cpu_s": round(cpu, 1),
                "core_hours": round(cpu / 3600, 3), "parallelism": round(cpu / wall, 2) if wall > 0 else None,
                "note": f"CPU to the last heartbeat (every {every:g} s) before the run was killed"}
        tmp = open_file.with_suffix(".tmp")
        tmp.write_text(json.dumps(line))
        os.replace(tmp, open_file)
        if stop.wait(every):
            return


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                epilog="Everything after -- is the command, run as given.")
    p.add_argument("--record", metavar="JSONL", help="append the measurement to this file (one JSON object per line)")
    p.add_argument("--benchmarks", metavar="DIR",
                   help="also sum the Snakemake benchmark files written under DIR during the run, for the ratio")
    p.add_argument("--heartbeat", type=float, default=60.0, metavar="S",
                   help="with --record: rewrite the killed-run file beside it every S seconds (default 60)")
    p.add_argument("command", nargs=argparse.REMAINDER, help="the command, after --")
    args = p.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        p.error("no command given (put it after --)")
    if args.heartbeat <= 0:
        p.error(f"--heartbeat must be positive seconds, not {args.heartbeat:g}")
    if args.record:
        Path(args.record).parent.mkdir(parents=True, exist_ok=True)
        if n := fold_killed(Path(args.record)):
            print(f"timed_run: {n} killed run(s) appended to {args.record} (CPU to their last heartbeat)",
                  file=sys.stderr)
    if args.benchmarks and not Path(args.benchmarks).is_dir():
        Path(args.benchmarks).mkdir(parents=True, exist_ok=True)

    started, t0 = time.time(), time.perf_counter()
    try:
        child = subprocess.Popen(command)
    except OSError as e:
        print(f"timed_run: cannot start {command[0]!r}: {e.strerror}", file=sys.stderr)
        return 127
    base = {"date": datetime.fromtimestamp(started, UTC).isoformat(timespec="seconds"),
            "command": command, "commit": _commit(), "machine": _cpu_model(), "cpus": os.cpu_count()}
    stop = threading.Event()
    open_file = Path(f"{args.record}.open-{os.getpid()}.json") if args.record else None
    beat = threading.Thread(target=_heartbeat, args=(open_file, base, child.pid, args.heartbeat, t0, stop),
                            daemon=True)
    if open_file:
        beat.start()
    while True:
        try:
            _, status, usage = os.wait4(child.pid, 0)
            break
        except KeyboardInterrupt:  # the child got the same Ctrl-C; wait for it to stop
            continue
    wall = time.perf_counter() - t0
    stop.set()
    if open_file:
        beat.join()  # a heartbeat being written lands before the file is removed
    rc = os.waitstatus_to_exitcode(status)
    cpu = usage.ru_utime + usage.ru_stime
    record = {"date": base["date"], "command": command, "exit": rc, "commit": base["commit"],
              "machine": base["machine"], "cpus": base["cpus"], "wall_s": round(wall, 1), "cpu_s": round(cpu, 1),
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
        with open(args.record, "a") as fh:
            fh.write(json.dumps(record) + "\n")
        open_file.unlink(missing_ok=True)
        open_file.with_suffix(".tmp").unlink(missing_ok=True)
    return rc


if __name__ == "__main__":
    sys.exit(main())
