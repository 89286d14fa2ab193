"""The paper-scale plan: SLURM jobs, core-hours, memory and wall time per paper, and the whole DAG's
makespan on a 64-core allocation, from the DAG Snakemake builds for ``config/paper.yaml``.

Every job's ``threads`` and ``resources`` (``mem_mb``, ``runtime`` in minutes) are what the rule
declares, i.e. what the SLURM profile asks for; rules derive ``runtime`` from the measured rates in
the config comments and the papers' cost models (``schedrl deeprm|mdp|runtime|mrsch cost``), with margins,
so the numbers are upper bounds of what a paper-scale run takes on today's CPU cores. The makespan
is a list schedule of the DAG (a job starts once its inputs exist and its threads are free,
longest remaining path first) on ``--cores`` cores; a job needing more than a day of wall time is
listed as a GPU candidate.

    python scripts/paper_scale_plan.py                         # runs `snakemake all -n`, prints markdown
    python scripts/paper_scale_plan.py --dryrun FILE --out docs/paper-scale-plan.md
    python scripts/paper_scale_plan.py --overlay config/paper-halving.yaml --out docs/paper-scale-plan.md

``--overlay YAML`` adds a paragraph with the same DAG built with the overlay given after the config
(e.g. successive halving over runtime's grid, beyond the paper): its jobs, core-hours and makespan.
"""

from __future__ import annotations

import argparse
import heapq
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

PAPERS = ("deeprm", "mdp", "mrsch", "runtime", "sem")
REPO = Path(__file__).resolve().parents[1]


def parse_dryrun(text: str) -> list[dict]:
    """Jobs of a ``snakemake -n`` listing: rule, inputs, outputs, threads, mem_mb, runtime (min)."""
    jobs, job = [], None
    for line in text.splitlines():
        m = re.match(r"^(?:local)?rule (\w+):\s*$", line)
        if m:
            job = {"rule": m.group(1), "input": [], "output": [], "threads": 1, "mem_mb": 0, "runtime": 0}
            jobs.append(job)
            continue
        if job is None or not line.startswith("    "):
            if line.strip() == "" or line.startswith("["):
                job = None if line.strip() == "" else job
            continue
        key, _, value = line.strip().partition(": ")
        if key in ("input", "output"):
            job[key] = [v.strip() for v in value.split(", ") if v.strip()]
        elif key == "threads":
            job["threads"] = int(value)
        elif key == "resources":
            for part in value.split(", "):
                k, _, v = part.partition("=")
                if k in ("mem_mb", "runtime"):
                    try:
                        job[k] = int(float(v))
                    except ValueError:
                        pass
    return [j for j in jobs if j["rule"] not in ("all", *PAPERS, "workloads", "score", "report")]


def paper_of(rule: str) -> str:
    for p in PAPERS:
        if rule.startswith(p + "_"):
            return p
    if rule.startswith("score_"):
        return "score"
    return "report" if rule.startswith("reproduction") else "workloads"


def makespan(jobs: list[dict], cores: int) -> float:
    """Minutes to run ``jobs`` (a DAG through their files) on ``cores`` cores, list-scheduled with
    the longest remaining path first."""
    producer = {out: i for i, j in enumerate(jobs) for out in j["output"]}
    deps = [{producer[f] for f in j["input"] if f in producer} for j in jobs]
    children = defaultdict(list)
    for i, d in enumerate(deps):
        for k in d:
            children[k].append(i)
    # longest path from each job to the end (minutes), computed in reverse topological order
    order, indeg = [], [len(d) for d in deps]
    stack = [i for i, n in enumerate(indeg) if n == 0]
    while stack:
        i = stack.pop()
        order.append(i)
        for c in children[i]:
            indeg[c] -= 1
            if indeg[c] == 0:
                stack.append(c)
    rank = [0.0] * len(jobs)
    for i in reversed(order):
        rank[i] = jobs[i]["runtime"] + max((rank[c] for c in children[i]), default=0.0)
    waiting = [len(d) for d in deps]
    ready = [(-rank[i], i) for i, n in enumerate(waiting) if n == 0]
    heapq.heapify(ready)
    running: list[tuple[float, int]] = []
    free, now, done = cores, 0.0, 0
    while done < len(jobs):
        blocked = []
        while ready:
            pr, i = heapq.heappop(ready)
            need = min(cores, jobs[i]["threads"])
            if need <= free:
                free -= need
                heapq.heappush(running, (now + jobs[i]["runtime"], i))
            else:
                blocked.append((pr, i))
        for b in blocked:
            heapq.heappush(ready, b)
        if not running:
            raise RuntimeError("DAG has a cycle or an unsatisfiable job")
        now, i = heapq.heappop(running)
        free += min(cores, jobs[i]["threads"])
        done += 1
        for c in children[i]:
            waiting[c] -= 1
            if waiting[c] == 0:
                heapq.heappush(ready, (-rank[c], c))
    return now


