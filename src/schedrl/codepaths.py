"""The math libraries' code paths, pinned so that the same config and seed give the same files on
both x86 machine kinds (issue 61; docs/reliability.md).

torch's own kernels dispatch on the CPU's vector width (AVX2 or AVX-512) and oneDNN picks its ISA the
same way; on an AVX-512 machine both round differently from an AVX2 one, and RL training carries the
last bit into a different agent. Capping both at AVX2 (the path an AVX2 machine takes anyway) makes
every golden trainer's weights identical on the two kinds measured (tests/golden/hashes.json) at a
cost measured by ``benchmarks/bench_pins.py``. MKL's branch is left as MKL chooses it: its only
cross-vendor branch (``MKL_CBWR=COMPATIBLE``) costs up to 41%, and on the AMD machines measured its
own choice already agreed.

The pins are environment variables the libraries read once, when they first run a kernel, so they
are set here, when ``schedrl`` is imported (the CLI, ``python -m schedrl.<module>``, Snakemake and SLURM jobs,
the tests all import it before torch). A variable the caller already set wins. ``SCHEDRL_NO_PINS=1``
opts out: every library then takes the path its CPU selects.
"""

from __future__ import annotations

import os
import platform
from pathlib import Path

#: variable -> value: the code path every machine takes (at most AVX2 in torch's kernels and oneDNN)
PINS = {"ATEN_CPU_CAPABILITY": "avx2", "ONEDNN_MAX_CPU_ISA": "AVX2"}
#: set to 1 (or any non-empty value but 0) to leave every library on the path its CPU selects
OPT_OUT = "SCHEDRL_NO_PINS"


def opted_out(environ=os.environ) -> bool:
    return environ.get(OPT_OUT, "").strip() not in ("", "0")


def cpu_flags(cpuinfo: str | None = None) -> set[str]:
    """The x86 CPU's instruction-set flags (/proc/cpuinfo's first ``flags`` line); empty elsewhere."""
    if cpuinfo is None:
        path = Path("/proc/cpuinfo")
        if platform.machine().lower() not in ("x86_64", "amd64") or not path.exists():
            return set()
        cpuinfo = path.read_text(errors="replace")
    for line in cpuinfo.splitlines():
        if line.startswith("flags"):
            return set(line.split(":", 1)[1].split())
    return set()


def cpu_has_avx2(cpuinfo: str | None = None) -> bool:
    """Whether the CPU runs AVX2 code: torch would take ``ATEN_CPU_CAPABILITY=avx2`` at its word and
    fail with an illegal instruction on a CPU without it. Only x86-64 Linux is checked (where
    /proc/cpuinfo lists the flags); elsewhere nothing is pinned."""
    return "avx2" in cpu_flags(cpuinfo)


def native_capability(cpuinfo: str | None = None) -> str:
    """The widest vector path the CPU offers, in torch's names ("AVX512", "AVX2", "DEFAULT"): what
    ``torch.backends.cpu.get_cpu_capability()`` said before the pins (after them it says "AVX2"
    on every x86 machine), so what tells the machine kinds apart."""
    flags = cpu_flags(cpuinfo)
    return "AVX512" if "avx512f" in flags else "AVX2" if "avx2" in flags else "DEFAULT"


def apply(environ=os.environ, cpuinfo: str | None = None) -> dict:
    """Set each pin the caller has not set (unless opted out or the CPU lacks AVX2); returns the
    pins set by this call."""
    if opted_out(environ) or not cpu_has_avx2(cpuinfo):
        return {}
    added = {k: v for k, v in PINS.items() if k not in environ}
    environ.update(added)
    return added


def describe(environ=os.environ) -> dict:
    """What a run folder records of its code path: the pins in effect and the opt-out, and torch's
    kernel capability when torch is loaded (the path it actually took)."""
    import sys

    out = {"pins": {k: environ[k] for k in PINS if k in environ}, "opted_out": opted_out(environ),
           "cpu_avx512": "avx512f" in cpu_flags()}  # the faster machine kind's mark
    torch = sys.modules.get("torch")
    if torch is not None:
        out["torch_capability"] = torch.backends.cpu.get_cpu_capability()
    return out
