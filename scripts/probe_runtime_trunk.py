#!/usr/bin/env python3
"""Which value of the runtime paper's PPO recipe keeps it from learning the probe's case?

`schedrl probe runtime` finds the recipe (one 1024-512-256 trunk shared by the policy and value heads,
SB3 1.0's reading of the paper's net_arch; no entropy bonus; 8 envs x 512 steps) failing the learning
probe at 1x and 4x its budget. This trains it with one value changed at a time, at 4x the probe's
budget (``schedrl.experiments.probes.probe_trainer``, seeds 0 and 1, the zeroed control on seed 0),
and prints one line per variant: which change lets it learn. ``--stock``: the same case with stock SB3 PPO
(its own ActorCriticPolicy, not schedrl's lean policy class), a shared 64-64 extractor against separate
64-64 copies, runtime's values otherwise, 40,960 steps, seed 0: is it our policy code or PPO's shared trunk?

    python scripts/probe_runtime_trunk.py [--work DIR] [--only NAME ...] [--stock]

About 15 CPU-minutes (2026-12-06, faster kind).
"""

from __future__ import annotations

import argparse
import time


def variants() -> dict[str, dict]:
    from schedrl.papers.runtime.experiments import hyperparams

    base = hyperparams("baseline", "T512-M512-K4")
    return {
        "the paper's recipe": base,
        "separate actor and critic": hyperparams("baseline", "T512-M512-K4", "separate"),
        "ent_coef 0.01": {**base, "ent_coef": 0.01},
        "n_envs 1": {**base, "n_envs": 1},
        "shared trunk 64-64": {**base, "policy_kwargs": {"shared_net": [64, 64], "activation_fn": "tanh"}},
        "vf_coef 0.01": {**base, "vf_coef": 0.01},
        "max_grad_norm 100": {**base, "max_grad_norm": 100.0},
    }


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


def main(argv: list[str] | None = None) -> int:
    from schedrl.experiments import probes

    found = variants()
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--work", default="results/probe-runtime-trunk", help="training folders (default: %(default)s)")
    p.add_argument("--only", nargs="+", choices=list(found), default=list(found), metavar="NAME",
                   help="variants to train (default: all: " + "; ".join(found) + ")")
    p.add_argument("--budget", type=int, default=probes.RETRY_BUDGET, help="times the probe's budget (default: %(default)s)")
    p.add_argument("--stock", action="store_true", help="only the stock-SB3 check (shared extractor vs separate copies)")
    args = p.parse_args(argv)
    if args.stock:
        stock(args.work)
        return 0
    for name in args.only:
        t0 = time.process_time()
        probe = probes.probe_trainer({"kind": "sb3", "algo": "ppo", "hyperparams": found[name]},
                                     f"{args.work}/{name.replace(' ', '_')}", budget=args.budget)
        print(f"{name}: {probe.summary()} ({time.process_time() - t0:.0f} CPU-s)", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
