"""SEM trace analysis: running jobs, CDF, K-largest coverage and node-hour loss."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedrl.errors import SchedrlError
from schedrl.workloads import analysis as A


def sched(rows):
    """rows of (start, end, size)."""
    frame = pd.DataFrame(rows, columns=["start_time", "end_time", "size"])
    frame["submit_time"] = frame["start_time"]
    return frame


# Hand-checked schedule on [0, 10):
#   job a: [0, 4) size 4     job b: [2, 6) size 2     job c: [4, 8) size 1     job d: [9, 10) size 3
# intervals: [0,2) a -> 1 job 4 nodes; [2,4) a,b -> 2 jobs 6; [4,6) b,c -> 2 jobs 3;
#            [6,8) c -> 1 job 1; [8,9) idle; [9,10) d -> 1 job 3
HAND = sched([(0, 4, 4), (2, 6, 2), (4, 8, 1), (9, 10, 3)])


def test_running_jobs_hand_checked():
    steps = A.running_jobs(HAND)
    assert steps["time"].tolist() == [0, 2, 4, 6, 8, 9]
    assert steps["duration"].tolist() == [2, 2, 2, 2, 1, 1]
    assert steps["running"].tolist() == [1, 2, 2, 1, 0, 1]
    assert steps["allocated"].tolist() == [4, 6, 3, 1, 0, 3]
    assert A.max_running_jobs(steps) == 2


def test_end_and_start_at_same_time_do_not_overlap():
    steps = A.running_jobs(sched([(0, 5, 1), (5, 9, 1), (3, 3, 7)]))  # plus a zero-length job
    assert A.max_running_jobs(steps) == 1
    assert steps["allocated"].max() == 1


def test_cdf_hand_checked():
    cdf = A.running_jobs_cdf(A.running_jobs(HAND))
    assert cdf["running"].tolist() == [0, 1, 2]
    np.testing.assert_allclose(cdf["share"], [0.1, 0.5, 0.4])
    np.testing.assert_allclose(cdf["cdf"], [0.1, 0.6, 1.0])
    assert A.running_quantile(cdf, 0.5) == 1
    assert A.running_quantile(cdf, 0.61) == 2


def test_k_largest_hand_checked():
    out = A.k_largest_summary(HAND, [1, 2], thresholds=[0.6, 0.9]).set_index("k")
    # K = 1 coverage per interval: 1, 4/6, 2/3, 1, idle(1), 1 -> >= 0.6 always; >= 0.9 on 6 of 10 s
    assert out.loc[1, "share_60"] == pytest.approx(1.0)
    assert out.loc[1, "share_90"] == pytest.approx(0.6)
    # lost node-seconds for K = 1: [2,4) 2 nodes x 2 s + [4,6) 1 node x 2 s = 6 of 8+12+6+2+3 = 31
    assert out.loc[1, "node_hour_loss_pct"] == pytest.approx(100 * 6 / 31)
    assert out.loc[1, "lost_node_hours"] == pytest.approx(6 / 3600)
    assert out.loc[2, "node_hour_loss_pct"] == 0.0
    assert out.loc[2, "share_90"] == 1.0


def test_k_zero_loses_everything_and_covers_only_idle_time():
    out = A.k_largest_summary(HAND, [0, 1]).set_index("k")
    assert out.loc[0, "node_hour_loss_pct"] == pytest.approx(100.0)
    assert out.loc[0, "share_90"] == pytest.approx(0.1)


def test_coverage_steps_match_summary():
    steps = A.k_largest_coverage_steps(HAND, 1)
    assert steps["top_k"].tolist() == [4, 4, 2, 1, 0, 3]
    np.testing.assert_allclose(steps["coverage"], [1, 4 / 6, 2 / 3, 1, 1, 1])


def test_schedule_from_trace_drops_unusable_jobs():
    jobs = pd.DataFrame({
        "job_id": [1, 2, 3, 4, 5],
        "submit_time": [0, 10, 20, 30, 40],
        "wait_time": [5, -1, 0, 2, 1],
        "run_time": [10, 10, 0, 7, 3],
        "alloc_procs": [8, 8, 8, -1, 0],
        "req_procs": [8, 8, 8, 16, -1],
    })
    s = A.schedule_from_trace(jobs)
    assert s["job_id"].tolist() == [1, 4]
    assert s["start_time"].tolist() == [5, 32]
    assert s["end_time"].tolist() == [15, 39]
    assert s["size"].tolist() == [8, 16]  # alloc missing -> requested size
    assert s.attrs["dropped"] == {"no_wait_time": 1, "no_run_time": 1, "no_size": 1}


def test_bad_schedule_is_a_user_error():
    with pytest.raises(SchedrlError):
        A.running_jobs(sched([(5, 3, 1)]))
    with pytest.raises(SchedrlError):
        A.k_largest_summary(HAND, [1], thresholds=[1.5])
    with pytest.raises(SchedrlError):
        A.running_jobs(pd.DataFrame({"start_time": [0]}))


# --------------------------------------------------------------------------- properties
def brute_force(frame, k, thr):
    """Per-interval reference: every job's membership checked at each interval midpoint."""
    times = np.unique(np.concatenate([frame["start_time"], frame["end_time"]]))
    covered = lost = period = 0.0
    total = float(((frame["end_time"] - frame["start_time"]) * frame["size"]).sum())
    s, e, n = (frame[c].to_numpy() for c in ("start_time", "end_time", "size"))
    for t0, t1 in zip(times[:-1], times[1:]):
        mid = (t0 + t1) / 2
        sizes = np.sort(n[(s <= mid) & (e > mid)])[::-1]
        alloc, top = sizes.sum(), sizes[:k].sum()
        dt = t1 - t0
        period += dt
        lost += (alloc - top) * dt
        covered += dt if (alloc == 0 or top >= thr * alloc) else 0.0
    return covered / period, 100 * lost / total if total else 0.0


