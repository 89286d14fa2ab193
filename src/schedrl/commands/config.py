"""``schedrl config``: validate pipeline config files."""

from __future__ import annotations

from schedrl.config import DEFAULT_SCHEMA_DIR, load_config


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "config",
        help="validate pipeline config files against the schemas",
        description="Validate one or more pipeline config files (config/*.yaml). A misspelt or "
        "invalid key is reported as one line naming it, with exit status 2.",
    )
    p.add_argument("files", nargs="+", metavar="CONFIG.yaml", help="config file(s) to check")
    p.add_argument("--schemas", default=str(DEFAULT_SCHEMA_DIR), metavar="DIR",
                   help="folder holding config.schema.yaml and per-section schemas (default: %(default)s)")
    p.set_defaults(func=run)


def run(args) -> int:
    for path in args.files:
        check_config_file(path, args.schemas)
        print(f"{path}: ok")
    return 0


def check_config_file(path, schemas=DEFAULT_SCHEMA_DIR) -> dict:
    """The schemas, then each paper section's cross-key checks (``check_spec`` of its ``layout`` or
    ``experiments`` module, which the Snakefile runs too: e.g. MRSch's DFP hyperparameters, which
    the schema leaves open)."""
    from schedrl.commands import spec_module
    from schedrl.errors import ConfigError

    config = load_config(path, schemas)
    for section, block in config.items():
        try:
            module = spec_module(section)
        except ImportError:
            continue
        check = getattr(module, "check_spec", None)
        if check is not None:
            try:
                check(block)
            except ConfigError as exc:
                raise ConfigError(f"{path}: {exc}") from None
    return config
