"""Throughput of MRSch's DFP agent on the Theta workloads, to extrapolate the default-scale cost.

Measures on one core (one torch thread), on S1's and S6's training splits:

* ``env``: pick-and-reserve env steps per second with the MRSch state (11,410 / 11,422 inputs) and
  the head of the window always picked (no agent), under the config's decision process
  (``mrsch.process``, ``layout.env_kwargs``);
* ``act``: seconds per greedy decision of the paper's network (one forward pass, all actions) over
  the first 200 decisions of that play in order, with the config's ``incremental_input`` and with
  the dense first layer (``schedrl.agents.incremental_input``: between weight updates a decision
  reads the weight rows of the inputs that changed, not the 182 MB table);
* ``update``: seconds per gradient update at the config's batch size with fused Adam (the
  trainer's); on S1 also with glibc's default allocator (before ``keep_freed_blocks``, which
  ``train_dfp`` calls) and the first layer's weight gradient in nn.Linear's (out, in) layout
  against ``InputLinear``'s (in, out), the layouts the trainer used before and uses now;
* ``train``: agent steps per second of ``train_dfp`` with the config's ``mrsch.dfp`` settings on
  ``--sets`` job sets of ``--jobs`` jobs (replay, updates and epsilon-greedy play included);

then prints the extrapolated core-hours of the config's mrsch section (DFP runs, extra seeds
included, x job sets x jobs per set x the decisions per job of the timed run, at its train rate;
short job sets understate a loaded trace's decisions per job). Times are
process CPU seconds (one thread), so a loaded machine does not inflate them.

``--device cuda`` (or ``cuda:N``) also times ``act``, ``update`` and ``train`` with the network on
that GPU, in wall seconds (synchronised; the machine should be otherwise idle), beside the CPU's in
the same run, and the extrapolated wall hours of the DFP runs, one after another, on that GPU.
Usage:

    OMP_NUM_THREADS=1 python benchmarks/bench_dfp.py [--config config/config.yaml] [--sets 3] [--jobs 60] [--device cuda]
"""

from __future__ import annotations

import argparse
import dataclasses
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

from schedrl.agents.allocator import keep_freed_blocks
from schedrl.agents.device import check_device
from schedrl.agents.dfp import DFPAgent, adam, train_dfp
from schedrl.config import load_yaml, over_default
from schedrl.papers.mrsch import layout as ml
from schedrl.workloads.jobsets import real_jobsets


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default=str(Path(__file__).resolve().parents[1] / "config" / "config.yaml"))
    ap.add_argument("--sets", type=int, default=3, help="job sets of the timed training run")
    ap.add_argument("--jobs", type=int, default=60, help="jobs per job set of the timed training run")
    ap.add_argument("--device", default="cpu", help="also time the network on this torch device (cuda, cuda:N)")
    args = ap.parse_args()
    check_device(args.device)
    torch.set_num_threads(1)
    spec = ml.check_spec(over_default(load_yaml(args.config), args.config)["mrsch"])
    cfg = ml.dfp_config(spec, "mlp")
    rates, per_job, gpu_rates = {}, {}, {}
    for wl in ("S1", "S6"):
        frame = ml.read_part(wl, "train")
        env = ml.make_env(frame.iloc[:500], int(spec["window"]), **ml.env_kwargs(spec))
        obs, info = env.reset(seed=0)
        t0, n, done, played = time.process_time(), 0, False, []
        while not done:
            if len(played) < 200:  # the decisions a greedy agent is asked, in order
                played.append((obs, info["utilization"], info["demand_share"], info["action_mask"]))
            obs, _, term, trunc, info = env.step(0)
            n, done = n + 1, term or trunc
        env_rate = n / max(time.process_time() - t0, 1e-9)
        agent = DFPAgent(obs.shape[0], len(info["utilization"]), env.action_space.n, cfg)
        dense = DFPAgent(obs.shape[0], len(info["utilization"]), env.action_space.n,
                         dataclasses.replace(cfg, incremental_input=False))
        dense.net.load_state_dict(agent.net.state_dict())  # the same weights, the dense first layer
        acts = {}
        for name, player in (("dense", dense), ("config", agent)):
            t0 = time.process_time()
            for o, m, g, k in played:
                player.act(o[None], m, g, k[None])
            acts[name] = (time.process_time() - t0) / len(played)
        act = acts["config"]
        print(f"{wl}: greedy decisions over {len(played)} played in order: {acts['dense'] * 1e3:.1f} ms with the dense "
              f"first layer, {act * 1e3:.1f} ms with incremental_input {cfg.incremental_input!r} "
              f"({'on' if agent.net.state[0].incremental else 'off'} here): {acts['dense'] / act:.2f}x")
        b = cfg.batch_size
        x, m = torch.rand(b, obs.shape[0]), torch.rand(b, len(info["utilization"]))
        opt = adam(agent.net, cfg.learning_rate)
        if wl == "S1":  # the allocator's setting holds for the rest of the process: compare once
            unmapped = timed_update(agent.net, opt, x, m)
            keep_freed_blocks()
            update = timed_update(agent.net, opt, x, m)
            g, w = torch.rand(b, cfg.state_hidden[0]), torch.rand(b, obs.shape[0])
            out_in = cpu_seconds(lambda g=g, w=w: g.t() @ w, 5)
            in_out = cpu_seconds(lambda g=g, w=w: w.t() @ g, 5)
            print(f"{wl}: update (batch {b}, fused Adam) {unmapped:.2f} s with glibc's default allocator, "
                  f"{update:.2f} s with freed blocks kept (used): {unmapped / update:.1f}x; first layer's weight "
                  f"gradient {out_in * 1e3:.0f} ms as (out, in), {in_out * 1e3:.0f} ms as (in, out) (used): "
                  f"{out_in / in_out:.1f}x")
        else:
            update = timed_update(agent.net, opt, x, m)
        sets = [{"jobs": f} for f in real_jobsets(frame, args.sets, args.jobs)]
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.process_time()
            res = train_dfp(lambda f=frame: ml.make_env(f.iloc[:args.jobs], int(spec["window"]), **ml.env_kwargs(spec)),
                            cfg, sets, 0, tmp, measurement_key="utilization", goal_key="demand_share",
                            checkpoint_every=spec["checkpoint_every"])
            cpu = time.process_time() - t0
        rates[wl] = res.steps / cpu
        per_job[wl] = res.steps / (args.sets * args.jobs)
        print(f"{wl}: env {env_rate:,.0f} steps/s, act {act * 1e3:.1f} ms, update (batch {b}) {update:.2f} s, "
              f"per decision {act + update / cfg.update_every:.4f} s (act + update / {cfg.update_every}); "
              f"train {rates[wl]:.2f} agent steps per CPU-s ({res.steps} steps, {per_job[wl]:.2f} per job; "
              f"process {ml.process(spec)})")
        if args.device != "cpu":
            gpu_rates[wl] = time_on_device(args.device, agent, obs, info, x, m, cfg, sets, frame, spec, args.jobs,
                                           act, update, rates[wl])
    runs = ml.dfp_runs(spec) + [(g, st, o) for g, st, o, _ in ml.seed_runs(spec)]
    jobs = int(spec["jobs_per_set"]) * sum(int(v) for v in spec["jobsets"].values())
    hours = sum(jobs * per_job["S1" if g == "two" else "S6"] / rates["S1" if g == "two" else "S6"] for g, _, _ in runs) / 3600
    print(f"{len(runs)} DFP runs x {jobs:,} training jobs: ~{hours:.1f} core-hours of DFP training at these rates "
          f"(CNN runs counted at the MLP rate)")
    if gpu_rates:
        gpu = sum(jobs * per_job["S1" if g == "two" else "S6"] / gpu_rates["S1" if g == "two" else "S6"]
                  for g, _, _ in runs) / 3600
        print(f"on {args.device} ({torch.cuda.get_device_name(args.device)}): ~{gpu:.2f} wall hours of DFP training, "
              f"the {len(runs)} runs one after another ({hours / max(gpu, 1e-9):.1f}x fewer hours than one CPU core; "
              f"fixed costs left out, and each run's process also holds one CPU core)")


