"""SWF reader/writer and cleaning rules."""

from __future__ import annotations

import gzip
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schedrl.errors import ConfigError, InputFileError
from schedrl.workloads.clean import CLEANING_KEYS, UnsortedSubmitWarning, clean_jobs
from schedrl.workloads.swf import format_swf, parse_swf_text, read_swf, write_swf
from schedrl.workloads.table import EXT_FIELDS, SWF_FIELDS, machine_size, new_table

TRACES = Path(__file__).resolve().parents[2] / "shared" / "traces"
HEADER = """; Version: 2.2
; Computer: Test machine
; Information: http://example.org/
;              http://www.cs.huji.ac.il/labs/parallel/workload/
; MaxNodes: 8
; MaxProcs: 16 (8, 8)
; Queue: 0  interactive
; Queue: 1  batch (long)
; Note: first note
;       continues here
"""


def _line(*values):
    vals = list(values) + [-1] * (18 - len(values))
    return " ".join(str(v) for v in vals)


def _write(tmp_path, text, name="t.swf"):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_parse_fields_and_header(tmp_path):
    text = HEADER + _line(1, 0, 5, 100, 4, 12.5, -1, 4, 200) + "\n" + _line(2, 10, 0, 50, 2, -1, -1, 2, 60) + "\n"
    frame = read_swf(_write(tmp_path, text), clean=False)
    assert list(frame.columns) == list(SWF_FIELDS)
    assert frame["run_time"].tolist() == [100, 50]
    assert frame["run_time"].dtype == np.int64
    assert frame["avg_cpu_time"].dtype == np.float64 and frame["avg_cpu_time"][0] == 12.5
    header = frame.attrs["header"]
    assert header["MaxNodes"] == "8"
    assert header["Queue"] == ["0  interactive", "1  batch (long)"]
    assert header["Information"] == "http://example.org/\nhttp://www.cs.huji.ac.il/labs/parallel/workload/"
    assert header["Note"] == "first note\ncontinues here"
    assert machine_size(frame) == 16


def test_round_trip_exact_with_extensions_and_gzip(tmp_path):
    rng = np.random.default_rng(1)
    n = 50
    frame = new_table(n, submit_time=np.sort(rng.integers(0, 10_000, n)), run_time=rng.integers(1, 500, n),
                      req_procs=rng.integers(1, 9, n), req_time=rng.integers(500, 900, n),
                      avg_cpu_time=rng.random(n) * 100,
                      bb_request=np.where(rng.random(n) < 0.5, rng.integers(5, 285, n), np.nan),
                      power_per_node=rng.uniform(100, 215, n))
    frame.attrs["header"] = {"MaxNodes": "8", "Note": ["a", "b\nc"]}
    for name in ("x.swf", "x.swf.gz"):
        path = write_swf(frame, tmp_path / name)
        back = read_swf(path, clean=False)
        pd.testing.assert_frame_equal(back, frame)
        assert back.attrs["header"] == frame.attrs["header"]
        assert format_swf(back) == format_swf(frame)
    raw = (tmp_path / "x.swf").read_text()
    assert "; ExtraFields: bb_request power_per_node\n" in raw
    data = [ln for ln in raw.splitlines() if not ln.startswith(";")]
    assert all(len(ln.split()) == 20 for ln in data)
    assert gzip.decompress((tmp_path / "x.swf.gz").read_bytes()).decode() == raw
    # gzip output is reproducible byte for byte
    first = (tmp_path / "x.swf.gz").read_bytes()
    write_swf(frame, tmp_path / "x.swf.gz")
    assert (tmp_path / "x.swf.gz").read_bytes() == first


