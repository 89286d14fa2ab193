"""What the runtime paper's agents play, and what no learning would give (issue 41).

* Behaviour fingerprint of every evaluated agent (``schedrl.experiments.fingerprint``) from the
  evaluation's own episodes: ``LockstepRecorder`` sees every decision of ``play_lockstep``'s batch
  and keeps the observations of a seeded uniform sample of the contested ones for the
  score-based measures (the first ``MAX_SCORED`` of a lockstep batch would all be early-episode
  states). Recording a decision costs about 80 us (window, heuristics' picks), as much as a PPO
  step, so ``evaluate.fingerprint_share`` records a seeded share of them (default 1; the default
  scale's ~220k decisions per agent need 0.1). The evaluation samples its actions (``evaluate.deterministic: false``, section 4.5), so
  the agreement shares are of the sampled actions; entropy and top probability read the policy's
  logits on the valid actions. Plain PPO may also pick an empty slot, which the env plays as X:
  it is recorded as X (the last action), so an agent that always waits reads "slot 100" (the
  core's ``invalid_share`` is then 0), and ``empty_slot_share`` says how often that happened.
* No-learning references: each training run gets two stand-ins played through the same protocol
  (``experiments.play_cases``: same cases, episode seeds, estimators), ``random`` (uniform among
  the valid actions, i.e. the occupied window slots and X, seeded by the run's identity so the
  three methods get independent plays, as three agents would) and ``untrained`` (the run's network
  built with its seed and hyperparameters, no training step; it samples like the trained one).
  Their evaluation tables sit under ``results/runtime/references/<ref>/`` with the run folders'
  layout; the claims are counted again on them (``claims.claims_rows(references=...)``).
"""

from __future__ import annotations

import json
import warnings
import zlib
from pathlib import Path

import numpy as np

from schedrl.experiments.fingerprint import MAX_SCORED, Decisions, FingerprintRecorder, describe, plays_as
from schedrl.papers.runtime import experiments as rx

REFERENCES = ("random", "untrained")
KINDS = ("trained",) + REFERENCES
#: the agents a claim rests on, by method (default: every method's tuned agents)
CLAIM_METHODS = {"nn2_beats_nn1": ("proposal_nn1", "proposal_nn2"),
                 "sensitivity_online_predictor": ("proposal_nn1", "proposal_nn2")}


def _seed(identity) -> int:
    """A stable 32-bit seed from a run's identity (hash() of a str differs per process)."""
    return zlib.crc32(repr(tuple(identity)).encode())


class RandomValid:
    """``(obs batch, env indices) -> actions``: uniform among each env's valid actions."""

    def __init__(self, envs: list, identity):
        self.envs = envs
        self.rng = np.random.default_rng(_seed(("random",) + tuple(identity)))

    def __call__(self, obs, live) -> np.ndarray:
        return np.asarray([self.rng.choice(np.flatnonzero(self.envs[k].unwrapped.action_masks())) for k in live])


class LockstepRecorder:
    """One ``Decisions`` over the envs of a lockstep batch; a reservoir sample (seeded) of the
    contested decisions keeps its observations for the score-based measures."""

    def __init__(self, envs: list, identity, keep: int = MAX_SCORED, share: float = 1.0):
        self.share = float(share)  # the decisions recorded: a seeded Bernoulli sample (recording is ~80 us each)
        self.shared = Decisions()
        self.recorders = [FingerprintRecorder(env, policy_input=lambda obs, env: None) for env in envs]
        for r in self.recorders:
            r.decisions = self.shared
        self.keep = int(keep)
        self.empty_picks = 0  # contested decisions where an empty window slot was picked (played as X)
        self.kept: list[tuple[int, np.ndarray]] = []
        self.rng = np.random.default_rng(_seed(("fingerprint",) + tuple(identity)))

    def record(self, k: int, obs, action: int) -> None:
        if self.share < 1.0 and self.rng.random() >= self.share:
            return
        i = len(self.shared.actions)
        mask = self.recorders[k].env.unwrapped.action_masks()
        empty = not mask[action]
        if empty:  # plain PPO may pick an empty slot: the env plays it as X (the last action)
            action = len(mask) - 1
        self.recorders[k].record(obs, action)
        if len(self.shared.actions) == i:  # not contested
            return
        self.empty_picks += empty
        if i < self.keep:
            self.kept.append((i, np.array(obs, copy=True)))
        else:
            j = int(self.rng.integers(0, i + 1))
            if j < self.keep:
                self.kept[j] = (i, np.array(obs, copy=True))

    def decisions(self) -> Decisions:
        """The recorded decisions, the sampled ones first (with their observations): the order
        ``fingerprint`` expects (inputs belong to the first decisions)."""
        d = self.shared
        first = sorted(i for i, _ in self.kept)
        obs = dict(self.kept)
        order = first + sorted(set(range(len(d.actions))) - set(first))
        out = Decisions(masks=[d.masks[i] for i in order], actions=[d.actions[i] for i in order],
                        picks=[d.picks[i] for i in order], inputs=[obs[i] for i in first], total=d.total)
        return out


def agent_label(kind: str, method: str, train: str, grid: str, seed: int, draw: int) -> str:
    who = {"trained": f"PPO {rx.LABELS[method]}", "untrained": f"untrained {rx.LABELS[method]}",
           "random": f"random valid (in place of {rx.LABELS[method]})"}[kind]
    return f"{who} {train} {grid} draw {int(draw)} seed {int(seed)}"


def write_agent_fingerprint(path: str | Path, recorder: LockstepRecorder, view, kind: str, spec: dict, method: str,
                            train: str, grid: str, seed: int, draw: int, table) -> dict:
    """``fingerprint.json`` of one evaluated agent (trained or a reference) beside its evaluation."""
    from schedrl.experiments.fingerprint import fingerprint, write_fingerprint

    fp = fingerprint(recorder.decisions(), view)
    sampled = not bool(spec["evaluate"]["deterministic"])
    actions = ("uniform among the valid actions" if kind == "random"
               else "sampled from the policy" if sampled else "the policy's most probable action")
    write_fingerprint(path, fp, agent=agent_label(kind, method, train, grid, seed, draw), kind=kind, method=method,
                      train=train, grid=grid, draw=int(draw), seed=int(seed), episodes=int(len(table)),
                      cases=int(table.groupby(["test", "estimator"]).ngroups), actions=actions,
                      recorded_share=recorder.share, scored=len(recorder.kept),
                      empty_slot_share=recorder.empty_picks / max(len(recorder.shared.actions), 1))
    return fp


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
    write_agent_fingerprint(Path(out).parent / "fingerprint.json", recorder, view, ref, spec, method, train, grid,
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
