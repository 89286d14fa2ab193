"""The Lublin-Feitelson workload model (JPDC 2003; reference program ``m_lublin99.c``), vectorised.

Procedure (constants in :data:`BATCH`, :data:`INTERACTIVE`, :data:`TYPELESS`; gamma(a, b) has
shape a, scale b):

* **Size.** ``u ~ U(0,1)``; ``u <= SERIAL_PROB`` gives 1 node. Otherwise ``par`` is a two-stage
  uniform (with probability UPROB on [ULOW, UMED], else on [UMED, UHI]); when
  ``u <= SERIAL_PROB + POW2_PROB`` it is rounded to an integer (a power-of-two size); the size is
  ``round(2 ** par)``, clipped to [min_nodes, max_nodes].
* **Runtime, tied to size.** ``p = clip(PA * nodes + PB, 0, 1)``; log-runtime ~ gamma(A1, B1) with
  probability p, else gamma(A2, B2), truncated at 12 (the model redraws larger values).
* **Arrivals.** log-gap ~ gamma(AARR * ARAR, BARR) truncated at 13; the gap ``exp(log-gap)`` is
  spent across the 48 half-hour buckets of a day in proportion to the bucket weights (daily
  cycle), so arrivals are denser where the weight is high. Bucket weights are gamma(ANUM, BNUM)
  CDF differences over bucket units starting at CYCLIC_DAY_START = 11, normalised to mean 1.
* **Streams.** With ``job_types`` the batch and interactive streams are generated separately and
  merged by arrival time (SWF queue field: 1 batch, 0 interactive); otherwise the typeless set is
  used (queue -1).

Truncations are sampled as in the model, by redrawing (vectorised: only the rejected values, a few
rounds). A runtime (or inter-arrival) cap ``M`` alone lowers the truncation point to
``min(model cap, log M)``. A cap with a mean ``m`` (the runtime paper's presets) scales the model's
values by the factor ``c`` for which the sample mean of ``c * exp(L)``, with ``L`` truncated at
``min(model cap, log(M / c))``, equals ``m`` exactly; there the truncated gamma is sampled by
inverting its CDF (``scipy.special``) so each draw is a smooth function of ``c``, and ``c`` is
found with Brent's method. ``load`` instead
stretches the arrival process so that the offered load sum(size * runtime) / (nodes * span) is
about the target.

Machine size: UHI = log2(max_nodes); UMED (and the interactive stream's UHI) move by the same
shift log2(max_nodes) - 7 (the constants describe a 128-node machine), UMED kept within
[UHI - 3.5, UHI - 1.5]; ``min_nodes`` raises ULOW to log2(min_nodes). A target serial share ``s``
sets SERIAL_PROB = s and scales POW2_PROB so the power-of-two share of parallel jobs is kept
(about 0.76 (1 - s) for the typeless set), unless ``pow2_share`` gives that share explicitly.

Requested time: the model describes one time per job, the runtime. ``request_rule="exact"``
writes it as both ``req_time`` and ``run_time`` (a perfect estimate, as RLScheduler treats Lublin
files; the runtime paper reads it as the requested walltime and derives the actual runtime with a
walltime-request accuracy, see :func:`schedrl.workloads.extend.apply_wra`). ``"round_up"`` (the
real-machine stand-ins) requests the smallest round walltime at or above the runtime, as users
mostly pick a few round values (:data:`ROUND_REQUESTS`), capped at ``runtime_max``.

Daily-cycle origin: the reference program does not say where its cycle sits on the clock; we put
the cycle's first bucket at 04:30 of day 0 (trace time 0 = midnight), the phase that best fits the
time-of-day histogram of ``lublin_256.swf`` (maximum likelihood over half-hour shifts).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field

import numpy as np
import pandas as pd
from scipy import optimize, special

from schedrl.errors import ConfigError
from schedrl.workloads.machines import DATASTAR, THETA
from schedrl.workloads.table import new_table

__all__ = ["StreamParams", "LublinParams", "BATCH", "INTERACTIVE", "TYPELESS", "generate",
           "resolve_params", "daily_cycle_weights"]

DAY = 86_400.0
BUCKETS = 48
BUCKET_SECONDS = DAY / BUCKETS
CYCLIC_DAY_START = 11          # bucket units: the cycle's first bucket sits at x = 11 on the gamma axis
CYCLE_PHASE_SECONDS = 4.5 * 3600  # where that first bucket sits on the trace clock (see module doc)
RUNTIME_LOG_CAP = 12.0
GAP_LOG_CAP = 13.0
REFERENCE_UHI = 7.0            # the published constants describe a 128-node machine


@dataclass(frozen=True)
class StreamParams:
    """One parameter set of the model (batch, interactive or typeless)."""

    serial_prob: float
    pow2_prob: float
    ulow: float
    umed: float
    uhi: float
    uprob: float
    a1: float
    b1: float
    a2: float
    b2: float
    pa: float
    pb: float
    aarr: float
    barr: float
    anum: float
    bnum: float
    arar: float


BATCH = StreamParams(0.2927, 0.6686, 1.2, 5.0, 7.0, 0.875, 6.57, 0.823, 639.1, 0.0156, -0.003, 0.6986,
                     6.0415, 0.8531, 6.1271, 5.2740, 1.0519)
INTERACTIVE = StreamParams(0.1541, 0.625, 1.0, 3.0, 5.5, 0.705, 3.8351, 0.6605, 7.073, 0.6856, -0.0118,
                           0.9156, 6.5510, 0.6621, 8.9186, 3.6680, 0.9797)
TYPELESS = StreamParams(0.244, 0.576, 0.8, 4.5, 7.0, 0.86, 4.2, 0.94, 312.0, 0.03, -0.0054, 0.78,
                        10.2303, 0.4871, 8.1737, 3.9631, 1.0225)
QUEUE_INTERACTIVE, QUEUE_BATCH = 0, 1

REQUEST_RULES = ("exact", "round_up")
# Round walltimes users pick (Tsafrir, Etsion and Feitelson 2005: most requests are a few round
# values): 1-45 minutes, then 1-72 hours.
ROUND_REQUESTS = np.array([60 * m for m in (1, 2, 5, 10, 15, 20, 30, 45)]
                          + [3600 * h for h in (1, 1.5, 2, 3, 4, 5, 6, 8, 10, 12, 16, 18, 24, 36, 48, 72)],
                          dtype=np.int64)


def requested_times(runtimes: np.ndarray, rule: str, cap: float | None = None) -> np.ndarray:
    """Requested walltimes from runtimes: ``exact`` (req = run) or ``round_up`` (the smallest round
    value of :data:`ROUND_REQUESTS` at or above the runtime, at most ``cap``; the runtime itself
    beyond the largest value)."""
    runtimes = np.asarray(runtimes, dtype=np.int64)
    if rule == "exact":
        return runtimes.copy()
    idx = np.searchsorted(ROUND_REQUESTS, runtimes, side="left")
    req = np.where(idx < ROUND_REQUESTS.size, ROUND_REQUESTS[np.minimum(idx, ROUND_REQUESTS.size - 1)], runtimes)
    if cap is not None:
        req = np.maximum(np.minimum(req, int(math.floor(cap))), runtimes)
    return req


@dataclass(frozen=True)
class LublinParams:
    """Generator parameters (a preset is one of these; see :mod:`schedrl.workloads.presets`).

    Times in seconds; ``None`` keeps the model's own value.
    """

    max_nodes: int = 256
    min_nodes: int = 1
    n_jobs: int = 10_000
    serial_share: float | None = None   # share of 1-node jobs
    pow2_share: float | None = None     # share of parallel jobs whose size is a power of two
    job_types: bool = False             # batch + interactive streams, else the typeless set
    umed: float | None = None           # override the (machine-adapted) UMED
    runtime_max: float | None = None
    runtime_mean: float | None = None
    arrival_max: float | None = None
    arrival_mean: float | None = None
    load: float | None = None           # target offered load; stretches arrivals
    daily_cycle: bool = True
    request_rule: str = "exact"         # exact | round_up (see REQUEST_RULES)
    name: str = "custom"
    description: str = field(default="", compare=False)

    def validate(self) -> LublinParams:
        def bad(key, why):
            raise ConfigError(f"lublin.{key}: {why}")

        if not isinstance(self.max_nodes, int) or self.max_nodes < 1:
            bad("max_nodes", f"must be a positive integer, not {self.max_nodes!r}")
        if not isinstance(self.min_nodes, int) or not 1 <= self.min_nodes <= self.max_nodes:
            bad("min_nodes", f"must be an integer in [1, max_nodes={self.max_nodes}], not {self.min_nodes!r}")
        if not isinstance(self.n_jobs, int) or self.n_jobs < 0:
            bad("n_jobs", f"must be a non-negative integer, not {self.n_jobs!r}")
        for key in ("serial_share", "pow2_share"):
            v = getattr(self, key)
            if v is not None and not 0.0 <= v <= 1.0:
                bad(key, f"must be in [0, 1], not {v}")
        if self.min_nodes > 1 and self.serial_share:
            bad("serial_share", "must be 0 (or unset) when min_nodes > 1")
        for kind in ("runtime", "arrival"):
            mx, mean = getattr(self, f"{kind}_max"), getattr(self, f"{kind}_mean")
            if mx is not None and mx <= 1:
                bad(f"{kind}_max", f"must be > 1 second, not {mx}")
            if mean is not None and mean <= 0:
                bad(f"{kind}_mean", f"must be positive, not {mean}")
            if mx is not None and mean is not None and mean >= mx:
                bad(f"{kind}_mean", f"must be below {kind}_max ({mean} >= {mx})")
        if self.load is not None and self.load <= 0:
            bad("load", f"must be positive, not {self.load}")
        if self.load is not None and (self.arrival_mean is not None or self.arrival_max is not None):
            bad("load", "set either load or arrival_mean/arrival_max, not both")
        if self.job_types and (self.arrival_mean is not None or self.arrival_max is not None):
            bad("arrival_mean", "arrival_mean/arrival_max need job_types: false (one arrival stream)")
        if self.request_rule not in REQUEST_RULES:
            bad("request_rule", f"must be one of {', '.join(REQUEST_RULES)}, not {self.request_rule!r}")
        if self.umed is not None and not 0 < self.umed < math.log2(max(self.max_nodes, 2)):
            bad("umed", f"must be in (0, log2(max_nodes)), not {self.umed}")
        return self


_HOUR = 3600.0

LUBLIN_PRESETS: dict[str, LublinParams] = {
    "lublin256": LublinParams(
        name="lublin256", max_nodes=256, n_jobs=10_000,
        description="typeless model on 256 nodes, as lublin_256.swf (RLScheduler's trace)"),
    # Runtime paper, Table 1: 2000 jobs on 256 nodes; the Lublin time is the requested walltime
    # (max 6 h, mean 0.5 h); inter-arrival max 0.5 h, mean 100 s. These caps and means hold
    # exactly on the generated values, which needs a stationary arrival process (no daily cycle).
    "wl1": LublinParams(
        name="wl1", max_nodes=256, n_jobs=2000, serial_share=0.8, runtime_max=6 * _HOUR,
        runtime_mean=0.5 * _HOUR, arrival_max=0.5 * _HOUR, arrival_mean=100.0, daily_cycle=False,
        description="runtime paper WL1: 80% single-node jobs"),
    "wl2": LublinParams(
        name="wl2", max_nodes=256, n_jobs=2000, serial_share=0.2, runtime_max=6 * _HOUR,
        runtime_mean=0.5 * _HOUR, arrival_max=0.5 * _HOUR, arrival_mean=100.0, daily_cycle=False,
        description="runtime paper WL2: 20% single-node jobs"),
    # Stand-ins for the real traces (used only when the trace file is missing). Sizes follow the
    # machines' published rules; runtimes capped at the queues' longest walltime; offered load 0.9;
    # requests rounded up to round walltimes (the real traces' requests are not exact).
    "theta_like": LublinParams(
        name="theta_like", max_nodes=THETA.nodes, min_nodes=128, n_jobs=20_000, runtime_max=24 * _HOUR,
        load=0.9, request_rule="round_up",
        description="stand-in for ALCF Theta: 4,360 nodes, 128-node minimum, 24 h limit"),
    "datastar_like": LublinParams(
        name="datastar_like", max_nodes=DATASTAR.nodes, n_jobs=20_000, job_types=True,
        runtime_max=18 * _HOUR, load=0.9, request_rule="round_up",
        description="stand-in for SDSC DataStar: 1,664 CPUs, batch + interactive, 18 h limit"),
}

def lublin_preset(name: str) -> LublinParams:
    """The preset's parameters; an unknown name raises ConfigError listing the known ones."""
    try:
        return LUBLIN_PRESETS[name]
    except KeyError:
        raise ConfigError(f"unknown workload preset '{name}' (known: {', '.join(LUBLIN_PRESETS)})") from None


