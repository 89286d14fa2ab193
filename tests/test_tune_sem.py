"""The SEM paper's hyperparameter study (issue 69, schedrl.papers.sem.tuning): its config checks, a
trial's agent trained as sem train trains it and scored on the validation part only, and
`schedrl tune sem` end to end at toy size, its recipe a config overlay `schedrl config` accepts."""

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from schedrl.errors import ConfigError
from toy_trees import as_the_rule_gives, sem_split

ROOT = Path(__file__).resolve().parents[1]
TRACE = "datastar"  # a key of config.yaml's sem.agents.networks, so the recipe merges over it
HP = {"discount": 0.6, "baseline": "normalise", "optimizer": "adam", "learning_rate": 0.001, "activation": "relu",
      "trajectories": 2, "examples_per_update": 1, "mask_actions": True, "contested_only": True}


def _split(folder: Path, n_jobs: int = 90, nodes: int = 64) -> Path:
    return sem_split(folder, n_jobs, nodes)


def _spec() -> dict:
    """A sem section with one toy machine and a toy study (3 trials of 2 seeds x 40 training jobs)."""
    return {"agents": {
        "traces": [TRACE], "seed": 0, "extra_seeds": [], "hyperparams": dict(HP),
        "networks": {TRACE: {"nodes": 64, "k": 4, "reward": "neg_slowdown", "hidden": {"sem": [16, 8], "dras": [16]}}}},
        "tune": {"trials": 3, "seeds": 2, "steps": 40, "checks": 2, "budget_core_h": 1.0, "startup_trials": 1,
                 "space": {"learning_rate": {"type": "float", "low": 1e-4, "high": 1e-2, "log": True},
                           "update_every": {"type": "categorical", "choices": [0, 8]},
                           "hidden": {"type": "categorical", "choices": [[8], [16, 8]]},
                           "episode_jobs": {"type": "categorical", "choices": [10, 20]}}}}


@pytest.mark.parametrize("change, key", [
    (lambda s: s["tune"].update(colour=1), "sem.tune.colour"),
    (lambda s: s["tune"].update(trace="atlas"), "sem.tune.trace"),
    (lambda s: s["tune"].update(encoder="image"), "sem.tune.encoder"),
    (lambda s: s["tune"].update(metric="makespan"), "sem.tune.metric"),
    (lambda s: s["tune"].update(seeds=1), "sem.tune.seeds"),
    (lambda s: s["tune"].update(steps=41), "sem.tune.steps"),  # not a multiple of checks
    (lambda s: s["tune"].update(steps=30, checks=2), "sem.tune.steps"),  # a check shorter than an episode
    (lambda s: s["tune"]["space"].update(entropy={"type": "float", "low": 0.0, "high": 0.1}), "sem.tune.space.entropy"),
    (lambda s: s["tune"]["space"].update(examples_per_update={"type": "categorical", "choices": [1, 2]}),
     "sem.tune.space.examples_per_update"),
    (lambda s: s["tune"]["space"].update(learning_rate={"type": "float", "low": -1.0, "high": 0.1}),
     "sem.tune.space.learning_rate"),
    (lambda s: s["tune"]["space"].update(hidden={"type": "categorical", "choices": [[8], [0]]}), "sem.tune.space.hidden"),
    (lambda s: s["tune"]["space"].update(episode_jobs={"type": "categorical", "choices": [10, 0]}),
     "sem.tune.space.episode_jobs"),
    (lambda s: s["tune"]["space"].update(mask_actions={"type": "categorical", "choices": [True, False]}),
     "sem.tune.space.mask_actions"),  # contested_only needs masks
    (lambda s: s.pop("tune"), "sem.tune"),
])
def test_sem_tune_checks_name_the_key(change, key):
    from schedrl.papers.sem import tuning

    spec = _spec()
    change(spec)
    with pytest.raises(ConfigError, match=key.replace(".", r"\.") + r"\b") as err:
        tuning.tune_spec(spec)
    assert len(str(err.value).splitlines()) == 1


