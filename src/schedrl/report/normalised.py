"""One normalised score for every player of every paper, aggregated with rliable (issue 68).

Input is a *long table*, one row per (paper, workload, player, seed) with the workload's headline
metric (``LONG_COLUMNS``): ``role`` says what the player is (``ROLES``: random valid play, a
heuristic, a trained agent, its untrained network, uniform play over all actions, the authors' own
agent) and ``better`` the metric's direction (``lower`` for slowdown or wait, ``higher`` for
utilisation). Each paper package turns its evaluation outputs into this table
(``schedrl.papers.<paper>.normalised``); nothing here knows a paper.

``scores`` places every row on one scale per workload::

    normalised = (value - random) / (best_heuristic - random)

so random valid play (the mean of its seeds) is 0 and the best heuristic on that workload (the
best mean over its seeds, in the metric's direction, named in ``best_heuristic``) is 1, whichever
way the metric points (the ratio of two differences taken the same way). A workload where random
valid play beats or equals every heuristic has no scale: its ``anchor`` is ``degenerate``, its
scores are left empty, and ``aggregate`` leaves it out and counts it. Nor has one where random valid
play *matches* the best heuristic: drawn with two or more seeds, the best heuristic's value lies
inside the 95% t-interval of random play's mean over its seeds (``anchor`` ``tie``, counted with
the degenerate ones). Its span is then noise, and dividing by it would blow a small difference up
(MRSch's S3: the GA 0.8% better than the mean of three random draws that spread by 14%, scores of
+15). One draw of random play gives no interval: the sign alone decides there. Where a workload is
several job sets and the reader gives random play's value on each (``PER_JOBSET``, deeprm's held-out
sets), the interval's noise is measured between the seeds on each job set, pooled over the job sets
(``jobset_half_width``): the same noise the seeds' means measure, with a degree of freedom per job set
and extra seed instead of one per seed (two seeds' means: t = 12.7, so half-widths of 0.1 to 3.8
slowdown on neighbouring loads of one run, deeprm's default at 2026-12-06; per job set 0.23 to 0.36).
A workload without random valid play or without any heuristic has no scale either, for another
reason: its ``anchor`` says which is missing (``ANCHORS``: ``no-random``, ``no-heuristic``,
``no-anchor`` for both), counted apart from the degenerate ones, so "random play is as good as any heuristic here" is never confused
with "this workload is not fully played yet".

Random valid play (role ``random``) is the 0. Where a paper plays random valid play in several
environments of the same workload (each MDP, each state encoding), its reader picks one as the
anchor and gives the others role ``reference``: scored on the same scale, never the 0.

``aggregate`` summarises each (paper, player) over its seeds x scaled workloads (``anchor`` ok) with
rliable (Agarwal et al., 2021): IQM and mean with stratified-bootstrap intervals
(``rliable.library.get_interval_estimates``: runs resampled within each workload) and the
probability of improvement (``rliable.metrics.probability_of_improvement``'s value, counted over
pairs of runs at once: ``probability_of_improvement`` below) over random valid play
and over the best heuristic, each with its interval. rliable draws its bootstrap from NumPy's global
generator; every estimate here seeds it from ``seed`` and the paper and player names (and restores it
afterwards), so a file is reproduced byte for byte and a player's interval does not depend on which
other players are in the table. Its ``scale`` column names the pipeline scale the numbers come from
(the config's ``scale``: default, smoke, paper-budget, paper), so rows of runs at different budgets
are never read as one.

The papers' own reported agents (``place_authors``, issue 68 item 3) are *placed*, not measured:
on a workload, the paper's agent keeps its position relative to the paper's own heuristic, carried
over onto our anchors. With the paper's agent value A_p, the paper's heuristic value H_p and our
best heuristic's value H on the same workload::

    r = A_p / H_p               (the paper's ratio to its heuristic, either direction of metric)
    placed = r * H              (``placed_value``)
    normalised = (placed - random) / (H - random)

so a paper agent equal to its heuristic scores exactly 1 and one 20% below it in slowdown scores
above 1 by how far 0.8 H lies beyond H towards 0 on our scale. H_p is the paper's value of the
heuristic we name best on that workload where the paper reports it, else the paper's best heuristic
in the metric's direction (the ``placed_from`` note says which, and which heuristic is ours). An
improvement percentage p over a heuristic (MRSch's gains over FCFS) is the ratio ``1 - p/100`` for a
lower-is-better metric and ``1 + p/100`` for a higher-is-better one (``improvement_ratio``). Placed
rows are role ``authors``, their player named with ``PLACED`` at the end and a ``placed_from`` note
(paper value, paper heuristic value, table or figure); a paper workload with no workload of ours to
land on, or no heuristic of ours played there, is a gap, never a made-up match. The assumption is
the paper's ratio transferring to our draw of the workload; each paper's ``deviations`` says so.
"""

from __future__ import annotations

import contextlib
import re
import zlib
from collections.abc import Iterator

import numpy as np
import pandas as pd

from schedrl.errors import SchedrlError
from schedrl.report.recipe_probes import probe_of

