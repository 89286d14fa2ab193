"""User-facing errors.

Anything a user can cause (a bad file, line, argument or config key) raises ``SchedrlError`` with
one line that names the culprit. The CLI prints that line and exits with status 2; library callers
can catch it. Programming errors stay ordinary exceptions with tracebacks.
"""

from __future__ import annotations

import math
import numbers

import numpy as np


class SchedrlError(Exception):
    """An error caused by the user's input; its message is one self-contained line."""


class InputFileError(SchedrlError):
    """A malformed input file; the message names ``file:line`` where known."""

    def __init__(self, path, reason: str, line: int | None = None):
        where = f"{path}:{line}" if line is not None else f"{path}"
        super().__init__(f"{where}: {reason}")
        self.path = path
        self.line = line
        self.reason = reason


class ConfigError(SchedrlError):
    """A bad configuration value; the message names the dotted key."""


def check_int(name: str, value, minimum: int | None = None) -> int:
    """``value`` as an ``int``, or a ``ConfigError`` naming ``name``: an integer (a float without a
    fraction, such as YAML's ``1.0e3``, counts), never a bool or a string; at least ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or (
            not isinstance(value, numbers.Integral) and not float(value).is_integer()):
        raise ConfigError(f"{name} must be an integer, not {value!r}")
    if minimum is not None and value < minimum:
        raise ConfigError(f"{name} must be >= {minimum}, got {value}")
    return int(value)


def check_real(name: str, value) -> float:
    """``value`` as a finite ``float``, or a ``ConfigError`` naming ``name`` (never a bool or a string)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(value):
        raise ConfigError(f"{name} must be a finite number, not {value!r}")
    return float(value)


def check_bool(name: str, value) -> bool:
    """``value`` as a ``bool`` (true or false in YAML), or a ``ConfigError`` naming ``name``."""
    if not isinstance(value, (bool, np.bool_)):
        raise ConfigError(f"{name} must be true or false, not {value!r}")
    return bool(value)


class Terminated(KeyboardInterrupt):
    """SIGTERM (a cluster time limit, preemption, Snakemake stopping its jobs) taken as Ctrl-C, so
    trainers write their checkpoint and a rerun resumes (SLURM sends SIGKILL ~30 s later); the
    CLI exits 143."""
