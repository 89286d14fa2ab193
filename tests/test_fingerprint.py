"""Behaviour fingerprints (schedrl.experiments.fingerprint): hard-coded pickers are recognised as
themselves, random play agrees at chance, and the score-based measures read real networks."""

import numpy as np
import pytest

import schedrl.envs  # noqa: F401  (registers the envs)
from schedrl.envs import make_hpc_env
from schedrl.envs.deeprm import DeepRMEnv
from schedrl.experiments.fingerprint import (
    AgentView,
    FingerprintRecorder,
    describe,
    fingerprint,
    fingerprint_table,
    heuristic_picks,
    play_recorded,
    reinforce_view,
    sb3_view,
    write_fingerprint,
)
from schedrl.workloads.lublin import generate


def _hpc(decision="pick_reserve", **kw):
    jobs = generate("lublin256", n_jobs=300, seed=3, max_nodes=32)
    jobs["submit_time"] = jobs["submit_time"] // 60  # a busy machine: queues form
    jobs["req_time"] = np.ceil(jobs["run_time"] * 1.5)
    return make_hpc_env(decision, jobs=jobs, cluster=32, encoder="sem", reward="neg_slowdown", window=5, k=4, **kw)


def _first_valid(k):
    def policy(obs, env):
        mask = env.unwrapped.action_masks()
        return k if mask[k] else int(np.flatnonzero(mask)[0])
    return policy


def test_slot_one_picker_is_found_as_slot_one():
    env = _hpc()
    rec = play_recorded(env, _first_valid(1), [{"seed": 0}])
    fp = fingerprint(rec.decisions)
    assert fp["contested"] > 20
    assert fp["agree_slot_1"] == 1.0 and fp["top_slot"] == 1
    assert fp["plays_as"] == "slot 1"
    assert describe(fp).startswith("plays as slot 1 (100%")
    assert fp["agree_fcfs"] == 0.0  # slot 0 is the queue head: never picked
    assert fp["invalid_share"] == 0.0
    fp = fingerprint(play_recorded(_hpc(), lambda obs, env: 1, [{"seed": 0}]).decisions)  # unmasked
    assert fp["agree_slot_1"] == 1.0 and fp["invalid_share"] == 0.0  # slot 1 is valid whenever contested
    deeprm = DeepRMEnv(obs_mode="compact", num_nw=5, simu_len=40, placement="now", new_job_rate=0.9)
    fp = fingerprint(play_recorded(deeprm, lambda obs, env: 4, [{"seed": 0}]).decisions)
    assert fp["agree_slot_4"] == 1.0 and 0.0 < fp["invalid_share"] < 1.0  # slot 4 often empty or unfit


def test_queue_head_picker_plays_as_fcfs_and_random_at_chance():
    env = _hpc()
    fp = fingerprint(play_recorded(env, _first_valid(0), [{"seed": 0}]).decisions)
    assert fp["agree_fcfs"] == 1.0 and fp["plays_as"] == "fcfs"
    rng = np.random.default_rng(0)

    def uniform(obs, env):
        return int(rng.choice(np.flatnonzero(env.unwrapped.action_masks())))

    fp = fingerprint(play_recorded(_hpc(), uniform, [{"seed": s} for s in range(3)]).decisions)
    assert fp["plays_as"] == ""
    for name in ("fcfs", "sjf", "largest"):
        assert abs(fp[f"agree_{name}"] - fp["chance"]) < 0.12, (name, fp)


def test_sjf_on_deeprm_and_time_stepped_stop_action():
    from schedrl.schedulers.grid import sjf

    env = DeepRMEnv(obs_mode="compact", num_nw=5, simu_len=40, placement="now", new_job_rate=0.9)
    fp = fingerprint(play_recorded(env, lambda obs, e: sjf(e.unwrapped), [{"seed": 0}, {}]).decisions)
    assert fp["contested"] > 10 and fp["agree_sjf"] == 1.0 and fp["plays_as"] == "sjf"
    # the runtime env's stop action X is no job: no heuristic picks it
    mask = np.array([True, True, False, True])
    jobs = np.array([[5.0, 10, 0.5], [1.0, 20, 0.25], [np.nan] * 3, [np.nan] * 3])
    assert heuristic_picks(jobs, mask) == {"fcfs": 1, "sjf": 0, "smallest_area": 0, "largest": 0, "first_valid": 0}