@pytest.mark.parametrize("name", ["lublin_256.swf", "theta_2022.swf", "SDSC-SP2-1998-4.2-cln.swf.gz"])
def test_real_traces_round_trip(name):
    path = TRACES / name
    if not path.exists():
        pytest.skip(f"{path} not available")
    frame = read_swf(path, clean=False)
    text = format_swf(frame)
    back = parse_swf_text(text)
    pd.testing.assert_frame_equal(back, frame)
    assert back.attrs["header"] == frame.attrs["header"]
    # every data value survives: compare with a plain whitespace split of the original
    opener = gzip.open if name.endswith(".gz") else open
    with opener(path, "rt", encoding="latin-1") as fh:
        rows = [ln.split() for ln in fh if ln.strip() and not ln.lstrip().startswith(";")]
    assert len(rows) == len(frame)
    np.testing.assert_array_equal(np.array(rows, dtype=float), frame[list(SWF_FIELDS)].to_numpy(float))


@pytest.mark.parametrize("text,line,reason", [
    (_line(1, 0, 0, 5, 1) + "\n" + "1 2 3\n", 2, "expected 18 SWF fields, found 3"),
    ("; MaxNodes: 4\n\n" + _line(1, 0, 0, "x5", 1) + "\n", 3, "unexpected character 'x'"),
    (_line(1, 0, 0, 5, 1) + "\n" + _line(2, 0, 0, "1-2", 1) + "\n", 2, "field 4 (run_time)"),
    (_line(1, 0, 0, "1e999", 1) + "\n", 1, "not a finite number"),
    (_line(1, 0, 0, "nan", 1) + "\n", 1, "unexpected character"),
    ("; ExtraFields: bb_request\n" + _line(1, 0, 0, 5, 1) + "\n", 2, "18 SWF fields + 1 extra"),
    ("; ExtraFields: run_time\n" + _line(1, 0, 0, 5, 1) + "\n", 1, "bad extra field name"),
])
def test_malformed_lines_name_file_and_line(tmp_path, text, line, reason):
    path = _write(tmp_path, text)
    with pytest.raises(InputFileError) as err:
        read_swf(path, clean=False)
    assert err.value.line == line
    assert reason in str(err.value)
    assert str(err.value).startswith(f"{path}:{line}: ")


def test_missing_file_and_bad_gzip(tmp_path):
    with pytest.raises(InputFileError, match="no such file"):
        read_swf(tmp_path / "nope.swf")
    bad = tmp_path / "bad.swf.gz"
    bad.write_bytes(b"\x1f\x8b\x08\x00garbage")
    with pytest.raises(InputFileError, match="corrupt gzip"):
        read_swf(bad)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=400))
def test_random_bytes_parse_or_clear_error(tmp_path, blob):
    path = tmp_path / "fuzz.swf"
    path.write_bytes(blob)
    try:
        frame = read_swf(path, clean=False)
    except InputFileError as exc:
        assert str(exc).startswith(str(path))
    else:
        assert list(frame.columns)[:18] == list(SWF_FIELDS)


_token = st.one_of(st.integers(-5, 10**6).map(str), st.sampled_from(["-1", "1.5", "x", "", "1e3", "-", ";c"]))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.lists(_token, min_size=15, max_size=20).map(" ".join), max_size=8))
def test_random_lines_parse_or_clear_error(tmp_path, lines):
    path = tmp_path / "fuzz.swf"
    path.write_text("\n".join(lines))
    try:
        frame = read_swf(path)
    except InputFileError as exc:
        assert exc.line is None or 1 <= exc.line <= max(len(lines), 1)
    else:
        assert (frame["run_time"] > 0).all() and (frame["req_procs"] > 0).all()


