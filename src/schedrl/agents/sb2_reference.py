"""Published agents of other codebases, played without their frameworks.

Two formats, both numpy arrays inside:

* a **Stable-Baselines 2** model zip (TensorFlow 1; the SB3 DeepRM report's models): ``data``
  (JSON metadata: spaces, hyperparameters), ``parameters`` (an ``.npz`` of the network's arrays)
  and ``parameter_list``. Only SB2's default ``MlpPolicy`` is supported: separate actor and critic
  MLPs (``pi_fc0``, ``pi_fc1`` / ``vf_fc0``, ``vf_fc1``), tanh, a linear ``pi`` head (categorical
  logits for ``Discrete``, Bernoulli logits for ``MultiBinary``). SB2 fed observations through a
  placeholder of the observation space's dtype: for a ``Box(dtype=int64)`` every observation was
  cast to integers (fractions truncated to 0) before the float network saw it, so
  ``SB2Policy`` applies the same cast by default (``integer_cast``).
* **DeepRM's REINFORCE** parameters (Mao et al.'s Theano/Lasagne ``pg_network``, pickled list
  ``[W1, b1, W2, b2]``): the flattened image, a dense layer of 20 with ReLU, a softmax over the
  actions. Unpickled with a loader that allows only numpy's array reconstruction.

Both give ``predict(obs, deterministic=False) -> (action, None)`` like an SB3 model (so
``schedrl.envs.rollout.sb3_policy`` and ``schedrl score`` play them), ``__call__(obs, env)`` and
``observation_space`` / ``action_space``. Sampling uses the policy's own numpy generator
(``seed``); SB2 sampled with TensorFlow's, so single episodes match the authors' runs in
distribution, not draw for draw.
"""

from __future__ import annotations

import io
import json
import pickle
import zipfile
from pathlib import Path

import numpy as np

SB2_LAYERS = ("pi_fc0", "pi_fc1", "vf_fc0", "vf_fc1", "pi", "vf")


class ReferenceLoadError(ValueError):
    """A published model file could not be read (one line)."""


def is_sb2_zip(path: str | Path) -> bool:
    """Whether ``path`` is a Stable-Baselines 2 model zip (it has a ``parameter_list`` member)."""
    try:
        with zipfile.ZipFile(path) as z:
            names = set(z.namelist())
    except (OSError, zipfile.BadZipFile):
        return False
    return {"data", "parameters", "parameter_list"} <= names


def is_deeprm_pickle(path: str | Path) -> bool:
    return str(path).endswith(".pkl")


def _softmax(z: np.ndarray) -> np.ndarray:
    z = z - z.max(axis=1, keepdims=True)
    p = np.exp(z)
    return p / p.sum(axis=1, keepdims=True)


class _NumpyPolicy:
    """What both reference policies share: SB3-style ``predict`` over ``action_probabilities``
    (greedy, or a draw from ``self.rng``: for categorical heads the first cumulative probability
    above a uniform draw, as DeepRM's get_action), ``policy(obs, env)`` and ``reseed``."""

    multibinary = False

    def predict(self, obs, state=None, episode_start=None, deterministic: bool = False):
        single = np.asarray(obs).size == self.n_inputs
        p = self.action_probabilities(obs)
        if self.multibinary:
            act = ((p > 0.5) if deterministic else (self.rng.random(p.shape) < p)).astype(np.int64)
        elif deterministic:
            act = p.argmax(axis=1)
        else:
            u = self.rng.random((p.shape[0], 1))
            act = (np.cumsum(p, axis=1) > u).argmax(axis=1)
        return (act[0] if single else act), None

    def __call__(self, obs, env=None):
        return self.predict(obs)[0]

    def reseed(self, seed: int) -> None:
        self.rng = np.random.default_rng(seed)


