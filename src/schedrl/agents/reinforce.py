"""REINFORCE (Monte-Carlo policy gradient) as DeepRM trained it, generic enough for DRAS/SEM.

DeepRM (Mao et al. 2016, hongzimao/deeprm ``pg_re.py``/``pg_network.py``): a policy network with one
hidden layer of 20 ReLU units and a softmax over ``num_nw + 1`` actions on the flattened image; one
*iteration* visits every training job set ("example", ``num_ex``) in a shuffled order and plays ``trajectories``
(``num_seq_per_batch``, 20) episodes of it with actions sampled from the policy; returns are
discounted (discount 1); the *time-dependent baseline* at step t is the mean over that job set's
trajectories of the return at t (shorter trajectories padded with zeros, as DeepRM's
``np.concatenate([ret, np.zeros(maxlen - len(ret))])``); advantage = return - baseline; loss
``-mean(log pi(a|s) * advantage)``; RMSProp (lr 0.001, rho 0.9, eps 1e-9: DeepRM's parameters.py).
DeepRM summed the gradients of ``batch_size`` (10) job sets per update; ``examples_per_update``
does the same here (the loss of each job set is its mean over samples; the batch's loss is the
sum over its job sets).

The DRAS/SEM variant (sem-encoding.txt, CQSim DRAS) is the same loop with ``baseline: normalise``
(returns of the batch standardised to mean 0 / std 1), discount 0.6, Adam lr 0.01 and a larger net.
DRAS's code updates on every few scheduling passes within an episode; ``update_every`` N does that
for one-trajectory runs (``play_in_segments``: an update on every N decisions, returns and
advantages within them); 0, the default, keeps one update per ``examples_per_update`` job sets.
``contested_only`` (issue 37; needs ``mask_actions``) keeps decisions with one valid action out of
the loss's mean and the normalisation (they carry no gradient but skewed the advantages); SEM's
default since then also plays several trajectories per update, as DeepRM's agent does.

Rollouts: every trajectory of every job set of one update (``examples_per_update`` x
``trajectories``, DeepRM's 10 x 20 = 200 env copies) is played in one batch (``play_batch``), one
forward pass per step (numpy for dense stacks, torch otherwise), the observations written into one
array kept across iterations; the policy does not change within an update, each trajectory draws
its actions from its own random stream keyed by (seed, iteration, job set, trajectory[, the
agent's ``stream`` key]), and each
job set's loss is taken on its own samples in the order a lockstep rollout of that job set alone
sees them, so playing job sets one at a time (``batch_examples=False``) or trajectories one at a
time (``lockstep=False``) gives the same samples and learning. On DeepRM's env with the options
its own agent uses (discrete image; ``compiled_env_ok``) the batch is stepped by
``schedrl.envs.grid_batch.GridBatch``, one numba call per step for all grids, which writes each job
set's observations into its own contiguous block (its loss reads a slice) and the running ones into
the step's batch (``CompiledRollouts``); other envs step the Python envs (``play_batch``). Bitwise equality of the samples
rests on a row's logits not depending on the batch it is computed in; float32 BLAS may round a
row differently in batches of other sizes (~1e-7), which flips a sample only when its uniform
draw lands that close to a boundary of the cumulative softmax (the tests see identical runs).

Heads: ``Discrete(n)`` gets a softmax head; ``MultiBinary(n)`` gets one Bernoulli per slot (an
extension: DeepRM itself only had the discrete head). With ``mask_actions`` the env's
``action_masks()`` (discrete only) zero out invalid actions; DeepRM did not mask (default off).

Run folder: ``schedrl.agents.runs.RunFolder``'s, as for SB3 runs: ``config.json``,
``hyperparams.yaml`` (the resolved ``ReinforceConfig``), ``command.txt``, ``model.zip`` (a
``torch.save`` archive holding network weights and architecture), ``learning_curve.csv`` (one row
per training episode: timesteps, env, reward, length and the wrappers' info keywords),
``timing.json``, and ``checkpoints/iter_<k>.pt`` (model, optimiser, iteration, steps, the curve so
far and every RNG state) every ``checkpoint_every`` iterations (default: ten per run), at the end
and on Ctrl-C (the last two kept, and those at 1/8, 1/4 and 1/2 of the iterations, which the
claims' budget evaluations play: ``RunFolder.budget_checkpoints``): a rerun resumes from the newest checkpoint and trains up to the
target iteration count, giving the same learning curve and weights as an uninterrupted run, and the
same checkpoint files (one Ctrl-C or SIGTERM wrote between the periodic ones is dropped once a newer
one stands; ``tests/test_exact_resume_own_loops.py`` kills DeepRM's, SEM's and MRSch's runs).
"""

from __future__ import annotations

import copy
import math
import random
import sys
from collections.abc import Callable, Sequence
from dataclasses import MISSING, asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np

from schedrl.agents.device import resolve_device
from schedrl.agents.hyperparams import check_types
from schedrl.agents.networks import NETWORKS, activation_class, build
from schedrl.agents.runs import RunFolder, begin_run, default_checkpoint_every, progress_bar
from schedrl.agents.tensorboard import ScalarLog, require_tensorboard
from schedrl.envs import jobset_count
from schedrl.errors import ConfigError
from schedrl.protocol import BUDGET_FRACTIONS

BASELINES = ("time", "normalise", "none")
OPTIMIZERS = ("rmsprop", "adam", "sgd")


