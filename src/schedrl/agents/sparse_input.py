"""A first dense layer that multiplies only the non-zero inputs (issue 72).

The MDP paper's image-like agents put almost all of their 1.1-1.8 M weights in the first layer over
8,440-14,160 inputs, of which 6-11% are non-zero; DeepRM's grid images and the runtime paper's
zero-padded queues are alike. ``SparseInputLinear`` is an ``nn.Linear`` (same parameters, same
shapes, same initialisation, same saved files) whose product is computed from the non-zero entries
of each input row: a CSR view of the batch, then ``out[b] = sum_k x[b, c_k] * W[:, c_k] + bias``
forward and ``dW[:, c_k] += x[b, c_k] * grad[b]`` backward, so the work is proportional to what the
observation holds. The function is the dense layer's; only the order of the float sums differs, so
outputs agree to float tolerance (``tests/test_sparse_input.py``) and trained weights may differ from
a dense run's in the last bits.

Why the weight is stored input-major: a non-zero input ``c`` reads column ``c`` of ``W``, a strided
walk over 64 cache lines in ``nn.Linear``'s ``(out, in)`` layout (as much memory traffic as the dense
product). The layer therefore keeps its ``weight`` parameter as ``(in, out)`` (``in_out = True``, as
DFP's ``InputLinear``), whose rows the kernels read and write whole and which the optimizers see
contiguous (torch's fused Adam is ~3x slower on a strided view of the same table). Files keep
``nn.Linear``'s layout: the state dict is written ``(out, in)`` and read back transposed, and
``in_out_optimizer_hooks`` does the same for the optimizer's moments, so a model or a checkpoint
written with the dense layer loads into this one and the other way round.

The kernels are numba loops over contiguous rows without fastmath: element-wise products and sums
in a fixed order, so the same batch gives the same bits on AVX2 and AVX-512 machines. A batch whose
density exceeds ``max_density`` (where the dense BLAS product is faster, measured by
``benchmarks/bench_sparse_input.py``) goes through ``F.linear`` on the same parameters. Only first
derivatives: the backward is ``once_differentiable`` (TRPO's Hessian-vector products need the dense
layer; ``schedrl.agents.hyperparams`` keeps it there).

Row gradients (``row_grads = True``, set by ``policy_kwargs.sparse_optimizer``): the weight's gradient
is non-zero only in the input rows that some observation of the batch has non-zero (15-20% of the
rows over an MDP training batch of 50). The backward then leaves ``weight.grad`` alone and hands the
optimizer those rows only, as ``weight.row_grad`` (a ``RowGrad``: the sorted row indices and their
``[rows, out]`` values, each value summed in the same order as the dense table's, so the same bits),
and ``schedrl.agents.sparse_optimizer.RowSparseAdam`` clips and updates from them.
"""

from __future__ import annotations

import numba
import numpy as np
import torch
import torch.nn as nn
from torch.autograd.function import once_differentiable

#: default largest share of non-zero entries in a batch for which the sparse product is used
MAX_DENSITY = 0.3


#: inputs tested together by ``_csr``'s second pass: a group with no non-zero entry is skipped whole
CSR_GROUP = 8


@numba.njit(cache=True)
def _count_nnz(x: np.ndarray, max_nnz: int) -> int:
    """Non-zero entries of ``x`` (float32 [B, N]), or -1 as soon as they pass ``max_nnz`` (a dense
    batch stops early, row by row); vectorised by LLVM."""
    nnz = 0
    for b in range(x.shape[0]):
        for i in range(x.shape[1]):
            nnz += x[b, i] != 0
        if nnz > max_nnz:
            return -1
    return nnz


@numba.njit(cache=True)
def _csr(x: np.ndarray, max_nnz: int):
    """CSR view of ``x`` (float32 [B, N]): ``(indptr, cols, vals)``, or an empty ``indptr`` when the
    batch holds more than ``max_nnz`` non-zero entries (the caller then multiplies densely). The first
    pass counts (vectorised; a dense batch stops early). The second skips groups of ``CSR_GROUP`` zero
    inputs (the images' empty runs) and, inside a group with an entry, writes every input and advances
    only past the non-zero ones (no branch per input to predict): 1.6-1.8x faster than writing every
    input on the MDP's and DeepRM's observations (``benchmarks/bench_sparse_input.py --scan``)."""
    n_rows, n_cols = x.shape
    nnz = _count_nnz(x, max_nnz)
    if nnz < 0:
        return np.empty(0, np.int64), np.empty(0, np.int32), np.empty(0, np.float32)
    indptr = np.empty(n_rows + 1, np.int64)
    cols = np.empty(nnz + CSR_GROUP, np.int32)  # room for a group's writes past the last entry
    vals = np.empty(nnz + CSR_GROUP, np.float32)
    k = 0
    indptr[0] = 0
    whole = n_cols - n_cols % CSR_GROUP
    for b in range(n_rows):
        row = x[b]
        for start in range(0, whole, CSR_GROUP):
            hit = False
            for i in range(start, start + CSR_GROUP):
                hit |= row[i] != 0
            if hit:
                for i in range(start, start + CSR_GROUP):
                    v = row[i]
                    cols[k] = i
                    vals[k] = v
                    k += v != 0
        for i in range(whole, n_cols):
            v = row[i]
            cols[k] = i
            vals[k] = v
            k += v != 0
        indptr[b + 1] = k
    return indptr, cols[:nnz], vals[:nnz]


