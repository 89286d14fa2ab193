"""Best-model selection while training (``schedrl.experiments.selection``; issue 40 item 3): the
checks keep the best (>=, the later wins a tie), a resumed run continues the selection from its
checkpoint, training is the same with or without it, and the DeepRM report protocol plays it."""

from __future__ import annotations

import json

import gymnasium as gym
import numpy as np
import pandas as pd
import pytest
import torch

from schedrl.cli import main
from schedrl.errors import ConfigError
from schedrl.experiments import selection as sel
from schedrl.experiments.envs import make_env
from schedrl.experiments.selection import BestModelSelector, Selection
from schedrl.experiments.train import train

A2C = {"policy": "MlpPolicy", "n_steps": 5}  # one env copy: a check every check_every steps exactly
CARTPOLE = "CartPole-v1"


def _params(model) -> np.ndarray:
    return torch.nn.utils.parameters_to_vector(model.policy.parameters()).detach().numpy().copy()


def _load(path):
    from stable_baselines3 import A2C as Algo

    return Algo.load(path, device="cpu")


def test_the_best_check_is_kept_and_a_tie_goes_to_the_later(tmp_path, monkeypatch):
    """Scripted returns 1, 3, 2, 3, 0 at steps 10..50: best so far 1, 3, 3, 3, 3, and the model
    saved is the one of step 40 (tied with step 20; the later wins, as the report's ``>=``)."""
    from stable_baselines3 import A2C as Algo

    returns = iter([1.0, 3.0, 2.0, 3.0, 0.0])
    monkeypatch.setattr(sel, "_play", lambda *args, **kwargs: next(returns))
    model = Algo("MlpPolicy", gym.make(CARTPOLE), seed=0, device="cpu")
    selector = BestModelSelector(Selection(10), tmp_path, lambda: gym.make(CARTPOLE), seed=0)
    selector.restore(0, None)
    first = model.policy.action_net.bias
    for step in range(1, 56):
        with torch.no_grad():
            first.fill_(float(step))  # the model's parameters name the step it was saved at
        selector.after_step(model, step)
    table = pd.read_csv(tmp_path / "selection.csv")
    assert table["step"].tolist() == [10, 20, 30, 40, 50]
    assert table["best_so_far"].tolist() == [1.0, 3.0, 3.0, 3.0, 3.0]
    state = json.loads((tmp_path / "selection.json").read_text())
    assert state["best_step"] == 40 and state["best_return"] == 3.0 and state["checks"] == 5
    saved = _load(tmp_path / "best_model.zip").policy.action_net.bias
    assert torch.all(saved == 40.0)


def test_best_model_is_the_checkpoint_with_the_highest_return(tmp_path):
    """A real run with a checkpoint at every check: best_model.zip has exactly the parameters of
    the checkpoint at the last step whose return is the maximum in selection.csv."""
    run = tmp_path / "run"
    steps = list(range(40, 401, 40))
    train(CARTPOLE, {}, "a2c", A2C, 400, seed=3, run_dir=run, checkpoint_every=40, keep_steps=steps,
          selection={"check_every": 40})
    table = pd.read_csv(run / "selection.csv")
    assert table["step"].tolist() == steps
    assert table["best_so_far"].tolist() == table["return"].cummax().tolist()
    best = int(table.loc[table["return"] == table["return"].max(), "step"].max())  # ties: the later
    assert json.loads((run / "selection.json").read_text())["best_step"] == best
    np.testing.assert_array_equal(_params(_load(run / "best_model.zip")),
                                  _params(_load(run / "checkpoints" / f"step_{best}.zip")))
    # the check is reproducible: replaying it (same seed, same torch seed) gives the recorded return
    env, model = make_env(CARTPOLE, {}, []), _load(run / "best_model.zip")  # loading draws from torch's RNG
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed((3 << 32) + best)
        again = sel._play(model, env, 1, False, seed=3)
    assert again == table["return"].max()


def test_training_is_the_same_with_or_without_selection(tmp_path):
    train(CARTPOLE, {}, "a2c", A2C, 300, seed=1, run_dir=tmp_path / "plain")
    train(CARTPOLE, {}, "a2c", A2C, 300, seed=1, run_dir=tmp_path / "selected", selection={"check_every": 30})
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "plain" / "learning_curve.csv"),
                                  pd.read_csv(tmp_path / "selected" / "learning_curve.csv"))
    np.testing.assert_array_equal(_params(_load(tmp_path / "plain" / "model.zip")),
                                  _params(_load(tmp_path / "selected" / "model.zip")))


