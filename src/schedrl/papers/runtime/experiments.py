"""What the runtime paper runs.

Table 4: classic heuristics on its 12 Lublin workload halves. The workloads (WL1/WL2 x walltime
accuracy 100% / 50% / random x halves a/b) come from the workload rule
(``results/workloads/runtime/<name>.swf``); each is simulated with the core's
``schedrl heuristics run`` under the paper's four algorithms, in the paper's time-stepped
simulator (Sim_Step seconds per tick) on N_nodes nodes.

Tables 5-6: SB3 PPO (``ppo.yaml`` variant ``runtime``) in ``schedrl/HPCTimeStepped-v0`` (brief
4.1-4.4) for three methods (``METHODS``), trained on each "a" half with the actual runtime as the
estimate and idle-step doubling; each hyperparameter combination of ``agents.grid`` (Table 3 at
paper scale, one fixed choice below) is one run folder. ``evaluate`` plays a trained model,
sampling its actions as PPO does, ``episodes`` times on its own "a" half (Table 5) and on every
"b" half (Table 6), without idle doubling, with the perfect oracle as the estimate (the paper
does not name its predictor), plus the sensitivity estimators on the same-tendency "b" half.
Table 5/6 take, per method and training half, the grid point with the best mean utilisation on
its own half (the paper's tuning rule).

Imports flow one way (A -> B: B imports A): recording -> experiments -> (references, tables,
intervals, claims, budget, figures); nothing here imports those above it.
"""

from __future__ import annotations

import inspect
import itertools
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from schedrl.config import run_spec_json
from schedrl.errors import ConfigError
from schedrl.papers import paper_values
from schedrl.report.budget import SLOWER_KIND

if TYPE_CHECKING:
    import pandas as pd

    from schedrl.papers.runtime.recording import LockstepRecorder

PAPER = "runtime"
VALUES = paper_values(PAPER)
#: Table 4's columns (POLICY:BACKFILL), in the paper's order.
ALGORITHMS: list[str] = list(VALUES["table4"]["columns"])
#: The 12 workload halves, in Table 4's row order within each half.
WORKLOADS: list[str] = [f"{wl}_{wra}{half}" for half in ("a", "b") for wl in ("wl1", "wl2")
                        for wra in ("100", "050", "rnd")]
TRAIN_WORKLOADS = [w for w in WORKLOADS if w.endswith("a")]
TEST_WORKLOADS = [w for w in WORKLOADS if w.endswith("b")]
HEURISTICS_DIR = "results/runtime/heuristics"
ROOT = "results/runtime"

ENV_ID = "schedrl.envs:schedrl/HPCTimeStepped-v0"  # module prefix: SubprocVecEnv workers register it too
ALGO = "ppo"
HYPERPARAMS_VARIANT = "runtime"
NN1, NN2 = [1024, 512, 256], [2048, 512, 256]
#: method -> (encoder, hidden layers of actor and critic), Table 5/6 column order
METHODS: dict[str, tuple[str, list[int]]] = {
    "baseline": ("runtime_baseline", NN1),
    "proposal_nn1": ("runtime_proposal", NN1),
    "proposal_nn2": ("runtime_proposal", NN2),
}
LABELS = {"baseline": "Baseline", "proposal_nn1": "Proposal (NN1)", "proposal_nn2": "Proposal (NN2)"}
ESTIMATORS = ("actual", "running_accuracy", "request")
GRID_KEYS = {"n_steps": "T", "batch_size": "M", "n_epochs": "K"}
#: A run folder's successive-halving outcome (``halving.py``; absent for the full grid)
HALVING_FILE = "halving.json"


def pruned_at(run: str | Path) -> int | None:
    """The steps where successive halving stopped ``run`` (``HALVING_FILE``); None for a run trained
    to the end or outside halving."""
    return halving_outcome(run).get("pruned_at")


def halving_outcome(run: str | Path) -> dict[str, int | None]:
    """The columns a run's final evaluation rows carry from ``HALVING_FILE``: ``pruned_at`` and, for
    a check run (``agents.halving.check``: every point trained to the end), ``would_prune_at`` (where
    halving would have stopped it; None: it would have reached the end). Empty outside halving."""
    from schedrl.io import read_json

    path = Path(run) / HALVING_FILE
    if not path.exists():
        return {}
    found = read_json(path)
    return {k: None if found[k] is None else int(found[k]) for k in ("pruned_at", "would_prune_at") if k in found}


def draw_dir(draw: int | str = 0) -> str:
    """Folder prefix of Lublin draw ``draw``: none for draw 0 (the config seed), ``draw<k>/`` for
    draw k (seed + k), so draw 0 keeps the files Table 4 has always read."""
    return f"draw{int(draw)}/" if int(draw) else ""


def heuristics_file(workload: str, draw: int | str = 0) -> str:
    """Metrics of the four algorithms on one workload (``schedrl heuristics run --out``)."""
    return f"{HEURISTICS_DIR}/{draw_dir(draw)}{workload}.csv"


#: heuristics under the agent's own action set (issue 38; ``recording.FitPicker``)
FIT_ALGORITHMS = ["fcfs_fit", "sjf_fit", "largest_fit"]
FIT_LABELS = {"fcfs_fit": "FCFS first fit", "sjf_fit": "SJF first fit", "largest_fit": "largest first fit"}


