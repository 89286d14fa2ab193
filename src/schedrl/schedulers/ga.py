"""Multi-objective window optimiser: MRSch's "Optimization" baseline (BBSched, Fan et al. 2019).

At a scheduling decision the first ``w`` waiting jobs (the window, 10 in MRSch) are candidates.
A solution is a chromosome of ``w`` bits, bit ``j`` = start window job ``j`` now. Its objectives
are the utilisation it adds to each resource (selected demand / capacity, one objective per
resource, all maximised); it is infeasible when the selected demand exceeds the free amount of
any resource (utilisation of the free capacity above 100%). The answer is the Pareto front of the
feasible solutions, found

* by exhaustive enumeration of all ``2**w`` subsets (a numpy bit matrix) when ``w`` is at most
  ``exhaustive_max`` (every MRSch window: 2**10 = 1,024 subsets), else
* by a genetic algorithm with BBSched's settings: population ``ceil(2**w / 50)`` clamped to
  [10, 25], ``min(50, ceil(0.1 * 2**w))`` generations, one-point crossover, bit-flip mutation
  0.05 per gene, Pareto-rank (non-dominated sorting) tournament selection and elitist survival,
  infeasible offspring repaired by dropping randomly chosen selected jobs; the front returned is
  the non-dominated set of every feasible chromosome the run evaluated. Seeded: same inputs and
  seed, same answer.

Picking one solution from the front. Neither the MRSch paper nor our sources pin down BBSched's
decision rule, so it is a named option (``pick``), documented here and reported by callers:

* ``"max_sum"`` (default) - the largest sum of per-resource utilisation gains, i.e. equal weights
  on every resource;
* ``"weighted"`` - the largest ``weights . objectives``;
* ``"lexicographic"`` - the largest gain on resource 0, then 1, ... (node-first).

Every rule breaks remaining ties towards the earliest window jobs (the chromosome read as a binary
number with job 0 most significant), which keeps the choice deterministic and FCFS-leaning.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numba
import numpy as np

from schedrl.errors import SchedrlError

PICK_RULES = ("max_sum", "weighted", "lexicographic")
MUTATION_RATE = 0.05


@dataclass(frozen=True)
class WindowChoice:
    """The optimiser's answer for one window.

    ``mask``: bool (w,), the chosen jobs. ``objectives``: their per-resource utilisation gains.
    ``front``: bool (F, w), the Pareto-optimal chromosomes found; ``front_objectives`` (F, R).
    ``method``: "exhaustive" or "ga"; ``evaluated``: chromosomes whose objectives were computed.
    """

    mask: np.ndarray
    objectives: np.ndarray
    front: np.ndarray
    front_objectives: np.ndarray
    method: str
    evaluated: int

    @property
    def jobs(self) -> np.ndarray:
        """Window indices of the chosen jobs, ascending."""
        return np.flatnonzero(self.mask)


# --------------------------------------------------------------------------- building blocks
def ga_population_size(w: int) -> int:
    """BBSched: ceil(2**w / 50) clamped to [10, 25]."""
    return int(min(25, max(10, math.ceil(2.0 ** w / 50))))


def ga_generations(w: int) -> int:
    """BBSched: min(50, ceil(0.1 * 2**w))."""
    return int(min(50, math.ceil(0.1 * 2.0 ** w)))


def all_subsets(w: int) -> np.ndarray:
    """Bool matrix (2**w, w) of every subset; row ``i`` holds the bits of ``i`` (bit j = job j)."""
    return ((np.arange(2 ** w, dtype=np.int64)[:, None] >> np.arange(w, dtype=np.int64)) & 1).astype(bool)


def evaluate(masks: np.ndarray, demand: np.ndarray, free: np.ndarray, scale: np.ndarray):
    """Objectives (selected demand / scale) and feasibility (selected demand <= free) of ``masks``."""
    load = masks.astype(np.float64) @ demand
    feasible = np.all(load <= free + 1e-9 * np.maximum(free, 1.0), axis=1)
    return load / scale, feasible


def pareto_mask(objectives: np.ndarray) -> np.ndarray:
    """Bool mask of the non-dominated rows of ``objectives`` (maximisation; duplicates all kept)."""
    obj = np.asarray(objectives, dtype=np.float64)
    if obj.shape[0] == 0:
        return np.zeros(0, dtype=bool)
    # A dominating row has a sum >= the dominated one's and is lexicographically larger, so in
    # this order every dominator comes first and one pass against the growing front suffices.
    order = np.lexsort(tuple(-obj[:, c] for c in range(obj.shape[1] - 1, -1, -1)) + (-obj.sum(axis=1),))
    keep_sorted = _nondominated_sorted(np.ascontiguousarray(obj[order]))
    keep = np.zeros(obj.shape[0], dtype=bool)
    keep[order] = keep_sorted
    return keep


@numba.njit(cache=True, inline="always")
def _dominates(obj, i, j):
    """Row ``i`` Pareto-dominates row ``j`` (maximisation): >= everywhere, > somewhere."""
    gt = False
    for c in range(obj.shape[1]):
        if obj[i, c] < obj[j, c]:
            return False
        if obj[i, c] > obj[j, c]:
            gt = True
    return gt


@numba.njit(cache=True)
def _nondominated_sorted(obj):
    n = obj.shape[0]
    keep = np.zeros(n, dtype=np.bool_)
    front = np.empty(n, dtype=np.int64)
    m = 0
    for i in range(n):
        dominated = False
        for f in range(m):
            if _dominates(obj, front[f], i):
                dominated = True
                break
        if not dominated:
            keep[i] = True
            front[m] = i
            m += 1
    return keep


def pareto_ranks(objectives: np.ndarray) -> np.ndarray:
    """Non-dominated sorting: rank 0 = the front, rank 1 = the front once rank 0 is removed, ...

    O(n^2) per front: meant for GA populations (tens of rows).
    """
    return _ranks(np.ascontiguousarray(objectives, dtype=np.float64))


@numba.njit(cache=True)
def _ranks(obj):
    n = obj.shape[0]
    dominated_by = np.zeros(n, dtype=np.int64)  # how many rows dominate row j
    dom = np.zeros((n, n), dtype=np.bool_)
    for i in range(n):
        for j in range(n):
            if _dominates(obj, i, j):
                dom[i, j] = True
                dominated_by[j] += 1
    ranks = np.full(n, -1, dtype=np.int64)
    current = np.flatnonzero(dominated_by == 0)
    rank = 0
    while current.size:
        nxt = []
        for i in current:
            ranks[i] = rank
        for i in current:
            for j in range(n):
                if dom[i, j]:
                    dominated_by[j] -= 1
                    if dominated_by[j] == 0:
                        nxt.append(j)
        current = np.array(nxt, dtype=np.int64)
        rank += 1
    return ranks


def pick(front: np.ndarray, objectives: np.ndarray, rule: str = "max_sum",
         weights: np.ndarray | None = None) -> int:
    """Index (into ``front``) of the solution chosen by ``rule``; see the module docstring."""
    if rule not in PICK_RULES:
        raise SchedrlError(f"unknown Pareto pick rule '{rule}' (choose from {', '.join(PICK_RULES)})")
    w = front.shape[1]
    earliest = front.astype(np.float64) @ (2.0 ** np.arange(w - 1, -1, -1))
    objectives = np.round(objectives, 12)  # sums equal up to rounding are ties
    if rule == "max_sum":
        keys = (earliest, np.round(objectives.sum(axis=1), 12))
    elif rule == "weighted":
        if weights is None or len(weights) != objectives.shape[1]:
            raise SchedrlError(f"pick rule 'weighted' needs {objectives.shape[1]} weights")
        keys = (earliest, np.round(objectives @ np.asarray(weights, dtype=np.float64), 12))
    else:
        keys = (earliest,) + tuple(objectives[:, c] for c in range(objectives.shape[1] - 1, -1, -1))
    return int(np.lexsort(keys)[-1])  # lexsort sorts by the last key first, ascending


# --------------------------------------------------------------------------- the optimiser
def optimise_window(demand, free, *, capacity=None, seed: int | np.random.Generator = 0,
                    exhaustive_max: int = 16, rule: str = "max_sum", weights=None,
                    population: int | None = None, generations: int | None = None,
                    mutation: float = MUTATION_RATE) -> WindowChoice:
    """Choose the jobs of a window to start now.

    ``demand``: (w, R) resources each window job needs; ``free``: (R,) free amounts now;
    ``capacity``: (R,) machine totals used to express utilisation (default: ``free``). A window
    of ``w <= exhaustive_max`` jobs is searched exhaustively, a larger one by the GA.
    """
    demand = np.asarray(demand, dtype=np.float64)
    if demand.ndim != 2:
        raise SchedrlError("window demand must be a (jobs x resources) matrix")
    w, r = demand.shape
    free = np.asarray(free, dtype=np.float64).reshape(-1)
    if free.size != r:
        raise SchedrlError(f"free capacity has {free.size} entries for {r} resources")
    scale = free if capacity is None else np.asarray(capacity, dtype=np.float64).reshape(-1)
    if scale.size != r or np.any(scale < 0) or np.any(free < 0) or np.any(demand < 0):
        raise SchedrlError("capacities and demands must be non-negative, one per resource")
    scale = np.where(scale > 0, scale, 1.0)  # a resource with no capacity adds 0 utilisation
    if w == 0:
        empty = np.zeros((1, 0), dtype=bool)
        return WindowChoice(np.zeros(0, bool), np.zeros(r), empty, np.zeros((1, r)), "exhaustive", 1)
    if w <= exhaustive_max:
        masks = all_subsets(w)
        obj, feasible = evaluate(masks, demand, free, scale)
        masks, obj = masks[feasible], obj[feasible]  # the empty set is always feasible
        method, evaluated = "exhaustive", 2 ** w
    else:
        rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
        masks, obj, evaluated = _genetic(demand, free, scale, rng,
                                         population or ga_population_size(w),
                                         generations or ga_generations(w), mutation)
        method = "ga"
    front_rows = pareto_mask(obj)
    front, front_obj = masks[front_rows], obj[front_rows]
    # one entry per distinct chromosome, in a fixed order (earliest-jobs first)
    front, uniq = np.unique(front, axis=0, return_index=True)
    front_obj = front_obj[uniq]
    best = pick(front, front_obj, rule, weights)
    return WindowChoice(front[best].copy(), front_obj[best].copy(), front, front_obj, method, evaluated)


def _repair(masks, demand, free, rng):
    """Drop randomly chosen selected jobs from infeasible chromosomes until they fit."""
    return _repair_ordered(masks, demand, free + 1e-9 * np.maximum(free, 1.0), rng.random(masks.shape))


@numba.njit(cache=True)
def _repair_ordered(masks, demand, limit, keys):
    """Drop selected jobs in increasing ``keys`` order until the chromosome's load fits ``limit``."""
    n, w = masks.shape
    r = demand.shape[1]
    for i in range(n):
        load = np.zeros(r)
        for j in range(w):
            if masks[i, j]:
                load += demand[j]
        order = np.argsort(keys[i])
        k = 0
        while np.any(load > limit) and k < w:
            j = order[k]
            if masks[i, j]:
                masks[i, j] = False
                load -= demand[j]
            k += 1
    return masks


