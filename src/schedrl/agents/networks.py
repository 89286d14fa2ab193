"""Policy networks for our own agents (REINFORCE, later DFP's state module), by name.

Every builder has one signature, ``build(n_inputs, n_outputs, hidden, activation) -> nn.Module``,
and takes a batch of flattened observations ``(batch, n_inputs)`` to ``(batch, n_outputs)``
logits, so a trainer's hyperparameter file picks its network with ``network: <name>`` and a saved
model is rebuilt from its recorded name. ``mlp`` is DeepRM's (and SB3-like) stack of dense layers;
``pair_conv`` is DRAS's and SEM's (sem-encoding.txt Table 4): a one-filter convolution with kernel 2
and stride 2 over consecutive element pairs (half the inputs as outputs), then the dense layers.
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


def build_pair_conv(n_inputs: int, n_outputs: int, hidden: Sequence[int], activation: str = "relu"):
    """A 1-D convolution (one filter, kernel 2, stride 2) over element pairs: ``n_inputs / 2``
    linear outputs, then dense layers ``hidden`` with ``activation`` and a linear output. The pairs
    are the encoders' (size, time) or (free, remaining) pairs; the job window's four features per
    job are two pairs. An ``nn.Sequential``, so trainers can walk its layers.

    The convolution has no activation, as in DRAS's public code (a Keras Conv1D with its default
    linear activation): with a ReLU there, one filter whose weights and bias make every pair's
    output negative at initialisation (inputs are normalised to [0, 1]) gives zeros everywhere, no
    gradient reaches it, and the policy never sees its state (seed 0 did exactly that until
    2026-11-25). ``nn.Identity`` keeps the layer indices of older saved models."""
    import torch.nn as nn

    if n_inputs < 2 or n_inputs % 2:
        raise ConfigError(f"network pair_conv: needs an even number of inputs, got {n_inputs}")
    act = activation_class(activation)
    layers = [nn.Flatten(), nn.Unflatten(1, (1, n_inputs)), nn.Conv1d(1, 1, kernel_size=2, stride=2),
              nn.Flatten(), nn.Identity()]
    width = n_inputs // 2
    for h in hidden:
        layers += [nn.Linear(width, h), act()]
        width = h
    layers.append(nn.Linear(width, n_outputs))
    return nn.Sequential(*layers)


def layer_widths(net) -> list[int]:
    """Input width, then the output width of every convolution and dense layer (Table 4's rows)."""
    import torch.nn as nn

    widths = []
    for module in net.modules():
        if isinstance(module, nn.Unflatten):
            widths.append(int(module.unflattened_size[-1]))
        elif isinstance(module, nn.Conv1d):
            n = widths[-1]
            widths.append((n - module.kernel_size[0]) // module.stride[0] + 1)
        elif isinstance(module, nn.Linear):
            if not widths:
                widths.append(module.in_features)
            widths.append(module.out_features)
    return widths


def parameter_count(net) -> int:
    return int(sum(p.numel() for p in net.parameters()))


NETWORKS: dict[str, Callable] = {"mlp": build_mlp, "pair_conv": build_pair_conv}


def build(name: str, n_inputs: int, n_outputs: int, hidden: Sequence[int], activation: str = "relu"):
    """The network called ``name`` (one of ``NETWORKS``)."""
    if name not in NETWORKS:
        raise ConfigError(f"network must be one of {', '.join(NETWORKS)}, got '{name}'")
    return NETWORKS[name](n_inputs, n_outputs, hidden, activation)