def resolve_params(spec, n_jobs: int | None = None, **overrides) -> LublinParams:
    """A validated :class:`LublinParams` from a preset name, a dict or a LublinParams."""
    if isinstance(spec, str):
        params = lublin_preset(spec)
    elif isinstance(spec, LublinParams):
        params = spec
    elif isinstance(spec, dict):
        known = {f.name for f in dataclasses.fields(LublinParams)}
        unknown = sorted(set(spec) - known)
        if unknown:
            raise ConfigError(f"lublin: unknown parameter '{unknown[0]}' (allowed: {', '.join(sorted(known))})")
        params = LublinParams(**spec)
    else:
        raise TypeError(f"expected a preset name, dict or LublinParams, not {type(spec).__name__}")
    if n_jobs is not None:
        overrides["n_jobs"] = int(n_jobs)
    if overrides:
        params = dataclasses.replace(params, **overrides)
    return params.validate()


# --------------------------------------------------------------------------------------- model
def adapt_stream(sp: StreamParams, params: LublinParams) -> StreamParams:
    """The stream's constants adapted to the machine size, minimum size and target shares."""
    uhi_machine = math.log2(params.max_nodes) if params.max_nodes > 1 else 0.0
    shift = uhi_machine - REFERENCE_UHI
    uhi = min(sp.uhi + shift, uhi_machine)
    ulow = max(sp.ulow, math.log2(params.min_nodes)) if params.min_nodes > 1 else sp.ulow
    ulow = min(ulow, uhi)
    umed = params.umed if params.umed is not None else min(max(sp.umed + shift, uhi - 3.5), uhi - 1.5)
    umed = min(max(umed, ulow), uhi)
    serial, pow2 = sp.serial_prob, sp.pow2_prob
    pow2_of_parallel = pow2 / (1.0 - serial)
    if params.min_nodes > 1:
        serial = 0.0
    if params.serial_share is not None:
        serial = params.serial_share
    if params.pow2_share is not None:
        pow2_of_parallel = params.pow2_share
    pow2 = min(pow2_of_parallel * (1.0 - serial), 1.0 - serial)
    return dataclasses.replace(sp, serial_prob=serial, pow2_prob=pow2, ulow=ulow, umed=umed, uhi=uhi)


