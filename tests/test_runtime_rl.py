"""The runtime paper's RL part: claim counting (checked on the paper's own cells), the tuning rule,
Table 5/6 frames, spec checks, and one tiny train -> evaluate -> tables -> claims run."""

import json

import numpy as np
import pandas as pd
import pytest

from schedrl.errors import ConfigError
from schedrl.papers.runtime import claims, figures, intervals, tables
from schedrl.papers.runtime import experiments as rx

SPEC = {"nodes": 256, "table4": {"sim_step": 60},
        "env": {"jobs_window": 100, "sim_step": 60, "max_steps": 10000, "time_scale": 21600},
        "agents": {"methods": list(rx.METHODS), "workloads": rx.TRAIN_WORKLOADS,
                   "grid": {"n_steps": [512], "batch_size": [512], "n_epochs": [4]}, "steps": 1000, "seeds": [0]},
        "evaluate": {"episodes": 5, "seed": 1000, "deterministic": False, "max_steps": 100000,
                     "estimators": ["actual", "running_accuracy", "request"]}}


def test_counts_on_the_papers_cells_give_the_papers_counts():
    t5, t6, t4 = claims.paper_table5(), claims.paper_table6(), claims.paper_table4()
    # the text's counts are the printed cells' counts with ties; no count of ours lets a tie win
    assert claims.rl_vs_heuristics(t5, t4, "ours", ties=True) == (14, 0, 18)   # section 6.1: 14/18, never BF
    assert claims.rl_vs_heuristics(t5, t4, "ours") == (13, 0, 18)
    assert claims.nn2_vs_nn1(t6, "ours", ties=True) == (30, 36)                 # section 6.2: 30/36
    assert claims.nn2_vs_nn1(t6, "ours") == (22, 36)                            # 8 of the 30 are ties
    assert claims.proposal_gain(t6, "ours") == (0, 6)    # section 6.2: no gain on any workload
    assert claims.same_tendency_best(t6, "ours", ties=True) == (11, 18)   # the text says 7 (see claims.py)
    assert claims.same_tendency_best(t6, "ours") == (5, 18)
    assert claims.rl_vs_weaker_backfilling(t5, t4, "ours") == (2, 18)   # the YAML's old reading
    per = claims.below_heuristics_other(t6, t4, "ours")                # section 6.1: 10/75, 1 vs 9
    assert per == {"baseline": (1, 25), "proposal_nn1": (7, 25), "proposal_nn2": (2, 25)}
    assert claims.wl1_050b_below(t6, t4, "ours") == (18, 18)
    assert claims.same_tendency_between(t6, t4, "ours") == (15, 15)
    rows = {r["claim_id"]: r for r in claims.rl_claims(t5.assign(paper=t5["ours"], diff=0.0), t4,
                                                        t6.assign(paper=t6["ours"], diff=0.0))}
    assert rows["same_tendency_best"]["paper_value"] == "5/18"             # the paper's cells by our rule
    assert "text says 7/18" in rows["same_tendency_best"]["note"]
    assert rows["nn2_beats_nn1"]["paper_value"] == "22/36" and "text says 30/36" in rows["nn2_beats_nn1"]["note"]
    assert "with ties counted the paper's cells give 30/36, ours 30/36" in rows["nn2_beats_nn1"]["note"]
    assert all(r["verdict"] == "reproduced" for k, r in rows.items()), rows


