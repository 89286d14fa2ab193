"""The paper-budget scale (config/paper-budget.yaml) trains each headline run to the paper's own
budget as config/paper.yaml states it: one source for the paper's numbers, not two."""

from __future__ import annotations

from pathlib import Path

import pytest

from schedrl.config import load_section, load_yaml, merge_config, over_default

ROOT = Path(__file__).resolve().parents[1]
BUDGET = ROOT / "config" / "paper-budget.yaml"
PAPER = ROOT / "config" / "paper.yaml"


def test_scale_file_is_merged_over_the_default_as_snakemake_merges_it():
    raw = load_yaml(BUDGET)
    merged = over_default(raw, BUDGET)
    default = load_yaml(ROOT / "config" / "config.yaml")
    assert merged == merge_config(default, raw)
    assert merged["scale"] == "paper-budget" and merged["sem"] == default["sem"]
    # lists are replaced, mappings merged key by key (Snakemake's update_config)
    assert merge_config({"a": {"x": [1, 2], "y": 1}}, {"a": {"x": [3]}}) == {"a": {"x": [3], "y": 1}}
    # `--spec config/paper-budget.yaml` reads the merged section, not the file's few keys
    spec = load_section(str(BUDGET), "deeprm")
    assert spec["baselines"] == default["deeprm"]["baselines"]


def test_deeprm_headline_runs_train_the_reports_budget():
    from schedrl.papers.deeprm import layout as dl
    from schedrl.papers.deeprm import training as dt

    budget = load_section(str(BUDGET), "deeprm")
    paper = load_section(str(PAPER), "deeprm")
    runs = [(v, a, o, s) for v in budget["variants"] for a, o, s in dl.agent_runs(budget, v)]
    # the report's headline agents: discrete phase 2, slowdown, A2C / PPO / TRPO, on more than one seed
    assert {(v, a, o) for v, a, o, _ in runs} == {("discrete-image", a, "slowdown") for a in ("a2c", "ppo", "trpo")}
    assert len({s for *_, s in runs}) >= 2
    for variant, algo, objective, _ in runs:
        steps = dt.run_steps(budget, variant, algo, objective)
        assert steps == dt.run_steps(paper, variant, algo, objective)
        # budget checkpoints at 1/8, 1/4, 1/2 of the paper's budget (all of it is the final model)
        assert dt.run_checkpoint_every(budget, variant, algo, objective) * 8 == steps
    # the report's model choice every check_freq steps, and its evaluation sizes
    assert dt.report_selection(budget) == dt.report_selection(paper)
    for key in ("episodes", "rates", "report", "deterministic", "box_rate"):
        assert budget["eval"][key] == paper["eval"][key], key


@pytest.mark.parametrize("paper", ["deeprm", "mdp", "mrsch", "runtime"])
def test_every_paper_but_sem_names_its_paper_budget_runs(paper):
    raw = load_yaml(BUDGET)
    if paper not in raw:
        pytest.skip(f"{paper}'s part of the paper-budget scale is not in config/paper-budget.yaml yet")
    load_section(str(BUDGET), paper)  # valid against the paper's schema once merged


def test_paper_budget_target_per_paper_is_in_the_dag():
    text = "".join(p.read_text() for p in (ROOT / "workflow" / "rules").glob("*.smk"))
    for paper in load_yaml(BUDGET):
        if paper in ("deeprm", "mdp", "mrsch", "runtime"):
            assert f"rule {paper}_paper_budget" in text, paper


def test_schedrl_config_checks_the_scale_file_as_merged(capsys):
    from schedrl.cli import main

    assert main(["config", str(BUDGET)]) == 0
    assert capsys.readouterr().out.strip().endswith(": ok")


def test_commands_in_the_scale_files_comments_name_real_targets_and_scales():
    """Every `snakemake <target>` and `schedrl record --scale <scale>` a reader copies from the comments
    of config/paper-budget.yaml names a rule of the workflow and a scale `schedrl record` accepts."""
    import argparse
    import re

    from schedrl.commands.record import register

    rules = set()
    for smk in (ROOT / "workflow" / "rules").glob("*.smk"):
        text = smk.read_text()
        rules |= set(re.findall(r"^rule (\w+):", text, re.M))
        rules |= {f"mdp_paper_budget_s{s}" for s in load_yaml(BUDGET)["mdp"]["scenarios"]} if "paper_budget_s" in text else set()
    rules |= set(re.findall(r"^rule (\w+):", (ROOT / "Snakefile").read_text(), re.M))
    comments = "\n".join(line for line in BUDGET.read_text().splitlines() if line.lstrip().startswith("#"))
    targets = re.findall(r"snakemake (\w+) --cores", comments)
    assert targets and all(t in rules for t in targets), sorted(set(targets) - rules)
    scales = re.findall(r"schedrl record --scale (\S+)", comments)
    sub = argparse.ArgumentParser().add_subparsers()
    register(sub)
    choices = next(a.choices for a in sub.choices["record"]._actions if a.dest == "scale")
    assert scales and all(s.strip("`\"") in choices for s in scales), scales
