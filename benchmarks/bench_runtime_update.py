"""Where a runtime-paper PPO training step goes: the env, the rollout's forward passes, the update.

The paper scale trains Table 3's grid (T x M x K = n_steps x batch_size x n_epochs, 5 x 5 x 3 points)
for every method and half: 1,350 runs of 4 M steps, its largest cost (docs/paper-scale-plan.md). A
step's rollout cost is the same at every grid point; its update cost grows with K (each sample is
read K times) and with how well a minibatch of M fills the matrix products. This script trains the
paper's networks (``runtime.experiments.hyperparams``: one tanh trunk for actor and critic, as SB3
1.0 built them) on 8 DummyVecEnv copies of a 1000-job Lublin wl2 half, one rollout of 8 x T steps
and K epochs per grid point, on one torch thread, and splits the process CPU time by timing SB3's
``collect_rollouts``, ``DummyVecEnv.step_wait`` and ``PPO.train``. It prints, per method:

- r: the rollout's CPU per step, the env's part and the policy's forward part;
- u(M): the update's CPU per sample and epoch, and its GFLOPS (forward + backward = 3 forwards);
- the same core's plain matrix product at the first layer's shape (M x inputs x 1,024), best of 5:
  the update's GFLOPS over it says how much a faster CPU kernel could still give;
- f: the update's share of a step at the default run's point (T 512, M 512, K 4), and
  ``u(M) / u(512)``: what ``schedrl.papers.runtime.experiments`` prices the grid with.

    OMP_NUM_THREADS=1 python benchmarks/bench_runtime_update.py [--batches 512 2048 8192] [--n-steps 1024]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path


class Timer:
    """Process CPU seconds spent inside the wrapped methods (nested calls counted once each)."""

    def __init__(self):
        self.seconds: dict[str, float] = {}

    def wrap(self, owner, name: str, key: str) -> None:
        original = getattr(owner, name)

        def timed(*args, **kwargs):
            t0 = time.process_time()
            try:
                return original(*args, **kwargs)
            finally:
                self.seconds[key] = self.seconds.get(key, 0.0) + time.process_time() - t0

        setattr(owner, name, timed)
        self._undo = getattr(self, "_undo", []) + [(owner, name, original)]

    def restore(self) -> None:
        for owner, name, original in reversed(getattr(self, "_undo", [])):
            setattr(owner, name, original)
        self._undo = []


def forward_flops(inputs: int, net: list[int], actions: int) -> int:
    """Multiply-adds x 2 of one observation through the trunk and both heads."""
    sizes = [inputs, *net]
    return 2 * (sum(a * b for a, b in zip(sizes, sizes[1:])) + net[-1] * (actions + 1))


def matmul_gflops(rows: int, inputs: int, width: int) -> float:
    """Best of 5 of a float32 (rows x inputs) @ (inputs x width) product on this thread."""
    import torch

    a, b = torch.randn(rows, inputs), torch.randn(inputs, width)
    best = float("inf")
    for _ in range(5):
        t0 = time.process_time()
        for _ in range(10):
            torch.mm(a, b)
        best = min(best, (time.process_time() - t0) / 10)
    return 2 * rows * inputs * width / best / 1e9


def runtime_kwargs(swf: str, encoder: str, max_steps: int = 10_000) -> dict:
    """The training env of the paper scale (``runtime.experiments.env_kwargs``) on ``swf``."""
    from schedrl.papers.runtime import experiments as rx

    spec = {"env": {"jobs_window": 100, "sim_step": 60, "max_steps": max_steps, "time_scale": 21_600},
            "nodes": 256, "evaluate": {"max_steps": max_steps}}
    return {**rx.env_kwargs(spec, encoder, "wl2_rnda", training=True), "jobs": swf}


def measure(swf: str, method: str, n_steps: int, batch: int, epochs: int) -> dict:
    """One rollout of 8 x n_steps and one update of ``epochs`` epochs: the CPU split per step."""
    from stable_baselines3 import PPO
    from stable_baselines3.common.vec_env import DummyVecEnv

    from schedrl.experiments.train import train
    from schedrl.papers.runtime import experiments as rx

    kwargs = runtime_kwargs(swf, rx.METHODS[method][0])
    hp = rx.hyperparams(method, rx.grid_id({"n_steps": n_steps, "batch_size": batch, "n_epochs": epochs}))
    rollout = 8 * n_steps
    timer = Timer()
    timer.wrap(PPO, "collect_rollouts", "rollout")
    timer.wrap(DummyVecEnv, "step_wait", "env")
    timer.wrap(PPO, "train", "update")
    try:
        with tempfile.TemporaryDirectory() as tmp:
            train(rx.ENV_ID, kwargs, "ppo", hp, rollout, 0, Path(tmp) / "run", checkpoint_every=10**9)
    finally:
        timer.restore()
    s = timer.seconds
    return {"env": s["env"] / rollout, "forward": (s["rollout"] - s["env"]) / rollout,
            "update": s["update"] / (rollout * epochs)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--methods", nargs="+", default=["baseline", "proposal_nn1", "proposal_nn2"])
    ap.add_argument("--batches", type=int, nargs="+", default=[512, 2048, 8192], help="M values (Table 3: 512-8192)")
    ap.add_argument("--n-steps", type=int, default=1024, help="T: one rollout of 8 x T steps per measurement")
    ap.add_argument("--epochs", type=int, default=4, help="K of the measured update (its cost is per epoch)")
    args = ap.parse_args(argv)
    if any(b > 8 * args.n_steps for b in args.batches):
        ap.error("--batches: each M must be at most 8 x --n-steps (one rollout)")
    import torch

    import schedrl.envs  # noqa: F401  (registers the ids)
    from schedrl.papers.runtime import experiments as rx
    from schedrl.workloads.lublin import generate
    from schedrl.workloads.swf import write_swf

    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory() as tmp:
        swf = str(Path(tmp) / "wl2.swf")
        write_swf(generate("wl2", 1000, seed=0), swf)
        import gymnasium as gym

        for method in args.methods:
            encoder, net = rx.METHODS[method]
            env = gym.make(rx.ENV_ID, **runtime_kwargs(swf, encoder, max_steps=10))
            inputs, actions = int(env.observation_space.shape[0]), int(env.action_space.n)
            flops = forward_flops(inputs, list(net), actions)
            rows = {m: measure(swf, method, args.n_steps, m, args.epochs) for m in args.batches}
            first = rows[args.batches[0]]
            print(f"{method} ({inputs} inputs, {list(net)}, {flops / 1e6:.2f} MFLOP a forward): rollout "
                  f"{(first['env'] + first['forward']) * 1e3:.3f} ms a step (env {first['env'] * 1e3:.3f}, "
                  f"forward {first['forward'] * 1e3:.3f})")
            base = rows[512]["update"] if 512 in rows else first["update"]
            for m, row in rows.items():
                gflops = 3 * flops / row["update"] / 1e9
                peak = matmul_gflops(m, inputs, net[0])
                print(f"  M {m:5d}: update {row['update'] * 1e3:.3f} ms a sample-epoch ({gflops:.0f} GFLOPS; "
                      f"the first layer's product alone {peak:.0f}: {gflops / peak:.2f} of it), "
                      f"u(M)/u(512) {row['update'] / base:.2f}")
            r = first["env"] + first["forward"]
            share = 4 * base / (r + 4 * base)
            print(f"  update share of a step at T 512, M 512, K 4: {share:.2f}; grid mean K "
                  f"{sum((4, 8, 10)) / 3:.2f} over 4 costs x{(r + 22 / 3 * base) / (r + 4 * base):.2f} per step")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
