"""What the runtime paper's agents play, and what no learning would give (issue 41).

* Behaviour fingerprints: ``recording.LockstepRecorder`` records the evaluation's decisions and
  ``experiments.write_agent_fingerprint`` writes ``fingerprint.json`` beside each trained agent's
  evaluation and in each reference's group folder (``group_dir``); ``write_fingerprints`` gathers them, and
  ``claim_plays_as`` says what a claim's agents play as.
* No-learning references: each training run gets two stand-ins played through the same protocol
  (``experiments.play_cases``: same cases, episode seeds, estimators), ``random`` (uniform among
  the valid actions, i.e. the occupied window slots and X) and ``untrained`` (the run's network
  built with its seed and hyperparameters, no training step; it samples like the trained one).
  Neither has learnt anything from its training half, so one play serves a whole group of runs
  (``groups``): ``untrained`` one per method x grid x seed x draw (the network's weights depend
  on the method and seed only: ``test_untrained_network_is_the_same_for_every_half``), ``random``
  one per grid x seed x draw for every method (it reads no observation, so neither the method's
  inputs nor the estimator change its play; the estimator cases repeat the oracle case's
  episodes). Each run's table is cut from its group's play (same rows as a per-run play: own
  half, every "b" half, estimator cases), so the methods' random rows are the same episodes and a
  reference's rows on a "b" half are the same for every training half: a comparison between
  methods (random) or between training halves (both) is a tie, which no count lets win. So on the
  references, NN2 vs NN1, the proposal's gain and the baseline/proposal split (random) and the
  same-tendency column maxima (both) are 0 by construction, not by chance; two independently
  played no-learning agents would win about half of those comparisons by noise, which the
  intervals on the trained agents' comparisons account for. The untrained networks differ per
  method and give the method-to-method spread of no learning. One play per group instead of per
  run costs ~1/4 of the references' CPU at default scale (12 rules instead of 108).
  Their tables sit under ``results/runtime/references/<ref>/`` with the run folders' layout,
  the group's play and fingerprint in ``group_dir``; the claims are counted again on them
  (``claims.claims_rows(references=...)``).

Imports flow one way (A -> B: B imports A): recording -> experiments -> references.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

from schedrl.experiments.fingerprint import describe, plays_as
from schedrl.papers.runtime import experiments as rx

REFERENCES = ("random", "untrained")
KINDS = ("trained",) + REFERENCES
#: Uniform play over every action, valid or not (issue 68): the unmasked random player, played like
#: random valid play (one group per grid x seed x draw) on the cases the normalised scale reads (each
#: run's same-tendency 'b' half under the oracle: ``member_cases``); the claims are not counted on it.
UNIFORM = "uniform"
#: the players that read no observation: one group play stands in for every method
NO_NETWORK = ("random", UNIFORM)
PLAYED = REFERENCES + (UNIFORM,)
#: the agents a claim rests on, by method (default: every method's tuned agents)
CLAIM_METHODS = {"nn2_beats_nn1": ("proposal_nn1", "proposal_nn2"),
                 "sensitivity_online_predictor": ("proposal_nn1", "proposal_nn2")}


# -- the references' runs -------------------------------------------------------------------------
def reference_dir(root: str | Path, ref: str, method: str, train: str, grid: str, seed: int | str,
                  draw: int | str = 0) -> Path:
    return Path(root) / "references" / str(ref) / str(method) / str(train) / str(grid) / rx.replicate(draw, seed)


#: ``method`` folder of the random reference's group play (it stands in for every method)
ANY_METHOD = "any"


def group_dir(root: str | Path, ref: str, method: str, grid: str, seed: int | str, draw: int | str = 0) -> Path:
    """Folder of one group play (its evaluation.csv over every case and its fingerprint.json):
    ``references/<ref>/<method, or 'any' for random>/all/<grid>/<rep>``."""
    return reference_dir(root, ref, ANY_METHOD if ref in NO_NETWORK else method, rx.ALL_HALVES, grid, seed, draw)


def _first_grid_runs(spec: dict, root: str | Path = rx.ROOT) -> list[tuple]:
    first = rx.grid_id(rx.grid_points(spec)[0])
    return [r for r in rx.runs(spec, root) if r[2] == first]


def reference_files(spec: dict, ref: str, root: str | Path = rx.ROOT) -> list[str]:
    """Evaluation tables of reference ``ref``: one per method x training half x seed x draw, in the
    folder of the grid's first point. The references have nothing to tune (the untrained network
    does not depend on T/M/K; random play has no parameters), and a reference played at every grid
    point would let the tuning rule pick its luckiest play (best of 75 at paper scale)."""
    return [str(rx.eval_path(reference_dir(root, ref, m, w, g, s, d))) for m, w, g, s, d, _ in _first_grid_runs(spec, root)]


def groups(spec: dict, ref: str) -> list[tuple[str, str, int, int]]:
    """(method, grid, seed, draw) of each group play of ``ref``; method ``ANY_METHOD`` for random."""
    keys = [(ANY_METHOD if ref in NO_NETWORK else m, g, s, d) for m, _, g, s, d, _ in _first_grid_runs(spec)]
    return list(dict.fromkeys(keys))


def group_members(spec: dict, ref: str, method: str) -> list[tuple[str, str]]:
    """(method, training half) of the runs a group play of ``ref`` stands in for."""
    methods = spec["agents"]["methods"] if ref in NO_NETWORK else [method]
    return [(m, w) for m in methods for w in spec["agents"]["workloads"]]


def group_files(spec: dict, ref: str, method: str, grid: str, seed: int, draw: int,
                root: str | Path = rx.ROOT) -> list[str]:
    """What a group play writes: the members' evaluation tables, then its own table and fingerprint."""
    own = group_dir(root, ref, method, grid, seed, draw)
    return ([str(rx.eval_path(reference_dir(root, ref, m, w, grid, seed, draw)))
             for m, w in group_members(spec, ref, method)] + [str(rx.eval_path(own)), str(own / "fingerprint.json")])