def test_schedrl_tune_sem_bad_config_is_one_line(capsys):
    from schedrl.cli import main

    spec = _spec()
    spec["tune"]["space"]["entropy"] = {"type": "float", "low": 0.0, "high": 0.1}
    assert main(["tune", "sem", "--spec", json.dumps(spec)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "sem.tune.space.entropy" in err[0]


def test_trial_spec_puts_each_value_where_the_rules_read_it():
    from schedrl.papers.sem import tuning

    spec = _spec()
    own, _ = tuning.tune_spec(spec)
    assert own == {"trace": TRACE, "encoder": "sem", "metric": "mean_wait"}  # the defaults: first trace, SEM
    run = tuning.trial_spec(spec, own, {"learning_rate": 0.003, "hidden": [8], "episode_jobs": 10, "update_every": 8})
    agents = run["agents"]
    assert "tune" not in run and agents["hyperparams"]["learning_rate"] == 0.003
    # update_every plays one trajectory (ReinforceConfig's rule), whatever the config's trajectories
    assert agents["hyperparams"]["update_every"] == 8 and agents["hyperparams"]["trajectories"] == 1
    assert agents["networks"][TRACE]["hidden"] == {"sem": [8], "dras": [16]}
    assert agents["networks"][TRACE]["episode_jobs"] == 10
    assert spec["agents"]["hyperparams"] == HP  # the config is left as it was
    a = tuning.agent_spec(run, own, 1)
    assert a.seed == 1 and a.hidden == [8] and a.reinforce_config().update_every == 8


@pytest.mark.parametrize("episode_jobs", [None, 10])
def test_the_learner_trains_as_sem_train_trains_and_scores_on_validation_only(tmp_path, episode_jobs):
    """SemLearner in chunks ends with the weights of train_agent's model after as many episodes (with
    the split's episode length, and with episode_jobs in its place); its score is minus the mean wait
    of greedy play on the validation part, train_agent's validation row, and it never reads the test part."""
    import torch

    from schedrl.papers.sem import agents as A
    from schedrl.papers.sem import tuning

    split = _split(tmp_path / TRACE)
    spec = _spec()
    own, _ = tuning.tune_spec(spec)
    params = {} if episode_jobs is None else {"episode_jobs": episode_jobs}
    run = tuning.trial_spec(spec, own, params)
    agent = tuning.agent_spec(run, own, 1)
    E = episode_jobs or 20
    A.train_agent(split, agent, tmp_path / "trained", episodes=3, episode_jobs=episode_jobs)
    trained = A.load_policy(tmp_path / "trained" / "run" / "model.zip")
    val = pd.read_csv(tmp_path / "trained" / "validation.csv")
    test = json.loads((tmp_path / "trained" / "test.json").read_text())

    (split / "test.swf").unlink()  # a study reads the training and validation parts only
    learner = tuning.start_learner(spec, own, params, 1, base=tmp_path)
    assert learner.split.manifest["episode_jobs"] == 20 and learner.episode_jobs == E
    try:
        learner.advance(E + E // 2)  # one episode ends within these jobs
        assert learner.done == 1
        learner.advance(2 * E - E // 2)  # two more
        assert learner.done == 3
        mine = learner.policy.net.state_dict()
        assert all(torch.equal(v, mine[k]) for k, v in trained.net.state_dict().items())
        score = learner.score()
        assert score == pytest.approx(-float(val.loc[val["episode"] == 3, "mean_wait"].iloc[0]))
        assert score != pytest.approx(-float(test["mean_wait"]))  # the test part is another schedule
        assert learner.score() == score  # greedy play: the same score again
        with pytest.raises(ConfigError, match="sem.tune.steps"):
            learner.advance(60)  # past the training part
    finally:
        learner.close()
    assert not learner.run_dir.exists()  # the trial's run folder goes with it


def test_schedrl_tune_sem_end_to_end(tmp_path, monkeypatch, capsys):
    from schedrl.cli import main
    from schedrl.config import merge_config
    from schedrl.papers.sem import tuning

    monkeypatch.chdir(tmp_path)
    _split(tmp_path / tuning.SPLIT_ROOT / TRACE)
    text = as_the_rule_gives("sem", _spec())
    assert main(["tune", "sem", "--spec", text, "--out", "study", "--write-config", "tuned.yml"]) == 0
    trials = pd.read_csv("study/trials.csv")
    assert len(trials) == 3 and (trials["value"] < 0).all()  # minus a mean wait
    assert all(len(v.split()) == 2 for v in trials["seed_values"])  # two seeds per trial
    assert {"param_learning_rate", "param_update_every", "param_hidden", "param_episode_jobs"} <= set(trials.columns)
    recipe = Path("study/recipe.yml").read_text()
    assert recipe == Path("tuned.yml").read_text() and recipe.startswith("# The SEM paper's tuned recipe")
    assert Path("tuned.trials.csv").is_file() and Path("tuned.references.csv").is_file()
    refs = pd.read_csv("study/references.csv")
    assert set(refs["reference"]) == {"FCFS + EASY", "SJF + EASY", "random valid slots", "untrained network"}
    assert (refs["score"] < 0).all() and np.isfinite(refs["score"]).all()
    overlay = yaml.safe_load(recipe)
    agents = overlay["sem"]["agents"]
    assert set(overlay) == {"sem"} and agents["extra_seeds"] == [1, 2]  # three seeds with sem.agents.seed
    done = trials[trials["state"] == "complete"]  # a pruned trial's last report may be higher
    best = done.loc[done["value"].idxmax()]
    assert agents["hyperparams"]["learning_rate"] == pytest.approx(best["param_learning_rate"])
    assert agents["hyperparams"]["update_every"] == int(best["param_update_every"])
    assert "-".join(str(n) for n in agents["networks"][TRACE]["hidden"]["sem"]) == str(best["param_hidden"])
    assert agents["networks"][TRACE]["episode_jobs"] == int(best["param_episode_jobs"])
    assert "the recipe of trial" in capsys.readouterr().out
    # the recipe is an overlay `schedrl config` accepts over sem's paper budget (config.yaml: the default
    # is it), and it lands where sem's rules read their values
    assert main(["config", str(ROOT / "config" / "config.yaml"), "tuned.yml"]) == 0
    assert capsys.readouterr().out.count(": ok") == 2
    merged = merge_config(yaml.safe_load((ROOT / "config" / "config.yaml").read_text()), overlay)["sem"]["agents"]
    assert merged["hyperparams"]["discount"] == 0.6  # the rest of the paper's recipe kept
    assert merged["networks"][TRACE]["nodes"] == 1664 and merged["networks"][TRACE]["hidden"]["dras"] == [1000, 250]
    # the study's block alone, as the rule passes the section: `--references` writes only the references
    assert main(["tune", "sem", "--spec", text, "--out", "refs", "--references"]) == 0
    assert Path("refs/references.csv").is_file() and not Path("refs/trials.csv").exists()


def test_schedrl_tune_names_every_paper_with_a_study(capsys):
    from schedrl.cli import main

    assert main(["tune", "nosuch", "--spec", "{}"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "nosuch" in err[0]
    assert all(p in err[0] for p in ("deeprm", "mdp", "sem", "mrsch", "runtime"))
