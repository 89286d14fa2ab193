"""The report protocol replayed with many sampling seeds (``schedrl deeprm replay``, issue 57 item 3):
one row per sampling seed, the replay of the protocol's own seed is the protocol's own episode, a
sampling seed s is the protocol's play with its sampler seeded s, and the summary's share below SJF."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from schedrl.cli import main
from schedrl.papers.deeprm import evaluation as de
from schedrl.papers.deeprm import figures as df
from schedrl.papers.deeprm import layout as dl
from schedrl.papers.deeprm import training as dt

# A tiny discrete phase-2 scale: training on the report's seed-42 sequence (legacy draw), the report
# protocol's checks while training, a short episode cap so the sampled replays stay fast.
SPEC = {
    "env": {"num_res": 2, "time_horizon": 20, "max_job_len": 15, "res_slot": 10, "max_job_size": 10,
            "backlog_size": 60, "simu_len": 12, "episode_max_length": 60},
    "variants": {"discrete-image": {"env": {"num_nw": 10, "workload": "deeprm"}, "algos": ["a2c"]}},
    "objectives": ["slowdown"],
    "baselines": ["sjf"],
    "seeds": [0],
    "train": {"rate": 0.7, "steps": 60, "jobset_rng": "legacy", "jobset_seed": 42, "num_jobsets": 1,
              "checkpoint_every": 30, "episodes_per_iteration": 2},
    "eval": {"rates": [0.3, 0.7], "box_rate": 0.7, "withheld_rate": 0.3, "episodes": 1, "jobset_seed": 1000,
             "deterministic": False, "episode_max_length": 200,
             "report": {"jobset_seed": 42, "episodes": 1, "episode_max_length": 200}},
    "report_selection": {"check_every": 20, "episodes": 1},
}
A2C = {"policy": "MlpPolicy", "n_steps": 5}


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """A tiny trained run with the report protocol's best-model selection, as ``deeprm_train`` makes it."""
    from schedrl.experiments.train import train

    folder = tmp_path_factory.mktemp("replay") / "a2c"
    env = dt.env_kwargs(SPEC, "discrete-image", "slowdown")
    train(dl.ENV_ID, env, "a2c", A2C, 60, 0, folder, checkpoint_every=30, selection=dt.report_selection(SPEC))
    assert (folder / "best_model.zip").exists()
    return folder


def test_replay_writes_one_row_per_sampling_seed(run, tmp_path, capsys):
    out = tmp_path / "replay.csv"
    assert main(["deeprm", "replay", "--spec", json.dumps(SPEC), "--run-dir", str(run), "--sampling-seeds", "20",
                 "--out", str(out)]) == 0
    assert "20 sampling seeds" in capsys.readouterr().out
    frame = pd.read_csv(out)
    assert len(frame) == 20 and sorted(frame["sampling_seed"]) == list(range(20))
    assert (frame["rate"] == 0.7).all() and frame["n_jobs"].nunique() == 1  # one job sequence
    state = json.loads((run / "selection.json").read_text())
    assert frame["model"].str.startswith("best_model.zip").all()
    assert (frame["model_step"] == state["best_step"]).all()
    assert (frame["algo"] == "a2c").all() and (frame["seed"] == 0).all()
    assert frame["mean_slowdown"].notna().all()
    assert dl.REPLAY_SAMPLING_SEEDS == 20  # the rule's count (a constant, not a config key)


def _protocol_episode(spec, run, tmp_path, name="report"):
    """The report protocol's own result at the box rate, as ``deeprm_evaluate_agent`` writes it."""
    paths = dl.eval_paths(tmp_path / name, "report")
    assert main(["deeprm", "evaluate", "--spec", json.dumps(spec), "--variant", "discrete-image", "--protocol",
                 "report", "--run-dir", str(run), "--rates", "0.7", "--out-jobs", str(paths["jobs"]),
                 "--out-episodes", str(paths["episodes"])]) == 0
    return pd.read_csv(paths["episodes"]).iloc[0]


def test_replay_of_the_protocols_seed_is_the_protocols_episode(run, tmp_path):
    """The report protocol seeds its sampler with its job-set seed (``agent_policy_factory(run, seed=
    eval.report.jobset_seed)``), and the env with it too: the replay with sampling seed 42 plays the
    protocol's own episode; the CSVs agree to the digit."""
    seed = SPEC["eval"]["report"]["jobset_seed"]
    own = _protocol_episode(SPEC, run, tmp_path)
    out = tmp_path / "replay42.csv"
    replay = de.replay_report(SPEC, run, [seed])
    assert len(replay) == 1
    from schedrl.io import write_csv

    write_csv(out, replay, float_format="%.6g")  # as the rule writes it
    again = pd.read_csv(out).iloc[0]
    for column in ("mean_slowdown", "mean_slowdown_all", "return", "steps", "n_jobs", "n_never_placed", "model"):
        assert again[column] == own[column], column


def test_replay_of_seed_s_is_the_protocols_play_with_its_sampler_seeded_s(run):
    """Seeds other than the protocol's: the protocol's policy factory and evaluation with the sampler seed
    s (job sequence and env unchanged) give the replay of s, and the seeds give different draws."""
    setup = dl.protocol_setup(SPEC, "report")
    seeds = [0, 1, 2, 3]
    replay = de.replay_report(SPEC, run, seeds).set_index("sampling_seed")
    for s in seeds[:2]:
        make_policy, kwargs = de.agent_policy_factory(run, False, s, best_in_sample=setup["overrides"])
        _, episodes = de.evaluate_over_rates(make_policy, {**kwargs, **setup["overrides"]}, [0.7], setup["episodes"],
                                             setup["jobset_seed"], protocol="report")
        assert episodes["mean_slowdown"].iloc[0] == replay.loc[s, "mean_slowdown"]
        assert episodes["steps"].iloc[0] == replay.loc[s, "steps"]
    assert replay["steps"].nunique() > 1 or replay["mean_slowdown"].nunique() > 1


