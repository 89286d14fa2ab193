"""Read and write the Standard Workload Format (SWF) of the Parallel Workloads Archive.

An SWF file is a ``;`` header (``; Key: value`` lines, indented continuation lines, repeated keys
such as ``Queue``) followed by one line per job of 18 whitespace-separated numbers, -1 meaning
missing. Files ending in ``.gz`` (or starting with the gzip magic bytes) are decompressed
transparently; written files ending in ``.gz`` are compressed (with a zero mtime, so the bytes are
reproducible).

Extension columns (burst buffer, power, runtime estimate; see ``table.EXT_FIELDS``) are written as
extra numbers after the 18 standard fields and named, in order, by one header line
``; ExtraFields: bb_request power_per_node runtime_estimate``. A reader that only knows SWF still
parses the first 18 fields; our reader restores the columns. An absent extension value is written
as -1 (as in SWF) and read back as NaN.

Round trip: ``read_swf(write_swf(t))`` gives back the same table values, header and column dtypes
(``clean=False``), and writing that table again gives the same bytes. Parsing is vectorised:
tokens are counted per line with numpy on the raw bytes and converted in one call.
"""

from __future__ import annotations

import gzip
import io
import math
import re
import zlib
from pathlib import Path

import numpy as np
import pandas as pd

from schedrl.errors import InputFileError
from schedrl.io import atomic_path
from schedrl.workloads.table import EXT_FIELDS, SWF_FIELDS, _as_swf_column, ext_columns

__all__ = ["read_swf", "write_swf", "parse_swf_text", "format_swf", "parse_header", "format_header"]

N_FIELDS = len(SWF_FIELDS)
EXTRA_KEY = "ExtraFields"
# A header key line: ";" then at most one space, a name, a colon, then blank or whitespace.
# "http://..." continuation lines do not match (the colon is followed by "/").
_KEY_LINE = re.compile(r"^;[ \t]?([A-Za-z][A-Za-z0-9_]*):(?:[ \t]+(.*?))?[ \t]*$")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_GZIP_MAGIC = b"\x1f\x8b"
# Bytes allowed in a data line: numbers (with sign, decimal point, exponent), space, tab, newline.
_ALLOWED = np.zeros(256, dtype=bool)
_ALLOWED[np.frombuffer(b"0123456789+-.eE \t\n", dtype=np.uint8)] = True


# --------------------------------------------------------------------------------------- reading
def read_swf(
    path: str | Path,
    *,
    clean: bool = True,
    max_procs: int | None = None,
    oversize: str = "drop",
    over_request: str = "keep",
    fill_requests: bool = True,
    sort: bool = True,
) -> pd.DataFrame:
    """Read an SWF file (``.gz`` transparently) into the job table.

    With ``clean=True`` (default) the cleaning rules of :mod:`schedrl.workloads.clean` are applied
    and counted in ``attrs["cleaning"]``; ``max_procs`` (default: the header's MaxProcs, else
    MaxNodes), ``oversize`` (drop | clip | error), ``over_request`` (keep | raise | drop; ``keep``,
    the PWA convention the CLI and the pipeline use too: the request stays and the simulator kills
    a job at it),
    ``fill_requests`` and ``sort`` are passed on to it. With ``clean=False`` the file's rows are
    returned exactly as written. A malformed file raises :class:`InputFileError` naming the line.
    """
    path = Path(path)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise InputFileError(path, "no such file") from None
    except IsADirectoryError:
        raise InputFileError(path, "is a directory, not an SWF file") from None
    if raw[:2] == _GZIP_MAGIC:
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as exc:  # BadGzipFile is an OSError
            raise InputFileError(path, f"corrupt gzip data ({exc})") from None
    frame = parse_swf_text(raw, source=path)
    frame.attrs["source"] = str(path)
    if clean:
        from schedrl.workloads.clean import clean_jobs

        frame = clean_jobs(frame, max_procs=max_procs, oversize=oversize, over_request=over_request,
                           fill_requests=fill_requests, sort=sort, source=path)
    return frame


