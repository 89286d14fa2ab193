"""HPC state encoders (schedrl.encoders.hpc): the papers' sizes, hand-checked vectors, references."""

import numpy as np
import pandas as pd
import pytest

from schedrl.encoders import get_encoder
from schedrl.encoders.hpc import (
    HPCEncoderParams,
    encode_dras,
    encode_mrsch,
    encode_runtime,
    encode_sem,
)
from schedrl.envs.hpc import LiveState
from schedrl.errors import ConfigError
from schedrl.sim import ClusterSpec, HPCSimulator
from schedrl.workloads.lublin import generate


def _size(name, **kw):
    return get_encoder(name)(HPCEncoderParams(**kw)).shape[0]


def test_sizes_are_the_papers():
    # SEM Table 4 / section 4.3: DRAS 8,920 (Theta) and 3,528 (DataStar); SEM 268 and 280
    assert _size("dras", nodes=4360, window=50) == 8920
    assert _size("dras", nodes=1664, window=50) == 3528
    assert _size("sem", nodes=4360, window=50, k=34) == 268
    assert _size("sem", nodes=1664, window=50, k=40) == 280
    # MRSch section IV: 4W + 2 N1 + 2 N2 = 11,410 on Theta with W = 10
    assert _size("mrsch", nodes=4360, bb_units=1325, window=10) == 11410
    # runtime brief 4.2: N_nodes 256, N_jobs 100
    assert _size("runtime_baseline", nodes=256, window=100) == 256 + 2 * 100
    assert _size("runtime_proposal", nodes=256, window=100) == 2 * 256 + 3 * 100


def test_theta_sized_state_encodes_to_declared_shapes():
    jobs = generate("theta_like", n_jobs=200, seed=1)
    sim = HPCSimulator(ClusterSpec(nodes=4360, bb_units=1325))
    sim.reset(jobs)
    while sim.queue and sim.start(0):
        pass
    state = sim.state()
    for name, kw in (("dras", {}), ("sem", {"k": 34}), ("mrsch", {"window": 10, "bb_units": 1325})):
        enc = get_encoder(name)(HPCEncoderParams(nodes=4360, **kw))
        out = enc(state, jobs=sim.jobs)
        assert out.shape == enc.shape and out.dtype == np.float32
        assert out.min() >= 0 and out.max() <= 1


def _tiny(bb=False):
    """4 nodes; J0 (2 nodes, req 100, est 80), J1 (1 node, req 200, runs 30, est 150) start at 0;
    J2 (4 nodes, req 200, est 120) waits."""
    jobs = pd.DataFrame({"job_id": [1, 2, 3], "submit_time": [0, 0, 0], "run_time": [100, 30, 150],
                         "req_procs": [2, 1, 4], "req_time": [100, 200, 200],
                         "runtime_estimate": [80, 150, 120], "bb_request": [2, 0, 3]})
    sim = HPCSimulator(ClusterSpec(nodes=4, bb_units=3 if bb else 0))
    sim.reset(jobs)
    assert sim.start(0) and sim.start(0) and not sim.start(0)
    return sim


P = HPCEncoderParams(nodes=4, window=2, k=2, time_scale=400.0, wait_scale=100.0)


def _enc(name, params=P):
    return get_encoder(name)(params)


def test_hand_checked_vectors_at_time_0():
    sim = _tiny()
    st = sim.state()
    window = [1, 0.5, 0, 0, 0, 0, 0, 0]  # J2: size 4/4, req 200/400, no priority, wait 0; empty slot
    np.testing.assert_allclose(_enc("dras")(st), window + [0, .25, 0, .25, 0, .5, 1, 0])
    np.testing.assert_allclose(_enc("sem")(st, jobs=sim.jobs), window + [.5, .25, .25, .5])
    # K = 1 keeps only the largest running job (Algorithm 2)
    k1 = HPCEncoderParams(nodes=4, window=2, k=1, time_scale=400.0, wait_scale=100.0)
    np.testing.assert_allclose(_enc("sem", k1)(st), window + [.5, .25])  # sizes from node_job
    np.testing.assert_allclose(_enc("runtime_baseline")(st), [.25, .25, .5, 0, 1, 0, .5, 0])
    np.testing.assert_allclose(_enc("runtime_proposal")(st),
                               [.25, .25, .5, 0, .2, .2, .375, 0, 1, 0, .5, 0, .3, 0])
    np.testing.assert_allclose(_enc("dras")(st, priority=np.array([1.0]))[:4], [1, .5, 1, 0])


