"""Runtime paper, issue 41: every evaluated agent's fingerprint, the no-learning references
(random valid play, the untrained network) played through the same evaluation, and the RL claims
counted again on them."""

import json
from pathlib import Path

import numpy as np
import pandas as pd

from schedrl.papers.runtime import claims, recording, references, tables
from schedrl.papers.runtime import experiments as rx

SPEC = {"nodes": 256, "table4": {"sim_step": 60},
        "env": {"jobs_window": 100, "sim_step": 60, "max_steps": 10000, "time_scale": 21600},
        "agents": {"methods": ["baseline", "proposal_nn1"], "workloads": ["wl1_100a"],
                   "grid": {"n_steps": [8], "batch_size": [32], "n_epochs": [1]}, "steps": 64, "seeds": [0]},
        "evaluate": {"episodes": 1, "seed": 1000, "deterministic": False, "max_steps": 200,
                     "estimators": ["actual", "running_accuracy", "request"]}}


def test_tiny_run_writes_fingerprints_references_and_claims_columns(tmp_path, monkeypatch):
    from schedrl.cli import main
    from schedrl.workloads.lublin import generate
    from schedrl.workloads.swf import write_swf

    monkeypatch.chdir(tmp_path)
    (tmp_path / "results/workloads/runtime").mkdir(parents=True)
    for w in rx.WORKLOADS:
        write_swf(generate(w[:3], 30, seed=0), tmp_path / rx.workload_file(w))
    text = json.dumps(SPEC)
    grid = "T8-M32-K1"
    for m in SPEC["agents"]["methods"]:
        run = rx.run_dir(rx.ROOT, m, "wl1_100a", grid, 0)
        assert main(["runtime", "train", "--spec", text, "--method", m, "--workload", "wl1_100a",
                     "--grid", grid, "--seed", "0", "--run-dir", str(run)]) == 0
        assert main(["runtime", "evaluate", "--spec", text, "--run-dir", str(run), "--out", str(rx.eval_path(run))]) == 0
        assert main(["runtime", "evaluate-reference", "--spec", text, "--reference", "untrained", "--method", m,
                     "--grid", grid, "--seed", "0"]) == 0
    assert main(["runtime", "evaluate-reference", "--spec", text, "--reference", "random", "--grid", grid,
                 "--seed", "0"]) == 0
    run = rx.run_dir(rx.ROOT, "proposal_nn1", "wl1_100a", grid, 0)
    fp = json.loads((run / "fingerprint.json").read_text())
    assert fp["kind"] == "trained" and fp["agent"] == "PPO Proposal (NN1) wl1_100a T8-M32-K1 draw 0 seed 0"
    assert fp["actions"] == "sampled from the policy" and fp["episodes"] == fp["cases"] == 1 + 6 + 2
    assert 0 < fp["contested"] <= fp["decisions"] and 0 < fp["chance"] < 1
    assert 0 <= fp["agree_fcfs"] <= 1 and fp["hidden_units"] > 0 and fp["entropy_median"] > 0
    assert 0 < fp["scored"] <= fp["contested"] and 0 <= fp["empty_slot_share"] <= 1
    # the references play the trained agent's cases and episode seeds
    trained = pd.read_csv(rx.eval_path(run))
    for ref in references.REFERENCES:
        played = pd.read_csv(rx.eval_path(references.reference_dir(rx.ROOT, ref, "proposal_nn1", "wl1_100a", grid, 0)))
        key = ["test", "estimator", "episode", "seed"]
        pd.testing.assert_frame_equal(played[key], trained[key])
        assert played["utilization"].between(0, 1).all()
    # one random play stands in for both methods: the same episodes; the estimator cases repeat the oracle's
    rnd_rows = {m: pd.read_csv(rx.eval_path(references.reference_dir(rx.ROOT, "random", m, "wl1_100a", grid, 0)))
                for m in SPEC["agents"]["methods"]}
    key = ["test", "episode", "utilization", "length"]
    base = rnd_rows["baseline"][key].reset_index(drop=True)
    pd.testing.assert_frame_equal(rnd_rows["proposal_nn1"][rnd_rows["proposal_nn1"]["estimator"] == "actual"][key]
                                  .reset_index(drop=True), base)
    by_estimator = rnd_rows["proposal_nn1"].groupby("estimator")["utilization"].apply(list)
    oracle = list(base[base["test"] == rx.same_tendency("wl1_100a")]["utilization"])
    assert by_estimator["request"] == by_estimator["running_accuracy"] == oracle
    assert set(rnd_rows["proposal_nn1"]["method"]) == {"proposal_nn1"}
    rnd = json.loads((references.group_dir(rx.ROOT, "random", "", grid, 0) / "fingerprint.json").read_text())
    assert rnd["actions"] == "uniform among the valid actions" and rnd["empty_slot_share"] == 0
    assert rnd["agent"] == f"random valid all halves {grid} draw 0 seed 0" and rnd["method"] == "any"
    assert "entropy_median" not in rnd                      # no scores of a random player
    assert abs(rnd["agree_fcfs"] - rnd["chance"]) < 0.1      # random agrees with FCFS by chance only
    assert main(["runtime", "fingerprints", "--spec", text, "--out", "results/runtime/fingerprints.csv"]) == 0
    table = pd.read_csv("results/runtime/fingerprints.csv")
    # per trained agent, per untrained network (method) and one random play
    assert len(table) == 2 + 2 + 1 and sorted(table["kind"]) == sorted(["trained", "untrained"] * 2 + ["random"])
    assert table["agent"].is_unique and {"method", "train", "grid", "seed", "draw", "agree_fcfs"} <= set(table.columns)
    # claims: RL rows carry the references' verdicts, Table 4 rows do not
    for w in rx.WORKLOADS:
        assert main(["heuristics", "run", rx.workload_file(w), "--label", w, "--nodes", "256", "--algorithms",
                     *rx.ALGORITHMS, "--sim-step", "60", "--out", rx.heuristics_file(w)]) == 0
    assert main(["runtime", "claims", "--spec", text, "--out", "claims.csv"]) == 0
    rows = pd.read_csv("claims.csv", dtype=str, keep_default_na=False).set_index("claim_id")
    assert rows.loc["rl_vs_heuristics", "random_verdict"] and rows.loc["rl_vs_heuristics", "untrained_verdict"]
    assert "no-learning references: random play" in rows.loc["rl_vs_heuristics", "note"]
    assert (rows.filter(like="table4_", axis=0)["random_verdict"] == "").all()


