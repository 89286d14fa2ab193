"""The MDP-design paper's no-learning references (issues 41, 60, 68): what every RL claim is
computed again with, and the levels the agents are read against.

The references replace every trained agent by the uniform-random valid policy (``RandomValid``,
seeded by the run's seed) or by the untrained network (Table 2's PPO built with the run's seed, as
``schedrl train`` builds it, a variant's ``mdp.hyperparams`` overrides included, no training step) and play the same trials and transfers
(``evaluate_references``); their tables mirror the trained layout under
``layout.reference_root(root, agent)``, so the claims code reads them with the same functions. SJF
(``evaluate_sjf``) and uniform play over every action (``UniformAll``, ``evaluate_uniform``) play
each scenario's trials in the base MDP's env. Built on ``evaluation`` (which does not import this
module).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from schedrl.errors import ConfigError, InputFileError
from schedrl.papers.mdp.evaluation import (
    METRIC,
    evaluate_agent,
    evaluate_fingerprinted,
    per_trial,
    read_csv,
    write_evaluation,
)
from schedrl.papers.mdp.layout import (
    BASE,
    ENV_ID,
    PROPOSED,
    REFERENCE_AGENTS,
    SJF,
    UNIFORM,
    VARIANTS,
    env_kwargs,
    reference_jobs,
    reference_root,
    scenario,
    sjf_path,
)
from schedrl.papers.mdp.training import run_algo, run_hyperparams


class RandomValid:
    """The uniform-random valid policy (issue 41's no-learning reference): in each env, a uniform
    choice among the actions ``action_masks()`` allows (the void action included), from a generator
    seeded by (``seed``, the env's job set), so a trial's play does not depend on the batching."""

    def __init__(self, seed: int):
        self.seed = int(seed)
        self._rngs: dict[int, np.random.Generator] = {}

    def start(self, env, jobset_seed: int) -> None:
        self._rngs[id(env)] = np.random.default_rng([self.seed, int(jobset_seed)])

    def __call__(self, env) -> int:
        return int(self._rngs[id(env)].choice(np.flatnonzero(env.unwrapped.action_masks())))


class UniformAll(RandomValid):
    """Uniform play over every action, valid or not (issue 68's unmasked random player): in DeepRM's
    env an action the grid cannot start moves time on, as the void action does. Its own stream per
    (``seed``, job set), apart from ``RandomValid``'s."""

    def start(self, env, jobset_seed: int) -> None:
        self._rngs[id(env)] = np.random.default_rng([self.seed, int(jobset_seed), 0xA11])

    def __call__(self, env) -> int:
        return int(self._rngs[id(env)].integers(env.unwrapped.action_space.n))


def untrained_model(variant_name: str, scenario_id: int | str, horizon: int | str, seed: int,
                    spec: dict | None = None):
    """Table 2's PPO for this MDP built with ``seed`` and never trained: SB3 seeds torch before it
    builds the policy, so these are the weights the run with this seed started from. With ``spec``,
    its ``mdp.hyperparams`` block for the variant applies as it does to the training rule
    (``training.run_algo``, ``run_hyperparams``: MaskablePPO, another network)."""
    import warnings

    from schedrl.agents.hyperparams import resolve_hyperparams
    from schedrl.agents.registry import algo_class
    from schedrl.experiments.envs import make_env

    algo = run_algo(spec, variant_name)
    policy, _, kwargs = resolve_hyperparams(algo, run_hyperparams(spec, variant_name))
    env = make_env(ENV_ID, env_kwargs(variant_name, scenario_id, horizon))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # batch_size > n_steps (Table 2 as given)
        model = algo_class(algo)(policy, env, device="cpu", seed=int(seed), **kwargs)
    env.close()
    return model


def reference_model(agent: str, variant_name: str, scenario_id: int | str, horizon: int | str, seed: int,
                    spec: dict | None = None):
    if agent not in REFERENCE_AGENTS:
        raise ConfigError(f"unknown reference agent '{agent}' (choose from: {', '.join(REFERENCE_AGENTS)})")
    if agent == "random":
        return RandomValid(seed)
    return untrained_model(variant_name, scenario_id, horizon, seed, spec)


def evaluate_references(spec: dict, root: str | Path, agent: str, *, threads: int = 1) -> list[Path]:
    """Play every run's and transfer's evaluation with the ``agent`` reference instead of the
    trained model; returns the tables written."""
    import torch

    torch.set_num_threads(max(1, int(threads)))
    written = []
    for run, transfer, path in reference_jobs(spec, root, agent):
        model = reference_model(agent, run.variant, run.scenario, run.horizon, run.seed, spec)
        frame, fp = evaluate_fingerprinted(model, spec, run.variant, run.scenario, run.horizon, transfer=transfer,
                                           where=f"{agent} reference")
        write_evaluation(path, frame, fp, kind=agent, variant_name=run.variant, source=run.scenario,
                         horizon=run.horizon, seed=run.seed, transfer=transfer, spec=spec)
        written.append(path)
    return written


# SJF on the same trials (issue 60's third reference, beside random and untrained play): each
# scenario's evaluation trials at the main horizon played once by the grid's SJF (of the slot jobs
# that fit now the shortest, the void action when none fits) in the base MDP's env. SJF reads the
# cluster, not the observation, so one play per scenario stands for every MDP; its number is a
# level to read the agents against, not a claim's verdict.
class Heuristic:
    """A grid heuristic (``schedrl.schedulers.grid``: sjf, packer, first_slot, random) as a picker ``picker(env)``."""

    def __init__(self, name):
        """``name``: a heuristic's name, or the heuristic itself (e.g. ``SJFHold(3)``)."""
        from schedrl.schedulers.grid import get_policy

        self.name, self.fn = (name, get_policy(name)) if isinstance(name, str) else (name.__name__, name)

    def __call__(self, env) -> int:
        return int(self.fn(env.unwrapped))


#: SJF that holds long jobs back (``schedulers.grid.SJFHold``): its policy name in the SJF table, and
#: where its longest startable length is chosen, on validation job sets that are neither the agents'
#: training sets (fresh draws) nor their evaluation trials (the tune study's validation sets)
SJF_HOLD = "sjf_hold"
HOLD_VALIDATION_JOBSET_SEED = 2_000_000
HOLD_VALIDATION_TRIALS = 200
HOLD_LABEL = "SJF holding long jobs"


def choose_hold(spec: dict, scenario_id: int) -> tuple[int, dict[int, float]]:
    """(the longest job length ``SJFHold`` may start, its validation mean slowdown per candidate): every
    length 1 .. the scenario's longest job tried on ``min(eval.trials, HOLD_VALIDATION_TRIALS)``
    validation job sets from ``HOLD_VALIDATION_JOBSET_SEED``; the lowest mean slowdown wins, ties to
    the longer length (the one closer to SJF). The longest job's length is SJF itself."""
    from schedrl.schedulers.grid import SJFHold

    H, sid = int(spec["horizon"]), int(scenario_id)
    trials = min(int(spec["eval"]["trials"]), HOLD_VALIDATION_TRIALS)
    validation = {**spec, "eval": {**spec["eval"], "trials": trials, "jobset_seed": HOLD_VALIDATION_JOBSET_SEED}}
    scores = {n: float(evaluate_agent(Heuristic(SJFHold(n)), validation, BASE, sid, H)[METRIC].mean())
              for n in range(1, scenario(sid).max_len + 1)}
    return min(scores, key=lambda n: (scores[n], -n)), scores


def evaluate_sjf(spec: dict) -> pd.DataFrame:
    """SJF, and SJF holding long jobs back (``SJF_HOLD``, its length chosen by ``choose_hold``), on
    ``eval.trials`` trials of every scenario of the spec at the main horizon, the job sets every agent
    plays (one row per policy, scenario and trial; ``variant`` names the env played in, ``hold_max_len``
    the longest job the rule starts: the scenario's longest for SJF)."""
    from schedrl.schedulers.grid import SJFHold

    H = int(spec["horizon"])
    frames = []
    for s in map(int, spec["scenarios"]):
        frames.append(evaluate_agent(Heuristic(SJF), spec, BASE, s, H).assign(policy=SJF,
                                                                             hold_max_len=scenario(s).max_len))
        longest, _ = choose_hold(spec, s)
        frames.append(evaluate_agent(Heuristic(SJFHold(longest)), spec, BASE, s, H).assign(
            policy=SJF_HOLD, hold_max_len=longest))
    frame = pd.concat(frames, ignore_index=True)
    return frame[["policy", *[c for c in frame.columns if c != "policy"]]]


def heuristic_rows(frame: pd.DataFrame, policy: str = SJF) -> pd.DataFrame:
    """The rows of ``policy`` in an SJF table (a table written before the hold rule, without a
    ``policy`` column or with SJF alone, holds SJF's)."""
    if "policy" not in frame.columns:
        return frame if policy == SJF else frame.iloc[:0]
    return frame[frame["policy"] == policy]


# Uniform play over all actions (issue 68), for the normalised scale: each scenario's evaluation
# trials at the main horizon played in the base MDP's env (where random valid play is the 0 and SJF
# plays) by ``UniformAll``, once per training seed.
def evaluate_uniform(spec: dict) -> pd.DataFrame:
    """``UniformAll`` on ``eval.trials`` trials of every scenario of the spec at the main horizon,
    one play per seed of the spec (one row per seed, scenario and trial)."""
    H = int(spec["horizon"])
    frames = []
    for seed in spec["seeds"]:
        for s in spec["scenarios"]:
            frame = evaluate_agent(UniformAll(int(seed)), spec, BASE, int(s), H)
            frame.insert(0, "seed", int(seed))
            frames.append(frame)
    frame = pd.concat(frames, ignore_index=True)
    frame.insert(0, "policy", UNIFORM)
    return frame


def sjf_trials(root: str | Path, spec: dict, scenario_id: int, metric: str = METRIC,
               policy: str = SJF) -> pd.Series | None:
    """Per trial, SJF's (or ``policy``'s, e.g. ``SJF_HOLD``) ``metric`` in ``scenario_id`` (None when
    SJF's table, that policy or that scenario is absent)."""
    path = sjf_path(root, spec["horizon"])
    if not Path(path).exists():
        return None
    frame = heuristic_rows(read_csv(path), policy)
    part = frame[frame["scenario"] == int(scenario_id)]
    return None if part.empty else part.set_index("trial")[metric]


def reference_levels(spec: dict, root: str | Path, scenario_id: int, metric: str = METRIC) -> dict[str, float]:
    """Mean ``metric`` over the trials of ``scenario_id`` (main horizon) of the no-learning references
    that exist on disk: SJF and SJF holding long jobs back, and per MDP of the spec's Fig. 4 pair the
    uniform-random valid policy and the untrained network (their seeds' mean); keys like "SJF",
    "random image-like". A table without the ``metric`` column (written before it existed) is left out."""
    H, out = int(spec["horizon"]), {}
    for policy, label in ((SJF, "SJF"), (SJF_HOLD, HOLD_LABEL)):
        try:
            found = sjf_trials(root, spec, scenario_id, metric, policy)
        except KeyError:
            found = None
        if found is not None:
            out[label] = float(found.mean())
    for agent in REFERENCE_AGENTS:
        for name in (BASE, PROPOSED):
            if name not in spec["variants"]:
                continue
            try:
                values = per_trial(reference_root(root, agent), spec, H, name, scenario_id, metric)
            except (InputFileError, FileNotFoundError, KeyError):
                continue
            out[f"{'random' if agent == 'random' else 'untrained'} {VARIANTS[name].label}"] = float(values.mean())
    return out
