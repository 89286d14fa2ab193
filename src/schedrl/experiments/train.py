"""Train one SB3 agent into a fixed run folder, seeded and resumable.

The run folder (``run_dir``, chosen by the caller) is ``schedrl.agents.runs.RunFolder``'s:
config.json, hyperparams.yaml, command.txt, model.zip, checkpoints/ (``step_<n>.zip`` plus the
replay buffer of off-policy algorithms, the curve so far and the resume state of
``schedrl.experiments.resume_state``), learning_curve.csv, timing.json; SB3 also writes
``monitor/<i>.monitor.csv`` (raw episode logs with wall times) per env copy. Checkpoints are on by
default (ten per run) and written at rollout boundaries; Ctrl-C or SIGTERM stops at the next one
with a checkpoint there (``StopAtBoundary``).

A rerun with the same config resumes from the newest checkpoint (or the final model) and trains
up to the new target; a finished run with an equal or lower target is left alone. A run folder
holding a different config is refused rather than mixed (or, with ``on_mismatch="restart"``,
cleared and trained afresh). With ``selection`` the run also keeps ``best_model.zip``, the model of
its best periodic check (``schedrl.experiments.selection``). Same config and seed give the same
files, whether the run was interrupted and resumed from a checkpoint or not (``timing.json``'s
``resumes`` lists each resume and whether it was exact: one from a checkpoint written before issue
70, or from the final model towards a higher target, is not).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from schedrl.agents.runs import (
    KEEP_CHECKPOINTS,
    Paused,
    RunFolder,
    begin_run,
    default_checkpoint_every,
    progress_bar,
)
from schedrl.errors import ConfigError
from schedrl.experiments.envs import WrapperSpec, jobset_count, make_env, wrapper_info_keywords
from schedrl.experiments.selection import BestModelSelector, Selection
from schedrl.io import atomic_path

__all__ = ["KEEP_CHECKPOINTS", "TrainResult", "checkpoints", "remove_checkpoints", "run_config", "train", "train_pg"]


@dataclass
class TrainResult:
    run_dir: Path
    steps: int
    steps_trained: int
    wall_time_s: float
    resumed_from: int
    skipped: bool
    #: stopped at ``train(stop_at=...)``'s rollout boundary (a checkpoint there, no final model)
    paused: bool = False


def run_config(env_id: str, env_kwargs: dict, algo: str, hyperparams: dict, seed: int,
               wrappers: Sequence[WrapperSpec] = (), variant: str | None = None,
               selection: Selection | None = None) -> dict[str, Any]:
    """What identifies a run (the target step count is recorded beside it but may change). A
    selection is part of it (its best model must span the whole run); a run without one has no key."""
    config = {"env_id": env_id, "env_kwargs": dict(env_kwargs or {}), "wrappers": list(wrappers or ()),
              "algo": algo.lower(), "variant": variant, "hyperparams": dict(hyperparams), "seed": int(seed)}
    if selection is not None:
        config["selection"] = selection.to_dict()
    return config


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
    """``(steps, path)`` of an SB3 run's checkpoints, oldest first."""
    return RunFolder(run_dir).checkpoints()


def _save_model(model, path: Path) -> None:
    with atomic_path(path) as tmp:
        model.save(tmp)


class StopAtBoundary:
    """SIGINT or SIGTERM while an SB3 agent trains: finish the rollout in progress and its update,
    write a checkpoint at the next rollout boundary (the only place where it is exact) and stop, as
    Ctrl-C or ``Terminated``; a second signal stops at once (the last checkpoint stands). Outside
    the main thread (an embedding caller) signals are left to their handlers."""

    def __init__(self):
        self.signum: int | None = None
        self.previous: dict = {}

    def __enter__(self) -> StopAtBoundary:
        import signal

        for sig in (signal.SIGINT, signal.SIGTERM):
            try:
                self.previous[sig] = signal.signal(sig, self._handle)
            except ValueError:
                break
        return self

    def __exit__(self, *exc) -> None:
        import signal

        for sig, handler in self.previous.items():
            signal.signal(sig, handler)

    def _handle(self, signum, frame) -> None:
        import sys

        if self.signum is not None:
            self._raise(signum)
        self.signum = signum
        print("schedrl: stopping at the end of this rollout, where the checkpoint is exact "
              "(signal again to stop now, losing the steps since the last checkpoint)", file=sys.stderr, flush=True)

    @staticmethod
    def _raise(signum: int) -> None:
        import signal

        from schedrl.errors import Terminated

        raise Terminated() if signum == signal.SIGTERM else KeyboardInterrupt()

    def stop_if_asked(self) -> None:
        if self.signum is not None:
            self._raise(self.signum)