@numba.njit(cache=True)
def _csr_matmul(indptr, cols, vals, wt, bias):
    """``out[b] = sum_k vals[k] * wt[cols[k]] + bias`` over row ``b``'s entries (wt: [N, M])."""
    n_rows = indptr.size - 1
    m = wt.shape[1]
    out = np.zeros((n_rows, m), np.float32)
    for b in range(n_rows):
        row = out[b]
        for k in range(indptr[b], indptr[b + 1]):
            w = wt[cols[k]]
            v = vals[k]
            for j in range(m):
                row[j] += v * w[j]
        for j in range(m):
            row[j] += bias[j]
    return out


@numba.njit(cache=True)
def _csr_t_matmul(indptr, cols, vals, grad, n_in):
    """``X^T @ grad`` for the CSR batch ``X``: the weight gradient as an [N, M] table, each entry's
    row added in batch order (faster here than regrouping the entries by column first, measured)."""
    m = grad.shape[1]
    out = np.zeros((n_in, m), np.float32)
    for b in range(indptr.size - 1):
        g = grad[b]
        for k in range(indptr[b], indptr[b + 1]):
            row = out[cols[k]]
            v = vals[k]
            for j in range(m):
                row[j] += v * g[j]
    return out


@numba.njit(cache=True)
def _touched(cols, n_in):
    """The distinct columns of a CSR batch, ascending, and each entry's position among them."""
    slot = np.full(n_in, -1, np.int32)
    for k in range(cols.size):
        slot[cols[k]] = 0
    n = 0
    for i in range(n_in):
        n += slot[i] == 0
    rows = np.empty(n, np.int64)
    n = 0
    for i in range(n_in):
        if slot[i] == 0:
            slot[i] = n
            rows[n] = i
            n += 1
    pos = np.empty(cols.size, np.int32)
    for k in range(cols.size):
        pos[k] = slot[cols[k]]
    return rows, pos


@numba.njit(cache=True)
def _csr_t_rows(indptr, pos, vals, grad, out):
    """``out[:n]``: the ``n`` rows of ``X^T @ grad`` that the batch touches (``pos``: each entry's row
    among them), each entry's product added in batch order as in ``_csr_t_matmul``: the same bits as
    the dense table's rows, without writing the untouched ones."""
    m = grad.shape[1]
    out[:] = 0.0
    for b in range(indptr.size - 1):
        g = grad[b]
        for k in range(indptr[b], indptr[b + 1]):
            row = out[pos[k]]
            v = vals[k]
            for j in range(m):
                row[j] += v * g[j]


class RowGrad:
    """A weight gradient that is zero outside ``rows`` (int64, ascending, distinct): ``values[i]`` is
    the gradient's row ``rows[i]`` (float32 ``[len(rows), out]``)."""

    __slots__ = ("rows", "values")

    def __init__(self, rows: np.ndarray, values: np.ndarray):
        self.rows, self.values = rows, values

    @classmethod
    def of_dense(cls, grad: torch.Tensor) -> RowGrad:
        """Every row of a dense ``(in, out)`` gradient (a batch that went through the dense product)."""
        values = grad.detach().contiguous().numpy()
        return cls(np.arange(values.shape[0], dtype=np.int64), values)

    def add(self, other: RowGrad) -> RowGrad:
        """The sum of two row gradients (two backward passes before one optimizer step)."""
        rows = np.union1d(self.rows, other.rows)
        values = np.zeros((rows.size, self.values.shape[1]), np.float32)
        values[np.searchsorted(rows, self.rows)] += self.values
        values[np.searchsorted(rows, other.rows)] += other.values
        return RowGrad(rows, values)

    def to_dense(self, n_in: int) -> torch.Tensor:
        out = torch.zeros((n_in, self.values.shape[1]), dtype=torch.float32)
        out[torch.from_numpy(self.rows)] = torch.from_numpy(self.values)
        return out


