"""Gradient clipping and Adam at the cost of the rows a batch touched (issue 72, ``sparse_optimizer``).

With the sparse-input first layer (``schedrl.agents.sparse_input``) what is left of an MDP image-like
PPO gradient step is arithmetic over all 1.1-1.8 M weights that does not depend on the batch: SB3's
``clip_grad_norm_`` (the norm of every gradient, then every gradient scaled) and torch's fused Adam.
Yet the first layers' weight gradients are zero outside the input rows that some observation of the
batch has non-zero (~16% of them over a training batch of 50 on scenario 6).

``RowSparseAdam`` is torch's Adam (same parameter groups, same state, same files) that clips the
gradient itself, from those rows:

* **the clip** (``sparse_optimizer: clip`` and ``lazy``) is ``torch.nn.utils.clip_grad_norm_``'s:
  the global 2-norm over every gradient (a zero row adds nothing, so the touched rows and the other
  parameters give it), then ``max_norm / (norm + 1e-6)`` clamped to 1 with torch's own expression,
  each gradient multiplied by it (a zero row stays zero). The sums of squares are float64, summed in
  a fixed order by a numba loop (the same bits on AVX2 and AVX-512), where torch's float32 reduction
  over a first layer's 0.5-0.9 M entries drifts by a few 1e-6 (relative, measured): the clipped
  gradients agree with SB3's to that tolerance, and are the same bits whenever the norm is below
  ``max_norm`` (the factor is then 1 in both). Not the same bits, so not the default. With ``clip``
  torch's fused Adam then moves every weight as before: the papers' algorithm.
* **lazy Adam** (``sparse_optimizer: lazy``, opt-in): the first layers' weights are updated in the
  touched rows only; a row whose gradient is zero in a step keeps its moments and its weight, as
  torch's ``SparseAdam`` and TensorFlow's ``LazyAdam`` do (the bias corrections count every step of
  the parameter). That is a different optimizer from the papers' Adam, under which every weight
  moves every step through its moments. The touched rows come in runs of consecutive inputs (58-111
  runs over an MDP training batch of 50), each a contiguous view of the weight and its moments, and
  torch's own fused Adam kernel updates them in place: where every row is touched it is torch's Adam
  bit for bit (``tests/test_sparse_optimizer.py``), as deterministic as it on both machine kinds.
  The other parameters get torch's Adam.

How it plugs into SB3: ``PPO.train`` calls ``optimizer.zero_grad()``, ``loss.backward()``,
``th.nn.utils.clip_grad_norm_(policy.parameters(), max_grad_norm)`` and ``optimizer.step()``. The
first layers' backward hands its rows to the optimizer beside the parameter (``weight.row_grad``),
and every other gradient is taken into the optimizer as soon as backward has accumulated it (a
post-accumulate-grad hook), so SB3's clip finds no gradient and does nothing; ``step`` clips with
the algorithm's ``max_grad_norm`` (given to the policy by ``schedrl.agents.hyperparams``) and
updates. Between backward and step, ``p.grad`` is therefore None: read the gradients with
``held_gradients()``. Built by ``LeanMlpPolicy`` when ``policy_kwargs.sparse_optimizer`` is not
``dense`` and the policy has a sparse-input layer; ``benchmarks/bench_sparse_input.py`` measures it.
"""

from __future__ import annotations

import math
import weakref
from functools import partial

import numba
import numpy as np
import torch

from schedrl.agents.sparse_input import RowGrad


@numba.njit(cache=True)
def _sumsq(x):
    """Sum of squares of a float32 ``[n, m]`` table in float64, one accumulator per column, in a
    fixed order (no reduction the compiler may reorder: the same bits on every vector width)."""
    m = x.shape[1]
    acc = np.zeros(m, np.float64)
    for i in range(x.shape[0]):
        row = x[i]
        for j in range(m):
            v = np.float64(row[j])
            acc[j] += v * v
    total = 0.0
    for j in range(m):
        total += acc[j]
    return total


@numba.njit(cache=True)
def _replace_rows(table, old_rows, rows, values, coef):
    """``table[old_rows] = 0``, then ``table[rows] = values * coef`` (float32 products, as torch's
    ``mul``): a dense gradient table that is zero outside ``rows`` if it was outside ``old_rows``."""
    n = table.shape[1]
    for k in range(old_rows.size):
        r = old_rows[k]
        for j in range(n):
            table[r, j] = 0.0
    for k in range(rows.size):
        r = rows[k]
        for j in range(n):
            table[r, j] = values[k, j] * coef


def _table(grad: torch.Tensor) -> np.ndarray:
    """A gradient as a float32 ``[n, m]`` array for ``_sumsq`` (vectors as one row)."""
    arr = grad.detach().contiguous().numpy()
    return arr.reshape(1, -1) if arr.ndim < 2 else arr.reshape(arr.shape[0], -1)


