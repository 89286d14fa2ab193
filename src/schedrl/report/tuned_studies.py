"""The tuned studies at a glance (issue 69), generated from the files that hold them.

Per paper, from its committed study (``config/tuned/<paper>.yml``, ``.trials.csv``,
``.references.csv``; ``schedrl tune <paper> --write-config``) and its recorded tuned run:

* what the study covered: trials (complete, pruned), seeds x steps per trial, CPU core-hours summed
  over the trials' own ``cpu_s`` (the learning probes and the references are not in it);
* the recipe: the trial its header names, that trial's validation score, its learning probe (the
  header's line, ``schedrl.experiments.tune.recipe_probe``), and where the study's probe gate was
  rechecked (``tune.gate_recheck``), how many pruned trials learn after all;
* where that score sits on the validation references' own scale (random valid play 0, the best
  heuristic the study scored 1; ``normalised.headroom``'s scale, here on validation workloads): a
  study whose random valid play matches or beats every heuristic it scored has no scale, and says so;
* the recorded tuned run at the paper's budget: its best agent's IQM normalised score on the test
  split, if the run trained this recipe (``recorded_scores.csv``'s ``recipe`` against
  ``tune.recipe_id``), else which one it trained;
* per test workload of the latest recipe's recorded tuned runs (``per_workload_rows``): each tuned
  agent's normalised score, mean over its seeds with each seed's, beside the untrained network and
  uniform play there, the best heuristic that anchors 1, and the best agent of the paper's own recipe
  at its budget on the same workload (``recorded_scores.csv``'s paper-budget rows; sem's default ones, its
  default being its budget), so a paper's
  "+0.30 on one trace, -0.70 on the other" is read from the records, not typed.

``schedrl status --write`` writes the block into docs/tuned-agents.md (``tuned_block``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from schedrl.errors import InputFileError
from schedrl.report.status_tables import mean_of, score_text, value_text

#: a reference whose name says it plays no schedule of its own choosing (not a heuristic)
NOT_HEURISTIC = ("random", "uniform", "untrained")
_CHOSEN = re.compile(r"^# trial (\d+) of a study", re.M)
_DATE = re.compile(r"\b(\d{4}-\d{2}-\d{2}), commit (\w+)")
_UNIT = re.compile(r"a step is (?:a |an )?([^:;\n]+)")


@dataclass(frozen=True)
class Study:
    """One paper's committed study, as its files say."""

    paper: str
    trials: int
    complete: int
    pruned: int
    seeds: int
    steps: int
    core_h: float
    chosen: int | None  # the recipe's trial (its header), None where the header does not say
    value: float | None  # that trial's validation score (higher is better)
    random: tuple[str, float] | None  # random valid play's (name, score)
    best: tuple[str, float] | None  # the best-scoring heuristic's (name, score)
    probe: str | None  # the recipe header's learning-probe finding
    date: str = ""
    commit: str = ""
    unit: str = ""  # what a step is where it is not an agent step (the header's "a step is ...")
    regate: object = None  # tune.GateRecheck: the study's probe gate probed again, None where never

    def position(self) -> float | None:
        """The recipe's validation score on the references' scale (random valid play 0, the best
        heuristic 1); None where there is no scale (a missing anchor, or random play not below it)."""
        if self.value is None or self.random is None or self.best is None or self.best[1] <= self.random[1]:
            return None
        return (self.value - self.random[1]) / (self.best[1] - self.random[1])


def _split_references(refs: pd.DataFrame) -> tuple[tuple[str, float] | None, tuple[str, float] | None]:
    """(random valid play, the best heuristic) of a study's ``references.csv`` rows."""
    names = refs["reference"].astype(str)
    random = refs[names.str.lower().str.startswith("random valid")]
    heuristics = refs[~names.str.lower().str.contains("|".join(NOT_HEURISTIC))]
    return _top(random), _top(heuristics)


def _top(frame: pd.DataFrame) -> tuple[str, float] | None:
    """(name, score) of the highest-scoring row; None where there is none."""
    if frame.empty:
        return None
    return str(frame.loc[frame["score"].idxmax(), "reference"]), float(frame["score"].max())


