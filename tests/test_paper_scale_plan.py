"""scripts/paper_scale_plan.py's verdict on issue 72's bar: met, or the largest expected cost named
with its levers, whose numbers come from the cost model's measured update share."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "paper_scale_plan.py"


@pytest.fixture(scope="module")
def plan():
    spec = importlib.util.spec_from_file_location("paper_scale_plan", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_goal_is_met_or_the_largest_cost_is_named_with_its_share(plan):
    assert plan.goal_text(23.9, {"runtime": 900.0, "mdp": 100.0}, 64).endswith("met (23.9 h).")
    text = plan.goal_text(42.6, {"mdp": 562.0, "runtime": 1953.0, "sem": 57.0}, 64)
    assert "not met (42.6 h)" in text and "runtime's (1,953 of 2,572 core-hours, 76%)" in text
    assert "Table 3 grid (75 points per half and method" in text  # from config/paper.yaml's grid
    assert "no lever measured yet" in plan.goal_text(30.0, {"sem": 57.0}, 64)


def test_the_runtime_lever_follows_the_update_share_and_the_grid(plan, tmp_path, monkeypatch):
    """A step's update share at the grid's mean K: f K/4 / (1 - f + f K/4); the GPU bound 1 / (1 - it)."""
    from schedrl.papers.runtime import experiments as rx

    monkeypatch.setattr(rx, "UPDATE_SHARE_K4", {"baseline": 0.5})
    config = tmp_path / "paper.yaml"
    config.write_text("runtime:\n  agents:\n    grid: {n_steps: [512], batch_size: [512, 1024], n_epochs: [4, 12]}\n")
    text = plan.runtime_lever(config)
    # mean K 8: 0.5 * 2 / (0.5 + 0.5 * 2) = 2/3 of a step; a GPU at most x3.0
    assert "(4 points per half and method" in text
    assert "50%-50% of it at K 4 and 67%-67% at the grid's mean K of 8.00" in text and "at most x3.0" in text
    assert "minibatches of 512-1,024" in text


def test_halvings_expected_time_goes_to_the_rungs_points_reach(plan):
    """With the halving overlay, a rung r job of runtime is expected to use 1/eta**r of its request
    (only that share of the points trains there); the paper's cost model is spread on those weights."""
    run = "results/runtime/agents/baseline/wl1_100a/T512-M512-K4/seed0"
    jobs = [{"rule": "runtime_train_rung", "output": [f"{run}/rungs/{r}.json"], "threads": 1, "runtime": 60}
            for r in range(3)]
    jobs += [{"rule": "runtime_train", "output": [f"{run}/model.zip"], "threads": 1, "runtime": 120},
             {"rule": "runtime_evaluate", "output": [f"{run}/evaluation.csv"], "threads": 1, "runtime": 60}]
    assert [plan.survival(j, (2, 4)) for j in jobs] == [1.0, 0.5, 0.25, 0.125, 1.0]
    assert [plan.survival(j, None) for j in jobs] == [1.0] * 5
    # weighted minutes 60 + 30 + 15 + 15 + 60 = 180 = 3 core-hours; a model of 6 doubles each
    scaled, expected = plan.expected_jobs(jobs, {"runtime": (6.0, "")}, (2, 4))
    assert expected["runtime"] == pytest.approx(6.0)
    assert [j["runtime"] for j in scaled] == pytest.approx([120, 60, 30, 30, 120])
    assert plan.halving_of(Path(__file__).resolve().parents[1] / "config" / "paper-halving.yaml") == (2, 4)