def parse_swf_text(data: bytes | str, source: str | Path = "<swf>") -> pd.DataFrame:
    """Parse SWF text (bytes or str) into the job table without cleaning."""
    if isinstance(data, str):
        data = data.encode("utf-8", errors="surrogateescape")
    # Latin-1 maps every byte to one character: headers may hold accented names, and data lines
    # are checked byte by byte below, so nothing is lost or mis-numbered.
    if data.startswith(b"\xef\xbb\xbf"):  # UTF-8 byte-order mark
        data = data[3:]
    text = data.decode("latin-1")
    if "\x00" in text:
        line = text.count("\n", 0, text.index("\x00")) + 1
        raise InputFileError(source, "NUL byte: this is not a text SWF file", line)
    lines = text.split("\n")
    stripped = [ln.strip(" \t\r\f\v") for ln in lines]
    is_header = np.fromiter((s.startswith(";") for s in stripped), dtype=bool, count=len(stripped))
    is_blank = np.fromiter((not s for s in stripped), dtype=bool, count=len(stripped))
    header_idx = np.flatnonzero(is_header)
    data_idx = np.flatnonzero(~is_header & ~is_blank)
    header = parse_header([stripped[i] for i in header_idx], source=source, line_numbers=header_idx + 1)
    extra = header.pop(EXTRA_KEY, None)
    extra_names = _extra_names(extra, source, header_idx, [stripped[i] for i in header_idx])
    frame = _parse_data([stripped[i] for i in data_idx], data_idx + 1, extra_names, source)
    frame.attrs.update(header=header, source=str(source), cleaning={})
    return frame


def _extra_names(value, source, header_idx, header_lines) -> list[str]:
    if value is None:
        return []
    line = next((int(header_idx[k]) + 1 for k, s in enumerate(header_lines)
                 if _KEY_LINE.match(s) and _KEY_LINE.match(s).group(1) == EXTRA_KEY), None)
    if isinstance(value, list):
        raise InputFileError(source, f"header key {EXTRA_KEY} given more than once", line)
    names = value.split()
    for name in names:
        if not _NAME.match(name) or name in SWF_FIELDS:
            raise InputFileError(source, f"bad extra field name {name!r} in {EXTRA_KEY}", line)
    if len(set(names)) != len(names):
        raise InputFileError(source, f"repeated name in {EXTRA_KEY}: {value}", line)
    return names


def _parse_data(lines: list[str], line_numbers: np.ndarray, extra_names: list[str], source) -> pd.DataFrame:
    n_cols = N_FIELDS + len(extra_names)
    n = len(lines)
    if n == 0:
        values = np.empty((0, n_cols))
    else:
        joined = "\n".join(lines).encode("latin-1", errors="replace")
        buf = np.frombuffer(joined, dtype=np.uint8)
        newlines = np.flatnonzero(buf == 10)
        odd = np.flatnonzero(~_ALLOWED[buf])
        if odd.size:
            k = int(odd[0])
            row = int(np.searchsorted(newlines, k))
            raise InputFileError(source, f"unexpected character {chr(buf[k])!r} in a data line",
                                 int(line_numbers[row]))
        # Count tokens per line: a token starts at a non-space byte after a space (or at byte 0).
        space = (buf == 32) | (buf == 9) | (buf == 10)
        starts = ~space
        starts[1:] &= space[:-1]
        counts = np.bincount(np.searchsorted(newlines, np.flatnonzero(starts)), minlength=n)
        bad = np.flatnonzero(counts != n_cols)
        if bad.size:
            k = int(bad[0])
            expected = f"{N_FIELDS} SWF fields" + (f" + {len(extra_names)} extra" if extra_names else "")
            raise InputFileError(source, f"expected {expected}, found {counts[k]} fields",
                                 int(line_numbers[k]))
        # Every line now holds n_cols tokens of number characters: pandas' C parser converts them.
        try:
            values = pd.read_csv(io.BytesIO(joined), sep=r"\s+", header=None, dtype=np.float64,
                                 engine="c", names=range(n_cols)).to_numpy()
        except ValueError:
            values = None
        if values is None or values.shape != (n, n_cols) or not np.all(np.isfinite(values)):
            _raise_bad_token(joined.decode("latin-1").split(), n_cols, line_numbers, source)
    data = {name: _as_swf_column(values[:, j]) for j, name in enumerate(SWF_FIELDS)}
    for j, name in enumerate(extra_names):
        col = values[:, N_FIELDS + j].astype(np.float64)
        col[col == -1] = np.nan
        data[name] = col
    return pd.DataFrame(data)


def _raise_bad_token(tokens, n_cols, line_numbers, source):
    """Slow path, only on error: find the first token that is not a finite number."""
    for k, tok in enumerate(tokens):
        try:
            ok = math.isfinite(float(tok))
        except ValueError:
            ok = False
        if not ok:
            row, col = divmod(k, n_cols)
            name = SWF_FIELDS[col] if col < N_FIELDS else f"extra field {col - N_FIELDS + 1}"
            raise InputFileError(source, f"field {col + 1} ({name}) is not a finite number: {tok[:40]!r}",
                                 int(line_numbers[row]))
    raise InputFileError(source, "unparsable number")  # pragma: no cover - defensive


