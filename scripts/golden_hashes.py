"""Golden hashes: train every trainer briefly from a fixed seed, play one short evaluation, hash both.

Each trainer goes through the pipeline's own code: SB3 A2C, PPO, DQN, TRPO, MaskablePPO and DeepRM's
REINFORCE (``deeprm_pg``) through ``schedrl train`` and ``schedrl evaluate`` on schedrl/DeepRM-v0 at
the smoke env size (phase 2's 20 x 224 image); SEM/DRAS REINFORCE through
``schedrl.papers.sem.agents.train_agent`` (what ``schedrl sem train`` runs) on a small synthetic split,
its greedy test as the evaluation; MRSch's DFP through ``mrsch.training.train_dfp_run`` (what
``schedrl mrsch train-dfp`` runs) on small synthetic S1-S5 tables, one greedy play as the evaluation.
All on one thread, a few seconds each. Per trainer it prints sha256 of the weights (every tensor of
the saved model, by name in sorted order: name, dtype, shape and bytes; not the zip, whose metadata
holds timestamps) and of the evaluation table (its CSV bytes).

    python scripts/golden_hashes.py                     # print the hashes
    python scripts/golden_hashes.py --write             # store them as this machine kind's entry
    python scripts/golden_hashes.py --env MKL_CBWR=COMPATIBLE --json    # one switch, as JSON

The hashes are of the pipeline's own code path: ``schedrl.codepaths`` caps torch's kernels and oneDNN
at AVX2 (``SCHEDRL_NO_PINS=1``, e.g. ``--env SCHEDRL_NO_PINS=1``, measures the path the CPU selects).
``--env KEY=VALUE`` is set before torch, numpy or numba load (run each switch in a fresh process).
The entries of ``tests/golden/hashes.json`` are keyed by machine kind (``benchmarks/bench_machine.py``:
``slower`` = no AVX-512, ``faster`` = AVX-512) and record the CPU, its instruction sets and the
library versions they were made on; ``tests/test_golden_hashes.py`` recomputes and compares them.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import importlib.util
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = ROOT / "tests" / "golden" / "hashes.json"
TRAINERS = ("a2c", "ppo", "dqn", "trpo", "maskable_ppo", "deeprm_pg", "sem_reinforce", "dfp")
#: variables that choose a math library's code path (issue 61): what the entry records as set
SWITCHES = ("MKL_CBWR", "ATEN_CPU_CAPABILITY", "ONEDNN_MAX_CPU_ISA", "DNNL_MAX_CPU_ISA", "MKL_ENABLE_INSTRUCTIONS",
            "NPY_DISABLE_CPU_FEATURES", "NUMBA_CPU_NAME", "NUMBA_CPU_FEATURES", "SCHEDRL_NO_PINS")

# DeepRM smoke env (config/smoke.yaml deeprm.env, discrete phase 2: 10 slots, 20 x 224 image)
DEEPRM_ENV = {"num_res": 2, "time_horizon": 20, "max_job_len": 15, "res_slot": 10, "max_job_size": 10,
              "backlog_size": 60, "simu_len": 30, "episode_max_length": 150, "num_nw": 10, "num_jobsets": 2}
# steps (deeprm_pg: iterations) and hyperparameter overrides that keep each run to seconds
SB3_RUNS = {
    "a2c": (600, {}),
    "ppo": (256, {"n_steps": 128, "batch_size": 64, "n_epochs": 2}),
    "dqn": (600, {"learning_starts": 200, "buffer_size": 1000, "target_update_interval": 100}),
    "trpo": (256, {"n_steps": 256, "batch_size": 128, "n_critic_updates": 2}),
    "maskable_ppo": (256, {"n_steps": 128, "batch_size": 64, "n_epochs": 2}),
    "deeprm_pg": (2, {"trajectories": 2, "examples_per_update": 1}),
}


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def tensors_sha(obj) -> str:
    """sha256 over every tensor in a (nested) state dict: key path, dtype, shape and bytes, keys sorted."""
    import torch

    h = hashlib.sha256()

    def walk(prefix: str, value) -> None:
        if isinstance(value, torch.Tensor):
            t = value.detach().cpu().contiguous()
            h.update(f"{prefix}|{t.dtype}|{tuple(t.shape)}|".encode())
            h.update(t.view(torch.uint8).numpy().tobytes() if t.numel() else b"")
        elif isinstance(value, dict):
            for k in sorted(value, key=str):
                walk(f"{prefix}/{k}", value[k])
        elif isinstance(value, (list, tuple)):
            for i, v in enumerate(value):
                walk(f"{prefix}/{i}", v)

    walk("", obj)
    return h.hexdigest()


def weights_sha(path: Path) -> str:
    """Hash of the weights in a saved model: an SB3 zip's ``policy.pth``, else the torch file."""
    import io
    import zipfile

    import torch

    if zipfile.is_zipfile(path) and "policy.pth" in zipfile.ZipFile(path).namelist():
        state = torch.load(io.BytesIO(zipfile.ZipFile(path).read("policy.pth")), map_location="cpu", weights_only=True)
    else:
        state = torch.load(path, map_location="cpu", weights_only=False)
    return tensors_sha(state)


