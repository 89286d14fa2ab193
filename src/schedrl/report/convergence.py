"""Is a claim converged, and how sure are we? Shared by every paper's claims.

Two questions a reader asks of an RL claim at a reduced training budget:

* **Where is it heading?** Each paper evaluates the checkpoints of the agents behind a claim at
  ``BUDGET_FRACTIONS`` of their training under the final evaluation's protocol. ``budget_fields``
  turns the values into the claims row's ``at_budgets``, ``trend`` and ``converged`` columns and
  the long rows of ``results/<paper>/claims_budget.csv`` that the budget figure draws.
* **Is a difference real?** ``bootstrap_diff`` gives a difference of means (or a relative gap) with
  a 95% interval, resampling seeds and then episodes within each seed (a two-level bootstrap, so a
  claim resting on one seed says so by a wider interval only over episodes). ``guard_win`` keeps a
  win whose interval spans zero from counting as reproduced.

"Flat" is decided against noise: the change over the last doubling of training (1/2 -> all) is
flat when it is within ``noise``, which a caller sets to the half-width of the final value's 95%
interval where it has one, and otherwise to half the claim's tolerance (``flat_noise``). A claim
that is not flat at the end of training is "not converged at this scale".
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from schedrl.io import write_csv
from schedrl.protocol import BUDGET_FRACTIONS

#: Shares of an agent's training at which its checkpoints are evaluated.
TRENDS = ("toward paper", "away from paper", "moving", "flat")  # "moving": no paper value to move toward
NOT_CONVERGED = "not converged at this scale"
CONVERGED = "yes"
BUDGET_COLUMNS = ("paper", "claim_id", "label", "unit", "fraction", "budget", "value", "paper_value",
                  "band_low", "band_high")


def _as_groups(values) -> list[np.ndarray]:
    """Per-seed arrays of per-episode values from a 1-D array (one seed), a 2-D array
    (seeds x episodes) or a list of 1-D arrays (seeds, episode counts may differ)."""
    if isinstance(values, np.ndarray) and values.ndim == 2:
        groups = [np.asarray(row, dtype=float) for row in values]
    elif isinstance(values, np.ndarray) or (len(values) and np.isscalar(values[0])):
        groups = [np.asarray(values, dtype=float).ravel()]
    else:
        groups = [np.asarray(g, dtype=float).ravel() for g in values]
    groups = [g[np.isfinite(g)] for g in groups]
    groups = [g for g in groups if g.size]
    if not groups:
        raise ValueError("no finite values to bootstrap")
    return groups


def _resample_means(groups: list[np.ndarray], rng: np.random.Generator, n_boot: int,
                    seed_idx: np.ndarray | None = None, ep_draws: list | None = None) -> np.ndarray:
    """``n_boot`` bootstrap means: seeds resampled, then episodes within each drawn seed."""
    k = len(groups)
    seed_idx = rng.integers(0, k, size=(n_boot, k)) if seed_idx is None else seed_idx
    means = np.empty((n_boot, k))
    for j in range(k):
        g_ids = seed_idx[:, j]
        for g in np.unique(g_ids):
            rows = np.flatnonzero(g_ids == g)
            grp = groups[g]
            draw = rng.integers(0, grp.size, size=(rows.size, grp.size)) if ep_draws is None \
                else ep_draws[g][rows]
            means[rows, j] = grp[draw].mean(axis=1)
    return means.mean(axis=1)


def _percentiles(samples: np.ndarray, level: float) -> tuple[float, float]:
    alpha = (1.0 - level) / 2.0
    lo, hi = np.quantile(samples, [alpha, 1.0 - alpha])
    return float(lo), float(hi)


def bootstrap_ci(values, *, n_boot: int = 2000, seed: int = 0, level: float = 0.95) -> tuple[float, float, float]:
    """Mean of ``values`` with its ``level`` bootstrap interval: ``(mean, low, high)``.

    ``values``: per-episode values of one seed (1-D), seeds x episodes (2-D) or a list of per-seed
    arrays. The point estimate is the mean of the seeds' means.
    """
    groups = _as_groups(values)
    point = float(np.mean([g.mean() for g in groups]))
    samples = _resample_means(groups, np.random.default_rng(seed), n_boot)
    return (point, *_percentiles(samples, level))


def bootstrap_diff(a, b, *, relative: bool = False, paired: bool = False, n_boot: int = 2000, seed: int = 0,
                   level: float = 0.95) -> tuple[float, float, float]:
    """``mean(a) - mean(b)`` (or ``(mean(a) - mean(b)) / mean(b)`` with ``relative``) and its interval.

    ``paired``: ``a`` and ``b`` were measured on the same seeds and episodes (e.g. two policies on
    the same job sets), so each bootstrap draw takes the same seeds and episodes from both, which
    removes the job sets' own spread from the difference. Unpaired draws resample each separately.
    """
    ga, gb = _as_groups(a), _as_groups(b)
    rng = np.random.default_rng(seed)
    if paired:
        if len(ga) != len(gb) or any(x.size != y.size for x, y in zip(ga, gb)):
            raise ValueError("paired bootstrap needs a and b of the same shape (seeds x episodes)")
        seed_idx = rng.integers(0, len(ga), size=(n_boot, len(ga)))
        draws = [rng.integers(0, g.size, size=(n_boot, g.size)) for g in ga]
        sa = _resample_means(ga, rng, n_boot, seed_idx, draws)
        sb = _resample_means(gb, rng, n_boot, seed_idx, draws)
    else:
        sa, sb = _resample_means(ga, rng, n_boot), _resample_means(gb, rng, n_boot)
    ma, mb = float(np.mean([g.mean() for g in ga])), float(np.mean([g.mean() for g in gb]))
    if relative:
        with np.errstate(divide="ignore", invalid="ignore"):
            samples = (sa - sb) / sb
        point = (ma - mb) / mb if mb else float("nan")
    else:
        samples, point = sa - sb, ma - mb
    samples = samples[np.isfinite(samples)]
    if not samples.size:
        return point, float("nan"), float("nan")
    return (float(point), *_percentiles(samples, level))


def t_ci(x) -> tuple[float, float, float]:
    """Mean and 95% t-interval of ``x`` (NaN bounds below two values): for a handful of episodes,
    where a percentile bootstrap (``bootstrap_ci``) is too narrow."""
    from scipy import stats

    x = np.asarray(x, dtype=float)
    m = float(x.mean()) if len(x) else float("nan")
    if len(x) < 2:
        return m, float("nan"), float("nan")
    half = float(stats.t.ppf(0.975, len(x) - 1) * x.std(ddof=1) / np.sqrt(len(x)))
    return m, m - half, m + half


def welch_diff(a, b) -> tuple[float, float, float]:
    """Mean of ``a`` minus mean of ``b`` with a 95% Welch interval; a side of one value (or no
    spread) counts as a constant."""
    from scipy import stats

    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    d = float(a.mean() - b.mean())
    va = a.var(ddof=1) / len(a) if len(a) > 1 else 0.0
    vb = b.var(ddof=1) / len(b) if len(b) > 1 else 0.0
    se2 = va + vb
    if se2 == 0 or (len(a) < 2 and len(b) < 2):
        return d, float("nan"), float("nan")
    num = se2 ** 2
    den = (va ** 2 / (len(a) - 1) if len(a) > 1 else 0.0) + (vb ** 2 / (len(b) - 1) if len(b) > 1 else 0.0)
    half = float(stats.t.ppf(0.975, num / den) * np.sqrt(se2))
    return d, d - half, d + half


def format_ci(point: float, low: float, high: float, fmt: str = "{:.3g}", *, percent: bool = False) -> str:
    """``"-0.139 [-0.21, -0.07]"`` (or ``"-13.9% [-21%, -7%]"`` with ``percent``)."""
    if percent:
        return f"{point:+.1%} [{low:+.1%}, {high:+.1%}]"
    return f"{fmt.format(point)} [{fmt.format(low)}, {fmt.format(high)}]"


def spans_zero(low: float, high: float) -> bool:
    return not (np.isfinite(low) and np.isfinite(high)) or low <= 0.0 <= high


def guard_win(verdict: str, low: float, high: float) -> str:
    """A claimed win whose 95% interval of the difference spans zero is at most partly reproduced."""
    if verdict == "reproduced" and spans_zero(low, high):
        return "partly reproduced"
    return verdict


def evidence(seeds: int, episodes: int, what: str = "episodes") -> str:
    """The note's sentence on what a number rests on."""
    return f"{seeds} seed{'s' if seeds != 1 else ''} x {episodes} {what}"


