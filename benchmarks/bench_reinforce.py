"""Training throughput of the REINFORCE agent (deeprm_pg) on the DeepRM env, against its own limits.

In one run, at DeepRM's sizes (discrete image, 10 slots, rate ``--rate``, ``--jobsets`` job sets x
``--trajectories`` episodes per iteration, DeepRM's hyperparameters, one torch thread), it measures
env steps per second of process CPU time, in steady state (after a first, untimed iteration that
builds the envs and sizes the buffers), for:

* ``sequential`` (with ``--sequential``): one trajectory after another, a forward pass per step;
* ``lockstep``: the trajectories of one job set stepped together, one batched forward pass per
  step, job sets one after another (the trainer before issue 26);
* ``batched python``: every trajectory of every job set of an update (10 x 20 = 200 envs) stepped
  together on the Python envs (``DeepRMEnv``), observations written into one preallocated array,
  one forward pass per step, each job set's rows gathered for its loss (the trainer before the
  compiled step, ``compiled_env=False``);
* ``compiled``: the same batch stepped by one numba call per step for all 200 grids
  (``schedrl.envs.grid_batch``), each job set's observations written into its own contiguous block
  (its loss reads a slice), one forward pass per job set per step (today's default);
* ``env only python`` / ``env only compiled``: the same envs stepped with random valid actions, no
  agent at all (the ceiling any trainer on this env can reach on this core), as 200 Python envs
  one after another and as one ``GridBatch`` of 200 grids writing every observation into an array;
* ``null env``: batched training on an env of the same spaces that does no work (the trainer's
  own cost with the Python rollout loop).

and prints compiled / batched python, the env's share of compiled training time (``1 -
compiled / (trainer alone)`` from the env-only compiled rate), the machine's load average before
and after (every rate is process CPU time, which a loaded machine inflates: shared caches and
cores), and the CPU time DeepRM's 1,000 iterations would take at the compiled rate (goal: <= 10
CPU-minutes, i.e. >= 68 k env steps per CPU-second at rate 0.7). Usage:

    OMP_NUM_THREADS=1 python benchmarks/bench_reinforce.py [--iterations 3] [--rate 0.7]
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import gymnasium as gym
import numpy as np
from nullenv import NullEnv  # benchmarks/nullenv.py (the script folder is on sys.path)

from schedrl.agents.hyperparams import load_hyperparams
from schedrl.agents.reinforce import ReinforceConfig, train_reinforce
from schedrl.config import load_yaml
from schedrl.papers.deeprm import layout as dl
from schedrl.papers.deeprm import training as dt

CONFIG = Path(__file__).resolve().parents[1] / "config" / "config.yaml"

GOAL_RATE = 68_000  # env steps per CPU-second: 1,000 iterations in <= 10 CPU-minutes (issue 26)
STEPS_PER_ITERATION = 32_818  # env steps of one iteration at rate 0.7 (10 x 20 episodes; measured, seed 0)


def _train(make, cfg: ReinforceConfig, iterations: int, jobsets: int, lockstep: bool = True,
           batch_examples: bool = True, compiled_env: bool = True) -> float:
    """Env steps per CPU-second over iterations 2..``iterations`` (the first builds the envs)."""
    marks = {}

    def on_iteration(it, rows):
        marks[it] = (time.process_time(), rows[-1]["timesteps"])

    with tempfile.TemporaryDirectory() as tmp:
        train_reinforce(make, cfg, iterations, 0, tmp, examples=jobsets, lockstep=lockstep,
                        batch_examples=batch_examples, checkpoint_every=10**6, on_iteration=on_iteration,
                        compiled_env=compiled_env)
    (t0, s0), (t1, s1) = marks[1], marks[iterations]
    return (s1 - s0) / (t1 - t0)


def _env_only(make, jobsets: int, trajectories: int) -> tuple[float, int]:
    env, steps = make(), 0
    draws = iter(np.random.default_rng(0).random(10**7))  # cheap draws: the env's cost is measured
    t0 = time.process_time()
    for k in range(jobsets):
        for _ in range(trajectories):
            _, info = env.reset(options={"jobset": k})
            done = False
            while not done:
                valid = np.flatnonzero(info["action_mask"])
                _, _, term, trunc, info = env.step(int(valid[int(next(draws) * len(valid))]))
                done, steps = term or trunc, steps + 1
    return steps / (time.process_time() - t0), steps


def _env_only_compiled(make, jobsets: int, trajectories: int) -> float:
    """``GridBatch`` of jobsets x trajectories grids, random valid actions, observations written
    into one array (a block per job set, as the trainer's)."""
    from schedrl.envs.grid_batch import GridBatch

    n = jobsets * trajectories
    batch = GridBatch(make(), n)
    group = np.arange(n, dtype=np.int64) // trajectories
    obs = np.empty((jobsets, 4096, *batch.obs_shape), dtype=np.float32)
    masks = np.empty((jobsets, 4096, batch.n_actions), dtype=bool)
    cur_obs = np.empty((n, *batch.obs_shape), dtype=np.float32)  # the next step's batch, as the trainer's
    cur_masks = np.empty((n, batch.n_actions), dtype=bool)
    rng = np.random.default_rng(0)
    steps, t0 = 0, time.process_time()
    cursor = np.arange(n, dtype=np.int64) % trajectories
    for i in range(n):
        batch.reset(i, int(group[i]))
        batch.observe(i, obs[group[i], cursor[i]], masks[group[i], cursor[i]])
    rows = cursor.copy()
    cursor = np.bincount(group, minlength=jobsets).astype(np.int64)
    active = np.arange(n, dtype=np.int64)
    while len(active):
        m = masks[group[active], rows]
        # a uniform valid action per grid: the k-th True of its mask, k drawn uniformly
        pick = (rng.random(len(active)) * m.sum(axis=1)).astype(np.int64)
        actions = (np.cumsum(m, axis=1) > pick[:, None]).argmax(axis=1).astype(np.int64)
        if cursor.max() + len(active) > obs.shape[1]:
            cursor[:] = 0  # rows are not kept: reuse them
        _, ended, new_rows = batch.step(active, actions, obs, masks, group, cursor, cur_obs, cur_masks)
        steps += len(active)
        keep = ended == 0
        active, rows = active[keep], new_rows[keep]
    return steps / (time.process_time() - t0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--iterations", type=int, default=3, help="training iterations per measurement (>= 2; "
                        "the first is not timed)")
    parser.add_argument("--jobsets", type=int, default=10, help="job sets per iteration (DeepRM: 10)")
    parser.add_argument("--trajectories", type=int, default=20, help="episodes per job set (DeepRM: 20)")
    parser.add_argument("--rate", type=float, default=0.7, help="job arrival rate of the env")
    parser.add_argument("--sequential", action="store_true", help="also time one trajectory at a time (slow)")
    parser.add_argument("--quick", action="store_true", help="only batched python, compiled and the env-only rates")
    args = parser.parse_args()
    if args.iterations < 2:
        parser.error("--iterations must be >= 2 (the first iteration is not timed)")
    spec = load_yaml(CONFIG)["deeprm"]  # the default config's DeepRM env (the agent's variant)
    spec["deeprm_agent"] = {**spec["deeprm_agent"], "jobsets": args.jobsets}
    make = lambda: gym.make(dl.ENV_ID, **dt.deeprm_agent_env_kwargs(spec, args.rate))  # noqa: E731
    cfg = ReinforceConfig.from_dict(load_hyperparams("deeprm_pg", "deeprm-discrete-image",
                                                     overrides={"trajectories": args.trajectories}))
    env = make()
    length = max(1, round(_env_only(make, 1, 2)[1] / 2))  # null episodes as long as ours
    load_before = os.getloadavg()
    rates = {}
    if args.sequential:
        rates["sequential"] = _train(make, cfg, args.iterations, args.jobsets, lockstep=False)
    if not args.quick:
        rates["lockstep"] = _train(make, cfg, args.iterations, args.jobsets, batch_examples=False)
    rates["batched python"] = _train(make, cfg, args.iterations, args.jobsets, compiled_env=False)
    rates["compiled"] = _train(make, cfg, args.iterations, args.jobsets)
    rates["env only python"] = _env_only(make, args.jobsets, args.trajectories)[0]
    _env_only_compiled(make, 1, 2)  # compiles (or loads) the kernels for these array types
    rates["env only compiled"] = _env_only_compiled(make, args.jobsets, args.trajectories)
    if not args.quick:
        rates["null env"] = _train(lambda: NullEnv(env, length), cfg, args.iterations, args.jobsets)
    load_after = os.getloadavg()
    print(f"deeprm_pg on {dl.ENV_ID} (discrete image, 10 slots, rate {args.rate}), {args.jobsets} job sets x "
          f"{args.trajectories} trajectories, OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}, "
          f"{os.cpu_count()} CPUs, load average (1/5/15 min) {'/'.join(f'{x:.1f}' for x in load_before)} before, "
          f"{'/'.join(f'{x:.1f}' for x in load_after)} after")
    print(f"{'run':>18} {'env steps/s (CPU)':>18}")
    for name, rate in rates.items():
        print(f"{name:>18} {rate:18.0f}")
    trainer = 1 / (1 / rates["compiled"] - 1 / rates["env only compiled"])  # steps/s of the rest
    print(f"compiled / batched python = {rates['compiled'] / rates['batched python']:.2f}x")
    print(f"env share of compiled training = {rates['compiled'] / rates['env only compiled']:.0%} "
          f"(the rest, policy and loss, alone would run {trainer:.0f} steps/s)")
    steps = STEPS_PER_ITERATION * 1000
    print(f"DeepRM's 1,000 iterations at rate 0.7 (~{steps / 1e6:.0f} M env steps): "
          f"{steps / rates['compiled'] / 60:.1f} CPU-minutes at the compiled rate (goal <= 10, "
          f">= {GOAL_RATE / 1000:.0f} k steps/s), {steps / rates['batched python'] / 60:.1f} at the batched "
          f"python rate")


if __name__ == "__main__":
    main()
