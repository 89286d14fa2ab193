"""The pipeline's code-path pins (issue 61): set once when schedrl is imported, before any kernel runs,
never over the caller's own setting, with one opt-out; torch then takes the AVX2 path."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from schedrl import codepaths

AVX2 = "processor\t: 0\nflags\t\t: fpu sse sse2 avx avx2 fma\n"
AVX512 = "flags\t\t: fpu sse sse2 avx avx2 fma avx512f avx512bw avx512vl\n"
NO_AVX2 = "flags\t\t: fpu sse sse2 sse4_2 avx\n"


@pytest.mark.parametrize("cpuinfo", [AVX2, AVX512])
def test_pins_set_on_avx2_machines(cpuinfo):
    env = {}
    assert codepaths.apply(env, cpuinfo) == codepaths.PINS
    assert env == {"ATEN_CPU_CAPABILITY": "avx2", "ONEDNN_MAX_CPU_ISA": "AVX2"}


def test_callers_own_setting_wins_and_only_the_rest_is_added():
    env = {"ATEN_CPU_CAPABILITY": "default"}
    assert codepaths.apply(env, AVX512) == {"ONEDNN_MAX_CPU_ISA": "AVX2"}
    assert env["ATEN_CPU_CAPABILITY"] == "default"


@pytest.mark.parametrize("value, pinned", [("1", False), ("yes", False), ("0", True), ("", True)])
def test_opt_out(value, pinned):
    env = {codepaths.OPT_OUT: value}
    codepaths.apply(env, AVX512)
    assert ("ATEN_CPU_CAPABILITY" in env) is pinned


def test_the_machine_kind_is_told_by_the_cpu_not_by_pinned_torch():
    """After the pins torch says AVX2 everywhere; bench_machine tells the kinds apart by the CPU's
    flags (2026-11-29: it had called an AVX-512 machine the slower kind)."""
    assert [codepaths.native_capability(c) for c in (AVX512, AVX2, NO_AVX2)] == ["AVX512", "AVX2", "DEFAULT"]
    benchmarks = str(Path(__file__).resolve().parents[1] / "benchmarks")
    sys.path.insert(0, benchmarks)
    try:
        import bench_machine
    finally:
        sys.path.remove(benchmarks)
    assert not bench_machine.is_slower_kind(codepaths.native_capability(AVX512), 104.0)
    assert bench_machine.is_slower_kind(codepaths.native_capability(AVX2), 104.0)


def test_nothing_pinned_without_avx2():
    # torch would run AVX2 code on a CPU that cannot: the pin must not be set there
    env = {}
    assert codepaths.apply(env, NO_AVX2) == {} and env == {}
    assert codepaths.cpu_flags("no flags line here") == set()


CAPABILITY = "import schedrl, torch, json, os; print(json.dumps([torch.backends.cpu.get_cpu_capability(), " \
             "os.environ.get('ONEDNN_MAX_CPU_ISA')]))"


def _capability(code: str, **env) -> list:
    full = {k: v for k, v in os.environ.items() if k not in (*codepaths.PINS, codepaths.OPT_OUT)}
    out = subprocess.run([sys.executable, "-c", code], env={**full, **env}, capture_output=True, text=True,
                         check=True)
    return __import__("json").loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.skipif(not codepaths.cpu_has_avx2(), reason="the pins act only on x86 CPUs with AVX2")
def test_importing_schedrl_puts_torch_on_the_avx2_path():
    assert _capability(CAPABILITY) == ["AVX2", "AVX2"]
    # torch imported first still reads the pin: it chooses its kernels' path at the first kernel call
    assert _capability(CAPABILITY.replace("import schedrl, torch", "import torch, schedrl"))[0] == "AVX2"
    native, isa = _capability(CAPABILITY, SCHEDRL_NO_PINS="1")
    assert isa is None and native in (("AVX2", "AVX512") if "avx512f" in codepaths.cpu_flags() else ("AVX2",))


def test_describe_names_the_pins_in_effect():
    got = codepaths.describe({"ATEN_CPU_CAPABILITY": "avx2", codepaths.OPT_OUT: "0"})
    assert got["pins"] == {"ATEN_CPU_CAPABILITY": "avx2"} and got["opted_out"] is False
