"""Invariants of the simulator over thousands of random workloads (hypothesis + seeded sweeps)."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schedrl import metrics
from schedrl.sim import ClusterSpec, HPCSimulator, simulate


def random_workload(rng, n, cluster: ClusterSpec, exact_fraction=0.3):
    """Random jobs that each fit the cluster; some with exact walltimes, many simultaneous."""
    submit = np.sort(rng.integers(0, max(1, n * 8), n)).astype(float)
    run = rng.integers(0, 60, n).astype(float)
    req = np.where(rng.random(n) < exact_fraction, run, run + rng.integers(0, 40, n))
    # a few jobs overrun their request (killed or continued, by option)
    over = rng.random(n) < 0.1
    run = np.where(over, req + rng.integers(1, 20, n), run)
    frame = pd.DataFrame({
        "job_id": np.arange(1, n + 1),
        "submit_time": submit,
        "run_time": run,
        "req_procs": rng.integers(1, cluster.nodes + 1, n),
        "req_time": np.maximum(req, 1),
    })
    if cluster.bb_units:
        frame["bb_request"] = rng.integers(0, cluster.bb_units + 1, n).astype(float)
    if cluster.power_budget:
        frame["power_per_node"] = rng.uniform(0, 3 * cluster.idle_power + 50, n).round(1)
    return frame


def random_cluster(rng):
    nodes = int(rng.integers(1, 17))
    bb = int(rng.integers(1, 30)) if rng.random() < 0.4 else 0
    idle = float(rng.integers(1, 20))
    # headroom above idle large enough for the biggest job at the largest power draw
    power = nodes * idle + nodes * (2 * idle + 50) * rng.uniform(0.5, 1.5) if rng.random() < 0.3 else 0.0
    cluster = ClusterSpec(nodes=nodes, bb_units=bb, power_budget=round(power, 1), idle_power=idle)
    return cluster


def fit_workload(rng, n, cluster):
    """A workload whose jobs all fit (power draws capped to the budget's head room)."""
    jobs = random_workload(rng, n, cluster)
    if cluster.power_budget:
        room = cluster.power_budget - cluster.nodes * cluster.idle_power
        cap = cluster.idle_power + room / jobs["req_procs"] - 1e-3
        jobs["power_per_node"] = np.minimum(jobs["power_per_node"], cap).round(3) - 0.001
    return jobs


def check_invariants(jobs, sched, cluster, policy, backfill, overrun):
    """Every invariant that must hold for any workload, policy and backfilling mode."""
    n = len(jobs)
    assert len(sched) == n
    start, end = sched["start_time"].to_numpy(), sched["end_time"].to_numpy()
    submit = jobs["submit_time"].to_numpy(float)
    # every job runs and finishes; never before it is submitted
    assert np.isfinite(start).all() and np.isfinite(end).all()
    assert (start >= submit).all()
    run = jobs["run_time"].to_numpy(float)
    req = jobs["req_time"].to_numpy(float)
    expected_run = np.minimum(run, req) if overrun == "kill" else run
    np.testing.assert_array_equal(end - start, expected_run)
    # no resource over capacity at any instant: check at every start (usage only rises there)
    procs = jobs["req_procs"].to_numpy(float)
    usage = [("nodes", procs, cluster.nodes)]
    if cluster.bb_units:
        usage.append(("bb", np.ceil(jobs["bb_request"].to_numpy(float)), cluster.bb_units))
    if cluster.power_budget:
        draw = procs * np.maximum(jobs["power_per_node"].to_numpy(float) - cluster.idle_power, 0)
        usage.append(("power", draw, cluster.power_budget - cluster.nodes * cluster.idle_power))
    for t in np.unique(start):
        # zero-length jobs start and end at one instant, before later starts at that instant
        active = (start <= t) & (end > t)
        for name, demand, cap in usage:
            assert demand[active].sum() <= cap + 1e-6, (name, t)
    # conservation of node-seconds: what the metric counts is what the jobs ran
    assert metrics.used_node_seconds(sched) == pytest.approx(float(np.sum(procs * expected_run)))
    if end.max() > submit.min():
        util = metrics.utilization(sched, cluster.nodes)
        assert util == pytest.approx(np.sum(procs * expected_run) / (cluster.nodes * (end.max() - submit.min())))
        assert 0 <= util <= 1 + 1e-9
    order = np.lexsort((np.arange(n), submit))
    if policy == "fcfs" and backfill == "none":
        # strict FCFS starts jobs in arrival order
        assert (np.diff(start[order]) >= 0).all()
    if backfill == "greedy":
        # list scheduling: after every decision point (a submission or an end) no waiting job fits
        # (power is held in integer mW by the simulator: count a fit only with 0.01 W to spare)
        margin = {"nodes": 0.0, "bb": 0.0, "power": 0.01}
        for t in np.unique(np.concatenate([submit, end])):
            waiting = (submit <= t) & (start > t)
            if not waiting.any():
                continue
            running = (start <= t) & (end > t)
            fits = waiting.copy()
            for name, demand, cap in usage:
                fits &= demand <= cap - demand[running].sum() - margin[name]
            assert not fits.any(), t
    if policy == "fcfs" and backfill in ("easy", "conservative") and overrun == "kill":
        # a reservation is never broken: the job starts no later than first promised
        res = sched["reservation"].to_numpy()
        held = ~np.isnan(res)
        assert (start[held] <= res[held]).all()


CASES = [(p, b, o) for p in ("fcfs", "sjf") for b in ("none", "easy", "conservative", "greedy")
         for o in ("kill", "continue")]


@pytest.mark.parametrize("policy, backfill, overrun", CASES)
def test_invariants_seeded_sweep(policy, backfill, overrun):
    """200 random workloads per case (16 cases: 3,200 in all), clusters with 1 to 3 dimensions."""
    rng = np.random.default_rng(CASES.index((policy, backfill, overrun)))
    for _ in range(200):
        cluster = random_cluster(rng)
        jobs = fit_workload(rng, int(rng.integers(1, 40)), cluster)
        sched = simulate(jobs, cluster, policy, backfill, overrun)
        check_invariants(jobs, sched, cluster, policy, backfill, overrun)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 25),
       case=st.sampled_from(CASES))
