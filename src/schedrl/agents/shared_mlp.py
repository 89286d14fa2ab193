"""A dense trunk shared by actor and critic, as Stable-Baselines3 before 1.8 built from a plain
``net_arch`` list (SB3 1.0: ``net_arch=[1024, 512, 256]`` = three layers shared by the policy and
value heads). SB3 2.x reads such a list as two separate copies, so ``policy_kwargs.shared_net``
(``schedrl.agents.hyperparams``) builds the shared layers as the features extractor, with empty
``pi``/``vf`` heads: the action and value layers then read the same last hidden layer, and both
losses train the trunk, as in SB3 1.0. Orthogonal initialisation gives the trunk gain sqrt(2) in
both versions.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch.nn as nn
from stable_baselines3.common.preprocessing import get_flattened_obs_dim
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor


class SharedMlpExtractor(BaseFeaturesExtractor):
    """Flatten, then dense layers of widths ``hidden`` each followed by ``activation_fn``."""

    def __init__(self, observation_space, hidden: Sequence[int] = (64, 64), activation_fn=nn.Tanh):
        if not hidden:
            raise ValueError("SharedMlpExtractor needs at least one hidden layer")
        super().__init__(observation_space, features_dim=int(hidden[-1]))
        layers: list[nn.Module] = [nn.Flatten()]
        width = get_flattened_obs_dim(observation_space)
        for h in hidden:
            layers += [nn.Linear(width, int(h)), activation_fn()]
            width = int(h)
        self.net = nn.Sequential(*layers)

    def forward(self, observations):
        return self.net(observations)
