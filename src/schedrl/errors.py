"""User-facing errors.

Anything a user can cause (a bad file, line, argument or config key) raises ``SchedrlError`` with
one line that names the culprit. The CLI prints that line and exits with status 2; library callers
can catch it. Programming errors stay ordinary exceptions with tracebacks.
"""

from __future__ import annotations


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


class Terminated(KeyboardInterrupt):
    """SIGTERM (a cluster time limit, preemption, Snakemake stopping its jobs) taken as Ctrl-C, so
    trainers write their checkpoint and a rerun resumes (SLURM sends SIGKILL ~30 s later); the
    CLI exits 143."""
