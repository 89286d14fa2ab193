"""MRSch paper package: spec checks, job sets per group, the scalar-RL reward, Kiviat scores and
gains by hand, claims helpers, and the env's decision structure (window, measurements, goal)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from schedrl.config import load_yaml
from schedrl.errors import ConfigError
from schedrl.papers.mrsch import claims
from schedrl.papers.mrsch import cost as mcost
from schedrl.papers.mrsch import evaluation as mev
from schedrl.papers.mrsch import layout as ml
from schedrl.papers.mrsch import training as mtr
from toy_trees import mrsch_tree


def _spec(**over):
    spec = load_yaml("config/smoke.yaml")["mrsch"]
    spec.update(over)
    return spec


def test_spec_checks():
    ml.check_spec(_spec())
    with pytest.raises(ConfigError, match="paper's"):
        ml.check_spec(_spec(orderings=["real-sampled-synthetic"]))
    with pytest.raises(ConfigError, match="each of"):
        ml.check_spec(_spec(orderings=["sampled-real-synthetic", "real-real-synthetic"]))
    with pytest.raises(ConfigError, match="unknown hyperparameter"):
        ml.check_spec(_spec(dfp={"lr": 1}))
    with pytest.raises(ConfigError, match="fig8"):
        ml.check_spec(_spec(workloads=["S1", "S6"]))
    runs = ml.dfp_runs(_spec())
    assert ("two", "mlp", ml.PAPER_ORDERING) in runs and ("three", "mlp", ml.PAPER_ORDERING) in runs
    assert ("two", "cnn", ml.PAPER_ORDERING) in runs and ("two", "mlp", "real-sampled-synthetic") in runs


def test_extra_seeds_checked_in_one_line():
    """extra_seeds: distinct integers >= 0 besides mrsch.seed, each error one line naming the key."""
    assert ml.seeds(ml.check_spec(_spec(extra_seeds=[2, 1]))) == [0, 2, 1]
    assert ml.extra_seeds(ml.check_spec({k: v for k, v in _spec().items() if k != "extra_seeds"})) == []
    for bad in ([0], [1, 1], [-1], "1", [1.5], [True]):
        with pytest.raises(ConfigError, match=r"mrsch\.extra_seeds") as exc:
            ml.check_spec(_spec(extra_seeds=bad))
        assert "\n" not in str(exc.value)
    spec = json.dumps(_spec(extra_seeds=[0]))
    r = subprocess.run([sys.executable, "-m", "schedrl.cli", "mrsch", "cost", "--spec", spec], capture_output=True, text=True)
    assert r.returncode == 2 and len(r.stderr.strip().splitlines()) == 1 and "mrsch.extra_seeds" in r.stderr


def test_seed_runs_are_the_main_agents_in_their_own_folders(tmp_path):
    spec = ml.check_spec(_spec(extra_seeds=[1, 2]))
    assert ml.seed_runs(spec) == [("two", "mlp", ml.PAPER_ORDERING, 1), ("three", "mlp", ml.PAPER_ORDERING, 1),
                                  ("two", "mlp", ml.PAPER_ORDERING, 2), ("three", "mlp", ml.PAPER_ORDERING, 2)]
    # the base seed keeps its folders; an extra seed's sit beside the base run's files
    base = ml.dfp_dir(tmp_path, "two", "mlp", ml.PAPER_ORDERING)
    assert base == tmp_path / "dfp" / "two" / "mlp" / ml.PAPER_ORDERING
    assert ml.dfp_dir(tmp_path, "two", "mlp", ml.PAPER_ORDERING, 2) == base / "seed2"
    assert ml.eval_model(spec, tmp_path, "two", "mlp", 0) == base / ml.SELECTED_NAME
    assert ml.eval_model(spec, tmp_path, "two", "mlp", 1) == base / "seed1" / ml.SELECTED_NAME
    assert ml.eval_dir(tmp_path, "S3", "train", 1) == tmp_path / "eval_insample" / "S3" / "seed1"
    assert ml.budget_model(tmp_path, "three", "mlp", 0.25, seed=2) == (
        tmp_path / "dfp" / "three" / "mlp" / ml.PAPER_ORDERING / "seed2" / "budget_0.25.zip")
    with pytest.raises(ConfigError, match="MLP agents"):  # the ablations stay on the base seed
        mtr.train_dfp_run(spec, "two", "cnn", ml.PAPER_ORDERING, root=tmp_path, seed=1)
    with pytest.raises(ConfigError, match="neither"):
        ml.eval_model(spec, tmp_path, "two", "mlp", 3)
    # cost: each extra seed adds one MLP run per group (and its evaluations)
    one, three = mcost.estimate_core_hours(_spec(extra_seeds=[])), mcost.estimate_core_hours(spec)
    assert three["dfp_runs"] == one["dfp_runs"] + 4
    assert three["dfp"] - one["dfp"] == pytest.approx(2 * (mcost.dfp_seconds(spec, "two") + mcost.dfp_seconds(spec, "three")) / 3600)
    assert three["evaluate"] == pytest.approx(3 * one["evaluate"]) and three["select"] > one["select"]


def test_agent_seed_trains_the_base_folders_agent_as_that_extra_seed_would(tmp_path):
    """config/seed/<n>.yaml's mrsch.agent_seed: seed n of the main agents as a run of its own, on the
    job sets of mrsch.seed, is the agent extra_seeds: [n] trains beside the base seed (same weights),
    so separately recorded seeds pool as one run's would."""
    import torch

    assert ml.seeds(ml.check_spec(_spec(agent_seed=2, extra_seeds=[]))) == [2]
    assert ml.extra_or_none(_spec(agent_seed=2), 2) is None and ml.extra_or_none(_spec(agent_seed=2), 0) == 0
    for bad in (-1, "1", True):
        with pytest.raises(ConfigError, match=r"mrsch\.agent_seed"):
            ml.check_spec(_spec(agent_seed=bad))
    with pytest.raises(ConfigError, match=r"mrsch\.extra_seeds.*agent_seed"):
        ml.check_spec(_spec(agent_seed=1, extra_seeds=[1]))
    small = {"jobs_per_set": 40, "jobsets": {"sampled": 1, "real": 1, "synthetic": 1}}
    beside = ml.check_spec(_spec(extra_seeds=[1], **small))
    alone = ml.check_spec(_spec(agent_seed=1, extra_seeds=[], **small))
    base = _tree(tmp_path)
    mtr.train_dfp_run(beside, "two", "mlp", ml.PAPER_ORDERING, root=tmp_path / "beside", base=base, seed=1)
    mtr.train_dfp_run(alone, "two", "mlp", ml.PAPER_ORDERING, root=tmp_path / "alone", base=base)
    from schedrl.agents.dfp import DFPAgent

    a = DFPAgent.load(ml.dfp_dir(tmp_path / "beside", "two", "mlp", ml.PAPER_ORDERING, 1) / "model.zip")
    b = DFPAgent.load(ml.dfp_dir(tmp_path / "alone", "two", "mlp", ml.PAPER_ORDERING) / "model.zip")
    sa, sb = a.net.state_dict(), b.net.state_dict()
    assert sa.keys() == sb.keys() and all(torch.equal(sa[k], sb[k]) for k in sa)
    # and not the base seed's agent: agent_seed is what changed the weights
    mtr.train_dfp_run(beside, "two", "mlp", ml.PAPER_ORDERING, root=tmp_path / "beside", base=base)
    s0 = DFPAgent.load(ml.dfp_dir(tmp_path / "beside", "two", "mlp", ml.PAPER_ORDERING) / "model.zip").net.state_dict()
    assert not all(torch.equal(s0[k], sb[k]) for k in sb)