def test_summary_share_below_sjf_on_a_hand_made_frame():
    # a2c seed 0: 10 sampling seeds at 1..10; SJF 4 -> strictly below: 1, 2, 3 (4 is a tie, not a win)
    # trpo seed 1: two episodes per sampling seed, averaged first: (3+5)/2 = 4 (tie), (1+3)/2 = 2 (below)
    a2c = pd.DataFrame({"algo": "a2c", "seed": 0, "sampling_seed": range(10), "model_step": 800,
                        "mean_slowdown": np.arange(1.0, 11.0)})
    trpo = pd.DataFrame({"algo": "trpo", "seed": 1, "sampling_seed": [0, 0, 1, 1], "model_step": 400,
                         "mean_slowdown": [3.0, 5.0, 1.0, 3.0]})
    summary = de.replay_summary(pd.concat([a2c, trpo], ignore_index=True), 4.0).set_index("algo")
    assert summary.loc["a2c", "share_below_sjf"] == pytest.approx(0.3)
    assert summary.loc["a2c", "replays"] == 10 and summary.loc["a2c", "model_step"] == 800
    assert summary.loc["a2c", "median"] == pytest.approx(5.5)
    assert (summary.loc["a2c", "p10"], summary.loc["a2c", "p90"]) == (pytest.approx(1.9), pytest.approx(9.1))
    assert summary.loc["trpo", "replays"] == 2 and summary.loc["trpo", "share_below_sjf"] == pytest.approx(0.5)
    assert summary.loc["trpo", "median"] == pytest.approx(3.0) and summary.loc["trpo", "sjf"] == 4.0
    assert np.isnan(de.replay_summary(a2c, None)["share_below_sjf"].iloc[0])


def test_replay_table_reads_the_replays_sjf_and_the_protocols_draw(tmp_path):
    from schedrl.io import write_csv

    spec = {**SPEC, "variants": {**SPEC["variants"], "discrete-image": {**SPEC["variants"]["discrete-image"],
                                                                         "algos": ["a2c", "trpo"]}}}
    root = tmp_path / "r"
    for algo, values, drawn in (("a2c", np.arange(1.0, 21.0), 3.5), ("trpo", np.full(20, 5.0), 5.0)):
        folder = dl.run_dir(root, "discrete-image", algo, "slowdown", 0)
        write_csv(dl.replay_path(folder), pd.DataFrame({
            "sampling_seed": range(20), "algo": algo, "seed": 0, "rate": 0.7, "mean_slowdown": values,
            "model": "best_model.zip (step 40 of 3 checks)", "model_step": 40}))
        write_csv(dl.eval_paths(folder, "report")["episodes"],
                  pd.DataFrame({"rate": [0.3, 0.7], "mean_slowdown": [1.0, drawn]}))
    write_csv(dl.eval_paths(dl.baseline_dir(root, "discrete-image", "sjf"), "report")["episodes"],
              pd.DataFrame({"rate": [0.3, 0.7], "mean_slowdown": [1.0, 4.5]}))
    assert sorted(dl.replay_table_inputs(spec, root)) == sorted(
        [str(dl.replay_path(dl.run_dir(root, "discrete-image", a, "slowdown", 0))) for a in ("a2c", "trpo")]
        + [str(dl.eval_paths(dl.run_dir(root, "discrete-image", a, "slowdown", 0), "report")["episodes"])
           for a in ("a2c", "trpo")]
        + [str(dl.eval_paths(dl.baseline_dir(root, "discrete-image", "sjf"), "report")["episodes"])])
    md = tmp_path / "replay.md"
    assert main(["deeprm", "table", "--replay", "--spec", json.dumps(spec), "--root", str(root), "--out", str(md)]) == 0
    text = md.read_text()
    assert "| A2C (slowdown) | 0 | 40 | 20 | 10.50 | 2.90-18.10 | 20% | 3.50 | 4.50 | 3.9 |" in text
    assert "| TRPO (slowdown) | 0 | 40 | 20 | 5.00 | 5.00-5.00 | 0% | 5.00 | 4.50 | 4 |" in text
    # a scale without discrete phase 2's slowdown agents: one line, nothing read
    none = {**spec, "objectives": ["completion_time"]}
    assert dl.replay_runs(none) == [] and dl.replay_table_inputs(none, root) == []
    assert "No discrete-image agent" in df.replay_insample_markdown(none, root)


def test_bad_replay_input_is_one_line(run, tmp_path, capsys):
    spec = json.dumps(SPEC)
    out = tmp_path / "bad.csv"
    assert main(["deeprm", "replay", "--spec", spec, "--run-dir", str(run), "--sampling-seeds", "0",
                 "--out", str(out)]) == 2
    assert "--sampling-seeds" in capsys.readouterr().err
    assert main(["deeprm", "replay", "--spec", spec, "--run-dir", str(tmp_path / "nothing"), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "config.json" in err
    assert main(["deeprm", "replay", "--spec", spec, "--run-dir", str(run), "--rate", "0.55", "--out", str(out)]) == 2
    assert "eval.rates" in capsys.readouterr().err and not out.exists()
