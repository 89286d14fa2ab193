"""Heuristics over workloads, the comparison with a paper's table, claims and rendering."""

import numpy as np
import pandas as pd
import pytest

from schedrl.cli import main
from schedrl.errors import SchedrlError
from schedrl.experiments.heuristics import (
    algorithm_label,
    compare_with_paper,
    heuristic_claims,
    parse_algorithm,
    run_heuristics,
)
from schedrl.report.claims import make_claims
from schedrl.sim import ClusterSpec

ALGS = ["sjf:none", "sjf:easy", "fcfs:none", "fcfs:easy"]


def _jobs():
    # 4 nodes: the SWF example of test_sim_cli (job 3 backfills under EASY)
    return pd.DataFrame({"job_id": [1, 2, 3, 4], "submit_time": [0, 1, 2, 3],
                         "run_time": [100, 10, 50, 200], "req_procs": [3, 4, 1, 1],
                         "req_time": [100, 10, 50, 200]})


def test_parse_and_label():
    assert parse_algorithm("sjf:easy") == ("sjf", "easy")
    assert parse_algorithm("fcfs") == ("fcfs", "none")
    assert algorithm_label("fcfs:easy") == "FCFS w/ BF" and algorithm_label("sjf:none") == "SJF"
    with pytest.raises(SchedrlError):
        parse_algorithm("sjf:aggressive")


@pytest.mark.parametrize("sim_step", [0.0, 1.0])
def test_run_heuristics_rows(sim_step):
    rows, schedules = run_heuristics(_jobs(), ClusterSpec(nodes=4), ALGS, workload="w",
                                     sim_step=sim_step)
    assert list(rows["algorithm"]) == ALGS and set(schedules) == set(ALGS)
    easy = rows.set_index("algorithm").loc["fcfs:easy"]
    # node-seconds 300 + 40 + 50 + 200 = 590 over [0, 310] on 4 nodes
    assert easy["utilization"] == pytest.approx(590 / (4 * 310))
    assert (rows["utilization"] <= 1).all()


def _table(ours_values, paper_values):
    ours = pd.DataFrame([{"workload": w, "algorithm": a, "label": algorithm_label(a), "utilization": v}
                         for w, vals in ours_values.items() for a, v in zip(ALGS, vals)])
    return compare_with_paper(ours, paper_values, ALGS)


def test_compare_and_claims():
    paper = {"w1": [0.5, 0.7, 0.5, 0.8], "w2": [0.6, 0.7, 0.5, 0.9]}
    table = _table({"w2": [0.6, 0.72, 0.52, 0.9], "w1": [0.5, 0.45, 0.5, 0.7]}, paper)
    assert list(table["workload"]) == ["w1"] * 4 + ["w2"] * 4  # the paper's order
    assert table["diff"].iloc[1] == pytest.approx(-0.25)
    rows = heuristic_claims(table, ALGS, paper_name="runtime", tolerance=0.05)
    claims = make_claims(rows).set_index("claim_id")
    assert claims.loc["table4_w1_values", "verdict"] == "not reproduced"   # gap 0.25
    assert claims.loc["table4_w2_values", "verdict"] == "reproduced"       # gaps <= 0.02
    assert claims.loc["table4_sjf_easy_helps", "paper_value"] == "2/2"
    assert claims.loc["table4_sjf_easy_helps", "ours"] == "1/2"
    assert claims.loc["table4_best_algorithm", "verdict"] == "reproduced"  # FCFS w/ BF both times
    assert claims.loc["table4_sjf_vs_fcfs", "paper_value"] == "1/2"
    assert claims.loc["table4_cells_within_tolerance", "ours"] == "6/8"


def test_paper_value_count_checked():
    with pytest.raises(SchedrlError, match="3 numbers"):
        _table({"w1": [0.5] * 4}, {"w1": [0.5, 0.6, 0.7]})


def test_cli_run_and_table(tmp_path):
    swf = tmp_path / "w.swf"
    swf.write_text("; MaxNodes: 4\n" + "".join(
        f"{r.job_id} {r.submit_time} -1 {r.run_time} {r.req_procs} -1 -1 {r.req_procs} {r.req_time} "
        "-1 1 -1 -1 -1 -1 -1 -1 -1\n" for r in _jobs().itertuples()))
    run_csv = tmp_path / "w.csv"
    assert main(["heuristics", "run", str(swf), "--nodes", "4", "--out", str(run_csv),
                 "--schedules-dir", str(tmp_path / "sched")]) == 0
    assert (tmp_path / "sched" / "fcfs-easy.csv").exists()
    out = tmp_path / "fig" / "t4.png"
    assert main(["heuristics", "table", str(run_csv), "--paper", "w=0.4,0.5,0.4,0.5",
                 "--paper-name", "runtime", "--out-png", str(out), "--out-md", str(tmp_path / "t4.md"),
                 "--claims-out", str(tmp_path / "claims.csv"), "--note", "a note"]) == 0
    for suffix in (".png", ".pdf", ".csv"):
        assert out.with_suffix(suffix).exists()
    md = (tmp_path / "t4.md").read_text()
    assert "| workload | SJF | SJF w/ BF | FCFS | FCFS w/ BF |" in md and "a note" in md
    long = pd.read_csv(out.with_suffix(".csv"))
    assert np.allclose(long["diff"], long["ours"] - long["paper"])
    assert main(["heuristics", "table", str(run_csv), "--paper", "w=0.4", "--paper-name", "runtime",
                 "--out-png", str(out), "--out-md", str(tmp_path / "x.md"),
                 "--claims-out", str(tmp_path / "c.csv")]) == 2
