"""The normalised score (random valid play = 0, best heuristic = 1) and its rliable aggregate (issue 68)."""

import numpy as np
import pandas as pd
import pytest

from schedrl.errors import SchedrlError
from schedrl.report.normalised import (
    NormalisedError,
    _rliable,
    aggregate,
    anchors,
    check_long,
    iqm,
    jobset_cell,
    jobset_half_width,
    parse_jobsets,
    probability_of_improvement,
    random_half_width,
    scores,
    write_outputs,
)


def _rows(workload, better, random, heuristics, players, paper="p", metric="slowdown"):
    """Long-table rows of one workload: {name: value} per heuristic, {name: [value per seed]} per agent."""
    base = {"paper": paper, "workload": workload, "metric": metric, "better": better}
    out = [{**base, "player": "random", "role": "random", "seed": 0, "value": random}]
    out += [{**base, "player": h, "role": "heuristic", "seed": 0, "value": v} for h, v in heuristics.items()]
    out += [{**base, "player": p, "role": "agent", "seed": s, "value": v}
            for p, values in players.items() for s, v in enumerate(values)]
    return out


def _score(frame, workload, player, seed=0):
    sel = frame[(frame["workload"] == workload) & (frame["player"] == player) & (frame["seed"] == seed)]
    return float(sel["normalised"].iloc[0])


def test_halfway_between_random_and_best_heuristic_scores_half_lower_is_better():
    # slowdown: random 10, SJF 4 (best), FCFS 6; the agent at 7 is halfway from 10 to 4
    frame = scores(pd.DataFrame(_rows("w", "lower", 10.0, {"sjf": 4.0, "fcfs": 6.0}, {"ppo": [7.0, 13.0]})))
    assert _score(frame, "w", "random") == 0.0
    assert _score(frame, "w", "sjf") == 1.0
    assert _score(frame, "w", "fcfs") == pytest.approx((6 - 10) / (4 - 10))  # 2/3
    assert _score(frame, "w", "ppo", 0) == pytest.approx(0.5)
    assert _score(frame, "w", "ppo", 1) == pytest.approx(-0.5)  # worse than random: negative
    assert set(frame["best_heuristic"]) == {"sjf"}


def test_higher_is_better_direction():
    # utilisation: random 0.5, FCFS 0.9 (best), SJF 0.7; the agent at 0.7 is halfway, at 1.0 above 1
    frame = scores(pd.DataFrame(_rows("w", "higher", 0.5, {"sjf": 0.7, "fcfs": 0.9}, {"ppo": [0.7, 1.0]},
                                      metric="utilisation")))
    assert set(frame["best_heuristic"]) == {"fcfs"}
    assert _score(frame, "w", "ppo", 0) == pytest.approx(0.5)
    assert _score(frame, "w", "ppo", 1) == pytest.approx(1.25)
    assert _score(frame, "w", "sjf") == pytest.approx(0.5)


def test_random_is_the_mean_of_its_seeds():
    rows = _rows("w", "lower", 9.8, {"sjf": 4.0}, {"ppo": [7.0]})
    rows.append({**rows[0], "seed": 1, "value": 10.2})  # random's seeds 9.8 and 10.2: anchor 10
    frame = scores(pd.DataFrame(rows))
    assert _score(frame, "w", "ppo") == pytest.approx(0.5)
    assert _score(frame, "w", "random", 1) == pytest.approx(-0.2 / 6)


def test_degenerate_workload_is_left_out_and_counted():
    rows = (_rows("good", "lower", 10.0, {"sjf": 4.0}, {"ppo": [7.0, 8.5]})
            # random valid play beats every heuristic here: no scale
            + _rows("flat", "lower", 3.0, {"sjf": 4.0}, {"ppo": [1.0, 2.0]})
            # random matches the best heuristic: no scale either
            + _rows("tie", "lower", 4.0, {"sjf": 4.0}, {"ppo": [1.0, 2.0]}))
    frame = scores(pd.DataFrame(rows))
    table = anchors(check_long(pd.DataFrame(rows))).set_index("workload")
    assert table["anchor"].to_dict() == {"flat": "degenerate", "good": "ok", "tie": "degenerate"}
    assert frame.loc[frame["workload"] != "good", "normalised"].isna().all()
    agg = aggregate(frame, reps=200).set_index("player")
    assert agg.loc["ppo", "workloads"] == 1 and agg.loc["ppo", "degenerate_workloads"] == 2
    assert agg.loc["ppo", "no_random_workloads"] == 0 and agg.loc["ppo", "no_heuristic_workloads"] == 0
    assert agg.loc["ppo", "mean"] == pytest.approx((0.5 + 0.25) / 2)


def test_a_heuristic_within_random_plays_interval_is_a_tie():
    """Random valid play drawn three times on the same workload, 9, 10 and 11: mean 10, standard error
    1/sqrt(3), 95% t-interval 10 +- 4.303/sqrt(3) = 10 +- 2.484. A heuristic at 8 lies inside it (a
    tie: no scale, counted with the degenerate workloads), one at 7 outside (a scale); one draw of
    random play at 10 against a heuristic at 9.99 has no interval, so the sign decides (a scale)."""
    def workload(name, best, draws):
        base = {"paper": "p", "workload": name, "metric": "slowdown", "better": "lower"}
        return ([{**base, "player": "random", "role": "random", "seed": s, "value": v} for s, v in enumerate(draws)]
                + [{**base, "player": "sjf", "role": "heuristic", "seed": 0, "value": best},
                   {**base, "player": "ppo", "role": "agent", "seed": 0, "value": 8.5}])

    rows = workload("tied", 8.0, [9.0, 10.0, 11.0]) + workload("apart", 7.0, [9.0, 10.0, 11.0]) \
        + workload("one draw", 9.99, [10.0])
    table = anchors(check_long(pd.DataFrame(rows))).set_index("workload")
    assert table["anchor"].to_dict() == {"apart": "ok", "one draw": "ok", "tied": "tie"}
    assert random_half_width([9.0, 10.0, 11.0]) == pytest.approx(4.302653 / np.sqrt(3), rel=1e-6)
    assert random_half_width([10.0]) == 0.0
    frame = scores(pd.DataFrame(rows))
    assert frame.loc[frame["workload"] == "tied", "normalised"].isna().all()
    assert _score(frame, "apart", "ppo") == pytest.approx(0.5)
    agg = aggregate(frame, reps=50).set_index("player")
    assert agg.loc["ppo", "workloads"] == 2 and agg.loc["ppo", "degenerate_workloads"] == 1


