"""SEM, issue 37 items 2-5: sampled test play over play seeds, a validation block loaded like the
test, DRAS's decision process as an agent option, and the Fig. 9 rows and claims built on them."""

import json

import numpy as np
import pandas as pd
import pytest

from schedrl.errors import ConfigError
from schedrl.papers.sem import agents as A
from test_sem_agents import _swf_split

HP = {"discount": 0.6, "baseline": "normalise", "optimizer": "adam", "learning_rate": 0.01,
      "trajectories": 1, "examples_per_update": 1, "mask_actions": True, "contested_only": True}
BASE = dict(trace="theta", nodes=64, k=4, hidden=[16, 8], reward="dras_theta", hyperparams=HP, window=10)


def test_sampled_play_test_like_validation_and_dras_process(tmp_path, capsys):
    (tmp_path / "split").mkdir()
    split = _swf_split(tmp_path / "split")
    spec = A.AgentSpec(encoder="sem", **BASE)
    A.train_agent(split, spec, tmp_path / "sem", episodes=1, play_seeds=[0, 1, 2], validation="test_like")
    assert "validation test_like" in capsys.readouterr().out
    test = json.loads((tmp_path / "sem" / "test.json").read_text())
    v = test["validation"]
    assert v["validation"] == "test_like" and v["jobs"] == 10 and v["offered_load_test"] > 0
    assert test["play_seeds"] == [0, 1, 2] and test["process"] == "hold"
    record = json.loads((tmp_path / "sem" / "run" / "config.json").read_text())
    assert "process" not in record and record["validation"] == v["rows_before_test"]
    sampled = pd.read_csv(tmp_path / "sem" / "test_sampled.csv")
    assert sampled["play_seed"].tolist() == [0, 1, 2] and (sampled["mean_wait"] >= 0).all()
    # sampled play is reproducible per play seed and differs between agents (their own streams)
    a = A.play_rng(spec, 1).random(3)
    assert np.allclose(a, A.play_rng(spec, 1).random(3))
    assert not np.allclose(a, A.play_rng(A.AgentSpec(encoder="dras", **BASE), 1).random(3))
    assert not np.allclose(a, A.play_rng(A.AgentSpec(encoder="sem", **{**BASE, "seed": 1}), 1).random(3))
    # the split's validation (default) records both offered loads; DRAS's process is recorded
    dspec = A.AgentSpec(encoder="sem", process="dras", **BASE)
    assert dspec.stream() != spec.stream() and dspec.stream().endswith("/process=dras")
    A.train_agent(split, dspec, tmp_path / "dras_process", episodes=1)
    test = json.loads((tmp_path / "dras_process" / "test.json").read_text())
    assert test["process"] == "dras" and test["validation"]["validation"] == "split"
    assert json.loads((tmp_path / "dras_process" / "run" / "config.json").read_text())["process"] == "dras"
    assert pd.read_csv(tmp_path / "dras_process" / "test_sampled.csv").empty  # no play seeds, no rows
    with pytest.raises(ConfigError, match="process"):
        A.AgentSpec(encoder="sem", process="nope", **BASE)
    with pytest.raises(ConfigError, match="validation"):
        A.train_agent(split, spec, tmp_path / "x", episodes=1, validation="nope")


def test_test_like_validation_picks_the_block_loaded_like_the_test():
    def block(n, gap, size, t0=0):
        return pd.DataFrame({"job_id": np.arange(n) + t0, "submit_time": t0 + np.arange(n) * gap, "run_time": 100,
                             "req_procs": size, "req_time": 200})

    # training blocks: light, heavy, light; validation light; test heavy -> the heavy block
    train = pd.concat([block(10, 100, 2), block(10, 100, 60, 1000), block(10, 100, 2, 2000)], ignore_index=True)
    val, test = block(10, 100, 2), block(10, 100, 60)
    picked, info = A.test_like_validation(train, val, test, 64)
    assert info["rows_before_test"] == [10, 20] and info["in_training_part"]
    assert info["offered_load"] == pytest.approx(info["offered_load_test"])
    assert info["offered_load_split"] < 0.1 and picked["submit_time"].min() == 0 and len(picked) == 10


