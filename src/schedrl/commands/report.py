"""``schedrl report``: gather claims tables and sections into the reproduction report."""

from __future__ import annotations

from schedrl.io import write_csv, write_text
from schedrl.report.render import render_report


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "report",
        help="write the reproduction report from claims tables",
        description="Concatenate per-paper claims tables (claim, paper value, ours, verdict) and "
        "markdown sections (figures/<paper>/*.md) into one markdown report.",
    )
    p.add_argument("--claims", nargs="*", default=[], metavar="CSV", help="claims.csv files")
    p.add_argument("--sections", nargs="*", default=[], metavar="MD",
                   help="markdown files to include under their paper (path contains /<paper>/)")
    p.add_argument("--scale", default="default", help="scale name shown in the report")
    p.add_argument("--out", required=True, metavar="MD", help="report to write")
    p.add_argument("--claims-out", metavar="CSV", help="also write all claims as one CSV")
    p.set_defaults(func=run)


def run(args) -> int:
    from schedrl.papers import titles

    text, claims = render_report(args.claims, args.sections, args.scale, titles())
    if args.claims_out:
        write_csv(args.claims_out, claims)
    write_text(args.out, text)
    return 0