def member_cases(spec: dict, ref: str, method: str, train: str) -> list[tuple[str, str]]:
    """The cases of run (method, train) a reference's table holds: the run's own (``run_cases``);
    uniform play, which only the normalised scale reads, its same-tendency 'b' half under the oracle."""
    if ref == UNIFORM:
        return [(rx.same_tendency(train), "actual")]
    return rx.run_cases(spec, method, train)


def group_cases(spec: dict, ref: str, method: str) -> list[tuple[str, str]]:
    """The union of the members' cases, each once; random plays the oracle cases only."""
    cases = [c for m, w in group_members(spec, ref, method) for c in member_cases(spec, ref, m, w)]
    if ref in NO_NETWORK:
        cases = [(t, "actual") for t, _ in cases]
    return list(dict.fromkeys(cases))


def fingerprint_files(spec: dict, root: str | Path = rx.ROOT) -> list[str]:
    """fingerprint.json of every trained agent, then of every reference's group play."""
    trained = [str(Path(r[-1]) / "fingerprint.json") for r in rx.runs(spec, root)]
    return trained + [str(group_dir(root, ref, *key) / "fingerprint.json") for ref in REFERENCES
                      for key in groups(spec, ref)]


def untrained_model(spec: dict, method: str, train: str, grid: str, seed: int, draw: int = 0):
    """The run's PPO as training builds it (same hyperparameters, network and seed), before any
    training step. The weights do not depend on the number of env copies (SB3 seeds torch before
    it builds the policy) nor on the training half (same observation space), so one env copy of
    ``train`` stands in for training's eight on any half."""
    import torch
    from stable_baselines3.common.vec_env import DummyVecEnv

    from schedrl.agents.hyperparams import resolve_hyperparams
    from schedrl.agents.registry import algo_class
    from schedrl.experiments.envs import make_env

    hp = rx.run_hyperparams(spec, method, grid)
    policy, _, kwargs = resolve_hyperparams(rx.ALGO, hp)
    kwargs = {**kwargs, "device": "cpu"}
    kwargs.pop("tensorboard_log", None)
    env_kw = rx.env_kwargs(spec, rx.METHODS[method][0], train, training=True, draw=draw)
    venv = DummyVecEnv([lambda: make_env(rx.ENV_ID, env_kw)])
    torch.distributions.Distribution.set_default_validate_args(False)  # as training: no effect on numbers
    with warnings.catch_warnings():  # SB3's batch-size hint is about one env copy's rollout: never trained here
        warnings.simplefilter("ignore", UserWarning)
        model = algo_class(rx.ALGO)(policy, venv, seed=int(seed), verbose=0, **kwargs)
    venv.close()
    return model


def member_table(played, spec: dict, ref: str, method: str, train: str):
    """Run (method, train)'s reference table cut from its group's play: its cases in ``run_cases``
    order, each with the group's episodes of that case (random: the oracle case's, relabelled)."""
    import pandas as pd

    rows = []
    cases = member_cases(spec, ref, method, train)
    for test, estimator in cases:
        source = "actual" if ref in NO_NETWORK else estimator
        part = played[(played["test"] == test) & (played["estimator"] == source)].copy()
        part["estimator"] = estimator
        rows.append(part)
    table = pd.concat(rows, ignore_index=True)
    expected = len(cases) * int(played["episode"].nunique())
    if len(table) != expected:  # a case missing from the group play would give a short table silently
        raise ValueError(f"reference {ref} for {method} {train}: {len(table)} rows, expected {expected}")
    table["method"], table["train"] = method, train
    return table


