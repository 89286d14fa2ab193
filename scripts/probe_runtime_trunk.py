#!/usr/bin/env python3
"""Which value of the runtime paper's PPO recipe keeps it from learning the probe's case, and why?

On the case's own rewards (neg_slowdown, returns ~-70 an episode) the paper's PPO (one 1024-512-256 trunk
shared by the policy and value heads, SB3 1.0's reading of the paper's net_arch; no entropy bonus; 8 envs x
512 steps) fails the learning probe at 1x and 4x its budget; at runtime_final's return scale it passes
(``runtime.tuning.PROBE_REWARD_SCALES``, runtime history.md 2026-12-07). This trains it with one value
changed at a time, at 4x the probe's budget (``schedrl.experiments.probes.probe_trainer``, seeds 0 and 1,
the zeroed control on seed 0), the case's rewards rescaled for two of them,
and prints one line per variant: which change lets it learn. ``--stock``: the same case with stock SB3 PPO
(its own ActorCriticPolicy, not schedrl's lean policy class), a shared 64-64 extractor against separate
64-64 copies, runtime's values otherwise, 40,960 steps, seed 0: is it our policy code or PPO's shared trunk?
``--gradients``: stock SB3 with the paper's trunk; how the value loss's gradient on the trunk compares with
the policy loss's, before and after training (the mechanism).

    python scripts/probe_runtime_trunk.py [--work DIR] [--only NAME ...] [--stock]
        [--gradients probe|runtime [--reward runtime_final|runtime_idle] [--steps N]]

About 15 CPU-minutes (2026-12-06, faster kind).
"""

from __future__ import annotations

import argparse
import time


def variants() -> dict[str, tuple[dict, float]]:
    """Name -> (PPO hyperparameters, reward scale of the probe's case)."""
    from schedrl.papers.runtime.experiments import hyperparams

    base = hyperparams("baseline", "T512-M512-K4")
    found = {
        "the paper's recipe": base,
        "separate actor and critic": hyperparams("baseline", "T512-M512-K4", "separate"),
        "ent_coef 0.01": {**base, "ent_coef": 0.01},
        "n_envs 1": {**base, "n_envs": 1},
        "shared trunk 64-64": {**base, "policy_kwargs": {"shared_net": [64, 64], "activation_fn": "tanh"}},
        "vf_coef 0.01": {**base, "vf_coef": 0.01},
        "vf_coef 0.0001": {**base, "vf_coef": 1e-4},
        "vf_coef 0 (no value gradient)": {**base, "vf_coef": 0.0},
        "max_grad_norm 100": {**base, "max_grad_norm": 100.0},
    }
    # the case's returns (~-70 an episode under neg_slowdown) scaled to the runtime env's (~0.05 +- 0.1)
    return {**{k: (v, 1.0) for k, v in found.items()}, "rewards x0.001": (base, 1e-3), "rewards x0.01": (base, 1e-2)}


def stock(work: str, steps: int = 40_960) -> None:
    """Stock SB3 PPO on the probe's case, shared extractor vs separate copies (see the module's text)."""
    import torch.nn as nn
    from stable_baselines3 import PPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from schedrl.agents.shared_mlp import SharedMlpExtractor
    from schedrl.experiments import probes

    case = probes.sjf_case(f"{work}/stock_case")
    layers = {"shared": {"features_extractor_class": SharedMlpExtractor, "net_arch": {"pi": [], "vf": []},
                         "features_extractor_kwargs": {"hidden": [64, 64], "activation_fn": nn.Tanh}},
              "separate": {"net_arch": {"pi": [64, 64], "vf": [64, 64]}}}
    for name, kwargs in layers.items():
        t0 = time.process_time()
        env = DummyVecEnv([case.env for _ in range(8)])
        model = PPO("MlpPolicy", env, n_steps=512, batch_size=512, n_epochs=4, learning_rate=3e-4, ent_coef=0.0,
                    policy_kwargs={**kwargs, "activation_fn": nn.Tanh}, seed=0, verbose=0)
        model.learn(steps)
        report = probes.probe_report(case, lambda obs, e, m=model: int(m.predict(obs, deterministic=True)[0]))
        print(f"stock SB3, {name} 64-64: {report.line()} ({time.process_time() - t0:.0f} CPU-s)", flush=True)


def runtime_env(reward: str = "runtime_final"):
    """The runtime paper's training env (config/config.yaml, the baseline's encoder, wl2_rnda draw 0;
    ``snakemake results/workloads/runtime/wl2_rnda.swf`` writes its workload), paying ``reward``."""
    import gymnasium as gym

    import schedrl.envs  # noqa: F401
    from schedrl.commands import load_spec
    from schedrl.papers.runtime import experiments as rx

    spec = load_spec("runtime", "config/config.yaml")
    spec["env"]["reward"] = reward
    return gym.make(rx.ENV_ID, **rx.env_kwargs(spec, rx.METHODS["baseline"][0], "wl2_rnda", training=True))


