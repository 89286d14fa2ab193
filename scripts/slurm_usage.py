"""What each rule's SLURM jobs asked for (threads, mem_mb, runtime) against what they used (sacct).

    python scripts/slurm_usage.py SNAKEMAKE_LOG [--out CSV]

Reads "Job N has been submitted with SLURM jobid J (log: .../rule_RULE/...)" lines of a Snakemake
log written with ``--executor slurm``, asks ``sacct`` for those jobs and prints, per rule: jobs,
requested CPUs, memory and time limit, and the largest peak memory (MaxRSS of any step), elapsed
time and CPU time used. A rule whose jobs used more memory or time than requested is marked
``UNDER``; one that asked for more than 4x the memory it used (and over 1 GB) is marked ``over``.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path


def _seconds(text: str) -> float:
    """sacct durations: [D-]HH:MM:SS, MM:SS.mmm, or UNLIMITED."""
    if not text or text in ("UNLIMITED", "Partition_Limit"):
        return float("nan")
    days = 0
    if "-" in text:
        d, text = text.split("-", 1)
        days = int(d)
    parts = [float(p) for p in text.split(":")]
    while len(parts) < 3:
        parts.insert(0, 0.0)
    h, m, s = parts
    return days * 86400 + h * 3600 + m * 60 + s


def _mb(text: str) -> float:
    """sacct memory (``265912K``, ``3000M``, ``2G``, ``500Mn``/``Mc`` in old versions) in MB."""
    m = re.match(r"^([\d.]+)([KMGT]?)", text or "")
    if not m:
        return 0.0
    scale = {"": 1 / 1e6, "K": 1 / 1024, "M": 1.0, "G": 1024.0, "T": 1024.0 ** 2}[m.group(2)]
    return float(m.group(1)) * scale


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("log")
    p.add_argument("--out", metavar="CSV")
    args = p.parse_args(argv)
    rule_of = {}
    for m in re.finditer(r"submitted with SLURM jobid (\d+) \(log: \S*/rule_([A-Za-z0-9_]+)/", Path(args.log).read_text()):
        rule_of[m.group(1)] = m.group(2)
    if not rule_of:
        print(f"slurm_usage: no SLURM submissions in {args.log}", file=sys.stderr)
        return 2
    out = subprocess.run(["sacct", "-a", "--parsable2", "--noheader", "-j", ",".join(rule_of),
                          "-o", "JobID,AllocCPUS,ReqMem,Timelimit,Elapsed,TotalCPU,MaxRSS,State"],
                         capture_output=True, text=True, check=True).stdout
    per = defaultdict(lambda: {"jobs": 0, "cpus": 0, "req_mb": 0.0, "limit_s": 0.0, "rss_mb": 0.0,
                               "elapsed_s": 0.0, "cpu_s": 0.0, "states": set()})
    for line in out.splitlines():
        jid, cpus, req, limit, elapsed, total, rss, state = line.split("|")
        base = jid.split(".")[0]
        if base not in rule_of:
            continue
        r = per[rule_of[base]]
        if "." not in jid:  # the allocation: what was asked for
            r["jobs"] += 1
            r["cpus"] = max(r["cpus"], int(cpus or 0))
            r["req_mb"] = max(r["req_mb"], _mb(req))
            r["limit_s"] = max(r["limit_s"], _seconds(limit))
            r["elapsed_s"] = max(r["elapsed_s"], _seconds(elapsed))
            r["cpu_s"] = max(r["cpu_s"], _seconds(total))
            r["states"].add(state.split()[0])
        r["rss_mb"] = max(r["rss_mb"], _mb(rss))
    rows = ["rule,jobs,cpus,req_mem_mb,max_rss_mb,time_limit_min,max_elapsed_min,max_cpu_min,states,flag"]
    print(f"{'rule':28s} {'jobs':>4s} {'cpus':>4s} {'req MB':>7s} {'peak MB':>7s} {'limit m':>7s} "
          f"{'elapsed m':>9s} {'cpu m':>6s}  flag")
    for rule, r in sorted(per.items()):
        flag = ""
        if r["rss_mb"] > r["req_mb"] or r["elapsed_s"] > r["limit_s"]:
            flag = "UNDER"
        elif r["req_mb"] > 4 * r["rss_mb"] and r["req_mb"] > 1000:
            flag = "over"
        print(f"{rule:28s} {r['jobs']:4d} {r['cpus']:4d} {r['req_mb']:7.0f} {r['rss_mb']:7.0f} "
              f"{r['limit_s'] / 60:7.0f} {r['elapsed_s'] / 60:9.2f} {r['cpu_s'] / 60:6.2f}  {flag}")
        rows.append(f"{rule},{r['jobs']},{r['cpus']},{r['req_mb']:.0f},{r['rss_mb']:.0f},{r['limit_s'] / 60:.0f},"
                    f"{r['elapsed_s'] / 60:.2f},{r['cpu_s'] / 60:.2f},{'/'.join(sorted(r['states']))},{flag}")
    if args.out:
        Path(args.out).write_text("\n".join(rows) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
