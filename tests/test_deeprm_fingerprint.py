"""DeepRM report (issue 41): the evaluation fingerprints every agent it plays, the random and
untrained references play through the same evaluation, fingerprints.csv has one row per evaluated
agent and protocol, and the claims carry the references' verdicts (a claim that random play also
reproduces is uninformative)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from schedrl.cli import main
from schedrl.io import write_csv
from schedrl.papers.deeprm import evaluation as de
from schedrl.papers.deeprm import layout as dl
from schedrl.papers.deeprm import references as dr
from schedrl.papers.deeprm import training as dt
from schedrl.papers.deeprm.claims import claims_rows
from schedrl.report.claims import REFERENCE_COLUMNS, read_claims, write_claims

SPEC = {
    "env": {"num_res": 2, "time_horizon": 20, "max_job_len": 15, "res_slot": 10, "max_job_size": 10,
            "backlog_size": 60, "simu_len": 12, "episode_max_length": 60},
    "variants": {"discrete-image": {"env": {"num_nw": 10, "workload": "deeprm"}, "algos": ["a2c"]}},
    "objectives": ["slowdown"],
    "baselines": ["sjf", "packer", "random"],
    "seeds": [0],
    "train": {"rate": 0.7, "steps": 60, "jobset_seed": 0, "num_jobsets": 2, "checkpoint_every": 30,
              "episodes_per_iteration": 2},
    "eval": {"rates": [0.6, 0.7], "box_rate": 0.7, "withheld_rate": 0.6, "episodes": 1,
             "jobset_seed": 1000, "deterministic": False, "episode_max_length": 300,
             "report": {"jobset_seed": 42, "episodes": 1, "episode_max_length": 300}},
}


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    """A tiny A2C run evaluated under every protocol by the CLI, beside its two references."""
    from schedrl.agents import load_hyperparams
    from schedrl.experiments.train import train

    root = tmp_path_factory.mktemp("results")
    run = dl.run_dir(root, "discrete-image", "a2c", "slowdown", 0)
    train(dl.ENV_ID, dt.env_kwargs(SPEC, "discrete-image", "slowdown"), "a2c",
          load_hyperparams("a2c", "deeprm-discrete-image"), SPEC["train"]["steps"], 0, run, wrappers=dl.WRAPPERS)
    for protocol in dl.AGENT_PROTOCOLS:
        paths = dl.eval_paths(run, protocol)
        assert main(["deeprm", "evaluate", "--spec", json.dumps(SPEC), "--variant", "discrete-image",
                     "--protocol", protocol, "--run-dir", str(run), "--out-jobs", str(paths["jobs"]),
                     "--out-episodes", str(paths["episodes"]),
                     "--out-fingerprint", str(dl.fingerprint_path(run, protocol))]) == 0
    for variant, ref, algo, seed in dl.reference_runs(SPEC):
        dr.evaluate_reference(SPEC, variant, ref, algo, seed, dl.reference_dir(root, variant, ref, algo, seed))
    return root


def test_evaluation_writes_sane_fingerprints(root):
    run = dl.run_dir(root, "discrete-image", "a2c", "slowdown", 0)
    fp = json.loads(dl.fingerprint_path(run, "heldout").read_text())
    assert fp["agent"] == "A2C (slowdown) discrete-image seed 0" and fp["kind"] == "trained"
    assert (fp["algo"], fp["seed"], fp["protocol"], fp["episodes"]) == ("a2c", 0, "heldout", 2)
    assert 0 < fp["contested"] <= fp["decisions"] and 0 < fp["chance"] < 1
    assert all(0 <= fp[f"agree_{h}"] <= 1 for h in ("fcfs", "sjf", "smallest_area", "largest"))
    assert sum(fp[f"agree_slot_{k}"] for k in range(11)) == pytest.approx(1.0)  # 10 slots + void
    # the policy's logits were read: entropy against uniform, hidden units of the actor
    assert 0 <= fp["entropy_median"] <= fp["entropy_uniform_median"] + 1e-9 and fp["hidden_units"] > 0
    # recording does not change what is played: the same evaluation again gives the same episodes
    make_policy, kwargs = de.agent_policy_factory(run, False, SPEC["eval"]["jobset_seed"])
    setup = dl.protocol_setup(SPEC, "heldout")
    _, plain = de.evaluate_over_rates(make_policy, {**kwargs, **setup["overrides"]}, setup["rates"],
                                      setup["episodes"], setup["jobset_seed"])
    written = pd.read_csv(dl.eval_paths(run, "heldout")["episodes"])
    assert np.allclose(plain["mean_slowdown"], written["mean_slowdown"], rtol=1e-5)
    rand = json.loads(dl.fingerprint_path(dl.reference_dir(root, "discrete-image", "random", "", 0), "heldout").read_text())
    assert rand["kind"] == "random" and rand["plays_as"] == "" and "entropy_median" not in rand
    untrained = dr.untrained_model(SPEC, "discrete-image", "a2c", 0)
    again = dr.untrained_model(SPEC, "discrete-image", "a2c", 0)
    for a, b in zip(untrained.policy.parameters(), again.policy.parameters()):
        assert np.array_equal(a.detach().numpy(), b.detach().numpy())  # the seed fixes the start


def test_fingerprints_table_has_one_row_per_agent_and_protocol(root, tmp_path):
    out = tmp_path / "fingerprints.csv"
    assert main(["deeprm", "fingerprints", "--spec", json.dumps(SPEC), "--root", str(root), "--out", str(out)]) == 0
    table = pd.read_csv(out, keep_default_na=False)
    assert len(table) == 3 * len(dl.AGENT_PROTOCOLS)  # trained A2C, its random and untrained stand-ins
    assert sorted(set(table["kind"])) == ["random", "trained", "untrained"]
    assert {"agent", "variant", "algo", "seed", "protocol", "contested", "plays_as"} <= set(table.columns)


def _episodes(value, rates):
    return pd.DataFrame({"rate": rates, "load": [1.845 * r for r in rates], "episode": 0, "mean_slowdown": value,
                         "mean_completion_time": 10 * value, "mean_slowdown_all": value,
                         "mean_slowdown_placed": value, "n_never_placed": 0, "never_placed_lengths": ""})


def _fake(root, spec, agent, random, untrained, sjf=4.9):
    """Chosen mean slowdowns for the trained agents, their references and the heuristics."""
    rates = spec["eval"]["rates"]
    for protocol in dl.AGENT_PROTOCOLS:
        for variant in spec["variants"]:
            for algo, objective, seed in dl.agent_runs(spec, variant):
                for ref, value in ((None, agent), ("random", random), ("untrained", untrained)):
                    folder = dl.agent_eval_dir(root, variant, algo, objective, seed, ref)
                    write_csv(dl.eval_paths(folder, protocol)["episodes"], _episodes(value, rates))
                    write_csv(dl.eval_paths(folder, protocol)["jobs"], pd.DataFrame(
                        {"rate": 0.6, "load": 1.1, "length": [12, 12, 12, 1, 2, 3, 11, 1],
                         "withheld": [True] * 4 + [False] * 4}))
            for name in spec["baselines"] if protocol in dl.PROTOCOLS else []:
                write_csv(dl.eval_paths(dl.baseline_dir(root, variant, name), protocol)["episodes"],
                          _episodes(sjf if name == "sjf" else sjf + 1, rates))


def test_claims_carry_the_references(tmp_path):
    spec = copy.deepcopy(SPEC)
    # random play "reproduces" the headline as well as the agent: uninformative; untrained does not
    _fake(tmp_path, spec, agent=3.9, random=3.9, untrained=9.0)
    run = dl.run_dir(tmp_path, "discrete-image", "a2c", "slowdown", 0)
    (run / "eval_heldout_fingerprint.json").write_text(json.dumps(
        {"agent": "A2C (slowdown) discrete-image seed 0", "decisions": 500, "contested": 412, "agree_fcfs": 0.2,
         "agree_sjf": 0.99, "agree_smallest_area": 0.5, "agree_largest": 0.1, "top_slot": 0, "top_slot_share": 0.3,
         "plays_as": "sjf"}))
    write_claims(tmp_path / "claims.csv", claims_rows(spec, tmp_path))
    claims = read_claims(tmp_path / "claims.csv").set_index("claim_id")
    row = claims.loc["d2-a2c-slowdown@heldout"]
    assert row["verdict"] == "reproduced" and row["random_verdict"] == "reproduced"
    assert row["untrained_verdict"] == "not reproduced" and row["uninformative"] == "yes"
    assert row["plays_as"] == "plays as SJF (99% of 412 contested decisions)" and row["plays_as"] in row["note"]
    assert claims.loc["d2-a2c-slowdown@report", "plays_as"] == ""  # no report-protocol fingerprint here
    assert claims.loc["d2-rl-beats-sjf@heldout", "random_verdict"] != ""
    # claims about heuristics or not comparable here carry no references
    for cid in ("d2-sjf-slowdown@heldout", "acktr", "d2-trpo-slowdown@heldout"):
        assert all(claims.loc[cid, c] == "" for c in REFERENCE_COLUMNS)
    # an agent far better than both references: informative
    _fake(tmp_path / "b", spec, agent=3.9, random=9.0, untrained=9.0)
    rows = {r["claim_id"]: r for r in claims_rows(spec, tmp_path / "b")}
    assert rows["d2-a2c-slowdown@heldout"]["uninformative"] == "no"
    assert rows["d2-a2c-slowdown@heldout"]["random_verdict"] == "not reproduced"


def test_one_process_for_every_protocol_writes_the_separate_runs_files(root, tmp_path, capsys):
    """The workflow plays an agent's protocols in one rule (``--protocol ... --out-dir``): the files
    equal, byte for byte, those of one process per protocol (the fixture's), and so do the budget
    checkpoints' and a baseline's."""
    run = dl.run_dir(root, "discrete-image", "a2c", "slowdown", 0)
    spec = json.dumps(SPEC)
    out = tmp_path / "merged"
    assert main(["deeprm", "evaluate", "--spec", spec, "--variant", "discrete-image", "--protocol",
                 *dl.AGENT_PROTOCOLS, "--run-dir", str(run), "--out-dir", str(out)]) == 0
    written = dl.eval_outputs(out, dl.AGENT_PROTOCOLS, fingerprint=True)
    assert len(written) == 9
    for path in map(Path, written):
        assert path.read_bytes() == (run / path.name).read_bytes(), path.name
    # budgets: both protocols in one process, as each alone
    assert main(["deeprm", "evaluate-budgets", "--spec", spec, "--protocol", *dl.PROTOCOLS, "--run-dir", str(run),
                 "--out-dir", str(out)]) == 0
    for protocol in dl.PROTOCOLS:
        alone = tmp_path / f"budget_{protocol}.csv"
        assert main(["deeprm", "evaluate-budgets", "--spec", spec, "--protocol", protocol, "--run-dir", str(run),
                     "--out", str(alone)]) == 0
        assert dl.budget_path(out, protocol).read_bytes() == alone.read_bytes()
    # a baseline: both protocols in one process, as each alone
    base = tmp_path / "sjf"
    assert main(["deeprm", "evaluate", "--spec", spec, "--variant", "discrete-image", "--baseline", "sjf",
                 "--protocol", *dl.PROTOCOLS, "--out-dir", str(base)]) == 0
    assert sorted(p.name for p in base.iterdir()) == sorted(Path(p).name for p in dl.eval_outputs(base, dl.PROTOCOLS))
    alone = dl.eval_paths(tmp_path / "sjf-alone", "report")
    assert main(["deeprm", "evaluate", "--spec", spec, "--variant", "discrete-image", "--baseline", "sjf",
                 "--protocol", "report", "--out-jobs", str(alone["jobs"]), "--out-episodes", str(alone["episodes"])]) == 0
    assert alone["episodes"].read_bytes() == dl.eval_paths(base, "report")["episodes"].read_bytes()
    capsys.readouterr()
    # several protocols need --out-dir; one needs both tables named; one clear line each
    for argv, says in ((["--protocol", *dl.PROTOCOLS, "--out-jobs", "j.csv", "--out-episodes", "e.csv"], "--out-dir"),
                       (["--protocol", "report", "--out-jobs", "j.csv"], "--out-episodes"),
                       (["--out-dir", str(tmp_path / "x"), "--out-jobs", "j.csv"], "leave out --out-jobs")):
        assert main(["deeprm", "evaluate", "--spec", spec, "--variant", "discrete-image", "--baseline", "sjf",
                     *argv]) == 2
        err = capsys.readouterr().err
        assert says in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert not (tmp_path / "x").exists()


def test_budget_checkpoints_are_those_of_the_steps_asked_for(tmp_path):
    """PPO ends its last rollout past the steps asked for (96 for 80 here, 300,032 for 300,000 at
    default scale); the budget evaluation plays the first checkpoints at or after 1/8, 1/4 and 1/2
    of the 80 asked for. Checkpoints fall on rollout boundaries (issue 70: where a resume is exact),
    here every 32 steps: 32 for 10 and 20, 64 for 40."""
    from schedrl.agents import load_hyperparams
    from schedrl.experiments.train import train

    run = dl.run_dir(tmp_path, "discrete-image", "ppo", "slowdown", 0)
    params = {**load_hyperparams("ppo", "deeprm-discrete-image"), "n_steps": 32, "batch_size": 32}
    result = train(dl.ENV_ID, dt.env_kwargs(SPEC, "discrete-image", "slowdown"), "ppo", params, 80, 0, run,
                   wrappers=dl.WRAPPERS, checkpoint_every=10)
    assert result.steps == 96
    budgets = de.evaluate_budgets(SPEC, run, "heldout", 0.7)
    assert budgets.groupby("fraction")["budget"].first().to_dict() == {0.125: 32, 0.25: 32, 0.5: 64}
    assert set(budgets["model"]) == {"step_32.zip", "step_64.zip"}