LONG_COLUMNS = ("paper", "workload", "player", "role", "seed", "metric", "better", "value")
#: optional column of the long table: where a placed (not measured) value comes from, "" elsewhere
PLACED_FROM = "placed_from"
PLACED = " (placed)"  # end of a placed paper agent's player name
ROLES = ("random", "heuristic", "agent", "untrained", "reference", "uniform", "authors")
#: why a workload has (``ok``) or has no scale
ANCHORS = ("ok", "degenerate", "tie", "no-random", "no-heuristic", "no-anchor")
#: anchors of a workload where random valid play matches or beats every heuristic (``degenerate_workloads``)
NO_SCALE_ANCHORS = ("degenerate", "tie")
DIRECTIONS = ("lower", "higher")
#: optional column of the long table: a row's value on each job set it played, ``"<job set>=<value>;..."``
#: (``jobset_cell``), where a workload is several job sets every player plays (deeprm's held-out sets):
#: random valid play's noise is then measured between its seeds on each job set (``jobset_half_width``);
#: "" elsewhere (a reader without job sets, or a row of another role: only random valid play's are read)
PER_JOBSET = "per_jobset"
SCORE_COLUMNS = ("paper", "workload", "player", "role", "seed", "metric", "better", "value", "random",
                 "best_heuristic", "best_heuristic_value", "anchor", "normalised", PLACED_FROM, PER_JOBSET)
#: score columns a table written before them may lack (read as "")
LATER_SCORE_COLUMNS = (PER_JOBSET,)
AGGREGATE_COLUMNS = ("paper", "scale", "player", "role", "seeds", "workloads", "degenerate_workloads",
                     "no_random_workloads", "no_heuristic_workloads",
                     "iqm", "iqm_lo", "iqm_hi", "mean", "mean_lo", "mean_hi",
                     "p_beats_random", "p_beats_random_lo", "p_beats_random_hi",
                     "p_beats_best_heuristic", "p_beats_best_heuristic_lo", "p_beats_best_heuristic_hi")
GAP_COLUMNS = ("paper", "player", "gap")  # players (or workloads) a paper cannot place yet, and why
REPS = 2000  # bootstrap resamples per estimate
CONFIDENCE = 0.95
DIGITS = 6  # decimals written: files identical across runs and machines


class NormalisedError(SchedrlError):
    """A long table that cannot be normalised (a missing column, role or direction)."""


def long_rows(paper: str, workload: str, player: str, role: str, seed: int, metric: str, better: str,
              value: float) -> dict:
    """One row of the long table (what the papers' readers build)."""
    return {"paper": paper, "workload": workload, "player": player, "role": role, "seed": int(seed),
            "metric": metric, "better": better, "value": float(value)}


#: a gap's words for an input that is not on disk (``missing_gap``; ``missing_files`` reads the paths back)
MISSING = "missing (run its rule first)"


def missing_gap(paper: str, player: str, path) -> dict:
    """The gap row of an input file the long table reads and does not find."""
    return {"paper": paper, "player": player, "gap": f"{path} {MISSING}"}


def missing_files(gaps) -> list[str]:
    """The paths of ``gaps`` (rows or a frame with a ``gap`` column) that are files not on disk, in
    order, each once: what a target must build before its normalised scores are complete."""
    words = gaps["gap"] if isinstance(gaps, pd.DataFrame) else [g["gap"] for g in gaps]
    return list(dict.fromkeys(w[: -len(MISSING) - 1] for w in words if str(w).endswith(" " + MISSING)))


def check_long(frame: pd.DataFrame, source: str = "long table") -> pd.DataFrame:
    """The long table with its columns typed; one clear line for what is wrong with it."""
    missing = [c for c in LONG_COLUMNS if c not in frame.columns]
    if missing:
        raise NormalisedError(f"{source}: missing column(s) {', '.join(missing)}")
    out = frame.loc[:, list(LONG_COLUMNS)].copy()
    for col in (PLACED_FROM, PER_JOBSET):
        out[col] = frame[col].fillna("").astype(str) if col in frame.columns else ""
    for col in ("paper", "workload", "player", "role", "metric", "better"):
        out[col] = out[col].astype(str)
    bad = sorted(set(out["role"]) - set(ROLES))
    if bad:
        raise NormalisedError(f"{source}: unknown role(s) {', '.join(bad)} (choose from: {', '.join(ROLES)})")
    bad = sorted(set(out["better"]) - set(DIRECTIONS))
    if bad:
        raise NormalisedError(f"{source}: unknown direction(s) {', '.join(bad)} (better is lower or higher)")
    out["seed"] = pd.to_numeric(out["seed"], errors="coerce")
    out["value"] = pd.to_numeric(out["value"], errors="coerce")
    if out["seed"].isna().any():
        raise NormalisedError(f"{source}: a seed that is not a number")
    if not np.isfinite(out["value"]).all():
        raise NormalisedError(f"{source}: a value that is not a finite number "
                              f"({_first(out[~np.isfinite(out['value'])])})")
    out["seed"] = out["seed"].astype(int)
    key = ["paper", "workload"]
    for col in ("metric", "better"):
        many = out.groupby(key)[col].nunique()
        if (many > 1).any():
            paper, workload = many[many > 1].index[0]
            raise NormalisedError(f"{source}: {paper} {workload} has more than one {col}")
    dup = out.duplicated(["paper", "workload", "player", "seed"])
    if dup.any():
        raise NormalisedError(f"{source}: more than one value for {_first(out[dup])}")
    return out


def _first(rows: pd.DataFrame) -> str:
    r = rows.iloc[0]
    return f"{r['paper']} {r['workload']} {r['player']} seed {r['seed']}"


