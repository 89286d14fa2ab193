"""``schedrl config``: validate pipeline config files."""

from __future__ import annotations

from schedrl.config import DEFAULT_SCHEMA_DIR, load_config


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "config",
        help="validate pipeline config files against the schemas",
        description="Validate one or more pipeline config files (config/*.yaml). A misspelt or "
        "invalid key is reported as one line naming it, with exit status 2. A scale file (it has a 'scale' "
        "key) is checked merged over the config.yaml beside it; an overlay without one (config/tune.yaml, "
        "config/tuned/<paper>.yml) merged over the files before it, as Snakemake merges --configfile.",
    )
    p.add_argument("files", nargs="+", metavar="CONFIG.yaml", help="config file(s) to check")
    p.add_argument("--schemas", default=str(DEFAULT_SCHEMA_DIR), metavar="DIR",
                   help="folder holding config.schema.yaml and per-section schemas (default: %(default)s)")
    p.set_defaults(func=run)


def run(args) -> int:
    from schedrl.config import load_yaml, merge_config, validate_config
    from schedrl.errors import ConfigError

    merged = None
    for path in args.files:
        raw = load_yaml(path)
        if isinstance(raw, dict) and "scale" not in raw and merged is not None:
            merged = merge_config(merged, raw)
            check_sections(validate_config(merged, args.schemas, source=f"{path} merged over the files before it"),
                           path)
        elif isinstance(raw, dict) and "scale" not in raw:
            raise ConfigError(f"{path}: an overlay without 'scale' is checked over a scale file: name one before it "
                              "(e.g. schedrl config config/paper-budget.yaml " + str(path) + ")")
        else:
            merged = check_config_file(path, args.schemas)
        print(f"{path}: ok")
    return 0


def check_config_file(path, schemas=DEFAULT_SCHEMA_DIR) -> dict:
    """The schemas, then each paper section's cross-key checks (``check_spec`` of its ``layout`` or
    ``experiments`` module, which the Snakefile runs too: e.g. MRSch's DFP hyperparameters, which
    the schema leaves open)."""
    return check_sections(load_config(path, schemas), path)


def check_sections(config: dict, path) -> dict:
    """Each paper section's ``check_spec`` on a validated config, and its study's block (``tune``)
    where it has one; ConfigError names ``path``."""
    import importlib

    from schedrl.commands import spec_module
    from schedrl.errors import ConfigError

    for section, block in config.items():
        try:
            module = spec_module(section)
        except ImportError:
            continue
        check = getattr(module, "check_spec", None)
        if check is not None:
            try:
                check(block)
                if isinstance(block, dict) and "tune" in block:  # the study's block, as `schedrl tune` reads it
                    importlib.import_module(f"schedrl.papers.{section}.tuning").tune_spec(block)
            except ConfigError as exc:
                raise ConfigError(f"{path}: {exc}") from None
    return config