def test_smoke_dag_trains_and_evaluates_the_seed_runs():
    import shutil

    exe = shutil.which("snakemake") or str(Path(sys.executable).parent / "snakemake")
    r = subprocess.run([exe, "mrsch", "-n", "-F", "--quiet", "rules", "--configfile", "config/smoke.yaml"],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr[-3000:]
    counts = dict(re.findall(r"^(mrsch_\w+)\s+(\d+)$", r.stdout + r.stderr, re.M))
    # one extra seed, two groups: two trainings and selections, ten test and two in-sample evaluations
    assert counts["mrsch_train_dfp_seed"] == "2" and counts["mrsch_select_seed"] == "2"
    assert counts["mrsch_evaluate_seed"] == "10" and counts["mrsch_evaluate_insample_seed"] == "2"
    assert counts["mrsch_evaluate_budgets_seed"] == "2" and counts["mrsch_train_dfp"] == "4"


def test_bad_spec_is_one_line_and_nonzero(tmp_path):
    r = subprocess.run([sys.executable, "-m", "schedrl.cli", "mrsch", "claims", "--spec", json.dumps({"window": 10}),
                        "--out", str(tmp_path / "c.csv")], capture_output=True, text=True)
    assert r.returncode != 0 and len(r.stderr.strip().splitlines()) == 1 and "mrsch" in r.stderr


def _tree(tmp_path, n=240):
    """Train/test splits for S1-S5 on a 16-node machine with 8 burst-buffer units."""
    return mrsch_tree(tmp_path, {"train": n, "test": n})


def test_jobsets_per_group_are_deterministic_and_cycle_workloads(tmp_path):
    base = _tree(tmp_path)
    spec = _spec(jobs_per_set=30, jobsets={"sampled": 2, "real": 5, "synthetic": 3})
    a = ml.jobsets(spec, "two", base)
    b = ml.jobsets(spec, "two", base)
    assert [len(a[k]) for k in ml.KINDS] == [2, 5, 3]
    assert all(len(f) == 30 for k in ml.KINDS for f in a[k])
    for k in ml.KINDS:
        for x, y in zip(a[k], b[k]):
            pd.testing.assert_frame_equal(x, y)
    # real set i comes from workload i mod 5: five different tables
    assert len({tuple(f["run_time"]) for f in a["real"]}) == 5
    # ... and is the i-th of five blocks spread over the split: distinct rows of the shared trace
    import re
    spans = [tuple(int(x) for x in re.search(r"rows (\d+)-(\d+)", str(f.attrs)).groups()) for f in a["real"]]
    assert all(hi < lo2 for (_, hi), (lo2, _) in zip(spans, spans[1:])), spans
    # the in-sample protocol evaluates exactly the real sets each workload contributed to training
    spec["jobsets"]["real"] = 7  # S1 and S2 give two sets each, S3-S5 one
    real = ml.jobsets(spec, "two", base)["real"]
    s1 = mev.trained_real_sets(spec, "S1", base)
    assert len(s1) == 2 and len(mev.trained_real_sets(spec, "S3", base)) == 1
    for got, want in zip(s1, (real[0], real[5])):
        pd.testing.assert_frame_equal(got, want)
    spec["jobsets"]["real"] = 1  # as the smoke config: only S1 gave a real set
    assert mev.insample_workloads(spec, "two") == ["S1"]
    with pytest.raises(ConfigError, match="S2 gave no real training job set"):
        mev.trained_real_sets(spec, "S2", base)


def test_pool_metrics_sums_counts_and_keeps_the_worst_time():
    a = pd.DataFrame({"workload": ["S1"] * 2, "method": ["fcfs", "mrsch"], "jobs": [500, 500],
                      "mean_wait_h": [2.0, 1.0], "decisions": [np.nan, 400], "decision_ms_max": [np.nan, 30.0]})
    b = a.assign(mean_wait_h=[4.0, 3.0], decisions=[np.nan, 600], decision_ms_max=[np.nan, 10.0])
    pooled = mev.pool_metrics([a, b]).set_index("method")
    assert pooled.loc["mrsch", "jobs"] == 1000 and pooled.loc["mrsch", "decisions"] == 1000
    assert pooled.loc["mrsch", "mean_wait_h"] == 2.0 and pooled.loc["fcfs", "mean_wait_h"] == 3.0
    assert pooled.loc["mrsch", "decision_ms_max"] == 30.0 and pooled["jobsets"].eq(2).all()
    assert np.isnan(pooled.loc["fcfs", "decisions"])


def test_env_decision_structure_and_scalar_reward(tmp_path):
    base = _tree(tmp_path)
    frame = ml.read_part("S1", "test", base)
    env = ml.make_env(frame, 10)
    obs, info = env.reset(options={"jobs": frame.iloc[:50]})
    assert env.action_space.n == 10 and obs.shape == (4 * 10 + 2 * 16 + 2 * 8,)
    assert info["utilization"].shape == (2,) and np.isclose(info["demand_share"].sum(), 1.0)
    wrapped = mtr.FixedWeightReward(ml.make_env(frame, 10), [0.5, 0.5])
    obs, info = wrapped.reset(options={"jobs": frame.iloc[:50]})
    _, reward, _, _, info = wrapped.step(0)
    assert reward == pytest.approx(0.5 * info["utilization"].sum())
    assert wrapped.action_masks().shape == (10,)


def test_kiviat_scores_and_gains_by_hand():
    frame = pd.DataFrame({"workload": ["S1"] * 2, "method": ["fcfs", "mrsch"], "node_util": [0.5, 1.0],
                          "bb_util": [0.4, 0.2], "mean_wait_h": [2.0, 1.0], "mean_slowdown": [4.0, 4.0]})
    s = mev.kiviat_scores(frame, ["node_util", "bb_util", "mean_wait_h", "mean_slowdown"]).set_index("method")
    assert s.loc["fcfs", ["k_node_util", "k_bb_util", "k_mean_wait_h", "k_mean_slowdown"]].tolist() == [0.5, 1.0, 0.5, 1.0]
    # area of a 4-axis polygon: 0.5 sin(90 deg) (a b + b c + c d + d a)
    assert s.loc["fcfs", "area"] == pytest.approx(0.5 * (0.5 + 0.5 + 0.5 + 0.5))
    assert s.loc["mrsch", "area"] == pytest.approx(0.5 * (0.5 + 0.5 + 1 + 1))
    g = mev.improvement(frame, "mean_wait_h", baselines=("fcfs",))
    assert g["gain"].tolist() == [0.5]  # wait halved
    assert mev.improvement(frame, "bb_util", baselines=("fcfs",))["gain"].tolist() == [-0.5]
    assert claims.kiviat_best(frame, ["node_util", "bb_util", "mean_wait_h", "mean_slowdown"])[:2] == (1, 1)


def test_mlp_advantage_and_best_ordering():
    frame = pd.DataFrame({"workload": ["S1", "S1"], "method": ["mrsch", "mrsch_cnn"], "node_util": [0.6, 0.5],
                          "bb_util": [0.5, 0.5], "mean_wait_h": [1.0, 2.0], "mean_slowdown": [3.0, 2.0]})
    adv = claims.mlp_advantage(frame).set_index("metric")["advantage"]
    assert adv["node_util"] == pytest.approx(0.2) and adv["mean_wait_h"] == pytest.approx(0.5)
    assert adv["mean_slowdown"] == pytest.approx(-0.5)
    losses = pd.DataFrame({"ordering": ["a"] * 10 + ["b"] * 10, "loss": [1.0] * 10 + [2.0] * 9 + [0.1]})
    assert claims.best_ordering(losses) == "b"  # the last tenth decides
    assert claims.final_losses(losses) == {"a": 1.0, "b": pytest.approx(0.1)}
    assert claims.state_size() == 11_410


def test_claim_reasons_by_hand():
    frame = pd.DataFrame({
        "workload": ["S2"] * 5 + ["S10"] * 5,
        "method": ["fcfs", "ga", "scalar_rl", "mrsch", "mrsch_cnn"] * 2,
        "node_util": [0.70, 0.71, 0.70, 0.72, 0.90, 0.50, 0.50, 0.50, 0.50, 0.50],
        "bb_util": [0.30, 0.30, 0.30, 0.30, 0.30, 0.40, 0.43, 0.41, 0.40, 0.40],
        "mean_wait_h": [9.0, 4.0, 8.0, 5.0, 1.0, 9.0, 3.0, 2.0, 7.0, 0.5],
    })
    # the CNN variant is not compared: the largest gap is S10's burst buffer, 0.43 - 0.40
    assert claims.util_spread(frame, ["node_util", "bb_util", "power_util"]) == pytest.approx(0.03)
    assert claims.lowest(frame, "mean_wait_h") == "GA on S2; scalar RL on S10"
    frame.loc[frame["method"] == "scalar_rl", "mean_wait_h"] = 1.0
    assert claims.lowest(frame, "mean_wait_h") == "scalar RL on S2, S10"  # S2 before S10


def test_up_to_claims_verdicts():
    # fig6 wait: paper 48 %, tolerance rel 0.25 -> 12 points
    assert claims._at_least("fig6.wait_reduction_max", 0.60) == "reproduced"
    assert claims._at_least("fig6.wait_reduction_max", 0.37) == "reproduced"
    assert claims._at_least("fig6.wait_reduction_max", 0.30) == "partly reproduced"
    assert claims._at_least("fig6.wait_reduction_max", 0.10) == "not reproduced"
    assert claims._at_least("fig6.wait_reduction_max", float("nan")) == "not comparable"


def _results_tree(root, spec):
    """A synthetic results tree: metrics, goal traces and loss curves in the layout the rules write."""
    rng = np.random.default_rng(0)
    for w in spec["workloads"]:
        rows = []
        for k, m in enumerate(["fcfs", "ga", "exhaustive", "scalar_rl", "mrsch", "mrsch_cnn", "ga_hold"]):
            # ga_hold (diagnostic, issue 35) would win everything if it counted
            better = 1.0 + 0.1 * (m == "mrsch") + 1.0 * (m == "ga_hold")
            rows.append({"workload": w, "method": m, "jobs": 100, "node_util": 0.5 * better, "bb_util": 0.4 * better,
                         "power_util": 0.6 * better if ml.group_of(w) == "three" else np.nan,
                         "mean_wait_h": 2.0 / better + 0.01 * k, "mean_slowdown": 5.0 / better, "decision_ms_max": 20.0,
                         "instance_ms_max": 50.0})
        d = ml.eval_dir(root, w)
        d.mkdir(parents=True)
        pd.DataFrame(rows).to_csv(d / "metrics.csv", index=False)
        insample = ml.eval_dir(root, w, "train")  # in-sample: MRSch only ties the GA's wait
        insample.mkdir(parents=True)
        pd.DataFrame(rows).assign(mean_wait_h=2.0, jobsets=2).to_csv(insample / "metrics.csv", index=False)
        clock = np.arange(0, 48 * 3600, 600.0)
        r_bb = 0.75 + 0.1 * np.sin(clock / 7200) if w == "S5" else 0.3 + 0.05 * rng.random(len(clock))
        pd.DataFrame({"workload": w, "clock": clock, "r_nodes": 1 - r_bb, "r_bb": r_bb}).to_csv(d / "goals.csv", index=False)
        # per-job waits (MRSch's 10% lower) and the agents at shares of training (worse early on)
        jobs = [pd.DataFrame({"workload": w, "method": m, "job": np.arange(300),
                              "wait_h": (2.0 / (1.0 + 0.1 * (m == "mrsch"))) * rng.uniform(0.5, 1.5, 300),
                              "slowdown": 5.0 * rng.uniform(0.5, 1.5, 300)})
                for m in ["fcfs", "ga", "exhaustive", "scalar_rl", "mrsch", "mrsch_cnn"]]
        pd.concat(jobs).to_csv(d / "jobs.csv", index=False)
        pd.concat(jobs).assign(jobset=0).to_csv(insample / "jobs.csv", index=False)
    for group in ("two", "three"):
        rows, goals = [], []
        for f in ml.BUDGET_SNAPSHOTS:
            for w in [w for w in spec["workloads"] if ml.group_of(w) == group]:
                final = pd.read_csv(ml.eval_dir(root, w) / "metrics.csv")
                for split in ("test", "train"):
                    for m in ("mrsch", "mrsch_cnn"):
                        r = final[final["method"] == m].iloc[0].to_dict()
                        r.update(fraction=f, budget_jobs=100 * f, split=split, mean_wait_h=2.5 - f, jobsets=2)
                        rows.append(r)
                goals.append(pd.read_csv(ml.eval_dir(root, w) / "goals.csv").assign(fraction=f))
        d = root / "eval_budget" / group
        d.mkdir(parents=True)
        pd.DataFrame(rows).to_csv(d / "metrics.csv", index=False)
        pd.concat(goals).to_csv(d / "goals.csv", index=False)
    # extra seeds: MRSch (MLP) alone, the base seed's numbers (so the means equal them)
    for seed in ml.extra_seeds(spec):
        for w in spec["workloads"]:
            for split in ("test", "train"):
                d, out = ml.eval_dir(root, w, split), ml.eval_dir(root, w, split, seed)
                out.mkdir(parents=True)
                for name in ("metrics.csv", "jobs.csv", "goals.csv")[: 3 if split == "test" else 2]:
                    f = pd.read_csv(d / name)
                    (f[f["method"] == "mrsch"] if "method" in f else f).to_csv(out / name, index=False)
        for group in ("two", "three"):
            out = ml.budget_dir(root, group, seed)
            out.mkdir(parents=True)
            f = pd.read_csv(ml.budget_dir(root, group) / "metrics.csv")
            f[f["method"] == "mrsch"].to_csv(out / "metrics.csv", index=False)
    for i, o in enumerate(spec["orderings"]):
        d = ml.dfp_dir(root, "two", "mlp", o)
        d.mkdir(parents=True)
        steps = np.arange(1, 51)
        pd.DataFrame({"update": steps, "timesteps": steps * 8, "episode": steps // 10,
                      "loss": (1 + i) / steps}).to_csv(d / "losses.csv", index=False)


def test_figures_and_claims_on_a_synthetic_tree(tmp_path):
    from schedrl.papers.mrsch import figures

    spec = ml.check_spec(_spec())
    _results_tree(tmp_path, spec)
    rows = {r["claim_id"]: r for r in claims.claims_rows(spec, tmp_path)}  # writes claims_budget.csv
    for t in figures.TARGETS:
        if t.kind == "figure":
            t.function(spec, tmp_path, tmp_path / "fig" / f"{t.name}.png")
            assert (tmp_path / "fig" / f"{t.name}.png").stat().st_size > 0
            assert (tmp_path / "fig" / f"{t.name}.csv").is_file()
    assert rows["fig7-best"]["ours"] == "5 of 5" and rows["fig7-best"]["verdict"] == "reproduced"
    assert rows["fig5-best"]["ours"] == "5 of 5"
    assert rows["fig10-best"]["verdict"] == "reproduced"
    assert rows["fig4-ordering"]["ours"] == ml.PAPER_ORDERING  # the lowest curve
    assert rows["fig9-largest"]["ours"] == "5 of 5" and rows["fig8-range"]["verdict"] == "reproduced"
    # waits 2.0 -> 2/1.1: 9-10 % reductions, far from 48 %
    assert rows["fig6-mean_wait_h"]["verdict"] == "not reproduced"
    # the section V-C claims: MRSch lowest wait and slowdown everywhere, FCFS (wait 2.0, utilisation
    # as GA and scalar RL) not alone at the bottom of the Kiviat areas (ties go to the first row)
    assert rows["fig6-best-all"]["ours"] == "10 of 10"
    assert rows["fig7-fcfs-worst"]["ours"] == "0 of 5" and rows["fig7-biggest-on-s5"]["verdict"] in ("reproduced", "not reproduced")
    assert rows["fig6-rise-with-bb"]["ours"] == "0 of 8"  # every workload has the same waits here
    # budgets: MRSch's rows at 1/8-1/2 of training wait 2.375-2.0 h (worse than FCFS), so the
    # largest wait gain climbs to ~9% only at the end: four values, not flat, a CI from the jobs
    r = rows["fig6-mean_wait_h"]
    assert r["at_budgets"].count(":") == 4 and r["converged"] == "not converged at this scale"
    assert r["ci95"].startswith("+") and "2 seeds x 300 test jobs per workload (10 blocks of ~30)" in r["note"]
    assert "MRSch = mean of 2 training seeds (0, 1;" in r["note"] and "seed 0's agent" in rows["fig9-largest"]["note"]
    table = pd.read_csv(tmp_path / "claims_budget.csv")
    assert {"fig6-mean_wait_h", "fig7-best", "fig9-largest", "insample-fig7-best"} <= set(table["claim_id"])
    assert (table.groupby("claim_id")["fraction"].nunique() == 4).all()
    assert rows["decision-two"]["verdict"] == "reproduced" and rows["state-size"]["verdict"] == "reproduced"
    # every DFP-backed claim names the exploration reading its verdict rests on (issue 25)
    per = spec["dfp"]["epsilon_per"]
    for cid in ("fig4-ordering", "fig5-best", "fig6-mean_wait_h", "fig6-best-all", "fig7-best", "fig10-best",
                "fig10-util", "fig10-mean_slowdown"):
        assert f"(epsilon_per {per};" in rows[cid]["note"], cid
    # in-sample waits all equal: no reduction; the utilisations still give MRSch the largest Kiviat area
    assert rows["insample-fig7-mean_wait_h"]["ours"] == "0.0%"
    assert rows["insample-fig7-mean_wait_h"]["verdict"] == "not reproduced"
    # the smoke spec's one real job set per group: only S1 and S6 are evaluated in-sample
    assert rows["insample-fig10-best"]["ours"] == "1 of 1" and "2 per workload" in rows["insample-fig10-best"]["note"]


def test_cost_model():
    smoke = mcost.estimate_core_hours(ml.check_spec(_spec()))
    default = mcost.estimate_core_hours(ml.check_spec(load_yaml("config/config.yaml")["mrsch"]))
    # four base runs (smoke: two orderings) or five, plus one MLP run per group on the extra seed
    assert smoke["dfp_runs"] == 4 + 2 and default["dfp_runs"] == 5 + 2
    assert sum(v for k, v in smoke.items() if k != "dfp_runs") < 0.5  # minutes, not hours
    assert 1.0 < sum(v for k, v in default.items() if k != "dfp_runs") <= load_yaml("config/config.yaml")["budget"]["core_hours"]["mrsch"] <= 5


def test_lockstep_play_equals_one_by_one(tmp_path):
    """The budget evaluation's batched play gives each job table the schedule and goal trace that
    playing it alone gives (greedy, so the batch changes only how many forward passes run)."""
    from schedrl.agents.dfp import DFPAgent, DFPConfig

    base = _tree(tmp_path, n=60)
    frames = [ml.read_part(w, "test", base) for w in ("S1", "S2", "S3")]
    frames[2] = frames[2].iloc[:25]  # episodes of different lengths
    env = ml.make_env(frames[0], 4)
    obs, info = env.reset(options={"jobs": frames[0]})
    cfg = DFPConfig(state_hidden=[16], state_out=8, meas_hidden=[8], goal_hidden=[8], stream_hidden=16,
                    offsets=[1, 2], offset_weights=[1.0, 0.5])
    agent = DFPAgent(obs.size, len(info["utilization"]), int(env.action_space.n), cfg)
    scheds, traces = mev.play_dfp_batch(agent, [ml.make_env(f, 4) for f in frames], frames)
    for f, sched, trace in zip(frames, scheds, traces):
        alone, alone_trace, _ = mev.play_dfp(agent, ml.make_env(f, 4), f)
        pd.testing.assert_frame_equal(sched.reset_index(drop=True), alone.reset_index(drop=True))
        np.testing.assert_allclose(trace.to_numpy(), alone_trace.to_numpy())


def test_block_bootstrap_gain_by_hand():
    """MRSch waits half of FCFS's on every job: a 50% reduction whose interval is 50% too (paired)."""
    jobs = pd.DataFrame({"workload": "S1", "method": ["fcfs"] * 400 + ["mrsch"] * 400,
                         "job": list(range(400)) * 2,
                         "wait_h": np.r_[np.linspace(1, 9, 400), np.linspace(0.5, 4.5, 400)]})
    assert len(claims.job_blocks(jobs, "fcfs", "wait_h")) == 10  # at least MIN_BLOCKS
    assert len(claims.job_blocks(pd.concat([jobs] * 3).assign(job=lambda f: np.arange(len(f))), "fcfs", "wait_h")) == 12
    g, lo, hi = claims.gain_ci(jobs, "S1", "wait_h", "fcfs")
    assert g == pytest.approx(0.5) and lo == pytest.approx(0.5) and hi == pytest.approx(0.5)


def test_two_seeds_mean_and_interval_by_hand():
    """MRSch's gain is the mean over seeds; its interval resamples seeds, then blocks: two seeds
    that agree (both wait half of FCFS) give 50% [50%, 50%]; seeds at 0.5x and 0.9x of FCFS give 30%
    with the interval reaching the two seeds' own gains, 10% and 50% (both draws of one seed, 1/4
    of the bootstrap each)."""
    fcfs = np.linspace(1, 9, 400)

    def jobs(ratios):
        rows = [pd.DataFrame({"workload": "S1", "method": "fcfs", "job": np.arange(400), "wait_h": fcfs, "seed": 0})]
        rows += [pd.DataFrame({"workload": "S1", "method": "mrsch", "job": np.arange(400), "wait_h": r * fcfs, "seed": s})
                 for s, r in enumerate(ratios)]
        return pd.concat(rows, ignore_index=True)

    assert [len(b) for b in claims.seed_blocks(jobs([0.5, 0.9]), "mrsch", "wait_h")] == [10, 10]
    g, lo, hi = claims.gain_ci(jobs([0.5, 0.5]), "S1", "wait_h", "fcfs")
    assert (g, lo, hi) == pytest.approx((0.5, 0.5, 0.5))
    g, lo, hi = claims.gain_ci(jobs([0.5, 0.9]), "S1", "wait_h", "fcfs")
    assert g == pytest.approx(0.3) and lo == pytest.approx(0.1) and hi == pytest.approx(0.5)
    # the metrics: MRSch's row is the mean over its seeds, the slowest decision the maximum
    base = pd.DataFrame({"workload": "S1", "method": ["fcfs", "mrsch"], "mean_wait_h": [4.0, 2.0],
                         "instance_ms_max": [np.nan, 30.0], "seed": 0})
    seed1 = pd.DataFrame({"workload": "S1", "method": ["mrsch"], "mean_wait_h": [3.0], "instance_ms_max": [50.0], "seed": 1})
    m = mev.mean_over_seeds(pd.concat([base, seed1], ignore_index=True), ["workload", "method"]).set_index("method")
    assert m.loc["mrsch", "mean_wait_h"] == 2.5 and m.loc["mrsch", "instance_ms_max"] == 50.0
    assert m.loc["mrsch", "seeds"] == 2 and m.loc["fcfs", "seeds"] == 1 and "seed" not in m
    assert mev.improvement(m.reset_index(), "mean_wait_h", baselines=("fcfs",))["gain"].iloc[0] == pytest.approx(0.375)


def test_validation_score_by_hand():
    """Score = mean over workloads of (wait / FCFS wait + slowdown / FCFS slowdown) / 2; lowest wins,
    a tie goes to the longer-trained checkpoint."""
    t = pd.DataFrame({"fraction": [0.5, 0.5, 1.0, 1.0], "workload": ["S1", "S2", "S1", "S2"],
                      "mean_wait_h": [2.0, 1.0, 1.0, 4.0], "fcfs_wait_h": [2.0, 2.0, 2.0, 2.0],
                      "mean_slowdown": [3.0, 3.0, 1.5, 6.0], "fcfs_slowdown": [3.0, 3.0, 3.0, 3.0]})
    s = mtr.validation_score(t)
    # 0.5: S1 (1 + 1)/2 = 1, S2 (0.5 + 1)/2 = 0.75 -> 0.875; 1.0: S1 0.5, S2 2 -> 1.25
    assert s.groupby("fraction")["score"].first().to_dict() == pytest.approx({0.5: 0.875, 1.0: 1.25})
    assert mtr.best_fraction(s) == 0.5
    tie = pd.DataFrame({"fraction": [0.25, 1.0], "score": [0.9, 0.9]})
    assert mtr.best_fraction(tie) == 1.0
    # a zero FCFS wait is floored at one minute, not divided by
    z = mtr.validation_score(t.assign(fcfs_wait_h=0.0))
    assert np.isfinite(z["score"]).all()


def _val_tree(tmp_path):
    tmp_path.mkdir(parents=True, exist_ok=True)
    base = _tree(tmp_path, n=40)
    for k in range(1, 6):
        (base / f"S{k}" / "test.swf").rename(base / f"S{k}" / "val.swf")
    return base


def test_selection_picks_the_checkpoint_that_scores_best(tmp_path):
    """A hand-made player: the checkpoint after 1/4 of training plays FCFS, the others start every
    job later by 1, 2 or 3 hours, so 1/4 scores as FCFS and the rest worse; it is selected,
    copied to selected.zip and recorded."""
    from schedrl.sim import simulate

    base, root = _val_tree(tmp_path / "wl"), tmp_path / "res"
    spec = ml.check_spec(_spec(workloads=["S1", "S2", "S3", "S4", "S5"], eval={"max_jobs": 30}))
    run, run1 = ml.dfp_dir(root, "two", "mlp", ml.PAPER_ORDERING), ml.dfp_dir(root, "two", "mlp", ml.PAPER_ORDERING, 1)
    run1.mkdir(parents=True)
    delay = {0.125: 3.0, 0.25: 0.0, 0.5: 1.0, 1.0: 2.0}
    delay1 = {0.125: 3.0, 0.25: 1.0, 0.5: 0.0, 1.0: 2.0}  # the extra seed's best is 1/2 of training
    for f in delay:
        (run / ml.budget_name(f)).write_text(f"model {f}")
        (run1 / ml.budget_name(f)).write_text(f"seed 1 model {f}")

    def player(path, frames):
        f = next(k for k in delay if ml.budget_name(k) == path.name)
        d = delay1 if path.parent == run1 else delay
        out = []
        for frame in frames:
            s = simulate(frame, ml.cluster_of(frame), policy="fcfs", backfill="easy").copy()
            s["start_time"] += 3600 * d[f]
            s["end_time"] += 3600 * d[f]
            out.append(s)
        return out

    scored, best = mtr.select_model(spec, "two", "mlp", root=root, base=base, player=player)
    assert best == 0.25
    per = scored.groupby("fraction")["score"].first()
    # this light load leaves FCFS no wait: 0 / the one-minute floor and slowdown 1 / 1 give 0.5
    assert per[0.25] == pytest.approx(0.5) and (per.drop(0.25) > 1.0).all()
    assert list(per.sort_values().index) == [0.25, 0.5, 1.0, 0.125]
    assert (run / ml.SELECTED_NAME).read_text() == "model 0.25"
    table = pd.read_csv(run / ml.VALIDATION_NAME)
    assert len(table) == 4 * 5 and set(table["workload"]) == {"S1", "S2", "S3", "S4", "S5"}
    assert table.loc[table["selected"], "checkpoint"].unique().tolist() == ["budget_0.25.zip"]
    assert json.loads((run / ml.SELECTION_NAME).read_text())["fraction"] == 0.25
    assert ml.eval_model(spec, root, "two", "mlp") == run / ml.SELECTED_NAME
    assert mtr.select_model(spec, "two", "mlp", root=root, base=base, player=player, seed=1)[1] == 0.5
    assert (run1 / ml.SELECTED_NAME).read_text() == "seed 1 model 0.5" and mtr.selected_fraction(root, "two", "mlp") == 0.25
    assert ml.eval_model(spec, root, "two", "mlp", 1) == run1 / ml.SELECTED_NAME
    assert claims.model_reading(spec, root).endswith(
        "model selected on the validation split at 0.25 of training (S1-S5, seed 0), ? of training (S1-S5 CNN, seed 0), "
        "0.5 of training (S1-S5, seed 1)")


def test_selection_off_uses_the_final_model_and_bad_value_is_one_line(tmp_path):
    spec = ml.check_spec(_spec(dfp={**_spec()["dfp"], "select_on_validation": False}))
    assert not ml.select_on_validation(spec)
    assert ml.eval_model(spec, "r", "two", "mlp").name == "model.zip"
    assert claims.model_reading(spec, "r").endswith("; final model")
    assert claims.model_reading(_spec(extra_seeds=[], dfp=spec["dfp"]), "r") == "final model"
    assert ml.select_on_validation(ml.check_spec(_spec()))  # smoke turns it on
    bad = _spec(dfp={**_spec()["dfp"], "select_on_validation": "yes"})
    with pytest.raises(ConfigError, match="mrsch.dfp.select_on_validation must be true or false"):
        ml.check_spec(bad)
    r = subprocess.run([sys.executable, "-m", "schedrl.cli", "mrsch", "select", "--spec", json.dumps(bad),
                        "--root", str(tmp_path), "--group", "two"], capture_output=True, text=True)
    assert r.returncode != 0 and len(r.stderr.strip().splitlines()) == 1 and "select_on_validation" in r.stderr


def test_budget_curve_keeps_the_final_model_when_the_evaluation_uses_the_selected_one():
    """With selection on, the main evaluation's MRSch rows are the selected model's; the budget
    evaluation's rows at fraction 1 (the final model) replace them at the curve's last point."""
    final = pd.DataFrame({"workload": ["S1", "S1"], "method": ["fcfs", "mrsch"], "mean_wait_h": [5.0, 3.0]})
    budgets = pd.DataFrame({"workload": ["S1", "S1"], "method": ["mrsch", "mrsch"], "mean_wait_h": [4.0, 2.0],
                            "fraction": [0.5, 1.0], "budget_jobs": [10, 20], "split": ["test", "test"]})
    at1 = claims.at_fraction(final, budgets, 1.0, "test").set_index("method")["mean_wait_h"]
    assert at1.to_dict() == {"fcfs": 5.0, "mrsch": 2.0}
    off = claims.at_fraction(final, budgets[budgets["fraction"] < 1], 1.0, "test")  # option off: the main evaluation's
    assert off.set_index("method")["mean_wait_h"].to_dict() == {"fcfs": 5.0, "mrsch": 3.0}
    assert claims.at_fraction(final, budgets, 0.5, "test").set_index("method")["mean_wait_h"]["mrsch"] == 4.0
    spec = ml.check_spec(_spec())
    assert mcost.estimate_core_hours(spec)["select"] > 0
    off_spec = ml.check_spec(_spec(dfp={**_spec()["dfp"], "select_on_validation": False}))
    assert mcost.estimate_core_hours(off_spec)["select"] == 0


# issue 35: one decision process for every method of every comparison

class _FakeDFP:
    """Stands in for a trained DFP agent: always the window's first job."""

    def act(self, obs, meas, goal, mask=None):
        return np.zeros(len(np.atleast_2d(obs)), dtype=np.int64)


class _FakePolicy:
    def predict(self, obs, deterministic=True, action_masks=None):
        return np.array(0), None


def test_default_config_plays_every_method_under_every_event(tmp_path, monkeypatch):
    """Under the default config, every env that any MRSch rule builds (DFP and scalar-RL training,
    the test and in-sample evaluations, the budget evaluation, model selection) names process
    every_event, and the GA and the exhaustive check re-plan at every event; the GA under hold is
    the diagnostic row only."""
    import schedrl.agents.dfp as dfp_mod
    import schedrl.agents.reinforce as rf_mod
    import schedrl.schedulers.ga as ga_mod

    default = load_yaml("config/config.yaml")["mrsch"]
    assert default["process"] == "every_event"
    # the default's process keys, at a size the synthetic tree holds
    spec = ml.check_spec({**_spec(), "process": default["process"], "ask_when_none_fits": default["ask_when_none_fits"],
                          "jobs_per_set": 30, "workloads": ["S1", "S2", "S3", "S4", "S5"],
                          "fig8": {"workload": "S5", "hours": 12}, "eval": {"max_jobs": 60}})
    import shutil

    (tmp_path / "wl").mkdir()
    base = _tree(tmp_path / "wl", n=120)
    for k in range(1, 6):
        shutil.copyfile(base / f"S{k}" / "test.swf", base / f"S{k}" / "val.swf")
    envs, gas = [], []
    real_make, real_ga = ml.make_env, ga_mod.simulate_window_optimiser

    def make_env(frame, window, jobs=None, **kwargs):
        env = real_make(frame, window, jobs=jobs, **kwargs)
        envs.append((env.process, env.ask_when_none_fits))
        return env

    def ga(*args, **kwargs):
        gas.append(kwargs.get("process", "every_event"))
        return real_ga(*args, **kwargs)

    monkeypatch.setattr(mev, "make_env", make_env)  # looked up there and in training
    monkeypatch.setattr(mtr, "make_env", make_env)
    monkeypatch.setattr(ga_mod, "simulate_window_optimiser", ga)
    monkeypatch.setattr(dfp_mod.DFPAgent, "load", classmethod(lambda cls, path: _FakeDFP()))
    monkeypatch.setattr(rf_mod.ReinforcePolicy, "load", classmethod(lambda cls, path: _FakePolicy()))
    records = {}

    def fake_train_dfp(make_env_fn, cfg, episodes, seed, run_dir, **kw):
        make_env_fn()
        records["dfp"] = kw["config"]

    def fake_train_reinforce(make, cfg, iterations, seed, run_dir, **kw):
        make()
        records["reinforce"] = kw["config"]

    monkeypatch.setattr(dfp_mod, "train_dfp", fake_train_dfp)
    monkeypatch.setattr(rf_mod, "train_reinforce", fake_train_reinforce)
    mtr.train_dfp_run(spec, "two", "mlp", ml.PAPER_ORDERING, root=tmp_path, base=base)
    mtr.train_scalar_run(spec, "two", root=tmp_path, base=base)
    assert records["dfp"]["process"] == records["reinforce"]["process"] == "every_event"  # run folders name it
    assert len(envs) == 2
    metrics, _, jobs = mev.evaluate_workload(spec, "S1", root=tmp_path, base=base)
    mev.evaluate_workload(spec, "S1", root=tmp_path, base=base, split="train")
    assert {"fcfs", "ga", "exhaustive", "scalar_rl", "mrsch", "mrsch_cnn", "ga_hold", *ml.REFERENCE_HEURISTICS} == set(
        metrics["method"])
    mev.evaluate_budgets(spec, "two", root=tmp_path, base=base)
    monkeypatch.setattr("shutil.copyfile", lambda a, b: None)  # no model files behind the fake loads
    mtr.select_model(spec, "two", "mlp", root=tmp_path, base=base)
    assert len(envs) > 10 and set(envs) == {("every_event", False)}
    # the GA and the exhaustive check re-plan at every event; hold only for the diagnostic row
    assert gas.count("hold") == gas.count("every_event") / 2 and set(gas) == {"every_event", "hold"}
    assert mev.ga_plays(spec) == [("ga", 0, "every_event"), ("exhaustive", 16, "every_event"), ("ga_hold", 0, "hold")]


def test_hold_stays_runnable_and_process_keys_are_checked():
    hold = ml.check_spec(_spec(process="hold", ask_when_none_fits=True))
    assert ml.env_kwargs(hold) == {} and mev.ga_plays(hold) == [("ga", 0, "hold"), ("exhaustive", 16, "hold")]
    legacy = ml.check_spec({k: v for k, v in _spec().items() if k not in ("process", "ask_when_none_fits")})
    assert ml.process(legacy) == "hold" and ml.env_kwargs(legacy) == {}  # old specs: old runs still match
    assert ml.env_kwargs(ml.check_spec(_spec())) == {"process": "every_event", "ask_when_none_fits": False}
    for over, match in (({"process": "sometimes"}, "mrsch.process"), ({"ask_when_none_fits": "no"}, "mrsch.ask_when_none_fits"),
                        ({"process": "hold", "ask_when_none_fits": False}, "every_event only")):
        with pytest.raises(ConfigError, match=match) as exc:
            ml.check_spec(_spec(**over))
        assert "\n" not in str(exc.value)
    # the claims name the process
    assert "every_event for every method" in ml.process_note(ml.check_spec(_spec()))
    assert ml.process_note(hold).startswith("decision process hold")
    # more decisions per job under every_event: the cost model follows
    assert mcost.dfp_seconds(ml.check_spec(_spec()), "three") > mcost.dfp_seconds(hold, "three")


def test_the_cost_models_update_scales_with_the_state_modules_weights():
    """An MLP update is memory-bound over the state module's weights: a network a fraction of the
    paper's size pays that fraction of the paper's update, and the pick stays the same."""
    def seconds(hidden, update_every):
        dfp = {"batch_size": 32, "update_every": update_every, "state_hidden": hidden, "state_out": 512}
        return mcost.dfp_seconds(ml.check_spec(_spec(dfp=dfp)), "two")

    paper, narrow = list(mcost.PAPER_STATE_HIDDEN), [2000, 500]
    assert mcost.mlp_weights(paper, 512) == 11_410 * 4000 + 4000 * 1000 + 1000 * 512
    ratio = mcost.mlp_weights(narrow, 512) / mcost.mlp_weights(paper, 512)
    # updating every decision instead of every other one adds half the updates: the update's cost
    update = {tuple(h): seconds(h, 1) - seconds(h, 2) for h in (paper, narrow)}
    pick = {tuple(h): seconds(h, 2) - update[tuple(h)] for h in (paper, narrow)}
    assert update[tuple(narrow)] / update[tuple(paper)] == pytest.approx(ratio)
    assert pick[tuple(narrow)] == pytest.approx(pick[tuple(paper)])


def test_fcfs_is_the_head_picker_under_the_default_process(tmp_path):
    """FCFS is evaluated by the simulator (FCFS + EASY): the same schedule as the head picker
    played through the MRSch env under the default process (two resources: nodes and burst buffer)."""
    from schedrl.sim import simulate

    spec = ml.check_spec(_spec())
    frame = ml.read_part("S1", "test", _tree(tmp_path))
    ref = simulate(frame, ml.cluster_of(frame), policy="fcfs", backfill="easy")
    for kwargs in (ml.env_kwargs(spec), {}):
        sched, _, _ = mev.play_picker(lambda obs, info, env: 0, ml.make_env(frame, 10, **kwargs), frame)
        np.testing.assert_array_equal(sched["start_time"].to_numpy(), ref["start_time"].to_numpy())
    assert (ref["start_time"] > ref["submit_time"]).mean() > 0.2  # queueing happened
