"""What did the agent learn? A behaviour fingerprint from the decisions an agent plays.

Three times an agent's verdicts rested on an agent that had learned nothing (blind inputs, a fixed
window slot chosen by the seed, a policy at chance), each found by reading code. A fingerprint
makes that visible from the evaluation episodes themselves, over the *contested* decisions (two or
more valid actions; a decision with one valid action says nothing about the policy):

* agreement with the papers' heuristics and simple pickers, each as a share of contested
  decisions: ``fcfs`` (earliest arrival among the valid jobs: the queue head), ``sjf`` (shortest
  requested time), ``smallest_area`` (time x size), ``largest`` (largest size), each fixed action
  ``slot_k`` (counted whether or not slot k was valid: ``invalid_share`` says how often the
  played action was not), and ``chance`` (mean 1 / number of valid actions: what uniform random
  play agrees with any one picker by expectation);
* with the policy's scores (logits, Q-values or DFP objectives): entropy and top probability of
  the masked softmax (logits only), the spread of a slot's score across states against the spread
  across slots within a state (a state-blind policy has the first near 0), the greedy action on
  zeroed observations and how often it equals the played one;
* for networks, the share of hidden units that are constant (dead) on the evaluation states;
* with ``window_optimum`` (multi-resource HPC envs: MRSch's), ``agree_ga``: how often the played job
  is one the window optimiser would start now (``schedrl.schedulers.ga.optimise_window`` searched
  exhaustively: the Pareto-best set the MRSch paper's GA baseline searches for, picked by its rule),
  and ``ga_set_share``, the mean share of the valid actions in that set (uniform play's expected
  agreement).

``FingerprintRecorder(env).wrap(policy)`` records while the pipeline plays its evaluation;
``fingerprint(decisions, view)`` summarises; ``plays_as(fp)`` names a picker the agent follows on
>= 95% of contested decisions (a claim's note then says "plays as FCFS").
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

#: ``first_valid``: the lowest valid action that is a job, a rule of the mask alone (what a state-blind
#: agent plays; DeepRM's ``first_slot``); after ``fcfs`` so that where slot order is arrival order the
#: tie goes to FCFS
HEURISTICS = ("fcfs", "sjf", "smallest_area", "largest", "first_valid")
PLAYS_AS = 0.95  # a picker followed on this share of contested decisions names the agent's play
MAX_SCORED = 2000  # decisions whose observations are kept for score-based measures


# -- what the window holds ------------------------------------------------------------------------
def window_jobs(env) -> np.ndarray:
    """``(n_actions, 3)`` float: arrival, requested length and size (share of the machine, summed
    over resources) of the job behind each action; NaN rows for actions that are not a job
    (DeepRM's void action, the runtime env's stop action X, empty slots)."""
    base = env.unwrapped
    n = _n_actions(base)
    out = np.full((n, 3), np.nan)
    grid = getattr(base, "grid", None)
    if grid is not None:  # DeepRM's slots
        for i, job in enumerate(grid.slots):
            if job >= 0:
                out[i] = (grid.arrival[job], grid.slot_len[i], grid.slot_dem[i].sum() / base.params.res_slot)
        return out
    sim = getattr(base, "sim", None)
    if sim is None:
        raise TypeError(f"no fingerprint view of {type(base).__name__} (needs a DeepRM grid or an HPC simulator)")
    q = np.asarray(sim.queue[: base.window], dtype=np.int64)
    jobs = sim.jobs
    out[: len(q), 0] = jobs.submit[q]
    out[: len(q), 1] = jobs.req_time[q]
    out[: len(q), 2] = (jobs.demand[q] / np.maximum(sim.capacity, 1)).sum(axis=1)
    return out


def _discrete(space) -> bool:
    from gymnasium import spaces

    return isinstance(space, spaces.Discrete)  # not MultiBinary, which has an ``n`` too


def _n_actions(base) -> int:
    space = base.action_space
    return int(space.n) if _discrete(space) else int(np.prod(space.shape)) + 1  # multibinary: + void


def valid_actions(env) -> np.ndarray:
    """Boolean mask over the (discrete) actions; multi-binary envs as slots plus a void action."""
    base = env.unwrapped
    mask = np.asarray(base.action_masks(), dtype=bool)
    if _discrete(base.action_space):
        return mask
    return np.append(mask[1::2], True)  # [bit 0 ok, bit 1 ok] per slot -> slots that fit, then void


def discrete_action(action, mask: np.ndarray) -> int:
    """An action as one index: a multi-binary vector becomes its first set bit on a valid slot
    (else the void action, the last index)."""
    a = np.asarray(action).reshape(-1)
    if a.size == 1:
        return int(a[0])
    for i in np.flatnonzero(a):
        if mask[i]:
            return int(i)
    return len(mask) - 1


def heuristic_picks(jobs: np.ndarray, mask: np.ndarray) -> dict[str, int]:
    """Each heuristic's action among the valid jobs (-1 when no valid action is a job); ties go to
    the lowest index, i.e. the earlier job in the window."""
    cand = np.flatnonzero(mask & ~np.isnan(jobs[:, 0]))
    if len(cand) == 0:
        return dict.fromkeys(HEURISTICS, -1)
    arrival, length, size = jobs[cand, 0], jobs[cand, 1], jobs[cand, 2]
    return {"fcfs": int(cand[np.argmin(arrival)]), "sjf": int(cand[np.argmin(length)]),
            "smallest_area": int(cand[np.argmin(length * size)]), "largest": int(cand[np.argmax(size)]),
            "first_valid": int(cand[0])}


def window_optimum(env) -> np.ndarray:
    """Bool mask over an HPC env's actions: the window jobs the window optimiser (exhaustive, its
    default pick rule) would start at this decision, against the simulator's free resources."""
    from schedrl.schedulers.ga import optimise_window

    base = env.unwrapped
    sim = base.sim
    q = np.asarray(sim.queue[: base.window], dtype=np.int64)
    out = np.zeros(_n_actions(base), dtype=bool)
    if len(q):
        choice = optimise_window(sim.jobs.demand[q], sim.free, capacity=sim.capacity.astype(np.float64),
                                 exhaustive_max=len(q))
        out[: len(q)] = choice.mask
    return out


