"""DeepRM's time-slot grid: one machine with ``num_res`` resources seen over a horizon of H steps.

State (Mao et al. 2016, as re-implemented by the SB3 report and sched-rl-gym):

* ``avail[t, r]``: free units of resource r at time ``now + t`` (t = 0..H-1), capacity ``res_slot``;
* ``canvas[r, t, c]``: the machine image; a cell is 0 when free, else the colour of the job using
  it (``(k + 1) / job_num_cap`` for the lowest colour index k not used by a job on the machine, or
  1.0 when ``machine_colors`` is off). As in DeepRM, a job takes the leftmost free cells of each row;
* ``slots``: W visible job slots (the only jobs an agent can pick), ``backlog``: a FIFO of at most
  ``backlog_size`` further jobs; an arriving job takes the first empty slot, else the backlog's
  tail, else it is dropped (counted in ``dropped``; ``backlog_full="drop"``, DeepRM) or, with
  ``backlog_full="retry"`` (the SB3 report's phase-1 code, whose job sequence stalls), it and every
  later job of the set arrive one step later, so its slowdown counts from the step it got in.

Operations (DeepRM's ``Allocate`` and ``MoveOn``):

* ``allocate(i)`` places the job of slot i at the earliest time in the horizon where it fits for
  its whole length (``placement="earliest"``, DeepRM) or only now (``placement="now"``,
  sched-rl-gym); it returns False, changing nothing, if the slot is empty or the job does not fit.
  The slot is refilled from the backlog's head. Time does not move.
* ``move_on()`` advances time one step: the horizon shifts up, jobs finishing now leave, the
  jobs arriving at the new time enter. Before moving, every slot job that could have started
  now is marked *withheld* (see ``move_on``).

Time, arrivals and finishes are integers. Per job the grid records arrival, start and finish, from
which slowdown = (finish - arrival) / length and completion time = finish - arrival. Jobs are
"in the system" from their arrival until their finish (waiting, or placed on the machine). Exact
sums over them are kept as counts per length, so rewards are exact and order-independent.

DeepRM quirks not copied (documented deviations): its fit loop skips the last start offset
(``range(0, H - len)``), its first sequence entry is never enqueued, and its colours are shuffled
with the global RNG; here every start offset 0..H-len is tried, step 0's arrivals enter at reset,
and colours are assigned deterministically. Pure simulation: no gym import.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numba
import numpy as np

from schedrl.errors import ConfigError, check_int
from schedrl.workloads.deeprm import JobSet

PLACEMENTS = ("earliest", "now")
BACKLOG_FULL = ("drop", "retry")

# job states in ``Grid.state``
PENDING, WAITING, PLACED, DROPPED = 0, 1, 2, 3


@dataclass(frozen=True)
class GridParams:
    """Sizes of the grid (names as DeepRM's ``parameters.py``)."""

    num_res: int = 2
    num_nw: int = 10
    time_horizon: int = 20
    res_slot: int = 10
    max_job_len: int = 15
    max_job_size: int = 10
    backlog_size: int = 60
    placement: str = "earliest"
    max_track_since_new: int = 10
    job_num_cap: int = 40
    machine_colors: bool = True
    backlog_full: str = "drop"

    def __post_init__(self):
        for name in ("num_res", "num_nw", "time_horizon", "res_slot", "max_job_len", "max_job_size",
                     "max_track_since_new", "job_num_cap", "backlog_size"):
            # frozen: the checked int replaces a float such as 10.0, which numpy's shapes refuse
            object.__setattr__(self, name, check_int(name, getattr(self, name), 0 if name == "backlog_size" else 1))
        if self.placement == "earliest" and self.max_job_len > self.time_horizon:
            raise ConfigError(f"max_job_len ({self.max_job_len}) must not exceed time_horizon "
                              f"({self.time_horizon}) with placement 'earliest': such a job could "
                              f"never be placed in the horizon (placement 'now' allows it)")
        if self.max_job_size > self.res_slot:
            raise ConfigError(f"max_job_size ({self.max_job_size}) must not exceed res_slot ({self.res_slot})")
        if self.placement not in PLACEMENTS:
            raise ConfigError(f"unknown placement '{self.placement}' (choose from: {', '.join(PLACEMENTS)})")
        if self.backlog_full not in BACKLOG_FULL:
            raise ConfigError(f"unknown backlog_full '{self.backlog_full}' (choose from: {', '.join(BACKLOG_FULL)})")

    @property
    def rows(self) -> int:
        """Rows of the occupancy arrays: the horizon, or the longest job if that is longer.

        With placement "now" a job may outlast the horizon (sched-rl-gym's d = 48 with H = 20):
        its resources are booked for its whole length, the observation shows the first H rows.
        """
        return max(self.time_horizon, self.max_job_len)

    @property
    def backlog_width(self) -> int:
        """Columns of the backlog block in DeepRM's image: ceil(backlog_size / time_horizon)."""
        return -(-self.backlog_size // self.time_horizon)


# ---------------------------------------------------------------------------------------------
# numba kernels (tiny loops over H x R; the Python overhead of numpy calls would dominate)


@numba.njit(cache=True)
def _earliest_start(avail, length, demand, last):
    """First offset t0 in 0..last where ``demand`` fits in rows t0..t0+length-1, else -1."""
    num_res = avail.shape[1]
    t0 = 0
    while t0 <= last:
        bad = -1
        for t in range(t0, t0 + length):
            for r in range(num_res):
                if avail[t, r] < demand[r]:
                    bad = t
                    break
            if bad >= 0:
                break
        if bad < 0:
            return t0
        t0 = bad + 1
    return -1


@numba.njit(cache=True)
def _fit_mask(avail, slot_len, slot_dem, now_only, horizon, out):
    """out[i] = slot i holds a job that fits (now only, or anywhere in the first ``horizon`` rows)."""
    for i in range(slot_len.shape[0]):
        length = slot_len[i]
        if length == 0:
            out[i] = False
        else:
            last = 0 if now_only else horizon - length
            out[i] = _earliest_start(avail, length, slot_dem[i], last) >= 0


@numba.njit(cache=True)
def _advance(avail, canvas, res_slot, slot_len, slot_dem, slot_job, withheld, fits_now):
    """Count a withheld step for each slot job that fits now, then shift all rows up by one."""
    _fit_mask(avail, slot_len, slot_dem, True, avail.shape[0], fits_now)
    for i in range(fits_now.shape[0]):
        if fits_now[i]:
            withheld[slot_job[i]] += 1
    horizon, num_res = avail.shape
    for t in range(horizon - 1):
        for r in range(num_res):
            avail[t, r] = avail[t + 1, r]
    for r in range(num_res):
        avail[horizon - 1, r] = res_slot
    width = canvas.shape[2]
    for r in range(num_res):
        for t in range(horizon - 1):
            for c in range(width):
                canvas[r, t, c] = canvas[r, t + 1, c]
        for c in range(width):
            canvas[r, horizon - 1, c] = 0.0


@numba.njit(cache=True)
def _place(avail, canvas, start, length, demand, color):
    """Book ``demand`` in rows start..start+length-1 and paint the leftmost free canvas cells."""
    num_res = avail.shape[1]
    width = canvas.shape[2]
    for r in range(num_res):
        need = demand[r]
        for t in range(start, start + length):
            avail[t, r] -= need
            left = need
            c = 0
            while left > 0 and c < width:
                if canvas[r, t, c] == 0.0:
                    canvas[r, t, c] = color
                    left -= 1
                c += 1


class Grid:
    """The DeepRM machine, job slots and backlog, driven by ``allocate`` and ``move_on``.

    After ``reset(jobset)``: ``now`` is the current time step, ``slots`` a list of job indices
    (-1 empty), ``backlog`` a deque of job indices, and per job (index into the job set) the arrays
    ``start``, ``finish`` (-1 until placed), ``state`` (PENDING, WAITING, PLACED, DROPPED) and
    ``withheld`` (number of ``move_on`` calls at which it sat in a slot and could have started), and
    what it found on arrival: ``sub_queue`` waiting jobs, ``sub_work`` their work on resource 0
    (sum of length x demand) and ``sub_free`` free units of resource 0. ``n_waiting`` and
    ``waiting_work`` (per resource) describe the current queue (slots and backlog).
    ``version`` counts changes of the machine, ``slot_version`` of each slot and ``episode`` the
    resets, so incremental encoders know what to redraw.
    """

    def __init__(self, params: GridParams, rng: np.random.Generator | None = None):
        self.params = p = params
        self.rng = rng if rng is not None else np.random.default_rng(0)
        H, R, W = p.rows, p.num_res, p.num_nw
        self.capacity = np.full(R, p.res_slot, dtype=np.int64)
        self.avail = np.full((H, R), p.res_slot, dtype=np.int64)
        self.canvas = np.zeros((R, H, p.res_slot), dtype=np.float32)
        self.slot_len = np.zeros(W, dtype=np.int64)  # 0 = empty slot
        self.slot_job = np.full(W, -1, dtype=np.int64)  # mirrors ``slots`` for the kernels
        self.slot_dem = np.zeros((W, R), dtype=np.int64)
        self._fit_buf = np.zeros(W, dtype=np.bool_)
        self._inv_len = 1.0 / np.arange(1, p.max_job_len + 1, dtype=np.float64)
        self._inv_len = np.concatenate([[0.0], self._inv_len])
        self._colors = (np.arange(p.job_num_cap, dtype=np.float32) + 1) / np.float32(p.job_num_cap)
        self.jobset: JobSet | None = None

    # -- episode -------------------------------------------------------------------------------
    def reset(self, jobset: JobSet) -> None:
        """Empty machine at time 0; the jobs arriving at step 0 enter."""
        p = self.params
        if jobset.num_res != p.num_res:
            raise ConfigError(f"job set has {jobset.num_res} resources, the grid {p.num_res}")
        n = len(jobset)
        if n and (jobset.length.max() > p.max_job_len or jobset.demand.max() > p.max_job_size):
            raise ConfigError(f"job set exceeds the grid: longest job {jobset.length.max()} "
                              f"(max_job_len {p.max_job_len}), largest demand {jobset.demand.max()} "
                              f"(max_job_size {p.max_job_size})")
        self.jobset = jobset
        self.arrival = jobset.arrival
        self.length = jobset.length
        self.demand = jobset.demand
        self._arrival_list = jobset.arrival.tolist()
        self._length_list = jobset.length.tolist()
        self._n_jobs = n
        self.start = np.full(n, -1, dtype=np.int64)
        self.finish = np.full(n, -1, dtype=np.int64)
        self.state = np.zeros(n, dtype=np.int8)
        self.withheld = np.zeros(n, dtype=np.int64)
        self.sub_queue = np.zeros(n, dtype=np.int64)
        self.sub_work = np.zeros(n, dtype=np.int64)
        self.sub_free = np.zeros(n, dtype=np.int64)
        self.n_waiting = 0
        self.waiting_work = np.zeros(p.num_res, dtype=np.int64)  # sum of length * demand, waiting jobs
        self.color_index = np.full(n, -1, dtype=np.int64)
        self.now = 0
        self.avail[:] = p.res_slot
        self.canvas[:] = 0.0
        self.slots = [-1] * p.num_nw
        self.slot_len[:] = 0
        self.slot_dem[:] = 0
        self.slot_job[:] = -1
        self.backlog: deque[int] = deque()
        self.dropped: list[int] = []
        # jobs in the system per length (floats holding exact small integers, for a fast dot)
        self.count_by_len = np.zeros(p.max_job_len + 1, dtype=np.float64)
        self.n_in_system = 0
        self.n_running = 0  # placed, not finished
        self._finishing: dict[int, list[int]] = {}
        self._color_used = np.zeros(p.job_num_cap, dtype=np.bool_)
        self.time_since_new = 0
        self._next = 0
        self.version = 0
        self.slot_version = [0] * p.num_nw
        self.episode = getattr(self, "episode", -1) + 1
        self._enqueue_arrivals()

    # -- queries -------------------------------------------------------------------------------
    @property
    def backlog_len(self) -> int:
        return len(self.backlog)

    def fits(self, slot: int, now_only: bool | None = None) -> bool:
        """Whether the job in ``slot`` can be placed (now only, or per the grid's placement)."""
        if self.slots[slot] < 0:
            return False
        return self._start_offset(slot, now_only) >= 0

    def fit_mask(self, now_only: bool | None = None, out: np.ndarray | None = None) -> np.ndarray:
        """Boolean array over slots: occupied and fits (see ``fits``). Reuses ``out`` if given."""
        if now_only is None:
            now_only = self.params.placement == "now"
        out = self._fit_buf.copy() if out is None else out
        _fit_mask(self.avail, self.slot_len, self.slot_dem, now_only, self.params.time_horizon, out)
        return out

    def inv_length_sum(self) -> float:
        """Sum of 1/length over the jobs in the system (running, in slots, in the backlog)."""
        return float(np.dot(self.count_by_len, self._inv_len))

    def waiting_jobs(self) -> list[int]:
        """Job indices in the slots (slot order) then the backlog (FIFO order)."""
        return [j for j in self.slots if j >= 0] + list(self.backlog)

    def running_jobs(self) -> list[int]:
        """Placed jobs that have not finished (including those booked to start later)."""
        return [j for js in self._finishing.values() for j in js]

    def first_to_finish(self) -> int:
        """The placed, unfinished job with the earliest finish (lowest index on ties), or -1."""
        if not self._finishing:
            return -1
        return min(self._finishing[min(self._finishing)])

    def all_done(self) -> bool:
        """No job will arrive any more and none is in the system."""
        return self._next >= len(self._arrival_list) and self.n_in_system == 0

    # -- actions -------------------------------------------------------------------------------
    def _start_offset(self, slot: int, now_only: bool | None = None) -> int:
        length = int(self.slot_len[slot])
        if now_only is None:
            now_only = self.params.placement == "now"
        last = 0 if now_only else self.params.time_horizon - length
        return _earliest_start(self.avail, length, self.slot_dem[slot], last)

    def allocate(self, slot: int) -> bool:
        """Place the job in ``slot``; False (and no change) if the slot is empty or it does not fit."""
        job = self.slots[slot]
        if job < 0:
            return False
        offset = self._start_offset(slot)
        if offset < 0:
            return False
        p = self.params
        length = self._length_list[job]
        if p.machine_colors:
            k = int(np.argmin(self._color_used))
            if self._color_used[k]:  # more jobs on the machine than colours: reuse the last one
                k = p.job_num_cap - 1
            self._color_used[k] = True
            self.color_index[job] = k
            color = self._colors[k]
        else:
            color = np.float32(1.0)
        _place(self.avail, self.canvas, offset, length, self.slot_dem[slot], color)
        start = self.now + offset
        self.start[job] = start
        self.finish[job] = start + length
        self.state[job] = PLACED
        self._finishing.setdefault(start + length, []).append(job)
        self.n_running += 1
        self.n_waiting -= 1
        self.waiting_work -= length * self.demand[job]
        self.version += 1
        # the backlog's head takes the freed slot
        if self.backlog:
            self._set_slot(slot, self.backlog.popleft())
        else:
            self._set_slot(slot, -1)
        return True

    def move_on(self) -> None:
        """Advance time by one step.

        Withheld (recorded before time moves): a job in a visible slot whose demand fits in the
        free resources from now for its whole length -- it could have started now but the
        scheduler moved on. ``withheld[j]`` counts such steps per job.
        """
        p = self.params
        _advance(self.avail, self.canvas, p.res_slot, self.slot_len, self.slot_dem, self.slot_job,
                 self.withheld, self._fit_buf)
        self.now += 1
        self.version += 1
        done = self._finishing.pop(self.now, None)
        if done:
            for j in done:
                self.count_by_len[self._length_list[j]] -= 1
                if self.color_index[j] >= 0:
                    self._color_used[self.color_index[j]] = False
            self.n_in_system -= len(done)
            self.n_running -= len(done)
        if self.time_since_new < p.max_track_since_new:
            self.time_since_new += 1
        if self._next < self._n_jobs and self._arrival_list[self._next] <= self.now:
            self._enqueue_arrivals()

    # -- internals -----------------------------------------------------------------------------
    def _set_slot(self, slot: int, job: int) -> None:
        self.slots[slot] = job
        self.slot_job[slot] = job
        if job >= 0:
            self.slot_len[slot] = self._length_list[job]
            self.slot_dem[slot] = self.demand[job]
        else:
            self.slot_len[slot] = 0
            self.slot_dem[slot] = 0
        self.slot_version[slot] += 1

    def _enqueue_arrivals(self) -> None:
        arrivals = self._arrival_list
        while self._next < len(arrivals) and arrivals[self._next] <= self.now:
            job = self._next
            self._next += 1
            try:
                slot = self.slots.index(-1)
            except ValueError:
                slot = -1
            if slot >= 0:
                self._set_slot(slot, job)
            elif len(self.backlog) < self.params.backlog_size:
                self.backlog.append(job)
            elif self.params.backlog_full == "retry":
                self._delay_from(job)  # it has not arrived: time_since_new keeps counting
                break
            else:
                self.state[job] = DROPPED
                self.dropped.append(job)
                self.time_since_new = 0
                continue
            self.time_since_new = 0
            self.state[job] = WAITING
            self.count_by_len[self._length_list[job]] += 1
            self.n_in_system += 1
            # the queue as the job found it (compact state features of sched-rl-gym)
            self.sub_queue[job] = self.n_waiting
            self.sub_work[job] = self.waiting_work[0]
            self.sub_free[job] = self.avail[0, 0]
            self.n_waiting += 1
            self.waiting_work += self._length_list[job] * self.demand[job]

    def _delay_from(self, job: int) -> None:
        """``backlog_full="retry"``: ``job`` and every later job arrive one step later (the
        sequence stalls). The job set's own arrays are left alone (copy on first delay)."""
        if self.arrival is self.jobset.arrival:
            self.arrival = self.arrival.copy()
        self.arrival[job:] += 1
        self._arrival_list[job:] = [t + 1 for t in self._arrival_list[job:]]
        self._next = job

    # -- results -------------------------------------------------------------------------------
    def job_records(self) -> np.ndarray:
        """Structured array, one row per job that arrived and was not dropped, in arrival order.

        Fields: job, arrival, length, demand_0..demand_{R-1}, start, finish, slowdown,
        completion_time, state, withheld. ``state`` is "finished" (finish <= now), "running"
        (placed; finish is known because lengths are exact, possibly after ``now``, as DeepRM
        records it) or "waiting" (never placed: start = finish = -1, and slowdown and completion
        time are the values accrued so far, (now - arrival) / length and now - arrival, i.e. what
        the slowdown reward has charged for the job).
        """
        R = self.params.num_res
        seen = np.flatnonzero((self.state == WAITING) | (self.state == PLACED))
        dtype = ([("job", "i8"), ("arrival", "i8"), ("length", "i8")]
                 + [(f"demand_{r}", "i8") for r in range(R)]
                 + [("start", "i8"), ("finish", "i8"), ("slowdown", "f8"), ("completion_time", "f8"),
                    ("state", "U8"), ("withheld", "i8")])
        rec = np.zeros(len(seen), dtype=dtype)
        rec["job"] = seen
        rec["arrival"] = self.arrival[seen]
        rec["length"] = self.length[seen]
        for r in range(R):
            rec[f"demand_{r}"] = self.demand[seen, r]
        rec["start"] = self.start[seen]
        rec["finish"] = self.finish[seen]
        placed = self.state[seen] == PLACED
        end = np.where(placed, self.finish[seen], self.now)
        rec["completion_time"] = end - self.arrival[seen]
        rec["slowdown"] = rec["completion_time"] / self.length[seen]
        rec["state"] = np.where(placed, np.where(self.finish[seen] <= self.now, "finished", "running"),
                                "waiting")
        rec["withheld"] = self.withheld[seen]
        return rec

    def withheld_lengths(self) -> np.ndarray:
        """Lengths of the jobs withheld at least once (one entry per job)."""
        return self.length[self.withheld > 0].copy()