def read_study(paper: str, tuned_dir: str | Path) -> Study | None:
    """The committed study of ``paper`` under ``tuned_dir``; None where it has no recipe. A recipe
    without its ``trials.csv`` is an ``InputFileError`` naming the missing file."""
    tuned_dir = Path(tuned_dir)
    recipe = tuned_dir / f"{paper}.yml"
    if not recipe.is_file():
        return None
    trials_path = tuned_dir / f"{paper}.trials.csv"
    if not trials_path.is_file():
        raise InputFileError(trials_path, f"missing: {recipe}'s study (schedrl tune {paper} --write-config writes both)")
    header = recipe.read_text()
    trials = pd.read_csv(trials_path)
    state = trials["state"].astype(str)
    complete = trials[state == "complete"]
    found = _CHOSEN.search(header)
    chosen = int(found.group(1)) if found else None
    row = trials[trials["number"] == chosen] if chosen is not None else trials.iloc[:0]
    refs_path = tuned_dir / f"{paper}.references.csv"
    refs = pd.read_csv(refs_path) if refs_path.is_file() else pd.DataFrame(columns=["reference", "score"])
    random, best = _split_references(refs)
    done = complete if len(complete) else trials
    from schedrl.experiments.tune import gate_recheck, recipe_probe

    when, unit = _DATE.search(header), _UNIT.search(header.splitlines()[0] if header else "")
    return Study(paper=paper, trials=len(trials), complete=len(complete), pruned=int((state == "pruned").sum()),
                 seeds=int(done["seed_values"].astype(str).str.split().map(len).max()) if len(done) else 0,
                 steps=int(done["steps_per_seed"].max()) if len(done) else 0,
                 core_h=float(trials["cpu_s"].sum()) / 3600.0, chosen=chosen,
                 value=float(row["value"].iloc[0]) if len(row) else None, random=random, best=best,
                 probe=recipe_probe(paper, tuned_dir),
                 date=when.group(1) if when else "", commit=when.group(2) if when else "",
                 unit=unit.group(1).strip() if unit else "", regate=gate_recheck(paper, tuned_dir))


def _probe_word(probe: str | None) -> str:
    if probe is None:
        return "not probed"
    return "passes" if probe.startswith("passed") else "fails"


def recorded_tuned(status, paper: str, tuned_dir: str | Path) -> str:
    """The paper's recorded tuned run at the paper's budget, as far as it trained the committed
    recipe: its best agent's IQM normalised score (test split; the tuned runs of one recipe merged
    where two or more were recorded), or which recipe it trained."""
    from schedrl.experiments.tune import recipe_id
    from schedrl.report.normalised import best_agent_row

    if status is None or status.tuned is None:
        return "not yet run"
    date = status.tuned.label.date or "undated"
    trained, now = status.tuned_recipe, recipe_id(paper, tuned_dir) or ""
    if trained and trained != now:
        return f"not yet run (the recorded tuned run, {date}, trained recipe {trained}, an earlier study's)"
    runs, merged = status.merged.get("tuned", ([], None))
    frame = merged if runs else (status.normalised[status.normalised["run"] == status.tuned.run]
                                 if status.normalised is not None else None)
    r = best_agent_row(frame) if frame is not None and len(frame) else None
    if r is None:
        return f"recorded {date}, no normalised score recorded"
    from schedrl.report.status_tables import iqm_text

    seeds = int(r["seeds"])
    return f"{iqm_text(r)} {r['player']} ({seeds} seed{'s' if seeds != 1 else ''}, {date})"


HEADER = ["paper", "study", "recipe (validation score)", "random valid play", "best heuristic",
          "recipe on that scale", "learning probe", "at the paper's budget (IQM, test)"]


def study_row(paper: str, study: Study | None, status, tuned_dir: str | Path) -> list[str]:
    if study is None:
        return [f"`{paper}`", "no study committed yet", "", "", "", "", "", ""]
    covered = (f"{study.trials} trials ({study.complete} complete, {study.pruned} pruned), {study.seeds} seeds x "
               f"{study.steps:,} steps" + (f" (a step: {study.unit})" if study.unit else "") + f", {study.core_h:.2f} core-h" + (f"; {study.date}, {study.commit}" if study.date else ""))
    recipe = f"trial {study.chosen} ({value_text(study.value)})" if study.value is not None else "not named"
    random = value_text(study.random[1]) if study.random else "not scored"
    best = f"{study.best[0]} {value_text(study.best[1])}" if study.best else "not scored"
    where = study.position()
    if where is not None:
        place = f"{where:.2f}"
    elif study.random is not None and study.best is not None:
        place = "no scale: random valid play matches or beats every heuristic scored"
    else:
        place = "no scale: references not scored"
    probe = _probe_word(study.probe)
    if study.regate is not None and study.regate.wrongly_pruned:
        probe += (f"; the study's gate, rechecked ({study.regate.when}), pruned {study.regate.wrongly_pruned} "
                  "trial(s) that pass today: no headroom verdict")
    return [f"`{paper}`", covered, recipe, random, best, place, probe,
            recorded_tuned(status, paper, tuned_dir)]


WORKLOAD_HEADER = ["paper", "workload (metric)", "best heuristic (= 1)", "tuned agent", "normalised: mean (per seed)",
                   "untrained network", "uniform play", "paper's recipe at its budget (best agent)"]


