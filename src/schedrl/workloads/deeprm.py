"""DeepRM-style synthetic job sets: Bernoulli arrivals per time step, bimodal lengths, a dominant resource.

Three parameterisations of one model (a ``JobModel``), each a small named constructor:

* ``mao_model`` -- DeepRM (Mao et al. 2016, ``job_distribution.bi_model_dist``): 80% small jobs of
  length ``1..max_job_len/5``, 20% large of length ``2*max_job_len/3..max_job_len``; one resource,
  drawn uniformly, is dominant with demand ``max_job_size/2..max_job_size``, the others
  ``1..max_job_size/5``. Defaults (15, 10) give small 1..3, large 10..15, dominant 5..10, other 1..2.
* ``sb3_phase1_model`` -- the SB3 report's phase-1 variant (section 4.3): same lengths, the dominant
  demand ``0.25..0.5 * res_slot`` and the other ``0.05..0.1 * res_slot``.
* ``sb3_phase1_code_model`` -- the same phase-1 variant as the report's public code draws it
  (tdhawale/DeepRM, ``src/Phase1``): numpy truncates the float bounds, so with ``res_slot`` 10 the
  dominant demand is 2..5 (not 3..5) and the other 1; each sequence stops taking jobs once its work
  ``sum(len * demand_0 * demand_1)`` exceeds ``1.3 * res_slot ** num_res * time_horizon``
  (``JobModel.work_cap``); the dominant resource comes from Python's ``random`` module.
* ``cunha_model`` -- sched-rl-gym (Cunha and Chaimowicz): one resource (processors) with ``n_p``
  units, maximum length ``d``, maximum size ``j_s``: lengths as above with ``d``, sizes
  ``j_s/2..j_s`` (the only resource is the dominant one).

Fractional bounds round inwards (lower bound up, upper bound down, never below 1), which reproduces
the integer division of DeepRM's Python 2 code for its defaults.

Two generators: ``generate_jobset`` (numpy's ``default_rng``, vectorised; our held-out sets) and
``legacy_jobsets``, which draws ``num_ex`` sequences exactly as DeepRM's and the SB3 report's code
does (numpy's legacy global ``RandomState`` seeded once, one step at a time, in their draw order:
arrival coin, small/large coin, length, dominant resource, then each resource's demand), so the
report's in-sample "seed 42" job sequence is reproduced job for job.

A ``JobSet`` holds numpy arrays (arrival step, length, demand per resource) drawn from one seed;
a held-out job set is simply another seed. Load (section 4.3 of the SB3 report):

* DeepRM's per-resource load of resource r is ``sum(demand_r * length) / res_slot / simu_len``
  (``simu_len`` counts time steps, empty ones included); ``empirical_load`` computes it.
* ``load_for_rate`` is its expectation, averaged over resources: ``rate * E[len] * E[demand] /
  res_slot``; DeepRM's defaults give 1.845 * rate, i.e. 129% at the agents' training rate 0.7 (the
  report's "130%"), 18% at 0.1 and 185% at 1.0 (the report's "10%..190%" axis for rates 0.1..1.0).
* The report's eq. 4.1 sums CPU and memory over ``res_slot * n``; literally applied it is
  ``num_res`` times the per-resource load (258% at 0.7), so it is available as
  ``definition="eq41"`` but the default ``"per_resource"`` is the one whose numbers match the
  report's axis labels.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from schedrl.errors import ConfigError

LOAD_DEFINITIONS = ("per_resource", "eq41")


def _round_in(lo: float, hi: float, what: str) -> tuple[int, int]:
    """Integer range strictly inside [lo, hi] (lo rounded up, hi down, both at least 1)."""
    ilo = max(1, math.ceil(lo - 1e-9))
    ihi = max(1, math.floor(hi + 1e-9))
    if ihi < ilo:
        raise ConfigError(f"empty integer range for {what}: [{lo}, {hi}]")
    return ilo, ihi


@dataclass(frozen=True)
class JobModel:
    """Distribution of one job and the Bernoulli arrival rate per time step.

    Ranges are inclusive integer bounds. ``other`` is ignored when ``num_res`` is 1.
    """

    num_res: int
    new_job_rate: float
    small_len: tuple[int, int]
    large_len: tuple[int, int]
    dominant: tuple[int, int]
    other: tuple[int, int]
    small_chance: float = 0.8
    # legacy generation only (the SB3 report's phase-1 code): stop taking jobs once the work
    # sum(len * prod(demand)) exceeds work_cap; draw the dominant resource with Python's random.
    work_cap: float | None = None
    python_dominant: bool = False

    def __post_init__(self):
        if self.num_res < 1:
            raise ConfigError(f"num_res must be >= 1, got {self.num_res}")
        if not 0.0 <= self.new_job_rate <= 1.0:
            raise ConfigError(f"new_job_rate is a Bernoulli probability per step, got {self.new_job_rate}")
        if not 0.0 <= self.small_chance <= 1.0:
            raise ConfigError(f"small_chance must be in [0, 1], got {self.small_chance}")
        for name in ("small_len", "large_len", "dominant", "other"):
            lo, hi = getattr(self, name)
            if not 1 <= lo <= hi:
                raise ConfigError(f"{name} range must satisfy 1 <= low <= high, got ({lo}, {hi})")

    @property
    def max_len(self) -> int:
        return max(self.small_len[1], self.large_len[1])

    @property
    def max_demand(self) -> int:
        return max(self.dominant[1], self.other[1]) if self.num_res > 1 else self.dominant[1]

    def mean_length(self) -> float:
        mean = lambda r: (r[0] + r[1]) / 2  # noqa: E731
        return self.small_chance * mean(self.small_len) + (1 - self.small_chance) * mean(self.large_len)

    def mean_demand(self) -> float:
        """Expected demand of one resource (each resource is dominant with probability 1/num_res)."""
        dom = (self.dominant[0] + self.dominant[1]) / 2
        oth = (self.other[0] + self.other[1]) / 2
        return dom / self.num_res + oth * (1 - 1 / self.num_res)


def mao_model(num_res: int = 2, max_job_len: int = 15, max_job_size: int = 10,
              new_job_rate: float = 0.7, small_chance: float = 0.8) -> JobModel:
    """DeepRM's ``bi_model_dist`` (see module docstring)."""
    return JobModel(
        num_res=num_res, new_job_rate=new_job_rate, small_chance=small_chance,
        small_len=_round_in(1, max_job_len / 5, "small job length"),
        large_len=_round_in(max_job_len * 2 / 3, max_job_len, "large job length"),
        dominant=_round_in(max_job_size / 2, max_job_size, "dominant demand"),
        other=_round_in(1, max_job_size / 5, "other demand"),
    )


