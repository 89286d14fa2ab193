"""Table 4 of sem-encoding.txt: the pair-convolution networks of SEM and DRAS, layer by layer."""

import numpy as np
import pytest
import torch

from schedrl.agents.networks import NETWORKS, build, layer_widths, parameter_count
from schedrl.encoders.hpc import HPCEncoderParams, dras_size, sem_size
from schedrl.errors import ConfigError


def _dense_params(widths):
    # conv: 2 weights + 1 bias; each dense layer: in * out weights + out biases
    return 3 + sum(a * b + b for a, b in zip(widths[1:-1], widths[2:]))


# (trace, encoder, nodes, K, hidden, Table 4 widths): input, convolution, FC1, FC2, output
TABLE4 = [
    ("theta", "sem", 4360, 34, [200, 100], [268, 134, 200, 100, 50]),
    ("theta", "dras", 4360, 34, [4000, 1000], [8920, 4460, 4000, 1000, 50]),
    ("datastar", "sem", 1664, 40, [200, 100], [280, 140, 200, 100, 50]),
    ("datastar", "dras", 1664, 40, [1000, 250], [3528, 1764, 1000, 250, 50]),
]


@pytest.mark.parametrize("trace,encoder,nodes,k,hidden,widths", TABLE4)
def test_table4_layer_sizes_and_parameters(trace, encoder, nodes, k, hidden, widths):
    p = HPCEncoderParams(nodes=nodes, window=50, k=k)
    n_in = (sem_size if encoder == "sem" else dras_size)(p)
    assert n_in == widths[0]  # the encoders' sizes are Table 4's state vector sizes
    net = build("pair_conv", n_in, 50, hidden, "relu")
    assert layer_widths(net) == widths
    assert parameter_count(net) == _dense_params(widths)
    out = net(torch.zeros(3, n_in))
    assert out.shape == (3, 50)


def test_hand_counted_parameters():
    # Theta DRAS by hand: 3 + 4460*4000+4000 + 4000*1000+1000 + 1000*50+50 = 21,895,053
    assert _dense_params([8920, 4460, 4000, 1000, 50]) == 21_895_053
    # Theta SEM: 3 + 134*200+200 + 200*100+100 + 100*50+50 = 52,153
    assert _dense_params([268, 134, 200, 100, 50]) == 52_153


def test_pair_conv_pairs_adjacent_elements():
    net = build("pair_conv", 6, 2, [], "relu")
    conv = net[2]
    with torch.no_grad():
        conv.weight[:] = torch.tensor([[[1.0, 10.0]]])
        conv.bias[:] = 0.0
        x = torch.tensor([[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]])
        y = net[:4](x)  # flatten, unflatten, conv, flatten
    assert np.allclose(y.numpy(), [[21.0, 43.0, 65.0]])  # (1 + 20), (3 + 40), (5 + 60)


def test_pair_conv_is_registered_and_rejects_odd_inputs():
    assert "pair_conv" in NETWORKS
    with pytest.raises(ConfigError, match="even"):
        build("pair_conv", 7, 2, [4], "relu")


def test_pair_conv_convolution_is_linear_so_it_cannot_die():
    # a filter whose outputs are negative for every input in [0, 1] (seed 0's initial one): with a
    # ReLU after it every unit would be 0 and the policy blind; linear, the outputs still vary.
    # Seeded: the hidden layer's initial weights decide whether the filter's gradient reaches it at all
    # (an unseeded draw, after other tests in the same process, once left every hidden unit dead)
    torch.manual_seed(0)
    net = build("pair_conv", 4, 2, [3], "relu")
    with torch.no_grad():
        net[2].weight[:] = torch.tensor([[[-0.005, 0.379]]])
        net[2].bias[:] = -0.58
        a = net[:5](torch.tensor([[0.0, 0.0, 1.0, 1.0]]))
        b = net[:5](torch.tensor([[1.0, 1.0, 0.0, 0.0]]))
    assert (a < 0).all() and not torch.allclose(a, b)
    x = torch.rand(8, 4)
    x.requires_grad_(True)
    net(x).sum().backward()
    assert net[2].weight.grad.abs().sum() > 0  # the filter learns