def sample_sizes(rng: np.random.Generator, sp: StreamParams, n: int, min_nodes: int, max_nodes: int) -> np.ndarray:
    u, v, w = rng.random(n), rng.random(n), rng.random(n)
    par = np.where(v <= sp.uprob, sp.ulow + w * (sp.umed - sp.ulow), sp.umed + w * (sp.uhi - sp.umed))
    pow2 = (u > sp.serial_prob) & (u <= sp.serial_prob + sp.pow2_prob)
    par = np.where(pow2, np.floor(par + 0.5), par)
    nodes = np.floor(np.exp2(par) + 0.5)
    nodes = np.where(u <= sp.serial_prob, 1.0, nodes)
    return np.clip(nodes, min_nodes, max_nodes).astype(np.int64)


def _truncated_exp_gamma(u, shape, scale, log_cap, c=1.0, cap=None):
    """``c * exp(L)`` with L ~ gamma(shape, scale) truncated at min(log_cap, log(cap / c)),
    by inversion of the CDF at the uniforms ``u``."""
    top = log_cap if cap is None else min(log_cap, math.log(cap / c))
    top = max(top, 1e-9)
    mass = special.gammainc(shape, top / scale)
    logs = scale * special.gammaincinv(shape, u * mass)
    return c * np.exp(np.minimum(logs, top))


