"""DeepRM experiment layer: env arguments per variant, figure inputs, summaries, claims verdicts on
hand-made results, and a tiny end-to-end run (train -> evaluate -> every figure kind -> claims)."""

from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from schedrl.errors import ConfigError
from schedrl.io import write_csv
from schedrl.papers.deeprm import cost as dc
from schedrl.papers.deeprm import evaluation as de
from schedrl.papers.deeprm import figures as df
from schedrl.papers.deeprm import layout as dl
from schedrl.papers.deeprm import references as dr
from schedrl.papers.deeprm import training as dt
from schedrl.papers.deeprm.claims import claims_rows
from toy_trees import DEEPRM_SPEC

SPEC = DEEPRM_SPEC


def test_env_kwargs_of_a_variant():
    kw = dt.env_kwargs(SPEC, "multibinary-image", "completion_time")
    assert kw["action_mode"] == "multibinary" and kw["obs_mode"] == "image" and kw["num_nw"] == 5
    assert kw["reward"] == "completion_time" and kw["new_job_rate"] == 0.7 and kw["num_jobsets"] == 2
    assert dt.env_kwargs(SPEC, "discrete-image", "slowdown", rate=0.2)["new_job_rate"] == 0.2
    with pytest.raises(ConfigError, match="variant"):
        dt.env_kwargs(SPEC, "discrete-video", "slowdown")
    with pytest.raises(ConfigError, match="objective"):
        dt.env_kwargs(SPEC, "discrete-image", "makespan")
    bad = copy.deepcopy(SPEC)
    bad["variants"]["discrete-image"]["env"]["reward"] = "slowdown"
    with pytest.raises(ConfigError, match="set by the experiment"):
        dt.env_kwargs(bad, "discrete-image", "slowdown")


def test_report_code_and_named_variants():
    """Phase 1 as the report's code (obs_mode profile) and other versions under their own names."""
    spec = copy.deepcopy(SPEC)
    spec["variants"].update({
        "discrete-stacked": {"env": {"num_nw": 5, "workload": "sb3_phase1_code"}, "obs_mode": "profile",
                             "algos": ["a2c"]},
        "discrete-stacked-text": {"env": {"num_nw": 5, "workload": "sb3_phase1"}, "algos": ["a2c"]}})
    dl.check_spec(spec)
    code = dt.env_kwargs(spec, "discrete-stacked", "slowdown")
    assert (code["obs_mode"], code["workload"]) == ("profile", "sb3_phase1_code")
    text = dt.env_kwargs(spec, "discrete-stacked-text", "slowdown")
    assert (text["obs_mode"], text["workload"]) == ("stacked", "sb3_phase1")
    assert dl.parse_variant("discrete-stacked-text") == ("discrete", "stacked")
    assert dt.hyperparams_variant("discrete-stacked-text") == "deeprm-discrete-stacked"
    assert dl.run_dir("r", "discrete-stacked-text", "a2c", "slowdown", 0).parts[1] == "discrete-stacked-text"
    for bad_name in ("discrete-stacked-", "discrete-stacked-Text", "discrete-profile"):
        with pytest.raises(ConfigError, match="variant"):
            dl.parse_variant(bad_name)
    spec["variants"]["discrete-image"]["obs_mode"] = "profile"  # phase 2 has one state
    with pytest.raises(ConfigError, match="obs_mode"):
        dl.check_spec(spec)


def test_spec_cross_checks():
    assert dl.check_spec(SPEC) is SPEC
    bad = copy.deepcopy(SPEC)
    bad["variants"]["multibinary-image"]["algos"] = ["dqn"]
    with pytest.raises(ConfigError, match="dqn cannot act in MultiBinary"):
        dl.check_spec(bad)
    bad = copy.deepcopy(SPEC)
    bad["eval"]["box_rate"] = 0.65
    with pytest.raises(ConfigError, match="box_rate"):
        dl.check_spec(bad)


