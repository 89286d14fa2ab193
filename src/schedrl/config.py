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
    """Read a YAML (or JSON) file; a missing, unreadable or unparsable file raises ConfigError naming it."""
    import json

    path = Path(path)
    try:
        with path.open(encoding="utf-8") as fh:
            text = fh.read()
        # a JSON document is read as JSON: YAML 1.1 reads an exponent without a dot (1e-05) as text
        doc = json.loads(text) if text.lstrip().startswith("{") else yaml.safe_load(text)
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{path}:{exc.lineno}: not valid JSON ({exc.msg} at column {exc.colno})") from None
    except ValueError as exc:  # json's own (e.g. a number too large): a UnicodeDecodeError is caught below first
        if isinstance(exc, UnicodeDecodeError):
            raise ConfigError(f"{path}: not a UTF-8 text file (byte {exc.start})") from None
        raise ConfigError(f"{path}: {exc}") from None
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise ConfigError(f"{path}: is a directory, not a config file") from None
    except PermissionError:
        raise ConfigError(f"{path}: permission denied") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not a UTF-8 text file (byte {exc.start})") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark is not None else str(path)
        problem = getattr(exc, "problem", None) or "invalid YAML"
        raise ConfigError(f"{where}: {problem}") from None
    except RecursionError:
        raise ConfigError(f"{path}: nested too deeply") from None
    if _too_many_values(doc):
        raise ConfigError(f"{path}: more than {MAX_VALUES:,} values (YAML aliases expanding?)")
    return doc


MAX_VALUES = 200_000


def _too_many_values(doc: Any) -> bool:
    """Whether ``doc`` holds more than MAX_VALUES values counting repeats: a few lines of YAML
    aliases (``&a [*b, *b, ...]``) expand to billions, which validation would walk for hours."""
    stack, seen = [doc], 0
    while stack:
        item = stack.pop()
        seen += 1
        if seen > MAX_VALUES:
            return True
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


def _non_finite(obj: Any, key: str = "") -> str | None:
    """The dotted key of the first NaN or infinite number in ``obj`` (JSON Schema's ``number``
    accepts them and every ``minimum`` comparison with NaN is false), or None."""
    import math

    if isinstance(obj, float) and not math.isfinite(obj):
        return key or "<top level>"
    if isinstance(obj, dict):
        items = obj.items()
    elif isinstance(obj, list):
        items = enumerate(obj)
    else:
        return None
    for k, v in items:
        found = _non_finite(v, f"{key}.{k}" if key else str(k))
        if found:
            return found
    return None


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
        allowed = sorted(map(str, err.schema.get("properties", {})))
        extra = sorted({str(k) for k in err.instance} - set(allowed))  # YAML keys may be null or numbers
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
    bad = _non_finite(config)
    if message is None and bad:
        message = f"key '{bad}': not a finite number"
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
    """Load and validate a pipeline config file; a scale file that holds only the keys it changes
    (``config/paper-budget.yaml``) is merged over the ``config.yaml`` beside it first, as the pipeline runs it."""
    raw = load_yaml(path)
    config = over_default(raw, path) if isinstance(raw, dict) else raw
    source = str(path) if config is raw else f"{path} merged over {Path(path).with_name('config.yaml')}"
    return validate_config(config, schema_dir, source=source)


