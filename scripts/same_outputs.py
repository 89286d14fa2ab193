#!/usr/bin/env python3
"""Compare two output trees file by file, as `make test-slurm` needs: byte for byte, except that
zip archives (Stable-Baselines3 models) are compared member by member: the weights and optimizer
state (``*.pth``) byte for byte, and SB3's ``data`` member as JSON values, without what holds
wall-clock time (``start_time``; ``ep_info_buffer``, whose entries carry each episode's elapsed
seconds) and with the memory addresses taken out of the reprs SB3 writes beside each pickled object
(``"forward": "<function LeanMlpPolicy.forward at 0x7f23...>"``), which differ per process. Two runs
of the same seeded rule then agree on everything that the model *is*, and a real difference
(weights, optimizer state, hyperparameters, step counts, the pickled objects) still shows.

    python scripts/same_outputs.py DIR_A DIR_B [--skip REGEX ...]

Prints one line per differing file and exits 1 if any differ, 0 otherwise.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import zipfile
from pathlib import Path

# ...and ``_num_timesteps_at_start``: where the last invocation began (a resumed run's differs).
WALL_CLOCK_KEYS = ("start_time", "ep_info_buffer", "_num_timesteps_at_start")
# " at 0x7f23c3e29620" in a repr: where the object sat in that process's memory.
ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")


def _no_addresses(value: object) -> object:
    """``value`` with every string's memory addresses removed (nested dicts and lists too).

    For an object it cannot store as JSON, SB3 writes ``:serialized:`` (the cloudpickle it loads)
    and, for reading only, the reprs of the object's attributes. Only the reprs are normalised: the
    ``:serialized:`` blobs are still compared byte for byte, since they are what SB3 unpickles (a
    class by module and name, a schedule as its class and values) and hold no address; skipping them
    would hide a changed class or learning rate. The reprs, less their addresses, are compared too:
    they name the class and its methods.
    """
    if isinstance(value, str):
        return ADDRESS.sub("", value)
    if isinstance(value, dict):
        return {k: _no_addresses(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_no_addresses(v) for v in value]
    return value


def _sb3_data(raw: bytes) -> object:
    try:
        data = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return raw
    if isinstance(data, dict):
        for key in WALL_CLOCK_KEYS:
            data.pop(key, None)
    return _no_addresses(data)


def same_file(a: Path, b: Path) -> bool:
    """Equal bytes, or (both zips) the same members with equal contents, SB3 ``data`` less wall time
    and memory addresses."""
    if a.read_bytes() == b.read_bytes():
        return True
    if not (zipfile.is_zipfile(a) and zipfile.is_zipfile(b)):
        return False
    with zipfile.ZipFile(a) as za, zipfile.ZipFile(b) as zb:
        if sorted(za.namelist()) != sorted(zb.namelist()):
            return False
        for name in za.namelist():
            x, y = za.read(name), zb.read(name)
            if x == y:
                continue
            if name != "data" or _sb3_data(x) != _sb3_data(y):
                return False
    return True


def differing(root_a: Path, root_b: Path, skip: list[str]) -> list[str]:
    """Relative paths (files of either tree) that are missing on one side or differ."""
    pattern = re.compile("|".join(skip)) if skip else None
    rels = sorted({str(p.relative_to(root)) for root in (root_a, root_b) for p in root.rglob("*") if p.is_file()})
    out = []
    for rel in rels:
        if pattern is not None and pattern.search(rel):
            continue
        a, b = root_a / rel, root_b / rel
        if not (a.is_file() and b.is_file()) or not same_file(a, b):
            out.append(rel)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("a", type=Path)
    parser.add_argument("b", type=Path)
    parser.add_argument("--skip", action="append", default=[], metavar="REGEX",
                        help="leave out relative paths matching REGEX (repeatable)")
    args = parser.parse_args(argv)
    for root in (args.a, args.b):
        if not root.is_dir():
            print(f"same_outputs: {root}: not a directory", file=sys.stderr)
            return 2
    diff = differing(args.a, args.b, args.skip)
    for rel in diff:
        print(f"  differs: {rel}")
    return 1 if diff else 0


if __name__ == "__main__":
    sys.exit(main())