def fit_file(draw: int | str = 0) -> str:
    """Utilisation of ``FIT_ALGORITHMS`` on every half of one Lublin draw (``schedrl runtime fit-heuristics``)."""
    return f"{HEURISTICS_DIR}/{draw_dir(draw)}fit.csv"


def play_fit_heuristics(spec: dict, draw: int = 0):
    """Each of ``FIT_ALGORITHMS`` on every workload half of ``draw``, played through the evaluation
    env (no idle doubling, no step cap, oracle estimates) with the agent's action set: any job of
    the window that fits now, or X. Deterministic: one episode per half. Rows: workload, draw,
    algorithm, label, utilization, steps."""
    import pandas as pd

    from schedrl.experiments.envs import make_env
    from schedrl.metrics import runtime_utilization
    from schedrl.papers.runtime.recording import FitPicker

    rows = []
    for algorithm in FIT_ALGORITHMS:
        envs = [make_env(ENV_ID, env_kwargs(spec, "runtime_baseline", w, training=False, draw=draw)) for w in WORKLOADS]
        played = play_lockstep(envs, FitPicker(envs, algorithm), [0] * len(envs), True)
        for w, env, episode in zip(WORKLOADS, envs, played, strict=True):
            rows.append({"workload": w, "draw": int(draw), "algorithm": algorithm, "label": FIT_LABELS[algorithm],
                         "utilization": runtime_utilization(episode["schedule"], env.unwrapped.cluster.nodes),
                         "steps": int(episode["length"])})
            env.close()
    return pd.DataFrame(rows)


def workload_file(workload: str, draw: int | str = 0) -> str:
    return f"results/workloads/runtime/{draw_dir(draw)}{workload}.swf"


def draws(spec: dict) -> list[int]:
    """The Lublin draws the agents train and play on (``agents.draws``, default ``[0]``)."""
    return [int(d) for d in spec.get("agents", {}).get("draws", [0])]


def replicate(draw: int | str, seed: int | str) -> str:
    """Run folder name of one agent seed on one draw: ``seed0`` (draw 0), ``draw1-seed0``."""
    return f"draw{int(draw)}-seed{seed}" if int(draw) else f"seed{seed}"


def parse_replicate(text: str) -> tuple[int, int]:
    """``draw1-seed0`` -> (1, 0); ``seed3`` -> (0, 3)."""
    import re

    m = re.fullmatch(r"(?:draw([1-9]\d*)-)?seed(\d+)", text)
    if not m:
        raise ConfigError(f"bad run folder name '{text}' (expected seed<k> or draw<d>-seed<k>)")
    return int(m.group(1) or 0), int(m.group(2))


#: what the study (``schedrl tune runtime``) never reads, pinned in its rule's spec (``config.study_spec_json``):
#: the runs' seeds and Lublin draws (a trial trains on draw 0 and validates on ``tune.validation_draws``)
STUDY_PINS = {"agents.seeds": [0], "agents.draws": [0]}


def run_spec(spec: dict, rep: str | None = None) -> str:
    """``--spec`` of a rule over one run folder ``rep`` (``seed<k>`` or ``draw<d>-seed<k>``;
    ``run_spec_json``): ``agents.seeds`` and ``agents.draws`` narrowed to the run's seed and draw
    (``evaluate.budget_draws``, which no rule over one run reads, to the draw too, so the spec stays
    valid), the study left out, so adding a seed or a draw neither retrains nor re-evaluates the runs
    there are. ``rep`` None (a rule over no run) gets the first seed and draw."""
    draw, seed = ((draws(spec)[0], int(spec["agents"]["seeds"][0])) if rep is None else parse_replicate(rep))
    agents = {**spec["agents"], "seeds": [seed]}
    if "draws" in agents or draw != 0:
        agents["draws"] = [draw]
    evaluate = {**spec["evaluate"]}
    if "budget_draws" in evaluate:
        evaluate["budget_draws"] = [draw]
    return run_spec_json(spec, leave_out=("tune",), agents=agents, evaluate=evaluate)


def same_tendency(train: str) -> str:
    """The "b" half with the training half's workload and accuracy (``wl1_100a`` -> ``wl1_100b``)."""
    return train[:-1] + "b"


# -- spec -------------------------------------------------------------------------------------
def load_spec(text: str, agents: bool = False) -> dict:
    """The ``runtime`` config section from JSON text or a config YAML file, schema- and cross-checked;
    ``agents``: it must configure the PPO agents (Tables 5-6)."""
    from schedrl.config import load_section

    spec = check_spec(load_section(text, PAPER))
    if agents and "agents" not in spec:
        raise ConfigError("runtime spec has no 'agents' section (Tables 5-6 need runtime.agents, env and evaluate)")
    return spec


