"""rl-zoo style hyperparameters: one YAML file per algorithm, keyed by env variant.

``hyperparams/<algo>.yaml`` maps a variant name (e.g. ``deeprm-discrete-image``) to a block of
keyword arguments of the SB3 class, plus three extras: ``policy`` (default ``MlpPolicy``),
``n_envs`` (copies of the env stepped together, default 1) and ``vec_env`` (``dummy``: the copies
step one after another in the training process, right for our envs whose step costs less than a
process round trip; ``subproc``: one process each, for envs whose step is expensive). The block ``default`` is the
fallback; a variant block is merged over it key by key, so a variant lists only what it changes.

YAML cannot hold Python objects, so a few values are written as names and turned into objects by
``resolve_hyperparams``:

* ``policy_kwargs.activation_fn``: ``tanh``, ``relu``, ``leaky_relu``, ``elu``, ``sigmoid``, ``gelu``
* ``policy_kwargs.optimizer_class``: ``adam``, ``rmsprop``, ``sgd``
* ``policy_kwargs.net_arch``: a list of layer widths, or ``{pi: [...], vf: [...]}`` (``qf`` for DQN)
* ``policy_kwargs.shared_net``: layer widths shared by actor and critic (SB3 < 1.8's plain
  ``net_arch`` list), built as ``schedrl.agents.shared_mlp.SharedMlpExtractor`` with empty
  ``pi``/``vf`` heads; not with ``net_arch``
* ``learning_rate`` / ``clip_range``: a number or ``lin_<x>`` (linear decay from x to 0)
* ``train_freq``: an integer or ``[n, step|episode]``
* ``policy_kwargs.sparse_input``: ``auto`` (the default), ``true`` or ``false``: the actor-critic
  MlpPolicy's first layers computed from the observation's non-zero entries
  (``schedrl.agents.sparse_input``; ``auto``: from 1,024 inputs); TRPO keeps the dense layer, whose
  second derivatives its Hessian-vector products need
* ``policy_kwargs.sparse_optimizer``: ``dense`` (the default: SB3's gradient clipping and torch's Adam
  over every weight, as every recorded run), ``clip`` (the clip computed from the rows of the
  sparse-input layers that the batch touched: the same to float tolerance) or ``lazy`` (that clip and
  Adam on the touched rows only, opt-in: not the papers' Adam); ``schedrl.agents.sparse_optimizer``.
  Needs the sparse-input layer and Adam; the algorithm's ``max_grad_norm`` is passed to the policy
  as ``sparse_max_grad_norm``
"""

from __future__ import annotations

import copy
import inspect
from pathlib import Path
from typing import Any

from schedrl.agents.sparse_setting import OPTIMIZER_SETTINGS, SETTINGS
from schedrl.config import load_yaml
from schedrl.errors import ConfigError

HYPERPARAMS_DIR = Path(__file__).resolve().parent / "hyperparams"
EXTRA_KEYS = ("policy", "n_envs", "vec_env")
VEC_ENVS = ("dummy", "subproc")

_ACTIVATIONS = {"tanh": "Tanh", "relu": "ReLU", "leaky_relu": "LeakyReLU", "elu": "ELU",
                "sigmoid": "Sigmoid", "gelu": "GELU"}
_OPTIMIZERS = {"adam": "Adam", "rmsprop": "RMSprop", "sgd": "SGD"}


def hyperparams_file(algo: str, directory: str | Path | None = None) -> Path:
    return Path(directory or HYPERPARAMS_DIR) / f"{algo.lower()}.yaml"


