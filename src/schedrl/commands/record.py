"""``schedrl record``: keep a run's verdicts (default or paper-budget scale) in the paper's ``recorded_runs.csv``."""

from __future__ import annotations

#: the scales a recorded run can be of (``schedrl.report.recorded.SCALES``; a test keeps them equal: the
#: CLI's parser is built without importing pandas)
SCALES = ("default", "paper-budget", "tuned")


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "record",
        help="record a run's verdicts beside the paper's earlier runs (for the report)",
        description="Copy each claim's verdict, value, paper value, 95% interval, budget trend and its "
        "no-learning references' verdicts from a run's claims table into the paper's recorded_runs.csv "
        "(beside its status.md), under RUN's name; a run already recorded under that name is replaced. The "
        "report shows the recorded runs side by side, marks the claims whose verdict changed, and sets each "
        "RL claim of the last default run beside the last paper-budget run.",
    )
    p.add_argument("--claims", metavar="CSV",
                   help="the run's claims table (results/<paper>/claims.csv); a tuned run whose target writes no "
                   "claims (mdp_tuned: the tuned agent without the paper's image-like runs the claims compare) "
                   "may give --normalised alone")
    p.add_argument("--run", required=True, metavar="NAME",
                   help="the run's name: date, code, machine kind, core-hours and what set it apart, e.g. "
                   "'2026-11-27, 5a85e72, 240k steps, slower kind, 5.06 core-h' (a paper-budget run: say 'paper budget'); "
                   "`schedrl status` reads the date, commit, seeds, kind and core-hours from it, so run "
                   "`schedrl status --write` after recording; a mrsch or sem run whose splits were built from a "
                   "synthetic stand-in trace must say 'stand-in' (refused otherwise)")
    p.add_argument("--scale", default="default", choices=SCALES,
                   help="the config the run used: default (config/config.yaml), paper-budget "
                   "(config/paper-budget.yaml, the papers' own training budgets) or tuned (a tuned recipe, "
                   "config/tuned/<paper>.yml, over paper-budget.yaml); default: %(default)s")
    p.add_argument("--source", default="", metavar="TEXT",
                   help="where the rows come from (default: the claims table's path)")
    p.add_argument("--into", default=None, metavar="CSV",
                   help="recorded-runs table to update (default: the paper's recorded_runs.csv)")
    p.add_argument("--normalised", default=None, metavar="CSV",
                   help="the run's results/normalised/aggregate.csv: keep the paper's rows (every player's IQM "
                   "and mean normalised score with intervals) in recorded_normalised.csv beside recorded_runs.csv, "
                   "under RUN's name, and its scores.csv beside it (every player's score per workload and seed) in "
                   "recorded_scores.csv, so seeds recorded as separate runs of one scale are merged; `schedrl status` "
                   "shows the best agent's IQM from them")
    p.set_defaults(func=run)


def _papers_of(aggregate_csv: str) -> list[str]:
    """The papers a normalised aggregate holds rows of (its ``paper`` column)."""
    import pandas as pd

    from schedrl.errors import InputFileError

    try:
        frame = pd.read_csv(aggregate_csv, usecols=["paper"], dtype=str)
    except (FileNotFoundError, IsADirectoryError, ValueError, pd.errors.EmptyDataError, pd.errors.ParserError) as exc:
        raise InputFileError(aggregate_csv, f"not a normalised aggregate ({str(exc).splitlines()[0]})") from None
    return sorted(set(frame["paper"].dropna()))


def recorded_path(paper: str):
    """The paper's ``recorded_runs.csv`` (beside its ``status.md`` in the paper package)."""
    from schedrl.papers.values import values_path

    return values_path(paper).with_name("recorded_runs.csv")