def check_spec(spec: dict) -> dict:
    """Cross-key checks the JSON schema cannot express; ConfigError names the key. A spec with
    ``agents`` (Tables 5-6) needs ``env`` and ``evaluate`` too; without, only Table 4 runs."""
    agents = spec.get("agents")
    if agents is None:
        return spec
    for key in ("env", "evaluate"):
        if key not in spec:
            raise ConfigError(f"runtime.{key} is required with runtime.agents")
    for key, values, known, what in (("agents.methods", agents["methods"], METHODS, "unknown method"),
                                     ("agents.workloads", agents["workloads"], TRAIN_WORKLOADS, "not a training half"),
                                     ("evaluate.estimators", spec["evaluate"]["estimators"], ESTIMATORS,
                                      "unknown estimator")):
        for v in values:
            if v not in known:
                raise ConfigError(f"runtime.{key}: '{v}' is {what} (choose from: {', '.join(known)})")
    halving_settings(spec)  # eta and rungs checked against the budget checkpoints
    if spec["evaluate"]["estimators"][0] != "actual":
        raise ConfigError("runtime.evaluate.estimators must start with 'actual' (the tables' oracle)")
    for d in spec["evaluate"].get("budget_draws", []):
        if int(d) not in draws(spec):
            raise ConfigError(f"runtime.evaluate.budget_draws: draw {d} is not one of agents.draws {draws(spec)}")
    return spec


#: Successive halving's first rung must reach the first budget checkpoint (1/8 of training), so every
#: run's ``evaluation_budget.csv`` has rows: eta ** (rungs - 1) <= 8 (``halving.py``).
HALVING_MAX_SPREAD = 8


def halving_settings(spec: dict) -> tuple[int, int] | None:
    """``(eta, rungs)`` of ``agents.halving`` (defaults 2 and 4), or None: the full grid (the paper's)."""
    h = spec.get("agents", {}).get("halving")
    if h is None:
        return None
    eta, rungs = int(h.get("eta", 2)), int(h.get("rungs", 4))
    if eta < 2 or rungs < 2:
        raise ConfigError(f"runtime.agents.halving: eta {eta} and rungs {rungs} must each be >= 2")
    if eta ** (rungs - 1) > HALVING_MAX_SPREAD:
        raise ConfigError(f"runtime.agents.halving: the first rung at 1/{eta ** (rungs - 1)} of training is before "
                          f"the first budget checkpoint (1/8): choose eta ** (rungs - 1) <= {HALVING_MAX_SPREAD}")
    return eta, rungs


def halving_check(spec: dict) -> bool:
    """``agents.halving.check``: every grid point trains to the end (the full grid's cost) while the
    rungs still record what halving would have kept, so one run measures what halving changes."""
    return halving_settings(spec) is not None and bool(spec["agents"]["halving"].get("check", False))


def grid_points(spec: dict) -> list[dict]:
    """Every (n_steps, batch_size, n_epochs) of ``agents.grid`` (Table 3), in a fixed order."""
    grid = spec["agents"]["grid"]
    return [dict(zip(GRID_KEYS, values, strict=True)) for values in itertools.product(*(grid[k] for k in GRID_KEYS))]


def grid_id(point: dict) -> str:
    """``T512-M512-K4``: a grid point as a folder name."""
    return "-".join(f"{GRID_KEYS[k]}{point[k]}" for k in GRID_KEYS)


def parse_grid_id(text: str) -> dict:
    """``T512-M512-K4`` -> ``{"n_steps": 512, "batch_size": 512, "n_epochs": 4}``."""
    parts = text.split("-")
    if len(parts) != len(GRID_KEYS) or any(not p.startswith(GRID_KEYS[k]) or not p[1:].isdigit()
                                           for p, k in zip(parts, GRID_KEYS)):
        raise ConfigError(f"bad grid id '{text}' (expected e.g. T512-M512-K4)")
    return {k: int(p[1:]) for p, k in zip(parts, GRID_KEYS)}


# -- runs -------------------------------------------------------------------------------------
def env_kwargs(spec: dict, encoder: str, workload: str, *, training: bool, estimator: str = "actual",
               draw: int = 0) -> dict:
    """Keyword arguments of ``schedrl/HPCTimeStepped-v0`` for one workload half.

    ``time_scale`` is fixed (Lublin's longest walltime, Table 1) so one model reads every half
    on the same scale. Training doubles idle steps (brief 4.1) and caps episodes at
    Max_Episode_Steps; evaluation does neither doubling nor the cap (``evaluate.max_steps``). A doubled
    step stops at the next arrival or job end unless ``env.idle_overshoot`` (issue 38); ``env.reward``
    (default the paper's ``runtime_final``) picks the training reward; ``env.mask_unfit`` (beyond the
    paper, a tuning remedy) masks the waiting jobs that do not fit now (MaskablePPO only reads it)."""
    env = spec["env"]
    return {"jobs": workload_file(workload, draw), "cluster": int(spec.get("nodes", 256)), "encoder": encoder,
            "reward": str(env.get("reward", "runtime_final")), "window": int(env["jobs_window"]),
            "sim_step": float(env["sim_step"]), "double_idle": bool(training),
            "idle_overshoot": bool(env.get("idle_overshoot", False)), "time_scale": float(env["time_scale"]),
            "max_steps": int(env["max_steps"] if training else spec["evaluate"]["max_steps"]),
            "estimator": estimator, **({"mask_unfit": True} if env.get("mask_unfit") else {})}


ACTOR_CRITIC = ("shared", "separate")


