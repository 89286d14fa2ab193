"""Sparse-input first layer against the dense one (issue 72): what the observations hold, what the
layer costs, and PPO training steps per CPU-second, sparse over dense, measured in the same run.

Cases: the MDP paper's image-like state (scenarios 3, 6, 9, H 20; Table 2's PPO: one env, n_steps
50, 10 epochs, 64-64 tanh), the DeepRM report's discrete image (PPO as the report trains it) and the
runtime paper's baseline and proposal states (PPO with NN1's shared [1024, 512, 256] trunk, 8 envs,
T 512 / M 512 / K 4). For each:

1. the observations' density under random play (mean and p90 share of non-zero inputs);
2. one first layer, forward and backward, at the rollout batch and at the training batch, dense
   ``nn.Linear`` and ``SparseInputLinear`` (process CPU ms, best of ``--repeats``), and the layers'
   modelled share of a training step (layer cost per env step / the measured step cost);
3. PPO training from the same seed, alternated ``--repeats`` times (best rate of each), in up to four
   variants: ``dense`` (``sparse_input`` off), ``sparse`` (on; SB3's clip and torch's Adam over every
   weight, what recorded runs use), ``clip`` (on, ``sparse_optimizer: clip``: the clip from the rows
   the batch touched, torch's Adam) and ``lazy`` (on, ``sparse_optimizer: lazy``: that clip and Adam
   on the touched rows only, a different optimizer), and ``sb3-buffer`` (``sparse`` with SB3's own rollout
   buffer instead of ``schedrl.agents.sparse_rollouts``': each minibatch copied dense, then scanned),
   each rate's ratio over dense, and the largest
   weight difference of the sparse and clip runs from the dense one (the same function: only the
   order of float sums differs; lazy differs by design, printed for scale);
4. the part of a gradient step that ``sparse_optimizer`` changes (backward, SB3's clip call and the
   optimizer's step on a training batch of real observations), CPU ms per variant, the variants
   taking turns, best of ``5 * --repeats`` 10-step means;
5. with ``--ceiling``, what no first-layer kernel can beat: PPO with the first layers free (``free``:
   the same env and PPO, the observation cut to its first 64 inputs, so the env, SB3's loop and the
   layers above cost what they cost and the first layers almost nothing) and ``free+adam`` (that,
   plus torch's fused Adam stepping a zero-gradient table the size of the first layers, as an exact
   Adam must every step: every weight moves on its moments, touched or not), alternated with dense,
   each rate's ratio over dense. ``free+adam`` over dense bounds the speed-up of any first layer
   trained with the papers' exact Adam;
6. with ``--scan``, what building a batch's CSR view costs (``sparse_input._csr``, on real observations
   at the training batch and at one observation) against two peers measured in the same run: scipy's
   ``csr_matrix`` of the same array and the kernel that writes every input (``_csr`` until 2026-12-06),
   the three views checked equal.

Process CPU time on one torch thread (the 2-core machine is shared; CPU time is what core-hours
count). ``python benchmarks/bench_sparse_input.py [--steps 3000] [--cases mdp3 mdp6 ...]
[--variants dense sparse clip lazy] [--ceiling]``
"""

from __future__ import annotations

import argparse
import tempfile
import time
import warnings
from pathlib import Path

import numba
import numpy as np

from schedrl.agents.sparse_input import _count_nnz

DEEPRM_SPEC = {"env": {}, "train": {"rate": 0.7, "jobset_seed": 0, "num_jobsets": 10},
               "variants": {"discrete-image": {"env": {"num_nw": 10}}}}
CASES = ("mdp3", "mdp6", "mdp9", "deeprm", "runtime_baseline", "runtime_nn1")
#: PPO variant -> (policy_kwargs.sparse_input, policy_kwargs.sparse_optimizer)
VARIANTS = {"dense": (False, "dense"), "sparse": (True, "dense"), "clip": (True, "clip"), "lazy": (True, "lazy"),
            "sb3-buffer": (True, "dense")}


