"""DFP's ``incremental_input``: when a wide first layer keeps a greedy decision's product from the
inputs' changes (``schedrl.agents.incremental_input``). Torch-free, so that the cost models and the
config checks read it without loading torch."""

from __future__ import annotations

#: weights of a layer from which ``incremental_input: auto`` (the default) keeps classes: MRSch's
#: 11,410 x 4,000 first layer (45.6 M), not a narrow one whose whole product is already cheap
AUTO_MIN_WEIGHTS = 1 << 22
SETTINGS = (True, False, "auto")


def use_incremental(setting, in_features: int, out_features: int) -> bool:
    """``incremental_input`` as configured: True, False, or ``"auto"`` (on from ``AUTO_MIN_WEIGHTS``)."""
    if setting == "auto":
        return in_features * out_features >= AUTO_MIN_WEIGHTS
    if isinstance(setting, bool):
        return setting
    raise ValueError(f"incremental_input must be true, false or 'auto', got {setting!r}")
