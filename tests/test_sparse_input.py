"""The sparse-input first layer (issue 72) computes the dense layer's function.

Hand-worked products, real observations of the MDP paper's image-like state and of the DeepRM
report's image, gradients, the dense fallback, files that load across the two layers (model and
optimizer), the policy's same initial weights on the same seed, and TRPO kept dense.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn as nn

import schedrl.envs  # noqa: F401  (registers the env ids)
from schedrl.agents.sparse_input import SparseInputLinear, SparseRows, sparsify_first_linear
from schedrl.agents.sparse_setting import use_sparse
from schedrl.errors import ConfigError


def _observations(case: str, n: int = 48, seed: int = 0) -> np.ndarray:
    from schedrl.experiments.envs import make_env

    if case == "mdp":
        from schedrl.papers.mdp import layout as ml

        env = make_env(ml.ENV_ID, ml.env_kwargs("image", 3, 20))
    else:
        from schedrl.papers.deeprm import layout as dl
        from schedrl.papers.deeprm import training as dt

        spec = {"env": {}, "train": {"rate": 0.7, "jobset_seed": 0, "num_jobsets": 4},
                "variants": {"discrete-image": {"env": {"num_nw": 10}}}}
        env = make_env(dl.ENV_ID, dt.env_kwargs(spec, "discrete-image", "slowdown"))
    env.action_space.seed(seed)
    obs, _ = env.reset(seed=seed)
    out = []
    for _ in range(n):
        out.append(np.asarray(obs, np.float32).ravel())
        obs, _, terminated, truncated, _ = env.step(env.action_space.sample())
        if terminated or truncated:
            obs, _ = env.reset()
    return np.stack(out)


def _pair(n_in: int, n_out: int, seed: int = 0) -> tuple[nn.Linear, SparseInputLinear]:
    torch.manual_seed(seed)
    dense = nn.Linear(n_in, n_out)
    return dense, SparseInputLinear.from_linear(dense, max_density=1.0)


def test_hand_worked_product_and_gradient():
    dense, sparse = _pair(3, 2)
    with torch.no_grad():
        dense.weight.copy_(torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
        dense.bias.copy_(torch.tensor([0.5, -0.5]))
    sparse = SparseInputLinear.from_linear(dense, max_density=1.0)
    x = torch.tensor([[0.0, 2.0, 0.0], [1.0, 0.0, -1.0]])
    out = sparse(x)
    # row 0: 2 * column 1 + bias = (4.5, 9.5); row 1: column 0 - column 2 + bias = (-1.5, -2.5)
    assert out.tolist() == [[4.5, 9.5], [-1.5, -2.5]]
    out.sum().backward()
    # dL/dW[o, i] = sum_b x[b, i]: (1, 2, -1) for both outputs; stored (in, out)
    assert sparse.weight.grad.t().tolist() == [[1.0, 2.0, -1.0], [1.0, 2.0, -1.0]]
    assert sparse.bias.grad.tolist() == [2.0, 2.0]
    assert SparseRows.of(x) is None  # 3 of 6 non-zero: above the default density, so dense
    rows = SparseRows.of(x, 1.0)
    assert rows.indptr.tolist() == [0, 1, 3] and rows.cols.tolist() == [1, 0, 2] and rows.vals.tolist() == [2, 1, -1]


@pytest.mark.parametrize("case", ["mdp", "deeprm"])
def test_same_function_on_real_observations(case):
    x = torch.from_numpy(_observations(case))
    density = float((x != 0).float().mean())
    assert density < 0.3, f"{case} observations are {density:.0%} non-zero: not the sparse case this tests"
    dense, sparse = _pair(x.shape[1], 64)
    assert SparseRows.of(x, 1.0) is not None
    out_d, out_s = dense(x), sparse(x)
    torch.testing.assert_close(out_s, out_d, rtol=1e-5, atol=1e-5)
    grad_out = torch.randn_like(out_d)
    (out_d * grad_out).sum().backward()
    (out_s * grad_out).sum().backward()
    torch.testing.assert_close(sparse.weight.grad.t(), dense.weight.grad, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(sparse.bias.grad, dense.bias.grad, rtol=1e-5, atol=1e-5)
    with torch.no_grad():  # the rollout path (no autograd) gives the same bits as the graph path
        assert torch.equal(sparse(x), out_s.detach())
    again = SparseInputLinear.from_linear(dense, max_density=1.0)
    assert torch.equal(again(x), out_s)  # deterministic


@pytest.mark.parametrize("n_cols", [1, 7, 8, 9, 16, 37])
def test_csr_view_is_scipys_on_random_batches(n_cols):
    """The CSR kernel (groups of zeros skipped, every input of a group with an entry written) against
    scipy's ``csr_matrix``: widths on and off its group size, empty rows, runs of zeros, NaN and -0.0
    (a zero: left out, as scipy does), and the dense refusal exactly above ``max_nnz``."""
    import scipy.sparse as sp

    from schedrl.agents.sparse_input import _csr

    rng = np.random.default_rng(n_cols)
    for density in (0.0, 0.05, 0.3, 1.0):
        x = np.where(rng.random((6, n_cols)) < density, rng.standard_normal((6, n_cols)), 0).astype(np.float32)
        x[2] = 0.0
        x[3, :: 3] = -0.0
        x[4, -1] = np.nan
        nnz = int(np.count_nonzero(x))
        indptr, cols, vals = _csr(x, nnz)
        peer = sp.csr_matrix(x)
        assert np.array_equal(indptr, peer.indptr) and np.array_equal(cols, peer.indices)
        assert np.array_equal(vals, peer.data, equal_nan=True)
        assert nnz and _csr(x, nnz - 1)[0].size == 0  # the NaN counts: never an empty batch


def test_dense_fallback_above_max_density_and_nan():
    dense, _ = _pair(40, 8)
    sparse = SparseInputLinear.from_linear(dense, max_density=0.1)
    x = torch.rand(5, 40)  # every entry non-zero: the dense product on the same parameters
    assert SparseRows.of(x, 0.1) is None
    torch.testing.assert_close(sparse(x), dense(x))
    y = torch.zeros(2, 40)
    y[0, 3] = float("nan")
    out = SparseInputLinear.from_linear(dense, max_density=1.0)(y)
    assert torch.isnan(out[0]).all() and torch.equal(out[1], dense.bias.detach())


def test_from_linear_draws_nothing_and_files_load_both_ways(tmp_path):
    dense, _ = _pair(30, 6)
    state = torch.random.get_rng_state()
    sparse = SparseInputLinear.from_linear(dense)
    assert torch.equal(torch.random.get_rng_state(), state)
    assert sparse.weight.shape == (30, 6) and sparse.weight.is_contiguous()
    sd = sparse.state_dict()
    assert sd["weight"].shape == (6, 30) and torch.equal(sd["weight"], dense.weight)  # nn.Linear's layout
    torch.save(sd, tmp_path / "w.pt")
    other = nn.Linear(30, 6)
    other.load_state_dict(torch.load(tmp_path / "w.pt"))
    assert torch.equal(other.weight, dense.weight)
    back = SparseInputLinear(30, 6)
    back.load_state_dict(dense.state_dict())
    assert torch.equal(back.weight, dense.weight.t())
    square = SparseInputLinear(5, 5)  # a square layer too: files are always (out, in)
    ref = nn.Linear(5, 5)
    square.load_state_dict(ref.state_dict())
    assert torch.equal(square.state_dict()["weight"], ref.weight)


def test_double_backward_is_refused():
    _, sparse = _pair(10, 3)
    x = torch.zeros(2, 10)
    x[0, 1] = 1.0
    (g,) = torch.autograd.grad(sparse(x).square().sum(), sparse.weight, create_graph=True)
    with pytest.raises(RuntimeError):
        g.sum().backward()


def test_sparsify_and_settings():
    net = nn.Sequential(nn.Flatten(), nn.Linear(8, 4), nn.Tanh())
    assert sparsify_first_linear(net) and isinstance(net[1], SparseInputLinear)
    assert not sparsify_first_linear(nn.Sequential(nn.Tanh(), nn.Linear(8, 4)))
    assert use_sparse("auto", 1024) and not use_sparse("auto", 1023) and use_sparse(True, 3)
    with pytest.raises(ValueError):
        use_sparse("yes", 10)


def _ppo(sparse, seed=0, steps=0):
    from stable_baselines3 import PPO

    from schedrl.agents.hyperparams import load_hyperparams, resolve_hyperparams
    from schedrl.experiments.envs import make_env
    from schedrl.papers.mdp import layout as ml

    policy, _, kw = resolve_hyperparams("ppo", load_hyperparams("ppo", "mdp", overrides={"batch_size": 50}))
    kw["policy_kwargs"]["sparse_input"] = sparse
    model = PPO(policy, make_env(ml.ENV_ID, ml.env_kwargs("image", 3, 20)), seed=seed, device="cpu", **kw)
    if steps:
        model.learn(steps)
    return model


def test_policy_same_start_close_after_training_and_checkpoints_cross_layers(tmp_path):
    torch.set_num_threads(1)
    dense, sparse = _ppo(False), _ppo("auto")
    assert isinstance(sparse.policy.mlp_extractor.policy_net[0], SparseInputLinear)
    assert isinstance(sparse.policy.mlp_extractor.value_net[0], SparseInputLinear)
    assert type(dense.policy.mlp_extractor.policy_net[0]) is nn.Linear
    sd_d, sd_s = dense.policy.state_dict(), sparse.policy.state_dict()
    assert all(torch.equal(sd_d[k], sd_s[k]) for k in sd_d)  # same seed, same weights
    dense.learn(100)
    sparse.policy.load_state_dict(dense.policy.state_dict())
    # the trained dense policy's numbers on its own rollout, through the sparse layers
    batch = next(dense.rollout_buffer.get(None))
    outs = []
    for model in (dense, sparse):
        model.policy.zero_grad()
        values, log_prob, entropy = model.policy.evaluate_actions(batch.observations, batch.actions.long().flatten())
        (values.sum() + log_prob.sum() + entropy.sum()).backward()
        grads = {n: (p.grad.t() if getattr(p, "in_out", False) else p.grad) for n, p in model.policy.named_parameters()}
        outs.append((values, log_prob, entropy, grads))
    for a, b in zip(outs[0][:3], outs[1][:3]):
        torch.testing.assert_close(b, a, rtol=1e-4, atol=1e-5)
    for name, grad in outs[0][3].items():
        torch.testing.assert_close(outs[1][3][name], grad, rtol=1e-4, atol=1e-5)
    sparse.learn(100)
    # optimizer files hold the dense layout: a sparse checkpoint resumes as dense and the other way
    opt = sparse.policy.optimizer.state_dict()
    assert [tuple(v["exp_avg"].shape) for v in opt["state"].values()] == \
        [tuple(v["exp_avg"].shape) for v in dense.policy.optimizer.state_dict()["state"].values()]
    sparse.save(tmp_path / "sparse.zip")
    dense.save(tmp_path / "dense.zip")
    from stable_baselines3 import PPO

    as_dense = PPO.load(tmp_path / "sparse.zip", custom_objects={"policy_kwargs": {
        **sparse.policy_kwargs, "sparse_input": False}}, device="cpu")
    as_sparse = PPO.load(tmp_path / "dense.zip", custom_objects={"policy_kwargs": {
        **dense.policy_kwargs, "sparse_input": True}}, device="cpu")
    assert isinstance(as_sparse.policy.mlp_extractor.policy_net[0], SparseInputLinear)
    for loaded, source in ((as_dense, sparse), (as_sparse, dense)):
        a, b = loaded.policy.state_dict(), source.policy.state_dict()
        assert all(torch.equal(a[k], b[k]) for k in a)
        oa, ob = loaded.policy.optimizer.state_dict()["state"], source.policy.optimizer.state_dict()["state"]
        assert all(torch.equal(oa[i][k], ob[i][k]) for i in oa for k in oa[i])
        live = loaded.policy.optimizer.state
        first = loaded.policy.mlp_extractor.policy_net[0].weight
        assert live[first]["exp_avg"].shape == first.shape  # re-laid for the live parameter


def test_trpo_keeps_the_dense_layer_and_bad_settings_are_named():
    from schedrl.agents.hyperparams import load_hyperparams, resolve_hyperparams
    from schedrl.agents.lean_policy import DenseInputLeanMlpPolicy

    policy, _, kw = resolve_hyperparams("trpo", load_hyperparams("trpo", "deeprm-discrete-image"))
    assert policy is DenseInputLeanMlpPolicy and "sparse_input" not in kw["policy_kwargs"]
    assert resolve_hyperparams("ppo", load_hyperparams("ppo", "mdp"))[0] is not DenseInputLeanMlpPolicy
    with pytest.raises(ConfigError, match="TRPO needs the dense"):
        resolve_hyperparams("trpo", load_hyperparams("trpo", None, overrides={"policy_kwargs": {"sparse_input": True}}))
    with pytest.raises(ConfigError, match="sparse_input"):
        resolve_hyperparams("ppo", load_hyperparams("ppo", None, overrides={"policy_kwargs": {"sparse_input": "yes"}}))
    with pytest.raises(ConfigError, match="only the actor-critic MlpPolicy"):
        resolve_hyperparams("dqn", load_hyperparams("dqn", None, overrides={"policy_kwargs": {"sparse_input": True}}))


def test_policy_scans_a_batch_once_for_both_first_layers(monkeypatch):
    """The actor's and the critic's first layers share one CSR view, and a batch denser than
    ``max_density`` is scanned once and multiplied densely by both (same numbers as nn.Linear)."""
    import schedrl.agents.sparse_input as si

    model = _ppo("auto")
    calls = []
    real = si.SparseRows.of.__func__

    def counted(cls, x, max_density=si.MAX_DENSITY):
        calls.append(x.shape)
        return real(cls, x, max_density)

    monkeypatch.setattr(si.SparseRows, "of", classmethod(counted))
    policy = model.policy
    n = policy.observation_space.shape
    sparse_obs = torch.zeros((3, *n))
    sparse_obs.view(3, -1)[:, :5] = 1.0
    dense_obs = torch.rand((3, *n))
    for obs in (sparse_obs, dense_obs):
        calls.clear()
        with torch.no_grad():
            pi, vf = policy._latents(obs)
        assert len(calls) == 1
        flat = obs.reshape(3, -1)
        first = policy.mlp_extractor.policy_net[0]
        torch.testing.assert_close(pi, policy.mlp_extractor.policy_net[1:](flat @ first.weight + first.bias))
