"""Hyperparameter search for a paper's agent: one Optuna study, its trials kept as a CSV (issue 69).

Why: when a paper's recipe does no better than random play, a tuned agent in the same MDP tells "the
recipe failed" from "RL cannot do better here". The study follows rl-zoo3's conventions (its PPO
sampler's parameter names and ranges, a recipe file keyed by the env id) but runs its own loop,
because the objective is the paper's metric on *validation* workloads over several training seeds,
which rl-zoo3's optimiser (mean episode reward on one eval env, one seed) does not measure.

A study (``StudySpec``, from the config's ``tune.<paper>`` block):

* ``space``: every searched value, each ``{type: float|int, low, high, log}`` or
  ``{type: categorical, choices: [...]}`` (a choice may be a list, e.g. a network's layers: Optuna
  sees its label ``"256-256"``). The paper adapter reads the names: algorithm hyperparameters and the
  remedies the status pages found (action masks, a reward paid as earned, ...), each a deviation.
* TPE (``sampler_seed``) and a pruner (``median`` or ``halving``: successive halving) over
  ``checks`` intermediate reports: each trial trains ``seeds`` agents side by side in
  ``checks`` chunks of ``steps / checks`` steps and reports the seeds' mean validation score after
  each chunk, so a poor trial stops early.
* ``trials`` is the stopping rule (the same config gives the same study on any machine);
  ``budget_core_h`` is a guard: when the study's CPU time passes it, no further trial starts and
  the CSV says so.

``run_study`` writes ``trials.csv`` (number, state, value, each seed's value, the check it was pruned
at, CPU seconds, the parameters) and returns the best trial's parameters; the paper adapter turns them
into its recipe file.
"""

from __future__ import annotations

import itertools
import math
import resource
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from schedrl.config import pinned
from schedrl.errors import ConfigError

PRUNERS = ("median", "halving", "none")
SPACE_TYPES = ("float", "int", "categorical")


@dataclass(frozen=True)
class StudySpec:
    trials: int
    seeds: int
    steps: int
    checks: int
    budget_core_h: float
    sampler_seed: int = 0
    pruner: str = "median"
    startup_trials: int = 5
    probe_candidates: int = 0
    probe_gate: bool = False
    space: dict[str, dict] = field(default_factory=dict)


def study_spec(raw: dict | None, where: str) -> StudySpec:
    """``StudySpec`` from a config block; ``ConfigError`` naming ``where.<key>`` otherwise."""
    if not isinstance(raw, dict):
        raise ConfigError(f"{where}: expected a mapping with trials, seeds, steps, checks, budget_core_h, space")
    known = set(StudySpec.__dataclass_fields__)
    extra = sorted(set(raw) - known)
    if extra:
        raise ConfigError(f"{where}.{extra[0]}: unknown key (known: {', '.join(sorted(known))})")
    missing = [k for k in ("trials", "seeds", "steps", "checks", "budget_core_h", "space") if k not in raw]
    if missing:
        raise ConfigError(f"{where}.{missing[0]}: missing")
    for key in ("trials", "seeds", "steps", "checks"):
        if not isinstance(raw[key], int) or isinstance(raw[key], bool) or raw[key] < 1:
            raise ConfigError(f"{where}.{key}: expected a whole number >= 1, got {raw[key]!r}")
    if raw["seeds"] < 2:
        raise ConfigError(f"{where}.seeds: at least 2 training seeds per trial (one seed cannot tell a recipe from luck)")
    if raw["steps"] % raw["checks"]:
        raise ConfigError(f"{where}.steps: {raw['steps']} is not a multiple of checks ({raw['checks']})")
    if not isinstance(raw["budget_core_h"], (int, float)) or raw["budget_core_h"] <= 0:
        raise ConfigError(f"{where}.budget_core_h: expected a positive number, got {raw['budget_core_h']!r}")
    pruner = raw.get("pruner", "median")
    if pruner not in PRUNERS:
        raise ConfigError(f"{where}.pruner: '{pruner}' (choose from: {', '.join(PRUNERS)})")
    space = raw["space"]
    if not isinstance(space, dict) or not space:
        raise ConfigError(f"{where}.space: expected a non-empty mapping of searched values")
    for name, dim in space.items():
        _check_dimension(dim, f"{where}.space.{name}")
    probe = raw.get("probe_candidates", 0)
    if not isinstance(probe, int) or isinstance(probe, bool) or probe < 0:
        raise ConfigError(f"{where}.probe_candidates: expected a whole number >= 0, got {probe!r}")
    gate = raw.get("probe_gate", False)
    if not isinstance(gate, bool):
        raise ConfigError(f"{where}.probe_gate: expected true or false, got {gate!r}")
    return StudySpec(trials=raw["trials"], seeds=raw["seeds"], steps=raw["steps"], checks=raw["checks"],
                     budget_core_h=float(raw["budget_core_h"]), sampler_seed=int(raw.get("sampler_seed", 0)),
                     pruner=pruner, startup_trials=int(raw.get("startup_trials", 5)), probe_candidates=probe, probe_gate=gate,
                     space=dict(space))


