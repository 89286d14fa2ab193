"""Step API for learning agents: the simulator stops at every decision point and waits for actions.

``HPCSimulator`` holds the same model as the compiled whole-trace loop (``core``): integer resource
vectors, reservations from requested walltimes, jobs ending at their actual runtime. It adds node
identities (a job takes the lowest-numbered free nodes) so encoders can read per-node vectors.

Actions at a decision point (``i`` is a position in the waiting queue, arrival order):

* ``start(i)``: start the job now if it fits (and, while a reservation is held, only if it is a
  valid EASY backfill: it ends by the shadow time or fits in the extra resources);
* ``reserve(i)``: hold resources for the job at its shadow time (one reservation at a time);
* ``backfill()``: EASY-backfill the queue around the reservation (reserving the queue head first
  if nothing is reserved);
* ``advance()``: run to the next decision point and return the state; ``next_decision_point()``
  does the same without building a ``SimState`` (for environments that read the simulator's
  attributes directly) and returns the new clock.

EASY's shadow time is the earliest requested end of running jobs after which the reserved job
fits; the *extra* is what is free then beyond its demand, counting every running job whose
requested end is at or before the shadow time. Jobs started while a reservation is held
(``start(i)`` or ``backfill()``, the same test) either end by the shadow time (they take nothing
from the extra) or fit in the extra (which shrinks by their demand).

Time modes: ``sim_step=None`` is event-driven (decision points at submissions and job ends).
With ``sim_step`` set the clock moves in ticks of ``sim_step`` seconds (the runtime paper, brief
4.1): a tick is a decision point when a job arrived or ended since the last one, or when jobs wait
while nodes are idle; with ``double_idle`` the tick doubles each time such an idle-only decision
point follows another (reset on the next arrival or end), up to ``max_idle_step`` seconds (one
day by default; never below ``sim_step``), so that a machine that idles with waiting jobs, or
with nothing running and nothing left to arrive, still moves on finite steps. A doubled step
stops at the tick that holds the next arrival or job end (the paper doubles "to reach another
event sooner"); ``idle_overshoot=True`` lets it jump past them (the clock then sees arrivals and
ends late: ~20% of arrivals over a minute late on the runtime paper's WL2 halves, issue 38). Jobs start on ticks;
a job's resources are released on the first tick at or after its end (its recorded end time is
exact).
"""

from __future__ import annotations

import heapq
import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from schedrl.errors import SchedrlError
from schedrl.sim.cluster import ClusterSpec, job_arrays
from schedrl.sim.core import easy_backfill_picks, easy_shadow

QUEUE_FEATURES = ("req_procs", "req_time", "estimate", "wait", "bb_request", "power_per_node")


@dataclass
class SimState:
    """What an agent sees at a decision point (arrays are copies, cheap to keep)."""

    clock: float
    free: np.ndarray            # (dims,) free capacity per resource dimension (int64)
    capacity: np.ndarray        # (dims,)
    queue: np.ndarray           # waiting job indices, arrival order
    queue_features: np.ndarray  # (len(queue), len(QUEUE_FEATURES)) float64
    running: np.ndarray         # running job indices
    running_expected_end: np.ndarray  # start + requested walltime
    running_estimated_end: np.ndarray  # start + runtime estimate
    node_job: np.ndarray        # (nodes,) job index on each node, -1 when free
    node_remaining_req: np.ndarray  # (nodes,) requested time left on each node, 0 when free
    node_remaining_est: np.ndarray  # (nodes,) estimated time left on each node, 0 when free
    reserved: int               # job index holding the reservation, -1 if none
    shadow: float               # its reserved start time (inf if none)
    done: bool

    def window(self, size: int) -> tuple[np.ndarray, np.ndarray]:
        """The first ``size`` queue rows (features zero-padded) and a validity mask."""
        feats = np.zeros((size, self.queue_features.shape[1]))
        k = min(size, len(self.queue))
        feats[:k] = self.queue_features[:k]
        mask = np.zeros(size, dtype=bool)
        mask[:k] = True
        return feats, mask


class _OutOfSteps(Exception):
    """``run_policy``'s ``max_steps`` are spent."""


