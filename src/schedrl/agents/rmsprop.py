"""torch's RMSprop with its square root taken by numpy: the same update, correctly rounded.

On the AMD EPYC kind these pipelines also run on (AVX2), torch's vectorised ``sqrt`` is an
approximation with a slow path for zeros (~8x slower there), and an A2C on DeepRM's image state
keeps most of its first layer's squared-gradient averages at exactly zero (pixels that are never
set): the square root was 60-70% of an RMSprop step. numpy's ``sqrt`` is IEEE's (correctly
rounded, where torch's is one ulp off on ~3% of values) and takes the same time on any value. So the
update is torch's, op for op, with the exact root; ``benchmarks/bench_trainers.py --sb3-own``
prints both.
"""

from __future__ import annotations

import numpy as np
import torch


class RMSprop(torch.optim.RMSprop):
    """``torch.optim.RMSprop`` (same arguments, state and checkpoints) whose plain case (CPU float32,
    not centered, no momentum or weight decay, not maximised) takes its square root in numpy; any
    other case is torch's own step."""

    def _plain(self, group: dict) -> bool:
        return (not group["centered"] and group["momentum"] == 0 and group["weight_decay"] == 0
                and not group["maximize"] and not group["differentiable"] and not group["capturable"]
                and all(p.device.type == "cpu" and p.dtype == torch.float32 for p in group["params"]))

    @torch.no_grad()
    def step(self, closure=None):
        if closure is not None or not all(self._plain(g) for g in self.param_groups):
            return super().step(closure)
        for group in self.param_groups:
            params, grads, square_avgs, steps = [], [], [], []
            self._init_group(group, params, grads, square_avgs, [], [], steps)
            if not params:
                continue
            alpha = group["alpha"]
            # torch's multi-tensor RMSprop, op for op, except the square root
            torch._foreach_add_(steps, torch.tensor(1.0), alpha=1.0)
            torch._foreach_mul_(square_avgs, alpha)
            torch._foreach_addcmul_(square_avgs, grads, grads, value=1 - alpha)
            avg = [torch.from_numpy(np.sqrt(s.numpy())) for s in square_avgs]
            torch._foreach_add_(avg, group["eps"])
            torch._foreach_addcdiv_(params, grads, avg, value=-group["lr"])
        return None