def test_counting_rules_by_hand():
    t4 = pd.DataFrame({"sjf:none": [0.50], "sjf:easy": [0.70], "fcfs:none": [0.52], "fcfs:easy": [0.60]},
                      index=["wl1_100a"])
    t5 = pd.DataFrame({"workload": ["wl1_100a"] * 3, "method": list(rx.METHODS), "ours": [0.521, 0.5249, 0.71]})
    # 0.521 -> 0.52 ties FCFS (a win only with ties); 0.5249 -> 0.52; 0.71 beats both and the better BF (0.70)
    assert claims.rl_vs_heuristics(t5, t4, "ours") == (1, 1, 3)
    assert claims.rl_vs_heuristics(t5, t4, "ours", ties=True) == (3, 1, 3)
    t6 = pd.DataFrame({"train": ["wl1_100a", "wl1_100a", "wl1_050a", "wl1_050a"] * 3,
                       "test": ["wl1_100b", "wl1_050b"] * 6,
                       "method": [m for m in rx.METHODS for _ in range(4)],
                       "ours": [.70, .40, .60, .50,   .71, .45, .65, .45,   .75, .44, .64, .46]})
    assert claims.nn2_vs_nn1(t6, "ours") == (2, 4)       # .75>=.71, .44<.45, .64<.65, .46>=.45
    # columns (test, method): wl1_100b topped by wl1_100a for all 3; wl1_050b by wl1_050a for baseline
    # and NN2 (0.50 > 0.40, 0.46 > 0.44) but not NN1 (0.45 ties 0.45: counts only with ties)
    assert claims.same_tendency_best(t6, "ours", ties=True) == (6, 6)
    # same tendency: wl1_100a->wl1_100b best proposal .75 vs baseline .70 (gain); wl1_050a->wl1_050b .46 vs .50
    assert claims.proposal_gain(t6, "ours") == (1, 2)
    # without ties: wl1_050b/NN1 (0.45 = 0.45) no longer counts
    assert claims.same_tendency_best(t6, "ours", ties=False) == (5, 6)


def test_section_6_1_counts_by_hand():
    t4 = pd.DataFrame({"sjf:none": [0.60, 0.46], "sjf:easy": [0.70, 0.49], "fcfs:none": [0.57, 0.55],
                       "fcfs:easy": [0.75, 0.53]}, index=["wl1_100b", "wl1_050b"])
    t6 = pd.DataFrame({"train": ["wl1_100a", "wl2_100a", "wl1_100a", "wl2_100a"],
                       "test": ["wl1_100b", "wl1_100b", "wl1_050b", "wl1_050b"],
                       "method": ["baseline", "proposal_nn1", "baseline", "proposal_nn1"],
                       "ours": [0.72, 0.596, 0.50, 0.56]})
    # wl2_100a -> wl1_100b is the only different-tendency cell off WL1_050b: 0.596 -> 0.60 ties SJF (not below)
    assert claims.below_heuristics_other(t6, t4, "ours") == {"proposal_nn1": (0, 1)}
    assert claims.below_heuristics_other(t6.assign(ours=[0.72, 0.59, 0.5, 0.56]), t4, "ours") == {"proposal_nn1": (1, 1)}
    assert claims.wl1_050b_below(t6, t4, "ours") == (1, 2)          # 0.50 < 0.55; 0.56 is not
    # same tendency wl1_100a -> wl1_100b: 0.60 < 0.72 < 0.75 (the better BF)
    assert claims.same_tendency_between(t6, t4, "ours") == (1, 1)
    assert claims.split_verdict(((1, 25), (9, 50)), ((1, 25), (9, 50))) == "reproduced"
    assert claims.split_verdict(((5, 25), (9, 50)), ((1, 25), (9, 50))) == "not reproduced"
    assert claims.split_verdict(((0, 0), (9, 50)), ((1, 25), (9, 50))) == "not comparable"


def _evals():
    rows = []
    rng = np.random.default_rng(0)
    for m in rx.METHODS:
        for train in ("wl1_100a", "wl2_100a"):
            for grid, bonus in (("T512-M512-K4", 0.0), ("T1024-M512-K4", 0.05)):
                cases = [(train, "actual")] + [(t, "actual") for t in rx.TEST_WORKLOADS]
                if m != "baseline":
                    cases += [(rx.same_tendency(train), "running_accuracy"), (rx.same_tendency(train), "request")]
                for test, est in cases:
                    for ep in range(2):
                        u = 0.6 + bonus + (0.1 if test == rx.same_tendency(train) else 0) - (0.05 if est != "actual" else 0)
                        rows.append({"grid": grid, "train": train, "method": m, "test": test, "estimator": est,
                                     "episode": ep, "utilization": u + rng.normal(0, 0.001), "scheduled": 1.0})
    return pd.DataFrame(rows)


def test_tuning_picks_the_best_grid_point_on_the_training_half():
    evals = _evals()
    best = rx.best_grid(evals)
    assert len(best) == 6 and set(best["grid"]) == {"T1024-M512-K4"}
    assert set(rx.tuned(evals)["grid"]) == {"T1024-M512-K4"}