@dataclass
class ReinforceConfig:
    """Hyperparameters (``hyperparams/deeprm_pg.yaml`` holds DeepRM's values)."""

    network: str = "mlp"  # a name in schedrl.agents.networks.NETWORKS
    hidden: list[int] = field(default_factory=lambda: [20])
    activation: str = "relu"
    discount: float = 1.0
    baseline: str = "time"
    optimizer: str = "rmsprop"
    learning_rate: float = 1e-3
    rms_rho: float = 0.9
    rms_eps: float = 1e-9
    trajectories: int = 20
    examples_per_update: int = 10
    mask_actions: bool = False
    #: 0: one update per ``examples_per_update`` job sets (DeepRM's). N > 0 (needs ``trajectories``
    #: and ``examples_per_update`` 1): an update on every N consecutive decisions of the trajectory,
    #: returns discounted and advantages taken within those N (DRAS's "batch training", CQSim PG's
    #: training_size, which counts scheduling passes rather than decisions)
    update_every: int = 0
    #: True (needs ``mask_actions``): the loss and the advantages' normalisation use only the
    #: *contested* decisions, those whose mask allows two or more actions. A decision with one valid
    #: action has log p = 0 (no gradient), but it still counted in the loss's mean and in the
    #: normalisation: on SEM's Theta env 72% of decisions have one valid slot, which shifted the
    #: contested ones' normalised advantages to +1.39 sd on average, so every update raised whatever
    #: was sampled. Returns are still discounted over every reward. False: DeepRM's/DRAS's (all).
    contested_only: bool = False

    @classmethod
    def from_dict(cls, params: dict[str, Any]) -> ReinforceConfig:
        params = dict(params)
        params.pop("policy", None)  # keys load_hyperparams adds for SB3 algorithms
        params.pop("n_envs", None)
        params.pop("vec_env", None)
        known = set(cls.__dataclass_fields__)
        for key in params:
            if key not in known:
                raise ConfigError(f"deeprm_pg: unknown hyperparameter '{key}' (known: {', '.join(sorted(known))})")
        check_types({f.name: f.default for f in fields(cls) if f.default is not MISSING}, params, "deeprm_pg",
                    counts=frozenset({"trajectories", "examples_per_update"}), untyped=frozenset())
        cfg = cls(**params)
        if cfg.baseline not in BASELINES:
            raise ConfigError(f"deeprm_pg: baseline must be one of {', '.join(BASELINES)}, got '{cfg.baseline}'")
        if cfg.optimizer.lower() not in OPTIMIZERS:
            raise ConfigError(f"deeprm_pg: optimizer must be one of {', '.join(OPTIMIZERS)}, got '{cfg.optimizer}'")
        if not 0 <= cfg.discount <= 1 or cfg.learning_rate <= 0 or cfg.trajectories < 1 or cfg.examples_per_update < 1:
            raise ConfigError("deeprm_pg: need 0 <= discount <= 1, learning_rate > 0, trajectories >= 1, "
                              "examples_per_update >= 1")
        if cfg.update_every < 0:  # an integer: check_types
            raise ConfigError(f"deeprm_pg: update_every must be an integer >= 0, got {cfg.update_every!r}")
        if cfg.update_every and (cfg.trajectories != 1 or cfg.examples_per_update != 1):
            raise ConfigError("deeprm_pg: update_every > 0 needs trajectories 1 and examples_per_update 1 "
                              f"(got {cfg.trajectories} and {cfg.examples_per_update})")
        if cfg.contested_only and not cfg.mask_actions:
            raise ConfigError("deeprm_pg: contested_only needs mask_actions true (without masks every action "
                              "is valid, so every decision is contested)")
        if cfg.network not in NETWORKS:
            raise ConfigError(f"deeprm_pg: network must be one of {', '.join(NETWORKS)}, got '{cfg.network}'")
        if not all(isinstance(w, int) and w > 0 for w in cfg.hidden):
            raise ConfigError(f"deeprm_pg: hidden must be a list of positive widths, got {cfg.hidden!r}")
        return cfg

    def record(self) -> dict:
        """The hyperparameters as recorded in run folders: ``update_every`` and ``contested_only``
        only when set, so runs from before the options keep their recorded config (and are not
        retrained)."""
        out = asdict(self)
        if not out["update_every"]:
            out.pop("update_every")
        if not out["contested_only"]:
            out.pop("contested_only")
        return out


# ---------------------------------------------------------------------------------------------
# Returns, baselines, advantages (pure numpy: tested by hand)

def discounted_returns(rewards: Sequence[float], discount: float) -> np.ndarray:
    """``G_t = r_t + discount * G_{t+1}`` (DeepRM's ``discount``)."""
    out = np.zeros(len(rewards))
    running = 0.0
    for t in range(len(rewards) - 1, -1, -1):
        running = float(rewards[t]) + discount * running
        out[t] = running
    return out


def time_baseline(returns: Sequence[np.ndarray]) -> np.ndarray:
    """Mean over trajectories of the return at each step, shorter ones padded with zeros (DeepRM)."""
    maxlen = max(len(r) for r in returns)
    padded = np.stack([np.concatenate([r, np.zeros(maxlen - len(r))]) for r in returns])
    return padded.mean(axis=0)


def advantages(returns: Sequence[np.ndarray], kind: str,
               contested: Sequence[np.ndarray] | None = None) -> list[np.ndarray]:
    """Advantages of one job set's trajectories: ``time`` = return - time baseline, ``normalise`` =
    returns standardised over all steps of the trajectories, ``none`` = the returns.

    ``contested`` (``contested_only``): per trajectory, which steps had two or more valid actions;
    ``normalise`` then takes the mean and std over those steps only, and every other step's
    advantage is 0 (it leaves the loss). The time baseline stays the mean over trajectories of
    the return at each step index, every step counted: an uncontested step's return is as good
    a sample of what the job set is worth at that index."""
    if contested is not None:
        keep = [np.asarray(c, dtype=bool) for c in contested]
        if kind == "normalise":
            flat = np.concatenate([np.asarray(r, dtype=float)[c] for r, c in zip(returns, keep)])
            mean, std = (flat.mean(), flat.std()) if len(flat) else (0.0, 0.0)
            full = [(np.asarray(r, dtype=float) - mean) / (std if std > 0 else 1.0) for r in returns]
        else:
            full = advantages(returns, kind)
        return [np.where(c, a, 0.0) for a, c in zip(full, keep)]
    if kind == "time":
        base = time_baseline(returns)
        return [r - base[:len(r)] for r in returns]
    if kind == "normalise":
        flat = np.concatenate(returns)
        std = flat.std()
        return [(r - flat.mean()) / (std if std > 0 else 1.0) for r in returns]
    if kind == "none":
        return [np.asarray(r, dtype=float) for r in returns]
    raise ConfigError(f"unknown baseline '{kind}'")


def segment_advantages(rewards: Sequence[float], every: int, discount: float, kind: str,
                       contested: Sequence[bool] | None = None) -> list[np.ndarray]:
    """``update_every``'s advantages: the rewards cut into consecutive segments of ``every``
    decisions (the last may be shorter), each segment's returns discounted within it (a return
    stops at the segment's end, as DRAS's batch training computes them) and ``advantages``
    taken over that segment alone (``contested``: per decision, as ``advantages``')."""
    return [advantages([discounted_returns(rewards[i:i + every], discount)], kind,
                       None if contested is None else [np.asarray(contested[i:i + every], dtype=bool)])[0]
            for i in range(0, len(rewards), every)]


def contested_rows(masks: np.ndarray) -> np.ndarray:
    """Which decisions (rows of an action-mask array) allow two or more actions."""
    return np.asarray(masks, dtype=bool).sum(axis=-1) >= 2


def policy_loss(logp, adv: np.ndarray, keep: np.ndarray | None = None):
    """``-mean(log pi(a|s) * advantage)``, the mean over every row or, with ``keep``
    (``contested_only``), over the kept rows alone; ``None`` when no row is kept (no gradient)."""
    import torch

    adv = torch.as_tensor(adv, dtype=torch.float32, device=logp.device)
    if keep is None:
        return -(logp * adv).mean()
    if not keep.any():
        return None
    idx = torch.as_tensor(np.flatnonzero(keep), device=logp.device)
    return -(logp[idx] * adv[idx]).mean()


