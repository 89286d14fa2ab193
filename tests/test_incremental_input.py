"""DFP's first layer kept from the inputs' changes (``schedrl.agents.incremental_input``): the same
function as the dense product on real MRSch observations, across weight updates, loads and
refreshes; where it applies; and that the setting is not part of a run's identity."""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest
import torch

from schedrl.agents import incremental_input as inc
from schedrl.agents.dfp import DFPAgent, DFPConfig, InputLinear, adam, train_dfp
from schedrl.errors import ConfigError
from schedrl.papers.mrsch import layout as ml
from schedrl.workloads.swf import SWF_FIELDS
from test_dfp import SMALL, ToyEnv


def _frame(n=120, nodes=256, seed=0) -> pd.DataFrame:
    """A busy machine of ``nodes`` nodes: jobs of 8-128 nodes, so starts and ends flip node blocks."""
    rng = np.random.default_rng(seed)
    procs = rng.integers(8, 129, n)
    frame = pd.DataFrame({"job_id": np.arange(1, n + 1), "submit_time": np.sort(rng.uniform(0, 20_000, n)).round(),
                          "wait_time": -1, "run_time": rng.integers(300, 6000, n), "alloc_procs": procs,
                          "req_procs": procs, "req_time": 6000, "status": 1, "user_id": 1, "queue": 1,
                          "bb_request": rng.integers(1, 5, n).astype(float)})
    for col in SWF_FIELDS:
        if col not in frame:
            frame[col] = -1
    frame = frame[list(SWF_FIELDS)]
    frame.attrs["header"] = {"MaxNodes": str(nodes), "MaxProcs": str(nodes), "MaxBurstBufferUnits": "16"}
    return frame


def _observations(steps=250, seed=0):
    """(observation, measurements, goal, mask) of random valid play in MRSch's env, in order."""
    env = ml.make_env(_frame(), 10, process="every_event")
    rng = np.random.default_rng(seed)
    obs, info = env.reset(seed=seed)
    out = []
    for _ in range(steps):
        out.append((obs.astype(np.float32), info["utilization"], info["demand_share"], info["action_mask"]))
        obs, _, term, trunc, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        if term or trunc:
            obs, info = env.reset()
    return out


@pytest.fixture(scope="module")
def seq():
    return _observations()


def _pair(obs_dim, n_meas, n_actions, **cfg):
    cfg = DFPConfig(state_hidden=[256, 64], state_out=32, meas_hidden=[16], goal_hidden=[16], stream_hidden=32, **cfg)
    torch.manual_seed(0)
    fast = DFPAgent(obs_dim, n_meas, n_actions, dataclasses.replace(cfg, incremental_input=True))
    dense = DFPAgent(obs_dim, n_meas, n_actions, dataclasses.replace(cfg, incremental_input=False))
    dense.net.load_state_dict(fast.net.state_dict())
    return fast, dense


def test_the_state_changes_in_blocks_that_the_classes_follow(seq):
    """The premise on real observations: many inputs change between decisions, few other than in
    whole classes of equal value (a job's nodes), so a decision reads few weight rows."""
    layer = InputLinear(seq[0][0].size, 8, True)
    with torch.no_grad():
        layer(torch.from_numpy(seq[0][0][None]))
        changed, moved_alone = [], []
        for obs, *_ in seq[1:120]:
            classes = layer._classes[1]
            diff = np.flatnonzero(obs != classes.row)
            changed.append(diff.size)
            whole = sum(int(classes.size[k]) for k in np.unique(classes.cls[diff])
                        if np.all(np.isin(np.flatnonzero(classes.cls == k), diff))
                        and np.unique(obs[classes.cls == k]).size == 1)
            moved_alone.append(diff.size - whole)
            layer(torch.from_numpy(obs[None]))
    assert np.mean(changed) > 2 * np.mean(moved_alone) > 0


def test_decisions_match_the_dense_layer_across_updates_loads_and_refreshes(seq, monkeypatch):
    monkeypatch.setattr(inc, "REFRESH", 16)  # several rebuilds within the sequence
    obs, meas, goal, _ = seq[0]
    fast, dense = _pair(obs.size, len(meas), len(seq[0][3]))
    assert fast.net.state[0].incremental and not dense.net.state[0].incremental
    opts = adam(fast.net, 1e-3), adam(dense.net, 1e-3)
    worst, batch = 0.0, []
    for t, (obs, meas, goal, mask) in enumerate(seq):
        a, b = fast.objectives(obs[None], meas, goal), dense.objectives(obs[None], meas, goal)
        worst = max(worst, float(np.abs(a - b).max() / (np.abs(b).max() + 1e-12)))
        assert fast.act(obs[None], meas, goal, mask[None])[0] == dense.act(obs[None], meas, goal, mask[None])[0]
        batch.append((obs, meas, goal))
        if t % 40 == 39:  # a gradient update on both (fused Adam: no version bump; the training forward forgets)
            x = torch.from_numpy(np.stack([o for o, _, _ in batch[-16:]]))
            m = torch.from_numpy(np.stack([m for _, m, _ in batch[-16:]]).astype(np.float32))
            for agent, opt in zip((fast, dense), opts):
                loss = agent.net(x, m, m).pow(2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
        if t == 120:  # new weights loaded into both (a version bump)
            state = {k: v + 0.01 for k, v in dense.net.state_dict().items()}
            fast.net.load_state_dict(state)
            dense.net.load_state_dict(state)
    assert worst < 1e-4


def test_batches_gradients_and_narrow_layers_take_the_dense_product(seq):
    obs = seq[5][0]
    layer = InputLinear(obs.size, 8, True)
    x = torch.from_numpy(np.stack([s[0] for s in seq[:4]]))
    with torch.no_grad():
        assert torch.equal(layer(x), torch.addmm(layer.bias, x, layer.weight))  # a batch
    layer(torch.from_numpy(obs[None]))  # with gradients: the dense product, and nothing kept
    assert getattr(layer, "_classes", None) is None
    assert inc.use_incremental("auto", 11_410, 4_000) and not inc.use_incremental("auto", 11_410, 64)
    import subprocess
    import sys
    code = ("import sys, schedrl.agents.dfp, schedrl.papers.mrsch.cost; "
            "sys.exit('torch' in sys.modules or 'numba' in sys.modules)")
    assert subprocess.run([sys.executable, "-c", code]).returncode == 0  # the config and cost paths stay torch-free
    assert DFPAgent(obs.size, 2, 3, DFPConfig(state_hidden=[64, 32], state_out=32)).net.state[0].incremental is False
    with pytest.raises(ConfigError, match="incremental_input"):
        DFPConfig.from_dict({"incremental_input": "yes"})
    with pytest.raises(ConfigError, match="incremental_input"):
        DFPConfig.from_dict({"incremental_input": 1})


def test_the_setting_is_recorded_but_a_run_resumes_across_it(tmp_path):
    import json

    import yaml

    cfg = DFPConfig(**{**SMALL, "incremental_input": True})
    train_dfp(ToyEnv, cfg, [None] * 2, 0, tmp_path / "run")
    assert "incremental_input" not in json.loads((tmp_path / "run" / "config.json").read_text())["hyperparams"]
    assert yaml.safe_load((tmp_path / "run" / "hyperparams.yaml").read_text())["incremental_input"] is True
    # the same run asked again with the other setting: the same identity, so it is found finished
    again = train_dfp(ToyEnv, dataclasses.replace(cfg, incremental_input=False), [None] * 2, 0, tmp_path / "run")
    assert again.steps > 0
