"""``profile`` encoder of the DeepRM grid: free units and job demands as numbers, not pictures.

Shape ``(num_nw + 1, time_horizon, num_res)``, float32 in ``[0, res_slot]``: block 0 is the free
units of each resource at times ``now .. now + H - 1`` (the grid's ``avail``); block 1 + i is slot
i's job profile, its demand vector in its first ``length`` rows (0 for an empty slot, and only the
horizon of a longer job). No backlog and no time-since-last-job column. This is the numeric
``(6, 20, 2)`` phase-1 state of the SB3 report's public code (5 slots, 2 resources), unnormalised
as there.
"""

from __future__ import annotations

import numpy as np

from schedrl.sim.grid import Grid, GridParams


def encode_profile(grid: Grid) -> np.ndarray:
    """The profile observation of ``grid`` (see module docstring), computed from scratch."""
    p = grid.params
    H = p.time_horizon
    out = np.zeros((p.num_nw + 1, H, p.num_res), dtype=np.float32)
    out[0] = grid.avail[:H]
    rows = np.arange(H)[None, :, None]
    out[1:] = np.where(rows < grid.slot_len[:, None, None], grid.slot_dem[:, None, :], 0)
    return out


class ProfileEncoder:
    """``encode_profile`` as an encoder object (``shape``, ``low``, ``high``, ``__call__``)."""

    name = "profile"

    def __init__(self, params: GridParams, time_limit: int | None = None):
        self.params = params
        self.shape = (params.num_nw + 1, params.time_horizon, params.num_res)
        self.low, self.high = 0.0, float(params.res_slot)

    def __call__(self, grid: Grid) -> np.ndarray:
        return encode_profile(grid)