def hyperparams(method: str, grid: str, actor_critic: str = "shared", extra: dict | None = None) -> dict:
    """``ppo.yaml`` variant ``runtime`` with the method's network and the grid point.

    ``extra`` (``agents.hyperparams``: a tuned recipe, beyond the paper): PPO values over the
    variant's, and ``net``, the hidden layers in place of the method's.

    ``actor_critic``: ``shared`` (default): the hidden layers are one trunk for the policy and the
    value heads, as SB3 1.0 (the paper's library) built a plain ``net_arch=[1024, 512, 256]``;
    ``separate``: actor and critic each get their own copy (SB3 2.x's reading of the same list)."""
    from schedrl.agents.hyperparams import load_hyperparams

    if actor_critic not in ACTOR_CRITIC:
        raise ConfigError(f"runtime.agents.actor_critic: '{actor_critic}' (choose from: {', '.join(ACTOR_CRITIC)})")
    extra = dict(extra or {})
    net = [int(n) for n in extra.pop("net", METHODS[method][1])]
    layers = {"shared_net": net} if actor_critic == "shared" else {"net_arch": {"pi": net, "vf": net}}
    overrides = {**extra, **parse_grid_id(grid), "policy_kwargs": {**layers, "activation_fn": "tanh"}}
    return load_hyperparams(ALGO, HYPERPARAMS_VARIANT, overrides=overrides)


def run_hyperparams(spec: dict, method: str, grid: str) -> dict:
    """The hyperparameters a run of ``spec`` trains with (``hyperparams`` with the spec's choices)."""
    agents = spec["agents"]
    return hyperparams(method, grid, agents.get("actor_critic", "shared"), agents.get("hyperparams"))


def run_dir(root: str | Path, method: str, workload: str, grid: str, seed: int | str, draw: int | str = 0) -> Path:
    return Path(root) / "agents" / str(method) / str(workload) / str(grid) / replicate(draw, seed)


def eval_path(run: str | Path) -> Path:
    return Path(run) / "evaluation.csv"


def runs(spec: dict, root: str | Path = ROOT) -> list[tuple[str, str, str, int, int, Path]]:
    """(method, workload, grid id, seed, draw, run folder) of every training run."""
    a = spec["agents"]
    return [(m, w, grid_id(g), s, d, run_dir(root, m, w, grid_id(g), s, d))
            for m in a["methods"] for w in a["workloads"] for g in grid_points(spec) for d in draws(spec)
            for s in a["seeds"]]


def evaluation_files(spec: dict, root: str | Path = ROOT) -> list[str]:
    return [str(eval_path(r[-1])) for r in runs(spec, root)]


def curve_files(spec: dict, root: str | Path = ROOT) -> list[str]:
    return [str(Path(r[-1]) / "learning_curve.csv") for r in runs(spec, root)]


def timing_files(spec: dict, root: str | Path = ROOT) -> list[str]:
    return [str(Path(r[-1]) / "timing.json") for r in runs(spec, root)]


