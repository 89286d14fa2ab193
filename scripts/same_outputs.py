#!/usr/bin/env python3
"""Compare two output trees file by file, as `make test-slurm` needs: byte for byte, except that
zip archives (Stable-Baselines3 models) are compared member by member, and SB3's ``data`` member
without what holds wall-clock time (``start_time``; ``ep_info_buffer``, whose entries carry each
episode's elapsed seconds). Two runs of the same seeded rule then agree on everything that the
model *is*, and a real difference (weights, hyperparameters, step counts) still shows.

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

WALL_CLOCK_KEYS = ("start_time", "ep_info_buffer")


def _sb3_data(raw: bytes) -> object:
    try:
        data = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return raw
    if isinstance(data, dict):
        for key in WALL_CLOCK_KEYS:
            data.pop(key, None)
    return data


def same_file(a: Path, b: Path) -> bool:
    """Equal bytes, or (both zips) the same members with equal contents, SB3 ``data`` less wall time."""
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