def _check_dimension(dim, where: str) -> None:
    if not isinstance(dim, dict) or dim.get("type") not in SPACE_TYPES:
        raise ConfigError(f"{where}: expected {{type: {'|'.join(SPACE_TYPES)}, ...}}, got {dim!r}")
    if dim["type"] == "categorical":
        if not isinstance(dim.get("choices"), list) or not dim["choices"]:
            raise ConfigError(f"{where}.choices: expected a non-empty list")
        labels = [choice_label(c) for c in dim["choices"]]
        if len(set(labels)) != len(labels):
            raise ConfigError(f"{where}.choices: two choices share a label ({', '.join(labels)})")
        return
    for key in ("low", "high"):
        if not isinstance(dim.get(key), (int, float)) or isinstance(dim.get(key), bool):
            raise ConfigError(f"{where}.{key}: expected a number, got {dim.get(key)!r}")
    if dim["low"] >= dim["high"]:
        raise ConfigError(f"{where}: low ({dim['low']}) must be below high ({dim['high']})")
    if dim.get("log") and dim["low"] <= 0:
        raise ConfigError(f"{where}.low: a log scale needs low > 0")


#: what a searched key takes (``check_kinds``), in words
KINDS = {"int": "an integer", "real": "a finite number", "bool": "true or false",
         "widths": "a list of layer widths (integers >= 1)", "name": "a name"}


def _fits(value, kind: str) -> bool:
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "name":
        return isinstance(value, str)
    if kind == "widths":
        return isinstance(value, list) and bool(value) and all(_fits(w, "int") and w >= 1 for w in value)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return False
    return kind == "real" or isinstance(value, int)


def check_kinds(space: dict[str, dict], where: str, kind_of: Callable[[str], str]) -> None:
    """Every value a dimension can give is of the kind its key takes (``kind_of(key)``, one of
    ``KINDS``): a categorical choice such as ``'x'`` among a network's widths, or a float range for an
    integer, is a ConfigError naming ``<where>.<key>`` when the study is read, not a failed trial."""
    for key, dim in space.items():
        kind = kind_of(key)
        if dim["type"] == "categorical":
            for choice in dim["choices"]:
                if not _fits(choice, kind):
                    raise ConfigError(f"{where}.{key}.choices: {choice!r} is not {KINDS[kind]}")
        elif kind not in ("int", "real") or (kind == "int" and dim["type"] != "int"):
            raise ConfigError(f"{where}.{key}: a {dim['type']} range cannot give {KINDS[kind]}")


def extremes(dim: dict) -> list:
    """A dimension's extreme values: each choice, or the two ends of a range."""
    if dim["type"] == "categorical":
        return list(dim["choices"])
    cast = int if dim["type"] == "int" else float
    return [cast(dim["low"]), cast(dim["high"])]


def check_space(space: dict[str, dict], where: str, build: Callable[[dict[str, Any]], Any], what: str) -> None:
    """Every searched value alone, and every pair of two dimensions' extreme values, passes ``build``
    (the paper's check that ``params`` over its config make ``what``), so a trial cannot fail on a bad
    sample; the first that does not is a ConfigError naming ``<where>.<dimension>``."""
    def attempt(params: dict, name: str, note: str = "") -> None:
        try:
            build(params)
        except (ConfigError, TypeError, ValueError) as exc:
            raise ConfigError(f"{where}.{name}: {params[name]!r}{note} makes no {what}: {exc}") from None

    names = list(space)
    for name in names:
        for value in extremes(space[name]):
            attempt({name: value}, name)
    for a, b in itertools.combinations(names, 2):
        for va, vb in itertools.product(extremes(space[a]), extremes(space[b])):
            attempt({a: va, b: vb}, a, f" (with {b} = {vb!r})")


def choice_label(value) -> str:
    """What Optuna records for a categorical choice: lists as ``"a-b-c"``, the rest as text."""
    if isinstance(value, list):
        return "-".join(str(v) for v in value)
    return str(value).lower() if isinstance(value, bool) else str(value)