def test_table_frames():
    evals = _evals()
    heur = claims.paper_table4()
    t5 = tables.table5_frame(evals, heur)
    assert list(t5["workload"].unique()) == ["wl1_100a", "wl2_100a"] and len(t5) == 6
    row = t5[(t5["workload"] == "wl1_100a") & (t5["method"] == "baseline")].iloc[0]
    assert row["ours"] == pytest.approx(0.65, abs=0.01) and row["paper"] == 0.67 and row["runs"] == 2
    assert row["sjf:easy"] == 0.70
    t6 = tables.table6_frame(evals)
    assert len(t6) == 2 * 6 * 3 and t6["same_tendency"].sum() == 2 * 3
    cell = t6[(t6["train"] == "wl2_100a") & (t6["test"] == "wl1_050b") & (t6["method"] == "proposal_nn2")].iloc[0]
    assert cell["paper"] == 0.47
    sens = tables.sensitivity_frame(evals)
    kept = sens[(sens["method"] == "proposal_nn1") & (sens["estimator"] == "request")]["kept"]
    assert kept.iloc[0] == pytest.approx(0.70 / 0.75, abs=0.01)
    rows = claims.rl_claims(t5, heur, t6, sens)
    ids = [r["claim_id"] for r in rows]
    assert ids == ["table5_cells_within_tolerance", "table6_cells_within_tolerance", "rl_vs_heuristics",
                   "rl_vs_backfilling", "nn2_beats_nn1", "same_tendency_best", "proposal_gain",
                   "below_heuristics_other", "below_heuristics_split", "wl1_050b_below_heuristics",
                   "same_tendency_between", "sensitivity_online_predictor"]
    # with per-episode rows: intervals on the method comparisons
    rows = claims.rl_claims(t5, heur, t6, sens, evals=rx.tuned(evals))
    by = {r["claim_id"]: r for r in rows}
    for key in ("rl_vs_heuristics", "rl_vs_backfilling", "nn2_beats_nn1", "proposal_gain"):
        assert "[" in by[key]["ci95"] and "seed" in by[key]["note"], key
    assert "rl_vs_fit_heuristics" not in by  # the fit heuristics were not played
    fit = heur.assign(fcfs_fit=0.60, sjf_fit=0.62, largest_fit=0.64)
    by = {r["claim_id"]: r for r in claims.rl_claims(t5, fit, t6, sens, evals=rx.tuned(evals))}
    assert "[" in by["rl_vs_fit_heuristics"]["ci95"] and "seed" in by["rl_vs_fit_heuristics"]["note"]


def test_grid_and_spec_checks():
    assert [rx.grid_id(p) for p in rx.grid_points({"agents": {"grid": {"n_steps": [512, 1024], "batch_size": [512],
                                                                          "n_epochs": [4, 8]}}})] == \
        ["T512-M512-K4", "T512-M512-K8", "T1024-M512-K4", "T1024-M512-K8"]
    assert rx.parse_grid_id("T2048-M1024-K10") == {"n_steps": 2048, "batch_size": 1024, "n_epochs": 10}
    for bad in ("T2048-K10", "T1-M2-K3-X4", "T1-M2-Kx", "M1-T2-K3"):
        with pytest.raises(ConfigError, match="bad grid id"):
            rx.parse_grid_id(bad)
    rx.load_spec(json.dumps(SPEC))
    for path, value, message in ((("agents", "methods"), ["nn3"], "unknown method"),
                                 (("agents", "workloads"), ["wl1_100b"], "not a training half"),
                                 (("evaluate", "estimators"), ["actual", "psychic"], "unknown estimator"),
                                 (("evaluate", "estimators"), ["request"], "must start with 'actual'")):
        bad = json.loads(json.dumps(SPEC))
        bad[path[0]][path[1]] = value
        with pytest.raises(ConfigError, match=message):
            rx.load_spec(json.dumps(bad))
    with pytest.raises(ConfigError, match="no 'agents' section"):
        rx.load_spec(json.dumps({"nodes": 256}), agents=True)
    with pytest.raises(ConfigError, match="runtime.evaluate is required"):
        rx.load_spec(json.dumps({k: v for k, v in SPEC.items() if k != "evaluate"}))
    hp = rx.hyperparams("proposal_nn2", "T1024-M256-K8")
    assert hp["n_envs"] == 8 and (hp["n_steps"], hp["batch_size"], hp["n_epochs"]) == (1024, 256, 8)
    assert hp["policy_kwargs"]["shared_net"] == [2048, 512, 256]         # SB3 1.0's shared trunk (default)
    hp = rx.hyperparams("proposal_nn2", "T1024-M256-K8", "separate")
    assert hp["policy_kwargs"]["net_arch"] == {"pi": [2048, 512, 256], "vf": [2048, 512, 256]}
    with pytest.raises(ConfigError, match="actor_critic"):
        rx.hyperparams("baseline", "T512-M512-K4", "both")


