"""Every Snakemake rule follows the project's conventions (log, benchmark, threads, resources)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
RULE_FILES = sorted((REPO / "workflow" / "rules").glob("*.smk"))
# Rules whose work is simulation or training: they must say what they cost.
HEAVY = re.compile(r"schedrl (train|evaluate|simulate|heuristics run|deeprm evaluate|sem trace)\b")


def _rules(path: Path) -> dict[str, str]:
    """Map rule name -> its text (from 'rule NAME:' to the next top-level statement)."""
    text = path.read_text()
    blocks = {}
    for match in re.finditer(r"^(?:rule|checkpoint) (\w+):\n((?:[ \t]+.*\n|\n)*)", text, re.M):
        blocks[match.group(1)] = match.group(2)
    return blocks


ALL_RULES = [(p.name, name, body) for p in RULE_FILES for name, body in _rules(p).items()]


def test_rule_files_define_rules():
    assert ALL_RULES, "no rules found under workflow/rules"


@pytest.mark.parametrize("where,name,body", ALL_RULES, ids=[f"{w}:{n}" for w, n, _ in ALL_RULES])
def test_rule_has_log(where, name, body):
    if not re.search(r"^\s+(shell|run|script|notebook|wrapper):", body, re.M):
        assert not re.search(r"^\s+output:", body, re.M), f"{where}: rule {name} makes files but runs nothing"
        return  # an aggregate target (e.g. deeprm_paper_budget): it runs nothing, so it has nothing to log
    assert re.search(r"^\s+log:", body, re.M), f"{where}: rule {name} has no log:"


HEAVY_RULES = [r for r in ALL_RULES if HEAVY.search(r[2])]


def test_heavy_rules_found():
    assert len(HEAVY_RULES) >= 3


@pytest.mark.parametrize("where,name,body", HEAVY_RULES, ids=[f"{w}:{n}" for w, n, _ in HEAVY_RULES])
def test_heavy_rule_declares_cost(where, name, body):
    for key in ("benchmark:", "threads:", "resources:"):
        assert key in body, f"{where}: rule {name} lacks {key}"
    assert "mem_mb" in body and "runtime" in body, f"{where}: rule {name} resources need mem_mb and runtime"


def test_snakefile_is_thin():
    text = (REPO / "Snakefile").read_text()
    rules = re.findall(r"^rule (\w+):", text, re.M)
    assert set(rules) == {"all", "sem", "mdp", "deeprm", "mrsch", "runtime", "workloads", "report", "score"}
    assert "shell:" not in text and "run:" not in text
