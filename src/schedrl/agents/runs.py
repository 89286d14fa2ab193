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