def _rejection_exp_gamma(rng, shape, scale, top, n):
    """``exp(L)`` with L ~ gamma(shape, scale) redrawn while above ``top`` (the model's own rule).

    Vectorised: each round redraws only the rejected values (a handful of rounds at most).
    """
    shape = np.broadcast_to(np.asarray(shape, dtype=float), (n,))
    scale = np.broadcast_to(np.asarray(scale, dtype=float), (n,))
    logs = rng.gamma(shape, scale)
    bad = np.flatnonzero(logs > top)
    for _ in range(1000):
        if bad.size == 0:
            break
        logs[bad] = rng.gamma(shape[bad], scale[bad])
        bad = bad[logs[bad] > top]
    else:  # pragma: no cover - only with absurd parameters
        logs[bad] = top
    return np.exp(logs)


def _scaled_sample(rng, shape, scale, log_cap, cap, mean, n):
    """The model's values; with ``mean`` scaled (factor c) so that the sample mean is ``mean``
    under ``cap`` (inverse-CDF draws, a smooth function of c, solved with Brent's method)."""
    if mean is None:
        top = log_cap if cap is None else min(log_cap, math.log(cap))
        return _rejection_exp_gamma(rng, shape, scale, top, n)
    u = rng.random(n)

    def gap(log_c):
        return np.log(_truncated_exp_gamma(u, shape, scale, log_cap, math.exp(log_c), cap).mean() / mean)

    lo, hi = -30.0, 30.0
    if cap is not None:
        hi = math.log(cap) + 5.0
    if gap(lo) > 0 or gap(hi) < 0:
        raise ConfigError(f"lublin: cannot reach mean {mean} under cap {cap}")
    log_c = optimize.brentq(gap, lo, hi, xtol=1e-12, rtol=1e-12, maxiter=200)
    return _truncated_exp_gamma(u, shape, scale, log_cap, math.exp(log_c), cap)