class HPCSimulator:
    """Event-driven (or time-stepped) cluster simulator driven one action at a time."""

    def __init__(self, cluster: ClusterSpec, overrun: str = "kill", sim_step: float | None = None,
                 double_idle: bool = True, max_idle_step: float = 86_400.0, idle_overshoot: bool = False):
        if sim_step is not None and sim_step <= 0:
            raise SchedrlError(f"sim_step must be positive, got {sim_step}")
        if not max_idle_step > 0 or not math.isfinite(max_idle_step):
            raise SchedrlError(f"max_idle_step must be a positive number of seconds, got {max_idle_step}")
        self.cluster = cluster
        self.overrun = overrun
        self.sim_step = sim_step
        self.double_idle = double_idle
        self.idle_overshoot = bool(idle_overshoot)
        self.max_idle_step = max(float(max_idle_step), sim_step or 0.0)
        self.capacity = cluster.capacity()
        self.jobs = None

    # ------------------------------------------------------------------ setup and reading
    def reset(self, jobs: pd.DataFrame) -> SimState:
        """Load a job table and run to the first decision point."""
        self.jobs = job_arrays(jobs, self.cluster, self.overrun)
        n = len(self.jobs)
        self.start_time = np.full(n, np.nan)
        self.end_time = np.full(n, np.nan)
        self.first_reservation = np.full(n, np.nan)
        self.free = self.capacity.copy()
        self.queue: list[int] = []
        self.running: list[int] = []
        self._ends: list[tuple[float, int]] = []  # heap of (release time, job)
        self.node_job = np.full(self.cluster.nodes, -1, dtype=np.int64)
        self.node_start = np.zeros(self.cluster.nodes)
        self._next = 0
        self.finished = 0
        self.clock = float(self.jobs.submit[0]) if n else 0.0
        self.reserved = -1
        self._shadow = math.inf
        self._extra = self.capacity.copy()
        self._shadow_valid = False
        self._step = self.sim_step
        self._idle_streak = False
        self.decision_points = 0
        self.policy_steps = 0  # run_policy's steps: starts + advances while jobs wait
        self._step_limit: float | None = None  # set (inf: no limit) while run_policy counts
        if self.sim_step is None:
            self._apply_events(self.clock)
        else:
            self._arrive(self.clock)
        self.decision_points = 1
        return self.state()

    @property
    def shadow(self) -> float:
        """The reserved job's shadow time (inf when nothing is reserved), computed when read."""
        if self.reserved >= 0:
            self._refresh_shadow()
        return self._shadow

    @property
    def extra(self) -> np.ndarray:
        """EASY's extra resources now: free at the shadow time beyond the reserved job's demand,
        net of the jobs backfilled past the shadow time (the whole capacity when nothing is
        reserved)."""
        if self.reserved >= 0:
            self._refresh_shadow()
        return self._extra.copy()

    @property
    def done(self) -> bool:
        return self.jobs is not None and self.finished == len(self.jobs)

    def state(self) -> SimState:
        j = self.jobs
        q = np.asarray(self.queue, dtype=np.int64)
        feats = np.stack([j.req_procs[q].astype(np.float64), j.req_time[q], j.estimate[q],
                          self.clock - j.submit[q], j.bb[q], j.power[q]], axis=1) if len(q) else \
            np.zeros((0, len(QUEUE_FEATURES)))
        r = np.asarray(self.running, dtype=np.int64)
        busy = self.node_job >= 0
        owner = np.where(busy, self.node_job, 0)
        if len(j):
            rem_req = np.where(busy, self.node_start + j.req_time[owner] - self.clock, 0.0)
            rem_est = np.where(busy, self.node_start + j.estimate[owner] - self.clock, 0.0)
        else:  # empty job table: a done state
            rem_req = rem_est = np.zeros(len(busy))
        return SimState(
            clock=self.clock, free=self.free.copy(), capacity=self.capacity, queue=q,
            queue_features=feats, running=r,
            running_expected_end=self.start_time[r] + j.req_time[r] if len(r) else np.zeros(0),
            running_estimated_end=self.start_time[r] + j.estimate[r] if len(r) else np.zeros(0),
            node_job=self.node_job.copy(), node_remaining_req=np.maximum(rem_req, 0.0),
            node_remaining_est=np.maximum(rem_est, 0.0), reserved=self.reserved,
            shadow=self.shadow, done=self.done)

    def fits(self, i: int) -> bool:
        """Whether the job at queue position ``i`` fits in the free resources now."""
        return bool((self.jobs.demand[self.queue[i]] <= self.free).all())

    # ------------------------------------------------------------------ actions
    def start(self, i: int) -> bool:
        """Start the job at queue position ``i`` now; False (nothing changes) if it cannot."""
        if not 0 <= i < len(self.queue):
            return False
        j = self.queue[i]
        d = self.jobs.demand[j]
        if not (d <= self.free).all():
            return False
        if self.reserved >= 0 and j != self.reserved:
            # a valid EASY backfill, exactly as ``backfill()`` tests it
            self._refresh_shadow()
            if self.clock + self.jobs.req_time[j] > self._shadow:
                if not (d <= self._extra).all():
                    return False
                self._extra = self._extra - d
        self._launch(i)
        return True

    def reserve(self, i: int) -> float:
        """Reserve resources for the job at queue position ``i``; return its shadow time."""
        if not 0 <= i < len(self.queue):
            raise IndexError(f"queue position {i} out of range ({len(self.queue)} waiting)")
        self.reserved = self.queue[i]
        self._shadow_valid = False
        self._refresh_shadow()
        if np.isnan(self.first_reservation[self.reserved]):
            self.first_reservation[self.reserved] = self.shadow
        return self.shadow

    def release(self) -> None:
        """Drop the reservation (a policy that re-plans at every decision point calls this)."""
        self._shadow_valid = False
        self.reserved = -1
        self._shadow = math.inf
        self._extra = self.capacity.copy()

    def backfill(self) -> int:
        """EASY backfilling around the reservation (the queue head's if none); return jobs started."""
        if not self.queue:
            return 0
        if self.reserved < 0:
            self.reserve(0)
        self._refresh_shadow()
        jobs = self.jobs
        # compiled scan (core.easy_backfill_picks): free and extra only shrink during the pass,
        # so one ordered sweep finds every job a sequential pass would start
        picks, extra = easy_backfill_picks(np.asarray(self.queue, dtype=np.int64), self.reserved,
                                           jobs.demand, jobs.req_time, self.clock, self._shadow,
                                           self.free, self._extra)
        for j in picks.tolist():
            self._launch(self.queue.index(j))
        self._extra = extra
        return len(picks)

    @property
    def stalled(self) -> bool:
        """Jobs wait on a machine where nothing runs and nothing will arrive: only a start helps
        (event-driven ``advance()`` then leaves the clock where it is)."""
        return (not self.done and self.sim_step is None and not self.running
                and self._next >= len(self.jobs))

    def advance(self) -> SimState:
        """Move the clock to the next decision point, apply its events and return the state."""
        self.next_decision_point()
        return self.state()

    def next_decision_point(self) -> float:
        """``advance()`` without building a ``SimState``; returns the new clock.

        Nothing happens when the run is done or ``stalled``.
        """
        self._advance()
        return self.clock

    def _advance(self) -> None:
        if self.done or self.stalled:
            return
        if self.sim_step is None:
            self._apply_events(self._next_event_time())
        else:
            self._tick()
        self._shadow_valid = False  # recomputed when next needed (see ``shadow``)
        self.decision_points += 1

    def start_reserved(self) -> bool:
        """Start the reserved job if it fits now (call at each decision point to honour it)."""
        if self.reserved < 0:
            return False
        return self.start(self.queue.index(self.reserved))

    # ------------------------------------------------------------------ whole runs
    def run_policy(self, policy, backfill: str = "easy", max_steps: int | None = None) -> pd.DataFrame:
        """Drive the simulator with a queue policy and ``none``/``easy``/``greedy`` backfilling.

        Same decisions as ``schedrl.sim.simulate`` (used to cross-check the compiled loop).
        ``max_steps`` cuts the run like a ``TimeSteppedPickEnv`` episode of that many steps: a step
        is one job started or one advance of the clock while jobs wait (the env skips decision
        points with an empty queue), so a priority pick in the env and ``greedy`` here spend the
        same steps. Jobs never started keep a NaN start; ``policy_steps`` holds this call's steps.
        """
        from schedrl.sim.queue_policies import get_policy

        if backfill not in ("none", "easy", "greedy"):
            raise SchedrlError(f"the step API drives backfill 'none', 'easy' or 'greedy', not '{backfill}'")
        if max_steps is not None and int(max_steps) < 0:
            raise SchedrlError(f"max_steps must be >= 0, not {max_steps}")
        pol = get_policy(policy) if isinstance(policy, str) else policy
        key = pol.key(self.jobs)
        self._step_limit = math.inf if max_steps is None else int(max_steps)
        self.policy_steps = 0
        try:
            self._run_policy(key, backfill)
        except _OutOfSteps:  # cut inside start()/backfill(): the reserved job's extra is recomputed when read
            self._shadow_valid = False
        finally:
            self._step_limit = None
        return self.schedule()

    def _run_policy(self, key, backfill: str) -> None:
        while not self.done:
            self.release()
            self.queue.sort(key=lambda j: (key[j], j))
            while self.queue and self.start(0):
                pass
            if backfill == "easy" and self.queue and self.free[0] > 0:
                self.reserve(0)
                self.backfill()
            elif backfill == "greedy":
                i = 1
                while i < len(self.queue) and self.free[0] > 0:
                    if not self.start(i):
                        i += 1
            if self.queue:
                self._spend_step()
            self._advance()

    def _spend_step(self) -> None:
        if self.policy_steps >= self._step_limit:
            raise _OutOfSteps
        self.policy_steps += 1

    def schedule(self) -> pd.DataFrame:
        """The per-job schedule so far, in the format of ``simulate`` (input row order)."""
        from schedrl.sim.simulate import schedule_frame

        return schedule_frame(self.jobs, self.start_time, self.end_time, self.first_reservation,
                              {"nodes": self.cluster.nodes, "bb_units": self.cluster.bb_units,
                               "power_budget": self.cluster.power_budget,
                               "idle_power": self.cluster.idle_power, "mode": "step",
                               "sim_step": self.sim_step, "overrun": self.overrun,
                               "input_fixes": self.jobs.notes})

    # ------------------------------------------------------------------ internals
    def _launch(self, i: int) -> None:
        if self._step_limit is not None:  # only run_policy counts steps
            self._spend_step()
        j = self.queue.pop(i)
        if j == self.reserved:
            self.release()
        elif self.reserved < 0:
            self._shadow_valid = False
        # else: a valid backfill (start/backfill checked it) leaves the shadow time as it is and
        # the caller has taken its demand from the extra where it runs past the shadow time
        t = self.clock
        self.start_time[j] = t
        end = t + self.jobs.run_time[j]
        self.end_time[j] = end
        self.free = self.free - self.jobs.demand[j]
        nodes = np.flatnonzero(self.node_job < 0)[: self.jobs.req_procs[j]]
        self.node_job[nodes] = j
        self.node_start[nodes] = t
        self.running.append(j)
        release = end
        if self.sim_step is not None:  # freed on the first tick at or after the end
            release = t + math.ceil(self.jobs.run_time[j] / self.sim_step) * self.sim_step
        heapq.heappush(self._ends, (release, j))

    def _refresh_shadow(self) -> None:
        """Shadow time and extra resources of the reserved job under the current running set."""
        if self._shadow_valid:
            return
        self._shadow_valid = True
        # compiled (core.easy_shadow): ties at the shadow time all count in the extra, and jobs
        # backfilled past the shadow time are not counted back: the extra is net of them
        self._shadow, self._extra = easy_shadow(
            self.free, self.reserved, np.asarray(self.running, dtype=np.int64), self.start_time,
            self.jobs.req_time, self.jobs.demand, float(self.clock))

    def _next_event_time(self) -> float:
        t = math.inf
        if self._next < len(self.jobs):
            t = float(self.jobs.submit[self._next])
        if self._ends and self._ends[0][0] < t:
            t = self._ends[0][0]
        return t

    def _finish_until(self, t: float) -> int:
        count = 0
        while self._ends and self._ends[0][0] <= t:
            _, j = heapq.heappop(self._ends)
            self.free = self.free + self.jobs.demand[j]
            self.node_job[self.node_job == j] = -1
            self.running.remove(j)
            self.finished += 1
            count += 1
        return count

    def _arrive(self, t: float) -> int:
        count = 0
        while self._next < len(self.jobs) and self.jobs.submit[self._next] <= t:
            self.queue.append(self._next)
            self._next += 1
            count += 1
        return count

    def _apply_events(self, t: float) -> int:
        self.clock = t
        return self._finish_until(t) + self._arrive(t)

    def _tick(self) -> None:
        """Time-stepped mode: advance tick by tick to the next decision point."""
        while not self.done:
            idle_decision = bool(self.queue) and self.free[0] > 0
            if not idle_decision:
                # nothing can happen before the next event: jump to the tick that holds it
                self._step = self.sim_step
                self._idle_streak = False
                ticks = max(1, math.ceil((self._next_event_time() - self.clock) / self._step - 1e-9))
                self.clock += ticks * self._step
            else:
                if self._idle_streak and self.double_idle:
                    self._step = min(self._step * 2, self.max_idle_step)
                step = self._step
                if step > self.sim_step and not self.idle_overshoot:
                    # stop on the tick that holds the next arrival or end rather than jump past it
                    ahead = self._next_event_time() - self.clock
                    if math.isfinite(ahead):
                        step = min(step, max(1, math.ceil(ahead / self.sim_step - 1e-9)) * self.sim_step)
                self.clock += step
            events = self._finish_until(self.clock) + self._arrive(self.clock)
            if events:
                self._step = self.sim_step
                self._idle_streak = False
                return
            if self.queue and self.free[0] > 0:
                self._idle_streak = True
                return
