"""One package per paper, all of the same shape, over the paper-free core.

``schedrl.papers.<paper>`` holds

* what runs for the paper, calling into the core (workloads, sim, envs, agents), never re-implementing
  it: ``experiments.py`` while small (runtime, sem); split by concern where it grew (deeprm, mdp,
  mrsch): ``layout.py`` (names, spec checks, folders, the rules' file lists), ``training.py``,
  ``references.py`` (no-learning and outside players), ``evaluation.py`` (play, tables, statistics),
  ``cost.py`` (the cost model);
* ``figures.py`` -- one function per figure or table of the paper, named after it (``fig5_4``,
  ``table3``), and ``TARGETS``: every file the paper's Snakemake rules build, with the rule and
  the function behind it (``schedrl figures`` lists them);
* ``claims.py`` -- ``claims_rows(...)``: ours next to the paper's value, with a verdict;
* ``paper_values.yaml`` -- every number transcribed from the paper, each with its unit, its source
  (table, figure or section) and the tolerance its claim uses (read with ``paper_values(name)``).

The core (everything outside ``schedrl.papers`` and ``schedrl.commands``) never imports this
package; ``tests/test_architecture.py`` enforces that with import-linter contracts.
"""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType

from schedrl.errors import ConfigError
from schedrl.papers.targets import Target
from schedrl.papers.values import PaperValues, paper_values

#: Short name -> (title, text file in ../shared/papers/), in the order of the README and the report.
PAPERS: dict[str, tuple[str, str]] = {
    "sem": ("Scalable state encoding for RL HPC schedulers", "sem-encoding.txt"),
    "mdp": ("MDP design choices for DeepRM-style schedulers", "mdp-design.txt"),
    "deeprm": ("DeepRM with Stable-Baselines3", "deeprm-sb3-report.txt"),
    "mrsch": ("MRSch: multi-resource scheduling with DFP", "mrsch.txt"),
    "runtime": ("Runtime predictions in DRL scheduling", "runtime-prediction.txt"),
}

__all__ = ["PAPERS", "PaperValues", "Target", "figures_module", "implemented", "over_seeds", "paper_values",
           "recipe_trainers", "status_bullets", "titles"]


def titles() -> dict[str, str]:
    """Short name -> report heading ("title (file)")."""
    return {name: f"{title} ({text})" for name, (title, text) in PAPERS.items()}


def implemented() -> list[str]:
    """Papers whose package exists (in ``PAPERS`` order)."""
    return [name for name in PAPERS if importlib.util.find_spec(f"schedrl.papers.{name}") is not None]


def figures_module(paper: str) -> ModuleType:
    """``schedrl.papers.<paper>.figures`` (ConfigError for an unknown or not yet added paper)."""
    if paper not in PAPERS:
        raise ConfigError(f"unknown paper '{paper}' (known: {', '.join(PAPERS)})")
    if paper not in implemented():
        raise ConfigError(f"paper '{paper}' has no package yet (its issue has not landed)")
    return importlib.import_module(f"schedrl.papers.{paper}.figures")


def over_seeds(paper: str, scores) -> list:
    """A paper's own verdicts over seeds from its recorded per-seed scores (``recorded_scores.csv``'s
    frame, or None): ``schedrl.papers.<paper>.over_seeds.seed_lines``'s sections ((title, markdown
    lines) each) where the paper has that module (mdp: its scenario-seeds are runs of their own), else []."""
    if scores is None or not len(scores) or importlib.util.find_spec(f"schedrl.papers.{paper}.over_seeds") is None:
        return []
    return importlib.import_module(f"schedrl.papers.{paper}.over_seeds").seed_lines(scores)


def status_bullets(paper: str, scores) -> list[str]:
    """A paper's own generated bullets of its status.md from its recorded per-seed scores (as
    ``over_seeds``): ``schedrl.papers.<paper>.over_seeds.status_bullets``'s markdown lines, unwrapped,
    where the paper has that module (mdp: Fig. 4 per seed), else []."""
    if scores is None or not len(scores) or importlib.util.find_spec(f"schedrl.papers.{paper}.over_seeds") is None:
        return []
    return importlib.import_module(f"schedrl.papers.{paper}.over_seeds").status_bullets(scores)


def recipe_trainers(paper: str, spec: dict) -> list[tuple[str, dict]]:
    """(player, trainer) of every agent ``paper``'s configured runs train, as the learning probe
    trains them (``schedrl.experiments.probes.train_trainer``'s descriptions; ``schedrl probe``):
    ``schedrl.papers.<paper>.tuning.recipe_trainers`` of its checked config section ``spec``."""
    return importlib.import_module(f"schedrl.papers.{paper}.tuning").recipe_trainers(spec)
