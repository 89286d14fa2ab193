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


def test_a_tuned_recipes_net_is_counted_as_sb3_builds_it_and_priced_by_it():
    """mdp.hyperparams.<variant>.net (config/tuned/mdp.yml): the cost model counts the recipe's
    network, not Table 2's 64-64, so its runs cost more per step."""
    from stable_baselines3 import PPO

    from schedrl.papers.mdp import cost as mc

    env = gym.make("schedrl/DeepRM-v0", **ml.env_kwargs("compact-sparse-reduced", 3, 20))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = PPO("MlpPolicy", env, device="cpu", policy_kwargs={"net_arch": {"pi": [256, 128], "vf": [256, 128]}})
    env.close()
    obs = mt.obs_size("compact-sparse-reduced", 3, 20)
    assert mt.mlp_params(obs, hidden=[256, 128]) == sum(p.numel() for p in model.policy.parameters())
    assert mt.mlp_params(obs, hidden=[64, 64]) == mt.mlp_params(obs) == 24332
    spec = {"hyperparams": {"compact-sparse-reduced": {"net": [256, 256]}}}
    assert mc.recipe_net(spec, "compact-sparse-reduced") == [256, 256] and mc.recipe_net(spec, "image") is None
    run = ml.Run(20, "compact-sparse-reduced", 3, 0)
    assert mc.train_seconds(run, 1000, [256, 256]) > mc.train_seconds(run, 1000)