schedules = st.lists(
    st.tuples(st.integers(0, 50), st.integers(1, 20), st.integers(1, 12)), min_size=1, max_size=25,
).map(lambda rows: sched([(a, a + d, n) for a, d, n in rows]))


@settings(max_examples=60, deadline=None)
@given(schedules, st.integers(0, 8))
def test_sweep_matches_brute_force(frame, k):
    out = A.k_largest_summary(frame, [k], thresholds=[0.9]).iloc[0]
    share, loss = brute_force(frame, k, 0.9)
    assert out["share_90"] == pytest.approx(share)
    assert out["node_hour_loss_pct"] == pytest.approx(loss, abs=1e-9)


@settings(max_examples=60, deadline=None)
@given(schedules)
def test_coverage_monotone_in_k_and_full_at_max_running(frame):
    steps = A.running_jobs(frame)
    peak = A.max_running_jobs(steps)
    ks = list(range(0, peak + 3))
    out = A.k_largest_summary(frame, ks)
    for col in ("share_90", "share_95"):
        assert np.all(np.diff(out[col].to_numpy()) >= -1e-12)
    assert np.all(np.diff(out["node_hour_loss_pct"].to_numpy()) <= 1e-12)
    full = out[out["k"] >= peak]
    assert (full["share_90"] == 1.0).all() and (full["share_95"] == 1.0).all()
    assert (full["node_hour_loss_pct"] == 0.0).all()


@settings(max_examples=60, deadline=None)
@given(schedules)
def test_cdf_is_a_distribution_and_time_is_conserved(frame):
    steps = A.running_jobs(frame)
    assert steps["duration"].sum() == frame["end_time"].max() - frame["start_time"].min()
    node_seconds = (steps["allocated"] * steps["duration"]).sum()
    assert node_seconds == ((frame["end_time"] - frame["start_time"]) * frame["size"]).sum()
    cdf = A.running_jobs_cdf(steps)
    assert np.all(np.diff(cdf["cdf"]) >= 0) and cdf["cdf"].iloc[-1] == 1.0
    assert cdf["running"].iloc[-1] == A.max_running_jobs(steps)


# --------------------------------------------------------------------------- CLI end to end
def _swf(path, rows, waits=True):
    """Write a tiny SWF: rows of (submit, wait, run, procs)."""
    lines = ["; MaxNodes: 16", "; MaxProcs: 16"]
    for i, (submit, wait, run, procs) in enumerate(rows, start=1):
        fields = [i, submit, wait if waits else -1, run, procs, -1, -1, procs, run * 2, -1, 1,
                  1, 1, -1, 1, -1, -1, -1]
        lines.append(" ".join(str(v) for v in fields))
    path.write_text("\n".join(lines) + "\n")


