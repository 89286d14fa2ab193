"""Small file helpers shared by every layer: atomic writes and JSON with stable formatting.

Outputs are written to a temporary file beside the target and renamed into place, so an
interrupted run never leaves a half-written file that looks finished.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any


@contextlib.contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; on success it is renamed to ``path``."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    # mkstemp creates 0600; give the result the permissions a plain open() would (umask applies)
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        os.replace(tmp_path, path)
    finally:
        if tmp_path.exists():
            tmp_path.unlink()


def link_or_copy(src: str | Path, dst: str | Path) -> None:
    """``dst`` as a second name of ``src`` (a hard link: no second copy of a model of up to 0.2 GB on
    disk), or a copy where the file system has no links; written atomically. Only for files that are
    replaced, never rewritten in place (every writer here renames a new file into place), and not for a
    workflow's declared output: the link keeps the source's mtime, which Snakemake would read as stale."""
    import shutil

    with atomic_path(dst) as tmp:
        tmp.unlink()
        try:
            os.link(src, tmp)
        except OSError:
            shutil.copyfile(src, tmp)


def write_text(path: str | Path, text: str) -> None:
    with atomic_path(path) as tmp:
        tmp.write_text(text)


def write_json(path: str | Path, obj: Any) -> None:
    """Write JSON with sorted keys and a trailing newline (byte-stable across runs).

    NaN and infinities are written as ``null`` so the file stays valid JSON.
    """
    text = json.dumps(_finite(obj), indent=2, sort_keys=True, default=_default, allow_nan=False)
    write_text(path, text + "\n")


def _finite(obj: Any) -> Any:
    """Replace non-finite floats (also numpy ones) by None, recursively."""
    import math

    import numpy as np

    if isinstance(obj, dict):
        return {k: _finite(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_finite(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return _finite(obj.tolist())
    if isinstance(obj, (float, np.floating)):
        return float(obj) if math.isfinite(obj) else None
    return obj


def read_json(path: str | Path) -> Any:
    with Path(path).open() as fh:
        return json.load(fh)


def read_result(path: str | Path):
    """A CSV a pipeline rule wrote; a missing one raises InputFileError saying which rule to run."""
    import pandas as pd

    from schedrl.errors import InputFileError

    if not Path(path).exists():
        raise InputFileError(path, "missing (run its Snakemake rule first)")
    return pd.read_csv(path)


def write_csv(path: str | Path, frame, **kwargs) -> None:
    """Write a pandas DataFrame as CSV atomically (index off unless asked)."""
    kwargs.setdefault("index", False)
    with atomic_path(path) as tmp:
        frame.to_csv(tmp, **kwargs)


def _default(obj):
    import numpy as np

    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating):
        return float(obj)
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, Path):
        return str(obj)
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")
