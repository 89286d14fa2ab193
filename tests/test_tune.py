"""Hyperparameter studies (issue 69): the study runner on a known objective (search, pruning, budget
guard, determinism, the CSV), the config checks, and the runtime paper's and the DeepRM report's studies
end to end at toy size."""

import json
from pathlib import Path

import pandas as pd
import pytest
import yaml

from schedrl.errors import ConfigError
from schedrl.experiments.tune import choice_label, run_study, study_spec
from toy_trees import as_the_rule_gives, deeprm_spec, mrsch_tree, study_pins

SPACE = {"x": {"type": "float", "low": -2.0, "high": 2.0},
         "width": {"type": "categorical", "choices": [[8, 8], [64]]}}
RAW = {"trials": 8, "seeds": 2, "steps": 40, "checks": 4, "budget_core_h": 1.0, "space": SPACE,
       "startup_trials": 2}


class Quadratic:
    """Learns toward -x^2 (+ a width bonus) as it trains; seeds add a small offset."""

    def __init__(self, params, seed, log):
        self.params, self.seed, self.trained, self.log = params, seed, 0, log
        log.append((dict(params), seed))

    def advance(self, steps):
        self.trained += steps

    def score(self):
        target = -self.params["x"] ** 2 + (0.5 if self.params["width"] == [64] else 0.0) + 0.01 * self.seed
        return target * self.trained / 40

    def close(self):
        pass


def _study(tmp_path, name="a", **over):
    started = []
    spec = study_spec({**RAW, **over}, "test.tune")
    result = run_study(spec, lambda p, s: Quadratic(p, s, started), tmp_path / name / "trials.csv",
                       log=lambda line: None)
    return result, started


def test_the_study_finds_the_optimum_region_keeps_every_trial_and_is_reproducible(tmp_path):
    result, started = _study(tmp_path, "a", trials=20)
    trials = pd.read_csv(tmp_path / "a" / "trials.csv")
    assert len(trials) == 20 and set(trials["state"]) <= {"complete", "pruned"}
    assert {"number", "value", "seed_values", "cpu_s", "checks_done", "param_x", "param_width"} <= set(trials.columns)
    # two seeds per trial, the same two in every trial
    assert {s for _, s in started} == {0, 1} and len(started) == 2 * 20
    # list choices come back as lists; the best trial is near x = 0 with the wider net
    assert result.best_params["width"] == [64] and abs(result.best_params["x"]) < 0.5
    assert trials.loc[trials["value"].idxmax(), "number"] == result.best_number
    again, _ = _study(tmp_path, "b", trials=20)
    assert pd.read_csv(tmp_path / "b" / "trials.csv").drop(columns=["cpu_s", "wall_s"]).equals(
        trials.drop(columns=["cpu_s", "wall_s"]))
    assert again.best_params == result.best_params


class Killed(BaseException):
    """What a SIGKILL leaves behind, as an exception: the trial in progress never finishes."""


def test_a_study_killed_mid_trial_resumes_to_the_uninterrupted_studys_trials(tmp_path):
    """Issue 70 for studies: journalled (resume_key), a study killed during its sixth trial and started
    again keeps its five finished trials, draws the killed one again from TPE's restored state, and
    ends with the uninterrupted study's trials.csv (CPU and wall times aside) and recipe."""
    spec = study_spec({**RAW, "trials": 12}, "test.tune")
    whole = run_study(spec, lambda p, s: Quadratic(p, s, []), tmp_path / "whole" / "trials.csv", log=lambda line: None,
                      resume_key="spec v1")
    started = []

    def dies_in_trial_6(p, s):
        if len(started) == 2 * 5 + 1:
            raise Killed
        return Quadratic(p, s, started)

    with pytest.raises(Killed):
        run_study(spec, dies_in_trial_6, tmp_path / "cut" / "trials.csv", log=lambda line: None, resume_key="spec v1")
    assert len(pd.read_csv(tmp_path / "cut" / "trials.csv")) == 5
    lines = []
    resumed = run_study(spec, lambda p, s: Quadratic(p, s, started), tmp_path / "cut" / "trials.csv",
                        log=lines.append, resume_key="spec v1")
    assert any("resumed after 5 finished trials" in line for line in lines)
    drop = ["cpu_s", "wall_s"]
    assert pd.read_csv(tmp_path / "cut" / "trials.csv").drop(columns=drop).equals(
        pd.read_csv(tmp_path / "whole" / "trials.csv").drop(columns=drop))
    assert (resumed.best_params, resumed.best_number) == (whole.best_params, whole.best_number)
    # another spec behind the same folder starts afresh: all 12 trials run again
    again = []
    run_study(spec, lambda p, s: Quadratic(p, s, again), tmp_path / "cut" / "trials.csv", log=lambda line: None,
              resume_key="spec v2")
    assert len(again) == 2 * 12


def test_the_probe_gate_prunes_a_trainer_that_fails_before_it_trains(tmp_path):
    """probe_gate: each trial's trainer goes through the learning probe first; one that fails is
    pruned at check 0 without training (its learners never start), and trials.csv says which."""
    from schedrl.experiments.probes import TrainerProbe

    spec = study_spec({**RAW, "trials": 10, "probe_gate": True}, "test.tune")
    started = []

    def gate(params):  # a stand-in probe: trainers of x > 0 learn nothing
        ok = params["x"] <= 0
        return TrainerProbe(passed=ok, gains=[0.5 if ok else 0.0], problems=[] if ok else ["no"], lines=[])

    result = run_study(spec, lambda p, s: Quadratic(p, s, started), tmp_path / "trials.csv", log=lambda line: None,
                       gate=gate)
    trials = pd.read_csv(tmp_path / "trials.csv")
    failed = trials[trials["gate"] == "failed"]
    assert len(failed) and (failed["param_x"] > 0).all() and (failed["state"] == "pruned").all()
    assert (failed["checks_done"] == 0).all() and set(trials["gate"]) <= {"passed", "failed"}
    assert all(p["x"] <= 0 for p, _ in started) and result.best_params["x"] <= 0
    with pytest.raises(ConfigError, match="test.tune.probe_gate: expected true or false"):
        study_spec({**RAW, "probe_gate": "yes"}, "test.tune")