def parse_header(lines: list[str], source="<swf>", line_numbers=None) -> dict:
    """Parse ``;`` header lines into an ordered dict.

    ``; Key: value`` gives ``header[Key] = "value"``; a repeated key gives a list of values in file
    order; an indented line without a key continues the previous value (joined with a newline);
    text before any key is kept under ``"Comment"``. Empty ``;`` lines are dropped.
    """
    header: dict = {}
    last_key = None
    for line in lines:
        m = _KEY_LINE.match(line)
        if m:
            key, value = m.group(1), (m.group(2) or "")
            if key in header:
                if not isinstance(header[key], list):
                    header[key] = [header[key]]
                header[key].append(value)
            else:
                header[key] = value
            last_key = key
            continue
        text = line[1:].strip()
        if not text:
            continue
        if last_key is None:
            last_key = "Comment"
            header.setdefault(last_key, "")
            if header[last_key]:
                header[last_key] += "\n"
            header[last_key] += text
            continue
        current = header[last_key]
        if isinstance(current, list):
            current[-1] = f"{current[-1]}\n{text}" if current[-1] else text
        else:
            header[last_key] = f"{current}\n{text}" if current else text
    return header


# --------------------------------------------------------------------------------------- writing
def format_header(header: dict, extra_names: list[str] = ()) -> str:
    """The ``;`` header text for ``header`` (see :func:`parse_header`) plus the ExtraFields line."""
    out = []
    for key, value in header.items():
        if key == EXTRA_KEY:
            continue
        if not _NAME.match(str(key)):
            raise ValueError(f"SWF header key must be a name: {key!r}")
        for item in value if isinstance(value, list) else [value]:
            parts = str(item).split("\n")
            first = parts[0].strip()
            out.append(f"; {key}: {first}".rstrip())
            pad = " " * (len(str(key)) + 2)
            out.extend(f"; {pad}{p.strip()}" for p in parts[1:] if p.strip())
    if extra_names:
        out.append(f"; {EXTRA_KEY}: {' '.join(extra_names)}")
    return "".join(line + "\n" for line in out)


def format_swf(frame: pd.DataFrame) -> str:
    """The SWF text of a job table (header from ``attrs["header"]``, then one line per job)."""
    missing = [c for c in SWF_FIELDS if c not in frame.columns]
    if missing:
        raise ValueError(f"job table lacks SWF columns: {missing}")
    extras = ext_columns(frame)
    for name in extras:
        if not _NAME.match(str(name)):
            raise ValueError(f"extension column must be a name: {name!r}")
    header = dict(frame.attrs.get("header", {}) or {})
    head = format_header(header, extras)
    if len(frame) == 0:
        return head
    cols = {f"c{j}": _format_column(frame[c].to_numpy(), ext=False) for j, c in enumerate(SWF_FIELDS)}
    for j, c in enumerate(extras):
        cols[f"e{j}"] = _format_column(frame[c].to_numpy(dtype=np.float64), ext=True)
    body = pd.DataFrame(cols).to_csv(sep=" ", header=False, index=False, lineterminator="\n",
                                     quoting=3)  # csv.QUOTE_NONE: numbers only
    return head + body


def _format_column(values: np.ndarray, ext: bool) -> np.ndarray:
    """int64 stays int64 (pandas writes it fast); floats become strings: integral ones without a
    decimal point, others in Python's shortest round-trip form; NaN extension values become -1."""
    if values.dtype.kind in "iub":
        return values.astype(np.int64)
    values = values.astype(np.float64)
    if ext:
        values = np.where(np.isnan(values), -1.0, values)
    if not np.all(np.isfinite(values)):
        raise ValueError("SWF values must be finite")
    as_int = values.astype(np.int64)
    integral = as_int == values
    if integral.all():
        return as_int
    out = as_int.astype(str).astype(object)
    out[~integral] = [repr(float(v)) for v in values[~integral]]
    return out


def write_swf(frame: pd.DataFrame, path: str | Path) -> Path:
    """Write a job table as SWF, atomically; gzip-compressed when ``path`` ends in ``.gz``."""
    path = Path(path)
    data = format_swf(frame).encode("latin-1", errors="replace")
    if path.suffix == ".gz":
        buf = io.BytesIO()
        with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0, filename="") as gz:
            gz.write(data)
        data = buf.getvalue()
    with atomic_path(path) as tmp:
        tmp.write_bytes(data)
    return path


EXT_FIELDS = EXT_FIELDS  # re-exported for callers that import the column names from here