def flat_noise(paper_value: float, *, rel_tol: float = 0.0, abs_tol: float = 0.0) -> float:
    """Noise for ``trend`` when no interval is known: half the claim's tolerance band."""
    return 0.5 * max(rel_tol * abs(paper_value), abs_tol)


def trend(values: Sequence[float], paper_value: float | None, *, noise: float) -> str:
    """``"flat"`` when the last step (1/2 -> all of training) moved by <= ``noise``, else whether the
    final value is closer to the paper's than the one before (``"toward paper"``) or not."""
    vals = [float(v) for v in values]
    if len(vals) < 2 or not all(np.isfinite(vals[-2:])):
        return "flat" if len(vals) < 2 else ""
    prev, last = vals[-2], vals[-1]
    if abs(last - prev) <= noise:
        return "flat"
    if paper_value is None or not np.isfinite(paper_value):
        return "moving"
    return "toward paper" if abs(last - paper_value) < abs(prev - paper_value) else "away from paper"


def budget_fields(paper: str, claim_id: str, budgets: Sequence[float], values: Sequence[float],
                  paper_value: float | None, *, unit: str, noise: float, label: str = "",
                  band: tuple[float, float] | None = None,
                  fractions: Sequence[float] = BUDGET_FRACTIONS, fmt: str = "{:.3g}") -> tuple[dict, list[dict]]:
    """The claims row's convergence columns and the long rows for ``claims_budget.csv``.

    ``budgets``: training done at each checkpoint (steps, jobs or iterations, in ``unit``);
    ``values``: the claim's value there, under the final evaluation's protocol; ``band``: the
    tolerance band around the paper's value (drawn in the budget figure).
    """
    if len(budgets) != len(values) or len(fractions) != len(values):
        raise ValueError("budgets, values and fractions must have one entry per checkpoint")
    direction = trend(values, paper_value, noise=noise)
    fields = {
        "at_budgets": "; ".join(f"{_frac(f)}: {fmt.format(v)}" for f, v in zip(fractions, values)),
        "trend": direction,
        "converged": CONVERGED if direction == "flat" else NOT_CONVERGED,
    }
    pv = float("nan") if paper_value is None else float(paper_value)
    lo, hi = band if band is not None else (float("nan"), float("nan"))
    rows = [{"paper": paper, "claim_id": claim_id, "label": label or claim_id, "unit": unit,
             "fraction": float(f), "budget": float(b), "value": float(v), "paper_value": pv,
             "band_low": float(lo), "band_high": float(hi)}
            for f, b, v in zip(fractions, budgets, values)]
    return fields, rows


def _frac(f: float) -> str:
    return "all" if f == 1.0 else f"1/{round(1 / f)}" if f > 0 and abs(1 / f - round(1 / f)) < 1e-9 else f"{f:g}"


def write_budget_table(path: str | Path, rows: list[dict]) -> pd.DataFrame:
    frame = pd.DataFrame(rows, columns=list(BUDGET_COLUMNS))
    write_csv(path, frame)
    return frame


def read_budget_table(path: str | Path) -> pd.DataFrame:
    from schedrl.errors import InputFileError

    if not Path(path).is_file():
        raise InputFileError(path, "no such file")
    frame = pd.read_csv(path)
    missing = [c for c in BUDGET_COLUMNS if c not in frame.columns]
    if missing:
        raise InputFileError(path, f"budget table lacks column(s) {', '.join(missing)}")
    return frame