def suggest(trial, space: dict[str, dict]) -> dict[str, Any]:
    """The trial's value of every dimension of ``space`` (categorical choices as configured)."""
    out = {}
    for name, dim in space.items():
        if dim["type"] == "categorical":
            by_label = {choice_label(c): c for c in dim["choices"]}
            out[name] = by_label[trial.suggest_categorical(name, list(by_label))]
        elif dim["type"] == "int":
            out[name] = trial.suggest_int(name, int(dim["low"]), int(dim["high"]), log=bool(dim.get("log")))
        else:
            out[name] = trial.suggest_float(name, float(dim["low"]), float(dim["high"]), log=bool(dim.get("log")))
    return out


class Learner(Protocol):
    """One training seed of one trial: train on, then score on the validation workloads."""

    def advance(self, steps: int) -> None: ...

    def score(self) -> float: ...  # higher is better

    def close(self) -> None: ...


def cpu_seconds() -> float:
    """CPU time of this process and the children it waited for (SubprocVecEnv workers)."""
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def _pruner(spec: StudySpec):
    import optuna

    if spec.pruner == "median":
        return optuna.pruners.MedianPruner(n_startup_trials=spec.startup_trials, n_warmup_steps=0)
    if spec.pruner == "halving":
        return optuna.pruners.SuccessiveHalvingPruner(min_resource=1, reduction_factor=3)
    return optuna.pruners.NopPruner()


@dataclass
class StudyResult:
    best_params: dict[str, Any]
    best_value: float
    best_number: int
    trials: Any  # pandas.DataFrame
    stopped_by_budget: bool
    cpu_s: float
    probe: str = ""  # the chosen trial's learning probe (select_probed), "" when none was run