def fit_pick(env, heuristic: str) -> int:
    """The action of ``heuristic`` (a key of ``heuristic_picks``) among the window's jobs that fit
    the free resources of an HPC env's simulator now, or -1 when none fits: a heuristic under an
    agent's own action set (any window job that fits may start), so the two run under one process.
    The caller says what -1 plays as (the runtime env's X; a pick-reserve env's reservation)."""
    base = env.unwrapped
    sim = base.sim
    q = np.asarray(sim.queue[: base.window], dtype=np.int64)
    fits = np.zeros(_n_actions(base), dtype=bool)
    fits[: len(q)] = (sim.jobs.demand[q] <= sim.free).all(axis=1)
    return heuristic_picks(window_jobs(env), fits)[heuristic]


# -- recording ------------------------------------------------------------------------------------
@dataclass
class Decisions:
    """Contested decisions of played episodes: mask, played action, heuristic picks, and (up to
    ``MAX_SCORED``) the policy's input for score-based measures."""

    masks: list = field(default_factory=list)
    actions: list = field(default_factory=list)
    picks: list = field(default_factory=list)
    inputs: list = field(default_factory=list)
    optimum: list = field(default_factory=list)  # the window optimiser's set per decision (optional)
    total: int = 0  # every decision seen, contested or not

    def add(self, mask: np.ndarray, action: int, picks: dict, policy_input: Any = None,
            optimum: np.ndarray | None = None) -> None:
        self.total += 1
        if mask.sum() < 2:
            return
        self.masks.append(mask.copy())
        self.actions.append(int(action))
        self.picks.append(picks)
        if optimum is not None:
            self.optimum.append(optimum)
        if policy_input is not None and len(self.inputs) < MAX_SCORED:
            self.inputs.append(policy_input)


