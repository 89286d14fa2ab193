"""Best-model selection during SB3 training: every ``check_every`` env steps, play ``episodes``
episodes on an evaluation env and keep the model whose mean return is the highest so far (``>=``:
a later check wins a tie), as the SB3 DeepRM report's training code chose its model.

Files in the run folder:

==========================  =====================================================================
``best_model.zip``          the model of the best check so far
``selection.csv``           one row per check: step, return (mean over the episodes), best_so_far
``selection.json``          the selection's settings and state (best return and its step, checks)
``checkpoints/step_<n>.*``  ``.selection.json`` and ``.best.zip``: the state at checkpoint n, so a
                            run resumed from n continues the selection as it stood at n
==========================  =====================================================================

Checks are reproducible and leave training untouched: the check's action sampling draws from
torch's RNG reseeded from (run seed, step), and the training RNG state is restored afterwards, so a
run trains bit for bit the same with or without selection.
"""

from __future__ import annotations

import shutil
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from schedrl.errors import ConfigError
from schedrl.io import atomic_path, link_or_copy, read_json, write_json

__all__ = ["BEST_MODEL", "SELECTION_CSV", "SELECTION_STATE", "BestModelSelector", "Selection",
           "read_selection", "selection_files"]

BEST_MODEL = "best_model.zip"
SELECTION_CSV = "selection.csv"
SELECTION_STATE = "selection.json"


@dataclass(frozen=True)
class Selection:
    """How a run picks its best model. ``env_kwargs``: overrides of the training env's keyword
    arguments for the evaluation env (e.g. a fixed job sequence); ``deterministic``: greedy actions
    instead of sampled ones (the report's code sampled: Stable-Baselines' ``predict`` default)."""

    check_every: int
    episodes: int = 1
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    deterministic: bool = False

    def __post_init__(self):
        if int(self.check_every) < 1:
            raise ConfigError(f"selection check_every must be >= 1, got {self.check_every}")
        if int(self.episodes) < 1:
            raise ConfigError(f"selection episodes must be >= 1, got {self.episodes}")

    @classmethod
    def from_dict(cls, data: dict | None) -> Selection | None:
        if not data:
            return None
        unknown = sorted(set(data) - {"check_every", "episodes", "env_kwargs", "deterministic"})
        if unknown:
            raise ConfigError(f"selection: unknown key(s) {', '.join(unknown)}")
        if "check_every" not in data:
            raise ConfigError("selection: check_every is required")
        return cls(int(data["check_every"]), int(data.get("episodes", 1)), dict(data.get("env_kwargs") or {}),
                   bool(data.get("deterministic", False)))

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "check_every": int(self.check_every), "episodes": int(self.episodes)}


def selection_files(run_dir: str | Path) -> list[Path]:
    run_dir = Path(run_dir)
    return [run_dir / BEST_MODEL, run_dir / SELECTION_CSV, run_dir / SELECTION_STATE]


def read_selection(run_dir: str | Path) -> dict | None:
    """The run's selection state (``selection.json``) when it has a best model, else None."""
    run_dir = Path(run_dir)
    if not (run_dir / BEST_MODEL).exists() or not (run_dir / SELECTION_STATE).exists():
        return None
    return read_json(run_dir / SELECTION_STATE)


def _play(model, env, episodes: int, deterministic: bool, seed: int) -> float:
    """Mean return of ``episodes`` episodes (the first reset seeded), actions masked where supported."""
    from schedrl.envs.rollout import sb3_policy

    policy = sb3_policy(model, deterministic=deterministic)
    total = 0.0
    for ep in range(episodes):
        obs, info = env.reset(seed=seed if ep == 0 else None)
        done = False
        while not done:
            obs, reward, terminated, truncated, info = env.step(policy(obs, info))
            total += float(reward)
            done = terminated or truncated
    return total / episodes