def run_study(spec: StudySpec, start: Callable[[dict[str, Any], int], Learner], out_csv: str | Path, *,
              name: str = "study", seed_base: int = 0, log: Callable[[str], None] | None = None,
              resume_key: str | None = None, gate: Callable[[dict[str, Any]], Any] | None = None) -> StudyResult:
    """Run the study: ``start(params, seed)`` builds one seed's learner for a trial's parameters.

    Seeds ``seed_base .. seed_base + spec.seeds - 1`` in every trial, so trials differ only in their
    parameters. Writes ``out_csv`` after each trial (an interrupted study keeps what it measured).

    ``resume_key`` (the paper's spec as text): the study is journalled beside ``out_csv``
    (``study.journal``, Optuna's file journal, and ``sampler.pkl``, TPE's state after the last
    finished trial), and a study killed mid-way and started again with the same key and spec goes on
    from its last finished trial: the trial that was running is marked failed and drawn again from the
    restored sampler, so the trials and their values are the uninterrupted study's (only CPU and wall
    times differ). Another key starts afresh.

    ``gate(params)`` (the study's ``probe_gate``): the trial's trainer through the learning probe
    before it trains (``probes.TrainerProbe``); a trainer that fails is pruned at check 0, so TPE
    learns to leave recipes that learn nothing (``trials.csv``: ``gate`` passed or failed)."""
    import json
    import pickle

    import optuna
    import pandas as pd

    log = log or (lambda line: print(line, flush=True))  # a rule's log file shows each trial as it ends
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    out_csv = Path(out_csv)
    out_csv.parent.mkdir(parents=True, exist_ok=True)
    journal, sampler_file, key_file = (out_csv.with_name(n) for n in ("study.journal", "sampler.pkl", "study.key"))
    storage, sampler = None, None
    if resume_key is not None:
        from optuna.storages import JournalStorage
        from optuna.storages.journal import JournalFileBackend

        key = json.dumps({"study": spec.__dict__, "name": name, "seed_base": seed_base, "spec": resume_key},
                         sort_keys=True, default=str)
        if not key_file.is_file() or key_file.read_text() != key or not sampler_file.is_file():
            for stale in (journal, sampler_file):
                stale.unlink(missing_ok=True)
            key_file.write_text(key)
        else:
            sampler = pickle.loads(sampler_file.read_bytes())
        storage = JournalStorage(JournalFileBackend(str(journal)))
    sampler = sampler or optuna.samplers.TPESampler(seed=spec.sampler_seed)
    study = optuna.create_study(study_name=name, direction="maximize", sampler=sampler, pruner=_pruner(spec),
                                storage=storage, load_if_exists=True)
    for trial in study.trials:  # killed while running: failed, and drawn again from the restored sampler
        if trial.state.name in ("RUNNING", "WAITING"):
            study.tell(trial.number, state=optuna.trial.TrialState.FAIL)
    per_check = spec.steps // spec.checks
    seeds = [seed_base + k for k in range(spec.seeds)]
    finished = [t for t in study.trials if t.state.name in ("COMPLETE", "PRUNED")]
    rows: list[dict] = []
    numbers: dict[int, int] = {}  # Optuna's trial number -> the row's (a resumed study's failed trials not counted)
    stopped = False

    def row_of(trial) -> dict:
        numbers[trial.number] = len(rows)
        return {"number": len(rows), "state": trial.state.name.lower(),
                "value": trial.value if trial.value is not None else _last_report(trial),
                "checks_done": trial.user_attrs.get("checks_done", 0),
                "steps_per_seed": trial.user_attrs.get("checks_done", 0) * per_check,
                "seed_values": " ".join(f"{v:.6g}" for v in trial.user_attrs.get("seed_values", [])),
                "cpu_s": trial.user_attrs.get("cpu_s"), "wall_s": trial.user_attrs.get("wall_s"),
                **({"gate": trial.user_attrs.get("gate", ""), "gate_gain": trial.user_attrs.get("gate_gain")}
                   if gate is not None else {}),
                **{f"param_{k}": v for k, v in trial.params.items()}}

    for trial in finished:
        rows.append(row_of(trial))
    if finished:
        log(f"[{name}] resumed after {len(finished)} finished trials ({journal})")
    begin = cpu_seconds() - sum(float(r["cpu_s"] or 0) for r in rows)

    def objective(trial) -> float:
        params = suggest(trial, spec.space)
        t0, w0 = cpu_seconds(), time.monotonic()
        if gate is not None:
            found = gate(params)
            trial.set_user_attr("gate", "passed" if found.passed else "failed")
            trial.set_user_attr("gate_gain", round(float(sum(found.gains) / len(found.gains)), 4))
            if not found.passed:
                trial.set_user_attr("cpu_s", round(cpu_seconds() - t0, 1))
                trial.set_user_attr("wall_s", round(time.monotonic() - w0, 1))
                raise optuna.TrialPruned()
        learners = [start(params, s) for s in seeds]
        try:
            value = math.nan
            for check in range(1, spec.checks + 1):
                scores = []
                for learner in learners:
                    learner.advance(per_check)
                    scores.append(float(learner.score()))
                value = float(sum(scores) / len(scores))
                trial.set_user_attr("seed_values", scores)
                trial.set_user_attr("checks_done", check)
                trial.report(value, check)
                if trial.should_prune():
                    raise optuna.TrialPruned()
            return value
        finally:
            for learner in learners:
                learner.close()
            trial.set_user_attr("cpu_s", round(cpu_seconds() - t0, 1))
            trial.set_user_attr("wall_s", round(time.monotonic() - w0, 1))

    def after(study_, trial) -> None:
        nonlocal stopped
        row = row_of(trial)
        rows.append(row)
        if resume_key is not None:  # the sampler as it is after this trial: a resume draws the next trial alike
            tmp = sampler_file.with_suffix(".pkl.tmp")
            tmp.write_bytes(pickle.dumps(study_.sampler))
            tmp.replace(sampler_file)
        used_h = (cpu_seconds() - begin) / 3600.0
        best = numbers[study_.best_trial.number] if any(t.state.name == "COMPLETE" for t in study_.trials) else None
        log(f"[{name}] trial {len(rows)}/{spec.trials} {row['state']}: value {row['value']:.4g} "
            f"after {row['steps_per_seed']:,} steps x {spec.seeds} seeds, {row['cpu_s']} CPU s "
            f"(study {used_h:.2f} of {spec.budget_core_h} core-h; best so far: trial {best})")
        if used_h >= spec.budget_core_h and len(rows) < spec.trials:
            stopped = True
            study_.stop()
        _write_trials(rows, out_csv, stopped, spec)

    remaining = spec.trials - len(rows)
    spent = bool(rows) and (cpu_seconds() - begin) / 3600.0 >= spec.budget_core_h  # a resumed study past its guard
    stopped = spent and len(rows) < spec.trials
    if remaining > 0 and not spent:
        study.optimize(objective, n_trials=remaining, callbacks=[after], catch=())
    elif rows:
        _write_trials(rows, out_csv, stopped, spec)
    complete = [t for t in study.trials if t.state.name == "COMPLETE"]
    if not complete:
        raise ConfigError(f"{name}: every trial was pruned or failed; widen tune.space or raise startup_trials")
    best = study.best_trial
    number = numbers[best.number]
    log(f"[{name}] best: trial {number}, validation {best.value:.4g}, params {best.params}")
    return StudyResult(best_params=suggest(optuna.trial.FixedTrial(best.params), spec.space),
                       best_value=float(best.value), best_number=number,
                       trials=pd.read_csv(out_csv), stopped_by_budget=stopped, cpu_s=cpu_seconds() - begin)