def anchor_status(better: str, random_value, best_value: float, has_random: bool, has_heuristic: bool,
                  half_width: float | None = None) -> str:
    """``ANCHORS``' word for one workload: ``no-random`` / ``no-heuristic`` / ``no-anchor`` (both
    missing) before anything is compared, then ``degenerate`` where random valid play beats or equals
    the best heuristic, ``tie`` where the best heuristic lies inside the 95% t-interval of random play's
    mean: ``half_width`` where given (its noise estimated job set by job set, ``jobset_half_width``),
    else over its draws (``random_value``: those draws, or one value), else ``ok``."""
    if not has_random:
        return "no-random" if has_heuristic else "no-anchor"
    if not has_heuristic:
        return "no-heuristic"
    draws = np.atleast_1d(np.asarray(random_value, dtype=float))
    sign = -1.0 if better == "lower" else 1.0
    gap = sign * (best_value - float(draws.mean()))
    if not gap > 0:
        return "degenerate"
    return "tie" if gap <= (random_half_width(draws) if half_width is None else half_width) else "ok"


def random_half_width(draws, confidence: float = CONFIDENCE) -> float:
    """Half the width of the t-interval of the mean of random valid play's ``draws`` (0 for one
    draw, or draws that agree: no interval)."""
    from scipy import stats

    draws = np.asarray(draws, dtype=float)
    if draws.size < 2:
        return 0.0
    sem = float(draws.std(ddof=1)) / np.sqrt(draws.size)
    return float(stats.t.ppf(0.5 + confidence / 2, draws.size - 1) * sem)


def jobset_cell(jobsets, values) -> str:
    """A ``PER_JOBSET`` cell: ``"<job set>=<value>"`` per job set, joined by ``;`` (values rounded to
    ``DIGITS`` decimals, as every file here, so the cell is the same bytes on every machine)."""
    return ";".join(f"{int(j)}={round(float(v), DIGITS)!r}" for j, v in zip(jobsets, values, strict=True))


def parse_jobsets(cell) -> dict[int, float]:
    """A ``PER_JOBSET`` cell as {job set: value} ({} for an empty cell)."""
    if not isinstance(cell, str) or not cell:
        return {}
    try:
        return {int(k): float(v) for k, v in (part.split("=") for part in cell.split(";"))}
    except ValueError:
        raise NormalisedError(f"{PER_JOBSET} cell {cell[:40]!r} is not '<job set>=<value>;...'") from None


def jobset_half_width(random_rows: pd.DataFrame, confidence: float = CONFIDENCE) -> float | None:
    """Half the width of the 95% t-interval of random valid play's mean, its noise estimated from the
    spread between its seeds *on each job set* (``PER_JOBSET``), pooled over the job sets: variance
    sum_j (n_j - 1) s_j^2 / sum_j (n_j - 1), over the number of values, with sum_j (n_j - 1) degrees of
    freedom. The scale's anchors are means over the same job sets, so only random play's own draws
    are noise, and these are what its seeds' means also measure (``random_half_width``), with one
    degree of freedom per job set and extra seed where the seeds' means give one per seed (two seeds:
    t = 12.7). None where a row lacks the values or no job set has two seeds (``anchor_status`` then
    uses the seeds' means: with one job set per workload, the same interval)."""
    from scipy import stats

    if PER_JOBSET not in random_rows.columns or not len(random_rows):
        return None
    cells = [parse_jobsets(c) for c in random_rows[PER_JOBSET]]
    if not all(cells):
        return None
    values = pd.DataFrame([(j, v) for c in cells for j, v in c.items()], columns=["jobset", "value"])
    spread = values.groupby("jobset")["value"].agg(["count", "var"])
    spread = spread[spread["count"] > 1]
    df = int((spread["count"] - 1).sum())
    if df < 1:
        return None
    pooled = float(((spread["count"] - 1) * spread["var"]).sum()) / df
    return float(stats.t.ppf(0.5 + confidence / 2, df) * np.sqrt(pooled / len(values)))


def anchors(long: pd.DataFrame) -> pd.DataFrame:
    """Per (paper, workload): metric, direction, random valid play (mean over its seeds), the best
    heuristic (best mean over its seeds) and its value, and ``anchor``: ``ok`` where the scale
    exists, else why not (``anchor_status``)."""
    rows = []
    for (paper, workload), g in long.groupby(["paper", "workload"], sort=True):
        better = g["better"].iloc[0]
        rand = g.loc[g["role"] == "random", "value"]
        heur = g[g["role"] == "heuristic"].groupby("player")["value"].mean().sort_index()
        random_value = float(rand.mean()) if len(rand) else np.nan
        half = None
        if len(heur):
            best = heur.idxmin() if better == "lower" else heur.idxmax()
            best_value = float(heur[best])
            half = jobset_half_width(g[g["role"] == "random"])
        else:
            best, best_value = "", np.nan
        rows.append({"paper": paper, "workload": workload, "metric": g["metric"].iloc[0], "better": better,
                     "random": random_value, "best_heuristic": best, "best_heuristic_value": best_value,
                     "anchor": anchor_status(better, rand.to_numpy(), best_value, len(rand) > 0, len(heur) > 0,
                                             half)})
    return pd.DataFrame(rows, columns=["paper", "workload", "metric", "better", "random", "best_heuristic",
                                       "best_heuristic_value", "anchor"])


def normalise(value, random, best_heuristic_value, anchor):
    """The normalised score (value - random) / (best heuristic - random), NaN where ``anchor`` is not
    ``ok`` (element-wise on arrays or Series; the one formula every caller uses)."""
    value, random, best = (np.asarray(x, dtype=float) for x in (value, random, best_heuristic_value))
    span = best - random
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where((np.asarray(anchor) == "ok") & (span != 0), (value - random) / np.where(span != 0, span, 1.0),
                       np.nan)
    return out + 0.0  # random valid play's own score is 0, not -0 (a byte in the file)