def sb3_phase1_model(num_res: int = 2, max_job_len: int = 15, res_slot: int = 10,
                     new_job_rate: float = 0.7, small_chance: float = 0.8) -> JobModel:
    """The SB3 report's phase-1 variant: demands as fractions of ``res_slot`` (section 4.3)."""
    return JobModel(
        num_res=num_res, new_job_rate=new_job_rate, small_chance=small_chance,
        small_len=_round_in(1, max_job_len / 5, "small job length"),
        large_len=_round_in(max_job_len * 2 / 3, max_job_len, "large job length"),
        dominant=_round_in(0.25 * res_slot, 0.5 * res_slot, "dominant demand"),
        other=_round_in(0.05 * res_slot, 0.1 * res_slot, "other demand"),
    )


def sb3_phase1_code_model(num_res: int = 2, max_job_len: int = 15, res_slot: int = 10,
                          new_job_rate: float = 1.0, small_chance: float = 0.8, time_horizon: int = 20,
                          load: float = 1.3) -> JobModel:
    """The phase-1 workload as the SB3 report's code draws it (see module docstring).

    numpy's legacy ``randint(low, high)`` truncates float bounds, hence ``int()`` here rather than
    ``_round_in``: dominant ``int(0.25 * res_slot)..int(0.5 * res_slot)`` (2..5 for 10), other
    ``int(max(0.05 * res_slot, 1))..int(0.1 * res_slot)`` (1..1).
    """
    return JobModel(
        num_res=num_res, new_job_rate=new_job_rate, small_chance=small_chance,
        small_len=_round_in(1, max_job_len / 5, "small job length"),
        large_len=_round_in(max_job_len * 2 / 3, max_job_len, "large job length"),
        dominant=(max(1, int(0.25 * res_slot)), max(1, int(0.5 * res_slot))),
        other=(max(1, int(max(0.05 * res_slot, 1))), max(1, int(0.1 * res_slot))),
        work_cap=float(load) * float(res_slot) ** num_res * float(time_horizon),
        python_dominant=True,
    )


def cunha_model(max_job_len: int = 15, max_job_size: int = 10, new_job_rate: float = 0.3,
                small_chance: float = 0.8) -> JobModel:
    """sched-rl-gym's generator: one resource, lengths as DeepRM's, sizes ``j_s/2..j_s``."""
    return JobModel(
        num_res=1, new_job_rate=new_job_rate, small_chance=small_chance,
        small_len=_round_in(1, max_job_len / 5, "small job length"),
        large_len=_round_in(max_job_len * 2 / 3, max_job_len, "large job length"),
        dominant=_round_in(max_job_size / 2, max_job_size, "job size"),
        other=(1, 1),
    )