def _last_report(trial) -> float:
    values = trial.intermediate_values
    return float(values[max(values)]) if values else math.nan


def _write_trials(rows: Sequence[dict], path: Path, stopped: bool, spec: StudySpec) -> None:
    import pandas as pd

    frame = pd.DataFrame(list(rows))
    frame["stopped_by_budget"] = False
    if stopped and len(frame):
        frame.loc[frame.index[-1], "stopped_by_budget"] = True  # the last trial before the guard stopped the study
    frame["budget_core_h"] = spec.budget_core_h
    tmp = path.with_suffix(".csv.tmp")
    frame.to_csv(tmp, index=False)
    tmp.replace(path)


#: where the committed recipes live (``schedrl tune <paper> --write-config``)
TUNED_DIR = Path(__file__).resolve().parents[3] / "config" / "tuned"


def recipe_probe(paper: str, tuned_dir: str | Path | None = None) -> str | None:
    """What the learning probe found for ``paper``'s committed recipe (its header's ``Learning probe``
    line: ``"passed ..."`` or ``"failed ..."``) in ``tuned_dir`` (default ``TUNED_DIR``); None when
    the recipe or the line is missing."""
    path = Path(tuned_dir if tuned_dir is not None else TUNED_DIR) / f"{paper}.yml"
    if not path.is_file():
        return None
    for line in path.read_text().splitlines():
        if line.startswith("# Learning probe"):
            return line.split(": ", 1)[1].rstrip(".")
    return None


#: the columns ``scripts/recheck_gates.py --write`` adds to a study's ``trials.csv``: each trial's
#: trainer as ``tuning.trainer`` builds it today, through the probe gate again
REGATE_COLUMNS = ("regate", "regate_gain", "regate_when")


@dataclass(frozen=True)
class GateRecheck:
    """What probing a finished study's trials again found (``gate_recheck``)."""

    rechecked: int  # trials probed again
    wrongly_pruned: int  # pruned by the study's gate, passing the probe today
    when: str  # "date, commit" of the recheck

    def clause(self) -> str:
        """Words for a headroom verdict resting on this study ("" where the gate still holds)."""
        if not self.wrongly_pruned:
            return ""
        return (f"but its study's gate pruned {self.wrongly_pruned} trial(s) whose trainers pass the probe today "
                f"(rechecked {self.when}), so the recipe was not chosen among them: no headroom verdict until the "
                "study runs again")


def gate_recheck(paper: str, tuned_dir: str | Path | None = None) -> GateRecheck | None:
    """The recheck of ``paper``'s committed study's probe gate (``REGATE_COLUMNS`` in its
    ``trials.csv``); None where the study was never rechecked. A trial the gate pruned whose trainer
    passes today is one the study should have trained: its recipe is the best of fewer trials than it
    says, so a "RL cannot do better" verdict does not rest on it."""
    import pandas as pd

    path = Path(tuned_dir if tuned_dir is not None else TUNED_DIR) / f"{paper}.trials.csv"
    if not path.is_file():
        return None
    frame = pd.read_csv(path)
    if "regate" not in frame or "gate" not in frame:
        return None
    done = frame[frame["regate"].isin(["passed", "failed"])]
    if done.empty:
        return None
    wrong = done[(done["gate"] == "failed") & (done["state"] == "pruned") & (done["regate"] == "passed")]
    whens = sorted(set(done["regate_when"].dropna().astype(str))) if "regate_when" in done else []
    return GateRecheck(rechecked=len(done), wrongly_pruned=len(wrong), when="; ".join(whens) or "undated")


def recipe_id(paper: str, tuned_dir: str | Path | None = None) -> str | None:
    """A fingerprint of ``paper``'s committed recipe: its values, not its comments or layout (so a
    header rewritten by ``--reselect`` keeps it); None when there is no recipe. Tuned runs of one
    recipe pool their seeds; a new recipe's runs do not pool with an older one's."""
    import hashlib
    import json

    from schedrl.config import load_yaml

    path = Path(tuned_dir if tuned_dir is not None else TUNED_DIR) / f"{paper}.yml"
    if not path.is_file():
        return None
    body = json.dumps(load_yaml(path), sort_keys=True, default=str)
    return hashlib.sha256(body.encode()).hexdigest()[:12]


