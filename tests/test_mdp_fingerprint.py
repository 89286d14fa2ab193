"""MDP-design paper, issue 41: every evaluated agent gets a fingerprint.json, fingerprints.csv has one
row per agent, and the RL claims carry the random / untrained references (a claim that the random
policy also reproduces is marked uninformative)."""

import json
import shutil
import warnings

import pytest
import torch

from schedrl.experiments.fingerprint import fingerprint_table
from schedrl.papers.mdp import claims as mc
from schedrl.papers.mdp import evaluation as me
from schedrl.papers.mdp import layout as ml
from schedrl.papers.mdp import references as mr

TRIALS = 3


def _spec():
    return {"horizon": 20, "scenarios": [1], "variants": ["image", "compact", "compact-sparse-reduced"],
            "seeds": [0], "train": {"steps": 800, "checkpoint_every": 100, "curve_window": 3},
            "eval": {"trials": TRIALS, "jobset_seed": 1000000, "deterministic": True},
            "fig3": {"scenarios": [1]}, "transfer": {"variant": "compact-sparse-reduced", "scenario": 1},
            "horizon_study": {"horizon": 60, "scenarios": [1], "variants": ["compact"]},
            "fig5": {"horizons": [20, 40], "scenarios": [1], "steps": 100}}


@pytest.fixture(scope="module")
def references(tmp_path_factory):
    """Both references played through a tiny spec (5 agents each: 4 runs and 1 transfer)."""
    root = tmp_path_factory.mktemp("mdp")
    spec = ml.check_spec(_spec())
    for agent in ml.REFERENCE_AGENTS:
        mr.evaluate_references(spec, root, agent)
    return spec, root


def _save_run(folder, variant, sid, horizon, seed):
    """A run folder as ``schedrl train`` leaves it, holding the untrained network."""
    model = mr.untrained_model(variant, sid, horizon, seed)
    folder.mkdir(parents=True, exist_ok=True)
    model.save(folder / "model.zip")
    (folder / "config.json").write_text(json.dumps({"algo": "ppo", "seed": seed,
                                                    "env_kwargs": ml.env_kwargs(variant, sid, horizon)}))


def test_evaluate_writes_a_sane_fingerprint(tmp_path):
    spec = ml.check_spec(_spec())
    folder = ml.run_dir(tmp_path, 20, "compact-sparse-reduced", 1, 0)
    _save_run(folder, "compact-sparse-reduced", 1, 20, 0)
    frame = me.evaluate_trained(folder, spec, ml.eval_path(folder))
    assert len(frame) == TRIALS
    fp = json.loads(ml.fingerprint_path(folder).read_text())
    assert fp["kind"] == "trained" and fp["seed"] == 0 and fp["episodes"] == TRIALS
    assert fp["agent"] == "PPO compact + sparse + reduced s1 H20 seed 0"
    assert fp["decisions"] == frame["agent_steps"].sum() and 0 < fp["contested"] <= fp["decisions"]
    assert 0 < fp["chance"] <= 0.5
    slots = [fp[f"agree_slot_{k}"] for k in range(11)]
    assert sum(slots) == pytest.approx(1.0)
    assert all(0 <= fp[f"agree_{h}"] <= 1 for h in ("fcfs", "sjf", "smallest_area", "largest"))
    assert fp["hidden_units"] == 128 and fp["entropy_median"] > 0  # the policy's 64-64 tanh net, its logits


def test_transfer_fingerprint_covers_every_scenario(tmp_path):
    spec = ml.check_spec({**_spec(), "scenarios": [1, 9], "fig3": {"scenarios": [1]}})
    folder = ml.run_dir(tmp_path, 20, "compact-sparse-reduced", 9, 0)
    _save_run(folder, "compact-sparse-reduced", 9, 20, 0)
    out = ml.eval_path(ml.transfer_dir(tmp_path, 20, "compact-sparse-reduced", 9, 0))
    frame = me.evaluate_trained(folder, spec, out, transfer=True)
    fp = json.loads(ml.fingerprint_path(out.parent).read_text())
    assert fp["transfer"] and fp["evaluated_in"] == "1 9" and fp["episodes"] == len(frame) == 2 * TRIALS