def test_poor_trials_are_pruned_at_an_early_check(tmp_path):
    _, _ = _study(tmp_path, trials=20)
    trials = pd.read_csv(tmp_path / "a" / "trials.csv")
    pruned = trials[trials["state"] == "pruned"]
    assert len(pruned) > 0 and (pruned["checks_done"] < RAW["checks"]).all()
    assert (pruned["steps_per_seed"] == pruned["checks_done"] * RAW["steps"] // RAW["checks"]).all()


def test_the_budget_guard_stops_the_study_and_says_so(tmp_path):
    result, _ = _study(tmp_path, budget_core_h=1e-9)
    trials = pd.read_csv(tmp_path / "a" / "trials.csv")
    assert len(trials) == 1 and result.stopped_by_budget and trials["stopped_by_budget"].iloc[-1]


@pytest.mark.parametrize("over, key", [
    ({"seeds": 1}, "test.tune.seeds"),
    ({"steps": 41}, "test.tune.steps"),
    ({"pruner": "hyperband"}, "test.tune.pruner"),
    ({"space": {"x": {"type": "float", "low": 1, "high": 0}}}, "test.tune.space.x"),
    ({"space": {"x": {"type": "float", "low": 0, "high": 1, "log": True}}}, "test.tune.space.x.low"),
    ({"space": {"c": {"type": "categorical", "choices": []}}}, "test.tune.space.c.choices"),
    ({"space": {"c": {"type": "categorical", "choices": [[1, 2], "1-2"]}}}, "test.tune.space.c.choices"),
    ({"colour": 1}, "test.tune.colour"),
])
def test_bad_study_configs_name_the_key(over, key):
    with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
        study_spec({**RAW, **over}, "test.tune")


def test_choice_labels():
    assert choice_label([1024, 512, 256]) == "1024-512-256" and choice_label(True) == "true"
    assert choice_label("runtime_idle") == "runtime_idle" and choice_label(0.2) == "0.2"


# -- the runtime paper's study --------------------------------------------------------------------
RUNTIME_SPEC = {"nodes": 256, "table4": {"sim_step": 60},
                "env": {"jobs_window": 100, "sim_step": 60, "max_steps": 10000, "time_scale": 21600},
                "agents": {"methods": ["baseline"], "workloads": ["wl1_100a"], "steps": 64, "seeds": [0],
                           "grid": {"n_steps": [8], "batch_size": [32], "n_epochs": [1]}},
                "evaluate": {"episodes": 1, "seed": 1000, "deterministic": False, "max_steps": 200,
                             "estimators": ["actual", "running_accuracy", "request"]}}


def _runtime_spec():
    spec = json.loads(json.dumps(RUNTIME_SPEC))
    spec["tune"] = {"method": "baseline", "workload": "wl1_100a", "validation_draws": [1], "validation_episodes": 1,
                    "trials": 3, "seeds": 2, "steps": 32, "checks": 2, "budget_core_h": 1.0, "startup_trials": 1,
                    "space": {"learning_rate": {"type": "float", "low": 1e-4, "high": 1e-2, "log": True},
                              "mask": {"type": "categorical", "choices": [False, True]},
                              "mask_unfit": {"type": "categorical", "choices": [False, True]},
                              "reward": {"type": "categorical", "choices": ["runtime_final", "runtime_idle"]},
                              "net": {"type": "categorical", "choices": [[16], [32, 16]]}}}
    return spec


def test_runtime_trial_spec_puts_each_remedy_where_the_runs_read_it():
    from schedrl.papers.runtime import experiments as rx
    from schedrl.papers.runtime import tuning

    spec = _runtime_spec()
    run = tuning.trial_spec(spec, {"learning_rate": 1e-3, "mask": True, "mask_unfit": True, "reward": "runtime_idle",
                                   "net": [32, 16], "n_steps": 16})
    assert run["agents"]["algo"] == "maskable_ppo" and run["env"]["reward"] == "runtime_idle"
    assert run["env"]["mask_unfit"] is True and run["agents"]["grid"]["n_steps"] == [16]
    kwargs = rx.env_kwargs(run, "runtime_baseline", "wl1_100a", training=True)
    assert kwargs["mask_unfit"] is True and kwargs["reward"] == "runtime_idle"
    hp = rx.run_hyperparams(run, "baseline", rx.grid_id(rx.grid_points(run)[0]))
    assert hp["learning_rate"] == 1e-3 and hp["policy_kwargs"]["shared_net"] == [32, 16] and hp["n_steps"] == 16
    # mask_unfit means nothing without the mask; the paper's spec is untouched
    plain = tuning.trial_spec(spec, {"mask": False, "mask_unfit": True})
    assert plain["agents"]["algo"] == "ppo" and plain["env"]["mask_unfit"] is False
    assert "mask_unfit" not in rx.env_kwargs(spec, "runtime_baseline", "wl1_100a", training=True)
    assert "hyperparams" not in spec["agents"]


@pytest.mark.parametrize("change, key", [
    (lambda t: t.update(method="nn3"), "runtime.tune.method"),
    (lambda t: t.update(workload="wl1_100b"), "runtime.tune.workload"),
    (lambda t: t.update(validation_draws=[0, 1]), "runtime.tune.validation_draws"),
    (lambda t: t["space"].update(colour={"type": "categorical", "choices": [1]}), "runtime.tune.space.colour"),
])
def test_runtime_tune_checks(change, key):
    from schedrl.papers.runtime import tuning

    spec = _runtime_spec()
    change(spec["tune"])
    with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
        tuning.tune_spec(spec)


def test_schedrl_tune_runtime_end_to_end(tmp_path, monkeypatch, capsys):
    from schedrl.cli import main
    from schedrl.papers.runtime import experiments as rx
    from schedrl.papers.runtime import tuning
    from schedrl.workloads.lublin import generate
    from schedrl.workloads.swf import write_swf

    monkeypatch.chdir(tmp_path)
    for draw in (0, 1):
        path = tmp_path / rx.workload_file("wl1_100a", draw)
        path.parent.mkdir(parents=True, exist_ok=True)
        write_swf(generate("wl1", 40, seed=draw), path)
    text = as_the_rule_gives("runtime", _runtime_spec())
    assert main(["tune", "runtime", "--spec", text, "--out", "study", "--write-config", "tuned.yml"]) == 0
    trials = pd.read_csv("study/trials.csv")
    assert len(trials) == 3 and trials["value"].between(0, 1).all()
    assert all(len(v.split()) == 2 for v in trials["seed_values"])  # two seeds per trial
    recipe = (tmp_path / "study" / "recipe.yml").read_text()
    assert recipe == (tmp_path / "tuned.yml").read_text() and recipe.startswith("# The runtime paper's tuned recipe")
    # the references on the same validation draws, beside the study and beside the written recipe
    refs = pd.read_csv("study/references.csv")
    assert list(refs["reference"]) == [r[0] for r in tuning.REFERENCES] and refs["score"].between(0, 1).all()
    assert pd.read_csv("tuned.references.csv").equals(refs) and pd.read_csv("tuned.trials.csv").equals(trials)
    assert main(["tune", "runtime", "--spec", text, "--out", "again", "--references"]) == 0
    assert pd.read_csv("again/references.csv").equals(refs) and not Path("again/trials.csv").exists()
    overlay = yaml.safe_load(recipe)["runtime"]
    assert overlay["agents"]["seeds"] == [0, 1, 2] and overlay["agents"]["methods"] == ["baseline"]
    # the recipe is a config overlay the paper's own runs accept
    merged = json.loads(text)
    for key in ("agents", "env"):
        merged[key].update(overlay[key])
    merged.pop("tune")
    rx.load_spec(json.dumps(merged), agents=True)
    best = trials.loc[trials["value"].idxmax()]
    assert overlay["agents"]["hyperparams"]["learning_rate"] == pytest.approx(best["param_learning_rate"])
    assert overlay["agents"]["algo"] == ("maskable_ppo" if str(best["param_mask"]).lower() == "true" else "ppo")
    assert "the recipe of trial" in capsys.readouterr().out


# -- the DeepRM report's study --------------------------------------------------------------------
def _deeprm_spec():
    spec = deeprm_spec(episodes=2)
    spec["tune"] = {"algo": "ppo", "validation_jobset_seed": 2000, "validation_jobsets": 2,
                    "trials": 3, "seeds": 2, "steps": 64, "checks": 2, "budget_core_h": 1.0, "startup_trials": 1,
                    "space": {"learning_rate": {"type": "float", "low": 1e-4, "high": 1e-2, "log": True},
                              "n_steps": {"type": "categorical", "choices": [16, 32]},
                              "mask": {"type": "categorical", "choices": [False, True]},
                              "num_jobsets": {"type": "categorical", "choices": [1, 3]},
                              "net": {"type": "categorical", "choices": [[16], [32, 16]]}}}
    return spec


def test_deeprm_trial_spec_puts_each_value_where_the_runs_read_it():
    from schedrl.papers.deeprm import training as dt
    from schedrl.papers.deeprm import tuning

    spec = _deeprm_spec()
    run = tuning.trial_spec(spec, {"learning_rate": 1e-3, "n_steps": 64, "batch_size": 256, "n_epochs": 10,
                                   "net": [32, 16], "mask": True, "num_jobsets": 5})
    block = run["variants"]["discrete-image"]
    assert block["algos"] == ["maskable_ppo"] and "tune" not in run
    assert block["hyperparams"] == {"maskable_ppo": {"learning_rate": 1e-3, "n_steps": 64, "batch_size": 64,
                                                     "n_epochs": 10, "net": [32, 16]}}  # batch cut to the rollout
    assert dt.env_kwargs(run, "discrete-image", "slowdown")["num_jobsets"] == 5
    hp = dt.run_hyperparams(run, "discrete-image", "maskable_ppo")
    assert hp["learning_rate"] == 1e-3 and hp["n_steps"] == 64 and hp["batch_size"] == 64 and hp["n_epochs"] == 10
    assert hp["policy_kwargs"]["net_arch"] == {"pi": [32, 16], "vf": [32, 16]}
    short = tuning.trial_spec(spec, {"n_steps": 16})  # the file's batch of 32 cut to the rollout too
    assert short["variants"]["discrete-image"]["hyperparams"] == {"ppo": {"n_steps": 16, "batch_size": 16}}
    # without the mask: PPO; unsearched values keep the report's; the other variant and the spec untouched
    plain = tuning.trial_spec(spec, {"mask": False})
    assert plain["variants"]["discrete-image"]["algos"] == ["ppo"] and "hyperparams" not in plain["variants"]["discrete-image"]
    assert plain["train"]["num_jobsets"] == spec["train"]["num_jobsets"]
    assert plain["variants"]["multibinary-image"] == spec["variants"]["multibinary-image"]
    assert "hyperparams" not in spec["variants"]["discrete-image"] and spec["variants"]["discrete-image"]["algos"] == ["a2c"]
    # A2C's own names
    spec["tune"].update(algo="a2c", space={"use_rms_prop": {"type": "categorical", "choices": [False, True]}})
    a2c = tuning.trial_spec(spec, {"use_rms_prop": False, "n_steps": 8, "gae_lambda": 0.9})
    assert a2c["variants"]["discrete-image"]["algos"] == ["a2c"]
    assert a2c["variants"]["discrete-image"]["hyperparams"]["a2c"] == {"use_rms_prop": False, "n_steps": 8,
                                                                        "gae_lambda": 0.9}


@pytest.mark.parametrize("change, key", [
    (lambda t: t.update(algo="dqn"), "deeprm.tune.algo"),
    (lambda t: t.update(variant="discrete-stacked"), "deeprm.tune.variant"),
    (lambda t: t.update(objective="makespan"), "deeprm.tune.objective"),
    (lambda t: t.update(validation_jobsets=0), "deeprm.tune.validation_jobsets"),
    (lambda t: t.pop("validation_jobset_seed"), "deeprm.tune.validation_jobset_seed"),
    # sets 999..1000 would hold held-out test set 1000; 0..1 the training sets (train.jobset_seed 0)
    (lambda t: t.update(validation_jobset_seed=999), "deeprm.tune.validation_jobset_seed"),
    (lambda t: t.update(validation_jobset_seed=1), "deeprm.tune.validation_jobset_seed"),
    # with up to 50 training sets, seeds 0..49 are training sets
    (lambda t: t.update(validation_jobset_seed=40) or t["space"].update(
        num_jobsets={"type": "categorical", "choices": [1, 50]}), "deeprm.tune.validation_jobset_seed"),
    (lambda t: t["space"].update(n_jobs={"type": "categorical", "choices": [1]}), "deeprm.tune.space.n_jobs"),
    (lambda t: t.update(algo="a2c"), "deeprm.tune.space.mask"),  # no maskable A2C
    (lambda t: t.update(seeds=1), "deeprm.tune.seeds"),
])
def test_deeprm_tune_checks(change, key):
    from schedrl.papers.deeprm import tuning

    spec = _deeprm_spec()
    change(spec["tune"])
    with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
        tuning.tune_spec(spec)
    spec.pop("tune")
    with pytest.raises(ConfigError, match=r"deeprm\.tune"):
        tuning.tune_spec(spec)


def _merge(base: dict, over: dict) -> dict:
    """``over`` merged into ``base`` as Snakemake merges config files (mappings by key, the rest replaced)."""
    out = dict(base)
    for key, value in over.items():
        out[key] = _merge(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


def test_schedrl_tune_deeprm_end_to_end(tmp_path, monkeypatch, capsys):
    from schedrl.cli import main
    from schedrl.papers.deeprm import layout as dl
    from schedrl.papers.deeprm import training as dt

    monkeypatch.chdir(tmp_path)
    text = as_the_rule_gives("deeprm", _deeprm_spec())
    assert main(["tune", "deeprm", "--spec", text, "--out", "study", "--write-config", "tuned.yml"]) == 0
    trials = pd.read_csv("study/trials.csv")
    assert len(trials) == 3 and (trials["value"] < 0).all()  # minus a mean slowdown (>= 1)
    assert all(len(v.split()) == 2 for v in trials["seed_values"])  # two seeds per trial
    recipe = (tmp_path / "study" / "recipe.yml").read_text()
    assert recipe == (tmp_path / "tuned.yml").read_text() and recipe.startswith("# The DeepRM report's tuned recipe")
    overlay = yaml.safe_load(recipe)
    assert set(overlay) == {"deeprm"} and overlay["deeprm"]["seeds"] == [0, 1, 2]
    # the recipe is a config overlay the report's own runs accept, merged as Snakemake merges it
    base = json.loads(text)
    base.pop("tune")
    merged = dl.load_spec(json.dumps(_merge(base, overlay["deeprm"])))
    best = trials.loc[trials["value"].idxmax()]
    algo = "maskable_ppo" if str(best["param_mask"]).lower() == "true" else "ppo"
    assert merged["variants"]["discrete-image"]["algos"] == [algo]
    assert merged["variants"]["multibinary-image"] == base["variants"]["multibinary-image"]
    assert merged["train"]["num_jobsets"] == int(best["param_num_jobsets"])
    hp = dt.run_hyperparams(merged, "discrete-image", algo)
    assert hp["learning_rate"] == pytest.approx(best["param_learning_rate"]) and hp["n_steps"] == int(best["param_n_steps"])
    assert [run[0] for run in dl.agent_runs(merged, "discrete-image")] == [algo] * 3
    assert "the recipe of trial" in capsys.readouterr().out
    # the same score of the no-learning players and the report's heuristics, beside the committed recipe
    refs = pd.read_csv("tuned.references.csv").set_index("reference")["score"]
    assert set(refs.index) == {"random valid play", "uniform over all actions (DeepRM's random)", "SJF", "Packer",
                               "untrained network"}
    assert (refs < 0).all() and refs["SJF"] > refs["uniform over all actions (DeepRM's random)"]


def test_the_study_overlay_is_checked_over_the_scale_file_before_it(capsys, tmp_path):
    from schedrl.cli import main

    root = Path(__file__).resolve().parents[1] / "config"
    assert main(["config", str(root / "paper-budget.yaml"), str(root / "tune.yaml")]) == 0
    assert capsys.readouterr().out.count(": ok") == 2
    # alone it has nothing to be merged over; a bad key in it is named as merged
    assert main(["config", str(root / "tune.yaml")]) == 2
    capsys.readouterr()
    bad = tmp_path / "bad.yml"
    bad.write_text("runtime:\n  tune:\n    colour: 1\n")
    assert main(["config", str(root / "paper-budget.yaml"), str(bad)]) == 2
    err = capsys.readouterr().err
    assert "bad.yml merged over" in err and "colour" in err and len(err.strip().splitlines()) == 1


# -- the MDP-design paper's study -----------------------------------------------------------------
MDP_SPEC = {  # scenario 9 only, C+S+R and image-like, a few evaluation trials
    "horizon": 20, "scenarios": [9], "variants": ["image", "compact-sparse-reduced"], "seeds": [0],
    "train": {"steps": 1600, "checkpoint_every": 200, "curve_window": 3},
    "eval": {"trials": 4, "jobset_seed": 1000000, "deterministic": True},
    "fig3": None, "transfer": None, "horizon_study": None, "fig5": None,
}


def _mdp_spec():
    spec = json.loads(json.dumps(MDP_SPEC))
    spec["tune"] = {"scenario": 9, "validation_jobset_seed": 2000000, "validation_trials": 3,
                    "trials": 3, "seeds": 2, "steps": 64, "checks": 2, "budget_core_h": 1.0, "startup_trials": 1,
                    "space": {"learning_rate": {"type": "float", "low": 1e-4, "high": 1e-2, "log": True},
                              "n_steps": {"type": "categorical", "choices": [16, 32]},
                              "mask": {"type": "categorical", "choices": [False, True]},
                              "net": {"type": "categorical", "choices": [[16], [32, 16]]}}}
    return spec


def test_mdp_trial_spec_puts_each_value_where_the_runs_read_it():
    from schedrl.papers.mdp import training as mt
    from schedrl.papers.mdp import tuning

    spec = _mdp_spec()
    run = tuning.trial_spec(spec, {"learning_rate": 1e-3, "n_steps": 64, "batch_size": 256, "n_epochs": 4,
                                   "gamma": 0.98, "net": [32, 16], "mask": True})
    assert "tune" not in run and tuning.tune_spec(spec)[0]["variant"] == "compact-sparse-reduced"
    assert run["hyperparams"] == {"compact-sparse-reduced": {
        "learning_rate": 1e-3, "n_steps": 64, "batch_size": 64, "n_epochs": 4, "gamma": 0.98, "net": [32, 16],
        "mask": True}}  # batch cut to the rollout
    assert mt.run_algo(run, "compact-sparse-reduced") == "maskable_ppo"
    hp = mt.run_hyperparams(run, "compact-sparse-reduced")
    assert hp["learning_rate"] == 1e-3 and hp["n_steps"] == 64 and hp["batch_size"] == 64 and hp["n_epochs"] == 4
    assert hp["policy_kwargs"]["net_arch"] == {"pi": [32, 16], "vf": [32, 16]} and hp["ent_coef"] == 0.01  # Table 2's
    assert "--hp=n_steps=64" in mt.train_hp_args(run, "compact-sparse-reduced")
    # Table 2's batch of 64 cut under a shorter searched rollout, kept (the paper's) when the rollout is not searched
    assert tuning.trial_spec(spec, {"n_steps": 16})["hyperparams"]["compact-sparse-reduced"] == {"n_steps": 16,
                                                                                                 "batch_size": 16}
    assert "batch_size" not in tuning.trial_spec(spec, {"learning_rate": 1e-3})["hyperparams"]["compact-sparse-reduced"]
    # without the mask: PPO and the paper's values; image-like and the spec untouched
    plain = tuning.trial_spec(spec, {"mask": False})
    assert mt.run_algo(plain, "compact-sparse-reduced") == "ppo" and mt.train_hp_args(plain, "compact-sparse-reduced") == "mdp"
    assert mt.train_hp_args(run, "image") == "mdp" and mt.run_algo(run, "image") == "ppo"
    assert "hyperparams" not in spec


@pytest.mark.parametrize("change, key", [
    (lambda t: t.update(variant="compact"), "mdp.tune.variant"),  # not one of the spec's variants
    (lambda t: t.update(scenario=11), "mdp.tune.scenario"),
    (lambda t: t.pop("scenario"), "mdp.tune.scenario"),
    (lambda t: t.update(validation_trials=0), "mdp.tune.validation_trials"),
    (lambda t: t.pop("validation_jobset_seed"), "mdp.tune.validation_jobset_seed"),
    # sets 999998..1000000 would hold evaluation trial 1000000; 1..3 training seeds 1 and 2
    (lambda t: t.update(validation_jobset_seed=999998), "mdp.tune.validation_jobset_seed"),
    (lambda t: t.update(validation_jobset_seed=1), "mdp.tune.validation_jobset_seed"),
    # the study's own seeds are training seeds too
    (lambda t: t.update(validation_jobset_seed=4, seeds=5), "mdp.tune.validation_jobset_seed"),
    (lambda t: t["space"].update(n_envs={"type": "categorical", "choices": [1, 8]}), "mdp.tune.space.n_envs"),
    (lambda t: t.update(seeds=1), "mdp.tune.seeds"),
])
def test_mdp_tune_checks(change, key):
    from schedrl.papers.mdp import tuning

    spec = _mdp_spec()
    change(spec["tune"])
    with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
        tuning.tune_spec(spec)
    spec.pop("tune")
    with pytest.raises(ConfigError, match=r"mdp\.tune"):
        tuning.tune_spec(spec)


def test_schedrl_tune_mdp_end_to_end(tmp_path, monkeypatch, capsys):
    from schedrl.cli import main
    from schedrl.papers.mdp import layout as ml
    from schedrl.papers.mdp import training as mt

    monkeypatch.chdir(tmp_path)
    text = as_the_rule_gives("mdp", _mdp_spec())
    assert main(["tune", "mdp", "--spec", text, "--out", "study", "--write-config", "tuned.yml"]) == 0
    trials = pd.read_csv("study/trials.csv")
    assert len(trials) == 3 and (trials["value"] <= -1).all()  # minus a mean slowdown (>= 1)
    assert all(len(v.split()) == 2 for v in trials["seed_values"])  # two seeds per trial
    recipe = (tmp_path / "study" / "recipe.yml").read_text()
    assert recipe == (tmp_path / "tuned.yml").read_text() and recipe.startswith("# The MDP-design paper's tuned recipe")
    overlay = yaml.safe_load(recipe)
    assert set(overlay) == {"mdp"} and overlay["mdp"]["seeds"] == [0, 1, 2]
    # the recipe is a config overlay the paper's own runs accept, merged as Snakemake merges it
    base = json.loads(text)
    base.pop("tune")
    merged = ml.load_spec(json.dumps(_merge(base, overlay["mdp"])))
    done = trials[trials["state"] == "complete"]  # a pruned trial's last report may be higher
    best = done.loc[done["value"].idxmax()]
    masked = str(best["param_mask"]).lower() == "true"
    assert mt.run_algo(merged, "compact-sparse-reduced") == ("maskable_ppo" if masked else "ppo")
    hp = mt.run_hyperparams(merged, "compact-sparse-reduced")
    assert hp["learning_rate"] == pytest.approx(best["param_learning_rate"]) and hp["n_steps"] == int(best["param_n_steps"])
    assert {r.seed for r in ml.runs(merged)} == {0, 1, 2} and mt.train_hp_args(merged, "image") == "mdp"
    assert "the recipe of trial" in capsys.readouterr().out
    # the same score of the no-learning players and SJF, beside the committed recipe
    refs = pd.read_csv("tuned.references.csv").set_index("reference")["score"]
    assert set(refs.index) == {"random valid play", "uniform over all actions", "SJF", "untrained network"}
    assert (refs <= -1).all() and refs["SJF"] > refs["uniform over all actions"]


# -- MRSch's study (DFP) --------------------------------------------------------------------------
def _mrsch_tree(base: Path, n_train: int = 60, n_val: int = 40) -> Path:
    """Training and validation splits for S1-S5 on MRSch's toy machine."""
    return mrsch_tree(base, {"train": n_train, "val": n_val}, days=2)


def _mrsch_spec():
    """The smoke scale's mrsch section on S1-S5 with 20-job sets and a small network, and a toy study."""
    spec = yaml.safe_load((Path(__file__).resolve().parents[1] / "config" / "smoke.yaml").read_text())["mrsch"]
    spec.update(workloads=["S1", "S2", "S3", "S4", "S5"], jobs_per_set=20)
    spec["dfp"].update(state_hidden=[32], state_out=16, stream_hidden=32)
    spec["tune"] = {"group": "two", "trials": 3, "seeds": 2, "steps": 4, "checks": 2, "budget_core_h": 1.0,
                    "startup_trials": 1,
                    "space": {"learning_rate": {"type": "float", "low": 1e-5, "high": 1e-3, "log": True},
                              "update_every": {"type": "categorical", "choices": [4, 8]},
                              "epsilon_min": {"type": "float", "low": 0.0, "high": 0.1},
                              "state_hidden": {"type": "categorical", "choices": [[16], [32, 16]]}}}
    return spec


def test_mrsch_trial_spec_puts_each_value_where_the_runs_read_it():
    from schedrl.papers.mrsch import layout as ml
    from schedrl.papers.mrsch import tuning

    spec = _mrsch_spec()
    params = {"learning_rate": 1e-3, "batch_size": 32, "update_every": 16, "replay_size": 5000, "epsilon_start": 0.8,
              "epsilon_min": 0.05, "epsilon_per": "run", "state_hidden": [512, 128], "stream_hidden": 256}
    run = tuning.trial_spec(spec, params)
    assert "tune" not in run and run["dfp"]["select_on_validation"] is True
    for state in ("mlp", "cnn"):  # every DFP run of both groups reads mrsch.dfp (the CNN its own sizes over it)
        cfg = ml.dfp_config(run, state)
        assert (cfg.learning_rate, cfg.batch_size, cfg.update_every, cfg.replay_size) == (1e-3, 32, 16, 5000)
        assert (cfg.epsilon_start, cfg.epsilon_min, cfg.epsilon_per, cfg.stream_hidden) == (0.8, 0.05, "run", 256)
        assert cfg.state_hidden == [512, 128] and cfg.state_module == state
    # unsearched values keep the config's; the spec itself is untouched (the default unchanged)
    assert run["dfp"]["min_replay"] == spec["dfp"]["min_replay"] and ml.dfp_config(run, "mlp").state_out == 16
    plain = tuning.trial_spec(spec, {})
    assert {k: v for k, v in plain.items()} == {k: v for k, v in spec.items() if k != "tune"}
    assert ml.dfp_config(spec, "mlp").learning_rate == 1e-4 and "tune" in spec
    # Optuna's numbers and YAML's lists come back as DFPConfig's types
    odd = tuning.trial_spec(spec, {"update_every": 8.0, "state_hidden": (64,)})["dfp"]
    assert odd["update_every"] == 8 and isinstance(odd["update_every"], int) and odd["state_hidden"] == [64]
    # a trial's job sets: the paper's curriculum scaled to its steps, at least one of each kind
    paper = {"jobsets": {"sampled": 10, "real": 10, "synthetic": 20}}
    assert tuning.trial_counts(paper, 40) == paper["jobsets"]
    assert tuning.trial_counts(paper, 6) == {"sampled": 2, "real": 1, "synthetic": 3}
    assert tuning.trial_counts(paper, 4) == {"sampled": 1, "real": 1, "synthetic": 2}
    assert tuning.trial_counts(paper, 3) == {"sampled": 1, "real": 1, "synthetic": 1}
    assert tuning.trial_counts({"jobsets": {"sampled": 1, "real": 1, "synthetic": 8}}, 4) == {
        "sampled": 1, "real": 1, "synthetic": 2}


@pytest.mark.parametrize("change, key", [
    (lambda t: t.update(group="four"), "mrsch.tune.group"),
    (lambda t: t.pop("group"), "mrsch.tune.group"),
    (lambda t: t.update(group="three"), "mrsch.tune.group"),  # no S6-S10 in the spec's workloads
    (lambda t: t.update(state="cnn"), "mrsch.tune.state"),
    (lambda t: t.update(jobs_per_set=1), "mrsch.tune.jobs_per_set"),
    (lambda t: t.update(colour=1), "mrsch.tune.colour"),
    (lambda t: t.update(seeds=1), "mrsch.tune.seeds"),
    (lambda t: t.update(steps=2, checks=1), "mrsch.tune.steps"),  # fewer job sets than kinds
    (lambda t: t.update(steps=5), "mrsch.tune.steps"),  # not a multiple of checks
    (lambda t: t["space"].update(state_module={"type": "categorical", "choices": ["cnn"]}), "mrsch.tune.space.state_module"),
    (lambda t: t["space"].update(colour={"type": "categorical", "choices": [1]}), "mrsch.tune.space.colour"),
    (lambda t: t["space"].update(learning_rate={"type": "float", "low": -1.0, "high": 0.1}), "mrsch.tune.space.learning_rate"),
    (lambda t: t["space"].update(state_hidden={"type": "categorical", "choices": [[16], [0]]}), "mrsch.tune.space.state_hidden"),
    # pairs: a memory smaller than a batch, a floor above the start of exploration
    (lambda t: t["space"].update(replay_size={"type": "categorical", "choices": [8, 2000]},
                                 batch_size={"type": "categorical", "choices": [16, 32]}), "mrsch.tune.space.replay_size"),
    (lambda t: t["space"].update(epsilon_start={"type": "float", "low": 0.05, "high": 1.0}), "mrsch.tune.space.epsilon_min"),
])
def test_mrsch_tune_checks(change, key):
    from schedrl.papers.mrsch import tuning

    spec = _mrsch_spec()
    change(spec["tune"])
    with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
        tuning.tune_spec(spec)
    spec.pop("tune")
    with pytest.raises(ConfigError, match=r"mrsch\.tune"):
        tuning.tune_spec(spec)


def test_mrsch_learner_trains_as_the_paper_runs_train(tmp_path):
    """DFPLearner on the spec's own curriculum (steps = its job sets) ends with the weights of
    train_dfp_run's model: a recipe trains in a trial as it trains in the pipeline."""
    import numpy as np
    import torch

    from schedrl.agents.dfp import DFPAgent
    from schedrl.papers.mrsch import layout as ml
    from schedrl.papers.mrsch import training as mtr
    from schedrl.papers.mrsch import tuning

    base = _mrsch_tree(tmp_path / "workloads")
    spec = _mrsch_spec()
    plain = tuning.trial_spec(spec, {})
    mtr.train_dfp_run(plain, "two", "mlp", ml.PAPER_ORDERING, root=tmp_path / "runs", base=base)
    own, _ = tuning.tune_spec(spec)
    learner = tuning.start_learner(spec, own, {}, int(spec["seed"]), steps=ml.n_jobsets(spec), base=base)
    try:
        learner.advance(2)
        learner.advance(ml.n_jobsets(spec) - 2)
        with pytest.raises(ConfigError, match="job sets"):
            learner.advance(1)
        trained = DFPAgent.load(ml.dfp_dir(tmp_path / "runs", "two", "mlp", ml.PAPER_ORDERING) / "model.zip")
        mine = learner.trainer.agent.net.state_dict()
        assert all(torch.equal(v, mine[k]) for k, v in trained.net.state_dict().items())
        score = learner.score()
        assert np.isfinite(score) and score < 0 and learner.score() == score  # greedy play: the same score again
    finally:
        learner.close()


def test_schedrl_tune_mrsch_end_to_end(tmp_path, monkeypatch, capsys):
    import numpy as np

    from schedrl.cli import main
    from schedrl.papers.mrsch import layout as ml
    from schedrl.papers.mrsch import tuning

    monkeypatch.chdir(tmp_path)
    _mrsch_tree(tmp_path / ml.WORKLOAD_DIR)
    ml._read.cache_clear()  # workload files are cached by their (relative) path
    try:
        text = as_the_rule_gives("mrsch", _mrsch_spec())
        assert main(["tune", "mrsch", "--spec", text, "--out", "study", "--write-config", "tuned.yml"]) == 0
        trials = pd.read_csv("study/trials.csv")
        assert len(trials) == 3 and (trials["value"] < 0).all()  # minus a score near FCFS's 1
        assert all(len(v.split()) == 2 for v in trials["seed_values"])  # two seeds per trial
        recipe = (tmp_path / "study" / "recipe.yml").read_text()
        assert recipe == (tmp_path / "tuned.yml").read_text() and recipe.startswith("# MRSch's tuned recipe")
        overlay = yaml.safe_load(recipe)
        assert set(overlay) == {"mrsch"} and overlay["mrsch"]["extra_seeds"] == [1, 2]
        assert set(overlay["mrsch"]["dfp"]) == {"learning_rate", "update_every", "epsilon_min", "state_hidden"}
        # the recipe is a config overlay the paper's own runs accept, merged as Snakemake merges it
        base = json.loads(text)
        base.pop("tune")
        merged = ml.load_spec(json.dumps(_merge(base, overlay["mrsch"])))
        done = trials[trials["state"] == "complete"]  # a pruned trial's last report may be higher
        best = done.loc[done["value"].idxmax()]
        for state in ("mlp", "cnn"):
            cfg = ml.dfp_config(merged, state)
            assert cfg.learning_rate == pytest.approx(best["param_learning_rate"])
            assert cfg.update_every == int(best["param_update_every"])
            assert "-".join(str(n) for n in cfg.state_hidden) == str(best["param_state_hidden"])
        assert merged["dfp"]["select_on_validation"] is True and merged["dfp"]["min_replay"] == base["dfp"]["min_replay"]
        assert ml.seeds(merged) == [0, 1, 2] and {s for *_, s in ml.seed_runs(merged)} == {1, 2}
        assert "the recipe of trial" in capsys.readouterr().out
        # the same score of the no-learning players: FCFS -1 by construction
        refs = {r["reference"]: r["score"] for r in tuning.reference_scores(_mrsch_spec())}
        assert refs["FCFS + EASY"] == -1.0 and set(refs) == {
            "FCFS + EASY", "GA re-planning", "SJF + EASY (beyond the paper)",
            "smallest area first + EASY (beyond the paper)", "random valid picks", "untrained network"}
        assert all(np.isfinite(v) for v in refs.values())
    finally:
        ml._read.cache_clear()


def test_several_spec_files_merge_in_order_as_snakemake_merges_them(tmp_path, capsys):
    from schedrl.cli import main
    from schedrl.commands import spec_text
    from schedrl.config import load_yaml, merge_config

    root = Path(__file__).resolve().parents[1] / "config"
    merged = merge_config(merge_config(load_yaml(root / "config.yaml"), load_yaml(root / "paper-budget.yaml")),
                          load_yaml(root / "tune.yaml"))
    text = spec_text("deeprm", [str(root / "paper-budget.yaml"), str(root / "tune.yaml")])
    assert json.loads(text) == merged["deeprm"] and json.loads(text)["tune"]["validation_jobsets"] >= 1
    assert spec_text("deeprm", ["{}"]) == "{}"  # one value passes through as the paper's loader reads it
    (tmp_path / "list.yaml").write_text("- 1\n")
    for specs, says in (([str(root / "tune.yaml"), str(tmp_path / "nope.yaml")], "nope.yaml: no such file"),
                        ([str(root / "tune.yaml"), str(tmp_path / "list.yaml")], "list.yaml: expected a mapping")):
        assert main(["tune", "deeprm", "--references", "--spec", *specs, "--out", str(tmp_path)]) == 2
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and says in err and "Traceback" not in err


def test_a_study_on_stand_in_trace_splits_is_refused_in_one_line(tmp_path, monkeypatch, capsys):
    from schedrl.cli import main

    monkeypatch.chdir(tmp_path)
    split = tmp_path / "results" / "workloads" / "sem" / "datastar"
    split.mkdir(parents=True)
    (split / "split.json").write_text(json.dumps({"stand_in": True}))
    config = Path(__file__).resolve().parents[1] / "config"
    assert main(["tune", "sem", "--spec", str(config / "paper-budget.yaml"), str(config / "tune.yaml"),
                 "--out", "study"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "datastar/split.json: built from a synthetic stand-in" in err
    assert "--allow-stand-in" in err and "Traceback" not in err and not (tmp_path / "study").exists()


@pytest.mark.parametrize("paper", ["deeprm", "mdp", "mrsch", "runtime"])
def test_cost_reads_a_tuned_recipe_over_the_paper_budget(paper, capsys):
    """`schedrl <paper> cost --spec config/paper-budget.yaml config/tuned/<paper>.yml` prices the tuned run
    (its seeds) as the pipeline merges the files; one file or JSON still works as before."""
    import re

    from schedrl.cli import main

    root = Path(__file__).resolve().parents[1] / "config"

    def core_hours(*specs):
        assert main([paper, "cost", "--spec", *specs]) == 0
        out = capsys.readouterr().out
        return float(re.search(r"~([0-9.,]+) core-hours", out).group(1).replace(",", ""))

    budget = core_hours(str(root / "paper-budget.yaml"))
    tuned = core_hours(str(root / "paper-budget.yaml"), str(root / "tuned" / f"{paper}.yml"))
    assert tuned > 0 and budget > 0
    if paper in ("mrsch", "runtime"):  # the tuned recipe adds seeds to a one-seed paper-budget run
        assert tuned > budget
    if paper != "mrsch":  # config/seed/0.yaml trains one of the tuned recipe's seeds: its share of the cost
        one = core_hours(str(root / "paper-budget.yaml"), str(root / "tuned" / f"{paper}.yml"),
                         str(root / "seed" / "0.yaml"))
        assert tuned / 3 <= one < tuned


def _added_seed(config: dict) -> dict:
    """scripts/check_added_seed.py's overlay: one more seed for every paper's runs."""
    import importlib.util

    path = Path(__file__).resolve().parents[1] / "scripts" / "check_added_seed.py"
    spec = importlib.util.spec_from_file_location("check_added_seed", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.added_seed(config)


@pytest.mark.parametrize("files", [("smoke.yaml",), ("paper-budget.yaml", "tune.yaml")])
@pytest.mark.parametrize("paper", ["deeprm", "mdp", "mrsch", "runtime", "sem"])
def test_a_seed_added_to_the_runs_leaves_the_study_as_it_was(paper, files):
    """A seed added to the runs (check_added_seed's overlay, config/seed/1.yaml) changes the paper's
    section, not its study's rule's spec nor its journal's key (``config.study_spec_json``), so the
    study (hours at config/tune.yaml) neither reruns nor starts afresh; the validation sets are still
    checked against the runs' seeds on the whole section (mdp: ``layout.check_spec``)."""
    from schedrl.config import load_yaml, merge_config, over_default, study_spec_json

    root = Path(__file__).resolve().parents[1] / "config"
    config = over_default(load_yaml(root / files[0]), root / files[0])
    for name in files[1:]:
        config = merge_config(config, load_yaml(root / name))
    assert "tune" in config[paper]
    study = study_spec_json(config[paper], study_pins(paper))
    added = merge_config(config, _added_seed(config))
    assert added[paper] != config[paper]
    for other in (added, merge_config(config, load_yaml(root / "seed" / "1.yaml"))):
        assert study_spec_json(other[paper], study_pins(paper)) == study
    assert "tune" in json.loads(study)


def test_mdp_validation_sets_are_checked_against_the_runs_seeds_on_the_whole_section(tmp_path):
    """The rule file checks the study on the whole section (its rule gets the runs' seeds pinned): a run
    seed that is one of the validation sets' fails the dry run in one line."""
    import subprocess
    import sys

    repo = Path(__file__).resolve().parents[1]
    over = tmp_path / "over.yaml"
    over.write_text(yaml.safe_dump({"mdp": {"seeds": [0, 1, 2000001]}}))
    tune = yaml.safe_load((repo / "config" / "tune.yaml").read_text())["mdp"]["tune"]
    assert tune["validation_jobset_seed"] <= 2000001 < tune["validation_jobset_seed"] + tune["validation_trials"]
    run = subprocess.run([str(Path(sys.executable).with_name("snakemake")), "mdp_tune", "-n", "--configfile",
                          "config/paper-budget.yaml", "config/tune.yaml", str(over)],
                         cwd=repo, capture_output=True, text=True)
    assert run.returncode != 0
    assert "mdp.tune.validation_jobset_seed" in run.stderr and "training seed 2000001" in run.stderr
    assert "Traceback" not in run.stderr
