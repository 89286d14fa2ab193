"""Direct Future Prediction (DFP; Dosovitskiy and Koltun, ICLR 2017) in PyTorch.

A DFP agent predicts, for every action, how a vector of *measurements* will change at several
future offsets (in decision steps), given the state, the current measurements and a *goal* (one
weight per measurement). It acts by the largest ``goal . prediction``, so changing the goal at
run time changes what it pursues without retraining.

Network (``DFPNet``; sizes from ``DFPConfig``):

* state module: an MLP (``state_hidden`` leaky-ReLU layers, then ``state_out``) or a 1-D CNN
  (``cnn_channels`` conv layers of kernel ``cnn_kernel`` / stride ``cnn_stride``, then a dense
  ``state_out`` layer);
* measurement and goal modules: ``meas_hidden`` / ``goal_hidden`` dense leaky-ReLU layers each;
* the three outputs are concatenated (joint representation) and fed to an expectation stream
  (one prediction for all actions) and an action stream (one per action) whose mean over actions
  is subtracted (dueling-style normalisation); prediction = expectation + normalised action.

Predictions have ``len(offsets) x n_meas`` entries per action: the change ``m[t+k] - m[t]`` for
each offset k. The objective of an action is ``sum_k w_k goal . pred_k`` with DFP's temporal
weights ``offset_weights`` (by default only the far offsets count, as in the paper's defaults).
Training: epsilon-greedy play (epsilon from ``epsilon_start`` multiplied by ``epsilon_decay``
after every episode, gradient update or agent step, ``epsilon_per``; floor ``epsilon_min``; or,
``epsilon_per="run"``, lowered linearly from ``epsilon_start`` to ``epsilon_min`` over the run's
episodes, so every episode explores: episode e of E plays at start - (start - min) e / E; or,
``epsilon_per="run_inverse"``, the DFP reference's inverse decay relative to the run's length:
episode e of E plays at min + (start - min) b / (e / E + b), b = 150/820 (``INVERSE_B``), i.e.
from start down to ~min + 0.15 (start - min) at the end), transitions in a replay memory (observations stored
as float16 to keep 20,000 Theta states in ~0.5 GB), mean-squared error on the *taken* action's
prediction only, offsets that run past the episode end left out of the loss. Invalid actions
(``info["action_mask"]`` False) are never chosen, in play or in greedy tests. Action selection is
one batched forward pass over all actions (no loop over actions).

``DFPTrainer`` holds one agent's training in memory and plays it episode by episode (a
hyperparameter study steps it so, issue 69); ``train_dfp`` runs it and writes the run folder every
trainer shares (``schedrl.agents.runs.RunFolder``):
``config.json``, ``hyperparams.yaml``, ``model.zip`` (``DFPAgent.save``), ``learning_curve.csv``
(one row per episode: steps, episode, length, mean loss, epsilon, mean objective),
``losses.csv`` (one row per gradient update), checkpoints ``checkpoints/episode_<k>.pt`` (the newest
two while it trains, the final one once it is finished) and ``timing.json``. A checkpoint holds
everything the next episode depends on (issue 70): weights and optimiser, the episode (job-set)
position, steps, epsilon, the curve and loss rows so far, the agent's numpy Generator, the global
torch / numpy / Python RNGs, the env's own RNG (a reset without a seed continues it) and, beside it
in ``episode_<k>.memory.npy`` (written first, only the newest kept, none once the run is finished),
the replay memory; so a run killed anywhere and rerun ends with the files of an uninterrupted one.
Ctrl-C or SIGTERM writes the checkpoint of the last finished episode (the memory rewound to that
moment: ``Replay.mark``). A checkpoint from before issue 70 (no memory file) still resumes, with an
empty memory: not exactly (stderr says so; ``timing.json``'s ``resumes`` too).
"""

from __future__ import annotations

import functools
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import MISSING, asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import numpy as np

from schedrl.agents.allocator import keep_freed_blocks
from schedrl.agents.device import check_device, resolve_device
from schedrl.agents.hyperparams import check_types
from schedrl.agents.incremental_setting import SETTINGS as INCREMENTAL_SETTINGS
from schedrl.agents.incremental_setting import use_incremental
from schedrl.agents.runs import RunFolder, begin_run, default_checkpoint_every, progress_bar
from schedrl.errors import ConfigError
from schedrl.io import atomic_path

STATE_MODULES = ("mlp", "cnn")
EPSILON_PER = ("episode", "update", "step", "run", "run_inverse")  # what one decay of epsilon follows
# ("run": linear over the run; "run_inverse": the DFP reference's schedule stretched over the run)
#: The DFP reference (IntelVCL/DirectFuturePrediction, examples' run_exp.py) explores with
#: probability 0.02 + 145,000 / (step + 150,000) over 820,000 training batches: as a share x of the
#: run, min + (start - min) * b / (x + b) with b = 150,000 / 820,000 (start 0.987, min 0.02 there).
INVERSE_B = 150_000 / 820_000