class BestModelSelector:
    """The selection of one training segment; ``train`` calls ``after_step`` from its callback,
    ``snapshot`` at every checkpoint and ``restore`` before training resumes."""

    def __init__(self, selection: Selection, run_dir: str | Path, make_eval_env, seed: int):
        self.selection, self.run_dir, self.seed = selection, Path(run_dir), int(seed)
        self.make_eval_env = make_eval_env
        self.env = None
        self.best: float | None = None
        self.best_step: int | None = None
        self.checks = 0
        self.next_check = selection.check_every

    # -- files
    best_file = property(lambda self: self.run_dir / BEST_MODEL)
    csv_file = property(lambda self: self.run_dir / SELECTION_CSV)
    state_file = property(lambda self: self.run_dir / SELECTION_STATE)

    def _state(self) -> dict:
        return {"settings": self.selection.to_dict(), "best_return": self.best, "best_step": self.best_step,
                "checks": self.checks}

    def restore(self, start_steps: int, checkpoint_dir: Path | None) -> None:
        """Set the state as it stood at ``start_steps``: nothing (a fresh run), the checkpoint's
        snapshot (``checkpoint_dir`` given: resuming from a checkpoint) or the run's own files
        (resuming from the final model)."""
        if start_steps <= 0:
            for path in selection_files(self.run_dir):
                path.unlink(missing_ok=True)
            state = None
        elif checkpoint_dir is not None:
            state_path = checkpoint_dir / f"step_{start_steps}.selection.json"
            if not state_path.exists():
                raise ConfigError(f"{self.run_dir}: checkpoint step_{start_steps} has no selection state "
                                  "(trained without selection?); remove the run folder to train with it")
            state = read_json(state_path)
            best = checkpoint_dir / f"step_{start_steps}.best.zip"
            if best.exists():
                with atomic_path(self.best_file) as tmp:  # a copy: a new mtime for the workflow
                    shutil.copyfile(best, tmp)
            else:
                self.best_file.unlink(missing_ok=True)
        else:
            state = read_json(self.state_file) if self.state_file.exists() else None
            if state is None:
                raise ConfigError(f"{self.run_dir}: finished run has no {SELECTION_STATE} (trained without "
                                  "selection?); remove the run folder to train with it")
        if state is not None:
            if state["settings"] != self.selection.to_dict():
                raise ConfigError(f"{self.run_dir}: its selection settings {state['settings']} differ from "
                                  f"{self.selection.to_dict()}; remove the run folder")
            self.best, self.best_step, self.checks = state["best_return"], state["best_step"], int(state["checks"])
        self._rewrite_csv(start_steps)
        write_json(self.state_file, self._state())
        every = self.selection.check_every
        self.next_check = (max(start_steps, 0) // every + 1) * every

    def _rewrite_csv(self, upto: int) -> None:
        """Keep the rows of checks at or before ``upto`` (a resumed run replays the rest)."""
        lines = self.csv_file.read_text().splitlines() if self.csv_file.exists() and upto > 0 else []
        kept = ["step,return,best_so_far"] + [ln for ln in lines[1:] if ln and int(ln.split(",")[0]) <= upto]
        with atomic_path(self.csv_file) as tmp:
            tmp.write_text("\n".join(kept) + "\n")

    def after_step(self, model, steps: int) -> None:
        """Check once ``steps`` has reached the next multiple of ``check_every``."""
        if steps < self.next_check:
            return
        self.check(model, steps)
        while self.next_check <= steps:
            self.next_check += self.selection.check_every

    def check(self, model, steps: int) -> float:
        import torch

        if self.env is None:
            self.env = self.make_eval_env()
        devices = [model.device.index or 0] if model.device.type == "cuda" else []
        # the check's sampling must not move the training's RNG (same run with or without selection)
        with torch.random.fork_rng(devices=devices):
            torch.manual_seed((self.seed << 32) + int(steps))
            score = _play(model, self.env, int(self.selection.episodes), self.selection.deterministic,
                          seed=self.seed)
        self.checks += 1
        if self.best is None or score >= self.best:  # >=: the later check wins a tie, as the report's code
            self.best, self.best_step = score, int(steps)
            with atomic_path(self.best_file) as tmp:
                model.save(tmp)
        with self.csv_file.open("a") as fh:
            fh.write(f"{int(steps)},{score!r},{self.best!r}\n")
        write_json(self.state_file, self._state())
        return score

    def snapshot(self, checkpoint_dir: Path, steps: int) -> None:
        """Save the state beside checkpoint ``steps`` (a hard link to the best model where possible);
        these side files are pruned with their checkpoint."""
        write_json(checkpoint_dir / f"step_{steps}.selection.json", self._state())
        target = checkpoint_dir / f"step_{steps}.best.zip"
        target.unlink(missing_ok=True)
        if self.best_file.exists():
            link_or_copy(self.best_file, target)  # best_model.zip is replaced, never rewritten in place

    def close(self) -> None:
        if self.env is not None:
            self.env.close()
            self.env = None


def check_selection_args(check_every: int | None, episodes: int, env_kwargs: Sequence[str] | dict | None,
                         deterministic: bool) -> Selection | None:
    """A ``Selection`` from ``schedrl train``'s options (None without ``--select-every``)."""
    from schedrl.experiments.envs import parse_pairs

    if check_every is None:
        if env_kwargs or deterministic or episodes != 1:
            raise ConfigError("--select-episodes/--select-env-kwarg/--select-deterministic need --select-every")
        return None
    kwargs = env_kwargs if isinstance(env_kwargs, dict) else parse_pairs(env_kwargs)
    return Selection(int(check_every), int(episodes), dict(kwargs), bool(deterministic))
