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
    from schedrl.experiments.fingerprint import fingerprint  # the head pick's fingerprint says FCFS

    fp = fingerprint(fcfs.decisions[type(env).__name__])
    assert fp["contested"] > 0 and fp["agree_fcfs"] == 1.0 and fp["plays_as"] == "fcfs"


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
    assert {"SJF", "Packer", "Random", "Random valid"} <= set(frame.loc[frame["paper"] == "deeprm", "policy"])
    # every board of the grid papers has random valid play and heuristics: a normalised column
    head = frame[frame["metric"] == "mean slowdown"]
    assert head["normalised"].notna().all() and (head.loc[head["policy"] == "Random valid", "normalised"] == 0).all()
    assert (head.groupby("board")["normalised"].max() >= 1).all()  # the best heuristic is 1 (or above: a better policy)
    assert all(n.startswith("mean slowdown: Random valid 0, ") for n in head["normalised_note"])
    ci = frame[frame["n"] > 1]
    assert len(ci) and (ci["lo"] <= ci["mean"]).all() and (ci["mean"] <= ci["hi"]).all()
    assert frame.loc[frame["n"] == 1, "lo"].isna().all()  # one episode: no interval claimed
    paths = board.write(frame, notes, failures, tmp_path, scale="smoke", section=tmp_path / "section.md")
    assert "| **wfp3** | yours |" in paths["section"].read_text()
    fps = pd.read_csv(paths["fingerprints"])  # what each policy does, per paper it played
    assert set(zip(fps["policy"], fps["paper"])) == {(p, q) for p in ("wfp3", "f1") for q in ("deeprm", "mdp")}
    assert (fps["contested"] > 0).all() and "What the policies do" in paths["section"].read_text()


def test_sb3_image_zip_fits_its_scenario_only_and_agents_are_read(monkeypatch, tmp_path):
    from stable_baselines3 import PPO

    from schedrl.commands.score import parse_specs, score
    from schedrl.experiments.envs import make_env
    from schedrl.papers.mdp import layout as M

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


def test_normalised_column_uses_the_boards_anchors():
    from schedrl.score.suites import Entry

    def entry(board, policy, role, value, metric="mean slowdown", better="lower"):
        return Entry("mdp", board, policy, role, metric, [np.array([value])], "trial", better)

    entries = [entry("b", "Random valid", "baseline", 10.0), entry("b", "SJF", "baseline", 4.0),
               entry("b", "Packer", "baseline", 6.0), entry("b", "Random", "baseline", 12.0),
               entry("b", "mine", "yours", 7.0), entry("b", "PPO", "agent", 13.0),
               entry("b", "mine", "yours", 0.5, metric="utilisation", better="higher"),
               # a board without random valid play: the column is empty, with the reason in its header
               entry("c", "SJF", "baseline", 4.0), entry("c", "mine", "yours", 7.0),
               # random valid play beats every heuristic: no scale either
               entry("d", "Random valid", "baseline", 3.0), entry("d", "SJF", "baseline", 4.0)]
    frame = board.leaderboard(entries)
    assert list(frame.columns[:12]) == ["paper", "board", "policy", "role", "metric", "better", "mean", "lo", "hi",
                                        "n", "unit", "note"]  # the existing columns kept, in their order
    got = frame[frame["board"] == "b"].set_index(["policy", "metric"])["normalised"]
    assert got[("Random valid", "mean slowdown")] == 0.0 and got[("SJF", "mean slowdown")] == 1.0
    assert got[("mine", "mean slowdown")] == pytest.approx(0.5) and got[("PPO", "mean slowdown")] == pytest.approx(-0.5)
    assert got[("Random", "mean slowdown")] == pytest.approx(-1 / 3)  # uniform play is scored, not the 0
    assert np.isnan(got[("mine", "utilisation")])  # only the headline metric is normalised
    assert frame[frame["board"] != "b"]["normalised"].isna().all()
    tables = {b: t for _, b, t in board.wide(frame)}
    assert tables["b"].set_index("policy")["normalised (mean slowdown: Random valid 0, SJF 1)"].to_dict() == {
        "SJF": "1.00", "Packer": "0.67", "mine": "0.50", "Random valid": "0.00", "Random": "-0.33", "PPO": "-0.50"}
    assert "normalised (mean slowdown: no random valid play on this board)" in tables["c"].columns
    assert "normalised (mean slowdown: random valid play matches or beats every heuristic on this board)" \
        in tables["d"].columns
    assert "normalised (mean slowdown: Random valid 0, SJF 1)" in board.console(frame)


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


# ---------------------------------------------------------------------------------------------
# runtime: Table 4's algorithms in the core's time-stepped simulator on each scored episode's jobs

