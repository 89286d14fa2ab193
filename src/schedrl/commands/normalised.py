"""``schedrl normalised``: every player of every paper on one scale (random valid play = 0, best
heuristic = 1) and its rliable aggregate per paper and player (issue 68)."""

from __future__ import annotations

from pathlib import Path

from schedrl.papers import PAPERS


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "normalised",
        help="one normalised score per player and workload (random valid play = 0, best heuristic = 1), "
        "aggregated with rliable",
        description="Read each paper's evaluation outputs (results/<paper>/...) into one long table "
        "(paper, workload, player, role, seed, metric, value), score every row as (value - random) / "
        "(best heuristic - random) on its workload, and aggregate per paper and player with rliable: IQM "
        "and mean with stratified-bootstrap intervals over seeds x workloads, and the probability of "
        "improvement over random valid play and over the best heuristic. Workloads where random valid "
        "play matches or beats every heuristic, or where either anchor is not played yet, are left out and "
        "counted by reason. The papers' own reported agents are placed on the same scale by their ratio to "
        "the paper's own heuristic (role 'authors', a placed_from note). Writes long.csv, scores.csv, "
        "aggregate.csv, gaps.csv (players a paper cannot place yet, and why), where_rl_stands.png (each "
        "player's IQM and interval per paper) and profiles.png (rliable's performance profiles of the papers "
        "with at least five scaled workloads; each figure with its .pdf and plotted .csv) into --out-dir.",
    )
    p.add_argument("--paper", default=",".join(PAPERS), help="comma-separated papers (default: all five)")
    p.add_argument("--config", nargs="+", default=None, metavar="YAML",
                   help="config file(s) merged over config/config.yaml (default: config/config.yaml alone)")
    p.add_argument("--config-json", default=None, metavar="JSON",
                   help="the whole (merged) config as JSON, as the Snakemake rule passes it")
    p.add_argument("--long", nargs="+", default=None, metavar="CSV",
                   help="score these long tables instead of reading the papers' results")
    p.add_argument("--scale", default=None,
                   help="the pipeline scale the results come from, written in aggregate.csv (default: the "
                   "config's 'scale'; 'unspecified' with --long)")
    p.add_argument("--reps", type=int, default=2000, help="bootstrap resamples (default: %(default)s)")
    p.add_argument("--seed", type=int, default=0, help="bootstrap seed (default: %(default)s)")
    p.add_argument("--out-dir", default="results/normalised", help="output folder (default: %(default)s)")
    p.set_defaults(func=run)


def _config(args) -> dict:
    import json

    from schedrl.commands.score import load_config
    from schedrl.errors import ConfigError

    if args.config_json:
        try:
            return json.loads(args.config_json)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"--config-json is not JSON: {exc}") from None
    return load_config("default", args.config or [])


def paper_long_table(paper: str, config: dict):
    """(long table, gaps) of ``paper`` from its results, by its ``normalised.long_table(spec, root)``
    (its config section read by the reader's own ``load_spec`` where it has one, else by the paper's:
    ``commands.spec_module``); a paper without a reader yet is one gap."""
    import importlib

    import pandas as pd

    from schedrl.commands import spec_module

    try:
        module = importlib.import_module(f"schedrl.papers.{paper}.normalised")
    except ModuleNotFoundError:
        return pd.DataFrame(), [{"paper": paper, "player": "all", "gap": "no reader of its results yet"}]
    load_spec = getattr(module, "load_spec", None) or spec_module(paper).load_spec
    return module.long_table(load_spec(__import__("json").dumps(config[paper])))


def run(args) -> int:
    import pandas as pd

    from schedrl.errors import ConfigError, InputFileError
    from schedrl.io import read_result, write_csv
    from schedrl.report import normalised as nm

    if args.reps < 1:
        raise ConfigError(f"--reps must be at least 1, not {args.reps}")
    frames, gaps = [], []
    scale = args.scale
    if args.long:
        for path in args.long:
            if not Path(path).is_file():
                raise InputFileError(path, "no such long table")
            frames.append(read_result(path))
    else:
        papers = [p for p in args.paper.split(",") if p]
        unknown = sorted(set(papers) - set(PAPERS))
        if unknown:
            raise ConfigError(f"unknown paper(s) {', '.join(unknown)} (choose from: {', '.join(PAPERS)})")
        config = _config(args)
        scale = scale or config.get("scale")
        for paper in papers:
            if paper not in config:
                gaps.append({"paper": paper, "player": "all", "gap": "not in the config"})
                continue
            frame, paper_gaps = paper_long_table(paper, config)
            frames.append(frame)
            gaps += paper_gaps
    long = pd.concat([f for f in frames if len(f)], ignore_index=True) if any(len(f) for f in frames) else None
    if long is None:
        raise InputFileError(args.out_dir, "no evaluation results to score (run the papers' rules first)")
    scored = nm.scores(long)
    aggregated = nm.aggregate(scored, reps=args.reps, seed=args.seed, scale=scale or "unspecified")
    out = Path(args.out_dir)
    optional = {c: long[c].fillna("") if c in long.columns else "" for c in (nm.PLACED_FROM, nm.PER_JOBSET)}
    write_csv(out / "long.csv", long.loc[:, list(nm.LONG_COLUMNS)].assign(**optional))
    nm.write_outputs(scored, aggregated, out / "scores.csv", out / "aggregate.csv")
    write_csv(out / "gaps.csv", pd.DataFrame(gaps, columns=list(nm.GAP_COLUMNS)).drop_duplicates())
    from schedrl.plots.normalised import profiles_figure, where_rl_stands_figure

    where_rl_stands_figure(aggregated, out / "where_rl_stands.png")
    profiles_figure(nm.profiles(scored, reps=args.reps, seed=args.seed), out / "profiles.png")
    workloads = scored.drop_duplicates(["paper", "workload"])
    status = workloads["anchor"].value_counts()
    no_scale = ", ".join(f"{int(status.get(a, 0))} {a}" for a in nm.ANCHORS[1:] if status.get(a, 0))
    print(f"{out}/aggregate.csv ({scale or 'unspecified'} scale): {len(aggregated)} players of "
          f"{aggregated['paper'].nunique()} paper(s); {len(workloads)} workloads, {int(status.get('ok', 0))} with a "
          f"scale{' (no scale: ' + no_scale + ')' if no_scale else ''}; {len(gaps)} gaps")
    return 0
