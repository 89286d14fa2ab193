"""Optional TensorBoard logging (the ``tensorboard`` extra: ``pip install 'schedrl[tensorboard]'``).

SB3 algorithms log through their own ``tensorboard_log``; our own trainers (REINFORCE) write the
same tags (``rollout/ep_rew_mean``, ``rollout/ep_len_mean``, ``time/fps``) with torch's
``SummaryWriter``, so curves of both kinds of agents sit side by side in one TensorBoard.
"""

from __future__ import annotations

from pathlib import Path

from schedrl.errors import ConfigError


def require_tensorboard(logdir) -> str | None:
    """``logdir`` as a string (``None``: off), after checking the package is installed."""
    if logdir is None:
        return None
    try:
        import tensorboard  # noqa: F401
    except ImportError:
        raise ConfigError(f"--tensorboard {logdir}: the tensorboard package is not installed "
                          "(pip install 'schedrl[tensorboard]')") from None
    return str(logdir)


class ScalarLog:
    """A SummaryWriter in ``<logdir>/<name>`` (or nothing when ``logdir`` is None)."""

    def __init__(self, logdir: str | None, name: str):
        self._writer = None
        if require_tensorboard(logdir) is not None:
            from torch.utils.tensorboard import SummaryWriter

            self._writer = SummaryWriter(str(Path(logdir) / name))

    def scalars(self, step: int, **values: float) -> None:
        if self._writer is not None:
            for tag, value in values.items():
                self._writer.add_scalar(tag.replace("__", "/"), float(value), int(step))

    def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