def case_setup(case: str, tmp: Path):
    """(env id, env kwargs, PPO hyperparameters) of a case."""
    from schedrl.agents.hyperparams import load_hyperparams

    if case.startswith("mdp"):
        from schedrl.papers.mdp import layout as ml

        return ml.ENV_ID, ml.env_kwargs("image", int(case[3:]), 20), load_hyperparams("ppo", "mdp")
    if case == "deeprm":
        from schedrl.papers.deeprm import layout as dl
        from schedrl.papers.deeprm import training as dt

        kwargs = dt.env_kwargs(DEEPRM_SPEC, "discrete-image", "slowdown")
        return dl.ENV_ID, kwargs, load_hyperparams("ppo", dt.hyperparams_variant("discrete-image"))
    from schedrl.papers.runtime import experiments as rx
    from schedrl.workloads.lublin import generate
    from schedrl.workloads.swf import write_swf

    swf = tmp / "wl2.swf"
    if not swf.exists():
        write_swf(generate("wl2", 1000, seed=0), str(swf))
    encoder = "runtime_baseline" if case == "runtime_baseline" else "runtime_proposal"
    kwargs = dict(jobs=str(swf), cluster=256, encoder=encoder, reward="runtime_final", window=100, sim_step=60.0,
                  double_idle=True, time_scale=21_600.0, max_steps=10_000)
    method = "baseline" if case == "runtime_baseline" else "proposal_nn1"
    return rx.ENV_ID, kwargs, rx.hyperparams(method, "T512-M512-K4")


def densities(env_id: str, kwargs: dict, n: int = 2000, seed: int = 0) -> np.ndarray:
    """Share of non-zero inputs of ``n`` observations under random (valid where masked) play."""
    from schedrl.experiments.envs import make_env

    env = make_env(env_id, kwargs)
    rng = np.random.default_rng(seed)
    obs, _ = env.reset(seed=seed)
    out = []
    for _ in range(n):
        flat = np.asarray(obs, dtype=np.float32).ravel()
        out.append(np.count_nonzero(flat) / flat.size)
        try:
            valid = np.flatnonzero(env.get_wrapper_attr("action_masks")())
            action = int(rng.choice(valid)) if len(valid) else env.action_space.sample()
        except AttributeError:
            action = env.action_space.sample()
        obs, _, terminated, truncated, _ = env.step(action)
        if terminated or truncated:
            obs, _ = env.reset()
    env.close()
    return np.asarray(out)


def observations(env_id: str, kwargs: dict, n: int, seed: int = 1) -> np.ndarray:
    from schedrl.experiments.envs import make_env

    env = make_env(env_id, kwargs)
    env.action_space.seed(seed)
    obs, _ = env.reset(seed=seed)
    out = []
    for _ in range(n):
        out.append(np.asarray(obs, dtype=np.float32).ravel())
        obs, _, terminated, truncated, _ = env.step(env.action_space.sample())
        if terminated or truncated:
            obs, _ = env.reset()
    env.close()
    return np.stack(out)