class SB2Policy(_NumpyPolicy):
    """SB2 ``MlpPolicy`` forward pass in numpy (see the module docstring)."""

    kind = "policy"

    def __init__(self, path: str | Path, *, integer_cast: bool | None = None, seed: int = 0):
        path = Path(path)
        try:
            with zipfile.ZipFile(path) as z:
                data = json.loads(z.read("data"))
                names = json.loads(z.read("parameter_list"))
                arrays = np.load(io.BytesIO(z.read("parameters")))
                params = {k: np.asarray(arrays[k], dtype=np.float64) for k in arrays.files}
        except (OSError, KeyError, ValueError, zipfile.BadZipFile) as exc:
            raise ReferenceLoadError(f"{path}: not a Stable-Baselines 2 model zip ({type(exc).__name__}: {exc})") from None
        policy = data.get("policy", {})
        if "MlpPolicy" not in str(policy.get("__doc__", "")) and "MLP" not in str(policy.get("__doc__", "")):
            raise ReferenceLoadError(f"{path}: only SB2's default MlpPolicy is supported")
        if data.get("policy_kwargs"):
            raise ReferenceLoadError(f"{path}: policy_kwargs {data['policy_kwargs']} (a non-default network) unsupported")
        self.weights = {}
        for layer in SB2_LAYERS:
            w, b = f"model/{layer}/w:0", f"model/{layer}/b:0"
            if w not in params or b not in params:
                raise ReferenceLoadError(f"{path}: no {layer} layer in parameter_list {names}")
            self.weights[layer] = (params[w], params[b])
        self.path = path
        self.data = data
        self.parameter_names = names
        action_type = str(data.get("action_space", {}).get(":type:", ""))
        self.multibinary = "MultiBinary" in action_type
        if not self.multibinary and "Discrete" not in action_type:
            raise ReferenceLoadError(f"{path}: action space {action_type} unsupported (Discrete, MultiBinary)")
        box = data.get("observation_space", {})
        dtype = str(box.get("dtype", "")) if isinstance(box, dict) else ""
        self.obs_integer = dtype.startswith(("int", "uint")) if dtype else _pickled_box_is_integer(box)
        # None: what SB2 did with this model's space (the cast when the Box is integer)
        self.integer_cast = self.obs_integer if integer_cast is None else bool(integer_cast)
        self.n_inputs = self.weights["pi_fc0"][0].shape[0]
        self.n_actions = self.weights["pi"][0].shape[1]
        self.rng = np.random.default_rng(seed)
        self.name = f"authors' {_algo_from_name(path.stem)} ({path.stem})"

    # -- spaces -------------------------------------------------------------------------------
    @property
    def action_space(self):
        from gymnasium import spaces

        return spaces.MultiBinary(self.n_actions) if self.multibinary else spaces.Discrete(self.n_actions)

    @property
    def observation_space(self):
        from gymnasium import spaces

        shape = _sb2_obs_shape(self.data.get("observation_space", {}), self.n_inputs)
        return spaces.Box(0.0, np.inf, shape=shape, dtype=np.float32)

    # -- the network --------------------------------------------------------------------------
    def _input(self, obs) -> np.ndarray:
        x = np.asarray(obs)
        if self.integer_cast:
            # feed_dict into an int64 placeholder: numpy's cast, fractions truncated toward 0
            x = x.astype(np.int64)
        x = x.astype(np.float64)
        batch = x.reshape(-1, self.n_inputs) if x.size != self.n_inputs else x.reshape(1, -1)
        return batch

    def _mlp(self, x: np.ndarray, head: str) -> np.ndarray:
        for layer in (f"{head}_fc0", f"{head}_fc1"):
            w, b = self.weights[layer]
            x = np.tanh(x @ w + b)
        w, b = self.weights[head]
        return x @ w + b

    def logits(self, obs) -> np.ndarray:
        return self._mlp(self._input(obs), "pi")

    def value(self, obs) -> np.ndarray:
        return self._mlp(self._input(obs), "vf")[:, 0]

    def action_probabilities(self, obs) -> np.ndarray:
        """Categorical probabilities (Discrete) or per-bit probabilities (MultiBinary)."""
        z = self.logits(obs)
        if self.multibinary:
            return 1.0 / (1.0 + np.exp(-z))
        return _softmax(z)


class _NumpyOnlyUnpickler(pickle.Unpickler):
    """Unpickles numpy arrays (and plain containers) only: any other global is refused."""

    ALLOWED = {("numpy.core.multiarray", "_reconstruct"), ("numpy._core.multiarray", "_reconstruct"),
               ("numpy", "ndarray"), ("numpy", "dtype"), ("numpy.core.multiarray", "scalar"),
               ("numpy._core.multiarray", "scalar")}

    def find_class(self, module, name):
        if (module, name) not in self.ALLOWED:
            raise pickle.UnpicklingError(f"refusing to load {module}.{name} (numpy arrays only)")
        if module.startswith("numpy.core"):  # numpy 2 moved it; the old name still resolves with a warning
            module = module.replace("numpy.core", "numpy._core", 1) if hasattr(np, "_core") else module
        return super().find_class(module, name)