def test_seeds_by_trains_fewer_seeds_for_an_objective_or_an_algorithm():
    spec = copy.deepcopy(SPEC)
    spec["seeds"] = [0, 1]
    spec["seeds_by"] = {"completion_time": [0], "ppo": [1]}
    runs = dl.agent_runs(spec, "multibinary-image")
    assert runs == [("a2c", "slowdown", 0), ("a2c", "slowdown", 1), ("a2c", "completion_time", 0),
                    ("ppo", "slowdown", 1)]  # ppo on completion time: {0} & {1} leaves no seed ...
    with pytest.raises(ConfigError, match="leaves ppo trained for completion_time with no seed"):
        dl.check_spec(spec)  # ... which the config check refuses
    spec["seeds_by"]["ppo"] = [0, 1]
    assert dl.check_spec(spec) is spec
    box = [str(p) for p in df.figure_inputs(spec, "r", "fig5_15")]
    assert "r/multibinary-image/a2c/completion_time/seed0/eval_heldout_episodes.csv" in box
    assert "r/multibinary-image/a2c/completion_time/seed1/eval_heldout_episodes.csv" not in box
    for key, seeds, match in (("sjf", [0], "not an algorithm"), ("slowdown", [5], "shares no seed")):
        bad = copy.deepcopy(spec)
        bad["seeds_by"] = {key: seeds}
        with pytest.raises(ConfigError, match=match):
            dl.check_spec(bad)


def test_steps_by_trains_some_runs_longer_and_keeps_checkpoint_shares():
    spec = copy.deepcopy(SPEC)
    spec["train"]["steps"], spec["train"]["checkpoint_every"] = 800, 100
    spec["steps_by"] = {"a2c": 3200, "discrete-image": 6400, "completion_time": 800}
    assert dl.check_spec(spec) is spec
    # the smallest entry naming the run's variant, algorithm or objective wins
    assert dt.run_steps(spec, "discrete-image", "a2c", "slowdown") == 3200
    assert dt.run_steps(spec, "multibinary-image", "a2c", "slowdown") == 3200
    assert dt.run_steps(spec, "discrete-image", "ppo", "slowdown") == 6400
    assert dt.run_steps(spec, "discrete-image", "a2c", "completion_time") == 800
    assert dt.run_steps(spec, "multibinary-image", "ppo", "slowdown") == 800  # named by nothing: train.steps
    # checkpoints at the same share (1/8) of each run: the claims' 1/8, 1/4, 1/2 budgets exist
    assert dt.run_checkpoint_every(spec, "multibinary-image", "a2c", "slowdown") == 400
    assert dt.run_checkpoint_every(spec, "multibinary-image", "ppo", "slowdown") == 100
    base = copy.deepcopy(spec)
    base.pop("steps_by")
    extra = dc.estimate_core_hours(spec)["sb3"] - dc.estimate_core_hours(base)["sb3"]
    longer = [(v, a) for v in spec["variants"] for a, o, _ in dl.agent_runs(spec, v) if o == "slowdown"]
    assert extra * 3600 == pytest.approx(sum((dt.run_steps(spec, v, a, "slowdown") - 800) / dc.train_rate(a, v)
                                             for v, a in longer))
    long = {**spec, "train": {**spec["train"], "steps": 800_000}, "steps_by": {"a2c": 3_200_000}}
    assert dc.train_minutes(long, "a2c", "discrete-image", "slowdown") > dc.train_minutes(
        long, "ppo", "multibinary-image", "slowdown") > 10  # the cluster limit follows the run's steps
    bad = copy.deepcopy(spec)
    bad["steps_by"] = {"sjf": 10}
    with pytest.raises(ConfigError, match="deeprm.steps_by.sjf: not a variant"):
        dl.check_spec(bad)


def test_every_report_figure_is_listed_with_inputs():
    assert list(df.FIGURES) == [f"fig5_{i}" for i in range(1, 19)]
    spec = copy.deepcopy(SPEC)
    spec["variants"].update({"discrete-stacked": {"algos": ["dqn", "a2c"]},
                             "multibinary-stacked": {"algos": ["a2c"]}})
    for name in df.FIGURES:
        inputs = df.figure_inputs(spec, "r", name)
        assert inputs, name
    box = [str(p) for p in df.figure_inputs(spec, "r", "fig5_2")]
    assert "r/discrete-stacked/dqn/completion_time/seed0/eval_heldout_episodes.csv" in box
    assert "r/discrete-stacked/dqn/completion_time/seed0/eval_report_episodes.csv" in box
    assert "r/discrete-stacked/baseline/random/eval_report_episodes.csv" in box
    load = [str(p) for p in df.figure_inputs(spec, "r", "fig5_1")]
    assert not any("completion_time" in p for p in load)
    assert {str(p) for p in df.figure_inputs(spec, "r", "fig5_18")} == {
        f"r/multibinary-image/{a}/slowdown/seed0/eval_{p}_jobs.csv" for a in ("a2c", "ppo") for p in dl.PROTOCOLS}
    curve = {str(p) for p in df.figure_inputs(spec, "r", "fig5_5")}
    assert {"r/discrete-image/baseline/sjf/eval_heldout_episodes.csv",
            "r/discrete-image/baseline/sjf/eval_report_episodes.csv"} <= curve


