"""Train one SB3 agent into a fixed run folder, seeded and resumable.

Run folder (``run_dir``), rl-zoo style but with a predictable path chosen by the caller:

=====================  ==========================================================================
``config.json``        resolved run config: env id and kwargs, wrappers, algorithm, hyperparameters
                       (plain YAML values), seed, target steps, library versions
``model.zip``          the trained model (written when the target step count is reached)
``checkpoints/``       ``step_<n>.zip`` every ``checkpoint_every`` steps (the last two kept), plus
                       the replay buffer of off-policy algorithms
``monitor/<i>.monitor.csv``  SB3 Monitor log of env copy i (raw: episode reward, length, wall time)
``learning_curve.csv`` one row per finished training episode: timesteps, env, reward, length and
                       the wrappers' info keywords (no wall times, so it is byte-stable)
``timing.json``        wall time, steps trained and steps/s of this invocation and in total
=====================  ==========================================================================

A rerun with the same config resumes from the newest checkpoint (or the final model) and trains
up to the new target; a finished run with an equal or lower target is left alone. A run folder
holding a different config is refused rather than mixed (or, with ``on_mismatch="restart"``,
cleared and trained afresh). Same config and seed give the same
learning curve for an uninterrupted run; a resumed run restarts its env RNG at the checkpoint.
"""

from __future__ import annotations

import re
import shutil
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from schedrl.agents.runs import begin_run, write_learning_curve
from schedrl.agents.runs import canonical as _canonical
from schedrl.errors import ConfigError
from schedrl.experiments.envs import WrapperSpec, make_env, wrapper_info_keywords
from schedrl.io import atomic_path, read_json, write_json

_CKPT = re.compile(r"^step_(\d+)\.zip$")
KEEP_CHECKPOINTS = 2


@dataclass
class TrainResult:
    run_dir: Path
    steps: int
    steps_trained: int
    wall_time_s: float
    resumed_from: int
    skipped: bool


def run_config(env_id: str, env_kwargs: dict, algo: str, hyperparams: dict, seed: int,
               wrappers: Sequence[WrapperSpec] = (), variant: str | None = None) -> dict[str, Any]:
    """What identifies a run (the target step count is recorded beside it but may change)."""
    return {"env_id": env_id, "env_kwargs": dict(env_kwargs or {}), "wrappers": list(wrappers or ()),
            "algo": algo.lower(), "variant": variant, "hyperparams": dict(hyperparams), "seed": int(seed)}


def _versions() -> dict[str, str]:
    import gymnasium
    import sb3_contrib
    import stable_baselines3
    import torch

    import schedrl

    return {"schedrl": schedrl.__version__, "stable_baselines3": stable_baselines3.__version__,
            "sb3_contrib": sb3_contrib.__version__, "torch": torch.__version__,
            "gymnasium": gymnasium.__version__}


def checkpoints(run_dir: str | Path) -> list[tuple[int, Path]]:
    """``(steps, path)`` of the run's checkpoints, oldest first."""
    folder = Path(run_dir) / "checkpoints"
    found = []
    for path in folder.glob("step_*.zip") if folder.is_dir() else ():
        match = _CKPT.match(path.name)
        if match:
            found.append((int(match.group(1)), path))
    return sorted(found)


def _final_steps(run_dir: Path) -> int:
    timing = run_dir / "timing.json"
    if (run_dir / "model.zip").exists() and timing.exists():
        return int(read_json(timing).get("steps", 0))
    return -1


def _save_model(model, path: Path) -> None:
    with atomic_path(path) as tmp:
        model.save(tmp)