def test_shared_trunk_is_one_network_for_actor_and_critic():
    import gymnasium as gym
    from stable_baselines3 import PPO

    from schedrl.agents.hyperparams import resolve_hyperparams

    env = gym.make("CartPole-v1")
    sizes = {}
    for mode in ("shared", "separate"):
        hp = rx.hyperparams("baseline", "T64-M64-K1", mode)
        hp["policy_kwargs"] = {**hp["policy_kwargs"], **({"shared_net": [32, 16]} if mode == "shared"
                                                          else {"net_arch": {"pi": [32, 16], "vf": [32, 16]}})}
        _, _, kwargs = resolve_hyperparams("ppo", {k: v for k, v in hp.items() if k not in ("n_envs", "vec_env")})
        model = PPO("MlpPolicy", env, seed=0, **kwargs)
        sizes[mode] = sum(p.numel() for p in model.policy.parameters())
        if mode == "shared":  # the action and value heads read the trunk's last layer
            assert model.policy.action_net.in_features == 16 and model.policy.value_net.in_features == 16
            assert model.policy.share_features_extractor
    # trunk 4*32+32 + 32*16+16 = 688; heads 17*2 + 17 = 51; separate: two trunks
    assert sizes["shared"] == 688 + 51 and sizes["separate"] == 2 * 688 + 51