def _cunha(num_res: int, max_job_len: int, max_job_size: int, res_slot: int, new_job_rate: float,
           small_chance: float) -> JobModel:
    if num_res != 1:
        raise ConfigError(f"workload 'cunha' has one resource, but num_res is {num_res}")
    return cunha_model(max_job_len, max_job_size, new_job_rate, small_chance)


# Job models by name: Mao et al.'s DeepRM model, the SB3 report's phase-1 model, Cunha et al.'s.
MODELS = {
    "deeprm": lambda num_res, max_job_len, max_job_size, res_slot, new_job_rate, small_chance: mao_model(
        num_res, max_job_len, max_job_size, new_job_rate, small_chance),
    "sb3_phase1": lambda num_res, max_job_len, max_job_size, res_slot, new_job_rate, small_chance: sb3_phase1_model(
        num_res, max_job_len, res_slot, new_job_rate, small_chance),
    "sb3_phase1_code": lambda num_res, max_job_len, max_job_size, res_slot, new_job_rate, small_chance:
        sb3_phase1_code_model(num_res, max_job_len, res_slot, new_job_rate, small_chance),
    "cunha": _cunha,
}


def make_model(name: str, *, num_res: int, max_job_len: int, max_job_size: int, res_slot: int,
               new_job_rate: float, small_chance: float = 0.8) -> JobModel:
    """The named model (``deeprm``, ``sb3_phase1``, ``sb3_phase1_code`` or ``cunha``) from the environment's parameters."""
    if not isinstance(name, str) or name not in MODELS:
        raise ConfigError(f"unknown DeepRM workload '{name}' (choose from: {', '.join(MODELS)})")
    return MODELS[name](num_res, max_job_len, max_job_size, res_slot, new_job_rate, small_chance)


@dataclass(frozen=True, eq=False)
class JobSet:
    """Jobs of one episode, in arrival order: ``arrival[i]`` is the time step job i arrives at.

    ``simu_len`` is the number of time steps the sequence covers (0..simu_len-1), empty ones
    included; it is the denominator of DeepRM's load.
    """

    arrival: np.ndarray  # int64 (n,), nondecreasing
    length: np.ndarray  # int64 (n,), >= 1
    demand: np.ndarray  # int64 (n, num_res), >= 1
    simu_len: int
    seed: int | None = None
    model: JobModel | None = field(default=None, compare=False)

    def __post_init__(self):
        n = len(self.arrival)
        if self.length.shape != (n,) or self.demand.ndim != 2 or self.demand.shape[0] != n:
            raise ValueError("arrival, length and demand must describe the same jobs")
        if n and (np.any(np.diff(self.arrival) < 0) or self.arrival[0] < 0):
            raise ValueError("arrivals must be nonnegative and nondecreasing")
        if n and (self.length.min() < 1 or self.demand.min() < 0):
            raise ValueError("lengths must be >= 1 and demands >= 0")

    def __len__(self) -> int:
        return len(self.arrival)

    @property
    def num_res(self) -> int:
        return self.demand.shape[1]

    @classmethod
    def from_lists(cls, arrival, length, demand, simu_len: int | None = None) -> JobSet:
        """A hand-written job set (tests, examples)."""
        arrival = np.asarray(arrival, dtype=np.int64)
        demand = np.asarray(demand, dtype=np.int64).reshape(len(arrival), -1)
        if simu_len is None:
            simu_len = int(arrival.max()) + 1 if len(arrival) else 0
        return cls(arrival, np.asarray(length, dtype=np.int64), demand, int(simu_len))


def generate_jobset(model: JobModel, simu_len: int, seed: int | np.random.Generator) -> JobSet:
    """Draw one job set: each of ``simu_len`` steps gets a job with probability ``new_job_rate``.

    ``seed`` is an int (a job set is named by its seed) or a ``numpy.random.Generator`` (the env's
    ``np_random`` when no job-set seed is configured). The draw order is fixed, so a seed always
    gives the same job set.
    """
    if simu_len < 0:
        raise ConfigError(f"simu_len must be >= 0, got {simu_len}")
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    arrival = np.flatnonzero(rng.random(simu_len) < model.new_job_rate).astype(np.int64)
    n = len(arrival)
    small = rng.random(n) < model.small_chance
    small_len = rng.integers(model.small_len[0], model.small_len[1] + 1, n)
    large_len = rng.integers(model.large_len[0], model.large_len[1] + 1, n)
    length = np.where(small, small_len, large_len).astype(np.int64)
    dominant = rng.integers(0, model.num_res, n)
    demand = rng.integers(model.other[0], model.other[1] + 1, (n, model.num_res)).astype(np.int64)
    demand[np.arange(n), dominant] = rng.integers(model.dominant[0], model.dominant[1] + 1, n)
    return JobSet(arrival, length, demand, int(simu_len),
                  seed=None if isinstance(seed, np.random.Generator) else int(seed), model=model)