def test_length_fractions_by_hand():
    jobs = pd.DataFrame({"length": [1, 1, 2, 12, 12, 15], "withheld": [False, True, False, True, True, False]})
    frac = de.length_fractions(jobs, 15).set_index("length")
    assert frac.loc[1, "generated"] == 2 and frac.loc[12, "withheld"] == 2 and frac.loc[3, "generated"] == 0
    assert frac["fraction_of_generated"].sum() == pytest.approx(1.0)
    assert frac.loc[12, "fraction_of_withheld"] == pytest.approx(2 / 3)
    assert frac.loc[1, "withheld_share_of_length"] == pytest.approx(0.5)


def test_learning_curve_groups_episodes_into_iterations_and_averages_seeds():
    a = pd.DataFrame({"timesteps": [10, 20, 30, 40], "reward": [-4.0, -2.0, -1.0, -3.0],
                      "mean_slowdown": [4.0, 2.0, 1.0, 3.0], "mean_completion_time": [8.0, 6.0, 5.0, 7.0]})
    b = a.assign(reward=a["reward"] - 2, mean_slowdown=a["mean_slowdown"] + 2)
    curve = de.learning_curve([a, b], episodes_per_iteration=2).set_index("iteration")
    assert list(curve.index) == [1, 2]
    assert curve.loc[1, "mean_slowdown"] == pytest.approx(((4 + 2) / 2 + (6 + 4) / 2) / 2)
    assert curve.loc[2, "max_reward"] == -1.0 and curve.loc[1, "runs"] == 2


def test_load_curve_standard_error_over_seeds():
    ep = pd.DataFrame({"policy": "A2C", "algo": "a2c", "objective": "slowdown", "seed": [0, 0, 1, 1],
                       "rate": 0.7, "load": 1.29, "mean_slowdown": [2.0, 4.0, 5.0, 7.0]})
    row = de.load_curve(ep).iloc[0]
    assert row["mean_slowdown"] == pytest.approx(4.5) and row["seeds"] == 2
    assert row["sem_seeds"] == pytest.approx(np.std([3.0, 6.0], ddof=1) / np.sqrt(2))


def _fake_results(root, spec, agent_sd, sjf_sd, withheld_long, greedy_sd=None):
    """Episode/job tables with chosen mean slowdowns at every rate (greedy agents: ``greedy_sd``,
    default ``agent_sd``)."""
    rates = spec["eval"]["rates"]
    def episodes(value, never=""):
        return pd.DataFrame({"rate": rates, "load": [1.845 * r for r in rates], "episode": 0,
                             "mean_slowdown": value, "mean_completion_time": 10 * value,
                             "mean_slowdown_all": value + (2 if never else 0), "mean_slowdown_placed": value,
                             "n_never_placed": len(never.split(";")) if never else 0,
                             "never_placed_lengths": never})
    for protocol in dl.AGENT_PROTOCOLS:
        for variant in spec["variants"]:
            for algo, objective, seed in dl.agent_runs(spec, variant):
                paths = dl.eval_paths(dl.run_dir(root, variant, algo, objective, seed), protocol)
                value = greedy_sd if protocol == dl.GREEDY and greedy_sd is not None else agent_sd
                write_csv(paths["episodes"], episodes(value, "12;14" if withheld_long else ""))
                lengths = [12] * withheld_long + [1] * (4 - withheld_long) + [2, 3, 11, 1]
                write_csv(paths["jobs"], pd.DataFrame({"rate": 0.6, "load": 1.1, "length": lengths,
                                                       "withheld": [True] * 4 + [False] * 4}))
            for name in spec["baselines"] if protocol in dl.PROTOCOLS else []:
                value = sjf_sd if name == "sjf" else sjf_sd + 1
                write_csv(dl.eval_paths(dl.baseline_dir(root, variant, name), protocol)["episodes"], episodes(value))