def test_invariants_hypothesis(seed, n, case):
    policy, backfill, overrun = case
    rng = np.random.default_rng(seed)
    cluster = random_cluster(rng)
    jobs = fit_workload(rng, n, cluster)
    check_invariants(jobs, simulate(jobs, cluster, policy, backfill, overrun), cluster, policy,
                     backfill, overrun)


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 25),
       case=st.sampled_from([(p, b) for p in ("fcfs", "sjf") for b in ("none", "easy", "greedy")]))
def test_step_api_matches_compiled_loop(seed, n, case):
    """The Python step API driven by a policy makes exactly the compiled loop's decisions."""
    policy, backfill = case
    rng = np.random.default_rng(seed)
    cluster = random_cluster(rng)
    jobs = fit_workload(rng, n, cluster)
    fast = simulate(jobs, cluster, policy, backfill)
    sim = HPCSimulator(cluster)
    sim.reset(jobs)
    slow = sim.run_policy(policy, backfill)
    np.testing.assert_array_equal(fast["start_time"], slow["start_time"])
    np.testing.assert_array_equal(fast["reservation"], slow["reservation"])


def test_easy_not_worse_than_none_on_average():
    """Backfilling never leaves the machine idler in total: over many workloads EASY's mean wait
    is below strict FCFS's (a sanity check of direction, not a theorem per workload)."""
    rng = np.random.default_rng(7)
    easy, none = [], []
    for _ in range(200):
        cluster = ClusterSpec(nodes=8)
        jobs = fit_workload(rng, 30, cluster)
        easy.append(metrics.mean_wait(simulate(jobs, cluster, "fcfs", "easy")))
        none.append(metrics.mean_wait(simulate(jobs, cluster, "fcfs", "none")))
    assert np.mean(easy) < np.mean(none)
