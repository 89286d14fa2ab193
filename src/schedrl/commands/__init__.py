"""CLI subcommands, one module each.

A module here defines ``register(subparsers)``, which adds its parser and sets
``func=<callable taking the parsed args and returning an exit code or None>``. ``schedrl.cli``
discovers the modules, so adding a subcommand never edits cli.py.
"""