# --------------------------------------------------------------------------------- the trainers
def run_sb3_or_pg(algo: str, work: Path) -> tuple[Path, Path, int]:
    from schedrl.cli import main

    steps, hp = SB3_RUNS[algo]
    run, out = work / algo, work / f"{algo}_eval.csv"
    args = ["train", "--env", "schedrl/DeepRM-v0", "--algo", algo, "--steps", str(steps), "--seed", "0",
            "--run-dir", str(run), "--threads", "1"]
    for k, v in DEEPRM_ENV.items():
        args += ["--env-kwarg", f"{k}={v}"]
    for k, v in hp.items():
        args += ["--hp", f"{k}={v}"]
    if main(args) != 0:
        raise RuntimeError(f"{algo}: schedrl train failed")
    if main(["evaluate", "--run-dir", str(run), "--episodes", "1", "--jobset-seed", "1000", "--out", str(out)]) != 0:
        raise RuntimeError(f"{algo}: schedrl evaluate failed")
    trained = json.loads((run / "timing.json").read_text())["steps"]
    return run / "model.zip", out, int(trained)


def _swf_frame(rng, n: int, **cols):
    import numpy as np
    import pandas as pd

    from schedrl.workloads.swf import SWF_FIELDS

    frame = pd.DataFrame({"job_id": np.arange(1, n + 1), "wait_time": -1, "status": 1, "user_id": 1, "queue": 1, **cols})
    for col in SWF_FIELDS:
        if col not in frame.columns:
            frame[col] = -1
    return frame[list(SWF_FIELDS)]


def run_sem(work: Path, hidden=(64, 32), encoder: str = "sem") -> tuple[Path, Path, int]:
    """SEM-encoded REINFORCE (DRAS's learner) on a 64-node synthetic split: 3 training episodes of 40 jobs, 4 trajectories each."""
    import numpy as np

    from schedrl.papers.sem import agents as A
    from schedrl.workloads.splits import sem_split
    from schedrl.workloads.swf import write_swf

    split = work / "sem_split"
    split.mkdir(parents=True, exist_ok=True)  # (bench_pins.py also plays DRAS's default Theta widths)
    rng, n = np.random.default_rng(3), 200
    frame = _swf_frame(rng, n, submit_time=np.sort(rng.integers(0, 20_000, n)), run_time=rng.integers(60, 3_000, n),
                       req_procs=rng.choice([2, 4, 8, 16, 32], n), req_time=3_600)
    frame.attrs["header"] = {"MaxProcs": "64"}
    parts, manifest = sem_split(frame, train_jobs=120, episode_jobs=40, val_jobs=20, test_jobs=40)
    for name, part in parts.items():
        write_swf(part, split / f"{name}.swf")
    (split / "split.json").write_text(json.dumps(manifest))
    hp = {"discount": 0.6, "baseline": "normalise", "optimizer": "adam", "learning_rate": 0.01,
          "trajectories": 4, "examples_per_update": 1, "mask_actions": True}
    spec = A.AgentSpec(trace="theta", encoder=encoder, nodes=64, k=4, hidden=list(hidden), reward="dras_theta",
                       hyperparams=hp, window=10)
    out = work / f"sem_{encoder}"
    timing = A.train_agent(split, spec, out)
    return out / "run" / "model.zip", out / "test_jobs.csv", int(timing["steps"])