def sample_runtimes(rng, sp: StreamParams, nodes: np.ndarray, params: LublinParams) -> np.ndarray:
    n = nodes.size
    p = np.clip(sp.pa * nodes + sp.pb, 0.0, 1.0)
    first = rng.random(n) < p
    shape = np.where(first, sp.a1, sp.a2)
    scale = np.where(first, sp.b1, sp.b2)
    values = _scaled_sample(rng, shape, scale, RUNTIME_LOG_CAP, params.runtime_max, params.runtime_mean, n)
    runtimes = np.maximum(np.floor(values + 0.5), 1.0)
    if params.runtime_max is not None:
        runtimes = np.minimum(runtimes, math.floor(params.runtime_max))
    return runtimes.astype(np.int64)


def sample_work_gaps(rng, sp: StreamParams, n: int, params: LublinParams) -> np.ndarray:
    return _scaled_sample(rng, sp.aarr * sp.arar, sp.barr, GAP_LOG_CAP, params.arrival_max, params.arrival_mean, n)


def daily_cycle_weights(sp: StreamParams) -> np.ndarray:
    """Arrival-rate weight of each half-hour bucket of the trace clock (index 0 = 00:00), mean 1."""
    x = np.arange(BUCKETS + 1, dtype=float) + CYCLIC_DAY_START
    w = np.diff(special.gammainc(sp.anum, x / sp.bnum))
    w = w / w.mean()
    # the cycle's first bucket sits at CYCLE_PHASE_SECONDS on the clock
    return np.roll(w, int(round(CYCLE_PHASE_SECONDS / BUCKET_SECONDS)))


