"""MDP-design paper: parameter counts of SB3 PPO's default MlpPolicy equal the paper's (section 5)."""

from __future__ import annotations

import warnings

import gymnasium as gym
import pytest

import schedrl.envs  # noqa: F401
from schedrl.papers import paper_values
from schedrl.papers.mdp import layout as ml
from schedrl.papers.mdp import training as mt

VALUES = paper_values("mdp")


def _default_ppo_params(kwargs: dict) -> int:
    """Parameters of ``PPO("MlpPolicy", env)`` with every SB3 default (no policy_kwargs at all)."""
    from stable_baselines3 import PPO

    env = gym.make("schedrl/DeepRM-v0", **kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = PPO("MlpPolicy", env, device="cpu")
    env.close()
    return sum(p.numel() for p in model.policy.parameters())


@pytest.mark.parametrize("procs, scenario", [(10, 1), (38, 3), (64, 6)])
def test_image_parameter_counts_are_the_papers(procs, scenario):
    expected = VALUES[f"params.image.{procs}"]
    assert {301068: 10, 1089548: 38, 1821708: 64}[expected] == procs  # the paper's numbers, typed once more
    kwargs = ml.env_kwargs("image", scenario, 20)
    assert _default_ppo_params(kwargs) == expected
    assert mt.param_count("image", scenario, 20) == expected  # with Table 2's block of ppo.yaml
    assert mt.mlp_params(mt.obs_size("image", scenario, 20)) == expected


@pytest.mark.parametrize("scenario", [1, 3, 10])
def test_compact_parameter_count_is_the_papers_in_every_cluster(scenario):
    assert VALUES["params.compact"] == 24332
    kwargs = ml.env_kwargs("compact-sparse-reduced", scenario, 20)
    assert _default_ppo_params(kwargs) == 24332
    assert mt.param_count("compact", scenario, 20) == 24332


def test_obs_sizes_follow_the_formulas():
    # image H x (n_p (W + 1) + backlog/H + 1); compact 2H + 7W + 8 (REFERENCE-FACTS, sched-rl-gym)
    for sid, s in ml.SCENARIOS.items():
        for H in (20, 60):
            env = gym.make("schedrl/DeepRM-v0", **ml.env_kwargs("image", sid, H))
            assert env.observation_space.shape == (H, s.procs * 11 + 60 // H + 1)
            assert mt.obs_size("image", sid, H) == H * (s.procs * 11 + 60 // H + 1)
    assert mt.obs_size("compact", 9, 20) == 118 and mt.obs_size("compact", 9, 60) == 198
