"""The shape of the package: a paper-free core under one package per paper (issue 8).

* import-linter contracts (pyproject.toml): the layers (entry points over papers over experiments
  over agents and envs over the simulator and shared utilities, issue 71); the core never imports ``schedrl.papers``,
  ``schedrl.commands`` or ``schedrl.cli``; paper packages never import each other;
* the core holds no paper name as a switch (no comparison with, or membership test in, a paper's
  short name);
* every paper package has the same modules, its paper values load and carry unit, source and
  tolerance, and its targets point at real functions.
"""

from __future__ import annotations

import ast
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

from schedrl.papers import PAPERS, implemented, paper_values

SRC = Path(__file__).resolve().parents[1] / "src" / "schedrl"
CORE = ("workloads", "sim", "schedulers", "encoders", "envs", "agents", "experiments", "plots", "report",
        "metrics.py", "io.py", "errors.py", "config.py", "protocol.py")
PAPER_MODULES = ("figures", "claims")
# what runs: one experiments.py, or the same split by concern (issue 71: layout, training,
# evaluation, references, cost)
PAPER_SETUP = ("experiments.py", "layout.py")


def test_import_contracts_hold():
    lint = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run([str(lint), "--config", str(SRC.parents[1] / "pyproject.toml")],
                            capture_output=True, text=True, cwd=SRC.parents[1])
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
    assert "3 kept, 0 broken" in result.stdout


def _core_files():
    for name in CORE:
        path = SRC / name
        yield from ([path] if path.is_file() else sorted(path.rglob("*.py")))


def _paper_switches(tree: ast.AST) -> list[int]:
    """Line numbers where a value is compared with (or looked up in a literal of) paper names."""
    names = set(PAPERS)
    hits = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            for right in node.comparators:
                values = right.elts if isinstance(right, ast.Tuple | ast.List | ast.Set) else [right]
                if any(isinstance(v, ast.Constant) and v.value in names for v in values):
                    hits.append(node.lineno)
    return hits


def test_switch_detector_catches_a_paper_switch():
    assert _paper_switches(ast.parse("if mode == 'runtime':\n    pass\nok = x in ('a', 'sem')")) == [1, 3]


def test_core_has_no_paper_name_switch():
    found = {f"{path.relative_to(SRC)}:{line}" for path in _core_files()
             for line in _paper_switches(ast.parse(path.read_text()))}
    assert not found, f"paper names used as switches in the core: {sorted(found)}"


@pytest.mark.parametrize("paper", implemented())
def test_paper_package_shape(paper):
    package = SRC / "papers" / paper
    for module in PAPER_MODULES:
        assert (package / f"{module}.py").is_file(), f"schedrl.papers.{paper} lacks {module}.py"
    assert any((package / name).is_file() for name in PAPER_SETUP), f"schedrl.papers.{paper} lacks {PAPER_SETUP}"
    values = paper_values(paper)
    assert len(values) > 0
    for row in values.table():
        assert row["unit"] and row["source"], f"{paper}: {row['key']} needs a unit and a source"
    figures = importlib.import_module(f"schedrl.papers.{paper}.figures")
    targets = figures.TARGETS
    assert targets and all(t.paper == paper for t in targets)
    assert [t for t in targets if t.kind == "claims"], f"{paper}: no claims target"
    for target in targets:
        module, _, name = target.function_name.rpartition(".")
        assert getattr(importlib.import_module(module), name) is target.function
        assert module.startswith(f"schedrl.papers.{paper}.")
        assert (SRC.parents[1] / "workflow" / "rules" / f"{paper}.smk").read_text().count(f"rule {target.rule}:") == 1


def test_paper_values_errors_name_file_and_key(tmp_path):
    from schedrl.errors import InputFileError
    from schedrl.papers.values import PaperValues

    bad = tmp_path / "paper_values.yaml"
    bad.write_text("paper: x\nvalues:\n  a: {value: 1, unit: s, source: Table 1}\n")
    with pytest.raises(InputFileError, match=r"paper_values.yaml: values.a: missing tolerance"):
        PaperValues.load(bad)
    bad.write_text("paper: x\nvalues:\n  a: {value: 1, unit: s, source: T, tolerance: {rel: -1}}\n")
    with pytest.raises(InputFileError, match=r"values.a.tolerance"):
        PaperValues.load(bad)
    good = tmp_path / "good.yaml"
    good.write_text("paper: x\nvalues:\n  a: {value: 2.0, unit: s, source: Table 1, tolerance: {rel: 0.1}}\n")
    values = PaperValues.load(good)
    assert values["a"] == 2.0 and "a" in values and "b" not in values
    assert values.verdict("a", 2.15) == "reproduced" and values.verdict("a", 2.3) == "partly reproduced"
    assert values.describe("a") == "Table 1; tolerance rel 0.1"


def test_figures_command_lists_every_target_with_rule_function_and_verdicts(tmp_path, capsys):
    from schedrl.cli import main
    from schedrl.report.claims import write_claims

    (tmp_path / "figures" / "runtime").mkdir(parents=True)
    for suffix in (".png", ".pdf", ".csv", ".md"):
        (tmp_path / "figures" / "runtime" / f"table4{suffix}").write_text("x")
    write_claims(tmp_path / "results" / "runtime" / "claims.csv", [
        {"paper": "runtime", "claim_id": f"table4_c{i}", "claim": "c", "paper_value": "1", "ours": "1",
         "verdict": v, "note": ""} for i, v in enumerate(["reproduced", "reproduced", "not comparable"])])
    assert main(["figures", "--root", str(tmp_path), "--format", "csv"]) == 0
    import io

    import pandas as pd

    frame = pd.read_csv(io.StringIO(capsys.readouterr().out), keep_default_na=False)
    for paper in implemented():
        figures = importlib.import_module(f"schedrl.papers.{paper}.figures")
        assert set(frame.loc[frame["paper"] == paper, "target"]) == {t.path for t in figures.TARGETS}
    row = frame[frame["target"] == "figures/runtime/table4.png"].iloc[0]
    assert row["rule"] == "runtime_table4" and row["function"] == "schedrl.papers.runtime.figures.table4"
    assert bool(row["on_disk"]) and row["verdicts"] == "R2 P0 N0 C1"
    assert not frame.loc[frame["paper"] == "deeprm", "on_disk"].any()
    assert main(["figures", "--paper", "nope"]) == 2
    assert "unknown paper" in capsys.readouterr().err


def _imports_of(path: Path) -> set[str]:
    """schedrl modules a file imports, at module level or inside functions (a lazy import still
    ties the two modules in a circle)."""
    deps = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("schedrl"):
            deps.add(node.module)
            deps.update(f"{node.module}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            deps.update(a.name for a in node.names if a.name.startswith("schedrl"))
    return deps


def test_no_import_circle_in_src():
    """Data flows one way (experiments -> claims -> figures -> report): no module of src/ reaches
    itself through imports (an import of a module's own parent package does not count)."""
    graph = {}
    for path in SRC.rglob("*.py"):
        parts = path.relative_to(SRC.parent).with_suffix("").parts
        graph[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = _imports_of(path)
    graph = {m: {d for d in deps if d in graph and d != m and not m.startswith(d + ".")} for m, deps in graph.items()}

    def reaches(start: str) -> set[str]:
        seen, todo = set(), list(graph[start])
        while todo:
            m = todo.pop()
            if m not in seen:
                seen.add(m)
                todo.extend(graph[m])
        return seen

    circles = sorted(m for m in graph if m in reaches(m))
    assert not circles, f"modules in import circles: {circles}"
