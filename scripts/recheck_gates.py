#!/usr/bin/env python3
"""Would a finished study's probe gate admit the same trials with the paper's trainer as it is now?

A study with ``tune.probe_gate`` passes each trial's trainer through the learning probe on its first
seed before training it and prunes the trials that fail (``schedrl.experiments.tune.probe_gate``).
When the trainer a trial's values build changes after the study (runtime's recipes gained the
probe's reward scale on 2026-12-07: ``runtime.tuning.PROBE_REWARD_SCALES``), the recorded gate
verdicts may no longer hold. This rebuilds each trial's trainer from its ``trials.csv`` row with the
paper's ``tuning.trainer`` and probes it again as the gate does (seed 0, zeroed control), printing
one line a trial: the recorded verdict and gain, then today's. Trials that now pass but were pruned
were never trained: their validation score needs the study again (``schedrl tune <paper>``).
``--write`` records today's verdicts in the trials.csv (``tune.REGATE_COLUMNS``); where it is the
committed study's, the report's headroom sentence and docs/tuned-agents.md then say that the recipe
was not chosen among every trial that learns (``tune.gate_recheck``).

    python scripts/recheck_gates.py runtime config/tuned/runtime.trials.csv [--failed-only] [--write]

About 15-65 CPU-s a trial (2026-12-07, the faster kind; the 1024-512-256 trunk the longest): runtime's 8 in 3.5 CPU-min.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from datetime import date


def main(argv: list[str] | None = None) -> int:
    import importlib

    import pandas as pd

    from schedrl.commands import load_spec, spec_text
    from schedrl.commands.tune import STUDIES, _commit
    from schedrl.errors import ConfigError
    from schedrl.experiments import probes
    from schedrl.experiments.tune import REGATE_COLUMNS, params_from_row
    from schedrl.io import atomic_path

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("paper", choices=sorted(STUDIES))
    p.add_argument("trials", help="a study's trials.csv (e.g. config/tuned/runtime.trials.csv)")
    p.add_argument("--spec", nargs="+", default=["config/paper-budget.yaml", "config/tune.yaml"],
                   help="the config the study ran on, merged in order (default: %(default)s)")
    p.add_argument("--failed-only", action="store_true", help="only the trials the gate pruned")
    p.add_argument("--write", action="store_true", help="record today's verdicts in TRIALS (columns "
                   "regate, regate_gain, regate_when)")
    args = p.parse_args(argv)
    try:
        module = importlib.import_module(STUDIES[args.paper])
        spec = load_spec(args.paper, spec_text(args.paper, args.spec))
        own, study = module.tune_spec(spec)
        try:
            frame = pd.read_csv(args.trials)
        except (OSError, pd.errors.ParserError) as exc:
            raise ConfigError(f"{args.trials}: cannot be read as a trials.csv ({exc})") from None
        if "gate" not in frame:
            raise ConfigError(f"{args.trials}: no 'gate' column (the study ran without tune.probe_gate)")
        rows = frame[frame["gate"] == "failed"] if args.failed_only else frame
        found = []
        when = f"{date.today().isoformat()}, {_commit() or 'commit unknown'}"
        for column, empty in zip(REGATE_COLUMNS, ("not rechecked", float("nan"), ""), strict=True):
            if column not in frame:
                frame[column] = empty
        frame["regate_when"] = frame["regate_when"].fillna("").astype(str)
        for index, row in rows.iterrows():
            t0 = time.process_time()
            trainer = module.trainer(spec, own, params_from_row(row, study.space))
            with tempfile.TemporaryDirectory(prefix="schedrl-regate-") as work:
                probe = probes.probe_trainer(trainer, work, seeds=probes.TRAINER_SEEDS[:1])
            now = "passed" if probe.passed else "failed"
            found.append((int(row["number"]), str(row["gate"]), now))
            frame.loc[index, list(REGATE_COLUMNS)] = [now, round(sum(probe.gains) / len(probe.gains), 4), when]
            print(f"trial {int(row['number'])}: gate then {row['gate']} ({row['gate_gain']:+.0%}), now "
                  f"{probe.summary()} [{probes.trainer_text(trainer)}] ({time.process_time() - t0:.0f} CPU-s)",
                  flush=True)
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.write:
        with atomic_path(args.trials) as tmp:
            frame.to_csv(tmp, index=False)
        print(f"{args.trials}: today's verdicts in {', '.join(REGATE_COLUMNS)}")
    turned = [n for n, then, now in found if then != now]
    print(f"{len(found)} trials probed again; verdict changed for {len(turned)}"
          + (f" (trials {', '.join(map(str, turned))})" if turned else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
