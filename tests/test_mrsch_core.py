"""What MRSch needs from the core: the Theta state size, the power encoder, capped power draws
that make S6-S10 simulable, the paper's GA (forced, any window size) and the training job sets."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from schedrl.encoders.hpc import HPCEncoderParams, MRSchPowerEncoder, mrsch_size
from schedrl.errors import ConfigError
from schedrl.schedulers import ga
from schedrl.sim import ClusterSpec, HPCSimulator, simulate
from schedrl.workloads.extend import apply_scenario, cap_power
from schedrl.workloads.jobsets import hour_of_week_rates, real_jobsets, sampled_jobset, synthetic_jobset
from schedrl.workloads.presets import THETA, Machine


def test_theta_state_size_is_11410():
    p = HPCEncoderParams(nodes=THETA.nodes, bb_units=THETA.bb_units, window=10)
    assert mrsch_size(p) == 4 * 10 + 2 * 4360 + 2 * 1325 == 11_410
    assert MRSchPowerEncoder(p).shape == (11_410 + 10 + 2,)


def test_power_encoder_by_hand():
    # 4 nodes, budget 4 x 10 W idle + 100 W head room; J0 (2 nodes, 30 W over idle each = 60 W)
    # runs 100 s of req 100; J1 (1 node, +20 W) waits
    jobs = pd.DataFrame({"job_id": [1, 2], "submit_time": [0, 0], "run_time": [100, 50], "req_procs": [2, 1],
                         "req_time": [100, 200], "power_per_node": [40.0, 30.0]})
    cluster = ClusterSpec(nodes=4, power_budget=140.0, idle_power=10.0)
    sim = HPCSimulator(cluster)
    sim.reset(jobs)
    assert sim.start(0)
    p = HPCEncoderParams(nodes=4, window=2, time_scale=400.0, wait_scale=100.0)
    out = MRSchPowerEncoder(p)(sim.state(), jobs=sim.jobs)
    base = mrsch_size(p)
    # window: J1 needs 20 W of the 100 W head room; 40 W of it is free; J0 has 100 s of 400 left
    np.testing.assert_allclose(out[base:], [0.2, 0.0, 0.4, 0.25], rtol=1e-6)


def test_power_cap_makes_every_job_fit_on_an_idle_machine():
    # Theta: 4,360 x 60 W idle leaves 238.4 kW; a 4,360-node job at 215 W would need 676 kW over idle
    capped = cap_power(np.array([215.0, 215.0, 150.0]), np.array([4360, 1000, 128]))
    assert capped[0] == pytest.approx(60 + 238_400 / 4360, abs=1e-3) and capped[0] > 100
    assert capped[1] == 215.0 and capped[2] == 150.0  # 1,000 x 155 W = 155 kW fits
    frame = pd.DataFrame({"job_id": [1, 2, 3], "submit_time": [0, 10, 20], "wait_time": -1, "run_time": [50, 60, 70],
                          "alloc_procs": [4360, 2000, 128], "req_procs": [4360, 2000, 128], "req_time": [100, 100, 100]})
    out = apply_scenario(frame, "S6", seed=3)
    assert out["power_per_node"].between(100, 215).all()
    cluster = ClusterSpec(nodes=4360, bb_units=THETA.bb_units, power_budget=500_000.0, idle_power=60.0)
    sched = simulate(out, cluster, policy="fcfs", backfill="easy")  # raised "needs more power" before
    assert sched["start_time"].notna().all()
    raw = apply_scenario(frame, "S6", seed=3, power_fit="none")
    assert (raw["power_per_node"] >= out["power_per_node"]).all()
    with pytest.raises(ConfigError):
        apply_scenario(frame, "S6", power_fit="clip")
    with pytest.raises(ConfigError):
        cap_power(np.array([100.0]), np.array([1]), Machine("m", nodes=10, node_idle_watts=60, power_budget_watts=100))


def test_forced_ga_runs_any_window_and_matches_the_front():
    for w in (1, 2, 3):
        demand = np.arange(1, w + 1)[:, None] * np.array([[1.0, 2.0]])
        choice = ga.optimise_window(demand, [3.0, 6.0], exhaustive_max=0, seed=1)
        assert choice.method == "ga"
        exact = ga.optimise_window(demand, [3.0, 6.0])
        assert choice.objectives.sum() <= exact.objectives.sum() + 1e-12
    one = ga.optimise_window([[2.0, 1.0]], [3.0, 3.0], exhaustive_max=0)
    assert one.jobs.tolist() == [0]  # the only job fits: the GA keeps it
    jobs = pd.DataFrame({"job_id": range(1, 7), "submit_time": [0, 0, 0, 5, 5, 9], "run_time": [10, 20, 5, 5, 8, 3],
                         "req_procs": [2, 3, 1, 4, 1, 2], "req_time": [10, 20, 5, 5, 8, 3],
                         "bb_request": [1, 0, 2, 1, 1, 0]})
    cluster = ClusterSpec(nodes=4, bb_units=2)
    sched = ga.simulate_window_optimiser(jobs, cluster, window=10, exhaustive_max=0)
    assert sched["start_time"].notna().all()


def _table(n=400, seed=0):
    rng = np.random.default_rng(seed)
    submit = np.sort(rng.uniform(0, 14 * 86_400, n)).round()
    frame = pd.DataFrame({"job_id": np.arange(1, n + 1), "submit_time": submit, "wait_time": 5, "run_time": 50,
                          "alloc_procs": rng.integers(1, 9, n), "req_time": rng.integers(60, 600, n),
                          "bb_request": rng.integers(1, 5, n).astype(float)})
    frame["req_procs"] = frame["alloc_procs"]
    frame.attrs["header"] = {"MaxNodes": "8"}
    return frame


def test_job_sets():
    frame = _table()
    real = real_jobsets(frame, 3, 100)
    assert [len(x) for x in real] == [100, 100, 100] and real[0]["submit_time"].iloc[0] == 0
    assert real[-1]["req_time"].tolist() == frame["req_time"].iloc[-100:].tolist()
    rng = np.random.default_rng(0)
    s = sampled_jobset(frame, 200, rng)
    gaps = np.diff(s["submit_time"].to_numpy())
    assert abs(gaps.mean() / (14 * 86_400 / 399) - 1) < 0.25  # Poisson at the table's mean rate
    assert set(s["req_time"]) <= set(frame["req_time"]) and (s["wait_time"] == -1).all()
    syn = synthetic_jobset(frame, 300, rng)
    assert len(syn) == 300 and syn["submit_time"].is_monotonic_increasing
    assert set(syn["req_procs"]) <= set(frame["req_procs"]) and syn.attrs["header"]["MaxNodes"] == "8"
    # a table that only ever submits between 09:00 and 10:00 yields synthetic arrivals only then
    day = _table(50)
    day["submit_time"] = np.arange(50) * 7 * 86_400 / 50 // 86_400 * 86_400 + 9 * 3600 + np.arange(50)
    rates = hour_of_week_rates(day)
    assert np.flatnonzero(rates).tolist() and all(h % 24 == 9 for h in np.flatnonzero(rates))
    syn = synthetic_jobset(day, 40, rng)
    d = syn["submit_time"].to_numpy()  # shifted to start at 0: every arrival within an hour of the first's time of day
    assert (((d + 3600) % 86_400) < 7200).all()
    with pytest.raises(ConfigError):
        sampled_jobset(frame.iloc[:1], 5, rng)


def test_goal_is_equation_1_recomputed_at_every_decision():
    from schedrl.envs.hpc import resource_measurements

    # 4 nodes, 8 BB units. J0 (2 nodes, 4 units, req 100) runs from 0; J1 (4 nodes, no BB, req 50) waits.
    jobs = pd.DataFrame({"job_id": [1, 2], "submit_time": [0, 0], "run_time": [100, 50], "req_procs": [2, 4],
                         "req_time": [100, 50], "bb_request": [4, 0]})
    sim = HPCSimulator(ClusterSpec(nodes=4, bb_units=8))
    sim.reset(jobs)
    assert sim.start(0) and not sim.start(0)
    util, goal = resource_measurements(sim)
    # nodes: 2/4 x 100 + 4/4 x 50 = 100; BB: 4/8 x 100 + 0 = 50  ->  r = (2/3, 1/3)
    np.testing.assert_allclose(util, [0.5, 0.5])
    np.testing.assert_allclose(goal, [2 / 3, 1 / 3])
    sim.clock = 60.0  # 40 s of J0's request left: nodes 2/4 x 40 + 50 = 70, BB 4/8 x 40 = 20
    np.testing.assert_allclose(resource_measurements(sim)[1], [70 / 90, 20 / 90])