def _verdicts(rows, protocol="heldout"):
    """Verdicts by claim id, for one protocol's rows (ids without the @protocol suffix)."""
    return {r["claim_id"].removesuffix(f"@{protocol}"): r["verdict"] for r in rows
            if "@" not in r["claim_id"] or r["claim_id"].endswith(f"@{protocol}")}


def test_claims_follow_the_numbers(tmp_path):
    _fake_results(tmp_path / "good", SPEC, agent_sd=3.9, sjf_sd=4.9, withheld_long=3)
    good_rows = claims_rows(SPEC, tmp_path / "good")
    good = _verdicts(good_rows)
    paper = {r["claim_id"].removesuffix("@report"): r["paper_value"] for r in good_rows}
    assert paper["d2-a2c-slowdown"] == "3.9" and paper["d2-sjf-completion"] == "20"  # the report's text
    assert good["d2-a2c-slowdown"] == "reproduced" and good["d2-sjf-slowdown"] == "reproduced"
    assert good["d2-trpo-slowdown"] == "not comparable"  # TRPO is not configured in SPEC
    assert good["d2-rl-beats-sjf"] == "partly reproduced"  # only A2C of A2C and TRPO exists
    assert good["mb2-rl-beats-sjf"] == "reproduced" and good["mb2-high-load"] == "reproduced"
    assert good["mb2-withheld-a2c"] == "reproduced" and good["acktr"] == "not comparable"
    assert good["d1-sjf-slowdown"] == "not comparable"  # no phase-1 variant configured
    _fake_results(tmp_path / "bad", SPEC, agent_sd=9.0, sjf_sd=4.9, withheld_long=0)
    bad = _verdicts(claims_rows(SPEC, tmp_path / "bad"))
    assert bad["d2-a2c-slowdown"] == "not reproduced" and bad["mb2-rl-beats-sjf"] == "not reproduced"
    assert bad["mb2-high-load"] == "not reproduced" and bad["mb2-withheld-ppo"] == "not reproduced"
    # every claim under both protocols, plus the two findings
    assert _verdicts(good_rows, "report")["d2-a2c-slowdown"] == "reproduced"
    assert good["finding-starvation"] == "reproduced"  # 2 never-placed jobs per episode, both long
    assert bad["finding-starvation"] == "not reproduced"
    # held out, every job counted (fake: placed + 2 with two never-placed jobs): 5.9 vs SJF 4.9
    assert good["finding-greedy-a2c"] == "not reproduced"
    _fake_results(tmp_path / "greedy", SPEC, agent_sd=2.0, sjf_sd=4.9, withheld_long=3, greedy_sd=9.0)
    rows = {r["claim_id"]: r for r in claims_rows(SPEC, tmp_path / "greedy")}
    assert rows["finding-greedy-a2c"]["verdict"] == "partly reproduced"  # sampled 4.0 beats 4.9, greedy 11 not
    assert "greedy: all jobs 11.00, placed only 9.00, 2.00 never placed" in rows["finding-greedy-a2c"]["ours"]
    assert "partly = one way only (sampled)" in rows["finding-greedy-a2c"]["note"]


@pytest.mark.slow
def _write_eval(folder, protocol, make_factory, kwargs):
    """Evaluate a policy under ``protocol`` as the pipeline's evaluate rules do; write its CSVs."""
    setup = dl.protocol_setup(SPEC, protocol)
    jobs, episodes = de.evaluate_over_rates(make_factory(), {**kwargs, **setup["overrides"]}, setup["rates"],
                                            setup["episodes"], setup["jobset_seed"], protocol=protocol)
    write_csv(dl.eval_paths(folder, protocol)["jobs"], jobs)
    write_csv(dl.eval_paths(folder, protocol)["episodes"], episodes)


