"""The compiled batched DeepRM step (``schedrl.envs.grid_batch``) against ``DeepRMEnv``, the reference:
identical observations, rewards, masks, ends and job records, step for step."""

import gymnasium as gym
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import schedrl.envs  # noqa: F401  (registers the env)
from schedrl.agents.wrappers import JobMetricsInfo, job_metrics
from schedrl.envs.deeprm import DeepRMEnv
from schedrl.envs.grid_batch import GridBatch, supported


def _lockstep(kwargs: dict, n: int, seed: int, invalid: float = 0.1, wrap: bool = False) -> int:
    """Step ``n`` envs (job sets 0, 1, ...) with random actions (mostly valid ones, some invalid
    or void) through DeepRMEnv and GridBatch; assert every output agrees. Returns the steps."""
    make = lambda: JobMetricsInfo(gym.make("schedrl/DeepRM-v0", **kwargs)) if wrap else DeepRMEnv(**kwargs)  # noqa: E731
    envs = [make() for _ in range(n)]
    assert supported(envs[0])
    batch = GridBatch(envs[0], n)
    rng = np.random.default_rng(seed)
    shape, A = envs[0].observation_space.shape, envs[0].action_space.n
    obs = np.zeros((1, 4096, *shape), dtype=np.float32)
    masks = np.zeros((1, 4096, A), dtype=bool)
    group, cursor = np.zeros(n, dtype=np.int64), np.zeros(1, dtype=np.int64)
    row, infos = {}, {}
    for i, env in enumerate(envs):
        ob, infos[i] = env.reset(options={"jobset": i})
        batch.reset(i, i)
        batch.observe(i, obs[0, i], masks[0, i])
        np.testing.assert_array_equal(obs[0, i], ob)
        np.testing.assert_array_equal(masks[0, i], infos[i]["action_mask"])
        row[i] = i
    cursor[0] = n
    active, steps = list(range(n)), 0
    while active:
        if cursor[0] + len(active) > obs.shape[1]:
            cursor[0] = 0  # rows are checked at once: reuse them
        actions = []
        for i in active:
            valid = np.flatnonzero(infos[i]["action_mask"])
            actions.append(int(rng.integers(-1, A + 1)) if rng.random() < invalid else int(rng.choice(valid)))
        rewards, ended, rows = batch.step(np.array(active, dtype=np.int64), np.array(actions, dtype=np.int64),
                                          obs, masks, group, cursor)
        still = []
        for k, i in enumerate(active):
            ob, reward, term, trunc, infos[i] = envs[i].step(actions[k])
            steps += 1
            assert reward == rewards[k]  # bit for bit
            assert (term, trunc) == (ended[k] == 1, ended[k] == 2)
            if term or trunc:
                assert rows[k] == -1
                got = batch.job_records(i)
                assert got.dtype == infos[i]["jobs"].dtype
                for name in got.dtype.names:
                    np.testing.assert_array_equal(got[name], infos[i]["jobs"][name])
                final = batch.final_info(i)
                assert final["time"] == infos[i]["time"] and final["dropped"] == infos[i]["dropped"]
                expect = infos[i] if wrap else job_metrics(infos[i]["jobs"])
                for key in ("jobs_finished", "mean_slowdown", "mean_completion_time"):
                    assert final[key] == expect[key] or (np.isnan(final[key]) and np.isnan(expect[key]))
            else:
                np.testing.assert_array_equal(obs[0, rows[k]], ob)
                np.testing.assert_array_equal(masks[0, rows[k]], infos[i]["action_mask"])
                still.append(i)
        active = still
    return steps


def test_batched_step_agrees_with_the_env_at_deeprm_sizes():
    """The default agent's env (10 slots, rate 0.7, 200-step cap), behind the trainer's wrappers."""
    steps = _lockstep({"num_jobsets": 6, "new_job_rate": 0.7, "jobset_seed": 4}, 6, 0, wrap=True)
    assert steps > 600


def test_batched_step_agrees_on_truncation_drops_and_colour_reuse():
    """A short cap (truncated episodes with waiting jobs), a tiny backlog (dropped jobs) and few
    colours (reused on a full machine)."""
    _lockstep({"num_jobsets": 4, "new_job_rate": 0.9, "backlog_size": 3, "job_num_cap": 3,
               "episode_max_length": 40, "simu_len": 60}, 4, 1)


@settings(max_examples=25, deadline=None)
@given(num_res=st.integers(1, 3), num_nw=st.integers(1, 6), horizon=st.integers(4, 12),
       res_slot=st.integers(1, 6), backlog=st.integers(0, 8), rate=st.floats(0.1, 1.0),
       simu_len=st.integers(0, 25), cap=st.integers(5, 80), colors=st.booleans(), job_cap=st.integers(1, 8),
       placement=st.sampled_from(["earliest", "now"]), reward=st.sampled_from(["slowdown", "completion_time"]),
       layout=st.sampled_from(["native", "flat", "chw"]), seed=st.integers(0, 1000))
def test_batched_step_agrees_on_random_small_workloads(num_res, num_nw, horizon, res_slot, backlog, rate,
                                                       simu_len, cap, colors, job_cap, placement, reward,
                                                       layout, seed):
    kwargs = dict(num_res=num_res, num_nw=num_nw, time_horizon=horizon, max_job_len=horizon,
                  res_slot=res_slot, max_job_size=res_slot, backlog_size=backlog, new_job_rate=rate,
                  simu_len=simu_len, episode_max_length=cap, machine_colors=colors, job_num_cap=job_cap,
                  placement=placement, reward=reward, obs_layout=layout, num_jobsets=3, jobset_seed=seed)
    _lockstep(kwargs, 3, seed, invalid=0.2)


@pytest.mark.parametrize("kwargs", [{"obs_mode": "compact"}, {"action_mode": "multibinary"},
                                    {"transitions": "sparse"}, {"reward": "slowdown_window"},
                                    {"jobset_seed": None}, {"backlog_full": "retry"}])
def test_other_env_options_are_not_claimed(kwargs):
    """Options the compiled step does not reproduce stay on the Python env."""
    assert not supported(DeepRMEnv(**kwargs))
    assert supported(DeepRMEnv())