@dataclass
class DFPConfig:
    """Hyperparameters (defaults: MRSch's network and DFP's training settings)."""

    state_module: str = "mlp"
    state_hidden: list[int] = field(default_factory=lambda: [4000, 1000])
    state_out: int = 512
    cnn_channels: list[int] = field(default_factory=lambda: [16, 32])
    cnn_kernel: int = 8
    cnn_stride: int = 4
    meas_hidden: list[int] = field(default_factory=lambda: [128, 128, 128])
    goal_hidden: list[int] = field(default_factory=lambda: [128, 128, 128])
    stream_hidden: int = 512
    offsets: list[int] = field(default_factory=lambda: [1, 2, 4, 8, 16, 32])
    offset_weights: list[float] = field(default_factory=lambda: [0.0, 0.0, 0.0, 0.5, 0.5, 1.0])
    leaky_slope: float = 0.2
    learning_rate: float = 1e-4
    batch_size: int = 64
    replay_size: int = 20_000
    update_every: int = 4
    min_replay: int = 64
    epsilon_start: float = 1.0
    epsilon_decay: float = 0.995
    epsilon_min: float = 0.0
    epsilon_per: str = "episode"
    target_scale: float = 1.0
    #: a greedy decision's first layer kept from the inputs' changes while the weights do not change
    #: (``schedrl.agents.incremental_input``): true, false or auto (wide first layers)
    incremental_input: str | bool = "auto"

    @classmethod
    def from_dict(cls, params: dict[str, Any]) -> DFPConfig:
        known = set(cls.__dataclass_fields__)
        unknown = sorted(set(params) - known)
        if unknown:
            raise ConfigError(f"dfp: unknown hyperparameter(s) {', '.join(unknown)} (known: {', '.join(sorted(known))})")
        params = dict(params)
        check_types({f.name: f.default_factory() if f.default is MISSING else f.default for f in fields(cls)},
                    params, "dfp", counts=_SIZES, untyped=frozenset({"incremental_input"}))  # checked in check()
        cfg = cls(**params)
        cfg.check()
        return cfg

    def check(self) -> None:
        if self.state_module not in STATE_MODULES:
            raise ConfigError(f"dfp: state_module must be one of {', '.join(STATE_MODULES)}, not {self.state_module!r}")
        if len(self.offsets) == 0 or len(self.offsets) != len(self.offset_weights):
            raise ConfigError("dfp: offsets and offset_weights need the same, non-zero length")
        if any(int(k) < 1 for k in self.offsets) or list(self.offsets) != sorted(set(self.offsets)):
            raise ConfigError("dfp: offsets must be increasing whole numbers >= 1")
        if self.epsilon_per not in EPSILON_PER:
            raise ConfigError(f"dfp: epsilon_per must be one of {', '.join(EPSILON_PER)}, not {self.epsilon_per!r}")
        if not 0 < self.epsilon_decay <= 1 or not 0 <= self.epsilon_min <= self.epsilon_start <= 1:
            raise ConfigError("dfp: need 0 < epsilon_decay <= 1 and 0 <= epsilon_min <= epsilon_start <= 1")
        if self.learning_rate <= 0 or self.batch_size < 1 or self.replay_size < self.batch_size \
                or self.update_every < 1 or self.target_scale <= 0:
            raise ConfigError("dfp: need learning_rate > 0, batch_size >= 1, replay_size >= batch_size, "
                              "update_every >= 1, target_scale > 0")
        if not isinstance(self.incremental_input, (bool, str)) or self.incremental_input not in INCREMENTAL_SETTINGS:
            raise ConfigError(f"dfp: incremental_input must be true, false or auto, not {self.incremental_input!r}")

    @property
    def horizon(self) -> int:
        return int(max(self.offsets))


def _save_checkpoint(state: dict, path) -> None:
    """torch.save written atomically (a run killed mid-write leaves no truncated file for the rerun
    to trip over) and byte-stably (saved to memory first: a file target puts its temporary name
    into the archive's member names), with every tensor on the CPU (a file does not depend on the
    device that wrote it, and loads on a machine without a GPU)."""
    import io

    import torch

    buf = io.BytesIO()
    torch.save(_on_cpu(state), buf)
    with atomic_path(path) as tmp, open(tmp, "wb") as fh:
        fh.write(buf.getbuffer())  # no second copy of a checkpoint of ~0.6 GB (the paper's network)


# Network sizes: whole numbers >= 1 (a zero width or stride fails deep inside torch).
_SIZES = frozenset({"state_hidden", "state_out", "cnn_channels", "cnn_kernel", "cnn_stride", "meas_hidden",
                    "goal_hidden", "stream_hidden"})


def _mlp(sizes: Sequence[int], slope: float, wide_input: bool = False, incremental: str | bool = False):
    """Leaky-ReLU dense layers; ``wide_input``: the first is an ``InputLinear`` (see there) with
    ``incremental`` as its ``incremental_input`` setting."""
    import torch.nn as nn

    layers: list = []
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
        layers += [InputLinear(a, b, incremental) if wide_input and i == 0 else nn.Linear(a, b), nn.LeakyReLU(slope)]
    return nn.Sequential(*layers)


@functools.cache
def _input_linear():
    import torch
    import torch.nn as nn

    from schedrl.agents.incremental_input import IncrementalInput

    class InputLinear(IncrementalInput, nn.Linear):
        """``nn.Linear`` (same initialisation, same ``weight`` / ``bias`` keys) whose weight is kept as
        (in, out), so that the gradient of a wide first layer from a small batch is one matrix
        product in the layout it is stored in. With Theta's 11,410 inputs and a batch of 32 that
        product took 211 ms as (out, in) and 58 ms as (in, out) on one core of the slower machine
        kind (benchmarks/bench_dfp.py). A file written with the (out, in) layout still loads.
        ``incremental``: a greedy decision's product kept from the inputs' changes
        (``IncrementalInput``)."""

        in_out = True  # the weight's layout, for code that reads nn.Linear weights as (out, in)

        def __init__(self, in_features: int, out_features: int, incremental: str | bool = False):
            super().__init__(in_features, out_features)
            self.weight = nn.Parameter(self.weight.detach().t().contiguous())
            self.incremental = use_incremental(incremental, in_features, out_features)

        def _whole(self, x):
            return torch.addmm(self.bias, x, self.weight)

        def forward(self, x):
            return self.incremental_forward(x, self._whole)

        def _load_from_state_dict(self, state_dict, prefix, *args, **kwargs):
            w = state_dict.get(prefix + "weight")
            if w is not None and tuple(w.shape) == (self.out_features, self.in_features) != tuple(self.weight.shape):
                state_dict[prefix + "weight"] = w.t()
            super()._load_from_state_dict(state_dict, prefix, *args, **kwargs)

    return InputLinear


def InputLinear(in_features: int, out_features: int, incremental: str | bool = False):  # noqa: N802 - a layer
    return _input_linear()(in_features, out_features, incremental)