def test_untrained_network_is_the_training_start(tmp_path, monkeypatch):
    """Same seed, same weights, whatever the number of env copies (training runs eight)."""
    import torch
    from stable_baselines3.common.vec_env import DummyVecEnv

    from schedrl.agents.hyperparams import resolve_hyperparams
    from schedrl.agents.registry import algo_class
    from schedrl.experiments.envs import make_env
    from schedrl.workloads.lublin import generate
    from schedrl.workloads.swf import write_swf

    write_swf(generate("wl1", 20, seed=0), tmp_path / "w.swf")
    kw = {**rx.env_kwargs(SPEC, "runtime_baseline", "wl1_100a", training=True), "jobs": str(tmp_path / "w.swf")}
    policy, _, kwargs = resolve_hyperparams(rx.ALGO, rx.hyperparams("baseline", "T8-M32-K1"))
    two = algo_class(rx.ALGO)(policy, DummyVecEnv([lambda: make_env(rx.ENV_ID, kw)] * 2), seed=3,
                              **{**kwargs, "device": "cpu"})
    monkeypatch.setattr(rx, "env_kwargs", lambda *a, **k: kw)
    one = references.untrained_model(SPEC, "baseline", "wl1_100a", "T8-M32-K1", 3)
    for (name, a), b in zip(two.policy.state_dict().items(), one.policy.state_dict().values(), strict=True):
        assert torch.equal(a, b), name


