"""The ``schedrl`` command line; every Snakemake rule calls one of its subcommands."""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import signal
import sys

# One BLAS / OpenMP / numba thread per command unless the caller sets these: Snakemake runs up to
# --cores commands at once, and libraries that each start a thread per core would oversubscribe the
# machine (each rule asks for its threads with --threads, which sets torch's).
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

from schedrl import __version__, commands  # noqa: E402 - after the thread defaults
from schedrl.errors import SchedrlError, Terminated  # noqa: E402


class _Parser(argparse.ArgumentParser):
    """argparse with a one-line usage error and exit status 2 (argparse's own status)."""

    def error(self, message: str):  # noqa: D102 - argparse API
        self.exit(2, f"{self.prog}: error: {message}\n")


def _command_modules(argv: list[str] | None) -> list[str]:
    """Names of the command modules to load: only the one named on the command line, if any.

    Command modules are named after their command; loading just the one in use keeps start-up
    short (some pull in numba or torch), which matters for a DAG that calls the CLI many times.
    """
    names = sorted(m.name for m in pkgutil.iter_modules(commands.__path__))
    if argv and argv[0] in names:
        return [argv[0]]
    return names


def build_parser(argv: list[str] | None = None) -> argparse.ArgumentParser:
    parser = _Parser(
        prog="schedrl",
        description="Workloads, cluster simulation, RL training and figures for five papers on "
        "RL job scheduling. Run 'schedrl COMMAND --help' for a command's options.",
    )
    parser.add_argument("--version", action="version", version=f"schedrl {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True
    for name in _command_modules(argv):
        importlib.import_module(f"schedrl.commands.{name}").register(sub)
    return parser


def _on_sigterm(signum, frame):
    raise Terminated()


def main(argv: list[str] | None = None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    previous = None
    try:
        previous = signal.signal(signal.SIGTERM, _on_sigterm)
    except ValueError:  # not the main thread (an embedding caller): keep its handler
        pass
    try:
        code = args.func(args)
    except SchedrlError as exc:
        print(f"schedrl {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except Terminated:
        print("schedrl: terminated (SIGTERM); finished files and checkpoints are kept, a rerun resumes",
              file=sys.stderr)
        return 143
    except KeyboardInterrupt:
        print("schedrl: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader stopped early (`schedrl figures | head`): no traceback
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
    return int(code or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
