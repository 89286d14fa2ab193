"""Killed runs lose nothing (issue 28, part 3).

A smoke-size DeepRM REINFORCE training rule (``deeprm_train_pg``: checkpoints every iteration with
every RNG state), its evaluation (``deeprm_evaluate_pg``) and a figure of the report stage
(``deeprm_agent_curve``) run under Snakemake in a scratch copy of the workflow. Each is killed
midway, with SIGKILL (a lost node, the OOM killer, SLURM's final kill) or SIGTERM (what SLURM sends
at a time limit, and Snakemake to its jobs on Ctrl-C) to the whole process group; then the README's
recovery (``snakemake --unlock``, the same command with ``--rerun-incomplete``) must finish with
files equal, byte for byte, to an uninterrupted run's. ``timing.json`` is left out of the
comparison: it records wall times (and the resumed segment). No file a rule declares may exist
half-written after a kill: it is either absent or complete.

The report command (``schedrl report``) is killed at the worst moment, after writing its
temporary file and before renaming it into place.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]
RUN = "results/deeprm/discrete-image/deeprm_pg/slowdown/rate0.7/seed0"
TRAIN = [f"{RUN}/model.zip", f"{RUN}/learning_curve.csv"]
EVAL = [f"{RUN}/eval_heldout_jobs.csv", f"{RUN}/eval_heldout_episodes.csv"]
FIGURE = ["figures/deeprm/deeprm_agent_curve.csv", "figures/deeprm/deeprm_agent_curve.png"]
ALL = TRAIN + EVAL + FIGURE
ITERATIONS = 12
# Smoke config plus a DeepRM agent of 12 short iterations with a checkpoint after each.
KILL_CONFIG = f"""deeprm:
  deeprm_agent:
    iterations: {ITERATIONS}
    converge: {{iterations: {ITERATIONS}, rates: [0.7]}}
    checkpoint_every: 1
    jobsets: 1
    trajectories: 2
"""


def _env():
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONPATH=str(REPO / "src"))
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    return env


def _workdir(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for name in ("Snakefile", "workflow", "src"):
        (root / name).symlink_to(REPO / name)
    shutil.copytree(REPO / "config", root / "config")
    (root / "config" / "kill.yaml").write_text(KILL_CONFIG)
    return root


def _snakemake(root: Path, targets, *extra) -> list[str]:
    return [sys.executable, "-m", "snakemake", *targets, "--cores", "1", "--quiet", "all",
            "--configfile", "config/smoke.yaml", "config/kill.yaml", *extra]


def _run(root: Path, targets, *extra):
    proc = subprocess.run(_snakemake(root, targets, *extra), cwd=root, env=_env(), capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]


def _start(root: Path, targets):
    return subprocess.Popen(_snakemake(root, targets), cwd=root, env=_env(), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)


def _kill_when(proc, ready, sig, timeout=300.0) -> bool:
    """Send ``sig`` to the process group once ``ready()``; False if the run finished first."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            return False
        if ready():
            os.killpg(proc.pid, sig)
            try:
                proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
            return True
        time.sleep(0.05)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()
    raise AssertionError(f"not ready within {timeout} s")


def _checkpoints(root: Path) -> list[int]:
    folder = root / RUN / "checkpoints"
    if not folder.is_dir():
        return []
    return sorted(int(p.stem.split("_")[1]) for p in folder.glob("iter_*.pt"))


def _assert_whole(root: Path) -> None:
    """Every declared output that exists is complete: it loads (torch, zip, CSV, PNG)."""
    import zipfile

    import pandas as pd
    import torch

    for rel in ALL:
        path = root / rel
        if not path.exists():
            continue
        if path.suffix == ".csv":
            pd.read_csv(path)
        elif path.suffix == ".zip":
            assert zipfile.is_zipfile(path), rel
        elif path.suffix == ".png":
            assert path.read_bytes().rstrip().endswith(b"IEND\xaeB`\x82"), rel
    for ck in (root / RUN / "checkpoints").glob("iter_*.pt") if (root / RUN / "checkpoints").is_dir() else ():
        torch.load(ck, map_location="cpu", weights_only=False)


def _recover(root: Path) -> None:
    _run(root, [], "--unlock")
    _run(root, ALL, "--rerun-incomplete")


def _same(root: Path, reference: dict[str, bytes]) -> None:
    differ = [rel for rel in ALL if (root / rel).read_bytes() != reference[rel]]
    assert not differ, f"differ from the uninterrupted run: {differ}"


@pytest.fixture(scope="module")
def reference_root(tmp_path_factory) -> Path:
    root = _workdir(tmp_path_factory.mktemp("kill") / "reference")
    _run(root, ALL)
    return root