# ---------------------------------------------------------------------------------------------
# Policy network

def _space_head(space) -> tuple[str, int]:
    kind = type(space).__name__
    if kind == "Discrete":
        return "categorical", int(space.n)
    if kind == "MultiBinary":
        return "bernoulli", int(np.prod(space.n))
    raise ConfigError(f"deeprm_pg supports Discrete and MultiBinary action spaces, not {kind}")


def build_network(n_inputs: int, n_outputs: int, hidden: Sequence[int], activation: str = "relu",
                  network: str = "mlp"):
    """The policy network (``schedrl.agents.networks``); activation errors name this agent."""
    activation_class(activation, "deeprm_pg")
    return build(network, n_inputs, n_outputs, hidden, activation)


def _categorical_picks(logits: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Row i's action drawn from the softmax of ``logits[i]`` by the uniform ``u[i]`` (inverse CDF)."""
    z = np.cumsum(np.exp(logits - logits.max(axis=1, keepdims=True)), axis=1)
    u = u * z[:, -1]
    return np.minimum((z <= u[:, None]).sum(axis=1), z.shape[1] - 1)


class ReinforcePolicy:
    """A network plus its head; ``predict`` mirrors SB3's so evaluation code treats it alike."""

    def __init__(self, net, head: str, n_actions: int, obs_shape: tuple[int, ...], meta: dict,
                 mask_actions: bool = False):
        self.net, self.head, self.n_actions, self.obs_shape = net, head, n_actions, tuple(obs_shape)
        self.meta, self.mask_actions = meta, mask_actions
        self.device = "cpu"
        self._numpy = None  # weights as numpy arrays for cheap one-observation forwards

    def to(self, device: str) -> ReinforcePolicy:
        """Move the network to a torch ``device`` (``cpu``, ``cuda``, ``cuda:N``)."""
        self.net.to(device)
        self.device = str(device)
        self.invalidate()
        return self

    def invalidate(self) -> None:
        """Call after the weights change (optimiser step, load)."""
        self._numpy = None

    def _numpy_layers(self):
        """The network as numpy layers, or ``None`` when it is not a plain dense stack."""
        if self._numpy is None:
            import torch.nn as nn

            layers = []
            for module in self.net:
                if isinstance(module, nn.Linear):
                    layers.append(("linear", module.weight.detach().cpu().numpy().T.copy(),
                                   module.bias.detach().cpu().numpy().copy()))
                elif isinstance(module, (nn.ReLU, nn.Tanh, nn.LeakyReLU)):
                    layers.append((type(module).__name__, None, None))
                elif not isinstance(module, nn.Flatten):
                    layers = False  # another architecture: torch does the forward pass
                    break
            self._numpy = layers
        return self._numpy or None

    def forward_batch(self, obs) -> np.ndarray:
        """Logits ``(batch, n_actions)`` (float64) of a batch of observations, without autograd.
        Dense stacks run in numpy (float32, as torch): a torch call costs more than a small net's
        arithmetic."""
        x = np.asarray(obs).reshape(-1, int(np.prod(self.obs_shape)))
        layers = self._numpy_layers() if self.device == "cpu" else None
        if layers is None:
            import torch

            with torch.no_grad():
                x = torch.as_tensor(x, dtype=torch.float32, device=self.device)
                return self.net(x).cpu().numpy().astype(np.float64)
        x = x.astype(np.float32, copy=False)
        for kind, w, b in layers:
            if kind == "linear":
                x = x @ w + b
            elif kind == "ReLU":
                x = np.maximum(x, 0.0)
            elif kind == "Tanh":
                x = np.tanh(x)
            else:  # LeakyReLU, torch's default slope
                x = np.where(x > 0, x, np.float32(0.01) * x)
        return x.astype(np.float64)

    def _forward_numpy(self, obs) -> np.ndarray:
        """Logits of one observation."""
        return self.forward_batch(obs)[0]

    def logits(self, obs):
        import torch

        x = torch.as_tensor(np.asarray(obs, dtype=np.float32), device=self.device)
        return self.net(x.reshape(-1, int(np.prod(self.obs_shape))))

    def distribution(self, obs, masks=None):
        import torch

        logits = self.logits(obs)
        if self.head == "bernoulli":
            return torch.distributions.Bernoulli(logits=logits)
        if masks is not None:
            masks = torch.as_tensor(np.asarray(masks, dtype=bool), device=self.device).reshape(logits.shape)
            logits = logits.masked_fill(~masks, float("-inf"))
        return torch.distributions.Categorical(logits=logits)

    def log_prob(self, obs, actions, masks=None):
        import torch

        dist = self.distribution(obs, masks)
        actions = torch.as_tensor(np.asarray(actions), device=self.device)
        if self.head == "bernoulli":
            return dist.log_prob(actions.float()).sum(-1)
        return dist.log_prob(actions.long())

    def sample(self, obs, rng: np.random.Generator, mask=None, deterministic: bool = False):
        """One action for one observation, drawn with the numpy ``rng`` (seeded, cheap)."""
        masks = None if mask is None else np.asarray(mask, dtype=bool)[None]
        return self.sample_batch(obs, [rng], masks, deterministic)[0]

    def sample_batch(self, obs, rngs: Sequence[np.random.Generator], masks=None, deterministic: bool = False):
        """One action per observation of a batch, row i drawn with ``rngs[i]``: one forward pass for
        the batch, and a row's draw depends only on its own stream, so a trajectory's actions are the
        same whether it is played alone or in lockstep with others."""
        logits = self.forward_batch(obs)
        n = len(logits)
        if self.head == "bernoulli":
            p = 1.0 / (1.0 + np.exp(-logits))
            if deterministic:
                return list((p > 0.5).astype(np.int8))
            return [(rngs[i].random(p.shape[1]) < p[i]).astype(np.int8) for i in range(n)]
        if masks is not None and self.mask_actions:
            logits = np.where(np.asarray(masks, dtype=bool).reshape(logits.shape), logits, -np.inf)
        if deterministic:
            return [int(a) for a in np.argmax(logits, axis=1)]
        u = np.fromiter((rng.random() for rng in rngs), dtype=np.float64, count=n)
        return [int(a) for a in _categorical_picks(logits, u)]

    def predict(self, obs, deterministic: bool = False, action_masks=None, state=None, episode_start=None):
        """SB3-style ``(action, None)``; sampling uses torch's global RNG (seeded by the caller)."""
        import torch

        rng = np.random.default_rng(int(torch.randint(0, 2**62, (1,)).item()))
        return self.sample(obs, rng, action_masks, deterministic), None

    # -- persistence ----------------------------------------------------------------------------
    def state(self) -> dict:
        return {"meta": self.meta, "head": self.head, "n_actions": self.n_actions, "obs_shape": list(self.obs_shape),
                "mask_actions": self.mask_actions,
                "weights": {k: v.detach().cpu() for k, v in self.net.state_dict().items()}}

    @classmethod
    def from_state(cls, state: dict) -> ReinforcePolicy:
        meta = state["meta"]
        net = build_network(int(np.prod(state["obs_shape"])), int(state["n_actions"]), meta["hidden"],
                            meta["activation"], meta.get("network", "mlp"))
        net.load_state_dict(state["weights"])  # a fresh object: no numpy cache yet
        return cls(net, state["head"], int(state["n_actions"]), tuple(state["obs_shape"]), meta,
                   bool(state["mask_actions"]))

    @classmethod
    def load(cls, path, device: str = "cpu", **_) -> ReinforcePolicy:
        """Load a ``model.zip`` written by ``train_reinforce`` (SB3's ``load`` signature)."""
        import torch

        return cls.from_state(torch.load(path, map_location="cpu", weights_only=False)).to(resolve_device(device))

    def save(self, path) -> None:
        _torch_save(self.state(), path)


def make_policy(env, cfg: ReinforceConfig) -> ReinforcePolicy:
    head, n_out = _space_head(env.action_space)
    if cfg.mask_actions and head != "categorical":
        raise ConfigError("deeprm_pg: mask_actions needs a Discrete action space")
    shape = env.observation_space.shape
    net = build_network(int(np.prod(shape)), n_out, cfg.hidden, cfg.activation, cfg.network)
    meta = {"network": cfg.network, "hidden": list(cfg.hidden), "activation": cfg.activation}
    return ReinforcePolicy(net, head, n_out, shape, meta, cfg.mask_actions)


def make_optimizer(params, cfg: ReinforceConfig):
    import torch.optim as optim

    name = cfg.optimizer.lower()
    if name == "rmsprop":
        return optim.RMSprop(params, lr=cfg.learning_rate, alpha=cfg.rms_rho, eps=cfg.rms_eps)
    if name == "adam":
        return optim.Adam(params, lr=cfg.learning_rate)
    return optim.SGD(params, lr=cfg.learning_rate)


# ---------------------------------------------------------------------------------------------
# Training

def _mask(env, info) -> np.ndarray:
    """The env's current action mask (the DeepRM env already puts it in ``info``)."""
    mask = info.get("action_mask")
    return np.asarray(env.get_wrapper_attr("action_masks")() if mask is None else mask, dtype=bool)


@dataclass
class Rollout:
    """Trajectories played together. ``obs`` holds every observation once, in the order they were
    seen (step by step across trajectories: no regrouping copy of large images); trajectory j's
    rows of it are ``trajs[j]["rows"]``, in time order."""

    obs: np.ndarray
    trajs: list[dict]

    def trajectory_obs(self, j: int) -> np.ndarray:
        return self.obs[self.trajs[j]["rows"]]


class ObsBuffer:
    """A growing float32 array that rollouts write their observations into, one row per step; kept
    across iterations so the memory is allocated (and paged in) once, not every step."""

    def __init__(self, shape: tuple[int, ...], rows: int = 0):
        self.shape = tuple(shape)
        self.array = np.empty((max(int(rows), 1), *self.shape), dtype=np.float32)

    def reserve(self, rows: int) -> np.ndarray:
        """The array, grown (by a quarter at least, keeping its rows) to hold ``rows`` rows."""
        if rows > len(self.array):
            grown = np.empty((max(rows, len(self.array) + len(self.array) // 4), *self.shape), dtype=np.float32)
            grown[:len(self.array)] = self.array
            self.array = grown
        return self.array


def play_batch(envs: Sequence[Any], policy: ReinforcePolicy, rngs: Sequence[np.random.Generator],
               resets: Sequence[tuple[int | None, dict | None]], info_keywords: Sequence[str] = (),
               buffer: ObsBuffer | None = None) -> Rollout:
    """One trajectory per env, all stepped together, env i reset with ``resets[i]`` (seed, options)
    and sampling with ``rngs[i]``: each step is one batched forward pass over the envs still running,
    whose observations are written straight into one array (``buffer``'s, reused across calls: the
    returned ``Rollout.obs`` is a view of it, valid until the buffer's next use). Rows are in step
    order, the running envs of a step in env order. Each trajectory has its row indices, actions,
    masks (with ``mask_actions``), rewards and the final info's ``info_keywords``."""
    n, masked = len(envs), policy.mask_actions
    trajs = [{"rows": [], "actions": [], "masks": [], "rewards": [], "info": {}} for _ in range(n)]
    infos = [None] * n
    first = [None] * n
    for i, env in enumerate(envs):
        first[i], infos[i] = env.reset(seed=resets[i][0], options=resets[i][1])
    shape = np.shape(first[0])
    buffer = buffer if buffer is not None else ObsBuffer(shape, 64 * n)
    buf = buffer.reserve(n)
    for i in range(n):
        buf[i] = first[i]
    seen = 0
    active = list(range(n))
    while active:
        m = len(active)
        batch = buf[seen:seen + m]
        masks = np.stack([_mask(envs[i], infos[i]) for i in active]) if masked else None
        actions = policy.sample_batch(batch, [rngs[i] for i in active], masks)
        buf = buffer.reserve(seen + 2 * m)  # room for the next step's rows
        still = []
        nxt = seen + m
        for k, i in enumerate(active):
            t = trajs[i]
            t["rows"].append(seen + k)
            t["actions"].append(actions[k])
            if masked:
                t["masks"].append(masks[k])
            ob, reward, terminated, truncated, infos[i] = envs[i].step(actions[k])
            t["rewards"].append(float(reward))
            if terminated or truncated:
                t["info"] = {key: float("nan") if infos[i].get(key) is None else float(infos[i][key])
                             for key in info_keywords}
            else:
                buf[nxt + len(still)] = ob
                still.append(i)
        seen = nxt
        active = still
    return Rollout(buf[:seen], trajs)


def play_lockstep(envs: Sequence[Any], policy: ReinforcePolicy, rngs: Sequence[np.random.Generator],
                  reset_seed: int | None, options: dict | None, info_keywords: Sequence[str] = ()) -> Rollout:
    """``play_batch`` with every env reset alike (the trajectories of one job set), into a fresh array."""
    return play_batch(envs, policy, rngs, [(reset_seed, options)] * len(envs), info_keywords)


def play(env, policy: ReinforcePolicy, rng: np.random.Generator, reset_seed: int | None,
         options: dict | None, info_keywords: Sequence[str] = ()) -> Rollout:
    """One trajectory on ``env`` (``play_lockstep`` with one env)."""
    return play_lockstep([env], policy, [rng], reset_seed, options, info_keywords)


class CompiledRollouts:
    """``play_batch`` on ``schedrl.envs.grid_batch.GridBatch`` (the DeepRM env's options it
    reproduces exactly; ``compiled_env_ok`` says which): every trajectory of an update stepped by
    one numba call per step, each job set's observations written straight into its own contiguous
    block of one array kept across iterations (rows in the order that job set's lockstep rollout
    sees them, so its loss reads a slice: no gathering) and, for the step's one forward pass, into
    one array of the running trajectories' current rows (as ``play_batch``'s), and each trajectory's uniforms drawn from its stream in chunks
    (the same numbers as one ``rng.random()`` per step). Same samples as ``play_batch``."""

    CHUNK = 256  # uniforms drawn per trajectory at a time

    def __init__(self, env, n_envs: int, trajectories: int):
        from schedrl.envs.grid_batch import GridBatch

        self.batch = GridBatch(env, n_envs)
        self.T = int(trajectories)
        groups = -(-n_envs // self.T)
        self.obs = np.empty((groups, 64 * self.T, *self.batch.obs_shape), dtype=np.float32)
        self.masks = np.empty((groups, 64 * self.T, self.batch.n_actions), dtype=bool)
        self.traj = np.empty((groups, 64 * self.T), dtype=np.int64)  # trajectory (within its job set) of a row
        self.action = np.empty((groups, 64 * self.T), dtype=np.int64)
        self.reward = np.empty((groups, 64 * self.T), dtype=np.float64)
        self.draws = np.empty((n_envs, self.CHUNK), dtype=np.float64)
        # the running trajectories' current observations and masks, in order: one forward pass
        self.cur_obs = np.empty((n_envs, *self.batch.obs_shape), dtype=np.float32)
        self.cur_masks = np.empty((n_envs, self.batch.n_actions), dtype=bool)

    def _room(self, rows: int) -> None:
        """Grow every job set's block (doubling at least) to hold ``rows`` rows."""
        cap = self.obs.shape[1]
        if rows <= cap:
            return
        cap = max(rows, 2 * cap)  # untouched rows cost address space only
        for name in ("obs", "masks", "traj", "action", "reward"):
            old = getattr(self, name)
            grown = np.empty((old.shape[0], cap, *old.shape[2:]), dtype=old.dtype)
            grown[:, :old.shape[1]] = old
            setattr(self, name, grown)

    def play(self, policy: ReinforcePolicy, rngs: Sequence[np.random.Generator], jobsets: Sequence[int],
             info_keywords: Sequence[str] = ()) -> list[tuple[int, list[dict]]]:
        """Trajectory i on job set ``jobsets[i]`` with ``rngs[i]``; trajectories ``k*T..(k+1)*T-1``
        form job set block k. Returns per block its row count and its trajectories (actions,
        rewards and final info; rows are the block's, ``self.obs[k, :rows]``)."""
        batch, T, K = self.batch, self.T, self.CHUNK
        n = len(rngs)
        G = -(-n // T)
        group = np.arange(n, dtype=np.int64) // T
        cursor = np.zeros(G, dtype=np.int64)
        cur = np.arange(n, dtype=np.int64) % T  # each trajectory's current row in its block
        self._room(T)
        for i in range(n):
            batch.reset(i, int(jobsets[i]))
            batch.observe(i, self.obs[group[i], cur[i]], self.masks[group[i], cur[i]])
            self.cur_obs[i] = self.obs[group[i], cur[i]]
            self.cur_masks[i] = self.masks[group[i], cur[i]]
        self.traj[group, cur] = cur
        np.add.at(cursor, group, 1)
        pos = np.full(n, K, dtype=np.int64)
        infos: list[dict] = [{} for _ in range(n)]
        active = np.arange(n, dtype=np.int64)
        masked = policy.mask_actions
        while len(active):
            m = len(active)
            logits = policy.forward_batch(self.cur_obs[:m])
            if masked:
                logits = np.where(self.cur_masks[:m], logits, -np.inf)
            for i in active[pos[active] >= K]:
                self.draws[i] = rngs[i].random(K)
                pos[i] = 0
            u = self.draws[active, pos[active]]
            pos[active] += 1
            actions = _categorical_picks(logits, u).astype(np.int64)
            g_act = group[active]
            self.action[g_act, cur[active]] = actions
            self._room(int((cursor + np.bincount(g_act, minlength=G)).max()))
            rewards, ended, rows = batch.step(active, actions, self.obs, self.masks, group, cursor,
                                              self.cur_obs, self.cur_masks)
            self.reward[g_act, cur[active]] = rewards
            done = ended != 0
            for i in active[done]:
                final = batch.final_info(int(i))
                infos[i] = {key: float(final.get(key, float("nan"))) for key in info_keywords}
            keep = ~done
            active = active[keep]
            cur[active] = rows[keep]
            self.traj[group[active], rows[keep]] = active % T
        out = []
        for g in range(G):
            rows = int(cursor[g])
            traj = self.traj[g, :rows]
            order = np.argsort(traj, kind="stable")  # trajectory-major, each in time order
            ends = np.cumsum(np.bincount(traj, minlength=T))
            trajs = []
            for j in range(min(T, n - g * T)):
                idx = order[(ends[j - 1] if j else 0):ends[j]]
                trajs.append({"rows": idx, "actions": self.action[g, idx], "rewards": self.reward[g, idx],
                              "info": infos[g * T + j]})
            out.append((rows, trajs))
        return out


def compiled_env_ok(env, info_keywords: Sequence[str] = ()) -> bool:
    """Whether ``CompiledRollouts`` reproduces ``env`` and the final-info keywords asked for."""
    from schedrl.envs.grid_batch import final_info_keywords, supported

    return _space_head(env.action_space)[0] == "categorical" and supported(env) \
        and set(info_keywords) <= set(final_info_keywords(env))


def _concat(rollouts: Sequence[Rollout]) -> Rollout:
    """Rollouts as one: observations concatenated, each trajectory's rows shifted to match."""
    off, trajs = 0, []
    for r in rollouts:
        trajs += [{**t, "rows": [k + off for k in t["rows"]]} for t in r.trajs]
        off += len(r.obs)
    return Rollout(np.concatenate([r.obs for r in rollouts]), trajs)


def _example_rows(obs: np.ndarray, trajs: Sequence[dict], scratch: ObsBuffer | None = None):
    """The observations of ``trajs`` (some of ``obs``'s rows) in row order, and where each
    trajectory step (trajectories in turn, steps in time order) sits among them: one job set's
    samples in the order its lockstep rollout saw them, however many job sets were played with it.
    The gathered rows go into ``scratch``'s array (reused: no fresh memory every job set)."""
    rows = np.concatenate([np.asarray(t["rows"], dtype=np.int64) for t in trajs])
    ordered = np.sort(rows)
    if len(ordered) == len(obs) and ordered[-1] == len(obs) - 1:
        return obs, rows  # every row: no copy
    if scratch is None:
        return obs[ordered], np.searchsorted(ordered, rows)
    out = scratch.reserve(len(ordered))[:len(ordered)]
    np.take(obs, ordered, axis=0, out=out)
    return out, np.searchsorted(ordered, rows)


def play_in_segments(env, policy: ReinforcePolicy, optimizer, cfg: ReinforceConfig, rng: np.random.Generator,
                     reset: tuple[int | None, dict | None], info_keywords: Sequence[str] = ()) -> dict:
    """One trajectory with an update after every ``cfg.update_every`` decisions and at its end
    (``segment_advantages``; the loss is the segment's mean, as an update's in ``train_reinforce``),
    the next decisions sampled by the updated policy. Actions are drawn as ``play_batch`` draws
    them, so with ``update_every`` at least the trajectory's length this is ``train_reinforce``'s
    one-trajectory update. Returns the trajectory's rewards, final info keywords and updates."""
    ob, info = env.reset(seed=reset[0], options=reset[1])
    seg_obs, seg_actions, seg_masks, seg_rewards, rewards, updates = [], [], [], [], [], 0
    while True:
        mask = _mask(env, info) if policy.mask_actions else None
        action = policy.sample_batch(np.asarray(ob, dtype=np.float32)[None], [rng],
                                     None if mask is None else mask[None])[0]
        seg_obs.append(np.array(ob, dtype=np.float32))
        seg_actions.append(action)
        if mask is not None:
            seg_masks.append(mask)
        ob, reward, terminated, truncated, info = env.step(action)
        seg_rewards.append(float(reward))
        done = terminated or truncated
        if done or len(seg_rewards) == cfg.update_every:
            keep = contested_rows(np.stack(seg_masks)) if cfg.contested_only else None
            adv = segment_advantages(seg_rewards, len(seg_rewards), cfg.discount, cfg.baseline, keep)[0]
            optimizer.zero_grad()
            loss = policy_loss(policy.log_prob(np.stack(seg_obs), np.asarray(seg_actions),
                                               np.stack(seg_masks) if seg_masks else None), adv, keep)
            if loss is not None:
                loss.backward()
            optimizer.step()
            optimizer.zero_grad()
            policy.invalidate()
            updates += 1
            rewards += seg_rewards
            seg_obs, seg_actions, seg_masks, seg_rewards = [], [], [], []
        if done:
            final = {key: float("nan") if info.get(key) is None else float(info[key]) for key in info_keywords}
            return {"rewards": rewards, "info": final, "updates": updates}


def stream_key(stream: str | int | None) -> int | None:
    """An agent's stream key as an integer: a string hashed stably (``zlib.crc32`` of its UTF-8,
    the same in every process, unlike ``hash``), an integer >= 0 as it is, ``None`` none."""
    if stream is None:
        return None
    if isinstance(stream, bool) or not isinstance(stream, (str, int)) or (isinstance(stream, int) and stream < 0):
        raise ConfigError(f"deeprm_pg: stream must be a string or an integer >= 0, got {stream!r}")
    if isinstance(stream, str):
        import zlib

        return zlib.crc32(stream.encode("utf-8"))
    return int(stream)


def trajectory_rngs(seed: int, iteration: int, example: int, n: int,
                    stream: str | int | None = None) -> list[np.random.Generator]:
    """Independent streams, one per trajectory, keyed by (seed, iteration, example, trajectory):
    lockstep and one-at-a-time play draw the same actions, and a resumed run the same as a whole one.
    ``stream``: an agent's key (``stream_key``), appended to the key, so agents trained with the
    same seed (SEM's and DRAS's, say) draw independent actions; ``None`` keeps the streams as
    they were before the option (DeepRM's runs unchanged)."""
    key = stream_key(stream)
    extra = () if key is None else (key,)
    return [np.random.default_rng(np.random.SeedSequence(int(seed), spawn_key=(int(iteration), int(example), j,
                                                                                    *extra)))
            for j in range(n)]


def _rng_states(rng: np.random.Generator) -> dict:
    import random

    import torch

    return {"numpy": rng.bit_generator.state, "torch": torch.get_rng_state(), "python": random.getstate()}


def _set_rng_states(rng: np.random.Generator, states: dict) -> None:
    import random

    import torch

    rng.bit_generator.state = states["numpy"]
    torch.set_rng_state(states["torch"])
    random.setstate(states["python"])


def _folder(run_dir) -> RunFolder:
    return RunFolder(run_dir, prefix="iter_", suffix=".pt")


def checkpoints(run_dir) -> list[tuple[int, Path]]:
    """``(iteration, path)`` of a REINFORCE run's checkpoints, oldest first."""
    return _folder(run_dir).checkpoints()


@dataclass
class ReinforceResult:
    run_dir: Path
    iterations: int
    steps: int
    iterations_trained: int
    wall_time_s: float
    skipped: bool = False
    steps_trained: int = 0  # env steps of this invocation


def train_reinforce(make_env_fn: Callable[[], Any], cfg: ReinforceConfig, iterations: int, seed: int,
                    run_dir, *, config: dict | None = None, info_keywords: Sequence[str] = (),
                    examples: int | None = None, checkpoint_every: int | None = None, threads: int = 1,
                    on_iteration: Callable[[int, list[dict]], None] | None = None,
                    on_mismatch: str = "error", lockstep: bool = True, device: str = "cpu",
                    tensorboard: str | None = None, batch_examples: bool = True,
                    compiled_env: bool = True, stream: str | int | None = None) -> ReinforceResult:
    """Train a REINFORCE policy for ``iterations`` iterations into ``run_dir``.

    ``examples``: job sets per iteration; by default the env's ``num_jobsets`` (each reset with
    ``options={"jobset": k}``), else 1. Envs without job sets are reset with seed ``seed + k`` for
    example k, so all trajectories of one example start from the same state, as DeepRM's do.
    ``config`` is recorded in ``config.json``; a run folder holding another config is refused
    (``on_mismatch="restart"``: cleared). The run folder is ``schedrl.agents.runs.RunFolder``'s,
    checkpoints ``checkpoints/iter_<k>.pt`` (ten per run unless ``checkpoint_every`` says); Ctrl-C
    (KeyboardInterrupt, also from ``on_iteration``) writes one at the last finished iteration and
    re-raises, and a rerun resumes from the newest without a flag.

    ``lockstep``: the ``trajectories`` episodes of a job set are played together on as many envs
    (one batched forward pass per step); ``False`` plays them one after another on one env.
    ``batch_examples`` (with ``lockstep``): the job sets of an update are played together too
    (``examples_per_update x trajectories`` envs); ``False`` plays them one after another. All give
    the same samples, curve and weights (each trajectory has its own random stream).
    ``compiled_env`` (with ``batch_examples``): where the env is a DeepRM env with the options
    ``schedrl.envs.grid_batch`` reproduces (``compiled_env_ok``; DeepRM's own agent's), the update's
    trajectories are stepped by ``CompiledRollouts`` (one numba call per step for all grids), with
    the same samples, curve and weights; other envs, or ``False``, step the Python envs.
    ``device``: torch device of the network (``auto``: CUDA where there is one); on the CPU a
    dense stack's rollout forward passes run in numpy, elsewhere in torch on the device.
    ``tensorboard``: a folder for TensorBoard scalars per iteration (``schedrl.agents.tensorboard``).
    ``stream``: the agent's key for its action streams (``trajectory_rngs``; recorded in
    ``config.json`` when given): agents trained with one seed but different keys draw
    independent actions; ``None`` (default) keeps the streams keyed by the seed alone.
    """
    import torch

    begin_run(iterations, "iterations", checkpoint_every, threads)
    require_tensorboard(tensorboard)
    info_keywords = tuple(sys.intern(str(k)) for k in info_keywords)  # row keys (see the resume below)
    checkpoint_every = default_checkpoint_every(iterations, checkpoint_every)
    run_dir = Path(run_dir)
    folder = _folder(run_dir)
    stream_key(stream)  # a bad key: one ConfigError line before anything is written
    record = {**(config or {}), "algo": (config or {}).get("algo", "deeprm_pg"), "hyperparams": cfg.record(),
              "seed": int(seed), **({"stream": stream} if stream is not None else {})}
    start = folder.start({k: v for k, v in record.items() if k != "versions"}, iterations,
                         on_mismatch=on_mismatch, key="iterations", upto=iterations)
    if start.skip:
        from schedrl.io import read_json

        steps_done = int(read_json(folder.timing_file)["steps"])
        return ReinforceResult(run_dir, start.done, steps_done, 0, 0.0, skipped=True)

    env = make_env_fn()
    batched = lockstep and batch_examples
    n_examples = int(examples or jobset_count(env) or 1)
    n_envs = (min(cfg.examples_per_update, n_examples) if batched else 1) * cfg.trajectories if lockstep else 1
    compiled = None
    if batched and compiled_env and not cfg.update_every and compiled_env_ok(env, info_keywords):
        compiled = CompiledRollouts(env, n_envs, cfg.trajectories)
        envs = [env]  # the grids live in the batch
    else:
        envs = [env] + [make_env_fn() for _ in range(n_envs - 1)]
    python_rows = compiled is None  # the Python envs' arrays (the compiled batch keeps its own)
    buffer = ObsBuffer(env.observation_space.shape, 64 * n_envs if python_rows else 1)  # the update's observations
    scratch = ObsBuffer(env.observation_space.shape, 64 * cfg.trajectories if python_rows else 1)  # one job set's
    torch.manual_seed(seed)
    # Python's RNG: nothing here draws from it, but checkpoints hold its state, which would differ
    # from process to process (seeded from the OS) unless seeded
    random.seed(int(seed))
    rng = np.random.default_rng(seed)
    policy = make_policy(env, cfg)
    policy.to(resolve_device(device))
    optimizer = make_optimizer(policy.net.parameters(), cfg)
    first, steps, rows = 0, 0, []
    if start.checkpoint is not None:
        state = torch.load(start.checkpoint[1], map_location="cpu", weights_only=False)
        policy.net.load_state_dict(state["model"]["weights"])
        optimizer.load_state_dict(state["optimizer"])
        policy.invalidate()
        # the keys as the interned strings new rows use: a later checkpoint then pickles to the
        # bytes an uninterrupted run's does (pickle writes a string once per object)
        rows = [{sys.intern(k): v for k, v in row.items()} for row in state["curve"]]
        first, steps = int(state["iteration"]), int(state["steps"])
        _set_rng_states(rng, state["rng"])
    steps_before = steps
    folder.write_config({**record, "iterations": int(iterations), "examples": n_examples}, cfg.record())

    jobsets = jobset_count(env) is not None

    def _reset_args(ex: int) -> tuple[int | None, dict | None]:
        return (None, {"jobset": ex}) if jobsets else (seed + ex, None)
    board = ScalarLog(tensorboard, f"{record['algo']}_seed{seed}")
    bar = progress_bar(iterations, first, "iteration", f"deeprm_pg seed{seed}")
    # checkpoints at 1/8, 1/4 and 1/2 of training are kept for the claims' budget evaluations
    budget_iterations = {math.ceil(f * iterations) for f in BUDGET_FRACTIONS}
    # A copy of the state after the last finished iteration of this invocation: what Ctrl-C saves,
    # wherever in an iteration it lands (a resumed run's starting point is on disk already).
    last = None

    def on_grid(iteration: int) -> bool:  # the periodic checkpoints (Ctrl-C writes one off the grid)
        return iteration == iterations or iteration % checkpoint_every == 0 or iteration in budget_iterations

    def on_interrupt() -> dict:
        bar.close()
        board.close()
        for e in envs:
            e.close()
        if last is None:
            return {"trained": 0}
        _save_checkpoint(folder, last, rows[:last["rows"]], on_grid)
        return {"trained": last["steps"] - steps_before, "iterations": last["iteration"],
                "steps": last["steps"], "resumed_from_iteration": first}

    with folder.segment(on_interrupt) as clock:
        for it in range(first, iterations):
            optimizer.zero_grad()
            order = [int(k) for k in rng.permutation(n_examples)]  # DeepRM shuffles the job sets every iteration
            # the job sets whose gradients make one update share the weights their rollouts sample with
            for g in range(0, n_examples, cfg.examples_per_update):
                group = order[g:g + cfg.examples_per_update]
                if cfg.update_every:  # one job set, one trajectory, updated as it is played
                    ex = group[0]
                    t = play_in_segments(envs[0], policy, optimizer, cfg,
                                         trajectory_rngs(seed, it, ex, 1, stream)[0], _reset_args(ex), info_keywords)
                    steps += len(t["rewards"])
                    rows.append({"timesteps": steps, "env": ex, "reward": float(np.sum(t["rewards"])),
                                 "length": len(t["rewards"]), **t["info"]})
                    continue
                played = []  # (job set, its trajectories, their observations' array, its masks or None)
                if compiled is not None:  # rows already contiguous per job set, in lockstep order
                    rngs, sets = [], []
                    for ex in group:
                        rngs += trajectory_rngs(seed, it, ex, cfg.trajectories, stream)
                        sets += [ex] * cfg.trajectories
                    blocks = compiled.play(policy, rngs, sets, info_keywords)
                    played = [(ex, trajs, compiled.obs[k, :n_rows], compiled.masks[k, :n_rows])
                              for k, (ex, (n_rows, trajs)) in enumerate(zip(group, blocks))]
                elif batched:  # every trajectory of every job set of the update, stepped together
                    rngs, resets = [], []
                    for ex in group:
                        rngs += trajectory_rngs(seed, it, ex, cfg.trajectories, stream)
                        resets += [_reset_args(ex)] * cfg.trajectories
                    rollout = play_batch(envs[:len(rngs)], policy, rngs, resets, info_keywords, buffer)
                    T = cfg.trajectories
                    played = [(ex, rollout.trajs[k * T:(k + 1) * T], rollout.obs, None) for k, ex in enumerate(group)]
                for ex in group if not batched else ():
                    rngs = trajectory_rngs(seed, it, ex, cfg.trajectories, stream)
                    if lockstep:
                        # a fresh array per job set: the group's losses are taken after all are played
                        rollout = play_batch(envs, policy, rngs, [_reset_args(ex)] * len(rngs), info_keywords)
                    else:
                        rollout = _concat([play_batch([env], policy, [r], [_reset_args(ex)], info_keywords)
                                           for r in rngs])
                    played.append((ex, rollout.trajs, rollout.obs, None))
                for ex, trajs, all_obs, block_masks in played:
                    rets = [discounted_returns(t["rewards"], cfg.discount) for t in trajs]
                    contested = None
                    if cfg.contested_only:  # mask_actions is on: every trajectory has its masks
                        contested = [contested_rows(block_masks[np.asarray(t["rows"])] if compiled is not None
                                                    else np.stack(t["masks"])) for t in trajs]
                    advs = advantages(rets, cfg.baseline, contested)
                    masks = None
                    if compiled is not None:  # the job set's own block: rows in order, actions per row
                        obs, where = all_obs, np.concatenate([t["rows"] for t in trajs])
                        acts = np.empty(len(obs), dtype=np.int64)
                        acts[where] = np.concatenate([t["actions"] for t in trajs])
                        if policy.mask_actions:
                            masks = block_masks
                    else:
                        obs, where = _example_rows(all_obs, trajs, scratch)
                        acts = np.empty((len(obs), policy.n_actions) if policy.head == "bernoulli" else len(obs),
                                        dtype=np.int64)
                        acts[where] = np.asarray([a for t in trajs for a in t["actions"]])
                        if policy.mask_actions:
                            masks = np.empty((len(obs), policy.n_actions), dtype=bool)
                            masks[where] = np.stack([m for t in trajs for m in t["masks"]])
                    adv_rows = np.empty(len(obs))
                    adv_rows[where] = np.concatenate(advs)
                    keep = None
                    if contested is not None:
                        keep = np.empty(len(obs), dtype=bool)
                        keep[where] = np.concatenate(contested)
                    loss = policy_loss(policy.log_prob(obs, acts, masks), adv_rows, keep)
                    if loss is not None:
                        loss.backward()
                    for t in trajs:
                        steps += len(t["rewards"])
                        rows.append({"timesteps": steps, "env": ex, "reward": float(np.sum(t["rewards"])),
                                     "length": len(t["rewards"]), **t["info"]})
                optimizer.step()
                optimizer.zero_grad()
                policy.invalidate()
            if rows:
                recent = rows[-n_examples * cfg.trajectories:]
                bar.set_postfix_str(f"mean episode reward {np.mean([r['reward'] for r in recent]):.3g}")
                board.scalars(steps, rollout__ep_rew_mean=np.mean([r["reward"] for r in recent]),
                              rollout__ep_len_mean=np.mean([r["length"] for r in recent]),
                              time__fps=(steps - steps_before) / max(clock(), 1e-9))
            bar.update(1)
            last = _snapshot(policy, optimizer, it + 1, steps, len(rows), rng)
            if on_iteration is not None:
                on_iteration(it + 1, rows)
            # the final state is always kept too: a rerun with a higher target continues from it
            if on_grid(it + 1):
                _save_checkpoint(folder, last, rows, on_grid)
    bar.close()
    board.close()
    wall = clock()
    for e in envs:
        e.close()
    # as after every checkpoint: a rerun that had nothing left to train (killed after writing its
    # last checkpoint, before pruning) leaves the checkpoints an uninterrupted run leaves
    folder.drop_off_grid(on_grid)
    folder.prune()

    folder.write_curve(rows, tuple(info_keywords))
    policy.save(folder.model_file)
    trained = iterations - first
    folder.write_timing(wall, steps - steps_before, iterations=int(iterations), steps=int(steps),
                        iterations_trained=int(trained), resumed_from_iteration=int(first),
                        threads=int(threads), n_envs=len(envs) if compiled is None else compiled.batch.n,
                        env_step="compiled" if compiled is not None else "python", device=policy.device)
    return ReinforceResult(run_dir, iterations, steps, trained, wall, steps_trained=steps - steps_before)


def _torch_save(obj, path) -> None:
    """``torch.save`` written atomically and byte-stably: saved to memory first, because a file
    target puts its (random temporary) name into the zip archive's member names."""
    import io

    import torch

    from schedrl.io import atomic_path

    buf = io.BytesIO()
    torch.save(obj, buf)
    with atomic_path(path) as tmp:
        tmp.write_bytes(buf.getvalue())


def _snapshot(policy, optimizer, iteration: int, steps: int, rows: int, rng) -> dict:
    """A checkpoint's state after ``iteration`` (copies: later updates leave it as it is), with
    ``rows``, the number of curve rows so far, in place of the curve."""
    return {"model": copy.deepcopy(policy.state()), "optimizer": copy.deepcopy(optimizer.state_dict()),
            "iteration": int(iteration), "steps": int(steps), "rows": int(rows), "rng": _rng_states(rng)}


def _save_checkpoint(folder: RunFolder, snapshot: dict, rows: list[dict],
                     on_grid: Callable[[int], bool] | None = None) -> None:
    """``checkpoints/iter_<k>.pt``: model, optimiser, iteration, steps, the curve so far (``rows``)
    and every RNG state; then drop those an interrupt wrote off ``on_grid`` (the periodic
    iterations; ``RunFolder.drop_off_grid``) and prune the older ones."""
    state = {"model": snapshot["model"], "optimizer": snapshot["optimizer"], "iteration": snapshot["iteration"],
             "steps": snapshot["steps"], "curve": copy.deepcopy(rows), "rng": snapshot["rng"]}
    _torch_save(state, folder.checkpoint_path(state["iteration"]))
    if on_grid is not None:
        folder.drop_off_grid(on_grid)
    folder.prune()


def remove_checkpoints(run_dir) -> None:
    _folder(run_dir).remove_checkpoints()
