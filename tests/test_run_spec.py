"""A rule over one run passes the paper's section narrowed to that run (``run_spec``): Snakemake reruns a
job whose params changed, so with the whole section a new seed retrained (DeepRM's agent, MRSch's DFP)
or re-evaluated every run there was. Each narrowed spec must still be a valid spec the run's command
accepts, and must not change when another seed (or, for mdp, another scenario) is added."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from schedrl.config import load_config, merge_config, run_spec_json
from schedrl.papers.deeprm import layout as DL
from schedrl.papers.mdp import layout as ML
from schedrl.papers.mrsch import layout as MRL
from schedrl.papers.runtime import experiments as RX

REPO = Path(__file__).resolve().parents[1]
CONFIGS = ["config/config.yaml", "config/paper-budget.yaml", "config/smoke.yaml", "config/paper.yaml"]


def _section(path: str, name: str) -> dict:
    return load_config(REPO / path)[name]


def test_the_core_leaves_out_sets_and_removes_keys():
    spec = {"b": [0, 1], "a": 1, "tune": {"x": 1}, "by": {"k": [0]}}
    assert json.loads(run_spec_json(spec, leave_out=("tune",), b=[1], by=None)) == {"a": 1, "b": [1]}
    assert spec["b"] == [0, 1] and "tune" in spec  # the section itself is untouched
    assert run_spec_json({"b": 1, "a": 2}) == '{"a": 2, "b": 1}'  # sorted keys: same spec, same params


@pytest.mark.parametrize("path", CONFIGS)
def test_deeprm_run_specs_are_valid_and_do_not_move_when_a_seed_is_added(path):
    spec = _section(path, "deeprm")
    more = merge_config(spec, {"seeds": [*spec["seeds"], 7]})
    if (spec.get("deeprm_agent") or {}).get("seeds"):
        more["deeprm_agent"] = {**spec["deeprm_agent"], "seeds": [*spec["deeprm_agent"]["seeds"], 7]}
    runs = {s for v in spec["variants"] for _, _, s in DL.agent_runs(spec, v)} | {s for _, s in DL.deeprm_agent_runs(spec)}
    for seed in sorted(runs):
        text = DL.run_spec(spec, seed)
        narrowed = DL.load_spec(text)  # schema and cross-key checks pass
        assert narrowed["seeds"] == [seed] and "reference_dirs" not in narrowed and "tune" not in narrowed
        assert text == DL.run_spec(more, seed), f"{path}: seed {seed}'s params moved when seed 7 was added"
        for v in spec["variants"]:  # the runs of this seed are the same runs as before
            assert {r for r in DL.agent_runs(spec, v) if r[2] == seed} <= set(DL.agent_runs(narrowed, v))
    first = DL.run_spec(spec)  # a rule over no run (a baseline): the first seed's
    assert first == DL.run_spec(more) and json.loads(first)["seeds"] == spec["seeds"][:1]
    assert "reference_dirs" in json.loads(DL.run_spec(spec, authors=True)) or not spec.get("reference_dirs")
    agent = spec.get("deeprm_agent")
    if agent and agent.get("seeds"):
        assert DL.deeprm_agent_runs(DL.load_spec(DL.run_spec(spec, agent["seeds"][-1])))[0][1] == agent["seeds"][-1]


def test_deeprm_seeds_by_keeps_the_entries_of_the_runs_seed():
    spec = _section("config/config.yaml", "deeprm")
    spec = {**spec, "seeds": [0, 1], "seeds_by": {"completion_time": [0], "dqn": [0, 1]}}
    assert json.loads(DL.run_spec(spec, 0))["seeds_by"] == {"completion_time": [0], "dqn": [0]}
    assert json.loads(DL.run_spec(spec, 1))["seeds_by"] == {"dqn": [1]}
    spec["seeds_by"] = {"dqn": [0]}
    assert "seeds_by" not in json.loads(DL.run_spec(spec, 1))


@pytest.mark.parametrize("path", CONFIGS)
def test_mdp_run_specs_are_valid_and_do_not_move_when_a_seed_or_scenario_is_added(path):
    spec = _section(path, "mdp")
    spare = [s for s in range(1, 11) if s not in spec["scenarios"]][:1]  # the paper's config has all ten
    more = {**spec, "seeds": [*spec["seeds"], 7], "scenarios": sorted([*spec["scenarios"], *spare])}
    for seed, scenario in sorted({(r.seed, r.scenario) for r in ML.runs(spec)}):  # what run_spec depends on
        own = ML.run_spec(spec, seed, scenario)
        narrowed = ML.load_spec(own)
        assert narrowed["seeds"] == [seed] and narrowed["scenarios"] == [scenario]
        assert own == ML.run_spec(more, seed, scenario)
    for seed in spec["seeds"]:  # a transfer plays every scenario: its spec keeps them, the seed narrowed
        assert ML.load_spec(ML.run_spec(spec, seed))["scenarios"] == spec["scenarios"]
        assert ML.run_spec(spec, seed) == ML.run_spec({**spec, "seeds": [*spec["seeds"], 7]}, seed)


def test_mdp_one_scenario_seed_run_keeps_the_params_of_its_own_overlay():
    """run_seeds.py runs a scenario-seed with mdp.scenarios [s] and seeds [k]: that run's evaluation
    params are the narrowed ones of the three-scenario, three-seed spec, so putting the seeds
    together re-evaluates nothing."""
    spec = _section("config/paper-budget.yaml", "mdp")
    whole = {**spec, "seeds": [0, 1, 2]}
    for s in spec["scenarios"]:
        one = {**ML.only_scenarios(spec, [s]), "seeds": [1]}
        assert ML.run_spec(one, 1, s) == ML.run_spec(whole, 1, s)


@pytest.mark.parametrize("path", CONFIGS)
def test_mrsch_run_specs_are_valid_and_do_not_move_when_an_extra_seed_is_added(path):
    spec = _section(path, "mrsch")
    extra = MRL.extra_seeds(spec)
    more = {**spec, "extra_seeds": [*extra, 7]}
    for seed in [None, *extra]:
        text = MRL.run_spec(spec, seed)
        narrowed = MRL.load_spec(text)
        assert MRL.extra_seeds(narrowed) == ([] if seed is None else [seed])
        if seed is not None:  # the command's check: the seed is one the spec trains
            assert MRL.check_seed_run(narrowed, "mlp", MRL.PAPER_ORDERING, seed) == seed
        assert text == MRL.run_spec(more, seed)
    assert MRL.run_spec(spec, None) == MRL.run_spec({k: v for k, v in spec.items() if k != "extra_seeds"}, None)


@pytest.mark.parametrize("path", CONFIGS)
def test_runtime_run_specs_are_valid_and_do_not_move_when_a_seed_is_added(path):
    spec = _section(path, "runtime")
    more = {**spec, "agents": {**spec["agents"], "seeds": [*spec["agents"]["seeds"], 7],
                               "draws": [*RX.draws(spec), 9]}}
    for seed, draw, rep in sorted({(r[3], r[4], r[5].name) for r in RX.runs(spec)}):  # what run_spec depends on
        text = RX.run_spec(spec, rep)
        narrowed = RX.load_spec(text, agents=True)
        assert narrowed["agents"]["seeds"] == [seed] and RX.draws(narrowed) == [draw]
        assert text == RX.run_spec(more, rep), f"{path}: {rep}'s params moved when seed 7 and draw 9 were added"
        assert rep in {r[5].name for r in RX.runs(narrowed)}  # the narrowed spec still holds the run
    assert RX.run_spec(spec) == RX.run_spec(more)  # a rule over no run: the first seed's and draw's
    # a config without draws (draw 0 alone) keeps its spec: its runs' params as they were
    single = {**spec, "agents": {k: v for k, v in spec["agents"].items() if k != "draws"}}
    single["evaluate"] = {k: v for k, v in spec["evaluate"].items() if k != "budget_draws"}
    assert "draws" not in json.loads(RX.run_spec(single, "seed0"))["agents"]


def test_rules_over_one_run_take_the_narrowed_spec():
    """The per-run rules of the four papers pass run_spec, not the whole section."""
    rules = {"deeprm": ["deeprm_train_pg", "deeprm_evaluate_agent", "deeprm_evaluate_pg", "deeprm_evaluate_pg_greedy",
                        "deeprm_evaluate_random", "deeprm_evaluate_untrained", "deeprm_replay", "deeprm_budget_agent", "deeprm_budget_pg"],
             "mdp": ["mdp_evaluate", "mdp_transfer", "mdp_budget_evaluate", "mdp_transfer_budget"],
             "mrsch": ["mrsch_train_dfp", "mrsch_train_scalar", "mrsch_select", "mrsch_evaluate",
                       "mrsch_evaluate_insample", "mrsch_evaluate_budgets"],
             "runtime": ["runtime_train_rung", "runtime_train", "runtime_evaluate", "runtime_reference_random",
                         "runtime_reference_uniform", "runtime_reference_untrained", "runtime_evaluate_budget"]}
    for paper, names in rules.items():
        text = (REPO / f"workflow/rules/{paper}.smk").read_text()
        for name in names:
            body = text.split(f"\nrule {name}:\n", 1)[1].split("\nrule ", 1)[0]
            assert "run_spec(" in body and "_SPEC," not in body, f"{paper}: {name} takes the whole section"
    deeprm = (REPO / "workflow/rules/deeprm.smk").read_text()
    assert "spec=DL.run_spec(DEEPRM)," in deeprm and "spec=DL.run_spec(DEEPRM, authors=True)," in deeprm


def _check_script():
    import importlib.util

    spec = importlib.util.spec_from_file_location("check_added_seed", REPO / "scripts/check_added_seed.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_smoke_check_adds_a_seed_to_every_paper_and_reads_snakemakes_job_blocks():
    check = _check_script()
    over = check.added_seed(load_config(REPO / "config/smoke.yaml"))
    smoke = load_config(REPO / "config/smoke.yaml")
    assert over["mdp"]["seeds"] == [*smoke["mdp"]["seeds"], max(smoke["mdp"]["seeds"]) + 1]
    assert over["mrsch"]["extra_seeds"][-1] not in [smoke["mrsch"]["seed"], *smoke["mrsch"].get("extra_seeds", [])]
    assert set(over) == {"deeprm", "mdp", "mrsch", "runtime", "sem"}
    assert ("runtime.agents.seeds", over["runtime"]["agents"]["seeds"]) in check.flat(over)
    text = """Building DAG of jobs...
localrule mdp_uniform:
    input: x
    output: results/mdp/reference/uniform/H20/eval_episodes.csv
    jobid: 3
    reason: Params have changed since last execution: before: '{"seeds": [1]}' now: '{"seeds": [0]}'
    resources: tmpdir=/tmp

rule mdp_evaluate:
    output: results/mdp/H20/image/scenario6/seed0/eval_episodes.csv
    reason: Params have changed since last execution
    wildcards: horizon=20, mdp_variant=image, scenario=6, seed=0

rule mrsch_train_dfp:
    output: results/mrsch/dfp/two/mlp/a-b-c/model.zip
    reason: Missing output files: results/mrsch/dfp/two/mlp/a-b-c/model.zip
    wildcards: mrsch_group=two, mrsch_state=mlp, mrsch_ordering=a-b-c
"""
    found = check.jobs(text)
    assert [j["rule"] for j in found] == ["mdp_uniform", "mdp_evaluate", "mrsch_train_dfp"]
    assert [check.one_run(j) for j in found] == [False, True, True]  # a seed wildcard; a training
    assert found[0]["output"].endswith("uniform/H20/eval_episodes.csv") and check.PARAMS in found[1]["reason"]