def load_section(text: str, section: str) -> dict:
    """One config section, checked against ``workflow/schemas/<section>.schema.yaml``.

    ``text`` is the section as inline JSON (how Snakemake rules pass it) or the path of a JSON or
    YAML file holding either a whole pipeline config (the ``section`` key is taken) or the section
    itself. ConfigError names what is wrong. Each paper's ``experiments.load_spec`` adds its
    cross-key checks on top."""
    import json

    source = "--spec"
    if text.lstrip().startswith("{"):
        try:
            spec = json.loads(text, parse_constant=_reject_constant)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"--spec: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})") from None
        except ValueError as exc:
            raise ConfigError(f"--spec: {exc}") from None
        except RecursionError:
            raise ConfigError("--spec: nested too deeply") from None
    elif _exists(text):
        source = f"--spec {text}"
        doc = load_yaml(text)  # JSON files too (read as JSON: see load_yaml)
        if not isinstance(doc, dict):
            raise ConfigError(f"{source}: expected a mapping (the {section} section, or a config holding it)")
        doc = over_default(doc, text)
        top = load_yaml(DEFAULT_SCHEMA_DIR / "config.schema.yaml").get("properties", {})
        if section in doc:
            spec = doc[section]
        elif doc and all(k in top for k in doc):  # a pipeline config without this section
            raise ConfigError(f"{source}: no {section} section (it has {', '.join(map(str, doc))})")
        else:
            spec = doc
    elif text.endswith((".yaml", ".yml", ".json")) or "/" in text:
        raise ConfigError(f"--spec {text}: no such file")
    else:
        raise ConfigError(f"--spec: expected the {section} config section as JSON, or a JSON or YAML file "
                          f"(not {text[:40]!r})")
    if not isinstance(spec, dict) or not spec:
        raise ConfigError(f"{source}: no {section} section (expected a mapping of its keys)")
    message = _first_error(spec, load_yaml(DEFAULT_SCHEMA_DIR / f"{section}.schema.yaml"))
    bad = _non_finite(spec)
    if message is None and bad:
        message = f"key '{bad}': not a finite number"
    if message:
        where = f"{section} spec" if source == "--spec" else f"{source}: {section} spec"
        raise ConfigError(f"{where}: {message}")
    return spec


def merge_config(base: dict, over: dict) -> dict:
    """``over`` merged into a copy of ``base`` as Snakemake merges a ``--configfile``: mappings key
    by key, everything else (lists included) replaced."""
    out = dict(base)
    for key, value in (over or {}).items():
        out[key] = merge_config(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


def run_spec_json(spec: dict, leave_out=(), **narrowed) -> str:
    """The ``--spec`` JSON of a rule that makes or reads one run: the paper's section without the
    keys in ``leave_out`` and with each key in ``narrowed`` set to the run's own value (``None``
    removes it). Snakemake reruns a job whose params changed, so a rule given the whole section
    retrained or re-evaluated every run when a seed or scenario was added; narrowed to the lists
    that only enumerate runs, a run's params change only with what the run itself reads."""
    import json

    out = {k: v for k, v in spec.items() if k not in set(leave_out)}
    for key, value in narrowed.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = value
    return json.dumps(out, sort_keys=True)


def pinned(spec: dict, pins: dict | None = None) -> dict:
    """``spec`` with each (dotted) key of ``pins`` ("seeds", "agents.seeds") set to its value, or removed
    where the value is None; a key ``spec`` does not hold is left out of it. ``spec`` is not changed
    (the mappings a key passes through are copied)."""
    out = dict(spec)
    for key, value in (pins or {}).items():
        *path, last = str(key).split(".")
        node = out
        for name in path:
            child = node.get(name)
            if not isinstance(child, dict):
                break
            node[name] = node = dict(child)  # a copy on the way down
        else:
            if last in node:
                if value is None:
                    node.pop(last)
                else:
                    node[last] = value
    return out


def study_spec_json(spec: dict, pins: dict | None = None) -> str:
    """The ``--spec`` JSON of a paper's hyperparameter study (``schedrl tune``): its section with the lists
    that only enumerate the runs pinned (``pins``: each paper's ``STUDY_PINS``, a fixed value or None to
    drop), which no study reads (a trial trains its own seeds), so adding a seed to the runs neither
    reruns a study (Snakemake's params) nor starts its journal afresh (``experiments.tune.resume_key``)."""
    import json

    return json.dumps(pinned(spec, pins), sort_keys=True)


def over_default(doc: dict, path: str | Path) -> dict:
    """A scale file that holds only the keys it changes (``config/paper-budget.yaml``) merged over the
    ``config.yaml`` beside it, as the pipeline runs it; any other mapping as it is."""
    path = Path(path)
    default = path.with_name("config.yaml")
    if "scale" not in doc or path.name == "config.yaml" or not default.is_file():
        return doc
    return merge_config(load_yaml(default), doc)


def _exists(text: str) -> bool:
    try:
        return bool(text) and Path(text).exists()
    except (OSError, ValueError):  # a name too long, a NUL byte
        return False


def _reject_constant(name: str):
    raise ValueError(f"{name} is not a number JSON allows")