def legacy_jobsets(model: JobModel, simu_len: int, num_ex: int, seed: int) -> list[JobSet]:
    """``num_ex`` sequences of ``simu_len`` steps drawn as DeepRM's / the SB3 report's code draws them.

    One ``numpy.random.RandomState(seed)`` (the legacy generator behind ``np.random.seed``) draws
    ``simu_len * num_ex`` steps in a row, cut into ``num_ex`` sequences; per step: ``rand() <
    new_job_rate``, and for a job ``rand() < small_chance``, the length (``randint``), the dominant
    resource (``randint(0, num_res)``; Python's ``random.Random(seed)`` with
    ``model.python_dominant``), then each resource's demand in order. Step i's job arrives at time
    i (their env enters it at i + 1: the same schedule shifted by one step). ``model.work_cap``
    stops taking jobs once the work so far exceeds it (the coin is still drawn every step).
    Job set k carries ``seed = None`` (it is not a ``generate_jobset`` seed).
    """
    import random

    if simu_len < 0 or num_ex < 1:
        raise ConfigError(f"simu_len must be >= 0 and num_ex >= 1, got {simu_len}, {num_ex}")
    rs = np.random.RandomState(int(seed))
    py = random.Random(int(seed))
    R = model.num_res
    lens = np.zeros(simu_len * num_ex, dtype=np.int64)
    sizes = np.zeros((simu_len * num_ex, R), dtype=np.int64)
    work = 0.0
    for i in range(simu_len * num_ex):
        coin = rs.rand() < model.new_job_rate
        if not coin or (model.work_cap is not None and work > model.work_cap):
            continue
        rng_len = model.small_len if rs.rand() < model.small_chance else model.large_len
        lens[i] = rs.randint(rng_len[0], rng_len[1] + 1)
        dominant = py.randint(0, R - 1) if model.python_dominant else rs.randint(0, R)
        for r in range(R):
            lo, hi = model.dominant if r == dominant else model.other
            sizes[i, r] = rs.randint(lo, hi + 1)
        work += float(lens[i] * np.prod(sizes[i]))
    out = []
    for k in range(num_ex):
        part = slice(k * simu_len, (k + 1) * simu_len)
        steps = np.flatnonzero(lens[part] > 0).astype(np.int64)
        out.append(JobSet(steps, lens[part][steps].copy(), sizes[part][steps].copy(), int(simu_len),
                          seed=None, model=model))
    return out


def empirical_load(jobset: JobSet, res_slot: int) -> np.ndarray:
    """DeepRM's per-resource load of a job set: ``sum(demand_r * length) / res_slot / simu_len``."""
    if jobset.simu_len == 0:
        return np.zeros(jobset.num_res)
    work = (jobset.demand * jobset.length[:, None]).sum(axis=0)
    return work / float(res_slot) / float(jobset.simu_len)


def load_for_rate(rate: float, *, res_slot: int = 10, workload: str = "deeprm", num_res: int = 2,
                  max_job_len: int = 15, max_job_size: int = 10, small_chance: float = 0.8,
                  workload_max_job_size: int | None = None, definition: str = "per_resource") -> float:
    """Expected load of the named workload at arrival rate ``rate`` (see module docstring).

    Keywords are the DeepRM env's (``workload_max_job_size``, when given, is the largest demand
    drawn, as in the env). ``definition="per_resource"``: DeepRM's per-resource load, averaged over
    resources; ``"eq41"``: the SB3 report's eq. 4.1 taken literally (sum over resources).
    """
    if workload_max_job_size is not None:
        max_job_size = int(workload_max_job_size)
    if definition not in LOAD_DEFINITIONS:
        raise ConfigError(f"unknown load definition '{definition}' (choose from: {', '.join(LOAD_DEFINITIONS)})")
    model = make_model(workload, num_res=num_res, max_job_len=max_job_len, max_job_size=max_job_size,
                       res_slot=res_slot, new_job_rate=min(max(rate, 0.0), 1.0), small_chance=small_chance)
    per_res = rate * model.mean_length() * model.mean_demand() / res_slot
    return per_res * (num_res if definition == "eq41" else 1)


def rate_for_load(load: float, **params) -> float:
    """The arrival rate whose expected load (``load_for_rate``, same keywords) is ``load``.

    Raises ConfigError when the load needs more than one job per step (Bernoulli arrivals cap the
    rate at 1: DeepRM's defaults cannot exceed 184.5% per resource).
    """
    unit = load_for_rate(1.0, **params)
    rate = load / unit
    if not 0.0 <= rate <= 1.0 + 1e-12:
        raise ConfigError(f"load {load:g} needs new_job_rate {rate:.3f}, outside [0, 1] "
                          f"(the maximum load of this workload is {unit:g})")
    return min(rate, 1.0)