def load_numpy_pickle(path: str | Path):
    with open(path, "rb") as fh:
        return _NumpyOnlyUnpickler(fh, encoding="latin1").load()


class DeepRMPGPolicy(_NumpyPolicy):
    """DeepRM's REINFORCE network (``pg_network``: dense 20 ReLU, softmax) in numpy."""

    kind = "policy"

    def __init__(self, path: str | Path, *, seed: int = 0):
        path = Path(path)
        try:
            params = load_numpy_pickle(path)
        except (OSError, pickle.UnpicklingError, EOFError, ValueError) as exc:
            raise ReferenceLoadError(f"{path}: not DeepRM's pickled parameters ({type(exc).__name__}: {exc})") from None
        if not (isinstance(params, list | tuple) and len(params) == 4):
            raise ReferenceLoadError(f"{path}: expected [W1, b1, W2, b2], got {type(params).__name__}")
        self.w1, self.b1, self.w2, self.b2 = (np.asarray(a, dtype=np.float64) for a in params)
        self.n_inputs, self.n_actions = self.w1.shape[0], self.w2.shape[1]
        self.integer_cast = False
        self.path = path
        self.rng = np.random.default_rng(seed)
        self.name = f"DeepRM's REINFORCE ({path.stem})"

    @property
    def action_space(self):
        from gymnasium import spaces

        return spaces.Discrete(self.n_actions)

    @property
    def observation_space(self):
        from gymnasium import spaces

        return spaces.Box(0.0, 1.0, shape=(20, self.n_inputs // 20), dtype=np.float32)

    def action_probabilities(self, obs) -> np.ndarray:
        x = np.asarray(obs, dtype=np.float64).reshape(-1, self.n_inputs)
        h = np.maximum(x @ self.w1 + self.b1, 0.0)
        return _softmax(h @ self.w2 + self.b2)


def load_reference(path: str | Path, *, integer_cast: bool | None = None, seed: int = 0):
    """``SB2Policy`` for an SB2 zip, ``DeepRMPGPolicy`` for DeepRM's ``.pkl`` (``ReferenceLoadError`` else)."""
    path = Path(path)
    if not path.is_file():
        raise ReferenceLoadError(f"{path}: no such file")
    if is_sb2_zip(path):
        return SB2Policy(path, integer_cast=integer_cast, seed=seed)
    if is_deeprm_pickle(path):
        return DeepRMPGPolicy(path, seed=seed)
    raise ReferenceLoadError(f"{path}: neither a Stable-Baselines 2 zip nor DeepRM's pickled parameters")


def _algo_from_name(stem: str) -> str:
    for algo in ("PPO2", "A2C", "TRPO", "DQN", "ACKTR"):
        if algo.lower() in stem.lower():
            return algo
    return "agent"


def _pickled_box_is_integer(entry: dict) -> bool:
    """Whether SB2's pickled observation Box has an integer dtype, read from the pickle's opcodes
    (no gym import): the first numpy dtype the pickle names is the Box's ``dtype``."""
    import base64
    import pickletools

    raw = entry.get(":serialized:") if isinstance(entry, dict) else None
    if not raw:
        return False
    try:
        for op, arg, _ in pickletools.genops(base64.b64decode(raw)):
            if op.name in ("SHORT_BINUNICODE", "BINUNICODE", "UNICODE") and isinstance(arg, str) \
                    and len(arg) in (2, 3) and arg[0] in "iufb" and arg[1:].isdigit():
                return arg[0] in "iu"
    except Exception:  # unreadable metadata: fall back to the caller's choice
        return False
    return False


def _sb2_obs_shape(entry: dict, n_inputs: int) -> tuple[int, ...]:
    """The Box's shape from SB2's metadata (its ``shape`` key when present), else flat."""
    shape = entry.get("shape") if isinstance(entry, dict) else None
    if shape and int(np.prod(shape)) == n_inputs:
        return tuple(int(s) for s in shape)
    return (n_inputs,)
