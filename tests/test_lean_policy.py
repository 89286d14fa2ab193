"""``LeanMlpPolicy`` and the exact-root RMSprop are speed-ups only: SB3's numbers, checked here."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
import pytest
import torch
from stable_baselines3 import PPO
from stable_baselines3.common.policies import ActorCriticPolicy

from schedrl.agents import load_hyperparams, resolve_hyperparams
from schedrl.agents.lean_policy import LeanMaskablePolicy, LeanMlpPolicy
from schedrl.agents.registry import algo_class
from schedrl.agents.rmsprop import RMSprop


class BitsEnv(gym.Env):
    """A small env with a MultiBinary action: reward for each bit that matches a hidden pattern."""

    observation_space = gym.spaces.Box(0.0, 1.0, (6,), np.float32)
    action_space = gym.spaces.MultiBinary(4)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.t = 0
        return self.np_random.random(6).astype(np.float32), {}

    def step(self, action):
        self.t += 1
        obs = self.np_random.random(6).astype(np.float32)
        return obs, float(np.sum(action == (obs[:4] > 0.5))), False, self.t >= 20, {}


def _train(algo: str, policy, env_id, steps: int, **extra):
    env = BitsEnv() if env_id == "bits" else gym.make(env_id)
    _, _, kwargs = resolve_hyperparams(algo, load_hyperparams(algo))
    kwargs.update(extra)
    return algo_class(algo)(policy, env, seed=5, device="cpu", **kwargs).learn(steps)


@pytest.mark.parametrize("algo,extra", [("a2c", {}), ("ppo", {"n_steps": 64, "batch_size": 32, "n_epochs": 2}),
                                        ("trpo", {"n_steps": 128, "batch_size": 64})])
@pytest.mark.parametrize("env_id", ["CartPole-v1", "bits"])
def test_lean_policy_trains_sb3s_weights_bit_for_bit(algo, extra, env_id):
    assert issubclass(resolve_hyperparams(algo, load_hyperparams(algo))[0], LeanMlpPolicy)
    lean = _train(algo, LeanMlpPolicy, env_id, 256, **extra)
    sb3 = _train(algo, ActorCriticPolicy, env_id, 256, **extra)
    for a, b in zip(lean.policy.parameters(), sb3.policy.parameters(), strict=True):
        assert torch.equal(a, b)
    obs = torch.as_tensor(np.stack([lean.observation_space.sample() for _ in range(7)]))
    acts = torch.as_tensor(np.stack([lean.action_space.sample() for _ in range(7)]))
    acts = acts.float() if env_id == "bits" else acts.long()
    for x, y in zip(lean.policy.evaluate_actions(obs, acts), sb3.policy.evaluate_actions(obs, acts), strict=True):
        assert torch.equal(x, y)
    for deterministic in (True, False):
        torch.manual_seed(1)
        x = lean.policy(obs, deterministic)
        torch.manual_seed(1)
        y = sb3.policy(obs, deterministic)
        assert all(torch.equal(a, b) for a, b in zip(x, y, strict=True))


def test_a_saved_lean_model_loads_and_predicts_as_before(tmp_path):
    model = _train("ppo", LeanMlpPolicy, "CartPole-v1", 64, n_steps=64, batch_size=32, n_epochs=1)
    model.save(tmp_path / "m.zip")
    back = PPO.load(tmp_path / "m.zip", device="cpu")
    assert type(back.policy) is LeanMlpPolicy
    obs = np.zeros((3, 4), np.float32)
    assert np.array_equal(back.predict(obs, deterministic=True)[0], model.predict(obs, deterministic=True)[0])


def test_other_policies_stay_sb3s():
    assert resolve_hyperparams("a2c", {**load_hyperparams("a2c"), "policy": "CnnPolicy"})[0] == "CnnPolicy"
    assert resolve_hyperparams("dqn", load_hyperparams("dqn"))[0] == "MlpPolicy"


class MaskedPicksEnv(gym.Env):
    """A Discrete(6) env with action masks: reward for picking the largest valid entry of the observation."""

    observation_space = gym.spaces.Box(0.0, 1.0, (6,), np.float32)
    action_space = gym.spaces.Discrete(6)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.t = 0
        return self._draw(), {}

    def _draw(self):
        self.obs = self.np_random.random(6).astype(np.float32)
        self.mask = self.np_random.random(6) < 0.5
        self.mask[self.np_random.integers(6)] = True
        return self.obs

    def action_masks(self):
        return self.mask.copy()

    def step(self, action):
        self.t += 1
        best = int(np.argmax(np.where(self.mask, self.obs, -1.0)))
        return self._draw(), float(action == best), False, self.t >= 20, {}


def test_lean_maskable_policy_trains_maskable_ppos_weights_bit_for_bit():
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    assert resolve_hyperparams("maskable_ppo", load_hyperparams("maskable_ppo"))[0] is LeanMaskablePolicy
    _, _, kwargs = resolve_hyperparams("maskable_ppo", load_hyperparams("maskable_ppo"))
    kwargs.update(n_steps=64, batch_size=32, n_epochs=2, ent_coef=0.01)
    lean, ref = (algo_class("maskable_ppo")(policy, MaskedPicksEnv(), seed=5, device="cpu", **kwargs).learn(256)
                 for policy in (LeanMaskablePolicy, MaskableActorCriticPolicy))
    for a, b in zip(lean.policy.parameters(), ref.policy.parameters(), strict=True):
        assert torch.equal(a, b)
    env = MaskedPicksEnv()
    env.reset(seed=3)
    obs, masks = [], []
    for _ in range(7):
        obs.append(env._draw())
        masks.append(env.action_masks())
    obs, masks = torch.as_tensor(np.stack(obs)), np.stack(masks)
    acts = torch.as_tensor([int(np.flatnonzero(m)[0]) for m in masks])
    for m in (masks, None):  # masked, and unmasked (sb3-contrib normalises the logits twice there)
        for x, y in zip(lean.policy.evaluate_actions(obs, acts, m), ref.policy.evaluate_actions(obs, acts, m),
                        strict=True):
            assert torch.equal(x, y)
        for deterministic in (True, False):
            torch.manual_seed(1)
            x = lean.policy(obs, deterministic, m)
            torch.manual_seed(1)
            y = ref.policy(obs, deterministic, m)
            assert all(torch.equal(a, b) for a, b in zip(x, y, strict=True))
    assert lean.policy(obs, True, masks)[0].numpy().tolist() == [int(a) for a in lean.predict(
        obs.numpy(), deterministic=True, action_masks=masks)[0]]


def test_lean_maskable_policy_takes_the_sparse_first_layer_when_asked():
    from schedrl.agents.sparse_input import SparseInputLinear

    hp = load_hyperparams("maskable_ppo")
    hp["policy_kwargs"] = {**(hp.get("policy_kwargs") or {}), "sparse_input": True}
    policy, _, kwargs = resolve_hyperparams("maskable_ppo", hp)
    model = algo_class("maskable_ppo")(policy, MaskedPicksEnv(), seed=5, device="cpu", **kwargs)
    assert isinstance(model.policy.mlp_extractor.policy_net[0], SparseInputLinear)
    plain = algo_class("maskable_ppo")(LeanMaskablePolicy, MaskedPicksEnv(), seed=5, device="cpu", **{
        k: v for k, v in kwargs.items() if k != "policy_kwargs"}, policy_kwargs={
        k: v for k, v in kwargs["policy_kwargs"].items() if k != "sparse_input"})
    assert not isinstance(plain.policy.mlp_extractor.policy_net[0], SparseInputLinear)  # auto: dense below 1,024 inputs
    obs = torch.zeros((4, 6))
    obs[:, 2] = 0.7
    masks = np.ones((4, 6), bool)
    plain.policy.load_state_dict(model.policy.state_dict())
    for x, y in zip(model.policy.evaluate_actions(obs, torch.arange(4), masks),
                    plain.policy.evaluate_actions(obs, torch.arange(4), masks), strict=True):
        assert torch.allclose(x, y, atol=1e-6)


def _steps(opt_cls, grads, shapes, **kw):
    torch.manual_seed(1)
    params = [torch.nn.Parameter(torch.randn(*s)) for s in shapes]
    opt = opt_cls(params, lr=1e-3, **kw)
    for gs in grads:
        for p, g in zip(params, gs):
            p.grad = g.clone()
        opt.step()
    return params, opt


def _grads(shapes, n=60):
    gen = torch.Generator().manual_seed(2)
    masks = [(torch.rand(*s, generator=gen) < 0.2).float() for s in shapes]  # most averages stay 0
    return [[torch.randn(*s, generator=gen) * m * 10.0 ** float(torch.randint(-30, 2, (1,), generator=gen))
             for s, m in zip(shapes, masks)] for _ in range(n)]


def test_rmsprop_is_torchs_update_with_a_correctly_rounded_root():
    shapes = [(16, 300), (16,), (3, 16)]
    grads = _grads(shapes)
    ours, opt = _steps(RMSprop, grads, shapes, alpha=0.99, eps=1e-5, foreach=True)
    # the reference: torch's ops in torch's order, the root in float64 rounded once to float32 (exact)
    torch.manual_seed(1)
    ref = [torch.randn(*s) for s in shapes]
    avgs = [torch.zeros(s) for s in shapes]
    for gs in grads:
        for p, a, g in zip(ref, avgs, gs):
            a.mul_(0.99).addcmul_(g, g, value=1 - 0.99)
            p.addcdiv_(g, a.double().sqrt().float().add_(1e-5), value=-1e-3)
    for p, r in zip(ours, ref):
        assert torch.equal(p.detach(), r)
    torchs, topt = _steps(torch.optim.RMSprop, grads, shapes, alpha=0.99, eps=1e-5, foreach=True)
    mine, theirs = opt.state_dict(), topt.state_dict()
    assert mine["param_groups"] == theirs["param_groups"]
    for k in theirs["state"]:
        assert torch.equal(mine["state"][k]["square_avg"], theirs["state"][k]["square_avg"])
        assert torch.equal(mine["state"][k]["step"], theirs["state"][k]["step"])


def test_rmsprop_other_settings_are_torchs_own_step():
    shapes = [(5, 7), (5,)]
    grads = _grads(shapes, 10)
    for kw in ({"centered": True}, {"momentum": 0.9}, {"weight_decay": 0.1}):
        ours, _ = _steps(RMSprop, grads, shapes, **kw)
        torchs, _ = _steps(torch.optim.RMSprop, grads, shapes, **kw)
        assert all(torch.equal(a, b) for a, b in zip(ours, torchs))