def _hold(optimizer_ref, param: torch.Tensor) -> None:
    """Post-accumulate-grad hook: move ``param.grad`` into the optimizer (SB3's clip then skips it)."""
    optimizer = optimizer_ref()
    if optimizer is None or param.grad is None:
        return
    grad, param.grad = param.grad, None
    held = optimizer._held.get(param)
    optimizer._held[param] = grad if held is None else held + grad


class RowSparseAdam(torch.optim.Adam):
    """torch's Adam that clips the gradient itself (``max_grad_norm``) from the touched rows of the
    ``row_grads`` parameters, and with ``lazy`` updates only those rows (see the module's text)."""

    def __init__(self, params, lr: float = 1e-3, *, max_grad_norm: float, lazy: bool = False, **adam_kwargs):
        if lazy:
            adam_kwargs.setdefault("fused", True)
        super().__init__(params, lr=lr, **adam_kwargs)
        for group in self.param_groups:
            if lazy and (group["weight_decay"] or group["amsgrad"] or group["maximize"] or not group["fused"]):
                raise ValueError("lazy Adam is torch's fused Adam without weight_decay, amsgrad or maximize")
        if not max_grad_norm > 0:
            raise ValueError(f"max_grad_norm must be positive, got {max_grad_norm!r}")
        self.max_grad_norm = float(max_grad_norm)
        self.lazy = bool(lazy)
        self._held: dict[torch.Tensor, torch.Tensor] = {}
        self._views: dict[torch.Tensor, tuple] = {}  # lazy Adam's views of the touched runs, by parameter
        # clip's dense gradient tables kept between steps (zero outside the rows last written): a fresh
        # zero table per step costs its pages' first-touch faults and a pass over every row
        self._dense_grads: dict[torch.Tensor, tuple[torch.Tensor, np.ndarray]] = {}
        ref = weakref.ref(self)
        self._hooks = [p.register_post_accumulate_grad_hook(partial(_hold, ref))
                       for group in self.param_groups for p in group["params"]]

    def held_gradients(self) -> dict[torch.Tensor, torch.Tensor]:
        """The gradients backward has produced since ``zero_grad``, by parameter, as dense tensors
        (what ``p.grad`` would hold with torch's Adam)."""
        out = dict(self._held)
        for group in self.param_groups:
            for p in group["params"]:
                row_grad = getattr(p, "row_grad", None)
                if row_grad is not None:
                    dense = row_grad.to_dense(p.shape[0])
                    out[p] = dense if p not in out else out[p] + dense
        return out

    def zero_grad(self, set_to_none: bool = True) -> None:
        self._held.clear()
        for group in self.param_groups:
            for p in group["params"]:
                p.__dict__.pop("row_grad", None)
        super().zero_grad(set_to_none)

    def _take_gradients(self):
        """(dense gradients by parameter, row gradients by parameter), taken from the backward's."""
        dense, rows = {}, {}
        for group in self.param_groups:
            for p in group["params"]:
                row_grad = p.__dict__.pop("row_grad", None)
                grad = self._held.pop(p, None)
                if grad is None and p.grad is not None:  # a backward outside the hooks (none in SB3)
                    grad, p.grad = p.grad, None
                if row_grad is not None:
                    rows[p] = row_grad if grad is None else RowGrad.of_dense(grad).add(row_grad)
                elif grad is not None:
                    dense[p] = grad
        self._held.clear()
        return dense, rows

    def clip_coefficient(self, dense: dict, rows: dict) -> torch.Tensor:
        """``clip_grad_norm_``'s factor ``min(max_norm / (norm + 1e-6), 1)``, the norm over the dense
        gradients and the rows (float32 0-d tensor, computed with torch's expression)."""
        sumsq = sum(_sumsq(_table(g)) for g in dense.values()) + sum(_sumsq(r.values) for r in rows.values())
        total_norm = torch.tensor(math.sqrt(sumsq), dtype=torch.float32)
        return torch.clamp(self.max_grad_norm / (total_norm + 1e-6), max=1.0)

    @torch.no_grad()
    def step(self, closure=None):
        if closure is not None:
            raise ValueError("RowSparseAdam takes no closure")
        dense, rows = self._take_gradients()
        if not dense and not rows:
            return None
        coef = self.clip_coefficient(dense, rows)
        for p, grad in dense.items():
            p.grad = grad.mul_(coef)
        if not self.lazy:
            c = np.float32(coef.item())
            for p, row_grad in rows.items():  # the dense gradient for torch's Adam, rewritten row-wise
                table, old_rows = self._dense_grads.get(p) or (torch.zeros_like(p), np.arange(0))
                _replace_rows(table.numpy(), old_rows, row_grad.rows, row_grad.values, c)
                self._dense_grads[p] = (table, row_grad.rows.copy())
                p.grad = table
            super().step()
            self.zero_grad()
            return None
        for group in self.param_groups:  # Adam's state, created in Adam's order (the same files)
            for p in group["params"]:
                if p in rows or p in dense:
                    self._init_state(p)
        super().step()  # torch's Adam over the parameters with a dense gradient
        for group in self.param_groups:
            lazy = [p for p in group["params"] if p in rows]
            if lazy:
                self._lazy_step(group, lazy, rows, coef)
        self.zero_grad()
        return None

    def _init_state(self, p) -> None:
        """Adam's state of ``p`` (as ``torch.optim.Adam._init_group`` makes it on the CPU), so that files
        and resumed runs cross between the two optimizers."""
        state = self.state[p]
        if len(state) == 0:
            state["step"] = torch.zeros((), dtype=torch.float32)
            state["exp_avg"] = torch.zeros_like(p, memory_format=torch.preserve_format)
            state["exp_avg_sq"] = torch.zeros_like(p, memory_format=torch.preserve_format)

    def _lazy_step(self, group: dict, params: list, rows: dict, coef: torch.Tensor) -> None:
        """torch's fused Adam kernel on the touched rows of ``params``, in place: the rows come in
        runs of consecutive inputs (58-111 runs over an MDP training batch), each a contiguous view
        of the weight and of its moments; the other rows stay as they are."""
        views = ([], [], [], [])
        for p in params:
            row_grad = rows[p]
            torch.from_numpy(row_grad.values).mul_(coef)  # the clip, as torch's
            state = self.state[p]
            state["step"] += 1
            for kept, new in zip(views, self._run_views(p, state, row_grad)):
                kept.extend(new)
        if not views[0]:
            return
        steps = [self.state[p]["step"] for p in params for _ in self._views[p][1][0]]
        beta1, beta2 = group["betas"]
        lr = group["lr"]
        torch._fused_adam_(*views, [], steps, lr=lr.item() if torch.is_tensor(lr) else lr, beta1=beta1, beta2=beta2,
                           weight_decay=0.0, eps=group["eps"], amsgrad=False, maximize=False)

    def _run_views(self, p, state: dict, row_grad: RowGrad):
        """(weight, gradient, first moment, second moment) views of each run of touched rows; kept
        while the rows and the tensors are the same (PPO's epochs over one rollout batch)."""
        key = (p.data_ptr(), state["exp_avg"].data_ptr(), state["exp_avg_sq"].data_ptr(),
               row_grad.values.ctypes.data, row_grad.rows.size)
        kept = self._views.get(p)
        if kept is not None and kept[0] == key and np.array_equal(kept[2], row_grad.rows):
            return kept[1]
        rows = row_grad.rows
        breaks = np.flatnonzero(np.diff(rows) != 1) + 1
        firsts = rows[np.r_[0, breaks]] if rows.size else rows
        lengths = np.diff(np.r_[0, breaks, rows.size]) if rows.size else rows
        bounds = np.stack([firsts, firsts + lengths], 1).ravel().tolist()
        weight = p.detach()
        out = tuple([list(t.tensor_split(bounds)[1::2]) for t in (weight,)]
                    + [list(torch.from_numpy(row_grad.values).split(lengths.tolist()))]
                    + [list(state[k].tensor_split(bounds)[1::2]) for k in ("exp_avg", "exp_avg_sq")])
        self._views[p] = (key, out, rows.copy())
        return out


