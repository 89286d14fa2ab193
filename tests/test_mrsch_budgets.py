"""MRSch's default-budget and paper-budget agents side by side (schedrl.papers.mrsch.budgets)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from schedrl.cli import main
from schedrl.errors import InputFileError
from schedrl.papers.mrsch import budgets

N_JOBS = 400  # four bootstrap blocks of 100 test jobs


def _tree(root, agent_scale: float, fcfs_shift: float = 0.0, workloads=("S1", "S2")):
    """A results/mrsch tree: FCFS waits w, the GA 0.9 w, random 0.95 w, untrained w, agent ``agent_scale`` w."""
    rng = np.random.default_rng(0)
    for w in workloads:
        d = root / "eval" / w
        (d / "references").mkdir(parents=True)
        base = rng.exponential(2.0, N_JOBS) + 0.5
        rows = []
        for method, scale in (("fcfs", 1.0), ("ga", 0.9), ("ga_hold", 1.0), ("exhaustive", 0.9), ("mrsch", agent_scale)):
            wait = base * scale + (fcfs_shift if method == "fcfs" else 0.0)
            rows.append(pd.DataFrame({"workload": w, "method": method, "job": np.arange(N_JOBS), "wait_h": wait,
                                      "slowdown": 1 + wait}))
        pd.concat(rows).to_csv(d / "jobs.csv", index=False)
        refs = [pd.DataFrame({"workload": w, "method": "mrsch", "job": np.arange(N_JOBS), "wait_h": base * s,
                              "slowdown": 1 + base * s, "reference": r}) for r, s in (("random", 0.95), ("untrained", 1.0))]
        pd.concat(refs).to_csv(d / "references" / "jobs.csv", index=False)
    fp = pd.DataFrame({"method": "mrsch", "reference": [np.nan, "random"], "workload": "S1", "split": "test", "seed": 0,
                       "agree_fcfs": [agent_scale, 0.1], "agree_slot_0": 0.5, "plays_as": ["", ""]})
    fp.to_csv(root / "fingerprints.csv", index=False)
    return root


def test_compare_puts_both_agents_beside_the_same_no_learning_players(tmp_path):
    default = _tree(tmp_path / "default", agent_scale=1.0)
    paper = _tree(tmp_path / "paper", agent_scale=0.8)
    table = budgets.compare(default, paper, workloads=["S1", "S2"])
    assert list(table["scope"].unique()) == ["S1", "S2", "S1-S2"]
    row = table[(table["scope"] == "S1") & (table["metric"] == "mean_wait_h")].iloc[0]
    assert row["GA"] == pytest.approx(0.9 * row["FCFS"])
    assert row["default"] == pytest.approx(row["FCFS"])
    # waits 0.8 x FCFS on every job: a 20% reduction, and an interval that is a point
    assert row["paper budget vs FCFS"] == pytest.approx(0.2)
    assert row["paper budget vs FCFS low"] == pytest.approx(0.2) and row["paper budget vs FCFS high"] == pytest.approx(0.2)
    assert row["paper budget vs random"] == pytest.approx(1 - 0.8 / 0.95)
    assert row["paper vs default"] == pytest.approx(0.2)
    assert row["default vs FCFS"] == pytest.approx(0.0)
    group = table[(table["scope"] == "S1-S2") & (table["metric"] == "mean_wait_h")].iloc[0]
    assert group["jobs"] == 2 * N_JOBS


def test_compare_refuses_trees_of_different_test_splits(tmp_path):
    default = _tree(tmp_path / "default", agent_scale=1.0, fcfs_shift=1.0)
    paper = _tree(tmp_path / "paper", agent_scale=0.8)
    with pytest.raises(InputFileError, match="FCFS differs"):
        budgets.compare(default, paper, workloads=["S1"])


def test_cli_writes_the_table_and_fingerprints(tmp_path, capsys):
    default = _tree(tmp_path / "default", agent_scale=1.0)
    paper = _tree(tmp_path / "paper", agent_scale=0.8, workloads=("S1", "S2"))
    out = tmp_path / "cmp.md"
    # only S1 and S2 exist: the CLI reads every workload, so a missing one is one clear line
    assert main(["mrsch", "compare-budgets", "--default", str(default), "--paper", str(paper), "--out", str(out)]) != 0
    assert "S3" in capsys.readouterr().err
    fp = budgets.fingerprint_rows(default, paper)
    assert list(fp["budget"]) == ["default", "paper budget"] and list(fp["agree_fcfs"]) == [1.0, 0.8]
    text = budgets.markdown(budgets.compare(default, paper, workloads=["S1"]), fp)
    assert "| S1 | 400 |" in text and "+20.0% [+20.0%, +20.0%]" in text and "What each agent plays" in text
