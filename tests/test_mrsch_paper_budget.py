"""MRSch's part of the paper-budget scale (config/paper-budget.yaml): the main DFP agents at the
paper's budget as config/paper.yaml states it, nothing else trained, and the claims, figures and
rules of a config that trains no CNN variant, no other ordering and no scalar RL."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from schedrl.config import load_section, load_yaml
from schedrl.errors import ConfigError
from schedrl.papers.mrsch import claims, figures
from schedrl.papers.mrsch import cost as mcost
from schedrl.papers.mrsch import evaluation as mev
from schedrl.papers.mrsch import layout as ml
from schedrl.papers.mrsch import training as mtr

ROOT = Path(__file__).resolve().parents[1]
BUDGET = ROOT / "config" / "paper-budget.yaml"
PAPER = ROOT / "config" / "paper.yaml"
#: What makes a DFP run the paper's: its training jobs, replay ratio, exploration and process.
PAPER_KEYS = ("jobs_per_set", "jobsets", "window", "process", "ask_when_none_fits")


def _main_only(spec: dict) -> dict:
    """``spec`` reduced as the paper-budget scale reduces it."""
    return ml.check_spec({**spec, "cnn": None, "scalar_rl": None, "orderings": [ml.PAPER_ORDERING]})


def test_paper_budget_trains_the_main_agents_at_the_papers_budget():
    if "mrsch" not in load_yaml(BUDGET):
        pytest.skip("mrsch's part of the paper-budget scale is not in config/paper-budget.yaml yet")
    budget = ml.load_spec(str(BUDGET))
    paper = ml.load_spec(str(PAPER))
    assert ml.dfp_runs(budget) == [("two", "mlp", ml.PAPER_ORDERING), ("three", "mlp", ml.PAPER_ORDERING)]
    assert not ml.has_scalar(budget) and not ml.has_cnn(budget)
    for key in PAPER_KEYS:
        assert budget[key] == paper[key], key
    assert ml.dfp_config(budget, "mlp") == ml.dfp_config(paper, "mlp")  # batch 64 per 64 decisions, run_inverse
    assert ml.select_on_validation(budget) and budget["workloads"] == paper["workloads"]
    assert budget["eval"] == paper["eval"]  # whole test splits
    # 200,000 training jobs; budget checkpoints at 1/8, 1/4, 1/2 of them (all: the final model)
    total = ml.n_jobsets(budget) * budget["jobs_per_set"]
    assert total == 200_000
    assert [ml.budget_sets(budget, f) * budget["jobs_per_set"] for f in ml.BUDGET_SNAPSHOTS] == [25_000, 50_000, 100_000]
    # <= 5 core-hours on the slower machine kind
    c = mcost.estimate_core_hours(budget)
    assert sum(c[k] for k in mcost.COST_PARTS) * mcost.SLOWER_MACHINE[1] <= 5


def test_a_config_without_cnn_scalar_rl_and_orderings():
    spec = _main_only(load_yaml(ROOT / "config" / "smoke.yaml")["mrsch"])
    assert ml.dfp_runs(spec) == [("two", "mlp", ml.PAPER_ORDERING), ("three", "mlp", ml.PAPER_ORDERING)]
    assert ml.agent_states(spec, "two") == [("mrsch", "mlp")]
    assert ml.not_trained(spec) == ["the CNN variant", "the other job-set orderings", "scalar RL"]
    assert mcost.estimate_core_hours(spec)["scalar"] == 0
    with pytest.raises(ConfigError, match="cnn is null"):
        ml.dfp_config(spec, "cnn")
    with pytest.raises(ConfigError, match="scalar_rl is null"):
        mtr.train_scalar_run(spec, "two")
    assert {t.name for t in figures.trained_targets(spec)} == {t.name for t in figures.TARGETS} - {"fig3", "fig4"}
    full = ml.check_spec(load_yaml(ROOT / "config" / "smoke.yaml")["mrsch"])
    assert figures.trained_targets(full) == figures.TARGETS and not ml.not_trained(full)


def test_null_sections_pass_the_schema(tmp_path):
    import yaml

    path = tmp_path / "c.yaml"
    section = {**load_yaml(ROOT / "config" / "config.yaml")["mrsch"], "cnn": None, "scalar_rl": None}
    path.write_text(yaml.safe_dump({"mrsch": section}))
    spec = load_section(str(path), "mrsch")
    assert spec["scalar_rl"] is None and spec["cnn"] is None
    ml.check_spec(spec)


def test_claims_and_figures_without_the_untrained_runs(tmp_path):
    from test_mrsch_experiments import _results_tree

    spec = _main_only({**load_yaml(ROOT / "config" / "smoke.yaml")["mrsch"], "extra_seeds": []})
    _results_tree(tmp_path, spec)
    for path in tmp_path.rglob("*.csv"):  # the evaluations of this config hold no CNN or scalar-RL rows
        frame = pd.read_csv(path)
        if "method" in frame:
            frame[~frame["method"].isin(["mrsch_cnn", "scalar_rl"])].to_csv(path, index=False)
    rows = {r["claim_id"]: r for r in claims.claims_rows(spec, tmp_path)}
    for cid, what in (("fig3-mlp-over-cnn", "the CNN variant"), ("fig4-ordering", "the other job-set orderings"),
                      ("fig5-scalar-over-ga-s3", "scalar RL")):
        assert rows[cid]["verdict"] == "not comparable" and rows[cid]["note"] == f"{what} not trained at this scale"
    # the others compare MRSch with FCFS and the GA, and say so
    assert rows["fig7-best"]["verdict"] == "reproduced" and rows["fig10-best"]["verdict"] == "reproduced"
    assert "(MRSch compared with FCFS and the GA)" in rows["fig6-mean_wait_h"]["note"]
    assert "and FCFS, GA (" in rows["fig6-mean_wait_h"]["note"]
    assert rows["fig6-mean_wait_h"]["at_budgets"].count(":") == 4
    # the bars and Kiviat charts draw the methods evaluated (the other figures read no method rows)
    for name in ("fig5", "fig10"):
        getattr(figures, name)(spec, tmp_path, tmp_path / "fig" / f"{name}.png")
    assert set(pd.read_csv(tmp_path / "fig" / "fig5.csv")["method"]) == {"fcfs", "ga", "mrsch", "ga_hold"}
    assert set(pd.read_csv(tmp_path / "fig" / "fig10.csv")["method"]) == {"fcfs", "ga", "mrsch", "ga_hold"}


def test_rule_builds_only_the_trained_targets():
    text = (ROOT / "workflow" / "rules" / "mrsch.smk").read_text()
    assert "rule mrsch_paper_budget:" in text and "MRSCH_FIGURES.trained_targets(MRSCH)" in text


def test_evaluations_play_fcfs_the_ga_and_the_main_agent_alone(tmp_path, monkeypatch):
    """Without the CNN variant and scalar RL the test, in-sample and budget evaluations play the
    baselines and the MLP agent, and never look for the untrained runs' models."""
    import shutil

    import schedrl.agents.dfp as dfp_mod
    import schedrl.agents.reinforce as rf_mod
    from test_mrsch_experiments import _FakeDFP, _tree

    spec = _main_only({**load_yaml(ROOT / "config" / "smoke.yaml")["mrsch"], "jobs_per_set": 30,
                       "workloads": ["S1", "S2", "S3", "S4", "S5"], "eval": {"max_jobs": 60}})
    (tmp_path / "wl").mkdir()
    base = _tree(tmp_path / "wl", n=120)
    for k in range(1, 6):
        shutil.copyfile(base / f"S{k}" / "test.swf", base / f"S{k}" / "val.swf")
    loaded = []
    monkeypatch.setattr(dfp_mod.DFPAgent, "load", classmethod(lambda cls, path: loaded.append(Path(path)) or _FakeDFP()))
    monkeypatch.setattr(rf_mod.ReinforcePolicy, "load", classmethod(lambda cls, path: pytest.fail("scalar RL loaded")))
    metrics, _, jobs = mev.evaluate_workload(spec, "S1", root=tmp_path, base=base)
    assert set(metrics["method"]) == set(jobs["method"]) == {"fcfs", "sjf", "saf", "ga", "exhaustive", "ga_hold", "mrsch"}
    insample, _, _ = mev.evaluate_workload(spec, "S1", root=tmp_path, base=base, split="train")
    assert "scalar_rl" not in set(insample["method"])
    budget, _ = mev.evaluate_budgets(spec, "two", root=tmp_path, base=base)
    assert set(budget["method"]) == {"mrsch"}
    assert {p.parts[-3] for p in loaded} == {"mlp"}  # .../dfp/two/<state>/<ordering>/<model>
