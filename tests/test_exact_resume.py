"""Kill, resume, same files (issue 70): every SB3 trainer the pipeline runs, at smoke size.

For each algorithm ``schedrl train`` runs once uninterrupted, and once killed with SIGKILL at a
random moment after its first checkpoint and rerun with the same command. The two run folders
must then hold the same files: the final model (weights, optimiser, counters; SB3's wall-clock
fields aside, as ``scripts/same_outputs.py`` compares), the kept checkpoints with their replay
buffers, the learning curve and the best-model selection. Left out: timing.json and monitor/ (wall
times), command.txt (one line per invocation), the temporary file a kill can leave beside a file
being written (a dot-name never read) and the resume states (see ``SKIP``).

A second case sends SIGTERM (SLURM's time limit, Snakemake stopping its jobs): the trainer stops at
the next rollout boundary with an exact checkpoint and exits 143, and the rerun again equals the
uninterrupted run.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]
SCHEDRL = str(Path(sys.executable).parent / "schedrl")
ENV = ["--env", "schedrl.envs:schedrl/DeepRM-v0", "--env-kwarg", "simu_len=40", "--env-kwarg", "num_nw=5",
       "--env-kwarg", "num_jobsets=3", "--env-kwarg", "episode_max_length=120"]
STEPS, EVERY = 4000, 600
# Small rollouts so that several checkpoints fall inside a few seconds of training; two env copies
# for A2C (the VecEnv's state of more than one episode in progress); a best-model selection on PPO
# (its eval env and best-so-far travel with the checkpoint); DQN past its learning start with a
# target update inside the run (its step counter is what `load` resets).
ALGOS = {
    "ppo": ["--hp", "n_steps=100", "--hp", "batch_size=50", "--hp", "n_epochs=2",
            "--select-every", "700", "--select-episodes", "1"],
    "a2c": ["--hp", "n_envs=2", "--hp", "n_steps=8"],
    "trpo": ["--hp", "n_steps=200", "--hp", "batch_size=100"],
    "dqn": ["--hp", "learning_starts=500", "--hp", "target_update_interval=300", "--hp", "buffer_size=3000",
            "--hp", "exploration_fraction=0.5"],
    "maskable_ppo": ["--hp", "n_steps=100", "--hp", "batch_size=50", "--hp", "n_epochs=2"],
}
# Relative paths left out. The resume states are compared through what they lead to (the models
# and curves after them): a pickle of equal objects need not be equal bytes (its memo follows which
# objects the process happened to share); the replay buffers likewise, compared by their arrays.
SKIP = [r"(^|/)timing\.json$", r"^monitor/", r"^command\.txt$", r"(^|/)\.[^/]*\.tmp$", r"\.state\.pkl$",
        r"\.replay\.pkl$"]


def _command(algo: str, run_dir: Path) -> list[str]:
    return [SCHEDRL, "train", *ENV, "--algo", algo, *ALGOS[algo], "--steps", str(STEPS), "--seed", "7",
            "--checkpoint-every", str(EVERY), "--threads", "1", "--run-dir", str(run_dir)]


def _env() -> dict:
    return dict(os.environ, OMP_NUM_THREADS="1", SCHEDRL_PROGRESS_SECONDS="3600")


def _run(algo: str, run_dir: Path) -> subprocess.CompletedProcess:
    done = subprocess.run(_command(algo, run_dir), env=_env(), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return done


def run_interrupted(command: list[str], ready, sig: int, rng: random.Random, what: str = "training") -> int:
    """Start ``command``, wait until ``ready()`` (its first checkpoint is on disk), wait a random
    share of a second more, send ``sig`` to its process group; returns the exit status. Shared by
    the kill tests of the other trainers."""
    proc = subprocess.Popen(command, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    deadline = time.monotonic() + 300
    while not ready():
        assert proc.poll() is None, f"{what} ended before its first checkpoint: {proc.stderr.read()[-2000:]}"
        assert time.monotonic() < deadline, "no checkpoint within 300 s"
        time.sleep(0.02)
    time.sleep(rng.uniform(0.0, 1.0))
    assert proc.poll() is None, f"{what} finished before the kill: make its run longer"
    os.killpg(proc.pid, sig)
    proc.wait(timeout=300)
    proc.stderr.close()
    return proc.returncode


def _interrupted(algo: str, run_dir: Path, sig: int, rng: random.Random) -> int:
    ckpt = run_dir / "checkpoints"

    def ready() -> bool:  # a checkpoint is listed by its model file, written after its state
        return ckpt.is_dir() and any(ckpt.glob("step_*.zip"))

    return run_interrupted(_command(algo, run_dir), ready, sig, rng, algo)


def assert_same_run(a: Path, b: Path, skip=SKIP) -> None:
    """The run folders ``a`` and ``b`` hold the same files (``scripts/same_outputs.py``), less
    ``skip``; their replay buffers hold the same transitions."""
    skips = [x for pattern in skip for x in ("--skip", pattern)]
    out = subprocess.run([sys.executable, str(REPO / "scripts" / "same_outputs.py"), str(a), str(b), *skips],
                         capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
    _same_replay_buffers(a, b)


def _same_replay_buffers(a: Path, b: Path) -> None:
    import numpy as np
    from stable_baselines3.common.save_util import load_from_pkl

    names = sorted(p.name for p in (a / "checkpoints").glob("*.replay.pkl"))
    assert names == sorted(p.name for p in (b / "checkpoints").glob("*.replay.pkl"))
    for name in names:
        x, y = load_from_pkl(a / "checkpoints" / name), load_from_pkl(b / "checkpoints" / name)
        assert (x.pos, x.full) == (y.pos, y.full), name
        for field in ("observations", "next_observations", "actions", "rewards", "dones", "timeouts"):
            assert np.array_equal(getattr(x, field), getattr(y, field)), f"{name}: {field}"


@pytest.fixture(scope="module")
def references(tmp_path_factory):
    root = tmp_path_factory.mktemp("uninterrupted")
    return {algo: root / algo for algo in ALGOS}


@pytest.mark.parametrize("algo", list(ALGOS))
def test_sigkilled_training_resumes_to_the_uninterrupted_run(algo, references, tmp_path):
    reference = references[algo]
    if not (reference / "model.zip").exists():
        _run(algo, reference)
    seed = random.randrange(2**32)
    print(f"kill delay seed {seed}")  # shown on failure: the same moment can be tried again
    run_dir = tmp_path / algo
    assert _interrupted(algo, run_dir, signal.SIGKILL, random.Random(seed)) == -signal.SIGKILL
    steps = sorted(int(p.name.split("_")[1].split(".")[0]) for p in (run_dir / "checkpoints").glob("step_*.zip"))
    assert steps and steps[-1] < STEPS
    _run(algo, run_dir)
    assert_same_run(reference, run_dir)
    from schedrl.io import read_json

    resumes = read_json(run_dir / "timing.json")["resumes"]
    assert resumes and all(r["exact"] for r in resumes)


def test_sigterm_stops_at_a_rollout_boundary_and_resumes_exactly(references, tmp_path):
    algo = "ppo"
    reference = references[algo]
    if not (reference / "model.zip").exists():
        _run(algo, reference)
    run_dir = tmp_path / algo
    assert _interrupted(algo, run_dir, signal.SIGTERM, random.Random(0)) == 143
    from schedrl.io import read_json

    timing = read_json(run_dir / "timing.json")
    stopped = int(timing["interrupted"]["steps"])
    assert (run_dir / "checkpoints" / f"step_{stopped}.state.pkl").exists()  # the stop wrote its checkpoint
    assert not (run_dir / "model.zip").exists()
    _run(algo, run_dir)
    assert_same_run(reference, run_dir)


def test_stop_at_pauses_at_a_boundary_and_the_rest_continues_exactly(references, tmp_path):
    """``--stop-at``: the run pauses at the first rollout boundary past it (a checkpoint there, no
    final model, a rerun with the same pause leaves it alone), and the command without it
    finishes the uninterrupted run's files: successive halving's rungs rest on this."""
    algo = "ppo"
    reference = references[algo]
    if not (reference / "model.zip").exists():
        _run(algo, reference)
    run_dir = tmp_path / algo
    paused = [*_command(algo, run_dir), "--stop-at", "1450"]
    for _ in range(2):  # the second: already there, nothing trained
        done = subprocess.run(paused, env=_env(), capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr[-2000:]
        assert "paused at 1500 steps" in done.stdout  # n_steps 100: the boundary at or past 1450
    assert (run_dir / "checkpoints" / "step_1500.zip").exists()
    assert not (run_dir / "model.zip").exists()
    _run(algo, run_dir)
    assert_same_run(reference, run_dir)
    from schedrl.io import read_json

    assert [r["exact"] for r in read_json(run_dir / "timing.json")["resumes"]] == [True]