def params_from_row(row, space: dict[str, dict]) -> dict[str, Any]:
    """A trial's parameters from its ``trials.csv`` row (``param_<name>``), as ``suggest`` gave them:
    a categorical choice from its label (pandas may read ``"128"`` as 128.0 and ``"True"`` as True)."""
    out = {}
    for name, dim in space.items():
        value = row[f"param_{name}"]
        value = value.item() if hasattr(value, "item") else value  # numpy scalars as Python's
        if dim["type"] == "categorical":
            by_label = {choice_label(c): c for c in dim["choices"]}
            text = str(value).lower() if isinstance(value, (bool, str)) else str(value)
            if isinstance(value, float) and value.is_integer():
                text = text if text in by_label else str(int(value))
            if text not in by_label:
                raise ConfigError(f"trials.csv: param_{name} = {value!r} is none of the space's choices "
                                  f"({', '.join(by_label)})")
            out[name] = by_label[text]
        else:
            out[name] = int(value) if dim["type"] == "int" else float(value)
    return out


def result_from_trials(path: str | Path) -> StudyResult:
    """A finished study's ``StudyResult`` read back from its ``trials.csv`` (the best complete
    trial by value; CPU time: the trials' sum), so a recipe can be chosen again without rerunning it."""
    import pandas as pd

    frame = pd.read_csv(path)
    complete = frame[frame["state"] == "complete"]
    if complete.empty:
        raise ConfigError(f"{path}: no complete trial to choose a recipe from")
    best = complete.loc[complete["value"].idxmax()]
    return StudyResult(best_params={}, best_value=float(best["value"]), best_number=int(best["number"]),
                       trials=frame, stopped_by_budget=bool(frame.get("stopped_by_budget", pd.Series([False])).any()),
                       cpu_s=float(frame["cpu_s"].fillna(0).sum()))


def select_probed(result: StudyResult, space: dict[str, dict], trainer_of: Callable[[dict[str, Any]], dict],
                  out_csv: str | Path, work_dir: str | Path, *, candidates: int,
                  probe: Callable | None = None, log: Callable[[str], None] | None = None) -> StudyResult:
    """The recipe is the best complete trial whose trainer passes the learning probe
    (``schedrl.experiments.probes``): the ``candidates`` best by validation score are probed in
    that order until one passes. Why: a short study's best score can belong to a recipe that learns
    nothing (near random play wins early), and a verdict on an agent counts only when its trainer
    learns. ``trainer_of(params)``: the paper's trainer for a trial's values. ``trials.csv`` gains
    ``probe`` (passed / failed / not probed), ``probe_gain`` (mean over the probe's seeds) and
    ``probe_gains`` (each seed's); a trial probed before is not probed again. When
    none of the candidates passes, the validation best is kept and ``result.probe`` says it failed."""
    import dataclasses

    import pandas as pd

    from schedrl.experiments import probes

    log = log or (lambda line: print(line, flush=True))
    probe = probe or probes.probe_trainer
    frame = result.trials.copy()
    earlier = frame["probe"].copy() if "probe" in frame else None  # a trial probed before is not probed again
    if earlier is None:
        frame["probe"], frame["probe_gain"] = "not probed", float("nan")
    if "probe_gains" not in frame:
        frame["probe_gains"] = ""
    frame["probe_gains"] = frame["probe_gains"].fillna("").astype(str)
    complete = frame[frame["state"] == "complete"].sort_values("value", ascending=False, kind="stable")
    chosen, outcome = None, None
    for index, row in complete.head(int(candidates)).iterrows():
        params = params_from_row(row, space)
        if earlier is not None and earlier[index] in ("passed", "failed"):
            passed = earlier[index] == "passed"
            gains = [float(g) for g in str(row["probe_gains"]).split()] or [float(row["probe_gain"])]
            found = probes.TrainerProbe(passed=passed, gains=gains,
                                        problems=[] if passed else ["failed when probed before (trials.csv)"],
                                        lines=[])
        else:
            found = probe(trainer_of(params), Path(work_dir) / f"trial_{int(row['number'])}")
        frame.loc[index, "probe"] = "passed" if found.passed else "failed"
        frame.loc[index, "probe_gain"] = float(sum(found.gains) / len(found.gains))
        frame.loc[index, "probe_gains"] = " ".join(f"{g:.4f}" for g in found.gains)
        log(f"learning probe of trial {int(row['number'])} (validation {row['value']:.4g}): {found.summary()}")
        for line in found.lines:
            log(f"  {line}")
        if found.passed:
            chosen, outcome = row, found
            break
    probed = int((frame["probe"] != "not probed").sum())
    if chosen is None:
        chosen = complete.iloc[0]
        note = (f"failed by all {probed} trials probed (the best by validation, trial {int(chosen['number'])}, kept: "
                "a verdict on its agent does not count)")
    else:
        note = (f"{outcome.summary()}; trial {int(chosen['number'])}, the best by validation score whose trainer "
                f"passes ({probed} probed)")
    tmp = Path(out_csv).with_suffix(".csv.tmp")
    frame.to_csv(tmp, index=False)
    tmp.replace(out_csv)
    return dataclasses.replace(result, best_params=params_from_row(chosen, space), best_value=float(chosen["value"]),
                               best_number=int(chosen["number"]), trials=pd.read_csv(out_csv), probe=note)


