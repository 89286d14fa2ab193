"""``schedrl workload``: generate, extend, split, inspect, plot and download workloads (SWF files)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from schedrl.errors import ConfigError, InputFileError

SPLIT_SCHEMES = ("sem", "mrsch", "halves")


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "workload",
        help="generate, extend, split, inspect, plot or download workloads (SWF)",
        description="Workload files in the Standard Workload Format: Lublin-Feitelson presets, the "
        "runtime paper's WRA variants, MRSch burst-buffer/power scenarios, train/validation/test "
        "splits, real traces (with stand-ins when missing), figures and downloads.",
    )
    sub = p.add_subparsers(dest="workload_command", metavar="ACTION")
    sub.required = True

    g = sub.add_parser("generate", help="generate a Lublin-Feitelson workload from a preset",
                       description="Generate a Lublin-Feitelson workload. Presets: lublin256, wl1, wl2, "
                       "theta_like, datastar_like. With --wra the Lublin time is the requested walltime "
                       "and run_time = req_time x WRA; --half keeps jobs 1..n/2 (a) or the rest (b).")
    g.add_argument("--preset", required=True, help="preset name")
    g.add_argument("--n-jobs", type=int, default=None, help="number of jobs (default: the preset's)")
    g.add_argument("--seed", type=int, default=0, help="random seed (default: %(default)s)")
    g.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="override a generator parameter, e.g. --set load=0.8 (repeatable)")
    g.add_argument("--wra", default=None, help="walltime request accuracy: 100, 050, rnd or a ratio")
    g.add_argument("--half", choices=("a", "b"), default=None, help="keep the first (a) or second (b) half")
    g.add_argument("--out", required=True, help="output SWF file (.gz compresses)")
    g.set_defaults(func=run_generate)

    e = sub.add_parser("extend", help="add MRSch burst-buffer (S1-S5) and power (S6-S10) requests",
                       description="Extend an SWF workload to an MRSch scenario (Table III; S6-S10 add "
                       "per-node power). Burst-buffer sizes are log-uniform on the scenario's range "
                       "unless --io-csv gives per-job I/O volumes to resample from.")
    e.add_argument("input", metavar="IN.swf", help="input SWF file")
    e.add_argument("--scenario", required=True, help="S1 ... S10")
    e.add_argument("--seed", type=int, default=0, help="random seed (default: %(default)s)")
    e.add_argument("--io-csv", default=None, metavar="FILE",
                   help="CSV with a column io_tb (or io_bytes) of per-job I/O volumes to resample sizes from")
    e.add_argument("--out", required=True, help="output SWF file")
    e.set_defaults(func=run_extend)

    s = sub.add_parser("split", help="split a workload into train/validation/test (SEM, MRSch) or halves",
                       description="Chronological splits. sem: train/val/test job counts (train in "
                       "episodes); mrsch: 3.5 months / 2 weeks / rest; halves: a and b. Writes "
                       "OUT_DIR/<part>.swf and OUT_DIR/split.json.")
    s.add_argument("input", metavar="IN.swf", help="input SWF file")
    s.add_argument("--scheme", required=True, choices=SPLIT_SCHEMES, help="split scheme")
    s.add_argument("--out-dir", required=True, help="output folder")
    s.add_argument("--train-jobs", type=int, default=60_000, help="sem: training jobs (default: %(default)s)")
    s.add_argument("--episode-jobs", type=int, default=600, help="sem: jobs per episode (default: %(default)s)")
    s.add_argument("--val-jobs", type=int, default=1_200, help="sem: validation jobs (default: %(default)s)")
    s.add_argument("--test-jobs", type=int, default=6_000, help="sem: test jobs (default: %(default)s)")
    s.add_argument("--fit", choices=("error", "shrink"), default="error",
                   help="sem: a too-short trace fails or has all counts scaled down (default: %(default)s)")
    s.add_argument("--train-months", type=float, default=3.5, help="mrsch: training months (default: %(default)s)")
    s.add_argument("--val-days", type=float, default=14.0, help="mrsch: validation days (default: %(default)s)")
    s.add_argument("--total-months", type=float, default=5.0,
                   help="mrsch: months of the log used; 0 = all (default: %(default)s)")
    s.set_defaults(func=run_split)

    t = sub.add_parser("trace", help="read a real trace by name (cleaned), or its stand-in when missing",
                       description="Look for NAME in the folders (--dirs), clean it and write it; when no "
                       "folder holds it, generate its stand-in preset and say so in the header.")
    t.add_argument("name", help="trace file name, e.g. theta_2022.swf or SDSC-DS-2004-2.1-cln.swf.gz")
    t.add_argument("--dirs", nargs="+", default=["data/raw", "../shared/traces"], help="folders to search")
    t.add_argument("--seed", type=int, default=0, help="stand-in seed (default: %(default)s)")
    t.add_argument("--stand-in-jobs", type=int, default=None, help="stand-in size (default: the preset's)")
    t.add_argument("--max-procs", type=int, default=None, help="machine size for cleaning (default: header)")
    t.add_argument("--oversize", choices=("drop", "clip", "error"), default="drop",
                   help="jobs larger than the machine (default: %(default)s)")
    t.add_argument("--over-request", choices=("raise", "keep", "drop"), default="raise",
                   help="runtime above the request: raise the request, keep it, drop the job (default: %(default)s)")
    t.add_argument("--months", type=float, default=0.0, help="keep only the first MONTHS months (0 = all)")
    t.add_argument("--out", required=True, help="output SWF file")
    t.set_defaults(func=run_trace)

    i = sub.add_parser("info", help="print a workload's statistics and cleaning counts as JSON",
                       description="Read an SWF file (cleaned unless --raw) and print statistics as JSON.")
    i.add_argument("input", metavar="IN.swf", help="input SWF file")
    i.add_argument("--raw", action="store_true", help="do not clean")
    i.set_defaults(func=run_info)

    pl = sub.add_parser("plot", help="plot size, runtime, inter-arrival and load distributions",
                        description="Write OUT.png, OUT.pdf and OUT.csv (the plotted numbers).")
    pl.add_argument("input", metavar="IN.swf", help="input SWF file")
    pl.add_argument("--out", required=True, help="output .png path")
    pl.add_argument("--title", default=None, help="figure title (default: the file name)")
    pl.set_defaults(func=run_plot)

    d = sub.add_parser("download", help="download a public trace and check its sha256 (needs internet)",
                       description="Download a catalogued trace (see data/README.md) to --out, verifying "
                       "its sha256. Never run in CI.")
    d.add_argument("name", help="trace file name from the catalog")
    d.add_argument("--out", required=True, help="output path, e.g. data/raw/NAME")
    d.add_argument("--url", default=None, help="override the catalog URL")
    d.add_argument("--sha256", default=None, help="override the expected checksum")
    d.set_defaults(func=run_download)


def _parse_sets(items: list[str]) -> dict:
    import dataclasses

    import yaml

    from schedrl.workloads.lublin import LublinParams

    known = {f.name for f in dataclasses.fields(LublinParams)}
    out = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or key not in known:
            raise ConfigError(f"--set expects KEY=VALUE with KEY one of {', '.join(sorted(known))}: {item!r}")
        out[key] = yaml.safe_load(value)
    return out


def run_generate(args) -> int:
    from schedrl.workloads.extend import apply_wra, split_half
    from schedrl.workloads.lublin import generate
    from schedrl.workloads.swf import write_swf

    frame = generate(args.preset, n_jobs=args.n_jobs, seed=args.seed, **_parse_sets(args.set))
    if args.wra is not None:
        frame = apply_wra(frame, args.wra, seed=args.seed)
    if args.half is not None:
        frame = split_half(frame, args.half)
    write_swf(frame, args.out)
    print(f"{args.out}: {len(frame)} jobs ({args.preset}, seed {args.seed})", file=sys.stderr)
    return 0


def _read_io_csv(path: str):
    import numpy as np
    import pandas as pd

    try:
        table = pd.read_csv(path)
    except (OSError, ValueError) as exc:
        raise InputFileError(path, f"cannot read CSV ({exc})") from None
    if "io_tb" in table:
        values = table["io_tb"]
    elif "io_bytes" in table:
        values = table["io_bytes"] / 1e12
    else:
        raise InputFileError(path, "needs a column io_tb or io_bytes")
    values = pd.to_numeric(values, errors="coerce").to_numpy(dtype=float)
    if not np.isfinite(values).any():
        raise InputFileError(path, "no numeric I/O volume")
    return values


def run_extend(args) -> int:
    from schedrl.workloads.extend import apply_scenario
    from schedrl.workloads.swf import read_swf, write_swf

    frame = read_swf(args.input)
    io_tb = _read_io_csv(args.io_csv) if args.io_csv else None
    out = apply_scenario(frame, args.scenario, seed=args.seed, io_tb=io_tb)
    write_swf(out, args.out)
    print(f"{args.out}: {len(out)} jobs, scenario {args.scenario}", file=sys.stderr)
    return 0


def run_split(args) -> int:
    from schedrl.io import write_json
    from schedrl.workloads.extend import split_half
    from schedrl.workloads.splits import mrsch_split, sem_split
    from schedrl.workloads.swf import read_swf, write_swf
    from schedrl.workloads.traces import is_stand_in

    frame = read_swf(args.input)
    if args.scheme == "sem":
        parts, manifest = sem_split(frame, args.train_jobs, args.episode_jobs, args.val_jobs, args.test_jobs,
                                    fit=args.fit)
    elif args.scheme == "mrsch":
        parts, manifest = mrsch_split(frame, args.train_months, args.val_days, args.total_months or None)
    else:
        parts = {h: split_half(frame, h) for h in ("a", "b")}
        manifest = {"scheme": "halves", "input_jobs": len(frame), "counts": {h: len(p) for h, p in parts.items()}}
    out = Path(args.out_dir)
    manifest["input"] = str(args.input)
    manifest["stand_in"] = is_stand_in(frame)
    for name, part in parts.items():
        write_swf(part, out / f"{name}.swf")
    write_json(out / "split.json", manifest)
    print(f"{out}: " + ", ".join(f"{k} {v}" for k, v in manifest["counts"].items()), file=sys.stderr)
    return 0


def _notes(frame) -> list:
    notes = (frame.attrs.get("header") or {}).get("Note", [])
    return notes if isinstance(notes, list) else [notes]


def run_trace(args) -> int:
    from schedrl.workloads.clean import cleaning_summary
    from schedrl.workloads.splits import MONTH_SECONDS, take_part
    from schedrl.workloads.swf import write_swf
    from schedrl.workloads.traces import load_trace

    frame = load_trace(args.name, args.dirs, seed=args.seed, n_jobs=args.stand_in_jobs,
                       max_procs=args.max_procs, oversize=args.oversize, over_request=args.over_request)
    if args.months and len(frame):
        import numpy as np

        submit = frame["submit_time"].to_numpy()
        end = int(np.searchsorted(submit, submit[0] + args.months * MONTH_SECONDS))
        frame = take_part(frame, slice(0, end), f"first {args.months:g} months: jobs 1-{end} of {len(frame)}",
                          rebase=False)
    if not frame.attrs.get("stand_in"):
        header = dict(frame.attrs.get("header") or {})
        notes = _notes(frame)
        header["Note"] = list(notes) + [f"schedrl cleaning: {cleaning_summary(frame)}"]
        frame.attrs["header"] = header
    write_swf(frame, args.out)
    kind = "stand-in" if frame.attrs.get("stand_in") else "real trace"
    print(f"{args.out}: {len(frame)} jobs ({kind} {args.name})", file=sys.stderr)
    return 0


def run_info(args) -> int:
    from schedrl.plots.workloads import workload_summary
    from schedrl.workloads.swf import read_swf

    frame = read_swf(args.input, clean=not args.raw)
    info = workload_summary(frame)
    info["cleaning"] = frame.attrs.get("cleaning", {})
    info["header"] = frame.attrs.get("header", {})
    print(json.dumps(info, indent=2, default=str))
    return 0


def run_plot(args) -> int:
    from schedrl.plots.workloads import plot_workload
    from schedrl.workloads.swf import read_swf
    from schedrl.workloads.traces import is_stand_in

    frame = read_swf(args.input)
    title = args.title or Path(args.input).name
    if is_stand_in(frame):
        title += f" (stand-in: {frame.attrs['header'].get('StandIn', 'synthetic')})"
    plot_workload(frame, args.out, title)
    return 0


def run_download(args) -> int:
    from schedrl.workloads.traces import download_trace

    path = download_trace(args.name, args.out, url=args.url, sha256=args.sha256)
    print(f"{path}: downloaded and checked", file=sys.stderr)
    return 0

