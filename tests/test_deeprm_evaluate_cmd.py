"""``schedrl evaluate`` on DeepRM plays distinct, held-out job sets (not job set 0 N times)."""

from __future__ import annotations

import pandas as pd
import pytest

from schedrl.cli import main

ENV = dict(num_nw=5, simu_len=20, new_job_rate=0.7, jobset_seed=0, num_jobsets=2, episode_max_length=300)


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    from schedrl.experiments.train import train

    folder = tmp_path_factory.mktemp("run") / "a2c"
    train("schedrl.envs:schedrl/DeepRM-v0", ENV, "a2c", {"policy": "MlpPolicy", "n_steps": 5}, 50, 0, folder)
    return folder


def test_evaluate_plays_distinct_heldout_sets(run_dir, tmp_path, capsys):
    out = tmp_path / "eval.csv"
    assert main(["evaluate", "--run-dir", str(run_dir), "--episodes", "3", "--seed", "7",
                 "--out", str(out)]) == 0
    frame = pd.read_csv(out)
    assert frame["jobset_seed"].tolist() == [7, 8, 9]
    assert "held-out job sets: seeds 7..9" in capsys.readouterr().out
    # seeds 7 and 8 were the same episode before (reset(seed) restarted the job-set cycle)
    assert frame["length"].nunique() > 1 or frame["reward"].nunique() > 1


def test_evaluate_refuses_training_sets(run_dir, tmp_path, capsys):
    code = main(["evaluate", "--run-dir", str(run_dir), "--episodes", "2", "--jobset-seed", "1",
                 "--out", str(tmp_path / "e.csv")])
    assert code != 0
    assert "training job sets" in capsys.readouterr().err


def test_report_protocol_plays_the_best_in_sample_checkpoint(run_dir):
    from schedrl.experiments.evaluate import load_run
    from schedrl.papers.deeprm import training as dt

    model, config = load_run(run_dir)
    _, chosen, scores = dt.best_in_sample_model(run_dir, model, config, {"jobset_rng": "legacy"}, seed=42)
    assert "model.zip" in scores and len(scores) >= 2  # kept checkpoints and the final model
    best = max(scores.values())
    assert scores[chosen] == best
    # a later candidate wins a tie (the report's ">=")
    names = list(scores)
    assert chosen == [n for n in names if scores[n] == best][-1]