def work_to_wall(work: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Map cumulative work time to wall time: bucket b absorbs ``weights[b] * 1800`` work seconds."""
    edges_work = np.concatenate([[0.0], np.cumsum(weights * BUCKET_SECONDS)])
    edges_work[-1] = DAY  # exact (mean weight 1)
    edges_wall = np.arange(BUCKETS + 1) * BUCKET_SECONDS
    day = np.floor(work / DAY)
    return day * DAY + np.interp(work - day * DAY, edges_work, edges_wall)


def generate(preset_or_params="lublin256", n_jobs: int | None = None, seed: int = 0, **overrides) -> pd.DataFrame:
    """Generate a Lublin-Feitelson workload as a job table.

    ``preset_or_params`` is a preset name (``lublin256``, ``wl1``, ``wl2``, ``theta_like``,
    ``datastar_like``), a dict of :class:`LublinParams` fields or a LublinParams; ``n_jobs`` and
    keyword overrides replace fields. The same arguments and seed give the same table.
    """
    params = resolve_params(preset_or_params, n_jobs, **overrides)
    n = params.n_jobs
    children = np.random.SeedSequence(seed).spawn(2)
    streams = [(BATCH, QUEUE_BATCH), (INTERACTIVE, QUEUE_INTERACTIVE)] if params.job_types else [(TYPELESS, -1)]
    parts = []
    for (base, queue), child in zip(streams, children):
        sp = adapt_stream(base, params)
        rng = np.random.default_rng(child)
        nodes = sample_sizes(rng, sp, n, params.min_nodes, params.max_nodes)
        runtimes = sample_runtimes(rng, sp, nodes, params)
        work = np.cumsum(sample_work_gaps(rng, sp, n, params))
        parts.append({"sp": sp, "queue": queue, "nodes": nodes, "run": runtimes, "work": work})

    if params.load is not None and n > 0:
        # The first n jobs by work time do not depend on a common stretch factor, so it can be
        # solved for directly: offered load = work / (nodes * span).
        all_work = np.concatenate([p["work"] for p in parts])
        first = np.argsort(all_work, kind="stable")[:n]
        demand = np.concatenate([p["nodes"] * p["run"] for p in parts]).astype(float)[first].sum()
        span = all_work[first].max()
        stretch = demand / (params.max_nodes * params.load * span)
        for p in parts:
            p["work"] = p["work"] * stretch

    submit, nodes, run, queue = [], [], [], []
    for p in parts:
        wall = work_to_wall(p["work"], daily_cycle_weights(p["sp"])) if params.daily_cycle else p["work"]
        submit.append(wall)
        nodes.append(p["nodes"])
        run.append(p["run"])
        queue.append(np.full(n, p["queue"], dtype=np.int64))
    submit = np.concatenate(submit)
    order = np.argsort(submit, kind="stable")[:n]
    submit = np.floor(submit[order] + 0.5).astype(np.int64)
    nodes = np.concatenate(nodes)[order]
    run = np.concatenate(run)[order]
    queue = np.concatenate(queue)[order]
    req = requested_times(run, params.request_rule, params.runtime_max)
    frame = new_table(n, submit_time=submit, run_time=run, alloc_procs=nodes, req_procs=nodes,
                      req_time=req, status=np.ones(n, dtype=np.int64), queue=queue)
    frame.attrs["header"] = _header(params, seed, frame)
    frame.attrs["source"] = f"lublin:{params.name}:seed={seed}"
    frame.attrs["generator"] = _params_dict(params)
    return frame


def _params_dict(params: LublinParams) -> dict:
    out = dataclasses.asdict(params)
    out.pop("description", None)
    return out


def _header(params: LublinParams, seed: int, frame: pd.DataFrame) -> dict:
    settings = " ".join(f"{k}={v}" for k, v in _params_dict(params).items() if v is not None and k != "name")
    header = {
        "Version": "2.2",
        "Computer": f"Lublin-Feitelson model, schedrl preset {params.name}",
        "Acknowledge": "Uri Lublin and Dror Feitelson (JPDC 2003), model m_lublin99",
        "Information": "generated by schedrl.workloads.lublin",
        "UnixStartTime": "0",
        "MaxJobs": str(len(frame)),
        "MaxRecords": str(len(frame)),
        "MaxNodes": str(params.max_nodes),
        "MaxProcs": str(params.max_nodes),
        "MaxRuntime": str(int(frame["run_time"].max()) if len(frame) else 0),
        "Note": [f"seed={seed} {settings}",
                 "req_time = run_time: the model gives one time per job (see schedrl.workloads.lublin)"
                 if params.request_rule == "exact" else
                 "req_time = the smallest round walltime >= run_time (see schedrl.workloads.lublin)"],
    }
    if params.description:
        header["Note"].append(params.description)
    return header