def row_sparse_optimizer(policy: torch.nn.Module, setting: str, optimizer_class, lr: float,
                         optimizer_kwargs: dict, max_grad_norm: float | None) -> RowSparseAdam:
    """The policy's optimizer for ``sparse_optimizer`` ``clip`` or ``lazy``: its sparse-input layers
    hand over row gradients, and Adam (the only optimizer this has) clips and updates from them."""
    from schedrl.agents.sparse_input import SparseInputLinear
    from schedrl.agents.sparse_setting import check_sparse_optimizer

    check_sparse_optimizer(setting)
    if optimizer_class is not torch.optim.Adam and optimizer_class is not RowSparseAdam:
        raise ValueError(f"sparse_optimizer {setting!r} needs Adam, not {getattr(optimizer_class, '__name__', optimizer_class)}")
    if max_grad_norm is None:
        raise ValueError("sparse_optimizer needs the algorithm's max_grad_norm "
                         "(policy_kwargs.sparse_max_grad_norm, set by schedrl.agents.hyperparams)")
    for module in policy.modules():
        if isinstance(module, SparseInputLinear):
            module.row_grads = True
    return RowSparseAdam(policy.parameters(), lr=lr, max_grad_norm=max_grad_norm, lazy=setting == "lazy",
                         **optimizer_kwargs)
