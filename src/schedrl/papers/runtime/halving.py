"""Successive halving over Table 3's grid (issue 72's lever for the paper scale; beyond the paper).

The paper trains every point of its tuning grid (75 per method and training half) to the end and
keeps the one with the best mean utilisation on its own half (``experiments.best_grid``). That grid
is most of the paper scale's cost. With ``runtime.agents.halving: {eta, rungs}`` the runs pause at
rung budgets ``steps / eta**(rungs - 1 - r)`` (r = 0 .. rungs-1; the default eta 2 and 4 rungs are
the budget checkpoints 1/8, 1/4, 1/2 and all of training), each paused model plays its own half
under the final evaluation's protocol (oracle estimates, the spec's episodes and seeds), and only
the best ``ceil(n / eta)`` points of each (method, training half), by the same mean utilisation
over seeds and draws as the paper's rule, train on to the next rung (Jamieson and Talwalkar,
2016; Li et al., 2018). A paused run continues exactly (``train(stop_at=...)``), so a point that
survives every rung is bit for bit the run the full grid trains; what changes is which points
reach the end, and the choice among them is the paper's rule again.

Files, per run folder: ``rungs/<r>.json`` (rungs before the last: the rung's target and reached
steps, whether the point trained to it, its mean own-half utilisation) and, at the end,
``halving.json`` (``pruned_at``: the steps of its last rung, or null for a point that reached the
end). A pruned point's ``model.zip`` is its last rung's model; its evaluation rows carry
``pruned_at`` so ``experiments.best_grid`` never picks it, and its budget checkpoints stop at its
rung. Without ``halving`` nothing here runs and no file changes.

``check: true`` measures what halving changes instead of saving its cost: every point trains to
every rung and to the end (the full grid's run, plus the rungs' plays), the records still say which
points halving would have kept (``kept``) and ``halving.json`` where it would have stopped each
(``would_prune_at``); ``experiments.halving_against_full`` then sets the full grid's pick beside
halving's, and Table 5's note says how often they agree.
"""

from __future__ import annotations

import math
import shutil
from pathlib import Path

from schedrl.errors import ConfigError, InputFileError
from schedrl.papers.runtime import experiments as rx

RUNGS_DIR = "rungs"
HALVING_FILE = rx.HALVING_FILE
#: ``(eta, rungs)`` of ``agents.halving`` or None (checked with the spec: ``experiments.check_spec``)
settings = rx.halving_settings


def rung_steps(spec: dict) -> list[int]:
    """Target steps of each rung, the last one ``agents.steps``."""
    eta, rungs = settings(spec) or (1, 1)
    steps = int(spec["agents"]["steps"])
    return [max(1, int(round(steps / eta ** (rungs - 1 - r)))) for r in range(rungs)]


def survivors_count(points: int, eta: int, rung: int) -> int:
    """Points left to train past rung ``rung`` (0-based) of a grid of ``points``."""
    n = points
    for _ in range(rung + 1):
        n = math.ceil(n / eta)
    return n


def record_path(run: str | Path, rung: int) -> Path:
    return Path(run) / RUNGS_DIR / f"{int(rung)}.json"


def group_records(spec: dict, method: str, workload: str, rung: int, root: str | Path = rx.ROOT) -> list[str]:
    """Rung ``rung``'s records of every grid point, seed and draw of (method, training half): what
    the next rung's selection reads."""
    return [str(record_path(r[-1], rung)) for r in rx.runs(spec, root) if r[0] == method and r[1] == workload]


def survivors(records: list[dict], eta: int) -> list[str]:
    """Grid ids that train on past the rung of ``records`` (one per run of one method and training
    half): among the points trained to the rung, the best ``ceil(n / eta)`` by mean utilisation over
    their runs, ties to the lower grid id (a fixed order on any machine)."""
    import pandas as pd

    frame = pd.DataFrame(records)
    if not len(frame):
        return []
    # ``kept``: halving trained it to this rung (a check run trains every point; older records lack it)
    kept = (frame["kept"].fillna(frame["trained"]) if "kept" in frame else frame["trained"]).astype(bool)
    if not kept.any():
        return []
    means = frame[kept].groupby("grid")["utilization"].mean()
    ranked = sorted(means.index, key=lambda g: (-means[g], g))
    return ranked[:math.ceil(len(ranked) / eta)]


def read_records(files: list[str | Path]) -> list[dict]:
    from schedrl.io import read_json

    out = []
    for f in files:
        if not Path(f).exists():
            raise InputFileError(f, "missing (the rung before has not run)")
        out.append(read_json(f))
    return out


def _survives(grid: str, files: list[str | Path], eta: int) -> bool:
    return grid in survivors(read_records(files), eta)


def train_rung(spec: dict, method: str, workload: str, grid: str, seed: int, run: str | Path, rung: int,
               previous: list[str | Path], threads: int = 1, draw: int = 0) -> dict:
    """Rung ``rung`` (before the last) of one run: if the point survived the rung before (every
    point enters rung 0), train to the rung's steps (paused, ``train(stop_at=...)``) and play the
    paused model on its own half; write and return the rung's record. A check run trains every
    point and records whether halving would have (``kept``)."""
    from schedrl.io import write_json

    eta, rungs = _require(spec)
    if not 0 <= rung < rungs - 1:
        raise ConfigError(f"rung {rung}: the rungs before the last are 0 .. {rungs - 2}")
    target = rung_steps(spec)[rung]
    kept = rung == 0 or _survives(grid, previous, eta)
    record = {"rung": int(rung), "grid": grid, "seed": int(seed), "draw": int(draw), "target": target,
              "steps": None, "trained": False, "kept": kept, "utilization": None}
    if kept or rx.halving_check(spec):
        result = rx.train(spec, method, workload, grid, seed, run, threads=threads, draw=draw, stop_at=target)
        steps, path = _checkpoint_at(run, target)
        table = rx.evaluate(run, spec, None, threads=threads, model_file=path, cases=[(workload, "actual")])
        record.update(steps=steps, trained=True, utilization=float(table["utilization"].mean()),
                      resumed_from=int(result.resumed_from))
    write_json(record_path(run, rung), record)
    return record