def run_dfp(work: Path) -> tuple[Path, Path, int]:
    """MRSch's DFP (group two, MLP state, the paper's ordering) on 3 job sets of 80 jobs of synthetic
    16-node S1-S5 tables, then one greedy play of a test table (its schedule is the evaluation table)."""
    import numpy as np

    from schedrl.agents.dfp import DFPAgent
    from schedrl.config import load_yaml
    from schedrl.papers.mrsch import evaluation as mev
    from schedrl.papers.mrsch import layout as ml
    from schedrl.papers.mrsch import training as mtr
    from schedrl.workloads.swf import write_swf

    base = work / "mrsch_tables"
    rng, n = np.random.default_rng(0), 200
    for k in range(1, 6):
        for part in ("train", "test"):
            procs = rng.integers(1, 9, n)
            frame = _swf_frame(rng, n, submit_time=np.sort(rng.uniform(0, 5 * 86_400, n)).round(),
                               run_time=rng.integers(100, 4000, n), alloc_procs=procs, req_procs=procs, req_time=4000,
                               bb_request=rng.integers(1, 5, n).astype(float))
            frame.attrs["header"] = {"MaxNodes": "16", "MaxProcs": "16", "MaxBurstBufferUnits": "8"}
            (base / f"S{k}").mkdir(parents=True, exist_ok=True)
            write_swf(frame, base / f"S{k}" / f"{part}.swf")
    spec = load_yaml(ROOT / "config" / "smoke.yaml")["mrsch"]
    spec.update(extra_seeds=[], workloads=[f"S{k}" for k in range(1, 6)], jobs_per_set=80,
                jobsets={"sampled": 1, "real": 1, "synthetic": 1}, orderings=[ml.PAPER_ORDERING], checkpoint_every=3,
                dfp={**spec["dfp"], "state_hidden": [64, 32], "state_out": 32, "select_on_validation": False})
    spec = ml.check_spec(spec)
    result = mtr.train_dfp_run(spec, "two", "mlp", ml.PAPER_ORDERING, root=work / "mrsch", base=base)
    model = result.run_dir / "model.zip"
    frame = ml.read_part("S1", "test", base).iloc[:60]
    sched, _, _ = mev.play_dfp(DFPAgent.load(model), ml.make_env(frame, int(spec["window"]), **ml.env_kwargs(spec)), frame)
    out = work / "dfp_eval.csv"
    out.write_text(sched.to_csv(index=False, float_format="%.9g"))
    return model, out, int(result.steps)


def run_trainer(name: str, work: Path) -> dict:
    import torch

    torch.set_num_threads(1)
    t0, c0 = time.perf_counter(), time.process_time()
    if name == "sem_reinforce":
        model, table, steps = run_sem(work)
    elif name == "dfp":
        model, table, steps = run_dfp(work)
    else:
        model, table, steps = run_sb3_or_pg(name, work)
    return {"weights": weights_sha(model), "evaluation": _sha(table.read_bytes()), "steps": steps,
            "wall_s": round(time.perf_counter() - t0, 2), "cpu_s": round(time.process_time() - c0, 2)}


