"""The jobs an episode leaves waiting at its cap, started after it by a fixed rule
(``schedrl.sim.drain``): hand-worked schedules for both rules, and on real episodes of the MDP
paper's grid a drained slowdown never below the cap's reading (a job started at T or later)."""

from __future__ import annotations

import numpy as np
import pytest

from schedrl.sim.drain import drained_schedule, drained_slowdowns

DTYPE = [("job", "i8"), ("arrival", "i8"), ("length", "i8"), ("demand_0", "i8"), ("start", "i8"), ("finish", "i8"),
         ("state", "U8")]


def _records(rows):
    return np.array([(i, *r) for i, r in enumerate(rows)], dtype=DTYPE)


# capacity 4, now 10: A runs [5, 14) on 3 units; B (arrived 8, 4 long, 2 units), C (2, 6, 1) and D (9, 2, 1) wait
JOBS = _records([(0, 9, 3, 5, 14, "running"), (8, 4, 2, -1, -1, "waiting"), (2, 6, 1, -1, -1, "waiting"),
                 (9, 2, 1, -1, -1, "waiting")])


def test_sjf_drain_starts_the_shortest_that_fits_at_each_ending():
    # t 10: 1 unit free, D (shortest) starts; t 12 (D ends): 1 free, B (2 units) cannot, C starts;
    # t 14 (A ends): 3 free, B starts
    start, finish = drained_schedule(JOBS, 10, 4, "sjf")
    assert start.tolist() == [5, 14, 12, 10] and finish.tolist() == [14, 18, 18, 12]
    np.testing.assert_allclose(drained_slowdowns(JOBS, 10, 4, "sjf"), [14 / 9, 10 / 4, 16 / 6, 3 / 2])


def test_fcfs_drain_starts_in_arrival_order_each_that_fits():
    # t 10: C (arrived first) takes the free unit; t 14 (A ends): B and D both fit
    start, _ = drained_schedule(JOBS, 10, 4, "fcfs")
    assert start.tolist() == [5, 14, 10, 14]


def test_nothing_waiting_keeps_the_schedule_and_bad_input_says_why():
    done = _records([(0, 3, 2, 0, 3, "finished"), (1, 5, 4, 2, 7, "running")])
    np.testing.assert_allclose(drained_slowdowns(done, 5, 4), [1.0, 6 / 5])
    with pytest.raises(ValueError, match="more than the capacity"):
        drained_schedule(_records([(0, 3, 5, -1, -1, "waiting")]), 5, 4)
    with pytest.raises(ValueError, match="unknown drain rule"):
        drained_schedule(done, 5, 4, "ljf")


def test_on_real_episodes_a_drained_job_never_costs_less_than_started_at_the_cap():
    import schedrl.envs  # noqa: F401
    from schedrl.experiments.envs import make_env
    from schedrl.papers.mdp.layout import BASE, ENV_ID, env_kwargs, scenario

    rng = np.random.default_rng(0)
    waited = 0
    for sid in (3, 9):
        env = make_env(ENV_ID, {**env_kwargs(BASE, sid, 20), "jobset_seed": 7, "num_jobsets": 1})
        for episode in range(3):
            env.reset(seed=episode)
            while True:  # random play over every action (void and empty slots too): jobs left waiting
                _, _, terminated, truncated, info = env.step(int(rng.integers(env.action_space.n)))
                if terminated or truncated:
                    break
            jobs, now = info["jobs"], int(env.unwrapped.grid.now)
            capped = jobs["slowdown"] + (jobs["state"] == "waiting")  # the MDP paper's reading: started at T
            for rule in ("sjf", "fcfs"):
                drained = drained_slowdowns(jobs, now, scenario(sid).procs, rule)
                placed = jobs["state"] != "waiting"
                np.testing.assert_allclose(drained[placed], capped[placed])
                assert np.all(drained[~placed] >= capped[~placed] - 1e-12)
            waited += int((jobs["state"] == "waiting").sum())
    assert waited > 0