_header_text = st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=30)
_header_value = st.one_of(
    _header_text.map(str.strip),
    st.lists(_header_text.map(str.strip), min_size=1, max_size=3).map("\n".join),
)


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(0, 30),
    seed=st.integers(0, 2**32 - 1),
    header=st.dictionaries(st.from_regex(r"[A-Z][A-Za-z0-9_]{0,12}", fullmatch=True),
                           st.one_of(_header_value, st.lists(_header_value, min_size=2, max_size=3)),
                           max_size=5),
    extras=st.sets(st.sampled_from(EXT_FIELDS)),
)
def test_round_trip_property(n, seed, header, extras):
    """Random tables (int and fractional fields, NaN extension values) and headers survive exactly."""
    header.pop("ExtraFields", None)
    rng = np.random.default_rng(seed)
    cols = {name: rng.integers(-1, 10**9, n) for name in SWF_FIELDS[1:]}
    cols["avg_cpu_time"] = np.round(rng.random(n) * 1e4, int(rng.integers(0, 6))) if n else np.zeros(0)
    for name in extras:
        cols[name] = np.where(rng.random(n) < 0.3, np.nan, rng.random(n) * 10 ** rng.integers(0, 6))
    frame = new_table(n, **cols)
    # header values: lines are stripped on write, empty continuation lines dropped
    clean = {k: ([_norm(x) for x in v] if isinstance(v, list) else _norm(v)) for k, v in header.items()}
    frame.attrs["header"] = clean
    text = format_swf(frame)
    back = parse_swf_text(text)
    pd.testing.assert_frame_equal(back, frame)
    assert back.attrs["header"] == clean
    assert format_swf(back) == text


def _norm(value: str) -> str:
    return "\n".join(p.strip() for p in value.split("\n") if p.strip())


# ----------------------------------------------------------------------------------------- cleaning
def _table():
    # job: submit run alloc req_procs req_time
    rows = [
        (1, 4, 100, 4, -1, -1),     # fills req_procs and req_time
        (2, 5, 0, 2, 2, 60),        # zero runtime: dropped
        (3, 6, 50, -1, -1, 60),     # no size at all: dropped
        (4, 7, 50, 32, 32, 60),     # larger than the 16-proc machine
        (5, 3, 500, 2, 2, 60),      # runtime over request; also out of order
        (6, -1, 10, 1, 1, 60),      # no submit time
    ]
    cols = np.array(rows)
    frame = new_table(len(rows), job_id=cols[:, 0], submit_time=cols[:, 1], run_time=cols[:, 2],
                      alloc_procs=cols[:, 3], req_procs=cols[:, 4], req_time=cols[:, 5])
    frame.attrs["header"] = {"MaxProcs": "16"}
    return frame


def test_cleaning_rules_are_counted():
    with pytest.warns(UnsortedSubmitWarning):
        out = clean_jobs(_table(), over_request="raise")
    c = out.attrs["cleaning"]
    assert set(c) == set(CLEANING_KEYS)
    assert (c["filled_req_procs"], c["filled_req_time"]) == (1, 1)
    assert c["dropped_nonpositive_runtime"] == 1 and c["dropped_nonpositive_size"] == 1
    assert c["dropped_missing_submit"] == 1
    assert c["oversize_dropped"] == 1 and c["over_request_raised"] == 1 and c["sorted"] == 1
    assert out["job_id"].tolist() == [5, 1]
    assert out["req_time"].tolist() == [500, 100]
    assert (c["input_jobs"], c["output_jobs"]) == (6, 2)
    assert out.attrs["header"] == {"MaxProcs": "16"}


def test_cleaning_options():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnsortedSubmitWarning)
        clip = clean_jobs(_table(), oversize="clip")  # over_request="keep" is the default (PWA)
        assert clip.attrs["cleaning"]["oversize_clipped"] == 1
        assert clip.loc[clip["job_id"] == 4, "req_procs"].item() == 16
        assert clip.loc[clip["job_id"] == 5, "req_time"].item() == 60
        assert clip.attrs["cleaning"]["over_request_kept"] == 1
        dropped = clean_jobs(_table(), over_request="drop", max_procs=64)
        assert 5 not in dropped["job_id"].tolist() and 4 in dropped["job_id"].tolist()
        with pytest.raises(InputFileError, match="job 4 requests 32 processors"):
            clean_jobs(_table(), oversize="error")
        with pytest.raises(ConfigError):
            clean_jobs(_table(), oversize="shrink")


def test_new_table_defaults():
    t = new_table(3, run_time=[1, 2, 3])
    assert t["job_id"].tolist() == [1, 2, 3]
    assert (t["wait_time"] == -1).all()
    assert not set(EXT_FIELDS) & set(t.columns)
    with pytest.raises(ValueError):
        new_table(1, bogus=[1])