class FingerprintRecorder:
    """Wrap a policy ``policy(obs, env_or_info) -> action`` so every call is recorded.

    ``policy_input(obs, env)`` says what the scores function will need later (default: the
    observation; DFP also needs measurements and goal). Use the recorder's env for the window,
    whatever the policy's second argument is. ``window_optimum``: also record the window optimiser's
    set at each decision (``agree_ga``).
    """

    def __init__(self, env, policy_input: Callable | None = None, window_optimum: bool = False):
        self.env = env
        self.policy_input = policy_input or (lambda obs, env: np.array(obs, copy=True))
        self.window_optimum = window_optimum
        self.decisions = Decisions()

    def record(self, obs, action) -> None:
        mask = valid_actions(self.env)
        if mask.sum() < 2:
            self.decisions.total += 1
            return
        a = discrete_action(action, mask)
        self.decisions.add(mask, a, heuristic_picks(window_jobs(self.env), mask), self.policy_input(obs, self.env),
                           window_optimum(self.env) if self.window_optimum else None)

    def wrap(self, policy: Callable) -> Callable:
        def recorded(obs, second=None):
            action = policy(obs, second)
            self.record(obs, action)
            return action

        recorded.__name__ = getattr(policy, "__name__", "policy")
        return recorded


# -- the agent's inside -----------------------------------------------------------------------------
@dataclass
class AgentView:
    """What the fingerprint may read of an agent beyond its actions: ``scores(inputs) -> (n, A)``
    over a list of recorded policy inputs, whether they are logits (softmax = the policy's
    probabilities), ``zeroed(input) -> input`` with the observation part zeroed, and the network
    (``torch.nn.Module``) whose hidden units are checked while ``scores`` runs."""

    scores: Callable[[list], np.ndarray] | None = None
    logits: bool = True
    zeroed: Callable[[Any], Any] | None = None
    module: Any = None


def sb3_view(model) -> AgentView:
    """Scores of a Stable-Baselines3 model with a discrete action space: the policy's logits (Q
    values for DQN)."""
    import torch
    from gymnasium import spaces

    if not isinstance(model.action_space, spaces.Discrete):
        return AgentView(module=model.policy)  # multi-binary: no one score per action
    dqn = hasattr(model, "q_net")

    def scores(inputs: list) -> np.ndarray:
        obs = model.policy.obs_to_tensor(np.stack(inputs))[0]
        with torch.no_grad():
            if dqn:
                return model.q_net(obs).cpu().numpy().astype(np.float64)
            return model.policy.get_distribution(obs).distribution.logits.cpu().numpy().astype(np.float64)

    return AgentView(scores=scores, logits=not dqn, zeroed=np.zeros_like,
                     module=model.q_net if dqn else model.policy)


def reinforce_view(policy) -> AgentView:
    """Scores of a ``schedrl.agents.reinforce.ReinforcePolicy`` (categorical head): its logits."""
    if policy.head == "bernoulli":
        return AgentView(module=policy.net)
    import torch

    def scores(inputs: list) -> np.ndarray:  # torch's forward (not the numpy one): the unit hooks see it
        with torch.no_grad():
            return policy.logits(np.stack(inputs)).cpu().numpy().astype(np.float64)

    return AgentView(scores=scores, logits=True, zeroed=np.zeros_like, module=policy.net)


def dfp_view(agent) -> AgentView:
    """Scores of a ``schedrl.agents.dfp.DFPAgent``: the goal-weighted objectives; inputs are
    ``(obs, measurements, goal)`` triples, the zeroed input keeps measurements and goal."""
    def scores(inputs: list) -> np.ndarray:
        obs, meas, goal = (np.stack(x) for x in zip(*inputs))
        return agent.objectives(obs, meas, goal).astype(np.float64)

    return AgentView(scores=scores, logits=False, module=agent.net,
                     zeroed=lambda x: (np.zeros_like(x[0]), x[1], x[2]))