def test_tiny_pipeline_end_to_end(tmp_path):
    from schedrl.agents import load_hyperparams
    from schedrl.experiments.train import train
    from schedrl.papers.deeprm.figures import draw
    from schedrl.report.claims import read_claims, write_claims

    root = tmp_path / "results"
    for variant in SPEC["variants"]:
        for algo, objective, seed in dl.agent_runs(SPEC, variant):
            hp = load_hyperparams(algo, dt.hyperparams_variant(variant), overrides={"n_steps": 16} if algo == "ppo" else None)
            if algo == "ppo":
                hp["batch_size"] = 16
            run = dl.run_dir(root, variant, algo, objective, seed)
            train(dl.ENV_ID, dt.env_kwargs(SPEC, variant, objective), algo, hp, SPEC["train"]["steps"], seed,
                  run, wrappers=dl.WRAPPERS)
            curve = pd.read_csv(run / "learning_curve.csv")
            assert {"mean_slowdown", "mean_completion_time"} <= set(curve.columns)
            make_policy, kwargs = de.agent_policy_factory(run, deterministic=False, seed=5)
            jobs, episodes = de.evaluate_over_rates(make_policy, kwargs, SPEC["eval"]["rates"], 1, 1000)
            again, _ = de.evaluate_over_rates(make_policy, kwargs, SPEC["eval"]["rates"], 1, 1000)
            pd.testing.assert_frame_equal(jobs, again)  # sampled actions, but seeded
            assert sorted(episodes["rate"]) == sorted(SPEC["eval"]["rates"])
            for protocol in dl.AGENT_PROTOCOLS:
                greedy = dl.protocol_setup(SPEC, protocol)["deterministic"]
                _write_eval(run, protocol, lambda run=run, g=greedy: de.agent_policy_factory(run, g, 5)[0], kwargs)
        for name in SPEC["baselines"]:
            for protocol in dl.PROTOCOLS:
                _write_eval(dl.baseline_dir(root, variant, name), protocol,
                            lambda name=name: dr.baseline_policy_factory(name), dt.env_kwargs(SPEC, variant, "slowdown"))
    # Same job sets for every policy: SJF and Packer see the same jobs at each rate.
    sjf = pd.read_csv(dl.eval_paths(dl.baseline_dir(root, "discrete-image", "sjf"))["jobs"])
    packer = pd.read_csv(dl.eval_paths(dl.baseline_dir(root, "discrete-image", "packer"))["jobs"])
    key = ["rate", "arrival", "length"]
    pd.testing.assert_frame_equal(sjf[key].sort_values(key).reset_index(drop=True),
                                  packer[key].sort_values(key).reset_index(drop=True))
    for name in ("fig5_3", "fig5_4", "fig5_5", "fig5_6", "fig5_7", "fig5_8", "fig5_14", "fig5_15",
                 "fig5_16", "fig5_17", "fig5_18"):
        png = tmp_path / "figures" / f"{name}.png"
        table = draw(name, SPEC, root, png)
        assert png.exists() and png.with_suffix(".pdf").exists() and len(table) > 0
    write_claims(tmp_path / "claims.csv", claims_rows(SPEC, root))
    assert len(read_claims(tmp_path / "claims.csv")) >= 20


def test_cli_claims_table_and_spec_errors(tmp_path, capsys):
    import json

    from schedrl.cli import main
    from schedrl.report.claims import read_claims

    _fake_results(tmp_path / "r", SPEC, agent_sd=3.9, sjf_sd=4.9, withheld_long=3)
    spec = json.dumps(SPEC)
    out = tmp_path / "claims.csv"
    assert main(["deeprm", "claims", "--spec", spec, "--root", str(tmp_path / "r"), "--out", str(out)]) == 0
    claims = read_claims(out)
    assert (claims["paper"] == "deeprm").all() and "acktr" in set(claims["claim_id"])
    md = tmp_path / "table.md"
    assert main(["deeprm", "table", "--spec", spec, "--root", str(tmp_path / "r"), "--out", str(md)]) == 0
    text = md.read_text()
    assert "| discrete-image (load 129%) | A2C (slowdown) | 3.90 +- 0.00 | 3.90 | 3.9 |" in text
    bad = json.loads(spec)
    bad["eval"]["epsiodes"] = 3
    assert main(["deeprm", "claims", "--spec", json.dumps(bad), "--root", str(tmp_path / "r"),
                 "--out", str(out)]) == 2
    assert "epsiodes" in capsys.readouterr().err
    assert main(["deeprm", "figure", "fig9_9", "--spec", spec, "--out", str(tmp_path / "x.png")]) == 2
    capsys.readouterr()
    greedy_sjf = dl.eval_paths(tmp_path / "sjf", dl.GREEDY)
    assert main(["deeprm", "evaluate", "--spec", spec, "--variant", "discrete-image", "--baseline", "sjf",
                 "--protocol", dl.GREEDY, "--out-jobs", str(greedy_sjf["jobs"]),
                 "--out-episodes", str(greedy_sjf["episodes"])]) == 2
    assert "plays trained agents greedily" in capsys.readouterr().err and not greedy_sjf["jobs"].exists()


