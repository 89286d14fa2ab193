"""SJF on the MDP-design paper's evaluation trials (``experiments.evaluate_sjf``), as the rule
``mdp_sjf`` runs it:

    python -m schedrl.papers.mdp.sjf --spec SPEC --out results/mdp/reference/sjf/H20/eval_episodes.csv

``--spec`` is the ``mdp`` config section as JSON or a config YAML holding it. Errors are one line
with exit status 2, as ``schedrl``'s own commands.
"""

from __future__ import annotations

import os
import sys

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_var, "1")


def main(argv: list[str] | None = None) -> int:
    import argparse

    from schedrl.errors import SchedrlError

    prog = "python -m schedrl.papers.mdp.sjf"
    parser = argparse.ArgumentParser(prog=prog, description="Play every scenario's evaluation trials (main "
                                     "horizon) with SJF and write one row per scenario and trial.")
    parser.add_argument("--spec", required=True, help="mdp config section (JSON) or a config YAML file")
    parser.add_argument("--out", required=True, metavar="CSV", help="per-scenario, per-trial table to write")
    args = parser.parse_args(argv)
    try:
        from schedrl.io import write_csv
        from schedrl.papers.mdp import experiments as mx

        frame = mx.evaluate_sjf(mx.load_spec(args.spec))
        write_csv(args.out, frame, float_format="%.6g")
    except SchedrlError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 2
    means = frame.groupby("scenario")[mx.METRIC].mean()
    print(f"{args.out}: SJF " + ", ".join(f"scenario {s} {m:.3f}" for s, m in means.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
