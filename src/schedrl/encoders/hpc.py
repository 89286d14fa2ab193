"""State encoders of the event-driven HPC simulator (``schedrl.sim.stepper``): DRAS, SEM, MRSch, runtime.

Every encoder is built as ``enc = get_encoder(name)(params)`` from :class:`HPCEncoderParams`,
declares ``enc.shape`` (1-D), ``enc.low = 0`` and ``enc.high = 1`` and is called as
``enc(state, jobs=None, priority=None) -> float32 array`` where ``state`` is a
``schedrl.sim.SimState`` (or any object with the same fields, e.g. the env's lazy view),
``jobs`` the simulator's ``JobArrays`` (needed by ``mrsch``; ``sem`` reads running-job sizes from it
when given, else counts nodes in ``state.node_job``) and ``priority`` an optional 0/1 array aligned
with ``state.queue`` (DRAS/SEM's priority flag; all 0 when omitted). Only the first ``window``
rows of ``state.queue_features`` are read.

Normalisation (ours; the papers give the features, not their scales). Every value is clipped to
[0, 1]: job and running-job sizes are fractions of the machine (SEM section 3.2: "job size is
expressed by the percentage of system size"), burst-buffer amounts fractions of ``bb_units``;
requested, estimated and remaining times are divided by ``time_scale`` (seconds; the env uses the
workload's longest requested walltime), waits by ``wait_scale``. Empty window slots and missing
running jobs are all zeros (zero padding). Jobs come first, then resources.

| name | size | layout |
| --- | --- | --- |
| ``dras`` | ``4W + 2N`` | W x (size, requested time, priority, wait); per node ``[1, 0]`` free or ``[0, remaining]`` (DRAS; Theta 8,920, DataStar 3,528) |
| ``sem`` | ``4W + 2K`` | the same job window; the K largest running jobs as (size, remaining occupancy) pairs, largest first, zero-padded (SEM Alg. 1/2; Theta K 34: 268, DataStar K 40: 280). Free nodes are not encoded (SEM section 3.3: redundant) |
| ``mrsch`` | ``4W + 2N1 + 2N2`` | W x (nodes, burst buffer, requested time, wait) (R + 2 with R = 2); per node and per burst-buffer unit ``[1, 0]`` / ``[0, remaining]`` (MRSch section III-A; Theta W 10: 11,410) |
| ``mrsch_power`` | ``5W + 2N1 + 2N2 + 2`` | ``mrsch``, then each window job's power share of the head room and (free power share, power-weighted remaining time) (MRSch section V-E; register with ``register_encoder("mrsch_power", "schedrl.encoders.hpc", "MRSchPowerEncoder")``) |
| ``runtime_baseline`` | ``N + 2J`` | remaining requested time per node; J = N_jobs window of (nodes, requested time) as two vectors (brief 4.2) |
| ``runtime_proposal`` | ``2N + 3J`` | remaining requested and estimated time per node; nodes, requested and estimated time per job |

"Remaining" is the requested-walltime end minus now (``remaining="req"``, the user-supplied
estimate of DRAS, SEM and MRSch) or, with ``remaining="est"``, the ``runtime_estimate`` end. The
simulator does not give burst-buffer units an identity, so ``mrsch`` lays the running jobs' units
out packed in start order from unit 0, free units last.

``encode_*`` functions are from-scratch references written job by job and node by node (slow);
tests compare the vectorised classes against them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from schedrl.errors import ConfigError

# columns of SimState.queue_features (schedrl.sim.stepper.QUEUE_FEATURES)
_PROCS, _REQ, _EST, _WAIT, _BB = 0, 1, 2, 3, 4
JOB_FEATURES = 4
REMAINING = ("req", "est")


@dataclass(frozen=True)
class HPCEncoderParams:
    """What the HPC encoders need to know: machine, window and normalisers.

    ``nodes`` (N or N1), ``bb_units`` (N2, MRSch), ``window`` (W, or N_jobs for the runtime
    encoders), ``k`` (SEM's K), ``time_scale`` / ``wait_scale`` in seconds, ``remaining``
    ("req" or "est", see the module docstring).
    """

    nodes: int
    window: int = 50
    k: int = 34
    bb_units: int = 0
    time_scale: float = 86_400.0
    wait_scale: float = 86_400.0
    remaining: str = "req"

    def __post_init__(self):
        if self.nodes < 1 or self.window < 1 or self.k < 1 or self.bb_units < 0:
            raise ConfigError("encoder params: nodes, window and k must be >= 1 and bb_units >= 0")
        if not (self.time_scale > 0 and self.wait_scale > 0 and np.isfinite(self.time_scale)
                and np.isfinite(self.wait_scale)):
            raise ConfigError("encoder params: time_scale and wait_scale must be positive and finite")
        if self.remaining not in REMAINING:
            raise ConfigError(f"encoder params: remaining must be one of {REMAINING}, not {self.remaining!r}")


def dras_size(p: HPCEncoderParams) -> int:
    return JOB_FEATURES * p.window + 2 * p.nodes


def sem_size(p: HPCEncoderParams) -> int:
    return JOB_FEATURES * p.window + 2 * p.k


def mrsch_size(p: HPCEncoderParams) -> int:
    return JOB_FEATURES * p.window + 2 * p.nodes + 2 * p.bb_units


def runtime_size(p: HPCEncoderParams, proposal: bool) -> int:
    return (2 * p.nodes + 3 * p.window) if proposal else (p.nodes + 2 * p.window)


class HPCEncoder:
    """Base of the HPC encoders (see the module docstring)."""

    name = ""

    def __init__(self, params: HPCEncoderParams, time_limit: int | None = None):
        self.params = params
        self.low, self.high = 0.0, 1.0
        self.shape = (self._size(params),)

    def _size(self, p):  # pragma: no cover - overridden
        raise NotImplementedError

    # -- shared pieces ---------------------------------------------------------------------------
    def _rows(self, state) -> tuple[int, np.ndarray]:
        k = min(self.params.window, len(state.queue))
        return k, state.queue_features[:k]

    def _job_window(self, out: np.ndarray, state, priority) -> None:
        """Write W x (size, requested time, priority, wait) into ``out[:4W]``."""
        p = self.params
        k, f = self._rows(state)
        blk = out[: JOB_FEATURES * p.window].reshape(p.window, JOB_FEATURES)
        blk[:k, 0] = f[:, _PROCS] / p.nodes
        blk[:k, 1] = f[:, _REQ] / p.time_scale
        if priority is not None:
            blk[:k, 2] = np.asarray(priority[:k], dtype=np.float64)
        blk[:k, 3] = f[:, _WAIT] / p.wait_scale

    def _node_remaining(self, state) -> np.ndarray:
        rem = state.node_remaining_req if self.params.remaining == "req" else state.node_remaining_est
        return rem

    def _node_pairs(self, out: np.ndarray, state) -> None:
        """Per node ``[1, 0]`` when free, ``[0, remaining / time_scale]`` when busy."""
        pairs = out.reshape(-1, 2)
        busy = state.node_job >= 0
        pairs[:, 0] = ~busy
        pairs[:, 1] = np.where(busy, self._node_remaining(state), 0.0) / self.params.time_scale

    def _running_remaining(self, state) -> np.ndarray:
        end = state.running_expected_end if self.params.remaining == "req" else state.running_estimated_end
        return np.maximum(np.asarray(end, dtype=np.float64) - state.clock, 0.0)

    def __call__(self, state, jobs=None, priority=None) -> np.ndarray:
        out = np.zeros(self.shape, dtype=np.float32)
        self._fill(out, state, jobs, priority)
        np.clip(out, 0.0, 1.0, out=out)
        return out


class DRASEncoder(HPCEncoder):
    """DRAS vector: job window then per-node pairs; ``shape = (4W + 2N,)``."""

    name = "dras"

    def _size(self, p):
        return dras_size(p)

    def _fill(self, out, state, jobs, priority):
        w = JOB_FEATURES * self.params.window
        self._job_window(out, state, priority)
        self._node_pairs(out[w:], state)


def running_sizes(state, jobs=None) -> np.ndarray:
    """Nodes held by each job of ``state.running`` (from ``jobs`` or by counting ``node_job``)."""
    r = np.asarray(state.running, dtype=np.int64)
    if jobs is not None:
        return np.asarray(jobs.req_procs, dtype=np.float64)[r]
    if len(r) == 0:
        return np.zeros(0)
    held = state.node_job[state.node_job >= 0]
    ids, counts = np.unique(held, return_counts=True)
    return counts[np.searchsorted(ids, r)].astype(np.float64)


class SEMEncoder(HPCEncoder):
    """SEM vector: job window then the K largest running jobs; ``shape = (4W + 2K,)``.

    Running jobs are sorted by size (largest first), ties by longer remaining time, then by start
    order; with at most K running jobs this is Algorithm 1 (zero padding), with more Algorithm 2
    (K largest). The pair is (size / N, remaining occupancy / time_scale).
    """

    name = "sem"

    def _size(self, p):
        return sem_size(p)

    def _fill(self, out, state, jobs, priority):
        p = self.params
        w = JOB_FEATURES * p.window
        self._job_window(out, state, priority)
        r = len(state.running)
        if r == 0:
            return
        size = running_sizes(state, jobs)
        rem = self._running_remaining(state)
        order = np.lexsort((np.arange(r), -rem, -size))[: p.k]
        pairs = out[w:].reshape(p.k, 2)
        m = len(order)
        pairs[:m, 0] = size[order] / p.nodes
        pairs[:m, 1] = rem[order] / p.time_scale


class MRSchEncoder(HPCEncoder):
    """MRSch vector: W x (nodes, burst buffer, requested time, wait), node pairs, burst-buffer unit
    pairs; ``shape = (4W + 2N1 + 2N2,)``. Needs ``jobs`` when ``bb_units > 0``."""

    name = "mrsch"

    def _size(self, p):
        return mrsch_size(p)

    def _fill(self, out, state, jobs, priority):
        p = self.params
        k, f = self._rows(state)
        w = JOB_FEATURES * p.window
        blk = out[:w].reshape(p.window, JOB_FEATURES)
        blk[:k, 0] = f[:, _PROCS] / p.nodes
        if p.bb_units:
            blk[:k, 1] = np.ceil(f[:, _BB]) / p.bb_units
        blk[:k, 2] = f[:, _REQ] / p.time_scale
        blk[:k, 3] = f[:, _WAIT] / p.wait_scale
        self._node_pairs(out[w: w + 2 * p.nodes], state)
        if not p.bb_units:
            return
        if jobs is None:
            raise ConfigError("the mrsch encoder needs the simulator's job arrays for burst-buffer units")
        units = out[w + 2 * p.nodes:].reshape(p.bb_units, 2)
        r = np.asarray(state.running, dtype=np.int64)
        held = np.ceil(np.asarray(jobs.bb, dtype=np.float64)[r]).astype(np.int64)
        rem = np.repeat(self._running_remaining(state), held)[: p.bb_units]
        units[:, 0] = 1.0
        units[: len(rem), 0] = 0.0
        units[: len(rem), 1] = rem / p.time_scale


class MRSchPowerEncoder(MRSchEncoder):
    """MRSch with power as a third resource (section V-E): the ``mrsch`` vector, then each window
    job's power demand as a share of the power head room (W values), then the free share of the
    head room and the power-weighted mean remaining time of the running jobs (2 values);
    ``shape = (5W + 2N1 + 2N2 + 2,)``. Power is not split into units (it has no unit the paper
    names), so it takes the two aggregate values where nodes and burst buffer take unit pairs.
    Without a power budget the extra values are 0. Needs ``jobs``."""

    name = "mrsch_power"

    def _size(self, p):
        return mrsch_size(p) + p.window + 2

    def _fill(self, out, state, jobs, priority):
        p = self.params
        base = mrsch_size(p)
        super()._fill(out[:base], state, jobs, priority)
        if jobs is None:
            raise ConfigError("the mrsch_power encoder needs the simulator's job arrays")
        cap = np.asarray(state.capacity, dtype=np.float64)
        if len(cap) < 2 + (1 if p.bb_units else 0) or cap[-1] <= 0:
            return  # no power dimension
        q = np.asarray(state.queue, dtype=np.int64)[: p.window]
        demand = np.asarray(jobs.demand, dtype=np.float64)[:, -1]
        out[base: base + len(q)] = demand[q] / cap[-1]
        out[base + p.window] = float(state.free[-1]) / cap[-1]
        r = np.asarray(state.running, dtype=np.int64)
        held = demand[r]
        if held.sum() > 0:
            out[base + p.window + 1] = float(held @ self._running_remaining(state)) / held.sum() / p.time_scale


class RuntimeEncoder(HPCEncoder):
    """Runtime paper state (brief 4.2): baseline ``N + 2J`` or proposal ``2N + 3J``."""

    name = "runtime_baseline"
    proposal = False

    def _size(self, p):
        return runtime_size(p, self.proposal)

    def _fill(self, out, state, jobs, priority):
        p = self.params
        n, J = p.nodes, p.window
        k, f = self._rows(state)
        out[:n] = state.node_remaining_req / p.time_scale
        o = n
        if self.proposal:
            out[o: o + n] = state.node_remaining_est / p.time_scale
            o += n
        out[o: o + k] = f[:, _PROCS] / n
        out[o + J: o + J + k] = f[:, _REQ] / p.time_scale
        if self.proposal:
            out[o + 2 * J: o + 2 * J + k] = f[:, _EST] / p.time_scale


class RuntimeProposalEncoder(RuntimeEncoder):
    name = "runtime_proposal"
    proposal = True


# ---------------------------------------------------------------------------------------------
# From-scratch references (loops, for tests)


def _c(x: float) -> float:
    return min(max(float(x), 0.0), 1.0)


def _job_rows_ref(state, p: HPCEncoderParams, priority, bb: bool) -> list[float]:
    out = []
    for i in range(p.window):
        if i < len(state.queue):
            f = state.queue_features[i]
            second = (np.ceil(f[_BB]) / p.bb_units if p.bb_units else 0.0) if bb else f[_REQ] / p.time_scale
            third = f[_REQ] / p.time_scale if bb else (float(priority[i]) if priority is not None else 0.0)
            out += [_c(f[_PROCS] / p.nodes), _c(second), _c(third), _c(f[_WAIT] / p.wait_scale)]
        else:
            out += [0.0] * 4
    return out


def _node_ref(state, p: HPCEncoderParams, remaining: np.ndarray) -> list[float]:
    out = []
    for node in range(p.nodes):
        if state.node_job[node] < 0:
            out += [1.0, 0.0]
        else:
            out += [0.0, _c(remaining[node] / p.time_scale)]
    return out


def encode_dras(state, p: HPCEncoderParams, priority=None) -> np.ndarray:
    rem = state.node_remaining_req if p.remaining == "req" else state.node_remaining_est
    return np.asarray(_job_rows_ref(state, p, priority, False) + _node_ref(state, p, rem), dtype=np.float32)


def encode_sem(state, p: HPCEncoderParams, jobs=None, priority=None) -> np.ndarray:
    ends = state.running_expected_end if p.remaining == "req" else state.running_estimated_end
    size = running_sizes(state, jobs)
    running = [(float(size[i]), max(float(ends[i]) - state.clock, 0.0), i) for i in range(len(state.running))]
    running.sort(key=lambda t: (-t[0], -t[1], t[2]))
    pairs = []
    for s, rem, _ in running[: p.k]:
        pairs += [_c(s / p.nodes), _c(rem / p.time_scale)]
    pairs += [0.0] * (2 * p.k - len(pairs))
    return np.asarray(_job_rows_ref(state, p, priority, False) + pairs, dtype=np.float32)


def encode_mrsch(state, p: HPCEncoderParams, jobs=None) -> np.ndarray:
    rem = state.node_remaining_req if p.remaining == "req" else state.node_remaining_est
    ends = state.running_expected_end if p.remaining == "req" else state.running_estimated_end
    units = []
    for i, j in enumerate(state.running):
        held = int(np.ceil(jobs.bb[j])) if p.bb_units else 0
        units += [[0.0, _c(max(float(ends[i]) - state.clock, 0.0) / p.time_scale)]] * held
    units = units[: p.bb_units] + [[1.0, 0.0]] * (p.bb_units - len(units))
    flat = [x for u in units for x in u]
    return np.asarray(_job_rows_ref(state, p, None, True) + _node_ref(state, p, rem) + flat, dtype=np.float32)


def encode_runtime(state, p: HPCEncoderParams, proposal: bool) -> np.ndarray:
    n, J = p.nodes, p.window
    rows = [state.queue_features[i] if i < len(state.queue) else None for i in range(J)]
    out = [_c(state.node_remaining_req[i] / p.time_scale) for i in range(n)]
    if proposal:
        out += [_c(state.node_remaining_est[i] / p.time_scale) for i in range(n)]
    out += [_c(r[_PROCS] / n) if r is not None else 0.0 for r in rows]
    out += [_c(r[_REQ] / p.time_scale) if r is not None else 0.0 for r in rows]
    if proposal:
        out += [_c(r[_EST] / p.time_scale) if r is not None else 0.0 for r in rows]
    return np.asarray(out, dtype=np.float32)
