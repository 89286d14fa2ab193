"""Run-folder helpers shared by SB3 training (``schedrl.experiments.train``) and DeepRM's
REINFORCE loop (``schedrl.agents.reinforce``): argument checks, config comparison, learning curve."""

from __future__ import annotations

import json
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
    ``timing.json``             this invocation's wall time and rate, and ``wall_time_total_s`` summed
                                over every resumed segment
    ==========================  =====================================================================

    ``command.txt`` is the only file that may differ between two runs of the same config and seed.
    """

    def __init__(self, path: str | Path, *, prefix: str = "step_", suffix: str = ".zip",
                 keep: int = KEEP_CHECKPOINTS):
        self.path = Path(path)
        self.prefix, self.suffix, self.keep = prefix, suffix, keep

    # -- files
    config_file = property(lambda self: self.path / "config.json")
    model_file = property(lambda self: self.path / "model.zip")
    timing_file = property(lambda self: self.path / "timing.json")
    checkpoint_dir = property(lambda self: self.path / "checkpoints")

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
    def finished(self, key: str = "steps") -> int | None:
        """``timing.json[key]`` of a finished run (final model present), else None."""
        from schedrl.io import read_json

        if self.model_file.exists() and self.timing_file.exists():
            return int(read_json(self.timing_file).get(key, 0))
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

    def prune(self) -> None:
        """Keep the newest ``keep`` checkpoints (and their side files)."""
        for n, path in self.checkpoints()[:-self.keep]:
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
        """``timing.json``: this invocation (wall time, rate of ``trained`` env steps) and the wall
        time summed over every segment of a resumed run."""
        from schedrl.io import read_json, write_json

        previous = read_json(self.timing_file) if self.timing_file.exists() else {}
        timing = {**fields, "steps_trained": int(trained), "wall_time_s": round(wall, 3),
                  "steps_per_s": round(trained / wall, 1) if wall > 0 else None,
                  "wall_time_total_s": round(float(previous.get("wall_time_total_s", 0.0)) + wall, 3)}
        write_json(self.timing_file, timing)
        return timing


def _plain(value):
    """YAML-safe copy of a hyperparameter structure (objects written by name)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return getattr(value, "__name__", None) or repr(value)
