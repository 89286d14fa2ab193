"""Beyond the runtime paper (issue 38): does PPO learn on the paper's MDP, and on one whose reward
it can learn from, and does the runtime estimate help once it learns?

Trains the runtime package's PPO (``ppo.yaml`` variant ``runtime``, the config's network and grid
point, fixed idle doubling) for each reward x method x training half x seed, in parallel worker
processes, then plays each agent under the evaluation protocol (``experiments.play_cases``: its own
half and every "b" half, oracle estimates, sampled actions, the config's episodes) and records its
behaviour fingerprint. The same cases are played by the no-learning and heuristic players (uniform
random valid play; FCFS / SJF / largest first among the jobs that fit, the agent's action set).

Rewards: ``runtime_final`` (the paper's: one reward at the end of an episode of thousands of
decisions) and ``runtime_idle`` (dense: minus the idle node-seconds each step leaves; an episode's
return is ordered exactly as utilisation). Halves: ``wl2_rnda`` (random walltime accuracy: the
estimate tells more than the request) and ``wl2_100a`` (estimate = request: the proposal's extra
input carries nothing).

Writes ``--out``/learnable_episodes.csv (one row per episode), learnable_runs.csv (per agent: training
CPU-s, last learning-curve rewards, fingerprint summary) and prints a summary table of the mean
utilisation on the own half and the same-tendency "b" half, beside random and the heuristics.

    OMP_NUM_THREADS=1 python benchmarks/runtime_learnable.py --steps 400000 --workers 16 --out results/runtime/learnable
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import time
from pathlib import Path


def _train_and_play(job: dict) -> dict:
    import torch

    from schedrl.experiments.evaluate import load_run
    from schedrl.experiments.fingerprint import fingerprint, plays_as, sb3_view
    from schedrl.papers.runtime import experiments as rx

    torch.set_num_threads(1)
    spec, run = job["spec"], Path(job["run"])
    grid = rx.grid_id(rx.grid_points(spec)[0])
    cpu = time.process_time()
    rx.train(spec, job["method"], job["half"], grid, job["seed"], run, threads=1)
    train_cpu = time.process_time() - cpu
    model, _ = load_run(run)
    table, recorder = rx.play_cases(spec, job["method"], job["half"], grid, 0, job["seed"], model,
                                    estimators=False, record=True)
    fp = fingerprint(recorder.decisions(), sb3_view(model))
    table.insert(0, "train_reward", job["reward"])
    table.insert(0, "algo", spec["agents"]["algo"])
    table.insert(0, "player", "ppo")
    import pandas as pd

    curve = pd.read_csv(run / "learning_curve.csv")
    fifth = max(1, len(curve) // 5)
    col = "reward" if "reward" in curve.columns else curve.columns[-1]
    summary = {"algo": spec["agents"]["algo"], "reward": job["reward"], "method": job["method"], "half": job["half"], "seed": job["seed"],
               "steps": int(spec["agents"]["steps"]), "train_cpu_s": round(train_cpu, 1),
               "episodes_trained": len(curve),
               "curve_first_fifth": float(curve[col].head(fifth).mean()) if len(curve) else float("nan"),
               "curve_last_fifth": float(curve[col].tail(fifth).mean()) if len(curve) else float("nan"),
               "plays_as": fp.get("plays_as") or plays_as(fp),
               **{k: fp.get(k) for k in ("entropy_median", "entropy_uniform_median", "chance", "agree_fcfs",
                                         "agree_sjf", "agree_largest", "top_slot", "top_slot_share",
                                         "spread_across_states", "spread_across_slots", "dead_share")}}
    return {"table": table, "summary": summary}


def _play_fixed(job: dict) -> dict:
    from schedrl.papers.runtime import experiments as rx

    spec = job["spec"]
    grid = rx.grid_id(rx.grid_points(spec)[0])
    table, _ = rx.play_cases(spec, "baseline", job["half"], grid, 0, 0, job["player"], estimators=False)
    table.insert(0, "train_reward", "-")
    table.insert(0, "player", job["player"])
    return {"table": table, "summary": None}


def _run(job: dict) -> dict:
    return _play_fixed(job) if "player" in job else _train_and_play(job)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--config", default="config/config.yaml")
    ap.add_argument("--steps", type=int, default=400_000, help="PPO steps per agent")
    ap.add_argument("--rewards", nargs="+", default=["runtime_final", "runtime_idle"])
    ap.add_argument("--methods", nargs="+", default=["baseline", "proposal_nn1"])
    ap.add_argument("--halves", nargs="+", default=["wl2_rnda", "wl2_100a"])
    ap.add_argument("--seeds", nargs="+", type=int, default=[0, 1])
    ap.add_argument("--algo", default="ppo", choices=("ppo", "maskable_ppo"),
                    help="maskable_ppo: only occupied window slots and X can be picked")
    ap.add_argument("--episodes", type=int, default=None, help="evaluation episodes per case (default: the config's)")
    ap.add_argument("--workers", type=int, default=os.cpu_count())
    ap.add_argument("--out", default="results/runtime/learnable")
    ap.add_argument("--runs-dir", default=None, help="where the agents' run folders go (default: OUT/runs)")
    args = ap.parse_args()

    import multiprocessing as mp

    import pandas as pd

    from schedrl.papers.runtime.experiments import load_spec, same_tendency

    base = load_spec(args.config, agents=True)
    base["agents"]["steps"] = int(args.steps)
    base["agents"]["algo"] = args.algo
    if args.episodes:
        base["evaluate"]["episodes"] = int(args.episodes)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    runs_dir = Path(args.runs_dir) if args.runs_dir else out / "runs"
    jobs = []
    for reward in args.rewards:
        for method in args.methods:
            for half in args.halves:
                for seed in args.seeds:
                    spec = copy.deepcopy(base)
                    spec["env"]["reward"] = reward
                    jobs.append({"spec": spec, "reward": reward, "method": method, "half": half, "seed": seed,
                                 "run": str(runs_dir / reward / method / half / f"seed{seed}")})
    fixed = [{"spec": base, "half": h, "player": p} for h in args.halves
             for p in ("random", "fcfs_fit", "sjf_fit", "largest_fit")]
    print(f"{len(jobs)} agents x {args.steps} steps, {len(fixed)} fixed plays, {args.workers} workers", flush=True)
    t0 = time.time()
    results = []
    with mp.get_context("fork").Pool(args.workers, maxtasksperchild=1) as pool:
        for r in pool.imap_unordered(_run, fixed + jobs):  # the cheap fixed plays first
            results.append(r)
            s = r["summary"]
            if s:
                print(f"[{time.time() - t0:5.0f} s] {s['reward']:13} {s['method']:12} {s['half']} seed {s['seed']}: "
                      f"train {s['train_cpu_s']} CPU-s, curve {s['curve_first_fifth']:.3f} -> "
                      f"{s['curve_last_fifth']:.3f}, plays as {s['plays_as'] or '-'}", flush=True)
            # written after every result: a run cut short keeps what finished
            episodes = pd.concat([r["table"] for r in results], ignore_index=True)
            episodes.to_csv(out / "learnable_episodes.csv", index=False)
            pd.DataFrame([r["summary"] for r in results if r["summary"]]).to_csv(out / "learnable_runs.csv", index=False)
    own = episodes[episodes["test"] == episodes["train"]]
    same = episodes[episodes["test"] == episodes["train"].map(same_tendency)]
    keys = ["player", "train_reward", "method", "train"]
    table = pd.concat({"own": own.groupby(keys)["utilization"].mean(),
                       "own_sd_over_seeds": own.groupby(keys + ["run_seed"])["utilization"].mean()
                       .groupby(level=list(range(len(keys)))).std(),
                       "same_b": same.groupby(keys)["utilization"].mean()}, axis=1)
    print(table.round(4).to_string())
    (out / "learnable_summary.json").write_text(json.dumps(
        {"steps": args.steps, "wall_s": round(time.time() - t0, 1), "workers": args.workers,
         "cpu_count": os.cpu_count()}, indent=1))


if __name__ == "__main__":
    main()
