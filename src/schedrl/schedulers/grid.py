"""Heuristic schedulers on the DeepRM grid: SJF, Packer and Random (DeepRM's ``other_agents.py``),
and the first fitting slot.

Each is a function ``policy(env_or_grid) -> action`` returning a slot index in ``0..W-1`` or ``W``
(the void action, "move on"). It accepts a ``schedrl.sim.grid.Grid`` or any object with a ``grid``
attribute (the DeepRM env, also through Gymnasium wrappers via ``unwrapped``).

* ``sjf``: among slot jobs that fit *now* (for their whole length from the current step), the
  shortest; ties go to the lowest slot. Void if none fits.
* ``packer`` (Tetris' alignment score, as DeepRM defines it): among slot jobs that fit now, the one
  maximising ``free_now . demand`` (dot product of the free resources in the current step with the
  job's demand vector); ties go to the lowest slot. Void if none fits.
* ``first_slot``: the lowest slot whose job the env can place under its own placement rule (the
  action mask's: DeepRM's earliest start within the image's horizon, or now only where the grid's
  ``placement`` is ``now``); void if none. Beyond DeepRM: a fixed rule that reads the slots' order and
  nothing of the jobs (a freed slot takes the next job, so slot order is not arrival order), what a
  state-blind agent under the action mask plays (the tuned MaskablePPO of issue 69; ``schedrl score
  first_slot``). Unlike SJF and Packer it books jobs that fit only later.
* ``SJFHold(max_len)``: ``sjf`` among the slot jobs no longer than ``max_len``; a longer job is never
  started (void when no short job fits). Beyond DeepRM: SJF that holds long jobs back for the short
  ones that will come, the rule a trained agent was found to play on the MDP paper's bimodal job
  lengths (issue 69); not work conserving. ``max_len`` is chosen on validation job sets by the caller
  (``schedrl.papers.mdp.references.choose_hold``); ``SJFHold(None)`` is ``sjf``.
* ``random``: uniform over all W + 1 actions, void and empty slots included (DeepRM's random
  agent; in the env an empty slot or a job that does not fit means "move on"). Draws from
  ``env.np_random`` for an env, ``grid.rng`` for a bare grid, or the ``rng`` argument.

Called repeatedly within a time step (the env freezes time while jobs are allocated), SJF and
Packer fill the machine greedily and move on when nothing more fits: both are work conserving.
"""

from __future__ import annotations

import numpy as np

from schedrl.sim.grid import Grid


def as_grid(env_or_grid) -> Grid:
    """The grid behind an env (possibly wrapped) or the grid itself."""
    if isinstance(env_or_grid, Grid):
        return env_or_grid
    grid = getattr(env_or_grid, "grid", None)
    if grid is None and hasattr(env_or_grid, "unwrapped"):
        grid = getattr(env_or_grid.unwrapped, "grid", None)
    if not isinstance(grid, Grid):
        raise TypeError(f"expected a Grid or an env with a .grid, got {type(env_or_grid).__name__}")
    return grid


def _fit_now(grid: Grid) -> np.ndarray:
    return grid.fit_mask(now_only=True)


def _shortest(grid: Grid, fits: np.ndarray) -> int:
    """The shortest job among the slots in ``fits`` (ties to the lowest slot); void if none."""
    if not fits.any():
        return grid.params.num_nw
    lengths = np.where(fits, grid.slot_len, np.iinfo(np.int64).max)
    return int(np.argmin(lengths))


def sjf(env_or_grid) -> int:
    """Shortest job first among the slot jobs that fit now; void if none."""
    grid = as_grid(env_or_grid)
    return _shortest(grid, _fit_now(grid))


class SJFHold:
    """SJF among the slot jobs of length <= ``max_len`` that fit now; void if none (see the module's text)."""

    def __init__(self, max_len: int | None):
        if max_len is not None and int(max_len) < 1:
            raise ValueError(f"SJFHold: max_len must be >= 1 (or None: SJF), got {max_len}")
        self.max_len = None if max_len is None else int(max_len)
        self.__name__ = "sjf" if max_len is None else f"sjf_hold_{self.max_len}"

    def __call__(self, env_or_grid) -> int:
        grid = as_grid(env_or_grid)
        fits = _fit_now(grid)
        return _shortest(grid, fits if self.max_len is None else fits & (grid.slot_len <= self.max_len))


def packer(env_or_grid) -> int:
    """Highest alignment ``free_now . demand`` among the slot jobs that fit now; void if none."""
    grid = as_grid(env_or_grid)
    fits = _fit_now(grid)
    if not fits.any():
        return grid.params.num_nw
    score = (grid.slot_dem @ grid.avail[0]).astype(np.float64)
    score[~fits] = -np.inf
    return int(np.argmax(score))


def first_slot(env_or_grid) -> int:
    """The lowest slot whose job the grid's placement rule can place; void if none."""
    grid = as_grid(env_or_grid)
    fits = np.flatnonzero(grid.fit_mask())
    return int(fits[0]) if fits.size else grid.params.num_nw


def random(env_or_grid, rng: np.random.Generator | None = None) -> int:
    """Uniform over the W + 1 actions (DeepRM's random agent)."""
    grid = as_grid(env_or_grid)
    if rng is None:
        rng = getattr(getattr(env_or_grid, "unwrapped", env_or_grid), "np_random", None)
        if not isinstance(rng, np.random.Generator):
            rng = grid.rng
    return int(rng.integers(grid.params.num_nw + 1))


POLICIES = {"sjf": sjf, "packer": packer, "first_slot": first_slot, "random": random}


def get_policy(name: str):
    """The heuristic called ``name`` (``sjf``, ``packer``, ``first_slot``, ``random``)."""
    from schedrl.errors import ConfigError

    try:
        return POLICIES[name]
    except KeyError:
        raise ConfigError(f"unknown grid policy '{name}' (choose from: {', '.join(POLICIES)})") from None