class SparseRows:
    """A float32 batch ``[B, N]`` as CSR arrays, computed once and shared by every first layer that
    reads the same batch (an actor-critic policy's two)."""

    __slots__ = ("indptr", "cols", "vals", "shape", "_touched")

    def __init__(self, indptr, cols, vals, shape):
        self.indptr, self.cols, self.vals, self.shape = indptr, cols, vals, shape
        self._touched = None

    def touched(self) -> tuple[np.ndarray, np.ndarray]:
        """(the input rows some entry of the batch reads, ascending; each entry's position among them),
        computed once for the layers that share this view."""
        if self._touched is None:
            self._touched = _touched(self.cols, self.shape[1])
        return self._touched

    def t_matmul_rows(self, grad: torch.Tensor, buffer: np.ndarray | None = None) -> RowGrad:
        """``X^T @ grad`` as the rows the batch touches, written into ``buffer`` (float32 ``[N, M]``,
        kept by the caller between steps: a fresh array costs its pages' first-touch faults) when
        given, the values then a view of it."""
        rows, pos = self.touched()
        grad = grad.contiguous().numpy()
        out = np.empty((rows.size, grad.shape[1]), np.float32) if buffer is None else buffer[: rows.size]
        _csr_t_rows(self.indptr, pos, self.vals, grad, out)
        return RowGrad(rows, out)

    @classmethod
    def of(cls, x: torch.Tensor, max_density: float = MAX_DENSITY) -> SparseRows | None:
        """The CSR view of ``x``, or None where it cannot be used (not a 2-D float32 CPU batch, a
        batch that needs an input gradient) or is denser than ``max_density``."""
        if x.dim() != 2 or x.dtype != torch.float32 or x.device.type != "cpu" or x.requires_grad:
            return None
        arr = x.detach().contiguous().numpy()
        indptr, cols, vals = _csr(arr, int(max_density * arr.size))
        if indptr.size == 0 and arr.shape[0] > 0:
            return None
        return cls(indptr, cols, vals, arr.shape)

    def matmul(self, weight: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
        """``X @ weight + bias`` for this batch ``X`` (weight ``(in, out)``), outside autograd."""
        return torch.from_numpy(_csr_matmul(self.indptr, self.cols, self.vals, weight.detach().numpy(),
                                            bias.detach().numpy()))

    def to_dense(self) -> torch.Tensor:
        """The dense float32 batch ``[B, N]`` of this view."""
        out = torch.zeros(self.shape, dtype=torch.float32)
        rows = np.repeat(np.arange(self.shape[0]), np.diff(self.indptr))
        out.numpy()[rows, self.cols] = self.vals
        return out

    @property
    def density(self) -> float:
        return self.vals.size / max(1, self.shape[0] * self.shape[1])


class _SparseLinearFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, rows: SparseRows, weight: torch.Tensor, bias: torch.Tensor, row_grads: bool = False):
        ctx.rows = rows
        ctx.weight = weight if row_grads else None
        return rows.matmul(weight, bias)

    @staticmethod
    @once_differentiable
    def backward(ctx, grad: torch.Tensor):
        rows = ctx.rows
        grad_w = grad_b = None
        if ctx.needs_input_grad[1] and ctx.weight is not None:
            # the touched rows only, beside the parameter; weight.grad stays as it is (None). The
            # values go to a buffer kept on the weight unless an earlier backward's still use it
            weight = ctx.weight
            held = getattr(weight, "row_grad", None)
            buffer = getattr(weight, "row_grad_buffer", None)
            if held is None and buffer is None:
                buffer = weight.row_grad_buffer = np.empty(tuple(weight.shape), np.float32)
            row_grad = rows.t_matmul_rows(grad, buffer if held is None else None)
            weight.row_grad = row_grad if held is None else held.add(row_grad)
        elif ctx.needs_input_grad[1]:
            grad_w = torch.from_numpy(_csr_t_matmul(rows.indptr, rows.cols, rows.vals, grad.contiguous().numpy(),
                                                    rows.shape[1]))
        if ctx.needs_input_grad[2]:
            grad_b = grad.sum(0)
        return None, grad_w, grad_b, None


