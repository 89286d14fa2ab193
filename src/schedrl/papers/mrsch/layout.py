"""Where MRSch (mrsch.txt) stands in the config and on disk: the paper's constants, the spec and its
checks, the run and evaluation folders, the workload files and the env over them. The other modules
of the package build on this one and on nothing above it: ``cost`` (the core-hour model),
``evaluation`` (every method played, the tables the claims and figures read), ``training`` (the
agents and model selection; it plays through ``evaluation``) and ``references`` (the fingerprint
tables and the claims on no-learning references; it reads through ``evaluation``).

Decision structure (section III): ``schedrl/HPCPickReserve-v0`` with a window of 10 -- the agent
picks window jobs one by one and a pick that fits starts. What a pick that does not fit does and
when the agent is asked is the decision process (issue 35), ``process`` in the spec: ``every_event``
(the default; section IV and MRSch's public code: asked at every submission and job end, a failed
pick leaves the queue head EASY's reservation, dropped at the next event) or ``hold`` (the failed
pick is reserved and the agent is silent until it starts). ``ask_when_none_fits: false``
(``every_event`` only) leaves out the event instants where no window job fits, where every pick
has the same effect. Every method of a comparison plays under the named process: the agents and
scalar RL through the env (``env_kwargs``), the GA re-planning at every event (``every_event``) or
holding the head's reservation (``hold``), FCFS + EASY as the simulator's (the head picker's
schedule under either process, tested); ``ga_hold`` (the GA under ``hold``) is a diagnostic row
beside them under ``every_event``, in no claim's comparison, and ``REFERENCE_HEURISTICS`` (SJF and
smallest area first, each with EASY) are the normalised score's stronger heuristics, in none either. State: the ``mrsch`` encoder (4W + 2N1 + 2N2,
Theta 11,410) or, with power (S6-S10), ``mrsch_power`` (plus each window job's power share and two
power values). Measurements: per-resource utilisation (``info["utilization"]``); goal: eq. (1)
(``info["demand_share"]``), recomputed by the env at every decision.

Job sets (III-D), built here by ``jobsets`` for the agents of ``training``: ``jobsets.sampled``
Poisson-sampled, ``jobsets.real`` consecutive blocks, ``jobsets.synthetic`` synthetic
(``schedrl.workloads.jobsets``), ``jobs_per_set`` jobs each, job set i of a kind drawn from the
group's workloads in turn.

Seeds (issue 24). ``seed`` fixes the job sets, the GA and every agent; ``extra_seeds`` train the
main agents (MLP, paper ordering, each group) again with other seeds on the same job sets (network
init, exploration and replay sampling differ), evaluated as the base seed's (selection, test and
in-sample splits, budgets) but beside no baseline; the claims take MRSch's mean over seeds and
resample seeds in their intervals. The CNN variant and the other orderings (Figs. 3-4) stay on
``seed``: their claims are ablations, and seeding them too would add ~1.5 core-hours at default
scale (by ``cost.dfp_seconds``), past mrsch's share of 4.
``agent_seed`` (default ``seed``) seeds the agents the base folders hold, the job sets, the GA and
the claims' draws staying ``seed``'s: config/seed/<n>.yaml sets it (and no extra seeds), so seed n
of the main agents is a run of its own that fits a session, trains the weights ``extra_seeds: [n]``
would, and is recorded and pooled with the other seeds by its normalised rows (issue 68).

Scales that train less (config/paper-budget.yaml). ``cnn: null`` trains no CNN variant,
``scalar_rl: null`` no scalar-RL baseline (no evaluation plays it), ``orderings`` holding the
paper's alone no other ordering; the claims that need them read "not comparable ... not trained at
this scale" (``not_trained``), the others compare what was trained.

``dfp_config`` (the DFP hyperparameters of a spec) sits here rather than in ``training``:
``check_spec`` builds it to check them. So do the file names of a DFP run folder's kept models
(``budget_name``, ``budget_model``, ``SELECTED_NAME``, ``eval_model``), which the rules, the
training, the evaluation and the claims all name.

Layout under ``root`` (results/mrsch):
  dfp/<group>/<state>/<ordering>/    DFP run folder (model.zip, learning_curve.csv, losses.csv, timing.json)
                                     + budget_<f>.zip; with dfp.select_on_validation (paper ordering):
                                     validation.csv, selection.json, selected.zip (the evaluated model)
  dfp/<group>/mlp/<ordering>/seed<s>/  the same for extra seed s (paper ordering)
  scalar_rl/<group>/                 REINFORCE run folder
  eval/<workload>/metrics.csv        one row per method on the test split
  eval/<workload>/goals.csv          MRSch's goal vector at every decision (clock, r per resource)
  eval/<workload>/seed<s>/           MRSch of extra seed s alone (so eval_insample/, eval_budget/<group>/)
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import gymnasium as gym
import numpy as np
import pandas as pd

from schedrl.config import run_spec_json
from schedrl.errors import ConfigError
from schedrl.protocol import BUDGET_FRACTIONS

ROOT = Path("results/mrsch")
WORKLOAD_DIR = Path("results/workloads/mrsch")
GROUPS = {"two": [f"S{k}" for k in range(1, 6)], "three": [f"S{k}" for k in range(6, 11)]}
RESOURCES = {"two": ["nodes", "bb"], "three": ["nodes", "bb", "power"]}
KINDS = ("sampled", "real", "synthetic")
PAPER_ORDERING = "sampled-real-synthetic"
STATES = ("mlp", "cnn")
METHODS = ("fcfs", "ga", "exhaustive", "scalar_rl", "mrsch")
LABELS = {"fcfs": "FCFS (heuristic)", "ga": "GA (optimization)", "exhaustive": "exhaustive Pareto (check)",
          "scalar_rl": "scalar RL", "mrsch": "MRSch", "mrsch_cnn": "MRSch, CNN state",
          "ga_hold": "GA (hold, diagnostic)", "sjf": "SJF + EASY (beyond the paper)",
          "saf": "smallest area first + EASY (beyond the paper)"}
ENV_ID = "schedrl/HPCPickReserve-v0"
PROCESSES = ("every_event", "hold")
#: Diagnostic rows: evaluated and drawn, never in a claim's comparison (issue 35).
DIAGNOSTIC = ("ga_hold",)
#: Queue orders beyond the paper, played by the simulator with EASY backfilling beside FCFS: the
#: strongest heuristics the project has on mean slowdown (issue 68: the normalised scale's 1 is the
#: best heuristic on a workload, not the paper's baselines alone; on our Theta draws SJF or smallest
#: area first beats FCFS and the GA re-planning on most workloads). Evaluated, never in a claim's
#: comparison or the paper's figures.
REFERENCE_HEURISTICS = {"sjf": "SJF + EASY", "saf": "smallest area first + EASY"}


def group_of(workload: str) -> str:
    for g, names in GROUPS.items():
        if workload in names:
            return g
    raise ConfigError(f"unknown MRSch workload '{workload}' (S1-S10)")


def kinds_of(ordering: str) -> list[str]:
    kinds = ordering.split("-")
    if sorted(kinds) != sorted(KINDS):
        raise ConfigError(f"ordering '{ordering}' must name each of {', '.join(KINDS)} once, joined by '-'")
    return kinds


# ---------------------------------------------------------------------------------------------
# spec

def load_spec(text: str) -> dict:
    from schedrl.config import load_section

    return check_spec(load_section(text, "mrsch"))


def check_spec(spec: dict) -> dict:
    orderings = list(spec["orderings"])
    for o in orderings:
        kinds_of(o)
    if not orderings or orderings[0] != PAPER_ORDERING:
        raise ConfigError(f"mrsch.orderings must start with the paper's '{PAPER_ORDERING}' (it trains the main agents)")
    for w in spec["workloads"]:
        group_of(w)
    if spec["fig8"]["workload"] not in spec["workloads"]:
        raise ConfigError("mrsch.fig8.workload must be one of mrsch.workloads")
    for state in STATES if has_cnn(spec) else ("mlp",):
        dfp_config(spec, state)  # unknown or bad DFP hyperparameters fail here, with their name
    sel = spec["dfp"].get("select_on_validation", False)
    if not isinstance(sel, bool):
        raise ConfigError(f"mrsch.dfp.select_on_validation must be true or false, not {sel!r}")
    proc = spec.get("process", "hold")
    if proc not in PROCESSES:
        raise ConfigError(f"mrsch.process must be one of {', '.join(PROCESSES)}, not {proc!r}")
    ask = spec.get("ask_when_none_fits", True)
    if not isinstance(ask, bool):
        raise ConfigError(f"mrsch.ask_when_none_fits must be true or false, not {ask!r}")
    if not ask and proc != "every_event":
        raise ConfigError(f"mrsch.ask_when_none_fits: false applies to process every_event only, not {proc}")
    from schedrl.agents.device import check_device

    check_device(spec.get("device", "cpu"), "mrsch.device")
    base = spec.get("agent_seed", spec["seed"])
    if not isinstance(base, int) or isinstance(base, bool) or base < 0:
        raise ConfigError(f"mrsch.agent_seed must be an integer >= 0, not {base!r}")
    extra = spec.get("extra_seeds", [])
    if (not isinstance(extra, list) or not all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in extra)
            or len(set(extra)) != len(extra) or base in extra):
        raise ConfigError(f"mrsch.extra_seeds must be a list of distinct integers >= 0 other than the base agents' seed "
                          f"(mrsch.agent_seed, default mrsch.seed: {base}), not {extra!r}")
    return spec


def dfp_config(spec: dict, state: str):
    from schedrl.agents.dfp import DFPConfig

    params = {k: v for k, v in spec["dfp"].items() if k != "select_on_validation"}
    if state == "cnn" and not has_cnn(spec):
        raise ConfigError("mrsch.cnn is null: this config trains no CNN variant")
    if state == "cnn":
        params.update(spec["cnn"])
    params["state_module"] = state
    return DFPConfig.from_dict(params)


def process(spec: dict) -> str:
    """The decision process every method of every comparison plays under (``process``; a spec
    without the key keeps the pipeline's behaviour before issue 35, ``hold``)."""
    return str(spec.get("process", "hold"))


def env_kwargs(spec: dict) -> dict:
    """The pick-and-reserve env's process arguments for ``spec`` (empty under ``hold``: the env's
    defaults, so run folders from before issue 35 still match)."""
    if process(spec) == "hold":
        return {}
    return {"process": process(spec), "ask_when_none_fits": bool(spec.get("ask_when_none_fits", True))}


def process_note(spec: dict) -> str:
    """The decision process in words, for every claim's note."""
    if process(spec) == "hold":
        return ("decision process hold (a failed pick is reserved and the agent is not asked until it starts; "
                "the GA keeps the head's reservation too; the paper re-asks at every event)")
    asks = ("asked at every event instant" if spec.get("ask_when_none_fits", True)
            else "asked at every event instant where a window job fits")
    return (f"decision process every_event for every method (as the paper: {asks} and after each start; a failed "
            "pick leaves the head EASY's reservation; the GA re-plans at every event)")


def agent_seed(spec: dict) -> int:
    """The seed of the agents the base folders hold (``agent_seed``, default ``seed``): with the job
    sets, the GA and the claims' draws still those of ``seed``, ``agent_seed: n`` trains seed n of
    the main agents as a run of its own (config/seed/<n>.yaml), recorded and pooled with the others
    as ``extra_seeds`` would train them in one run."""
    return int(spec.get("agent_seed", spec["seed"]))


#: what the study (``schedrl tune mrsch``) never reads, pinned (None: dropped) in its rule's spec
#: (``config.study_spec_json``): the main agents' seed and the extra seeds (a trial trains ``seed``, ``seed + 1``, ...)
STUDY_PINS = {"agent_seed": None, "extra_seeds": []}


def run_spec(spec: dict, seed=None) -> str:
    """``--spec`` of a rule over the base agents (``seed`` None) or one extra seed's
    (``run_spec_json``): ``extra_seeds`` narrowed to that seed (left out for the base agents), the
    study left out, so adding an extra seed neither retrains nor re-evaluates the agents there are."""
    return run_spec_json(spec, leave_out=("tune",), extra_seeds=None if seed is None else [int(seed)])


def extra_seeds(spec: dict) -> list[int]:
    """Seeds the main agents train with besides the base one (``extra_seeds``)."""
    return [int(s) for s in spec.get("extra_seeds", [])]


def seeds(spec: dict) -> list[int]:
    """Every seed of the main agents, the base one first."""
    return [agent_seed(spec), *extra_seeds(spec)]


def extra_or_none(spec: dict, seed: int) -> int | None:
    """``seed`` as a folder's seed part: None for the base agent seed (its folders carry none)."""
    return None if int(seed) == agent_seed(spec) else int(seed)


def _extra(spec: dict, seed: int | None) -> int | None:
    """``seed`` when it is an extra seed, None for the base one (whose folders carry no seed)."""
    if seed is None or int(seed) == agent_seed(spec):
        return None
    if int(seed) not in extra_seeds(spec):
        raise ConfigError(f"seed {seed} is neither mrsch.agent_seed ({agent_seed(spec)}) nor in mrsch.extra_seeds "
                          f"{extra_seeds(spec)}")
    return int(seed)


def check_seed_run(spec: dict, state: str, ordering: str, seed: int | None) -> int | None:
    """The extra seed of a (state, ordering) run, None for the base seed; extra seeds train the
    main agents only (MLP on the paper's ordering)."""
    extra = _extra(spec, seed)
    if extra is not None and (state != "mlp" or ordering != PAPER_ORDERING):
        raise ConfigError(f"mrsch.extra_seeds train the MLP agents on '{PAPER_ORDERING}' only, not {state} on {ordering}")
    return extra


def select_on_validation(spec: dict) -> bool:
    """Whether the DFP agents' evaluated model is the kept checkpoint that scores best on the
    group's validation splits (``dfp.select_on_validation``; off: the final model)."""
    return bool(spec["dfp"].get("select_on_validation", False))


def groups(spec: dict) -> list[str]:
    return [g for g in GROUPS if any(w in spec["workloads"] for w in GROUPS[g])]


def has_cnn(spec: dict) -> bool:
    """Whether the spec trains the CNN variant (Fig. 3; ``cnn: null``, as config/paper-budget.yaml,
    trains none)."""
    return spec.get("cnn") is not None


def has_scalar(spec: dict) -> bool:
    """Whether the spec trains the scalar-RL baseline (``scalar_rl: null``: none, and no evaluation
    plays it)."""
    return spec.get("scalar_rl") is not None


def has_orderings(spec: dict) -> bool:
    """Whether the spec trains other job-set orderings besides the paper's (Fig. 4's comparison)."""
    return len(spec["orderings"]) > 1


#: The note of a claim whose runs the config does not train (it reads "not comparable").
NOT_TRAINED = "not trained at this scale"


def is_missing(row: dict) -> bool:
    """Whether a claim row is one whose runs are not trained at this scale (its note's first part
    ends in ``NOT_TRAINED``)."""
    return row.get("verdict") == "not comparable" and str(row.get("note", "")).split(";")[0].endswith(NOT_TRAINED)


def agent_states(spec: dict, group: str, seed: int | None = None) -> list[tuple[str, str]]:
    """(method, state module) of the DFP agents an evaluation of ``group`` plays: the MLP agent, and
    on S1-S5 the CNN variant when the spec trains it (never for an extra seed)."""
    cnn = group == "two" and seed is None and has_cnn(spec)
    return [("mrsch", "mlp")] + ([("mrsch_cnn", "cnn")] if cnn else [])


def not_trained(spec: dict) -> list[str]:
    """What the spec leaves untrained, in words (empty at the smoke, default and paper scales)."""
    return ([] if has_cnn(spec) else ["the CNN variant"]) + ([] if has_orderings(spec) else ["the other job-set orderings"]) \
        + ([] if has_scalar(spec) else ["scalar RL"])


def group_workloads(spec: dict, group: str) -> list[str]:
    return [w for w in GROUPS[group] if w in spec["workloads"]]


# ---------------------------------------------------------------------------------------------
# folders and runs

def _seed_part(path: Path, seed: int | None) -> Path:
    # the base seed (None) keeps the folders it had before extra seeds existed
    return path if seed is None else path / f"seed{int(seed)}"


def dfp_dir(root, group: str, state: str, ordering: str, seed: int | None = None) -> Path:
    """A DFP run folder; ``seed``: an extra seed's (None: the base seed's)."""
    return _seed_part(Path(root) / "dfp" / group / state / ordering, seed)


def scalar_dir(root, group: str) -> Path:
    return Path(root) / "scalar_rl" / group


def eval_dir(root, workload: str, split: str = "test", seed: int | None = None) -> Path:
    return _seed_part(Path(root) / ("eval" if split == "test" else "eval_insample") / workload, seed)


def budget_dir(root, group: str, seed: int | None = None) -> Path:
    return _seed_part(Path(root) / "eval_budget" / group, seed)


def dfp_runs(spec: dict) -> list[tuple[str, str, str]]:
    """(group, state, ordering) of every DFP run the spec trains on the base seed."""
    runs = [(g, "mlp", PAPER_ORDERING) for g in groups(spec)]
    if "two" in groups(spec):
        runs += [("two", "cnn", PAPER_ORDERING)] if has_cnn(spec) else []
        runs += [("two", "mlp", o) for o in spec["orderings"][1:]]
    return runs


def seed_runs(spec: dict) -> list[tuple[str, str, str, int]]:
    """(group, state, ordering, seed) of the extra seeds' runs: the main agents only."""
    return [(g, "mlp", PAPER_ORDERING, s) for s in extra_seeds(spec) for g in groups(spec)]


# ---------------------------------------------------------------------------------------------
# the models a DFP run folder keeps: shares of training (issue 24) and the selected one (issue 25)

#: Shares of training whose models are kept besides the final one (issue 24's budgets).
BUDGET_SNAPSHOTS = tuple(f for f in BUDGET_FRACTIONS if f < 1)


def budget_name(fraction: float) -> str:
    """File name of the model after ``fraction`` of training in a DFP run folder."""
    return "model.zip" if fraction >= 1 else f"budget_{fraction:g}.zip"


def n_jobsets(spec: dict) -> int:
    return sum(int(v) for v in spec["jobsets"].values())


def budget_sets(spec: dict, fraction: float) -> int:
    """Job sets trained at ``fraction`` of the run (at least one)."""
    return max(1, int(round(fraction * n_jobsets(spec))))


def budget_model(root, group: str, state: str, fraction: float, ordering: str = PAPER_ORDERING,
                 seed: int | None = None) -> Path:
    return dfp_dir(root, group, state, ordering, seed) / budget_name(fraction)


#: File names in a DFP run folder written by ``select_model`` (rule mrsch_select).
SELECTED_NAME, VALIDATION_NAME, SELECTION_NAME = "selected.zip", "validation.csv", "selection.json"


def eval_model(spec: dict, root, group: str, state: str, seed: int | None = None) -> Path:
    """The DFP model the test evaluation and the claims use: the checkpoint selected on the
    validation split when ``dfp.select_on_validation`` is on, else the final model (of ``seed``:
    an extra seed, None the base one)."""
    return (dfp_dir(root, group, state, PAPER_ORDERING, check_seed_run(spec, state, PAPER_ORDERING, seed))
            / (SELECTED_NAME if select_on_validation(spec) else "model.zip"))


# ---------------------------------------------------------------------------------------------
# workloads and envs

def data_source(base=WORKLOAD_DIR) -> str:
    """What the workloads were built from: the Theta 2022 trace or its synthetic stand-in (read
    from the split manifest the workload rule writes)."""
    import json

    for w in GROUPS["two"] + GROUPS["three"]:
        path = Path(base) / w / "split.json"
        if path.is_file():
            stand_in = json.loads(path.read_text()).get("stand_in")
            return ("a synthetic stand-in for Theta (the trace file was missing)" if stand_in
                    else "Theta 2022 trace (the paper: Theta 2018, not public)")
    return "unknown (no split manifest)"


def workload_file(workload: str, part: str) -> Path:
    return WORKLOAD_DIR / workload / f"{part}.swf"


@cache
def _read(path: str) -> pd.DataFrame:
    from schedrl.workloads.swf import read_swf

    return read_swf(path)


def read_part(workload: str, part: str, base=WORKLOAD_DIR) -> pd.DataFrame:
    path = Path(base) / workload / f"{part}.swf"
    if not path.is_file():
        raise ConfigError(f"{path}: missing; build it with 'snakemake {path}' (rule workload_mrsch)")
    return _read(str(path))


def cluster_of(frame: pd.DataFrame):
    """The machine a workload file states in its header (nodes, burst buffer, power budget)."""
    from schedrl.sim import ClusterSpec

    h = frame.attrs.get("header") or {}
    try:
        return ClusterSpec(nodes=int(h.get("MaxNodes") or h["MaxProcs"]), bb_units=int(h.get("MaxBurstBufferUnits", 0)),
                           power_budget=float(h.get("PowerBudgetWatts", 0)), idle_power=float(h.get("NodeIdleWatts", 0)))
    except KeyError:
        raise ConfigError("an MRSch workload file must state MaxNodes in its header") from None


def make_env(frame: pd.DataFrame, window: int, jobs=None, **kwargs):
    """The pick-and-reserve env over ``frame``'s machine, with MRSch's state and measurements."""
    import schedrl.envs  # noqa: F401  (registers the envs)
    from schedrl.encoders import register_encoder

    register_encoder("mrsch_power", "schedrl.encoders.hpc", "MRSchPowerEncoder")
    cluster = cluster_of(frame)
    encoder = "mrsch_power" if cluster.power_budget else "mrsch"
    # time_scale: one day, Theta's longest walltime, the same for every job set and the test split
    return gym.make(ENV_ID, jobs=frame if jobs is None else jobs, cluster=cluster, encoder=encoder,
                    window=window, measurements=True, time_scale=86_400.0, **kwargs).unwrapped


def jobsets(spec: dict, group: str, base=WORKLOAD_DIR) -> dict[str, list[pd.DataFrame]]:
    """The group's training job sets by kind (deterministic in ``spec['seed']``)."""
    from schedrl.workloads import jobsets as js

    names = group_workloads(spec, group)
    frames = {w: read_part(w, "train", base) for w in names}
    n_jobs, counts, seed = int(spec["jobs_per_set"]), spec["jobsets"], int(spec["seed"])
    out: dict[str, list[pd.DataFrame]] = {}
    # real set i: the i-th of ``counts["real"]`` blocks spread over the whole split, taken from
    # workload i mod the group's size; every workload of a group shares one trace's jobs (they
    # differ in burst-buffer and node requests), so this keeps the real sets distinct slices of
    # the trace whenever they fit (counts x jobs_per_set <= the split's length; else they overlap)
    real = {w: js.real_jobsets(frames[w], int(counts["real"]), n_jobs) for w in names}
    for k, kind in enumerate(KINDS):
        sets = []
        for i in range(int(counts[kind])):
            w = names[i % len(names)]
            rng = np.random.default_rng([seed, k, i])
            if kind == "real":
                sets.append(real[w][i])
            elif kind == "sampled":
                sets.append(js.sampled_jobset(frames[w], n_jobs, rng))
            else:
                sets.append(js.synthetic_jobset(frames[w], n_jobs, rng))
        out[kind] = sets
    return out


def test_jobs(spec: dict, workload: str, base=WORKLOAD_DIR) -> pd.DataFrame:
    frame = read_part(workload, "test", base)
    m = int(spec["eval"]["max_jobs"])
    return frame.iloc[:m] if m > 0 else frame


def val_jobs(spec: dict, workload: str, base=WORKLOAD_DIR) -> pd.DataFrame:
    """``workload``'s validation split (the two weeks after the training months), capped at
    ``eval.max_jobs`` as the test split is."""
    frame = read_part(workload, "val", base)
    m = int(spec["eval"]["max_jobs"])
    return frame.iloc[:m] if m > 0 else frame