def gradients(work: str, where: str = "probe", steps: int = 40_960, reward: str = "runtime_final") -> None:
    """How much of the shared trunk's gradient is the value loss's: stock SB3 PPO with the paper's shared
    1024-512-256 trunk and runtime's values, seed 0, on the probe's case (``where`` "probe") or the
    runtime paper's own training env ("runtime", paying ``reward``). On one fresh rollout (8 x 512 steps), before training
    and after ``steps``, the policy loss (the clipped surrogate at ratio 1) and the value loss are
    differentiated apart; prints each loss, the norm of its gradient on the trunk (the value's times
    vf_coef, as PPO sums them) and on its own head, and their cosine on the trunk."""
    import torch
    import torch.nn as nn
    import torch.nn.functional as F
    from stable_baselines3 import PPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from schedrl.agents.shared_mlp import SharedMlpExtractor
    from schedrl.experiments import probes

    make = probes.sjf_case(f"{work}/gradients_case").env if where == "probe" else (lambda: runtime_env(reward))
    kwargs = {"features_extractor_class": SharedMlpExtractor, "net_arch": {"pi": [], "vf": []},
              "features_extractor_kwargs": {"hidden": [1024, 512, 256], "activation_fn": nn.Tanh}, "activation_fn": nn.Tanh}
    model = PPO("MlpPolicy", DummyVecEnv([make for _ in range(8)]), n_steps=512, batch_size=512, n_epochs=4,
                learning_rate=3e-4, ent_coef=0.0, vf_coef=0.5, policy_kwargs=kwargs, seed=0, verbose=0)

    def norm(grads) -> float:
        return float(torch.sqrt(sum((g ** 2).sum() for g in grads)))

    for stage, more in (("untrained", 0), (f"after {steps:,} steps", steps)):
        if more:
            model.learn(more, reset_num_timesteps=False)
        _, callback = model._setup_learn(model.n_steps * model.n_envs, None, reset_num_timesteps=False)
        model.collect_rollouts(model.env, callback, model.rollout_buffer, n_rollout_steps=model.n_steps)
        data = next(model.rollout_buffer.get(None))
        values, log_prob, _ = model.policy.evaluate_actions(data.observations, data.actions.long().flatten())
        adv = (data.advantages - data.advantages.mean()) / (data.advantages.std() + 1e-8)
        policy_loss = -(adv * torch.exp(log_prob - data.old_log_prob)).mean()
        value_loss = model.vf_coef * F.mse_loss(data.returns, values.flatten())
        trunk = list(model.policy.features_extractor.parameters())
        heads = {"policy": list(model.policy.action_net.parameters()), "value": list(model.policy.value_net.parameters())}
        g_pi = torch.autograd.grad(policy_loss, trunk + heads["policy"], retain_graph=True)
        g_vf = torch.autograd.grad(value_loss, trunk + heads["value"])
        n = len(trunk)
        cos = float(sum((a * b).sum() for a, b in zip(g_pi[:n], g_vf[:n], strict=True)) / (norm(g_pi[:n]) * norm(g_vf[:n]) + 1e-12))
        print(f"{where if where == 'probe' else reward}, {stage}: policy loss {policy_loss.item():+.4f}, value loss x vf_coef {value_loss.item():.4g}; "
              f"trunk gradient norm: policy {norm(g_pi[:n]):.3g}, value {norm(g_vf[:n]):.3g} "
              f"(value/policy {norm(g_vf[:n]) / max(norm(g_pi[:n]), 1e-12):.3g}, cosine {cos:+.2f}); "
              f"head gradient norm: policy {norm(g_pi[n:]):.3g}, value {norm(g_vf[n:]):.3g}; "
              f"returns mean {data.returns.mean().item():.3g}, sd {data.returns.std().item():.3g}", flush=True)


def main(argv: list[str] | None = None) -> int:
    from schedrl.experiments import probes

    found = variants()
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--work", default="results/probe-runtime-trunk", help="training folders (default: %(default)s)")
    p.add_argument("--only", nargs="+", choices=list(found), default=list(found), metavar="NAME",
                   help="variants to train (default: all: " + "; ".join(found) + ")")
    p.add_argument("--budget", type=int, default=probes.RETRY_BUDGET, help="times the probe's budget (default: %(default)s)")
    p.add_argument("--stock", action="store_true", help="only the stock-SB3 check (shared extractor vs separate copies)")
    p.add_argument("--gradients", choices=("probe", "runtime"),
                   help="only the gradient check on the probe's case or runtime's own training env: the value "
                   "and policy losses' gradients on the shared trunk")
    p.add_argument("--reward", default="runtime_final", choices=("runtime_final", "runtime_idle"),
                   help="with --gradients runtime: the env's reward (default: %(default)s)")
    p.add_argument("--steps", type=int, default=40_960, help="with --gradients: steps trained between the two "
                   "measurements (default: %(default)s)")
    args = p.parse_args(argv)
    if args.stock:
        stock(args.work)
        return 0
    if args.gradients:
        gradients(args.work, args.gradients, args.steps, args.reward)
        return 0
    for name in args.only:
        t0 = time.process_time()
        hyperparams, scale = found[name]
        probe = probes.probe_trainer({"kind": "sb3", "algo": "ppo", "hyperparams": hyperparams, "reward_scale": scale},
                                     f"{args.work}/{name.replace(' ', '_')}", budget=args.budget)
        print(f"{name}: {probe.summary()} ({time.process_time() - t0:.0f} CPU-s)", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