def cost_models(configs: str | list[str]) -> dict[str, tuple[float, str]]:
    """The papers' own cost models (``schedrl PAPER cost``): core-hours and the line printed."""
    configs = [configs] if isinstance(configs, str) else list(configs)
    out = {}
    for paper in ("deeprm", "mdp", "mrsch", "runtime"):
        proc = subprocess.run([sys.executable, "-m", "schedrl.cli", paper, "cost", "--spec", *configs],
                              cwd=REPO, capture_output=True, text=True)
        text = (proc.stdout or proc.stderr).strip().splitlines()
        line = text[-1] if text else "(no output)"
        m = re.search(r"~([\d,.]+) core-hours", line)
        out[paper] = (float(m.group(1).replace(",", "")) if m else float("nan"), line)
    return out


#: issue 72's bar: the paper scale's expected makespan on one 64-core allocation, in hours
GOAL_HOURS = 24


def runtime_lever(config: str | Path = REPO / "config" / "paper.yaml") -> str:
    """What would shorten runtime's Table 3 grid, from its cost model's measured update share
    (``schedrl.papers.runtime.experiments.UPDATE_SHARE_K4``, benchmarks/bench_runtime_update.py)."""
    import yaml

    sys.path.insert(0, str(REPO / "src"))
    from schedrl.papers.runtime import experiments as rx

    grid = yaml.safe_load(Path(config).read_text())["runtime"]["agents"]["grid"]
    ks, batches = grid["n_epochs"], grid["batch_size"]
    mean_k = sum(ks) / len(ks)
    f = rx.UPDATE_SHARE_K4.values()
    shares = [x * mean_k / 4 / (1 - x + x * mean_k / 4) for x in f]
    points = len(grid["n_steps"]) * len(batches) * len(ks)
    return (f"its Table 3 grid ({points} points per half and method, the paper's own tuning: a deviation to "
            "cut, by successive halving over the points: `config/paper-halving.yaml`, below), and its update: a step's update is "
            f"{min(f):.0%}-{max(f):.0%} of it at K 4 and {min(shares):.0%}-{max(shares):.0%} at the grid's mean K "
            f"of {mean_k:.2f}, run at this CPU's own matrix-product rate (`benchmarks/bench_runtime_update.py`: "
            f"no CPU kernel gives more), so its products (minibatches of {min(batches):,}-{max(batches):,} "
            "through the 1,024- and 2,048-wide trunks) are where a GPU shortens it: by at most "
            f"x{1 / (1 - max(shares)):.1f} with the rollout left on the CPU (the paper trained on ABCI's GPUs)")


LEVERS = {"runtime": runtime_lever}


def goal_text(makespan_h: float, expected: dict[str, float], cores: int) -> str:
    """The plan against issue 72's bar: met, or the largest expected cost named with its lever."""
    if makespan_h <= GOAL_HOURS:
        return (f"Issue 72's goal, an expected makespan of at most {GOAL_HOURS} h on {cores} cores: met "
                f"({makespan_h:.1f} h).")
    paper, ch = max(expected.items(), key=lambda kv: kv[1])
    lever = LEVERS[paper]() if paper in LEVERS else "no lever measured yet"
    return (f"Issue 72's goal, an expected makespan of at most {GOAL_HOURS} h on {cores} cores: not met "
            f"({makespan_h:.1f} h). The largest expected cost is {paper}'s ({ch:,.0f} of "
            f"{sum(expected.values()):,.0f} core-hours, {ch / sum(expected.values()):.0%}); its levers: {lever}.")


def survival(job: dict, halving: tuple[int, int] | None) -> float:
    """The share of a job's request that successive halving expects it to use: a run's rung r job
    trains only if its point survived rung r - 1 (``halving``: (eta, rungs) of runtime's overlay; the
    last rung is ``runtime_train``); every other job 1."""
    if halving is None:
        return 1.0
    eta, rungs = halving
    if job["rule"] == "runtime_train_rung":
        rung = int(next(Path(o).stem for o in job["output"] if "/rungs/" in o))
    elif job["rule"] == "runtime_train":
        rung = rungs - 1
    else:
        return 1.0
    return 1.0 / eta ** rung  # ceil(n / eta) per rung: about n / eta**r points trained at rung r