def build_net(obs_dim: int, n_meas: int, n_actions: int, cfg: DFPConfig):
    """The DFP network (see the module docstring) as a ``torch.nn.Module``."""
    import torch
    import torch.nn as nn

    slope = cfg.leaky_slope
    n_pred = n_meas * len(cfg.offsets)

    class DFPNet(nn.Module):
        def __init__(self):
            super().__init__()
            if cfg.state_module == "mlp":
                self.state = _mlp([obs_dim, *cfg.state_hidden, cfg.state_out], slope, wide_input=True,
                                  incremental=cfg.incremental_input)
            else:
                convs, ch, length = [], 1, obs_dim
                for c in cfg.cnn_channels:
                    # zeros on the right so the last window reaches the last input: unpadded, two
                    # kernel-8 stride-4 layers never read Theta's last 14 state features
                    over = length - cfg.cnn_kernel
                    pad = -over % cfg.cnn_stride if over >= 0 else -over
                    convs += [nn.ConstantPad1d((0, pad), 0.0), nn.Conv1d(ch, c, cfg.cnn_kernel, cfg.cnn_stride),
                              nn.LeakyReLU(slope)]
                    length = (length + pad - cfg.cnn_kernel) // cfg.cnn_stride + 1
                    ch = c
                self.state = nn.Sequential(nn.Unflatten(1, (1, obs_dim)), *convs, nn.Flatten(),
                                           nn.Linear(ch * length, cfg.state_out), nn.LeakyReLU(slope))
            self.meas = _mlp([n_meas, *cfg.meas_hidden], slope)
            self.goal = _mlp([n_meas, *cfg.goal_hidden], slope)
            joint = cfg.state_out + cfg.meas_hidden[-1] + cfg.goal_hidden[-1]
            self.expectation = nn.Sequential(nn.Linear(joint, cfg.stream_hidden), nn.LeakyReLU(slope),
                                             nn.Linear(cfg.stream_hidden, n_pred))
            self.action = nn.Sequential(nn.Linear(joint, cfg.stream_hidden), nn.LeakyReLU(slope),
                                        nn.Linear(cfg.stream_hidden, n_actions * n_pred))

        def forward(self, obs, meas, goal):
            j = torch.cat([self.state(obs), self.meas(meas), self.goal(goal)], dim=1)
            e = self.expectation(j)
            a = self.action(j).view(-1, n_actions, n_pred)
            a = a - a.mean(dim=1, keepdim=True)  # the action stream is normalised over actions
            return e.unsqueeze(1) + a  # (batch, actions, offsets * measurements), offset-major

    return DFPNet()


def adam(net, lr: float):
    """Adam with the fused kernel: the same update in one pass over each tensor, without the
    full-size temporaries of the default multi-tensor path. On the paper's ~51 M-weight network
    that halves an update's time (0.41 -> 0.19 s per batch of 32 on one core, most of the saving
    page-faulting system time; benchmarks/bench_dfp.py prints both)."""
    import torch

    return torch.optim.Adam(net.parameters(), lr=lr, fused=True)


class DFPAgent:
    """A DFP network with its sizes; ``act`` / ``objectives`` score every action in one pass."""

    def __init__(self, obs_dim: int, n_meas: int, n_actions: int, cfg: DFPConfig, net=None, device: str = "cpu"):
        cfg.check()
        self.obs_dim, self.n_meas, self.n_actions, self.cfg = int(obs_dim), int(n_meas), int(n_actions), cfg
        self.net = net if net is not None else build_net(self.obs_dim, self.n_meas, self.n_actions, cfg)
        self.device = "cpu"
        self.to(device)
        self.offset_weights = np.asarray(cfg.offset_weights, dtype=np.float32)

    def to(self, device: str) -> DFPAgent:
        """Move the network to a torch ``device`` (``cpu``, ``cuda``, ``cuda:N``, ``auto``); play and
        updates then run there, numpy in and out."""
        self.device = resolve_device(device)
        self.net.to(self.device)
        return self

    def tensor(self, array):
        """``array`` as a float32 tensor on the agent's device."""
        import torch

        return torch.as_tensor(np.asarray(array, dtype=np.float32)).to(self.device)

    def temporal_goal(self, goal: np.ndarray) -> np.ndarray:
        """(batch, offsets * measurements): DFP's goal over the prediction vector."""
        goal = np.atleast_2d(np.asarray(goal, dtype=np.float32))
        return (self.offset_weights[None, :, None] * goal[:, None, :]).reshape(goal.shape[0], -1)

    def predict_changes(self, obs, meas, goal) -> np.ndarray:
        """(batch, actions, offsets, measurements): predicted measurement changes (unscaled)."""
        import torch

        obs = np.atleast_2d(np.asarray(obs, dtype=np.float32))
        meas = np.atleast_2d(np.asarray(meas, dtype=np.float32))
        goal = np.atleast_2d(np.asarray(goal, dtype=np.float32))
        with torch.no_grad():
            out = self.net(self.tensor(obs), self.tensor(meas), self.tensor(goal)).cpu().numpy()
        return out.reshape(len(obs), self.n_actions, len(self.cfg.offsets), self.n_meas) / self.cfg.target_scale

    def objectives(self, obs, meas, goal) -> np.ndarray:
        """(batch, actions): ``sum_k w_k goal . prediction_k`` for every action."""
        pred = self.predict_changes(obs, meas, goal)
        g = np.atleast_2d(np.asarray(goal, dtype=np.float32))
        return np.einsum("bakm,k,bm->ba", pred, self.offset_weights, g)

    def act(self, obs, meas, goal, mask=None, epsilon: float = 0.0,
            rng: np.random.Generator | None = None) -> np.ndarray:
        """Actions for a batch: greedy on the goal's objective among valid actions, or with
        probability ``epsilon`` a uniformly random valid one."""
        rows = len(np.atleast_2d(np.asarray(obs)))
        valid = (np.ones((rows, self.n_actions), dtype=bool) if mask is None
                 else np.atleast_2d(np.asarray(mask, dtype=bool)))
        valid = np.where(valid.any(axis=1, keepdims=True), valid, True)  # no valid action: any
        explore = np.zeros(rows, dtype=bool)
        if epsilon > 0:
            rng = rng or np.random.default_rng()
            explore = rng.random(rows) < epsilon
        # the network only where a row plays greedily: early in training most decisions explore,
        # and one forward pass of the paper's network reads its ~180 MB first layer
        actions = np.zeros(rows, dtype=np.int64)
        if not explore.all():
            actions = np.argmax(np.where(valid, self.objectives(obs, meas, goal), -np.inf), axis=1)
        for b in np.flatnonzero(explore):  # only the explored rows (a handful), not the actions
            actions[b] = rng.choice(np.flatnonzero(valid[b]))
        return actions

    # -- persistence
    def state_dict(self) -> dict:
        return {"obs_dim": self.obs_dim, "n_meas": self.n_meas, "n_actions": self.n_actions,
                "config": asdict(self.cfg), "weights": self.net.state_dict()}

    def save(self, path) -> None:
        _save_checkpoint(self.state_dict(), path)

    @classmethod
    def load(cls, path, device: str = "cpu") -> DFPAgent:
        import torch

        state = torch.load(path, map_location="cpu", weights_only=False)
        agent = cls(state["obs_dim"], state["n_meas"], state["n_actions"], DFPConfig(**state["config"]))
        agent.net.load_state_dict(state["weights"])
        agent.net.eval()
        return agent.to(device)


