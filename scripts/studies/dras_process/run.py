"""Issue 37 item 2: DRAS's code's decision process (``process="dras"``) beside ours (``hold``) and
MRSch's (``every_event``) on SEM's Theta test split (else a loaded Lublin workload), with pickers
that need no training: decisions per job and mean wait.

Workloads: the test split on disk (``results/workloads/sem/theta/test.swf``, whatever scale the
last run wrote) and the default-scale one (``config/config.yaml``'s ``workloads.sem`` counts,
``sem_split`` of the cleaned Theta trace, built in memory; nothing is written under results/).

Pickers (each plays only valid actions): ``fcfs`` the first valid action (the queue head; under
dras the first eligible job in a backfill decision), ``sjf`` the shortest requested job among the
window jobs that fit (``fingerprint.fit_pick``; slot 0 when none fits; under dras' backfill
decisions the shortest eligible job), ``random`` a uniform valid action (seeds 0-2).
"chosen": the share of jobs whose start a decision chose (the job started at the decision, or,
under ``hold``, a failed pick's job, which is reserved and starts as soon as it can); "behind":
under ``dras``, the share of jobs EASY-backfilled from behind the 50-job window without a decision.

    nice -n 10 python scripts/studies/dras_process/run.py [--out results/studies/dras_process]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from pathlib import Path

import numpy as np

from schedrl.envs.pick_reserve import PickReserveEnv
from schedrl.experiments.fingerprint import fit_pick, heuristic_picks, window_jobs
from schedrl.sim import ClusterSpec, simulate
from schedrl.workloads.swf import read_swf

SPLIT = Path("results/workloads/sem/theta/test.swf")
TRACE = Path("results/workloads/traces/theta.swf")
PROCESSES = ("hold", "dras", "every_event")


def workloads():
    """(jobs, nodes, label) per workload."""
    out = []
    if SPLIT.exists():
        out.append((read_swf(SPLIT), 4360, f"SEM Theta test split on disk ({SPLIT}, "
                                            f"sha256 {hashlib.sha256(SPLIT.read_bytes()).hexdigest()[:12]})"))
    if TRACE.exists():
        from schedrl.workloads.splits import sem_split

        parts, manifest = sem_split(read_swf(TRACE), 60_000, 600, 1_200, 6_000, fit="shrink")
        out.append((parts["test"], 4360, f"SEM Theta test split at default scale (rows {manifest['rows']['test']} "
                                         f"of {TRACE})"))
    if not out:
        from schedrl.workloads.lublin import generate

        jobs = generate("lublin256", n_jobs=1000, seed=0, max_nodes=256)
        jobs["submit_time"] = jobs["submit_time"] // 10  # loaded: queues form
        jobs["req_time"] = np.ceil(jobs["run_time"] * 1.5)
        out.append((jobs, 256, "loaded Lublin (1,000 jobs, seed 0, submits / 10, 256 nodes)"))
    return out


def picker(name: str, seed: int = 0):
    rng = np.random.default_rng(seed)

    def pick(env, info) -> int:
        mask = info["action_mask"]
        if name == "fcfs":
            return int(np.flatnonzero(mask)[0])
        if name == "random":
            return int(rng.choice(np.flatnonzero(mask)))
        if info.get("decision") == "backfill":  # eligible jobs only (a fitting job may delay the head)
            return heuristic_picks(window_jobs(env), mask)["sjf"]
        a = fit_pick(env, "sjf")
        return 0 if a < 0 else a
    return pick


def play(jobs, nodes, process, name, seed=0):
    env = PickReserveEnv(jobs=jobs, cluster=nodes, process=process, encoder="sem", reward="neg_inv_runtime",
                         window=50, k=34)
    pick = picker(name, seed)
    behind = [0]  # dras calls sim.backfill() only for the eligible jobs behind the window
    inner = env.sim.backfill

    def counted_backfill():
        started = inner()
        behind[0] += started
        return started

    env.sim.backfill = counted_backfill
    _, info = env.reset(seed=0)
    counts = {"pick": 0, "backfill": 0}
    by_agent, term = 0, False
    while not term:
        sim = env.sim
        a = pick(env, info)
        job, clock = sim.queue[a], sim.clock
        counts[info.get("decision", "pick")] += 1
        *_, term, _, info = env.step(a)
        # the agent chose this job's start: it started at this decision or (hold) was reserved by it
        by_agent += bool(sim.start_time[job] == clock) or process == "hold"
    s = info["schedule"]
    n = len(s)
    return {"process": process, "picker": name, "seed": seed, "jobs": n,
            "decisions_per_job": (counts["pick"] + counts["backfill"]) / n,
            "pick_per_job": counts["pick"] / n, "backfill_per_job": counts["backfill"] / n,
            "chosen_by_agent": by_agent / n,
            "behind_window_backfills": behind[0] / n if process == "dras" else 0.0, "mean_wait_s": float(s["wait_time"].mean()),
            "max_wait_s": float(s["wait_time"].max())}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="results/studies/dras_process")
    args = ap.parse_args()
    t0 = time.process_time()
    report = []
    for jobs, nodes, label in workloads():
        rows = []
        for process in PROCESSES:
            for name, seeds in (("fcfs", [0]), ("sjf", [0]), ("random", [0, 1, 2])):
                for seed in seeds:
                    rows.append(play(jobs, nodes, process, name, seed))
        ref = {p: float(simulate(jobs, ClusterSpec(nodes=nodes), policy=p, backfill="easy")["wait_time"].mean())
               for p in ("fcfs", "sjf")}
        report.append({"workload": label, "jobs": len(jobs), "simulate_easy_mean_wait_s": ref, "rows": rows})
        print(f"\nworkload: {label}, {len(jobs)} jobs")
        print("simulate(..., backfill='easy') mean wait s:", {k: round(v) for k, v in ref.items()})
        print(f"{'process':12} {'picker':7} {'dec/job':>7} {'pick':>5} {'bfill':>5} {'chosen':>6} "
              f"{'behind':>6} {'mean wait s':>11} {'max wait s':>10}")
        for process in PROCESSES:
            for name in ("fcfs", "sjf", "random"):
                r = [x for x in rows if x["process"] == process and x["picker"] == name]
                m = {k: float(np.mean([x[k] for x in r])) for k in r[0] if k not in ("process", "picker", "seed", "jobs")}
                sd = f" (sd {np.std([x['mean_wait_s'] for x in r]):.0f})" if len(r) > 1 else ""
                print(f"{process:12} {name:7} {m['decisions_per_job']:7.2f} {m['pick_per_job']:5.2f} "
                      f"{m['backfill_per_job']:5.2f} {100 * m['chosen_by_agent']:5.0f}% "
                      f"{100 * m['behind_window_backfills']:5.1f}% {m['mean_wait_s']:11.0f} "
                      f"{m['max_wait_s']:10.0f}{sd}")
    cpu = time.process_time() - t0
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "rows.json").write_text(json.dumps({"workloads": report, "cpu_s": cpu}, indent=1))
    print(f"CPU seconds: {cpu:.1f}")


if __name__ == "__main__":
    main()