class SB3Learner:
    """One SB3 agent trained in memory, chunk by chunk (no run folder: a trial's agents are thrown
    away; the tuned recipe is retrained from scratch by the paper's own rules). Built as
    ``schedrl.experiments.train.train`` builds its model (same env factory, vec env, job-set stagger,
    action-mask check), so a recipe behaves the same here and there. ``score(model)``: the paper's
    validation score of the current model (higher is better)."""

    def __init__(self, env_id: str, env_kwargs: dict, algo: str, hyperparams: dict[str, Any], seed: int,
                 score: Callable[[Any], float], *, wrappers: Sequence = ()):
        import torch
        from stable_baselines3.common.monitor import Monitor
        from stable_baselines3.common.vec_env import DummyVecEnv

        from schedrl.agents.hyperparams import resolve_hyperparams
        from schedrl.agents.registry import algo_class, check_action_space, uses_masks
        from schedrl.experiments.envs import make_env
        from schedrl.experiments.train import stagger_jobsets

        policy, n_envs, kwargs = resolve_hyperparams(algo, hyperparams)
        probe = make_env(env_id, env_kwargs, wrappers)
        check_action_space(algo, probe.action_space)
        self.venv = DummyVecEnv([lambda: Monitor(make_env(env_id, env_kwargs, wrappers)) for _ in range(n_envs)])
        stagger_jobsets(self.venv, probe)
        probe.close()
        if uses_masks(algo):
            from sb3_contrib.common.maskable.utils import is_masking_supported

            if not is_masking_supported(self.venv):
                raise ConfigError(f"algorithm '{algo}' needs an env with action_masks(); '{env_id}' has none")
        torch.distributions.Distribution.set_default_validate_args(False)
        try:
            self.model = algo_class(algo)(policy, self.venv, seed=int(seed), verbose=0, device="cpu", **kwargs)
        except (TypeError, ValueError, AssertionError, RuntimeError) as exc:
            self.venv.close()
            raise ConfigError(f"{algo}: bad hyperparameter value ({str(exc).splitlines()[0] if str(exc) else type(exc).__name__})") from None
        self._score = score

    def advance(self, steps: int) -> None:
        self.model.learn(total_timesteps=int(steps), reset_num_timesteps=False, log_interval=10**9)

    def score(self) -> float:
        return float(self._score(self.model))

    def close(self) -> None:
        self.venv.close()


def probe_gate(study: StudySpec, trainer_of: Callable[[dict[str, Any]], dict],
               log: Callable[[str], None] | None = None) -> Callable[[dict[str, Any]], Any] | None:
    """``run_study``'s ``gate`` where the study asks for one (``probe_gate``): the trial's trainer
    through the learning probe on its first seed (with the zeroed-observation control), in a folder
    thrown away after; None otherwise."""
    if not study.probe_gate:
        return None
    import tempfile

    from schedrl.experiments import probes

    log = log or (lambda line: print(line, flush=True))

    def gate(params: dict[str, Any]):
        with tempfile.TemporaryDirectory(prefix="schedrl-gate-") as work:
            found = probes.probe_trainer(trainer_of(params), work, seeds=probes.TRAINER_SEEDS[:1])
        log(f"  learning probe before training: {found.summary()}")
        return found

    return gate


def resume_key(spec: dict) -> str:
    """The text a journalled study resumes under (``run_study``): the paper's whole spec, so a study
    of another config starts afresh in the same folder."""
    import json

    return json.dumps(spec, sort_keys=True, default=str)


def with_trials(spec: StudySpec, trials: int | None) -> StudySpec:
    """``spec`` with another trial count (``schedrl tune --trials``); as it is for None."""
    return spec if trials is None else StudySpec(**{**spec.__dict__, "trials": int(trials)})


