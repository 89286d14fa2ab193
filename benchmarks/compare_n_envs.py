"""n_envs 1 vs 8 for SB3 trainers at equal sample budgets: wall time per million steps and learning.

Trains ``--algos`` on one DeepRM variant (default ``discrete-image``, slowdown objective, the
default config's env at its training rate) for ``--steps`` env steps with ``n_envs`` = each of
``--n-envs`` (DummyVecEnv, every other hyperparameter as in ``schedrl/agents/hyperparams``) and
``--seeds``, one torch thread. It prints, per algorithm and n_envs, wall seconds per million env
steps (the runs' timing.json; a finished run is kept, so a rerun only adds what is missing), its ratio to n_envs 1 (the issue's goal: >= 3x), and the mean episode reward
over the last fifth of the budget (mean +- std over seeds); it writes the binned learning curves to
``<out>/curves.csv`` and a figure ``<out>/learning_curves.png``. Usage:

    OMP_NUM_THREADS=1 python benchmarks/compare_n_envs.py [--steps 200000] [--algos a2c ppo] [--seeds 0 1]
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import pandas as pd

from schedrl.agents import load_hyperparams
from schedrl.config import load_yaml
from schedrl.experiments.train import train
from schedrl.io import read_json
from schedrl.papers.deeprm import layout as dl
from schedrl.papers.deeprm import training as dt

CONFIG = Path(__file__).resolve().parents[1] / "config" / "config.yaml"
GOAL_SPEEDUP = 3.0
BINS = 20


def _curve(run: Path, steps: int) -> pd.DataFrame:
    curve = pd.read_csv(run / "learning_curve.csv")
    edges = np.linspace(0, steps, BINS + 1)
    curve["bin"] = np.clip(np.digitize(curve["timesteps"], edges) - 1, 0, BINS - 1)
    out = curve.groupby("bin")["reward"].mean().reset_index()
    out["timesteps"] = (edges[out["bin"]] + edges[out["bin"] + 1]) / 2
    return out[["timesteps", "reward"]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200_000, help="env steps per run (equal for every n_envs)")
    parser.add_argument("--algos", nargs="+", default=["a2c", "ppo"])
    parser.add_argument("--n-envs", type=int, nargs="+", default=[1, 8])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    parser.add_argument("--variant", default="discrete-image")
    parser.add_argument("--out", type=Path, default=Path("results/benchmarks/n_envs"))
    args = parser.parse_args()
    spec = load_yaml(CONFIG)["deeprm"]
    kwargs = dt.env_kwargs(spec, args.variant, "slowdown")
    rows, curves = [], []
    for algo in args.algos:
        for n in args.n_envs:
            for seed in args.seeds:
                hp = load_hyperparams(algo, dt.hyperparams_variant(args.variant), overrides={"n_envs": n})
                run = args.out / algo / f"n_envs{n}" / f"seed{seed}"
                # a finished run with the same config is kept (rerun the script to add seeds cheaply)
                train(dl.ENV_ID, kwargs, algo, hp, args.steps, seed, run, wrappers=dl.WRAPPERS,
                      variant=dt.hyperparams_variant(args.variant), on_mismatch="restart")
                timing = read_json(run / "timing.json")
                curve = _curve(run, args.steps)
                tail = curve[curve["timesteps"] > 0.8 * args.steps]["reward"].mean()
                rows.append({"algo": algo, "n_envs": n, "seed": seed,
                             "s_per_M": timing["wall_time_total_s"] / timing["steps"] * 1e6,
                             "final_reward": tail})
                curves.append(curve.assign(algo=algo, n_envs=n, seed=seed))
    table = pd.DataFrame(rows)
    args.out.mkdir(parents=True, exist_ok=True)
    pd.concat(curves).to_csv(args.out / "curves.csv", index=False)
    print(f"DeepRM {args.variant}, {args.steps} env steps per run, seeds {args.seeds} (training wall time, "
          "timing.json)")
    print(f"{'algo':>6} {'n_envs':>6} {'s / M steps':>12} {'speed-up':>9} {'final reward':>18}")
    for algo, group in table.groupby("algo", sort=False):
        base = group[group["n_envs"] == min(args.n_envs)]["s_per_M"].mean()
        for n, g in group.groupby("n_envs"):
            print(f"{algo:>6} {n:6d} {g['s_per_M'].mean():12.0f} {base / g['s_per_M'].mean():8.2f}x "
                  f"{g['final_reward'].mean():10.1f} +- {g['final_reward'].std(ddof=0):5.1f}")
    print(f"goal: wall time per million steps >= {GOAL_SPEEDUP:g}x better with n_envs {max(args.n_envs)}")
    _figure(pd.concat(curves), args.out / "learning_curves.png", args)


def _figure(curves: pd.DataFrame, path: Path, args) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    algos = list(dict.fromkeys(curves["algo"]))
    fig, axes = plt.subplots(1, len(algos), figsize=(5 * len(algos), 3.6), squeeze=False)
    for ax, algo in zip(axes[0], algos):
        for n, g in curves[curves["algo"] == algo].groupby("n_envs"):
            m = g.groupby("timesteps")["reward"].agg(["mean", "std"]).fillna(0.0)
            ax.plot(m.index, m["mean"], label=f"n_envs {n}")
            ax.fill_between(m.index, m["mean"] - m["std"], m["mean"] + m["std"], alpha=0.2)
        ax.set(title=f"{algo.upper()} on DeepRM {args.variant}", xlabel="env steps",
               ylabel="episode reward (-sum slowdown)")
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
