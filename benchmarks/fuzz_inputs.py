"""Fuzz the inputs a user controls: trace files, config files, ``--spec``, the CLI's arguments and the
envs' keyword arguments (``--env-kwarg``, ``env_kwargs`` in a config).

Hypothesis generates bad inputs from good ones (truncated, binary, wrong field counts, NaN,
negative and huge values, bad headers, corrupt gzip; wrong types, unknown keys, YAML and JSON
syntax errors, alias bombs; junk in every CLI argument and every env constructor keyword) and each is fed to the real entry point
in this process. Every outcome is classified:

- ``ok``: accepted, and the result passes the checks of its kind;
- ``rejected``: a one-line user error (``SchedrlError``, or argparse's usage error);
- ``traceback``: any other exception (goal 0);
- ``hang``: no answer within ``--timeout`` seconds (goal 0);
- ``accepted_wrong``: accepted although the input is known to be bad (a NaN or a missing field
  in a data line, an unknown config key, a value of the wrong JSON type), or the accepted result
  breaks an invariant (negative runtimes, a job larger than the machine, ...);
- ``rejected_good``: a good input (an unmutated section given as a file, say) was refused;
- ``multiline``: a CLI error whose message took more than one line.

    python benchmarks/fuzz_inputs.py --n 10000            # the full run (a few minutes, 1 core)
    python benchmarks/fuzz_inputs.py --n 400 --json out.json

``tests/test_fuzz_inputs.py`` runs a small sample of every target in pytest.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import gzip
import io
import json
import os
import signal
import sys
import tempfile
import time
import traceback
from collections import Counter
from pathlib import Path

import yaml
from hypothesis import HealthCheck, Phase, given, seed, settings
from hypothesis import strategies as st

REPO = Path(__file__).resolve().parents[1]
PAPERS = ("deeprm", "mdp", "mrsch", "runtime", "sem")
GZIP_MAGIC = b"\x1f\x8b"
#: each target's share of the inputs
SHARE = {"trace": 0.3, "config": 0.2, "spec": 0.2, "cli": 0.15, "env": 0.15}
OUTCOMES = ("ok", "rejected", "traceback", "hang", "accepted_wrong", "rejected_good", "multiline")


class Hang(BaseException):
    """Raised by the alarm when one input takes longer than the timeout."""


@contextlib.contextmanager
def _deadline(seconds: float):
    def on_alarm(signum, frame):
        raise Hang()

    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


# ------------------------------------------------------------------------------------ strategies
JUNK_TOKENS = ["nan", "NaN", "inf", "-inf", "Infinity", "abc", "1e400", "--1", "1..2", "0x10", "1,5",
               "+-3", "e5", ".", "-", "1e", "٣"]
HUGE_NUMBERS = ["1e18", "1e300", "9223372036854775807", "9223372036854775808", "1.7976931348623157e308",
                "4611686018427387904", "99999999999999999999999"]
NEG_NUMBERS = ["-1", "-2", "-5", "-1e9", "-0", "-0.5", "-9223372036854775808"]
BAD_HEADERS = ["; MaxProcs: abc", "; MaxProcs: -5", "; MaxProcs: 0", "; MaxProcs: 1e999", "; MaxProcs: nan",
               "; MaxProcs: 1e30", "; MaxNodes: -1", "; MaxProcs:", "; ExtraFields: 1bad",
               "; ExtraFields: a a", "; ExtraFields: job_id", "; ExtraFields: bb_request",
               "; ExtraFields: bb_request power_per_node", "; ExtraFields: x\n; ExtraFields: y",
               ";\x00", "; Note: \xff\xfe", "; MaxProcs: 4\n; MaxProcs: 8", "MaxProcs: 64", "# MaxProcs: 64"]


@st.composite
def swf_jobs(draw):
    n = draw(st.integers(1, 25))
    rows, t = [], 0
    for i in range(n):
        t += draw(st.integers(0, 500))
        run = draw(st.integers(1, 5000))
        procs = draw(st.integers(1, 64))
        req = run + draw(st.integers(0, 3000))
        rows.append([i + 1, t, -1, run, procs, -1, -1, procs, req, -1, 1, 1, 1, -1, 1, -1, -1, -1])
    return rows


def _text(rows, header="; MaxProcs: 64\n"):
    return header + "".join(" ".join(str(v) for v in row) + "\n" for row in rows)


@st.composite
def bad_trace(draw):
    """(bytes, kind, known_bad) for a trace file."""
    rows = draw(swf_jobs())
    kind = draw(st.sampled_from(["truncate", "binary", "drop_field", "add_field", "junk_token", "negative",
                                 "huge", "bad_header", "gzip_corrupt", "gzip_truncate", "gzip_ok",
                                 "random_bytes", "empty", "header_only", "crlf", "unsorted", "blank_lines",
                                 "oversize", "long_line"]))
    known_bad = False
    header = "; MaxProcs: 64\n"
    if kind == "drop_field" or kind == "add_field":
        r = draw(st.integers(0, len(rows) - 1))
        if kind == "drop_field":
            del rows[r][draw(st.integers(0, 17))]
        else:
            rows[r].insert(draw(st.integers(0, 18)), draw(st.integers(-5, 100)))
        known_bad = True
    elif kind in ("junk_token", "negative", "huge"):
        pool = {"junk_token": JUNK_TOKENS, "negative": NEG_NUMBERS, "huge": HUGE_NUMBERS}[kind]
        for _ in range(draw(st.integers(1, 3))):
            r, c = draw(st.integers(0, len(rows) - 1)), draw(st.integers(0, 17))
            rows[r][c] = draw(st.sampled_from(pool))
        known_bad = kind == "junk_token"
    elif kind == "bad_header":
        header = draw(st.sampled_from(BAD_HEADERS)) + "\n"
    elif kind == "unsorted":
        rows = rows[::-1]
    elif kind == "oversize":
        rows[draw(st.integers(0, len(rows) - 1))][7] = draw(st.sampled_from([65, 1000, 10**9]))
    data = _text(rows, header).encode("latin-1", errors="replace")
    if kind == "truncate":
        data = data[: draw(st.integers(0, len(data)))]
    elif kind == "binary":
        pos = draw(st.integers(len(header), len(data)))
        junk = draw(st.binary(min_size=1, max_size=16))
        data = data[:pos] + junk + data[pos:]
    elif kind.startswith("gzip"):
        data = gzip.compress(data, mtime=0)
        if kind == "gzip_corrupt":
            buf = bytearray(data)
            for _ in range(draw(st.integers(1, 8))):
                i = draw(st.integers(2, len(buf) - 1))
                buf[i] ^= draw(st.integers(1, 255))
            data = bytes(buf)
        elif kind == "gzip_truncate":
            data = data[: draw(st.integers(2, len(data) - 1))]
    elif kind == "random_bytes":
        data = draw(st.binary(min_size=0, max_size=400))
    elif kind == "empty":
        data = b""
    elif kind == "header_only":
        data = header.encode()
    elif kind == "crlf":
        data = data.replace(b"\n", b"\r\n")
    elif kind == "blank_lines":
        data = data.replace(b"\n", b"\n\n  \t\n")
    elif kind == "long_line":
        data += b"1 " * draw(st.integers(19, 5000)) + b"\n"
        known_bad = True
    return data, kind, known_bad


_SMOKE = None


def smoke_config() -> dict:
    global _SMOKE
    if _SMOKE is None:
        _SMOKE = yaml.safe_load((REPO / "config" / "smoke.yaml").read_text())
    return copy.deepcopy(_SMOKE)


def _paths(obj, prefix=()):
    """Every key path of a nested dict/list (leaves and inner nodes)."""
    out = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            out.append(prefix + (k,))
            out.extend(_paths(v, prefix + (k,)))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out.append(prefix + (i,))
            out.extend(_paths(v, prefix + (i,)))
    return out


def _get(obj, path):
    for p in path:
        obj = obj[p]
    return obj


def _category(v):
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return "number"
    if v is None:
        return "null"
    return type(v).__name__


WRONG_VALUES = ["x", "", [1], [], {"a": 1}, {}, None, True, False, 1.5, -1, 0, 10**30, float("nan"),
                float("inf"), "1e999", "-3"]


def _nullable(path) -> bool:
    """Whether the section schema lets the value at ``path`` (section, key, ...) be null (a block
    switched off, e.g. ``deeprm.deeprm_agent: null``): then None is no wrong type there."""
    schema_file = REPO / "workflow" / "schemas" / f"{path[0]}.schema.yaml"
    if not schema_file.is_file():
        return False
    node = yaml.safe_load(schema_file.read_text())
    for key in path[1:]:
        props = node.get("properties", {}) if isinstance(node, dict) else {}
        if key in props:
            node = props[key]
        elif isinstance(node, dict) and isinstance(node.get("additionalProperties"), dict):
            node = node["additionalProperties"]
        else:
            return False
    kinds = node.get("type", []) if isinstance(node, dict) else []
    return "null" in (kinds if isinstance(kinds, list) else [kinds])


@st.composite
def mutated_mapping(draw, base: dict, prefix: tuple = ()):
    """(mapping, kind, known_bad): one wrong-typed value, unknown key, dropped key, or unchanged.
    ``prefix``: where ``base`` stands in a config (a paper's section: its name), for the schema."""
    obj = copy.deepcopy(base)
    kind = draw(st.sampled_from(["wrong_type", "wrong_type", "unknown_key", "drop_key", "unchanged"]))
    paths = _paths(obj)
    known_bad = False
    if kind == "wrong_type" and paths:
        path = draw(st.sampled_from(paths))
        old = _get(obj, path)
        new = draw(st.sampled_from(WRONG_VALUES))
        _get(obj, path[:-1])[path[-1]] = new
        known_bad = _category(old) != _category(new) and not (new is None and _nullable(prefix + path))
        kind = f"wrong_type:{'.'.join(map(str, path))}={new!r}"
    elif kind == "unknown_key":
        dicts = [()] + [p for p in paths if isinstance(_get(obj, p), dict)]
        path = draw(st.sampled_from(dicts))
        _get(obj, path)["zz_not_a_key"] = 1
        known_bad = True
        kind = f"unknown_key:{'.'.join(map(str, path + ('zz_not_a_key',)))}"
    elif kind == "drop_key" and paths:
        path = draw(st.sampled_from([p for p in paths if isinstance(_get(obj, p[:-1]), dict)] or paths))
        parent = _get(obj, path[:-1])
        if isinstance(parent, dict):
            del parent[path[-1]]
        kind = f"drop_key:{'.'.join(map(str, path))}"
    return obj, kind, known_bad


def _yaml(obj) -> str:
    return yaml.safe_dump(obj, sort_keys=False)


SYNTAX_JUNK = [":", "[", "{", "]", "}", "\t", '"', "'", "&", "*", "!", "%", "@", "`", "- ", ": :", "\x00",
               "\xff", "\n  bad", "? ", "|", ">", "#", ",", "---\n", "...\n"]
ALIAS_BOMB = ("a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
              "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
              "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\n"
              "g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]\nh: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g]\n")


@st.composite
def config_text(draw):
    """(bytes, kind, known_bad) for a whole config file."""
    form = draw(st.sampled_from(["mapping", "mapping", "syntax", "json", "json_syntax", "top_level",
                                 "binary", "alias_bomb", "truncate"]))
    if form in ("mapping", "json"):
        obj, kind, bad = draw(mutated_mapping(smoke_config()))
        try:  # JSON's NaN / Infinity would read back as YAML strings: those go out as YAML (.nan)
            text = json.dumps(obj, allow_nan=False) if form == "json" else _yaml(obj)
        except ValueError:
            form, text = "mapping", _yaml(obj)
        return text.encode(), f"{form}:{kind}", bad
    if form == "syntax" or form == "json_syntax":
        text = json.dumps(smoke_config()) if form == "json_syntax" else _yaml(smoke_config())
        for _ in range(draw(st.integers(1, 3))):
            pos = draw(st.integers(0, len(text)))
            text = text[:pos] + draw(st.sampled_from(SYNTAX_JUNK)) + text[pos:]
        return text.encode("utf-8", errors="surrogateescape"), form, False
    if form == "top_level":
        return draw(st.sampled_from([b"", b"[]", b"- a\n- b\n", b"42\n", b"null\n", b"'text'\n", b"---\n",
                                     b"workloads\n", b"{}\n", b"true"])), form, False
    if form == "alias_bomb":
        return ALIAS_BOMB.encode(), form, True
    if form == "truncate":
        text = _yaml(smoke_config()).encode()
        return text[: draw(st.integers(0, len(text)))], form, False
    return draw(st.binary(max_size=300)), form, False


@st.composite
def spec_input(draw):
    """(paper, how, payload, kind, known_bad, good): a ``--spec`` argument and how it is given."""
    paper = draw(st.sampled_from(PAPERS))
    section = smoke_config()[paper]
    mutate = draw(st.booleans())
    if mutate:
        obj, kind, bad = draw(mutated_mapping(section, (paper,)))
        # the study's block is read by `schedrl tune` (tune_spec), which `schedrl config` and the config
        # target check; a rule's --spec reader leaves it alone, so a bad value there is no wrong accept
        bad = bad and ":tune." not in f":{kind.partition(':')[2]}"
    else:
        obj, kind, bad = section, "unchanged", False
    how = draw(st.sampled_from(["inline", "json_file", "yaml_file", "yaml_full", "json_full", "yml_ext",
                                "no_ext", "missing", "directory", "binary", "syntax", "inline_junk",
                                "empty_file", "list_file", "other_section"]))
    good = not mutate and how in ("inline", "json_file", "yaml_file", "yaml_full", "json_full", "yml_ext",
                                  "no_ext")
    if how in ("missing", "directory", "binary", "syntax", "inline_junk", "empty_file", "list_file",
               "other_section"):
        bad = True
    if how == "syntax":
        text = _yaml(obj)
        pos = draw(st.integers(0, len(text)))
        payload = (text[:pos] + draw(st.sampled_from(["[", "{", ": :", "\t", '"', "*x"])) + text[pos:]).encode()
        bad = False  # a corruption may still parse (e.g. inside a string)
    elif how == "binary":
        payload = draw(st.binary(min_size=1, max_size=200))
    elif how == "inline_junk":
        payload = draw(st.sampled_from(["", "{", "[1,2]", "null", "42", "\"x\"", "{'a': 1}", "-", "{}",
                                        "NaN", "{\"a\": NaN}"]))
    elif how == "list_file":
        payload = b"- 1\n- 2\n"
    elif how == "other_section":
        other = draw(st.sampled_from([p for p in PAPERS if p != paper]))
        payload = _yaml({other: smoke_config()[other]}).encode()
    elif how in ("yaml_full", "json_full"):
        cfg = smoke_config()
        cfg[paper] = obj
        payload = (_yaml(cfg) if how == "yaml_full" else json.dumps(cfg)).encode()
    elif how == "json_file" or how == "inline":
        payload = json.dumps(obj, allow_nan=True)
        payload = payload if how == "inline" else payload.encode()
    else:
        payload = _yaml(obj).encode() if how != "empty_file" else b""
    return paper, how, payload, kind, bad, good


# -------------------------------------------------------------------------------------- checks
def check_table(frame, raw: bytes) -> str | None:
    """An invariant the cleaned job table breaks, or None."""
    import numpy as np

    for col in ("submit_time", "run_time", "req_procs", "req_time"):
        values = frame[col].to_numpy(dtype=np.float64)
        if not np.all(np.isfinite(values)):
            return f"non-finite {col}"
    if (frame["run_time"] <= 0).any():
        return "non-positive run_time kept"
    if (frame["req_procs"] <= 0).any():
        return "non-positive req_procs kept"
    if (frame["submit_time"] < 0).any():
        return "negative submit_time kept"
    if len(frame) and not frame["submit_time"].is_monotonic_increasing:
        return "submit times not sorted"
    from schedrl.workloads.table import machine_size

    size = machine_size(frame)
    if size is not None and len(frame) and frame["req_procs"].max() > size:
        return f"job of {frame['req_procs'].max()} procs kept on a {size}-proc machine"
    return None


class Fuzzer:
    def __init__(self, workdir: Path, timeout: float = 10.0):
        self.workdir = Path(workdir)
        self.timeout = timeout
        self.counts: dict[str, Counter] = {}
        self.examples: dict[str, list] = {}
        self.n = 0
        self._setup()

    def _setup(self):
        w = self.workdir
        (w / "adir").mkdir(parents=True, exist_ok=True)
        rows = [[i + 1, i * 10, -1, 100 + i, 4, -1, -1, 4, 200 + i, -1, 1, 1, 1, -1, 1, -1, -1, -1] for i in range(30)]
        (w / "good.swf").write_text(_text(rows))
        (w / "binary.bin").write_bytes(bytes(range(256)) * 4)
        (w / "smoke.yaml").write_text((REPO / "config" / "smoke.yaml").read_text())
        self.good_trace = w / "good.swf"

    def record(self, target: str, outcome: str, detail) -> None:
        self.n += 1
        self.counts.setdefault(target, Counter())[outcome] += 1
        if outcome not in ("ok", "rejected"):
            ex = self.examples.setdefault(target, [])
            if len(ex) < 25:
                ex.append((outcome, detail))

    def call(self, fn):
        """Run fn under the deadline: ('ok', value) | ('rejected', msg) | ('traceback', tb) | ('hang', None)."""
        from schedrl.errors import SchedrlError

        try:
            with _deadline(self.timeout):
                return "ok", fn()
        except Hang:
            return "hang", None
        except SchedrlError as exc:
            msg = str(exc)
            return ("rejected", msg) if "\n" not in msg.strip() else ("multiline", msg)
        except Exception:  # noqa: BLE001 - counting every crash is the point
            return "traceback", traceback.format_exc(limit=6)

    # --- targets
    def trace(self, data: bytes, kind: str, known_bad: bool, i: int):
        import warnings

        from schedrl.workloads.swf import read_swf

        gz = ".gz" if data[:2] == GZIP_MAGIC and i % 2 else ""
        path = self.workdir / f"trace{i % 7}.swf{gz}"
        path.write_bytes(data)
        with warnings.catch_warnings(), contextlib.redirect_stderr(io.StringIO()):
            warnings.simplefilter("ignore")
            outcome, value = self.call(lambda: read_swf(path))
        detail = f"{kind}: {value if outcome != 'ok' else ''}"
        if outcome == "ok":
            broken = check_table(value, data)
            if known_bad:
                outcome, detail = "accepted_wrong", f"{kind}: accepted {data[:300]!r}"
            elif broken:
                outcome, detail = "accepted_wrong", f"{kind}: {broken}: {data[:300]!r}"
        elif outcome == "traceback":
            detail = f"{kind} {data[:200]!r}\n{value}"
        self.record("trace", outcome, detail)

    def config(self, data: bytes, kind: str, known_bad: bool, i: int):
        from schedrl.commands.config import check_config_file as load_config

        path = self.workdir / f"config{i % 5}.yaml"
        path.write_bytes(data)
        outcome, value = self.call(lambda: load_config(path))
        detail = f"{kind}: {value if outcome != 'ok' else ''}"
        if outcome == "ok" and known_bad:
            outcome = "accepted_wrong"
        if outcome == "traceback":
            detail = f"{kind} {data[:200]!r}\n{value}"
        self.record("config", outcome, detail)

    def spec(self, paper, how, payload, kind, known_bad, good, i: int):
        from schedrl.commands import load_spec  # every paper's section loader with its cross-key checks

        if how == "inline" or how == "inline_junk":
            arg = payload
        elif how == "missing":
            arg = str(self.workdir / "no_such_spec.yaml")
        elif how == "directory":
            arg = str(self.workdir / "adir")
        else:
            ext = {"json_file": ".json", "json_full": ".json", "yml_ext": ".yml", "no_ext": "",
                   "binary": ".bin"}.get(how, ".yaml")
            path = self.workdir / f"spec{i % 5}{ext}"
            path.write_bytes(payload)
            arg = str(path)
        outcome, value = self.call(lambda: load_spec(paper, arg))
        detail = f"{paper} {how} {kind}: {value if outcome != 'ok' else ''}"
        if outcome == "ok" and known_bad:
            outcome = "accepted_wrong"
        if outcome == "ok" and good and value != smoke_config()[paper]:
            outcome, detail = "accepted_wrong", f"{paper} {how}: section read back differs"
        if outcome == "rejected" and good:
            outcome = "rejected_good"
        if outcome == "traceback":
            detail = f"{paper} {how} {kind} {str(payload)[:200]}\n{value}"
        self.record("spec", outcome, detail)

    def cli(self, argv: list[str], known_bad: bool):
        from schedrl.cli import main

        err = io.StringIO()

        def run():
            try:
                with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
                    return main(list(argv))
            except SystemExit as exc:  # argparse
                return exc.code if isinstance(exc.code, int) else 2

        cwd = os.getcwd()
        os.chdir(self.workdir)
        try:
            outcome, value = self.call(run)
        finally:
            os.chdir(cwd)
        lines = [ln for ln in err.getvalue().splitlines() if ln.strip() and "warning" not in ln.lower()]
        if outcome == "ok":
            if value != 0:
                outcome = "rejected" if len(lines) <= 1 else "multiline"
            elif known_bad:
                outcome = "accepted_wrong"
        detail = f"{argv}: {value if outcome == 'traceback' else err.getvalue()[-500:]}"
        self.record("cli", outcome, detail)

    def env(self, env_id: str, kwargs: dict):
        """Make the env with one keyword drawn from junk (over a good trace and machine for the HPC
        envs, which need them), reset it and take one step."""
        import warnings

        from schedrl.experiments.envs import make_env

        if env_id != "schedrl/DeepRM-v0":
            kwargs = {"jobs": str(self.good_trace), "cluster": 64, **kwargs}

        def run():
            env = make_env(env_id, kwargs)
            env.reset(seed=0)
            env.step(env.action_space.sample())

        with warnings.catch_warnings(), contextlib.redirect_stderr(io.StringIO()):
            warnings.simplefilter("ignore")
            outcome, value = self.call(run)
        self.record("env", outcome, f"{env_id} {kwargs!r}: {value if outcome != 'ok' else ''}")


# ------------------------------------------------------------------------------------ CLI argv
def cli_templates(w: Path) -> list[list[str]]:
    spec = str(w / "smoke.yaml")
    t = [
        ["simulate", "TRACE", "--nodes", "64", "--max-jobs", "50", "--metrics", "m.json", "--schedule", "s.csv"],
        ["simulate", "TRACE", "--policy", "sjf", "--backfill", "conservative", "--sim-step", "10",
         "--metrics", "m.json", "--schedule", "s.csv"],
        ["heuristics", "run", "TRACE", "--nodes", "64", "--algorithms", "fcfs:easy", "sjf:none", "--out", "h.csv"],
        ["workload", "info", "TRACE"],
        ["workload", "split", "TRACE", "--scheme", "halves", "--out-dir", "split"],
        ["workload", "generate", "--preset", "lublin256", "--n-jobs", "50", "--seed", "1", "--out", "g.swf"],
        ["config", spec],
        ["budget", "--config", spec, "--benchmarks", "bench"],
        ["figures", "--root", "nores", "--format", "csv"],
        ["report", "--claims", "c.csv", "--out", "r.md"],
        ["evaluate", "--run-dir", "adir", "--episodes", "2", "--out", "e.csv"],
        ["train", "--help"],
    ]
    for paper in PAPERS:
        t.append([paper, "claims", "--spec", spec, "--root", "nores", "--out", f"{paper}.csv"])
    return t


CLI_JUNK = ["", "-1", "0", "nan", "inf", "1e400", "-1e9", "abc", "99999999999999999999", "--", "-",
            "--nope", "a=b", "=", "{", "/", "/dev/null", "adir", "no_such_file.swf", "binary.bin", "\x7f",
            "-h", "2.5", "sjf:easy:x", ":", "fcfs:", "TRACE"]


@st.composite
def cli_argv(draw, templates):
    argv = list(draw(st.sampled_from(templates)))
    kind = draw(st.sampled_from(["replace", "replace", "delete", "insert", "trace", "many"]))
    known_bad = False
    if kind in ("replace", "many"):
        for _ in range(1 if kind == "replace" else draw(st.integers(2, 4))):
            pos = draw(st.integers(1, len(argv) - 1)) if len(argv) > 1 else 0
            argv[pos] = draw(st.sampled_from(CLI_JUNK))
    elif kind == "delete" and len(argv) > 1:
        del argv[draw(st.integers(1, len(argv) - 1))]
    elif kind == "insert":
        argv.insert(draw(st.integers(1, len(argv))), draw(st.sampled_from(["--nope", "--nodes", "-x", "extra"])))
    trace = draw(bad_trace()) if kind == "trace" else None
    return argv, trace, known_bad


# ------------------------------------------------------------------------------ env keyword arguments
ENVS = {"schedrl/DeepRM-v0": "schedrl.envs.deeprm:DeepRMEnv",
        "schedrl/HPCPickReserve-v0": "schedrl.envs.pick_reserve:PickReserveEnv",
        "schedrl/HPCTimeStepped-v0": "schedrl.envs.time_stepped:TimeSteppedPickEnv"}
# what ``--env-kwarg KEY=VALUE`` reads (YAML) from the CLI's junk, and values of other types; sizes so
# large that the grid cannot be allocated are left out: memory is the user's to size
ENV_JUNK = [v for v in CLI_JUNK if v != "99999999999999999999"] + [None, True, False, [1, 2], {"a": 1}, -3, 0.5,
                                                                       float("nan"), float("inf")]


def env_keywords() -> dict[str, list[str]]:
    """Every env's constructor keywords, its base classes' (``**kwargs`` passed up) included."""
    import importlib
    import inspect

    out = {}
    for env_id, entry in ENVS.items():
        module, _, name = entry.partition(":")
        cls, names = getattr(importlib.import_module(module), name), []
        for klass in cls.__mro__:
            if "__init__" in vars(klass) and klass is not object:
                names += [p.name for p in inspect.signature(klass.__init__).parameters.values()
                          if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
                          and p.name not in names]
        out[env_id] = names
    return out


@st.composite
def env_kwargs(draw, keywords):
    env_id = draw(st.sampled_from(sorted(keywords)))
    key = draw(st.sampled_from(keywords[env_id]))
    value = draw(st.sampled_from(ENV_JUNK))
    if isinstance(value, str):  # as ``parse_pairs`` reads it (where it is YAML at all)
        with contextlib.suppress(yaml.YAMLError):
            value = yaml.safe_load(value) if value.strip() else None
    return env_id, {key: value}


# ----------------------------------------------------------------------------------------- run
def _run_strategy(strategy, n: int, body, seed_value: int):
    if n <= 0:
        return

    @seed(seed_value)
    @settings(max_examples=n, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def go(example):
        body(example)

    go()


def run_fuzz(n: int, workdir: Path, timeout: float = 10.0, seed_value: int = 0, share=None, verbose=False) -> Fuzzer:
    share = share or SHARE
    fz = Fuzzer(workdir, timeout)
    counter = {"i": 0}

    def nxt():
        counter["i"] += 1
        return counter["i"]

    plan = {k: max(1, round(n * v)) for k, v in share.items()}
    t0 = time.process_time()
    _run_strategy(bad_trace(), plan.get("trace", 0), lambda ex: fz.trace(*ex, nxt()), seed_value)
    _run_strategy(config_text(), plan.get("config", 0), lambda ex: fz.config(*ex, nxt()), seed_value + 1)
    _run_strategy(spec_input(), plan.get("spec", 0), lambda ex: fz.spec(*ex, nxt()), seed_value + 2)
    templates = cli_templates(fz.workdir)

    def cli_body(ex):
        argv, trace, known_bad = ex
        i = nxt()
        if trace is not None:
            path = fz.workdir / f"cli_trace{i % 3}.swf"
            path.write_bytes(trace[0])
            argv = [str(path) if a == "TRACE" else a for a in argv]
        argv = [str(fz.good_trace) if a == "TRACE" else a for a in argv]
        fz.cli(argv, known_bad)

    _run_strategy(cli_argv(templates), plan.get("cli", 0), cli_body, seed_value + 3)
    _run_strategy(env_kwargs(env_keywords()), plan.get("env", 0), lambda ex: fz.env(*ex), seed_value + 4)
    fz.cpu_s = time.process_time() - t0
    return fz


def summary(fz: Fuzzer) -> dict:
    total = Counter()
    for c in fz.counts.values():
        total.update(c)
    return {"inputs": fz.n, "cpu_s": round(getattr(fz, "cpu_s", 0.0), 1),
            "by_target": {k: {o: v.get(o, 0) for o in OUTCOMES} for k, v in fz.counts.items()},
            "total": {o: total.get(o, 0) for o in OUTCOMES},
            "examples": fz.examples}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--n", type=int, default=10000, help="inputs in all (default: %(default)s)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--timeout", type=float, default=20.0, help="seconds before an input counts as a hang")
    p.add_argument("--targets", default=",".join(SHARE))
    p.add_argument("--json", metavar="FILE", help="write the counts and examples here")
    args = p.parse_args(argv)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    share = {k: v for k, v in SHARE.items() if k in args.targets.split(",")}
    total = sum(share.values())
    share = {k: v / total for k, v in share.items()}
    with tempfile.TemporaryDirectory(prefix="schedrl-fuzz-") as tmp:
        fz = run_fuzz(args.n, Path(tmp), args.timeout, args.seed, share)
    s = summary(fz)
    print(f"{s['inputs']} inputs in {s['cpu_s']} s CPU")
    print(f"{'target':8s} " + " ".join(f"{o:>14s}" for o in OUTCOMES))
    for k, c in s["by_target"].items():
        print(f"{k:8s} " + " ".join(f"{c[o]:>14d}" for o in OUTCOMES))
    print(f"{'total':8s} " + " ".join(f"{s['total'][o]:>14d}" for o in OUTCOMES))
    for k, ex in s["examples"].items():
        for outcome, detail in ex[:8]:
            print(f"--- {k} {outcome}: {str(detail)[:1500]}")
    if args.json:
        Path(args.json).write_text(json.dumps(s, indent=2, default=str) + "\n")
    bad = s["total"]["traceback"] + s["total"]["hang"]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
