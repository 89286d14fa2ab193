"""What the MDP-design paper trains and how big it is.

* **Training**: SB3 PPO with Table 2's hyperparameters (``hyperparams/ppo.yaml``, block ``mdp``)
  through the generic ``schedrl train`` (``train_env_args``: its ``--env-kwarg`` options; a
  variant's ``mdp.hyperparams`` block, beyond the paper, sets values over Table 2:
  ``run_algo``, ``run_hyperparams``, ``train_hp_args``); each
  episode draws a fresh job set from the env's RNG (``jobset_seed=None``), as sched-rl-gym's
  generator does. The checkpoints at 1/8, 1/4 and 1/2 of training are kept (``budget_steps``,
  ``schedrl train --keep-steps``) for the budget evaluations.
* **Sizes**: the observation's length (``obs_size``) and the policy's parameters, by formula
  (``mlp_params``) and counted on the SB3 model (``param_count``), which the cost model and the
  parameter-count claims read.
* **Fig. 5's horizon benchmark** (``bench_horizon``): CPU seconds per PPO agent step at several
  horizons, and the line fitted to them (``linear_fit``).
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd

from schedrl.papers.mdp.layout import (
    ALGO,
    ENV_ID,
    FIXED_ENV,
    HYPERPARAMS_VARIANT,
    MASKED_ALGO,
    budget_fractions,
    env_kwargs,
    scenario,
    variant,
)


def train_env_args(variant_name: str, scenario_id: int | str, horizon: int | str) -> str:
    """``--env-kwarg`` options of ``schedrl train`` for one training run."""
    import shlex

    kwargs = env_kwargs(variant_name, scenario_id, horizon)
    return " ".join(shlex.quote(f"--env-kwarg={k}={json.dumps(v)}") for k, v in sorted(kwargs.items()))


def _override_block(spec: dict | None, variant_name: str) -> dict:
    return dict(((spec or {}).get("hyperparams") or {}).get(variant_name) or {})


def run_algo(spec: dict | None, variant_name: str) -> str:
    """The algorithm of ``variant_name``'s runs: Table 2's PPO, or MaskablePPO where the variant's
    ``mdp.hyperparams`` block sets ``mask: true`` (beyond the paper)."""
    return MASKED_ALGO if _override_block(spec, variant_name).get("mask") else ALGO


def hyperparams_override(spec: dict | None, variant_name: str) -> dict:
    """Plain hyperparameters that ``mdp.hyperparams.<variant>`` sets over Table 2 (beyond the paper: a
    tuned recipe, config/tuned/mdp.yml; issue 69); {} without that block, so the paper's runs are
    unchanged. ``net`` becomes ``policy_kwargs`` with ``net_arch`` {pi: net, vf: net}, Table 2's other
    ``policy_kwargs`` (tanh) kept: an override replaces a top-level key whole. ``mask`` picks the
    algorithm (``run_algo``), not a value."""
    block = _override_block(spec, variant_name)
    out = {k: v for k, v in block.items() if k not in ("net", "mask")}
    if "net" in block:
        from schedrl.agents.hyperparams import load_hyperparams

        base = load_hyperparams(run_algo(spec, variant_name), HYPERPARAMS_VARIANT).get("policy_kwargs") or {}
        net = [int(n) for n in block["net"]]
        out["policy_kwargs"] = {**base, "net_arch": {"pi": net, "vf": list(net)}}
    return out


def run_hyperparams(spec: dict | None, variant_name: str) -> dict:
    """The plain hyperparameters ``variant_name``'s runs train with (and its untrained reference is
    built with): Table 2 (the ``mdp`` block of the algorithm's file, as the training rule's
    ``--variant``), then ``hyperparams_override``."""
    from schedrl.agents.hyperparams import load_hyperparams

    return load_hyperparams(run_algo(spec, variant_name), HYPERPARAMS_VARIANT,
                            overrides=hyperparams_override(spec, variant_name))


def train_hp_args(spec: dict | None, variant_name: str) -> str:
    """What follows ``schedrl train --variant``: Table 2's block name, then one ``--hp`` per
    ``hyperparams_override`` value. Without overrides this is ``"mdp"`` alone, so the training rule's
    params (and its runs) stay as they were."""
    import shlex

    def text(value) -> str:  # read back as YAML: 1e-05 would be a string there, 1.0e-05 is a number
        out = json.dumps(value)
        return out.replace("e", ".0e", 1) if isinstance(value, float) and "e" in out and "." not in out else out

    hp = [shlex.quote(f"--hp={k}={text(v)}") for k, v in sorted(hyperparams_override(spec, variant_name).items())]
    return " ".join([HYPERPARAMS_VARIANT] + hp)


def budget_steps(spec: dict) -> list[int]:
    """Steps at which the checkpoints behind the budget evaluations are kept (1/8, 1/4, 1/2)."""
    steps = int(spec["train"]["steps"])
    return [max(1, int(round(f * steps))) for f in budget_fractions()]


def obs_size(variant_name: str, scenario_id: int | str, horizon: int | str) -> int:
    """Length of the (flattened) observation: image H x (n_p (W + 1) + backlog/H + 1), compact 2H + 7W + 8."""
    v, s, H = variant(variant_name), scenario(scenario_id), int(horizon)
    W = FIXED_ENV["num_nw"]
    if v.obs_mode == "compact":
        return 2 * H + 7 * W + 8
    return H * (s.procs * (W + 1) + -(-FIXED_ENV["backlog_size"] // H) + 1)


def mlp_params(obs: int, actions: int = FIXED_ENV["num_nw"] + 1, hidden: int | list[int] = 64) -> int:
    """Parameters of SB3's MlpPolicy with separate pi and vf nets of ``hidden`` layers (an int: two
    of that width, the default 64-64; a list: a tuned recipe's ``net``)."""
    layers = [hidden, hidden] if isinstance(hidden, int) else [int(h) for h in hidden]
    sizes = [obs, *layers]
    trunk = sum(a * b + b for a, b in zip(sizes, sizes[1:]))
    return 2 * trunk + (layers[-1] * actions + actions) + (layers[-1] + 1)