def _hidden_activity(module, run: Callable[[], Any]) -> tuple[int, int]:
    """Hidden units (outputs of activation layers) and how many are constant over ``run()``'s batch."""
    import torch.nn as nn

    acts = (nn.ReLU, nn.LeakyReLU, nn.Tanh, nn.ELU, nn.GELU, nn.SiLU, nn.Sigmoid)
    outputs: list = []
    hooks = [m.register_forward_hook(lambda _m, _i, out: outputs.append(out.detach().reshape(out.shape[0], -1)))
             for m in module.modules() if isinstance(m, acts)]
    try:
        run()
    finally:
        for h in hooks:
            h.remove()
    units = dead = 0
    for out in outputs:
        if out.shape[0] < 2:
            continue
        spread = (out.max(dim=0).values - out.min(dim=0).values).cpu().numpy()
        units += spread.size
        dead += int((spread == 0).sum())
    return units, dead


# -- the summary ------------------------------------------------------------------------------------
def _masked_softmax(scores: np.ndarray, masks: np.ndarray) -> np.ndarray:
    z = np.where(masks, scores, -np.inf)
    z = z - z.max(axis=1, keepdims=True)
    p = np.exp(z)
    return p / p.sum(axis=1, keepdims=True)


def fingerprint(decisions: Decisions, view: AgentView | None = None) -> dict[str, Any]:
    """The fingerprint (a flat dict of numbers and names) of recorded decisions; see the module
    docstring. Shares are of contested decisions; NaN where a measure does not apply."""
    n = len(decisions.actions)
    fp: dict[str, Any] = {"decisions": int(decisions.total), "contested": n}
    if n == 0:
        return fp
    masks = np.stack(decisions.masks)
    actions = np.asarray(decisions.actions)
    fp["chance"] = float(np.mean(1.0 / masks.sum(axis=1)))
    # an unmasked agent may pick an invalid action (DeepRM: an empty or unfit slot moves time on)
    fp["invalid_share"] = float(np.mean(~masks[np.arange(n), np.clip(actions, 0, masks.shape[1] - 1)]
                                        | (actions < 0) | (actions >= masks.shape[1])))
    for name in HEURISTICS:
        picks = np.asarray([p[name] for p in decisions.picks])
        fp[f"agree_{name}"] = float(np.mean(picks == actions))
    counts = np.bincount(actions, minlength=masks.shape[1])
    for k, c in enumerate(counts):
        fp[f"agree_slot_{k}"] = float(c / n)
    fp["top_slot"] = int(np.argmax(counts))
    fp["top_slot_share"] = float(counts.max() / n)
    if len(decisions.optimum) == n:
        opt = np.stack(decisions.optimum)
        fp["agree_ga"] = float(np.mean(opt[np.arange(n), np.clip(actions, 0, opt.shape[1] - 1)]
                                       & (actions >= 0) & (actions < opt.shape[1])))
        fp["ga_set_share"] = float(np.mean((opt & masks).sum(axis=1) / masks.sum(axis=1)))
    fp["plays_as"] = plays_as(fp)
    view = view or AgentView()
    if view.scores is None or not decisions.inputs:
        return fp
    m = len(decisions.inputs)
    sub_masks = masks[:m]

    def run():
        return np.asarray(view.scores(decisions.inputs), dtype=np.float64)

    if view.module is not None:
        holder: dict = {}
        units, dead = _hidden_activity(view.module, lambda: holder.setdefault("s", run()))
        scores = holder["s"]
        fp["hidden_units"] = units
        fp["dead_share"] = float(dead / units) if units else float("nan")
    else:
        scores = run()
    valid_scores = np.where(sub_masks, scores, np.nan)
    fp["spread_across_slots"] = float(np.nanmean(np.nanstd(valid_scores, axis=1)))
    per_slot = [np.std(valid_scores[sub_masks[:, k], k]) for k in range(scores.shape[1]) if sub_masks[:, k].sum() >= 2]
    fp["spread_across_states"] = float(np.mean(per_slot)) if per_slot else float("nan")
    greedy = np.argmax(np.where(sub_masks, scores, -np.inf), axis=1)
    fp["greedy_matches_played"] = float(np.mean(greedy == actions[:m]))
    if view.logits:
        p = _masked_softmax(scores, sub_masks)
        top = p.max(axis=1)
        fp["entropy_median"] = float(np.median(-(np.where(p > 0, p * np.log(np.where(p > 0, p, 1)), 0)).sum(axis=1)))
        fp["entropy_uniform_median"] = float(np.median(np.log(sub_masks.sum(axis=1))))
        fp["top_prob_median"] = float(np.median(top))
        fp["top_prob_ge_099"] = float(np.mean(top >= 0.99))
    if view.zeroed is not None:
        zeroed = np.asarray(view.scores([view.zeroed(x) for x in decisions.inputs]), dtype=np.float64)
        fp["zeroed_obs_agree"] = float(np.mean(np.argmax(np.where(sub_masks, zeroed, -np.inf), axis=1) == actions[:m]))
    return fp


