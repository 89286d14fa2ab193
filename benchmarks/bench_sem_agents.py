"""How fast do the SEM paper's agents train and infer? One DRAS and one SEM training episode.

For one trace's machine (Table 4's networks, REINFORCE as DRAS: discount 0.6, normalised returns,
Adam 0.01, masked window) it splits the cleaned trace as the pipeline does, trains one episode of
``--jobs`` jobs with each encoder and plays the next ``--jobs`` jobs greedily, then prints
decisions per second (training and inference) with the time split into encoder, rest of the env
and agent, and the extrapolated cost of the default config's sem section at these rates.

    OMP_NUM_THREADS=1 python benchmarks/bench_sem_agents.py [--trace theta] [--jobs 300]
"""

from __future__ import annotations

import argparse
import json
import tempfile
from pathlib import Path

import yaml

from schedrl.papers.sem import agents as A
from schedrl.workloads.splits import sem_split
from schedrl.workloads.swf import read_swf, write_swf


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trace", default="theta", help="key of workloads.traces (default theta)")
    ap.add_argument("--jobs", type=int, default=300, help="jobs of the training episode and of the test")
    ap.add_argument("--encoders", nargs="+", default=list(A.ENCODERS))
    ap.add_argument("--config", default="config/config.yaml")
    ap.add_argument("--swf", help="trace file (default: results/workloads/traces/<trace>.swf, the cleaned one)")
    args = ap.parse_args()
    config = yaml.safe_load(Path(args.config).read_text())
    agents = config["sem"]["agents"]
    tcfg = agents["networks"][args.trace]
    frame = read_swf(args.swf or f"results/workloads/traces/{args.trace}.swf")
    parts, manifest = sem_split(frame, train_jobs=2 * args.jobs, episode_jobs=args.jobs, val_jobs=1, test_jobs=args.jobs)
    rates = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, part in parts.items():
            write_swf(part, Path(tmp) / f"{name}.swf")
        (Path(tmp) / "split.json").write_text(json.dumps({**manifest, "episodes": 1}))
        for encoder in args.encoders:
            spec = A.AgentSpec(trace=args.trace, encoder=encoder, nodes=int(tcfg["nodes"]), k=int(tcfg["k"]),
                               hidden=list(tcfg["hidden"][encoder]), reward=tcfg["reward"],
                               hyperparams=dict(agents["hyperparams"]), threads=1)
            out = Path(tmp) / encoder
            timing = A.train_agent(tmp, spec, out, episodes=1)
            test = A.read_json(out / "test.json")
            train_rate = timing["steps"] / timing["trainer_s"]
            infer_rate = test["decisions"] / test["wall_s"]
            rates[encoder] = (train_rate, infer_rate, timing["steps"] / args.jobs, test["decisions"] / len(parts["test"]))
            print(f"{args.trace} {encoder}: training {timing['steps']} decisions in {timing['trainer_s']:.1f} s "
                  f"= {train_rate:.1f} decisions/s (encoder {timing['encoder_s']:.2f} s, env {timing['env_s']:.2f} s, "
                  f"agent {timing['agent_s']:.1f} s, checkpoint I/O {timing['io_s']:.1f} s); inference "
                  f"{test['decisions']} decisions in {test['wall_s']:.1f} s = {infer_rate:.1f}/s (encoder "
                  f"{test['encoder_s']:.2f} s, env {test['env_s']:.2f} s, agent {test['agent_s']:.2f} s)")
    split = config["workloads"]["sem"]
    for encoder, (tr, ir, per_job, per_test_job) in rates.items():
        train_dec = split["train_jobs"] * per_job
        val_dec = split["val_jobs"] * per_test_job * split["train_jobs"] / split["episode_jobs"]
        test_dec = split["test_jobs"] * per_test_job
        hours = (train_dec / tr + (val_dec + test_dec) / ir) / 3600
        print(f"default scale, {args.trace} {encoder}: ~{hours:.2f} core-hours "
              f"({train_dec:,.0f} training decisions, {val_dec + test_dec:,.0f} validation and test decisions)")


if __name__ == "__main__":
    main()