def scores(long: pd.DataFrame) -> pd.DataFrame:
    """Every row of the long table with its workload's anchors and its normalised score (empty where
    the workload has no scale: ``anchor`` says why)."""
    long = check_long(long)
    anchor = anchors(long).drop(columns=["metric", "better"])
    out = long.merge(anchor, on=["paper", "workload"], how="left", validate="many_to_one")
    out["normalised"] = normalise(out["value"], out["random"], out["best_heuristic_value"], out["anchor"])
    out = out.sort_values(["paper", "workload", "role", "player", "seed"], key=_role_order, kind="stable")
    return out.loc[:, list(SCORE_COLUMNS)].reset_index(drop=True)


def improvement_ratio(percent: float, better: str) -> float:
    """A paper agent's ratio to its heuristic from an improvement of ``percent`` % over it: ``1 -
    p/100`` where lower is better (a 41% slowdown reduction is 0.59), ``1 + p/100`` where higher is."""
    if better not in DIRECTIONS:
        raise NormalisedError(f"unknown direction {better!r} (better is lower or higher)")
    return 1.0 - float(percent) / 100 if better == "lower" else 1.0 + float(percent) / 100


def placed_value(paper_agent: float, paper_heuristic: float, ours_best: float) -> float:
    """The paper's agent carried onto our workload: ``(paper_agent / paper_heuristic) * ours_best``
    (the same in either direction of metric; module docstring)."""
    if not (np.isfinite(paper_heuristic) and paper_heuristic > 0):
        raise NormalisedError(f"a paper heuristic value must be a positive number, not {paper_heuristic}")
    return float(paper_agent) / float(paper_heuristic) * float(ours_best)


def place_authors(long: pd.DataFrame, placements: list[dict]) -> tuple[pd.DataFrame, list[dict]]:
    """(rows, gaps): each placement as a long-table row of role ``authors`` with its ``placed_from``.

    A placement is ``{paper, workload, player, value, heuristics, source}``: the paper's agent value,
    the paper's heuristic values on the same workload keyed by *our* heuristic player names
    (``{"SJF": 4.9}``) and the table or figure they come from. The paper heuristic used is the one
    we name best on the workload where the paper reports it, else the paper's best (note says so).
    A workload not in ``long`` or without a heuristic of ours is a gap row."""
    table = anchors(check_long(long)).set_index(["paper", "workload"]) if len(long) else None
    rows, gaps = [], []
    for p in placements:
        paper, workload, player = p["paper"], p["workload"], p["player"] + PLACED
        key = (paper, workload)
        if table is None or key not in table.index:
            gaps.append({"paper": paper, "player": player, "gap": f"not placed: the paper's {workload} "
                         f"({p['source']}) is not a workload of ours"})
            continue
        a = table.loc[key]
        if not a["best_heuristic"]:
            gaps.append({"paper": paper, "player": player,
                         "gap": f"not placed on {workload}: no heuristic of ours played there yet"})
            continue
        ours, heuristics = a["best_heuristic"], {k: float(v) for k, v in p["heuristics"].items()}
        if ours in heuristics:
            name, which = ours, "the same heuristic"
        else:
            name = (min if a["better"] == "lower" else max)(heuristics, key=heuristics.get)
            which = f"the paper's best heuristic (ours best: {ours})"
        value = placed_value(p["value"], heuristics[name], a["best_heuristic_value"])
        note = (f"{p['source']}: paper {p['value']:g} / its {name} {heuristics[name]:g} = "
                f"{p['value'] / heuristics[name]:.4g} x our {ours} {a['best_heuristic_value']:.4g}; {which}")
        rows.append({**long_rows(paper, workload, player, "authors", 0, a["metric"], a["better"], value),
                     PLACED_FROM: note})
    return pd.DataFrame(rows, columns=[*LONG_COLUMNS, PLACED_FROM]), gaps


def with_authors(long: pd.DataFrame, gaps: list[dict], placements: list[dict],
                 unplaced: list[dict] = ()) -> tuple[pd.DataFrame, list[dict]]:
    """A reader's (long table, gaps) with ``place_authors``' rows and gaps added, and ``unplaced``
    (gap rows for what the paper reports that has nothing to place) appended."""
    rows, more = place_authors(long, placements)
    if len(rows):
        long = pd.concat([long.assign(**{PLACED_FROM: ""}) if len(long) else long, rows], ignore_index=True)
    return long, [*gaps, *more, *unplaced]


def _role_order(col: pd.Series) -> pd.Series:
    return col.map({r: i for i, r in enumerate(ROLES)}) if col.name == "role" else col


def _rliable():
    """rliable's ``library`` and ``metrics`` modules.

    rliable 1.2.0 needs arch < 8 (arch 8 dropped the ``random_state`` keyword rliable passes), and
    arch 7.2 calls pandas' ``deprecate_kwarg`` with pandas 2's signature, which pandas 3 turned into
    ``(klass, old, new)``: while arch is first imported, a two-name call gets pandas 3's
    ``FutureWarning`` class in front (arch's one use, a renamed plot keyword). Nothing else changes.
    """
    import pandas.util._decorators as decorators

    original = decorators.deprecate_kwarg

    def pandas2_signature(*args, **kwargs):
        if len(args) == 2 and all(isinstance(a, str) for a in args):
            return original(FutureWarning, *args, **kwargs)
        return original(*args, **kwargs)

    decorators.deprecate_kwarg = pandas2_signature
    try:
        from rliable import library, metrics
    finally:
        decorators.deprecate_kwarg = original
    return library, metrics


