"""Policy networks for our own agents (REINFORCE, later DFP's state module), by name.

Every builder has one signature, ``build(n_inputs, n_outputs, hidden, activation) -> nn.Module``,
and takes a batch of flattened observations ``(batch, n_inputs)`` to ``(batch, n_outputs)``
logits, so a trainer's hyperparameter file picks its network with ``network: <name>`` and a saved
model is rebuilt from its recorded name. ``mlp`` is DeepRM's (and SB3-like) stack of dense layers.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from schedrl.errors import ConfigError

ACTIVATIONS = ("relu", "tanh", "leaky_relu")


def activation_class(name: str, who: str = "network"):
    import torch.nn as nn

    acts = {"relu": nn.ReLU, "tanh": nn.Tanh, "leaky_relu": nn.LeakyReLU}
    if name not in acts:
        raise ConfigError(f"{who}: activation must be one of {', '.join(acts)}, got '{name}'")
    return acts[name]


def build_mlp(n_inputs: int, n_outputs: int, hidden: Sequence[int], activation: str = "relu"):
    """Flatten, then dense layers of widths ``hidden`` with ``activation``, then a linear output."""
    import torch.nn as nn

    act = activation_class(activation)
    layers, width = [nn.Flatten()], n_inputs
    for h in hidden:
        layers += [nn.Linear(width, h), act()]
        width = h
    layers.append(nn.Linear(width, n_outputs))
    return nn.Sequential(*layers)


NETWORKS: dict[str, Callable] = {"mlp": build_mlp}


def build(name: str, n_inputs: int, n_outputs: int, hidden: Sequence[int], activation: str = "relu"):
    """The network called ``name`` (one of ``NETWORKS``)."""
    if name not in NETWORKS:
        raise ConfigError(f"network must be one of {', '.join(NETWORKS)}, got '{name}'")
    return NETWORKS[name](n_inputs, n_outputs, hidden, activation)