def _jobset_workload(name, best, seeds):
    """One workload whose random valid play is ``seeds`` ({seed: [value per job set]}) with its cells."""
    base = {"paper": "p", "workload": name, "metric": "slowdown", "better": "lower"}
    rows = [{**base, "player": "random", "role": "random", "seed": s, "value": float(np.mean(v)),
             "per_jobset": jobset_cell(range(len(v)), v)} for s, v in seeds.items()]
    return rows + [{**base, "player": "sjf", "role": "heuristic", "seed": 0, "value": best, "per_jobset": ""},
                   {**base, "player": "ppo", "role": "agent", "seed": 0, "value": 5.0, "per_jobset": ""}]


def test_random_plays_noise_is_measured_on_each_job_set():
    """Random valid play on three job sets, two seeds: (4, 6), (9, 11), (1, 3). On each job set the
    seeds differ by 2 (variance 2), pooled variance 2 with 3 degrees of freedom over 6 values: the
    95% interval of its mean 5.667 is +- t(3) sqrt(2/6) = 3.182446 x 0.57735 = 1.8374. The seeds' means
    (4.667, 6.667) alone give +- t(1) x 1 = 12.706. A heuristic at 3.5 (gap 2.17) has a scale measured
    per job set and none over the two means; one at 4.0 (gap 1.67) is a tie either way."""
    seeds = {0: [4.0, 9.0, 1.0], 1: [6.0, 11.0, 3.0]}
    rows = _jobset_workload("apart", 3.5, seeds) + _jobset_workload("tied", 4.0, seeds)
    frame = check_long(pd.DataFrame(rows))
    assert jobset_half_width(frame[(frame["role"] == "random") & (frame["workload"] == "apart")]) \
        == pytest.approx(3.182446 * np.sqrt(2 / 6), rel=1e-6)
    assert random_half_width([14 / 3, 20 / 3]) == pytest.approx(12.7062, rel=1e-4)
    assert anchors(frame).set_index("workload")["anchor"].to_dict() == {"apart": "ok", "tied": "tie"}
    over_means = anchors(check_long(pd.DataFrame(rows).drop(columns="per_jobset"))).set_index("workload")
    assert over_means["anchor"].to_dict() == {"apart": "tie", "tied": "tie"}
    assert _score(scores(pd.DataFrame(rows)), "apart", "ppo") == pytest.approx((5.0 - 17 / 3) / (3.5 - 17 / 3))


def test_job_set_noise_falls_back_to_the_seeds_means_without_two_seeds_or_cells():
    """One seed (no spread on any job set) or a random row without its cell: the seeds' means decide,
    as before job sets were read (one draw: the sign alone)."""
    one = check_long(pd.DataFrame(_jobset_workload("one", 5.9, {0: [4.0, 9.0, 5.0]})))
    assert jobset_half_width(one[one["role"] == "random"]) is None
    assert anchors(one)["anchor"].tolist() == ["ok"]
    rows = _jobset_workload("w", 3.5, {0: [4.0, 9.0, 1.0], 1: [6.0, 11.0, 3.0]})
    rows[1]["per_jobset"] = ""
    part = check_long(pd.DataFrame(rows))
    assert jobset_half_width(part[part["role"] == "random"]) is None
    assert anchors(part)["anchor"].tolist() == ["tie"]


def test_a_job_set_cell_round_trips_and_a_bad_one_is_one_clear_error():
    cell = jobset_cell([100000, 100001], [1.9210234567, 2.0])
    assert cell == "100000=1.921023;100001=2.0"
    assert parse_jobsets(cell) == {100000: 1.921023, 100001: 2.0}
    assert parse_jobsets("") == {} and parse_jobsets(float("nan")) == {}
    with pytest.raises(NormalisedError, match="per_jobset cell"):
        parse_jobsets("100000:1.9")


def test_seeds_recorded_as_separate_runs_pool_their_job_sets(tmp_path):
    """Two runs of one seed each (issue 68's separate seeds): recorded, pooled and scored again, the
    workload's anchors read both seeds' job sets (a scale), as one run of two seeds would."""
    from schedrl.report.recorded import merged_normalised, read_recorded_scores, record_scores, rescored

    recorded = read_recorded_scores(tmp_path / "none.csv")
    for seed, values in {0: [4.0, 9.0, 1.0], 1: [6.0, 11.0, 3.0]}.items():
        rows = _jobset_workload("apart", 3.5, {seed: values})
        for r in rows:
            r["seed"] = seed if r["role"] != "heuristic" else 0
        recorded = record_scores(recorded, scores(pd.DataFrame(rows)), "p", f"run {seed}", "paper-budget")
        assert recorded.loc[recorded["run"] == f"run {seed}", "anchor"].iloc[0] == "ok"  # one seed: the sign
    path = tmp_path / "recorded_scores.csv"
    recorded.to_csv(path, index=False)
    back = read_recorded_scores(path)
    pooled = rescored(back.drop_duplicates(["paper", "workload", "player", "seed"], keep="last"))
    assert set(pooled["anchor"]) == {"ok"}
    assert merged_normalised(back, "paper-budget")[0] == ["run 0", "run 1"]
    without = back.drop(columns="per_jobset")
    without.to_csv(path, index=False)  # a file recorded before the column: its runs read, the seeds' means decide
    old = read_recorded_scores(path)
    assert (old["per_jobset"] == "").all()
    assert set(rescored(old.drop_duplicates(["paper", "workload", "player", "seed"], keep="last"))["anchor"]) == {"tie"}


def test_deeprm_reader_gives_random_plays_slowdown_per_held_out_job_set(tmp_path):
    """DeepRM's reader on a tiny results tree: random valid play's rows carry each held-out job set's
    slowdown (the heuristics' do not need theirs), and the tie test reads them."""
    import json

    from schedrl.commands import spec_module
    from schedrl.commands.score import load_config
    from schedrl.papers.deeprm import layout as dl
    from schedrl.papers.deeprm.normalised import long_table

    spec = spec_module("deeprm").load_spec(json.dumps(load_config("default", [])["deeprm"]))
    variant = next(iter(spec["variants"]))

    def episodes(folder, values):
        path = dl.eval_paths(folder, "heldout")["episodes"]
        path.parent.mkdir(parents=True, exist_ok=True)
        pd.DataFrame({"rate": 0.7, "episode": range(len(values)), "jobset_seed": [100000 + i for i in range(len(values))],
                      "mean_slowdown": values}).to_csv(path, index=False)

    for seed, values in {0: [4.0, 9.0, 1.0], 1: [6.0, 11.0, 3.0]}.items():
        episodes(dl.reference_dir(tmp_path, variant, "random", None, seed), values)
    episodes(dl.baseline_dir(tmp_path, variant, "sjf"), [3.0, 6.0, 1.5])
    long, _ = long_table(spec, root=tmp_path)
    random = long[long["role"] == "random"].set_index("seed")
    assert random.loc[0, "per_jobset"] == "100000=4.0;100001=9.0;100002=1.0"
    assert (long.loc[long["role"] == "heuristic", "per_jobset"].fillna("") == "").all()
    assert anchors(check_long(long))["anchor"].tolist() == ["ok"]  # gap 2.17 > 1.84; over two means: a tie