def per_workload_rows(paper: str, scores: pd.DataFrame | None, committed: str = "") -> list[list[str]]:
    """One row per (test workload, tuned agent) of the latest recipe's recorded tuned runs, from the
    per-seed normalised scores (``recorded_scores.csv``; a (workload, player, seed) recorded twice: the
    later one, scored on the pooled anchors, as ``recorded.merged_normalised`` pools them). Workloads without a scale (``anchor`` not
    ``ok``: random valid play matches every heuristic, or an anchor is missing) are left out. A run of
    another recipe than ``committed`` (``tune.recipe_id``; "" : not checked) says which it trained."""
    from schedrl.report.recorded import (
        DEFAULT_IS_PAPER_BUDGET,
        RECIPE_COLUMN,
        pooled_rows,
        rescored,
        scale_rows,
    )

    if scores is None or not len(scores):
        return []
    tuned = scale_rows(scores, "tuned")
    if not len(tuned):
        return []
    trained = str(tuned[RECIPE_COLUMN].iloc[-1]) if RECIPE_COLUMN in tuned.columns else ""
    other = f" (recipe {trained}, an earlier study's)" if committed and trained not in ("", "nan", committed) else ""
    # a paper whose default trains at the paper's budget (sem) records those runs as default
    budget_scale = "default" if paper in DEFAULT_IS_PAPER_BUDGET else "paper-budget"
    tuned, budget = rescored(pooled_rows(tuned)), rescored(pooled_rows(scale_rows(scores, budget_scale)))
    rows = []
    for workload, here in tuned.groupby("workload", sort=True):
        if set(here["anchor"].astype(str)) != {"ok"}:
            continue
        first = here.iloc[0]
        anchor = f"{first['best_heuristic']} ({value_text(float(first['best_heuristic_value']))})"
        refs = {role: mean_of(here[here["role"] == role], "normalised") for role in ("untrained", "uniform")}
        theirs = budget[(budget["workload"] == workload) & (budget["role"] == "agent")
                        & (budget["anchor"].astype(str) == "ok")]
        means = {player: mean_of(g, "normalised") for player, g in theirs.groupby("player")}
        means = {k: v for k, v in means.items() if v is not None}
        best = max(means, key=means.get) if means else None
        recipe = f"{means[best]:+.2f} {best}" if best else "not recorded"
        for player, g in here[here["role"] == "agent"].groupby("player", sort=False):
            g = g.sort_values("seed")
            per_seed = ", ".join(score_text(v) for v in g["normalised"])
            rows.append([f"`{paper}`", f"{workload} ({first['metric']})", anchor, player + other,
                         f"**{score_text(mean_of(g, 'normalised'))}** ({per_seed})",
                         score_text(refs["untrained"]), score_text(refs["uniform"]),
                         recipe])
    return rows


def tuned_block(statuses, tuned_dir: str | Path | None = None) -> str:
    """The generated block of docs/tuned-agents.md: one row per paper (``statuses``: the papers'
    ``PaperStatus`` in order)."""
    from schedrl.experiments.tune import TUNED_DIR
    from schedrl.report.status_tables import BEGIN, END, _table

    tuned_dir = Path(tuned_dir) if tuned_dir is not None else TUNED_DIR
    rows = [study_row(s.paper, read_study(s.paper, tuned_dir), s, tuned_dir) for s in statuses]
    lines = [BEGIN, "", "Generated by `schedrl status --write` from `config/tuned/` (each study's trials, references "
             "and recipe header) and the recorded tuned runs. Scores are the study's own (higher is better), on "
             "its validation workloads; *recipe on that scale*: random valid play 0, the best heuristic the study "
             "scored 1. The last column is the recorded run of this recipe at the paper's budget on the test "
             "split, the README's normalised scale.", "", *_table(HEADER, rows), ""]
    from schedrl.experiments.tune import recipe_id

    per_workload = [row for s in statuses
                    for row in per_workload_rows(s.paper, getattr(s, "scores", None), recipe_id(s.paper, tuned_dir) or "")]
    if per_workload:
        lines += ["Each test workload of the recorded tuned runs (the committed recipe's; `recorded_scores.csv`): the "
                  "normalised score (random valid play 0, the named heuristic 1) of every tuned agent, mean over its "
                  "seeds and each seed's, beside the untrained network and uniform play there (mean over their seeds "
                  "and players) and the best agent of the paper's own recipe at its budget on the same workload "
                  "where a paper-budget run recorded one.", "", *_table(WORKLOAD_HEADER, per_workload), ""]
    from schedrl.report.recipe_probes import probes_block

    lines += [probes_block(), ""]  # the papers' own recipes, beside the tuned ones' probes
    return "\n".join([*lines, END])
