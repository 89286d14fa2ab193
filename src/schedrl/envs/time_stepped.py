"""Time-stepped pick with advance rules: ``schedrl/HPCTimeStepped-v0``.

Used by the runtime-prediction paper (brief 4.1/4.3): the clock ticks in steps of ``sim_step``
seconds; a pick starts the job if it fits; advance rules decide when the clock moves.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from schedrl.envs.hpc import HPCEnv
from schedrl.envs.rewards import RewardContext
from schedrl.errors import ConfigError, check_bool, check_int
from schedrl.sim import ClusterSpec, HPCSimulator


class TimeSteppedPickEnv(HPCEnv):
    """Time-stepped scheduling: a pick starts the job now or fails; advance rules move the clock.

    ## Decision process
    Time-stepped simulation (``sim_step`` seconds, 60 by default; with ``double_idle`` the step
    doubles while only "jobs wait and nodes idle" decision points follow each other, and stops at the
    tick of the next arrival or job end unless ``idle_overshoot``). A pick tries
    to start the job now (no reservation, no backfilling); the clock stays put whether it succeeds
    or fails, except that it moves to the next decision point when a successful pick empties the
    queue or after ``max_failed_picks`` (4) failures in a row. Picking an empty slot or the stop
    action X moves the clock on. Decision points with an empty queue are skipped (the only
    possible action would be X). When nothing runs and every job has arrived, X and failed picks
    leave the clock where it is (ticking on could only double the idle step until the clock
    overflows); the step counts.

    ## Action space
    ``Discrete(window + 1)`` (window 100 by default), the last action is X (stop and advance); an
    empty slot acts as X. Masks: the occupied slots plus X; with ``mask_unfit=True`` only the
    waiting jobs that fit now (plus X). The runtime paper lets the agent pick jobs that do not
    fit, so ``mask_unfit`` is off by default.

    ## Episode end
    Terminated when every job has been started (brief 4.4); truncated after ``max_steps`` steps
    (10,000 by default: the paper's Max_Episode_Steps).

    ## Runtime estimates
    What the ``runtime_proposal`` encoder reads as a job's estimated runtime, by ``estimator``:
    ``"actual"`` (default; the job table's ``runtime_estimate`` column, else the actual runtime:
    a perfect oracle, what the runtime paper trains with), ``"request"`` (the requested walltime:
    no information beyond the baseline's) or ``"running_accuracy"`` (a realistic online predictor:
    the request times the mean actual/requested ratio of the jobs finished so far, 1 before any
    has finished; a waiting job's estimate follows the mean, a started job keeps the one it
    started with).

    ## Arguments
    Its own: ``sim_step`` (60.0 s), ``double_idle`` (True; the paper doubles idle steps during
    training only), ``idle_overshoot`` (False: a doubled step stops at the next event; True: it
    may jump past arrivals and job ends, which the clock then sees late), ``max_failed_picks`` (4),
    ``mask_unfit`` (False), ``estimator`` ("actual"); every other argument as in ``HPCEnv``.

    Everything else (observations, rewards, info, episodes): ``HPCEnv``.
    """

    DEFAULT_WINDOW = 100
    DEFAULT_MAX_STEPS = 10_000
    EXTRA_ACTIONS = 1  # X

    ESTIMATORS = ("actual", "request", "running_accuracy")

    def __init__(self, *args, sim_step: float = 60.0, double_idle: bool = True, idle_overshoot: bool = False,
                 max_failed_picks: int = 4, mask_unfit: bool = False, estimator: str = "actual", **kwargs):
        max_failed_picks = check_int("max_failed_picks", max_failed_picks, 1)
        if isinstance(sim_step, bool) or not isinstance(sim_step, numbers.Real) or not 0 < sim_step < math.inf:
            raise ConfigError(f"sim_step must be a finite number of seconds > 0, not {sim_step!r}")
        if estimator not in self.ESTIMATORS:
            raise ConfigError(f"unknown estimator '{estimator}' (choose from: {', '.join(self.ESTIMATORS)})")
        self.estimator = estimator
        self.sim_step, self.double_idle = float(sim_step), check_bool("double_idle", double_idle)
        self.idle_overshoot = check_bool("idle_overshoot", idle_overshoot)
        self.max_failed_picks = max_failed_picks
        self.mask_unfit = check_bool("mask_unfit", mask_unfit)
        super().__init__(*args, **kwargs)

    def _make_simulator(self, cluster: ClusterSpec, overrun: str) -> HPCSimulator:
        return HPCSimulator(cluster, overrun=overrun, sim_step=self.sim_step, double_idle=self.double_idle,
                            idle_overshoot=self.idle_overshoot)

    def _reset_process(self) -> None:
        self._fails = 0  # failed picks in a row
        self._advance_now = False
        self._seen_finished = -1
        self._estimate()

    def _estimate(self) -> None:
        """Refresh the waiting and future jobs' runtime estimates (``estimator``; see above)."""
        if self.estimator == "actual":
            return
        sim, jobs = self.sim, self.sim.jobs
        if self.estimator == "request":
            if self._seen_finished < 0:
                jobs.estimate[:] = jobs.req_time
                self._seen_finished = 0
            return
        if sim.finished == self._seen_finished:
            return  # the mean changes only when a job finishes
        self._seen_finished = sim.finished
        done = np.isfinite(sim.start_time) & (sim.end_time <= sim.clock)
        accuracy = float(np.mean(jobs.run_time[done] / np.maximum(jobs.req_time[done], 1.0))) if done.any() else 1.0
        pending = ~np.isfinite(sim.start_time)
        jobs.estimate[pending] = jobs.req_time[pending] * accuracy

    def _advance(self) -> None:
        super()._advance()
        self._estimate()

    def _act(self, a: int) -> tuple[RewardContext, bool]:
        """Try to start the picked job now (brief 4.3); the clock moves in ``_schedule_to_decision``."""
        sim = self.sim
        k = min(self.window, len(sim.queue))
        if 0 <= a < k:
            job = sim.queue[a]
            max_wait = float(sim.clock - sim.jobs.submit[sim.queue[0]])
            started = sim.start(a)
            if started:
                self.n_started += 1
                self._fails = 0
                self._advance_now = not sim.queue
            else:
                self._fails += 1
                self._advance_now = self._fails >= self.max_failed_picks
            return self._context(job, started, max_wait), False
        self._advance_now = True  # X, an empty slot or out of range
        return self._context(-1, False), a != self.window

    def _schedule_to_decision(self, after_action: RewardContext | None = None) -> None:
        """Run the simulator until the agent has a decision to make (or the episode is over)."""
        sim = self.sim
        if after_action is not None and self._advance_now:
            self._fails = 0
            # Stalled (nothing runs, every job has arrived): the clock would only tick on in idle
            # steps (doubling up to the simulator's max_idle_step); it stays put, as the
            # event-driven simulator's ``stalled`` does, and the wasted step still counts.
            stalled = not sim.running and self.n_started + len(sim.queue) == len(sim.jobs)
            if self.n_started < len(sim.jobs) and not stalled:
                self._advance()
        self._settle()

    def _terminated(self) -> bool:
        return self.n_started == len(self.sim.jobs)

    def _mask(self, mask: np.ndarray, k: int) -> np.ndarray:
        mask[-1] = True
        if self.mask_unfit and k:
            sim = self.sim
            q = np.asarray(sim.queue[:k], dtype=np.int64)
            mask[:k] = (sim.jobs.demand[q] <= sim.free).all(axis=1)
        return mask

    def _settle(self) -> None:
        """Skip decision points with an empty queue (the only action there would be X)."""
        sim = self.sim
        while not sim.queue and self.n_started < len(sim.jobs) and not sim.done:
            self._advance()
