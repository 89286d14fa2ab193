"""Image encoders of the DeepRM grid: ``image`` (DeepRM, SB3 report Fig. 3.3) and ``stacked`` (Fig. 3.2).

Both are 2-D float32 arrays with values in [0, 1]; machine cells carry the grid's canvas (0 free,
else the job's colour), a job-slot block has 1 in its first ``length`` rows and first ``demand``
columns (a job longer than the horizon fills all rows: only the horizon is shown).

``image`` -- height ``time_horizon``, width ``(res_slot + max_job_size * num_nw) * num_res +
backlog_width + 1`` (SB3 report Fig. 4.1; 124 for num_nw 5, 224 for num_nw 10). Per resource r,
left to right: the machine (``res_slot`` columns), then the W slots (``max_job_size`` columns each);
after all resources the backlog (``backlog_width`` columns, filled row-major with one cell per
backlog job), then one column holding ``time_since_new / max_track_since_new``.

``stacked`` -- the SB3 report's phase-1 state: the machine on top, then each job slot, stacked
vertically, no backlog. Shape ``((num_nw + 1) * time_horizon, num_res * res_slot)``: block 0 is the
machine (resource r in columns ``r*res_slot ..``), block 1 + i the profile of slot i's job over the
horizon, drawn in the same columns so a job sits visually under the machine it would occupy.

``encode_image`` and ``encode_stacked`` compute from scratch (the reference); the encoder classes
keep one buffer and redraw only what changed since the last call (machine version, slot versions,
backlog size, time since the last job), then return a copy.
"""

from __future__ import annotations

import numba
import numpy as np

from schedrl.sim.grid import Grid, GridParams


@numba.njit(cache=True)
def _copy_machine(buf, canvas, rows0, cols0, horizon):
    """Copy the first ``horizon`` rows of each resource's canvas (it may hold more rows)."""
    num_res, _, width = canvas.shape
    for r in range(num_res):
        for t in range(horizon):
            for c in range(width):
                buf[rows0[r] + t, cols0[r] + c] = canvas[r, t, c]


@numba.njit(cache=True)
def _draw_slot(buf, rows0, cols0, horizon, width, length, demand):
    for r in range(rows0.shape[0]):
        for t in range(horizon):
            for c in range(width):
                buf[rows0[r] + t, cols0[r] + c] = 1.0 if (t < length and c < demand[r]) else 0.0