def test_tiny_train_evaluate_tables_and_claims(tmp_path, monkeypatch):
    from schedrl.cli import main
    from schedrl.workloads.lublin import generate
    from schedrl.workloads.swf import write_swf

    monkeypatch.chdir(tmp_path)
    (tmp_path / "results/workloads/runtime").mkdir(parents=True)
    for w in rx.WORKLOADS:
        frame = generate(w[:3], 40, seed=0)
        write_swf(frame, tmp_path / rx.workload_file(w))
    spec = json.loads(json.dumps(SPEC))
    spec["agents"].update(methods=["baseline", "proposal_nn1"], workloads=["wl1_100a"], steps=64,
                          grid={"n_steps": [8], "batch_size": [32], "n_epochs": [1]})
    spec["evaluate"].update(episodes=1, max_steps=200)
    text = json.dumps(spec)
    for m in ("baseline", "proposal_nn1"):
        run = rx.run_dir(rx.ROOT, m, "wl1_100a", "T8-M32-K1", 0)
        assert main(["runtime", "train", "--spec", text, "--method", m, "--workload", "wl1_100a",
                     "--grid", "T8-M32-K1", "--seed", "0", "--run-dir", str(run)]) == 0
        assert main(["runtime", "evaluate", "--spec", text, "--run-dir", str(run), "--out", str(rx.eval_path(run))]) == 0
    ev = pd.read_csv(rx.eval_path(rx.run_dir(rx.ROOT, "proposal_nn1", "wl1_100a", "T8-M32-K1", 0)))
    assert len(ev) == 1 + 6 + 2 and set(ev["estimator"]) == set(rx.ESTIMATORS)
    assert ev["utilization"].between(0, 1).all()
    again = rx.evaluate(rx.run_dir(rx.ROOT, "proposal_nn1", "wl1_100a", "T8-M32-K1", 0), spec, tmp_path / "again.csv")
    pd.testing.assert_frame_equal(again, ev)               # seeded: the same episodes again
    # budget checkpoints play the first budget_episodes of each case's episodes, on the same seeds
    two = json.loads(json.dumps(spec))
    two["evaluate"].update(episodes=2, budget_episodes=1)
    assert rx.budget_episodes(two) == 1 and rx.budget_episodes(spec) == 1
    two["evaluate"]["budget_episodes"] = 7
    assert rx.budget_episodes(two) == 2                     # never more than the final evaluation's
    run = rx.run_dir(rx.ROOT, "proposal_nn1", "wl1_100a", "T8-M32-K1", 0)
    full, first = rx.evaluate(run, two, None), rx.evaluate(run, two, None, episodes=1)
    assert sorted(set(full["episode"])) == [0, 1] and set(first["episode"]) == {0} and len(first) == len(ev)
    key = ["test", "estimator"]
    assert first.set_index(key)["seed"].equals(full[full["episode"] == 0].set_index(key)["seed"])
    for w in rx.WORKLOADS:
        assert main(["heuristics", "run", rx.workload_file(w), "--label", w, "--nodes", "256", "--algorithms",
                     *rx.ALGORITHMS, "--sim-step", "60", "--out", rx.heuristics_file(w)]) == 0
    # issue 38: heuristics under the agent's action set, and the no-learning references in Tables 5-6

    assert main(["runtime", "fit-heuristics", "--spec", text, "--out", rx.fit_file(0)]) == 0
    assert main(["runtime", "evaluate-reference", "--spec", text, "--reference", "random", "--grid", "T8-M32-K1",
                 "--seed", "0"]) == 0
    for m in ("baseline", "proposal_nn1"):
        assert main(["runtime", "evaluate-reference", "--spec", text, "--reference", "untrained", "--method", m,
                     "--grid", "T8-M32-K1", "--seed", "0"]) == 0
    for name in ("table5", "table6", "curves", "sensitivity"):
        assert main(["runtime", "figure", name, "--spec", text, "--out", f"figures/{name}.png"]) == 0
    assert (tmp_path / "figures/table6.md").exists() and (tmp_path / "figures/table5.md").exists()
    t5 = pd.read_csv(tmp_path / "figures/table5.csv")
    assert {"random", "untrained", "fcfs_fit", "sjf_fit", "largest_fit"} <= set(t5.columns)
    assert t5[["random", "untrained", "largest_fit"]].notna().all().all()
    md = (tmp_path / "figures/table5.md").read_text()
    assert "No-learning references" in md and "largest first fit" in md
    assert "No-learning references" in (tmp_path / "figures/table6.md").read_text()
    assert {"random", "untrained"} <= set(pd.read_csv(tmp_path / "figures/table6.csv").columns)
    assert main(["runtime", "claims", "--spec", text, "--out", "claims.csv"]) == 0
    table = pd.read_csv(tmp_path / "claims.csv")
    assert {"table4_cells_within_tolerance", "rl_vs_heuristics", "nn2_beats_nn1", "proposal_gain",
            "rl_vs_fit_heuristics", "fit_vs_backfilling"} <= set(table["claim_id"])
    assert table.set_index("claim_id").loc["nn2_beats_nn1", "ours"] == "0/0"   # no NN2 run: nothing to count
    assert main(["runtime", "train", "--spec", text, "--method", "nn3", "--workload", "wl1_100a", "--grid",
                 "T8-M32-K1", "--seed", "0", "--run-dir", "x"]) != 0


def test_curves_average_episodes_ending_at_one_step_and_draw_a_note_without_episodes(tmp_path):
    base = tmp_path / "agents"
    full = base / "baseline" / "wl1_100a" / "T8-M32-K1" / "seed0" / "learning_curve.csv"
    empty = base / "baseline" / "wl1_050a" / "T8-M32-K1" / "seed0" / "learning_curve.csv"
    for path in (full, empty):
        path.parent.mkdir(parents=True)
    pd.DataFrame({"timesteps": [80, 80, 160], "env": [0, 1, 0], "reward": [1.0, 2.0, 2.5],
                  "length": [10, 10, 20]}).to_csv(full, index=False)
    pd.DataFrame(columns=["timesteps", "env", "reward", "length"]).to_csv(empty, index=False)
    figures.curves([full, empty], tmp_path / "curves.png", window=1)
    drawn = pd.read_csv(tmp_path / "curves.csv")   # save_figure writes the drawn data beside the png
    assert drawn["timesteps"].tolist() == [80, 160] and drawn["reward"].tolist() == [1.5, 2.5]
    assert drawn["episodes"].tolist() == [2, 1] and set(drawn["seed"]) == {"seed0"}
    figures.curves([empty], tmp_path / "none.png")  # no episode finished anywhere: a note, no error
    assert (tmp_path / "none.png").exists()