class _Callbacks:
    """Learning-curve logging, checkpoints and a tqdm progress bar as one SB3 callback.

    Checkpoints are written at rollout boundaries (``on_rollout_start``: the previous update done,
    the rollout buffer empty), each with the state ``resume_state.capture`` takes, so a run resumed
    from one continues as the uninterrupted run did."""

    @staticmethod
    def build(folder: RunFolder, info_keywords, rows: list[dict], checkpoint_every: int | None,
              save_buffer: bool, total_steps: int, start: int, desc: str,
              selector: BestModelSelector | None = None, stop: StopAtBoundary | None = None,
              stop_at: int | None = None):
        from stable_baselines3.common.callbacks import BaseCallback

        from schedrl.experiments import resume_state

        class TrainCallback(BaseCallback):
            def _on_training_start(self) -> None:
                self.bar = progress_bar(total_steps, start, "step", desc)
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
                    self.bar.set_postfix_str(f"last episode reward {row['reward']:.3g}")
                self.bar.update(min(self.num_timesteps, total_steps) - self.bar.n)
                return True

            def _on_rollout_start(self) -> None:
                self.at_boundary()
                # Read the signal after the boundary's own work: one that came while it ran stops
                # here too, and the stop must leave a checkpoint at this step (an off-grid one
                # unless a periodic one was just written).
                if stop is not None and stop.signum is not None:
                    steps = int(self.num_timesteps)
                    if steps > start and not folder.checkpoint_path(steps).exists():
                        self.checkpoint(off_grid=True)
                    stop.stop_if_asked()
                # A planned pause: the first boundary at or past stop_at, its checkpoint kept
                # (``keep_steps``), as the pause of successive halving's rungs needs.
                if stop_at is not None and self.num_timesteps >= stop_at and self.num_timesteps > start:
                    if not folder.checkpoint_path(int(self.num_timesteps)).exists():
                        self.checkpoint()
                    raise Paused()

            def at_boundary(self) -> None:
                """A selection check, then a checkpoint (its snapshot includes the check), each
                where due: the model after every update on the steps so far, as a resume sees it."""
                if selector is not None:
                    selector.after_step(self.model, int(self.num_timesteps))
                due = self.next_ckpt is not None and self.num_timesteps >= self.next_ckpt
                if due and self.num_timesteps > start:
                    self.checkpoint()
                    while self.next_ckpt is not None and self.next_ckpt <= self.num_timesteps:
                        self.next_ckpt += checkpoint_every

            def checkpoint(self, off_grid: bool = False) -> None:
                """Side files first, the model last: a checkpoint is listed by its model file, so
                a kill in between leaves none that lacks its state. ``off_grid``: written where a
                signal stopped the run, between the periodic ones; marked, and dropped once a newer
                one stands, so an interrupted run keeps the checkpoints an uninterrupted one keeps."""
                steps = int(self.num_timesteps)
                if off_grid:
                    folder.side_file(steps, ".off_grid").touch()
                if save_buffer:
                    with atomic_path(folder.side_file(steps, ".replay.pkl")) as tmp:
                        self.model.save_replay_buffer(tmp)
                if selector is not None:
                    selector.snapshot(folder.checkpoint_dir, steps)
                # The curve so far travels with the checkpoint: a workflow may delete the run's
                # learning_curve.csv (a declared output) before resuming.
                folder.write_curve(rows, info_keywords, name=f"step_{steps}.curve.csv", folder=folder.checkpoint_dir)
                resume_state.save(folder.side_file(steps, resume_state.STATE_SUFFIX),
                                  resume_state.capture(self.model, self.model.get_env(),
                                                       selector.env if selector is not None else None))
                _save_model(self.model, folder.checkpoint_path(steps))
                folder.write_curve(rows, info_keywords)
                folder.drop_off_grid(lambda n: not folder.side_file(n, ".off_grid").exists())
                folder.prune()
                for buf in folder.checkpoint_dir.glob("step_*.replay.pkl"):
                    if int(buf.name.split("_")[1].split(".")[0]) < steps:
                        buf.unlink(missing_ok=True)  # only the newest buffer is needed to resume

            def _on_training_end(self) -> None:
                self.at_boundary()  # after the last update: a boundary too
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


