"""Grid encoders: hand-checked images, DeepRM's width formula, incremental == from scratch."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedrl.encoders import encoder_names, get_encoder
from schedrl.encoders.grid_images import encode_image, encode_stacked
from schedrl.errors import ConfigError
from schedrl.sim.grid import Grid, GridParams
from schedrl.workloads.deeprm import JobSet, generate_jobset, mao_model

SMALL = GridParams(num_res=1, num_nw=2, time_horizon=5, res_slot=4, max_job_len=5, max_job_size=4,
                   backlog_size=2, machine_colors=False)


@pytest.mark.parametrize("num_nw, width", [(5, 124), (10, 224)])
def test_image_width_formula(num_nw, width):
    enc = get_encoder("image")(GridParams(num_nw=num_nw))
    assert enc.shape == (20, width)


def test_stacked_shape():
    assert get_encoder("stacked")(GridParams(num_nw=5)).shape == (6 * 20, 2 * 10)


def test_registry_rejects_unknown_names():
    assert {"image", "stacked", "compact"} <= set(encoder_names())
    with pytest.raises(ConfigError, match="unknown encoder 'pixels'"):
        get_encoder("pixels")


def test_hand_image():
    # width = (4 + 4 * 2) * 1 + ceil(2 / 5) + 1 = 14: machine 0-3, slot 0 4-7, slot 1 8-11,
    # backlog 12, time since last job 13
    g = Grid(SMALL)
    g.reset(JobSet.from_lists([0, 0, 0, 0], [2, 1, 3, 1], [[3], [2], [1], [4]], simu_len=3))
    enc = get_encoder("image")(SMALL)
    img = enc(g)
    expect = np.zeros((5, 14), dtype=np.float32)
    expect[0:2, 4:7] = 1  # slot 0: 2 steps x 3 units
    expect[0:1, 8:10] = 1  # slot 1: 1 step x 2 units
    expect[0:2, 12] = 1  # two jobs in the backlog (backlog_width 1: one cell per row)
    assert img.dtype == np.float32
    np.testing.assert_array_equal(img, expect)
    assert g.allocate(0)  # j0 to the machine; the backlog head (j2: 3 steps x 1 unit) takes slot 0
    g.move_on()
    img = enc(g)
    expect[:] = 0
    expect[0:1, 0:3] = 1  # j0's second step, now in row 0
    expect[0:3, 4:5] = 1  # j2
    expect[0:1, 8:10] = 1  # j1 still in slot 1
    expect[0, 12] = 1  # j3 in the backlog
    expect[:, 13] = 0.1  # one step since the last arrival, over max_track_since_new 10
    np.testing.assert_array_equal(img, expect)
    np.testing.assert_array_equal(img, encode_image(g))


def test_hand_stacked():
    g = Grid(SMALL)
    g.reset(JobSet.from_lists([0, 0], [2, 1], [[3], [2]]))
    g.allocate(1)
    img = get_encoder("stacked")(SMALL)(g)
    expect = np.zeros((15, 4), dtype=np.float32)
    expect[0, 0:2] = 1  # machine: j1 one step x 2 units
    expect[5:7, 0:3] = 1  # slot 0 block (rows 5-9): j0
    np.testing.assert_array_equal(img, expect)


def test_machine_colours():
    p = GridParams(**{**SMALL.__dict__, "machine_colors": True})
    g = Grid(p)
    g.reset(JobSet.from_lists([0, 0], [2, 1], [[1], [2]]))
    g.allocate(0)
    g.allocate(1)
    img = encode_image(g)
    assert img[0, 0:4].tolist() == pytest.approx([1 / 40, 2 / 40, 2 / 40, 0])
    assert img[1, 0:4].tolist() == pytest.approx([1 / 40, 0, 0, 0])


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 1000), num_nw=st.integers(1, 5), backlog=st.integers(0, 25),
       actions=st.lists(st.integers(0, 5), min_size=1, max_size=150))
def test_incremental_matches_from_scratch(seed, num_nw, backlog, actions):
    p = GridParams(num_nw=num_nw, backlog_size=backlog)
    g = Grid(p)
    image, stacked = get_encoder("image")(p), get_encoder("stacked")(p)
    for episode in range(2):  # the second reset must redraw everything
        g.reset(generate_jobset(mao_model(new_job_rate=0.9), 25, seed + episode))
        for a in actions:
            if a < num_nw:
                g.allocate(a)
            else:
                g.move_on()
            im = image(g)
            np.testing.assert_array_equal(im, encode_image(g))
            np.testing.assert_array_equal(stacked(g), encode_stacked(g))
            assert im.min() >= 0 and im.max() <= 1
            im[:] = 7  # callers own the array they get
        np.testing.assert_array_equal(image(g), encode_image(g))


@pytest.mark.parametrize("n_p, pixels", [(10, 2_280), (38, 8_440), (64, 14_160)])
def test_mdp_image_sizes(n_p, pixels):
    # mdp-design's image-like state: H x (n_p (W + 1) + 3 + 1) with one resource, slots n_p wide
    p = GridParams(num_res=1, num_nw=10, time_horizon=20, res_slot=n_p, max_job_size=n_p, backlog_size=60)
    assert np.prod(get_encoder("image")(p).shape) == pixels


def test_compact_size_is_sched_rl_gym():
    p = GridParams(num_res=1, num_nw=10, time_horizon=20, res_slot=38, max_job_size=32)
    assert get_encoder("compact")(p, time_limit=100).shape == (118,)
    assert get_encoder("compact")(GridParams(), time_limit=100).shape == (4 * 20 + 70 + 8,)


def test_hand_compact():
    g = Grid(SMALL)
    g.reset(JobSet.from_lists([0, 0, 1], [2, 1, 3], [[3], [2], [1]], simu_len=2))
    enc = get_encoder("compact")(SMALL, time_limit=10)
    v = enc(g)
    assert v.shape == (2 * 5 + 7 * 2 + 8,) and v.dtype == np.float32
    np.testing.assert_allclose(v[:10], [1, 0] * 5)  # (free, used) / 4 over the horizon
    # (x + 1) / (limit + 1); limits 10 (time), 5 (length), 4 (memory, procs), 4 (queue: W + backlog),
    # 4 * 5 * 4 = 80 (queued work), 4 (free procs)
    np.testing.assert_allclose(v[10:17], [1 / 11, 3 / 6, 1 / 5, 4 / 5, 1 / 5, 1 / 81, 5 / 5], rtol=1e-6)
    np.testing.assert_allclose(v[17:24], [1 / 11, 2 / 6, 1 / 5, 3 / 5, 2 / 5, 7 / 81, 5 / 5], rtol=1e-6)
    # backlog 0; no running job: 0, 0, free now 4/4; work 8 / (4 * 10); memory work 0; queue 2/10;
    # time left 1
    np.testing.assert_allclose(v[24:], [0, 0, 0, 1, 0.2, 0, 0.2, 1], rtol=1e-6)
    g.allocate(0)  # j0 runs for 2 steps on 3 units
    v = enc(g)
    np.testing.assert_allclose(v[:10], [0.25, 0.75, 0.25, 0.75, 1, 0, 1, 0, 1, 0])
    np.testing.assert_allclose(v[10:17], 0)  # slot 0 is empty now
    np.testing.assert_allclose(v[24:], [0, 0.2, 0.75, 1.0, 0.05, 0, 0.1, 1], rtol=1e-6)
    g.move_on()
    v = enc(g)
    assert v[-1] == pytest.approx(0.9) and v[25] == pytest.approx(0.1)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 1000), actions=st.lists(st.integers(0, 3), min_size=1, max_size=120))
def test_compact_stays_in_bounds(seed, actions):
    p = GridParams(num_nw=3, backlog_size=5)
    g = Grid(p)
    g.reset(generate_jobset(mao_model(new_job_rate=1.0), 60, seed))
    enc = get_encoder("compact")(p, time_limit=50)
    for a in actions:
        g.allocate(a) if a < 3 else g.move_on()
        v = enc(g)
        assert v.shape == enc.shape and np.all((v >= 0) & (v <= 1))