def _three_jobs():
    """4 nodes, all submitted at 0 with exact requests: j0 3 nodes 600 s, j1 4 nodes 600 s,
    j2 1 node 300 s (FCFS's head j1 waits for j0; j2 fits beside j0 and ends before it)."""
    jobs = generate("lublin256", n_jobs=3, seed=0, max_nodes=4)
    for col, values in (("submit_time", [0, 0, 0]), ("run_time", [600, 600, 300]), ("req_procs", [3, 4, 1]),
                        ("alloc_procs", [3, 4, 1]), ("req_time", [600, 600, 300])):
        jobs[col] = values
    return jobs


def _time_stepped(jobs, nodes, window, **kw):
    from schedrl.envs.time_stepped import TimeSteppedPickEnv

    # as the runtime suite's envs: evaluation plays without idle-step doubling
    return TimeSteppedPickEnv(jobs=jobs, cluster=nodes, encoder="runtime_baseline", reward="runtime_final",
                              window=window, double_idle=False, time_scale=86_400.0, **kw)


def _strict(key):
    """Table 4's order without backfilling as an env policy: the lowest-key job of the window
    (ties: arrival) starts if it fits, else X: the head holds the queue."""
    from schedrl.score.policy import Policy

    def act(obs, info):
        view = info["queue"]
        i = int(np.argmin(getattr(view, key)))
        return i if view.fits[i] else info["env"].window

    return Policy(f"strict {key}", "x", "policy", act)


def test_runtime_table4_by_hand():
    """FCFS at t=0: j0 starts, j1 (4 nodes) does not fit beside it.
    no BF: j1 holds the queue until j0 ends; j1 600-1200, j2 1200-1500: 3x600 + 4x600 + 1x300 =
    4,500 node-s of 4 x 1,500 = 0.75. Steps: j0, X at 0; X on each idle tick 60..540 (9); j1 at 600,
    X; j2 at 1200 (j1 released on the tick holding its end): 14.
    EASY: j1 reserved at 600 (j0's end), j2 ends at 300 <= 600 and backfills at 0: 4,500 of
    4 x 1,200 = 0.9375. Steps: j0, j2, X at 0; X at 300 (j2's end) and 360..540 (4); j1 at 600: 9.
    The env's priority pick starts the first job that fits, twice at 0 (j0, j2): the core's
    first-fit ('greedy') mode, not Table 4's no-BF, here the same schedule and steps as EASY."""
    from schedrl.metrics import runtime_utilization
    from schedrl.score.suites import core_schedule

    jobs, cluster = _three_jobs(), ClusterSpec(nodes=4)
    got = {a: core_schedule(jobs, cluster, a, sim_step=60, overrun="kill")
           for a in ("fcfs:none", "fcfs:easy", "fcfs:greedy")}
    assert got["fcfs:none"][0]["start_time"].tolist() == [0, 600, 1200] and got["fcfs:none"][1] == 14
    assert got["fcfs:easy"][0]["start_time"].tolist() == [0, 600, 0] and got["fcfs:easy"][1] == 9
    assert runtime_utilization(got["fcfs:none"][0], 4) == pytest.approx(0.75)
    assert runtime_utilization(got["fcfs:easy"][0], 4) == pytest.approx(0.9375)

    env = _time_stepped(jobs, 4, 10)
    pick = _play(env, load_policy("fcfs").bind(env), seed=0)
    assert pick["start_time"].tolist() == [0, 600, 0] and env.unwrapped.steps == got["fcfs:greedy"][1] == 9
    strict = _play(env, _strict("submit").bind(env), seed=0)
    assert strict["start_time"].tolist() == [0, 600, 1200] and env.unwrapped.steps == 14

    # a limit of 2 steps: j0 and j2 start, j1 never does, in the env and in the core alike; the
    # span ends at the last started job's end (600): (1,800 + 300) / (4 x 600)
    env = _time_stepped(jobs, 4, 10, max_steps=2)
    cut = _play(env, load_policy("fcfs").bind(env), seed=0)
    for a in ("fcfs:greedy", "fcfs:easy"):
        sched, steps = core_schedule(jobs, cluster, a, sim_step=60, overrun="kill", max_steps=2)
        np.testing.assert_array_equal(sched["start_time"].to_numpy(), cut["start_time"].to_numpy())
        assert steps == 2 and runtime_utilization(sched, 4) == pytest.approx(2100 / 2400)


