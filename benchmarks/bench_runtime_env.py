"""Cost of the runtime paper's env (``schedrl/HPCTimeStepped-v0``) and of PPO on it, in steps/s.

1. Env alone: random valid actions on a 1000-job Lublin half (256 nodes, N_jobs 100, Sim_Step
   60 s, idle doubling as in training), baseline (356 inputs) and proposal (812 inputs) encoders.
2. Evaluation as ``schedrl runtime evaluate`` plays it: an (untrained) NN1 / NN2 proposal model
   on 9 cases x 5 episodes in lockstep (one batched forward pass per step) vs one episode at a time.
3. SB3 PPO with NN1 / NN2 (``ppo.yaml`` variant ``runtime``), 8 env copies in a DummyVecEnv
   and in a SubprocVecEnv, ``--ppo-steps`` steps each (rollout + update): the rate a training rule
   gets, and which vectorisation to use (``vec_env`` in ``ppo.yaml``).

Rates are steps per second of process CPU time (what a core-hour budget counts; the 2-core
machine is shared, so wall-clock rates vary with the load), on one torch thread; PPO also prints
the wall-clock rate. The workload comes from ``schedrl workload generate --preset wl2``.

    OMP_NUM_THREADS=1 python benchmarks/bench_runtime_env.py [--env-steps 20000] [--ppo-steps 8192]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path


def env_kwargs(swf: str, encoder: str) -> dict:
    return dict(jobs=swf, cluster=256, encoder=encoder, reward="runtime_final", window=100,
                sim_step=60.0, double_idle=True, time_scale=21_600.0, max_steps=10_000)


def env_rate(swf: str, encoder: str, steps: int, seed: int = 0) -> tuple[float, int]:
    """(steps per CPU second, episodes ended) under random valid actions: bench_hpc_env's loop."""
    from bench_hpc_env import run  # benchmarks/ is on sys.path when this file runs as a script

    from schedrl.envs import make_hpc_env

    return run(make_hpc_env(decision="time_stepped", **env_kwargs(swf, encoder)), steps, seed)


def ppo_rate(swf: str, encoder: str, net: list[int], vec: str, steps: int) -> tuple[float, float]:
    """(CPU-time, wall-clock) steps/s; with SubprocVecEnv the workers' CPU time is not counted."""
    from schedrl.agents.hyperparams import load_hyperparams
    from schedrl.experiments.train import train

    hp = load_hyperparams("ppo", "runtime", overrides={"vec_env": vec, "n_steps": steps // 8,
                                                       "batch_size": 512, "n_epochs": 4,
                                                       "policy_kwargs": {"net_arch": {"pi": net, "vf": net}}})
    cpu = time.process_time()
    with tempfile.TemporaryDirectory() as tmp:
        result = train("schedrl.envs:schedrl/HPCTimeStepped-v0", env_kwargs(swf, encoder), "ppo", hp, steps, 0,
                       Path(tmp) / "run", checkpoint_every=10**9)
    return result.steps_trained / (time.process_time() - cpu), result.steps_trained / result.wall_time_s


def eval_rates(swf: str, net: list[int], steps: int) -> tuple[float, float]:
    """(lockstep, one at a time) steps/s of 45 sampled-action episodes capped at ``steps`` each."""
    import gymnasium as gym
    from stable_baselines3 import PPO

    from schedrl.papers.runtime.experiments import play_lockstep

    kwargs = {**env_kwargs(swf, "runtime_proposal"), "double_idle": False, "max_steps": steps}
    model = PPO("MlpPolicy", gym.make("schedrl/HPCTimeStepped-v0", **kwargs), seed=0,
                policy_kwargs={"net_arch": {"pi": net, "vf": net}}, device="cpu")
    envs = [gym.make("schedrl/HPCTimeStepped-v0", **kwargs) for _ in range(45)]
    t0 = time.process_time()
    done = sum(e["length"] for e in play_lockstep(envs, model, list(range(45)), False))
    lockstep = done / (time.process_time() - t0)
    t0, done = time.process_time(), 0
    for k, env in enumerate(envs[:5]):
        done += sum(e["length"] for e in play_lockstep([env], model, [k], False))
    return lockstep, done / (time.process_time() - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--env-steps", type=int, default=20_000)
    ap.add_argument("--ppo-steps", type=int, default=8192, help="PPO steps per case (one rollout of 8 x steps/8)")
    ap.add_argument("--eval-steps", type=int, default=1000, help="steps per evaluation episode (cap)")
    ap.add_argument("--no-ppo", action="store_true", help="env and evaluation rates only")
    args = ap.parse_args()
    import torch

    import schedrl.envs  # noqa: F401  (registers the ids)
    from schedrl.workloads.lublin import generate

    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory() as tmp:
        swf = str(Path(tmp) / "wl2.swf")
        from schedrl.workloads.swf import write_swf

        write_swf(generate("wl2", 1000, seed=0), swf)
        for encoder in ("runtime_baseline", "runtime_proposal"):
            rate, episodes = env_rate(swf, encoder, args.env_steps)
            print(f"env {encoder:17s} random valid actions: {rate:8.0f} steps/s ({episodes} episodes ended)")
        for label, net in (("NN1", [1024, 512, 256]), ("NN2", [2048, 512, 256])):
            lock, single = eval_rates(swf, net, args.eval_steps)
            print(f"evaluate runtime_proposal {label} 45 episodes: lockstep {lock:6.0f} steps/s, "
                  f"one at a time {single:6.0f} steps/s")
        if args.no_ppo:
            return
        for encoder, label, net in (("runtime_baseline", "NN1", [1024, 512, 256]),
                                    ("runtime_proposal", "NN1", [1024, 512, 256]),
                                    ("runtime_proposal", "NN2", [2048, 512, 256])):
            for vec in ("dummy", "subproc"):
                cpu, wall = ppo_rate(swf, encoder, net, vec, args.ppo_steps)
                print(f"ppo {encoder:17s} {label} 8 envs {vec:7s}: {cpu:6.0f} steps/s CPU, {wall:6.0f} wall")


if __name__ == "__main__":
    main()
