"""Runtime-accuracy, MRSch burst-buffer/power scenarios, splits and trace lookup."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from schedrl.errors import ConfigError, SchedrlError
from schedrl.workloads.extend import SCENARIOS, apply_scenario, apply_wra, bb_units_from_tb, split_half
from schedrl.workloads.lublin import generate
from schedrl.workloads.presets import THETA
from schedrl.workloads.splits import MONTH_SECONDS, mrsch_split, sem_split
from schedrl.workloads.swf import format_swf, parse_swf_text
from schedrl.workloads.traces import CATALOG, find_trace, load_trace

TRACES = Path(__file__).resolve().parents[2] / "shared" / "traces"


def test_wra_variants():
    base = generate("wl1", seed=0)
    full = apply_wra(base, "100")
    half = apply_wra(base, "050")
    rnd = apply_wra(base, "rnd", seed=0)
    req = base["req_time"].to_numpy()
    assert (full["run_time"] == base["req_time"]).all()
    assert np.array_equal(half["run_time"], np.maximum(np.floor(req * 0.5 + 0.5), 1).astype(int))
    ratio = rnd["run_time"] / rnd["req_time"]
    assert (ratio <= 1).all() and abs(ratio.mean() - 0.5) < 0.03
    assert (rnd["req_time"] == base["req_time"]).all()
    assert format_swf(rnd) == format_swf(apply_wra(base, "rnd", seed=0))
    with pytest.raises(ConfigError):
        apply_wra(base, "150")


def test_halves_cover_the_base_once():
    base = apply_wra(generate("wl2", seed=1), "050")
    a, b = split_half(base, "a"), split_half(base, "b")
    assert len(a) == len(b) == 1000
    assert a["job_id"].tolist() == list(range(1, 1001)) and b["job_id"].tolist() == list(range(1001, 2001))
    assert a["submit_time"].iloc[0] == 0 and b["submit_time"].iloc[0] == 0
    assert (b["run_time"].to_numpy() == base["run_time"].to_numpy()[1000:]).all()
    assert b.attrs["header"]["MaxJobs"] == "1000"


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_scenarios_match_table3(name):
    base = generate("theta_like", n_jobs=4000, seed=0)
    sc = SCENARIOS[name]
    out = apply_scenario(base, name, seed=0)
    bb = out["bb_request"].to_numpy()
    has = ~np.isnan(bb)
    assert has.sum() == round(sc.bb_share * len(base))
    lo_units, hi_units = bb_units_from_tb(np.array([sc.bb_min_tb, 285.0]))
    assert bb[has].min() >= lo_units and bb[has].max() <= hi_units <= THETA.bb_units
    expect_nodes = np.ceil(base["req_procs"] * sc.node_factor).astype(int)
    assert (out["req_procs"] == expect_nodes).all()
    if sc.power:
        p = out["power_per_node"]
        assert p.between(100, 215).all() and out.attrs["header"]["PowerBudgetWatts"] == "500000"
    else:
        assert "power_per_node" not in out.columns
    back = parse_swf_text(format_swf(out))
    pd.testing.assert_frame_equal(back, out)


def test_scenario_relations():
    base = generate("theta_like", n_jobs=2000, seed=0)
    s4, s5, s9 = (apply_scenario(base, s, seed=0) for s in ("S4", "S5", "S9"))
    assert np.array_equal(s4["bb_request"], s5["bb_request"], equal_nan=True)  # S5 = S4, half nodes
    assert np.array_equal(s4["bb_request"], s9["bb_request"], equal_nan=True)  # S9 = S4 + power
    s1, s3 = apply_scenario(base, "S1"), apply_scenario(base, "S3")
    assert np.nanmedian(s3["bb_request"]) > np.nanmedian(s1["bb_request"])
    # user I/O volumes: sizes are resampled from the values inside the range
    io = np.array([0.5, 7.0, 30.0, 300.0])
    s1u = apply_scenario(base, "S1", io_tb=io)
    assert set(np.unique(s1u["bb_request"].dropna())) <= set(bb_units_from_tb(np.array([7.0, 30.0])))
    with pytest.raises(ConfigError):
        apply_scenario(base, "S11")
    assert THETA.bb_units * 2 + THETA.nodes * 2 + 4 * 10 == 11_410  # MRSch state size


def test_scenarios_rise_in_burst_buffer_contention():
    """Table III's intent: S1 -> S4 heavier burst-buffer demand; S5 burst-buffer bound."""
    from schedrl.plots.workloads import scenario_loads

    base = generate("theta_like", n_jobs=4000, seed=0)
    load = {s: scenario_loads(apply_scenario(base, s, seed=0)) for s in ("S1", "S2", "S3", "S4", "S5")}
    bb = [load[s]["burst_buffer"] for s in ("S1", "S2", "S3", "S4")]
    assert bb[0] < bb[1] and bb[2] < bb[3] and bb[0] < bb[2] and bb[1] < bb[3]
    assert load["S5"]["burst_buffer"] > load["S5"]["nodes"]
    assert load["S5"]["nodes"] == pytest.approx(load["S4"]["nodes"] / 2, rel=0.01)
    logu = apply_scenario(base, "S3", seed=0, bb_sizes="log_uniform")
    assert np.nanmedian(logu["bb_request"]) < np.nanmedian(apply_scenario(base, "S3")["bb_request"])
    with pytest.raises(ConfigError):
        apply_scenario(base, "S3", bb_sizes="normal")


