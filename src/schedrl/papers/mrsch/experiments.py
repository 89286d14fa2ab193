"""What runs for MRSch (mrsch.txt): the DFP agent and its baselines on workloads S1-S10.

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
beside them under ``every_event``, in no claim's comparison. State: the ``mrsch`` encoder (4W + 2N1 + 2N2,
Theta 11,410) or, with power (S6-S10), ``mrsch_power`` (plus each window job's power share and two
power values). Measurements: per-resource utilisation (``info["utilization"]``); goal: eq. (1)
(``info["demand_share"]``), recomputed by the env at every decision.

Agents. One DFP agent per resource count, not per workload (the paper does not say; the goal
vector is what adapts to a workload): group ``two`` (nodes and burst buffer) trains on job sets
from the training splits of S1-S5, group ``three`` (plus power) on S6-S10. Job sets (III-D):
``jobsets.sampled`` Poisson-sampled, ``jobsets.real`` consecutive blocks, ``jobsets.synthetic``
synthetic (``schedrl.workloads.jobsets``), ``jobs_per_set`` jobs each, job set i of a kind drawn
from the group's workloads in turn. The agent order of kinds is an *ordering*; the paper's,
``sampled-real-synthetic``, trains the main agents; Fig. 4 trains group ``two`` once per ordering.
Fig. 3 trains a CNN state module on the paper's ordering.

Baselines, all with EASY backfilling over every resource: FCFS (list scheduling), the paper's GA
(BBSched: population 21, 50 generations at w = 10; ``exhaustive_max = 0`` forces it for every
window) with the exact exhaustive Pareto search kept as a check (``exhaustive``), and scalar RL:
REINFORCE (``schedrl.agents.reinforce``) with reward ``0.5 node util + 0.5 BB util`` after each
pick (three resources: 1/3 each), trained on blocks of the group's training splits.

Seeds (issue 24). ``seed`` fixes the job sets, the GA and every agent; ``extra_seeds`` train the
main agents (MLP, paper ordering, each group) again with other seeds on the same job sets (network
init, exploration and replay sampling differ), evaluated as the base seed's (selection, test and
in-sample splits, budgets) but beside no baseline; the claims take MRSch's mean over seeds and
resample seeds in their intervals. The CNN variant and the other orderings (Figs. 3-4) stay on
``seed``: their claims are ablations, and seeding them too would add ~1.5 core-hours at default
scale (by ``dfp_seconds``), past mrsch's share of 4.

Scales that train less (config/paper-budget.yaml). ``cnn: null`` trains no CNN variant,
``scalar_rl: null`` no scalar-RL baseline (no evaluation plays it), ``orderings`` holding the
paper's alone no other ordering; the claims that need them read "not comparable ... not trained at
this scale" (``not_trained``), the others compare what was trained.

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

import math
import time
from functools import cache
from pathlib import Path

import gymnasium as gym
import numpy as np
import pandas as pd

from schedrl.errors import ConfigError
from schedrl.protocol import BUDGET_FRACTIONS
from schedrl.report.budget import SLOWER_KIND

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
          "ga_hold": "GA (hold, diagnostic)"}
ENV_ID = "schedrl/HPCPickReserve-v0"
PROCESSES = ("every_event", "hold")
#: Diagnostic rows: evaluated and drawn, never in a claim's comparison (issue 35).
DIAGNOSTIC = ("ga_hold",)


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
    extra = spec.get("extra_seeds", [])
    if (not isinstance(extra, list) or not all(isinstance(s, int) and not isinstance(s, bool) and s >= 0 for s in extra)
            or len(set(extra)) != len(extra) or int(spec["seed"]) in extra):
        raise ConfigError(f"mrsch.extra_seeds must be a list of distinct integers >= 0 other than mrsch.seed "
                          f"({spec['seed']}), not {extra!r}")
    return spec


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


def extra_seeds(spec: dict) -> list[int]:
    """Seeds the main agents train with besides ``seed`` (``extra_seeds``)."""
    return [int(s) for s in spec.get("extra_seeds", [])]


def seeds(spec: dict) -> list[int]:
    """Every seed of the main agents, the base one first."""
    return [int(spec["seed"]), *extra_seeds(spec)]


def _extra(spec: dict, seed: int | None) -> int | None:
    """``seed`` when it is an extra seed, None for the base one (whose folders carry no seed)."""
    if seed is None or int(seed) == int(spec["seed"]):
        return None
    if int(seed) not in extra_seeds(spec):
        raise ConfigError(f"seed {seed} is neither mrsch.seed nor in mrsch.extra_seeds {extra_seeds(spec)}")
    return int(seed)


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
# layout

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


# ---------------------------------------------------------------------------------------------
# workloads and envs

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


def dfp_config(spec: dict, state: str):
    from schedrl.agents.dfp import DFPConfig

    params = {k: v for k, v in spec["dfp"].items() if k != "select_on_validation"}
    if state == "cnn" and not has_cnn(spec):
        raise ConfigError("mrsch.cnn is null: this config trains no CNN variant")
    if state == "cnn":
        params.update(spec["cnn"])
    params["state_module"] = state
    return DFPConfig.from_dict(params)


# Measured on one core: the default run of 2026-11-26 (`snakemake mrsch --cores 2` from a clean
# clone, 800 jobs per set; its rules' process CPU time) and benchmarks/bench_dfp.py. Agent decisions
# per training job (15.9 k per 20,000 jobs with two resources, 10.3 k with three: power blocks more
# picks); per decision with batch 64 updated every 4 decisions, 0.085 CPU-s (two resources) and
# 0.087 (three) for the paper's MLP network, 0.041 for the CNN variant (its state module has 0.3 M
# weights, not 50 M). A greedy pick with its env step and a fused-Adam update of the MLP (0.15 s +
# 1.3 ms per sample in bench_dfp.py) are scaled by 1.15 to those rule totals (pick, update and
# rule start-up are not told apart by a rule's CPU time).
DECISIONS_PER_JOB = {"two": 0.8, "three": 0.52}
# These rates are the faster machine kind's (AVX-512). On the slower kind sessions also get (AMD EPYC
# at 2.45 GHz, AVX2 only; 2026-11-27) benchmarks/bench_dfp.py measured a fused-Adam update of the MLP
# at 0.36-0.47 s per batch of 32 (0.19 here) and 6.3-8.5 agent steps per CPU-second of training:
# 7.5-8.7 core-hours for the default's DFP runs (four runs of the benchmark) against the 4.4 these
# rates gave. Refit 2026-11-28 to the default run there (2026-11-27, a0283f9, the faster DFP, this
# config): 4.673 core-hours exact against these rates' 2.825, so x1.65 (its DFP rules 3.35 against
# 2.30, x1.46; the rest, evaluations and rule start-ups, 1.32 against 0.52, x2.5).
SLOWER_MACHINE = (SLOWER_KIND, 1.65)
#: The parts of ``estimate_core_hours`` that add up to the run's core-hours (the rest are counts).
COST_PARTS = ('dfp', 'scalar', 'evaluate', 'budgets', 'select')
# Decisions per job under every_event relative to hold (issue 35), measured 2026-11-26 with uniformly
# random valid picks on two job sets of each kind of the default config (800 jobs, 4,800 jobs per
# group): hold 0.736 (two) / 0.389 (three) per job; every_event 1.499 / 1.895; every_event without
# the no-fit asks 1.034 / 0.788. Keyed by ask_when_none_fits.
EVERY_EVENT_FACTOR = {True: {"two": 1.499 / 0.736, "three": 1.895 / 0.389},
                      False: {"two": 1.034 / 0.736, "three": 0.788 / 0.389}}
PICK_S, UPDATE_S, UPDATE_S_PER_SAMPLE, CNN_UPDATE_S = 0.0184, 0.172, 0.0015, 0.090
# Since 2026-11-27 (3cfb57b) an MLP update keeps glibc's freed blocks and holds the first layer's
# weight as (in, out) (bench_dfp.py on the slower kind: 0.18-0.23 s per batch of 32, 0.27-0.47
# before), and an exploring decision no longer runs the network (~90% of a pick's CPU: 11 ms of 12).
# bench_dfp.py's train rates there went from 8.4 / 6.8 to 15.5 / 14.8 agent steps per CPU-s (S1 /
# S6, three runs each): an MLP decision of the default config costs 0.50 of what it did. The update
# factor is set to give that with the pick's share below; assumed on both kinds until a default
# run refits these rates.
MLP_UPDATE_SPEEDUP, PICK_FORWARD_SHARE = 0.45, 0.9


# From the same run's benchmark files: REINFORCE (hidden 256) env steps per CPU-second (58 CPU-s for
# both groups' runs), CPU-seconds per job of a whole test-split evaluation (every method, CNN
# included: S1-S5 15 s, S6-S10 8-11 s per 1,931-job split, start-up included), of the budget
# evaluation (lockstep play of one model on every test split and in-sample set of its group, model
# loading included: 164 CPU-s for two resources' MLP and CNN models at four budgets, 141 k job plays;
# 70 for three's MLP, 71 k) and of model selection (rule mrsch_select: four kept models per main
# agent on its group's validation splits of 1,033 jobs, 52 CPU-s for 62 k job plays).
SCALAR_STEPS_PER_S, EVAL_S_PER_JOB = 3300.0, 14.1 / 1931
BUDGET_S_PER_JOB = {"two": 0.00116, "three": 0.0010}
SELECT_S_PER_JOB, VAL_JOBS = 0.00084, 1033


def decision_factor(spec: dict, group: str) -> float:
    """Agent decisions per job under the spec's process relative to ``hold`` (the rates' process)."""
    if process(spec) == "hold":
        return 1.0
    return EVERY_EVENT_FACTOR[bool(spec.get("ask_when_none_fits", True))][group]


def estimate_core_hours(spec: dict) -> dict:
    """Core-hours of the spec's DFP runs, REINFORCE runs and evaluations by the measured rates
    (the agents' shares of evaluation counted at their decisions per job under the spec's process,
    and every evaluation at the highest group's factor: an upper bound)."""
    s = spec["scalar_rl"]
    more = max([decision_factor(spec, g) for g in groups(spec)] or [1.0])
    scalar_steps = (int(s["iterations"]) * int(s["trajectories"]) * int(s["examples"]) * int(spec["jobs_per_set"])
                    if has_scalar(spec) else 0)
    test_jobs = int(spec["eval"]["max_jobs"]) or 1931  # the Theta 2022 test splits hold 1,931 jobs
    runs = [(g, st) for g, st, _ in dfp_runs(spec)] + [(g, st) for g, st, _, _ in seed_runs(spec)]
    n_seeds = len(seeds(spec))
    return {"dfp_runs": len(runs), "dfp": sum(dfp_seconds(spec, g, st) for g, st in runs) / 3600,
            "scalar": sum(decision_factor(spec, g) for g in groups(spec)) * scalar_steps / SCALAR_STEPS_PER_S / 3600,
            # held-out test splits, then the in-sample protocol on each group's real training sets; an
            # extra seed plays MRSch alone, counted at every method's rate (an upper bound)
            "evaluate": more * n_seeds * (len(spec["workloads"]) * test_jobs + len(groups(spec)) * int(spec["jobsets"]["real"])
                                   * int(spec["jobs_per_set"])) * EVAL_S_PER_JOB / 3600,
            # the DFP models at 1/8, 1/4, 1/2 of training on the same test splits and in-sample sets
            # (and the final ones when the main evaluation plays the selected ones); per group the
            # base seed's MLP (and CNN for two) and each extra seed's MLP
            "budgets": sum(decision_factor(spec, g) * (len(agent_states(spec, g)) + n_seeds - 1)
                           * len(BUDGET_FRACTIONS if select_on_validation(spec) else BUDGET_SNAPSHOTS) * BUDGET_S_PER_JOB[g]
                           * (len(group_workloads(spec, g)) * test_jobs + int(spec["jobsets"]["real"]) * int(spec["jobs_per_set"]))
                           for g in groups(spec)) / 3600,
            # each main agent's (and seed's) four kept models on its group's validation splits (rule mrsch_select)
            "select": (sum(decision_factor(spec, g) * len(BUDGET_FRACTIONS) * len(group_workloads(spec, g))
                           * (int(spec["eval"]["max_jobs"]) or VAL_JOBS) * SELECT_S_PER_JOB
                           for g, _, o, *_ in dfp_runs(spec) + seed_runs(spec) if o == PAPER_ORDERING) / 3600
                       if select_on_validation(spec) else 0.0)}


def dfp_seconds(spec: dict, group: str = "two", state: str = "mlp") -> float:
    """Estimated seconds of one DFP training run of ``spec`` on one core (from the rates above)."""
    d = dfp_config(spec, state)
    jobs = int(spec["jobs_per_set"]) * sum(int(v) for v in spec["jobsets"].values())
    update = (CNN_UPDATE_S * d.batch_size / 64 if state == "cnn"
              else (UPDATE_S + UPDATE_S_PER_SAMPLE * d.batch_size) * MLP_UPDATE_SPEEDUP)
    pick = PICK_S * (1 - PICK_FORWARD_SHARE * mean_epsilon(d))
    return jobs * DECISIONS_PER_JOB[group] * decision_factor(spec, group) * (pick + update / d.update_every)


def mean_epsilon(d) -> float:
    """The share of a DFP run's decisions that explore (no forward pass): the schedule's mean over
    the run for ``run`` and ``run_inverse`` (whose mean is min + (start - min) b ln((1 + b) / b));
    0 for the per-step schedules, an upper bound on their cost."""
    from schedrl.agents.dfp import INVERSE_B

    span = d.epsilon_start - d.epsilon_min
    if d.epsilon_per == "run":
        return d.epsilon_min + span / 2
    if d.epsilon_per == "run_inverse":
        return d.epsilon_min + span * INVERSE_B * math.log((1 + INVERSE_B) / INVERSE_B)
    return 0.0


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


def check_seed_run(spec: dict, state: str, ordering: str, seed: int | None) -> int | None:
    """The extra seed of a (state, ordering) run, None for the base seed; extra seeds train the
    main agents only (MLP on the paper's ordering)."""
    extra = _extra(spec, seed)
    if extra is not None and (state != "mlp" or ordering != PAPER_ORDERING):
        raise ConfigError(f"mrsch.extra_seeds train the MLP agents on '{PAPER_ORDERING}' only, not {state} on {ordering}")
    return extra


def train_dfp_run(spec: dict, group: str, state: str, ordering: str, root=ROOT, threads: int = 1,
                  base=WORKLOAD_DIR, seed: int | None = None):
    """Train one DFP agent; ``seed`` (an extra seed; None: ``spec['seed']``) seeds the agent only
    (network init, exploration, replay sampling): the job sets stay those of ``spec['seed']``."""
    from schedrl.agents.dfp import train_dfp

    extra = check_seed_run(spec, state, ordering, seed)
    sets = jobsets(spec, group, base)
    episodes, labels = [], []
    for kind in kinds_of(ordering):
        for i, frame in enumerate(sets[kind]):
            episodes.append({"jobs": frame})
            labels.append(f"{kind}{i}")
    keep: dict[int, list[str]] = {}
    for f in BUDGET_SNAPSHOTS:
        keep.setdefault(budget_sets(spec, f), []).append(budget_name(f))
    first = episodes[0]["jobs"]
    return train_dfp(lambda: make_env(first, int(spec["window"]), **env_kwargs(spec)), dfp_config(spec, state), episodes,
                     int(spec["seed"]) if extra is None else extra, dfp_dir(root, group, state, ordering, extra),
                     measurement_key="utilization",
                     goal_key="demand_share", config={"paper": "mrsch", "group": group, "state": state,
                                                       "ordering": ordering, "jobs_per_set": int(spec["jobs_per_set"]),
                                                       "window": int(spec["window"]), **env_kwargs(spec),
                                                       "budget_models": {str(k): v for k, v in keep.items()}},
                     threads=threads, on_mismatch="restart", episode_labels=labels,
                     checkpoint_every=spec["checkpoint_every"], keep_at=keep, device=spec.get("device", "cpu"))


# ---------------------------------------------------------------------------------------------
# scalar RL (REINFORCE with a fixed-weight utilisation reward)

class FixedWeightReward(gym.Wrapper):
    """Reward = ``weights . info["utilization"]`` after each pick (the scalar-RL baseline)."""

    def __init__(self, env, weights):
        super().__init__(env)
        self.weights = np.asarray(weights, dtype=np.float64)

    def step(self, action):
        obs, _, terminated, truncated, info = self.env.step(action)
        return obs, float(self.weights @ np.asarray(info["utilization"], dtype=np.float64)), terminated, truncated, info

    def action_masks(self):
        return self.env.unwrapped.action_masks()


def train_scalar_run(spec: dict, group: str, root=ROOT, threads: int = 1, base=WORKLOAD_DIR):
    from schedrl.agents.reinforce import ReinforceConfig, train_reinforce

    if not has_scalar(spec):
        raise ConfigError("mrsch.scalar_rl is null: this config trains no scalar-RL baseline")
    s = spec["scalar_rl"]
    names = group_workloads(spec, group)
    frames = [read_part(w, "train", base) for w in names]
    n_jobs = int(spec["jobs_per_set"])

    def block(rng) -> pd.DataFrame:  # a random block of a random workload of the group
        f = frames[int(rng.integers(len(frames)))]
        s0 = int(rng.integers(0, max(1, len(f) - n_jobs + 1)))
        return f.iloc[s0: s0 + n_jobs]

    weights = np.full(len(RESOURCES[group]), 1.0 / len(RESOURCES[group]))
    cfg = ReinforceConfig.from_dict({"hidden": list(s["hidden"]), "learning_rate": float(s["learning_rate"]),
                                     "trajectories": int(s["trajectories"]), "examples_per_update": int(s["examples"]),
                                     "mask_actions": True, "optimizer": "adam", "discount": float(s["discount"])})

    def make():
        return FixedWeightReward(make_env(frames[0], int(spec["window"]), jobs=block, **env_kwargs(spec)), weights)

    return train_reinforce(make, cfg, int(s["iterations"]), int(spec["seed"]), scalar_dir(root, group),
                           config={"paper": "mrsch", "group": group, "reward_weights": weights.tolist(),
                                   "jobs_per_set": n_jobs, **env_kwargs(spec)}, examples=int(s["examples"]), threads=threads,
                           on_mismatch="restart", lockstep=False)


# ---------------------------------------------------------------------------------------------
# evaluation on the test split

def test_jobs(spec: dict, workload: str, base=WORKLOAD_DIR) -> pd.DataFrame:
    frame = read_part(workload, "test", base)
    m = int(spec["eval"]["max_jobs"])
    return frame.iloc[:m] if m > 0 else frame


def metrics_row(schedule: pd.DataFrame, cluster, method: str, workload: str, **extra) -> dict:
    from schedrl import metrics

    row = {"workload": workload, "method": method, "jobs": len(schedule),
           "node_util": metrics.utilization(schedule, cluster.nodes),
           "bb_util": metrics.bb_utilization(schedule, cluster.bb_units),
           "power_util": metrics.power_utilization(schedule, cluster) if cluster.power_budget else np.nan,
           "mean_wait_h": metrics.mean_wait(schedule) / 3600.0, "mean_slowdown": metrics.mean_slowdown(schedule)}
    row.update(extra)
    return row


def _dfp_input(obs, info) -> tuple:
    """What ``dfp_view`` scores a recorded decision with: (observation, measurements, goal)."""
    return (np.asarray(obs, dtype=np.float32).reshape(-1).copy(), np.asarray(info["utilization"], dtype=np.float32),
            np.asarray(info["demand_share"], dtype=np.float32))


def play_picker(pick, env, frame: pd.DataFrame, recorder=None) -> tuple[pd.DataFrame, pd.DataFrame, np.ndarray]:
    """Play ``frame`` with ``pick(obs, info, env) -> action`` at every decision; returns the schedule,
    the goal trace (clock, goal per resource) and the seconds each decision took (choosing and the
    env's step). ``recorder`` (a ``FingerprintRecorder``; untimed) records every decision."""
    obs, info = env.reset(options={"jobs": frame})
    if recorder is not None:
        recorder.env = env
    goals, times, done = [], [], False
    while not done:
        t0 = time.perf_counter()
        a = int(pick(obs, info, env))
        t1 = time.perf_counter()
        if recorder is not None:
            if getattr(recorder, "dfp", False):
                recorder.policy_input = lambda o, _env, i=info: _dfp_input(o, i)
            recorder.record(obs, a)
        goals.append([info["clock"], *np.asarray(info["demand_share"], dtype=float)])
        t2 = time.perf_counter()
        obs, _, term, trunc, info = env.step(a)
        times.append(time.perf_counter() - t2 + t1 - t0)
        done = term or trunc
    return info["schedule"], pd.DataFrame(goals), np.asarray(times)


def play_dfp(agent, env, frame: pd.DataFrame, recorder=None) -> tuple[pd.DataFrame, pd.DataFrame, np.ndarray]:
    """Greedy play with the dynamic goal; returns the schedule, the goal trace and the seconds each
    decision took (the agent's forward pass and the env's step, i.e. choosing and starting a job)."""
    def pick(obs, info, _env):
        return agent.act(obs[None], info["utilization"], info["demand_share"], info["action_mask"][None])[0]

    return play_picker(pick, env, frame, recorder)


def play_policy(policy, env, frame: pd.DataFrame, recorder=None) -> tuple[pd.DataFrame, np.ndarray]:
    import torch

    torch.manual_seed(0)

    def pick(obs, info, _env):
        a, _ = policy.predict(obs, deterministic=True, action_masks=info["action_mask"])
        return np.asarray(a).reshape(-1)[0]

    sched, _, times = play_picker(pick, env, frame, recorder)
    return sched, times


def insample_workloads(spec: dict, group: str) -> list[str]:
    """The group's workloads that gave the agents at least one real training job set (real set i
    comes from workload i mod the group's size; a small spec leaves some workloads without one)."""
    names = group_workloads(spec, group)
    return [w for j, w in enumerate(names) if j < int(spec["jobsets"]["real"])]


def trained_real_sets(spec: dict, workload: str, base=WORKLOAD_DIR) -> list[pd.DataFrame]:
    """The real job sets of ``workload`` that its group's agents trained on (the in-sample protocol)."""
    if workload not in insample_workloads(spec, group_of(workload)):
        raise ConfigError(f"workload {workload} gave no real training job set (mrsch.jobsets.real is "
                          f"{spec['jobsets']['real']}): nothing to evaluate in-sample")
    names = group_workloads(spec, group_of(workload))
    real = jobsets(spec, group_of(workload), base)["real"]
    return [f for i, f in enumerate(real) if names[i % len(names)] == workload]


def evaluate_workload(spec: dict, workload: str, root=ROOT, base=WORKLOAD_DIR, threads: int = 1,
                      split: str = "test", seed: int | None = None, record=None):
    """Every method on ``workload``'s test split, or (``split='train'``, the public MRSch code's
    protocol: it trains and tests on one trace) on the real job sets its agents trained on, each set
    simulated alone and the metrics averaged; returns (metrics, goal trace of MRSch, per-job waits
    and slowdowns of every method, ``job_rows``; in-sample with a ``jobset`` column). With an extra
    ``seed``, MRSch (MLP) of that seed alone. ``record`` (a ``fingerprints.Record``): fingerprint
    the agents and play the no-learning references beside them."""
    import torch

    torch.set_num_threads(max(1, threads))
    if split == "test":
        return evaluate_frame(spec, test_jobs(spec, workload, base), workload, root, seed, record)
    parts = []
    for k, f in enumerate(trained_real_sets(spec, workload, base)):
        if record is not None:
            record.part = k
        parts.append(evaluate_frame(spec, f.reset_index(drop=True), workload, root, seed, record))
    jobs = pd.concat([j.assign(jobset=k) for k, (_, _, j) in enumerate(parts)], ignore_index=True)
    return pool_metrics([m for m, _, _ in parts]), pd.concat([g for _, g, _ in parts], ignore_index=True), jobs


def pool_metrics(frames: list[pd.DataFrame]) -> pd.DataFrame:
    """Per workload and method, the metrics of several job sets in one row: counts and seconds
    summed, worst-case times as the maximum, utilisations, waits and slowdowns as the mean over
    sets; ``jobsets`` says how many were pooled."""
    metrics = pd.concat(frames, ignore_index=True)
    numeric = metrics.select_dtypes("number").columns
    def total(v):  # a method without decisions (FCFS) keeps NaN, not 0
        return v.sum(min_count=1)

    how = {c: total if c in ("jobs", "decisions", "instances", "wall_s") else "max" if c.endswith("_max") else "mean"
           for c in numeric}
    pooled = metrics.groupby(["workload", "method"], sort=False).agg(how).reset_index()
    pooled["jobsets"] = len(frames)
    return pooled


def evaluate_frame(spec: dict, frame: pd.DataFrame, workload: str, root=ROOT, seed: int | None = None, record=None):
    """Every method on the jobs of ``frame``; returns (metrics, goal trace of MRSch, per-job rows).
    With an extra ``seed``: MRSch (MLP) of that seed alone (the baselines do not depend on it).
    With ``record`` (``fingerprints.Record``), every trained agent's decisions are recorded and its
    seat is played again by the random and the untrained references (``fingerprints``)."""
    from schedrl.agents.dfp import DFPAgent
    from schedrl.papers.mrsch import fingerprints as fps

    group = group_of(workload)
    extra = _extra(spec, seed)
    agent_seed = int(spec["seed"]) if extra is None else extra
    w = int(spec["window"])
    rows, per_job = ([], []) if extra is not None else baseline_rows(spec, frame, workload, root, record)
    goals = None
    agents = agent_states(spec, group, extra)
    for method, state in agents:
        agent = DFPAgent.load(eval_model(spec, root, group, state, extra))
        plays = [("", agent)]
        if record is not None:
            plays += [("random", None), ("untrained", fps.untrained_dfp(agent, agent_seed))]
        for reference, player in plays:
            rec = None
            if record is not None:
                view = None if player is None else (lambda a=player: fps.fpm.dfp_view(a))
                rec = record.recorder(fps.label_of(method, reference), view, _fp_meta(
                    method, reference, workload, group, state, agent_seed), dfp=player is not None)
                record.jobs[fps.label_of(method, reference)] += len(frame)
            env = make_env(frame, w, **env_kwargs(spec))
            if player is None:
                sched, trace, times = play_picker(fps.random_picker([agent_seed, record.part, fps.AGENTS.index(method)]),
                                                  env, frame, rec)
            else:
                sched, trace, times = play_dfp(player, env, frame, rec)
            # a scheduling instance = the picks made at one clock time (the paper's "scheduling decision")
            instance = pd.Series(times).groupby(trace[0].to_numpy()).sum()
            row = metrics_row(sched, cluster_of(frame), method, workload, decisions=len(times), wall_s=times.sum(),
                              decision_ms_mean=1e3 * times.mean(), decision_ms_max=1e3 * times.max(),
                              instances=len(instance), instance_ms_max=1e3 * instance.max())
            trace.columns = ["clock", *(f"r_{r}" for r in RESOURCES[group])]
            trace.insert(0, "workload", workload)
            if reference:
                record.ref_metrics.append({**row, "reference": reference, "part": record.part})
                record.ref_jobs.append(job_rows(sched, method, workload).assign(reference=reference, jobset=record.part))
                if method == "mrsch":
                    record.ref_goals.append(trace.assign(method=method, reference=reference))
                continue
            rows.append(row)
            per_job.append(job_rows(sched, method, workload))
            if method == "mrsch":
                goals = trace
    return pd.DataFrame(rows), goals, pd.concat(per_job, ignore_index=True)


def _fp_meta(method: str, reference: str, workload: str, group: str, state: str, seed: int) -> dict:
    from schedrl.papers.mrsch.fingerprints import NAMES

    who = NAMES[method] + (f", {reference} reference" if reference else "")
    return {"agent": f"{who} {workload} seed {seed}", "method": method, "reference": reference, "workload": workload,
            "group": group, "state": state, "seed": seed}


def ga_plays(spec: dict) -> list[tuple[str, int, str]]:
    """(method, exhaustive_max, process) of the window optimiser's rows: the GA and the exhaustive
    check under the spec's process, and under ``every_event`` the GA holding its reservation
    (``ga_hold``, diagnostic)."""
    plays = [("ga", 0, process(spec)), ("exhaustive", 16, process(spec))]
    return plays + ([("ga_hold", 0, "hold")] if process(spec) != "hold" else [])


def baseline_rows(spec: dict, frame: pd.DataFrame, workload: str, root=ROOT,
                  record=None) -> tuple[list[dict], list[pd.DataFrame]]:
    """FCFS, the GA, the exhaustive check and scalar RL (when the spec trains it) on ``frame``: metrics
    rows and per-job rows (``record``: scalar RL fingerprinted, with its random and untrained references)."""
    from schedrl.agents.reinforce import ReinforcePolicy
    from schedrl.schedulers.ga import simulate_window_optimiser
    from schedrl.sim import simulate

    cluster = cluster_of(frame)
    group = group_of(workload)
    w, seed = int(spec["window"]), int(spec["seed"])
    rows, per_job = [], []
    t0 = time.perf_counter()
    # FCFS + EASY: the head picker's schedule under either process (tests/test_decision_process.py)
    sched = simulate(frame, cluster, policy="fcfs", backfill="easy")
    rows.append(metrics_row(sched, cluster, "fcfs", workload, wall_s=time.perf_counter() - t0))
    per_job.append(job_rows(sched, "fcfs", workload))
    for method, exhaustive_max, proc in ga_plays(spec):
        t0 = time.perf_counter()
        sched = simulate_window_optimiser(frame, cluster, window=w, seed=seed, exhaustive_max=exhaustive_max,
                                          process=proc)
        rows.append(metrics_row(sched, cluster, method, workload, wall_s=time.perf_counter() - t0,
                                decisions=sched.attrs["sim"]["optimiser_calls"]))
        per_job.append(job_rows(sched, method, workload))
    if not has_scalar(spec):
        return rows, per_job
    policy = ReinforcePolicy.load(scalar_dir(root, group) / "model.zip")
    plays = [("", policy)]
    if record is not None:
        from schedrl.papers.mrsch import fingerprints as fps

        plays += [("random", None), ("untrained", fps.untrained_reinforce(policy, seed))]
    for reference, player in plays:
        rec = None
        if record is not None:
            view = None if player is None else (lambda p=player: fps.fpm.reinforce_view(p))
            label = fps.label_of("scalar_rl", reference)
            rec = record.recorder(label, view, _fp_meta("scalar_rl", reference, workload, group, "mlp", seed), dfp=False)
            record.jobs[label] += len(frame)
        env = make_env(frame, w, **env_kwargs(spec))
        if player is None:
            sched, _, times = play_picker(fps.random_picker([seed, record.part, fps.AGENTS.index("scalar_rl")]),
                                          env, frame, rec)
        else:
            sched, times = play_policy(player, env, frame, rec)
        row = metrics_row(sched, cluster, "scalar_rl", workload, decisions=len(times), wall_s=times.sum(),
                          decision_ms_mean=1e3 * times.mean(), decision_ms_max=1e3 * times.max())
        if reference:
            record.ref_metrics.append({**row, "reference": reference, "part": record.part})
            record.ref_jobs.append(job_rows(sched, "scalar_rl", workload).assign(reference=reference, jobset=record.part))
            continue
        rows.append(row)
        per_job.append(job_rows(sched, "scalar_rl", workload))
    return rows, per_job


def job_rows(schedule: pd.DataFrame, method: str, workload: str) -> pd.DataFrame:
    """Each job's wait (hours) and slowdown in submission order (``job`` 0, 1, ...): the same jobs
    in the same order for every method, so comparisons can be paired job by job."""
    from schedrl import metrics

    s = schedule.sort_values(["submit_time", "job_id"], kind="stable")
    return pd.DataFrame({"workload": workload, "method": method, "job": np.arange(len(s)),
                         "wait_h": metrics.wait_times(s) / 3600.0, "slowdown": metrics.slowdowns(s)})


def read_csv(path) -> pd.DataFrame:
    from schedrl.io import read_result

    return read_result(path)


def seed_metrics(spec: dict, root=ROOT, workloads=None, split: str = "test") -> pd.DataFrame:
    """Every method's metrics on the workloads, with a ``seed`` column: the base seed's evaluation
    (every method) and each extra seed's (MRSch alone)."""
    names = workloads or spec["workloads"]
    return pd.concat([read_csv(eval_dir(root, w, split, _extra(spec, s)) / "metrics.csv").assign(seed=s)
                      for s in seeds(spec) for w in names], ignore_index=True)


def mean_over_seeds(frame: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """One row per ``keys`` (e.g. workload and method): numeric columns averaged over the seeds'
    rows, worst-case times (``*_max``) their maximum, the rest the first row's; ``seeds`` counts
    the rows averaged."""
    rest = [c for c in frame.columns if c not in keys and c != "seed"]
    numeric = set(frame[rest].select_dtypes("number").columns)
    how = {c: ("max" if c.endswith("_max") else "mean") if c in numeric else "first" for c in rest}
    grouped = frame.groupby(keys, sort=False, dropna=False)
    out = grouped.agg(how).reset_index()
    out["seeds"] = grouped.size().to_numpy()
    return out


def all_metrics(spec: dict, root=ROOT, workloads=None, split: str = "test") -> pd.DataFrame:
    """One row per workload and method; MRSch's is the mean over its seeds (``seed_metrics``)."""
    return mean_over_seeds(seed_metrics(spec, root, workloads, split), ["workload", "method"])


def all_goals(spec: dict, root=ROOT, workloads=None) -> pd.DataFrame:
    names = workloads or spec["workloads"]
    return pd.concat([read_csv(eval_dir(root, w) / "goals.csv") for w in names], ignore_index=True)


def kiviat_scores(frame: pd.DataFrame, axes: list[str], scale_by=None) -> pd.DataFrame:
    """Per workload, each axis scaled to [0, 1] with 1 the best method (utilisations as they are,
    wait and slowdown as reciprocals, as the paper's Kiviat charts), and the polygon's area.
    ``scale_by``: the methods whose best is 1 (the others, e.g. diagnostic rows, may pass 1;
    None: every row's)."""
    out = []
    for _wl, part in frame.groupby("workload", sort=False):
        part = part.copy()
        ref = np.ones(len(part), dtype=bool) if scale_by is None else part["method"].isin(list(scale_by)).to_numpy()
        for ax in axes:
            v = part[ax].to_numpy(dtype=float)
            v = 1.0 / np.maximum(v, 1e-12) if ax in ("mean_wait_h", "mean_slowdown") else v
            top = np.nanmax(v[ref]) if ref.any() else np.nan
            part[f"k_{ax}"] = v / top if top > 0 else 0.0
        k = part[[f"k_{ax}" for ax in axes]].to_numpy(dtype=float)
        part["area"] = 0.5 * np.sin(2 * np.pi / len(axes)) * (k * np.roll(k, -1, axis=1)).sum(axis=1)
        out.append(part)
    return pd.concat(out, ignore_index=True)


def improvement(frame: pd.DataFrame, metric: str, baselines=("fcfs", "ga", "scalar_rl")) -> pd.DataFrame:
    """Per workload and baseline, MRSch's relative gain on ``metric`` (positive = better: a higher
    utilisation, a lower wait or slowdown), as a fraction of the baseline's value."""
    rows = []
    lower = metric in ("mean_wait_h", "mean_slowdown")
    for wl, part in frame.groupby("workload", sort=False):
        ours = float(part.loc[part["method"] == "mrsch", metric].iloc[0])
        for b in baselines:
            base = part.loc[part["method"] == b, metric]
            if base.empty or not np.isfinite(base.iloc[0]) or base.iloc[0] == 0:
                continue
            v = float(base.iloc[0])
            rows.append({"workload": wl, "baseline": b, "metric": metric,
                         "gain": (v - ours) / v if lower else (ours - v) / v})
    return pd.DataFrame(rows, columns=["workload", "baseline", "metric", "gain"])


# ---------------------------------------------------------------------------------------------
# the agents at shares of their training (issue 24): batched greedy play of the budget models

def play_dfp_batch(agent, envs: list, frames: list[pd.DataFrame]) -> tuple[list[pd.DataFrame], list[pd.DataFrame]]:
    """Greedy play of one agent on several job tables in lockstep (one forward pass per decision
    round over every episode still running); returns the schedules and goal traces, as ``play_dfp``."""
    obs, infos = map(list, zip(*(e.reset(options={"jobs": f}) for e, f in zip(envs, frames))))
    done, goals = [False] * len(envs), [[] for _ in envs]
    while not all(done):
        live = [i for i, d in enumerate(done) if not d]
        acts = agent.act(np.stack([obs[i].reshape(-1) for i in live]),
                         np.stack([np.asarray(infos[i]["utilization"], dtype=np.float32) for i in live]),
                         np.stack([np.asarray(infos[i]["demand_share"], dtype=np.float32) for i in live]),
                         np.stack([infos[i]["action_mask"] for i in live]))
        for a, i in zip(acts, live):
            goals[i].append([infos[i]["clock"], *np.asarray(infos[i]["demand_share"], dtype=float)])
            obs[i], _, term, trunc, infos[i] = envs[i].step(int(a))
            done[i] = bool(term or trunc)
    return [info["schedule"] for info in infos], [pd.DataFrame(g) for g in goals]


def evaluate_budgets(spec: dict, group: str, root=ROOT, base=WORKLOAD_DIR, threads: int = 1, seed: int | None = None):
    """MRSch (and, for S1-S5, its CNN variant) at each share of training in ``BUDGET_SNAPSHOTS`` on
    every workload of ``group``: the held-out test splits (``split`` "test") and the in-sample real
    training sets (``split`` "train", pooled per workload as ``pool_metrics``), all episodes of one
    model played in lockstep. Returns (metrics with ``fraction`` and ``budget_jobs``, goal traces
    of the MLP agent on the test splits). The whole-training values are the main evaluation's,
    unless ``dfp.select_on_validation`` is on (then the final model is played here too). With an
    extra ``seed``, that seed's MLP agent alone."""
    import torch

    from schedrl.agents.dfp import DFPAgent

    torch.set_num_threads(max(1, threads))
    w = int(spec["window"])
    names = group_workloads(spec, group)
    cases = [("test", wl, test_jobs(spec, wl, base)) for wl in names]
    for wl in insample_workloads(spec, group):
        cases += [("train", wl, f.reset_index(drop=True)) for f in trained_real_sets(spec, wl, base)]
    own = _extra(spec, seed)
    states = agent_states(spec, group, own)
    metrics, goals = [], []
    # with selection on, the main evaluation plays the selected model: the final one is played
    # here too, so that the budget curve's last point stays the whole of training
    for fraction in BUDGET_SNAPSHOTS + ((1.0,) if select_on_validation(spec) else ()):
        extra = {"fraction": fraction, "budget_jobs": budget_sets(spec, fraction) * int(spec["jobs_per_set"])}
        for method, state in states:
            agent = DFPAgent.load(budget_model(root, group, state, fraction, seed=own))
            scheds, traces = play_dfp_batch(agent, [make_env(f, w, **env_kwargs(spec)) for *_, f in cases],
                                            [f for *_, f in cases])
            rows = {"test": [], "train": []}
            for (split, wl, frame), sched, trace in zip(cases, scheds, traces):
                rows[split].append(pd.DataFrame([metrics_row(sched, cluster_of(frame), method, wl, **extra)]))
                if split == "test" and method == "mrsch":
                    trace.columns = ["clock", *(f"r_{r}" for r in RESOURCES[group])]
                    goals.append(trace.assign(workload=wl, fraction=fraction))
            metrics.append(pd.concat(rows["test"], ignore_index=True).assign(split="test"))
            if rows["train"]:
                train = pd.concat(rows["train"], ignore_index=True)
                pooled = pool_metrics([train])  # one row per workload: the mean over its job sets
                pooled["jobsets"] = pooled["workload"].map(train["workload"].value_counts())
                metrics.append(pooled.assign(split="train"))
    return pd.concat(metrics, ignore_index=True), pd.concat(goals, ignore_index=True)



# ---------------------------------------------------------------------------------------------
# model selection on the validation split (issue 25): the paper keeps two weeks after the training
# months "for model validation"; it does not say with what score

#: File names in a DFP run folder written by ``select_model`` (rule mrsch_select).
SELECTED_NAME, VALIDATION_NAME, SELECTION_NAME = "selected.zip", "validation.csv", "selection.json"
#: FCFS waits below this (hours) count as this in the normalisation (a near-empty validation split
#: would otherwise divide by ~0).
WAIT_FLOOR_H = 1.0 / 60.0


def eval_model(spec: dict, root, group: str, state: str, seed: int | None = None) -> Path:
    """The DFP model the test evaluation and the claims use: the checkpoint selected on the
    validation split when ``dfp.select_on_validation`` is on, else the final model (of ``seed``:
    an extra seed, None the base one)."""
    return (dfp_dir(root, group, state, PAPER_ORDERING, check_seed_run(spec, state, PAPER_ORDERING, seed))
            / (SELECTED_NAME if select_on_validation(spec) else "model.zip"))


def val_jobs(spec: dict, workload: str, base=WORKLOAD_DIR) -> pd.DataFrame:
    """``workload``'s validation split (the two weeks after the training months), capped at
    ``eval.max_jobs`` as the test split is."""
    frame = read_part(workload, "val", base)
    m = int(spec["eval"]["max_jobs"])
    return frame.iloc[:m] if m > 0 else frame


def validation_score(table: pd.DataFrame) -> pd.DataFrame:
    """Per checkpoint (``fraction``), the score: the mean over the group's workloads of the mean of
    the wait and the slowdown each divided by FCFS's on the same split (lower is better; 1 = FCFS).
    ``table`` has one row per fraction and workload with ``mean_wait_h``, ``mean_slowdown``,
    ``fcfs_wait_h`` and ``fcfs_slowdown``; returns it with ``wait_norm``, ``slowdown_norm`` and the
    per-fraction ``score`` added."""
    t = table.copy()
    t["wait_norm"] = t["mean_wait_h"] / np.maximum(t["fcfs_wait_h"], WAIT_FLOOR_H)
    t["slowdown_norm"] = t["mean_slowdown"] / np.maximum(t["fcfs_slowdown"], 1.0)
    per = (0.5 * (t["wait_norm"] + t["slowdown_norm"])).groupby(t["fraction"]).mean()
    t["score"] = t["fraction"].map(per)
    return t


def best_fraction(scored: pd.DataFrame) -> float:
    """The checkpoint with the lowest score; a tie goes to the one trained longer."""
    per = scored.groupby("fraction")["score"].first().sort_index()
    best = per.min()
    return float(per.index[np.isclose(per.to_numpy(), best, rtol=1e-12, atol=0.0)].max())


def select_model(spec: dict, group: str, state: str, root=ROOT, base=WORKLOAD_DIR, threads: int = 1,
                 player=None, seed: int | None = None) -> tuple[pd.DataFrame, float]:
    """Play each kept checkpoint of the (group, state) agent on the paper's ordering greedily on the
    group's validation splits (all splits of one model in lockstep, as ``evaluate_budgets``), score
    it (``validation_score``), copy the best to ``selected.zip`` and write ``validation.csv`` and
    ``selection.json`` into the run folder. ``player(agent_path, frames) -> schedules`` replaces the
    play (tests); ``seed``: an extra seed's agent. Returns (the scored table, the selected fraction)."""
    import json
    import shutil

    import torch

    from schedrl.sim import simulate

    extra = check_seed_run(spec, state, PAPER_ORDERING, seed)
    torch.set_num_threads(max(1, threads))
    w = int(spec["window"])
    names = group_workloads(spec, group)
    frames = [val_jobs(spec, wl, base).reset_index(drop=True) for wl in names]
    if player is None:
        from schedrl.agents.dfp import DFPAgent

        def player(path, fs):
            return play_dfp_batch(DFPAgent.load(path), [make_env(f, w, **env_kwargs(spec)) for f in fs], fs)[0]

    fcfs = [metrics_row(simulate(f, cluster_of(f), policy="fcfs", backfill="easy"), cluster_of(f), "fcfs", wl)
            for f, wl in zip(frames, names)]
    rows = []
    for fraction in BUDGET_FRACTIONS:
        path = budget_model(root, group, state, fraction, seed=extra)
        for f, wl, base_row, sched in zip(frames, names, fcfs, player(path, frames)):
            row = metrics_row(sched, cluster_of(f), "mrsch" if state == "mlp" else "mrsch_cnn", wl)
            row.update(checkpoint=budget_name(fraction), fraction=fraction,
                       budget_jobs=budget_sets(spec, fraction) * int(spec["jobs_per_set"]),
                       fcfs_wait_h=base_row["mean_wait_h"], fcfs_slowdown=base_row["mean_slowdown"])
            rows.append(row)
    scored = validation_score(pd.DataFrame(rows))
    best = best_fraction(scored)
    scored["selected"] = np.isclose(scored["fraction"], best)
    run = dfp_dir(root, group, state, PAPER_ORDERING, extra)
    from schedrl.io import write_csv

    cols = ["checkpoint", "fraction", "budget_jobs", "workload", "method", "jobs", "node_util", "bb_util", "power_util",
            "mean_wait_h", "mean_slowdown", "fcfs_wait_h", "fcfs_slowdown", "wait_norm", "slowdown_norm", "score",
            "selected"]
    write_csv(run / VALIDATION_NAME, scored[cols], float_format="%.6g")
    shutil.copyfile(budget_model(root, group, state, best, seed=extra), run / SELECTED_NAME)
    (run / SELECTION_NAME).write_text(json.dumps(
        {"fraction": best, "checkpoint": budget_name(best), "score": float(scored.loc[scored["selected"], "score"].iloc[0]),
         "score_rule": "mean over the group's validation splits of (wait / FCFS wait + slowdown / FCFS slowdown) / 2",
         "workloads": names}, indent=2) + "\n")
    return scored, best


def selected_fraction(root, group: str, state: str, seed: int | None = None) -> float | None:
    """The share of training of the model ``select_model`` chose for (group, state) and ``seed``
    (an extra seed; None: the base one), or None."""
    import json

    path = dfp_dir(root, group, state, PAPER_ORDERING, seed) / SELECTION_NAME
    return float(json.loads(path.read_text())["fraction"]) if path.is_file() else None