def test_maskable_ppo_trains_and_evaluates_with_the_env_masks(tmp_path):
    from schedrl.agents import load_hyperparams
    from schedrl.experiments.evaluate import evaluate_run
    from schedrl.experiments.train import train

    hp = load_hyperparams("maskable_ppo", overrides={"n_steps": 32, "batch_size": 16})
    run = tmp_path / "mppo"
    train(dl.ENV_ID, dt.env_kwargs(SPEC, "discrete-image", "slowdown"), "maskable_ppo", hp, 64, 0, run,
          wrappers=dl.WRAPPERS)
    episodes = evaluate_run(run, n_episodes=1, seed=0)
    assert episodes["mean_slowdown"].iloc[0] >= 1.0
    make_policy, kwargs = de.agent_policy_factory(run, deterministic=True)
    _, per_episode = de.evaluate_over_rates(make_policy, kwargs, [0.7], 1, 1000)
    assert per_episode["mean_slowdown"].iloc[0] >= 1.0


def test_deeprm_agent_curve_with_the_authors_log(tmp_path):
    """Our agent's per-iteration training slowdown beside the report authors' logged values."""
    spec = copy.deepcopy(SPEC)
    spec["deeprm_agent"] = {"variant": "discrete-image", "rates": [0.7], "iterations": 3, "jobsets": 2,
                            "trajectories": 2, "seeds": [0]}
    assert df.figure_inputs(spec, "r", "deeprm_agent_curve") == [
        dl.deeprm_agent_dir("r", "discrete-image", 0.7, 0) / "learning_curve.csv"]
    run = dl.deeprm_agent_dir(tmp_path, "discrete-image", 0.7, 0)
    # 3 iterations x 4 episodes: slowdowns 6, 5, 4 per iteration
    write_csv(run / "learning_curve.csv", pd.DataFrame({
        "timesteps": np.arange(1, 13) * 100, "reward": -np.repeat([60.0, 50, 40], 4),
        "mean_slowdown": np.repeat([6.0, 5, 4], 4), "mean_completion_time": 20.0}))
    table = df.deeprm_agent_curve(spec, tmp_path, tmp_path / "curve.png")
    assert table["mean_slowdown"].tolist() == [6.0, 5.0, 4.0] and table["iteration"].tolist() == [1, 2, 3]
    assert (tmp_path / "curve.png").exists()
    theirs = df.authors_deeprm_curve(0.7)
    assert theirs.to_dict("list") == {"iteration": [100, 300, 999], "mean_slowdown": [6.80, 3.98, 2.71]}
    assert df.authors_deeprm_curve(0.3).empty
    del spec["deeprm_agent"]
    with pytest.raises(ConfigError, match="deeprm_agent"):
        df.deeprm_agent_curve(spec, tmp_path, tmp_path / "none.png")


def test_curve_figures_mark_the_reports_iterations():
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    fig, ax = plt.subplots()
    df._iteration_marker(ax, "fig5_6", "reward")
    df._iteration_marker(ax, "fig5_6", "mean_slowdown")  # the statement is about the reward panel
    lines = [line for line in ax.get_lines() if line.get_linestyle() == "--"]
    assert len(lines) == 1 and lines[0].get_xdata()[0] == 100
    fig2, ax2 = plt.subplots()
    df._iteration_marker(ax2, "fig5_11", "mean_slowdown")
    assert ax2.get_lines()[0].get_xdata()[0] == 200
    plt.close("all")