def evaluate_reference(ref: str, spec: dict, method: str, grid: str, seed: int, draw: int,
                       root: str | Path = rx.ROOT, threads: int = 1) -> list[str]:
    """Play reference ``ref``'s group (method x grid x seed x draw; ``method`` is ignored for
    random) once under the final evaluation's protocol; write the group's table and fingerprint
    and each member run's table (``group_files``). Returns the files written."""
    import torch

    from schedrl.errors import ConfigError
    from schedrl.experiments.fingerprint import AgentView, sb3_view

    if ref not in PLAYED:
        raise ConfigError(f"unknown reference '{ref}' (choose from: {', '.join(PLAYED)})")
    if ref == "untrained" and method not in rx.METHODS:
        raise ConfigError(f"untrained reference: unknown method '{method}' (choose from: {', '.join(rx.METHODS)})")
    torch.set_num_threads(max(1, int(threads)))
    members = group_members(spec, ref, method)
    if ref == "untrained":  # the weights are the same for every half: build them on the first
        player = untrained_model(spec, method, members[0][1], grid, seed, draw)
        view, who, encoder_of = sb3_view(player), method, method
    else:  # random and uniform play read no observation: the smallest encoder is played
        player, view, who, encoder_of = ref, AgentView(), ANY_METHOD, "baseline"
    played, recorder = rx.play_cases(spec, encoder_of, rx.ALL_HALVES, grid, int(draw), int(seed), player,
                                     record=True, cases=group_cases(spec, ref, method), who=who)
    played["method"] = who
    files = group_files(spec, ref, method, grid, seed, draw, root)
    for (m, w), out in zip(members, files, strict=False):
        rx._write_table(member_table(played, spec, ref, m, w), out)
    rx._write_table(played, files[-2])
    rx.write_agent_fingerprint(files[-1], recorder, view, ref, spec, who, rx.ALL_HALVES, grid, seed, draw, played)
    return files


def write_fingerprints(paths, out: str | Path):
    """``results/runtime/fingerprints.csv``: one row per evaluated agent (trained and references)."""
    from schedrl.experiments.fingerprint import fingerprint_table
    from schedrl.io import atomic_path

    table = fingerprint_table(paths)
    with atomic_path(out) as tmp:
        table.to_csv(tmp, index=False)
    return table


# -- claims ----------------------------------------------------------------------------------------
def read_fingerprint(path: str | Path) -> dict:
    return json.loads(Path(path).read_text())


def pooled_plays_as(fps: list[dict]) -> str:
    """The claim note's "plays as" of the agents a claim rests on: "" when none reaches 95%;
    the pooled share when all follow the same picker; else how many of them do, per picker."""
    if not fps:
        return ""
    names = [fp.get("plays_as") or plays_as(fp) for fp in fps]
    parts = []
    for name in dict.fromkeys(n for n in names if n):
        group = [fp for fp, n in zip(fps, names) if n == name]
        key = f"agree_{name}" if not name.startswith("slot ") else "top_slot_share"
        contested = sum(int(fp["contested"]) for fp in group)
        share = sum(float(fp[key]) * int(fp["contested"]) for fp in group) / max(contested, 1)
        text = describe({"plays_as": name, key: share, "contested": contested,
                         "top_slot_share": share, f"agree_{name}": share})
        parts.append(text if len(group) == len(fps) else f"{len(group)} of {len(fps)} agents {text}")
    return "; ".join(parts)


def claim_plays_as(fingerprints: dict[tuple, dict], tuned) -> dict[str, str]:
    """claim id -> pooled "plays as" of the tuned trained agents it rests on. ``fingerprints``:
    (method, train, grid, seed, draw) -> fingerprint; ``tuned``: ``experiments.best_grid`` rows."""
    best = {(m, w, g) for m, w, g in zip(tuned["method"], tuned["train"], tuned["grid"])}
    chosen = {k: fp for k, fp in fingerprints.items() if k[:3] in best}
    out = {"": pooled_plays_as(list(chosen.values()))}
    for claim, methods in CLAIM_METHODS.items():
        out[claim] = pooled_plays_as([fp for k, fp in chosen.items() if k[0] in methods])
    return out
