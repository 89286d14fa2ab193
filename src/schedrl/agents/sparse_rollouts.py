"""A PPO rollout buffer that hands the sparse-input first layers their minibatch as CSR rows.

With the MDP paper's Table 2 PPO (50 steps a rollout, 10 epochs) every epoch trains on the same 50
observations in a new order. SB3's buffer copies each minibatch out of the rollout twice (a fancy
index, then ``torch.tensor``: 2.8 MB a minibatch at 14,160 inputs) and the policy then scans it for
its non-zero entries: ~7% and ~3% of an image-like agent's training (cProfile, scenario 9). Here the
rollout is scanned once, when SB3 first asks for minibatches, and a minibatch's rows are gathered from
that view in the minibatch's order: the same ``SparseRows`` arrays the policy would have built from the
dense minibatch, so the same products, gradients and trained weights, bit for bit
(``tests/test_sparse_rollouts.py``, the golden hashes).

The minibatch reaches the policy as its ``observations`` tensor's ``sparse_rows`` attribute; the
tensor itself is a NaN placeholder of the minibatch's shape (one element, expanded) that nothing reads:
``LeanMlpPolicy`` and ``LeanMaskablePolicy`` take the rows to their sparse first layers, or
``dense_observations`` rebuilds the dense batch for any other path (a dense first layer, SB3's own
code). A minibatch denser than ``sparse_max_density`` is SB3's dense copy, as before (the policy then
multiplies densely, as it did). ``schedrl.agents.hyperparams`` installs the buffer for PPO and
MaskablePPO with the lean policies whenever ``sparse_input`` puts the sparse layers in.
"""

from __future__ import annotations

import numba
import numpy as np
import torch
from gymnasium import spaces
from sb3_contrib.common.maskable.buffers import MaskableRolloutBuffer
from stable_baselines3.common.buffers import RolloutBuffer
from stable_baselines3.common.preprocessing import is_image_space

from schedrl.agents.sparse_input import MAX_DENSITY, SparseRows, _csr
from schedrl.agents.sparse_setting import use_sparse


@numba.njit(cache=True)
def _take_rows(indptr, cols, vals, inds, max_nnz: int):
    """The CSR rows ``inds`` of a CSR table, in that order, or an empty ``indptr`` when they hold more
    than ``max_nnz`` entries (the rule by which ``sparse_input._csr`` refuses a dense batch)."""
    nnz = 0
    for i in inds:
        nnz += indptr[i + 1] - indptr[i]
    if nnz > max_nnz:
        return np.empty(0, np.int64), np.empty(0, np.int32), np.empty(0, np.float32)
    out_ptr = np.empty(inds.size + 1, np.int64)
    out_cols = np.empty(nnz, np.int32)
    out_vals = np.empty(nnz, np.float32)
    k = 0
    out_ptr[0] = 0
    for b in range(inds.size):
        for j in range(indptr[inds[b]], indptr[inds[b] + 1]):
            out_cols[k] = cols[j]
            out_vals[k] = vals[j]
            k += 1
        out_ptr[b + 1] = k
    return out_ptr, out_cols, out_vals


def dense_observations(obs):
    """``obs`` itself, or the dense batch behind a placeholder that carries ``sparse_rows``."""
    rows = getattr(obs, "sparse_rows", None)
    if rows is None:
        return obs
    return rows.to_dense().reshape(obs.shape)


class _SparseSamples:
    """The rollout's CSR view, built once per rollout, and minibatches gathered from it."""

    def __init__(self, *args, sparse_input: bool | str = "auto", sparse_max_density: float = MAX_DENSITY, **kwargs):
        super().__init__(*args, **kwargs)
        space = self.observation_space
        self.sparse_max_density = float(sparse_max_density)
        self.sparse = (isinstance(space, spaces.Box) and space.dtype == np.float32 and not is_image_space(space)
                       and use_sparse(sparse_input, int(np.prod(space.shape))))
        self._rows = None

    def reset(self) -> None:
        super().reset()
        self._rows = None

    def _rollout_rows(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        # called once SB3 has flattened the rollout (generator_ready): [steps * envs, *obs_shape]
        if self._rows is None:
            flat = np.ascontiguousarray(self.observations.reshape(self.observations.shape[0], -1))
            self._rows = _csr(flat, flat.size)
        return self._rows

    def _get_samples(self, batch_inds: np.ndarray, env=None):
        if not self.sparse or not self.generator_ready:
            return super()._get_samples(batch_inds, env)
        shape = self.observations.shape[1:]
        n_in = int(np.prod(shape))
        indptr, cols, vals = _take_rows(*self._rollout_rows(), np.asarray(batch_inds, np.int64),
                                        int(self.sparse_max_density * (batch_inds.size * n_in)))  # _csr's own rule
        if indptr.size == 0 and batch_inds.size:
            return super()._get_samples(batch_inds, env)  # denser than max_density: SB3's dense copy
        # SB3 gathers the other fields; the observations it would copy are swapped for a one-column stand-in
        full, self.observations = self.observations, np.zeros((len(self.observations), 1), np.float32)
        try:
            samples = super()._get_samples(batch_inds, env)
        finally:
            self.observations = full
        stub = torch.full((1,) * (1 + len(shape)), float("nan")).expand(batch_inds.size, *shape)
        stub.sparse_rows = SparseRows(indptr, cols, vals, (batch_inds.size, n_in))
        return samples._replace(observations=stub)


class SparseRolloutBuffer(_SparseSamples, RolloutBuffer):
    """SB3's ``RolloutBuffer`` whose minibatches carry their CSR rows (see the module's text)."""


class SparseMaskableRolloutBuffer(_SparseSamples, MaskableRolloutBuffer):
    """sb3-contrib's ``MaskableRolloutBuffer`` whose minibatches carry their CSR rows."""