def test_deeprm_agent_converges_longer_at_chosen_rates():
    spec = copy.deepcopy(SPEC)
    spec["deeprm_agent"] = {"variant": "discrete-image", "rates": [0.3, 0.7], "iterations": 100, "jobsets": 10,
                            "trajectories": 20, "converge": {"rates": [0.7], "iterations": 1000}}
    dl.check_spec(spec)
    assert dt.deeprm_agent_iterations(spec, 0.7) == 1000 and dt.deeprm_agent_iterations(spec, 0.3) == 100
    spec["deeprm_agent"]["converge"]["rates"] = [0.6]
    with pytest.raises(ConfigError, match="converge.rates"):
        dl.check_spec(spec)


def test_claims_at_training_budgets_with_intervals(tmp_path):
    """Budget checkpoints' evaluations give the RL claims a value at 1/8, 1/4, 1/2 and all of
    training, a trend and a convergence status, and comparisons a 95% interval."""
    from schedrl.report.convergence import NOT_CONVERGED

    _fake_results(tmp_path, SPEC, agent_sd=3.9, sjf_sd=4.9, withheld_long=3)
    rates = SPEC["eval"]["rates"]
    for protocol in dl.PROTOCOLS:
        for variant in SPEC["variants"]:
            for algo, objective, seed in dl.agent_runs(SPEC, variant):
                frames = [pd.DataFrame({"rate": rates, "load": 1.0, "episode": 0, "mean_slowdown": value,
                                        "mean_completion_time": 10 * value, "fraction": f, "budget": f * 100})
                          for f, value in ((0.125, 6.0), (0.25, 5.0), (0.5, 4.2))]
                write_csv(dl.budget_path(dl.run_dir(tmp_path, variant, algo, objective, seed), protocol),
                          pd.concat(frames))
    budget = []
    rows = {r["claim_id"]: r for r in claims_rows(SPEC, tmp_path, budget=budget)}
    row = rows["d2-a2c-slowdown@heldout"]
    assert row["at_budgets"] == "1/8: 6; 1/4: 5; 1/2: 4.2; all: 3.9"
    assert row["trend"] == "toward paper" and row["converged"] == NOT_CONVERGED
    assert "1 seed x 1 episodes" in row["note"]
    assert rows["d2-rl-beats-sjf@heldout"]["ci95"].startswith("A2C vs SJF -20.4%")
    gaps = [r for r in budget if r["claim_id"] == "mb2-rl-beats-sjf@report"]
    assert [r["fraction"] for r in gaps] == [0.125, 0.25, 0.5, 1.0]
    assert gaps[0]["value"] == pytest.approx(6.0 / 4.9 - 1)
    assert not any("_budget" in r for r in rows.values())
    # the budget axis is each claim's own runs' steps: multi-binary trained 4x longer by steps_by
    longer, budget = {**SPEC, "steps_by": {"multibinary-image": 600}}, []
    claims_rows(longer, tmp_path, budget=budget)
    steps = {r["claim_id"]: r["budget"] for r in budget if r["fraction"] == 1.0}
    assert steps["mb2-rl-beats-sjf@report"] == 600 and steps["d2-a2c-slowdown@heldout"] == 150


def test_cost_model_counts_every_run_and_limits_follow_the_rates(capsys):
    spec = copy.deepcopy(SPEC)
    spec["seeds"], spec["seeds_by"] = [0, 1], {"completion_time": [0]}
    cost = dc.estimate_core_hours(spec)
    assert cost["runs"] == len(dl.agent_runs(spec, "discrete-image")) + len(dl.agent_runs(spec, "multibinary-image")) == 9
    one = copy.deepcopy(spec)
    one["train"]["steps"] *= 2
    assert dc.estimate_core_hours(one)["sb3"] == pytest.approx(2 * cost["sb3"])
    # a slower algorithm gets a longer cluster time limit
    assert dc.train_minutes(spec, "dqn", "discrete-image", "slowdown") >= dc.train_minutes(spec, "ppo", "discrete-image", "slowdown")
    from schedrl.cli import main

    assert main(["deeprm", "cost", "--spec", "config/config.yaml"]) == 0
    assert "core-hours" in capsys.readouterr().out


