"""``schedrl tune <paper>``: a hyperparameter study of a paper's agent (issue 69; schedrl.experiments.tune)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from schedrl.commands import add_threads_option, spec_text

#: papers whose MDP has a study so far, -> the module that runs it
STUDIES = {"runtime": "schedrl.papers.runtime.tuning", "deeprm": "schedrl.papers.deeprm.tuning",
           "mdp": "schedrl.papers.mdp.tuning", "mrsch": "schedrl.papers.mrsch.tuning",
           "sem": "schedrl.papers.sem.tuning"}


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "tune",
        help="hyperparameter study (Optuna TPE, pruned, >= 2 seeds per trial, validation workloads)",
        description="Search a paper's training recipe with Optuna: TPE, a median or successive-halving pruner, "
        "several training seeds per trial, each trial scored on the paper's validation workloads (never its test "
        "split), the study's size and CPU guard from the config's <paper>.tune block. Writes OUT/trials.csv (every "
        "trial: parameters, score, per-seed scores, pruned or not, CPU seconds) and OUT/recipe.yml (the best trial "
        "as a config overlay); --write-config copies the recipe to config/tuned/<paper>.yml. Papers with a study: "
        + ", ".join(STUDIES) + ".",
    )
    p.add_argument("paper", help="which paper's agent (" + ", ".join(STUDIES) + ")")
    p.add_argument("--spec", required=True, nargs="+", metavar="SPEC",
                   help="the paper's config section (JSON), a config YAML file, or several merged in order as "
                   "Snakemake merges --configfile (e.g. config/paper-budget.yaml config/tune.yaml)")
    p.add_argument("--out", default=None, metavar="DIR", help="study folder (default: results/tuned/<paper>)")
    p.add_argument("--trials", type=int, default=None, help="trials to run (default: the config's tune.trials)")
    p.add_argument("--write-config", nargs="?", const="", default=None, metavar="YML",
                   help="also write the recipe here (default when given alone: config/tuned/<paper>.yml), with the "
                   "study's trials and references beside it (<YML stem>.trials.csv, .references.csv)")
    p.add_argument("--references", action="store_true",
                   help="only score the no-learning references (random, uniform, heuristics) on the study's "
                   "validation workloads into OUT/references.csv (the study writes it too)")
    p.add_argument("--allow-stand-in", action="store_true",
                   help="run the study even where its workloads were built from a synthetic stand-in for a missing "
                   "real trace (refused by default: such a recipe says nothing about the paper's workloads)")
    p.add_argument("--reselect", action="store_true",
                   help="do not rerun the study: choose the recipe again from OUT/trials.csv, the best complete trial "
                   "whose trainer passes the learning probe (schedrl.experiments.probes), probing the best by "
                   "validation score in turn; trials.csv gains the probe's outcome")
    p.add_argument("--probe-candidates", type=int, default=None, metavar="N",
                   help="how many of the best trials to probe at most (default: the config's tune.probe_candidates; "
                   "with --reselect at least 1)")
    add_threads_option(p)
    p.set_defaults(func=run)


def _commit() -> str | None:
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True)
        return out.stdout.strip() or None
    except (OSError, subprocess.CalledProcessError):
        return None


def run(args) -> int:
    import importlib

    from schedrl.errors import ConfigError
    from schedrl.io import atomic_path

    if args.paper not in STUDIES:
        raise ConfigError(f"tune: no study for '{args.paper}' yet (papers with a study: {', '.join(STUDIES)})")
    if args.trials is not None and args.trials < 1:
        raise ConfigError(f"--trials: expected >= 1, got {args.trials}")
    module = importlib.import_module(STUDIES[args.paper])
    from schedrl.commands import load_spec

    spec = load_spec(args.paper, spec_text(args.paper, args.spec))
    if not args.allow_stand_in and not args.reselect:
        refuse_stand_ins(args.paper)
    out = Path(args.out or f"results/tuned/{args.paper}")
    scores = getattr(module, "reference_scores", None)
    if args.references:
        if scores is None:
            raise ConfigError(f"tune {args.paper}: its study scores no references yet")
        _write_references(scores(spec), out / "references.csv")
        return 0
    if args.probe_candidates is not None and args.probe_candidates < (1 if args.reselect else 0):
        raise ConfigError(f"--probe-candidates: expected >= {1 if args.reselect else 0}, got {args.probe_candidates}")
    if args.probe_candidates is not None and not args.reselect:
        section = spec.get("tune")
        if not isinstance(section, dict):
            raise ConfigError(f"{args.paper}.tune: missing (the study of `schedrl tune {args.paper}`)")
        spec = {**spec, "tune": {**section, "probe_candidates": args.probe_candidates}}
    if args.reselect:
        from schedrl.experiments.tune import reselect

        own, study, result = reselect(args.paper, spec, module.tune_spec, module.trainer, out,
                                      candidates=args.probe_candidates)
    else:
        own, study, result = module.tune(spec, out, threads=args.threads, trials=args.trials)
    if scores is not None and not args.reselect:
        _write_references(scores(spec), out / "references.csv")
    commit = _commit()
    if args.reselect:  # the study ran at an earlier commit: keep it (from the committed recipe) beside this one
        import re

        earlier = Path(args.write_config or f"config/tuned/{args.paper}.yml")
        found = re.search(r"commit (\w+)[ .]", earlier.read_text()) if earlier.is_file() else None
        commit = f"{found.group(1) if found else 'unknown'} (the recipe chosen again by the learning probe at {commit})"
    text = module.recipe(spec, own, result.best_params, result, study, commit)
    targets = [out / "recipe.yml"]
    if args.write_config is not None:
        targets.append(Path(args.write_config or f"config/tuned/{args.paper}.yml"))
    for path in targets:
        path.parent.mkdir(parents=True, exist_ok=True)
        with atomic_path(path) as tmp:
            Path(tmp).write_text(text)
        print(f"{path}: the recipe of trial {result.best_number} (validation {result.best_value:.4f})")
    if args.write_config is not None:  # the study's files beside the committed recipe
        import shutil

        for name in ("trials.csv", "references.csv"):
            if (out / name).exists():
                shutil.copyfile(out / name, targets[-1].with_suffix(f".{name}"))
    return 0


def refuse_stand_ins(paper: str) -> None:
    """A ``ConfigError`` naming the first split of ``paper``'s study built from a synthetic stand-in
    trace (``workloads.splits.stand_in_split``): such a study would choose a recipe for another
    workload than the paper's."""
    from schedrl.errors import ConfigError
    from schedrl.workloads.splits import stand_in_split

    manifest = stand_in_split(paper)
    if manifest is not None:
        raise ConfigError(f"tune {paper}: {manifest}: built from a synthetic stand-in for a missing trace, so a "
                          "study on it says nothing about the paper's workloads: put the trace in data/raw or "
                          "../shared/traces and rebuild the workloads (snakemake workloads), or pass --allow-stand-in")


def _write_references(rows: list[dict], path: Path) -> None:
    import pandas as pd

    from schedrl.io import write_csv

    write_csv(path, pd.DataFrame(rows))
    print(f"{path}: " + "; ".join(f"{r['reference']} {r['score']:.4f}" for r in rows))
