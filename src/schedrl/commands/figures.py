"""``schedrl figures``: every figure and table the pipeline draws, and where its code lives.

For each target of each paper package (``schedrl.papers.<paper>.figures.TARGETS``): the paper,
the file, the Snakemake rule that builds it, the function that draws it, whether it exists on
disk, and the verdicts of the claims it shows (from ``results/<paper>/claims.csv``). docs/figures.md's
target table is this command's ``--format markdown`` output.
"""

from __future__ import annotations

from pathlib import Path

from schedrl.report.claims import VERDICT_SHORT

FORMATS = ("text", "markdown", "csv")


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "figures",
        help="list every figure and table: paper, file, rule, function, on disk, verdicts",
        description="List every figure, table and claims file of every paper: the file, the rule "
        "in workflow/rules/<paper>.smk that builds it, the function in schedrl.papers.<paper> that "
        "draws it, whether it exists under --root, and the verdict counts of its claims "
        "(R reproduced, P partly, N not reproduced, C not comparable).",
    )
    p.add_argument("--paper", action="append", metavar="PAPER", help="only this paper (repeatable)")
    p.add_argument("--root", default=".", metavar="DIR", help="pipeline folder holding figures/ and results/ "
                   "(default: %(default)s)")
    p.add_argument("--format", choices=FORMATS, default="text", help="output format (default: %(default)s)")
    p.set_defaults(func=run)


def listing(papers=None, root: str | Path = "."):
    """One row per target (a DataFrame) and the papers that have no package yet."""
    import importlib

    import pandas as pd

    from schedrl.errors import ConfigError
    from schedrl.papers import PAPERS, implemented
    from schedrl.report.claims import read_claims

    papers = list(papers or PAPERS)
    unknown = [p for p in papers if p not in PAPERS]
    if unknown:
        raise ConfigError(f"--paper: unknown paper(s) {', '.join(unknown)} (known: {', '.join(PAPERS)})")
    root = Path(root)
    rows, missing = [], []
    for paper in papers:
        if paper not in implemented():
            missing.append(paper)
            continue
        claims_file = root / "results" / paper / "claims.csv"
        claims = read_claims(claims_file) if claims_file.is_file() else None
        for target in importlib.import_module(f"schedrl.papers.{paper}.figures").TARGETS:
            verdicts = ""
            if claims is not None and target.claims:
                mine = claims[claims["claim_id"].str.startswith(tuple(target.claims))]
                counts = mine["verdict"].value_counts()
                verdicts = " ".join(f"{short}{int(counts.get(v, 0))}" for v, short in VERDICT_SHORT.items())
            rows.append({"paper": paper, "target": target.path, "kind": target.kind, "rule": target.rule,
                         "function": target.function_name, "on_disk": all((root / f).is_file() for f in target.files()),
                         "verdicts": verdicts, "caption": target.caption})
    return pd.DataFrame(rows), missing


def run(args) -> int:
    frame, missing = listing(args.paper, args.root)
    if args.format == "csv":
        import sys

        frame.to_csv(sys.stdout, index=False)
        return 0
    if args.format == "markdown":
        print("| paper | target | rule | function | what |")
        print("| --- | --- | --- | --- | --- |")
        for row in frame.itertuples(index=False):
            print(f"| {row.paper} | `{row.target}` | `{row.rule}` | `{row.function}` | {row.caption} |")
        for paper in missing:
            print(f"| {paper} | (none yet) | | | its issue has not landed |")
        return 0
    shown = frame.assign(on_disk=frame["on_disk"].map({True: "yes", False: "no"})).drop(columns=["caption", "kind"])
    print(shown.to_string(index=False) if len(shown) else "no targets")
    for paper in missing:
        print(f"{paper}: no package yet (its issue has not landed)")
    have = int(frame["on_disk"].sum()) if len(frame) else 0
    print(f"{len(frame)} targets, {have} on disk")
    return 0
