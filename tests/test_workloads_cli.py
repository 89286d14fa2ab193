"""``schedrl workload`` end to end: byte-identical reruns, one-line errors, figures, splits."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from schedrl.cli import main
from schedrl.workloads.swf import read_swf

TRACES = Path(__file__).resolve().parents[2] / "shared" / "traces"


def _run(*argv) -> int:
    return main([str(a) for a in argv])


def test_generate_is_byte_identical_on_rerun(tmp_path):
    for wra in ("100", "050", "rnd"):
        a, b = tmp_path / f"a_{wra}.swf", tmp_path / f"b_{wra}.swf"
        for out in (a, b):
            assert _run("workload", "generate", "--preset", "wl2", "--wra", wra, "--half", "a", "--seed", 4,
                        "--out", out) == 0
        assert a.read_bytes() == b.read_bytes()
    assert (tmp_path / "a_100.swf").read_bytes() != (tmp_path / "a_rnd.swf").read_bytes()
    frame = read_swf(tmp_path / "a_050.swf")
    assert len(frame) == 1000 and (frame["run_time"] <= frame["req_time"]).all()


def test_generate_out_dir_writes_every_wra_and_half_from_one_base(tmp_path):
    assert _run("workload", "generate", "--preset", "wl1", "--wra", "100", "050", "rnd", "--half", "a", "b",
                "--seed", 2, "--out-dir", tmp_path) == 0
    names = sorted(p.name for p in tmp_path.glob("*.swf"))
    assert names == sorted(f"wl1_{w}{h}.swf" for w in ("100", "050", "rnd") for h in ("a", "b"))
    single = tmp_path / "single.swf"
    assert _run("workload", "generate", "--preset", "wl1", "--wra", "rnd", "--half", "b", "--seed", 2,
                "--out", single) == 0
    assert single.read_bytes() == (tmp_path / "wl1_rndb.swf").read_bytes()
    a100, b050 = read_swf(tmp_path / "wl1_100a.swf"), read_swf(tmp_path / "wl1_050b.swf")
    full = read_swf(tmp_path / "wl1_100b.swf")
    assert (b050["req_time"] == full["req_time"]).all() and len(a100) == 1000
    assert _run("workload", "generate", "--preset", "wl1", "--wra", "100", "050", "--out", single) == 2


def test_generate_overrides_and_errors(tmp_path, capsys):
    out = tmp_path / "x.swf.gz"
    assert _run("workload", "generate", "--preset", "lublin256", "--n-jobs", 300, "--set", "max_nodes=64",
                "--out", out) == 0
    assert read_swf(out)["req_procs"].max() <= 64
    assert _run("workload", "generate", "--preset", "lublin256", "--set", "bogus=1", "--out", out) == 2
    assert _run("workload", "generate", "--preset", "nope", "--out", out) == 2
    bad = tmp_path / "bad.swf"
    bad.write_text("; MaxNodes: 4\n1 0 0 10 1\n")
    assert _run("workload", "info", bad) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == f"schedrl workload: error: {bad}:2: expected 18 SWF fields, found 5 fields"


def test_trace_stand_in_extend_split_plot(tmp_path):
    base = tmp_path / "theta.swf"
    assert _run("workload", "trace", "theta_2022.swf", "--dirs", tmp_path / "none", "--stand-in-jobs", 1500,
                "--out", base) == 0
    frame = read_swf(base)
    assert frame.attrs["header"]["StandIn"] == "theta_like for theta_2022.swf"
    s5 = tmp_path / "S5.swf"
    assert _run("workload", "extend", base, "--scenario", "S5", "--out", s5) == 0
    assert read_swf(s5)["req_procs"].min() == 64  # 128-node minimum halved
    io = tmp_path / "io.csv"
    io.write_text("io_bytes\n7e12\n3e13\n")
    assert _run("workload", "extend", base, "--scenario", "S1", "--io-csv", io, "--out", tmp_path / "s1.swf") == 0
    assert _run("workload", "extend", base, "--scenario", "S2", "S7", "--out-dir", tmp_path / "mr",
                "--mrsch-split", "--train-months", 0.5, "--val-days", 5, "--total-months", 0) == 0
    assert (tmp_path / "mr" / "S7.swf").exists()
    counts = json.loads((tmp_path / "mr" / "S2" / "split.json").read_text())["counts"]
    assert sum(counts.values()) == 1500
    assert _run("workload", "split", s5, "--scheme", "sem", "--train-jobs", 600, "--episode-jobs", 100,
                "--val-jobs", 100, "--test-jobs", 300, "--out-dir", tmp_path / "sem") == 0
    manifest = json.loads((tmp_path / "sem" / "split.json").read_text())
    assert manifest["counts"] == {"train": 600, "val": 100, "test": 300} and manifest["stand_in"]
    assert len(read_swf(tmp_path / "sem" / "test.swf")) == 300
    png = tmp_path / "fig" / "theta.png"
    assert _run("workload", "plot", base, "--out", png) == 0
    assert png.exists() and png.with_suffix(".pdf").exists()
    data = pd.read_csv(png.with_suffix(".csv"))
    assert set(data["panel"]) == {"size", "runtime", "interarrival", "load"}
    assert abs(data.loc[data["panel"] == "size", "y"].sum() - 1) < 1e-9


@pytest.mark.skipif(not (TRACES / "theta_2022.swf").exists(), reason="theta_2022.swf not available")
def test_real_trace_months_and_mrsch_split(tmp_path):
    out = tmp_path / "theta5.swf"
    assert _run("workload", "trace", "theta_2022.swf", "--dirs", TRACES, "--months", 5, "--out", out) == 0
    frame = read_swf(out)
    assert "StandIn" not in frame.attrs["header"]
    span = (frame["submit_time"].iloc[-1] - frame["submit_time"].iloc[0]) / 86400
    assert 140 < span <= 153
    assert _run("workload", "split", out, "--scheme", "mrsch", "--out-dir", tmp_path / "m") == 0
    counts = json.loads((tmp_path / "m" / "split.json").read_text())["counts"]
    assert sum(counts.values()) == len(frame) and all(v > 0 for v in counts.values())
