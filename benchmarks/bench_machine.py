"""Which kind of development machine is this, and what does each paper's default run cost on it?

Sessions get one of two kinds of 2-core machine (docs/cost-and-budgets.md, "Two kinds of machine"):
the faster (AVX-512, Intel or AMD EPYC; the cost models' rates) and an AMD EPYC with AVX2 only,
~1.5-3.9x slower per core. Before starting a default run that has to finish inside one session, this prints the CPU, its
vector instructions and one-thread matmul speed (a 512 x 1024 x 1024 product, as the paper-sized
networks' minibatches), the kind that follows, and each paper's ``schedrl <paper> cost`` estimate
on this kind against the 5 core-hours and the ~2.3 hours of wall time (two rules at a time) that a
session leaves for a run. Takes a few seconds:

    OMP_NUM_THREADS=1 python benchmarks/bench_machine.py [--config config/config.yaml]
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import platform
import time
from pathlib import Path

import torch

from schedrl.codepaths import native_capability
from schedrl.config import load_yaml, over_default

#: one-thread GFLOPS of the product above: the slower kind 66 (AVX2 only, 2026-11-27), the faster
#: 125-146 (AVX-512), and 105-107 on an AVX-512 AMD EPYC (2026-11-28) whose deeprm default run took
#: 1.90 core-hours, the faster kind's 1.85 modelled: the kind is told by the vector instructions, and
#: the speed only where they say AVX-512 (a threshold between 66 and 105, off either by a third)
SLOWER_BELOW_GFLOPS = 85.0
BUDGET_CORE_HOURS, SESSION_WALL_HOURS, PARALLEL = 5.0, 2.4, 1.82  # parallelism: the runtime run, 2026-11-27


def gflops(repeat: int = 30, tries: int = 3) -> float:
    """The best of ``tries`` timings (a busy neighbour core only ever makes one slower)."""
    torch.set_num_threads(1)
    a, b = torch.rand(512, 1024), torch.rand(1024, 1024)
    for _ in range(3):
        a @ b
    best = float("inf")
    for _ in range(tries):
        t0 = time.process_time()
        for _ in range(repeat):
            a @ b
        best = min(best, time.process_time() - t0)
    return 2 * 512 * 1024 * 1024 * repeat / best / 1e9


def is_slower_kind(capability: str, speed: float) -> bool:
    """The slower kind lacks AVX-512 (its SB3 steps cost 2.4-3.9x the CPU); an AVX-512 machine
    counts as slower only when its matmul is as slow as that kind's."""
    return not capability.startswith("AVX512") or speed < SLOWER_BELOW_GFLOPS


def machine_kind() -> tuple[str, str, float]:
    """("faster" or "slower", the CPU's own vector path, its matmul GFLOPS): the CPU's path, not
    torch's, since schedrl pins torch to AVX2 on import (schedrl.codepaths), after which torch says
    "AVX2" on every machine (until 2026-11-29 this called every machine slower)."""
    speed, capability = gflops(), native_capability()
    return ("slower" if is_slower_kind(capability, speed) else "faster"), capability, speed


def cpu_name() -> str:
    for line in Path("/proc/cpuinfo").read_text().splitlines() if Path("/proc/cpuinfo").exists() else []:
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.processor() or "unknown"


def paper_totals(config: dict) -> dict[str, tuple[float, float]]:
    """Each paper's default-run estimate on the faster kind (what ``schedrl <paper> cost`` totals)
    and its slower-kind factor."""
    out = {}
    for paper in ("runtime", "mrsch", "deeprm"):
        # a package split by concern (issue 71) checks its spec in layout and counts in cost
        split = importlib.util.find_spec(f"schedrl.papers.{paper}.cost") is not None
        layout = importlib.import_module(f"schedrl.papers.{paper}.{'layout' if split else 'experiments'}")
        mod = importlib.import_module(f"schedrl.papers.{paper}.{'cost' if split else 'experiments'}")
        cost = mod.estimate_core_hours(layout.load_spec(json.dumps(config[paper])))
        out[paper] = (sum(cost[k] for k in mod.COST_PARTS), mod.SLOWER_MACHINE[1])
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default=str(Path(__file__).resolve().parents[1] / "config" / "config.yaml"))
    args = ap.parse_args()
    kind, capability, speed = machine_kind()
    slower = kind == "slower"
    print(f"CPU: {cpu_name()}; vector instructions: {capability}; matmul {speed:.0f} GFLOPS on one thread "
          f"(the slower kind: no AVX-512, or below {SLOWER_BELOW_GFLOPS:.0f})")
    print(f"kind: {'slower (the cost models x their SLOWER_MACHINE factor)' if slower else 'faster (the cost models as they are)'}")
    print(f"{'paper':8} {'core-h here':>11} {'wall h (2 cores)':>16}  fits 5 core-h and one session?")
    for paper, (total, factor) in paper_totals(over_default(load_yaml(args.config), args.config)).items():
        here = total * (factor if slower else 1.0)
        wall = here / PARALLEL
        fits = here <= BUDGET_CORE_HOURS and wall <= SESSION_WALL_HOURS
        print(f"{paper:8} {here:11.1f} {wall:16.1f}  {'yes' if fits else 'no'}")


if __name__ == "__main__":
    main()
