"""How the runtime paper's evaluation records its decisions (issue 41).

Behaviour fingerprint of every evaluated agent (``schedrl.experiments.fingerprint``) from the
evaluation's own episodes: ``LockstepRecorder`` sees every decision of ``play_lockstep``'s batch
and keeps the observations of a seeded uniform sample of the contested ones for the
score-based measures (the first ``MAX_SCORED`` of a lockstep batch would all be early-episode
states). Recording a decision costs about 80 us (window, heuristics' picks), as much as a PPO
step, so ``evaluate.fingerprint_share`` records a seeded share of them (default 1; the default
scale's ~220k decisions per agent need 0.1). The evaluation samples its actions
(``evaluate.deterministic: false``, section 4.5), so the agreement shares are of the sampled actions; entropy and top probability read the policy's
logits on the valid actions. Plain PPO may also pick an empty slot, which the env plays as X:
it is recorded as X (the last action), so an agent that always waits reads "slot 100" (the
core's ``invalid_share`` is then 0), and ``empty_slot_share`` says how often that happened.

``RandomValid`` is the references' random player (uniform among the valid actions);
``FitPicker`` plays a heuristic under the agent's own action set (issue 38: the core's
``fingerprint.fit_pick``, any job of the window that fits now, chosen FCFS, SJF or largest first;
X when none fits), so the heuristics and the
agent are compared under the same decision process.
``experiments.write_agent_fingerprint`` turns a recorder into ``fingerprint.json``.

Imports flow one way (A -> B: B imports A): recording -> experiments -> references.
"""

from __future__ import annotations

import zlib

import numpy as np

from schedrl.experiments.fingerprint import MAX_SCORED, Decisions, FingerprintRecorder, fit_pick

#: player name -> the core heuristic it picks by (``fingerprint.heuristic_picks``), among fitting jobs
FIT_PICKERS = {"fcfs_fit": "fcfs", "sjf_fit": "sjf", "largest_fit": "largest"}


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


class UniformAll:
    """``(obs batch, env indices) -> actions``: uniform over every action, valid or not (an empty
    window slot acts as X, a job that does not fit is a failed pick): the unmasked random player."""

    def __init__(self, envs: list, identity):
        self.envs = envs
        self.rng = np.random.default_rng(_seed(("uniform",) + tuple(identity)))

    def __call__(self, obs, live) -> np.ndarray:
        return np.asarray([self.rng.integers(self.envs[k].unwrapped.action_space.n) for k in live])


class FitPicker:
    """``(obs batch, env indices) -> actions``: the heuristic's pick among the window's jobs that
    fit the free nodes now, or X (the last action) when none does. Deterministic: FCFS is the
    earliest arrival, SJF the shortest request, largest the most nodes (ties: earlier slot)."""

    def __init__(self, envs: list, name: str):
        self.envs, self.key = envs, FIT_PICKERS[name]

    def __call__(self, obs, live) -> np.ndarray:
        picks = [fit_pick(self.envs[k], self.key) for k in live]
        return np.asarray([p if p >= 0 else self.envs[k].unwrapped.action_space.n - 1 for k, p in zip(live, picks)])


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