def timed_update(net, opt, x, m) -> float:
    """Process CPU seconds of one update of ``net`` on the batch ``x``, ``m`` (mean of 5)."""
    for i in range(6):  # the first step allocates the optimiser's state: not timed
        if i == 1:
            t0 = time.process_time()
        loss = net(x, m, m).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    return (time.process_time() - t0) / 5


def cpu_seconds(fn, n: int) -> float:
    fn()
    t0 = time.process_time()
    for _ in range(n):
        fn()
    return (time.process_time() - t0) / n


def time_on_device(device, agent, obs, info, x, m, cfg, sets, frame, spec, jobs, cpu_act, cpu_update, cpu_rate):
    """act, update and train_dfp on ``device`` in synchronised wall seconds, printed beside the CPU's;
    returns the train rate (agent steps per wall second)."""
    def wall(fn, n):
        fn()
        torch.cuda.synchronize(device)
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        torch.cuda.synchronize(device)
        return (time.perf_counter() - t0) / n

    agent.to(device)
    act = wall(lambda: agent.act(obs[None], info["utilization"], info["demand_share"], info["action_mask"][None]), 50)
    opt = adam(agent.net, cfg.learning_rate)
    xd, md = x.to(device), m.to(device)

    def step():
        loss = agent.net(xd, md, md).pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()

    update = wall(step, 20)
    agent.to("cpu")
    def train(job_sets):
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.perf_counter()
            res = train_dfp(lambda: ml.make_env(frame.iloc[:jobs], int(spec["window"]), **ml.env_kwargs(spec)),
                            cfg, job_sets, 0, tmp, measurement_key="utilization", goal_key="demand_share",
                            checkpoint_every=spec["checkpoint_every"], device=device)
            return res.steps, time.perf_counter() - t0

    steps, secs = train(sets)
    # the same sets four times over: the extra steps' rate leaves out the run's fixed costs (start,
    # the ~0.6 GB of model and checkpoint files), which a 40-set default run spreads over far more steps
    more_steps, more_secs = train(sets * 4)
    rate, marginal = steps / secs, (more_steps - steps) / max(more_secs - secs, 1e-9)
    print(f"   on {device}: act {act * 1e3:.2f} ms ({cpu_act / act:.1f}x the CPU's speed), update {update * 1e3:.1f} ms "
          f"({cpu_update / update:.0f}x), train {rate:.1f} agent steps per wall s ({rate / cpu_rate:.1f}x the CPU's "
          f"per CPU-s); without the fixed costs {marginal:.1f} ({marginal / cpu_rate:.1f}x)")
    return marginal


if __name__ == "__main__":
    from schedrl.errors import ConfigError

    np.seterr(all="ignore")
    try:
        main()
    except ConfigError as e:
        raise SystemExit(f"bench_dfp: {e}") from None