def param_count(variant_name: str, scenario_id: int | str, horizon: int | str) -> int:
    """Trainable parameters of the PPO policy (Table 2's hyperparameters) on this MDP, counted on
    the SB3 model itself."""
    import warnings

    from schedrl.agents.hyperparams import load_hyperparams, resolve_hyperparams
    from schedrl.agents.registry import algo_class
    from schedrl.experiments.envs import make_env

    hp = load_hyperparams(ALGO, HYPERPARAMS_VARIANT)
    policy, _, kwargs = resolve_hyperparams(ALGO, hp)
    env = make_env(ENV_ID, env_kwargs(variant_name, scenario_id, horizon))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # batch_size > n_steps (Table 2 as given)
        model = algo_class(ALGO)(policy, env, device="cpu", **kwargs)
    env.close()
    return int(sum(p.numel() for p in model.policy.parameters() if p.requires_grad))


# ---------------------------------------------------------------------------------------------
# Fig. 5's horizon benchmark: CPU seconds per PPO agent step at several horizons.

BENCH_COLUMNS = ("variant", "scenario", "horizon", "params", "steps", "repeats", "cpu_s", "cpu_s_per_step")


def bench_horizon(spec: dict, *, threads: int = 1, seed: int = 0) -> pd.DataFrame:
    """Train Table 2's PPO for ``fig5.steps`` agent steps in the image-like and compact MDPs of each
    ``fig5.scenarios`` at each ``fig5.horizons``; the process CPU time of ``learn`` per step (set-up
    and the first rollout excluded, so start-up does not blur the slope), the fastest of
    ``fig5.repeats`` timings: on a shared machine a neighbour's cache traffic only ever adds time, so
    the minimum is the least disturbed figure (timeit's convention)."""
    import time
    import warnings

    import torch

    from schedrl.agents.hyperparams import load_hyperparams, resolve_hyperparams
    from schedrl.agents.registry import algo_class
    from schedrl.experiments.envs import make_env

    torch.set_num_threads(max(1, int(threads)))
    bench = spec["fig5"]
    steps = int(bench["steps"])
    repeats = int(bench.get("repeats", 3))
    hp = load_hyperparams(ALGO, HYPERPARAMS_VARIANT)
    policy, _, kwargs = resolve_hyperparams(ALGO, hp)
    rows = []
    for name in ("image", "compact"):
        for sid in bench["scenarios"]:
            for H in bench["horizons"]:
                env = make_env(ENV_ID, env_kwargs(name, sid, H))
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    model = algo_class(ALGO)(policy, env, device="cpu", seed=seed, **kwargs)
                    model.learn(int(kwargs.get("n_steps", 50)))  # warm-up: first rollout and update
                    timings = []
                    for _ in range(repeats):
                        t0 = time.process_time()
                        model.learn(steps, reset_num_timesteps=False)
                        timings.append(time.process_time() - t0)
                    cpu = min(timings)
                env.close()
                params = int(sum(p.numel() for p in model.policy.parameters() if p.requires_grad))
                rows.append({"variant": name, "scenario": int(sid), "horizon": int(H), "params": params,
                             "steps": steps, "repeats": repeats, "cpu_s": cpu, "cpu_s_per_step": cpu / steps})
    return pd.DataFrame(rows, columns=list(BENCH_COLUMNS))


def linear_fit(x, y) -> tuple[float, float, float]:
    """(slope, intercept, R^2) of the least-squares line y = slope x + intercept."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    slope, intercept = np.polyfit(x, y, 1)
    resid = y - (slope * x + intercept)
    total = float(np.sum((y - y.mean()) ** 2))
    r2 = 1.0 - float(np.sum(resid ** 2)) / total if total > 0 else 1.0
    return float(slope), float(intercept), r2
