"""``schedrl workload``: generate, extend, split, inspect, plot and download workloads (SWF files)."""

from __future__ import annotations

import json
import math
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
    g.add_argument("--wra", nargs="+", default=None, metavar="WRA",
                   help="walltime request accuracy: 100, 050, rnd or a ratio (several with --out-dir)")
    g.add_argument("--half", nargs="+", choices=("a", "b"), default=None,
                   help="keep the first (a) or second (b) half (both with --out-dir)")
    dest = g.add_mutually_exclusive_group(required=True)
    dest.add_argument("--out", help="output SWF file (.gz compresses)")
    dest.add_argument("--out-dir", help="write DIR/<preset>[_<wra>][<half>].swf for every WRA and half "
                      "(the same base workload for all)")
    g.set_defaults(func=run_generate)

    e = sub.add_parser("extend", help="add MRSch burst-buffer (S1-S5) and power (S6-S10) requests",
                       description="Extend an SWF workload to an MRSch scenario (Table III; S6-S10 add "
                       "per-node power). Burst-buffer sizes are uniform (or log-uniform) on the "
                       "scenario's range unless --io-csv gives per-job I/O volumes to resample from.")
    e.add_argument("input", metavar="IN.swf", help="input SWF file")
    e.add_argument("--scenario", required=True, nargs="+", metavar="S", help="S1 ... S10 (several with --out-dir)")
    e.add_argument("--seed", type=int, default=0, help="random seed (default: %(default)s)")
    e.add_argument("--io-csv", default=None, metavar="FILE",
                   help="CSV with a column io_tb (or io_bytes) of per-job I/O volumes to resample sizes from")
    e.add_argument("--bb-sizes", choices=("uniform", "log_uniform"), default="uniform",
                   help="request-size distribution on the scenario's range (default: %(default)s)")
    dest = e.add_mutually_exclusive_group(required=True)
    dest.add_argument("--out", help="output SWF file")
    dest.add_argument("--out-dir", help="write DIR/<scenario>.swf for every scenario")
    e.add_argument("--mrsch-split", action="store_true",
                   help="with --out-dir, also write the MRSch split DIR/<scenario>/{train,val,test}.swf "
                   "and split.json (see 'split' for the period options)")
    _period_options(e)
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
    _period_options(s)
    s.set_defaults(func=run_split)

    t = sub.add_parser("trace", help="read a real trace by name (cleaned), or its stand-in when missing",
                       description="Look for NAME in the folders (--dirs), clean it and write it; when no "
                       "folder holds it, generate its stand-in preset and say so in the header.")
    t.add_argument("name", help="trace file name, e.g. theta_2022.swf or SDSC-DS-2004-2.1-cln.swf.gz")
    t.add_argument("--dirs", nargs="+", default=["data/raw", "../shared/traces"], help="folders to search")
    t.add_argument("--seed", type=int, default=0, help="stand-in seed (default: %(default)s)")
    t.add_argument("--stand-in-jobs", type=int, default=None, help="stand-in size (default: the preset's)")
    t.add_argument("--stand-in", metavar="PRESET", default=None,
                   help="Lublin preset of the stand-in (default: the catalog's for NAME)")
    t.add_argument("--stand-in-nodes", type=int, default=None, metavar="N",
                   help="machine size of the stand-in (default: the preset's)")
    t.add_argument("--max-procs", type=int, default=None, help="machine size for cleaning (default: header)")
    t.add_argument("--oversize", choices=("drop", "clip", "error"), default="drop",
                   help="jobs larger than the machine (default: %(default)s)")
    t.add_argument("--over-request", choices=("keep", "raise", "drop"), default="keep",
                   help="runtime above the request: keep the request (the simulator kills the job at it: "
                   "the PWA convention), raise it to the runtime, or drop the job (default: %(default)s)")
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

    ps = sub.add_parser("plot-scenarios", help="plot burst-buffer sizes and per-resource load of MRSch scenarios",
                        description="Burst-buffer request sizes (S1-S5) and the offered load of nodes, burst "
                        "buffer and power per scenario; writes OUT.png, OUT.pdf and OUT.csv.")
    ps.add_argument("inputs", nargs="+", metavar="S.swf", help="scenario files (named by their stem)")
    ps.add_argument("--out", required=True, help="output .png path")
    ps.add_argument("--title", default="MRSch workload scenarios", help="figure title")
    ps.set_defaults(func=run_plot_scenarios)

    d = sub.add_parser("download", help="download a public trace and check its sha256 (needs internet)",
                       description="Download a catalogued trace (see data/README.md) to --out, verifying "
                       "its sha256. Never run in CI.")
    d.add_argument("name", help="trace file name from the catalog")
    d.add_argument("--out", required=True, help="output path, e.g. data/raw/NAME")
    d.add_argument("--url", default=None, help="override the catalog URL")
    d.add_argument("--sha256", default=None, help="override the expected checksum")
    d.set_defaults(func=run_download)


