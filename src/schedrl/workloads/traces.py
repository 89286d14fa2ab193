"""Real traces: where to find them, how to fetch them, and the stand-ins used when they are missing.

Traces are never committed. The pipeline looks for a trace by file name in the configured folders
(``traces.dirs``: ``data/raw`` first, then ``../shared/traces``); when none holds it, the trace's
stand-in preset (a Lublin workload on the same machine size) is generated instead and the output
says so (``attrs["stand_in"]``, a ``; StandIn: <preset> for <trace>`` header line and a
``; Note: stand-in ...`` line); :func:`is_stand_in` tells a table read back from such a file.
"""

from __future__ import annotations

import hashlib
import shutil
import sys
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from schedrl.errors import ConfigError, SchedrlError
from schedrl.io import atomic_path

__all__ = ["TraceInfo", "CATALOG", "find_trace", "load_trace", "is_stand_in", "download_trace", "sha256_of"]

PWA = "https://www.cs.huji.ac.il/labs/parallel/workload"


@dataclass(frozen=True)
class TraceInfo:
    name: str
    url: str
    sha256: str
    machine: str
    stand_in: str | None = None


# sha256 of the files as placed in ../shared/traces (PROVENANCE.md there); the PWA copies are the
# archive's "-cln" versions (byte-identity with the archive's downloads has not been verified).
CATALOG: dict[str, TraceInfo] = {t.name: t for t in (
    TraceInfo("SDSC-DS-2004-2.1-cln.swf.gz", f"{PWA}/l_sdsc_ds/SDSC-DS-2004-2.1-cln.swf.gz",
              "0ddb885a96a7f5ee9009d8a36ef350b1d1c451044c205811938995aac80fcc36", "SDSC DataStar, 1,664 CPUs",
              "datastar_like"),
    TraceInfo("LLNL-Atlas-2006-2.1-cln.swf.gz", f"{PWA}/l_llnl_atlas/LLNL-Atlas-2006-2.1-cln.swf.gz",
              "48cc83b7a0490252aa1ae41a4b03dd598bc0683e146be94047febee36e7e0b36", "LLNL Atlas, 9,216 CPUs"),
    TraceInfo("SDSC-SP2-1998-4.2-cln.swf.gz", f"{PWA}/l_sdsc_sp2/SDSC-SP2-1998-4.2-cln.swf.gz",
              "e03fe48be50c4ab04d6bb2285296d9c3399e9c1f27ee79b754ad32a14abd9bac", "SDSC SP2, 128 CPUs"),
    TraceInfo("HPC2N-2002-2.2-cln.swf.gz", f"{PWA}/l_hpc2n/HPC2N-2002-2.2-cln.swf.gz",
              "3c534857d6065cfd9cc35aac8d064c9c17172be7acf336de835006f43a626e64", "HPC2N Seth, 240 CPUs"),
    TraceInfo("CTC-SP2-1996-3.1-cln.swf.gz", f"{PWA}/l_ctc_sp2/CTC-SP2-1996-3.1-cln.swf.gz",
              "9fa28ac16c4386fb81b72a91d8bd8888281df2948a9d912769d387c5ee285bb4", "CTC SP2, 338 CPUs"),
    TraceInfo("theta_2022.swf",
              "https://raw.githubusercontent.com/mochiiten9158/cqsimplus/"
              "28827afcd083d0ec6baae36d93a4633fab5931a1/cqsim_original/data/InputFiles/theta_2022.swf",
              "2ef7be60df7e5abc671b838cc5dbf4dc212320eaddbbf5c4a4f5db592ea20cae", "ALCF Theta, 4,360 nodes",
              "theta_like"),
    TraceInfo("lublin_256.swf",
              "https://raw.githubusercontent.com/DIR-LAB/deep-batch-scheduler/"
              "cd433e3d62a01705f255bd48cb55b393862800e7/data/lublin_256.swf",
              "a394ab3d81179ebcf645a1cbd593a60b6dff7f11a510e1e6285c45f43310c962", "Lublin model, 256 nodes",
              "lublin256"),
)}