def test_hyperparams_override_changes_a_runs_hyperparameters_and_leaves_the_default_alone():
    """deeprm.variants.<variant>.hyperparams.<algo> (a tuned recipe, issue 69): the training rule's --hp
    options and the untrained reference's network follow it; without the block nothing changes."""
    import json
    import shlex

    from schedrl.agents.hyperparams import load_hyperparams
    from schedrl.experiments.envs import parse_pairs

    plain = copy.deepcopy(SPEC)
    plain["report_selection"] = {"check_every": 50}
    assert dt.hyperparams_override(plain, "discrete-image", "a2c") == {}
    assert dt.run_hyperparams(plain, "discrete-image", "a2c") == load_hyperparams("a2c", "deeprm-discrete-image")
    assert dt.train_options(plain, "discrete-image", "a2c") == dt.selection_args(plain) != ""
    assert dt.train_options(SPEC, "discrete-image", "a2c") == ""
    assert dr.untrained_model(plain, "discrete-image", "a2c", 0).policy.net_arch == {"pi": [64, 64], "vf": [64, 64]}

    tuned = copy.deepcopy(plain)
    tuned["variants"]["discrete-image"]["hyperparams"] = {"a2c": {"learning_rate": 1e-5, "n_steps": 16, "net": [32]}}
    dl.load_spec(json.dumps(tuned))  # the schema and the cross-checks take it
    hp = dt.run_hyperparams(tuned, "discrete-image", "a2c")
    assert hp["learning_rate"] == 1e-5 and hp["n_steps"] == 16 and hp["gamma"] == 0.99
    assert hp["policy_kwargs"] == {"net_arch": {"pi": [32], "vf": [32]}, "activation_fn": "tanh"}
    options = dt.train_options(tuned, "discrete-image", "a2c")
    assert options.startswith(dt.selection_args(tuned))
    hp_pairs = [a.removeprefix("--hp=") for a in shlex.split(options) if a.startswith("--hp=")]
    assert parse_pairs(hp_pairs, "--hp") == {k: v for k, v in hp.items()
                                             if k in ("learning_rate", "n_steps", "policy_kwargs")}
    model = dr.untrained_model(tuned, "discrete-image", "a2c", 0)
    assert model.policy.net_arch == {"pi": [32], "vf": [32]} and model.learning_rate == 1e-5
    # the other variant and the other algorithms keep the file's values
    assert dt.hyperparams_override(tuned, "multibinary-image", "a2c") == {}
    assert dt.hyperparams_override(tuned, "discrete-image", "ppo") == {}

    # config/dense-first-layer.yaml (issue 72's A/B): the actor-critics' first layer, net and tanh kept
    import yaml

    from schedrl.agents.sparse_input import SparseInputLinear

    overlay = yaml.safe_load((Path(__file__).resolve().parents[1] / "config" / "dense-first-layer.yaml").read_text())
    dense = copy.deepcopy(plain)
    dense["variants"]["discrete-image"]["hyperparams"] = overlay["deeprm"]["variants"]["discrete-image"]["hyperparams"]
    dl.load_spec(json.dumps(dense))
    for algo in ("a2c", "ppo"):
        assert dt.run_hyperparams(dense, "discrete-image", algo)["policy_kwargs"] == {
            "net_arch": {"pi": [64, 64], "vf": [64, 64]}, "activation_fn": "tanh", "sparse_input": False}
        layers = [type(m) for m in dr.untrained_model(dense, "discrete-image", algo, 0).policy.modules()]
        assert SparseInputLinear not in layers  # auto would pick the sparse layer at 4,480 inputs
    layers = [type(m) for m in dr.untrained_model(plain, "discrete-image", "a2c", 0).policy.modules()]
    assert SparseInputLinear in layers

    for algo, key in (("a2c", "clip_range"), ("trpo", "n_epochs"), ("trpo", "sparse_input")):
        bad = copy.deepcopy(SPEC)
        bad["variants"]["discrete-image"]["hyperparams"] = {algo: {key: 1}}
        with pytest.raises(ConfigError, match=rf"deeprm\.variants\.discrete-image\.hyperparams\.{algo}\.{key}"):
            dl.check_spec(bad)