@contextlib.contextmanager
def _seeded(seed: int, *names: str) -> Iterator[None]:
    """NumPy's global generator seeded from ``seed`` and ``names`` (rliable draws from it), restored after."""
    state = np.random.get_state()
    key = zlib.crc32("/".join(names).encode())
    np.random.seed((int(seed) + key) % 2**32)
    try:
        yield
    finally:
        np.random.set_state(state)


def probability_of_improvement(scores_x: np.ndarray, scores_y: np.ndarray) -> float:
    """rliable's ``metrics.probability_of_improvement`` (P(X_m > Y_m) + P(X_m = Y_m) / 2 per task
    m, averaged over tasks: the Mann-Whitney U over every pair of runs), counted over the pairs with
    one array operation. rliable calls scipy's ``mannwhitneyu`` once per task and bootstrap sample,
    and that call's overhead made the merged status tables take minutes (2000 resamples x tasks x
    players); the values are the same (tests/test_normalised.py checks it on tied and untied runs)."""
    x = np.asarray(scores_x, float)[:, None, :]
    y = np.asarray(scores_y, float)[None, :, :]
    per_task = ((x > y) + 0.5 * (x == y)).mean(axis=(0, 1))
    return float(np.mean(per_task))


def iqm(scores: np.ndarray) -> float:
    """rliable's ``metrics.aggregate_iqm`` (scipy's ``trim_mean(scores, 0.25, axis=None)``: the mean of
    the middle half of every run x workload score) with scipy's own partition, so the same bits,
    without the per-call overhead of scipy's array-API wrapper (2000 bootstrap samples x players)."""
    a = np.asarray(scores, float).ravel()
    lo = int(0.25 * a.size)
    hi = a.size - lo
    return float(np.mean(np.partition(a, (lo, hi - 1))[lo:hi]))


def _seed_table(rows: pd.DataFrame, workloads: list[str]) -> pd.DataFrame:
    """(seed x workload) normalised scores, NaN where a seed has no score on a workload."""
    table = rows.pivot_table(index="seed", columns="workload", values="normalised", aggfunc="mean")
    return table.reindex(columns=workloads)


def _matrix(rows: pd.DataFrame, workloads: list[str]) -> np.ndarray:
    """Normalised scores as rliable wants them: (runs, workloads). Runs are the seeds present on
    every workload; where no seed is (a player whose seeds differ by workload) each workload's mean
    over its seeds is one run."""
    table = _seed_table(rows, workloads)
    complete = table.dropna()
    if len(complete):
        return complete.to_numpy(float)
    return table.mean(axis=0).to_numpy(float)[None, :]


def seeds_counted(rows: pd.DataFrame, workloads: list[str]) -> int:
    """The seeds an aggregate stands on: those scored on every workload (a seed recorded on some
    workloads only, e.g. one scenario of a seed trained so far, is left out of ``_matrix`` and of
    this count), or, where no seed is on every workload, every seed (``_matrix``'s means)."""
    table = _seed_table(rows, workloads)
    complete = len(table.dropna())
    return complete if complete else int(rows["seed"].nunique())


def aggregate(scored: pd.DataFrame, reps: int = REPS, seed: int = 0, confidence: float = CONFIDENCE,
              scale: str = "") -> pd.DataFrame:
    """Per (paper, player): IQM and mean of the normalised score over seeds x scaled workloads
    with rliable's stratified-bootstrap intervals, and the probability of improvement over random
    valid play and over the best heuristic (each workload's own), with theirs. Workloads where the
    player has no score are left out of its row (``workloads`` counts those used). The paper's
    workloads without a scale are counted by reason: ``degenerate_workloads`` (random valid play
    matches or beats every heuristic: anchors ``degenerate`` and ``tie``), ``no_random_workloads`` and ``no_heuristic_workloads`` (an
    anchor not played; a workload with neither counts in both). ``scale``: the pipeline scale the
    numbers come from (the config's ``scale``), written on every row."""
    library, metrics = _rliable()
    if int(reps) < 1:
        raise NormalisedError(f"bootstrap reps must be at least 1, not {reps}")
    if not 0 < float(confidence) < 1:
        raise NormalisedError(f"confidence must lie between 0 and 1, not {confidence}")

    def estimate(name: str, scores_, func, paper: str, player: str):
        with _seeded(seed, paper, player, name):
            point, interval = library.get_interval_estimates(
                {name: scores_}, func, reps=int(reps), confidence_interval_size=float(confidence))
        # point: one value per statistic; interval: (2, statistics), lower row then upper row
        return np.ravel(point[name]).astype(float), np.asarray(interval[name], float).reshape(2, -1)

    def iqm_mean(x):
        return np.array([iqm(x), metrics.aggregate_mean(x)])

    rows = []
    for paper, paper_rows in scored.groupby("paper", sort=True):
        status = paper_rows.drop_duplicates("workload")["anchor"]
        counts = {"degenerate_workloads": int(status.isin(NO_SCALE_ANCHORS).sum()),
                  "no_random_workloads": int(status.isin(["no-random", "no-anchor"]).sum()),
                  "no_heuristic_workloads": int(status.isin(["no-heuristic", "no-anchor"]).sum())}
        usable = paper_rows[paper_rows["anchor"] == "ok"]
        best = usable[usable["player"] == usable["best_heuristic"]]
        rand = usable[usable["role"] == "random"]
        players = paper_rows.drop_duplicates("player").sort_values(["role", "player"], key=_role_order, kind="stable")
        for player, role in zip(players["player"], players["role"]):
            mine = usable[usable["player"] == player]
            row = {"paper": paper, "scale": str(scale), "player": player, "role": role,
                   "seeds": int(mine["seed"].nunique()), "workloads": int(mine["workload"].nunique()), **counts}
            if mine.empty:
                rows.append(row)
                continue
            workloads = sorted(mine["workload"].unique())
            row["seeds"] = seeds_counted(mine, workloads)
            x = _matrix(mine, workloads)
            (point, mean), (lo, hi) = estimate("iqm_mean", x, iqm_mean, paper, player)
            row.update(iqm=point, iqm_lo=lo[0], iqm_hi=hi[0], mean=mean, mean_lo=lo[1], mean_hi=hi[1])
            for label, ref in (("random", rand), ("best_heuristic", best)):
                shared = sorted(set(workloads) & set(ref["workload"]))
                if not shared:
                    continue
                pair = (_matrix(mine, shared), _matrix(ref, shared))
                (p,), ((p_lo,), (p_hi,)) = estimate("p_" + label, pair, probability_of_improvement, paper, player)
                row.update({f"p_beats_{label}": p, f"p_beats_{label}_lo": p_lo, f"p_beats_{label}_hi": p_hi})
            rows.append(row)
    out = pd.DataFrame(rows, columns=list(AGGREGATE_COLUMNS))
    return out.round(DIGITS)


