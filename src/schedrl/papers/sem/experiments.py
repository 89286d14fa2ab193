"""SEM section 3: how many jobs run at once, and how much the K largest of them cover.

``analyze_trace`` turns one cleaned trace (``results/workloads/traces/<key>.swf``, written by the
workload rule: the real log or its announced stand-in) into an analysis folder: ``summary.json``,
``running_cdf.csv``, ``k_largest.csv`` (and ``running_steps.csv`` on request). The schedule is
the recorded one (start = submit + wait) or, where most wait times are missing, an FCFS + EASY
simulation on the machine (``schedule="auto"``). The computations are the core's
(``schedrl.workloads.analysis``, ``schedrl.sim``); this module only decides what the paper needs.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import pandas as pd

from schedrl.errors import SchedrlError
from schedrl.io import write_csv, write_json
from schedrl.workloads import analysis as A

SCHEDULES = ("auto", "recorded", "simulated")


def load_spec(text: str) -> dict:
    """The ``sem`` config section from JSON text or a config YAML file, schema- and cross-checked
    (what ``schedrl tune sem --spec`` reads; sem's other steps take their values as options)."""
    from schedrl.config import load_section

    return check_spec(load_section(text, "sem"))


def check_spec(spec: dict) -> dict:
    """Cross-key checks the JSON schema cannot express; ConfigError names the key. So far the
    hyperparameter study's block (``sem.tune``: ``schedrl.papers.sem.tuning.tune_spec``)."""
    if "tune" in spec:
        from schedrl.papers.sem.tuning import tune_spec

        tune_spec(spec)
    return spec


def _cleaning_counts(note: str) -> dict:
    """The counts of the workload rule's ``schedrl cleaning: IN -> OUT jobs: k=v, ...`` header note."""
    import re

    match = re.match(r"schedrl cleaning: (\d+) -> (\d+) jobs(?:: (.*))?$", note)
    if not match:
        return {}
    counts = {"input_jobs": int(match[1]), "output_jobs": int(match[2])}
    for pair in (match[3] or "").split(", "):
        key, _, value = pair.partition("=")
        if key and value.isdigit():
            counts[key] = int(value)
    return counts


def load_schedule(jobs: pd.DataFrame, nodes: int, schedule: str = "auto", max_jobs: int = 0,
                  source: str = "") -> tuple[pd.DataFrame, dict]:
    """The schedule to analyse from a cleaned job table, and a description of where it came from."""
    from schedrl.workloads.traces import is_stand_in

    header = jobs.attrs.get("header") or {}
    if is_stand_in(jobs):
        info = {"source": str(header.get("StandIn", "synthetic")).split(" ")[0], "source_kind": "stand-in"}
    else:
        notes = header.get("Note", [])
        notes = notes if isinstance(notes, list) else [notes]
        text = next((str(n) for n in notes if str(n).startswith("schedrl cleaning: ")), "")
        info = {"source": source, "source_kind": "trace", "cleaning": _cleaning_counts(text)}
    info["jobs_in_source"] = len(jobs)
    info["max_jobs"] = 0  # recorded only when it cut the trace short
    if max_jobs and max_jobs < len(jobs):
        jobs = jobs.iloc[:max_jobs].reset_index(drop=True)
        info["max_jobs"] = max_jobs
    if schedule not in SCHEDULES:
        raise SchedrlError(f"unknown schedule '{schedule}' (choose from: {', '.join(SCHEDULES)})")
    mode = schedule
    if mode == "auto":
        mode = "simulated" if (jobs["wait_time"].to_numpy() < 0).mean() > 0.5 else "recorded"
    if mode == "recorded":
        table = A.schedule_from_trace(jobs)
    else:
        from schedrl.sim import ClusterSpec, simulate

        too_big = jobs["req_procs"].to_numpy() > nodes
        if too_big.any():
            raise SchedrlError(f"{int(too_big.sum())} job(s) of {info['source']} request more than {nodes} "
                               "nodes (the machine size)")
        sim = simulate(jobs, ClusterSpec(nodes=nodes), policy="fcfs", backfill="easy")
        table = A.schedule_from_simulation(sim)
        info["simulation"] = sim.attrs.get("sim", {})
    info.update(schedule=mode, jobs_read=len(jobs), dropped=table.attrs.get("dropped", {}))
    return table, info


def analyze_trace(path: str | Path, out_dir: str | Path, *, name: str, nodes: int, label: str | None = None,
                  unit: str = "nodes", schedule: str = "auto", max_jobs: int = 0, k_max: int = 80,
                  thresholds=A.PAPER_THRESHOLDS, source: str | None = None, steps: bool = False) -> dict:
    """Analyse one cleaned trace into ``out_dir``; returns the summary (also ``summary.json``)."""
    from schedrl.workloads.swf import read_swf

    if nodes < 1 or k_max < 1 or max_jobs < 0:
        raise SchedrlError("nodes and k_max must be positive, max_jobs >= 0")
    t0 = time.perf_counter()
    table, info = load_schedule(read_swf(path), nodes, schedule, max_jobs, source or Path(path).name)
    if table.empty:
        raise SchedrlError(f"trace '{path}' has no job with a start time and a positive run time")
    running = A.running_jobs(table)
    cdf = A.running_jobs_cdf(running)
    k_largest = A.k_largest_summary(table, range(0, k_max + 1), thresholds=thresholds)
    elapsed = time.perf_counter() - t0
    out = Path(out_dir)
    period = float(running["duration"].sum())
    summary = {
        "name": name, "label": label or name, "system_size": nodes, "unit": unit,
        **info, "jobs_analysed": len(table),
        "min_job_size": int(table["size"].min()), "max_job_size": int(table["size"].max()),
        "period_days": period / 86400, "max_running": A.max_running_jobs(running),
        "mean_running": float(np.average(running["running"], weights=running["duration"])),
        "p50_running": A.running_quantile(cdf, 0.5), "p99_running": A.running_quantile(cdf, 0.99),
        "mean_utilisation": float(np.average(running["allocated"], weights=running["duration"]) / nodes),
        "over_capacity_share": float(running.loc[running["allocated"] > nodes, "duration"].sum() / period),
        "thresholds": list(thresholds), "k_max": k_max,
    }
    write_csv(out / "running_cdf.csv", cdf)
    write_csv(out / "k_largest.csv", k_largest)
    if steps:
        write_csv(out / "running_steps.csv", running)
    write_json(out / "summary.json", summary)  # last: marks the folder complete
    print(f"{name}: {len(table):,} jobs ({summary['schedule']} schedule, {summary['source_kind']}), "
          f"max running {summary['max_running']}, p99 {summary['p99_running']}, "
          f"{len(table) / max(elapsed, 1e-9):,.0f} jobs/s")
    return summary
