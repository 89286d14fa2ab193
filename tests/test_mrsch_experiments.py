"""MRSch paper package: spec checks, job sets per group, the scalar-RL reward, Kiviat scores and
gains by hand, claims helpers, and the env's decision structure (window, measurements, goal)."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from schedrl.config import load_yaml
from schedrl.errors import ConfigError
from schedrl.papers.mrsch import claims
from schedrl.papers.mrsch import experiments as mx
from schedrl.workloads.swf import SWF_FIELDS, write_swf


def _spec(**over):
    spec = load_yaml("config/smoke.yaml")["mrsch"]
    spec.update(over)
    return spec


def test_spec_checks():
    mx.check_spec(_spec())
    with pytest.raises(ConfigError, match="paper's"):
        mx.check_spec(_spec(orderings=["real-sampled-synthetic"]))
    with pytest.raises(ConfigError, match="each of"):
        mx.check_spec(_spec(orderings=["sampled-real-synthetic", "real-real-synthetic"]))
    with pytest.raises(ConfigError, match="unknown hyperparameter"):
        mx.check_spec(_spec(dfp={"lr": 1}))
    with pytest.raises(ConfigError, match="fig8"):
        mx.check_spec(_spec(workloads=["S1", "S6"]))
    runs = mx.dfp_runs(_spec())
    assert ("two", "mlp", mx.PAPER_ORDERING) in runs and ("three", "mlp", mx.PAPER_ORDERING) in runs
    assert ("two", "cnn", mx.PAPER_ORDERING) in runs and ("two", "mlp", "real-sampled-synthetic") in runs


def test_bad_spec_is_one_line_and_nonzero(tmp_path):
    r = subprocess.run([sys.executable, "-m", "schedrl.cli", "mrsch", "claims", "--spec", json.dumps({"window": 10}),
                        "--out", str(tmp_path / "c.csv")], capture_output=True, text=True)
    assert r.returncode != 0 and len(r.stderr.strip().splitlines()) == 1 and "mrsch" in r.stderr


def _tree(tmp_path, n=240):
    """Train/test splits for S1-S5 on a 16-node machine with 8 burst-buffer units."""
    rng = np.random.default_rng(0)
    for k in range(1, 6):
        for part in ("train", "test"):
            frame = pd.DataFrame({"job_id": np.arange(1, n + 1), "submit_time": np.sort(rng.uniform(0, 5 * 86_400, n)).round(),
                                  "wait_time": -1, "run_time": rng.integers(100, 4000, n), "alloc_procs": rng.integers(1, 9, n),
                                  "req_time": 4000, "bb_request": rng.integers(1, 5, n).astype(float)})
            frame["req_procs"] = frame["alloc_procs"]
            for col in SWF_FIELDS:
                if col not in frame:
                    frame[col] = -1
            frame.attrs["header"] = {"MaxNodes": "16", "MaxProcs": "16", "MaxBurstBufferUnits": "8"}
            (tmp_path / f"S{k}").mkdir(exist_ok=True)
            write_swf(frame, tmp_path / f"S{k}" / f"{part}.swf")
    return tmp_path


def test_jobsets_per_group_are_deterministic_and_cycle_workloads(tmp_path):
    base = _tree(tmp_path)
    spec = _spec(jobs_per_set=30, jobsets={"sampled": 2, "real": 5, "synthetic": 3})
    a = mx.jobsets(spec, "two", base)
    b = mx.jobsets(spec, "two", base)
    assert [len(a[k]) for k in mx.KINDS] == [2, 5, 3]
    assert all(len(f) == 30 for k in mx.KINDS for f in a[k])
    for k in mx.KINDS:
        for x, y in zip(a[k], b[k]):
            pd.testing.assert_frame_equal(x, y)
    # real set i comes from workload i mod 5: five different tables
    assert len({tuple(f["run_time"]) for f in a["real"]}) == 5


def test_env_decision_structure_and_scalar_reward(tmp_path):
    base = _tree(tmp_path)
    frame = mx.read_part("S1", "test", base)
    env = mx.make_env(frame, 10)
    obs, info = env.reset(options={"jobs": frame.iloc[:50]})
    assert env.action_space.n == 10 and obs.shape == (4 * 10 + 2 * 16 + 2 * 8,)
    assert info["utilization"].shape == (2,) and np.isclose(info["demand_share"].sum(), 1.0)
    wrapped = mx.FixedWeightReward(mx.make_env(frame, 10), [0.5, 0.5])
    obs, info = wrapped.reset(options={"jobs": frame.iloc[:50]})
    _, reward, _, _, info = wrapped.step(0)
    assert reward == pytest.approx(0.5 * info["utilization"].sum())
    assert wrapped.action_masks().shape == (10,)


def test_kiviat_scores_and_gains_by_hand():
    frame = pd.DataFrame({"workload": ["S1"] * 2, "method": ["fcfs", "mrsch"], "node_util": [0.5, 1.0],
                          "bb_util": [0.4, 0.2], "mean_wait_h": [2.0, 1.0], "mean_slowdown": [4.0, 4.0]})
    s = mx.kiviat_scores(frame, ["node_util", "bb_util", "mean_wait_h", "mean_slowdown"]).set_index("method")
    assert s.loc["fcfs", ["k_node_util", "k_bb_util", "k_mean_wait_h", "k_mean_slowdown"]].tolist() == [0.5, 1.0, 0.5, 1.0]
    # area of a 4-axis polygon: 0.5 sin(90 deg) (a b + b c + c d + d a)
    assert s.loc["fcfs", "area"] == pytest.approx(0.5 * (0.5 + 0.5 + 0.5 + 0.5))
    assert s.loc["mrsch", "area"] == pytest.approx(0.5 * (0.5 + 0.5 + 1 + 1))
    g = mx.improvement(frame, "mean_wait_h", baselines=("fcfs",))
    assert g["gain"].tolist() == [0.5]  # wait halved
    assert mx.improvement(frame, "bb_util", baselines=("fcfs",))["gain"].tolist() == [-0.5]
    assert claims.kiviat_best(frame, ["node_util", "bb_util", "mean_wait_h", "mean_slowdown"])[:2] == (1, 1)


def test_mlp_advantage_and_best_ordering():
    frame = pd.DataFrame({"workload": ["S1", "S1"], "method": ["mrsch", "mrsch_cnn"], "node_util": [0.6, 0.5],
                          "bb_util": [0.5, 0.5], "mean_wait_h": [1.0, 2.0], "mean_slowdown": [3.0, 2.0]})
    adv = claims.mlp_advantage(frame).set_index("metric")["advantage"]
    assert adv["node_util"] == pytest.approx(0.2) and adv["mean_wait_h"] == pytest.approx(0.5)
    assert adv["mean_slowdown"] == pytest.approx(-0.5)
    losses = pd.DataFrame({"ordering": ["a"] * 10 + ["b"] * 10, "loss": [1.0] * 10 + [2.0] * 9 + [0.1]})
    assert claims.best_ordering(losses) == "b"  # the last tenth decides
    assert claims.state_size() == 11_410


def test_up_to_claims_verdicts():
    # fig6 wait: paper 48 %, tolerance rel 0.25 -> 12 points
    assert claims._at_least("fig6.wait_reduction_max", 0.60) == "reproduced"
    assert claims._at_least("fig6.wait_reduction_max", 0.37) == "reproduced"
    assert claims._at_least("fig6.wait_reduction_max", 0.30) == "partly reproduced"
    assert claims._at_least("fig6.wait_reduction_max", 0.10) == "not reproduced"
    assert claims._at_least("fig6.wait_reduction_max", float("nan")) == "not comparable"