def _match_layout(optimizer) -> None:
    """Adam's moments from a checkpoint written before ``InputLinear`` kept its weight as (in, out):
    transposed to their parameter's shape, so such a run resumes."""
    for group in optimizer.param_groups:
        for p in group["params"]:
            for key, value in optimizer.state.get(p, {}).items():
                if value.dim() == 2 and value.shape != p.shape and value.shape == p.shape[::-1]:
                    optimizer.state[p][key] = value.t().contiguous()


def _on_cpu(state):
    """A state dict (nested dicts and lists too) with its tensors on the CPU (CPU tensors as they are)."""
    import torch

    if isinstance(state, torch.Tensor):
        return state if state.device.type == "cpu" else state.detach().cpu()
    if isinstance(state, dict):
        out = type(state)((k, _on_cpu(v)) for k, v in state.items())
        if hasattr(state, "_metadata"):  # a module's state dict: its version record travels with it
            out._metadata = state._metadata
        return out
    if isinstance(state, list):
        return [_on_cpu(v) for v in state]
    return state


#: The replay memory beside checkpoint ``episode_<k>.pt`` (``Replay.save``).
MEMORY_SUFFIX = ".memory.npy"
#: 2: the checkpoint holds every RNG and its memory file beside it (issue 70); 1 (no "format" key):
#: weights, optimiser, counters, curve and the agent's Generator only.
CHECKPOINT_FORMAT = 2


def _copy_state(src, into=None):
    """A copy of a (nested) state dict that later updates leave as it is: each tensor copied into the
    matching tensor of ``into`` (an earlier copy of the same structure: no fresh ~0.6 GB every
    episode for the paper's network and its Adam moments) or cloned, on its device; other values
    deep-copied."""
    import copy

    import torch

    if isinstance(src, torch.Tensor):
        if isinstance(into, torch.Tensor) and into.shape == src.shape and into.dtype == src.dtype \
                and into.device == src.device:
            return into.copy_(src)
        return src.detach().clone()
    if isinstance(src, dict):
        keep = into if isinstance(into, dict) else {}
        out = type(src)((k, _copy_state(v, keep.get(k))) for k, v in src.items())
        if hasattr(src, "_metadata"):  # a module's state dict: its version record travels with it
            out._metadata = copy.deepcopy(src._metadata)
        return out
    if isinstance(src, list):
        keep = into if isinstance(into, list) and len(into) == len(src) else [None] * len(src)
        return [_copy_state(v, w) for v, w in zip(src, keep)]
    return copy.deepcopy(src)


def _global_rngs() -> dict:
    """The global RNGs: torch's (and CUDA's once used), numpy's legacy one and Python's ``random``.
    Nothing in the loop draws from them today (torch only initialises the network); a checkpoint
    keeps them anyway, so an env or wrapper that does draws the same after a resume."""
    import random

    import torch

    out = {"torch": torch.get_rng_state(), "numpy": np.random.get_state(), "python": random.getstate()}
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        out["cuda"] = torch.cuda.get_rng_state_all()
    return out


def _seed_globals(seed: int) -> None:
    """numpy's legacy global RNG and Python's ``random`` seeded with the run's seed (torch's is
    seeded apart): nothing in the loop draws from them, but a checkpoint holds their states, which
    would otherwise differ from process to process (seeded from the OS)."""
    import random

    random.seed(int(seed))
    np.random.seed(int(seed) % 2**32)


def _set_global_rngs(states: dict) -> None:
    import random

    import torch

    torch.set_rng_state(states["torch"])
    np.random.set_state(states["numpy"])
    random.setstate(states["python"])
    if "cuda" in states and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(states["cuda"])


def _env_rng(env) -> dict | None:
    """The state of the env's own Generator (gymnasium's ``np_random``), which a reset without a
    seed continues (an env drawing its episodes, or anything else, from it); None before any use."""
    rng = getattr(env.unwrapped, "_np_random", None)
    return None if rng is None else rng.bit_generator.state


def _set_env_rng(env, state: dict | None) -> None:
    if state is None:
        return
    inner = env.unwrapped
    rng = getattr(inner, "_np_random", None)
    if rng is not None and rng.bit_generator.state.get("bit_generator") == state.get("bit_generator"):
        rng.bit_generator.state = state  # in place: whatever holds the env's Generator sees it
    else:
        bits = getattr(np.random, state["bit_generator"])()
        bits.state = state
        inner.np_random = np.random.Generator(bits)


