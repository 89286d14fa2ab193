"""The clip and the lazy Adam from the rows a batch touched (issue 72, ``sparse_optimizer``).

The clip is ``torch.nn.utils.clip_grad_norm_``'s on real MDP image-like observations; lazy Adam moves
only the touched rows and is torch's Adam where every row is touched; PPO trains with each setting,
deterministically; the default stays SB3's optimizer.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import torch
import torch.nn as nn

import schedrl.envs  # noqa: F401  (registers the env ids)
from schedrl.agents.sparse_input import RowGrad, SparseInputLinear, SparseRows
from schedrl.agents.sparse_optimizer import RowSparseAdam
from schedrl.errors import ConfigError
from test_sparse_input import _observations


def _net(n_in: int, seed: int = 0) -> tuple[nn.Sequential, nn.Sequential]:
    """A dense 2-layer net and its twin whose first layer is sparse-input with row gradients."""
    torch.manual_seed(seed)
    dense = nn.Sequential(nn.Linear(n_in, 64), nn.Tanh(), nn.Linear(64, 3))
    sparse = nn.Sequential(SparseInputLinear.from_linear(dense[0], max_density=1.0), nn.Tanh(), nn.Linear(64, 3))
    sparse[2].load_state_dict(dense[2].state_dict())
    sparse[0].row_grads = True
    return dense, sparse


def _loss(net, x, target):
    return (net(x) - target).square().sum()


def test_row_gradient_is_the_dense_gradient_in_the_touched_rows():
    x = torch.from_numpy(_observations("mdp"))
    _, sparse = _net(x.shape[1])
    grad_out = torch.randn(x.shape[0], 64)
    rows = SparseRows.of(x, 1.0)
    full = torch.from_numpy(np.asarray(rows.t_matmul_rows(grad_out).to_dense(x.shape[1])))
    touched, _ = rows.touched()
    assert np.array_equal(touched, np.flatnonzero((x != 0).any(0).numpy()))
    assert 0 < touched.size < x.shape[1] // 2  # MDP batches touch a minority of the rows
    out = sparse[0](x)
    (out * grad_out).sum().backward()
    assert sparse[0].weight.grad is None  # handed over as rows
    row_grad = sparse[0].weight.row_grad
    assert np.array_equal(row_grad.rows, touched)
    ref = SparseInputLinear.from_linear(nn.Linear(x.shape[1], 64), max_density=1.0)
    (ref(x) * grad_out).sum().backward()
    assert torch.equal(row_grad.to_dense(x.shape[1]), ref.weight.grad)  # the dense kernel's bits
    assert torch.equal(full, ref.weight.grad)
    two = row_grad.add(RowGrad(np.array([0, touched[0]]), np.ones((2, 64), np.float32)))
    expected = ref.weight.grad.clone()
    expected[[0, int(touched[0])]] += 1.0
    torch.testing.assert_close(two.to_dense(x.shape[1]), expected)


@pytest.mark.parametrize("max_norm", [1e-3, 0.5, 1e6])
def test_sparse_clip_is_torch_clip_on_mdp_observations(max_norm):
    x = torch.from_numpy(_observations("mdp"))
    target = torch.randn(x.shape[0], 3)
    dense, sparse = _net(x.shape[1])
    _loss(dense, x, target).backward()
    torch.nn.utils.clip_grad_norm_(dense.parameters(), max_norm)
    opt = RowSparseAdam(sparse.parameters(), lr=1e-3, max_grad_norm=max_norm)
    _loss(sparse, x, target).backward()
    assert all(p.grad is None for p in sparse.parameters())  # SB3's clip finds nothing to do
    held = opt.held_gradients()
    # torch's clip over the same gradients, written out densely
    copies = [nn.Parameter(p.detach().clone()) for p in sparse.parameters()]
    for c, p in zip(copies, sparse.parameters()):
        c.grad = held[p].clone()
    torch_norm = torch.nn.utils.clip_grad_norm_(copies, max_norm)
    dense_grads, rows = opt._take_gradients()
    assert len(rows) == 1 and rows[sparse[0].weight].rows.size < x.shape[1] // 2
    coef = opt.clip_coefficient(dense_grads, rows)
    grads = {p: g.mul(coef) for p, g in dense_grads.items()}
    grads.update({p: r.to_dense(p.shape[0]).mul_(coef) for p, r in rows.items()})
    assert set(grads) == set(held) == set(sparse.parameters())
    # the norm: float64 sums here, torch's float32 reduction over 540,160 entries is off by ~3e-6
    exact = sum(g.double().square().sum() for g in held.values()).sqrt().item()
    assert torch_norm.item() == pytest.approx(exact, rel=1e-5)
    assert coef.item() == pytest.approx(min(max_norm / (exact + 1e-6), 1.0), rel=1e-7)
    for (name, p), c, q in zip(sparse.named_parameters(), copies, dense.parameters()):
        if max_norm == 1e6:  # no clipping: the factor is 1 in both, the same bits
            assert torch.equal(grads[p], c.grad), name
        torch.testing.assert_close(grads[p], c.grad, rtol=1e-5, atol=0)
        # and the dense network's clipped gradient (the layers' own sums differ in the last bits)
        ref = q.grad.t() if name == "0.weight" else q.grad
        torch.testing.assert_close(grads[p], ref, rtol=1e-5, atol=1e-5 * ref.abs().max().item())
    if max_norm < 1:
        assert coef.item() < 1  # the clip was active


def test_lazy_adam_is_torch_adam_where_every_row_is_touched():
    x = torch.rand(6, 40) + 0.1  # every input non-zero: every row touched
    target = torch.randn(6, 3)
    _, sparse = _net(40)
    opt = RowSparseAdam(sparse.parameters(), lr=1e-2, eps=1e-5, fused=True, max_grad_norm=1e9, lazy=True)
    twins = [nn.Parameter(p.detach().clone()) for p in sparse.parameters()]
    ref = torch.optim.Adam(twins, lr=1e-2, eps=1e-5, fused=True)
    first = sparse[0].weight
    for _ in range(3):
        opt.zero_grad()
        _loss(sparse, x, target).backward()
        held = opt.held_gradients()
        assert first.row_grad.rows.size == 40
        for t, p in zip(twins, sparse.parameters()):
            t.grad = held[p].clone()  # the same gradients into torch's Adam
        ref.step()
        opt.step()
        for p, t in zip(sparse.parameters(), twins):
            assert torch.equal(p, t)  # torch's Adam kernel on the gathered rows: the same bits
            for key in ("step", "exp_avg", "exp_avg_sq"):
                assert torch.equal(opt.state[p][key], ref.state[t][key])
    assert opt.state[first]["step"].item() == 3 and opt.state[first]["step"].dtype == torch.float32


def test_lazy_adam_updates_only_the_touched_rows_exact_adam_moves_all():
    x = torch.from_numpy(_observations("mdp", n=20))
    touched = (x != 0).any(0)
    target = torch.randn(x.shape[0], 3)
    for lazy in (False, True):
        _, sparse = _net(x.shape[1])
        opt = RowSparseAdam(sparse.parameters(), lr=1e-2, max_grad_norm=0.5, lazy=lazy)
        w0 = sparse[0].weight.detach().clone()
        for _ in range(2):  # the second step: untouched rows still have zero moments, touched ones not
            opt.zero_grad()
            _loss(sparse, x, target).backward()
            opt.step()
        moved = (sparse[0].weight.detach() != w0).any(1)
        assert moved[touched].all()
        assert not moved[~touched].any()  # zero gradient from zero moments: no move in either
        _loss(sparse, x[:1] * 0, target[:1]).backward()  # a batch of zeros: no row touched
        before = sparse[0].weight.detach().clone()
        opt.step()
        moved = (sparse[0].weight.detach() != before).any(1)
        if lazy:
            assert not moved.any()  # rows keep their weights and moments
        else:
            assert moved[touched].all()  # Adam's moments move every touched row again


def test_dense_fallback_batch_goes_through_the_optimizer():
    _, sparse = _net(40)
    opt = RowSparseAdam(sparse.parameters(), lr=1e-2, max_grad_norm=1e9, lazy=True)
    sparse[0].max_density = 0.1
    x = torch.rand(5, 40)  # above max_density: the dense product, a dense gradient
    _loss(sparse, x, torch.zeros(5, 3)).backward()
    assert not hasattr(sparse[0].weight, "row_grad") or sparse[0].weight.row_grad is None
    held = opt.held_gradients()
    assert held[sparse[0].weight].shape == (40, 64)
    w0 = sparse[0].weight.detach().clone()
    opt.step()
    assert (sparse[0].weight.detach() != w0).all()


def _ppo(setting: str, seed: int = 0):
    from stable_baselines3 import PPO

    from schedrl.agents.hyperparams import load_hyperparams, resolve_hyperparams
    from schedrl.experiments.envs import make_env
    from schedrl.papers.mdp import layout as ml

    hp = load_hyperparams("ppo", "mdp", overrides={"batch_size": 50})
    hp["policy_kwargs"]["sparse_optimizer"] = setting
    policy, _, kw = resolve_hyperparams("ppo", hp)
    return PPO(policy, make_env(ml.ENV_ID, ml.env_kwargs("image", 3, 20)), seed=seed, device="cpu", **kw)


def test_ppo_trains_deterministically_with_each_setting(tmp_path):
    torch.set_num_threads(1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # batch_size over the rollout
        base = _ppo("dense")
        assert type(base.policy.optimizer) is torch.optim.Adam  # the default: SB3's optimizer
        base.learn(150)
        finals = {"dense": base.policy.state_dict()}
        for setting in ("clip", "lazy"):
            runs = []
            for _ in range(2):
                model = _ppo(setting)
                opt = model.policy.optimizer
                assert isinstance(opt, RowSparseAdam) and opt.lazy is (setting == "lazy")
                assert opt.max_grad_norm == 0.5
                model.learn(150)
                runs.append(model.policy.state_dict())
            assert all(torch.equal(runs[0][k], runs[1][k]) for k in runs[0])  # same seed, same weights
            finals[setting] = runs[0]
            for v in runs[0].values():
                assert torch.isfinite(v).all()
        # clip computes the dense run's function: the weights agree to float tolerance
        for k, v in finals["dense"].items():
            torch.testing.assert_close(finals["clip"][k], v, rtol=1e-4, atol=1e-5)
        first = "mlp_extractor.policy_net.0.weight"
        assert not torch.equal(finals["lazy"][first], finals["dense"][first])
        # a lazy model saves and resumes as Adam's files
        model.save(tmp_path / "lazy.zip")
        from stable_baselines3 import PPO

        loaded = PPO.load(tmp_path / "lazy.zip", device="cpu")
        assert isinstance(loaded.policy.optimizer, RowSparseAdam) and loaded.policy.optimizer.lazy
        a, b = loaded.policy.optimizer.state_dict()["state"], model.policy.optimizer.state_dict()["state"]
        assert all(torch.equal(a[i][k], b[i][k]) for i in a for k in a[i])
        adam = base.policy.optimizer.state_dict()["state"]
        assert [(i, tuple(s["exp_avg"].shape), s["step"].dtype) for i, s in a.items()] == \
            [(i, tuple(s["exp_avg"].shape), s["step"].dtype) for i, s in adam.items()]  # Adam's file, in order
        loaded.set_env(model.get_env())
        loaded.learn(50)


def test_settings_are_checked():
    from schedrl.agents.hyperparams import load_hyperparams, resolve_hyperparams

    def resolve(algo, variant, pk, **over):
        hp = load_hyperparams(algo, variant, overrides=over)
        hp["policy_kwargs"] = {**(hp.get("policy_kwargs") or {}), **pk}
        return resolve_hyperparams(algo, hp)

    _, _, kw = resolve("ppo", "mdp", {"sparse_optimizer": "lazy"}, max_grad_norm=0.7)
    assert kw["policy_kwargs"]["sparse_max_grad_norm"] == 0.7
    assert "sparse_max_grad_norm" not in resolve("ppo", "mdp", {})[2]["policy_kwargs"]
    with pytest.raises(ConfigError, match="sparse_optimizer"):
        resolve("ppo", "mdp", {"sparse_optimizer": "sparse"})
    with pytest.raises(ConfigError, match="needs Adam"):
        resolve("a2c", None, {"sparse_optimizer": "lazy"})  # A2C's RMSprop
    with pytest.raises(ConfigError, match="no sparse optimizer"):
        resolve("trpo", None, {"sparse_optimizer": "clip"})
    with pytest.raises(ConfigError, match="only the actor-critic"):
        resolve("dqn", None, {"sparse_optimizer": "clip"})


def test_clip_mode_rewrites_its_dense_gradient_row_by_row():
    """``clip`` keeps one dense gradient table per first layer between steps and rewrites only the
    rows of the last and the present batch: what torch's Adam reads is each step's gradient."""
    x = torch.from_numpy(_observations("mdp", n=40))
    _, sparse = _net(x.shape[1])
    opt = RowSparseAdam(sparse.parameters(), lr=1e-3, max_grad_norm=1e9)
    seen = []
    real_step = torch.optim.Adam.step

    def spy(self, closure=None):
        seen.append(sparse[0].weight.grad.clone())
        return real_step(self, closure)

    torch.optim.Adam.step = spy
    try:
        for batch in (x[:20], x[20:], x[:2] * 0):  # the last touches no row: the table is zero again
            opt.zero_grad()
            _loss(sparse, batch, torch.ones(len(batch), 3)).backward()
            want = opt.held_gradients()[sparse[0].weight]
            opt.step()
            assert torch.equal(seen[-1], want)
        assert not seen[-1].any() and seen[0].any() and seen[1].any()
    finally:
        torch.optim.Adam.step = real_step


def test_lazy_adam_on_runs_of_touched_rows_is_torch_adam_while_the_others_have_no_moments():
    """On real MDP observations the touched rows come in many runs, each updated as a view; while the
    batch stays the same (PPO's epochs), untouched rows have zero moments, so torch's Adam leaves them
    too and the two agree bit for bit."""
    x = torch.from_numpy(_observations("mdp"))
    rows = SparseRows.of(x, 1.0).touched()[0]
    assert np.count_nonzero(np.diff(rows) != 1) >= 10  # many runs
    _, sparse = _net(x.shape[1])
    opt = RowSparseAdam(sparse.parameters(), lr=1e-2, eps=1e-5, max_grad_norm=0.5, lazy=True)
    twins = [nn.Parameter(p.detach().clone()) for p in sparse.parameters()]
    ref = torch.optim.Adam(twins, lr=1e-2, eps=1e-5, fused=True)
    target = torch.randn(x.shape[0], 3)
    for _ in range(3):
        opt.zero_grad()
        _loss(sparse, x, target).backward()
        held = opt.held_gradients()
        for t, p in zip(twins, sparse.parameters()):
            t.grad = held[p].clone()
        torch.nn.utils.clip_grad_norm_(twins, 1e9)  # no clipping in either: the factor is 1
        opt.max_grad_norm = 1e9
        ref.step()
        opt.step()
        for p, t in zip(sparse.parameters(), twins):
            assert torch.equal(p, t)