# ---------------------------------------------------------------------------- machine and versions
def _bench_machine():
    spec = importlib.util.spec_from_file_location("bench_machine", ROOT / "benchmarks" / "bench_machine.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


_KIND_CODE = """
import json, sys
sys.path.insert(0, sys.argv[1])
from golden_hashes import _machine_here
print(json.dumps(_machine_here()))
"""


def _machine_here() -> dict:
    """Kind as benchmarks/bench_machine.py tells it (vector instructions; the matmul speed only
    where they say AVX-512), CPU model and instruction sets, in this process."""
    bm = _bench_machine()
    import torch

    capability = torch.backends.cpu.get_cpu_capability()
    speed = bm.gflops() if capability.startswith("AVX512") else None
    flags = set()
    for line in Path("/proc/cpuinfo").read_text().splitlines() if Path("/proc/cpuinfo").exists() else []:
        if line.startswith("flags"):
            flags = set(line.split(":", 1)[1].split())
            break
    wanted = ("sse4_2", "avx", "avx2", "fma", "avx512f", "avx512bw", "avx512vl", "avx512_vnni", "avx512_bf16",
              "amx_tile", "amx_bf16")
    kind = "slower" if bm.is_slower_kind(capability, speed if speed is not None else 0.0) else "faster"
    return {"kind": kind, "cpu": bm.cpu_name(), "torch_capability": capability,
            "isa": " ".join(f for f in wanted if f in flags) or platform.machine(),
            "matmul_gflops": None if speed is None else round(speed)}


def machine() -> dict:
    """``_machine_here`` from a process without the code-path switches (torch reports the capability
    it was told to use, e.g. ATEN_CPU_CAPABILITY=avx2 on an AVX-512 machine)."""
    if not any(k in os.environ for k in SWITCHES if k != "SCHEDRL_NO_PINS") and "torch" in sys.modules:
        return _machine_here()
    env = {k: v for k, v in os.environ.items() if k not in SWITCHES}
    env.update(SCHEDRL_NO_PINS="1")  # the CPU's own path: the kind is the hardware's, not the pins'
    env.setdefault("OMP_NUM_THREADS", "1")
    out = subprocess.run([sys.executable, "-c", _KIND_CODE, str(Path(__file__).resolve().parent)], env=env,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def versions() -> dict:
    """Library versions as the libraries report them (MKL and oneDNN: torch's build configuration)."""
    import re
    from importlib.metadata import PackageNotFoundError, version

    import torch

    out = {"python": platform.python_version(), "torch": torch.__version__}
    for pkg in ("numpy", "numba", "stable-baselines3", "sb3-contrib", "gymnasium", "pandas"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            out[pkg] = None
    config = torch.__config__.show()
    mkl = re.search(r"Math Kernel Library Version ([\w.]+)", config)
    dnn = re.search(r"(?:MKL-DNN|oneDNN)\s+(v[\w.]+)", config)
    out["mkl"] = mkl.group(1) if mkl else ("available" if torch.backends.mkl.is_available() else None)
    out["onednn"] = dnn.group(1) if dnn else ("available" if torch.backends.mkldnn.is_available() else None)
    return out


def compute(trainers=TRAINERS) -> dict:
    """The hashes of ``trainers`` in a scratch folder, with the switches set in this process."""
    results = {}
    with tempfile.TemporaryDirectory(prefix="golden_") as tmp:
        for name in trainers:
            results[name] = run_trainer(name, Path(tmp))
    return {"trainers": results, "versions": versions(),
            "switches": {k: os.environ[k] for k in SWITCHES if k in os.environ}}


def read_golden(path: Path | None = None) -> dict:
    path = Path(path or GOLDEN)
    return json.loads(path.read_text()) if path.exists() else {}


def compute_in_subprocess(trainers=TRAINERS, env: dict | None = None, timeout: float = 900) -> dict:
    """``compute`` in a fresh interpreter (what the test and the switch study use)."""
    cmd = [sys.executable, str(Path(__file__).resolve()), "--json", "--no-machine", "--trainers", ",".join(trainers)]
    full = {**os.environ, "OMP_NUM_THREADS": "1", **(env or {})}
    r = subprocess.run(cmd, env=full, capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        raise RuntimeError(f"golden_hashes.py failed ({r.returncode}):\n{r.stderr[-3000:]}")
    return json.loads(r.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=__doc__.split("\n\n", 1)[1],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--trainers", default=",".join(TRAINERS),
                    help=f"comma-separated subset of {','.join(TRAINERS)} (default: all)")
    ap.add_argument("--env", action="append", default=[], metavar="KEY=VALUE",
                    help="set an environment variable before the math libraries load; repeatable")
    ap.add_argument("--write", action="store_true",
                    help=f"store the hashes as this machine kind's entry of {GOLDEN.relative_to(ROOT)}")
    ap.add_argument("--json", action="store_true", help="print one JSON object instead of a table")
    ap.add_argument("--no-machine", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    for pair in args.env:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            ap.error(f"--env '{pair}': expected KEY=VALUE")
        os.environ[key] = value
    if "torch" in sys.modules or "numpy" in sys.modules:  # pragma: no cover - the switches would come too late
        ap.error("torch or numpy was loaded before --env could be applied")
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    trainers = [t.strip() for t in args.trainers.split(",") if t.strip()]
    bad = [t for t in trainers if t not in TRAINERS]
    if bad:
        ap.error(f"--trainers: unknown {', '.join(bad)} (known: {', '.join(TRAINERS)})")
    if args.write and (args.env or trainers != list(TRAINERS)):
        ap.error("--write stores the entry of all trainers as installed: no --env or --trainers")
    sys.path.insert(0, str(ROOT / "src"))  # a checkout without `pip install -e .` still runs
    from schedrl import codepaths  # the pipeline's pins, as every way into it sets them (--env wins)

    codepaths.apply()
    with contextlib.redirect_stdout(sys.stderr):  # the commands' own lines: stdout keeps the hashes
        result = compute(trainers)
    if not args.no_machine:
        result["machine"] = machine()
    if args.json:
        print(json.dumps(result, sort_keys=True))
    else:
        m = result.get("machine")
        if m:
            print(f"machine kind: {m['kind']} ({m['cpu']}; {m['torch_capability']}; {m['isa']})")
        print("switches: " + (", ".join(f"{k}={v}" for k, v in result["switches"].items()) or "none"))
        print(f"{'trainer':14} {'weights':16} {'evaluation':16} {'steps':>6} {'cpu s':>6}")
        for name, r in result["trainers"].items():
            print(f"{name:14} {r['weights'][:16]} {r['evaluation'][:16]} {r['steps']:6} {r['cpu_s']:6.1f}")
    if args.write:
        golden = read_golden()
        m = result["machine"]
        golden[m["kind"]] = {"cpu": m["cpu"], "torch_capability": m["torch_capability"], "isa": m["isa"],
                             "matmul_gflops": m["matmul_gflops"], "versions": result["versions"],
                             "made": time.strftime("%Y-%m-%d"), "switches": result["switches"],
                             "trainers": {k: {"weights": v["weights"], "evaluation": v["evaluation"]}
                                          for k, v in result["trainers"].items()}}
        GOLDEN.parent.mkdir(parents=True, exist_ok=True)
        GOLDEN.write_text(json.dumps(golden, indent=2, sort_keys=True) + "\n")
        print(f"wrote the '{m['kind']}' entry of {GOLDEN.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