def recipe_text(body: dict, result: StudyResult, spec: StudySpec, *, title: str, scored: str, trials_csv: str,
                train: str, commit: str | None) -> str:
    """A tuned recipe: the config overlay ``body`` as YAML under a header saying where it came from
    (``title``: whose recipe and the command that wrote it; ``scored``: what a trial was scored on;
    ``train``: the command that trains it at the paper's budget)."""
    from datetime import UTC, datetime

    import yaml

    counts = result.trials["state"].value_counts().to_dict()
    header = [
        f"# {title}:",
        f"# trial {result.best_number} of a study of {len(result.trials)} trials ({counts.get('complete', 0)} complete, "
        f"{counts.get('pruned', 0)} pruned; {spec.pruner} pruner, TPE seed {spec.sampler_seed}),",
        f"# {spec.seeds} seeds x {spec.steps:,} steps per trial, scored by {scored}:",
        f"# best {result.best_value:.4f}. Study CPU {result.cpu_s / 3600:.2f} core-h"
        + (" (stopped by its budget guard)" if result.stopped_by_budget else "")
        + f"; {datetime.now(UTC).date().isoformat()}, commit {commit or 'unknown'}. Trials: {trials_csv}.",
        *([f"# Learning probe (schedrl.experiments.probes): {result.probe}."] if result.probe else []),
        "# A config overlay: every value here is beyond the paper (a deviation). Train it at the paper's budget:",
        f"#   {train}",
    ]
    return "\n".join(header) + "\n" + yaml.safe_dump(body, sort_keys=True, default_flow_style=None, width=110)


def tune_paper(paper: str, spec: dict, tune_spec: Callable, start_learner: Callable, out: str | Path, *,
               threads: int = 1, trials: int | None = None, log: Callable[[str], None] | None = None,
               trainer: Callable | None = None, pins: dict | None = None):
    """A paper's study: ``tune_spec(spec)`` -> (its own keys, StudySpec), each trial's seeds built by
    ``start_learner(spec, own, params, seed, threads)``, ``out/trials.csv``; with the study's
    ``probe_candidates`` and ``trainer(spec, own, params)`` (the paper's trainer as the probe trains it),
    the recipe is chosen by ``select_probed``; ``pins``: the run lists the journal's key pins
    (``run_paper_study``). Returns (own, study, result)."""
    own, study = tune_spec(spec)
    study = with_trials(study, trials)
    result = run_paper_study(paper, spec, own, study, lambda params, seed: start_learner(spec, own, params, seed, threads),
                             out, log=log, trainer=trainer, pins=pins)
    return own, study, result


def run_paper_study(paper: str, spec: dict, own: dict, study: StudySpec, start: Callable[[dict[str, Any], int], Learner],
                    out: str | Path, *, seed_base: int = 0, log: Callable[[str], None] | None = None,
                    trainer: Callable | None = None, pins: dict | None = None) -> StudyResult:
    """``run_study`` as every paper runs it: journalled under the paper's spec (``resume_key``), gated by
    the learning probe where the study asks (``probe_gate``), and the recipe chosen by ``select_probed``
    where it has ``probe_candidates``; ``trainer(spec, own, params)``: the paper's trainer for the probe;
    ``pins``: the paper's run lists (``STUDY_PINS``), pinned in the journal's key as the study's rule
    pins them in its params (``config.study_spec_json``): a seed added to the runs resumes the study."""
    trainer_of = (lambda params: trainer(spec, own, params)) if trainer is not None else None
    result = run_study(study, start, Path(out) / "trials.csv", name=f"tune {paper}", seed_base=seed_base, log=log,
                       resume_key=resume_key(pinned(spec, pins)), gate=probe_gate(study, trainer_of, log) if trainer_of else None)
    if study.probe_candidates and trainer_of is not None:
        result = select_probed(result, study.space, trainer_of, Path(out) / "trials.csv", Path(out) / "probes",
                               candidates=study.probe_candidates, log=log)
    return result


def reselect(paper: str, spec: dict, tune_spec: Callable, trainer: Callable, out: str | Path, *,
             candidates: int | None = None, log: Callable[[str], None] | None = None):
    """Choose a finished study's recipe again from ``out/trials.csv`` by ``select_probed`` (no
    trial reruns); ``candidates``: how many to probe (default the study's ``probe_candidates``, at
    least 1). Returns (own, study, result) as ``tune_paper``."""
    own, study = tune_spec(spec)
    path = Path(out) / "trials.csv"
    if not path.is_file():
        raise ConfigError(f"{path}: no study's trials here (run `schedrl tune {paper}` first)")
    result = result_from_trials(path)
    n = int(candidates if candidates is not None else max(1, study.probe_candidates))
    result = select_probed(result, study.space, lambda params: trainer(spec, own, params), path, Path(out) / "probes",
                           candidates=n, log=log)
    return own, study, result
