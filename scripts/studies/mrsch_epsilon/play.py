"""Issue 25 epsilon study: play each schedule's DFP models (after 1/4, 1/2 and all of training)
greedily on the S1-S5 test splits (lockstep, evaluation.play_dfp_batch) plus FCFS, the GA and
scalar RL once; writes results/eps/{metrics,jobs}.csv. Uses schedrl.papers.mrsch.layout and
schedrl.papers.mrsch.evaluation only."""
import sys
import time
from pathlib import Path

import pandas as pd

from schedrl.agents.dfp import DFPAgent
from schedrl.agents.reinforce import ReinforcePolicy
from schedrl.papers.mrsch import evaluation as mev
from schedrl.papers.mrsch import layout as ml
from schedrl.schedulers.ga import simulate_window_optimiser
from schedrl.sim import simulate

OUT = Path("results/eps")
spec = ml.load_spec(str(OUT / "update.yaml"))
W, w = spec["workloads"], int(spec["window"])
frames = {wl: ml.test_jobs(spec, wl) for wl in W}
rows, jobs, cpu = [], [], {}
which = sys.argv[1:] or ["baselines", "update", "episode", "run"]
if "baselines" in which:
    t = time.process_time()
    pol = ReinforcePolicy.load(ml.scalar_dir(OUT / "update", "two") / "model.zip")
    for wl, f in frames.items():
        c = ml.cluster_of(f)
        for m, s in (("fcfs", simulate(f, c, policy="fcfs", backfill="easy")),
                     ("ga", simulate_window_optimiser(f, c, window=w, seed=int(spec["seed"]), exhaustive_max=0)),
                     ("scalar_rl", mev.play_policy(pol, ml.make_env(f, w), f)[0])):
            rows.append(mev.metrics_row(s, c, m, wl, eps_per="-", fraction=1.0))
            jobs.append(mev.job_rows(s, m, wl).assign(eps_per="-", fraction=1.0))
    cpu["baselines"] = time.process_time() - t
for item in [s for s in which if s != "baselines"]:
    sched, frac = item.split(":")
    frac = float(frac)
    t = time.process_time()
    if True:
        agent = DFPAgent.load(OUT / sched / "dfp/two/mlp" / ml.PAPER_ORDERING / ml.budget_name(frac))
        scheds, _ = mev.play_dfp_batch(agent, [ml.make_env(f, w) for f in frames.values()], list(frames.values()))
        for (wl, f), s in zip(frames.items(), scheds):
            rows.append(mev.metrics_row(s, ml.cluster_of(f), "mrsch", wl, eps_per=sched, fraction=frac))
            jobs.append(mev.job_rows(s, "mrsch", wl).assign(eps_per=sched, fraction=frac))
    cpu[item] = time.process_time() - t
tag = "_".join(which).replace(":", "-")
pd.DataFrame(rows).to_csv(OUT / f"metrics_{tag}.csv", index=False)
pd.concat(jobs).to_csv(OUT / f"jobs_{tag}.csv", index=False)
print("CPU s", cpu)