def test_cost_model(capsys):
    from schedrl.cli import main
    from schedrl.config import load_yaml

    cost = {name: rx.estimate_core_hours(rx.load_spec(json.dumps(load_yaml(f"config/{name}.yaml")["runtime"])))
            for name in ("smoke", "config", "paper")}
    assert [cost[n]["runs"] for n in cost] == [3 * 2, 18 * 3, 3 * 75 * 6]     # smoke 2 draws, default 3
    assert sum(cost["smoke"].values()) - cost["smoke"]["runs"] < 0.1           # minutes
    total = sum(cost["config"][k] for k in ("train", "evaluate", "budget"))
    assert 1.0 < total <= 5.0                                                     # the default's 5 core-hours
    assert cost["config"]["budget"] <= 0.15 * total                               # checkpoints: <= 15%
    assert sum(cost["config"][k] for k in ("train", "evaluate", "budget", "references")) <= 4.8  # ~0.1 more: Table 4
    # ... and on the slower machine kind too (Table 4 and the figures included): the 5 core-hour
    # budget, which ends inside one 3-hour session on 2 cores (~2.6 h at the parallelism of 1.9 measured)
    assert (sum(cost["config"][k] for k in ("train", "evaluate", "budget", "references")) + 0.1) * rx.SLOWER_MACHINE[1] <= 5.0
    # 54 runs: 18 per method, each its steps at the method's measured rate
    steps = load_yaml("config/config.yaml")["runtime"]["agents"]["steps"]
    assert cost["config"]["train"] == pytest.approx(18 * steps * sum(1 / r for r in rx.TRAIN_STEPS_PER_S.values()) / 3600)
    # Table 3's grid: a point of K epochs costs its rollout plus K epochs of the update per step, so
    # K 8 and 10 above the K 4 rate, priced per point (the paper scale's 75 points per half)
    assert all(rx.epochs_factor(m, 4) == 1.0 < rx.epochs_factor(m, 8) < rx.epochs_factor(m, 10) for m in rx.METHODS)
    paper = load_yaml("config/paper.yaml")["runtime"]["agents"]
    assert cost["paper"]["train"] == pytest.approx(
        6 * paper["steps"] * 25 * sum(rx.epochs_factor(m, k) / rx.TRAIN_STEPS_PER_S[m]
                                      for m in rx.METHODS for k in paper["grid"]["n_epochs"]) / 3600)
    assert cost["paper"]["train"] > 75 * 6 * paper["steps"] * sum(1 / r for r in rx.TRAIN_STEPS_PER_S.values()) / 3600
    # evaluation: 7 oracle cases per agent, the two proposals 2 estimator cases more; 5 episodes each
    rates = rx.EVAL_STEPS_PER_S
    assert cost["config"]["evaluate"] == pytest.approx(
        18 * 5 * rx.EVAL_STEPS_PER_EPISODE * (7 / rates["baseline"] + 9 / rates["proposal_nn1"] + 9 / rates["proposal_nn2"])
        / 3600)
    # checkpoints: draw 0's 6 runs per method, 3 checkpoints x 7 cases x 1 episode
    brates = rx.BUDGET_STEPS_PER_S
    assert cost["config"]["budget"] == pytest.approx(6 * 3 * 7 * 1 * rx.EVAL_STEPS_PER_EPISODE * sum(
        1 / r for r in brates.values()) / 3600)
    # references, one play per group and draw: random on the 12 halves, uniform on the 6 'b' halves
    # (at random's cost, an upper bound); untrained baseline 12 cases, each proposal 12 + 6 x 2
    # estimator cases
    refs = 3 * 5 * ((12 + 6) * rx.RANDOM_STEPS_PER_EPISODE / rx.RANDOM_STEPS_PER_S + rx.EVAL_STEPS_PER_EPISODE * (
        12 / rates["baseline"] + 24 / rates["proposal_nn1"] + 24 / rates["proposal_nn2"])) / 3600
    assert cost["config"]["references"] == pytest.approx(refs)
    assert main(["runtime", "cost", "--spec", "config/config.yaml"]) == 0
    assert "54 PPO runs" in capsys.readouterr().out


