"""A wide first layer whose one-row forward, between weight changes, reads only the rows of the
inputs that changed other than together.

MRSch's DFP agent acts on Theta's 11,410-input state through a first layer of 4,000 units: a
182 MB weight table read whole for every greedy decision (~19.5 ms on one core of the slower kind,
about three quarters of a decision at the paper's budget; ``benchmarks/bench_dfp.py``). The state is
half non-zero (per node ``[1, 0]`` free or ``[0, remaining]`` busy), so a sparse product saves at
most half, and 28-42% of it changes between two decisions (docs/performance.md). But it changes in
blocks: every node of a running job holds the same remaining time, which falls for all of them at
once, and a job that starts or ends flips all its nodes together.

``IncrementalInput`` therefore keeps the inputs in *classes of equal value*, each with the float64
sum ``S_k`` of its weight rows, and the last output ``y = b + sum_k v_k S_k``. When a whole class
changes value (a running job's remaining time falls, a finished job's nodes drop to 0), ``y`` moves
by ``(v' - v) S_k`` and no row is read; when only some members change (a job starts on some of the
free nodes), their rows are summed once, ``y`` moves by ``(v' - v)`` times that sum, and they move
to the class of their new value. A decision then reads the rows of the nodes that started or
ended, not the table.

The same function to float tolerance (a test says so on real observations; the weights' float32
sums are kept in float64, the output cast back): the classes and sums are rebuilt from the weights,
in one pass over the table, every ``REFRESH`` decisions and whenever the weights may have changed:
a forward with gradients (an update follows it), a new storage or version counter of the weight or
bias (``load_state_dict``, ``.to``, in-place edits), or ``forget()``. Torch's fused Adam updates a
parameter without bumping its version counter, which is why a training forward, not the counter,
is what forgets. Only one-row forwards without gradients use it (a decision); batches take the
dense ``addmm``.
"""

from __future__ import annotations

import numba
import numpy as np
import torch

from schedrl.agents.incremental_setting import use_incremental  # noqa: F401  (re-exported)

#: decisions between two rebuilds from the weights (bounds the float drift of the running sums)
REFRESH = 128


@numba.njit(cache=True)
def _row_sum(weight: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """float64 sum of ``weight``'s ``rows``, read in place (no gathered copy), in the rows' order."""
    out = np.zeros(weight.shape[1], dtype=np.float64)
    for r in rows:
        for j in range(weight.shape[1]):
            out[j] += weight[r, j]
    return out


class _Classes:
    """The inputs' classes of equal value with their weight-row sums, and the output they give."""

    def __init__(self, row: np.ndarray, weight: torch.Tensor, bias: torch.Tensor):
        values, self.cls = np.unique(row, return_inverse=True)
        self.cls = self.cls.astype(np.int64)
        self.val = values.astype(np.float64)
        self.size = np.bincount(self.cls, minlength=len(values)).astype(np.int64)
        self.by_value = {float(v): k for k, v in enumerate(values)}
        self.free: list[int] = []
        sums = torch.zeros(len(values), weight.shape[1], dtype=weight.dtype)
        sums.index_add_(0, torch.from_numpy(self.cls), weight)
        self.sums = sums.double()
        self.out = bias.double() + torch.from_numpy(self.val) @ self.sums
        self.row = row.copy()
        self.steps = 0

    def _class_of(self, value: float) -> int:
        k = self.by_value.get(value)
        if k is not None:
            return k
        if self.free:
            k = self.free.pop()
        else:
            k = len(self.val)
            self.val = np.append(self.val, 0.0)
            self.size = np.append(self.size, 0)
            self.sums = torch.cat([self.sums, torch.zeros(1, self.sums.shape[1], dtype=self.sums.dtype)])
        self.val[k], self.size[k] = value, 0
        self.sums[k].zero_()
        self.by_value[value] = k
        return k

    def _drop(self, k: int) -> None:
        del self.by_value[float(self.val[k])]
        self.size[k] = 0
        self.free.append(k)

    def step(self, row: np.ndarray, weight: torch.Tensor) -> None:
        """Move to ``row``: whole classes by their sums, the rest by their rows."""
        changed = np.flatnonzero(row != self.row)
        self.steps += 1
        if not changed.size:
            return
        old, new = self.cls[changed], row[changed]
        order = np.lexsort((new, old))
        changed, old, new = changed[order], old[order], new[order]
        cuts = np.flatnonzero((old[1:] != old[:-1]) | (new[1:] != new[:-1])) + 1
        for members, k, value in zip(np.split(changed, cuts), old[np.r_[0, cuts]], new[np.r_[0, cuts]]):
            value = float(value)
            shift = value - self.val[k]
            if len(members) == self.size[k]:  # the whole class: no row read
                self.out += shift * self.sums[k]
                target = self.by_value.get(value)
                if target is None:
                    del self.by_value[float(self.val[k])]
                    self.val[k] = value
                    self.by_value[value] = k
                else:  # its new value has a class already: merge into it
                    self.sums[target] += self.sums[k]
                    self.size[target] += self.size[k]
                    self.cls[members] = target
                    self._drop(k)
                continue
            rows = torch.from_numpy(_row_sum(weight.numpy(), members))
            self.out += shift * rows
            self.sums[k] -= rows
            self.size[k] -= len(members)
            target = self._class_of(value)
            self.sums[target] += rows
            self.size[target] += len(members)
            self.cls[members] = target
        self.row = row.copy()


class IncrementalInput:
    """Mixin for a linear layer with ``weight`` stored (in, out) and ``bias`` (``InputLinear``)."""

    incremental: bool = True

    def forget(self) -> None:
        """Drop the classes (the next one-row forward rebuilds them from the weights)."""
        self._classes = None

    def _key(self, x: torch.Tensor) -> tuple:
        w, b = self.weight, self.bias
        return (w.data_ptr(), w._version, b.data_ptr(), b._version, x.dtype, x.device, x.shape[1])

    def incremental_forward(self, x: torch.Tensor, whole) -> torch.Tensor:
        """``whole(x)`` (the dense product), or the same from the classes where it may."""
        usable = (self.incremental and not torch.is_grad_enabled() and x.dim() == 2 and x.shape[0] == 1
                  and x.device.type == "cpu" and x.dtype == self.weight.dtype)
        if not usable:
            if torch.is_grad_enabled():
                self.forget()  # a training forward: the weights are about to change
            return whole(x)
        row = x[0].numpy()
        state = getattr(self, "_classes", None)
        if state is None or state[0] != self._key(x) or state[1].steps >= REFRESH:
            self._classes = (self._key(x), _Classes(row, self.weight.detach(), self.bias.detach()))
        else:
            state[1].step(row, self.weight.detach())
        return self._classes[1].out.to(x.dtype).unsqueeze(0)