def cpu_ms(f, passes: int, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        t0 = time.process_time()
        for _ in range(passes):
            f()
        best = min(best, (time.process_time() - t0) / passes)
    return best * 1e3


def layer_costs(x: np.ndarray, width: int, batch: int, repeats: int) -> dict[str, float]:
    """Forward (rollout batch) and forward + backward (training batch) CPU ms, dense and sparse."""
    import torch

    from schedrl.agents.sparse_input import SparseInputLinear

    torch.manual_seed(0)
    dense = torch.nn.Linear(x.shape[1], width)
    sparse = SparseInputLinear.from_linear(dense)
    out = {}
    layer_warm = torch.from_numpy(x[:batch].copy())
    sparse(layer_warm).sum().backward()  # compiles the kernels (or loads them from numba's cache)
    for name, layer in (("dense", dense), ("sparse", sparse)):
        one = torch.from_numpy(x[:1].copy())
        many = torch.from_numpy(x[:batch].copy())
        with torch.no_grad():
            out[f"{name}_fwd1"] = cpu_ms(lambda layer=layer, one=one: layer(one), 200, repeats)

        def step(layer=layer, many=many):
            layer.zero_grad(set_to_none=True)
            layer(many).square().sum().backward()

        out[f"{name}_train"] = cpu_ms(step, 20, repeats)
    return out


def gradient_step_ms(env_id: str, kwargs: dict, hp: dict, x: np.ndarray, batch: int, repeats: int) -> dict[str, float]:
    """CPU ms of one PPO gradient step's tail on a training batch of real observations, per variant:
    zero_grad, backward of the policy's outputs, SB3's ``clip_grad_norm_`` call and the optimizer's
    step (the part ``sparse_optimizer`` changes; the forward is left out). The variants take turns,
    10 steps each, ``repeats`` rounds; the best mean of each is kept (the machine is shared)."""
    import copy

    import torch
    from stable_baselines3 import PPO

    from schedrl.agents.hyperparams import resolve_hyperparams
    from schedrl.experiments.envs import make_env

    steps = {}
    for variant, (sparse, optimizer) in VARIANTS.items():
        if variant == "sb3-buffer":  # the same tail as sparse: the buffer changes what comes before it
            continue
        params = copy.deepcopy(hp)
        params["policy_kwargs"]["sparse_input"] = sparse
        if optimizer != "dense":
            params["policy_kwargs"]["sparse_optimizer"] = optimizer
        policy, _, kw = resolve_hyperparams("ppo", params)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = PPO(policy, make_env(env_id, kwargs), seed=0, verbose=0, device="cpu", **kw)
        pol = model.policy
        obs = torch.from_numpy(x[:batch].reshape(batch, *pol.observation_space.shape).copy())
        actions = torch.zeros(batch, dtype=torch.long)

        def step(pol=pol, obs=obs, actions=actions, max_norm=model.max_grad_norm):
            values, log_prob, entropy = pol.evaluate_actions(obs, actions)
            loss = values.square().mean() - log_prob.mean() - 0.01 * entropy.mean()
            t0 = time.process_time()
            pol.optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(pol.parameters(), max_norm)
            pol.optimizer.step()
            return time.process_time() - t0

        step()  # compiles, allocates the state
        steps[variant] = step
    best = dict.fromkeys(steps, float("inf"))
    for _ in range(repeats):
        for variant, step in steps.items():
            best[variant] = min(best[variant], sum(step() for _ in range(10)) / 10)
    return {k: v * 1e3 for k, v in best.items()}


def ppo_rate(env_id: str, kwargs: dict, hp: dict, steps: int, variant: str):
    """(steps per CPU second, final state dict) of PPO in ``variant`` (``VARIANTS``), seed 0."""
    import copy

    from stable_baselines3 import PPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from schedrl.agents.hyperparams import resolve_hyperparams
    from schedrl.experiments.envs import make_env

    hp = copy.deepcopy(hp)
    sparse, optimizer = VARIANTS[variant]
    hp["policy_kwargs"]["sparse_input"] = sparse
    if optimizer != "dense":
        hp["policy_kwargs"]["sparse_optimizer"] = optimizer
    policy, n_envs, kw = resolve_hyperparams("ppo", hp)
    if variant == "sb3-buffer":  # sparse layers, SB3's own buffer: minibatches copied dense and scanned
        kw.pop("rollout_buffer_class", None), kw.pop("rollout_buffer_kwargs", None)
    env = DummyVecEnv([lambda: make_env(env_id, kwargs) for _ in range(n_envs)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # batch_size larger than the MDP's rollout
        model = PPO(policy, env, seed=0, verbose=0, device="cpu", **kw)
        model.learn(kw["n_steps"] * n_envs)  # compiles the kernels, warms the caches
        t0 = time.process_time()
        model.learn(steps, reset_num_timesteps=False)
    rate = steps / (time.process_time() - t0)
    return rate, {k: v.clone() for k, v in model.policy.state_dict().items()}


def free_rate(env_id: str, kwargs: dict, hp: dict, steps: int, adam: bool, keep: int = 64) -> float:
    """Steps per CPU second of PPO (seed 0, dense layers) with the first layers free: the observation
    cut to its first ``keep`` inputs; with ``adam``, torch's Adam (the policy's optimizer, fused as
    configured) also steps a zero-gradient table the size of the full first layers."""
    import copy

    import gymnasium as gym
    import torch
    from stable_baselines3 import PPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from schedrl.agents.hyperparams import resolve_hyperparams
    from schedrl.experiments.envs import make_env

    def cut():
        env = make_env(env_id, kwargs)
        space = env.observation_space
        return gym.wrappers.TransformObservation(
            env, lambda o: np.ravel(o)[:keep],
            gym.spaces.Box(space.low.ravel()[:keep], space.high.ravel()[:keep], dtype=space.dtype))

    hp = copy.deepcopy(hp)
    hp["policy_kwargs"]["sparse_input"] = False
    n_inputs = int(np.prod(make_env(env_id, kwargs).observation_space.shape))
    shared = hp["policy_kwargs"].get("shared_net")
    widths = [int(shared[0])] if shared else [int(n[0]) for n in hp["policy_kwargs"]["net_arch"].values()]
    policy, n_envs, kw = resolve_hyperparams("ppo", hp)
    env = DummyVecEnv([cut for _ in range(n_envs)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # batch_size larger than the MDP's rollout
        model = PPO(policy, env, seed=0, verbose=0, device="cpu", **kw)
        if adam:
            table = torch.nn.Parameter(torch.zeros(sum(widths), n_inputs))
            zeros = torch.zeros_like(table)
            model.policy.optimizer.add_param_group({"params": [table]})
            # SB3 sets gradients to None before each backward; Adam skips a parameter without one
            model.policy.optimizer.register_step_pre_hook(lambda *_: setattr(table, "grad", zeros))
        model.learn(kw["n_steps"] * n_envs)
        t0 = time.process_time()
        model.learn(steps, reset_num_timesteps=False)
    return steps / (time.process_time() - t0)


def ceiling(case: str, env_id: str, kwargs: dict, hp: dict, steps: int, repeats: int) -> None:
    """Print dense, ``free`` and ``free+adam`` rates (best of ``repeats`` alternated runs)."""
    rates = {"dense": 0.0, "free": 0.0, "free+adam": 0.0}
    for _ in range(repeats):
        rates["dense"] = max(rates["dense"], ppo_rate(env_id, kwargs, hp, steps, "dense")[0])
        rates["free"] = max(rates["free"], free_rate(env_id, kwargs, hp, steps, adam=False))
        rates["free+adam"] = max(rates["free+adam"], free_rate(env_id, kwargs, hp, steps, adam=True))
    print(f"{case:17s} ceiling, PPO steps/CPU-s: dense {rates['dense']:.0f}, first layers free {rates['free']:.0f} "
          f"({rates['free'] / rates['dense']:.2f}x), free + exact Adam over their weights {rates['free+adam']:.0f} "
          f"({rates['free+adam'] / rates['dense']:.2f}x)", flush=True)


@numba.njit(cache=True)
def _csr_every_input(x: np.ndarray, max_nnz: int):
    """The CSR kernel before groups of zeros were skipped: every input written, the index advanced
    past the non-zero ones (the peer of ``--scan``)."""
    n_rows, n_cols = x.shape
    nnz = _count_nnz(x, max_nnz)  # the count both kernels share
    if nnz < 0:
        return np.empty(0, np.int64), np.empty(0, np.int32), np.empty(0, np.float32)
    indptr = np.empty(n_rows + 1, np.int64)
    cols = np.empty(nnz + 1, np.int32)
    vals = np.empty(nnz + 1, np.float32)
    k = 0
    indptr[0] = 0
    for b in range(n_rows):
        for i in range(n_cols):
            v = x[b, i]
            cols[k] = i
            vals[k] = v
            k += v != 0
        indptr[b + 1] = k
    return indptr, cols[:nnz], vals[:nnz]


def scan(case: str, env_id: str, kwargs: dict, hp: dict, repeats: int) -> None:
    """Print the CSR view's cost (CPU microseconds, best of ``repeats``) at the training batch and at
    one observation, ours against scipy's and the every-input kernel's, after checking all three equal."""
    import scipy.sparse as sp

    from schedrl.agents.sparse_input import MAX_DENSITY, _csr

    batch = min(int(hp["batch_size"]), int(hp["n_steps"]) * int(hp.get("n_envs", 1)))
    x_all = observations(env_id, kwargs, 200 + batch)
    cells = []
    for rows in (batch, 1):
        x = np.ascontiguousarray(x_all[200:200 + rows])  # past the first episode's empty start
        max_nnz = int(MAX_DENSITY * x.size)
        ours, every = _csr(x, max_nnz), _csr_every_input(x, max_nnz)
        peer = sp.csr_matrix(x)
        if ours[0].size:
            assert all(np.array_equal(a, b) for a, b in zip(ours, every))
            assert np.array_equal(ours[0], peer.indptr) and np.array_equal(ours[1], peer.indices)
            assert np.array_equal(ours[2], peer.data)
        passes = max(20, 20_000 // rows)
        us = {name: 1e3 * cpu_ms(lambda f=f, x=x, n=max_nnz: f(x, n), passes, repeats)
              for name, f in (("ours", _csr), ("every input", _csr_every_input))}
        us["scipy"] = 1e3 * cpu_ms(lambda x=x: sp.csr_matrix(x), max(5, passes // 10), repeats)
        density = np.count_nonzero(x) / x.size
        cells.append(f"{rows} x {x.shape[1]} ({density:.1%} non-zero{', dense: no view' if not ours[0].size else ''}): "
                     f"ours {us['ours']:.1f} us, every input {us['every input']:.1f} "
                     f"({us['every input'] / us['ours']:.2f}x ours), scipy {us['scipy']:.1f} "
                     f"({us['scipy'] / us['ours']:.2f}x)")
    print(f"{case:17s} CSR view, CPU us: " + "; ".join(cells), flush=True)


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", nargs="+", default=list(CASES), choices=CASES)
    ap.add_argument("--steps", type=int, default=3000, help="PPO steps per timed run (after one rollout's warm-up)")
    ap.add_argument("--repeats", type=int, default=2, help="alternated runs of each variant; best rate kept")
    ap.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=list(VARIANTS),
                    help="PPO variants timed (dense and sparse always)")
    ap.add_argument("--ceiling", action="store_true",
                    help="only the bound: dense against the first layers free, with and without Adam over them")
    ap.add_argument("--scan", action="store_true",
                    help="only the CSR view's cost, against scipy's csr_matrix and the every-input kernel")
    args = ap.parse_args(argv)
    variants = ["dense", "sparse"] + [v for v in VARIANTS if v in args.variants and v not in ("dense", "sparse")]
    import torch

    torch.set_num_threads(1)
    import schedrl.envs  # noqa: F401  (registers the env ids)

    extra = "".join(f" {v:>6s} {'ratio':>6s}" for v in variants[1:])
    diffs = "".join(f" {v:>7s}" for v in variants[1:])
    if not (args.ceiling or args.scan):
        print(f"{'case':17s} {'inputs':>6s} {'density':>7s} {'p90':>5s} | first layer ms: {'fwd1 d':>7s} {'fwd1 s':>7s} "
              f"{'train d':>7s} {'train s':>7s} | PPO steps/CPU-s: {'dense':>6s}{extra} "
              f"| layers' share dense -> sparse | max |dw| from dense:{diffs}")
    with tempfile.TemporaryDirectory() as tmp:
        for case in args.cases:
            env_id, kwargs, hp = case_setup(case, Path(tmp))
            if args.ceiling:
                ceiling(case, env_id, kwargs, hp, args.steps, args.repeats)
                continue
            if args.scan:
                scan(case, env_id, kwargs, hp, max(3, args.repeats))
                continue
            dens = densities(env_id, kwargs)
            n_steps, n_envs, batch = int(hp["n_steps"]), int(hp.get("n_envs", 1)), int(hp["batch_size"])
            batch = min(batch, n_steps * n_envs)
            x = observations(env_id, kwargs, max(batch, 64))
            net = hp["policy_kwargs"].get("shared_net") or hp["policy_kwargs"]["net_arch"]["pi"]
            costs = layer_costs(x, int(net[0]), batch, args.repeats)
            tails = gradient_step_ms(env_id, kwargs, hp, x, batch, 5 * args.repeats)
            rates = dict.fromkeys(variants, 0.0)
            weights = {}
            for _ in range(args.repeats):
                for variant in variants:
                    rate, weights[variant] = ppo_rate(env_id, kwargs, hp, args.steps, variant)
                    rates[variant] = max(rates[variant], rate)
            diff = {v: max((weights["dense"][k] - weights[v][k]).abs().max().item() for k in weights["dense"])
                    for v in variants[1:]}
            # first-layer work per env step: the rollout's forward (one batch of n_envs per n_envs steps)
            # and each epoch's forward + backward over the rollout; actor and critic each have one,
            # unless the trunk is shared
            layers = 1 if hp["policy_kwargs"].get("shared_net") else 2
            per_step = {k: layers * (costs[f"{k}_fwd1"] / n_envs
                                     + costs[f"{k}_train"] * int(hp["n_epochs"]) / batch)
                        for k in ("dense", "sparse")}
            share = {k: per_step[k] / (1e3 / rates[k]) for k in per_step}
            cells = "".join(f" {rates[v]:6.0f} {rates[v] / rates['dense']:5.2f}x" for v in variants[1:])
            print(f"{case:17s} {x.shape[1]:6d} {dens.mean():7.1%} {np.quantile(dens, 0.9):5.1%} | "
                  f"{'':16s}{costs['dense_fwd1']:7.3f} {costs['sparse_fwd1']:7.3f} {costs['dense_train']:7.2f} "
                  f"{costs['sparse_train']:7.2f} | {'':16s} {rates['dense']:6.0f}{cells} | "
                  f"{share['dense']:5.0%} -> {share['sparse']:4.0%} {'':17s}| {'':19s}"
                  + "".join(f" {diff[v]:7.1e}" for v in variants[1:]), flush=True)
            if "sb3-buffer" in weights:  # the buffer changes the route of the batch, not its numbers
                same = all(torch.equal(weights["sparse"][k], weights["sb3-buffer"][k]) for k in weights["sparse"])
                print(f"{'':17s} sparse with schedrl's rollout buffer and with SB3's: the same weights bit for bit: "
                      f"{same}", flush=True)
            print(f"{'':17s} gradient step's backward + clip + optimizer step, CPU ms: "
                  + ", ".join(f"{v} {ms:.2f}" for v, ms in tails.items()), flush=True)


if __name__ == "__main__":
    main()
