"""The run folder of every trainer (``RunFolder``): SB3 training (``schedrl.experiments.train``),
DeepRM's REINFORCE loop (``schedrl.agents.reinforce``) and any agent to come; plus the shared
argument checks and the learning-curve writer.

A trainer uses it as::

    folder = RunFolder(run_dir, prefix="iter_", suffix=".pt")
    start = folder.start(identity, target, on_mismatch=on_mismatch, key="iterations")
    if start.skip:                       # the final model already reached the target
        return ...
    ...resume from start.checkpoint (n, path) if any...
    folder.write_config(record, resolved_hyperparams)
    with folder.segment(on_interrupt) as clock:       # Ctrl-C: on_interrupt() saves a checkpoint
        for n in ...:
            ...; save(folder.checkpoint_path(n)); folder.prune()   # every default_checkpoint_every
    folder.write_curve(rows); save(folder.model_file); folder.write_timing(clock(), trained, steps=...)
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from schedrl.errors import ConfigError
from schedrl.io import write_csv

CURVE_FIELDS = ("timesteps", "env", "reward", "length")


def canonical(obj) -> str:
    """A stable text form of a JSON-like value, for comparing stored and new run configs."""
    return json.dumps(obj, sort_keys=True, default=str)


def begin_run(target: int, what: str, checkpoint_every: int | None, threads: int) -> None:
    """Check the target (``what`` names it in the error) and checkpoint interval; set torch threads."""
    import torch

    if target < 1:
        raise ConfigError(f"{what} must be >= 1, got {target}")
    if checkpoint_every is not None and checkpoint_every < 1:
        raise ConfigError(f"checkpoint interval must be >= 1, got {checkpoint_every}")
    torch.set_num_threads(max(1, int(threads)))


def write_learning_curve(folder: Path, rows: list[dict], info_keywords=(),
                         name: str = "learning_curve.csv") -> None:
    """``learning_curve.csv`` (or ``name``): one row per training episode, no wall times."""
    import pandas as pd

    columns = [*CURVE_FIELDS, *info_keywords]
    frame = pd.DataFrame(rows, columns=columns)
    write_csv(Path(folder) / name, frame, float_format="%.6g")


#: How many checkpoints a run keeps (the newest); a finished run keeps them too, so a rerun with a
#: higher target continues from the last one.
KEEP_CHECKPOINTS = 2
#: Checkpoints are on by default: this many per run when the caller gives no interval, so a killed
#: run resumes without a flag.
DEFAULT_CHECKPOINTS_PER_RUN = 10


def default_checkpoint_every(target: int, checkpoint_every: int | None) -> int:
    """The caller's interval, else ``target / DEFAULT_CHECKPOINTS_PER_RUN`` (at least 1)."""
    if checkpoint_every is not None:
        return int(checkpoint_every)
    return max(1, int(target) // DEFAULT_CHECKPOINTS_PER_RUN)


class Paused(Exception):
    """A run stopped where its caller asked (``train(stop_at=...)``), with an exact checkpoint
    there; not an error: a rerun with a later stop, or none, continues it."""


class RunFolder:
    """The run folder every trainer writes (SB3 agents, REINFORCE, and any agent to come).

    ==========================  =====================================================================
    ``config.json``             what identifies the run (env, algorithm, hyperparameters, seed) plus
                                the target and library versions; a different run is refused or
                                cleared (``on_mismatch``)
    ``hyperparams.yaml``        the resolved hyperparameters (rl-baselines3-zoo's ``config.yml``)
    ``command.txt``             the exact command line of each invocation (rl-zoo's ``args.yml``)
    ``model.zip``               the final model
    ``checkpoints/``            ``<prefix><n><suffix>`` every N steps or iterations, the newest
                                ``KEEP_CHECKPOINTS`` kept (with their side files ``<prefix><n>.*``)
    ``learning_curve.csv``      one row per training episode (no wall times: byte-stable)
    ``timing.json``             the final model's progress (``steps``; ``iterations``), the last
                                invocation's wall time and rate, ``wall_time_total_s`` summed over
                                every segment (an interrupted one noted under ``interrupted``); an
                                interrupted or paused run keeps a copy in ``checkpoints/`` until it
                                finishes, which carries the sums across a job that removes it
                                (Snakemake deletes a job's declared outputs before it runs, so a run
                                continued by a second rule would lose its segments)
    ==========================  =====================================================================

    ``command.txt`` is the only file that may differ between two runs of the same config and seed.
    """

    def __init__(self, path: str | Path, *, prefix: str = "step_", suffix: str = ".zip",
                 keep: int = KEEP_CHECKPOINTS, keep_steps=(), budget_milestones: bool = True):
        self.path = Path(path)
        self.prefix, self.suffix, self.keep = prefix, suffix, keep
        # False: a trainer that saves its budget models itself (DFP's ``keep_at``) prunes the
        # checkpoints at the budget shares like any other
        self.budget_milestones = budget_milestones
        # milestones: the first checkpoint at or after each is never pruned (budget evaluations)
        self.keep_steps = tuple(sorted(int(n) for n in keep_steps))

    # -- files
    config_file = property(lambda self: self.path / "config.json")
    model_file = property(lambda self: self.path / "model.zip")
    timing_file = property(lambda self: self.path / "timing.json")
    checkpoint_dir = property(lambda self: self.path / "checkpoints")
    timing_copy = property(lambda self: self.checkpoint_dir / "timing.json")

    # -- identity
    def check_config(self, identity: dict, on_mismatch: str = "error") -> bool:
        """Compare ``identity`` with the stored config; True when the folder holds this run (or
        nothing). A different run raises ConfigError, or with ``on_mismatch="restart"`` is cleared."""
        from schedrl.io import read_json

        if not self.config_file.exists():
            return True
        old = read_json(self.config_file)
        diff = sorted(k for k in identity if canonical(old.get(k)) != canonical(identity[k]))
        if not diff:
            return True
        if on_mismatch != "restart":
            raise ConfigError(f"{self.path}: run folder holds a different run ({', '.join(diff)} differ); "
                              "remove it or choose another folder")
        self.clear()
        return False

    def write_config(self, record: dict, hyperparams: dict | None = None) -> None:
        """``config.json``, the resolved ``hyperparams.yaml`` and this invocation's ``command.txt``."""
        import shlex
        import sys

        import yaml

        from schedrl.io import write_json, write_text

        self.path.mkdir(parents=True, exist_ok=True)
        write_json(self.config_file, record)
        if hyperparams is not None:
            write_text(self.path / "hyperparams.yaml", yaml.safe_dump(_plain(hyperparams), sort_keys=True))
        command = " ".join(shlex.quote(a) for a in sys.argv)
        with (self.path / "command.txt").open("a") as fh:  # one line per invocation (resumes too)
            fh.write(command + "\n")

    def clear(self) -> None:
        """Remove what a previous (different) run left here."""
        import shutil

        shutil.rmtree(self.checkpoint_dir, ignore_errors=True)
        shutil.rmtree(self.path / "monitor", ignore_errors=True)
        for name in ("model.zip", "learning_curve.csv", "timing.json", "config.json", "hyperparams.yaml",
                     "command.txt"):
            (self.path / name).unlink(missing_ok=True)

    # -- progress
    def start(self, identity: dict, target: int, *, on_mismatch: str = "error", key: str = "steps",
              upto: int | None = None) -> Start:
        """Where an invocation starts: compare ``identity`` with the stored config (``check_config``),
        then the final model's progress (``timing.json[key]``), whether it already reached ``target``
        (nothing to do) and the newest checkpoint (those beyond ``upto`` ignored) to resume from."""
        self.check_config(identity, on_mismatch)
        self.target = int(target)
        done = self.finished(key)
        found = [(n, path) for n, path in self.checkpoints() if upto is None or n <= upto]
        return Start(done, done is not None and done >= target, found[-1] if found else None)

    def finished(self, key: str = "steps") -> int | None:
        """``timing.json[key]`` of a finished run (final model present), else None."""
        from schedrl.io import read_json

        if self.model_file.exists() and self.timing_file.exists():
            value = read_json(self.timing_file).get(key)
            return None if value is None else int(value)
        return None

    def checkpoints(self) -> list[tuple[int, Path]]:
        """``(n, path)`` of the checkpoints, oldest first."""
        found = []
        if self.checkpoint_dir.is_dir():
            for path in self.checkpoint_dir.glob(f"{self.prefix}*{self.suffix}"):
                number = path.name[len(self.prefix):-len(self.suffix)]
                if number.isdigit():
                    found.append((int(number), path))
        return sorted(found)

    def checkpoint_path(self, n: int) -> Path:
        self.checkpoint_dir.mkdir(parents=True, exist_ok=True)
        return self.checkpoint_dir / f"{self.prefix}{int(n)}{self.suffix}"

    def side_file(self, n: int, suffix: str) -> Path:
        """A file that travels with checkpoint ``n`` (a replay buffer, the curve so far)."""
        return self.checkpoint_dir / f"{self.prefix}{int(n)}{suffix}"

    def budget_checkpoints(self, target: int | None = None) -> list[tuple[float, int, Path]]:
        """``(fraction, n, path)``: for each share of ``target`` in ``BUDGET_FRACTIONS`` short of all
        of it, the first checkpoint at or after that share (the claims' checkpoints at 1/8, 1/4, 1/2
        of training); shares with no such checkpoint are left out."""
        from schedrl.protocol import BUDGET_FRACTIONS

        target = getattr(self, "target", None) if target is None else target
        found = self.checkpoints()
        out = []
        for f in BUDGET_FRACTIONS if target else ():
            first = next(((n, p) for n, p in found if n >= f * target - 1e-9), None)
            if f < 1.0 and first is not None:
                out.append((float(f), *first))
        return out

    def prune(self, keep: int | None = None) -> None:
        """Keep the newest ``keep`` (default ``self.keep``) checkpoints (and their side files), for
        each of ``keep_steps`` the first checkpoint at or after it, and those at the budget shares of
        the target (``budget_checkpoints``, unless ``budget_milestones`` is False) once ``start`` has
        named the target."""
        found = self.checkpoints()
        milestones = {n for _, n, _ in self.budget_checkpoints()} if self.budget_milestones else set()
        for m in self.keep_steps:
            first = next((n for n, _ in found if n >= m), None)
            if first is not None:
                milestones.add(first)
        for n, path in found[:-(self.keep if keep is None else keep)]:
            if n in milestones:
                continue
            path.unlink(missing_ok=True)
            for side in self.checkpoint_dir.glob(f"{self.prefix}{n}.*"):
                side.unlink(missing_ok=True)

    def drop_off_grid(self, on_grid: Callable[[int], bool]) -> None:
        """Remove the checkpoints (and their side files) older than the newest that ``on_grid`` does
        not name: those an interrupt wrote between the periodic ones, once a newer one stands. An
        interrupted run then keeps the checkpoints an uninterrupted one keeps (``prune`` would keep
        such a one as the first at or after a budget share, in place of the periodic one after it).
        Call before ``prune``."""
        for n, path in self.checkpoints()[:-1]:
            if not on_grid(n):
                path.unlink(missing_ok=True)
                for side in self.checkpoint_dir.glob(f"{self.prefix}{n}.*"):
                    side.unlink(missing_ok=True)

    def remove_checkpoints(self) -> None:
        import shutil

        shutil.rmtree(self.checkpoint_dir, ignore_errors=True)

    # -- outputs
    def write_curve(self, rows: list[dict], info_keywords=(), name: str = "learning_curve.csv",
                    folder: Path | None = None) -> None:
        write_learning_curve(folder or self.path, rows, info_keywords, name=name)

    def write_timing(self, wall: float, trained: int, **fields) -> dict:
        """``timing.json`` of a finished invocation: its wall time and rate of ``trained`` env steps,
        ``fields`` (``steps``, ...), ``wall_time_total_s`` summed over every segment of the run, and
        the CPU seconds of the process so far (``process_cpu_s``: its start-up included, and any run
        trained earlier in the same process; ``process_cpu_total_s`` over every segment). Snakemake's
        benchmark files sample CPU every 30 s and miss a rule's last interval, so cost models are
        fitted to these."""
        from schedrl import codepaths
        from schedrl.io import write_json

        cpu = time.process_time()
        timing = {**fields, "steps_trained": int(trained), "wall_time_s": round(wall, 3),
                  "code_path": codepaths.describe(),  # files are the same on both x86 kinds only when pinned
                  "steps_per_s": round(trained / wall, 1) if wall > 0 else None,
                  "wall_time_total_s": round(self._total("wall_time_total_s") + wall, 3),
                  "process_cpu_s": round(cpu, 3),
                  "process_cpu_total_s": round(self._total("process_cpu_total_s") + cpu, 3)}
        write_json(self.timing_file, timing)
        self.timing_copy.unlink(missing_ok=True)  # a finished run's files are an uninterrupted run's
        return timing

    def write_interrupted(self, wall: float, trained: int, *, resume: dict | None = None, **fields) -> dict:
        """Record an interrupted segment: its time counts in ``wall_time_total_s``, its progress goes
        under ``interrupted`` only, so the fields of the final model (if any) stay as they were;
        ``resume``, the segment's own resume record, joins ``resumes`` where the segment left a
        checkpoint past it (a run paused twice has two; a segment whose progress was lost, none)."""
        from schedrl.io import write_json

        previous = self.timing_so_far()
        cpu = time.process_time()
        timing = {**previous, "interrupted": {**fields, "steps_trained": int(trained), "wall_time_s": round(wall, 3),
                                              "process_cpu_s": round(cpu, 3)},
                  "wall_time_total_s": round(self._total("wall_time_total_s") + wall, 3),
                  "process_cpu_total_s": round(self._total("process_cpu_total_s") + cpu, 3)}
        if resume is not None and any(n > resume["from"] for n, _ in self.checkpoints()):
            timing["resumes"] = self.resumes(resume)  # the segment left progress to resume from
        write_json(self.timing_file, timing)
        self.checkpoint_dir.mkdir(parents=True, exist_ok=True)
        write_json(self.timing_copy, timing)
        return timing

    def timing_so_far(self) -> dict:
        """The run's timing so far: ``timing.json``, else its copy beside the checkpoints, else {}."""
        from schedrl.io import read_json

        for path in (self.timing_file, self.timing_copy):
            if path.exists():
                return read_json(path)
        return {}

    def resumes(self, resume: dict | None = None) -> list[dict]:
        """Every resume of the run so far (``{"from": n, "exact": bool}``, from ``timing.json``)
        plus ``resume``: a record that says whether the final model is the uninterrupted run's."""
        return [*self.timing_so_far().get("resumes", []), *([resume] if resume else [])]

    def _total(self, key: str) -> float:
        """``key`` of the run's timing.json so far (0 before the first segment)."""
        return float(self.timing_so_far().get(key, 0.0))

    # -- one invocation
    @contextmanager
    def segment(self, on_interrupt: Callable[[], dict], resume: dict | None = None) -> Iterator[Callable[[], float]]:
        """Time one invocation's training: yields a clock (seconds since the start). Ctrl-C
        (KeyboardInterrupt) or a planned pause (``Paused``) inside calls ``on_interrupt``, which
        returns the segment's progress (``trained`` env steps plus fields such as ``steps``); the
        segment is recorded (``write_interrupted``, with ``resume``: where this invocation resumed)
        and the exception re-raised, so a rerun resumes."""
        began = time.perf_counter()

        def clock() -> float:
            return time.perf_counter() - began

        try:
            yield clock
        except (KeyboardInterrupt, Paused):
            wall = clock()
            fields = dict(on_interrupt() or {})
            self.write_interrupted(wall, int(fields.pop("trained", 0)), resume=resume, **fields)
            raise


@dataclass(frozen=True)
class Start:
    """``RunFolder.start``'s answer: the final model's progress (None: no final model), whether it
    already reached the target, and the newest checkpoint ``(n, path)`` (None: none)."""

    done: int | None
    skip: bool
    checkpoint: tuple[int, Path] | None

def _plain(value):
    """YAML-safe copy of a hyperparameter structure (objects written by name)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return getattr(value, "__name__", None) or repr(value)


class LogProgress:
    """tqdm's interface for logs: when stderr is not a terminal (a Snakemake or SLURM log) a bar is
    invisible until the rule ends, so this prints one line every ``interval`` seconds instead:
    done/total, rate, ETA and the latest episode reward."""

    def __init__(self, total: int, initial: int = 0, unit: str = "step", desc: str = "", interval: float = 30.0):
        import time

        self.total, self.n, self.unit, self.desc, self.interval = int(total), int(initial), unit, desc, interval
        self._t0 = self._last = time.perf_counter()
        self._n0 = self.n
        self.postfix = ""

    def set_postfix_str(self, text: str, refresh: bool = False) -> None:
        self.postfix = text

    def update(self, k: int = 1) -> None:
        import time

        self.n += int(k)
        now = time.perf_counter()
        if now - self._last >= self.interval:
            self._last = now
            self._line(now)

    def close(self) -> None:
        import time

        self._line(time.perf_counter())

    def _line(self, now: float) -> None:
        import sys

        elapsed = max(now - self._t0, 1e-9)
        rate = (self.n - self._n0) / elapsed
        left = (self.total - self.n) / rate if rate > 0 else float("nan")
        eta = f"{int(left // 60)}m{int(left % 60):02d}s" if left == left else "?"
        share = self.n / self.total if self.total else 1.0
        extra = f", {self.postfix}" if self.postfix else ""
        print(f"{self.desc}: {self.n:,}/{self.total:,} {self.unit}s ({share:.0%}), {rate:,.1f} {self.unit}s/s, "
              f"ETA {eta}{extra}", file=sys.stderr, flush=True)


def progress_bar(total: int, initial: int = 0, unit: str = "step", desc: str = ""):
    """A tqdm bar on a terminal; ``LogProgress`` lines (every ``SCHEDRL_PROGRESS_SECONDS``, default
    30) in a log file, so a long rule shows signs of life while it runs."""
    import os
    import sys

    if sys.stderr.isatty():
        from tqdm.auto import tqdm

        return tqdm(total=total, initial=initial, unit=unit, desc=desc, dynamic_ncols=True)
    return LogProgress(total, initial, unit, desc, float(os.environ.get("SCHEDRL_PROGRESS_SECONDS", 30)))