@pytest.mark.parametrize("name, key", [("fcfs", "submit"), ("sjf", "req_time")])
def test_runtime_core_matches_env_play(name, key):
    """On one episode (a window wider than the queue ever gets), the core's time-stepped run equals
    the env's play: no-BF = the strict pick, greedy = the priority pick (which is therefore not
    Table 4's no-BF: here they differ), under a step limit too; and without a limit the counted
    run is exactly ``simulate_algorithm``'s schedule (the Table 4 pipeline's)."""
    from schedrl.experiments.heuristics import simulate_algorithm
    from schedrl.metrics import runtime_utilization
    from schedrl.score.suites import core_schedule

    jobs, cluster = _lublin(80), ClusterSpec(nodes=32)
    env = _time_stepped(jobs, 32, 100)
    pairs = {"none": _strict(key), "greedy": load_policy(name)}
    starts = {}
    for backfill, policy in pairs.items():
        played = _play(env, policy.bind(env), seed=0)
        core, steps = core_schedule(jobs, cluster, f"{name}:{backfill}", sim_step=60, overrun="kill")
        np.testing.assert_allclose(core["start_time"].to_numpy(), played["start_time"].to_numpy())
        assert runtime_utilization(core, 32) == runtime_utilization(played, 32)
        assert steps == env.unwrapped.steps
        starts[backfill] = core["start_time"].to_numpy()
    assert not np.allclose(starts["none"], starts["greedy"])  # first fit skips the head; Table 4's FCFS does not
    for a in (f"{name}:none", f"{name}:easy"):
        np.testing.assert_array_equal(core_schedule(jobs, cluster, a, sim_step=60, overrun="kill")[0]["start_time"],
                                      simulate_algorithm(jobs, cluster, *a.split(":"), sim_step=60)["start_time"])
    limited = _time_stepped(jobs, 32, 100, max_steps=60)
    played = _play(limited, load_policy(name).bind(limited), seed=0)
    core, steps = core_schedule(jobs, cluster, f"{name}:greedy", sim_step=60, overrun="kill", max_steps=60)
    assert steps == 60 and played["start_time"].isna().any()
    np.testing.assert_allclose(core["start_time"].to_numpy(), played["start_time"].to_numpy())  # NaN where unstarted


def test_runtime_baselines_run_on_the_episode_jobs():
    """With a sampled block per episode, the baseline's schedule holds the episode's jobs."""
    from schedrl.score.suites import core_schedule, runtime_episode_jobs

    jobs = _lublin(80)
    env = _time_stepped(jobs, 32, 100, episode_jobs=30)
    starts = set()
    for seed in (5, 6, 7):
        start, block = runtime_episode_jobs(env, seed)
        played = _play(env, load_policy("fcfs").bind(env), seed=seed)
        assert env.unwrapped.episode_start == start
        core, _ = core_schedule(block, ClusterSpec(nodes=32), "fcfs:easy", sim_step=60, overrun="kill")
        assert core["job_id"].tolist() == played["job_id"].tolist() == jobs["job_id"].iloc[start:start + 30].tolist()
        starts.add(start)
    assert len(starts) > 1  # the seeds draw different blocks


def test_runtime_suite_table4_baselines(monkeypatch, tmp_path):
    from schedrl.papers.runtime import experiments as P
    from schedrl.score.suites import runtime
    from schedrl.workloads.swf import write_swf

    config = _small_config(monkeypatch)
    write_swf(_three_jobs(), tmp_path / "wl1_100b.swf")
    monkeypatch.setattr(P, "workload_file", lambda w, draw=0: str(tmp_path / f"{w}.swf"))
    config["runtime"]["nodes"] = 4
    config["runtime"]["evaluate"].update(episodes=2, max_steps=100)
    out = runtime(config, [], agents=False)
    values = {e.policy: e.values for e in out.entries}
    # by hand (test_runtime_table4_by_hand); SJF starts j2 then j0 at 0, j1 at 600: 0.9375 with or without BF
    expect = {"FCFS (no BF)": 0.75, "FCFS w/ BF (EASY)": 0.9375, "SJF (no BF)": 0.9375, "SJF w/ BF (EASY)": 0.9375,
              "FCFS (priority pick)": 0.9375, "SJF (priority pick)": 0.9375}
    assert set(values) == set(expect) | {"Random valid"}  # random valid play: the boards' normalised 0
    assert len(values["Random valid"][0]) == 2 and ((values["Random valid"][0] >= 0) & (values["Random valid"][0] <= 1)).all()
    for name, u in expect.items():
        assert len(values[name]) == 1 and values[name][0].tolist() == pytest.approx([u, u]), name
    table4 = [e for e in out.entries if "BF" in e.policy]
    assert {e.role for e in table4} == {"baseline"} and all("Sim_Step 60 s" in e.note for e in table4)
    assert not any("step limit cut" in e.note for e in table4)
    assert any("wl1_050b" in n for n in out.notes)  # the other halves are missing

    config["runtime"]["evaluate"]["max_steps"] = 2
    out = runtime(config, [], agents=False)
    easy = next(e for e in out.entries if e.policy == "FCFS w/ BF (EASY)")
    assert easy.values[0].tolist() == pytest.approx([2100 / 2400] * 2)
    assert "the step limit cut 2 of 2 episodes (67% of the jobs started)" in easy.note