def test_sem_split_counts_and_shrink():
    frame = generate("lublin256", n_jobs=5000, seed=0)
    parts, man = sem_split(frame, train_jobs=3000, episode_jobs=300, val_jobs=200, test_jobs=600)
    assert [len(parts[k]) for k in ("train", "val", "test")] == [3000, 200, 600]
    assert parts["val"]["job_id"].iloc[0] == 3001 and man["episodes"] == 10
    with pytest.raises(ConfigError, match="needs 67200 jobs"):
        sem_split(frame)
    parts, man = sem_split(frame, fit="shrink")
    assert man["episodes"] == 100 and sum(man["counts"].values()) <= 5000 and man["note"]
    assert man["counts"]["train"] == 100 * man["episode_jobs"]


def test_mrsch_split_by_time():
    frame = generate("theta_like", n_jobs=6000, seed=0)
    parts, man = mrsch_split(frame, total_months=None)
    sub = frame["submit_time"].to_numpy() - frame["submit_time"].iloc[0]
    assert man["counts"]["train"] == int(np.sum(sub < 3.5 * MONTH_SECONDS))
    assert sum(man["counts"].values()) == len(frame)
    assert parts["test"]["submit_time"].iloc[0] == 0


def test_find_trace_and_stand_in(tmp_path):
    assert find_trace("theta_2022.swf", [tmp_path]) is None
    (tmp_path / "x.swf.gz").write_bytes(b"")
    assert find_trace("x.swf", [tmp_path / "missing", tmp_path]) == tmp_path / "x.swf.gz"
    with pytest.raises(ConfigError):
        find_trace("../etc/passwd", [tmp_path])
    t = load_trace("theta_2022.swf", [tmp_path], n_jobs=500, seed=1)
    assert t.attrs["stand_in"] and t.attrs["header"]["Note"][0].startswith("stand-in for theta_2022.swf")
    assert t["req_procs"].min() >= 128 and len(t) == 500
    with pytest.raises(SchedrlError, match="no stand-in"):
        load_trace("other.swf", [tmp_path])
    if (TRACES / "theta_2022.swf").exists():
        real = load_trace("theta_2022.swf", [tmp_path, TRACES])
        assert not real.attrs["stand_in"] and len(real) == 23_911
    assert all(len(info.sha256) == 64 for info in CATALOG.values())


@pytest.mark.skipif(not TRACES.is_dir(), reason="shared traces not available")
def test_catalog_checksums_match_the_shared_traces():
    """The catalog's sha256 (what `workload download` verifies) is that of the traces we use."""
    from schedrl.workloads.traces import sha256_of

    present = [info for name, info in CATALOG.items() if (TRACES / name).is_file()]
    assert present
    for info in present:
        assert sha256_of(TRACES / info.name) == info.sha256, info.name