def test_a_missing_anchor_is_counted_apart_from_a_degenerate_scale():
    rows = (_rows("good", "lower", 10.0, {"sjf": 4.0}, {"ppo": [7.0]})
            + _rows("flat", "lower", 3.0, {"sjf": 4.0}, {"ppo": [1.0]})    # random beats SJF: degenerate
            + _rows("no-sjf", "lower", 10.0, {}, {"ppo": [7.0]})           # no heuristic played
            + [r for r in _rows("no-rand", "lower", 10.0, {"sjf": 4.0}, {"ppo": [7.0]}) if r["role"] != "random"]
            + [r for r in _rows("bare", "lower", 10.0, {}, {"ppo": [7.0]}) if r["role"] != "random"])
    table = anchors(check_long(pd.DataFrame(rows))).set_index("workload")
    assert table["anchor"].to_dict() == {"bare": "no-anchor", "flat": "degenerate", "good": "ok",
                                         "no-rand": "no-random", "no-sjf": "no-heuristic"}
    frame = scores(pd.DataFrame(rows))
    assert frame.loc[frame["anchor"] != "ok", "normalised"].isna().all()
    assert set(frame.loc[frame["workload"] == "no-sjf", "anchor"]) == {"no-heuristic"}
    row = aggregate(frame, reps=100).set_index("player").loc["ppo"]
    assert row["workloads"] == 1 and row["degenerate_workloads"] == 1
    assert row["no_random_workloads"] == 2 and row["no_heuristic_workloads"] == 2  # "bare" counts in both


def test_aggregate_carries_the_pipeline_scale():
    scored = scores(_two_workloads())
    assert set(aggregate(scored, reps=50, scale="paper-budget")["scale"]) == {"paper-budget"}
    # the scale is a label: the numbers do not depend on it
    a, b = aggregate(scored, reps=50, scale="default"), aggregate(scored, reps=50, scale="smoke")
    pd.testing.assert_frame_equal(a.drop(columns="scale"), b.drop(columns="scale"))


def test_a_reference_role_is_scored_but_never_the_anchor():
    rows = _rows("w", "lower", 10.0, {"sjf": 4.0}, {"ppo": [7.0]})
    rows.append({**rows[0], "player": "random valid (other MDP)", "role": "reference", "value": 8.0})
    frame = scores(pd.DataFrame(rows))
    assert _score(frame, "w", "random") == 0.0 and _score(frame, "w", "ppo") == pytest.approx(0.5)
    assert _score(frame, "w", "random valid (other MDP)") == pytest.approx(1 / 3)


def _two_workloads():
    return pd.DataFrame(_rows("w1", "lower", 10.0, {"sjf": 4.0, "fcfs": 6.0}, {"ppo": [7.0, 6.4, 8.2]})
                        + _rows("w2", "lower", 8.0, {"sjf": 3.0, "fcfs": 2.0}, {"ppo": [5.0, 4.5, 6.5]}))


def test_aggregate_intervals_contain_the_estimates():
    agg = aggregate(scores(_two_workloads()), reps=200).set_index("player")
    row = agg.loc["ppo"]
    assert row["seeds"] == 3 and row["workloads"] == 2 and row["degenerate_workloads"] == 0
    for stat in ("iqm", "mean", "p_beats_random", "p_beats_best_heuristic"):
        assert row[f"{stat}_lo"] <= row[stat] <= row[f"{stat}_hi"]
    assert row["iqm_lo"] < row["iqm_hi"]  # three seeds: a real interval
    # every ppo seed beats random on both workloads and none reaches the best heuristic
    assert row["p_beats_random"] == 1.0 and row["p_beats_best_heuristic"] == 0.0
    assert agg.loc["random", "iqm"] == 0.0 and agg.loc["random", "p_beats_random"] == 0.5
    # the best heuristic differs by workload (SJF on w1, FCFS on w2): neither scores 1 on both
    assert agg.loc["sjf", "mean"] == pytest.approx((1 + 5 / 6) / 2)


def test_a_seed_on_some_workloads_only_is_left_out_and_not_counted():
    """A seed recorded on one workload so far (one scenario of a seed trained in pieces) is not part
    of the aggregate: the estimate and the seeds it counts are those of the seeds on every workload."""
    full = _two_workloads()
    extra = pd.DataFrame(_rows("w1", "lower", 10.0, {}, {"ppo": [0, 0, 0, 4.0]})[-1:])  # seed 3 on w1 only
    with_extra = aggregate(scores(pd.concat([full, extra], ignore_index=True)), reps=100).set_index("player")
    without = aggregate(scores(full), reps=100).set_index("player")
    assert with_extra.loc["ppo", "seeds"] == 3 == without.loc["ppo", "seeds"]
    assert with_extra.loc["ppo", "iqm"] == without.loc["ppo", "iqm"]


def test_iqm_is_rliables_interquartile_mean():
    # 8 scores on one workload: the IQM drops the two lowest and two highest
    rows = _rows("w", "lower", 10.0, {"sjf": 0.0}, {"ppo": [10, 9, 8, 7, 6, 5, 4, -10]})
    row = aggregate(scores(pd.DataFrame(rows)), reps=100).set_index("player").loc["ppo"]
    assert row["iqm"] == pytest.approx(np.mean([0.2, 0.3, 0.4, 0.5]))