def _genetic(demand, free, scale, rng, population, generations, mutation):
    w = demand.shape[0]
    pop = _repair(rng.random((population, w)) < 0.5, demand, free, rng)
    obj, _ = evaluate(pop, demand, free, scale)
    seen_masks, seen_obj = [pop.copy()], [obj]
    for _ in range(generations):
        ranks = pareto_ranks(obj)
        # binary tournaments on Pareto rank (ties: the first drawn)
        a = rng.integers(0, population, size=(population, 2))
        parents = np.where(ranks[a[:, 0]] <= ranks[a[:, 1]], a[:, 0], a[:, 1])
        mates = parents[rng.permutation(population)]
        # one-point crossover; a one-job window has no cut point, so children copy their parent
        cut = rng.integers(1, w, size=population) if w > 1 else np.full(population, w)
        left = np.arange(w)[None, :] < cut[:, None]
        children = np.where(left, pop[parents], pop[mates])
        children ^= rng.random(children.shape) < mutation
        children = _repair(children, demand, free, rng)
        child_obj, _ = evaluate(children, demand, free, scale)
        seen_masks.append(children.copy())
        seen_obj.append(child_obj)
        # elitist survival: the best ``population`` of parents + children by Pareto rank, then sum
        merged, merged_obj = np.vstack([pop, children]), np.vstack([obj, child_obj])
        order = np.lexsort((-merged_obj.sum(axis=1), pareto_ranks(merged_obj)))[:population]
        pop, obj = merged[order], merged_obj[order]
    masks = np.vstack(seen_masks)
    return masks, np.vstack(seen_obj), masks.shape[0]


