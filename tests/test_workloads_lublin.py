"""Lublin-Feitelson generator: model behaviour, presets, determinism, fit to lublin_256.swf."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from schedrl.errors import ConfigError
from schedrl.workloads import lublin
from schedrl.workloads.lublin import LublinParams, generate
from schedrl.workloads.presets import LUBLIN_PRESETS
from schedrl.workloads.swf import format_swf, parse_swf_text, read_swf

TRACES = Path(__file__).resolve().parents[2] / "shared" / "traces"


@pytest.mark.parametrize("preset", list(LUBLIN_PRESETS))
def test_presets_generate_valid_deterministic_tables(preset):
    a = generate(preset, n_jobs=3000, seed=7)
    b = generate(preset, n_jobs=3000, seed=7)
    c = generate(preset, n_jobs=3000, seed=8)
    assert format_swf(a) == format_swf(b)
    assert not a["run_time"].equals(c["run_time"])
    p = LUBLIN_PRESETS[preset]
    assert len(a) == 3000
    assert (a["req_procs"] >= p.min_nodes).all() and (a["req_procs"] <= p.max_nodes).all()
    assert (a["run_time"] >= 1).all() and (a["req_time"] >= a["run_time"]).all()
    if p.request_rule == "exact":
        assert (a["req_time"] == a["run_time"]).all()
    if p.runtime_max is not None:
        assert a["req_time"].max() <= p.runtime_max
    assert (np.diff(a["submit_time"]) >= 0).all()
    assert a.attrs["header"]["MaxNodes"] == str(p.max_nodes)
    # the header documents the seed and survives an SWF round trip
    back = parse_swf_text(format_swf(a))
    assert back.attrs["header"] == a.attrs["header"]
    pd.testing.assert_frame_equal(back, a)


def test_lublin256_matches_reference_trace():
    """KS tests on size and log-runtime against RLScheduler's lublin_256.swf (10,000 jobs)."""
    path = TRACES / "lublin_256.swf"
    if not path.exists():
        pytest.skip("lublin_256.swf not available")
    ref = read_swf(path, clean=False)
    ours = generate("lublin256", seed=0)
    size = stats.ks_2samp(ours["req_procs"], ref["alloc_procs"])
    runtime = stats.ks_2samp(np.log(ours["run_time"]), np.log(ref["run_time"]))
    assert size.pvalue > 0.05, size
    assert runtime.pvalue > 0.05, runtime
    assert abs(np.mean(ours["req_procs"] == 1) - np.mean(ref["alloc_procs"] == 1)) < 0.02
    # the daily cycle: time-of-day histograms agree (chi-square style check on 8 three-hour bins)
    bins = lambda s: np.bincount((np.asarray(s) % 86400) // 10800, minlength=8) / len(s)  # noqa: E731
    assert np.abs(bins(ours["submit_time"]) - bins(ref["submit_time"])).max() < 0.03


def test_typeless_shares_follow_the_constants():
    t = generate("lublin256", n_jobs=50_000, seed=1)
    n = t["req_procs"].to_numpy()
    assert abs(np.mean(n == 1) - lublin.TYPELESS.serial_prob) < 0.01
    par = n[n > 1]
    pow2 = np.mean((par & (par - 1)) == 0)
    expected = lublin.TYPELESS.pow2_prob / (1 - lublin.TYPELESS.serial_prob)
    assert pow2 >= expected - 0.01  # non-integer draws can also round to a power of two
    # larger jobs run longer (runtime tied to size through p = PA * nodes + PB)
    r = t["run_time"].to_numpy()
    assert np.median(r[n >= 64]) > np.median(r[n == 1])


@pytest.mark.parametrize("preset,serial", [("wl1", 0.8), ("wl2", 0.2)])
def test_runtime_paper_workloads_meet_table1(preset, serial):
    t = generate(preset, seed=3)
    assert len(t) == 2000
    assert abs(np.mean(t["req_procs"] == 1) - serial) < 0.03
    req = t["req_time"].to_numpy()
    assert req.max() <= 6 * 3600 and abs(req.mean() - 1800) < 1.0
    gaps = np.diff(np.concatenate([[0], t["submit_time"].to_numpy()]))
    assert gaps.max() <= 1800 and abs(gaps.mean() - 100) < 0.5


def test_job_types_merge_both_streams():
    t = generate("datastar_like", n_jobs=5000, seed=0)
    q = t["queue"].to_numpy()
    assert set(np.unique(q)) == {0, 1}
    # interactive jobs are smaller than batch jobs
    n = t["req_procs"].to_numpy()
    assert np.mean(n[q == 0]) < np.mean(n[q == 1])


def test_theta_like_minimum_and_load():
    t = generate("theta_like", n_jobs=5000, seed=0)
    assert t["req_procs"].min() == 128
    work = (t["req_procs"] * t["run_time"]).sum()
    span = t["submit_time"].iloc[-1] - t["submit_time"].iloc[0]
    assert 0.7 < work / (4360 * span) < 1.1


def test_daily_cycle_weights_mean_one_and_low_at_night():
    w = lublin.daily_cycle_weights(lublin.TYPELESS)
    assert w.shape == (48,) and abs(w.mean() - 1) < 1e-12
    assert w[6:10].mean() < 0.5 < 1.5 < w[22:30].mean()  # 03:00-05:00 vs 11:00-15:00


def test_round_up_requests():
    run = np.array([1, 60, 61, 3000, 7300, 80_000, 300_000])
    req = lublin.requested_times(run, "round_up", cap=86_400)
    assert req.tolist() == [60, 60, 120, 3600, 10_800, 86_400, 300_000]
    assert lublin.requested_times(run, "exact").tolist() == run.tolist()
    t = generate("theta_like", n_jobs=2000, seed=0)
    share_round = np.isin(t["req_time"], lublin.ROUND_REQUESTS).mean()
    assert share_round > 0.95 and (t["req_time"] > t["run_time"]).mean() > 0.9


def test_overrides_and_bad_parameters():
    t = generate({"max_nodes": 64, "serial_share": 0.5, "n_jobs": 4000}, seed=0)
    assert t["req_procs"].max() <= 64 and abs(np.mean(t["req_procs"] == 1) - 0.5) < 0.03
    assert len(generate("lublin256", n_jobs=10, seed=0, max_nodes=32)) == 10
    for bad in ({"max_nodes": 0}, {"serial_share": 1.5}, {"runtime_mean": 10, "runtime_max": 5},
                {"min_nodes": 8, "serial_share": 0.3}, {"job_types": True, "arrival_mean": 50}):
        with pytest.raises(ConfigError):
            generate(bad, n_jobs=10)
    with pytest.raises(ConfigError, match="unknown workload preset"):
        generate("nope")
    with pytest.raises(ConfigError, match="unknown parameter"):
        generate({"bogus": 1})
    assert len(generate(LublinParams(n_jobs=0))) == 0