def test_same_seed_same_files(tmp_path):
    scored = scores(_two_workloads())
    paths = []
    for run in ("a", "b"):
        paths.append((tmp_path / f"{run}_scores.csv", tmp_path / f"{run}_aggregate.csv"))
        write_outputs(scored, aggregate(scored, reps=100, seed=7), *paths[-1])
    assert paths[0][0].read_bytes() == paths[1][0].read_bytes()
    assert paths[0][1].read_bytes() == paths[1][1].read_bytes()
    bounds = ["iqm_lo", "iqm_hi", "mean_lo", "mean_hi"]
    other = aggregate(scored, reps=100, seed=8).set_index("player").loc["ppo", bounds].tolist()
    assert other != pd.read_csv(paths[0][1]).set_index("player").loc["ppo", bounds].tolist()


def test_a_players_interval_does_not_depend_on_the_others():
    scored = scores(_two_workloads())
    alone = scored[scored["player"].isin(["random", "sjf", "fcfs", "ppo"])]
    with_more = pd.concat([scored, scored[scored["player"] == "ppo"].assign(player="a2c")])
    a = aggregate(alone, reps=100).set_index("player").loc["ppo"]
    b = aggregate(with_more, reps=100).set_index("player").loc["ppo"]
    pd.testing.assert_series_equal(a, b)


def test_global_numpy_generator_left_as_it_was():
    np.random.seed(123)
    expected = np.random.random()
    np.random.seed(123)
    aggregate(scores(_two_workloads()), reps=50)
    assert np.random.random() == expected


@pytest.mark.parametrize("change, message", [
    (lambda f: f.drop(columns=["better"]), "missing column"),
    (lambda f: f.assign(role="robot"), "unknown role"),
    (lambda f: f.assign(better="sideways"), "unknown direction"),
    (lambda f: f.assign(value=np.nan), "not a finite number"),
    (lambda f: pd.concat([f, f.iloc[:1]]), "more than one value"),
])
def test_bad_long_table_is_one_clear_error(change, message):
    with pytest.raises(NormalisedError, match=message):
        scores(change(_two_workloads()))


# -- the command line --------------------------------------------------------------------------------
def test_cli_scores_a_long_table(tmp_path, capsys):
    from schedrl.cli import main

    long = tmp_path / "long.csv"
    _two_workloads().to_csv(long, index=False)
    assert main(["normalised", "--long", str(long), "--reps", "50", "--out-dir", str(tmp_path / "out")]) == 0
    agg = pd.read_csv(tmp_path / "out" / "aggregate.csv").set_index("player")
    assert list(agg.columns[:5]) == ["paper", "scale", "role", "seeds", "workloads"]
    assert set(agg["scale"]) == {"unspecified"}  # --long without --scale
    assert agg.loc["ppo", "p_beats_random"] == 1.0
    scored = pd.read_csv(tmp_path / "out" / "scores.csv")
    assert set(scored.loc[scored["player"] == "random", "normalised"]) == {0.0}
    assert "aggregate.csv (unspecified scale): 4 players of 1 paper(s); 2 workloads, 2 with a scale; 0 gaps" \
        in capsys.readouterr().out
    assert main(["normalised", "--long", str(long), "--reps", "50", "--scale", "smoke",
                 "--out-dir", str(tmp_path / "smoke")]) == 0
    assert set(pd.read_csv(tmp_path / "smoke" / "aggregate.csv")["scale"]) == {"smoke"}


def test_cli_draws_the_reports_figures_and_profiles_from_enough_workloads(tmp_path):
    """Issue 68 items 2 and 5: the figure of every player's IQM interval, and rliable's performance
    profiles for a paper with at least PROFILE_MIN_WORKLOADS scaled workloads (none with two)."""
    from schedrl.cli import main
    from schedrl.report.normalised import PROFILE_MIN_WORKLOADS, PROFILE_TAUS, long_rows, profiles

    rows = []
    for w in range(PROFILE_MIN_WORKLOADS):
        for seed in (0, 1):
            for player, role, value in (("random", "random", 10.0), ("sjf", "heuristic", 5.0),
                                        ("ppo", "agent", 6.0 + 0.5 * seed), ("uniform", "uniform", 12.0)):
                rows.append(long_rows("p", f"w{w}", player, role, seed, "slowdown", "lower", value))
    frame = pd.DataFrame(rows)
    table = profiles(scores(frame), reps=50)
    ppo = table[table["player"] == "ppo"].set_index("tau")["fraction"]
    # ppo scores 0.8 (seed 0) and 0.7 (seed 1) on every workload: all runs above 0.5, none above 0.9
    assert ppo[0.5] == 1.0 and ppo[0.9] == 0.0 and len(ppo) == len(PROFILE_TAUS)
    assert set(table["player"]) == {"ppo", "uniform", "random"}  # the heuristics are left out
    assert profiles(scores(frame[frame["workload"].isin(["w0", "w1"])]), reps=50).empty
    frame.to_csv(tmp_path / "long.csv", index=False)
    assert main(["normalised", "--long", str(tmp_path / "long.csv"), "--reps", "50",
                 "--out-dir", str(tmp_path / "out")]) == 0
    for name in ("where_rl_stands", "profiles"):
        for ext in ("png", "pdf", "csv"):
            assert (tmp_path / "out" / f"{name}.{ext}").stat().st_size > 0
    drawn = pd.read_csv(tmp_path / "out" / "where_rl_stands.csv")
    assert set(drawn["player"]) == {"ppo", "uniform", "random"} and drawn["iqm"].notna().all()


