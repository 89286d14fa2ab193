"""CLI subcommands, one module each.

A module here defines ``register(subparsers)``, which adds its parser and sets
``func=<callable taking the parsed args and returning an exit code or None>``. ``schedrl.cli``
discovers the modules, so adding a subcommand never edits cli.py.
"""


# Shared by the paper commands (deeprm, mdp, runtime, sem): the same options and outputs for each.
def add_spec_options(parser, paper: str, root: bool = False) -> None:
    """``--spec`` (the paper's config section as JSON, or a config YAML) and, with ``root``, ``--root``."""
    parser.add_argument("--spec", required=True, help=f"{paper} config section (JSON) or a config YAML file")
    if root:
        parser.add_argument("--root", default=f"results/{paper}", help="results folder (default: %(default)s)")


def load_spec(paper: str, text: str) -> dict:
    """The paper's checked config section (its ``experiments.load_spec``)."""
    import importlib

    return importlib.import_module(f"schedrl.papers.{paper}.experiments").load_spec(text)


def write_paper_claims(path, rows) -> None:
    """Write a claims table and print its verdict counts (one line)."""
    from schedrl.report.claims import write_claims

    frame = write_claims(path, rows)
    print(f"{path}: {len(frame)} claims; " + ", ".join(f"{k} {v}" for k, v in frame["verdict"].value_counts().items()))
