"""Kill, resume, same files (issue 70): schedrl's own training loops, at smoke size.

``tests/test_exact_resume.py`` does this for the SB3 trainers; here the loops schedrl wrote itself,
each through the command its Snakemake rule runs:

* MRSch's DFP (``schedrl mrsch train-dfp``, rule ``mrsch_train_dfp``): its checkpoint holds the
  replay memory (a side file), epsilon, the job-set position, every RNG and the curve and loss rows;
* DeepRM's REINFORCE (``schedrl deeprm train-agent``, rule ``deeprm_train_pg``): job sets stepped by
  the compiled grid batch, several per update;
* SEM's REINFORCE (``schedrl sem train``, rule ``sem_train_agent``), whose driver calls the trainer
  once per episode and validates each snapshot: the SEM encoder with the config's update (four
  trajectories per episode, contested decisions only), and the DRAS encoder with DRAS's own cadence
  (one trajectory, an update every 4 decisions: ``update_every``, another path through the trainer);
* MRSch's scalar-RL baseline (``schedrl mrsch train-scalar``, rule ``mrsch_train_scalar``): one env
  played one trajectory at a time (``lockstep=False``), no job sets (resets seeded per example).

Each runs once uninterrupted; then again, killed with SIGKILL at a random moment after its first
checkpoint (the seed of that moment is printed: ``SCHEDRL_KILL_SEED`` replays it), its rule's
declared outputs deleted as Snakemake deletes an incomplete job's before rerunning it, and the same
command run again. The two folders must hold the same files: final weights, every checkpoint kept,
curves, validation rows, test results. A last case stops DFP with SIGTERM (exit 143 after writing
the checkpoint of its last finished episode) and reruns it without deleting anything.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from test_exact_resume import SKIP, assert_same_run, run_interrupted

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[1]
SCHEDRL = str(Path(sys.executable).parent / "schedrl")
# Left out besides test_exact_resume's SKIP (timing.json: wall times; command.txt: one line per
# invocation; a dot-named .tmp a kill can leave beside a file being written):
# * command.txt below the compared folder too: SEM's trainer keeps its run folder in run/ and is
#   invoked once per episode, so a rerun adds lines there as well;
# * SEM's test.json and test_sampled.csv: each holds the wall and CPU seconds of its test play
#   beside the results; those are compared without the times (``_same_without_times``).
OWN_SKIP = [*SKIP, r"(^|/)command\.txt$", r"^test\.json$", r"^test_sampled\.csv$"]
# wall / CPU seconds in SEM's test.json and test_sampled.csv (nothing else in them is a time)
TIME_KEYS = ("wall_s", "agent_s", "encoder_s", "env_s", "sampled_cpu_s")


def _spec(paper: str, **over) -> dict:
    """The paper's config section as the smoke workflow passes it (config.yaml, smoke.yaml over
    it), with ``over`` merged in."""
    from schedrl.config import load_yaml, merge_config

    section = merge_config(load_yaml(REPO / "config" / "config.yaml")[paper],
                           load_yaml(REPO / "config" / "smoke.yaml").get(paper, {}))
    return merge_config(section, over)


@dataclass
class Case:
    command: list[str]  # run in ``work`` (MRSch reads its workloads from results/workloads/mrsch there)
    folder: str  # the run folder compared, relative to the root given to ``build``
    checkpoints: str  # where the first checkpoint appears (relative to ``folder``): a glob
    outputs: list[str] = field(default_factory=list)  # the rule's declared outputs (in ``folder``)


def _in(work: Path, command: list[str]) -> list[str]:
    """``command`` run in ``work``, as one process (``exec``: the kill reaches the trainer itself)."""
    return ["/bin/sh", "-c", 'cd "$1" && shift && exec "$@"', "sh", str(work), *command]


def _mrsch_tables(work: Path) -> None:
    """S1-S5 train/test splits (16 nodes, 8 burst-buffer units) where the MRSch commands read them."""
    from test_mrsch_experiments import _tree

    base = work / "results" / "workloads" / "mrsch"
    if not (base / "S5" / "train.swf").exists():
        base.mkdir(parents=True, exist_ok=True)
        _tree(base)


def _sem_split(split: Path) -> Path:
    """A SEM split of 16 training episodes of 20 jobs on 64 nodes (``test_sem_agents._swf_split``'s
    jobs, more of them), 10 validation and 20 test jobs."""
    import numpy as np
    import pandas as pd

    from schedrl.workloads.splits import sem_split
    from schedrl.workloads.swf import SWF_FIELDS, write_swf

    if (split / "split.json").exists():
        return split
    split.mkdir(parents=True, exist_ok=True)
    n = 350
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"job_id": np.arange(1, n + 1), "submit_time": np.sort(rng.integers(0, 200 * n, n)),
                          "wait_time": -1, "run_time": rng.integers(60, 3_000, n), "alloc_procs": -1,
                          "req_procs": rng.choice([2, 4, 8, 16, 32], n), "req_time": 3_600, "status": 1,
                          "user_id": 1, "queue": 1})
    for col in SWF_FIELDS:
        if col not in frame.columns:
            frame[col] = -1
    frame = frame[list(SWF_FIELDS)]
    frame.attrs["header"] = {"MaxProcs": "64"}
    parts, manifest = sem_split(frame, train_jobs=320, episode_jobs=20, val_jobs=10, test_jobs=20)
    for name, part in parts.items():
        write_swf(part, split / f"{name}.swf")
    (split / "split.json").write_text(json.dumps(manifest))
    return split


# Sizes: a few seconds of training after the first checkpoint (the kill lands within a second of it).
def _dfp(work: Path, root: Path) -> Case:
    _mrsch_tables(work)
    # 16 job sets of 80 jobs, a checkpoint every 2 (budget models after 2, 4 and 8); a replay of
    # 2,000 rows that the run fills and wraps, so a resume needs the memory's exact contents
    spec = _spec("mrsch", jobs_per_set=80, jobsets={"sampled": 4, "real": 4, "synthetic": 8}, checkpoint_every=2,
                 extra_seeds=[])
    folder = "dfp/two/mlp/sampled-real-synthetic"
    return Case([SCHEDRL, "mrsch", "train-dfp", "--spec", json.dumps(spec, sort_keys=True), "--root", str(root),
                 "--group", "two", "--state", "mlp", "--ordering", "sampled-real-synthetic", "--threads", "1"],
                folder, "checkpoints/episode_*.pt",
                ["model.zip", "losses.csv", "timing.json", "budget_0.125.zip", "budget_0.25.zip", "budget_0.5.zip"])


def _deeprm(work: Path, root: Path) -> Case:
    n = 60  # two job sets of four trajectories per update, a checkpoint every 4 iterations
    spec = _spec("deeprm", deeprm_agent={"iterations": n, "converge": {"rates": [0.7], "iterations": n},
                                         "checkpoint_every": 4})
    return Case([SCHEDRL, "deeprm", "train-agent", "--spec", json.dumps(spec, sort_keys=True), "--rate", "0.7",
                 "--seed", "0", "--run-dir", str(root / "run"), "--threads", "1"],
                "run", "checkpoints/iter_*.pt", ["model.zip", "learning_curve.csv", "timing.json"])


def _sem(encoder: str, hyperparams: dict):
    def build(work: Path, root: Path) -> Case:
        split = _sem_split(work / "sem_split")
        hp = {**_spec("sem")["agents"]["hyperparams"], **hyperparams}
        return Case([SCHEDRL, "sem", "train", "--split-dir", str(split), "--trace", "theta", "--encoder", encoder,
                     "--nodes", "64", "--k", "4", "--reward", "dras_theta", "--hidden", "16", "8",
                     "--priority-queues", "--hyperparams", json.dumps(hp, sort_keys=True), "--seed", "0",
                     "--play-seeds", "0", "1", "--episodes", "0", "--threads", "1", "--out-dir", str(root / "out")],
                    "out", "run/checkpoints/iter_*.pt",
                    ["test.json", "validation.csv", "timing.json", "budgets.csv", "test_jobs.csv", "fingerprint.json",
                     "test_sampled.csv", "test_jobs_sampled.csv"])
    return build


def _scalar(work: Path, root: Path) -> Case:
    _mrsch_tables(work)
    spec = _spec("mrsch", extra_seeds=[], scalar_rl={"iterations": 80})  # a checkpoint every 8 (the default 10 a run)
    return Case([SCHEDRL, "mrsch", "train-scalar", "--spec", json.dumps(spec, sort_keys=True), "--root", str(root),
                 "--group", "two", "--threads", "1"], "scalar_rl/two", "checkpoints/iter_*.pt",
                ["model.zip", "timing.json"])


CASES = {
    "dfp": _dfp,
    "deeprm_reinforce": _deeprm,
    # the config's update: four trajectories of the episode's jobs, contested decisions only
    "sem_reinforce_sem": _sem("sem", {}),
    # DRAS's own cadence: one trajectory, an update on every 4 decisions within it
    "sem_reinforce_dras_update_every": _sem("dras", {"trajectories": 1, "update_every": 4}),
    "mrsch_scalar_reinforce": _scalar,
}


def _env() -> dict:
    return dict(os.environ, OMP_NUM_THREADS="1", SCHEDRL_PROGRESS_SECONDS="3600")


def _run(work: Path, case: Case) -> None:
    done = subprocess.run(_in(work, case.command), env=_env(), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]


def _ready(run_dir: Path, pattern: str):
    def ready() -> bool:  # a checkpoint is listed by its .pt, written after its side files
        return any(run_dir.glob(pattern))
    return ready


def _same_without_times(a: Path, b: Path) -> None:
    """SEM's test.json and test_sampled.csv equal but for the seconds they record."""
    import pandas as pd

    if (a / "test.json").exists() or (b / "test.json").exists():
        x, y = (json.loads((d / "test.json").read_text()) for d in (a, b))
        for d in (x, y):
            for key in TIME_KEYS:
                d.pop(key, None)
        assert x == y, "test.json differs"
    if (a / "test_sampled.csv").exists() or (b / "test_sampled.csv").exists():
        x, y = (pd.read_csv(d / "test_sampled.csv").drop(columns=["wall_s"]) for d in (a, b))
        pd.testing.assert_frame_equal(x, y)