@pytest.mark.parametrize("args, message", [
    (["--long", "no/such.csv"], "no such long table"),
    (["--paper", "nope"], "unknown paper(s) nope"),
    (["--reps", "0"], "--reps must be at least 1"),
    (["--config-json", "{"], "--config-json is not JSON"),
])
def test_cli_bad_input_is_one_line_and_status_2(tmp_path, capsys, args, message):
    from schedrl.cli import main

    assert main(["normalised", *args, "--out-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_mrsch_reader_on_a_tiny_results_tree(tmp_path):
    from schedrl.papers.mrsch import layout as ml
    from schedrl.papers.mrsch.normalised import long_table

    spec = {"seed": 0, "workloads": ["S1"], "extra_seeds": []}
    folder = ml.eval_dir(tmp_path, "S1")
    (folder / "references").mkdir(parents=True)
    pd.DataFrame({"workload": "S1", "method": ["fcfs", "ga", "exhaustive", "mrsch"],
                  "mean_slowdown": [10.0, 4.0, 1.0, 7.0]}).to_csv(folder / "metrics.csv", index=False)
    pd.DataFrame({"workload": "S1", "method": ["mrsch", "mrsch"], "reference": ["random", "untrained"],
                  "mean_slowdown": [10.0, 9.0]}).to_csv(folder / "references" / "metrics.csv", index=False)
    long, gaps = long_table(spec, tmp_path)
    assert all(g["player"].endswith("(placed)") for g in gaps)  # only the paper's numbers without a workload
    got = scores(long[long["role"] != "authors"]).set_index("player")["normalised"].to_dict()
    assert got == {"random valid": 0.0, "FCFS": 0.0, "GA re-planning": 1.0, "MRSch DFP (MLP)": 0.5,
                   "untrained MRSch DFP (MLP)": pytest.approx(1 / 6)}
    # SJF and smallest area first (+ EASY), beyond the paper, are heuristics too: the better one is the 1
    pd.DataFrame({"workload": "S1", "method": ["fcfs", "ga", "sjf", "saf", "exhaustive", "mrsch"],
                  "mean_slowdown": [10.0, 6.0, 5.5, 4.0, 1.0, 7.0]}).to_csv(folder / "metrics.csv", index=False)
    long, _ = long_table(spec, tmp_path)
    scored = scores(long[long["role"] != "authors"])
    assert set(scored["best_heuristic"]) == {"smallest area first + EASY"}
    assert scored.set_index("player")["normalised"].to_dict()["MRSch DFP (MLP)"] == pytest.approx(0.5)


def test_report_opens_with_where_rl_stands(tmp_path):
    from schedrl.papers import titles
    from schedrl.report.render import render_report

    path = tmp_path / "aggregate.csv"
    aggregate(scores(_two_workloads()), reps=50).to_csv(path, index=False)
    text, _ = render_report([], [], "default", titles(), normalised=str(path))
    assert text.index("## Where RL stands") < text.index("## Verdicts")
    section = text[text.index("## Where RL stands"):text.index("## Verdicts")]
    assert "| ppo |" in section.replace("  ", " ") or "ppo" in section
    assert "sjf" not in section  # heuristics are the scale, not rows of it
    # gaps.csv beside the aggregate: a paper with nothing placed says why
    pd.DataFrame([{"paper": "p", "player": "p's agents (placed)", "gap": "not placed: no heuristic"}]).to_csv(
        tmp_path / "gaps.csv", index=False)
    text, _ = render_report([], [], "default", titles(), normalised=str(path))
    assert "- **p**: no paper agent placed: not placed: no heuristic." in text
    with pytest.raises(SchedrlError, match="run 'schedrl normalised' first"):
        render_report([], [], "default", titles(), normalised=str(tmp_path / "none.csv"))


def test_report_sets_recorded_paper_budget_and_tuned_players_beside_the_build(tmp_path, monkeypatch):
    """Issue 68 item 5 / issue 69: the opening table holds this build's players and, for the same
    papers, the players of their recorded runs at other scales (a tuned agent among them), and the
    headroom line names the tuned agent where it is the best with the most seeds."""
    from schedrl.experiments import tune
    from schedrl.papers import titles
    from schedrl.report.render import PaperInfo, render_report

    (tmp_path / "runtime.yml").write_text("# Learning probe (schedrl.experiments.probes): passed (gain +60%, +55%).\n")
    monkeypatch.setattr(tune, "TUNED_DIR", tmp_path)  # the tuned recipe's header, as --write-config leaves it
    path = tmp_path / "aggregate.csv"
    runtime = _two_workloads().assign(paper="runtime")
    built = aggregate(scores(runtime), reps=50, scale="default")
    built.to_csv(path, index=False)
    tuned = aggregate(scores(runtime), reps=50, scale="tuned")
    tuned = tuned.assign(player=tuned["player"].replace({"ppo": "tuned ppo"}))
    tuned.loc[tuned["player"] == "tuned ppo", ["iqm", "iqm_lo", "iqm_hi"]] = [1.2, 1.1, 1.3]
    other = tuned.assign(paper="elsewhere")  # a paper this build does not hold: left out
    infos = {k: PaperInfo(title=v) for k, v in titles().items()}
    infos["runtime"].recorded_players = pd.concat([tuned, other, built], ignore_index=True)
    text, _ = render_report([], [], "default", infos, normalised=str(path))
    section = text[text.index("## Where RL stands"):text.index("## Verdicts")]
    assert "tuned ppo" in section and "elsewhere" not in section
    assert section.count("| ppo |") == 1  # the recorded default rows do not repeat the build's
    line = "the best agent, tuned ppo (3 seed(s), 2 workload(s)), beats the best heuristic: IQM 1.20 [1.10, 1.30]; " \
           "a tuned agent, its trainer passes the learning probe."
    assert f"- **runtime**: {line}" in section
    # and the paper's own section says it in one line
    paper_section = text[text.index(f"## {titles()['runtime']}"):]
    assert f"**Headroom**: {line}" in paper_section.split("\n## ")[0]


# -- the mdp and sem readers on tiny results trees ---------------------------------------------------
def _trials(path, values, **cols):
    path.parent.mkdir(parents=True, exist_ok=True)
    pd.DataFrame({"trial": range(len(values)), "mean_slowdown": values, **cols}).to_csv(path, index=False)


def test_mdp_reader_on_a_tiny_results_tree(tmp_path):
    from schedrl.papers.mdp import layout as ml
    from schedrl.papers.mdp.normalised import long_table

    spec = {"horizon": 20, "scenarios": [1], "variants": ["image", "compact"], "seeds": [0, 1],
            "transfer": None, "horizon_study": {"horizon": 60, "variants": ["image"], "scenarios": [1]}}
    _trials(ml.sjf_path(tmp_path, 20), [4.0, 4.0], scenario=1)
    for seed, (agent, rand) in enumerate(((7.0, 10.0), (6.0, 10.0))):
        for name in ("image", "compact"):
            _trials(ml.eval_path(ml.run_dir(tmp_path, 20, name, 1, seed)), [agent - 1, agent + 1])
            _trials(ml.eval_path(ml.run_dir(ml.reference_root(tmp_path, "random"), 20, name, 1, seed)),
                    [rand, rand] if name == "image" else [8.0, 8.0])
        # the untrained networks of seed 1 are not played yet: a gap, never a number
        if seed == 0:
            for name in ("image", "compact"):
                _trials(ml.eval_path(ml.run_dir(ml.reference_root(tmp_path, "untrained"), 20, name, 1, seed)), [13.0])
    # uniform play over all actions: seed 0 only (seed 1's rows missing: a gap)
    _trials(ml.uniform_path(tmp_path, 20), [16.0, 16.0], scenario=1, seed=0)
    long, gaps = long_table(spec, tmp_path)
    scored = scores(long)
    got = scored.set_index(["player", "seed"])["normalised"]
    assert set(scored["workload"]) == {"scenario 1"} and set(scored["anchor"]) == {"ok"}
    assert got[("uniform over all actions", 0)] == pytest.approx(-1.0)
    assert got[("random valid in image-like", 0)] == 0.0 and got[("SJF", 0)] == 1.0
    assert got[("PPO image-like", 0)] == pytest.approx(0.5) and got[("PPO compact", 1)] == pytest.approx(4 / 6)
    assert got[("untrained compact", 0)] == pytest.approx(-0.5)
    # random valid play in another MDP is scored, but the 0 is the image-like MDP's alone
    roles = scored.drop_duplicates("player").set_index("player")["role"]
    assert roles["random valid in image-like"] == "random" and roles["random valid in compact"] == "reference"
    assert got[("random valid in compact", 0)] == pytest.approx(1 / 3)
    text = "\n".join(f"{g['player']}: {g['gap']}" for g in gaps)
    assert "untrained image-like:" in text and "seed1" in text and "agents at H 60" in text
    assert "uniform over all actions:" in text and "scenario 1, seed 1" in text
    assert "paper's agents (placed): not placed: the paper reports no heuristic" in text


def test_sem_reader_on_a_tiny_results_tree(tmp_path, capsys):
    import json

    from schedrl.papers.sem.normalised import long_table

    root = tmp_path / "results" / "sem" / "agents"

    def test(folder, wait, stand_in=False):
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "test.json").write_text(json.dumps({"mean_wait": wait, "mean_slowdown": 2.0, "stand_in": stand_in}))

    for enc, agent in (("dras", 600.0), ("sem", 400.0)):
        test(root / "theta" / enc, agent)
        test(root / "theta" / enc / "seeds" / "1", agent + 100)
        test(root / "theta" / enc / "ref_random", 1000.0 if enc == "dras" else 900.0)
        test(root / "theta" / enc / "seeds" / "1" / "ref_random", 1000.0 if enc == "dras" else 900.0)
        test(root / "theta" / enc / "ref_untrained", 1200.0)
        test(root / "theta" / enc / "process_dras", 800.0)
    pd.DataFrame({"method": ["FCFS+EASY", "SJF+EASY"], "mean_wait": [500.0, 200.0]}).to_csv(
        root / "theta" / "heuristics.csv", index=False)
    test(root / "datastar" / "sem", 50.0, stand_in=True)  # no heuristics, no references yet
    spec = {"agents": {"traces": ["theta", "datastar"], "seed": 0, "extra_seeds": [1],
                       "extra_processes": {"theta": ["dras"]}}}
    long, gaps = long_table(spec, root)
    scored = scores(long)
    theta = scored[scored["workload"] == "theta"].set_index(["player", "seed"])["normalised"]
    assert theta[("random valid in DRAS's encoding", 0)] == 0.0 and theta[("SJF+EASY", 0)] == 1.0
    assert theta[("SEM agent", 0)] == pytest.approx(0.75) and theta[("DRAS agent", 1)] == pytest.approx(0.375)
    assert theta[("random valid in SEM's encoding", 1)] == pytest.approx(0.125)  # a reference, not the 0
    assert theta[("SEM agent (DRAS's process)", 0)] == pytest.approx(0.25)
    # the stand-in trace is named so, and without random play or a heuristic it has no scale
    assert set(scored.loc[scored["workload"] == "datastar (stand-in)", "anchor"]) == {"no-anchor"}
    text = "\n".join(f"{g['player']}: {g['gap']}" for g in gaps)
    assert "untrained DRAS:" in text and "seeds/1/ref_untrained" in text and "datastar/heuristics.csv missing" in text
    assert "agents (placed): not placed: the paper reports no heuristic beside its agents" in text
    agg = aggregate(scored, reps=50, scale="smoke").set_index("player")
    assert agg.loc["SEM agent", "workloads"] == 1 and agg.loc["SEM agent", "no_random_workloads"] == 1


def test_cli_reads_the_papers_with_the_config_scale(tmp_path, monkeypatch, capsys):
    import json

    from schedrl.cli import main

    root = tmp_path / "results" / "sem" / "agents" / "theta"
    for folder, wait in ((root / "dras", 600.0), (root / "dras" / "ref_random", 1000.0)):
        folder.mkdir(parents=True)
        (folder / "test.json").write_text(json.dumps({"mean_wait": wait}))
    pd.DataFrame({"method": ["FCFS+EASY"], "mean_wait": [200.0]}).to_csv(root / "heuristics.csv", index=False)
    monkeypatch.chdir(tmp_path)
    config = {"scale": "paper-budget", "sem": {"agents": {"traces": ["theta"], "seed": 0}}}
    assert main(["normalised", "--paper", "sem", "--config-json", json.dumps(config), "--reps", "20",
                 "--out-dir", "out"]) == 0
    agg = pd.read_csv(tmp_path / "out" / "aggregate.csv").set_index("player")
    assert set(agg["scale"]) == {"paper-budget"} and agg.loc["DRAS agent", "mean"] == pytest.approx(0.5)
    assert "(paper-budget scale)" in capsys.readouterr().out


# -- the papers' own agents, placed by their ratio to the paper's heuristic (issue 68, item 3) -------
def _placement(workload, value, heuristics, player="paper agent", paper="p"):
    return {"paper": paper, "workload": workload, "player": player, "value": value, "heuristics": heuristics,
            "source": "Table X"}


def _placed_score(long, placements):
    from schedrl.report.normalised import with_authors

    long, gaps = with_authors(pd.DataFrame(long), [], placements)
    scored = scores(long)
    return scored[scored["role"] == "authors"].set_index(["workload", "player"]), gaps


def test_placement_lower_is_better_by_hand():
    from schedrl.report.normalised import placed_value

    # paper: agent 3.9, its SJF 4.9 (r = 0.7959); ours: random 10, SJF 4 (best), FCFS 6
    # placed = 0.7959 * 4 = 3.1837; normalised = (3.1837 - 10) / (4 - 10) = 1.1361
    assert placed_value(3.9, 4.9, 4.0) == pytest.approx(3.9 / 4.9 * 4)
    got, gaps = _placed_score(_rows("w", "lower", 10.0, {"SJF": 4.0, "FCFS": 6.0}, {}),
                              [_placement("w", 3.9, {"SJF": 4.9}), _placement("w", 4.9, {"SJF": 4.9}, "equal")])
    assert not gaps
    row = got.loc[("w", "paper agent (placed)")]
    assert row["value"] == pytest.approx(3.183673, abs=1e-6)
    assert row["normalised"] == pytest.approx((3.9 / 4.9 * 4 - 10) / (4 - 10))
    assert row["normalised"] == pytest.approx(1.136054, abs=1e-6)
    assert got.loc[("w", "equal (placed)"), "normalised"] == pytest.approx(1.0)  # equal to its heuristic: 1
    assert row["placed_from"].startswith("Table X: paper 3.9 / its SJF 4.9 = 0.7959 x our SJF 4; the same heuristic")


def test_placement_higher_is_better_by_hand():
    # paper: agent 0.78, its FCFS w/ BF 0.75 (r = 1.04); ours: random 0.5, FCFS w/ BF 0.9 (best)
    # placed = 1.04 * 0.9 = 0.936; normalised = (0.936 - 0.5) / (0.9 - 0.5) = 1.09
    got, _ = _placed_score(_rows("w", "higher", 0.5, {"FCFS w/ BF": 0.9, "SJF": 0.7}, {}),
                           [_placement("w", 0.78, {"FCFS w/ BF": 0.75, "SJF": 0.80})])
    row = got.loc[("w", "paper agent (placed)")]
    assert row["value"] == pytest.approx(0.936) and row["normalised"] == pytest.approx(1.09)
    # the paper's own value of OUR best heuristic is used, not the paper's best (SJF 0.80 there)
    assert "its FCFS w/ BF 0.75" in row["placed_from"] and "the same heuristic" in row["placed_from"]


def test_placement_from_an_improvement_percentage_by_hand():
    from schedrl.report.normalised import improvement_ratio

    assert improvement_ratio(41, "lower") == pytest.approx(0.59)
    assert improvement_ratio(10, "higher") == pytest.approx(1.10)
    # 41% below the paper's FCFS; ours: random 12, GA 4 (best), FCFS 10: placed 0.59 * 4 = 2.36,
    # normalised (2.36 - 12) / (4 - 12) = 1.205; FCFS is not our best, so the note says whose it is
    got, _ = _placed_score(_rows("w", "lower", 12.0, {"GA": 4.0, "FCFS": 10.0}, {}),
                           [_placement("w", improvement_ratio(41, "lower"), {"FCFS": 1.0})])
    row = got.loc[("w", "paper agent (placed)")]
    assert row["value"] == pytest.approx(2.36) and row["normalised"] == pytest.approx(1.205)
    assert "the paper's best heuristic (ours best: GA)" in row["placed_from"]
    # higher is better: 10% above the paper's heuristic; ours random 0.5, best 0.8 -> 0.88 -> 1.2667
    got, _ = _placed_score(_rows("w", "higher", 0.5, {"FCFS": 0.8}, {}),
                           [_placement("w", improvement_ratio(10, "higher"), {"FCFS": 1.0})])
    assert got.loc[("w", "paper agent (placed)"), "normalised"] == pytest.approx((0.88 - 0.5) / 0.3)


def test_placement_without_a_workload_or_heuristic_of_ours_is_a_gap():
    from schedrl.report.normalised import NormalisedError, placed_value

    rows = _rows("w", "lower", 10.0, {"SJF": 4.0}, {}) + _rows("bare", "lower", 10.0, {}, {})
    got, gaps = _placed_score(rows, [_placement("elsewhere", 3.0, {"SJF": 4.0}), _placement("bare", 3.0, {"SJF": 4.0})])
    assert got.empty
    text = "\n".join(g["gap"] for g in gaps)
    assert "the paper's elsewhere (Table X) is not a workload of ours" in text
    assert "not placed on bare: no heuristic of ours played there yet" in text
    with pytest.raises(NormalisedError, match="positive"):
        placed_value(3.0, 0.0, 4.0)


def test_placed_rows_aggregate_and_the_report_says_where_they_land():
    from schedrl.report.normalised import where_rl_stands, with_authors

    rows = _rows("w1", "lower", 10.0, {"SJF": 4.0}, {"ppo": [7.0]}) + _rows("w2", "lower", 8.0, {"SJF": 2.0}, {})
    rows += [{**rows[0], "workload": w, "player": "uniform", "role": "uniform", "value": v}
             for w, v in (("w1", 12.0), ("w2", 11.0))]
    long, gaps = with_authors(pd.DataFrame(rows), [], [_placement("w1", 4.9, {"SJF": 4.9}),
                                                        _placement("w2", 4.0, {"SJF": 2.0})])
    agg = aggregate(scores(long), reps=50)
    row = agg.set_index("player").loc["paper agent (placed)"]
    assert row["role"] == "authors" and row["workloads"] == 2
    assert row["mean"] == pytest.approx((1.0 + (4.0 - 8.0) / (2.0 - 8.0)) / 2)  # 1 and 2/3
    gap_rows = pd.DataFrame([{"paper": "q", "player": "q's agents (placed)", "gap": "not placed: no heuristic"}])
    text = where_rl_stands(agg, gap_rows)
    assert "placed, not measured" in text
    assert "- **p**: placed from the paper's own numbers, mean normalised score paper agent 0.83 " \
           "(above random valid play's 0, above uniform play's -0.42; 2 workload(s))." in text
    assert "- **q**: no paper agent placed: not placed: no heuristic." in text


def test_cli_keeps_the_placed_from_note(tmp_path):
    from schedrl.cli import main
    from schedrl.report.normalised import with_authors

    long, _ = with_authors(_two_workloads(), [], [_placement("w1", 4.9, {"SJF": 4.9})])
    path = tmp_path / "long.csv"
    long.to_csv(path, index=False)
    assert main(["normalised", "--long", str(path), "--reps", "20", "--out-dir", str(tmp_path / "out")]) == 0
    for name in ("long.csv", "scores.csv"):
        out = pd.read_csv(tmp_path / "out" / name).set_index("player")
        assert out.loc["paper agent (placed)", "placed_from"].startswith("Table X: paper 4.9 / its SJF 4.9")
    scored = pd.read_csv(tmp_path / "out" / "scores.csv").set_index("player")
    assert scored.loc["paper agent (placed)", "normalised"] == 1.0


# -- per paper: the reported agents, from a paper_values excerpt, on a tiny long table ----------------
def test_deeprm_places_the_reports_agents_against_its_sjf():
    from schedrl.papers.deeprm.normalised import placements

    values = {"discrete-image.a2c.mean_slowdown": 3.9, "discrete-image.trpo.mean_slowdown": 4.0,
              "discrete-image.sjf.mean_slowdown": 4.9, "discrete-stacked.dqn.mean_slowdown": 3.8,
              "discrete-stacked.sjf.mean_slowdown": 2.9}
    # ours on discrete-image rate 0.7: random valid 20, SJF 10, Packer 8 (best); discrete-stacked not played
    rows = _rows("discrete-image rate 0.7", "lower", 20.0, {"SJF": 10.0, "Packer": 8.0}, {}, paper="deeprm",
                 metric="mean_slowdown")
    got, gaps = _placed_score(rows, placements(values))
    a2c = got.loc[("discrete-image rate 0.7", "report's A2C (placed)")]
    assert a2c["value"] == pytest.approx(3.9 / 4.9 * 8)  # the report has no Packer slowdown: its SJF
    assert a2c["normalised"] == pytest.approx((3.9 / 4.9 * 8 - 20) / (8 - 20))
    assert "Fig. 5.3" in a2c["placed_from"] and "ours best: Packer" in a2c["placed_from"]
    assert got.loc[("discrete-image rate 0.7", "report's TRPO (placed)"), "value"] == pytest.approx(4.0 / 4.9 * 8)
    assert [g["player"] for g in gaps] == ["report's DQN (placed)"]  # discrete-stacked rate 0.7 not in ours


def test_runtime_places_table6_same_tendency_cells_against_table4():
    from schedrl.papers.runtime.normalised import placements

    values = {"table4": {"columns": ["sjf:none", "sjf:easy", "fcfs:none", "fcfs:easy"],
                         "rows": {"wl1_100b": [0.64, 0.78, 0.57, 0.75], "wl1_050b": [0.46, 0.49, 0.55, 0.53]}},
              "table6": {"columns": ["baseline", "proposal_nn1", "proposal_nn2"],
                         "rows": {"wl1_100a": {"wl1_100b": [0.74, 0.71, 0.72], "wl1_050b": [0.47, 0.46, 0.47]},
                                  "wl1_050a": {"wl1_100b": [0.72, 0.70, 0.72], "wl1_050b": [0.49, 0.49, 0.48]}}},
              "table5": {"columns": ["baseline"], "rows": {"wl1_100a": [0.67]}}}
    rows = []
    for draw, (rand, best) in enumerate(((0.6, 0.8), (0.5, 0.9))):
        rows += _rows(f"wl1_100b draw {draw}", "higher", rand, {"SJF w/ BF": best, "FCFS": 0.55}, {},
                      paper="runtime", metric="utilization")
    placed, unplaced = placements(values, {r["workload"] for r in rows})
    got, gaps = _placed_score(rows, placed)
    # wl1_100a -> wl1_100b only (same tendency); on each draw, baseline 0.74 / SJF w/ BF 0.78 x ours
    base0 = got.loc[("wl1_100b draw 0", "paper's Baseline (placed)")]
    assert base0["value"] == pytest.approx(0.74 / 0.78 * 0.8)
    assert base0["normalised"] == pytest.approx((0.74 / 0.78 * 0.8 - 0.6) / (0.8 - 0.6))
    assert got.loc[("wl1_100b draw 1", "paper's Proposal (NN1) (placed)"), "value"] == pytest.approx(0.71 / 0.78 * 0.9)
    assert "Table 6 (wl1_100a -> wl1_100b) against Table 4 (wl1_100b)" in base0["placed_from"]
    assert len(got) == 6  # 3 methods x 2 draws
    # wl1_050a's own half wl1_050b is not in this long table: a gap per method, never another half
    assert sorted(g["player"] for g in gaps) == ["paper's Baseline (placed)", "paper's Proposal (NN1) (placed)",
                                                 "paper's Proposal (NN2) (placed)"]
    assert "Table 5" in unplaced[0]["player"] and "'a' halves" in unplaced[0]["gap"]


def test_mrsch_places_its_largest_gain_over_fcfs_on_s5():
    from schedrl.papers.mrsch.normalised import placements

    values = {"fig6.slowdown_reduction_max": 0.41, "fig10.slowdown_reduction_max": 0.34}
    rows = _rows("S5", "lower", 12.0, {"FCFS": 10.0, "GA re-planning": 4.0}, {}, paper="mrsch",
                 metric="mean_slowdown")
    placed, unplaced = placements(values)
    got, gaps = _placed_score(rows, placed)
    assert not gaps
    row = got.loc[("S5", "paper's MRSch, largest slowdown gain over FCFS (S1-S5) (placed)")]
    assert row["value"] == pytest.approx(0.59 * 4.0) and row["normalised"] == pytest.approx(1.205)
    assert "up to 41% below FCFS" in row["placed_from"] and "ours best: GA re-planning" in row["placed_from"]
    text = "\n".join(g["gap"] for g in unplaced)
    assert "'up to 34%' (section V-E) names no workload of S6-S10" in text
    assert "no per-workload slowdown" in text


@pytest.mark.parametrize("runs", [(3, 3), (1, 5), (4, 2)])
def test_probability_of_improvement_is_rliables_value(runs):
    """The pairwise count gives rliable's Mann-Whitney value, with ties (rounded scores) and without,
    and 0.5 where both players' runs are the same."""
    _, metrics = _rliable()
    rng = np.random.default_rng(sum(runs))
    for decimals in (None, 1):
        x, y = rng.normal(size=(runs[0], 6)), rng.normal(0.3, size=(runs[1], 6))
        if decimals is not None:
            x, y = x.round(decimals), y.round(decimals)
        assert probability_of_improvement(x, y) == pytest.approx(metrics.probability_of_improvement(x, y), abs=1e-12)
    same = rng.normal(size=(runs[0], 4))
    assert probability_of_improvement(same, same) == metrics.probability_of_improvement(same, same) == 0.5


@pytest.mark.parametrize("shape", [(1, 1), (1, 9), (3, 4), (5, 7)])
def test_iqm_is_rliables_value_bit_for_bit(shape):
    _, metrics = _rliable()
    x = np.random.default_rng(shape[1]).normal(size=shape)
    assert iqm(x) == metrics.aggregate_iqm(x)
    assert iqm(x.round(1)) == metrics.aggregate_iqm(x.round(1))