def test_a_killed_run_resumes_the_selection_from_its_checkpoint(tmp_path):
    run = tmp_path / "run"
    spec = {"check_every": 20}
    train(CARTPOLE, {}, "a2c", A2C, 200, seed=0, run_dir=run, checkpoint_every=100, selection=spec)
    before = pd.read_csv(run / "selection.csv")
    # a run killed after its checkpoint at 100 and checks up to 200, with a better "best" on disk
    # than the checkpoint knew of: no final model, no checkpoint at 200
    for name in ("model.zip", "timing.json", "learning_curve.csv"):
        (run / name).unlink()
    for path in (run / "checkpoints").glob("step_200.*"):
        path.unlink()
    state = json.loads((run / "selection.json").read_text())
    (run / "selection.json").write_text(json.dumps({**state, "best_return": 1e9, "best_step": 180}))
    (run / "best_model.zip").unlink()  # replaced, never rewritten in place (a hard link shares it)
    (run / "best_model.zip").write_bytes(b"not the best at step 100")
    result = train(CARTPOLE, {}, "a2c", A2C, 200, seed=0, run_dir=run, checkpoint_every=100, selection=spec)
    assert result.resumed_from == 100
    after = pd.read_csv(run / "selection.csv")
    assert after["step"].tolist() == list(range(20, 201, 20))
    pd.testing.assert_frame_equal(after[after["step"] <= 100], before[before["step"] <= 100])
    assert after["best_so_far"].tolist() == after["return"].cummax().tolist()
    state = json.loads((run / "selection.json").read_text())
    best = int(after.loc[after["return"] == after["return"].max(), "step"].max())
    assert state["best_step"] == best and state["best_return"] == after["return"].max()
    _load(run / "best_model.zip")  # a real model again, not the planted bytes


def test_a_run_with_a_selection_is_another_run_than_one_without(tmp_path):
    run = tmp_path / "run"
    train(CARTPOLE, {}, "a2c", A2C, 20, seed=0, run_dir=run)
    with pytest.raises(ConfigError, match="selection"):
        train(CARTPOLE, {}, "a2c", A2C, 40, seed=0, run_dir=run, selection={"check_every": 10})
    train(CARTPOLE, {}, "a2c", A2C, 40, seed=0, run_dir=run, selection={"check_every": 10}, on_mismatch="restart")
    assert pd.read_csv(run / "selection.csv")["step"].tolist() == [10, 20, 30, 40]
    with pytest.raises(ConfigError, match="selection"):
        train(CARTPOLE, {}, "a2c", A2C, 80, seed=0, run_dir=run)


def test_bad_selection_options_are_one_line(tmp_path, capsys):
    with pytest.raises(ConfigError, match="check_every"):
        Selection(0)
    code = main(["train", "--env", CARTPOLE, "--algo", "a2c", "--steps", "10", "--seed", "0",
                 "--run-dir", str(tmp_path / "r"), "--select-env-kwarg", "a=1"])
    assert code != 0 and "--select-every" in capsys.readouterr().err
    with pytest.raises(ConfigError, match="own loop"):
        train(CARTPOLE, {}, "deeprm_pg", {}, 1, seed=0, run_dir=tmp_path / "pg", selection={"check_every": 5})


def test_deeprm_report_protocol_plays_best_model_when_present(tmp_path):
    from schedrl.papers.deeprm import evaluation as de
    from schedrl.papers.deeprm import layout as dl

    env = dict(num_nw=5, simu_len=20, new_job_rate=0.7, jobset_seed=42, jobset_rng="legacy", num_jobsets=1,
               episode_max_length=300)
    overrides = {"episode_max_length": 2000, "jobset_rng": "legacy", "jobset_seed": 42, "num_jobsets": 1}
    run = tmp_path / "a2c"
    train(dl.ENV_ID, env, "a2c", A2C, 60, 0, run, checkpoint_every=30,
          selection={"check_every": 20, "env_kwargs": overrides})
    state = json.loads((run / "selection.json").read_text())
    make_policy, _ = de.agent_policy_factory(run, seed=42, best_in_sample=overrides)
    assert make_policy.chosen == f"best_model.zip (step {state['best_step']} of 3 checks)"
    np.testing.assert_array_equal(_params(make_policy.model), _params(_load(run / "best_model.zip")))
    held_out, _ = de.agent_policy_factory(run, seed=42)  # held out: the final model
    assert held_out.chosen == "model.zip"
    (run / "best_model.zip").unlink()  # an old run folder: the kept-checkpoint choice
    old, _ = de.agent_policy_factory(run, seed=42, best_in_sample=overrides)
    assert old.chosen in {"step_30.zip", "step_60.zip", "model.zip"}


def test_deeprm_config_gives_schedrl_train_the_report_protocol_check():
    from schedrl.papers.deeprm import layout as dl
    from schedrl.papers.deeprm import training as dt

    spec = dl.load_spec("config/paper.yaml")
    assert dt.report_selection(spec) == {
        "check_every": 1000, "episodes": 1, "deterministic": False,
        "env_kwargs": {"episode_max_length": 2000, "jobset_rng": "legacy", "jobset_seed": 42, "num_jobsets": 1}}
    assert "--select-every=1000" in dt.selection_args(spec)
    assert dt.selection_args({k: v for k, v in spec.items() if k != "report_selection"}) == ""