def expected_jobs(jobs: list[dict], costs: dict, halving: tuple[int, int] | None = None
                  ) -> tuple[list[dict], dict[str, float]]:
    """Every job with its expected minutes: its paper's cost model spread over the paper's jobs in
    proportion to their requests, each weighted by the share of it expected to run (``survival``;
    no model: as requested); and the expected core-hours per paper."""
    by_paper = defaultdict(list)
    for j in jobs:
        by_paper[paper_of(j["rule"])].append(j)
    out, expected = [], {}
    for paper, js in by_paper.items():
        weighted = [j["runtime"] * survival(j, halving) for j in js]
        ch = sum(j["threads"] * w for j, w in zip(js, weighted, strict=True)) / 60
        model = costs.get(paper, (float("nan"), ""))[0]
        factor = model / ch if ch and model == model else 1.0
        out += [dict(j, runtime=w * factor) for j, w in zip(js, weighted, strict=True)]
        expected[paper] = ch * factor
    return out, expected


def halving_of(overlay: str | Path) -> tuple[int, int] | None:
    """(eta, rungs) of ``runtime.agents.halving`` in an overlay file (``experiments.halving_settings``);
    None for a check run (``halving.check``: every point trains every rung, no job is expected to skip)."""
    import yaml

    sys.path.insert(0, str(REPO / "src"))
    from schedrl.papers.runtime import experiments as rx

    runtime = (yaml.safe_load(Path(overlay).read_text()) or {}).get("runtime") or {}
    return None if rx.halving_check(runtime) else rx.halving_settings(runtime)


def overlay_text(overlay: str, jobs: list[dict], cores: int, costs: dict) -> str:
    """One paragraph: the DAG with ``overlay`` given after the config, against issue 72's bar."""
    scaled, expected = expected_jobs(jobs, costs, halving_of(REPO / overlay))
    requested = sum(j["threads"] * j["runtime"] for j in jobs) / 60
    span = makespan(scaled, cores) / 60
    verdict = "met" if span <= GOAL_HOURS else "not met"
    runtime = costs.get("runtime", (0, ""))[1]
    return (f"With `{overlay}` given after it (beyond the paper: successive halving over runtime's Table 3 grid, "
            "`schedrl.papers.runtime.halving`; a point that trains to the end is bit for bit the full grid's run, "
            "and the paper's rule picks among those that did): "
            f"{len(jobs):,} SLURM jobs, {requested:,.0f} core-hours requested, {sum(expected.values()):,.0f} expected; "
            f"makespan on {cores} cores {makespan(jobs, cores) / 60:,.1f} h requested, {span:,.1f} h expected: "
            f"issue 72's goal of {GOAL_HOURS} h {verdict}. `schedrl runtime cost` with it: {runtime} (Expected "
            "spreads each paper's model over its jobs by their requests, a rung r job's weighted by the share of "
            "points expected to reach it, 1/eta^r: a pruned point's later jobs end at once.)")


