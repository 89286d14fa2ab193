"""Pick-and-reserve decision process: ``schedrl/HPCPickReserve-v0``.

Used by DRAS, SEM and MRSch: the agent picks a job from the window; it starts if it fits, or it
becomes the reserved job and EASY backfilling runs around the reservation.
"""

from __future__ import annotations

import numpy as np

from schedrl.envs.hpc import HPCEnv
from schedrl.envs.rewards import RewardContext


class PickReserveEnv(HPCEnv):
    """Event-driven scheduling where a pick starts the job or reserves it (EASY backfilling).

    ## Decision process
    The picked job starts at once if it fits; otherwise it becomes the reserved job (resources
    held at its earliest start, computed from requested walltimes), EASY backfilling starts every
    later job that does not delay it, and the clock moves on. While a reservation is held the
    agent is not asked: at each event the reserved job starts as soon as it fits, and until then
    EASY backfilling runs around it. Decision points are the events (submissions, job ends) and
    the instants right after a start, whenever jobs wait and no reservation is held. Always
    picking the head reproduces ``schedrl.sim.simulate(policy="fcfs", backfill="easy")``.

    ## Action space
    ``Discrete(window)`` (window 50 by default), action i = the i-th waiting job. An empty slot is
    invalid and is treated as the queue head (``info["invalid_action"]`` is set).

    ## Episode end
    Terminated when every job has finished (after the last decision the simulator runs out the
    remaining jobs); no step limit by default.

    Everything else (observations, rewards, info, episodes, arguments): ``HPCEnv``; no arguments
    of its own.
    """

    DEFAULT_WINDOW = 50
    DEFAULT_MAX_STEPS = None
    EXTRA_ACTIONS = 0

    def _act(self, a: int) -> tuple[RewardContext, bool]:
        """Start the picked job, or reserve it and EASY-backfill (the clock moves on afterwards)."""
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
        else:
            sim.reserve(i)
            self.n_started += sim.backfill()
        return self._context(job, started, max_wait), invalid

    def _schedule_to_decision(self, after_action: RewardContext | None = None) -> None:
        """Run events until no reservation is held and jobs wait (or the episode is over)."""
        self._settle()

    def _terminated(self) -> bool:
        return self.sim.done

    def _mask(self, mask: np.ndarray, k: int) -> np.ndarray:
        if k == 0:
            mask[0] = True  # episode over: keep one action valid for samplers
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