#: A paper's performance profiles are drawn when it has at least this many workloads with a scale
#: ("where a paper has more than a few workloads", issue 68 item 2).
PROFILE_MIN_WORKLOADS = 5
#: Thresholds of the profiles: the normalised score from below random valid play to above the best heuristic.
PROFILE_TAUS = np.round(np.linspace(-1.0, 1.5, 26), 2)
PROFILE_COLUMNS = ("paper", "player", "role", "tau", "fraction", "fraction_lo", "fraction_hi")


def profiles(scored: pd.DataFrame, reps: int = REPS, seed: int = 0, confidence: float = CONFIDENCE,
             taus=PROFILE_TAUS, min_workloads: int = PROFILE_MIN_WORKLOADS) -> pd.DataFrame:
    """rliable's performance profiles (the fraction of runs x workloads whose normalised score
    exceeds each ``tau``, with stratified-bootstrap intervals) per paper with at least
    ``min_workloads`` scaled workloads, for every player but the heuristics (each is 1 only where it
    is the best), on the workloads each player was scored on; one row per (paper, player, tau)."""
    library, _ = _rliable()
    taus = np.asarray(taus, float)
    rows = []
    for paper, paper_rows in scored.groupby("paper", sort=True):
        usable = paper_rows[paper_rows["anchor"] == "ok"]
        if usable["workload"].nunique() < int(min_workloads):
            continue
        players = usable[usable["role"] != "heuristic"].drop_duplicates("player").sort_values(
            ["role", "player"], key=_role_order, kind="stable")
        for player, role in zip(players["player"], players["role"]):
            mine = usable[usable["player"] == player]
            x = _matrix(mine, sorted(mine["workload"].unique()))
            with _seeded(seed, paper, player, "profile"):
                point, interval = library.create_performance_profile(
                    {player: x}, taus, reps=int(reps), confidence_interval_size=float(confidence))
            lo, hi = np.asarray(interval[player], float).reshape(2, -1)
            rows += [{"paper": paper, "player": player, "role": role, "tau": float(t), "fraction": float(f),
                      "fraction_lo": float(a), "fraction_hi": float(b)}
                     for t, f, a, b in zip(taus, np.ravel(point[player]), lo, hi)]
    return pd.DataFrame(rows, columns=list(PROFILE_COLUMNS)).round(DIGITS)


def write_outputs(scored: pd.DataFrame, aggregated: pd.DataFrame, scores_path, aggregate_path) -> None:
    """The two CSVs, byte-stable (rounded)."""
    from schedrl.io import write_csv

    write_csv(scores_path, scored.round(DIGITS))
    write_csv(aggregate_path, aggregated)


def _interval(row, stat: str) -> str:
    if pd.isna(row.get(stat)):
        return "n/a"
    return f"{row[stat]:.2f} [{row[f'{stat}_lo']:.2f}, {row[f'{stat}_hi']:.2f}]"


def _no_scale(row) -> str:
    """"1 degenerate, 2 without random play" (or "0") from an aggregate row's counts."""
    parts = [f"{int(row[col])} {what}" for col, what in (
        ("degenerate_workloads", "degenerate"), ("no_random_workloads", "without random play"),
        ("no_heuristic_workloads", "without a heuristic")) if col in row and pd.notna(row[col]) and int(row[col])]
    return ", ".join(parts) or "0"


def _side(value: float, of: float) -> str:
    return "above" if value > of else "below" if value < of else "level with"


#: the headroom words of an agent on one seed: its interval is over workloads alone (the stratified
#: bootstrap has one value per workload to draw), so no verdict, whichever side of 0 or 1 it lies
ONE_SEED = "one seed, no interval over seeds: not a verdict"


def untrained_name(players, agent: str) -> str | None:
    """Of ``players`` (untrained networks, each "untrained <its network>"), the one ``agent`` started
    from: its network's name as whole words of the agent's ("PPO Baseline" <- "untrained Baseline",
    "DRAS agent" <- "untrained DRAS"), the longest such; None where none is."""
    found = []
    for player in dict.fromkeys(map(str, players)):
        network = player.removeprefix("untrained ").strip()
        if network and re.search(rf"(?<!\S){re.escape(network)}(?!\S)", str(agent)):
            found.append((len(network), player))
    return max(found)[1] if found else None