def _candidates(name: str) -> list[str]:
    names = [name]
    names.append(name[:-3] if name.endswith(".gz") else name + ".gz")
    return names


def find_trace(name: str, dirs) -> Path | None:
    """The first ``dir/name`` that exists (also tried with ``.gz`` added or removed), else None.

    Relative folders are taken from the current directory (the repository root under Snakemake).
    """
    if not name or "/" in name or name in (".", ".."):
        raise ConfigError(f"trace name must be a plain file name, not {name!r}")
    for folder in dirs or ():
        for candidate in _candidates(name):
            path = Path(folder) / candidate
            if path.is_file():
                return path
    return None


def load_trace(name: str, dirs, *, seed: int = 0, n_jobs: int | None = None, stand_in: str | None = None,
               max_nodes: int | None = None, **read_kwargs) -> pd.DataFrame:
    """Read and clean the named trace, or generate its stand-in when no folder holds it.

    The one place that chooses between a trace and its stand-in. ``stand_in`` overrides the
    catalog's stand-in preset; ``n_jobs`` sizes the stand-in (default: the preset's) and
    ``max_nodes`` its machine (default: the preset's); ``read_kwargs`` go to
    :func:`schedrl.workloads.swf.read_swf`. A stand-in is announced with one warning line on stderr
    naming the file looked for and the folders searched.
    """
    from schedrl.workloads.lublin import generate
    from schedrl.workloads.swf import read_swf

    path = find_trace(name, dirs)
    if path is not None:
        frame = read_swf(path, **read_kwargs)
        frame.attrs["stand_in"] = False
        return frame
    preset = stand_in or (CATALOG[name].stand_in if name in CATALOG else None)
    if preset is None:
        searched = ", ".join(str(d) for d in dirs or ()) or "(no folders)"
        raise SchedrlError(f"trace {name} not found in {searched} and it has no stand-in preset")
    frame = generate(preset, n_jobs=n_jobs, seed=seed, **({"max_nodes": int(max_nodes)} if max_nodes else {}))
    header = dict(frame.attrs["header"])
    notes = header.get("Note", [])
    notes = list(notes) if isinstance(notes, list) else [notes]
    searched = ", ".join(str(d) for d in dirs or ())
    print(f"schedrl: warning: trace {name} not found in {searched or '(no folders)'}: using a synthetic "
          f"stand-in (Lublin preset {preset}, {len(frame)} jobs); results built on it are not comparable "
          "with the paper's", file=sys.stderr)
    header["StandIn"] = f"{preset} for {name}"
    header["Note"] = [f"stand-in for {name} (not found in {searched}): Lublin preset {preset}, seed {seed}"] + notes
    frame.attrs["header"] = header
    frame.attrs["stand_in"] = True
    frame.attrs["source"] = f"stand-in:{preset} for {name}"
    return frame


def is_stand_in(frame: pd.DataFrame) -> bool:
    """True when the table (or the file it was read from) is a stand-in for a missing trace."""
    return bool(frame.attrs.get("stand_in")) or "StandIn" in (frame.attrs.get("header") or {})


def sha256_of(path: str | Path) -> str:
    digest = hashlib.sha256()
    with Path(path).open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def download_trace(name: str, out: str | Path, url: str | None = None, sha256: str | None = None,
                   timeout: float = 120.0) -> Path:
    """Download a catalog trace (or ``url``) to ``out``, checking its sha256; atomic."""
    info = CATALOG.get(name)
    url = url or (info.url if info else None)
    sha256 = sha256 or (info.sha256 if info else None)
    if url is None:
        raise ConfigError(f"unknown trace '{name}' (known: {', '.join(CATALOG)}); give --url")
    out = Path(out)
    with atomic_path(out) as tmp:
        try:
            with urllib.request.urlopen(url, timeout=timeout) as resp, tmp.open("wb") as fh:
                shutil.copyfileobj(resp, fh)
        except OSError as exc:
            raise SchedrlError(f"download of {url} failed: {exc}") from None
        got = sha256_of(tmp)
        if sha256 and got != sha256:
            raise SchedrlError(f"{url}: sha256 {got} does not match the expected {sha256}")
    return out