def stagger_jobsets(venv, env) -> None:
    """Copies of an env that cycles through fixed job sets would all play the same set at once:
    copy i starts its cycle at set i, so one rollout spans several sets (as DeepRM's parallel
    workers did). Other envs are left alone."""
    sets = jobset_count(env)
    if sets is not None and venv.num_envs > 1:
        venv.set_options([{"jobset": i % sets} for i in range(venv.num_envs)])


def train(env_id: str, env_kwargs: dict | None, algo: str, hyperparams: dict[str, Any],
          total_steps: int, seed: int, run_dir: str | Path, *, wrappers: Sequence[WrapperSpec] = (),
          variant: str | None = None, checkpoint_every: int | None = None, threads: int = 1,
          device: str = "cpu", on_mismatch: str = "error", tensorboard: str | None = None,
          keep_steps: Sequence[int] = (), selection: Selection | dict | None = None,
          stop_at: int | None = None) -> TrainResult:
    """Train ``algo`` on ``env_id`` until the model has seen ``total_steps`` env steps.

    For schedrl's own policy-gradient loop (``deeprm_pg``) ``total_steps`` is the number of
    training *iterations* (each plays every job set ``trajectories`` times); see ``train_pg``.

    ``hyperparams`` are plain values as from ``schedrl.agents.load_hyperparams``; they are saved
    unchanged in ``config.json``. See the module docstring for the run folder and resume rules.
    ``on_mismatch``: what to do when ``run_dir`` holds a run with another config: ``"error"``
    (refuse) or ``"restart"`` (delete its model, checkpoints and logs and train from scratch; what a
    workflow wants after the user changed the config). ``tensorboard``: a folder for TensorBoard
    logs (needs the ``tensorboard`` extra); not part of the run's config. ``keep_steps``: the first
    checkpoint at or after each of these step counts is kept (not pruned), for budget evaluations.
    ``selection`` (``Selection`` or its dict: check_every, episodes, env_kwargs, deterministic):
    every ``check_every`` steps play ``episodes`` episodes on the env with ``env_kwargs`` over the
    training env's and keep the best so far as ``best_model.zip`` (SB3 agents only).
    ``stop_at``: train the schedule of ``total_steps`` but pause at the first rollout boundary at or
    past this step, with a kept checkpoint there and no final model (``TrainResult.paused``); a
    rerun with a later ``stop_at`` or none continues it exactly, as if it had never paused (SB3
    agents only; a run already at or past it is left alone, ``skipped``).
    """
    from schedrl.agents.registry import is_own_loop

    if isinstance(selection, dict):
        selection = Selection.from_dict(selection)
    pause = stop_at is not None and int(stop_at) < int(total_steps)
    if stop_at is not None and int(stop_at) < 1:
        raise ConfigError(f"stop_at must be >= 1 env step, got {stop_at}")
    if is_own_loop(algo):
        if pause:
            raise ConfigError(f"stop_at is for SB3 agents; '{algo}' has its own loop")
        if selection is not None:
            raise ConfigError(f"best-model selection is for SB3 agents; '{algo}' has its own loop")
        # REINFORCE counts whole iterations (every job set x trajectories), not env steps
        result = train_pg(env_id, env_kwargs, hyperparams, total_steps, seed, run_dir, wrappers=wrappers,
                          variant=variant, checkpoint_every=checkpoint_every, threads=threads,
                          on_mismatch=on_mismatch, device=device, tensorboard=tensorboard)
        return TrainResult(result.run_dir, result.steps, result.steps_trained, result.wall_time_s,
                           result.steps - result.steps_trained, result.skipped)
    from stable_baselines3.common.monitor import Monitor
    from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv

    from schedrl.agents.hyperparams import resolve_hyperparams, vec_env_kind
    from schedrl.agents.registry import algo_class, check_action_space, is_off_policy, uses_masks
    from schedrl.agents.tensorboard import require_tensorboard
    from schedrl.experiments import resume_state

    begin_run(total_steps, "total steps", checkpoint_every, threads)
    tensorboard = require_tensorboard(tensorboard)
    checkpoint_every = default_checkpoint_every(total_steps, checkpoint_every)
    run_dir = Path(run_dir)
    folder = RunFolder(run_dir, keep_steps=[*keep_steps, *([int(stop_at)] if pause else [])])
    cls = algo_class(algo)
    policy, n_envs, kwargs = resolve_hyperparams(algo, hyperparams)
    config = run_config(env_id, env_kwargs or {}, algo, hyperparams, seed, wrappers, variant, selection)
    # a run trained with a selection and resumed without one is another run (its best_model.zip would
    # stop short); old folders have no key, which reads as None: they still match a run without one
    config.setdefault("selection", None)
    info_keywords = wrapper_info_keywords(wrappers)
    start = folder.start(config, total_steps, on_mismatch=on_mismatch)
    if start.skip:
        return TrainResult(run_dir, start.done, 0, 0.0, start.done, skipped=True)
    # Start from the final model or the newest checkpoint, whichever has more steps.
    start_path, start_steps = (folder.model_file, start.done) if start.done is not None else (None, 0)
    if start.checkpoint is not None and start.checkpoint[0] > start_steps:
        start_steps, start_path = start.checkpoint
    if pause and start_steps >= int(stop_at):
        return TrainResult(run_dir, start_steps, 0, 0.0, start_steps, skipped=True, paused=start.done is None)

    # Build one env and check the action space before anything is written, so a bad env argument
    # or algorithm leaves no run folder behind that a corrected rerun would refuse as different.
    probe = make_env(env_id, env_kwargs, wrappers)
    check_action_space(algo, probe.action_space)
    probe.close()
    eval_kwargs = {**(env_kwargs or {}), **(selection.env_kwargs if selection else {})}
    if selection is not None:
        make_env(env_id, eval_kwargs, wrappers).close()  # a bad override stops here too

    fresh = not run_dir.exists()
    folder.write_config({**config, "total_steps": int(total_steps), "versions": _versions()},
                        {**hyperparams, "policy": hyperparams.get("policy", "MlpPolicy"), "n_envs": n_envs})

    def env_factory(index: int):
        def thunk():
            env = make_env(env_id, env_kwargs, wrappers)
            return Monitor(env, str(run_dir / "monitor" / str(index)), info_keywords=info_keywords,
                           override_existing=start_path is None)
        return thunk

    (run_dir / "monitor").mkdir(exist_ok=True)
    vec_cls = SubprocVecEnv if vec_env_kind(hyperparams) == "subproc" and n_envs > 1 else DummyVecEnv
    venv = vec_cls([env_factory(i) for i in range(n_envs)])
    check_action_space(algo, venv.action_space)
    if start_path is None:
        stagger_jobsets(venv, probe)
    if uses_masks(algo):
        from sb3_contrib.common.maskable.utils import is_masking_supported

        if not is_masking_supported(venv):
            raise ConfigError(f"algorithm '{algo}' needs an env with action_masks(); '{env_id}' has none")
    kwargs.setdefault("device", device)
    kwargs["tensorboard_log"] = tensorboard
    # torch re-checks every action distribution's arguments (simplex, support) on each forward pass:
    # pure overhead for SB3's own distributions (the same numbers without it), ~20% of a small
    # policy's PPO step (mdp history.md)
    import torch

    torch.distributions.Distribution.set_default_validate_args(False)
    if start_path is None:
        try:
            model = cls(policy, venv, seed=seed, verbose=0, **kwargs)
        except (TypeError, ValueError, AssertionError, RuntimeError) as exc:
            venv.close()
            if fresh:  # leave no half-made run folder that a corrected rerun would refuse
                import shutil

                shutil.rmtree(run_dir, ignore_errors=True)
            raise ConfigError(f"{algo}: bad hyperparameter value ({str(exc).splitlines()[0] if str(exc) else type(exc).__name__})") from None
    resume, eval_env = None, None
    if start_path is not None:
        model = cls.load(start_path, env=venv, device=kwargs["device"], tensorboard_log=kwargs["tensorboard_log"])
        buffer = folder.side_file(start_steps, ".replay.pkl")
        if is_off_policy(algo) and buffer.exists():
            model.load_replay_buffer(buffer)
        state_file = folder.side_file(start_steps, resume_state.STATE_SUFFIX)
        state = resume_state.load(state_file) if start_path != folder.model_file and state_file.exists() else None
        if state is not None:
            eval_env = resume_state.restore(state, model, venv)
            resume = {"from": start_steps, "exact": True}
        else:
            # the final model (a higher target: its schedules stretch anyway) or a checkpoint written
            # before issue 70: the envs and RNGs restart at the checkpoint, seeded by its step
            model.set_random_seed(seed + start_steps)
            resume = {"from": start_steps, "exact": False}
            if start_path != folder.model_file:
                print(f"schedrl train: {state_file.name} missing or of an older format: resuming from step "
                      f"{start_steps} without its envs' and RNGs' state; the run will differ from an uninterrupted one",
                      file=sys.stderr, flush=True)
    rows = _read_curve(run_dir, start_steps)
    selector = None
    if selection is not None:
        selector = BestModelSelector(selection, run_dir, lambda: make_env(env_id, eval_kwargs, wrappers), seed)
        from_checkpoint = start_path is not None and start_path != folder.model_file
        selector.restore(start_steps, folder.checkpoint_dir if from_checkpoint else None)
        selector.env = eval_env
    stop = StopAtBoundary()
    callback = _Callbacks.build(folder, info_keywords, rows, checkpoint_every, is_off_policy(algo),
                                total_steps, start_steps, f"{algo} seed{seed}", selector, stop,
                                int(stop_at) if pause else None)

    def on_interrupt() -> dict:
        # The newest checkpoint stands: one written at the rollout boundary where a signal asked to
        # stop, or the last periodic one (a second signal, or an interrupt from elsewhere). A
        # checkpoint taken mid-rollout could not be resumed exactly, so none is.
        steps = int(model.num_timesteps)
        if getattr(callback, "bar", None) is not None:
            callback.bar.close()
        if selector is not None:
            selector.close()
        venv.close()
        return {"trained": steps - start_steps, "steps": steps, "resumed_from": start_steps}

    try:
        with folder.segment(on_interrupt, resume) as clock, stop:
            model.learn(total_timesteps=max(total_steps - start_steps, 0), callback=callback,
                        reset_num_timesteps=start_path is None, tb_log_name=f"{algo}_seed{seed}",
                        **({} if tensorboard else {"log_interval": 10**9}))  # SB3's own interval for TensorBoard
    except Paused:
        steps = int(model.num_timesteps)
        return TrainResult(run_dir, steps, steps - start_steps, clock(), start_steps, skipped=False, paused=True)
    wall = clock()
    steps = int(model.num_timesteps)
    venv.close()
    if selector is not None:
        selector.close()

    folder.write_curve(rows, info_keywords)
    _save_model(model, folder.model_file)
    folder.write_timing(wall, steps - start_steps, steps=steps, resumed_from=start_steps, threads=int(threads),
                        n_envs=n_envs, device=str(model.device), resumes=folder.resumes(resume))
    return TrainResult(run_dir, steps, steps - start_steps, wall, start_steps, skipped=False)