class _Callbacks:
    """Learning-curve logging, checkpoints and a tqdm progress bar as one SB3 callback."""

    @staticmethod
    def build(run_dir: Path, info_keywords, rows: list[dict], checkpoint_every: int | None,
              save_buffer: bool, total_steps: int, start: int, desc: str):
        from stable_baselines3.common.callbacks import BaseCallback
        from tqdm.auto import tqdm

        class TrainCallback(BaseCallback):
            def _on_training_start(self) -> None:
                self.bar = tqdm(total=total_steps, initial=start, unit="step", desc=desc,
                                disable=None, dynamic_ncols=True)
                self.next_ckpt = (start // checkpoint_every + 1) * checkpoint_every if checkpoint_every else None

            def _on_step(self) -> bool:
                for i, done in enumerate(self.locals["dones"]):
                    if not done:
                        continue
                    info = self.locals["infos"][i]
                    episode = info.get("episode")
                    if episode is None:
                        continue
                    row = {"timesteps": int(self.num_timesteps), "env": i,
                           "reward": float(episode["r"]), "length": int(episode["l"])}
                    for key in info_keywords:
                        value = info.get(key, float("nan"))
                        row[key] = float(value) if value is not None else float("nan")
                    rows.append(row)
                self.bar.update(min(self.num_timesteps, total_steps) - self.bar.n)
                if self.next_ckpt is not None and self.num_timesteps >= self.next_ckpt:
                    self.checkpoint()
                    while self.next_ckpt <= self.num_timesteps:
                        self.next_ckpt += checkpoint_every
                return True

            def checkpoint(self) -> None:
                steps = int(self.num_timesteps)
                folder = run_dir / "checkpoints"
                folder.mkdir(parents=True, exist_ok=True)
                if save_buffer:
                    with atomic_path(folder / f"step_{steps}.replay.pkl") as tmp:
                        self.model.save_replay_buffer(tmp)
                _save_model(self.model, folder / f"step_{steps}.zip")
                write_learning_curve(run_dir, rows, info_keywords)
                # The curve so far travels with the checkpoint: a workflow may delete the run's
                # learning_curve.csv (a declared output) before resuming.
                write_learning_curve(folder, rows, info_keywords, name=f"step_{steps}.curve.csv")
                for old_steps, old in checkpoints(run_dir)[:-KEEP_CHECKPOINTS]:
                    old.unlink(missing_ok=True)
                    (folder / f"step_{old_steps}.replay.pkl").unlink(missing_ok=True)
                    (folder / f"step_{old_steps}.curve.csv").unlink(missing_ok=True)
                for buf in folder.glob("step_*.replay.pkl"):
                    if int(buf.name.split("_")[1].split(".")[0]) < steps:
                        buf.unlink(missing_ok=True)  # only the newest buffer is needed to resume

            def _on_training_end(self) -> None:
                self.bar.update(min(self.num_timesteps, total_steps) - self.bar.n)
                self.bar.close()

        return TrainCallback()


def _read_curve(run_dir: Path, upto: int) -> list[dict]:
    """Training episodes up to step ``upto``: from the checkpoint's copy, else the run's curve."""
    import pandas as pd

    path = run_dir / "checkpoints" / f"step_{upto}.curve.csv"
    if not path.exists():
        path = run_dir / "learning_curve.csv"
    if not path.exists() or upto <= 0:
        return []
    frame = pd.read_csv(path)
    frame = frame[frame["timesteps"] <= upto]
    return frame.to_dict("records")


def train(env_id: str, env_kwargs: dict | None, algo: str, hyperparams: dict[str, Any],
          total_steps: int, seed: int, run_dir: str | Path, *, wrappers: Sequence[WrapperSpec] = (),
          variant: str | None = None, checkpoint_every: int | None = None, threads: int = 1,
          device: str = "cpu", on_mismatch: str = "error") -> TrainResult:
    """Train ``algo`` on ``env_id`` until the model has seen ``total_steps`` env steps.

    For schedrl's own policy-gradient loop (``deeprm_pg``) ``total_steps`` is the number of
    training *iterations* (each plays every job set ``trajectories`` times); see ``train_pg``.

    ``hyperparams`` are plain values as from ``schedrl.agents.load_hyperparams``; they are saved
    unchanged in ``config.json``. See the module docstring for the run folder and resume rules.
    ``on_mismatch``: what to do when ``run_dir`` holds a run with another config: ``"error"``
    (refuse) or ``"restart"`` (delete its model, checkpoints and logs and train from scratch; what a
    workflow wants after the user changed the config).
    """
    from schedrl.agents.registry import is_own_loop

    if is_own_loop(algo):
        # REINFORCE counts whole iterations (every job set x trajectories), not env steps
        result = train_pg(env_id, env_kwargs, hyperparams, total_steps, seed, run_dir, wrappers=wrappers,
                          variant=variant, checkpoint_every=checkpoint_every, threads=threads,
                          on_mismatch=on_mismatch)
        return TrainResult(result.run_dir, result.steps, result.steps_trained, result.wall_time_s,
                           result.steps - result.steps_trained, result.skipped)
    from stable_baselines3.common.monitor import Monitor
    from stable_baselines3.common.vec_env import DummyVecEnv

    from schedrl.agents.hyperparams import resolve_hyperparams
    from schedrl.agents.registry import algo_class, check_action_space, is_off_policy, uses_masks

    begin_run(total_steps, "total steps", checkpoint_every, threads)
    run_dir = Path(run_dir)
    cls = algo_class(algo)
    policy, n_envs, kwargs = resolve_hyperparams(algo, hyperparams)
    config = run_config(env_id, env_kwargs or {}, algo, hyperparams, seed, wrappers, variant)
    info_keywords = wrapper_info_keywords(wrappers)

    config_path = run_dir / "config.json"
    if config_path.exists():
        old = read_json(config_path)
        old_id = {k: old.get(k) for k in config}
        if _canonical(old_id) != _canonical(config):
            diff = sorted(k for k in config if _canonical(old_id.get(k)) != _canonical(config[k]))
            if on_mismatch != "restart":
                raise ConfigError(f"{run_dir}: run folder holds a different run ({', '.join(diff)} differ); "
                                  "remove it or choose another folder")
            _clear_run(run_dir)

    # Where to start from: the final model or the newest checkpoint, whichever has more steps.
    start_path, start = None, 0
    final_steps = _final_steps(run_dir)
    ckpts = checkpoints(run_dir)
    if final_steps >= 0:
        start_path, start = run_dir / "model.zip", final_steps
    if ckpts and ckpts[-1][0] > start:
        start, start_path = ckpts[-1]
    if start_path is not None and start >= total_steps and start_path.name == "model.zip":
        return TrainResult(run_dir, start, 0, 0.0, start, skipped=True)

    # Build one env and check the action space before anything is written, so a bad env argument
    # or algorithm leaves no run folder behind that a corrected rerun would refuse as different.
    probe = make_env(env_id, env_kwargs, wrappers)
    check_action_space(algo, probe.action_space)
    probe.close()

    run_dir.mkdir(parents=True, exist_ok=True)
    write_json(config_path, {**config, "total_steps": int(total_steps), "versions": _versions()})

    def env_factory(index: int):
        def thunk():
            env = make_env(env_id, env_kwargs, wrappers)
            return Monitor(env, str(run_dir / "monitor" / str(index)), info_keywords=info_keywords,
                           override_existing=start_path is None)
        return thunk

    (run_dir / "monitor").mkdir(exist_ok=True)
    venv = DummyVecEnv([env_factory(i) for i in range(n_envs)])
    check_action_space(algo, venv.action_space)
    if uses_masks(algo):
        from sb3_contrib.common.maskable.utils import is_masking_supported

        if not is_masking_supported(venv):
            raise ConfigError(f"algorithm '{algo}' needs an env with action_masks(); '{env_id}' has none")
    kwargs.setdefault("device", device)
    if start_path is None:
        model = cls(policy, venv, seed=seed, verbose=0, **kwargs)
    else:
        model = cls.load(start_path, env=venv, device=kwargs["device"])
        model.set_random_seed(seed + start)
        buffer = start_path.with_name(f"step_{start}.replay.pkl")
        if is_off_policy(algo) and buffer.exists():
            model.load_replay_buffer(buffer)
    rows = _read_curve(run_dir, start)
    callback = _Callbacks.build(run_dir, info_keywords, rows, checkpoint_every, is_off_policy(algo),
                                total_steps, start, f"{algo} seed{seed}")
    began = time.perf_counter()
    model.learn(total_timesteps=max(total_steps - start, 0), callback=callback,
                reset_num_timesteps=start_path is None, log_interval=10**9)
    wall = time.perf_counter() - began
    steps = int(model.num_timesteps)
    venv.close()

    write_learning_curve(run_dir, rows, info_keywords)
    _save_model(model, run_dir / "model.zip")
    previous = read_json(run_dir / "timing.json") if (run_dir / "timing.json").exists() else {}
    trained = steps - start
    write_json(run_dir / "timing.json", {
        "steps": steps, "steps_trained": trained, "resumed_from": start,
        "wall_time_s": round(wall, 3), "steps_per_s": round(trained / wall, 1) if wall > 0 else None,
        "wall_time_total_s": round(float(previous.get("wall_time_total_s", 0.0)) + wall, 3),
        "threads": int(threads), "n_envs": n_envs, "device": str(model.device),
    })
    return TrainResult(run_dir, steps, trained, wall, start, skipped=False)


def train_pg(env_id: str, env_kwargs: dict | None, hyperparams: dict[str, Any], iterations: int, seed: int,
             run_dir: str | Path, *, wrappers: Sequence[WrapperSpec] = (), variant: str | None = None,
             examples: int | None = None, checkpoint_every: int | None = None, threads: int = 1,
             on_mismatch: str = "error", algo: str = "deeprm_pg"):
    """Train DeepRM's REINFORCE agent (``schedrl.agents.reinforce``) for ``iterations`` iterations.

    Same run-folder files as ``train`` (config.json, model.zip, learning_curve.csv, timing.json),
    resumable from ``checkpoints/iter_<k>.pt``; returns a ``reinforce.ReinforceResult``.
    """
    from schedrl.agents.registry import check_action_space
    from schedrl.agents.reinforce import ReinforceConfig, train_reinforce

    cfg = ReinforceConfig.from_dict(hyperparams)
    run_dir = Path(run_dir)
    config = run_config(env_id, env_kwargs or {}, algo, hyperparams, seed, wrappers, variant)
    config["hyperparams"] = dict(hyperparams)
    config_path = run_dir / "config.json"
    if config_path.exists() and on_mismatch == "restart":
        from dataclasses import asdict

        old = read_json(config_path)
        mine = {**config, "hyperparams": asdict(cfg)}
        if any(_canonical(old.get(k)) != _canonical(v) for k, v in mine.items()):
            _clear_run(run_dir)
    info_keywords = wrapper_info_keywords(wrappers)
    probe = make_env(env_id, env_kwargs, wrappers)
    check_action_space(algo, probe.action_space)
    probe.close()
    config.pop("hyperparams")
    return train_reinforce(lambda: make_env(env_id, env_kwargs, wrappers), cfg, iterations, seed, run_dir,
                           config={**config, "versions": _versions()}, info_keywords=info_keywords,
                           examples=examples, checkpoint_every=checkpoint_every, threads=threads)


def _clear_run(run_dir: Path) -> None:
    """Remove what a previous (different) run left in ``run_dir``."""
    shutil.rmtree(run_dir / "checkpoints", ignore_errors=True)
    shutil.rmtree(run_dir / "monitor", ignore_errors=True)
    for name in ("model.zip", "learning_curve.csv", "timing.json", "config.json"):
        (run_dir / name).unlink(missing_ok=True)


def remove_checkpoints(run_dir: str | Path) -> None:
    """Delete the checkpoints of a finished run (the final model stays)."""
    shutil.rmtree(Path(run_dir) / "checkpoints", ignore_errors=True)