def train(spec: dict, method: str, workload: str, grid: str, seed: int, run: str | Path,
          threads: int = 1, checkpoint_every: int | None = None, draw: int = 0, stop_at: int | None = None):
    """Train one PPO agent (method x training half x grid point x seed) into ``run``; ``stop_at``:
    pause there (``schedrl.experiments.train.train``; successive halving's rungs)."""
    from schedrl.experiments.train import train as train_sb3

    if method not in METHODS:
        raise ConfigError(f"unknown method '{method}' (choose from: {', '.join(METHODS)})")
    if workload not in TRAIN_WORKLOADS:
        raise ConfigError(f"'{workload}' is not a training half ({', '.join(TRAIN_WORKLOADS)})")
    kwargs = env_kwargs(spec, METHODS[method][0], workload, training=True, draw=draw)
    steps = int(spec["agents"]["steps"])
    every = checkpoint_every or spec["agents"].get("checkpoint_every") or max(1, steps // 8)
    algo = str(spec["agents"].get("algo", ALGO))  # maskable_ppo: beyond the paper (issue 38)
    return train_sb3(ENV_ID, kwargs, algo, run_hyperparams(spec, method, grid),
                     steps, int(seed), run, variant=run_variant(method, workload, grid, draw), threads=threads,
                     checkpoint_every=every, on_mismatch="restart", keep_steps=budget_steps(steps), stop_at=stop_at)


def budget_steps(steps: int) -> list[int]:
    """Training steps of the budget checkpoints before the end (1/8, 1/4, 1/2 of ``steps``)."""
    from schedrl.protocol import BUDGET_FRACTIONS

    return [max(1, int(round(f * steps))) for f in BUDGET_FRACTIONS if f < 1]


def play_lockstep(envs: list, model, seeds: list[int], deterministic: bool, recorder=None) -> list[dict]:
    """Play one episode in each env at once (env k reset with ``seeds[k]``), one batched forward
    pass per step: the per-call overhead of ``model.predict`` dominates a single 800-input
    observation. ``model``: anything with SB3's ``predict(obs, deterministic=...)``, or a callable
    ``(obs batch, env indices) -> actions`` (the references' random player). ``recorder``: a
    ``recording.LockstepRecorder`` that sees every decision (the behaviour fingerprint). Returns
    per episode: seed, reward, length, truncated, the final info's schedule."""
    obs = np.stack([env.reset(seed=int(seed))[0] for env, seed in zip(envs, seeds, strict=True)])
    live = list(range(len(envs)))
    out = [{"seed": int(seed), "reward": 0.0, "length": 0} for seed in seeds]
    masked = hasattr(model, "predict") and "action_masks" in inspect.signature(model.predict).parameters
    while live:
        if masked:  # MaskablePPO: only the valid actions
            masks = np.stack([envs[k].unwrapped.action_masks() for k in live])
            actions, _ = model.predict(obs[live], deterministic=deterministic, action_masks=masks)
        elif hasattr(model, "predict"):
            actions, _ = model.predict(obs[live], deterministic=deterministic)
        else:
            actions = model(obs[live], live)
        still = []
        for k, action in zip(live, np.asarray(actions).reshape(-1)):
            if recorder is not None:  # before the step: the mask and window the action was chosen on
                recorder.record(k, obs[k], int(action))
            o, r, term, trunc, info = envs[k].step(int(action))
            obs[k] = o
            out[k]["reward"] += float(r)
            out[k]["length"] += 1
            if term or trunc:
                out[k]["truncated"] = bool(trunc)
                out[k]["schedule"] = info["schedule"]
            else:
                still.append(k)
        live = still
    return out


def evaluate(run: str | Path, spec: dict, out: str | Path | None, threads: int = 1, *,
             model_file: str | Path | None = None, estimators: bool = True, episodes: int | None = None,
             cases: list[tuple[str, str]] | None = None):
    """Play a trained run on its own "a" half and every "b" half (oracle estimates), and on the
    same-tendency "b" half under each other estimator; write one row per episode to ``out`` (none:
    only return it) and, beside it, the agent's behaviour fingerprint (``fingerprint.json``, from
    every decision of these episodes). ``model_file``: a checkpoint instead of the final model
    (``budget.py``); ``estimators``: False plays the oracle cases only; ``episodes``: the first that
    many of the spec's episodes per case (same seeds), default all; ``cases``: these (test half,
    estimator) pairs instead (``run_cases``). A run that successive halving stopped early
    (``HALVING_FILE``) has its ``pruned_at`` steps on every row of its final model, so ``best_grid``
    passes it over."""
    import torch

    from schedrl.experiments.evaluate import load_run

    torch.set_num_threads(max(1, int(threads)))
    model, config = load_run(run, model_file=model_file)
    parts = config["variant"].split("/")
    method, train, grid = parts[1:4]
    draw = int(parts[4][4:]) if len(parts) > 4 else 0
    table, recorder = play_cases(spec, method, train, grid, draw, int(config["seed"]), model,
                                 estimators=estimators, episodes=episodes, record=out is not None,
                                 env_id=config["env_id"], cases=cases)
    if model_file is None:  # a checkpoint's rows stand for its own budget
        for column, value in halving_outcome(run).items():
            table[column] = value
    if out is not None:
        from schedrl.experiments.fingerprint import sb3_view

        _write_table(table, out)
        write_agent_fingerprint(Path(out).parent / "fingerprint.json", recorder, sb3_view(model), "trained",
                                spec, method, train, grid, int(config["seed"]), draw, table)
    return table


def agent_label(kind: str, method: str, train: str, grid: str, seed: int, draw: int) -> str:
    """E.g. "PPO Proposal (NN1) wl1_100a T512-M512-K4 draw 0 seed 0"; a method outside ``LABELS``
    (the random reference's ``any``) is left out, ``ALL_HALVES`` reads "all halves"."""
    name = LABELS.get(method)
    who = {"trained": f"PPO {name}", "untrained": f"untrained {name}",
           "random": f"random valid (in place of {name})" if name else "random valid",
           "uniform": f"uniform over all actions (in place of {name})" if name else "uniform over all actions"}[kind]
    where = "all halves" if train == ALL_HALVES else train
    return f"{who} {where} {grid} draw {int(draw)} seed {int(seed)}"


def write_agent_fingerprint(path: str | Path, recorder: LockstepRecorder, view, kind: str, spec: dict, method: str,
                            train: str, grid: str, seed: int, draw: int, table) -> dict:
    """``fingerprint.json`` of one evaluated agent (trained or a reference) beside its evaluation."""
    from schedrl.experiments.fingerprint import fingerprint, write_fingerprint

    fp = fingerprint(recorder.decisions(), view)
    sampled = not bool(spec["evaluate"]["deterministic"])
    actions = ("uniform among the valid actions" if kind == "random"
               else "uniform over all actions, valid or not" if kind == "uniform"
               else "sampled from the policy" if sampled else "the policy's most probable action")
    write_fingerprint(path, fp, agent=agent_label(kind, method, train, grid, seed, draw), kind=kind, method=method,
                      train=train, grid=grid, draw=int(draw), seed=int(seed), episodes=int(len(table)),
                      cases=int(table.groupby(["test", "estimator"]).ngroups), actions=actions,
                      recorded_share=recorder.share, scored=len(recorder.kept),
                      empty_slot_share=recorder.empty_picks / max(len(recorder.shared.actions), 1))
    return fp


#: ``train`` label of a play over every training half at once (the no-learning references)
ALL_HALVES = "all"


def run_cases(spec: dict, method: str, train: str, estimators: bool = True) -> list[tuple[str, str]]:
    """(test half, estimator) cases of a run's evaluation: its own half and every "b" half under
    the oracle, then (proposal methods) the same-tendency "b" half under each other estimator."""
    cases = [(train, "actual")] + [(t, "actual") for t in TEST_WORKLOADS]
    if METHODS[method][0] == "runtime_proposal" and estimators:  # the baseline reads no estimate
        cases += [(same_tendency(train), e) for e in spec["evaluate"]["estimators"][1:]]
    return cases


def play_cases(spec: dict, method: str, train: str, grid: str, draw: int, run_seed: int, player, *,
               estimators: bool = True, episodes: int | None = None, record: bool = False,
               env_id: str = ENV_ID, cases: list[tuple[str, str]] | None = None, who: str | None = None):
    """The evaluation protocol of ``evaluate`` for any player: an SB3 model (sampling as
    ``evaluate.deterministic`` says), ``"random"`` (uniform among each state's valid actions,
    seeded by the identity method x train x grid x draw x seed), ``"uniform"`` (uniform over every
    action, valid or not; seeded the same way) or a heuristic under the agent's
    action set (``fcfs_fit``, ``sjf_fit``, ``largest_fit``: ``recording.FitPicker``). ``cases``:
    (test half, estimator) pairs to play instead of the run's (``run_cases``); ``train`` then
    only labels the rows and the identity (the references' shared plays pass ``ALL_HALVES``);
    ``who``: the identity's name in place of ``method`` (whose encoder is still the one played).
    Returns the per-episode table and, with ``record``, the ``recording.LockstepRecorder`` of
    every decision (else None)."""
    import pandas as pd
    import torch

    from schedrl.experiments.envs import make_env
    from schedrl.metrics import runtime_utilization
    from schedrl.papers.runtime.recording import (
        FIT_PICKERS,
        FitPicker,
        LockstepRecorder,
        RandomValid,
        UniformAll,
    )

    encoder = METHODS[method][0]
    ev = spec["evaluate"]
    cases = run_cases(spec, method, train, estimators) if cases is None else list(cases)
    # every case's episodes in one lockstep batch (seeded once: the batch is fixed by the spec)
    torch.manual_seed(int(ev["seed"]))
    played_episodes = range(int(ev["episodes"]) if episodes is None else min(int(episodes), int(ev["episodes"])))
    labels = [(test, estimator, k) for test, estimator in cases for k in played_episodes]
    envs = [make_env(env_id, env_kwargs(spec, encoder, test, training=False, estimator=estimator, draw=draw))
            for test, estimator, _ in labels]
    nodes = envs[0].unwrapped.cluster.nodes
    identity = (int(ev["seed"]), who or method, train, grid, int(draw), int(run_seed))
    recorder = (LockstepRecorder(envs, identity, share=float(ev.get("fingerprint_share", 1.0)))
                if record else None)
    if isinstance(player, str):
        if player not in ("random", "uniform", *FIT_PICKERS):
            raise ConfigError(f"unknown player '{player}' (an SB3 model, 'random', 'uniform' or one of "
                              f"{', '.join(FIT_PICKERS)})")
        player = ({"random": RandomValid, "uniform": UniformAll}[player](envs, identity)
                  if player in ("random", "uniform") else FitPicker(envs, player))
    played = play_lockstep(envs, player, [int(ev["seed"]) + k for *_, k in labels], bool(ev["deterministic"]),
                           recorder=recorder)
    rows = []
    for (test, estimator, k), episode in zip(labels, played, strict=True):
        sched = episode.pop("schedule")
        rows.append({"test": test, "estimator": estimator, "episode": k, **episode,
                     "utilization": runtime_utilization(sched, nodes),
                     "scheduled": float(sched["start_time"].notna().mean())})
    for env in envs:
        env.close()
    table = pd.DataFrame(rows)
    for key, value in (("draw", draw), ("run_seed", int(run_seed)), ("grid", grid),
                       ("train", train), ("method", method)):
        table.insert(0, key, value)
    return table, recorder


def _write_table(table, out: str | Path) -> None:
    from schedrl.io import atomic_path

    with atomic_path(out) as tmp:
        table.to_csv(tmp, index=False)


def run_variant(method: str, workload: str, grid: str, draw: int = 0) -> str:
    """The run's ``variant`` label in config.json (read back by ``evaluate``); ``/draw<k>`` for k > 0."""
    return f"{HYPERPARAMS_VARIANT}/{method}/{workload}/{grid}" + (f"/draw{int(draw)}" if int(draw) else "")


#: Cost of the default run's rules, exact: each rule's wall time in the run started 2026-11-27
#: (226 rules, two at a time on the 2-core machine, nothing else running), whose sum (20,432 s) is the
#: exact CPU time that ``scripts/timed_run.py`` measured for the whole run (20,411 s); Snakemake's
#: benchmark files had said 0.76 of it (they sample a rule's CPU every 30 s after its first 15 s, so
#: a 40-s evaluation reads ~15 s). Rates include each rule's start-up (imports, workloads, envs).
#: Training: steps per CPU second of a 320k-step PPO run (8 DummyVecEnv copies, T 512 / M 512 / K 4):
#: 204 s baseline, 240 s NN1, 365 s NN2. The networks' forward and backward passes dominate: a
#: 512-sample minibatch runs at 125-146 GFLOPS on one core (benchmarks/bench_runtime_env.py).
TRAIN_STEPS_PER_S = {"baseline": 1570.0, "proposal_nn1": 1330.0, "proposal_nn2": 877.0}
#: Those rates are at K 4 epochs. A step costs its rollout (the env and the policy's forward, the same
#: at every grid point) plus K epochs of the update per sample, so a grid point of K epochs costs
#: ``1 - f + f K / 4`` times the K 4 step, f the update's share of it at T 512, M 512, K 4 below
#: (``benchmarks/bench_runtime_update.py``, 2026-12-05, the slower kind, one thread beside a niced run:
#: rollout 0.23 / 0.29 / 0.41 ms a step, update 0.087 / 0.108 / 0.191 ms a sample-epoch). Table 3's K 8
#: and 10 cost more: its grid's mean K of 7.33 is x1.50-1.54 a step (until 2026-12-05 every point was
#: priced at K 4, so the paper scale's plan counted two thirds of runtime's training). The minibatch M
#: moves the update's cost per sample-epoch by 0.91-1.05x over Table 3's 512-8192 (same run), so it is
#: not priced. On the faster kind the update's wider products may make f smaller: an upper bound there.
UPDATE_SHARE_K4 = {"baseline": 0.60, "proposal_nn1": 0.60, "proposal_nn2": 0.65}
#: Final evaluation (all of an agent's episodes in one lockstep batch): 42 / 56 / 69 s for 35 / 45 /
#: 45 episodes; the budget checkpoints (three models per rule): 72 / 88 / 109 s for 63 episodes.
EVAL_STEPS_PER_S = {"baseline": 4060.0, "proposal_nn1": 3910.0, "proposal_nn2": 3180.0}
BUDGET_STEPS_PER_S = {"baseline": 4080.0, "proposal_nn1": 3340.0, "proposal_nn2": 2710.0}
#: Random play reads no network: 33 s for 35 baseline-case episodes (its episodes run ~5,300 steps).
RANDOM_STEPS_PER_S = 5590.0
#: The machines differ: sessions get one of two kinds, and the rates above are the faster kind's
#: (AVX-512). On the other, an AMD EPYC at 2.45 GHz with AVX2 only (2026-11-27; 66 GFLOPS for a
#: 512 x 1024 x 1024 matmul on one thread), the run of that day took 1.36-1.42x these rates' CPU
#: for training and 1.3-1.4x for evaluation (15 trainings and 3 evaluations before it was stopped:
#: 212 / 245 / 388 s per baseline / NN1 / NN2 run at 240k steps). The default run has to finish
#: inside one 3-hour session on 2 cores on either kind, so it is sized by this factor. The default
#: run at 100k steps then measured 5.06 core-hours exact there (2026-11-27; evaluation and checkpoint
#: plays ~1.9x these rates, training ~1.4x) where these rates said 2.8 + ~0.1 for Table 4 and the
#: figures: 1.75x in all, the factor now.
SLOWER_MACHINE = (SLOWER_KIND, 1.75)
#: The parts of ``estimate_core_hours`` that add up to the run's core-hours (the rest are counts).
COST_PARTS = ('train', 'evaluate', 'budget', 'references')
#: Mean steps of an evaluation episode on a 1000-job half (4,919 final, 4,687 checkpoints; 2026-11-26).
EVAL_STEPS_PER_EPISODE = 4900
RANDOM_STEPS_PER_EPISODE = 5300


def budget_draws(spec: dict) -> list[int]:
    """Lublin draws whose runs play the budget checkpoints: ``evaluate.budget_draws`` (default all)."""
    chosen = spec["evaluate"].get("budget_draws")
    return draws(spec) if chosen is None else [d for d in draws(spec) if d in {int(x) for x in chosen}]


def budget_episodes(spec: dict) -> int:
    """Episodes per case a budget checkpoint plays: the first ``evaluate.budget_episodes`` of the
    final evaluation's (same seeds; default all of them)."""
    ev = spec["evaluate"]
    return min(int(ev.get("budget_episodes", ev["episodes"])), int(ev["episodes"]))


def epochs_factor(method: str, epochs: int) -> float:
    """A training step's cost at ``epochs`` update epochs over the rate's K 4 (``UPDATE_SHARE_K4``)."""
    share = UPDATE_SHARE_K4[method]
    return 1.0 - share + share * epochs / 4


def estimate_core_hours(spec: dict) -> dict:
    """Core-hours of the spec's PPO runs, their evaluations, budget checkpoints and no-learning
    references by the measured rates above (each a group play: ``references.group_cases``)."""
    agents, ev = spec["agents"], spec["evaluate"]
    per_draw = len(grid_points(spec)) * len(agents["workloads"]) * len(agents["seeds"])
    per_method = per_draw * len(draws(spec))
    per_point = len(agents["workloads"]) * len(agents["seeds"]) * len(draws(spec))
    train = sum(per_point * int(agents["steps"]) / TRAIN_STEPS_PER_S[m] * epochs_factor(m, int(g["n_epochs"]))
                for m in agents["methods"] for g in grid_points(spec)) / 3600
    episode = min(EVAL_STEPS_PER_EPISODE, int(ev["max_steps"]))
    episodes = int(ev["episodes"])
    # own half + every "b" half; the proposal methods also the other estimators (run_cases)
    evaluate = sum(per_method * len(run_cases(spec, m, agents["workloads"][0])) * episodes * episode
                   / EVAL_STEPS_PER_S[m] for m in agents["methods"]) / 3600
    # budget checkpoints (1/8, 1/4, 1/2) of the runs on budget_draws: own half + every "b" half, oracle only
    budget_runs = per_draw * len(budget_draws(spec))
    budget = sum(budget_runs * 3 * (1 + len(TEST_WORKLOADS)) * budget_episodes(spec) * episode
                 / BUDGET_STEPS_PER_S[m] for m in agents["methods"]) / 3600
    # one group play per grid point's first, seed and draw: random over the union of the oracle cases,
    # untrained per method over its runs' cases (as references.group_cases)
    groups = len(agents["seeds"]) * len(draws(spec))
    halves = set(agents["workloads"]) | set(TEST_WORKLOADS)
    random = groups * len(halves) * episodes * min(RANDOM_STEPS_PER_EPISODE, int(ev["max_steps"])) / RANDOM_STEPS_PER_S
    untrained = 0.0
    for m in agents["methods"]:
        cases = {c for w in agents["workloads"] for c in run_cases(spec, m, w)}
        untrained += groups * len(cases) * episodes * episode / EVAL_STEPS_PER_S[m]
    # uniform play over all actions (issue 68) on the runs' same-tendency 'b' halves only (what the
    # normalised scale reads), counted at random's episode length and rate, an upper bound: on
    # wl1_050b (2026-12-02, 2 episodes each) uniform play took 3,014-3,031 steps per episode in 0.3
    # CPU-s, random valid play 5,246-5,306 in 2.5 s (no masks to compute; empty picks act as X)
    b_halves = {same_tendency(w) for w in agents["workloads"]}
    uniform = groups * len(b_halves) * episodes * min(RANDOM_STEPS_PER_EPISODE, int(ev["max_steps"])) / RANDOM_STEPS_PER_S
    return {"runs": per_method * len(agents["methods"]), "train": train, "evaluate": evaluate,
            "budget": budget, "references": (random + untrained + uniform) / 3600}


def train_minutes(spec: dict, method: str) -> int:
    """Cluster time limit of one training run: the measured rate above at a quarter speed (grid
    points with more epochs per update cost more, see above) plus 10 minutes."""
    return int(4 * spec["agents"]["steps"] / TRAIN_STEPS_PER_S[method] / 60) + 10


def read_evaluations(files) -> pd.DataFrame:
    import pandas as pd

    from schedrl.errors import InputFileError

    frames = []
    for f in files:
        if not Path(f).exists():
            raise InputFileError(f, "missing (run 'schedrl runtime evaluate' first)")
        frames.append(pd.read_csv(f))
    if not frames:
        raise ConfigError("no evaluation files given")
    return pd.concat(frames, ignore_index=True)


def _own_half(evals) -> pd.DataFrame:
    """The rows of each run played on its own training half with oracle estimates (the tuning rule's)."""
    return evals[(evals["test"] == evals["train"]) & (evals["estimator"] == "actual")]


def best_grid(evals) -> pd.DataFrame:
    """Per (method, train): the grid point with the best mean oracle utilisation on its own half
    (mean over seeds and episodes): the paper's tuning rule, among the points trained to the end
    (successive halving's pruned ones, ``pruned_at`` set, are not). Columns method, train, grid."""
    own = _own_half(evals)
    if "pruned_at" in own.columns:
        own = own[own["pruned_at"].isna()]
    means = own.groupby(["method", "train", "grid"], as_index=False)["utilization"].mean()
    best = means.loc[means.groupby(["method", "train"])["utilization"].idxmax()]
    return best[["method", "train", "grid"]].reset_index(drop=True)


def halving_against_full(evals) -> pd.DataFrame | None:
    """For a check run (``would_prune_at`` on the rows): per (method, train), the full grid's pick
    (``best_grid``) and halving's (the same rule among the points halving would have trained to the
    end), whether they agree, and each pick's mean oracle utilisation on its own half. None for
    evaluations without that column."""
    if "would_prune_at" not in evals.columns:
        return None
    full = best_grid(evals).rename(columns={"grid": "full_grid"})
    halved = best_grid(evals[evals["would_prune_at"].isna()]).rename(columns={"grid": "halving_grid"})
    means = _own_half(evals).groupby(["method", "train", "grid"])["utilization"].mean()
    out = full.merge(halved, on=["method", "train"], how="left")
    out["same"] = out["full_grid"] == out["halving_grid"]
    out["full_utilization"] = [means[(m, t, g)] for m, t, g in out[["method", "train", "full_grid"]].itertuples(False)]
    out["halving_utilization"] = [means.get((m, t, g), float("nan"))
                                  for m, t, g in out[["method", "train", "halving_grid"]].itertuples(False)]
    return out


def tuned(evals) -> pd.DataFrame:
    """The evaluation rows of the tuned grid point only."""
    return evals.merge(best_grid(evals), on=["method", "train", "grid"])