def test_untrained_network_is_the_same_for_every_half(tmp_path, monkeypatch):
    """Why one untrained play per method stands in for every training half (references.py)."""
    import torch

    from schedrl.workloads.lublin import generate
    from schedrl.workloads.swf import write_swf

    monkeypatch.chdir(tmp_path)
    (tmp_path / "results/workloads/runtime").mkdir(parents=True)
    for w in ("wl1_100a", "wl2_rnda"):
        write_swf(generate(w[:3], 20, seed=0), tmp_path / rx.workload_file(w))
    a, b = (references.untrained_model(SPEC, "proposal_nn1", w, "T8-M32-K1", 3) for w in ("wl1_100a", "wl2_rnda"))
    for (name, x), y in zip(a.policy.state_dict().items(), b.policy.state_dict().values(), strict=True):
        assert torch.equal(x, y), name


def test_random_play_does_not_depend_on_the_estimator(tmp_path, monkeypatch):
    """Why the random reference's estimator cases repeat its oracle episodes: same seeds, same schedule."""
    from schedrl.workloads.lublin import generate
    from schedrl.workloads.swf import write_swf

    monkeypatch.chdir(tmp_path)
    (tmp_path / "results/workloads/runtime").mkdir(parents=True)
    for w in rx.WORKLOADS:
        write_swf(generate(w[:3], 40, seed=1), tmp_path / rx.workload_file(w))
    played = {e: rx.play_cases(SPEC, "proposal_nn1", "wl1_100a", "T8-M32-K1", 0, 0, "random",
                               cases=[("wl1_050b", e)])[0] for e in rx.ESTIMATORS}
    cols = ["utilization", "length", "reward", "scheduled"]
    for e in rx.ESTIMATORS[1:]:
        pd.testing.assert_frame_equal(played[e][cols], played["actual"][cols])


def _paper_evals(shift: float = 0.0) -> pd.DataFrame:
    """Per-episode rows whose cells are the paper's Tables 5-6 (two episodes each)."""
    t5, t6 = claims.paper_table5(), claims.paper_table6()
    rows = []
    for m in rx.METHODS:
        for train in rx.TRAIN_WORKLOADS:
            own = float(t5[(t5["workload"] == train) & (t5["method"] == m)]["ours"].iloc[0])
            cells = [(train, own)] + [(b, float(t6[(t6["train"] == train) & (t6["test"] == b) & (t6["method"] == m)]
                                                 ["ours"].iloc[0])) for b in rx.TEST_WORKLOADS]
            for test, u in cells:
                for ep in range(2):
                    rows.append({"method": m, "train": train, "grid": "T512-M512-K4", "run_seed": 0, "draw": 0,
                                 "test": test, "estimator": "actual", "episode": ep, "seed": 1000 + ep,
                                 "utilization": u + shift, "scheduled": 1.0})
    return pd.DataFrame(rows)


def test_claims_with_random_in_place_of_the_trained_agent_are_uninformative():
    from schedrl.experiments.heuristics import compare_with_paper

    heur = claims.paper_table4()
    long = heur.rename_axis("workload").reset_index().melt(id_vars="workload", var_name="algorithm",
                                                           value_name="utilization").assign(label="x")
    t4 = compare_with_paper(long, rx.VALUES["table4"]["rows"], rx.ALGORITHMS, "utilization")
    evals = _paper_evals()

    def rows(refs, plays=None):
        return {r["claim_id"]: r for r in claims.claims_rows(
            t4, tables.table5_frame(evals, heur), tables.table6_frame(evals), tables.sensitivity_frame(evals),
            evals=rx.tuned(evals), heuristics=heur, references=refs, plays=plays)}

    # the "trained" rows are random play itself: every claim it reproduces is uninformative
    same = rows({"random": evals, "untrained": _paper_evals(-0.3)},
                plays={"": "plays as FCFS (99% of 10 contested decisions)"})
    rl = {k: r for k, r in same.items() if not k.startswith("table4_")}
    held = [k for k, r in rl.items() if r["verdict"] in ("reproduced", "partly reproduced")]
    assert "rl_vs_heuristics" in held and len(held) >= 5
    for k in held:
        assert rl[k]["random_verdict"] == rl[k]["verdict"] and rl[k]["uninformative"] == "yes", k
        assert rl[k]["plays_as"].startswith("plays as FCFS") and rl[k]["note"].endswith("contested decisions)")
    assert same["rl_vs_heuristics"]["untrained_verdict"] == "not reproduced"   # 0.3 lower: 0/18 at or above
    assert all(r.get("random_verdict", "") == "" for k, r in same.items() if k.startswith("table4_"))
    # references that do not reproduce leave the claim informative
    low = rows({"random": _paper_evals(-0.3), "untrained": _paper_evals(-0.3)})
    assert low["rl_vs_heuristics"]["verdict"] == "reproduced" and low["rl_vs_heuristics"]["uninformative"] == "no"
    assert "random play 0/18 (not reproduced)" in low["rl_vs_heuristics"]["note"]


