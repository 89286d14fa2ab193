"""Theta's reward (``dras_theta``, SEM section 4.3) in both readings by hand: DRAS's code
t_i / max(t_max, 6 h) and the paper's t_i / t_max (``wait_floor=0``), and how the SEM pipeline
passes the reading (config -> AgentSpec -> env; the claims' notes name it)."""

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from schedrl.envs.rewards import HOUR, RewardContext, dras_theta, get_reward
from schedrl.errors import ConfigError
from schedrl.papers.sem import agents as A
from schedrl.papers.sem import claims as C


def _ctx(wait, max_wait, *, nodes=100, free=40, size=20, phase="decision", job=0):
    sim = SimpleNamespace(cluster=SimpleNamespace(nodes=nodes), free=np.array([free]),
                          jobs=SimpleNamespace(req_procs=np.array([size])))
    return RewardContext(sim=sim, phase=phase, job=job, wait=wait, max_wait=max_wait)


W = (1.0, 1.0, 1.0)  # unit weights: each term can be read off alone


def test_wait_term_both_readings_by_hand():
    # 60 of 100 nodes busy (0.6), the job takes 20 (0.2); t_i = 2 h, t_max = 3 h
    ctx = _ctx(2 * HOUR, 3 * HOUR)
    assert dras_theta(ctx, weights=W) == pytest.approx(0.6 + 2 / 6 + 0.2)                  # floor 6 h: 2 h / 6 h
    assert dras_theta(ctx, weights=W, wait_floor=0) == pytest.approx(0.6 + 2 / 3 + 0.2)    # paper: 2 h / 3 h
    # the default weights are 1/3 each and the default floor is DRAS's 6 h
    assert dras_theta(ctx) == pytest.approx((0.6 + 1 / 3 + 0.2) / 3)
    # above the floor both readings agree: t_i = 7 h, t_max = 8 h
    long = _ctx(7 * HOUR, 8 * HOUR)
    assert dras_theta(long, weights=W) == dras_theta(long, weights=W, wait_floor=0) == pytest.approx(0.8 + 7 / 8)


def test_paper_reading_has_no_division_by_zero():
    # every waiting job arrived this instant: t_i = t_max = 0 -> wait term 0 (not 0 / 0)
    zero = _ctx(0.0, 0.0)
    assert dras_theta(zero, weights=W, wait_floor=0) == pytest.approx(0.6 + 0.0 + 0.2)
    assert dras_theta(zero, weights=(0.0, 1.0, 0.0), wait_floor=0) == 0.0
    assert dras_theta(zero, weights=W) == pytest.approx(0.8)
    # the paper's reading pays the full wait weight for the oldest job after a few seconds
    assert dras_theta(_ctx(5.0, 5.0), weights=(0.0, 1.0, 0.0), wait_floor=0) == 1.0
    assert dras_theta(_ctx(5.0, 5.0), weights=(0.0, 1.0, 0.0)) == pytest.approx(5.0 / (6 * HOUR))


def test_no_reward_outside_decisions_or_without_a_job():
    assert dras_theta(_ctx(HOUR, HOUR, phase="end"), wait_floor=0) == 0.0
    assert dras_theta(_ctx(HOUR, HOUR, job=-1), wait_floor=0) == 0.0


def test_reading_reaches_the_env_and_bad_parameters_are_config_errors():
    jobs = pd.DataFrame({"job_id": [1, 2], "submit_time": [0.0, 5.0], "run_time": [10.0, 10.0],
                         "req_time": [20.0, 20.0], "req_procs": [2, 2]})
    paper = A.AgentSpec(trace="theta", encoder="sem", nodes=4, k=2, hidden=[8], reward="dras_theta",
                        reward_kwargs={"wait_floor": 0})
    env = A._make_env(jobs, paper, 20.0, None)
    assert env.reward_fn.keywords == {"wait_floor": 0}
    code = A.AgentSpec(trace="theta", encoder="sem", nodes=4, k=2, hidden=[8], reward="dras_theta")
    assert A._make_env(jobs, code, 20.0, None).reward_fn is dras_theta
    with pytest.raises(ConfigError, match="floor"):
        A.AgentSpec(trace="theta", encoder="sem", nodes=4, k=2, hidden=[8], reward="dras_theta",
                    reward_kwargs={"floor": 0})
    with pytest.raises(ConfigError):
        get_reward("neg_slowdown", wait_floor=0)


def _agents(kwargs_by_run, configured=None, reward="dras_theta"):
    runs = {enc: {"test": {"reward": reward, **({"reward_kwargs": kw} if kw is not None else {})}, "seeds": []}
            for enc, kw in kwargs_by_run.items()}
    return {"theta": {"runs": runs, "reward": reward, "reward_kwargs": configured or {}}}


def test_claims_note_names_the_reading():
    paper = C.reward_reading(_agents({"sem": {"wait_floor": 0}, "dras": {"wait_floor": 0}}), "theta")
    assert paper.startswith("reward: the paper's t_i / t_max")
    code = C.reward_reading(_agents({"sem": {}, "dras": {}}), "theta")
    assert code.startswith("reward: DRAS's code's t_i / max(t_max, 6 h)")
    # runs from before the option record nothing: the configured reading counts
    assert C.reward_reading(_agents({"sem": None, "dras": None}, {"wait_floor": 0}), "theta") == paper
    assert "mix readings" in C.reward_reading(_agents({"sem": {"wait_floor": 0}, "dras": {}}), "theta")
    assert C.reward_reading(_agents({"sem": {}}, reward="neg_slowdown"), "theta") == ""
    assert "t_i / t_max" in C._agent_note(_agents({"sem": {"wait_floor": 0}}), "theta")
