"""Cluster description and the conversion of a job table into the simulator's integer arrays.

Resources are a vector of capacities, one entry per *dimension*: nodes always, then burst-buffer
units when the cluster has a burst buffer, then power when it has a power budget. Every dimension
is held as exact integers (power in milliwatts) so that sums and differences never drift and
"over capacity" is a plain integer comparison.

Power model: a node draws ``idle_power`` watts when free and ``max(power_per_node, idle_power)``
when a job runs on it. The budget bounds the whole machine's draw, so the dimension's capacity is
``power_budget - nodes * idle_power`` (the head room above an idle machine) and a job of ``n``
nodes consumes ``n * max(power_per_node - idle_power, 0)`` of it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from schedrl.errors import SchedrlError

MILLI = 1000  # power is held in integer milliwatts


@dataclass(frozen=True)
class ClusterSpec:
    """A homogeneous cluster: ``nodes`` nodes, optional burst buffer and power budget.

    ``bb_units`` 0 means no burst buffer; ``power_budget`` 0 means no power constraint
    (``idle_power`` is then only used by the power-utilisation metric). Power in watts.
    """

    nodes: int
    bb_units: int = 0
    power_budget: float = 0.0
    idle_power: float = 0.0

    def __post_init__(self):
        if int(self.nodes) != self.nodes or self.nodes < 1:
            raise SchedrlError(f"cluster needs a positive whole number of nodes, got {self.nodes}")
        if self.bb_units < 0 or self.power_budget < 0 or self.idle_power < 0:
            raise SchedrlError("cluster burst buffer, power budget and idle power must be >= 0")
        if self.power_budget and self.power_budget < self.nodes * self.idle_power:
            raise SchedrlError(
                f"power budget {self.power_budget} W is below the idle draw of the machine "
                f"({self.nodes} x {self.idle_power} W)")

    @property
    def dims(self) -> tuple[str, ...]:
        """Names of the simulated resource dimensions, in array order."""
        out = ["nodes"]
        if self.bb_units:
            out.append("bb")
        if self.power_budget:
            out.append("power")
        return tuple(out)

    def capacity(self) -> np.ndarray:
        """Integer capacity per dimension (power as milliwatts of head room above idle)."""
        cap = [int(self.nodes)]
        if self.bb_units:
            cap.append(int(self.bb_units))
        if self.power_budget:
            cap.append(int(round((self.power_budget - self.nodes * self.idle_power) * MILLI)))
        return np.asarray(cap, dtype=np.int64)


@dataclass
class JobArrays:
    """The simulator's view of a workload, sorted by submit time (stable on the input order).

    ``order[k]`` is the input row of simulated job ``k``; ``demand`` has one column per
    ``ClusterSpec.dims`` entry. ``run_time`` is what the simulation will run (already cut at the
    request under ``overrun="kill"``). ``estimate`` is the ``runtime_estimate`` column where given,
    else the simulated runtime (the runtime paper trains on actual runtimes).
    """

    order: np.ndarray
    job_id: np.ndarray
    submit: np.ndarray
    req_time: np.ndarray
    run_time: np.ndarray
    req_procs: np.ndarray
    bb: np.ndarray
    power: np.ndarray
    estimate: np.ndarray
    demand: np.ndarray
    notes: dict = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.submit)


def _column(jobs: pd.DataFrame, name: str, default: float = 0.0) -> np.ndarray:
    if name not in jobs.columns:
        return np.full(len(jobs), default, dtype=np.float64)
    values = pd.to_numeric(jobs[name], errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    return np.where(np.isnan(values), default, values)


BACKFILL_MODES = ("none", "easy", "conservative", "greedy")
OVERRUN_MODES = ("kill", "continue")
OVERRUN_HELP = ("a job running longer than its requested walltime is killed at the request "
                "(kill, as production schedulers do; default) or runs on to its actual runtime "
                "(continue)")


def job_arrays(jobs: pd.DataFrame, cluster: ClusterSpec, overrun: str = "kill") -> JobArrays:
    """Validate a job table against ``cluster`` and convert it to sorted integer/float arrays.

    Missing requested times (<= 0, as in the Lublin files) fall back to the actual runtime
    (perfect estimates) and missing requested sizes to the allocated size; both are counted in
    ``notes``. A job larger than the machine in any dimension raises ``SchedrlError``.
    """
    if overrun not in OVERRUN_MODES:
        raise SchedrlError(f"unknown overrun mode '{overrun}' (use one of {', '.join(OVERRUN_MODES)})")
    for col in ("job_id", "submit_time", "run_time", "req_procs", "req_time"):
        if col not in jobs.columns:
            raise SchedrlError(f"job table lacks column '{col}'")
    n = len(jobs)
    job_id = _column(jobs, "job_id", -1).astype(np.int64)
    submit = _column(jobs, "submit_time", np.nan)
    run = _column(jobs, "run_time", np.nan)
    for name, invalid in (("submit time", np.isnan(submit) | (submit < 0)), ("runtime", np.isnan(run))):
        bad = np.flatnonzero(invalid)
        if len(bad):
            raise SchedrlError(f"job {job_id[bad[0]]} has no valid {name}; {len(bad)} job(s) affected")
    req_time = _column(jobs, "req_time", -1.0)
    procs = _column(jobs, "req_procs", -1.0)
    notes: dict = {}
    if (procs <= 0).any():
        alloc = _column(jobs, "alloc_procs", -1.0)
        fix = procs <= 0
        notes["size_from_alloc_procs"] = int(fix.sum())
        procs = np.where(fix, alloc, procs)
    bad = np.flatnonzero(procs <= 0)
    if len(bad):
        raise SchedrlError(f"job {job_id[bad[0]]} has no requested or allocated size")
    if (req_time <= 0).any():
        fix = req_time <= 0
        notes["walltime_from_runtime"] = int(fix.sum())
        req_time = np.where(fix, np.maximum(run, 0.0), req_time)
    if (run < 0).any():
        notes["negative_runtime_set_to_0"] = int((run < 0).sum())
        run = np.maximum(run, 0.0)
    if overrun == "kill":
        notes["killed_at_walltime"] = int((run > req_time).sum())
        run = np.minimum(run, req_time)
    estimate = _column(jobs, "runtime_estimate", np.nan)
    estimate = np.where(np.isnan(estimate), run, np.maximum(estimate, 0.0))
    bb = np.maximum(_column(jobs, "bb_request"), 0.0)
    power = np.maximum(_column(jobs, "power_per_node"), 0.0)

    cols = [procs.round().astype(np.int64)]
    if cluster.bb_units:
        cols.append(np.ceil(bb).astype(np.int64))
    if cluster.power_budget:
        over_idle = np.maximum(power - cluster.idle_power, 0.0)
        cols.append(np.round(cols[0] * over_idle * MILLI).astype(np.int64))
    demand = np.stack(cols, axis=1) if n else np.zeros((0, len(cols)), dtype=np.int64)
    cap = cluster.capacity()
    too_big = np.flatnonzero((demand > cap).any(axis=1))
    if len(too_big):
        k = too_big[0]
        d = int(np.argmax(demand[k] > cap))
        label = {"nodes": "nodes", "bb": "burst-buffer units", "power": "power (mW above idle)"}
        raise SchedrlError(
            f"job {job_id[k]} needs more {label[cluster.dims[d]]} than the cluster has "
            f"({demand[k][d]} > {cap[d]}); {len(too_big)} job(s) do not fit")

    order = np.argsort(submit, kind="stable")
    return JobArrays(
        order=order,
        job_id=job_id[order],
        submit=submit[order],
        req_time=req_time[order],
        run_time=run[order],
        req_procs=cols[0][order],
        bb=bb[order],
        power=power[order],
        estimate=estimate[order],
        demand=np.ascontiguousarray(demand[order]),
        notes=notes,
    )
