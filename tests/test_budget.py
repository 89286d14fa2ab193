"""The budget table: benchmark files summed per paper against the config's budget."""

from __future__ import annotations

import pytest

from schedrl.cli import main
from schedrl.report.budget import budget_table

HEADER = "s\th:m:s\tmax_rss\tmax_vms\tmax_uss\tmax_pss\tio_in\tio_out\tmean_load\tcpu_time\n"


def _bench(path, wall: float, cpu: float) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(HEADER + f"{wall}\t0:00:00\t1\t1\t1\t1\t0\t0\t90\t{cpu}\n")


def test_cpu_time_is_summed_per_paper_against_its_budget(tmp_path):
    _bench(tmp_path / "mdp" / "a" / "train.tsv", 3600, 3000)
    _bench(tmp_path / "mdp" / "b" / "train.tsv", 1800, 600)
    _bench(tmp_path / "deeprm" / "x.tsv", 7200, 7200)
    (tmp_path / "deeprm" / "broken.tsv").write_text("s\n")  # half-written: skipped
    table = budget_table(tmp_path, {"mdp": 2, "deeprm": 4, "sem": 1}).set_index("paper")
    assert table.loc["mdp", "rule_runs"] == 2
    assert table.loc["mdp", "wall_hours"] == pytest.approx(1.5)
    assert table.loc["mdp", "cpu_core_hours"] == pytest.approx(1.0)
    assert table.loc["mdp", "cpu_core_hours_max"] == pytest.approx(1.0 + 2 * 30 / 3600)  # one 30 s sample each
    assert table.loc["mdp", "share_of_budget"] == pytest.approx(0.5)
    assert table.loc["sem", "rule_runs"] == 0  # budgeted, not run yet
    assert table.loc["total", "cpu_core_hours"] == pytest.approx(3.0)
    assert table.loc["total", "share_of_budget"] == pytest.approx(3 / 7)


def test_budget_command_prints_markdown_and_names_a_missing_folder(tmp_path, capsys):
    _bench(tmp_path / "bench" / "sem" / "a.tsv", 360, 360)
    (tmp_path / "c.yaml").write_text("budget:\n  core_hours: {sem: 1}\n")
    assert main(["budget", "--benchmarks", str(tmp_path / "bench"), "--config", str(tmp_path / "c.yaml"),
                 "--format", "markdown"]) == 0
    out = capsys.readouterr().out
    assert "| sem | 1 | 0.10 | 0.10 | 0.11 | 1.00 | 10% |" in out
    assert main(["budget", "--benchmarks", str(tmp_path / "none")]) == 2
    assert "none: no benchmark folder" in capsys.readouterr().err