def finish(spec: dict, method: str, workload: str, grid: str, seed: int, run: str | Path,
           previous: list[str | Path], threads: int = 1, draw: int = 0) -> dict:
    """The last rung: a survivor trains to ``agents.steps`` (a plain ``experiments.train``, resumed
    exactly from its pause); a pruned point's last rung model becomes its ``model.zip`` (curve and
    timing as they stood there). A check run trains every point to the end and writes where halving
    would have stopped it (``would_prune_at``). Writes and returns ``halving.json``."""
    from schedrl.agents.runs import RunFolder
    from schedrl.io import write_json

    eta, _ = _require(spec)
    run = Path(run)
    kept = _survives(grid, previous, eta)
    if rx.halving_check(spec):
        rx.train(spec, method, workload, grid, seed, run, threads=threads, draw=draw)
        last = None if kept else max((r for r in _own_records(run) if r.get("kept", r["trained"])),
                                     key=lambda r: r["rung"])
        out = {"pruned_at": None, "would_prune_at": None if last is None else int(last["steps"])}
    elif kept:
        rx.train(spec, method, workload, grid, seed, run, threads=threads, draw=draw)
        out = {"pruned_at": None}
    else:
        last = max((r for r in _own_records(run) if r["trained"]), key=lambda r: r["rung"], default=None)
        if last is None:
            raise InputFileError(run / RUNGS_DIR, "no rung trained (run rung 0 first)")
        steps, path = _checkpoint_at(run, last["target"])
        shutil.copyfile(path, run / "model.zip")
        curve = run / "checkpoints" / f"step_{steps}.curve.csv"
        if curve.exists():
            shutil.copyfile(curve, run / "learning_curve.csv")
        folder = RunFolder(run)
        write_json(folder.timing_file, {**folder.timing_so_far(), "steps": steps, "pruned_at": steps})
        folder.timing_copy.unlink(missing_ok=True)
        out = {"pruned_at": steps}
    write_json(run / HALVING_FILE, {**out, "rung_steps": rung_steps(spec), "eta": eta})
    return out


def _own_records(run: Path) -> list[dict]:
    return read_records(sorted((run / RUNGS_DIR).glob("*.json")))


def _checkpoint_at(run: str | Path, target: int) -> tuple[int, Path]:
    from schedrl.papers.runtime.budget import checkpoint_for

    return checkpoint_for(run, target)


def _require(spec: dict) -> tuple[int, int]:
    found = settings(spec)
    if found is None:
        raise ConfigError("runtime.agents.halving is not set (the full grid trains with 'schedrl runtime train')")
    return found


def train_minutes(spec: dict, method: str, rung: int) -> int:
    """Cluster time limit of rung ``rung``'s job: its share of a full run's limit plus its own-half play."""
    targets = [0, *rung_steps(spec)]
    share = (targets[rung + 1] - targets[rung]) / int(spec["agents"]["steps"])
    return int(share * (rx.train_minutes(spec, method) - 10)) + 10 + (5 if rung < len(targets) - 2 else 0)


def train_core_hours(spec: dict) -> float:
    """Expected training core-hours under halving: every point to rung 0, then the survivors' steps
    between rungs, each point priced by its epochs (``experiments.epochs_factor``); survivors are not
    known before the run, so past rung 0 they are priced at the grid's mean epochs."""
    eta, rungs = _require(spec)
    agents = spec["agents"]
    points = rx.grid_points(spec)
    per_point = len(agents["workloads"]) * len(agents["seeds"]) * len(rx.draws(spec))
    targets = rung_steps(spec)
    total = 0.0
    for m in agents["methods"]:
        factors = [rx.epochs_factor(m, int(g["n_epochs"])) for g in points]
        steps = sum(factors) * targets[0]
        mean = sum(factors) / len(factors)
        for r in range(1, rungs):
            steps += survivors_count(len(points), eta, r - 1) * mean * (targets[r] - targets[r - 1])
        total += per_point * steps / rx.TRAIN_STEPS_PER_S[m]
    return total / 3600


def estimate_core_hours(spec: dict) -> dict:
    """``experiments.estimate_core_hours``, its training priced by the rungs where halving is set
    (steps to each rung, plus the rungs' own-half plays), with ``halving``: (eta, rungs)."""
    out = rx.estimate_core_hours(spec)
    if settings(spec) is not None:
        train = out["train"] if rx.halving_check(spec) else train_core_hours(spec)  # a check trains them all
        out.update(train=train + rung_play_core_hours(spec), halving=settings(spec))
    return out


def rung_play_core_hours(spec: dict) -> float:
    """The rungs' own-half plays (episodes x the final evaluation's episode length and rate)."""
    eta, rungs = _require(spec)
    agents, ev = spec["agents"], spec["evaluate"]
    per_point = len(agents["workloads"]) * len(agents["seeds"]) * len(rx.draws(spec))
    points = len(rx.grid_points(spec))
    plays = (points * (rungs - 1) if rx.halving_check(spec)
             else sum([points, *[survivors_count(points, eta, r) for r in range(rungs - 2)]]))
    episode = min(rx.EVAL_STEPS_PER_EPISODE, int(ev["max_steps"]))
    return sum(per_point * plays * int(ev["episodes"]) * episode / rx.EVAL_STEPS_PER_S[m]
               for m in agents["methods"]) / 3600