def plays_as(fp: dict, threshold: float = PLAYS_AS) -> str:
    """The picker (a heuristic, else a fixed slot) the agent follows on >= ``threshold`` of its
    contested decisions, e.g. ``"fcfs"`` or ``"slot 1"``; "" if none."""
    if not fp.get("contested"):
        return ""
    best = max(HEURISTICS, key=lambda h: fp.get(f"agree_{h}", 0.0))  # ties: the earlier in HEURISTICS
    if fp.get(f"agree_{best}", 0.0) >= threshold:
        return best
    if fp.get("top_slot_share", 0.0) >= threshold:
        return f"slot {fp['top_slot']}"
    return ""


def describe(fp: dict) -> str:
    """One line for a claim's note, e.g. ``plays as FCFS (99% of 412 contested decisions)``."""
    name = fp.get("plays_as") or plays_as(fp)
    if not name:
        return ""
    share = fp[f"agree_{name}"] if name in HEURISTICS else fp["top_slot_share"]
    label = {"fcfs": "FCFS", "sjf": "SJF", "smallest_area": "smallest area first", "largest": "largest first",
             "first_valid": "the lowest valid slot"}
    return f"plays as {label.get(name, name)} ({share:.0%} of {fp['contested']} contested decisions)"


# -- files ------------------------------------------------------------------------------------------
def write_fingerprint(path: str | Path, fp: dict, **meta) -> None:
    """``fingerprint.json``: the fingerprint plus ``meta`` (agent, seed, episodes ...)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    clean = {k: (None if isinstance(v, float) and not np.isfinite(v) else v) for k, v in {**meta, **fp}.items()}
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(clean, indent=1, sort_keys=False) + "\n")
    tmp.replace(path)


def fingerprint_table(paths: Sequence[str | Path]):
    """One row per ``fingerprint.json`` (column ``path`` first): a paper's ``fingerprints.csv``."""
    import pandas as pd

    rows = [{"path": str(p), **json.loads(Path(p).read_text())} for p in paths]
    frame = pd.DataFrame(rows)
    slots = sorted((c for c in frame.columns if c.startswith("agree_slot_")), key=lambda c: int(c.rsplit("_", 1)[1]))
    rest = [c for c in frame.columns if c not in slots]
    return frame[rest + slots] if len(frame) else frame


def write_fingerprint_table(paths: Sequence[str | Path], out: str | Path):
    """``fingerprint_table(paths)`` written to ``out`` (a paper's ``fingerprints.csv``); returns it."""
    from schedrl.io import write_csv

    frame = fingerprint_table(paths)
    write_csv(out, frame, float_format="%.4g")
    return frame


def play_recorded(env, policy: Callable, resets: Sequence[dict], recorder: FingerprintRecorder | None = None,
                  max_steps: int = 10_000_000) -> FingerprintRecorder:
    """Play one episode per ``resets`` entry (``env.reset(**entry)``) with ``policy(obs, env)``,
    recording every decision; returns the recorder."""
    recorder = recorder or FingerprintRecorder(env)
    act = recorder.wrap(policy)
    for kwargs in resets:
        obs, _ = env.reset(**kwargs)
        for _ in range(max_steps):
            obs, _, terminated, truncated, _ = env.step(act(obs, env))
            if terminated or truncated:
                break
    return recorder