class Replay:
    """Ring buffer of (obs, measurements, goal, action, target changes, target validity)."""

    FIELDS = ("obs", "meas", "goal", "action", "target", "valid")
    FORMAT = 1  # of the memory file

    def __init__(self, size: int, obs_dim: int, n_meas: int, n_offsets: int):
        self.size, self.n = int(size), 0
        self.pos = 0
        self.obs = np.zeros((self.size, obs_dim), dtype=np.float16)
        self.meas = np.zeros((self.size, n_meas), dtype=np.float32)
        self.goal = np.zeros((self.size, n_meas), dtype=np.float32)
        self.action = np.zeros(self.size, dtype=np.int64)
        self.target = np.zeros((self.size, n_offsets * n_meas), dtype=np.float32)
        self.valid = np.zeros((self.size, n_offsets * n_meas), dtype=np.float32)
        self.marks = 0  # how many times ``mark`` was called
        self._mark: tuple[int, int] | None = None
        self._undo: dict[int, tuple] = {}

    def add(self, obs, meas, goal, action, target, valid) -> None:
        i = self.pos
        if self._mark is not None and i < self._mark[1] and i not in self._undo:
            self._undo[i] = tuple(getattr(self, f)[i].copy() for f in self.FIELDS)  # before it is overwritten
        self.obs[i], self.meas[i], self.goal[i], self.action[i] = obs, meas, goal, action
        self.target[i], self.valid[i] = target, valid
        self.pos = (i + 1) % self.size
        self.n = min(self.n + 1, self.size)

    def mark(self) -> None:
        """Remember the memory as it is now (an episode's end): until the next mark, ``add`` keeps
        a copy of each row it overwrites (at most an episode's rows), so that ``rewind`` brings
        this moment back."""
        self._mark, self._undo = (self.pos, self.n), {}
        self.marks += 1

    def rewind(self) -> None:
        """The memory as it was at the last ``mark``."""
        if self._mark is None:
            raise RuntimeError("Replay.rewind before any mark")
        for i, row in self._undo.items():
            for f, value in zip(self.FIELDS, row):
                getattr(self, f)[i] = value
        self.pos, self.n = self._mark
        self._undo = {}

    def save(self, path) -> None:
        """The filled rows, position and size, written atomically as a sequence of ``.npy`` arrays
        (``np.load`` reads them in turn from one open file): byte-stable, and streamed from the
        arrays without a copy of the (up to ~0.5 GB) memory."""
        with atomic_path(path) as tmp, open(tmp, "wb") as fh:
            np.save(fh, np.array([self.FORMAT, self.size, self.n, self.pos], dtype=np.int64))
            for f in self.FIELDS:
                np.save(fh, getattr(self, f)[:self.n])

    def load(self, path) -> None:
        """What ``save`` wrote, read into this memory's arrays (same sizes)."""
        with open(path, "rb") as fh:
            fmt, size, n, pos = (int(x) for x in np.load(fh))
            if fmt != self.FORMAT or size != self.size or not 0 <= pos < size or not 0 <= n <= size:
                raise ValueError(f"{path}: replay memory of format {fmt} and size {size} "
                                 f"(expected {self.FORMAT} and {self.size})")
            for f in self.FIELDS:
                _read_into(fh, getattr(self, f)[:n], path)
        self.n, self.pos = n, pos
        self._mark, self._undo = None, {}

    def sample(self, batch: int, rng: np.random.Generator):
        idx = rng.integers(0, self.n, size=batch)
        return (self.obs[idx].astype(np.float32), self.meas[idx], self.goal[idx], self.action[idx],
                self.target[idx], self.valid[idx])


def _read_into(fh, out: np.ndarray, path) -> None:
    """The next ``.npy`` array of ``fh`` read straight into the C-contiguous ``out`` (its shape and dtype)."""
    from numpy.lib import format as npy

    version = npy.read_magic(fh)
    shape, fortran, dtype = (npy.read_array_header_1_0 if version == (1, 0) else npy.read_array_header_2_0)(fh)
    if tuple(shape) != out.shape or dtype != out.dtype or fortran:
        raise ValueError(f"{path}: an array of shape {shape} and type {dtype} where {out.shape} {out.dtype} belongs")
    if not out.flags.c_contiguous:
        raise ValueError("_read_into needs a C-contiguous array")
    raw = out.reshape(-1).view(np.uint8)
    if fh.readinto(raw) != raw.nbytes:
        raise ValueError(f"{path}: truncated")


class _Episode:
    """An episode's steps so far; a step enters the replay once its farthest offset is known."""

    def __init__(self, offsets: Sequence[int], n_meas: int):
        self.offsets = np.asarray(offsets, dtype=np.int64)
        self.n_meas = n_meas
        self.obs, self.meas, self.goal, self.action = [], [], [], []
        self.pushed = 0

    def targets(self, t: int, meas: list) -> tuple[np.ndarray, np.ndarray]:
        target = np.zeros((len(self.offsets), self.n_meas), dtype=np.float32)
        valid = np.zeros_like(target)
        for i, k in enumerate(self.offsets):
            if t + k < len(meas):
                target[i] = meas[t + k] - meas[t]
                valid[i] = 1.0
        return target.reshape(-1), valid.reshape(-1)

    def ready(self, current, done: bool):
        """Steps whose targets are complete (all of them when the episode is over); ``current``:
        the measurements after the last action."""
        meas = self.meas + [current]
        horizon = int(self.offsets.max())
        last = len(self.action) if done else len(self.action) + 1 - horizon
        while self.pushed < last:
            t = self.pushed
            yield t, self.targets(t, meas)
            self.pushed += 1


@dataclass
class DFPResult:
    run_dir: Path
    episodes: int
    steps: int
    wall_time_s: float
    skipped: bool = False
    steps_trained: int = 0


def _vector(info: dict, key: str | None, fallback: np.ndarray | None, what: str) -> np.ndarray:
    if key is None:
        return np.asarray(fallback, dtype=np.float32)
    if key not in info:
        raise ConfigError(f"dfp: the env's info has no '{key}' ({what})")
    return np.asarray(info[key], dtype=np.float32).reshape(-1)