def load_hyperparams(algo: str, variant: str | None = None, directory: str | Path | None = None,
                     overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    """The plain (YAML-valued) hyperparameters of ``algo`` for env ``variant``.

    ``default`` is merged under the variant's block (missing variant: ``default`` alone), then
    ``overrides`` on top. The result is JSON-serialisable: it is what a run folder records.
    """
    from schedrl.agents.registry import check_name

    path = hyperparams_file(check_name(algo), directory)
    table = load_yaml(path)
    if not isinstance(table, dict) or "default" not in table:
        raise ConfigError(f"{path}: needs a top-level 'default' block")
    for key, block in table.items():
        if not isinstance(block, dict):
            raise ConfigError(f"{path}: block '{key}' must be a mapping")
    merged = copy.deepcopy(table["default"])
    if variant is not None and variant in table:
        merged.update(copy.deepcopy(table[variant]))
    if overrides:
        merged.update(copy.deepcopy(overrides))
    merged.setdefault("policy", "MlpPolicy")
    merged.setdefault("n_envs", 1)
    return merged


def vec_env_kind(params: dict[str, Any]) -> str:
    """The ``vec_env`` extra of plain hyperparameters (``dummy`` when absent), checked."""
    kind = params.get("vec_env", "dummy")
    if kind not in VEC_ENVS:
        raise ConfigError(f"hyperparameter 'vec_env' must be one of {', '.join(VEC_ENVS)}, got {kind!r}")
    return kind


def _linear(start: float):
    def schedule(progress_remaining: float) -> float:
        return progress_remaining * start

    return schedule


def _schedule(key: str, value):
    if isinstance(value, str):
        if value.startswith("lin_"):
            try:
                return _linear(float(value[4:]))
            except ValueError:
                pass
        raise ConfigError(f"hyperparameter '{key}': expected a number or 'lin_<x>', got '{value}'")
    return float(value)


def _named_class(key: str, value, table: dict, module):
    """Map a case-insensitive config name (``table`` key) to the class ``module.<table[name]>``."""
    name = str(value).lower()
    if name not in table:
        raise ConfigError(f"policy_kwargs.{key}: unknown '{value}' (known: {', '.join(sorted(table))})")
    return getattr(module, table[name])


def _policy_kwargs(raw: dict) -> dict:
    import torch.nn as nn
    import torch.optim as optim

    out = dict(raw)
    for key, table, module in (("activation_fn", _ACTIVATIONS, nn), ("optimizer_class", _OPTIMIZERS, optim)):
        if key in out:
            out[key] = _named_class(key, out[key], table, module)
    arch = out.get("net_arch")
    if arch is not None:
        ok_list = isinstance(arch, list) and all(isinstance(w, int) and w > 0 for w in arch)
        ok_dict = isinstance(arch, dict) and all(
            k in ("pi", "vf", "qf") and isinstance(v, list) and all(isinstance(w, int) and w > 0 for w in v)
            for k, v in arch.items())
        if not (ok_list or ok_dict):
            raise ConfigError(f"policy_kwargs.net_arch: expected a list of widths or a mapping "
                              f"pi/vf/qf -> widths, got {arch!r}")
    if "sparse_input" in out and out["sparse_input"] not in SETTINGS:
        raise ConfigError(f"policy_kwargs.sparse_input: expected true, false or auto, got {out['sparse_input']!r}")
    if "sparse_optimizer" in out and out["sparse_optimizer"] not in OPTIMIZER_SETTINGS:
        raise ConfigError(f"policy_kwargs.sparse_optimizer: expected {', '.join(OPTIMIZER_SETTINGS)}, "
                          f"got {out['sparse_optimizer']!r}")
    shared = out.pop("shared_net", None)
    if shared is not None:
        if not (isinstance(shared, list) and shared and all(isinstance(w, int) and w > 0 for w in shared)):
            raise ConfigError(f"policy_kwargs.shared_net: expected a non-empty list of widths, got {shared!r}")
        if arch is not None:
            raise ConfigError("policy_kwargs: give either shared_net or net_arch, not both")
        from schedrl.agents.shared_mlp import SharedMlpExtractor

        out["features_extractor_class"] = SharedMlpExtractor
        out["features_extractor_kwargs"] = {"hidden": list(shared), "activation_fn": out.get("activation_fn", nn.Tanh)}
        out["net_arch"] = {"pi": [], "vf": []}
    return out


def resolve_hyperparams(algo: str, params: dict[str, Any]) -> tuple[str | type, int, dict[str, Any]]:
    """Turn plain hyperparameters into ``(policy, n_envs, kwargs)`` for the SB3 class (``policy``: the
    name, or for SB3's actor-critic MlpPolicy the class ``LeanMlpPolicy``).

    Unknown keys raise ConfigError naming the key and the algorithm.
    """
    from schedrl.agents.registry import algo_class, is_own_loop

    if is_own_loop(algo):
        raise ConfigError(f"{algo} is not a Stable-Baselines3 algorithm: its hyperparameters are read by "
                          "schedrl.agents.reinforce.ReinforceConfig.from_dict")
    cls = algo_class(algo)
    params = copy.deepcopy(params)
    policy = params.pop("policy", "MlpPolicy")
    n_envs = int(params.pop("n_envs", 1))
    vec_env_kind(params)
    params.pop("vec_env", None)
    if n_envs < 1:
        raise ConfigError(f"hyperparameter 'n_envs' must be >= 1, got {n_envs}")
    if policy not in getattr(cls, "policy_aliases", {}):
        raise ConfigError(f"{algo}: unknown policy '{policy}' "
                          f"(known: {', '.join(sorted(cls.policy_aliases))})")
    if "tensorboard_log" in params:
        raise ConfigError(f"{algo}: 'tensorboard_log' is not a hyperparameter: give 'schedrl train --tensorboard DIR'")
    allowed = set(inspect.signature(cls.__init__).parameters) - {"self", "policy", "env", "seed",
                                                                   "_init_setup_model"}
    for key in params:
        if key not in allowed:
            raise ConfigError(f"{algo}: unknown hyperparameter '{key}'")
    check_types({k: p.default for k, p in inspect.signature(cls.__init__).parameters.items()
                 if p.default is not inspect.Parameter.empty}, params, algo)
    for key in ("learning_rate", "clip_range", "clip_range_vf"):
        if key in params and params[key] is not None:
            params[key] = _schedule(key, params[key])
    if isinstance(params.get("train_freq"), list):
        params["train_freq"] = tuple(params["train_freq"])
    if "policy_kwargs" in params:
        params["policy_kwargs"] = _policy_kwargs(params["policy_kwargs"] or {})
    _fused_adam(cls, params)
    policy = _lean_policy(cls, policy)
    policy = _check_sparse_input(cls, policy, params["policy_kwargs"])
    _sparse_optimizer(cls, params)
    _sparse_rollouts(cls, policy, params)
    return policy, n_envs, params


#: hyperparameters read as a schedule or a tuple, or checked apart (policy_kwargs)
_UNTYPED = frozenset({"learning_rate", "clip_range", "clip_range_vf", "train_freq", "policy_kwargs"})
#: integer hyperparameters that count something and must be at least 1
_COUNTS = frozenset({"n_steps", "batch_size", "n_epochs", "n_critic_updates", "cg_max_steps", "buffer_size",
                     "target_update_interval", "sub_sampling_factor"})


def check_types(defaults: dict[str, Any], params: dict[str, Any], algo: str,
                counts: frozenset[str] = _COUNTS, untyped: frozenset[str] = _UNTYPED) -> None:
    """Each hyperparameter of the type of its default (a bool, an integer, a number, a name, or a list
    of the type of the default list's items); one ConfigError naming the key otherwise. In place, an
    integer written ``1.0e6`` becomes ``1000000``. Keys whose default is None (or an empty list) are left
    to the trainer's own checks, as are ``untyped`` ones (SB3's schedules and tuples); ``counts``:
    integers (or lists of them) that must be at least 1."""
    for key, value in params.items():
        default = defaults.get(key)
        if key not in untyped and default is not None:
            params[key] = _checked(algo, key, value, default, key in counts)
    if "policy_kwargs" in params and not isinstance(params["policy_kwargs"], (dict, type(None))):
        raise ConfigError(f"{algo}: hyperparameter 'policy_kwargs' must be a mapping, not {params['policy_kwargs']!r}")


def _checked(algo: str, key: str, value, default, count: bool):
    """``value`` checked against the type of ``default`` (see ``check_types``), kept as given (a run's
    saved config and its resume compare them) except an integer written as a float, which becomes an
    int (SB3's slices and ranges need one)."""
    from schedrl.errors import check_bool, check_int, check_real

    name = f"{algo}: hyperparameter '{key}'"
    if isinstance(default, bool):
        check_bool(name, value)
    elif isinstance(default, int):
        checked = check_int(name, value, 1 if count else None)
        return checked if isinstance(value, float) else value
    elif isinstance(default, float):
        check_real(name, value)
    elif isinstance(default, str) and not isinstance(value, str):
        raise ConfigError(f"{name} must be a name such as '{default}', not {value!r}")
    elif isinstance(default, list) and default:
        if not isinstance(value, list):
            raise ConfigError(f"{name} must be a list such as {default}, not {value!r}")
        items = [_checked(algo, f"{key}[{i}]", v, default[0], count) for i, v in enumerate(value)]
        return value if all(a is b for a, b in zip(items, value)) else items
    return value


def _sparse_optimizer(cls, params: dict[str, Any]) -> None:
    """``sparse_optimizer`` checked (Adam only; not TRPO, whose policy step is not an optimizer's), and
    the algorithm's ``max_grad_norm`` given to the policy, whose optimizer then clips."""
    import torch.optim as optim

    pk = params["policy_kwargs"]
    setting = pk.get("sparse_optimizer", "dense")
    if setting == "dense":
        return
    if cls.__name__ == "TRPO" or "max_grad_norm" not in inspect.signature(cls.__init__).parameters:
        raise ConfigError(f"policy_kwargs.sparse_optimizer: {cls.__name__} has no sparse optimizer (PPO, A2C on Adam)")
    if pk.get("optimizer_class") is not optim.Adam:
        raise ConfigError(f"policy_kwargs.sparse_optimizer: needs Adam, not {getattr(pk.get('optimizer_class'), '__name__', None)}")
    max_norm = params.get("max_grad_norm", inspect.signature(cls.__init__).parameters["max_grad_norm"].default)
    pk["sparse_max_grad_norm"] = float(max_norm)


def _sparse_rollouts(cls, policy, params: dict[str, Any]) -> None:
    """PPO's and MaskablePPO's rollout buffer as ``schedrl.agents.sparse_rollouts``'s, which hands the
    sparse-input first layers their minibatches as CSR rows (the same batches: the same trained
    weights), with the policy's ``sparse_input`` and ``sparse_max_density``; unless the
    hyperparameters name a buffer, or the policy is not a lean one with sparse-input layers to feed."""
    from schedrl.agents.lean_policy import LeanMaskablePolicy, LeanMlpPolicy

    if policy not in (LeanMlpPolicy, LeanMaskablePolicy) or cls.__name__ not in ("PPO", "MaskablePPO") \
            or params.get("rollout_buffer_class") is not None or params.get("rollout_buffer_kwargs"):
        return
    from schedrl.agents.sparse_input import MAX_DENSITY
    from schedrl.agents.sparse_rollouts import SparseMaskableRolloutBuffer, SparseRolloutBuffer

    pk = params["policy_kwargs"]
    setting = policy.SPARSE_INPUT if pk.get("sparse_input") is None else pk["sparse_input"]
    if setting is False:
        return
    params["rollout_buffer_class"] = SparseMaskableRolloutBuffer if policy is LeanMaskablePolicy else SparseRolloutBuffer
    params["rollout_buffer_kwargs"] = {"sparse_input": setting,
                                       "sparse_max_density": float(pk.get("sparse_max_density", MAX_DENSITY))}


def _check_sparse_input(cls, policy, policy_kwargs: dict):
    """The policy, checked for ``sparse_input``: only the actor-critic MlpPolicy has it, and TRPO gets
    the dense first layer (its conjugate-gradient step differentiates the policy twice, which the
    sparse layer's backward does not support)."""
    from schedrl.agents.lean_policy import DenseInputLeanMlpPolicy, LeanMaskablePolicy, LeanMlpPolicy

    if policy is not LeanMlpPolicy and policy is not LeanMaskablePolicy:
        for key in ("sparse_input", "sparse_optimizer"):
            if key in policy_kwargs:
                raise ConfigError(f"policy_kwargs.{key}: only the actor-critic MlpPolicy has it, not {cls.__name__}'s")
        return policy
    if cls.__name__ == "TRPO":
        if policy_kwargs.get("sparse_input", False) is not False:
            raise ConfigError("policy_kwargs.sparse_input: TRPO needs the dense first layer (second derivatives)")
        return DenseInputLeanMlpPolicy
    return policy


def _lean_policy(cls, policy: str):
    """SB3's actor-critic MlpPolicy as ``LeanMlpPolicy``, MaskablePPO's as ``LeanMaskablePolicy``: the
    same numbers without a distribution object per step (schedrl.agents.lean_policy); any other policy
    as named."""
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
    from stable_baselines3.common.policies import ActorCriticPolicy

    if policy == "MlpPolicy" and cls.policy_aliases.get(policy) is ActorCriticPolicy:
        from schedrl.agents.lean_policy import LeanMlpPolicy

        return LeanMlpPolicy
    if policy == "MlpPolicy" and cls.policy_aliases.get(policy) is MaskableActorCriticPolicy:
        from schedrl.agents.lean_policy import LeanMaskablePolicy

        return LeanMaskablePolicy
    return policy


def _fused_adam(cls, params: dict[str, Any]) -> None:
    """Give the policy's default Adam torch's fused CPU kernel (same update rule, one call).

    Adam's per-tensor Python loop was a third of a DQN update on the DeepRM image state; the fused
    kernel is ~9x faster per step (benchmarks/bench_agents.py). Only where SB3 would build its
    default Adam: the optimizer is not named in ``policy_kwargs`` and A2C is not on RMSprop (there
    SB3's RMSprop gets the multi-tensor kernel and an exact square root). SB3 adds eps 1e-5 for actor-critic policies only
    when no optimizer_kwargs are given, so it is passed here too.
    """
    import torch.optim as optim
    from stable_baselines3.common.on_policy_algorithm import OnPolicyAlgorithm

    pk = params.setdefault("policy_kwargs", {})
    if "optimizer_class" in pk or "optimizer_kwargs" in pk:
        return
    if "use_rms_prop" in inspect.signature(cls.__init__).parameters and params.get("use_rms_prop", True):
        # A2C on RMSprop (its default): SB3's own optimizer and settings, with torch's multi-tensor
        # kernel instead of its per-tensor loop on CPU (the same arithmetic; ~15% of an A2C update)
        # and the square root taken exactly (schedrl.agents.rmsprop: torch's is slow on zeros)
        from schedrl.agents.rmsprop import RMSprop

        pk["optimizer_class"] = RMSprop
        pk["optimizer_kwargs"] = {"alpha": 0.99, "eps": params.get("rms_prop_eps", 1e-5), "weight_decay": 0,
                                  "foreach": True}
        return
    pk["optimizer_class"] = optim.Adam
    pk["optimizer_kwargs"] = {"eps": 1e-5, "fused": True} if issubclass(cls, OnPolicyAlgorithm) else {"fused": True}