def test_draws_and_run_folders():
    assert rx.workload_file("wl1_100a") == "results/workloads/runtime/wl1_100a.swf"          # draw 0: Table 4's
    assert rx.workload_file("wl1_100a", 2) == "results/workloads/runtime/draw2/wl1_100a.swf"
    assert rx.heuristics_file("wl1_100b", 1) == "results/runtime/heuristics/draw1/wl1_100b.csv"
    assert rx.run_dir("r", "baseline", "wl1_100a", "T1-M1-K1", 3).name == "seed3"
    assert rx.run_dir("r", "baseline", "wl1_100a", "T1-M1-K1", 3, draw=2).name == "draw2-seed3"
    assert rx.parse_replicate("draw2-seed3") == (2, 3) and rx.parse_replicate("seed0") == (0, 0)
    for bad in ("draw0-seed1", "seed", "draw1seed1"):
        with pytest.raises(ConfigError, match="bad run folder"):
            rx.parse_replicate(bad)
    spec = json.loads(json.dumps(SPEC))
    spec["agents"].update(draws=[0, 1, 2], methods=["baseline"], workloads=["wl1_100a"])
    assert [r[4] for r in rx.runs(spec)] == [0, 1, 2] and rx.draws(SPEC) == [0]
    assert rx.run_variant("baseline", "wl1_100a", "T1-M1-K1", 1) == "runtime/baseline/wl1_100a/T1-M1-K1/draw1"
    assert rx.budget_steps(360_000) == [45_000, 90_000, 180_000]
    from schedrl.papers.runtime import budget

    assert rx.budget_draws(spec) == [0, 1, 2] and len(budget.budget_files(spec)) == 3
    spec["evaluate"] = {**spec["evaluate"], "budget_draws": [0]}
    assert rx.budget_draws(spec) == [0] and budget.budget_files(spec) == [str(budget.budget_path(rx.runs(spec)[0][-1]))]
    # the budget series is counted against its own draws' heuristics (schedrl runtime claims)
    from schedrl.commands.runtime import _heuristics_runs

    assert _heuristics_runs(spec, rx.ROOT, rx.budget_draws(spec)) == [rx.heuristics_file(w, 0) for w in rx.WORKLOADS]
    assert len(_heuristics_runs(spec, rx.ROOT)) == 3 * len(rx.WORKLOADS)
    spec["evaluate"]["budget_draws"] = [3]
    with pytest.raises(ConfigError, match=r"runtime.evaluate.budget_draws: draw 3 is not one of agents.draws"):
        rx.check_spec(spec)


