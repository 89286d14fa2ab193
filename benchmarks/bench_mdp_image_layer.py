"""Can the image-like MDP agent's first layer use the input's sparsity? (issue 36's budget).

The image-like PPO agent (mdp paper, Table 2: 64 units, n_steps 50, 10 epochs) spends most of its
update in two dense layers of 14,160 x 64 weights (scenario 6, H 20). Its observations are ~7%
non-zero, so a sparse product should in principle do ~14x less work. This times one forward and
backward pass of such a layer on a batch of 50 observations taken from the env itself, four ways:
dense ``nn.Linear`` (what SB3 runs), ``torch.sparse.mm`` on a CSR batch, ``F.embedding_bag`` over the
non-zero columns, and ``index_add_`` of the gathered columns. Process CPU time per pass (best of
``--repeats``), one thread; gradients are checked against the dense one. Usage:

    python benchmarks/bench_mdp_image_layer.py [--scenario 6] [--passes 100]

None of torch's sparse paths beats the dense layer at this batch; the layer the trainers use
(``schedrl.agents.sparse_input``, numba CSR kernels) is measured by ``bench_sparse_input.py``.
"""

from __future__ import annotations

import argparse
import time
import warnings

import torch
import torch.nn.functional as F

from schedrl.papers.mdp import layout as ml


def observations(scenario: int, horizon: int, n: int, seed: int = 0) -> torch.Tensor:
    """``n`` image-like observations of random play, as PPO's rollout buffer would hold them."""
    from bench_sparse_input import observations as play  # benchmarks/ is on sys.path as a script

    return torch.from_numpy(play(ml.ENV_ID, ml.env_kwargs("image", scenario, horizon), n, seed))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenario", type=int, default=6, help="Table 3 scenario (default 6: 64 processors)")
    ap.add_argument("--horizon", type=int, default=20, help="time horizon H (default 20)")
    ap.add_argument("--batch", type=int, default=50, help="samples per gradient step (Table 2: n_steps 50)")
    ap.add_argument("--passes", type=int, default=100, help="timed passes per method")
    ap.add_argument("--repeats", type=int, default=3, help="best of this many timings")
    args = ap.parse_args(argv)
    torch.set_num_threads(1)
    torch.manual_seed(0)
    x = observations(args.scenario, args.horizon, args.batch)
    n_in, n_out = x.shape[1], 64
    layer = torch.nn.Linear(n_in, n_out)
    rows, cols = x.nonzero(as_tuple=True)
    offsets = torch.searchsorted(rows, torch.arange(args.batch))
    values = x[rows, cols]

    def dense():
        return layer(x)

    def csr():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "sparse CSR support is in beta"
            return torch.sparse.mm(x.to_sparse_csr(), layer.weight.t()) + layer.bias

    def bag():
        return F.embedding_bag(cols, layer.weight.t(), offsets, mode="sum", per_sample_weights=values) + layer.bias

    def gather():
        return torch.zeros(args.batch, n_out).index_add_(0, rows, (layer.weight[:, cols] * values).t()) + layer.bias

    def grad(f) -> torch.Tensor:
        layer.zero_grad()
        f().square().sum().backward()
        return layer.weight.grad.clone()

    reference = grad(dense)
    print(f"scenario {args.scenario}, H {args.horizon}: {args.batch} x {n_in} observations, "
          f"{values.numel() / x.numel():.1%} non-zero; one forward + backward of a {n_in} x {n_out} layer")
    base = None
    for name, f in (("dense nn.Linear", dense), ("torch.sparse.mm (CSR)", csr),
                    ("F.embedding_bag", bag), ("index_add_ of columns", gather)):
        err = (grad(f) - reference).abs().max().item()
        best = float("inf")
        for _ in range(args.repeats):
            t0 = time.process_time()
            for _ in range(args.passes):
                layer.zero_grad(set_to_none=True)
                f().square().sum().backward()
            best = min(best, (time.process_time() - t0) / args.passes)
        base = base or best
        print(f"  {name:24s} {best * 1e3:7.2f} ms per pass  {best / base:5.1f}x dense  max |grad diff| {err:.1e}")


if __name__ == "__main__":
    main()
