"""Figure of a workload's distributions: job size, runtime, inter-arrival time, load over time.

The plotted numbers are returned (and saved as CSV by ``save_figure``) in long form:
``panel, series, x, y``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from schedrl.plots import new_figure, save_figure
from schedrl.workloads.table import machine_size


def workload_summary(frame: pd.DataFrame) -> dict:
    """Headline statistics of a job table (sizes from req_procs, times in seconds)."""
    n = frame["req_procs"].to_numpy()
    r = frame["run_time"].to_numpy()
    s = frame["submit_time"].to_numpy()
    size = machine_size(frame, default=int(n.max()) if len(n) else 1)
    span = float(s[-1] - s[0]) if len(s) > 1 else 0.0
    gaps = np.diff(s)
    return {
        "jobs": int(len(frame)),
        "machine_size": int(size),
        "serial_share": float(np.mean(n == 1)) if len(n) else 0.0,
        "mean_size": float(n.mean()) if len(n) else 0.0,
        "median_runtime_s": float(np.median(r)) if len(r) else 0.0,
        "mean_runtime_s": float(r.mean()) if len(r) else 0.0,
        "mean_interarrival_s": float(gaps.mean()) if len(gaps) else 0.0,
        "span_days": span / 86_400,
        "offered_load": float((n * r).sum() / (size * span)) if span > 0 else float("nan"),
    }


def _hist(values: np.ndarray, bins: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    counts, edges = np.histogram(values, bins=bins)
    share = counts / max(len(values), 1)
    return edges, share


def plot_workload(frame: pd.DataFrame, png, title: str) -> pd.DataFrame:
    """Draw the four panels and save ``png`` (+ .pdf, .csv). Returns the plotted data."""
    n = frame["req_procs"].to_numpy().astype(float)
    r = frame["run_time"].to_numpy().astype(float)
    s = frame["submit_time"].to_numpy().astype(float)
    size = machine_size(frame, default=int(n.max()) if len(n) else 1)
    rows = []
    fig, axes = new_figure(2, 2, figsize=(10.0, 7.2))
    (ax_size, ax_run), (ax_gap, ax_load) = axes

    top = max(np.log2(max(size, 2)), 1.0)
    edges, share = _hist(np.log2(np.maximum(n, 1)), np.arange(0, np.ceil(top) + 1.5, 0.5) - 0.25)
    centres = 2 ** ((edges[:-1] + edges[1:]) / 2)
    ax_size.bar(np.arange(len(share)), share, width=0.9, color="C0", label=f"{len(n):,} jobs")
    ticks = np.arange(0, len(share), 2)
    ax_size.set_xticks(ticks, [f"{c:.0f}" for c in centres[ticks]], rotation=45)
    ax_size.set(xlabel="job size (processors or nodes, log2 bins)", ylabel="share of jobs",
                title="Job size")
    ax_size.legend()
    rows += [("size", "share", float(c), float(v)) for c, v in zip(centres, share)]

    logr = np.log10(np.maximum(r, 1))
    edges, share = _hist(logr, np.linspace(0, max(logr.max() if len(logr) else 1, 1) + 0.1, 41))
    mids = 10 ** ((edges[:-1] + edges[1:]) / 2)
    ax_run.step(mids, share, where="mid", color="C1", label=f"median {np.median(r) if len(r) else 0:,.0f} s")
    if "req_time" in frame and (frame["req_time"] > 0).any() and not frame["req_time"].equals(frame["run_time"]):
        req = np.log10(np.maximum(frame["req_time"].to_numpy(float), 1))
        _, share_req = _hist(req, edges)
        ax_run.step(mids, share_req, where="mid", color="C3", ls="--", label="requested time")
        rows += [("runtime", "requested", float(m), float(v)) for m, v in zip(mids, share_req)]
    ax_run.set_xscale("log")
    ax_run.set(xlabel="runtime (s, log scale)", ylabel="share of jobs", title="Runtime")
    ax_run.legend()
    rows += [("runtime", "runtime", float(m), float(v)) for m, v in zip(mids, share)]

    gaps = np.diff(s)
    if len(gaps):
        g = np.sort(np.maximum(gaps, 0.5))
        cdf = np.arange(1, len(g) + 1) / len(g)
        idx = np.unique(np.linspace(0, len(g) - 1, min(len(g), 400)).astype(int))
        ax_gap.plot(g[idx], cdf[idx], color="C2", label=f"mean {gaps.mean():,.0f} s")
        rows += [("interarrival", "cdf", float(g[i]), float(cdf[i])) for i in idx]
    ax_gap.set_xscale("log")
    ax_gap.set(xlabel="inter-arrival time (s, log scale; 0 shown as 0.5)", ylabel="cumulative share",
               title="Inter-arrival time")
    ax_gap.legend()

    if len(s) > 1:
        start, end = s[0], s[-1]
        # about 60 bins, each a whole number of hours (days for long traces: 24 h multiples)
        hours = max(1, int(np.ceil((end - start) / 60 / 3600)))
        if hours > 12:
            hours = 24 * int(np.ceil(hours / 24))
        bin_s = 3600 * hours
        bins = start + bin_s * np.arange(int(np.floor((end - start) / bin_s)) + 2)
        demand, _ = np.histogram(s, bins=bins, weights=n * r)
        load = demand / (size * np.diff(bins))
        days = (bins[:-1] - start) / 86_400
        width = np.diff(bins)[0] / 86_400
        ax_load.bar(days, load, width=width, align="edge", color="C4", alpha=0.8,
                    label=f"overall {(n * r).sum() / (size * (end - start)):.2f}")
        ax_load.axhline(1.0, color="k", lw=0.8, ls=":")
        rows += [("load", "offered", float(d), float(v)) for d, v in zip(days, load)]
    bin_text = f"{bin_s // 3600} h" if len(s) > 1 else "-"
    ax_load.set(xlabel=f"submit time (days since the first job; bins of {bin_text})",
                ylabel="offered load (node-s demand / node-s capacity)", title="Load over time")
    ax_load.legend()
    fig.suptitle(title)
    data = pd.DataFrame(rows, columns=["panel", "series", "x", "y"])
    save_figure(fig, png, data)
    return data


def scenario_loads(frame: pd.DataFrame) -> dict:
    """Offered load of each resource of an MRSch scenario: demand / capacity over the submit span.

    Nodes: sum(nodes x runtime); burst buffer: sum(units x runtime); power: sum(nodes x W x runtime)
    against the system power budget (PowerBudgetWatts).
    """
    header = frame.attrs.get("header") or {}
    n = frame["req_procs"].to_numpy(float)
    r = frame["run_time"].to_numpy(float)
    s = frame["submit_time"].to_numpy(float)
    span = float(s[-1] - s[0]) if len(s) > 1 else float("nan")
    size = machine_size(frame, default=int(n.max()) if len(n) else 1)
    out = {"jobs": len(frame), "nodes": float((n * r).sum() / (size * span))}
    if "bb_request" in frame:
        bb = np.nan_to_num(frame["bb_request"].to_numpy(float))
        units = float(header.get("MaxBurstBufferUnits", "nan"))
        out["bb_share"] = float(np.mean(bb > 0))
        out["burst_buffer"] = float((bb * r).sum() / (units * span))
    if "power_per_node" in frame and "PowerBudgetWatts" in header:
        watts = np.nan_to_num(frame["power_per_node"].to_numpy(float))
        budget = float(header["PowerBudgetWatts"])
        out["power"] = float((n * watts * r).sum() / (budget * span))
    return out


def plot_scenarios(frames: dict[str, pd.DataFrame], png, title: str) -> pd.DataFrame:
    """Burst-buffer request sizes (CDF) and offered load per resource for MRSch scenarios."""
    fig, (ax_cdf, ax_load) = new_figure(1, 2, figsize=(11.0, 4.2))
    rows = []
    names = list(frames)
    for i, name in enumerate(names):
        frame = frames[name]
        loads = scenario_loads(frame)
        for key in ("nodes", "burst_buffer", "power"):
            if key in loads:
                rows.append(("load", name, key, loads[key]))
        if "bb_request" not in frame:
            continue
        header = frame.attrs.get("header") or {}
        unit_tb = float(header.get("BurstBufferUnitTB", "nan"))
        tb = np.sort(frame["bb_request"].dropna().to_numpy(float)) * unit_tb
        if len(tb) and not (name.startswith("S") and name[1:].isdigit() and int(name[1:]) > 5):
            cdf = np.arange(1, len(tb) + 1) / len(tb)
            idx = np.unique(np.linspace(0, len(tb) - 1, min(len(tb), 300)).astype(int))
            ax_cdf.step(tb[idx], cdf[idx], where="post", color=f"C{i}",
                        label=f"{name}: {loads['bb_share']:.0%} of jobs")
            rows += [("bb_cdf", name, float(tb[j]), float(cdf[j])) for j in idx]
    ax_cdf.set_xscale("log")
    ax_cdf.set(xlabel="burst-buffer request (TB, log scale)", ylabel="cumulative share of requests",
               title="Burst-buffer request sizes")
    ax_cdf.legend(fontsize=8)
    resources = [k for k in ("nodes", "burst_buffer", "power") if any(r[2] == k for r in rows if r[0] == "load")]
    width = 0.8 / max(len(resources), 1)
    for j, key in enumerate(resources):
        vals = [next((r[3] for r in rows if r[0] == "load" and r[1] == name and r[2] == key), np.nan)
                for name in names]
        ax_load.bar(np.arange(len(names)) + (j - (len(resources) - 1) / 2) * width, vals, width=width,
                    label=key.replace("_", " "), color=f"C{j}")
    ax_load.axhline(1.0, color="k", lw=0.8, ls=":")
    ax_load.set_xticks(np.arange(len(names)), names)
    top = max([r[3] for r in rows if r[0] == "load"] + [1.0])
    ax_load.set_ylim(0, top * 1.3)
    ax_load.set(xlabel="scenario", ylabel="offered load (demand / capacity)", title="Contention per resource")
    ax_load.legend(loc="upper center", ncols=3)
    fig.suptitle(title)
    data = pd.DataFrame(rows, columns=["panel", "series", "x", "y"])
    save_figure(fig, png, data)
    return data
