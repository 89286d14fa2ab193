"""SB3's MlpPolicy for actor-critic algorithms, without building distribution objects per step.

An A2C on DeepRM's 4,480-pixel state spent ~45% of its rollouts in SB3's per-call machinery around
the networks: a ``torch.distributions`` object per step with its argument and support checks, then
``log_prob`` through broadcasting. ``LeanMlpPolicy`` computes the same tensors with the same torch
ops in the same order (normalised logits, softmax, ``multinomial``; sigmoid and ``bernoulli`` for
MultiBinary), so the random draws, actions, values, log-probabilities, entropies and therefore the
trained weights are SB3's bit for bit (``tests/test_lean_policy.py``). Other action spaces and
features extractors fall back to SB3's code. ``benchmarks/bench_trainers.py --sb3-own`` prints
steps per CPU-second with it and with SB3's MlpPolicy.

``sparse_input`` (a policy keyword, ``auto`` by default: on from
``schedrl.agents.sparse_setting.AUTO_MIN_INPUTS`` inputs) makes the first layer of the actor and of the
critic a ``SparseInputLinear``: the same function computed from the observation's non-zero entries,
their CSR view computed once for both (issue 72; ``benchmarks/bench_sparse_input.py``); PPO's and
MaskablePPO's training minibatches arrive as CSR rows already (``schedrl.agents.sparse_rollouts``).
``sparse_optimizer`` (``dense`` by default; ``clip`` or ``lazy``) makes the optimizer of a policy with
such layers ``schedrl.agents.sparse_optimizer.RowSparseAdam``, which clips (with
``sparse_max_grad_norm``, the algorithm's ``max_grad_norm``) and, with ``lazy``, updates from the rows
the batch touched.
"""

from __future__ import annotations

from itertools import islice

import torch
import torch.nn.functional as F
from sb3_contrib.common.maskable.distributions import MaskableCategoricalDistribution
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.distributions import BernoulliDistribution, CategoricalDistribution
from stable_baselines3.common.policies import ActorCriticPolicy
from stable_baselines3.common.preprocessing import get_flattened_obs_dim, preprocess_obs
from stable_baselines3.common.torch_layers import FlattenExtractor

from schedrl.agents.sparse_input import (
    MAX_DENSITY,
    SparseInputLinear,
    SparseRows,
    in_out_optimizer_hooks,
    sparsify_first_linear,
)
from schedrl.agents.sparse_rollouts import dense_observations
from schedrl.agents.sparse_setting import check_sparse_optimizer, use_sparse


