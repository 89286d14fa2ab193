"""DeepRM job-set generators and the load <-> arrival-rate mapping."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedrl.errors import ConfigError
from schedrl.workloads.deeprm import (
    JobSet,
    cunha_model,
    empirical_load,
    generate_jobset,
    load_for_rate,
    make_model,
    mao_model,
    rate_for_load,
    sb3_phase1_model,
)


def test_mao_defaults_match_deeprm_code():
    m = mao_model()
    assert (m.small_len, m.large_len, m.dominant, m.other) == ((1, 3), (10, 15), (5, 10), (1, 2))
    assert m.small_chance == 0.8 and m.num_res == 2


def test_sb3_phase1_variant_is_fractions_of_res_slot():
    m = sb3_phase1_model(res_slot=20)
    assert (m.dominant, m.other) == ((5, 10), (1, 2))
    m = sb3_phase1_model(res_slot=10)
    assert (m.dominant, m.other) == ((3, 5), (1, 1))


@pytest.mark.parametrize("d, js, small, large, size", [
    (15, 10, (1, 3), (10, 15), (5, 10)),
    (33, 32, (1, 6), (22, 33), (16, 32)),
    (48, 64, (1, 9), (32, 48), (32, 64)),
])
def test_cunha_ranges(d, js, small, large, size):
    m = cunha_model(max_job_len=d, max_job_size=js)
    assert (m.num_res, m.small_len, m.large_len, m.dominant) == (1, small, large, size)


def test_generation_is_seeded_and_in_range():
    m = mao_model(new_job_rate=0.7)
    a, b, c = (generate_jobset(m, 500, s) for s in (3, 3, 4))
    assert np.array_equal(a.arrival, b.arrival) and np.array_equal(a.demand, b.demand)
    assert not (len(a) == len(c) and np.array_equal(a.length, c.length))
    assert a.seed == 3 and a.simu_len == 500
    assert np.all(np.diff(a.arrival) > 0) and a.arrival.max() < 500  # at most one job per step
    small = a.length <= 3
    assert np.all((a.length[~small] >= 10) & (a.length[~small] <= 15))
    # exactly one dominant resource per job, the other in 1..2
    dom = a.demand.max(axis=1)
    oth = a.demand.min(axis=1)
    assert np.all((dom >= 5) & (dom <= 10)) and np.all((oth >= 1) & (oth <= 2))


def test_empirical_load_matches_expectation():
    m = mao_model(new_job_rate=0.7)
    js = generate_jobset(m, 200_000, 0)
    load = empirical_load(js, res_slot=10)
    expected = load_for_rate(0.7)
    assert load == pytest.approx([expected, expected], rel=0.02)
    assert abs(np.mean(js.length <= 3) - 0.8) < 0.01


def test_load_numbers_of_the_report():
    # E[len] = 0.8 * 2 + 0.2 * 12.5 = 4.1; E[demand] = (7.5 + 1.5) / 2 = 4.5 -> 1.845 per unit rate
    assert load_for_rate(1.0) == pytest.approx(1.845)
    assert load_for_rate(0.7) == pytest.approx(1.2915)  # the report's "130%"
    assert load_for_rate(0.7, definition="eq41") == pytest.approx(2 * 1.2915)
    assert rate_for_load(1.2915) == pytest.approx(0.7)
    with pytest.raises(ConfigError, match="outside"):
        rate_for_load(1.9)
    # sched-rl-gym scenario: 38 processors, sizes up to 32 (mean 24), lengths up to 15 (mean 4.1)
    kw = dict(workload="cunha", num_res=1, res_slot=38, max_job_size=38, workload_max_job_size=32)
    assert load_for_rate(0.3, **kw) == pytest.approx(0.3 * 4.1 * 24 / 38)
    with pytest.raises(ConfigError, match="load definition"):
        load_for_rate(0.5, definition="bogus")


@settings(max_examples=40, deadline=None)
@given(rate=st.floats(0.0, 1.0), res_slot=st.integers(10, 40), length=st.integers(5, 60),
       size=st.integers(5, 10), workload=st.sampled_from(["deeprm", "sb3_phase1"]))
def test_rate_load_roundtrip(rate, res_slot, length, size, workload):
    kw = dict(res_slot=res_slot, max_job_len=length, max_job_size=size, workload=workload)
    load = load_for_rate(rate, **kw)
    assert load >= 0
    assert rate_for_load(load, **kw) == pytest.approx(rate, abs=1e-9)


def test_bad_parameters_are_config_errors():
    with pytest.raises(ConfigError, match="new_job_rate"):
        mao_model(new_job_rate=1.5)
    with pytest.raises(ConfigError, match="unknown DeepRM workload"):
        make_model("nope", num_res=2, max_job_len=15, max_job_size=10, res_slot=10, new_job_rate=0.5)
    with pytest.raises(ConfigError, match="one resource"):
        make_model("cunha", num_res=2, max_job_len=15, max_job_size=10, res_slot=10, new_job_rate=0.5)


def test_from_lists_and_validation():
    js = JobSet.from_lists([0, 0, 2], [1, 2, 3], [[1, 2], [3, 4], [5, 6]])
    assert len(js) == 3 and js.num_res == 2 and js.simu_len == 3
    with pytest.raises(ValueError):
        JobSet.from_lists([2, 1], [1, 1], [1, 1])