@pytest.fixture(scope="module")
def reference(reference_root) -> dict[str, bytes]:
    return {rel: (reference_root / rel).read_bytes() for rel in ALL}


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_killed_training_resumes_to_the_same_run(reference, tmp_path, sig):
    root = _workdir(tmp_path / "run")
    proc = _start(root, ALL)
    assert _kill_when(proc, lambda: any(k >= 3 for k in _checkpoints(root)), sig), "training ended before the kill"
    done = _checkpoints(root)
    assert done and max(done) < ITERATIONS and not (root / TRAIN[0]).exists()
    _assert_whole(root)
    _recover(root)
    _same(root, reference)
    timing = (root / RUN / "timing.json").read_text()
    assert '"resumed_from_iteration": 0' not in timing  # it resumed rather than starting over


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_killed_evaluation_and_figure_are_rebuilt(reference, reference_root, tmp_path, sig):
    root = _workdir(tmp_path / "run")
    for name in ("results", "logs", ".snakemake"):  # the trained run, as Snakemake left it
        shutil.copytree(reference_root / name, root / name, symlinks=True)
    for rel in EVAL + FIGURE:
        (root / rel).unlink(missing_ok=True)

    def evaluating():  # the evaluation command has started (its log exists)
        return (root / "logs/deeprm/discrete-image/deeprm_pg/rate0.7/seed0/evaluate.log").exists()

    killed = _kill_when(_start(root, ALL), evaluating, sig)
    _assert_whole(root)
    if killed:
        assert not all((root / rel).exists() for rel in EVAL + FIGURE)
    _recover(root)
    _same(root, reference)


SB3_RUN = "results/deeprm/multibinary-image/ppo/slowdown/seed0"
SB3_TRAIN = [f"{SB3_RUN}/model.zip", f"{SB3_RUN}/learning_curve.csv"]


def test_snakemake_sigkilled_during_sb3_training_resumes_to_the_same_run(tmp_path):
    """Issue 70: Snakemake itself and its training job (a smoke PPO with best-model selection)
    SIGKILLed after the first checkpoint; ``--unlock`` and ``--rerun-incomplete`` resume the run,
    whose folder then equals an uninterrupted run's (SB3 zips member by member, wall times aside:
    ``tests/test_exact_resume.py``'s comparison)."""
    import random

    from test_exact_resume import assert_same_run

    reference = _workdir(tmp_path / "reference")
    _run(reference, SB3_TRAIN)
    root = _workdir(tmp_path / "run")
    ckpt = root / SB3_RUN / "checkpoints"
    seed = random.randrange(2**32)
    print(f"kill delay seed {seed}")
    delay = random.Random(seed).uniform(0.0, 1.0)
    first = []

    def ready() -> bool:
        if not first and ckpt.is_dir() and any(ckpt.glob("step_*.zip")):
            first.append(time.monotonic())
        return bool(first) and time.monotonic() - first[0] >= delay

    assert _kill_when(_start(root, SB3_TRAIN), ready, signal.SIGKILL), "training ended before the kill"
    assert not (root / SB3_TRAIN[0]).exists()
    _run(root, [], "--unlock")
    _run(root, SB3_TRAIN, "--rerun-incomplete")
    assert_same_run(reference / SB3_RUN, root / SB3_RUN)


def test_report_killed_before_its_rename_leaves_no_report(tmp_path):
    """``schedrl report`` SIGKILLed between writing its temporary file and renaming it: no report
    file; the rerun writes it."""
    from schedrl.report.claims import write_claims

    claims = tmp_path / "claims.csv"
    write_claims(claims, [{"paper": "deeprm", "claim_id": "c1", "claim": "a claim", "paper_value": "1",
                           "ours": "1", "verdict": "reproduced", "note": ""}])
    out, html = tmp_path / "R.md", tmp_path / "index.html"
    argv = ["report", "--claims", str(claims), "--out", str(out), "--html", str(html)]
    killer = ("import os, signal, sys\n"
              "real = os.replace\n"
              "def replace(*a, **k):\n"
              "    os.kill(os.getpid(), signal.SIGKILL)\n"
              "os.replace = replace\n"
              "from schedrl.cli import main\n"
              f"sys.exit(main({argv!r}))\n")
    proc = subprocess.run([sys.executable, "-c", killer], env=_env(), capture_output=True, text=True, timeout=300)
    assert proc.returncode == -signal.SIGKILL
    assert not out.exists() and not html.exists()
    proc = subprocess.run([sys.executable, "-m", "schedrl.cli", *argv], env=_env(), capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert out.read_text().strip() and html.read_text().strip().endswith("</html>")
