"""sched-rl-gym's compact state of the DeepRM grid (mdp-design section 4.2, REFERENCE-FACTS).

A float32 vector of length ``2 * H * num_res + 7 * W + 8`` (118 for H 20, W 10, one resource), in
order:

1. cluster over the horizon, per resource r and step t = 0..H-1: ``(free, used) / res_slot``;
2. per job slot i, 7 features, each ``(x + 1) / (limit + 1)`` clipped to 1, all 0 for an empty
   slot: submission time (limit ``time_limit``), requested time (``max_job_len``), requested memory
   (demand of resource 1, 0 with one resource; ``res_slot``), requested processors (demand of
   resource 0; ``res_slot``), queue size at submission (``num_nw + backlog_size``), queued
   processor work at submission (``(num_nw + backlog_size) * max_job_len * max_job_size``) and free
   processors at submission (``res_slot``);
3. backlog fill: ``backlog_len / backlog_size``;
4. the placed job that finishes first: remaining time ``/ time_limit``, its processors
   ``/ res_slot``, (free processors now + its processors) ``/ res_slot`` (0, 0, free now if none);
5. remaining processor work and memory work of the waiting jobs ``/ (res_slot * time_limit)``,
   queue size ``/ time_limit``, time left ``1 - now / time_limit``.

The normalising limits are ours where the paper gives none (it lists the features, Table 1);
every value is clipped to [0, 1]. ``time_limit`` is the episode's length in time steps
(the env passes ``episode_max_length``). The layout does not depend on ``res_slot``, W and H
being equal, so agents transfer between cluster sizes, the point of the paper's section 4.2.
"""

from __future__ import annotations

import numba
import numpy as np

from schedrl.sim.grid import Grid, GridParams

JOB_FEATURES = 7
TAIL_FEATURES = 8


def compact_size(params: GridParams) -> int:
    return 2 * params.time_horizon * params.num_res + JOB_FEATURES * params.num_nw + TAIL_FEATURES


class CompactEncoder:
    """Compact vector (see module docstring); ``shape = (2 * H * num_res + 7 * W + 8,)``."""

    name = "compact"

    def __init__(self, params: GridParams, time_limit: int | None = None):
        self.params = p = params
        self.time_limit = int(time_limit) if time_limit else 200
        self.shape = (compact_size(p),)
        self.low, self.high = 0.0, 1.0
        queue_cap = p.num_nw + p.backlog_size
        self._limits = np.array([self.time_limit, p.max_job_len, p.res_slot, p.res_slot, queue_cap,
                                 queue_cap * p.max_job_len * p.max_job_size, p.res_slot], dtype=np.float64)

    def __call__(self, grid: Grid) -> np.ndarray:
        p = self.params
        out = np.empty(self.shape, dtype=np.float32)
        backlog = grid.backlog_len / p.backlog_size if p.backlog_size else 0.0
        _compact(out, grid.avail, p.time_horizon, float(p.res_slot), grid.slot_job, grid.arrival,
                 grid.length, grid.demand, grid.sub_queue, grid.sub_work, grid.sub_free, self._limits,
                 backlog, grid.first_to_finish(), grid.finish, grid.now, grid.waiting_work,
                 grid.n_waiting, float(self.time_limit))
        return out


def encode_compact(grid: Grid, time_limit: int | None = None) -> np.ndarray:
    """The compact vector of ``grid`` (a pure function; the encoder class only caches the limits)."""
    return CompactEncoder(grid.params, time_limit=time_limit)(grid)


@numba.njit(cache=True)
def _compact(out, avail, horizon, res_slot, slot_job, arrival, length, demand, sub_queue, sub_work,
             sub_free, limits, backlog, first, finish, now, waiting_work, n_waiting, time_limit):
    num_res = avail.shape[1]
    k = 0
    for r in range(num_res):
        for t in range(horizon):
            free = avail[t, r] / res_slot
            out[k] = free
            out[k + 1] = 1.0 - free
            k += 2
    for i in range(slot_job.shape[0]):
        j = slot_job[i]
        if j < 0:
            for f in range(JOB_FEATURES):
                out[k + f] = 0.0
        else:
            mem = demand[j, 1] if num_res > 1 else 0
            raw = (arrival[j], length[j], mem, demand[j, 0], sub_queue[j], sub_work[j], sub_free[j])
            for f in range(JOB_FEATURES):
                out[k + f] = min((raw[f] + 1.0) / (limits[f] + 1.0), 1.0)
        k += JOB_FEATURES
    out[k] = min(backlog, 1.0)
    free_now = avail[0, 0]
    if first >= 0:
        procs = demand[first, 0]
        out[k + 1] = min((finish[first] - now) / time_limit, 1.0)
        out[k + 2] = procs / res_slot
        out[k + 3] = min((free_now + procs) / res_slot, 1.0)
    else:
        out[k + 1] = 0.0
        out[k + 2] = 0.0
        out[k + 3] = free_now / res_slot
    out[k + 4] = min(waiting_work[0] / (res_slot * time_limit), 1.0)
    out[k + 5] = min(waiting_work[1] / (res_slot * time_limit), 1.0) if num_res > 1 else 0.0
    out[k + 6] = min(n_waiting / time_limit, 1.0)
    out[k + 7] = max(1.0 - now / time_limit, 0.0)