def _kill_seed() -> int:
    seed = int(os.environ.get("SCHEDRL_KILL_SEED", random.randrange(2**32)))
    print(f"kill delay seed {seed} (SCHEDRL_KILL_SEED={seed} replays it)")  # shown on failure
    return seed


@pytest.fixture(scope="module")
def work(tmp_path_factory):
    return tmp_path_factory.mktemp("own_loops")


def _reference(work: Path, name: str) -> Path:
    """The uninterrupted run of case ``name`` (run once per module)."""
    root = work / "uninterrupted" / name
    case = CASES[name](work, root)
    if not (root / case.folder / "timing.json").exists():
        _run(work, case)
    return root / case.folder


@pytest.mark.parametrize("name", list(CASES))
def test_sigkilled_own_loop_resumes_to_the_uninterrupted_run(name, work, tmp_path):
    reference = _reference(work, name)
    root = tmp_path / name
    case = CASES[name](work, root)
    run_dir = root / case.folder
    rc = run_interrupted(_in(work, case.command), _ready(run_dir, case.checkpoints), signal.SIGKILL,
                         random.Random(_kill_seed()), name)
    assert rc == -signal.SIGKILL
    print("killed with checkpoints", sorted(p.name for p in run_dir.glob(case.checkpoints)))
    for name_ in case.outputs:  # as Snakemake does before rerunning an incomplete job
        (run_dir / name_).unlink(missing_ok=True)
    _run(work, case)
    assert_same_run(reference, run_dir, skip=OWN_SKIP)
    _same_without_times(reference, run_dir)
    if name == "dfp":
        from schedrl.io import read_json

        resumes = read_json(run_dir / "timing.json")["resumes"]
        assert resumes and all(r["exact"] for r in resumes), resumes
        # the replay memories are gone once the run is finished (each is up to ~0.5 GB at the paper's
        # size; until then only the newest checkpoint's is kept)
        assert not list((run_dir / "checkpoints").glob("*.memory.npy"))


