"""What pinning the math libraries' code paths costs: each trainer's steps per CPU-second with and without.

Issue 61: MKL picks its code path by the CPU it finds (``MKL_CBWR``), torch's own kernels by the CPU's
vector width (``ATEN_CPU_CAPABILITY``), numba compiles for the host CPU (``NUMBA_CPU_NAME``). Pinning
them to a common path would make the files the same on every x86 machine, at some speed. This runs
each trainer of ``scripts/golden_hashes.py`` (the golden-hash runs: SB3 A2C/PPO/DQN/TRPO/MaskablePPO
and DeepRM's REINFORCE on the smoke DeepRM env, SEM REINFORCE, MRSch DFP) plus ``sem_dras_wide``, DRAS
with the default config's Theta widths (4000, 1000: a matrix-product-bound network), in fresh
processes (the switches act only before the libraries load): one warm-up run, then repeats until
``--min-cpu`` CPU seconds; steps / process CPU time, the best of ``--tries`` processes per setting.

    OMP_NUM_THREADS=1 python benchmarks/bench_pins.py                       # the pipeline's pins
    python benchmarks/bench_pins.py --pins MKL_CBWR=COMPATIBLE --trainers a2c,dqn
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
from schedrl import codepaths  # noqa: E402 - loads no math library

CANDIDATE = ",".join(f"{k}={v}" for k, v in codepaths.PINS.items())  # the pipeline's own pins
EXTRA = ("sem_dras_wide",)


def _gh():
    spec = importlib.util.spec_from_file_location("golden_hashes", ROOT / "scripts" / "golden_hashes.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _one(gh, name: str, work: Path) -> int:
    if name == "sem_dras_wide":
        return gh.run_sem(work, hidden=(4000, 1000), encoder="dras")[2]
    return gh.run_trainer(name, work)["steps"]


def child(name: str, min_cpu: float) -> dict:
    """Warm up once, then time repeats of the trainer's run in this process."""
    import contextlib

    import torch

    torch.set_num_threads(1)
    gh = _gh()
    with contextlib.redirect_stdout(sys.stderr):
        with tempfile.TemporaryDirectory() as tmp:
            _one(gh, name, Path(tmp))
        steps, cpu, runs = 0, 0.0, 0
        while cpu < min_cpu or runs == 0:
            with tempfile.TemporaryDirectory() as tmp:
                c0 = time.process_time()
                steps += _one(gh, name, Path(tmp))
                cpu += time.process_time() - c0
                runs += 1
    return {"steps": steps, "cpu_s": cpu, "runs": runs}


def measure(name: str, env: dict, min_cpu: float) -> float:
    full = {k: v for k, v in os.environ.items() if k not in _gh().SWITCHES}
    full.update(OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", **env)
    r = subprocess.run([sys.executable, __file__, "--child", name, "--min-cpu", str(min_cpu)], env=full,
                       capture_output=True, text=True, timeout=1200)
    if r.returncode != 0:
        raise RuntimeError(f"{name} {env}: {r.stderr[-2000:]}")
    out = json.loads(r.stdout.strip().splitlines()[-1])
    return out["steps"] / out["cpu_s"]


def parse_pins(text: str) -> dict:
    pins = {}
    for pair in filter(None, (p.strip() for p in text.split(","))):
        key, sep, value = pair.partition("=")
        if not sep:
            raise SystemExit(f"bench_pins.py: --pins '{pair}': expected KEY=VALUE")
        pins[key] = value
    return pins


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 1)[1],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pins", default=CANDIDATE, help="comma-separated KEY=VALUE pins (default: %(default)s)")
    ap.add_argument("--trainers", default=None, help="comma-separated subset (default: every golden trainer and "
                    + ", ".join(EXTRA) + ")")
    ap.add_argument("--tries", type=int, default=3, help="fresh processes per setting, best kept (default: %(default)s)")
    ap.add_argument("--min-cpu", type=float, default=1.5, help="CPU seconds timed per process (default: %(default)s)")
    ap.add_argument("--json", metavar="FILE", help="also write the rates and ratios here")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child, args.min_cpu)))
        return 0
    pins = parse_pins(args.pins)
    names = args.trainers.split(",") if args.trainers else [*_gh().TRAINERS, *EXTRA]
    print(f"pins: {', '.join(f'{k}={v}' for k, v in pins.items())}; best of {args.tries} fresh processes, "
          f">= {args.min_cpu} CPU s each")
    print(f"{'trainer':14} {'steps/CPU-s':>12} {'pinned':>9} {'pinned/as is':>13}")
    rows = {}
    for name in names:
        best = {"as_is": 0.0, "pinned": 0.0}
        for _ in range(args.tries):  # interleaved, so a neighbour's load falls on both alike
            # both with the pipeline's pins off, so only the pins named act in the pinned one
            best["as_is"] = max(best["as_is"], measure(name, {codepaths.OPT_OUT: "1"}, args.min_cpu))
            best["pinned"] = max(best["pinned"], measure(name, {codepaths.OPT_OUT: "1", **pins}, args.min_cpu))
        rows[name] = {**best, "ratio": best["pinned"] / best["as_is"]}
        print(f"{name:14} {best['as_is']:12.0f} {best['pinned']:9.0f} {rows[name]['ratio']:13.2f}", flush=True)
    if args.json:
        Path(args.json).write_text(json.dumps({"pins": pins, "rows": rows}, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