class SparseInputLinear(nn.Linear):
    """``nn.Linear`` computed from the non-zero inputs of each batch row, its weight kept ``(in, out)``
    (see the module's text)."""

    in_out = True  # the weight's layout, for code that reads nn.Linear weights as (out, in)
    #: the backward hands the weight's gradient over as ``weight.row_grad`` (see the module's text)
    row_grads = False

    def __init__(self, in_features: int, out_features: int, bias: bool = True, *,
                 max_density: float = MAX_DENSITY):
        if not bias:
            raise ValueError("SparseInputLinear needs a bias (every layer it replaces has one)")
        super().__init__(in_features, out_features, bias=True)
        self.max_density = float(max_density)
        self.weight = nn.Parameter(self.weight.detach().t().contiguous())
        self.weight.in_out = True  # read by in_out_optimizer_hooks

    @classmethod
    def from_linear(cls, linear: nn.Linear, **kwargs) -> SparseInputLinear:
        """The same layer (same values) without drawing from torch's RNG."""
        with torch.random.fork_rng(devices=[]):
            layer = cls(linear.in_features, linear.out_features, linear.bias is not None, **kwargs)
        with torch.no_grad():
            layer.weight.copy_(linear.weight.t())
            layer.bias.copy_(linear.bias)
        return layer

    def forward(self, x: torch.Tensor, rows: SparseRows | None = None, dense: bool = False) -> torch.Tensor:
        """``x``'s product; ``rows``: its CSR view when the caller has it; ``dense``: the caller found
        ``x`` denser than ``max_density`` (neither: this layer scans ``x``)."""
        if rows is None and not dense:
            rows = SparseRows.of(x, self.max_density)
        if rows is None:
            return self.dense(x)
        if torch.is_grad_enabled():
            return _SparseLinearFn.apply(rows, self.weight, self.bias, self.row_grads)
        return rows.matmul(self.weight, self.bias)  # no graph to record: without autograd's per-call cost

    def dense(self, x: torch.Tensor) -> torch.Tensor:
        """The dense product on the same parameters (a batch denser than ``max_density``)."""
        return torch.addmm(self.bias, x.reshape(-1, self.in_features), self.weight).reshape(
            *x.shape[:-1], self.out_features)

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        super()._save_to_state_dict(destination, prefix, keep_vars)
        destination[prefix + "weight"] = self.weight.t() if keep_vars else self.weight.detach().t().contiguous()

    def _load_from_state_dict(self, state_dict, prefix, *args, **kwargs):
        w = state_dict.get(prefix + "weight")  # always nn.Linear's (out, in) in a file
        if w is not None and tuple(w.shape) == (self.out_features, self.in_features):
            state_dict[prefix + "weight"] = w.t()
        super()._load_from_state_dict(state_dict, prefix, *args, **kwargs)

    def extra_repr(self) -> str:
        return super().extra_repr() + f", sparse input (max density {self.max_density:g})"


def sparsify_first_linear(net: nn.Sequential, **kwargs) -> bool:
    """Replace the first ``nn.Linear`` of ``net`` (after any ``nn.Flatten``) by its
    ``SparseInputLinear``, in place and with the same values; True if one was replaced."""
    for i, module in enumerate(net):
        if isinstance(module, nn.Flatten):
            continue
        if type(module) is nn.Linear and module.bias is not None:
            net[i] = SparseInputLinear.from_linear(module, **kwargs)
            return True
        return False
    return False


def _in_out_pairs(optimizer: torch.optim.Optimizer, state_dict: dict):
    """(parameter, its index in ``state_dict``) for the optimizer's ``(in, out)`` parameters."""
    params = [p for g in optimizer.param_groups for p in g["params"]]
    ids = [i for g in state_dict["param_groups"] for i in g["params"]]
    return [(p, i) for p, i in zip(params, ids) if getattr(p, "in_out", False)]


def _state_dict_out_in(optimizer, state_dict):
    for p, i in _in_out_pairs(optimizer, state_dict):
        if i in state_dict["state"]:  # a new dict: the optimizer's own state stays as it is
            state_dict["state"][i] = {k: v.t().contiguous() if torch.is_tensor(v) and v.shape == p.shape and v.dim() == 2
                                      else v for k, v in state_dict["state"][i].items()}
    return state_dict


def _load_in_out(optimizer):
    for group in optimizer.param_groups:
        for p in group["params"]:
            if getattr(p, "in_out", False) and p in optimizer.state:
                state = optimizer.state[p]
                for k, v in list(state.items()):
                    if torch.is_tensor(v) and v.dim() == 2 and tuple(v.shape) == (p.shape[1], p.shape[0]):
                        state[k] = v.t().contiguous()


def in_out_optimizer_hooks(optimizer: torch.optim.Optimizer) -> torch.optim.Optimizer:
    """Make the optimizer's state dict hold the moments of its ``(in, out)`` weights as
    ``(out, in)``, transposed back on loading: optimizer files are the dense layer's."""
    if not any(getattr(p, "in_out", False) for g in optimizer.param_groups for p in g["params"]):
        return optimizer
    optimizer.register_state_dict_post_hook(_state_dict_out_in)
    optimizer.register_load_state_dict_post_hook(_load_in_out)
    return optimizer
