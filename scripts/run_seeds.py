#!/usr/bin/env python
"""Train a paper-budget or tuned run one seed at a time, each seed recorded as its own run; or a
paper's default-scale run, recorded with its normalised scores.

    python scripts/run_seeds.py deeprm --scale tuned --seeds 0 1 2
    python scripts/run_seeds.py runtime --scale paper-budget --seeds 1 2 --cores 2
    python scripts/run_seeds.py mdp --seeds 1 --scenario 3 --cores 2    # one of mdp's scenarios alone
    python scripts/run_seeds.py mdp --seeds 0 1 2 --scenario 3 6 9       # nine scenario-seeds, one by one
    python scripts/run_seeds.py mrsch --scale default                     # the default target, its own seeds

Per seed, in order (issue 68: a seed of a paper-budget run fits one session where three do not), after
one line of what the paper's cost model (``schedrl <paper> cost``) says the seed's configs take:

1. ``snakemake <target> --rerun-incomplete --configfile <configs> config/seed/<n>.yaml`` (``<target>``:
   ``<paper>_paper_budget``, but ``mdp_tuned`` for mdp's tuned recipe: its C+S+R runs and the references
   that scale them, without the paper's image-like runs at 3 M steps that its claims compare)
   (``<configs>``: config/paper-budget.yaml, then config/tuned/<paper>.yml for ``--scale tuned``),
   under ``scripts/timed_run.py``: its exact CPU time appended to the seed's ``segments.jsonl``,
   one line per invocation, so a seed killed and run again adds its pieces;
2. ``schedrl normalised`` on the same configs and scale, into the seed's ``normalised/`` (its CPU
   is in ``segments.jsonl`` too, but not in the run's core-hours, as earlier records count them);
3. a check that the target built every input the normalised scores read (``gaps.csv``'s missing files,
   less those ``NOT_BUILT`` leaves out by design): a seed missing one is not recorded;
4. the claims table copied beside them (``mdp_tuned`` writes none: the record is of its normalised
   scores alone), and ``record.txt``: the ``schedrl record`` command with a run label (date, commit, what ran, seed, machine kind, core-hours summed over the segments).

``--scale default`` runs the paper's default target (``snakemake <paper>`` on config/config.yaml and
the caller's overlays) once, with the seeds config.yaml gives it (no seed overlay: a default run
is one run), through the same steps into ``<out>/default/<paper>/``; any paper, sem included.

Each seed's files go to ``<out>/<scale>/seed<n>/`` (default ``results/seeds``); a seed whose
``record.txt`` exists is done and skipped, so the same command resumes after a kill; so is one the
paper's ``recorded_scores.csv`` already holds at that scale (recorded from another machine, which kept
no files here; ``--again`` trains it anew). Only papers
whose runs list their seeds take ``config/seed/<n>.yaml`` (deeprm, mdp, runtime; mrsch through
``agent_seed``, its main agents' seed on the base seed's job sets); sem trains its base seed always,
so its seeds come as one run. The commands run with this Python's ``bin`` first on ``PATH``, so a
virtual environment's ``snakemake`` and ``schedrl`` are found without activating it. ``--dry-run``
prints the commands.
A segment killed with SIGKILL (a session cut off) leaves timed_run's heartbeat file, which the next
segment appends as a ``killed`` line: its CPU counts to the last heartbeat (a minute), and the label
says how many segments were summed and how many of them were killed. Such a kill also leaves
Snakemake's lock on the working directory; when a heartbeat file names a process that is gone and
none names a live one, the seed's run unlocks it (``snakemake --unlock``) before it resumes.
mdp with several scenarios (``--scenario 3 6 9``): once every scenario of a seed is recorded, the seeds done
so far are put *together*: ``snakemake mdp_paper_budget --rerun-triggers mtime`` over their scenarios and
seeds (an overlay of both; SJF and uniform play, one file for all scenarios, played again; nothing retrains:
a dry run first refuses if any ``mdp_train`` job would run),
so one claims table holds every scenario and seed (Fig. 4's set of scenarios, intervals over seeds), under
``<out>/<scale>/together-scenarios<...>-seeds<...>/`` with its record command (claims alone: each run's
normalised scores are recorded already); its label sums the runs' core-hours and its own. It needs the
seeds' files on this disk: scenario-seeds trained in other sessions (a machine is not kept between them)
meet only in their records, where ``schedrl status`` reads Fig. 4 over seeds from their per-seed scores
(``schedrl.papers.mdp.over_seeds``; docs/reproduction-status.md's "Verdicts over seeds").
A paper that reads a real trace (mrsch: Theta; sem: Theta and DataStar) refuses to start when the trace
is not in ``traces.dirs`` (``data/raw``, ``../shared/traces``): the pipeline would train on its
synthetic stand-in, and a recorded seed on it is not comparable with the others (``--allow-stand-in``
runs anyway).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCALES = ("paper-budget", "tuned", "default")
#: every paper's default target (``--scale default``: one run, the seeds config.yaml gives)
PAPERS = ("sem", "mdp", "deeprm", "mrsch", "runtime")
#: a config/seed/<n>.yaml overlay sets the seeds of these papers (mrsch: agent_seed; sem: extra_seeds only)
SEEDED = ("deeprm", "mdp", "runtime", "mrsch")
#: (paper, scale) -> the Snakemake target, where it is not <paper>_paper_budget
TARGETS = {("mdp", "tuned"): "mdp_tuned"}
#: targets that write no claims table (recorded by their normalised scores)
CLAIMLESS = ("mdp_tuned",)
#: (paper, scale) -> (pattern, why): inputs of the normalised scores that the seed's target leaves out by
#: design; any other input not on disk when the target has run stops the seed before its record
NOT_BUILT = {("mdp", "tuned"): (r"^results/mdp/H\d+/image/scenario\d+/",
                                "mdp_tuned trains the tuned C+S+R alone; image-like at 3 M is the paper recipe's run")}


def target_of(paper: str, scale: str) -> str:
    return paper if scale == "default" else TARGETS.get((paper, scale), f"{paper}_paper_budget")


def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def configs_of(paper: str, scale: str, seed: int | None, extra: list[str], root: Path | None = None,
               written: list[str] = ()) -> list[str]:
    """The config files of one seed's run, in merge order: the paper budget, the tuned recipe (scale
    tuned), the caller's overlays, then the seed's overlay; of a default run (``seed`` None),
    config/config.yaml and the caller's overlays. A missing file is a ``SystemExit`` naming it, but
    for those the run writes itself (``written``)."""
    if scale == "default":
        files = ["config/config.yaml", *extra]
    else:
        files = ["config/paper-budget.yaml", *([f"config/tuned/{paper}.yml"] if scale == "tuned" else []), *extra,
                 f"config/seed/{seed}.yaml"]
    for f in (f for f in files if f not in written):
        if not ((root or ROOT) / f).is_file():
            raise SystemExit(f"run_seeds: {f}: no such file"
                             + (" (no seed overlay for this seed)" if f.startswith("config/seed/") else ""))
    return files


def missing_traces(paper: str, configs: list[str], root: Path | None = None) -> list[str]:
    """Files of the real traces ``paper`` reads (``workloads.traces`` keys named by its workloads
    section) that no folder of ``traces.dirs`` holds, with the configs merged as Snakemake merges them;
    relative folders from ``root`` (the repository), as the pipeline runs there."""
    from schedrl.config import load_yaml, merge_config
    from schedrl.workloads.splits import TRACE_SPLITS
    from schedrl.workloads.splits import missing_traces as missing

    if paper not in TRACE_SPLITS:
        return []
    root = root or ROOT
    config = load_yaml(root / "config" / "config.yaml")
    for f in configs:
        config = merge_config(config, load_yaml(root / f) or {})
    return missing(paper, config, root)


def commands(paper: str, scale: str, seed: int, configs: list[str], cores: int, seed_dir: Path) -> list[list[str]]:
    """The two timed commands of one seed: the Snakemake target, then ``schedrl normalised``."""
    timed = [sys.executable, "scripts/timed_run.py", "--record", str(seed_dir / "segments.jsonl")]
    return [[*timed, "--benchmarks", "benchmarks", "--", "snakemake", target_of(paper, scale), "--cores", str(cores),
             "--rerun-incomplete", "--configfile", *configs],
            [*timed, "--", "schedrl", "normalised", "--paper", paper, "--config", *configs, "--scale", scale,
             "--out-dir", str(seed_dir / "normalised")]]


def unbuilt_inputs(paper: str, scale: str, gaps_csv: Path) -> list[str]:
    """The files the seed's normalised scores read and did not find (``gaps.csv``'s missing inputs), less
    those ``NOT_BUILT`` names: a target that omits one records a seed scaled without that player."""
    import re

    import pandas as pd

    from schedrl.report.normalised import missing_files

    pattern = NOT_BUILT.get((paper, scale), (None,))[0]
    return [f for f in missing_files(pd.read_csv(gaps_csv)) if not (pattern and re.search(pattern, f))]


def with_python_first(environ) -> dict[str, str]:
    """``environ`` with this Python's ``bin`` folder first on ``PATH``: the virtual environment's
    ``snakemake`` and ``schedrl``, not whatever else the shell finds (or nothing, not activated)."""
    env = dict(environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), *filter(None, [env.get("PATH")])])
    return env


def machine_kind() -> str:
    """'faster' or 'slower', as benchmarks/bench_machine.py tells it."""
    return _load(ROOT / "benchmarks" / "bench_machine.py", "bench_machine").machine_kind()[0]


def label(segments: list[dict], what: str, seed: int | None, kind: str) -> str:
    """The run's name for ``schedrl record --run``: date and commit of the first segment, what ran,
    the seed (none for a default run: its config's seeds), the machine kind and the core-hours summed
    over the segments (exact when one)."""
    first = segments[0]
    core_h = sum(float(s["core_hours"]) for s in segments)
    killed = sum(s.get("exit") == "killed" for s in segments)
    exact = "exact" if len(segments) == 1 else f"exact, {len(segments)} segments summed"
    if killed:
        exact = f"{len(segments)} segments summed, {killed} killed: CPU to their last minute"
    seeds = "" if seed is None else f"seed {seed}, "
    return (f"{first['date'][:10]}, {first.get('commit') or 'commit unknown'}, {what}, {seeds}{kind} kind, "
            f"{core_h:.2f} core-h ({exact})")


def record_command(paper: str, scale: str, seed_dir: Path, run: str, normalised: bool = True) -> str:
    claims = [] if target_of(paper, scale) in CLAIMLESS else ["--claims", str(seed_dir / "claims.csv")]
    scores = ["--normalised", str(seed_dir / "normalised" / "aggregate.csv")] if normalised else []
    return shlex.join(["schedrl", "record", *claims, "--scale", scale, *scores, "--run", run])


def recorded_as(paper: str, scale: str, seed: int | None, scenario: int | None = None) -> str | None:
    """The run that recorded this seed already (the last in the paper's ``recorded_scores.csv`` under
    ``ROOT``: its agents' per-seed rows at ``scale``, of ``seed`` (None: any, a default run), on
    ``scenario <n>`` for mdp's scenario-seeds, of the committed recipe for a tuned one), or None. A
    seed recorded on another machine has no ``record.txt`` here: without this it would train again."""
    from schedrl.report.recorded import SCORES_FILE, read_recorded_scores

    rows = read_recorded_scores(ROOT / "src" / "schedrl" / "papers" / paper / SCORES_FILE)
    rows = rows[(rows["scale"] == scale) & (rows["role"] == "agent")]
    if seed is not None:
        rows = rows[rows["seed"].astype(str) == str(seed)]
    if scenario is not None:
        rows = rows[rows["workload"].astype(str) == f"scenario {scenario}"]
    if scale == "tuned" and len(rows):
        from schedrl.experiments.tune import recipe_id

        rows = rows[rows["recipe"].astype(str) == str(recipe_id(paper, ROOT / "config" / "tuned"))]
    return str(rows["run"].iloc[-1]) if len(rows) else None


def killed_segment(seed_dir: Path) -> bool:
    """Whether the seed's last Snakemake segment was killed: a timed_run heartbeat file whose process
    is gone, and none whose process lives (a run of this seed still going holds its lock rightly)."""
    pids = [f.name.rsplit("-", 1)[1].removesuffix(".json") for f in seed_dir.glob("segments.jsonl.open-*.json")]
    if not pids:
        return False
    timed_run = _load(Path(__file__).with_name("timed_run.py"), "timed_run")
    alive = [timed_run._alive(int(p)) for p in pids if p.isdigit()]
    return bool(alive) and not any(alive)


def modelled_cost(paper: str, configs: list[str], env) -> str:
    """``schedrl <paper> cost``'s line for the seed's configs (its cost model's core-hours, both machine
    kinds), or "" where it cannot say: what a seed will take, printed before it starts."""
    proc = subprocess.run(["schedrl", paper, "cost", "--spec", *configs], cwd=ROOT, env=env,
                          capture_output=True, text=True)
    lines = (proc.stdout or "").strip().splitlines() if proc.returncode == 0 else []
    return lines[-1] if lines else ""


def unlock_command(paper: str, scale: str, configs: list[str]) -> list[str]:
    return ["snakemake", target_of(paper, scale), "--unlock", "--configfile", *configs]


def _segments(seed_dir: Path) -> list[dict]:
    """The timed segments a seed (or step) appended to its ``segments.jsonl``, oldest first ([] for none)."""
    path = seed_dir / "segments.jsonl"
    return [json.loads(x) for x in path.read_text().splitlines() if x.strip()] if path.is_file() else []


def run_seed(paper: str, scale: str, seed: int | None, args, kind: str, scenario: int | None = None) -> int:
    """One seed's steps (``seed`` None: a default run's, its config's seeds in one run); 0 when done."""
    part = [f"scenario{scenario}"] if scenario is not None else []
    seed_dir = Path(args.out, scale, *part, paper if seed is None else f"seed{seed}")
    who = "the default run" if seed is None else f"seed {seed}"
    if (seed_dir / "record.txt").is_file():
        print(f"run_seeds: {who} done ({seed_dir / 'record.txt'})", file=sys.stderr)
        return 0
    if not args.again and (run := recorded_as(paper, scale, seed, scenario)) is not None:
        where = f" of scenario {scenario}" if scenario is not None else ""
        print(f"run_seeds: {who}{where} already recorded ({run}); --again trains it anew", file=sys.stderr)
        return 0
    extra = list(args.config)
    if scenario is not None:  # the scenario alone: an overlay of its own, kept beside the seed's files
        overlay = seed_dir / "scenario.yaml"
        if not args.dry_run:
            seed_dir.mkdir(parents=True, exist_ok=True)
            overlay.write_text(f"# run_seeds --scenario {scenario}\nmdp:\n  scenarios: [{scenario}]\n")
        extra.append(str(overlay))
    configs = configs_of(paper, scale, seed, extra, written=extra[len(args.config):])
    steps = commands(paper, scale, seed, configs, args.cores, seed_dir)
    if args.dry_run:
        print("\n".join(shlex.join(c) for c in steps))
        return 0
    missing = [] if args.allow_stand_in else missing_traces(paper, configs)
    if missing:
        print(f"run_seeds: {', '.join(missing)} not found in the config's traces.dirs (data/raw, ../shared/traces): "
              f"{paper} would train on a synthetic stand-in, not comparable with its recorded seeds; link the "
              "traces there, or pass --allow-stand-in", file=sys.stderr)
        return 2
    seed_dir.mkdir(parents=True, exist_ok=True)
    env = with_python_first(os.environ)
    if killed_segment(seed_dir):
        print(f"run_seeds: {who}: its last segment was killed; removing the lock it left "
              "(snakemake --unlock)", file=sys.stderr)
        subprocess.run(unlock_command(paper, scale, configs), cwd=ROOT, env=env, stdout=subprocess.DEVNULL)
    cost = modelled_cost(paper, configs, env)
    if cost:
        print(f"run_seeds: {paper} {scale} {'run' if seed is None else who}, modelled: {cost}", file=sys.stderr)
    for command in steps:
        rc = subprocess.run(command, cwd=ROOT, env=env).returncode
        if rc != 0:
            print(f"run_seeds: {who}: `{' '.join(command[command.index('--') + 1:][:2])} ...` exited {rc}; "
                  "run the same command again to resume", file=sys.stderr)
            return rc
    target = target_of(paper, scale)
    unbuilt = [] if args.allow_gaps else unbuilt_inputs(paper, scale, seed_dir / "normalised" / "gaps.csv")
    if unbuilt:
        print(f"run_seeds: {who}: {target} did not build {len(unbuilt)} input(s) of the normalised scores "
              f"({unbuilt[0]}{', ...' if len(unbuilt) > 1 else ''}); no record written: build them "
              f"(`snakemake {unbuilt[0]} --configfile ...`) and run again, or pass --allow-gaps", file=sys.stderr)
        return 1
    claims = ROOT / "results" / paper / "claims.csv"
    if target not in CLAIMLESS:
        if not claims.is_file():
            print(f"run_seeds: {claims}: not written by {target}", file=sys.stderr)
            return 1
        shutil.copyfile(claims, seed_dir / "claims.csv")
    training = [s for s in _segments(seed_dir) if "snakemake" in s["command"]]  # the run's cost, as earlier records count it
    name = {"tuned": "tuned recipe", "paper-budget": "paper budget", "default": "default"}[scale]
    what = args.what or (f"{name} ({target})"
                         + (f", scenario {scenario}" if scenario is not None else ""))
    run = label(training, what, seed, kind)
    (seed_dir / "record.txt").write_text(record_command(paper, scale, seed_dir, run) + "\n")
    print(f"run_seeds: {who} done; record it with:\n  {(seed_dir / 'record.txt').read_text().strip()}",
          file=sys.stderr)
    return 0


def _ranges(numbers: list[int]) -> str:
    """``"0-2"`` for 0, 1, 2 (``"0-1"`` for two), ``"0 and 2"``: no comma, which a run label splits on."""
    numbers = sorted(numbers)
    if len(numbers) > 1 and numbers == list(range(numbers[0], numbers[-1] + 1)):
        return f"{numbers[0]}-{numbers[-1]}"
    return " and ".join(map(str, numbers))


def together_label(segments: list[dict], parts: list[list[dict]], scenarios: list[int], seeds: list[int],
                   kind: str) -> str:
    """The together step's run name: its own date and commit, the scenarios and seeds, and the core-hours of
    the scenario-seed runs' Snakemake segments (``parts``) and its own summed."""
    first = segments[0]
    core_h = sum(float(s["core_hours"]) for s in [*segments, *(x for part in parts for x in part)])
    names = ", ".join(map(str, scenarios[:-1])) + f" and {scenarios[-1]}" if len(scenarios) > 1 else str(scenarios[0])
    return (f"{first['date'][:10]}, {first.get('commit') or 'commit unknown'}, paper budget (mdp_paper_budget), "
            f"scenarios {names} together (the {len(parts)} scenario-seed runs), "
            f"seed{'s' * (len(seeds) > 1)} {_ranges(seeds)}, {kind} kind, "
            f"{core_h:.2f} core-h (the runs' and this step's summed)")


def dry_run_trains(command: list[str], env) -> list[str]:
    """The ``mdp_train`` jobs a Snakemake command would run (its dry run's job table), or a one-item
    list saying the dry run failed."""
    proc = subprocess.run([*command, "-n"], cwd=ROOT, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        return [f"dry run exited {proc.returncode}"]
    return [line.split()[0] for line in proc.stdout.splitlines() if line.startswith("mdp_train")]


def together(scale: str, seeds: list[int], scenarios: list[int], args, kind: str) -> int:
    """mdp's seeds done so far put together over ``scenarios`` (see the module's text); 0 when done."""
    tag = f"together-scenarios{'-'.join(map(str, scenarios))}-seeds{'-'.join(map(str, seeds))}"
    out = Path(args.out, scale, tag)
    if (out / "record.txt").is_file():
        return 0
    parts = [[s for s in _segments(Path(args.out, scale, f"scenario{n}", f"seed{seed}")) if "snakemake" in s["command"]]
             for seed in seeds for n in scenarios]
    out.mkdir(parents=True, exist_ok=True)
    overlay = out / "together.yaml"
    overlay.write_text(f"# run_seeds: {tag}\nmdp:\n  scenarios: [{', '.join(map(str, scenarios))}]\n"
                       f"  seeds: [{', '.join(map(str, seeds))}]\n")
    configs = [*configs_of("mdp", scale, seeds[0], list(args.config), written=[])[:-1], str(overlay)]
    # SJF and uniform play write one file for every scenario of the spec, which each scenario's run rewrote with
    # its own alone: they play again over all (~2 CPU-minutes); nothing else is older than what it reads
    snakemake = ["snakemake", target_of("mdp", scale), "--cores", str(args.cores), "--rerun-triggers", "mtime",
                 "--forcerun", "mdp_sjf", "mdp_uniform", "--configfile", *configs]
    env = with_python_first(os.environ)
    if killed_segment(out):  # the step itself was killed: its lock stays until removed
        print(f"run_seeds: {tag}: its last segment was killed; removing the lock it left", file=sys.stderr)
        subprocess.run(unlock_command("mdp", scale, configs), cwd=ROOT, env=env, stdout=subprocess.DEVNULL)
    trains = dry_run_trains(snakemake, env)
    if trains:
        print(f"run_seeds: {tag}: not put together: the target would run {', '.join(trains)} (nothing may retrain; "
              "see the dry run: snakemake ... -n)", file=sys.stderr)
        return 1
    timed = [sys.executable, "scripts/timed_run.py", "--record", str(out / "segments.jsonl"), "--benchmarks",
             "benchmarks", "--"]
    rc = subprocess.run([*timed, *snakemake], cwd=ROOT, env=env).returncode
    if rc != 0:
        print(f"run_seeds: {tag}: snakemake exited {rc}; run the same command again to resume", file=sys.stderr)
        return rc
    shutil.copyfile(ROOT / "results" / "mdp" / "claims.csv", out / "claims.csv")
    run = together_label([s for s in _segments(out) if "snakemake" in s["command"]], parts, scenarios, seeds, kind)
    (out / "record.txt").write_text(record_command("mdp", scale, out, run, normalised=False) + "\n")
    print(f"run_seeds: {tag} done; record it with:\n  {(out / 'record.txt').read_text().strip()}", file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                epilog="Each seed: the target, `schedrl normalised`, claims and record.txt "
                                "under OUT/SCALE/seed<n>/ (see the module's text).")
    p.add_argument("paper", help=f"the paper ({', '.join(SEEDED)}: the ones whose seeds an overlay sets; any of "
                   f"{', '.join(PAPERS)} with --scale default)")
    p.add_argument("--scale", choices=SCALES, default="paper-budget",
                   help="paper-budget (config/paper-budget.yaml), tuned (and config/tuned/<paper>.yml) or default "
                   "(the paper's default target on config/config.yaml, one run with its own seeds); "
                   "default: %(default)s")
    p.add_argument("--seeds", type=int, nargs="+", default=None, metavar="N",
                   help="default: 0 1 2 (not with --scale default: config.yaml sets its seeds)")
    p.add_argument("--config", nargs="*", default=[], metavar="YAML",
                   help="more overlays, merged after the scale's files and before the seed's")
    p.add_argument("--cores", type=int, default=1, help="Snakemake's --cores (default: %(default)s)")
    p.add_argument("--what", default="", help="what ran, for the run's label (default: the scale and target)")
    p.add_argument("--out", default="results/seeds", help="where each seed's files go (default: %(default)s)")
    p.add_argument("--kind", choices=("faster", "slower"), default=None,
                   help="the machine kind for the labels (default: measured by benchmarks/bench_machine.py "
                   "when the first seed starts; a busy machine's matmul can read as the slower kind, so give "
                   "the kind bench_machine.py printed on a quiet machine when others run beside)")
    p.add_argument("--scenario", type=int, nargs="+", default=None, metavar="N",
                   help="mdp only: train scenario N alone (an overlay setting mdp.scenarios: [N]), each seed's files "
                   "under OUT/SCALE/scenarioN/: one scenario-seed fits a session and 5 core-hours on the slower kind "
                   "where a seed of the three does not; several: each seed's scenarios in turn (seed 0 of every scenario first), each its own run")
    p.add_argument("--dry-run", action="store_true", help="print each seed's commands and run nothing")
    p.add_argument("--again", action="store_true",
                   help="train a seed the paper's records already hold (recorded on another machine: no record.txt "
                        "here); by default it is skipped")
    p.add_argument("--allow-gaps", action="store_true",
                   help="write the record even where the target left an input of the normalised scores unbuilt")
    p.add_argument("--allow-stand-in", action="store_true",
                   help="run even where a real trace the paper reads is missing (its synthetic stand-in is used)")
    args = p.parse_args(argv)
    args.out = str(Path(args.out).resolve())
    if args.scale == "default":
        if args.paper not in PAPERS:
            p.error(f"paper {args.paper!r}: choose from {', '.join(PAPERS)}")
        if args.seeds is not None or args.scenario is not None:
            p.error("--seeds and --scenario are not for --scale default: its run trains the seeds and scenarios "
                    "config/config.yaml gives (add an overlay with --config to change them)")
    elif args.paper not in SEEDED:
        p.error(f"paper {args.paper!r}: its seeds are not set by config/seed/<n>.yaml (choose from: "
                f"{', '.join(SEEDED)}; sem trains its seeds as one run)")
    if args.scenario is not None and args.paper != "mdp":
        p.error("--scenario is mdp's (its seeds train three scenarios; the others' a seed is one run)")
    if args.scenario is not None:
        from schedrl.papers.mdp.layout import SCENARIOS

        if unknown := sorted(set(args.scenario) - set(SCENARIOS)):
            p.error(f"--scenario {' '.join(map(str, unknown))}: the MDP paper's Table 3 has scenarios "
                    f"{min(SCENARIOS)}..{max(SCENARIOS)}")
    seeds = [None] if args.scale == "default" else (args.seeds if args.seeds is not None else [0, 1, 2])
    if args.cores < 1 or any(s < 0 for s in seeds if s is not None):
        p.error("--cores must be >= 1 and --seeds >= 0")
    kind = args.kind or ("unknown" if args.dry_run else machine_kind())
    done = []
    for seed in seeds:  # a seed's scenarios first: a whole seed of every scenario is done soonest
        for scenario in args.scenario or [None]:
            rc = run_seed(args.paper, args.scale, seed, args, kind, scenario)
            if rc:
                return rc
        if not args.scenario or len(args.scenario) < 2 or args.scale != "paper-budget" or args.dry_run:
            continue
        # put together only the seeds whose scenario runs are on this disk (one recorded elsewhere has no files)
        here = [n for n in sorted(args.scenario) if Path(args.out, args.scale, f"scenario{n}", f"seed{seed}",
                                                         "record.txt").is_file()]
        if len(here) < len(args.scenario):
            print(f"run_seeds: seed {seed} is not put together: scenario(s) {', '.join(map(str, sorted(set(args.scenario) - set(here))))} "
                  "recorded on another machine (Fig. 4 over seeds reads the records: schedrl status)", file=sys.stderr)
            continue
        done.append(seed)
        rc = together(args.scale, done, sorted(args.scenario), args, kind)
        if rc:
            return rc
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT / "src"))
    sys.exit(main())