def untrained_of(frame: pd.DataFrame, agent: str) -> pd.Series | None:
    """The aggregate row of the untrained network an agent started from (``untrained_name``), or None."""
    if frame is None or frame.empty or "role" not in frame:
        return None
    rows = frame[(frame["role"] == "untrained") & frame["iqm"].notna()]
    name = untrained_name(rows["player"], agent)
    return None if name is None else rows[rows["player"] == name].iloc[0]


def learned_word(agent, untrained) -> str:
    """What training did, on the normalised scale: the trained agent's IQM interval against its untrained
    network's, the two apart (above or below) or overlapping; one seed gives no word."""
    if int(agent["seeds"]) < 2 or int(untrained["seeds"]) < 2:
        return ""
    if float(agent["iqm_lo"]) > float(untrained["iqm_hi"]):
        return "training gained"
    if float(agent["iqm_hi"]) < float(untrained["iqm_lo"]):
        return "training lost"
    return "no gain from training"


def headroom_word(row) -> str:
    """Where an agent's IQM interval lies on the scale (random valid play 0, best heuristic 1): the
    headroom verdict's words (issue 69). Beating the best heuristic needs the whole interval above 1;
    a row of one seed (``seeds``) gives no verdict (``ONE_SEED``)."""
    seeds = row.get("seeds") if hasattr(row, "get") else None
    if seeds is not None and not pd.isna(seeds) and int(seeds) < 2:
        return ONE_SEED
    lo, hi = float(row["iqm_lo"]), float(row["iqm_hi"])
    if lo > 1:
        return "beats the best heuristic"
    if hi < 0:
        return "below random valid play"
    if lo > 0:
        return "level with the best heuristic" if hi >= 1 else "above random valid play, below the best heuristic"
    return "no better than random valid play" if hi < 1 else "undecided (the interval spans random play and the best heuristic)"


def best_agent_row(rows: pd.DataFrame) -> pd.Series | None:
    """The agent with the highest IQM among those with the most seeds (an agent on one seed has no
    interval over seeds: it stands only where no agent has more), or None."""
    agents = rows[(rows["role"] == "agent") & rows["iqm"].notna()]
    if agents.empty:
        return None
    agents = agents[agents["seeds"] == agents["seeds"].max()]
    return agents.sort_values("iqm", ascending=False, kind="stable").iloc[0]


#: a tuned run's learning-probe finding for the recipe it trained (the recipe header's ``Learning
#: probe`` line when the run was recorded): config/tuned/<paper>.yml may hold a newer recipe since
PROBE_COLUMN = "recipe_probe"


def probe_clause(found: str | None) -> str:
    """What a tuned recipe's learning probe (``schedrl.experiments.tune.recipe_probe``) means for the
    headroom verdict: a verdict on an agent counts only when its trainer learns."""
    if found is None:
        return "its trainer not yet through the learning probe"
    if found.startswith("passed"):
        return "its trainer passes the learning probe"
    return "but the tuned trainer fails the learning probe, so this is no headroom verdict"


def recipe_clause(found: str | None) -> str:
    """What the learning probe of the paper's own recipe (``schedrl probe``) means for a verdict on its
    agent: a slow learner (passed at a larger budget) still learns; a failing one gives no verdict."""
    if found is None:
        return "the recipe's trainer not yet through the learning probe"
    if found.startswith("passed at"):
        return "the recipe's trainer passes the learning probe " + found.split(" (")[0].removeprefix("passed ")
    if found.startswith("passed"):
        return "the recipe's trainer passes the learning probe"
    return "but the recipe's trainer fails the learning probe, so this is no verdict on what RL can do here"


def headroom_sentences(aggregated: pd.DataFrame, probes: dict[str, str | None] | None = None,
                       recipe_probes: pd.DataFrame | None = None, rechecks: dict | None = None) -> list[str]:
    """One line per paper: does the best agent we trained beat the best heuristic, by how much on the
    normalised scale, and is it a tuned agent or only the paper's recipe (issue 69's headroom), and
    did that agent's trainer pass the learning probe, and did its study's probe gate hold when rechecked
    (``tune.gate_recheck``). ``probes``: paper -> its tuned recipe's
    learning probe (default: read from config/tuned); ``recipe_probes``: the papers' own recipes'
    (``recipe_probes.read_recipe_probes``' frame; default: config/recipe-probes.csv); ``rechecks``:
    paper -> its study's ``tune.GateRecheck`` or None (default: read from config/tuned)."""
    from schedrl.experiments.tune import gate_recheck, recipe_probe
    from schedrl.report.recipe_probes import read_recipe_probes, recipe_probe_of

    recipe_probes = read_recipe_probes() if recipe_probes is None else recipe_probes

    out = []
    for paper in sorted(set(aggregated["paper"])):
        mine = aggregated[aggregated["paper"] == paper]
        best = best_agent_row(mine)
        if best is None:
            continue
        tuned = "scale" in mine and (mine["scale"] == "tuned").any()
        # the probe recorded with the tuned run first (the committed recipe may since have changed)
        recorded = probe_of(mine.loc[mine["scale"] == "tuned", PROBE_COLUMN]) if tuned and PROBE_COLUMN in mine else None
        chosen = recorded or (probes[paper] if probes is not None and paper in probes else recipe_probe(paper))
        probe = probe_clause(chosen) if tuned else ""
        recheck = (rechecks.get(paper) if rechecks is not None else gate_recheck(paper)) if tuned else None
        if recheck is not None and recheck.clause():
            probe += ", " + recheck.clause()
        own = "" if best.get("scale") == "tuned" else ", " + recipe_clause(
            recipe_probe_of(recipe_probes, paper, str(best.get("scale", "default")), str(best["player"])))
        who = f"a tuned agent, {probe}" if best.get("scale") == "tuned" else (
            f"the paper's recipe (the tuned agent scores lower, {probe}){own}" if tuned
            else f"the paper's recipe; no tuned agent yet{own}")
        rows = mine[mine["scale"] == best["scale"]] if "scale" in mine and "scale" in best else mine
        start = untrained_of(rows, best["player"])
        started = ""
        if start is not None:
            word = learned_word(best, start)
            started = f"; its untrained network {_interval(start, 'iqm')}{': ' + word if word else ''}"
        out.append(f"- **{paper}**: the best agent, {best['player']} ({int(best['seeds'])} seed(s), "
                   f"{int(best['workloads'])} workload(s)), {headroom_word(best)}: IQM {_interval(best, 'iqm')}"
                   f"{started}; {who}.")
    return out