def test_a_rule_of_the_mask_alone_plays_as_the_lowest_valid_slot():
    """DeepRM's first_slot reads no job: under earliest placement a freed slot takes a later job, so
    slot order is not arrival order and the fingerprint tells it from FCFS."""
    from schedrl.experiments.fingerprint import describe
    from schedrl.schedulers.grid import first_slot

    env = DeepRMEnv(obs_mode="compact", num_nw=5, simu_len=60, new_job_rate=0.9)
    fp = fingerprint(play_recorded(env, lambda obs, e: first_slot(e.unwrapped), [{"seed": 0}, {}]).decisions)
    assert fp["contested"] > 10 and fp["agree_first_valid"] == 1.0 > fp["agree_fcfs"]
    assert fp["plays_as"] == "first_valid" and "plays as the lowest valid slot (100% of" in describe(fp)


def test_network_measures_on_an_untrained_policy(tmp_path):
    from sb3_contrib import MaskablePPO

    env = DeepRMEnv(obs_mode="compact", num_nw=5, simu_len=30)
    model = MaskablePPO("MlpPolicy", env, seed=0, n_steps=64, batch_size=32)
    view = sb3_view(model)

    def greedy(obs, e):
        return model.predict(obs, deterministic=True, action_masks=e.unwrapped.action_masks())[0]

    rec = play_recorded(env, greedy, [{"seed": 0}])
    fp = fingerprint(rec.decisions, view)
    assert fp["greedy_matches_played"] == 1.0  # the scores are what the model acts on
    assert 0.0 <= fp["dead_share"] <= 1.0 and fp["hidden_units"] > 0
    assert fp["entropy_median"] == pytest.approx(fp["entropy_uniform_median"], abs=0.05)  # near uniform at init
    assert fp["top_prob_ge_099"] == 0.0
    assert 0.0 <= fp["zeroed_obs_agree"] <= 1.0
    path = tmp_path / "run" / "fingerprint.json"
    write_fingerprint(path, fp, agent="ppo", seed=0)
    table = fingerprint_table([path])
    assert table.loc[0, "agent"] == "ppo" and table.loc[0, "contested"] == fp["contested"]


def test_state_blind_network_has_no_spread_across_states():
    """A REINFORCE network whose first layer is zeroed reads nothing: same logits in every state."""
    import torch

    from schedrl.agents.reinforce import ReinforceConfig, make_policy

    env = _hpc()
    policy = make_policy(env, ReinforceConfig.from_dict({"hidden": [16], "mask_actions": True}))
    with torch.no_grad():
        first = next(m for m in policy.net if isinstance(m, torch.nn.Linear))
        first.weight.zero_()  # blind: hidden units constant over states
    policy.invalidate()
    view = reinforce_view(policy)

    def greedy(obs, e):
        return int(policy.sample(obs, np.random.default_rng(0), e.unwrapped.action_masks(), deterministic=True))

    fp = fingerprint(play_recorded(env, greedy, [{"seed": 0}]).decisions, view)
    assert fp["spread_across_states"] == pytest.approx(0.0, abs=1e-9)
    assert fp["dead_share"] == 1.0
    assert fp["zeroed_obs_agree"] == 1.0
    assert fp["top_slot_share"] > fp["chance"]  # a fixed preference order over the slots


def test_recorder_wraps_info_style_policies():
    env = DeepRMEnv(obs_mode="compact", num_nw=3, simu_len=20, new_job_rate=0.9)
    rec = FingerprintRecorder(env)
    act = rec.wrap(lambda obs, info: 0)
    obs, info = env.reset(seed=1)
    for _ in range(30):
        obs, _, term, trunc, info = env.step(act(obs, info))
        if term or trunc:
            break
    fp = fingerprint(rec.decisions, AgentView())
    assert fp["decisions"] >= fp["contested"] > 0