# --------------------------------------------------------------------------- whole-trace baseline
def simulate_window_optimiser(jobs, cluster, *, window: int = 10, seed: int = 0, backfill: str = "easy",
                              rule: str = "max_sum", weights=None, exhaustive_max: int = 16,
                              overrun: str = "kill", process: str = "every_event"):
    """Run a trace with the window optimiser as the scheduler (MRSch's "Optimization" baseline).

    The queue-policy registry (``schedrl.sim.queue_policies``) orders jobs by a static key, which
    cannot express "start this set of jobs", so this drives the step simulator
    (``schedrl.sim.stepper.HPCSimulator``) directly. At each decision point: optimise the first
    ``window`` waiting jobs against the free resources (objectives as shares of the machine's
    capacity), start the chosen set, repeat on the slid window until the optimiser chooses nothing;
    then (``backfill="easy"``) reserve the queue head and EASY-backfill around it. With
    ``window=1`` this is exactly FCFS + EASY. Returns the per-job schedule of ``simulate``.

    ``process`` is the decision process (as ``PickReserveEnv``'s): ``every_event`` (default) drops
    the reservation at every submission and job end and re-plans, as above; ``hold`` keeps the
    queue head's reservation until that job starts (it is reserved even with no node free), EASY
    backfilling around it at each event, and calls the optimiser only while no reservation is
    held (the agents' ``hold`` process; a diagnostic). ``hold`` needs ``backfill="easy"``.
    """
    from schedrl.sim.stepper import HPCSimulator

    if window < 1:
        raise SchedrlError(f"window must be at least 1, not {window}")
    if backfill not in ("none", "easy"):
        raise SchedrlError(f"window optimiser backfill must be 'none' or 'easy', not '{backfill}'")
    if process not in ("every_event", "hold"):
        raise SchedrlError(f"window optimiser process must be 'every_event' or 'hold', not '{process}'")
    if process == "hold" and backfill != "easy":
        raise SchedrlError("window optimiser process 'hold' needs backfill 'easy'")
    hold = process == "hold"
    rng = np.random.default_rng(seed)
    sim = HPCSimulator(cluster, overrun=overrun)
    sim.reset(jobs)
    capacity = sim.capacity.astype(np.float64)
    decisions = 0
    while not sim.done:
        if hold and sim.reserved >= 0:
            if not sim.start_reserved():  # still held: EASY around it, no re-planning
                if sim.free[0] > 0:
                    sim.backfill()
                sim.next_decision_point()
                continue
            # the held job started: plan at this instant
        sim.release()
        while sim.queue:
            head = np.asarray(sim.queue[:window], dtype=np.int64)
            demand = sim.jobs.demand[head]
            if not np.any(np.all(demand <= sim.free, axis=1)):
                break
            choice = optimise_window(demand, sim.free, capacity=capacity, seed=rng, rule=rule,
                                     weights=weights, exhaustive_max=exhaustive_max)
            decisions += 1
            if not choice.mask.any():
                break
            for i in choice.jobs[::-1]:  # from the back, so earlier positions stay valid
                if not sim.start(int(i)):
                    raise AssertionError("a feasible window choice failed to start")  # pragma: no cover
        if hold and sim.queue:
            sim.reserve(0)  # kept until the head starts
            if sim.free[0] > 0:
                sim.backfill()
        elif backfill == "easy" and sim.queue and sim.free[0] > 0:
            sim.reserve(0)
            sim.backfill()
        sim.next_decision_point()  # advance() without building a SimState nobody reads
    schedule = sim.schedule()
    schedule.attrs["sim"] = {**schedule.attrs.get("sim", {}), "policy": "window_optimiser",
                             "window": window, "pick": rule, "seed": seed, "backfill": backfill,
                             "process": process, "optimiser_calls": decisions}
    return schedule