class DFPTrainer:
    """One DFP agent's training in memory, an episode at a time (``play_episode``): the agent, Adam,
    the replay memory, the agent's Generator, epsilon, the step count, the curve and loss rows.
    ``train_dfp`` runs it between its checkpoints; a hyperparameter study steps it without a run
    folder (``schedrl.papers.mrsch.tuning``), so a recipe trains there as it does here.

    Built as a run starts: ``env`` reset with ``seed`` and the first episode's reset options
    ``first_options``, torch's, numpy's and Python's global RNGs seeded, then the agent's Generator,
    the network, Adam and the memory. ``n_episodes``: the run's length, over which the run-relative
    epsilon schedules (``run``, ``run_inverse``) are stretched. The other arguments: ``train_dfp``'s."""

    def __init__(self, env, cfg: DFPConfig, seed: int, first_options: dict | None, n_episodes: int, *,
                 measurement_key: str = "measurements", goal_key: str | None = "goal",
                 fixed_goal: Sequence[float] | None = None, max_steps: int | None = None, device: str = "cpu"):
        import torch

        cfg.check()
        if goal_key is None and fixed_goal is None:
            raise ConfigError("dfp: give goal_key or fixed_goal")
        self.env, self.cfg, self.n_episodes = env, cfg, int(n_episodes)
        self.measurement_key, self.goal_key, self.max_steps = measurement_key, goal_key, max_steps
        self.fixed = None if fixed_goal is None else np.asarray(fixed_goal, dtype=np.float32)
        self.obs, self.info = env.reset(seed=int(seed), options=first_options)
        meas = _vector(self.info, measurement_key, None, "measurements")
        torch.manual_seed(seed)
        _seed_globals(seed)
        self.rng = np.random.default_rng(seed)
        self.agent = DFPAgent(int(np.prod(self.obs.shape)), len(meas), int(env.action_space.n), cfg, device=device)
        self.optimizer = adam(self.agent.net, cfg.learning_rate)
        self.replay = Replay(cfg.replay_size, self.agent.obs_dim, self.agent.n_meas, len(cfg.offsets))
        self.steps, self.rows, self.losses, self.epsilon = 0, [], [], float(cfg.epsilon_start)
        self.fresh = True  # the env stands at the first episode's start: its play needs no reset

    def update(self) -> float:
        """One gradient step on a batch from the memory; the loss."""
        import torch

        cfg, agent = self.cfg, self.agent
        o, m, g, a, target, valid = self.replay.sample(cfg.batch_size, self.rng)
        pred = agent.net(agent.tensor(o), agent.tensor(m), agent.tensor(g))
        taken = pred[torch.arange(len(a)), torch.as_tensor(a).to(agent.device)]  # loss on the taken action only
        v = agent.tensor(valid)
        err = (taken - agent.tensor(target) * cfg.target_scale) ** 2 * v
        loss = err.sum() / v.sum().clamp(min=1.0)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return float(loss.detach())

    def play_episode(self, ep: int, options: dict | None) -> None:
        """Play episode ``ep`` (0-based, of ``n_episodes``; the env reset with ``options`` unless it
        is the first one's, already reset) epsilon-greedily, each step into the memory once its
        targets are known, a gradient step every ``update_every`` agent steps; then the curve row
        and epsilon's step."""
        cfg, agent, replay, rng, env = self.cfg, self.agent, self.replay, self.rng, self.env
        mkey, gkey, fixed, max_steps = self.measurement_key, self.goal_key, self.fixed, self.max_steps
        if not self.fresh:
            self.obs, self.info = env.reset(options=options)
        self.fresh = False
        obs, info, steps, epsilon, losses = self.obs, self.info, self.steps, self.epsilon, self.losses
        meas = _vector(info, mkey, None, "measurements")
        goal = _vector(info, gkey, fixed, "goal")
        run = _Episode(cfg.offsets, agent.n_meas)
        ep_losses, objective, length, done = [], [], 0, False
        while not done:
            mask = info.get("action_mask")
            a = int(agent.act(obs.reshape(1, -1), meas, goal, None if mask is None else mask[None],
                              epsilon, rng)[0])
            run.obs.append(obs.reshape(-1))
            run.meas.append(meas)
            run.goal.append(goal)
            run.action.append(a)
            obs, _, terminated, truncated, info = env.step(a)
            meas = _vector(info, mkey, None, "measurements")
            goal = _vector(info, gkey, fixed, "goal")
            objective.append(float(goal @ meas))
            length += 1
            steps += 1
            done = bool(terminated or truncated) or (max_steps is not None and length >= max_steps)
            for t, (target, valid) in run.ready(meas, done):
                replay.add(run.obs[t], run.meas[t], run.goal[t], run.action[t], target, valid)
                run.obs[t] = None  # free the observation once it is in the replay
            if cfg.epsilon_per == "step":
                epsilon = max(cfg.epsilon_min, epsilon * cfg.epsilon_decay)
            if replay.n >= max(cfg.min_replay, cfg.batch_size) and steps % cfg.update_every == 0:
                loss = self.update()
                if cfg.epsilon_per == "update":
                    epsilon = max(cfg.epsilon_min, epsilon * cfg.epsilon_decay)
                ep_losses.append(loss)
                losses.append({"update": len(losses) + 1, "timesteps": steps, "episode": ep, "loss": loss})
        self.rows.append({"timesteps": steps, "env": ep, "reward": float(np.mean(objective)) if objective else 0.0,
                          "length": length, "loss": float(np.mean(ep_losses)) if ep_losses else float("nan"),
                          "epsilon": epsilon})
        if cfg.epsilon_per == "episode":
            epsilon = max(cfg.epsilon_min, epsilon * cfg.epsilon_decay)
        elif cfg.epsilon_per == "run":
            epsilon = cfg.epsilon_start - (cfg.epsilon_start - cfg.epsilon_min) * (ep + 1) / self.n_episodes
        elif cfg.epsilon_per == "run_inverse":
            x = (ep + 1) / self.n_episodes
            epsilon = cfg.epsilon_min + (cfg.epsilon_start - cfg.epsilon_min) * INVERSE_B / (x + INVERSE_B)
        self.obs, self.info, self.steps, self.epsilon = obs, info, steps, epsilon


