"""State encoders: functions from a simulator state to a float32 numpy array of a declared shape.

An encoder is built once per environment from the simulator's parameters,
``enc = get_encoder(name)(params, time_limit=...)`` (``time_limit``: the episode's length in time
steps, used by encoders that normalise times; others ignore it), declares ``enc.shape``, ``enc.low`` and ``enc.high`` (finite
bounds for a Gymnasium ``Box``) and is called as ``enc(state) -> np.ndarray`` (a fresh array each
call). Encoders may cache work between calls on the same state object; each has a from-scratch
reference function (e.g. ``encode_image``) that tests compare against.

Grid encoders (DeepRM time-slot grid, ``schedrl.sim.grid``): ``image``, ``stacked``
(``grid_images``) and ``compact`` (sched-rl-gym's feature vector, ``compact``).

HPC encoders (event-driven simulator, ``schedrl.sim.stepper``; ``hpc``): ``dras``, ``sem``,
``mrsch``, ``runtime_baseline``, ``runtime_proposal``, built from ``HPCEncoderParams`` and called as
``enc(state, jobs=None, priority=None)``.
"""

from __future__ import annotations

from schedrl.errors import ConfigError

_REGISTRY: dict[str, tuple[str, str]] = {
    "image": ("schedrl.encoders.grid_images", "ImageEncoder"),
    "stacked": ("schedrl.encoders.grid_images", "StackedEncoder"),
    "compact": ("schedrl.encoders.compact", "CompactEncoder"),
    "dras": ("schedrl.encoders.hpc", "DRASEncoder"),
    "sem": ("schedrl.encoders.hpc", "SEMEncoder"),
    "mrsch": ("schedrl.encoders.hpc", "MRSchEncoder"),
    "runtime_baseline": ("schedrl.encoders.hpc", "RuntimeEncoder"),
    "runtime_proposal": ("schedrl.encoders.hpc", "RuntimeProposalEncoder"),
}


def register_encoder(name: str, module: str, attr: str) -> None:
    """Make ``get_encoder(name)`` return ``module.attr`` (imported lazily)."""
    _REGISTRY[name] = (module, attr)


def encoder_names() -> list[str]:
    return sorted(_REGISTRY)


def get_encoder(name: str):
    """The encoder class registered as ``name``; ConfigError naming the choices otherwise."""
    try:
        module, attr = _REGISTRY[name]
    except (KeyError, TypeError):  # TypeError: a list or a mapping given as the name
        raise ConfigError(f"unknown encoder '{name}' (choose from: {', '.join(encoder_names())})") from None
    import importlib

    return getattr(importlib.import_module(module), attr)