def test_fig9_rows_and_claims_on_sampled_play(tmp_path):
    from schedrl.papers.sem import claims as C
    from schedrl.papers.sem import figures as F
    from test_sem_agents import _agents

    # greedy: DRAS ahead on mean wait (SEM 100 vs DRAS 90); sampled: SEM clearly ahead (~80 vs ~120)
    sem = {"utilization": 0.80, "mean_wait": 100.0, "max_wait": 900.0, "mean_slowdown": 2.0}
    dras = {"utilization": 0.78, "mean_wait": 90.0, "max_wait": 1000.0, "mean_slowdown": 1.9}
    agents = _agents(sem, dras, [0, 5, 10, 10], [0, 1, 2, 10])
    item = agents["theta"]
    item["heuristics"] = pd.concat([item["heuristics"], pd.DataFrame([{
        "method": "SJF+EASY", "utilization": 0.5, "mean_wait": 120.0, "max_wait": 3000.0, "mean_slowdown": 3.0}])])
    for enc, wait in (("sem", 80.0), ("dras", 120.0)):
        item["runs"][enc]["sampled"] = pd.DataFrame({
            "play_seed": range(5), "utilization": 0.8, "mean_wait": wait + np.arange(5) - 2.0,
            "max_wait": 1000.0 + np.arange(5), "mean_slowdown": 2.0 + 0.01 * np.arange(5)})
    item["variants"] = {"process_dras": {"sem": item["runs"]["sem"]}, "reward_neg_slowdown": {"sem": item["runs"]["sem"]}}
    table = F.fig9_kiviat(agents, tmp_path / "fig9.png")
    methods = table["method"].tolist()
    assert {"SEM", "SEM, sampled", "DRAS, sampled", "FCFS+EASY", "SJF+EASY", "SEM (DRAS's process)",
            "SEM (neg_slowdown reward, beyond the paper), sampled"} <= set(methods)
    row = table.set_index("method").loc["SEM, sampled"]
    assert row["mean_wait"] == pytest.approx(80.0) and row["mean_wait_ci95"].startswith("80 [")
    assert "| 0.8 | 0.8 [0.8, 0.8] | 80 | 80 [" in (tmp_path / "fig9.md").read_text()
    assert row["passes"] == "5 play seeds x 1 agent seed"
    assert "SJF+EASY" in (tmp_path / "fig9.md").read_text()
    rows, extra = C.comparison_rows(agents, [])
    w = {r["claim_id"]: r for r in rows}["fig9_winner_theta_mean_wait"]
    assert w["verdict"] == "reproduced" and w["ours"].startswith("SEM ahead by +50.0%")
    assert "verdict on sampled play" in w["note"] and "greedy play: SEM's advantage -10.0%" in w["note"]
    assert "FCFS+EASY 200" in w["note"] and "SJF+EASY 120" in w["note"]
    assert float(w["ci95"].split("[")[1].split("%")[0]) > 0
    gap = extra["fig9_metric_gap_theta"]
    assert gap["ours"].endswith("(mean wait; sampled play)") and gap["verdict"] == "not reproduced"
    assert "greedy play: largest gap" in gap["note_extra"]
    # per-job sampled play: mean metrics' intervals resample passes, then test jobs (paired)
    rng = np.random.default_rng(1)
    for enc, scale in (("sem", 1.0), ("dras", 1.5)):
        item["runs"][enc]["sampled_jobs"] = pd.DataFrame({"play_seed": np.repeat(range(5), 50),
                                                          "job_id": np.tile(range(50), 5),
                                                          "wait": scale * rng.exponential(80.0, 250), "slowdown": 1.0})
    pairs = C._sampled_job_pairs(item["runs"], "mean_wait", "sem", "dras")
    assert len(pairs[0]) == 5 and len(pairs[0][0]) == 50
    w2 = {r["claim_id"]: r for r in C.comparison_rows(agents, [])[0]}["fig9_winner_theta_mean_wait"]
    assert "then test jobs, paired" in w2["note"] and w2["ci95"] != w["ci95"]
    # references never inherit the agents' sampled play
    item["runs"]["sem"]["references"] = {"random": {"test": sem, "test_jobs": None}}
    item["runs"]["dras"]["references"] = {"random": {"test": dras, "test_jobs": None}}
    assert C.reference_agents(agents, "random")["theta"]["runs"]["sem"]["sampled"] is None