def run(args) -> int:
    from pathlib import Path

    from schedrl.errors import InputFileError
    from schedrl.report.claims import read_claims
    from schedrl.report.recorded import read_recorded, record_run, write_recorded

    if args.claims is None and not (args.scale == "tuned" and args.normalised):
        raise InputFileError("--claims", "missing: give the run's claims table (only a tuned run may be recorded "
                             "by --normalised alone)")
    source = args.claims or args.normalised
    if not args.run.strip():
        raise InputFileError(source, "--run is empty: name the run (date, code, what set it apart)")
    if args.claims is not None:
        claims = read_claims(args.claims)
        papers = sorted(set(claims["paper"]))
    else:
        claims, papers = None, _papers_of(args.normalised)
    if len(papers) != 1:
        raise InputFileError(source, f"holds rows of {len(papers)} papers ({', '.join(papers)}); record one at a time")
    from schedrl.workloads.splits import stand_in_split

    stand_in = stand_in_split(papers[0])
    if stand_in is not None and "stand-in" not in args.run:
        raise InputFileError(stand_in, f"the {papers[0]} run was built from a synthetic stand-in for a missing trace: "
                             "say 'stand-in' in --run, or rebuild the workloads from the real trace and run again")
    into = args.into or recorded_path(papers[0])
    recorded = read_recorded(into)
    frame = None if claims is None else record_run(recorded, claims, args.run.strip(), args.source or str(args.claims),
                                                   args.scale)
    normalised = per_seed = None
    if args.normalised:  # read and checked before anything is written
        import pandas as pd

        from schedrl.report.normalised import AGGREGATE_COLUMNS
        from schedrl.report.recorded import read_recorded_normalised, record_normalised

        try:
            aggregate = pd.read_csv(args.normalised)
        except (FileNotFoundError, IsADirectoryError, pd.errors.EmptyDataError, pd.errors.ParserError) as exc:
            raise InputFileError(args.normalised, f"not a normalised aggregate ({str(exc).splitlines()[0]})") from None
        missing = [c for c in AGGREGATE_COLUMNS if c not in aggregate.columns]
        if missing:
            raise InputFileError(args.normalised, f"lacks column(s) {', '.join(missing)} (results/normalised/aggregate.csv?)")
        if not (aggregate["paper"] == papers[0]).any():
            raise InputFileError(args.normalised, f"holds no row of {papers[0]}")
        target = Path(into).with_name("recorded_normalised.csv")
        probe = recipe = None
        if args.scale == "tuned":  # the recipe it trained: the committed one, as it is now
            from schedrl.experiments.tune import recipe_id, recipe_probe

            probe, recipe = recipe_probe(papers[0]), recipe_id(papers[0])
        normalised = (target, record_normalised(read_recorded_normalised(target), aggregate, papers[0], args.run.strip(),
                                                 args.scale, probe))
        scored = _scores_beside(Path(args.normalised), papers[0])
        if scored is not None:
            from schedrl.report.recorded import SCORES_FILE, read_recorded_scores, record_scores

            target = Path(into).with_name(SCORES_FILE)
            per_seed = (target, record_scores(read_recorded_scores(target), scored, papers[0], args.run.strip(),
                                              args.scale, recipe))
    if frame is not None:
        write_recorded(into, frame)
        print(f"{into}: {len(claims)} verdicts of {papers[0]} recorded as {args.run.strip()!r} ({args.scale}); "
              f"{frame['run'].nunique()} run(s) recorded")
    if normalised is not None:
        from schedrl.io import write_csv

        write_csv(normalised[0], normalised[1])
        print(f"{normalised[0]}: {int((normalised[1]['run'] == args.run.strip()).sum())} normalised scores of "
              f"{papers[0]} recorded")
    if per_seed is not None:
        write_csv(per_seed[0], per_seed[1])
        print(f"{per_seed[0]}: {int((per_seed[1]['run'] == args.run.strip()).sum())} per-seed scores of {papers[0]} recorded")
    elif args.normalised:
        print(f"no scores.csv beside {args.normalised}: only the aggregate is recorded (this run's seeds cannot be "
              "merged with another run's)")
    return 0


def _scores_beside(aggregate_path, paper: str):
    """The per-seed scores (``scores.csv``) beside a normalised aggregate, checked; None where absent."""
    import pandas as pd

    from schedrl.errors import InputFileError
    from schedrl.report.normalised import LATER_SCORE_COLUMNS, SCORE_COLUMNS

    path = aggregate_path.with_name("scores.csv")
    if not path.is_file():
        return None
    try:
        scored = pd.read_csv(path, keep_default_na=False, na_values={"value": [""], "normalised": [""]})
    except (pd.errors.EmptyDataError, pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise InputFileError(path, f"not a normalised scores table ({str(exc).splitlines()[0]})") from None
    missing = [c for c in SCORE_COLUMNS if c not in scored.columns and c not in LATER_SCORE_COLUMNS]
    if missing:
        raise InputFileError(path, f"lacks column(s) {', '.join(missing)} (results/normalised/scores.csv?)")
    if not (scored["paper"] == paper).any():
        raise InputFileError(path, f"holds no row of {paper}")
    return scored.assign(**{c: "" for c in LATER_SCORE_COLUMNS if c not in scored.columns})
