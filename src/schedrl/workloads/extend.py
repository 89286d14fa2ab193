"""Workload extensions: runtime accuracy (runtime paper), burst buffer and power (MRSch).

* :func:`apply_wra` -- the runtime paper's walltime request accuracy: the Lublin time is the
  requested walltime and the actual runtime is ``max(1, round(req_time * WRA))``: ``"100"`` all
  jobs 100 %, ``"050"`` all jobs 50 %, ``"rnd"`` one WRA per job drawn from U(0, 1] (mean 50 %,
  the paper only states the mean).
* :func:`split_half` -- first / second half of a workload (suffix a / b).
* :func:`apply_scenario` -- MRSch Table III (S1-S5) and the power case study (S6-S10 = S1-S5 plus
  a per-node power U(100, 215) W). A share of the jobs (exactly round(share * n), chosen at
  random) requests burst buffer; the request size in TB is drawn from the scenario's range
  [lo, 285] TB. The paper samples the Darshan I/O volumes of the real jobs within that range; the
  Darshan data are not public, so sizes are drawn **uniformly** on the range by default
  (``bb_sizes="uniform"``: the least-informed choice given only the range, and the one under which
  the base Theta trace shows the paper's stated ordering, burst-buffer contention rising from S1
  to S4 and exceeding node contention in S5) or **log-uniformly** (``"log_uniform"``: heavy-tailed
  like raw I/O volumes, but then burst-buffer load stays below node load in every scenario). A
  user with per-job I/O volumes passes them as ``io_tb`` and the sizes are then resampled from
  those values that fall in the range, as in the paper. Requests
  are stored in burst-buffer units (``bb_request``; Theta: 1,325 units for 1.26 PB, so
  ceil(TB / 0.951)). S5 (and S10) halve the node requests of S4 (S9): ``ceil(nodes / 2)``.

Power (S6-S10, section V-E): per-node draw U(100, 215) W, idle node 60 W, a 500 kW budget. On
Theta's 4,360 nodes the idle draw alone is 261.6 kW, so a large job at a high draw cannot run even
on an empty machine (170 of 23,911 Theta 2022 jobs in S6-S9). The paper calls the budget a cap
and takes its 100 W floor from a power-capping library, so by default (``power_fit="cap"``) a
job's per-node draw is capped at what the budget leaves it on an otherwise idle machine,
``idle + (budget - nodes x idle) / job nodes`` (never below 114.7 W on Theta, so every draw stays
in the paper's 100-215 W range); the number of capped jobs goes into the notes.
``power_fit="none"`` keeps the raw draws (such a file cannot be simulated whole).

Machine capacities come from :mod:`schedrl.workloads.presets` (``THETA``); the header records
the capacities so a simulator can read them from the file (``MaxBurstBufferUnits``,
``BurstBufferUnitTB``, ``PowerBudgetWatts``, ``NodeIdleWatts``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from schedrl.errors import ConfigError
from schedrl.workloads.presets import THETA, Machine
from schedrl.workloads.splits import take_part
from schedrl.workloads.table import add_note, copy_attrs

__all__ = ["BB_SIZE_DISTRIBUTIONS", "POWER_FIT", "WRA_CHOICES", "cap_power", "apply_wra", "split_half", "Scenario", "SCENARIOS", "apply_scenario",
           "bb_units_from_tb"]

WRA_CHOICES = ("100", "050", "rnd")
BB_MAX_TB = 285.0


def apply_wra(frame: pd.DataFrame, wra: str | float, seed: int = 0) -> pd.DataFrame:
    """Actual runtimes from requested walltimes and a walltime request accuracy (see module doc)."""
    out = copy_attrs(frame, frame.copy())
    req = out["req_time"].to_numpy().astype(float)
    if np.any(req <= 0):
        raise ConfigError("apply_wra needs a positive req_time for every job")
    key = str(wra).lower()
    if key == "rnd":
        rng = np.random.default_rng([seed, 0x57A])
        ratio = 1.0 - rng.random(len(out))  # U(0, 1]
        text = "WRA rnd: run_time = req_time x U(0,1] per job (mean 50%)"
    else:
        try:
            value = float(key) / 100.0 if key in ("100", "050") else float(wra)
        except ValueError:
            raise ConfigError(f"wra must be one of {', '.join(WRA_CHOICES)} or a ratio in (0, 1], not {wra!r}") from None
        if not 0.0 < value <= 1.0:
            raise ConfigError(f"wra ratio must be in (0, 1], not {value}")
        ratio = np.full(len(out), value)
        text = f"WRA {key}: run_time = req_time x {value:g}"
    out["run_time"] = np.maximum(np.floor(req * ratio + 0.5), 1.0).astype(np.int64)
    out["avg_cpu_time"] = -1
    add_note(out, text)
    return out


def split_half(frame: pd.DataFrame, half: str, first: int | None = None) -> pd.DataFrame:
    """Half ``"a"`` (the first ``first`` jobs, default n // 2) or ``"b"`` (the rest).

    Submit times are shifted so each half starts at 0; job ids are kept (b keeps 1001..2000).
    """
    n = len(frame)
    first = n // 2 if first is None else int(first)
    if half not in ("a", "b"):
        raise ConfigError(f"half must be 'a' or 'b', not {half!r}")
    if not 0 < first < n:
        raise ConfigError(f"cannot split {n} jobs after job {first}")
    rows = slice(0, first) if half == "a" else slice(first, n)
    return take_part(frame, rows, f"half {half}: jobs {rows.start + 1}-{rows.stop} of {n}")


@dataclass(frozen=True)
class Scenario:
    """One MRSch workload scenario."""

    name: str
    bb_share: float          # share of jobs with a burst-buffer request
    bb_min_tb: float         # request size range [bb_min_tb, BB_MAX_TB]
    node_factor: float = 1.0  # 0.5 halves node requests (S5, S10)
    power: bool = False       # per-node power U(100, 215) W (S6-S10)
    bb_key: str = ""          # scenarios with the same key share the same burst-buffer draws

    def describe(self) -> str:
        parts = [f"{self.bb_share:.0%} of jobs request burst buffer, [{self.bb_min_tb:g}, {BB_MAX_TB:g}] TB"]
        if self.node_factor != 1.0:
            parts.append(f"node requests x {self.node_factor:g} (rounded up)")
        if self.power:
            parts.append("per-node power U(100, 215) W")
        return "; ".join(parts)


_BASE = {
    "S1": (0.50, 5.0, 1.0, "S1"),
    "S2": (0.75, 5.0, 1.0, "S2"),
    "S3": (0.50, 20.0, 1.0, "S3"),
    "S4": (0.75, 20.0, 1.0, "S4"),
    "S5": (0.75, 20.0, 0.5, "S4"),  # S5 = S4 with half the node requests
}
SCENARIOS: dict[str, Scenario] = {}
for _name, (_share, _lo, _factor, _key) in _BASE.items():
    SCENARIOS[_name] = Scenario(_name, _share, _lo, _factor, False, _key)
    _power_name = f"S{int(_name[1:]) + 5}"
    SCENARIOS[_power_name] = Scenario(_power_name, _share, _lo, _factor, True, _key)


def bb_units_from_tb(tb: np.ndarray, machine: Machine = THETA) -> np.ndarray:
    """Burst-buffer units covering ``tb`` terabytes (at least one unit per request)."""
    return np.maximum(np.ceil(np.asarray(tb, dtype=float) / machine.bb_unit_tb - 1e-9), 1.0)


BB_SIZE_DISTRIBUTIONS = ("uniform", "log_uniform")
POWER_FIT = ("cap", "none")


def cap_power(power_per_node: np.ndarray, nodes: np.ndarray, machine: Machine = THETA) -> np.ndarray:
    """Per-node draws capped so that each job alone fits the budget above the idle machine."""
    head_room = machine.power_budget_watts - machine.nodes * machine.node_idle_watts
    if head_room <= 0:
        raise ConfigError(f"machine {machine.name}: the power budget does not cover the idle draw")
    n = np.maximum(np.asarray(nodes, dtype=float), 1.0)
    limit = np.floor((machine.node_idle_watts + head_room / n) * 1000.0) / 1000.0  # mW grid, rounded down
    return np.minimum(np.asarray(power_per_node, dtype=float), limit)


def apply_scenario(frame: pd.DataFrame, scenario: str, seed: int = 0, machine: Machine = THETA,
                   io_tb: np.ndarray | None = None, bb_sizes: str = "uniform",
                   power_fit: str = "cap") -> pd.DataFrame:
    """The job table extended to an MRSch scenario S1-S10 (see module doc)."""
    if bb_sizes not in BB_SIZE_DISTRIBUTIONS:
        raise ConfigError(f"bb_sizes must be one of {', '.join(BB_SIZE_DISTRIBUTIONS)}, not {bb_sizes!r}")
    if power_fit not in POWER_FIT:
        raise ConfigError(f"power_fit must be one of {', '.join(POWER_FIT)}, not {power_fit!r}")
    try:
        sc = SCENARIOS[scenario.upper()]
    except KeyError:
        raise ConfigError(f"unknown scenario '{scenario}' (known: {', '.join(SCENARIOS)})") from None
    n = len(frame)
    out = copy_attrs(frame, frame.copy())
    rng = np.random.default_rng([seed, int(sc.bb_key[1:])])
    n_bb = int(round(sc.bb_share * n))
    chosen = rng.choice(n, size=n_bb, replace=False) if n else np.empty(0, dtype=int)
    if io_tb is None and bb_sizes == "log_uniform":
        lo, hi = np.log(sc.bb_min_tb), np.log(BB_MAX_TB)
        tb = np.exp(lo + rng.random(n_bb) * (hi - lo))
        source = "log-uniform sizes"
    elif io_tb is None:
        tb = sc.bb_min_tb + rng.random(n_bb) * (BB_MAX_TB - sc.bb_min_tb)
        source = "uniform sizes"
    else:
        pool = np.asarray(io_tb, dtype=float)
        pool = pool[np.isfinite(pool) & (pool >= sc.bb_min_tb) & (pool <= BB_MAX_TB)]
        if pool.size == 0:
            raise ConfigError(f"no per-job I/O volume falls in [{sc.bb_min_tb:g}, {BB_MAX_TB:g}] TB")
        tb = rng.choice(pool, size=n_bb, replace=True)
        source = f"sizes resampled from {pool.size} user I/O volumes"
    bb = np.full(n, np.nan)
    bb[chosen] = bb_units_from_tb(tb, machine)
    out["bb_request"] = bb
    if sc.node_factor != 1.0:
        for col in ("req_procs", "alloc_procs"):
            v = out[col].to_numpy()
            out[col] = np.where(v > 0, np.maximum(np.ceil(v * sc.node_factor), 1), v).astype(np.int64)
    if sc.power:
        lo_w, hi_w = machine.node_watts_range
        prng = np.random.default_rng([seed, 0xB0])
        raw = np.round(lo_w + prng.random(n) * (hi_w - lo_w), 3)
        if power_fit == "cap":
            req, alloc = out["req_procs"].to_numpy(), out["alloc_procs"].to_numpy()
            capped = cap_power(raw, np.where(req > 0, req, alloc), machine)
            n_capped = int((capped < raw).sum())
            raw = capped
            add_note(out, f"power capped to the budget for {n_capped} job(s) (idle + head room / nodes)")
        out["power_per_node"] = raw
    header = dict(out.attrs.get("header") or {})
    header["MaxBurstBufferUnits"] = str(machine.bb_units)
    header["BurstBufferUnitTB"] = f"{machine.bb_unit_tb:.6f}"
    if sc.power:
        header["PowerBudgetWatts"] = f"{machine.power_budget_watts:g}"
        header["NodeIdleWatts"] = f"{machine.node_idle_watts:g}"
    out.attrs["header"] = header
    add_note(out, f"MRSch scenario {sc.name} (seed {seed}): {sc.describe()}; {source}")
    out.attrs["scenario"] = sc.name
    return out
