"""Throughput of MRSch's DFP agent on the Theta workloads, to extrapolate the default-scale cost.

Measures on one core (one torch thread), on S1's and S6's training splits:

* ``env``: pick-and-reserve env steps per second with the MRSch state (11,410 / 11,422 inputs) and
  the head of the window always picked (no agent), under the config's decision process
  (``mrsch.process``, ``experiments.env_kwargs``);
* ``act``: seconds per greedy decision of the paper's network (one forward pass, all actions);
* ``update``: seconds per gradient update at the config's batch size, fused Adam (the trainer's)
  against PyTorch's default multi-tensor Adam;
* ``train``: agent steps per second of ``train_dfp`` with the config's ``mrsch.dfp`` settings on
  ``--sets`` job sets of ``--jobs`` jobs (replay, updates and epsilon-greedy play included);

then prints the extrapolated core-hours of the config's mrsch section (DFP runs, extra seeds
included, x job sets x jobs per set x the decisions per job of the timed run, at its train rate;
short job sets understate a loaded trace's decisions per job). Times are
process CPU seconds (one thread), so a loaded machine does not inflate them. Usage:

    OMP_NUM_THREADS=1 python benchmarks/bench_dfp.py [--config config/config.yaml] [--sets 3] [--jobs 60]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

from schedrl.agents.dfp import DFPAgent, adam, train_dfp
from schedrl.config import load_yaml
from schedrl.papers.mrsch import experiments as mx
from schedrl.workloads.jobsets import real_jobsets


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default=str(Path(__file__).resolve().parents[1] / "config" / "config.yaml"))
    ap.add_argument("--sets", type=int, default=3, help="job sets of the timed training run")
    ap.add_argument("--jobs", type=int, default=60, help="jobs per job set of the timed training run")
    args = ap.parse_args()
    torch.set_num_threads(1)
    spec = mx.check_spec(load_yaml(args.config)["mrsch"])
    cfg = mx.dfp_config(spec, "mlp")
    rates, per_job = {}, {}
    for wl in ("S1", "S6"):
        frame = mx.read_part(wl, "train")
        env = mx.make_env(frame.iloc[:500], int(spec["window"]), **mx.env_kwargs(spec))
        obs, info = env.reset(seed=0)
        t0, n, done = time.process_time(), 0, False
        while not done:
            obs, _, term, trunc, info = env.step(0)
            n, done = n + 1, term or trunc
        env_rate = n / max(time.process_time() - t0, 1e-9)
        agent = DFPAgent(obs.shape[0], len(info["utilization"]), env.action_space.n, cfg)
        t0 = time.process_time()
        for _ in range(20):
            agent.act(obs[None], info["utilization"], info["demand_share"], info["action_mask"][None])
        act = (time.process_time() - t0) / 20
        b = cfg.batch_size
        x, m = torch.rand(b, obs.shape[0]), torch.rand(b, len(info["utilization"]))
        update = {}
        for name, opt in (("default Adam", torch.optim.Adam(agent.net.parameters(), lr=cfg.learning_rate)),
                          ("fused Adam", adam(agent.net, cfg.learning_rate))):
            for i in range(6):  # the first step allocates the optimiser's state: not timed
                if i == 1:
                    t0 = time.process_time()
                loss = agent.net(x, m, m).pow(2).mean()
                opt.zero_grad()
                loss.backward()
                opt.step()
            update[name] = (time.process_time() - t0) / 5
        print(f"{wl}: update (batch {b}) default Adam {update['default Adam']:.2f} s, fused Adam (used) "
              f"{update['fused Adam']:.2f} s: {update['default Adam'] / update['fused Adam']:.1f}x")
        update = update["fused Adam"]
        sets = [{"jobs": f} for f in real_jobsets(frame, args.sets, args.jobs)]
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.process_time()
            res = train_dfp(lambda f=frame: mx.make_env(f.iloc[:args.jobs], int(spec["window"]), **mx.env_kwargs(spec)),
                            cfg, sets, 0, tmp, measurement_key="utilization", goal_key="demand_share")
            cpu = time.process_time() - t0
        rates[wl] = res.steps / cpu
        per_job[wl] = res.steps / (args.sets * args.jobs)
        print(f"{wl}: env {env_rate:,.0f} steps/s, act {act * 1e3:.1f} ms, update (batch {b}) {update:.2f} s, "
              f"per decision {act + update / cfg.update_every:.4f} s (act + update / {cfg.update_every}); "
              f"train {rates[wl]:.2f} agent steps per CPU-s ({res.steps} steps, {per_job[wl]:.2f} per job; "
              f"process {mx.process(spec)})")
    runs = mx.dfp_runs(spec) + [(g, st, o) for g, st, o, _ in mx.seed_runs(spec)]
    jobs = int(spec["jobs_per_set"]) * sum(int(v) for v in spec["jobsets"].values())
    hours = sum(jobs * per_job["S1" if g == "two" else "S6"] / rates["S1" if g == "two" else "S6"] for g, _, _ in runs) / 3600
    print(f"{len(runs)} DFP runs x {jobs:,} training jobs: ~{hours:.1f} core-hours of DFP training at these rates "
          f"(CNN runs counted at the MLP rate)")


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