def test_claims_at_budgets_and_intervals():
    from schedrl.papers.runtime import budget

    final = _evals().assign(run_seed=0, draw=0)
    # a checkpoint row set per fraction: utilisation grows with training
    ckpts = pd.concat([final[final["estimator"] == "actual"].assign(
        utilization=lambda d, f=f: d["utilization"] - 0.1 * (1 - f), fraction=f, budget=f * 1000)
        for f in (0.125, 0.25, 0.5)], ignore_index=True)
    evals = budget.with_final(final, ckpts, 1000)
    assert sorted(evals["fraction"].unique()) == [0.125, 0.25, 0.5, 1.0]
    fields, rows = budget.budget_rows(evals, claims.paper_table4())
    assert {"nn2_beats_nn1", "rl_vs_heuristics", "table5_cells_within_tolerance"} <= set(fields)
    assert fields["rl_vs_heuristics"]["at_budgets"].count(":") == 4
    assert fields["rl_vs_heuristics"]["converged"] in ("yes", "not converged at this scale")
    assert fields["rl_vs_heuristics"]["note"].startswith("at budgets: 2 episode(s) per cell at each")
    # checkpoints on the first of the final's episodes: the note says so, and the claims row carries it
    short = budget.with_final(final, ckpts[ckpts["episode"] == 0], 1000)
    note = budget.budget_rows(short, claims.paper_table4())[0]["rl_vs_heuristics"]["note"]
    assert note.startswith("at budgets: 1 episode(s) per cell at the checkpoints") and note.endswith("2 at all; the runs on Lublin draw(s) 0")
    # with_final(episodes=1): the whole-budget point on the same first episode as the checkpoints
    same = budget.with_final(final, ckpts[ckpts["episode"] == 0], 1000, episodes=1)
    assert set(same.loc[same["fraction"] == 1.0, "episode"]) == {0}
    assert len(same[same["fraction"] == 1.0]) == len(final[(final["estimator"] == "actual") & (final["episode"] == 0)])
    assert budget.budget_rows(same, claims.paper_table4())[0]["rl_vs_heuristics"]["note"].startswith(
        "at budgets: 1 episode(s) per cell at each")
    # evaluate.budget_draws: only draw 0's runs played checkpoints; the whole-budget point is theirs only
    both = pd.concat([final, final.assign(draw=1, utilization=final["utilization"] - 0.2)], ignore_index=True)
    one = budget.with_final(both, ckpts, 1000)
    assert set(one.loc[one["fraction"] == 1.0, "draw"]) == {0} and len(one) == len(evals)
    row = {"note": "x"}
    claims._add_budget(row, {"trend": "flat", "note": note})
    assert row == {"note": f"x; {note}", "trend": "flat"}
    frame = pd.DataFrame(rows)
    assert set(frame["fraction"]) == {0.125, 0.25, 0.5, 1.0} and set(frame["budget"]) == {125, 250, 500, 1000}
    # the budgets' counts are those of the final claims at fraction 1
    t5 = tables.table5_frame(final, claims.paper_table4())
    beats = claims.rl_vs_heuristics(t5, claims.paper_table4(), "ours")[0]
    last = frame[(frame["claim_id"] == "rl_vs_heuristics") & (frame["fraction"] == 1.0)]["value"].iloc[0]
    assert last == beats
    # intervals: NN2 vs NN1 paired on the same episodes; a one-sided win with a CI spanning 0 is guarded
    cis = intervals.comparison_cis(rx.tuned(final), claims.paper_table4())
    lo_hi = cis["nn2_beats_nn1"]["fields"]["ci95"]
    assert lo_hi.count("[") == 1
    assert cis["nn2_beats_nn1"]["guard"]("reproduced") in ("reproduced", "not reproduced")
    # a difference whose interval reaches zero is no win; above zero it stands
    assert intervals.no_win("reproduced", -0.001) == "not reproduced" == intervals.no_win("partly reproduced", 0.0)
    assert intervals.no_win("reproduced", 0.002) == "reproduced"
    assert "1 seed x 2 episodes per cell" in cis["nn2_beats_nn1"]["note"]


def test_fit_heuristics_claims_by_hand():
    # heuristics under the agent's action set as extra columns: one half where largest-first-fit
    # (0.95) is above the better backfilling variant (0.92), one where it is not
    t4 = pd.DataFrame({"sjf:none": [0.80, 0.50], "sjf:easy": [0.92, 0.60], "fcfs:none": [0.85, 0.52],
                       "fcfs:easy": [0.90, 0.61], "fcfs_fit": [0.93, 0.55], "sjf_fit": [0.90, 0.56],
                       "largest_fit": [0.95, 0.60]}, index=["wl2_100a", "wl1_100a"])
    row = claims.fit_vs_backfilling(t4)
    assert row["ours"] == "1/2" and "wl2_100a (largest_fit 0.95 vs 0.92)" in row["note"]
    t5 = pd.DataFrame({"workload": ["wl2_100a", "wl1_100a"], "method": ["baseline"] * 2, "ours": [0.951, 0.62],
                       "std": 0.0, "paper": np.nan, "diff": np.nan})
    rows = {r["claim_id"]: r for r in claims.rl_claims(t5, t4, None)}
    # 0.951 -> 0.95 ties largest-first-fit (no win); 0.62 is above 0.60
    assert rows["rl_vs_fit_heuristics"]["ours"] == "1/2" and rows["rl_vs_fit_heuristics"]["verdict"] == "not comparable"
