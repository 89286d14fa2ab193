"""``schedrl probe``: the learning probe of each paper's own recipes (schedrl.report.recipe_probes)."""

from __future__ import annotations

#: scale -> the config file its runs read (in the repository's config/)
CONFIGS = {"default": "config.yaml", "paper-budget": "paper-budget.yaml"}


def register(subparsers) -> None:
    from schedrl.papers import PAPERS

    p = subparsers.add_parser(
        "probe",
        help="the learning probe of the papers' own recipes (default scale, paper budget)",
        description="Train every distinct trainer that a paper's runs train at default scale and at the paper's "
        "budget (its algorithm and hyperparameters as the config gives them) on the learning probe's case "
        "(schedrl.experiments.probes: one node, rounds of one long and three short jobs; SJF is known to be "
        "better) and check on held-out episodes that it beats FCFS and random play by 30% from the state. A "
        "recipe that fails is probed again at 4x the probe's budget; its summary says so. Prints one line per "
        "(paper, scale, player); --write records them in config/recipe-probes.csv, which the status table "
        "reads (a default or paper-budget agent whose trainer fails reads 'trainer fails probe'). All five papers: "
        "15 distinct recipes, ~40 CPU-minutes (2026-12-07, faster kind).",
    )
    p.add_argument("papers", nargs="*", metavar="PAPER", help=f"papers to probe (default: all; {', '.join(PAPERS)})")
    p.add_argument("--scale", nargs="+", choices=tuple(CONFIGS), default=list(CONFIGS),
                   help="which runs' recipes (default: both)")
    p.add_argument("--work", default="results/recipe-probes", metavar="DIR",
                   help="folder for the probe's training runs (default: %(default)s)")
    p.add_argument("--write", nargs="?", const="", default=None, metavar="CSV",
                   help="record the findings (default when given alone: config/recipe-probes.csv), replacing "
                   "the rows of every (paper, scale) probed")
    p.set_defaults(func=run)


def trainers_of(papers: list[str], scales: list[str]) -> list[dict]:
    """One row per (paper, scale, player, trainer) the configs' runs train: ``player``, ``trainer``
    (its description) and ``id`` (``probes.trainer_id``)."""
    from schedrl.commands import load_spec
    from schedrl.experiments.probes import trainer_id
    from schedrl.experiments.tune import TUNED_DIR
    from schedrl.papers import recipe_trainers

    rows = []
    for scale in scales:
        for paper in papers:
            spec = load_spec(paper, str(TUNED_DIR.parent / CONFIGS[scale]))
            seen = set()
            for player, trainer in recipe_trainers(paper, spec):
                key = (player, trainer_id(trainer))
                if key not in seen:
                    seen.add(key)
                    rows.append({"paper": paper, "scale": scale, "player": player, "trainer": trainer, "id": key[1]})
    return rows


def run(args) -> int:
    import datetime
    import time
    from pathlib import Path

    import pandas as pd

    from schedrl.codepaths import native_capability
    from schedrl.commands.tune import _commit
    from schedrl.errors import ConfigError
    from schedrl.experiments.probes import probe_recipe, trainer_text
    from schedrl.papers import PAPERS
    from schedrl.report import recipe_probes as rp

    unknown = [p for p in args.papers if p not in PAPERS]
    if unknown:
        raise ConfigError(f"probe: no paper '{unknown[0]}' (choose from: {', '.join(PAPERS)})")
    rows = trainers_of(args.papers or list(PAPERS), args.scale)
    found: dict[str, tuple[str, float]] = {}  # trainer id -> (summary, CPU seconds): each distinct recipe once
    date, commit = datetime.date.today().isoformat(), _commit() or "unknown"
    machine = "faster kind" if native_capability() == "AVX512" else "slower kind"
    out = []
    for r in rows:
        first = r["id"] not in found
        if first:
            t0 = time.process_time()
            probe = probe_recipe(r["trainer"], Path(args.work) / r["id"])
            found[r["id"]] = (probe.summary(), time.process_time() - t0)
            for line in probe.lines:
                print(f"  {r['id']} {line}", flush=True)
        summary, cpu = found[r["id"]]
        print(f"{r['paper']} {r['scale']} {r['player']} [{r['id']}]: {summary}", flush=True)
        trainer = r["trainer"]
        out.append({"paper": r["paper"], "scale": r["scale"], "player": r["player"], "trainer": r["id"],
                    "kind": trainer["kind"], "algo": trainer.get("algo", trainer["kind"]),
                    "recipe": trainer_text(trainer), "probe": summary,
                    "date": date, "commit": commit, "machine": machine,
                    "cpu_s": f"{cpu:.0f}" if first else ""})  # a recipe's CPU once, where it was probed
    if args.write is not None:
        path = Path(args.write or rp.FILE)
        merged = rp.merge_recipe_probes(rp.read_recipe_probes(path), pd.DataFrame(out, columns=rp.COLUMNS))
        rp.write_recipe_probes(merged, path)
        print(f"{path}: {len(out)} rows of {len({(r['paper'], r['scale']) for r in out})} (paper, scale)")
    return 0