def test_pooled_plays_as_and_reservoir_order():
    fcfs = {"contested": 100, "agree_fcfs": 0.99, "agree_sjf": 0.2, "agree_smallest_area": 0.1,
            "agree_largest": 0.1, "top_slot": 0, "top_slot_share": 0.99, "plays_as": "fcfs"}
    none = {**fcfs, "agree_fcfs": 0.3, "top_slot_share": 0.3, "plays_as": ""}
    assert references.pooled_plays_as([fcfs, fcfs]) == "plays as FCFS (99% of 200 contested decisions)"
    assert references.pooled_plays_as([fcfs, none]) == "1 of 2 agents plays as FCFS (99% of 100 contested decisions)"
    assert references.pooled_plays_as([none]) == ""
    # the sampled decisions come first with their observations, every decision is kept
    from schedrl.experiments.fingerprint import Decisions

    rec = recording.LockstepRecorder([], ("x",), keep=3)
    for i in range(10):
        rec.shared.add(np.array([True, True]), i % 2, {"fcfs": 0}, None)
        rec.kept.append((i, np.full(2, i))) if i < 3 else None
    out = rec.decisions()
    assert isinstance(out, Decisions) and len(out.actions) == 10 and len(out.inputs) == 3
    assert [int(x[0]) for x in out.inputs] == [0, 1, 2] and out.actions[:3] == [0, 1, 0]
    # evaluate.fingerprint_share: a seeded share of the decisions is recorded (the rest is never looked at)
    few = recording.LockstepRecorder([], ("x",), share=1e-9)
    for _ in range(100):
        few.record(0, np.zeros(2), 1)
    assert few.shared.total == 0


def test_uniform_play_picks_invalid_actions_where_random_valid_play_does_not(tmp_path, monkeypatch):
    """Issue 68's unmasked random player: uniform over every action (empty window slots too, played
    as X), through the same protocol and episode seeds as random valid play; its group play is
    written like random's, under references/uniform/."""
    from schedrl.cli import main
    from schedrl.workloads.lublin import generate
    from schedrl.workloads.swf import write_swf

    monkeypatch.chdir(tmp_path)
    (tmp_path / "results/workloads/runtime").mkdir(parents=True)
    for w in rx.WORKLOADS:
        write_swf(generate(w[:3], 40, seed=1), tmp_path / rx.workload_file(w))
    case = [("wl1_050b", "actual")]
    played = {p: rx.play_cases(SPEC, "baseline", "wl1_100a", "T8-M32-K1", 0, 0, p, cases=case, record=True)
              for p in ("random", "uniform")}
    assert played["random"][1].empty_picks == 0 < played["uniform"][1].empty_picks
    pd.testing.assert_frame_equal(played["uniform"][0][["test", "episode", "seed"]],
                                  played["random"][0][["test", "episode", "seed"]])
    assert main(["runtime", "evaluate-reference", "--spec", json.dumps(SPEC), "--reference", "uniform",
                 "--grid", "T8-M32-K1", "--seed", "0"]) == 0
    fp = json.loads((references.group_dir(rx.ROOT, references.UNIFORM, "", "T8-M32-K1", 0) / "fingerprint.json")
                    .read_text())
    assert fp["actions"] == "uniform over all actions, valid or not" and fp["empty_slot_share"] > 0
    assert all(Path(p).is_file() for p in references.reference_files(SPEC, references.UNIFORM))
