"""Golden hashes (issue 61): every trainer, trained briefly from a fixed seed and played once, gives
the weights and evaluation table recorded for this machine kind in tests/golden/hashes.json.

On a kind the file has no entry for, the test does not fail: it compares with the other kinds'
entries, says which trainers are identical across kinds and which are not, and skips with the
command that adds this kind's entry (scripts/golden_hashes.py --write)."""

from __future__ import annotations

import importlib.util
import warnings
from pathlib import Path

import pytest

FILE = "tests/golden/hashes.json"
SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "golden_hashes.py"
spec = importlib.util.spec_from_file_location("golden_hashes", SCRIPT)
gh = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gh)


def _moved(entry: dict, now: dict) -> list[str]:
    """'trainer (weights, evaluation)' for each trainer whose hashes differ from ``entry``'s."""
    out = []
    for name, want in entry["trainers"].items():
        got = now["trainers"].get(name)
        parts = [k for k in ("weights", "evaluation") if got is None or got[k] != want[k]]
        if parts:
            out.append(f"{name} ({', '.join(parts)})")
    return out


def _version_changes(entry: dict, now: dict) -> list[str]:
    was, is_ = entry.get("versions", {}), now["versions"]
    return [f"{k} {was.get(k)} -> {is_.get(k)}" for k in sorted(set(was) | set(is_)) if was.get(k) != is_.get(k)]


def test_golden_hashes_of_this_machine_kind():
    golden = gh.read_golden()
    assert golden, f"{gh.GOLDEN} is missing or empty"
    machine = gh.machine()
    now = gh.compute_in_subprocess()
    kind = machine["kind"]
    write = "python scripts/golden_hashes.py --write"
    if kind not in golden:
        same, differ = [], []
        for name in gh.TRAINERS:
            entries = [e["trainers"].get(name) for e in golden.values()]
            ok = all(e is not None and e == {k: now["trainers"][name][k] for k in ("weights", "evaluation")}
                     for e in entries)
            (same if ok else differ).append(name)
        reason = (f"no golden hashes for the {kind} machine kind ({machine['cpu']}, {machine['torch_capability']}); "
                  f"against the {', '.join(sorted(golden))} kind: identical {', '.join(same) or 'none'}; "
                  f"different {', '.join(differ) or 'none'}; add this kind's entry with '{write}' and commit "
                  f"{FILE}")
        warnings.warn(reason, stacklevel=1)
        pytest.skip(reason)
    entry = golden[kind]
    moved = _moved(entry, now)
    if moved:
        lines = [f"on the {kind} machine kind ({machine['cpu']}), these trainers moved from "
                 f"{FILE} (made {entry.get('made')} on {entry.get('cpu')}): {'; '.join(moved)}"]
        changes = _version_changes(entry, now)
        lines.append("library versions differ from the entry's: " + ", ".join(changes) if changes
                     else "library versions are the entry's")
        if now["switches"]:
            lines.append("code-path switches set: " + ", ".join(f"{k}={v}" for k, v in now["switches"].items()))
        lines.append(f"if the change is intended, rerun '{write}' and commit the file")
        pytest.fail("\n".join(lines), pytrace=False)


def test_golden_entries_agree_across_machine_kinds():
    """Under the pipeline's pins (schedrl.codepaths) every trainer gives the same weights and evaluation
    on every machine kind recorded: the claim docs/reliability.md makes, checked on the committed
    entries (each made on its own kind by scripts/golden_hashes.py --write)."""
    golden = gh.read_golden()
    if len(golden) < 2:
        pytest.skip(f"{FILE} holds one machine kind; nothing to compare across")
    differ = [name for name in gh.TRAINERS
              if len({tuple(sorted(entry["trainers"][name].items())) for entry in golden.values()}) > 1]
    assert not differ, f"{FILE}: these trainers' files differ between the {', '.join(sorted(golden))} kinds: " \
                       + ", ".join(differ)
