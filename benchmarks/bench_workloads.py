"""Workload speed: Lublin generation and SWF parsing/writing throughput (prints jobs/s).

    OMP_NUM_THREADS=1 python benchmarks/bench_workloads.py [--jobs 100000] [--repeat 5]

Reports the best of ``--repeat`` runs (the machine may be shared). The SWF file is generated
(Lublin, with an extension column) and, when ../shared/traces holds it, a real PWA trace is read too.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from schedrl.workloads.extend import apply_scenario
from schedrl.workloads.lublin import generate
from schedrl.workloads.swf import format_swf, parse_swf_text, read_swf, write_swf

TRACE = Path(__file__).resolve().parents[2] / "shared" / "traces" / "SDSC-DS-2004-2.1-cln.swf.gz"


def best(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return min(times), out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=100_000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    n, r = args.jobs, args.repeat
    generate("lublin256", n_jobs=1000)  # warm imports

    rows = []
    for preset in ("lublin256", "theta_like", "datastar_like", "wl1"):
        t, frame = best(lambda p=preset: generate(p, n_jobs=n, seed=0), r)
        rows.append((f"generate {preset}", n, t))
    frame = apply_scenario(generate("theta_like", n_jobs=n, seed=0), "S6")
    text = format_swf(frame)
    t, _ = best(lambda: format_swf(frame), r)
    rows.append(("format SWF (+2 extension columns)", n, t))
    t, _ = best(lambda: parse_swf_text(text), r)
    rows.append(("parse SWF text (+2 extension columns)", n, t))
    with tempfile.TemporaryDirectory() as tmp:
        path = write_swf(generate("lublin256", n_jobs=n, seed=0), Path(tmp) / "x.swf")
        t, _ = best(lambda: read_swf(path), r)
        rows.append(("read_swf file + cleaning", n, t))
    if TRACE.exists():
        t, frame = best(lambda: read_swf(TRACE, clean=False), r)
        rows.append((f"read_swf {TRACE.name} (gzip)", len(frame), t))

    print(f"{'operation':45s} {'jobs':>8s} {'seconds':>9s} {'jobs/s':>12s}")
    for name, jobs, secs in rows:
        print(f"{name:45s} {jobs:8d} {secs:9.3f} {jobs / secs:12,.0f}")


if __name__ == "__main__":
    main()
