"""``schedrl report``: gather claims tables, sections and figures into the reproduction report."""

from __future__ import annotations

from schedrl.io import write_csv, write_text


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "report",
        help="write the reproduction report (markdown and self-contained HTML) from claims tables",
        description="Concatenate per-paper claims tables (claim, paper value, ours, verdict), markdown "
        "sections (figures/<paper>/*.md) and every paper's figures (from schedrl.papers' TARGETS, "
        "where they exist) into REPRODUCTION.md and, with --html, one self-contained HTML page.",
    )
    p.add_argument("--claims", nargs="*", default=[], metavar="CSV", help="claims.csv files")
    p.add_argument("--sections", nargs="*", default=[], metavar="MD",
                   help="markdown files to include under their paper (path contains /<paper>/)")
    p.add_argument("--fingerprints", nargs="*", default=[], metavar="CSV",
                   help="papers' behaviour fingerprints (results/<paper>/fingerprints.csv), shown under their paper")
    p.add_argument("--normalised", metavar="CSV", default=None,
                   help="results/normalised/aggregate.csv: open the report with its 'Where RL stands' table")
    p.add_argument("--scale", default="default", help="scale name shown in the report")
    p.add_argument("--benchmarks", default="benchmarks/results", metavar="DIR",
                   help="Snakemake benchmark files, summed per paper (default: %(default)s)")
    p.add_argument("--budget-config", default="config/config.yaml", metavar="YAML",
                   help="config holding the default-scale budget.core_hours per paper (default: %(default)s)")
    p.add_argument("--out", required=True, metavar="MD", help="markdown report to write")
    p.add_argument("--html", metavar="HTML", help="also write the report as one self-contained HTML page")
    p.add_argument("--claims-out", metavar="CSV", help="also write all claims as one CSV")
    p.set_defaults(func=run)


def paper_infos():
    """Title and figures of every paper, from the paper packages (a paper without one: title only)."""
    import importlib

    from schedrl.commands.record import recorded_path
    from schedrl.papers import implemented, over_seeds, paper_values, titles
    from schedrl.papers.values import values_path
    from schedrl.report.recorded import read_recorded
    from schedrl.report.render import Figure, PaperInfo, status_with_history
    from schedrl.report.status_tables import paper_seed_lines, read_paper_status, recorded_players

    infos = {}
    for paper, title in titles().items():
        info = PaperInfo(title=title)
        if paper in implemented():
            targets = importlib.import_module(f"schedrl.papers.{paper}.figures").TARGETS
            info.figures = [Figure(t.path, t.caption) for t in targets if t.kind in ("figure", "table")]
            info.targets = len(targets)
            info.deviations = paper_values(paper).deviations
            status, history = (values_path(paper).with_name(name) for name in ("status.md", "history.md"))
            info.status = status_with_history(status.read_text() if status.is_file() else "",
                                              history.read_text() if history.is_file() else "")
            info.recorded = read_recorded(recorded_path(paper))
            info.recorded_players = recorded_players(recorded_path(paper))
            if not info.recorded.empty:
                status = read_paper_status(paper, recorded_path(paper))
                status.over_seeds = over_seeds(paper, status.scores)
                info.seed_verdicts = paper_seed_lines(status, "####")
        infos[paper] = info
    return infos


def run(args) -> int:
    from pathlib import Path

    from schedrl.config import load_yaml
    from schedrl.report.render import benchmark_seconds, render_html, render_report, versions

    report_dir = Path(args.out).parent
    budget = (load_yaml(args.budget_config) or {}).get("budget", {}).get("core_hours", {})
    text, claims = render_report(args.claims, args.sections, args.scale, paper_infos(), report_dir=report_dir,
                                 benchmarks=benchmark_seconds(args.benchmarks, budget), package_versions=versions(),
                                 fingerprint_files=args.fingerprints, normalised=args.normalised)
    if args.claims_out:
        write_csv(args.claims_out, claims)
    if args.html:
        write_text(args.html, render_html(text, report_dir))
    write_text(args.out, text)
    print(f"{args.out}: {len(claims)} claims" + (f"; {args.html}" if args.html else ""))
    return 0