def test_lockstep_plays_as_the_core_rollout():
    """The recorded evaluation loop plays the trained agent exactly as envs.rollout.run_lockstep did."""
    from schedrl.envs.rollout import run_lockstep
    from schedrl.experiments.envs import make_env

    model = mr.untrained_model("compact", 1, 20, 3)
    kwargs = ml.env_kwargs("compact", 1, 20)
    seeds = [7, 8, 9]
    ours = me.evaluate_model(model, kwargs, 3, 7, deterministic=False, seed=5)
    torch.manual_seed(5)
    envs = [make_env(ml.ENV_ID, {**kwargs, "jobset_seed": s, "num_jobsets": 1}) for s in seeds]
    core = run_lockstep(model, envs, seeds, deterministic=False)
    assert ours["return"].tolist() == pytest.approx([c["return"] for c in core])
    assert ours["agent_steps"].tolist() == [c["steps"] for c in core]


def test_untrained_is_the_network_training_starts_from():
    from stable_baselines3 import PPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from schedrl.agents.hyperparams import load_hyperparams, resolve_hyperparams
    from schedrl.experiments.envs import make_env

    policy, _, kwargs = resolve_hyperparams("ppo", load_hyperparams("ppo", "mdp"))
    venv = DummyVecEnv([lambda: make_env(ml.ENV_ID, ml.env_kwargs("compact", 1, 20), ml.WRAPPERS)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        at_start = PPO(policy, venv, seed=4, device="cpu", **kwargs)  # as schedrl train builds it
    ours = mr.untrained_model("compact", 1, 20, 4)
    for a, b in zip(at_start.policy.parameters(), ours.policy.parameters()):
        assert torch.equal(a, b)


def test_random_reference_plays_valid_actions_at_chance(references):
    spec, root = references
    fp = me.agent_fingerprint(root, 20, "image", 1, 0, kind="random")
    assert fp["kind"] == "random" and fp["plays_as"] == ""
    assert "entropy_median" not in fp  # no scores
    assert abs(fp["agree_fcfs"] - fp["chance"]) < 0.15


def test_fingerprints_csv_has_one_row_per_agent(references):
    spec, root = references
    paths = ml.fingerprint_files(spec, root, kinds=ml.REFERENCE_AGENTS)
    assert len(paths) == 2 * (len(ml.runs(spec)) + len(spec["seeds"]))
    table = fingerprint_table(paths)
    assert len(table) == len(paths) and table["agent"].is_unique
    assert {"agent", "kind", "variant", "scenario", "horizon", "seed", "contested", "agree_fcfs"} <= set(table.columns)
    assert set(table["kind"]) == {"random", "untrained"}


def test_claims_on_random_play_are_uninformative(references, tmp_path):
    """Trained agents replaced by the random one: every RL claim's verdict equals its random
    reference, and a claim that reproduces is marked uninformative."""
    spec, refs = references
    root = tmp_path / "mdp"
    shutil.copytree(ml.reference_root(refs, "random"), root)  # the "trained" agents play at random
    shutil.copytree(refs / "reference", root / "reference")
    rows = mc.fig4_rows(spec, root)[0] + mc.fig6_rows(spec, root)[0] + mc.horizon_rows(spec, root)[0]
    out = {r["claim_id"]: r for r in mc.with_references(rows, spec, root)}
    assert set(out) == set(mc.REFERENCE_CLAIMS)
    held = ("reproduced", "partly reproduced")
    for cid, row in out.items():
        assert row["random_verdict"] == row["verdict"], cid
        assert row["untrained_verdict"] in ("reproduced", "partly reproduced", "not reproduced", "not comparable")
        assert row["uninformative"] == ("yes" if row["verdict"] in held else "no"), cid
    # one scenario, none of the paper's "significantly better" ones: nothing better reproduces it
    assert out["fig4-better"]["verdict"] == "reproduced" and out["fig4-better"]["uninformative"] == "yes"
    assert "uninformative" in out["fig4-better"]["note"]


def test_claims_without_reference_tables_leave_the_columns_empty(tmp_path):
    spec = ml.check_spec(_spec())
    row = {"paper": "mdp", "claim_id": "fig4-better", "claim": "c", "paper_value": "", "ours": "",
           "verdict": "reproduced", "note": "n"}
    out = mc.with_references([row, {**row, "claim_id": "params-compact"}], spec, tmp_path)
    assert out[0]["random_verdict"] == "" and out[0]["uninformative"] == "" and out[0]["plays_as"] == ""
    assert "random_verdict" not in out[1]  # not a claim about a trained agent
