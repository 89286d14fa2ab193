"""What the runtime paper's agents play, and what no learning would give (issue 41).

* Behaviour fingerprints: ``recording.LockstepRecorder`` records the evaluation's decisions and
  ``experiments.write_agent_fingerprint`` writes ``fingerprint.json`` beside each evaluation
  (trained agents and references alike); ``write_fingerprints`` gathers them, and
  ``claim_plays_as`` says what a claim's agents play as.
* No-learning references: each training run gets two stand-ins played through the same protocol
  (``experiments.play_cases``: same cases, episode seeds, estimators), ``random`` (uniform among
  the valid actions, i.e. the occupied window slots and X, seeded by the run's identity so the
  three methods get independent plays, as three agents would) and ``untrained`` (the run's network
  built with its seed and hyperparameters, no training step; it samples like the trained one).
  Their evaluation tables sit under ``results/runtime/references/<ref>/`` with the run folders'
  layout; the claims are counted again on them (``claims.claims_rows(references=...)``).

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
#: the agents a claim rests on, by method (default: every method's tuned agents)
CLAIM_METHODS = {"nn2_beats_nn1": ("proposal_nn1", "proposal_nn2"),
                 "sensitivity_online_predictor": ("proposal_nn1", "proposal_nn2")}


# -- the references' runs -------------------------------------------------------------------------
def reference_dir(root: str | Path, ref: str, method: str, train: str, grid: str, seed: int | str,
                  draw: int | str = 0) -> Path:
    return Path(root) / "references" / str(ref) / str(method) / str(train) / str(grid) / rx.replicate(draw, seed)


def reference_files(spec: dict, ref: str, root: str | Path = rx.ROOT) -> list[str]:
    """Evaluation tables of reference ``ref``: one per method x training half x seed x draw, in the
    folder of the grid's first point. The references have nothing to tune (the untrained network
    does not depend on T/M/K; random play has no parameters), and a reference played at every grid
    point would let the tuning rule pick its luckiest play (best of 75 at paper scale)."""
    first = rx.grid_id(rx.grid_points(spec)[0])
    return [str(rx.eval_path(reference_dir(root, ref, m, w, g, s, d)))
            for m, w, g, s, d, _ in rx.runs(spec, root) if g == first]


def fingerprint_files(spec: dict, root: str | Path = rx.ROOT) -> list[str]:
    """fingerprint.json of every trained agent, then of every reference."""
    trained = [str(Path(r[-1]) / "fingerprint.json") for r in rx.runs(spec, root)]
    return trained + [str(Path(f).parent / "fingerprint.json") for ref in REFERENCES
                      for f in reference_files(spec, ref, root)]


def untrained_model(spec: dict, method: str, train: str, grid: str, seed: int, draw: int = 0):
    """The run's PPO as training builds it (same hyperparameters, network and seed), before any
    training step. The weights do not depend on the number of env copies (SB3 seeds torch before
    it builds the policy), so one env copy stands in for training's eight."""
    import torch
    from stable_baselines3.common.vec_env import DummyVecEnv

    from schedrl.agents.hyperparams import resolve_hyperparams
    from schedrl.agents.registry import algo_class
    from schedrl.experiments.envs import make_env

    hp = rx.hyperparams(method, grid, spec["agents"].get("actor_critic", "shared"))
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


def evaluate_reference(ref: str, spec: dict, method: str, train: str, grid: str, seed: int, draw: int,
                       out: str | Path, threads: int = 1):
    """Play reference ``ref`` in place of run (method, train, grid, seed, draw) under the final
    evaluation's protocol; write its table to ``out`` and its fingerprint beside it."""
    import torch

    from schedrl.errors import ConfigError
    from schedrl.experiments.fingerprint import AgentView, sb3_view

    if ref not in REFERENCES:
        raise ConfigError(f"unknown reference '{ref}' (choose from: {', '.join(REFERENCES)})")
    torch.set_num_threads(max(1, int(threads)))
    if ref == "untrained":
        player = untrained_model(spec, method, train, grid, seed, draw)
        view = sb3_view(player)
    else:
        player, view = "random", AgentView()
    table, recorder = rx.play_cases(spec, method, train, grid, int(draw), int(seed), player, record=True)
    rx._write_table(table, out)
    rx.write_agent_fingerprint(Path(out).parent / "fingerprint.json", recorder, view, ref, spec, method, train, grid,
                            seed, draw, table)
    return table


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