def _period_options(parser) -> None:
    parser.add_argument("--train-months", type=float, default=3.5,
                        help="mrsch: training months (default: %(default)s)")
    parser.add_argument("--val-days", type=float, default=14.0, help="mrsch: validation days (default: %(default)s)")
    parser.add_argument("--total-months", type=float, default=5.0,
                        help="mrsch: months of the log used; 0 = all (default: %(default)s)")


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

    wras, halves = args.wra or [None], args.half or [None]
    if args.out and (len(wras) > 1 or len(halves) > 1):
        raise ConfigError("several --wra or --half values need --out-dir instead of --out")
    base = generate(args.preset, n_jobs=args.n_jobs, seed=args.seed, **_parse_sets(args.set))
    for wra in wras:
        frame = base if wra is None else apply_wra(base, wra, seed=args.seed)
        for half in halves:
            part = frame if half is None else split_half(frame, half)
            if args.out:
                out = Path(args.out)
            else:
                out = Path(args.out_dir) / f"{args.preset}{'' if wra is None else '_' + wra.lower()}{half or ''}.swf"
            write_swf(part, out)
            print(f"{out}: {len(part)} jobs ({args.preset}, seed {args.seed})", file=sys.stderr)
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
    from schedrl.workloads.splits import mrsch_split
    from schedrl.workloads.swf import read_swf, write_swf

    if args.out and len(args.scenario) > 1:
        raise ConfigError("several --scenario values need --out-dir instead of --out")
    if args.mrsch_split and not args.out_dir:
        raise ConfigError("--mrsch-split needs --out-dir")
    frame = read_swf(args.input)
    io_tb = _read_io_csv(args.io_csv) if args.io_csv else None
    for scenario in args.scenario:
        out = apply_scenario(frame, scenario, seed=args.seed, io_tb=io_tb, bb_sizes=args.bb_sizes)
        path = Path(args.out) if args.out else Path(args.out_dir) / f"{scenario}.swf"
        write_swf(out, path)
        print(f"{path}: {len(out)} jobs, scenario {scenario}", file=sys.stderr)
        if args.mrsch_split:
            parts, manifest = mrsch_split(out, args.train_months, args.val_days, args.total_months or None)
            _write_parts(parts, manifest, Path(args.out_dir) / scenario, path, out)
    return 0


def _write_parts(parts: dict, manifest: dict, out_dir: Path, source, frame) -> None:
    from schedrl.io import write_json
    from schedrl.workloads.swf import write_swf
    from schedrl.workloads.traces import is_stand_in

    manifest["input"] = str(source)
    manifest["stand_in"] = is_stand_in(frame)
    for name, part in parts.items():
        write_swf(part, out_dir / f"{name}.swf")
    write_json(out_dir / "split.json", manifest)
    print(f"{out_dir}: " + ", ".join(f"{k} {v}" for k, v in manifest["counts"].items()), file=sys.stderr)


def run_split(args) -> int:
    from schedrl.workloads.extend import split_half
    from schedrl.workloads.splits import mrsch_split, sem_split
    from schedrl.workloads.swf import read_swf

    frame = read_swf(args.input)
    if args.scheme == "sem":
        parts, manifest = sem_split(frame, args.train_jobs, args.episode_jobs, args.val_jobs, args.test_jobs,
                                    fit=args.fit)
    elif args.scheme == "mrsch":
        parts, manifest = mrsch_split(frame, args.train_months, args.val_days, args.total_months or None)
    else:
        parts = {h: split_half(frame, h) for h in ("a", "b")}
        manifest = {"scheme": "halves", "input_jobs": len(frame), "counts": {h: len(p) for h, p in parts.items()}}
    _write_parts(parts, manifest, Path(args.out_dir), args.input, frame)
    return 0


def run_trace(args) -> int:
    from schedrl.workloads.clean import cleaning_summary
    from schedrl.workloads.splits import MONTH_SECONDS, rebase_submit, take_part
    from schedrl.workloads.swf import write_swf
    from schedrl.workloads.table import add_note
    from schedrl.workloads.traces import load_trace

    frame = load_trace(args.name, args.dirs, seed=args.seed, n_jobs=args.stand_in_jobs,
                       stand_in=args.stand_in, max_nodes=args.stand_in_nodes, max_procs=args.max_procs, oversize=args.oversize, over_request=args.over_request)
    if args.months and len(frame):
        import numpy as np

        submit = frame["submit_time"].to_numpy()
        end = int(np.searchsorted(submit, submit[0] + args.months * MONTH_SECONDS))
        frame = take_part(frame, slice(0, end), f"first {args.months:g} months: jobs 1-{end} of {len(frame)}",
                          rebase=False)
    # submit times relative to the first job; the header's UnixStartTime keeps the absolute clock
    rebase_submit(frame)
    if not frame.attrs.get("stand_in"):
        add_note(frame, f"schedrl cleaning: {cleaning_summary(frame)}")
    write_swf(frame, args.out)
    kind = "stand-in" if frame.attrs.get("stand_in") else "real trace"
    print(f"{args.out}: {len(frame)} jobs ({kind} {args.name})", file=sys.stderr)
    return 0


def run_info(args) -> int:
    from schedrl.plots.workloads import workload_summary
    from schedrl.workloads.swf import read_swf

    frame = read_swf(args.input, clean=not args.raw)
    info = workload_summary(frame)
    # NaN/inf (e.g. the load of a zero-length span) are not JSON: print null
    info = {k: None if isinstance(v, float) and not math.isfinite(v) else v for k, v in info.items()}
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


def run_plot_scenarios(args) -> int:
    from schedrl.plots.workloads import plot_scenarios
    from schedrl.workloads.swf import read_swf
    from schedrl.workloads.traces import is_stand_in

    frames = {Path(p).name.split(".")[0]: read_swf(p) for p in args.inputs}
    title = args.title + (" (on a stand-in trace)" if any(is_stand_in(f) for f in frames.values()) else "")
    plot_scenarios(frames, args.out, title)
    return 0


def run_download(args) -> int:
    from schedrl.workloads.traces import download_trace

    path = download_trace(args.name, args.out, url=args.url, sha256=args.sha256)
    print(f"{path}: downloaded and checked", file=sys.stderr)
    return 0

