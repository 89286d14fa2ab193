"""Pipeline configuration: load a YAML file and validate it against the JSON schemas.

The top-level schema is ``workflow/schemas/config.schema.yaml``; a section ``NAME`` (e.g.
``workloads``, ``deeprm``) may have its own ``workflow/schemas/NAME.schema.yaml`` owned by the code
that reads it. Every object schema should say ``additionalProperties: false`` so a misspelt key is
reported as one line that names it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from schedrl.errors import ConfigError

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_SCHEMA_DIR = REPO_ROOT / "workflow" / "schemas"


def load_yaml(path: str | Path) -> Any:
    """Read a YAML file; a missing or unparsable file raises ConfigError naming it."""
    path = Path(path)
    try:
        with path.open() as fh:
            return yaml.safe_load(fh)
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such file") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark is not None else str(path)
        problem = getattr(exc, "problem", None) or "invalid YAML"
        raise ConfigError(f"{where}: {problem}") from None


def _first_error(instance: Any, schema: dict) -> str | None:
    import jsonschema

    validator = jsonschema.Draft202012Validator(schema)
    # A misspelt key shows up both as an unknown key and as a missing required one: report the
    # unknown key (it names what the user typed).
    errors = sorted(validator.iter_errors(instance),
                    key=lambda e: (e.validator != "additionalProperties", len(e.absolute_path), e.message))
    if not errors:
        return None
    err = errors[0]
    key = ".".join(str(p) for p in err.absolute_path)
    if err.validator == "additionalProperties":
        allowed = sorted(err.schema.get("properties", {}))
        extra = sorted(set(err.instance) - set(allowed))
        name = ".".join([key, extra[0]]) if key else extra[0]
        hint = f" (allowed here: {', '.join(allowed)})" if allowed else ""
        return f"unknown key '{name}'{hint}"
    if err.validator == "required":
        return f"missing key in '{key or '<top level>'}': {err.message}"
    return f"key '{key or '<top level>'}': {err.message}"


def validate_config(config: dict, schema_dir: str | Path = DEFAULT_SCHEMA_DIR, source: str = "config") -> dict:
    """Validate ``config`` in place (defaults are not injected); raise ConfigError on the first problem."""
    schema_dir = Path(schema_dir)
    if not isinstance(config, dict):
        raise ConfigError(f"{source}: top level must be a mapping of keys")
    top = load_yaml(schema_dir / "config.schema.yaml")
    message = _first_error(config, top)
    if message is None:
        for section, block in config.items():
            section_schema = schema_dir / f"{section}.schema.yaml"
            if section_schema.exists():
                message = _first_error({section: block}, {
                    "type": "object",
                    "properties": {section: load_yaml(section_schema)},
                })
                if message:
                    break
    if message:
        raise ConfigError(f"{source}: {message}")
    return config


def load_config(path: str | Path, schema_dir: str | Path = DEFAULT_SCHEMA_DIR) -> dict:
    """Load and validate a pipeline config file."""
    config = load_yaml(path)
    return validate_config(config, schema_dir, source=str(path))


def load_section(text: str, section: str) -> dict:
    """One config section, from JSON text (how Snakemake rules pass it) or a config YAML file,
    checked against ``workflow/schemas/<section>.schema.yaml``; ConfigError names what is wrong.
    Each paper's ``experiments.load_spec`` adds its cross-key checks on top."""
    import json

    try:
        spec = json.loads(text)
    except json.JSONDecodeError:
        if text.endswith((".yaml", ".yml")):
            spec = (load_yaml(text) or {}).get(section)
        else:
            raise ConfigError(f"--spec: expected the {section} config section as JSON or a config YAML file") from None
    if not isinstance(spec, dict) or not spec:
        raise ConfigError(f"--spec: no {section} section")
    message = _first_error(spec, load_yaml(DEFAULT_SCHEMA_DIR / f"{section}.schema.yaml"))
    if message:
        raise ConfigError(f"{section} spec: {message}")
    return spec