def test_sigterm_stops_dfp_with_an_exact_checkpoint_and_the_rerun_is_the_uninterrupted_run(work, tmp_path):
    from schedrl.io import read_json

    reference = _reference(work, "dfp")
    root = tmp_path / "dfp"
    case = _dfp(work, root)
    run_dir = root / case.folder
    rc = run_interrupted(_in(work, case.command), _ready(run_dir, case.checkpoints), signal.SIGTERM,
                         random.Random(_kill_seed()), "dfp")
    assert rc == 143  # schedrl.errors.Terminated
    stopped = read_json(run_dir / "timing.json")["interrupted"]
    # the checkpoint of the last finished episode is on disk with its memory (none, if the signal
    # came before the segment finished one)
    newest = max(int(p.name.split("_")[1].split(".")[0]) for p in run_dir.glob(case.checkpoints))
    if "episodes" in stopped:
        assert newest == stopped["episodes"]
    memories = [p.name for p in (run_dir / "checkpoints").glob("*.memory.npy")]
    assert memories == ([] if newest == 16 else [f"episode_{newest}.memory.npy"])  # the newest's only
    assert not (run_dir / "model.zip").exists()
    _run(work, case)
    assert_same_run(reference, run_dir, skip=OWN_SKIP)
    resumes = read_json(run_dir / "timing.json")["resumes"]
    assert resumes and all(r["exact"] for r in resumes), resumes