def train_dfp(make_env_fn: Callable[[], Any], cfg: DFPConfig, episodes: Sequence[dict | None], seed: int,
              run_dir, *, measurement_key: str = "measurements", goal_key: str | None = "goal",
              fixed_goal: Sequence[float] | None = None, config: dict | None = None,
              checkpoint_every: int | None = None, threads: int = 1, on_mismatch: str = "error",
              max_steps: int | None = None, episode_labels: Sequence[str] | None = None,
              keep_at: dict[int, Sequence[str]] | None = None, device: str = "cpu") -> DFPResult:
    """Train a DFP agent on ``episodes`` (one ``reset(options=...)`` dict per episode, in order).

    Measurements are read from ``info[measurement_key]`` after every reset and step; the goal from
    ``info[goal_key]`` (recomputed by the env at every decision) or, with ``goal_key=None``, the
    constant ``fixed_goal``. Valid actions from ``info["action_mask"]`` when present. ``max_steps``
    caps the agent steps of every episode (None: play each to its end). ``episode_labels`` name
    the episodes in ``config.json`` (the options themselves may hold job tables). ``keep_at``:
    {episode count: file names} - the model after that many episodes is also saved under those
    names in the run folder (the budget checkpoints that claims evaluate at a share of training).
    ``device``: where the network plays and learns (``agents.device``); the replay stays in host
    memory and each batch is copied over. Files are written from the CPU, so they load anywhere.
    """
    import torch

    cfg.check()
    check_device(device)
    episodes = list(episodes)
    begin_run(len(episodes), "episodes", checkpoint_every, threads)
    checkpoint_every = default_checkpoint_every(len(episodes), checkpoint_every)
    if goal_key is None and fixed_goal is None:
        raise ConfigError("dfp: give goal_key or fixed_goal")
    # its budget models are saved as models (``keep_at``), so no full checkpoint (weights, Adam's
    # moments, the curve: ~0.6 GB at MRSch's size) is kept for them
    folder = RunFolder(run_dir, prefix="episode_", suffix=".pt", budget_milestones=False)
    # incremental_input is how a decision is computed, not what the run is (as threads): a run
    # started before it existed, or with the other setting, resumes
    identity = {k: v for k, v in asdict(cfg).items() if k != "incremental_input"}
    record = {**(config or {}), "algo": "dfp", "hyperparams": identity, "seed": int(seed),
              "episodes": list(episode_labels) if episode_labels is not None else len(episodes),
              "max_steps": max_steps}
    start = folder.start(record, len(episodes), on_mismatch=on_mismatch, key="episodes")
    if start.skip:
        from schedrl.io import read_json

        return DFPResult(Path(run_dir), len(episodes), int(read_json(folder.timing_file)["steps"]), 0.0, True)

    keep_freed_blocks()
    env = make_env_fn()
    trainer = DFPTrainer(env, cfg, seed, episodes[0], len(episodes), measurement_key=measurement_key, goal_key=goal_key,
                         fixed_goal=fixed_goal, max_steps=max_steps, device=device)
    agent, optimizer, replay, rng = trainer.agent, trainer.optimizer, trainer.replay, trainer.rng
    first = 0
    resume = None
    if start.checkpoint is not None:
        n, path = start.checkpoint
        state = torch.load(path, map_location="cpu", weights_only=False)
        agent.net.load_state_dict(state["weights"])
        optimizer.load_state_dict(state["optimizer"])
        _match_layout(optimizer)
        first, trainer.steps, trainer.epsilon = int(state["episode"]), int(state["steps"]), float(state["epsilon"])
        trainer.rows, trainer.losses = _interned(state["curve"]), _interned(state["losses"])
        rng.bit_generator.state = state["rng"]
        memory = folder.side_file(n, MEMORY_SUFFIX)
        done = first >= len(episodes)  # the final checkpoint: nothing left to train, no memory needed
        exact = state.get("format", 1) >= CHECKPOINT_FORMAT and (done or memory.exists())
        if exact:
            if not done:
                replay.load(memory)
            _set_env_rng(env, state["env_rng"])  # before the next episode's reset, which continues it
            _set_global_rngs(state["global_rng"])  # last: the agent's construction drew from torch's
        else:
            why = f"{memory.name} missing" if state.get("format", 1) >= CHECKPOINT_FORMAT else \
                "written before issue 70"
            print(f"dfp: checkpoint {path.name} has no replay memory or RNG states ({why}): resuming from episode "
                  f"{first} with an empty memory; the run will differ from an uninterrupted one",
                  file=sys.stderr, flush=True)
        resume = {"from": first, "exact": bool(exact)}
        _restore_kept(folder, keep_at, first)
        trainer.fresh = first == 0  # the next episode starts with a reset
    steps_before = trainer.steps
    folder.write_config(record, asdict(cfg))

    def snapshot(episode: int, into: dict | None) -> dict:
        """Everything the next episode depends on but the replay memory (``Replay.mark``), copied:
        the weights and Adam's moments into ``into``'s tensors, on their device."""
        return {"format": CHECKPOINT_FORMAT, "weights": _copy_state(agent.net.state_dict(), into and into["weights"]),
                "optimizer": _copy_state(optimizer.state_dict(), into and into["optimizer"]), "episode": episode,
                "steps": trainer.steps, "epsilon": trainer.epsilon, "curve": list(trainer.rows),
                "losses": list(trainer.losses),
                "rng": rng.bit_generator.state, "global_rng": _global_rngs(), "env_rng": _env_rng(env)}

    # The state after the last finished episode and the replay mark it goes with (what Ctrl-C or
    # SIGTERM saves); None while it is being refreshed. ``written``: the newest checkpoint on disk.
    last, last_mark, spare = None, -1, None
    written = (first, trainer.steps) if start.checkpoint is not None else None

    def on_grid(episode: int) -> bool:  # the periodic checkpoints
        return episode == len(episodes) or episode % checkpoint_every == 0

    def checkpoint(snap: dict) -> None:
        """The memory first (none after the last episode: nothing trains after it), the checkpoint
        last (it is what lists it), then the older ones pruned."""
        nonlocal written
        k = snap["episode"]
        if k < len(episodes):
            replay.save(folder.side_file(k, MEMORY_SUFFIX))
        _save_checkpoint(snap, folder.checkpoint_path(k))
        written = (k, snap["steps"])
        _tidy(folder, on_grid)

    def on_interrupt() -> dict:
        if last is not None and last_mark == replay.marks and (written is None or written[0] < last["episode"]):
            replay.rewind()
            checkpoint(last)
        if written is None:
            return {"trained": 0}
        _tidy(folder, on_grid)  # also when the signal came while a periodic checkpoint was being tidied
        return {"trained": written[1] - steps_before, "episodes": written[0], "steps": written[1]}

    bar = progress_bar(len(episodes), first, "episode", f"dfp seed{seed}")
    with folder.segment(on_interrupt, resume) as clock:
        for ep in range(first, len(episodes)):
            trainer.play_episode(ep, episodes[ep])
            # The snapshot is refreshed in place (``last`` unset meanwhile: an interrupt then leaves
            # the newest checkpoint on disk), then the memory marked: the pair an interrupt saves.
            spare, last = last or spare, None
            spare = snapshot(ep + 1, spare)
            replay.mark()
            last, last_mark = spare, replay.marks
            for name in (keep_at or {}).get(ep + 1, ()):
                _save_kept(agent, folder, name)
            bar.set_postfix_str(f"loss {trainer.rows[-1]['loss']:.4g}, epsilon {trainer.epsilon:.3f}")
            bar.update(1)
            if on_grid(ep + 1):
                checkpoint(last)
    bar.close()
    wall = clock()
    env.close()
    _tidy(folder, on_grid, finished=True)  # also a rerun after the final checkpoint's write (nothing left to train)
    folder.write_curve(trainer.rows, ("loss", "epsilon"))
    import pandas as pd

    from schedrl.io import write_csv

    write_csv(folder.path / "losses.csv", pd.DataFrame(trainer.losses, columns=["update", "timesteps", "episode", "loss"]),
              float_format="%.6g")
    agent.save(folder.model_file)
    steps = trainer.steps
    folder.write_timing(wall, steps - steps_before, episodes=len(episodes), steps=int(steps),
                        episodes_trained=len(episodes) - first, resumed_from_episode=int(first),
                        updates=len(trainer.losses), threads=int(threads), device=agent.device,
                        resumes=folder.resumes(resume))
    return DFPResult(Path(run_dir), len(episodes), steps, wall, steps_trained=steps - steps_before)