def _categorical(logits: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """torch's Categorical(logits=...): normalised logits and their probabilities."""
    logits = logits - logits.logsumexp(dim=-1, keepdim=True)
    return logits, F.softmax(logits, dim=-1)


def _run(net: torch.nn.Sequential, x: torch.Tensor, start: int = 0) -> torch.Tensor:
    """``net(x)`` from layer ``start`` on, calling each layer's ``forward`` directly where it has no
    hooks (module calls were ~10% of a DeepRM rollout step)."""
    for layer in islice(net, start, None):
        x = layer(x) if layer._forward_hooks or layer._forward_pre_hooks else layer.forward(x)
    return x


class _SparseFirstLayers:
    """The policy keywords ``sparse_input``, ``sparse_max_density``, ``sparse_optimizer`` and
    ``sparse_max_grad_norm`` of an actor-critic policy, its first layers made sparse-input after SB3
    builds them, and ``_latents`` (both networks' latent codes from one CSR view)."""

    #: ``sparse_input`` when the policy keywords do not name it
    SPARSE_INPUT: bool | str = "auto"

    def __init__(self, *args, sparse_input: bool | str | None = None, sparse_max_density: float = MAX_DENSITY,
                 sparse_optimizer: str = "dense", sparse_max_grad_norm: float | None = None, **kwargs):
        sparse_input = self.SPARSE_INPUT if sparse_input is None else sparse_input
        use_sparse(sparse_input, 0)  # checks the values before anything is built
        self.sparse_input = sparse_input
        self.sparse_max_density = float(sparse_max_density)
        self.sparse_optimizer = check_sparse_optimizer(sparse_optimizer)
        self.sparse_max_grad_norm = sparse_max_grad_norm
        super().__init__(*args, **kwargs)

    def _get_constructor_parameters(self) -> dict:
        data = super()._get_constructor_parameters()
        data.update(sparse_input=self.sparse_input, sparse_max_density=self.sparse_max_density)
        if self.sparse_optimizer != "dense":
            data.update(sparse_optimizer=self.sparse_optimizer, sparse_max_grad_norm=self.sparse_max_grad_norm)
        return data

    def _build(self, lr_schedule) -> None:
        # SB3 builds and initialises the dense layers (so the same seed gives the same weights), then
        # the first layer over the observation becomes its sparse-input twin and the optimizer is
        # built again over the same parameters in the same order
        super()._build(lr_schedule)
        extractor = self.features_extractor
        if isinstance(extractor, FlattenExtractor):
            nets = (self.mlp_extractor.policy_net, self.mlp_extractor.value_net)
        else:
            nets = (getattr(extractor, "net", None),)  # SharedMlpExtractor's trunk
        n_inputs = get_flattened_obs_dim(self.observation_space)
        if not use_sparse(self.sparse_input, n_inputs):
            return
        changed = [sparsify_first_linear(net, max_density=self.sparse_max_density)
                   for net in nets if isinstance(net, torch.nn.Sequential)]
        if any(changed) and self.sparse_optimizer != "dense":
            from schedrl.agents.sparse_optimizer import row_sparse_optimizer

            self.optimizer = in_out_optimizer_hooks(row_sparse_optimizer(
                self, self.sparse_optimizer, self.optimizer_class, lr_schedule(1), self.optimizer_kwargs,
                self.sparse_max_grad_norm))
        elif any(changed):
            self.optimizer = in_out_optimizer_hooks(
                self.optimizer_class(self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs))

    def _latents(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        pi, vf = self.mlp_extractor.policy_net, self.mlp_extractor.value_net
        sparse = len(pi) and len(vf) and isinstance(pi[0], SparseInputLinear) and isinstance(vf[0], SparseInputLinear)
        rows = getattr(obs, "sparse_rows", None)  # a minibatch of SparseRolloutBuffer: its CSR rows
        if rows is not None and sparse:
            return _run(pi, pi[0](obs, rows), 1), _run(vf, vf[0](obs, rows), 1)
        features = torch.flatten(preprocess_obs(dense_observations(obs), self.observation_space, self.normalize_images), 1)
        if sparse:
            rows = SparseRows.of(features, pi[0].max_density)  # one CSR view (or one scan) for both layers
            if rows is None:  # denser than max_density: both layers multiply densely, no second scan
                return _run(pi, pi[0](features, dense=True), 1), _run(vf, vf[0](features, dense=True), 1)
            return _run(pi, pi[0](features, rows), 1), _run(vf, vf[0](features, rows), 1)
        return _run(pi, features), _run(vf, features)


class LeanMlpPolicy(_SparseFirstLayers, ActorCriticPolicy):
    """``ActorCriticPolicy`` whose ``forward`` and ``evaluate_actions`` skip the distribution objects
    for Categorical and Bernoulli actions on a flattened observation; anything else is SB3's."""

    def _lean(self) -> str | None:
        if not self.share_features_extractor or type(self.features_extractor) is not FlattenExtractor:
            return None
        if type(self.action_dist) is CategoricalDistribution:
            return "categorical"
        if type(self.action_dist) is BernoulliDistribution:
            return "bernoulli"
        return None

    def forward(self, obs, deterministic: bool = False):
        kind = self._lean()
        if kind is None:
            return super().forward(obs, deterministic)
        latent_pi, latent_vf = self._latents(obs)
        values = self.value_net(latent_vf)
        logits = self.action_net(latent_pi)
        if kind == "categorical":
            logits, probs = _categorical(logits)
            actions = torch.argmax(probs, dim=1) if deterministic else torch.multinomial(probs, 1, True).T.reshape(-1)
            log_prob = logits.gather(-1, actions.long().unsqueeze(-1)).squeeze(-1)
        else:
            probs = torch.sigmoid(logits)
            actions = torch.round(probs) if deterministic else torch.bernoulli(probs)
            log_prob = -F.binary_cross_entropy_with_logits(logits, actions, reduction="none").sum(dim=1)
        return actions.reshape((-1, *self.action_space.shape)), values, log_prob

    def evaluate_actions(self, obs, actions: torch.Tensor):
        kind = self._lean()
        if kind is None:
            return super().evaluate_actions(dense_observations(obs), actions)
        latent_pi, latent_vf = self._latents(obs)
        logits = self.action_net(latent_pi)
        # torch's distributions' graph, node for node (the order in which autograd sums the gradients
        # reaching the logits decides their last bits): log_prob first, then the lazily built probs
        if kind == "categorical":
            logits = logits - logits.logsumexp(dim=-1, keepdim=True)
            index, log_pmf = torch.broadcast_tensors(actions.long().unsqueeze(-1), logits)
            log_prob = log_pmf.gather(-1, index[..., :1]).squeeze(-1)
            values = self.value_net(latent_vf)
            entropy = -(torch.clamp(logits, min=torch.finfo(logits.dtype).min) * F.softmax(logits, dim=-1)).sum(-1)
        else:
            log_pmf, value = torch.broadcast_tensors(logits, actions)
            log_prob = -F.binary_cross_entropy_with_logits(log_pmf, value, reduction="none").sum(dim=1)
            values = self.value_net(latent_vf)
            entropy = F.binary_cross_entropy_with_logits(logits, torch.sigmoid(logits), reduction="none").sum(dim=1)
        return values, log_prob, entropy


class DenseInputLeanMlpPolicy(LeanMlpPolicy):
    """``LeanMlpPolicy`` with the dense first layer unless told otherwise: TRPO's, whose
    conjugate-gradient step differentiates the policy twice (the sparse layer's backward is
    first-order only)."""

    SPARSE_INPUT = False


class LeanMaskablePolicy(_SparseFirstLayers, MaskableActorCriticPolicy):
    """sb3-contrib's ``MaskableActorCriticPolicy`` (MaskablePPO's MlpPolicy) whose ``forward`` and
    ``evaluate_actions`` compute a masked Categorical's tensors without its distribution objects, as
    ``LeanMlpPolicy`` does for SB3's: torch's ops in sb3-contrib's order (normalised logits, the masked
    ones set to -1e8 and normalised again, softmax, ``multinomial``; the entropy's masked terms zeroed),
    so with dense first layers the trained weights are MaskablePPO's bit for bit
    (``tests/test_lean_policy.py``). ``sparse_input`` as ``LeanMlpPolicy``'s (``auto``: the sparse-input
    first layers from 1,024 inputs, e.g. DeepRM's image, the same function to the last bits); other
    action spaces, ``predict`` and ``get_distribution`` are sb3-contrib's."""

    def _lean(self) -> bool:
        return (self.share_features_extractor and type(self.features_extractor) is FlattenExtractor
                and type(self.action_dist) is MaskableCategoricalDistribution)

    def _masked(self, logits: torch.Tensor, action_masks) -> tuple[torch.Tensor, torch.Tensor | None]:
        """MaskableCategorical(logits=...).apply_masking(action_masks): its logits and boolean mask."""
        logits = logits.view(-1, self.action_dist.action_dim)
        logits = logits - logits.logsumexp(dim=-1, keepdim=True)
        if action_masks is None:  # its constructor's apply_masking(None) normalises once more
            return logits - logits.logsumexp(dim=-1, keepdim=True), None
        masks = torch.as_tensor(action_masks, dtype=torch.bool, device=logits.device).reshape(logits.shape)
        logits = torch.where(masks, logits, torch.tensor(-1e8, dtype=logits.dtype, device=logits.device))
        return logits - logits.logsumexp(dim=-1, keepdim=True), masks

    def forward(self, obs, deterministic: bool = False, action_masks=None):
        if not self._lean():
            return super().forward(obs, deterministic, action_masks)
        latent_pi, latent_vf = self._latents(obs)
        values = self.value_net(latent_vf)
        logits, _ = self._masked(self.action_net(latent_pi), action_masks)
        probs = F.softmax(logits, dim=-1)
        actions = torch.argmax(probs, dim=1) if deterministic else torch.multinomial(probs, 1, True).T.reshape(-1)
        log_prob = logits.gather(-1, actions.long().unsqueeze(-1)).squeeze(-1)
        return actions.reshape((-1, *self.action_space.shape)), values, log_prob

    def evaluate_actions(self, obs, actions: torch.Tensor, action_masks=None):
        if not self._lean():
            return super().evaluate_actions(dense_observations(obs), actions, action_masks)
        latent_pi, latent_vf = self._latents(obs)
        # sb3-contrib's graph node for node: the log-probability, the values, then the entropy
        logits, masks = self._masked(self.action_net(latent_pi), action_masks)
        index, log_pmf = torch.broadcast_tensors(actions.long().unsqueeze(-1), logits)
        log_prob = log_pmf.gather(-1, index[..., :1]).squeeze(-1)
        values = self.value_net(latent_vf)
        if masks is None:
            p_log_p = torch.clamp(logits, min=torch.finfo(logits.dtype).min) * F.softmax(logits, dim=-1)
        else:
            p_log_p = torch.where(masks, logits * F.softmax(logits, dim=-1), torch.tensor(0.0, device=logits.device))
        return values, log_prob, -p_log_p.sum(-1)
