"""``policy_kwargs.sparse_input``: when an actor-critic policy computes its first layer from the
observation's non-zero entries (``schedrl.agents.sparse_input``). Torch-free, so that the cost
models and the hyperparameter checks read it without loading torch."""

from __future__ import annotations

#: inputs of a flattened observation from which ``sparse_input: auto`` (the default) uses the sparse
#: layer: every MDP image-like and DeepRM state (4,400-14,160 inputs), no compact one (<= 118) and
#: not the runtime paper's (456-812 inputs, over half of them non-zero)
AUTO_MIN_INPUTS = 1024
SETTINGS = (True, False, "auto")


def use_sparse(setting, n_inputs: int) -> bool:
    """``sparse_input`` as configured: True, False, or ``"auto"`` (on from ``AUTO_MIN_INPUTS`` inputs)."""
    if setting == "auto":
        return n_inputs >= AUTO_MIN_INPUTS
    if isinstance(setting, bool):
        return setting
    raise ValueError(f"sparse_input must be true, false or 'auto', got {setting!r}")


#: ``policy_kwargs.sparse_optimizer``: how the optimizer treats the sparse-input first layers' weights
#: (``schedrl.agents.sparse_optimizer``). ``dense`` (the default, every recorded run): SB3's gradient
#: clipping and torch's Adam over every weight. ``clip``: the gradient norm and its scaling from the
#: rows the batch touched (the same clip to float tolerance), then torch's Adam over every weight.
#: ``lazy``: that clip, then Adam on the touched rows only (rows whose gradient is zero keep their
#: moments and weights, as torch's SparseAdam and TensorFlow's LazyAdam: not the papers' Adam).
OPTIMIZER_SETTINGS = ("dense", "clip", "lazy")


def check_sparse_optimizer(setting) -> str:
    """``sparse_optimizer`` checked: one of ``OPTIMIZER_SETTINGS``."""
    if setting not in OPTIMIZER_SETTINGS:
        raise ValueError(f"sparse_optimizer must be one of {', '.join(OPTIMIZER_SETTINGS)}, got {setting!r}")
    return setting
