"""The rollout buffer that hands PPO's minibatches to the sparse-input first layers as CSR rows trains
the same weights, bit for bit, as SB3's buffer; it falls back to SB3's dense minibatch where a batch
is too dense, and any other code path reading a minibatch sees the dense observations."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import schedrl.envs  # noqa: F401  (registers the env ids)
from schedrl.agents.hyperparams import load_hyperparams, resolve_hyperparams
from schedrl.agents.sparse_rollouts import (
    SparseMaskableRolloutBuffer,
    SparseRolloutBuffer,
    dense_observations,
)


def _mdp_env():
    from schedrl.experiments.envs import make_env
    from schedrl.papers.mdp import layout as ml

    return make_env(ml.ENV_ID, ml.env_kwargs("image", 3, 20))


def _deeprm_env():
    from schedrl.experiments.envs import make_env
    from schedrl.papers.deeprm import layout as dl
    from schedrl.papers.deeprm import training as dt

    spec = {"env": {}, "train": {"rate": 0.7, "jobset_seed": 0, "num_jobsets": 4},
            "variants": {"discrete-image": {"env": {"num_nw": 10}}}}
    return make_env(dl.ENV_ID, dt.env_kwargs(spec, "discrete-image", "slowdown"))


def _trained(algo: str, variant: str, make_env, sparse_buffer: bool, steps: int, **overrides):
    from schedrl.agents.registry import algo_class

    torch.set_num_threads(1)
    policy, _, kw = resolve_hyperparams(algo, load_hyperparams(algo, variant, overrides=overrides or None))
    if not sparse_buffer:
        kw.pop("rollout_buffer_class"), kw.pop("rollout_buffer_kwargs")
    model = algo_class(algo)(policy, make_env(), seed=3, device="cpu", verbose=0, **kw)
    model.learn(steps)
    return model


@pytest.mark.parametrize("algo, variant, make_env, steps, overrides", [
    ("ppo", "mdp", _mdp_env, 150, {}),  # Table 2: one minibatch of 50 a epoch, 10 epochs
    ("ppo", "mdp", _mdp_env, 100, {"n_steps": 25, "batch_size": 10}),  # minibatches of 10 and a short last one
    ("maskable_ppo", "deeprm-discrete-image", _deeprm_env, 256, {}),
])
def test_same_weights_bit_for_bit(algo, variant, make_env, steps, overrides, monkeypatch):
    import schedrl.agents.sparse_rollouts as sr

    gathered = []
    take = sr._take_rows
    monkeypatch.setattr(sr, "_take_rows", lambda *a: gathered.append(a[3].size) or take(*a))
    ours = _trained(algo, variant, make_env, True, steps, **overrides)
    assert type(ours.rollout_buffer) in (SparseRolloutBuffer, SparseMaskableRolloutBuffer) and gathered
    sb3 = _trained(algo, variant, make_env, False, steps, **overrides)
    assert type(sb3.rollout_buffer).__name__ in ("RolloutBuffer", "MaskableRolloutBuffer")
    a, b = ours.policy.state_dict(), sb3.policy.state_dict()
    assert all(torch.equal(a[k], b[k]) for k in a)
    oa, ob = ours.policy.optimizer.state_dict()["state"], sb3.policy.optimizer.state_dict()["state"]
    assert all(torch.equal(oa[i][k], ob[i][k]) for i in oa for k in oa[i])


def test_minibatch_rows_are_the_dense_minibatch_and_dense_ones_fall_back():
    model = _trained("ppo", "mdp", _mdp_env, True, 50, n_steps=20, batch_size=7)
    buffer = model.rollout_buffer
    flat = None
    np.random.seed(0)
    for batch in buffer.get(7):  # the last minibatch holds 6 observations
        rows = batch.observations.sparse_rows
        flat = buffer.observations.reshape(len(buffer.observations), -1)
        assert torch.isnan(batch.observations).all() and tuple(batch.observations.shape)[1:] == buffer.obs_shape
        dense = dense_observations(batch.observations)
        assert dense.shape == batch.observations.shape
        # the arrays the policy's own scan gives for the dense minibatch, in the minibatch's order
        from schedrl.agents.sparse_input import SparseRows

        want = SparseRows.of(dense.reshape(len(dense), -1), buffer.sparse_max_density)
        for name in ("indptr", "cols", "vals"):
            assert np.array_equal(getattr(rows, name), getattr(want, name))
        assert any(torch.equal(dense[0].reshape(-1), torch.from_numpy(r)) for r in flat)
    assert flat is not None
    # a density limit below what the observations hold: SB3's own dense copy, no rows
    buffer.sparse_max_density = 0.01
    batch = next(buffer.get(7))
    assert getattr(batch.observations, "sparse_rows", None) is None and not torch.isnan(batch.observations).any()


def test_dense_first_layers_and_other_paths_read_the_dense_batch():
    """A policy whose first layers are dense, handed a CSR minibatch, evaluates the dense batch."""
    model = _trained("ppo", "mdp", _mdp_env, True, 50, n_steps=20, batch_size=20)
    batch = next(model.rollout_buffer.get(None))
    actions = batch.actions.long().flatten()
    dense = dense_observations(batch.observations)
    sparse_out = model.policy.evaluate_actions(batch.observations, actions)
    from schedrl.agents.lean_policy import LeanMlpPolicy

    dense_policy = LeanMlpPolicy(model.observation_space, model.action_space, lambda _: 1e-4, sparse_input=False,
                                 net_arch={"pi": [64, 64], "vf": [64, 64]}, activation_fn=torch.nn.Tanh)
    dense_policy.load_state_dict(model.policy.state_dict())
    for got, want in zip(dense_policy.evaluate_actions(batch.observations, actions),
                         dense_policy.evaluate_actions(dense, actions)):
        assert torch.equal(got, want)
    for got, want in zip(sparse_out, dense_policy.evaluate_actions(dense, actions)):
        torch.testing.assert_close(got, want, rtol=1e-5, atol=1e-6)


def test_installed_only_where_sparse_layers_train():
    def buffer_of(algo, variant, **pk):
        over = {"policy_kwargs": pk} if pk else None
        return resolve_hyperparams(algo, load_hyperparams(algo, variant, overrides=over))[2].get("rollout_buffer_class")

    assert buffer_of("ppo", "mdp") is SparseRolloutBuffer
    assert buffer_of("maskable_ppo", "deeprm-discrete-image") is SparseMaskableRolloutBuffer
    assert buffer_of("ppo", "mdp", sparse_input=False) is None
    assert buffer_of("trpo", "deeprm-discrete-image") is None and buffer_of("a2c", None) is None
    kw = resolve_hyperparams("ppo", load_hyperparams("ppo", "mdp", overrides={
        "policy_kwargs": {"sparse_input": True, "sparse_max_density": 0.2}}))[2]
    assert kw["rollout_buffer_kwargs"] == {"sparse_input": True, "sparse_max_density": 0.2}
    # a compact state (below sparse_input auto's 1,024 inputs): the buffer is SB3's own behaviour
    from gymnasium import spaces

    small = SparseRolloutBuffer(4, spaces.Box(0, 1, (118,), np.float32), spaces.Discrete(3), device="cpu")
    assert not small.sparse