class _Layout:
    """Where each part of the grid goes in a 2-D image."""

    def __init__(self, params: GridParams, shape, machine_at, slot_at, backlog_at=None, time_col=None):
        self.params = params
        self.shape = shape
        self.machine_at = machine_at  # [(row0, col0)] per resource
        self._rows0 = np.array([a[0] for a in machine_at], dtype=np.int64)
        self._cols0 = np.array([a[1] for a in machine_at], dtype=np.int64)
        self.slot_at = slot_at  # [[(row0, col0)] per resource] per slot
        self._slot_rows0 = [np.array([a[0] for a in at], dtype=np.int64) for at in slot_at]
        self._slot_cols0 = [np.array([a[1] for a in at], dtype=np.int64) for at in slot_at]
        self.backlog_at = backlog_at  # (col0, width) or None
        self.time_col = time_col  # column index or None

    def draw_machine(self, buf, grid: Grid):
        _copy_machine(buf, grid.canvas, self._rows0, self._cols0, self.params.time_horizon)

    def draw_slot(self, buf, grid: Grid, i: int):
        _draw_slot(buf, self._slot_rows0[i], self._slot_cols0[i], self.params.time_horizon,
                   self.slot_width, grid.slot_len[i], grid.slot_dem[i])

    def draw_backlog(self, buf, grid: Grid):
        if self.backlog_at is None or self.backlog_at[1] == 0:
            return
        c0, width = self.backlog_at
        block = buf[:, c0:c0 + width]
        block[:] = 0.0
        n = grid.backlog_len
        block[: n // width, :] = 1.0
        if n % width:
            block[n // width, : n % width] = 1.0

    def draw_time(self, buf, grid: Grid):
        if self.time_col is not None:
            buf[:, self.time_col] = grid.time_since_new / self.params.max_track_since_new


def image_layout(params: GridParams) -> _Layout:
    H, S, M, W, R = (params.time_horizon, params.res_slot, params.max_job_size, params.num_nw,
                     params.num_res)
    per_res = S + M * W
    width = per_res * R + params.backlog_width + 1
    machine_at = [(0, r * per_res) for r in range(R)]
    slot_at = [[(0, r * per_res + S + i * M) for r in range(R)] for i in range(W)]
    layout = _Layout(params, (H, width), machine_at, slot_at,
                     backlog_at=(per_res * R, params.backlog_width), time_col=width - 1)
    layout.slot_width = M
    return layout


def stacked_layout(params: GridParams) -> _Layout:
    H, S, W, R = params.time_horizon, params.res_slot, params.num_nw, params.num_res
    machine_at = [(0, r * S) for r in range(R)]
    slot_at = [[((i + 1) * H, r * S) for r in range(R)] for i in range(W)]
    layout = _Layout(params, ((W + 1) * H, R * S), machine_at, slot_at)
    layout.slot_width = S
    return layout


def _encode(layout: _Layout, grid: Grid) -> np.ndarray:
    buf = np.zeros(layout.shape, dtype=np.float32)
    layout.draw_machine(buf, grid)
    for i in range(grid.params.num_nw):
        layout.draw_slot(buf, grid, i)
    layout.draw_backlog(buf, grid)
    layout.draw_time(buf, grid)
    return buf


def encode_image(grid: Grid) -> np.ndarray:
    """DeepRM's image of ``grid``, computed from scratch."""
    return _encode(image_layout(grid.params), grid)


def encode_stacked(grid: Grid) -> np.ndarray:
    """The stacked (phase-1) image of ``grid``, computed from scratch."""
    return _encode(stacked_layout(grid.params), grid)


class _IncrementalImage:
    """Keeps the image of the last grid seen and redraws only the parts that changed."""

    layout_fn = None
    name = ""

    def __init__(self, params: GridParams, time_limit: int | None = None):
        self.params = params
        self.layout = type(self).layout_fn(params)
        self.shape = self.layout.shape
        self.low, self.high = 0.0, 1.0
        self._buf = np.zeros(self.shape, dtype=np.float32)
        self._key = None  # (grid id, episode) drawn in _buf

    def __getstate__(self) -> dict:
        # a copy (a training's resume state) redraws from scratch: the key holds a memory address
        return {**self.__dict__, "_key": None}

    def __call__(self, grid: Grid) -> np.ndarray:
        lay, buf = self.layout, self._buf
        key = (id(grid), grid.episode)
        if key != self._key:
            self._key = key
            buf[:] = 0.0
            self._version = None
            self._slot_versions = [None] * grid.params.num_nw
            self._backlog = None
            self._time = None
        if grid.version != self._version:
            _copy_machine(buf, grid.canvas, lay._rows0, lay._cols0, lay.params.time_horizon)
            self._version = grid.version
        if grid.slot_version != self._slot_versions:
            seen = self._slot_versions
            for i, v in enumerate(grid.slot_version):
                if v != seen[i]:
                    lay.draw_slot(buf, grid, i)
            self._slot_versions = list(grid.slot_version)
        if lay.backlog_at is not None and grid.backlog_len != self._backlog:
            lay.draw_backlog(buf, grid)
            self._backlog = grid.backlog_len
        if lay.time_col is not None and grid.time_since_new != self._time:
            lay.draw_time(buf, grid)
            self._time = grid.time_since_new
        return buf.copy()


class ImageEncoder(_IncrementalImage):
    """DeepRM's image (see module docstring); ``shape = (time_horizon, width)``."""

    layout_fn = staticmethod(image_layout)
    name = "image"


class StackedEncoder(_IncrementalImage):
    """The SB3 report's stacked phase-1 image; ``shape = ((num_nw + 1) * time_horizon, num_res * res_slot)``."""

    layout_fn = staticmethod(stacked_layout)
    name = "stacked"
