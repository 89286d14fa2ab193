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
        p, T = self.params, float(self.time_limit)
        H, R, W, S = p.time_horizon, p.num_res, p.num_nw, float(p.res_slot)
        out = np.zeros(self.shape, dtype=np.float64)
        free = grid.avail[:H].T / S  # (R, H)
        cluster = out[: 2 * H * R].reshape(R, H, 2)
        cluster[:, :, 0] = free
        cluster[:, :, 1] = 1.0 - free
        k = 2 * H * R
        jobs = out[k:k + JOB_FEATURES * W].reshape(W, JOB_FEATURES)
        slot_job = grid.slot_job
        occupied = slot_job >= 0
        if occupied.any():
            j = slot_job[occupied]
            raw = np.stack([grid.arrival[j], grid.length[j],
                            grid.demand[j, 1] if R > 1 else np.zeros(len(j), dtype=np.int64),
                            grid.demand[j, 0], grid.sub_queue[j], grid.sub_work[j], grid.sub_free[j]], axis=1)
            jobs[occupied] = (raw + 1.0) / (self._limits + 1.0)
        k += JOB_FEATURES * W
        out[k] = grid.backlog_len / p.backlog_size if p.backlog_size else 0.0
        free_now = float(grid.avail[0, 0])
        first = grid.first_to_finish()
        if first >= 0:
            procs = float(grid.demand[first, 0])
            out[k + 1] = (grid.finish[first] - grid.now) / T
            out[k + 2] = procs / S
            out[k + 3] = (free_now + procs) / S
        else:
            out[k + 3] = free_now / S
        out[k + 4] = grid.waiting_work[0] / (S * T)
        out[k + 5] = grid.waiting_work[1] / (S * T) if R > 1 else 0.0
        out[k + 6] = grid.n_waiting / T
        out[k + 7] = 1.0 - grid.now / T
        np.clip(out, 0.0, 1.0, out=out)
        return out.astype(np.float32)