def test_hand_checked_vectors_after_an_end():
    sim = _tiny()
    st = sim.advance()  # J1 ends at 30 (actual runtime)
    assert st.clock == 30
    window = [1, .5, 0, .3, 0, 0, 0, 0]
    np.testing.assert_allclose(_enc("dras")(st), window + [0, .175, 0, .175, 1, 0, 1, 0], rtol=1e-6)
    np.testing.assert_allclose(_enc("sem")(st, jobs=sim.jobs), window + [.5, .175, 0, 0], rtol=1e-6)
    est = HPCEncoderParams(nodes=4, window=2, k=2, time_scale=400.0, wait_scale=100.0, remaining="est")
    np.testing.assert_allclose(_enc("sem", est)(st, jobs=sim.jobs), window + [.5, .125, 0, 0], rtol=1e-6)


def test_mrsch_burst_buffer_units():
    sim = _tiny(bb=True)
    st = sim.state()
    p = HPCEncoderParams(nodes=4, bb_units=3, window=2, time_scale=400.0, wait_scale=100.0)
    out = _enc("mrsch", p)(st, jobs=sim.jobs)
    np.testing.assert_allclose(out, [1, 1, .5, 0, 0, 0, 0, 0,          # J2: 4/4 nodes, 3/3 BB, req, wait
                                     0, .25, 0, .25, 0, .5, 1, 0,     # nodes
                                     0, .25, 0, .25, 1, 0])           # J0 holds 2 of 3 BB units
    with pytest.raises(ConfigError):
        _enc("mrsch", p)(st)  # burst-buffer units need the job arrays


def test_values_are_clipped_and_params_validated():
    sim = _tiny()
    small = HPCEncoderParams(nodes=4, window=2, k=2, time_scale=10.0, wait_scale=1.0)
    out = _enc("dras", small)(sim.advance())
    assert out.max() == 1.0 and out.min() == 0.0
    for bad in ({"nodes": 0}, {"nodes": 4, "time_scale": 0}, {"nodes": 4, "remaining": "x"},
                {"nodes": 4, "wait_scale": float("inf")}):
        with pytest.raises(ConfigError):
            HPCEncoderParams(**bad)
    with pytest.raises(ConfigError):
        get_encoder("no_such_encoder")


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_vectorised_encoders_match_references_and_live_view(seed):
    jobs = generate("lublin256", n_jobs=150, seed=seed, max_nodes=32)
    jobs["submit_time"] = jobs["submit_time"] // 20  # a busy machine with a queue
    jobs["runtime_estimate"] = jobs["run_time"] * 0.7
    jobs["bb_request"] = np.random.default_rng(seed).integers(0, 4, len(jobs))
    sim = HPCSimulator(ClusterSpec(nodes=32, bb_units=12))
    sim.reset(jobs)
    rng = np.random.default_rng(seed)
    checked = 0
    for _ in range(60):
        if sim.done:
            break
        for _ in range(6):
            if sim.queue:
                sim.start(int(rng.integers(len(sim.queue))))
        st = sim.state()
        live = LiveState(sim, 6)
        for remaining in ("req", "est"):
            p = HPCEncoderParams(nodes=32, bb_units=12, window=6, k=2, time_scale=5000.0,
                                 wait_scale=2000.0, remaining=remaining)
            prio = (np.arange(len(st.queue)) % 2).astype(float)
            for view in (st, live):
                np.testing.assert_array_equal(_enc("dras", p)(view, priority=prio[:6]), encode_dras(st, p, prio))
                np.testing.assert_array_equal(_enc("sem", p)(view, jobs=sim.jobs, priority=prio[:6]),
                                              encode_sem(st, p, sim.jobs, prio))
                np.testing.assert_array_equal(_enc("sem", p)(view), encode_sem(st, p, None, prio * 0))
                np.testing.assert_array_equal(_enc("mrsch", p)(view, jobs=sim.jobs), encode_mrsch(st, p, sim.jobs))
                for proposal, name in ((False, "runtime_baseline"), (True, "runtime_proposal")):
                    np.testing.assert_array_equal(_enc(name, p)(view), encode_runtime(st, p, proposal))
        checked += len(st.running) > 2
        sim.advance()
    assert checked > 5  # K-largest truncation was exercised
