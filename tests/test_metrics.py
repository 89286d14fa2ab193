"""Metrics over hand-built schedules."""

import math

import pandas as pd
import pytest

from schedrl import metrics
from schedrl.sim import ClusterSpec


def _schedule():
    # 4-node machine; job a: 2 nodes [10, 30); job b: 4 nodes [30, 40); job c: 1 node [20, 25)
    return pd.DataFrame({
        "job_id": [1, 2, 3],
        "submit_time": [0.0, 5.0, 20.0],
        "start_time": [10.0, 30.0, 20.0],
        "end_time": [30.0, 40.0, 25.0],
        "req_procs": [2, 4, 1],
        "bb_request": [1.0, 0.0, float("nan")],
        "power_per_node": [100.0, 50.0, 0.0],
    })


def test_utilization_spans():
    s = _schedule()
    used = 2 * 20 + 4 * 10 + 1 * 5  # 85 node-seconds
    assert metrics.used_node_seconds(s) == used
    assert metrics.utilization(s, 4) == pytest.approx(used / (4 * 40))          # [0, 40]
    assert metrics.utilization(s, 4, span="start") == pytest.approx(used / (4 * 30))  # [10, 40]
    assert metrics.runtime_utilization(s, 4) == metrics.utilization(s, 4, "submit")
    assert metrics.runtime_utilization(s, 4) == pytest.approx(85 / 160)  # checked on its own too
    # an explicit window clips jobs: [15, 35) holds a 15 s, b 5 s, c 5 s
    assert metrics.utilization(s, 4, span=(15, 35)) == pytest.approx((30 + 20 + 5) / (4 * 20))
    with pytest.raises(ValueError):
        metrics.utilization(s, 4, span="end")


def test_waits_slowdowns_makespan():
    s = _schedule()
    assert metrics.mean_wait(s) == pytest.approx((10 + 25 + 0) / 3)
    assert metrics.max_wait(s) == 25
    assert metrics.mean_slowdown(s) == pytest.approx(((10 + 20) / 20 + (25 + 10) / 10 + 1) / 3)
    # bounded: c runs 5 s < tau 10 -> max((0 + 5) / 10, 1) = 1
    assert metrics.bounded_slowdown(s, tau=10) == pytest.approx((1.5 + 3.5 + 1.0) / 3)
    assert metrics.bounded_slowdown(s, tau=30) == pytest.approx((1.0 + 35 / 30 + 1.0) / 3)
    assert metrics.makespan(s) == 40
    assert metrics.mean_completion_time(s) == pytest.approx((30 + 35 + 5) / 3)


def test_zero_runtime_slowdown_is_finite():
    s = pd.DataFrame({"submit_time": [0.0], "start_time": [4.0], "end_time": [4.0], "req_procs": [1]})
    assert metrics.mean_slowdown(s) == 4.0  # runtime floored at MIN_RUNTIME = 1


def test_bb_and_power():
    s = _schedule()
    assert metrics.bb_utilization(s, 2) == pytest.approx(20 / (2 * 40))
    assert math.isnan(metrics.bb_utilization(s, 0))
    # busy: a 2*100*20 + b 4*max(50,20)*10 + c 1*max(0,20)*5 = 4000+2000+100; idle: 20 W x (160-85)
    cluster = ClusterSpec(nodes=4, power_budget=1000.0, idle_power=20.0)
    expected = (4000 + 2000 + 100 + 20 * (160 - 85)) / 40
    assert metrics.mean_power(s, 4, 20.0) == pytest.approx(expected)
    assert metrics.power_utilization(s, cluster) == pytest.approx(expected / 1000)


def test_summary_keys_and_nan_free_json():
    s = _schedule()
    out = metrics.summary(s, ClusterSpec(nodes=4, bb_units=2))
    assert out["jobs"] == 3 and out["makespan"] == 40
    assert out["utilization"] == pytest.approx(85 / 160) and out["span_start"] == 0.0
    assert out["utilization_from_first_start"] == pytest.approx(85 / 120)
    assert out["mean_wait"] == pytest.approx(35 / 3) and out["max_wait"] == 25
    assert out["bb_utilization"] == pytest.approx(20 / 80)
    assert "bb_utilization" in out and "power_utilization" not in out
    empty = metrics.summary(s.iloc[:0], ClusterSpec(nodes=4))
    assert empty["utilization"] is None and empty["jobs"] == 0