def placed_sentences(aggregated: pd.DataFrame, gaps: pd.DataFrame | None = None) -> list[str]:
    """One sentence per paper on where its placed agents land: mean normalised score against our
    random valid play (0) and, where the paper has one, uniform play over all actions (its mean);
    a paper with nothing placed gets its gap's reason (``gaps.csv``)."""
    out = []
    papers = sorted(set(aggregated["paper"]) | (set(gaps["paper"]) if gaps is not None and len(gaps) else set()))
    for paper in papers:
        mine = aggregated[aggregated["paper"] == paper]
        placed = mine[(mine["role"] == "authors") & mine["player"].str.endswith(PLACED) & mine["mean"].notna()]
        uniform = mine[(mine["role"] == "uniform") & mine["mean"].notna()]
        if len(placed):
            parts = []
            for _, r in placed.iterrows():
                text = f"{r['player'].removesuffix(PLACED)} {r['mean']:.2f} ({_side(r['mean'], 0.0)} random valid play's 0"
                if len(uniform):
                    u = float(uniform["mean"].mean())
                    text += f", {_side(r['mean'], u)} uniform play's {u:.2f}"
                parts.append(text + f"; {int(r['workloads'])} workload(s))")
            out.append(f"- **{paper}**: placed from the paper's own numbers, mean normalised score " + "; ".join(parts) + ".")
            continue
        why = gaps[(gaps["paper"] == paper) & gaps["player"].astype(str).str.endswith(PLACED)] \
            if gaps is not None and len(gaps) else pd.DataFrame()
        if len(why):
            out.append(f"- **{paper}**: no paper agent placed: {why['gap'].iloc[0]}.")
    return out


def where_rl_stands(aggregated: pd.DataFrame, gaps: pd.DataFrame | None = None,
                    figures: dict[str, str] | None = None) -> str:
    """The report's opening section: per paper and player, IQM and mean normalised score with their
    intervals and the probabilities of improvement (markdown; the heuristics' own rows left out),
    then one sentence per paper on where the paper's own agents, placed, land (``gaps``: the
    ``gaps.csv`` beside the aggregate, for the papers with nothing placed). ``figures``: caption ->
    image path (relative to the report), drawn first (``schedrl.plots.normalised``)."""
    from schedrl.plots.tables import markdown_table

    lines = ["## Where RL stands", "",
             "Every player's headline metric on one scale per workload: random valid play = 0, the best "
             "heuristic of that workload = 1 (`results/normalised/`). IQM and mean over seeds x workloads "
             f"with rliable's stratified-bootstrap {CONFIDENCE:.0%} intervals; P(> random) and P(> best "
             "heuristic): rliable's probability of improvement. Workloads without a scale are left out and "
             "counted under *no scale*: where random valid play beats every heuristic or matches the best "
             "one (degenerate: the best heuristic within the 95% interval of random play's mean, its noise "
             "measured between its seeds on each job set where a workload is several (deeprm), else between "
             "its seeds' means), or where random valid play or every heuristic is not played yet. *Scale*: the "
             "pipeline scale the numbers come from (default, smoke, paper-budget, paper).", ""]
    for caption, path in (figures or {}).items():
        lines += [f"![{caption}]({path})", "", f"*{caption}*", ""]
    shown = aggregated[aggregated["role"] != "heuristic"]
    if shown.empty:
        return "\n".join(lines + ["No player has a normalised score yet.", ""])
    table = pd.DataFrame({
        "paper": shown["paper"], "scale": shown.get("scale", ""), "player": shown["player"], "role": shown["role"],
        "seeds": shown["seeds"], "workloads": shown["workloads"],
        "no scale": [_no_scale(r) for _, r in shown.iterrows()],
        "IQM [95%]": [_interval(r, "iqm") for _, r in shown.iterrows()],
        "mean [95%]": [_interval(r, "mean") for _, r in shown.iterrows()],
        "P(> random)": [_interval(r, "p_beats_random") for _, r in shown.iterrows()],
        "P(> best heuristic)": [_interval(r, "p_beats_best_heuristic") for _, r in shown.iterrows()],
    })
    headroom = headroom_sentences(aggregated)
    head = ["**Headroom** (the best agent's IQM interval against random valid play's 0 and the best "
            "heuristic's 1; it beats the heuristic only when the whole interval lies above 1):", "",
            *headroom, ""] if headroom else []
    placed = placed_sentences(aggregated, gaps)
    note = ["Players ending in *(placed)* are the papers' own reported agents, **placed, not measured**: "
            "each keeps its ratio to the paper's own heuristic on that workload, carried onto our best "
            "heuristic's value (`placed_from` in `results/normalised/scores.csv`; each paper's deviations say "
            "what this assumes).", "", *placed, ""] if placed else []
    return "\n".join(lines + [markdown_table(table), "", *head, *note])