def test_multibinary_agents_are_read_as_slots_plus_void():
    """A multi-binary DeepRM action is its first set bit on a valid slot; the all-zero one is void."""
    from schedrl.schedulers.grid import sjf

    env = DeepRMEnv(obs_mode="compact", action_mode="multibinary", num_nw=5, simu_len=40, placement="now",
                    new_job_rate=0.9)

    def one_hot_sjf(obs, e):
        bits = np.zeros(5, dtype=np.int8)
        a = sjf(e.unwrapped)
        if a < 5:
            bits[a] = 1
        return bits

    fp = fingerprint(play_recorded(env, one_hot_sjf, [{"seed": 0}]).decisions)
    assert fp["contested"] > 10 and fp["agree_sjf"] == 1.0 and "agree_slot_5" in fp  # slot 5 = void


def test_fit_pick_chooses_among_the_jobs_that_fit_now():
    """Hand case: 10 nodes, an 8-node job runs; then B (5 nodes), C (2 nodes, 50 s) and D (1 node,
    20 s) wait. Only C and D fit the 2 free nodes: FCFS and largest pick C, SJF picks D."""
    import pandas as pd

    from schedrl.experiments.fingerprint import fit_pick

    jobs = pd.DataFrame({"job_id": [1, 2, 3, 4], "submit_time": [0, 1, 1, 1], "run_time": [1000, 100, 50, 20],
                         "req_procs": [8, 5, 2, 1], "req_time": [1000, 100, 50, 20]})
    env = make_hpc_env("pick_reserve", jobs=jobs, cluster=10, encoder="sem", reward="neg_slowdown", window=5, k=4)
    env.reset(seed=0)
    assert [fit_pick(env, h) for h in ("fcfs", "sjf", "largest")] == [0, 0, 0]  # A alone, fits
    env.step(0)
    assert list(env.unwrapped.sim.queue) == [1, 2, 3]
    assert [fit_pick(env, h) for h in ("fcfs", "sjf", "largest")] == [1, 2, 1]
    env.step(1)  # C starts: no node is free, so nothing fits
    assert list(env.unwrapped.sim.queue) == [1, 3]
    assert [fit_pick(env, h) for h in ("fcfs", "sjf", "largest")] == [-1, -1, -1]


def test_window_optimum_is_the_set_the_optimiser_would_start():
    """Hand case: 10 nodes; once A (8 nodes) runs, 2 are free: B (5) does not fit, C (2) and
    D (1) do, but not together: the optimiser fills both nodes with C, so a C pick agrees with it and
    a D pick does not. Before that, with 10 free nodes and A (8), B (5), C (2), D (1) waiting, the
    largest utilisation gain is A + C (10 of 10 nodes; B + C + D fills 8)."""
    import pandas as pd

    from schedrl.experiments.fingerprint import window_optimum

    jobs = pd.DataFrame({"job_id": [1, 2, 3, 4], "submit_time": [0, 0, 0, 0], "run_time": [1000, 100, 50, 20],
                         "req_procs": [8, 5, 2, 1], "req_time": [1000, 100, 50, 20]})
    env = make_hpc_env("pick_reserve", jobs=jobs, cluster=10, encoder="sem", reward="neg_slowdown", window=5, k=4)
    env.reset(seed=0)
    assert list(np.flatnonzero(window_optimum(env))) == [0, 2]  # A and C
    rec = FingerprintRecorder(env, window_optimum=True)
    rec.record(None, 0)  # A: in the optimiser's set
    env.step(0)
    assert list(np.flatnonzero(window_optimum(env))) == [1]  # queue B, C, D with 2 free: C (window slot 1)
    rec.record(None, 2)  # D: fits, but not the optimiser's pick
    fp = fingerprint(rec.decisions)
    assert fp["contested"] == 2 and fp["agree_ga"] == 0.5
    # pick-reserve: every window job is a valid pick (one that does not fit is reserved), so the
    # set holds 2 of 4 valid actions, then 1 of 3 (B, C, D)
    assert fp["ga_set_share"] == pytest.approx((2 / 4 + 1 / 3) / 2)