def train_pg(env_id: str, env_kwargs: dict | None, hyperparams: dict[str, Any], iterations: int, seed: int,
             run_dir: str | Path, *, wrappers: Sequence[WrapperSpec] = (), variant: str | None = None,
             examples: int | None = None, checkpoint_every: int | None = None, threads: int = 1,
             on_mismatch: str = "error", algo: str = "deeprm_pg", device: str = "cpu",
             tensorboard: str | None = None):
    """Train DeepRM's REINFORCE agent (``schedrl.agents.reinforce``) for ``iterations`` iterations.

    Same run-folder files as ``train`` (config.json, model.zip, learning_curve.csv, timing.json),
    resumable from ``checkpoints/iter_<k>.pt``; returns a ``reinforce.ReinforceResult``.
    """
    from schedrl.agents.registry import check_action_space
    from schedrl.agents.reinforce import ReinforceConfig, train_reinforce

    cfg = ReinforceConfig.from_dict(hyperparams)
    config = run_config(env_id, env_kwargs or {}, algo, hyperparams, seed, wrappers, variant)
    info_keywords = wrapper_info_keywords(wrappers)
    probe = make_env(env_id, env_kwargs, wrappers)
    check_action_space(algo, probe.action_space)
    probe.close()
    config.pop("hyperparams")  # train_reinforce records the resolved ReinforceConfig instead
    return train_reinforce(lambda: make_env(env_id, env_kwargs, wrappers), cfg, iterations, seed, run_dir,
                           config={**config, "versions": _versions()}, info_keywords=info_keywords,
                           examples=examples, checkpoint_every=checkpoint_every, threads=threads,
                           on_mismatch=on_mismatch, device=device, tensorboard=tensorboard)


def remove_checkpoints(run_dir: str | Path) -> None:
    """Delete the checkpoints of a finished run (the final model stays)."""
    RunFolder(run_dir).remove_checkpoints()