def test_sem_validates_the_newest_snapshot_when_killed_before_its_row(tmp_path, capsys):
    """SEM's driver killed between an episode's checkpoint and its validation row (the likeliest
    place: validation plays a whole split) validates that snapshot on the rerun, without training
    again from episode 1, and ends with the uninterrupted run's files and step count."""
    import shutil

    import pandas as pd

    from schedrl.io import read_json
    from schedrl.papers.sem import agents as A
    from test_sem_agents import _swf_split

    (tmp_path / "split").mkdir()
    split = _swf_split(tmp_path / "split")
    spec = A.AgentSpec(trace="theta", encoder="sem", nodes=64, k=4, hidden=[16, 8], reward="dras_theta",
                       hyperparams=_spec("sem")["agents"]["hyperparams"], window=10)
    A.train_agent(split, spec, tmp_path / "a", play_seeds=[0])
    shutil.copytree(tmp_path / "a", tmp_path / "b")
    b = tmp_path / "b"
    rows = pd.read_csv(b / "progress" / "validation.csv")
    assert rows["episode"].tolist() == [1, 2, 3]
    rows.iloc[:-1].to_csv(b / "progress" / "validation.csv", index=False)  # the last row never written
    for name in ("model.zip", "timing.json", "learning_curve.csv"):  # killed before the trainer's last files
        (b / "run" / name).unlink()
    for name in ("test.json", "validation.csv", "timing.json", "budgets.csv", "test_jobs.csv", "fingerprint.json",
                 "test_sampled.csv", "test_jobs_sampled.csv"):  # the rule's outputs, deleted by Snakemake
        (b / name).unlink()
    capsys.readouterr()
    A.train_agent(split, spec, b, play_seeds=[0])
    assert "training again" not in capsys.readouterr().out
    assert_same_run(tmp_path / "a", b, skip=OWN_SKIP)
    _same_without_times(tmp_path / "a", b)
    assert read_json(b / "timing.json")["steps"] == read_json(tmp_path / "a" / "timing.json")["steps"]


class _Died(BaseException):
    """A kill in the middle of the trainer (a BaseException: nothing in the CLI turns it into an exit code)."""


@pytest.mark.parametrize("dies_at", ["budgets.csv", "validation.csv"])
def test_sem_run_that_dies_between_a_budget_row_and_its_validation_row_resumes_exactly(dies_at, work, tmp_path,
                                                                                        monkeypatch):
    # The window the random kills above found once (2026-12-03, kill delay seed 2195908194): an episode's
    # validation row written, its budget checkpoint's row not yet, so the rerun took the episode as done and
    # its budgets.csv lost the row. Here the trainer dies, in process, as it writes the first budget
    # episode's budgets.csv or the validation.csv after it.
    import schedrl.papers.sem.agents as agents
    from schedrl.cli import main

    reference = _reference(work, "sem_reinforce_sem")
    case = CASES["sem_reinforce_sem"](work, tmp_path / "sem")
    monkeypatch.chdir(work)
    for key, value in _env().items():
        monkeypatch.setenv(key, value)
    real, seen = agents.write_csv, []

    def dying(path, *args, **kwargs):
        path = Path(path)
        if path.parent.name == "progress" and path.name in ("budgets.csv", "validation.csv"):
            seen.append(path.name)
            if path.name == dies_at and "budgets.csv" in seen:
                raise _Died(path)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(agents, "write_csv", dying)
    with pytest.raises(_Died):
        main(case.command[1:])
    monkeypatch.setattr(agents, "write_csv", real)
    run_dir = tmp_path / "sem" / case.folder
    for name_ in case.outputs:
        (run_dir / name_).unlink(missing_ok=True)
    _run(work, case)
    assert_same_run(reference, run_dir, skip=OWN_SKIP)