def test_cli_trace_and_figures(tmp_path):
    from schedrl.cli import main
    from schedrl.io import read_json

    rows = [(0, 0, 100, 8), (10, 0, 50, 4), (20, 40, 30, 8), (30, 0, 200, 2), (500, 0, 10, 16)]
    _swf(tmp_path / "rec.swf", rows)
    _swf(tmp_path / "nowait.swf", rows, waits=False)
    for name, trace in (("rec", "rec.swf"), ("sim", "nowait.swf")):
        code = main(["sem", "trace", str(tmp_path / trace), "--name", name, "--nodes", "16",
                     "--k-max", "50", "--out-dir", str(tmp_path / name)])
        assert code == 0
    rec, sim = read_json(tmp_path / "rec" / "summary.json"), read_json(tmp_path / "sim" / "summary.json")
    assert rec["schedule"] == "recorded" and sim["schedule"] == "simulated"
    # recorded: [0,100) 8, [10,60) 4, [60,90) 8, [30,230) 2, [500,510) 16 -> 3 at once on [30,90)
    assert rec["max_running"] == 3
    steps = A.running_jobs(A.schedule_from_trace(pd.DataFrame({
        "job_id": [1, 2, 3, 4, 5], "submit_time": [0, 10, 20, 30, 500], "wait_time": [0, 0, 40, 0, 0],
        "run_time": [100, 50, 30, 200, 10], "alloc_procs": [8, 4, 8, 2, 16]})))
    assert rec["max_running"] == A.max_running_jobs(steps)
    k = pd.read_csv(tmp_path / "rec" / "k_largest.csv")
    assert k["k"].tolist() == list(range(51))
    # FCFS + EASY on 16 nodes: no job ever exceeds the machine
    assert sim["over_capacity_share"] == 0.0
    code = main(["sem", "figures", str(tmp_path / "rec"), str(tmp_path / "sim"),
                 "--figures-dir", str(tmp_path / "fig"), "--claims", str(tmp_path / "claims.csv")])
    assert code == 0
    for stem in ("fig5_running_jobs_cdf", "table2_max_running", "table3_node_hour_loss", "fig7_k_largest_coverage"):
        for ext in ("png", "pdf", "csv"):
            assert (tmp_path / "fig" / f"{stem}.{ext}").is_file()
    assert (tmp_path / "fig" / "table2_max_running.md").read_text().count("| Mira |") == 1


def test_cli_missing_trace_is_one_line_error(tmp_path, capsys):
    from schedrl.cli import main

    code = main(["sem", "trace", str(tmp_path / "absent.swf"), "--name", "x", "--nodes", "4",
                 "--out-dir", str(tmp_path / "x")])
    assert code == 2
    assert "absent.swf" in capsys.readouterr().err
    assert not (tmp_path / "x" / "summary.json").exists()


def test_stand_in_trace_is_announced_and_analysed_as_stand_in(tmp_path, capsys):
    """The one trace path: 'workload trace' writes the stand-in (with a console warning naming the
    file and the folders searched), 'sem trace' reads that file and labels it a stand-in."""
    from schedrl.cli import main
    from schedrl.io import read_json

    trace = tmp_path / "datastar.swf"
    assert main(["workload", "trace", "SDSC-DS-2004-2.1-cln.swf.gz", "--dirs", str(tmp_path / "none"),
                 "--stand-in", "datastar_like", "--stand-in-nodes", "1664", "--stand-in-jobs", "400",
                 "--out", str(trace)]) == 0
    err = capsys.readouterr().err
    warning = [line for line in err.splitlines() if "warning" in line]
    assert len(warning) == 1 and "SDSC-DS-2004-2.1-cln.swf.gz" in warning[0] and str(tmp_path / "none") in warning[0]
    args = ["sem", "trace", str(trace), "--name", "datastar", "--nodes", "1664", "--k-max", "50"]
    assert main(args + ["--out-dir", str(tmp_path / "a")]) == 0
    assert main(args + ["--out-dir", str(tmp_path / "b")]) == 0
    summary = read_json(tmp_path / "a" / "summary.json")
    assert summary["source_kind"] == "stand-in" and summary["source"] == "datastar_like"
    assert summary["schedule"] == "simulated"
    assert summary["jobs_analysed"] <= 400 and summary["over_capacity_share"] == 0.0
    for name in ("summary.json", "k_largest.csv", "running_cdf.csv"):  # seeded: byte-identical
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