def test_mrsch_agents_are_the_mean_over_seeds(tmp_path):
    """MRSch on the board is its claims' value, the mean over the main agents' seeds (the extra
    seed's evaluation holds MRSch alone); before the extra seed is evaluated, the base seed's alone,
    with a note."""
    from schedrl.papers.mrsch import layout as R
    from schedrl.score.suites import mrsch_evaluated_rows

    spec = {"seed": 0, "extra_seeds": [1]}
    base = R.eval_dir(tmp_path, "S1")
    base.mkdir(parents=True)
    pd.DataFrame({"workload": "S1", "method": ["fcfs", "ga", "mrsch"], "mean_wait_h": [3.0, 1.0, 2.0],
                  "instance_ms_max": [0.0, 0.0, 5.0]}).to_csv(base / "metrics.csv", index=False)
    notes = []
    rows = {label: row for label, _, row in mrsch_evaluated_rows(spec, tmp_path, "S1", notes)}
    assert rows[R.LABELS["mrsch"]]["mean_wait_h"] == 2.0 and len(notes) == 1 and "seed 0 only" in notes[0]
    extra = R.eval_dir(tmp_path, "S1", seed=1)
    extra.mkdir(parents=True)
    pd.DataFrame({"workload": ["S1"], "method": ["mrsch"], "mean_wait_h": [4.0],
                  "instance_ms_max": [9.0]}).to_csv(extra / "metrics.csv", index=False)
    notes = []
    got = mrsch_evaluated_rows(spec, tmp_path, "S1", notes)
    rows = {label: (role, row) for label, role, row in got}
    assert set(rows) == {R.LABELS["ga"], R.LABELS["mrsch"]} and not notes  # FCFS is the board's own
    role, row = rows[R.LABELS["mrsch"]]
    assert role == "agent" and row["mean_wait_h"] == 3.0 and row["seeds"] == 2 and row["instance_ms_max"] == 9.0
    assert rows[R.LABELS["ga"]][0] == "baseline" and rows[R.LABELS["ga"]][1]["mean_wait_h"] == 1.0
    assert mrsch_evaluated_rows(spec, tmp_path, "S2", []) == []


def test_mrsch_suite_plays_random_valid_play_the_boards_zero(monkeypatch):
    """The HPC suites play random valid play beside their heuristics (here MRSch's, on a tiny split):
    the board then has a normalised column."""
    from schedrl.papers.mrsch import layout as R
    from schedrl.score.suites import mrsch

    config = _small_config(monkeypatch)

    def tiny(spec, workload, base=None):
        jobs = _three_jobs()
        jobs["bb_request"] = [1.0, 0.0, 1.0]
        jobs.attrs["header"] = {"MaxNodes": 4, "MaxBurstBufferUnits": 2}
        return jobs

    monkeypatch.setattr(R, "test_jobs", tiny)
    out = mrsch(config, [], agents=False)
    frame = board.leaderboard(out.entries)
    first = frame["board"].iloc[0]
    head = frame[(frame["metric"] == "mean slowdown") & (frame["board"] == first)].set_index("policy")
    # SJF and smallest area first (+ EASY) beside FCFS, as the normalised score plays them
    assert set(head.index) == {"FCFS+EASY", "SJF+EASY", "SAF+EASY", "Random valid"}
    assert head.loc["Random valid", "mean"] >= 1 and "normalised_note" in head.columns
    note = head.loc["Random valid", "normalised_note"]
    # random valid play either loses to a heuristic (a scale) or does not (degenerate): never a missing anchor
    assert note in {f"mean slowdown: Random valid 0, {h}+EASY 1" for h in ("FCFS", "SJF", "SAF")} | {
        "mean slowdown: random valid play matches or beats every heuristic on this board"}


def test_fresh_checkout_names_the_workloads_and_the_target_that_builds_them(monkeypatch, tmp_path):
    from schedrl.commands.score import load_config, score

    monkeypatch.chdir(REPO)
    config = copy.deepcopy(load_config("smoke"))
    monkeypatch.chdir(tmp_path)  # a checkout where no workload has been built
    frame, notes, _, _ = score([(None, "sjf")], ["runtime"], config, agents=False)
    assert frame.empty
    assert any(n.startswith("runtime: workloads missing: ") and "snakemake workloads" in n for n in notes), notes
    assert "runtime: no leaderboard until its workloads are built (above)" in notes
