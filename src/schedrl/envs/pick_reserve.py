"""Pick-and-reserve decision process: ``schedrl/HPCPickReserve-v0``.

Used by DRAS, SEM and MRSch: the agent picks a job from the window; it starts if it fits. What a
pick that does not fit does, and when the agent is asked, is the decision ``process``: ``hold``
(the pick becomes the reserved job, EASY backfilling runs around it and the agent is not asked
until it starts) or ``every_event`` (MRSch's section IV and public code: the queue head gets EASY's
reservation, and the agent is asked again at the next submission or job end) or ``dras`` (DRAS's
public code: the queue head is reserved and the agent chooses each backfilled job).
"""

from __future__ import annotations

import numpy as np

from schedrl.envs.hpc import HPCEnv
from schedrl.envs.rewards import RewardContext
from schedrl.errors import ConfigError

PROCESSES = ("hold", "every_event", "dras")


class PickReserveEnv(HPCEnv):
    """Event-driven scheduling where a pick starts the job or reserves it (EASY backfilling).

    ## Decision process
    ``process`` (a constructor argument) says what a pick that does not fit does and when the
    agent is asked. In both, the picked job starts at once if it fits, and each step is one
    decision (under ``dras`` a decision may also backfill a job).

    ``hold`` (default): a pick that does not fit becomes the reserved job (resources held at its
    earliest start, computed from requested walltimes), EASY backfilling starts every later job
    that does not delay it, and the clock moves on. While a reservation is held the agent is not
    asked: at each event the reserved job starts as soon as it fits, and until then EASY
    backfilling runs around it. The agent is asked at the events (submissions, job ends) and the
    instants right after a start, whenever jobs wait and no reservation is held.

    ``every_event`` (MRSch, section IV: every submission and job end triggers a scheduling
    request): a pick that does not fit gets no reservation; the queue head gets EASY's (if a node
    is free) and EASY backfilling runs around it, then the clock moves on. At the next event the
    reservation is dropped and the agent re-plans. The agent is asked (a) at every event instant
    (simultaneous submissions and ends are one instant) where jobs wait, whether or not any fits,
    and (b) at the same instant again right after each start, while a job in the window fits the
    free resources. When none does, every pick would fail the same way, so the process does what
    the failed pick does (head reserved, EASY backfilling) without asking. Each decision starts a
    job or moves the clock to the next event, so an episode has at most jobs + event instants
    decisions. ``ask_when_none_fits=False`` applies the same rule to (a): at an event instant
    where no window job fits the free resources the agent is not asked either (the process does
    what any pick would do: head reserved, EASY backfilling, clock on), so it is asked only where
    its pick can start a job. Schedules are the same as with the asks; only the decisions that
    carry no choice are left out (MRSch's public code asks there too; default True).

    ``dras`` (DRAS's public code, CQSim's ``PG`` branch with ``backfill=3``: ``start_scan`` runs
    at every submission and job end, its RL backfill lets the agent pick backfilled jobs). Two
    kinds of decision, named by ``info["decision"]`` (and ``decision_kind``): ``"pick"`` and
    ``"backfill"``. At each event instant (simultaneous submissions and ends are one instant here,
    the simpler reading: the code scans after each event, so it may decide before all of an
    instant's arrivals and ends are applied) where jobs wait:
    if the queue head is the job held from an earlier scan, it starts if it fits (no decision);
    otherwise the agent picks from the window. A pick that fits starts and the agent picks again
    at the same instant, whether or not any job still fits (the code asks after every start). A
    pick that does not fit gets no reservation: the queue head (the oldest waiting job) is held
    and gets EASY's reservation (re-planned at each event, as the code rebuilds its plan), even
    when the head itself fits (the code then leaves it for the next event, as here). Backfilling
    is then the agent's: one ``"backfill"`` decision per backfilled job, its mask the window jobs
    that can start now without delaying the reservation (they fit the free resources and end, by
    requested walltime, by the shadow time or fit the extra), until none is eligible; waiting jobs
    behind the window that are eligible then are EASY-backfilled in queue order without a decision
    (the code offers the first 50 eligible jobs wherever they wait; our actions are window slots).
    Then the clock moves to the next event. The held head keeps its hold across events until it
    starts, and while it is held the agent makes backfill decisions only (the code then skips the
    pick: ``keep_job_order``). A backfill action outside the mask is invalid and plays the first
    eligible job. ``ask_when_none_fits=False`` skips the pick decisions where no window job fits
    (every pick then holds the head; same schedules). Where the code differs and we keep our
    simulator's rule: its backfill test uses the candidates' actual runtimes, ours requested
    walltimes (as every EASY here); it reserves the head even with no node free, we hold the head
    then but reserve it only when a node is free (as ``simulate``; nothing can backfill anyway).

    Always picking the head (under ``dras``: the first valid action, i.e. the first eligible job
    in backfill decisions) reproduces ``schedrl.sim.simulate(policy="fcfs", backfill="easy")``
    under every process.

    ## Action space
    ``Discrete(window)`` (window 50 by default), action i = the i-th waiting job. An empty slot is
    invalid and is treated as the queue head (``info["invalid_action"]`` is set).

    ## Episode end
    Terminated when every job has finished (after the last decision the simulator runs out the
    remaining jobs); no step limit by default.

    ## Arguments
    Its own: ``process`` ("hold", "every_event" or "dras"; default "hold") and
    ``ask_when_none_fits`` (``every_event`` and ``dras`` only; default True); every other argument
    as in ``HPCEnv``. ``info["decision"]`` ("pick" or "backfill") is added under ``dras`` only.

    Everything else (observations, rewards, info, episodes): ``HPCEnv``.
    """

    DEFAULT_WINDOW = 50
    DEFAULT_MAX_STEPS = None
    EXTRA_ACTIONS = 0

    def __init__(self, *args, process: str = "hold", ask_when_none_fits: bool = True, **kwargs):
        if process not in PROCESSES:
            raise ConfigError(f"unknown decision process '{process}' for pick_reserve (choose from: "
                              f"{', '.join(PROCESSES)})")
        if not isinstance(ask_when_none_fits, bool):
            raise ConfigError(f"ask_when_none_fits must be true or false, not {ask_when_none_fits!r}")
        if not ask_when_none_fits and process == "hold":
            # under hold a failed pick is reserved, so picks differ even when none fits
            raise ConfigError("ask_when_none_fits=False applies to processes 'every_event' and 'dras' only, "
                              f"not '{process}'")
        self.process = process
        self.ask_when_none_fits = ask_when_none_fits
        self.decision_kind = "pick"  # "backfill" while dras asks for a backfilled job
        self._held = -1  # dras: the job held as reserved (always the queue head), -1 if none
        super().__init__(*args, **kwargs)

    def _reset_process(self) -> None:
        self.decision_kind = "pick"
        self._held = -1

    def _act(self, a: int) -> tuple[RewardContext, bool]:
        """Start the picked job; if it does not fit, reserve it (``hold``) or the head and EASY-backfill."""
        if self.process == "dras":
            return self._act_dras(a)
        sim = self.sim
        invalid = not 0 <= a < min(self.window, len(sim.queue))
        if not sim.queue:  # the episode is over
            return self._context(-1, False), True
        i = 0 if invalid else a
        job = sim.queue[i]
        max_wait = float(sim.clock - sim.jobs.submit[sim.queue[0]])  # the queue is in arrival order
        started = sim.start(i)
        if started:
            self.n_started += 1
        elif self.process == "hold":
            sim.reserve(i)
            self.n_started += sim.backfill()
        else:
            self._easy_around_head()
        return self._context(job, started, max_wait), invalid

    def _schedule_to_decision(self, after_action: RewardContext | None = None) -> None:
        """Run the simulator to the next instant the process asks the agent (see the docstring)."""
        if self.process == "hold":
            self._settle()
            return
        if self.process == "dras":
            self._dras_to_decision(after_action)
            return
        sim = self.sim
        if after_action is not None and not sim.done:
            if after_action.started:
                if self._window_fits():
                    return  # same instant: a pick can still start a job
                self._easy_around_head()  # what any (failing) pick would do now
            # something runs (a failed pick or a start), so the clock moves to a later event
            self._advance()
        while not sim.done:
            sim.release()  # a reservation lasts until the next event: the agent re-plans
            if sim.queue:  # (nothing runs or arrives only if jobs wait, and then every pick fits)
                if self.ask_when_none_fits or sim.stalled or self._window_fits():
                    return
                self._easy_around_head()  # no pick can start a job: what every pick would do
            self._advance()

    def _window_fits(self) -> bool:
        """Whether a job in the window fits the free resources now."""
        sim = self.sim
        k = min(self.window, len(sim.queue))
        return bool((sim.jobs.demand[sim.queue[:k]] <= sim.free).all(axis=1).any())

    def _easy_around_head(self) -> None:
        """``every_event``'s answer to a pick that does not fit: CQSim's EASY, which starts jobs
        from the queue head while they fit (the agent may have passed over a head that fits), then
        reserves the head (only when a node is free: backfilling needs one, as in ``simulate``)."""
        sim = self.sim
        while sim.queue and sim.start(0):
            self.n_started += 1
        if sim.queue and sim.free[0] > 0:
            sim.reserve(0)
            self.n_started += sim.backfill()

    # -- dras (see the class docstring) --------------------------------------------------------
    def _act_dras(self, a: int) -> tuple[RewardContext, bool]:
        sim = self.sim
        if not sim.queue:  # the episode is over
            return self._context(-1, False), True
        k = min(self.window, len(sim.queue))
        max_wait = float(sim.clock - sim.jobs.submit[sim.queue[0]])
        if self.decision_kind == "backfill":
            eligible = self._backfill_mask(k)
            invalid = not (0 <= a < k and eligible[a])
            i = int(np.flatnonzero(eligible)[0]) if invalid else a
            job = sim.queue[i]
            started = sim.start(i)  # a valid EASY backfill by the mask's construction
            self.n_started += int(started)
            return self._context(job, started, max_wait), invalid
        invalid = not 0 <= a < k
        i = 0 if invalid else a
        job = sim.queue[i]
        started = sim.start(i)  # no reservation is held while the agent picks
        if started:
            self.n_started += 1
        else:
            self._hold_head()
        return self._context(job, started, max_wait), invalid

    def _dras_to_decision(self, after_action: RewardContext | None) -> None:
        sim = self.sim
        if after_action is not None and not sim.done:
            if self.decision_kind == "backfill" or not after_action.started:
                if self._next_backfill():
                    return
                self._advance()
            # else a pick started a job: the scan goes on at this instant
        while not sim.done:
            if self._scan():
                return
            self._advance()

    def _scan(self) -> bool:
        """DRAS's ``start_scan`` up to the next decision at this instant; False when the scan ends."""
        sim = self.sim
        sim.release()  # the reservation is re-planned at every scan
        while sim.queue:
            if sim.queue[0] == self._held:
                if sim.start(0):
                    self.n_started += 1
                    self._held = -1
                    continue
                if sim.free[0] > 0:
                    sim.reserve(0)
                return self._next_backfill()
            if not self.ask_when_none_fits and not sim.stalled and not self._window_fits():
                self._hold_head()  # what every pick would do
                return self._next_backfill()
            self.decision_kind = "pick"
            return True
        return False

    def _hold_head(self) -> None:
        """A failed pick: the queue head is held and reserved (when a node is free: see the docstring)."""
        sim = self.sim
        self._held = sim.queue[0]
        if sim.free[0] > 0:
            sim.reserve(0)

    def _next_backfill(self) -> bool:
        """Whether a window job can be backfilled now (a backfill decision); if none, EASY-backfill
        the jobs behind the window in queue order and end the scan."""
        sim = self.sim
        if self._backfill_mask(min(self.window, len(sim.queue))).any():
            self.decision_kind = "backfill"
            return True
        if sim.reserved >= 0:
            self.n_started += sim.backfill()  # the window's jobs are all ineligible: only later ones start
        return False

    def _backfill_mask(self, k: int) -> np.ndarray:
        """Window slots whose job starts now without delaying the reservation (``sim.start``'s test)."""
        sim = self.sim
        if sim.reserved < 0:  # no node free: nothing fits
            return np.zeros(k, dtype=bool)
        q = np.asarray(sim.queue[:k], dtype=np.int64)
        demand = sim.jobs.demand[q]
        shadow, extra = sim.shadow, sim.extra
        by_shadow = sim.clock + sim.jobs.req_time[q] <= shadow
        return ((demand <= sim.free).all(axis=1) & (by_shadow | (demand <= extra).all(axis=1))
                & (q != sim.reserved))

    def _info(self) -> dict:
        info = super()._info()
        if self.process == "dras":
            info["decision"] = self.decision_kind
        return info

    def _terminated(self) -> bool:
        return self.sim.done

    def _mask(self, mask: np.ndarray, k: int) -> np.ndarray:
        if k == 0:
            mask[0] = True  # episode over: keep one action valid for samplers
        elif self.process == "dras" and self.decision_kind == "backfill":
            mask[:k] = self._backfill_mask(k)
        return mask

    def _settle(self) -> None:
        sim = self.sim
        fresh = 0  # queue positions >= fresh arrived since the last full backfill pass
        while not sim.done:
            if sim.reserved >= 0 and sim.start_reserved():
                self.n_started += 1
                fresh = 0
            if sim.reserved < 0 and sim.queue:
                return  # decision point
            if sim.reserved >= 0 and sim.free[0] > 0:  # every job needs a node
                if fresh == 0:
                    self.n_started += sim.backfill()
                else:
                    # Only arrivals since the last pass: the waiting jobs already failed EASY's test
                    # under the same free resources, shadow and extra, so try the newcomers only.
                    i = fresh
                    while i < len(sim.queue) and sim.free[0] > 0:
                        if sim.start(i):
                            self.n_started += 1
                        else:
                            i += 1
            if sim.stalled:  # nothing runs or arrives (cannot hold a reservation: it would fit)
                return
            ended, waiting = sim.finished, len(sim.queue)
            self._advance()
            fresh = waiting if sim.finished == ended else 0