def _interned(rows: list[dict]) -> list[dict]:
    """Rows read from a checkpoint with their keys the interned strings the loop's new rows use, so
    that a later checkpoint pickles to the same bytes as an uninterrupted run's (pickle writes a
    string once per object: the unpickled keys beside the code's would be written twice)."""
    return [{sys.intern(k): v for k, v in row.items()} for row in rows]


def _tidy(folder: RunFolder, on_grid: Callable[[int], bool], finished: bool = False) -> None:
    """Drop the checkpoints an interrupt wrote off the periodic grid once a newer one stands
    (``RunFolder.drop_off_grid``), prune (``RunFolder.prune``; a ``finished`` run keeps only its
    final checkpoint, all a rerun reads) and keep only the newest replay memory: a resume reads the
    newest checkpoint's alone, and each is up to ~0.5 GB."""
    folder.drop_off_grid(on_grid)
    folder.prune(keep=1 if finished else None)
    found = folder.checkpoints()
    if not found:
        return
    newest = found[-1][0]  # a finished run's memory files are all gone (its final checkpoint has none)
    for path in folder.checkpoint_dir.glob(f"{folder.prefix}*{MEMORY_SUFFIX}"):
        number = path.name[len(folder.prefix):-len(MEMORY_SUFFIX)]
        if number.isdigit() and int(number) < newest:
            path.unlink(missing_ok=True)


def _save_kept(agent: DFPAgent, folder: RunFolder, name: str) -> None:
    """A ``keep_at`` model into the run folder, and a second link to it in ``checkpoints/``: a
    workflow deletes a rule's declared outputs (these models are) before rerunning it, and a run
    resumed past the episode could not write them again (``_restore_kept``)."""
    from schedrl.io import link_or_copy

    agent.save(folder.path / name)
    link_or_copy(folder.path / name, folder.checkpoint_dir / name)


def _restore_kept(folder: RunFolder, keep_at: dict | None, upto: int) -> None:
    """The ``keep_at`` models of the episodes up to ``upto`` (a resume starts after them) that are
    missing from the run folder, put back from ``checkpoints/``."""
    from schedrl.io import link_or_copy

    for episode, names in (keep_at or {}).items():
        for name in names if int(episode) <= upto else ():
            target, kept = folder.path / name, folder.checkpoint_dir / name
            if target.exists():
                continue
            if not kept.exists():
                print(f"dfp: {name} (the model after episode {episode}) is missing and has no copy in "
                      f"{folder.checkpoint_dir}; it cannot be written again by this resume", file=sys.stderr, flush=True)
                continue
            link_or_copy(kept, target)


def decision_seconds(fn: Callable[[], Any]) -> tuple[Any, float]:
    """``fn()`` and its wall time in seconds (for decision-time measurements)."""
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


__all__ = ["DFPAgent", "DFPConfig", "DFPResult", "DFPTrainer", "Replay", "STATE_MODULES", "build_net", "decision_seconds",
           "train_dfp"]