def plan(jobs: list[dict], cores: int, costs: dict | None = None, overlays: list[str] = ()) -> str:
    costs = costs or {}
    by_paper = defaultdict(list)
    for j in jobs:
        by_paper[paper_of(j["rule"])].append(j)
    lines = ["| paper | SLURM jobs | core-hours requested | core-hours expected | largest memory (GB) | "
             "longest job requested (h) | makespan alone on "
             f"{cores} cores, requested / expected (h) |", "|---|---:|---:|---:|---:|---:|---:|"]
    scaled_all, expected = expected_jobs(jobs, costs)
    for paper in (*PAPERS, "workloads", "score", "report"):
        js = by_paper.get(paper)
        if not js:
            continue
        ch = sum(j["threads"] * j["runtime"] for j in js) / 60
        scaled = [j for j in scaled_all if paper_of(j["rule"]) == paper]
        factor = expected[paper] / ch if ch else 1.0
        longest = max(js, key=lambda j: j["runtime"])
        lines.append(f"| {paper} | {len(js):,} | {ch:,.0f} | {ch * factor:,.0f}{'' if paper in costs else ' (as requested)'} | "
                     f"{max(j['mem_mb'] for j in js) / 1000:.1f} | "
                     f"{longest['runtime'] / 60:.1f} ({longest['rule']}) | "
                     f"{makespan(js, cores) / 60:,.1f} / {makespan(scaled, cores) / 60:,.1f} |")
    total = sum(j["threads"] * j["runtime"] for j in jobs) / 60
    total_exp = sum(j["threads"] * j["runtime"] for j in scaled_all) / 60
    lines.append(f"| **all** | {len(jobs):,} | {total:,.0f} | {total_exp:,.0f} | "
                 f"{max(j['mem_mb'] for j in jobs) / 1000:.1f} | {max(j['runtime'] for j in jobs) / 60:.1f} | "
                 f"{makespan(jobs, cores) / 60:,.1f} / {makespan(scaled_all, cores) / 60:,.1f} |")
    per_rule = defaultdict(lambda: [0, 0.0, 0, 0, 0])
    for j in jobs:
        r = per_rule[j["rule"]]
        r[0] += 1
        r[1] += j["threads"] * j["runtime"] / 60
        r[2] = max(r[2], j["runtime"])
        r[3] = max(r[3], j["mem_mb"])
        r[4] = max(r[4], j["threads"])
    rule_lines = ["| rule | jobs | threads | core-hours | longest job (h) | memory (GB) |",
                  "|---|---:|---:|---:|---:|---:|"]
    for rule, (n, ch, longest, mem, threads) in sorted(per_rule.items(), key=lambda kv: (-round(kv[1][1], 6), kv[0])):
        if ch >= 1 or longest >= 60:
            rule_lines.append(f"| {rule} | {n:,} | {threads} | {ch:,.0f} | {longest / 60:.1f} | {mem / 1000:.1f} |")
    gpu = sorted({j["rule"] for j in jobs if j["runtime"] > 24 * 60})
    gpu_exp = sorted({j["rule"] for j in scaled_all if j["runtime"] > 24 * 60})
    longest_exp = {r: max(j["runtime"] for j in scaled_all if j["rule"] == r) / 60 for r in gpu_exp}
    gpu_text = (", ".join(f"`{r}`" for r in gpu) + " request more than 24 h for at least one job; expected "
                "(cost models) over 24 h: " + (", ".join(f"`{r}` ({longest_exp[r]:.0f} h)" for r in gpu_exp)
                                               or "none")) if gpu else "none: no job requests more than 24 h"
    return "\n".join([
        "# Paper-scale plan",
        "",
        "Generated by `python scripts/paper_scale_plan.py --out docs/paper-scale-plan.md` from the DAG of "
        "`snakemake all -n --configfile config/paper.yaml`: each job's `threads`, `mem_mb` and `runtime` "
        "as its rule declares them (what `workflow/profiles/slurm` asks SLURM for). The rules derive "
        "`runtime` from the measured rates in the config comments and the cost models "
        "(`schedrl deeprm|mdp|runtime|mrsch cost --spec config/paper.yaml`) with margins, so these are upper "
        "bounds; `schedrl budget` after a run gives what was actually used. Makespan: a list schedule "
        f"of the DAG on one {cores}-core allocation (a job starts once its inputs exist and its "
        "threads are free, longest remaining path first).",
        "",
        *lines,
        "",
        "Rules with at least one core-hour or one hour of wall time:",
        "",
        *rule_lines,
        "",
        goal_text(makespan(scaled_all, cores) / 60, expected, cores),
        "",
        *(line for text in overlays for line in (text, "")),
        f"Jobs longer than a day on one CPU core: {gpu_text}. A GPU would not shorten most of them: these "
        "agents are small networks (DeepRM's 20-unit layer, 64-64 MLPs) whose time goes into stepping "
        "the simulator on the CPU (README, On a SLURM cluster); runtime's wide trunk is the exception "
        "(above). To finish in a day, split their steps "
        "over more env copies (`n_envs`) and threads, or over checkpointed jobs (a rerun resumes).",
        "",
        "Requested: the rules' `runtime` (SLURM time limits, with margins). Expected: the paper's cost "
        "model below spread over its jobs in proportion to their requests (deeprm and sem have no cost "
        "command: as requested). The papers' cost models (measured env-step and update rates, no margins):",
        "",
        *(f"- `schedrl {p} cost --spec config/paper.yaml`: {line}" for p, (_, line) in sorted(costs.items())),
        "",
    ])


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--config", default="config/paper.yaml")
    p.add_argument("--overlay", action="append", default=[], metavar="YAML",
                   help="also plan the DAG with this overlay after --config (a paragraph each; repeatable)")
    p.add_argument("--cores", type=int, default=64)
    p.add_argument("--dryrun", metavar="FILE", help="a saved `snakemake all -n` listing (default: run it)")
    p.add_argument("--out", metavar="MD", help="write the markdown here (default: print it)")
    args = p.parse_args(argv)
    if args.dryrun:
        text = Path(args.dryrun).read_text()
    else:
        text = subprocess.run([sys.executable, "-m", "snakemake", "all", "-n", "--configfile", args.config],
                              cwd=REPO, capture_output=True, text=True, check=True).stdout
    jobs = parse_dryrun(text)
    if not jobs:
        print("paper_scale_plan: no jobs in the dry run (is everything already built?)", file=sys.stderr)
        return 2
    overlays = []
    for overlay in args.overlay:
        listing = subprocess.run([sys.executable, "-m", "snakemake", "all", "-n", "--configfile", args.config, overlay],
                                 cwd=REPO, capture_output=True, text=True, check=True).stdout
        overlays.append(overlay_text(overlay, parse_dryrun(listing), args.cores, cost_models([args.config, overlay])))
    md = plan(jobs, args.cores, cost_models(args.config), overlays)
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(md)
    else:
        print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
