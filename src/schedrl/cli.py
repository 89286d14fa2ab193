"""The ``schedrl`` command line; every Snakemake rule calls one of its subcommands."""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

from schedrl import __version__, commands
from schedrl.errors import SchedrlError


class _Parser(argparse.ArgumentParser):
    """argparse with a one-line usage error and exit status 2 (argparse's own status)."""

    def error(self, message: str):  # noqa: D102 - argparse API
        self.exit(2, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="schedrl",
        description="Workloads, cluster simulation, RL training and figures for five papers on "
        "RL job scheduling. Run 'schedrl COMMAND --help' for a command's options.",
    )
    parser.add_argument("--version", action="version", version=f"schedrl {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"schedrl.commands.{info.name}")
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        code = args.func(args)
    except SchedrlError as exc:
        print(f"schedrl {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("schedrl: interrupted", file=sys.stderr)
        return 130
    return int(code or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
