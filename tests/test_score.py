"""`schedrl score`: the policy interface, the example priority functions, bad policies, leaderboards."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from schedrl.cli import main
from schedrl.score import board
from schedrl.score.policy import JobView, PolicyError, load_policy
from schedrl.sim import ClusterSpec, simulate
from schedrl.workloads.lublin import generate

REPO = Path(__file__).resolve().parents[1]
EXAMPLES = REPO / "examples"


def _view(**cols) -> JobView:
    n = len(next(iter(cols.values())))
    base = {"slot": np.arange(n), "submit": np.zeros(n), "wait": np.zeros(n), "req_time": np.ones(n),
            "req_procs": np.ones(n), "demand": np.ones((n, 1)), "fits": np.ones(n, dtype=bool)}
    base.update({k: np.asarray(v, dtype=float) for k, v in cols.items()})
    return JobView(now=0.0, **base)


def _example(name):
    return load_policy(f"{EXAMPLES / 'priorities.py'}:{name}").obj


# ---------------------------------------------------------------------------------------------
# the example priority functions, by hand

def test_wfp3_by_hand():
    # utilities (w/r)^3 n: (100/100)^3*4 = 4, (200/100)^3*1 = 8, (50/10)^3*2 = 250 -> order 2, 1, 0
    jobs = _view(wait=[100, 200, 50], req_time=[100, 100, 10], req_procs=[4, 1, 2])
    keys = _example("wfp3")(jobs)
    assert keys.tolist() == pytest.approx([-4.0, -8.0, -250.0])
    assert np.argsort(keys, kind="stable").tolist() == [2, 1, 0]


def test_unicef_by_hand():
    # w / (log2(n) r): 100/(2*100) = 0.5, 100/(1*10) = 10 -> job 1 first; a waiting 1-node job beats both
    jobs = _view(wait=[100, 100, 1], req_time=[100, 10, 1000], req_procs=[4, 2, 1])
    keys = _example("unicef")(jobs)
    assert keys[:2].tolist() == pytest.approx([-0.5, -10.0])
    assert np.argsort(keys, kind="stable").tolist() == [2, 1, 0]


def test_f1_by_hand():
    # log10(r) n + 870 log10(s): 2*4 + 870*1 = 878, 1*1 + 870*2 = 1741, 3*1 + 870*1 = 873
    jobs = _view(req_time=[100, 10, 1000], req_procs=[4, 1, 1], submit=[10, 100, 10])
    keys = _example("f1")(jobs)
    assert keys.tolist() == pytest.approx([878.0, 1741.0, 873.0])
    assert int(np.argmin(keys)) == 2


# ---------------------------------------------------------------------------------------------
# one interface, every env family: agreement with the core's own schedulers

def _lublin(n=150, nodes=32, seed=0):
    jobs = generate("lublin256", n_jobs=n, seed=seed, max_nodes=nodes)
    jobs["submit_time"] = jobs["submit_time"] // 20
    jobs["req_time"] = np.ceil(jobs["run_time"] * 1.5)
    return jobs


def _play(env, fn, **reset):
    from schedrl.score.suites import play_schedule

    return play_schedule(env, fn, **reset)


def test_priority_head_pick_reproduces_fcfs_easy():
    from schedrl.envs.pick_reserve import PickReserveEnv

    jobs = _lublin()
    env = PickReserveEnv(jobs=jobs, cluster=32, window=50)
    fcfs = load_policy("fcfs")
    first_fit = load_policy(f"{EXAMPLES / 'policies.py'}:first_fit")
    assert (fcfs.kind, first_fit.kind) == ("priority", "policy")
    ours = _play(env, fcfs.bind(env))
    theirs = simulate(jobs, ClusterSpec(nodes=32), policy="fcfs", backfill="easy")
    np.testing.assert_allclose(ours.sort_values("job_id")["start_time"].to_numpy(),
                               theirs.sort_values("job_id")["start_time"].to_numpy())
    again = _play(env, first_fit.bind(env))
    np.testing.assert_allclose(again["start_time"].to_numpy(), ours["start_time"].to_numpy())


def test_time_stepped_priority_equals_first_fit_callable():
    from schedrl.envs.time_stepped import TimeSteppedPickEnv

    jobs = _lublin(80)
    env = TimeSteppedPickEnv(jobs=jobs, cluster=32, encoder="runtime_baseline", reward="runtime_final",
                             window=20, time_scale=86_400.0)
    a = _play(env, load_policy("fcfs").bind(env), seed=0)
    b = _play(env, load_policy(f"{EXAMPLES / 'policies.py'}:first_fit").bind(env), seed=0)
    assert a["start_time"].notna().all()
    np.testing.assert_allclose(a["start_time"].to_numpy(), b["start_time"].to_numpy())


def test_grid_sjf_priority_equals_grid_sjf_heuristic():
    from schedrl.envs.rollout import run_policy
    from schedrl.experiments.envs import make_env

    kwargs = {"num_nw": 5, "simu_len": 30, "episode_max_length": 500, "new_job_rate": 0.7, "jobset_seed": 3,
              "num_jobsets": 1}
    out = []
    for spec in ("sjf", "packer"):
        pol = load_policy(spec)
        env = make_env("schedrl/DeepRM-v0", kwargs)
        assert pol.misfit(env) is None
        out.append(run_policy(env, pol.bind(env), 1, seed=3)["slowdown"].to_numpy())
    from schedrl.envs.rollout import grid_policy

    env = make_env("schedrl/DeepRM-v0", kwargs)
    ref = run_policy(env, grid_policy("sjf", env), 1, seed=3)["slowdown"].to_numpy()
    np.testing.assert_allclose(out[0], ref)  # the queue order "sjf" (key = length) is DeepRM's SJF


def test_queue_policy_object_is_a_priority_function():
    pol = load_policy("schedrl.schedulers.queue_policies:SAF")
    assert (pol.name, pol.kind) == ("saf", "priority")
    assert pol.obj(_view(req_time=[10, 2], req_procs=[1, 4])).tolist() == [10.0, 8.0]


def test_grid_heuristic_does_not_fit_hpc_env():
    from schedrl.envs.pick_reserve import PickReserveEnv

    env = PickReserveEnv(jobs=_lublin(20), cluster=32)
    assert "grid heuristic" in load_policy("packer").misfit(env)


# ---------------------------------------------------------------------------------------------
# bad policies: one clear line

@pytest.mark.parametrize("spec, message", [
    ("nosuch_module_xyz:f", "policy 'nosuch_module_xyz:f': cannot import nosuch_module_xyz: ModuleNotFoundError"),
    ("examples/missing.py:f", "no file examples/missing.py"),
    ("examples/priorities.py:nope", "has no 'nope'"),
    ("bogus", "not module:name"),
])
def test_load_errors_are_one_line(spec, message, monkeypatch):
    monkeypatch.chdir(REPO)
    with pytest.raises(PolicyError) as err:
        load_policy(spec)
    assert message in str(err.value) and "\n" not in str(err.value)


def _small_config(monkeypatch):
    from schedrl.commands.score import load_config

    monkeypatch.chdir(REPO)
    config = copy.deepcopy(load_config("smoke"))
    config["mdp"]["eval"]["trials"] = 3
    config["deeprm"]["eval"]["episodes"] = 1
    return config


def test_bad_policies_get_one_line_and_the_others_are_scored(monkeypatch, capsys, tmp_path):
    config = _small_config(monkeypatch)
    policies = [f"examples/policies.py:{n}" for n in ("masked", "wrong_type", "raises")]
    rc = main(["score", *policies, "examples/priorities.py:wfp3", "--paper", "mdp",
               "--config-json", json.dumps(config), "--out-dir", str(tmp_path), "--no-agents"])
    out, err = capsys.readouterr()
    assert rc == 0
    lines = err.splitlines()
    masked = [x for x in lines if x.startswith("schedrl score: policy masked")]
    assert masked == ["schedrl score: policy masked on mdp scenario 1 (image), episode 0, step 1: action 0 is "
                      "masked (info['action_mask'] is False there)"]
    assert any(x.startswith("schedrl score: policy wrong_type on mdp scenario 1") and "episode 0, step 1: wrong action type str"
               in x for x in lines)
    raised = [i for i, x in enumerate(lines) if x.startswith("schedrl score: policy raises")]
    assert len(raised) == 1 and "raised IndexError" in lines[raised[0]]
    tb = "\n".join(lines[raised[0] + 1:])
    assert "in _helper" in tb and "in raises" in tb and "score/policy.py" not in tb  # the user's frames only
    assert "wfp3" in out and "SJF" in out  # the leaderboard still comes out
    frame = pd.read_csv(tmp_path / "leaderboard.csv")
    assert set(frame.loc[frame["role"] == "yours", "policy"]) == {"wfp3"}
    assert (tmp_path / "index.html").read_text().startswith("<!DOCTYPE html>")


def test_out_of_range_action(monkeypatch):
    from schedrl.experiments.envs import make_env
    from schedrl.score.policy import Policy

    env = make_env("schedrl/DeepRM-v0", {"num_nw": 5, "jobset_seed": 0})
    env.unwrapped.score_label = "tiny grid"
    fn = Policy("big", "x:big", "policy", lambda obs, info: 99).bind(env)
    obs, info = env.reset(seed=0)
    with pytest.raises(PolicyError, match=r"^policy big on tiny grid, episode 0, step 1: action 99 is out of range 0..5$"):
        fn(obs, info)


def test_no_loadable_policy_exits_2(monkeypatch, capsys):
    monkeypatch.chdir(REPO)
    assert main(["score", "nosuch_module_xyz:f", "--paper", "mdp"]) == 2
    err = capsys.readouterr().err
    assert "cannot import nosuch_module_xyz" in err and "Traceback" not in err


def test_unknown_paper_is_one_line(monkeypatch, capsys):
    monkeypatch.chdir(REPO)
    assert main(["score", "fcfs", "--paper", "deeprm,nope"]) == 2
    assert "unknown paper(s) nope" in capsys.readouterr().err


# ---------------------------------------------------------------------------------------------
# a whole scoring run at a small scale, an SB3 zip, agents read from results/

def test_score_example_smoke(monkeypatch, tmp_path):
    from schedrl.commands.score import parse_specs, score

    config = _small_config(monkeypatch)
    frame, notes, failures, _ = score(parse_specs(["examples/priorities.py:wfp3", "f1=examples/priorities.py:f1"]),
                                      ["deeprm", "mdp"], config, agents=False)
    assert not failures
    yours = frame[frame["role"] == "yours"]
    assert set(yours["policy"]) == {"wfp3", "f1"} and set(yours["paper"]) == {"deeprm", "mdp"}
    assert {"SJF", "Packer", "Random"} <= set(frame.loc[frame["paper"] == "deeprm", "policy"])
    ci = frame[frame["n"] > 1]
    assert len(ci) and (ci["lo"] <= ci["mean"]).all() and (ci["mean"] <= ci["hi"]).all()
    assert frame.loc[frame["n"] == 1, "lo"].isna().all()  # one episode: no interval claimed
    paths = board.write(frame, notes, failures, tmp_path, scale="smoke", section=tmp_path / "section.md")
    assert "| **wfp3** | yours |" in paths["section"].read_text()


def test_sb3_image_zip_fits_its_scenario_only_and_agents_are_read(monkeypatch, tmp_path):
    from stable_baselines3 import PPO

    from schedrl.commands.score import parse_specs, score
    from schedrl.experiments.envs import make_env
    from schedrl.papers.mdp import experiments as M

    config = _small_config(monkeypatch)
    env = make_env(M.ENV_ID, {**M.env_kwargs("image", 1, config["mdp"]["horizon"]), "jobset_seed": 0})
    model = PPO("MlpPolicy", env, n_steps=32, batch_size=32, n_epochs=1, seed=0, device="cpu")
    model.save(tmp_path / "agent.zip")
    # a finished run's evaluation file, where the pipeline writes it
    run = M.run_dir(tmp_path / "results/mdp", config["mdp"]["horizon"], "image", 1, 0)
    run.mkdir(parents=True)
    pd.DataFrame({"trial": [0, 1, 2], "mean_slowdown": [2.0, 3.0, 4.0]}).to_csv(M.eval_path(run), index=False)
    specs = parse_specs([str(tmp_path / "agent.zip")])
    for name in ("config", "examples"):
        (tmp_path / name).symlink_to(REPO / name)
    monkeypatch.chdir(tmp_path)
    frame, notes, failures, _ = score(specs, ["mdp"], config)
    assert not failures
    mine = frame[frame["role"] == "yours"]
    assert set(mine["board"].str.split(" ").str[1]) == {"1"}  # scenario 1 only
    assert any(n.startswith("agent does not fit mdp (some of its envs): the model reads observations of shape")
               for n in notes)
    agent = frame[(frame["role"] == "agent")]
    assert agent["mean"].tolist() == pytest.approx([3.0])


def test_leaderboard_orders_by_first_metric_best_first():
    from schedrl.score.suites import Entry

    entries = [Entry("p", "b", "a", "yours", "util", [np.array([0.5, 0.6])], "episode", "higher"),
               Entry("p", "b", "c", "baseline", "util", [np.array([0.9, 0.8])], "episode", "higher")]
    (_, _, table), = board.wide(board.leaderboard(entries))
    assert table["policy"].tolist() == ["c", "a"]


def test_score_config_section_is_checked():
    from schedrl.config import validate_config
    from schedrl.errors import ConfigError

    cfg = {"scale": "smoke", "seed": 0, "traces": {"dirs": []}, "score": {"policies": {"x": "m:f"}, "agents": False}}
    validate_config(cfg)
    cfg["score"]["polices"] = {}
    with pytest.raises(ConfigError, match="polices"):
        validate_config(cfg)


def test_sem_agent_entries_use_every_seed_per_job(tmp_path):
    """A trained SEM agent counts per test job over its seeds (an interval), and a seed without
    per-job values counts by its mean and says so."""
    from schedrl.score.suites import _sem_agent_entries

    folder = tmp_path / "sem"
    for d, waits in ((folder, [0, 3600, 7200]), (folder / "seeds" / "1", [3600, 3600, 3600])):
        d.mkdir(parents=True)
        (d / "test.json").write_text(json.dumps({"mean_wait": float(np.mean(waits)), "mean_slowdown": 2.0,
                                                 "utilization": 0.5 + len(d.parts) % 2 * 0.1}))
        pd.DataFrame({"job_id": [0, 1, 2], "wait": waits, "slowdown": [1.0, 2.0, 3.0]}).to_csv(d / "test_jobs.csv",
                                                                                            index=False)
    wait, slow, util = _sem_agent_entries("b", "sem", folder)
    assert [v.tolist() for v in wait.values] == [[0.0, 1.0, 2.0], [1.0, 1.0, 1.0]]
    assert wait.unit == "job" and "2 seed(s)" in wait.note and "without" not in wait.note
    assert len(util.values[0]) == 2
    row = board.leaderboard([wait]).iloc[0]
    assert row["mean"] == pytest.approx(1.0) and row["lo"] < 1.0 < row["hi"] and row["n"] == 6
    (folder / "seeds" / "1" / "test_jobs.csv").unlink()
    wait, *_ = _sem_agent_entries("b", "sem", folder)
    assert [v.tolist() for v in wait.values] == [[0.0, 1.0, 2.0], [1.0]]
    assert "1 seed(s) without test_jobs.csv" in wait.note
    assert _sem_agent_entries("b", "dras", tmp_path / "none") == []
