"""The learning probe of each paper's own recipes (``schedrl probe``), committed beside the tuned ones.

A verdict on an agent counts only when its trainer learns (issue 41). Tests probe SB3's default
blocks, DeepRM's and SEM's REINFORCE and DFP (``tests/test_learning_probes.py``), and a tuned recipe
carries its probe in its header (issue 69); the recipes the papers' runs train at default scale and at
the paper's budget (mdp's Table 2 PPO, runtime's 1024-512-256 PPO, deeprm's per-variant learning
rates, ...) are probed here, one row per (paper, scale, player, trainer), so that the status table can
say where a default or paper-budget agent's trainer fails. ``trainer``: ``probes.trainer_id`` of the
description probed, so a recipe changed since reads as not probed.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from schedrl.errors import InputFileError

#: config/recipe-probes.csv (committed, like config/tuned/; written by ``schedrl probe --write``)
FILE = Path(__file__).resolve().parents[3] / "config" / "recipe-probes.csv"
KEY = ["paper", "scale", "player", "trainer"]
COLUMNS = KEY + ["kind", "algo", "recipe", "probe", "date", "commit", "machine", "cpu_s"]


def read_recipe_probes(path: str | Path | None = None) -> pd.DataFrame:
    """The recorded probes of ``path`` (default ``FILE``; an empty frame where the file is missing); a
    file without ``COLUMNS`` is an ``InputFileError`` naming it."""
    path = Path(path if path is not None else FILE)
    if not path.is_file():
        return pd.DataFrame(columns=COLUMNS)
    frame = pd.read_csv(path, dtype=str, keep_default_na=False)
    missing = [c for c in COLUMNS if c not in frame.columns]
    if missing:
        raise InputFileError(path, f"recipe probes lack column(s) {', '.join(missing)}")
    return frame[COLUMNS]


def merge_recipe_probes(old: pd.DataFrame, new: pd.DataFrame) -> pd.DataFrame:
    """``old`` with every (paper, scale) that ``new`` holds replaced by ``new``'s rows (a recipe probed
    again, or a player no longer trained, leaves no stale row), sorted by ``KEY``."""
    pairs = set(zip(new["paper"], new["scale"]))
    kept = old[[(p, s) not in pairs for p, s in zip(old["paper"], old["scale"])]]
    frames = [f for f in (kept, new[COLUMNS]) if len(f)]
    out = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=COLUMNS)
    return out.sort_values(KEY, kind="stable").reset_index(drop=True)


def write_recipe_probes(frame: pd.DataFrame, path: str | Path | None = None) -> None:
    path = Path(path if path is not None else FILE)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".csv.tmp")
    frame[COLUMNS].to_csv(tmp, index=False)
    tmp.replace(path)


def probe_of(values) -> str | None:
    """One probe finding for rows that recorded ``values`` (a tuned run's ``normalised.PROBE_COLUMN``,
    or a recipe's ``probe``): a failing one where any failed, else a passing one; None where none is."""
    found = [str(v) for v in values if isinstance(v, str) and v and v != "nan"]
    if not found:
        return None
    return next((v for v in found if not v.startswith("passed")), found[0])


def recipe_probe_of(frame: pd.DataFrame | None, paper: str, scale: str, player: str) -> str | None:
    """What the probe found for the trainer(s) behind ``player`` at ``scale``: a failing finding where
    any of them failed, else a passing one; None where none was probed. A player's variant ("SEM agent
    (DRAS's process)") trains its base player's recipe ("SEM agent") where it has no row of its own."""
    if frame is None or not len(frame):
        return None
    here = frame[(frame["paper"] == paper) & (frame["scale"] == scale)]
    for name in (player, player.split(" (")[0]):
        rows = here[here["player"] == name]
        if len(rows):
            return probe_of(rows["probe"])
    return None


def trainer_probe(paper: str, scale: str, player: str, recorded: str | None = None,
                  frame: pd.DataFrame | None = None) -> str | None:
    """The learning probe of the trainer behind ``player`` at ``scale``, the one rule the status lines,
    the README figure and the report share: a tuned run's as ``recorded`` with it, else the committed
    recipe's header (``tune.recipe_probe``); the paper's own recipe's from ``frame`` (default:
    config/recipe-probes.csv) at any other scale."""
    if scale == "tuned":
        from schedrl.experiments.tune import recipe_probe

        return recorded if recorded is not None else recipe_probe(paper)
    return recipe_probe_of(read_recipe_probes() if frame is None else frame, paper, scale, player)


def run_probes(trainers: list[tuple[str, dict]], frame: pd.DataFrame | None = None) -> dict[str, str | None]:
    """What the probe found for each player a run trains (``trainers``: (player, trainer) as a paper's
    ``recipe_trainers`` gives them for its config), looked up by trainer id in ``frame`` (default: the
    committed file) whatever scale probed it, so a recipe changed since reads as not probed (None); a
    failing finding where any of the player's trainers failed, None where one is not probed."""
    from schedrl.experiments.probes import trainer_id

    frame = read_recipe_probes() if frame is None else frame
    found: dict[str, list[str | None]] = {}
    for player, trainer in trainers:
        found.setdefault(player, []).append(probe_of(frame.loc[frame["trainer"] == trainer_id(trainer), "probe"]))
    out = {}
    for player, probes in found.items():
        failing = [p for p in probes if p is not None and not p.startswith("passed")]
        out[player] = failing[0] if failing else None if None in probes else probes[0]
    return out


def probes_block(frame: pd.DataFrame | None = None) -> str:
    """Markdown: the recorded probes, one row per (paper, scale, recipe) with the players it trains;
    docs/tuned-agents.md's second generated table (``schedrl status --write``)."""
    from schedrl.plots.tables import markdown_table

    frame = read_recipe_probes() if frame is None else frame
    head = ("The papers' own recipes through the learning probe (`schedrl probe --write`, "
            "`config/recipe-probes.csv`): every distinct trainer the default and paper-budget runs train, as the "
            "config gives it, on the probe's case (one node; rounds of one long and three short jobs; it must beat "
            "FCFS and random play by 30% on held-out rounds, from the state: the zeroed-observation control must "
            "not; the case's rewards scaled to the paper's returns where the recipe says so). A recipe that fails at the probe's budget is probed again at 4x; *passed at 4x* is a slow "
            "learner, not a blind one.")
    if not len(frame):
        return head + "\n\nNo recipe probed yet."
    rows = []
    for (paper, scale, trainer), g in frame.groupby(["paper", "scale", "trainer"], sort=True):
        first = g.iloc[0]
        rows.append({"paper": f"`{paper}`", "scale": scale.replace("-", " "), "players": ", ".join(g["player"]),
                     "trainer": f"{first['algo']} `{trainer}`: {first['recipe']}", "learning probe": first["probe"],
                     "probed": f"{first['date']}, {first['commit']}, {first['machine']}"})
    return head + "\n\n" + markdown_table(pd.DataFrame(rows))
