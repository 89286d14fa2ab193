"""Does the runtime paper's training env play like its evaluation env? (issue 38)

Training doubles the idle step (brief 4.1); evaluation does not. Before issue 38 a doubled step
could jump past arrivals and job ends (``idle_overshoot=True``); now it stops at the tick that
holds the next one. This script plays the same fixed players through three dynamics on the same
workload half and prints, per player and dynamics: utilisation (the paper's metric), the episode
return (the agent's reward, ``runtime_final``), steps, and how late the clock saw each arrival
(share over Sim_Step late, p99, max). The ratio column is utilisation over evaluation's: 1.00 means
training ranks and scores that player as evaluation does.

Players: seeded uniform-random valid play, and FCFS / SJF / largest first among the window's jobs
that fit now (the agent's own action set; ``recording.FitPicker``). No episode cap, so that only
the clock rule differs (training's Max_Episode_Steps would cut the training episodes).

    OMP_NUM_THREADS=1 python benchmarks/bench_runtime_dynamics.py [--halves wl2_100a wl1_100a] [--config config/config.yaml]

Needs the workload halves (``snakemake results/workloads/runtime/wl2_100a.swf``).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

DYNAMICS = {"evaluation": {"double_idle": False},
            "training, stops at events": {"double_idle": True, "idle_overshoot": False},
            "training, overshoot (before)": {"double_idle": True, "idle_overshoot": True}}


def play(spec: dict, half: str, player: str, dynamics: dict, seed: int = 0) -> dict:
    from schedrl.experiments.envs import make_env
    from schedrl.metrics import runtime_utilization
    from schedrl.papers.runtime import experiments as rx
    from schedrl.papers.runtime.recording import FitPicker, RandomValid

    kw = {**rx.env_kwargs(spec, "runtime_baseline", half, training=False), **dynamics,
          "max_steps": int(spec["evaluate"]["max_steps"])}
    env = make_env(rx.ENV_ID, kw)
    env.reset(seed=seed)
    sim = env.unwrapped.sim
    late: list[float] = []
    arrive = sim._arrive

    def seen(t):  # how late the clock sees each arrival
        first = sim._next
        count = arrive(t)
        late.extend(t - sim.jobs.submit[first:sim._next])
        return count

    sim._arrive = seen
    pick = RandomValid([env], ("bench", seed)) if player == "random" else FitPicker([env], player)
    ret, steps, done = 0.0, 0, False
    while not done:
        _, r, term, trunc, info = env.step(int(pick(None, [0])[0]))
        ret, steps, done = ret + float(r), steps + 1, term or trunc
    late_s = np.asarray(late)
    step = float(kw["sim_step"])
    return {"utilization": runtime_utilization(info["schedule"], env.unwrapped.cluster.nodes), "return": ret,
            "steps": steps, "late_share": float((late_s > step).mean()), "late_p99": float(np.percentile(late_s, 99)),
            "late_max": float(late_s.max())}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--halves", nargs="+", default=["wl2_100a", "wl1_100a"])
    ap.add_argument("--players", nargs="+", default=["random", "fcfs_fit", "sjf_fit", "largest_fit"])
    ap.add_argument("--config", default="config/config.yaml")
    args = ap.parse_args()
    from schedrl.papers.runtime.experiments import load_spec

    spec = load_spec(args.config, agents=True)
    print(f"{'half':9} {'player':12} {'dynamics':30} {'util':>6} {'ratio':>6} {'return':>8} {'steps':>7} "
          f"{'>60s':>6} {'p99 s':>7} {'max s':>7} {'cpu s':>6}")
    for half in args.halves:
        for player in args.players:
            base = None
            for name, dyn in DYNAMICS.items():
                cpu = time.process_time()
                r = play(spec, half, player, dyn)
                base = base or r["utilization"]
                print(f"{half:9} {player:12} {name:30} {r['utilization']:6.3f} {r['utilization'] / base:6.3f} "
                      f"{r['return']:8.3f} {r['steps']:7d} {r['late_share']:6.1%} {r['late_p99']:7.0f} "
                      f"{r['late_max']:7.0f} {time.process_time() - cpu:6.1f}", flush=True)


if __name__ == "__main__":
    main()
