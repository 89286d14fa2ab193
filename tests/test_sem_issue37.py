"""SEM's REINFORCE settings of issue 37 item 1: the agents train with several trajectories per
episode and contested decisions only; each agent has its own action stream; the timing figures
(6, 11) time one trajectory per episode."""

import json

import pandas as pd

from schedrl.papers.sem import agents as A
from test_sem_agents import _swf_split


def test_issue37_settings_streams_and_timing_config(tmp_path):
    (tmp_path / "split").mkdir()
    split = _swf_split(tmp_path / "split")
    hp = {"discount": 0.6, "baseline": "normalise", "optimizer": "adam", "learning_rate": 0.001,
          "trajectories": 3, "examples_per_update": 1, "mask_actions": True, "contested_only": True}
    base = dict(trace="theta", nodes=64, k=4, hidden=[16, 8], reward="dras_theta", hyperparams=hp, window=10)
    spec = A.AgentSpec(encoder="sem", **base)
    timing = A.train_agent(split, spec, tmp_path / "sem", episodes=2)
    curve = pd.read_csv(tmp_path / "sem" / "run" / "learning_curve.csv")
    assert len(curve) == 2 * 3 and timing["steps"] == curve["length"].sum()  # 3 trajectories per episode
    config = json.loads((tmp_path / "sem" / "run" / "config.json").read_text())
    assert config["stream"] == spec.stream() and config["hyperparams"]["contested_only"] is True
    # one key per trace, encoder and reward reading; the same agent, the same key
    keys = {A.AgentSpec(encoder=e, **{**base, "trace": t, "reward_kwargs": kw}).stream()
            for e in A.ENCODERS for t in ("theta", "datastar") for kw in ({}, {"wait_floor": 0})}
    assert len(keys) == 8 and spec.stream() == A.AgentSpec(encoder="sem", **base).stream()
    timed = spec.timing_config()
    assert timed.trajectories == 1 and timed.contested_only and spec.reinforce_config().trajectories == 3
