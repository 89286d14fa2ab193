"""One policy interface for every env family of schedrl.

A *policy spec* (what ``schedrl score POLICY`` and ``score.policies`` take) is one of

* ``module:name`` or ``path/to/file.py:name``: a Python callable, either
  - ``policy(observation, info) -> action`` (two parameters): an action of the env's action space,
    an ``int``; or
  - ``priority(jobs) -> keys`` (one parameter): a queue-order function, one number per waiting job,
    **lower runs first** (ties: the earlier arrival), as ``schedrl.schedulers`` keys are;
  a callable's ``kind`` attribute (``"policy"`` or ``"priority"``) overrides the parameter count;
* the name of a registered heuristic: a queue order of ``schedrl.schedulers`` (``fcfs``, ``sjf``,
  ``ljf``, ``saf``, ``sqf``, ``list``; played as a priority function) or a DeepRM grid heuristic
  (``packer``, ``first_slot``, ``random``; the grid only);
* ``model.zip``: a Stable-Baselines3 model (PPO, A2C, DQN, TRPO, MaskablePPO); a Stable-Baselines 2
  zip (e.g. the SB3 DeepRM report's published models) is recognised and played by
  ``schedrl.agents.sb2_reference`` (numpy, with SB2's integer cast where its space was integer);
* ``authors:path``: a published agent of another codebase (an SB2 zip or DeepRM's pickled
  REINFORCE parameters ``.pkl``), played by ``schedrl.agents.sb2_reference``;
* a run folder of ``schedrl train`` (``config.json`` and ``model.zip``).

``jobs`` (``JobView``, also ``info["queue"]``): the waiting jobs the agent can pick, in action
order, as numpy arrays: ``slot`` (the action that picks the job), ``submit`` (arrival time),
``wait`` (now - submit), ``req_time`` (requested walltime; DeepRM's grid: the job's length, which
its agents know exactly), ``req_procs`` (nodes; the grid: the largest demand over its resources),
``demand`` (jobs x resources: nodes, burst buffer, power on the HPC envs; the grid's units per
resource), ``fits`` (fits now), ``bb``, ``power`` (HPC envs), ``estimate`` (the time-stepped env
only: the runtime estimate its ``estimator`` gives), and ``now``.

``info`` (what a two-parameter policy gets) is the env's own info plus ``queue`` (the ``JobView``),
``cluster`` (``free`` and ``capacity`` per resource now, ``running`` jobs, ``now``; the grid adds
``free_profile``, horizon x resources), ``family`` and ``env`` (the unwrapped env; read, do not step):

| family (papers) | actions | ``action_mask`` | the env's own keys |
| --- | --- | --- | --- |
| ``grid`` (deeprm, mdp) | ``0..W-1`` allocate slot i's job, ``W`` void (move on) | slots whose job fits under the placement rule, and void | ``time`` |
| ``pick_reserve`` (sem, mrsch) | ``0..window-1``: the i-th waiting job (arrival order) starts, or is reserved while EASY backfills | the occupied slots | ``clock``, ``waiting``, ``running``, ``reserved``, ``started`` (mrsch adds ``utilization``, ``demand_share``) |
| ``time_stepped`` (runtime) | ``0..window-1`` start the i-th waiting job if it fits, ``window`` = X (advance the clock) | the occupied slots and X | as pick_reserve |

A masked action from a two-parameter policy is an error (it names the policy, env and step).

How a priority function acts, per family: on the grid it allocates the lowest-key job among the
slot jobs that fit now and moves on (the void action) when none fits; on the pick-and-reserve env it
picks the lowest-key job of the window (it starts, or is reserved while EASY backfilling runs); on
the time-stepped env it starts the lowest-key job that fits now and advances the clock (action X)
when none fits.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import sys
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from schedrl.errors import SchedrlError

FAMILIES = ("grid", "pick_reserve", "time_stepped")
KINDS = ("policy", "priority", "heuristic", "sb3", "run")


class PolicyError(SchedrlError):
    """A policy could not be loaded, does not fit an env, or returned a bad action (one line)."""


class PolicyRaised(SchedrlError):
    """The user's code raised: ``str()`` is one line, ``user_traceback`` the user's frames."""

    def __init__(self, message: str, user_traceback: str):
        super().__init__(message)
        self.user_traceback = user_traceback


class _BadOutput(Exception):
    """A priority function's keys are unusable (wrong count, NaN)."""


class _UserError(Exception):
    """The user's function raised ``exc``."""

    def __init__(self, exc: BaseException):
        super().__init__(str(exc))
        self.exc = exc


def _call_user(fn, *args):
    try:
        return fn(*args)
    except Exception as exc:
        raise _UserError(exc) from None


@dataclass
class JobView:
    """The waiting jobs an agent can pick, as arrays in action order (see the module docstring)."""

    slot: np.ndarray
    submit: np.ndarray
    wait: np.ndarray
    req_time: np.ndarray
    req_procs: np.ndarray
    demand: np.ndarray
    fits: np.ndarray
    now: float
    bb: np.ndarray | None = None
    power: np.ndarray | None = None
    estimate: np.ndarray | None = None
    extra: dict = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.slot)


# ---------------------------------------------------------------------------------------------
# env families and their views

def family_of(env) -> str:
    from schedrl.envs.deeprm import DeepRMEnv
    from schedrl.envs.pick_reserve import PickReserveEnv
    from schedrl.envs.time_stepped import TimeSteppedPickEnv

    base = env.unwrapped
    if isinstance(base, DeepRMEnv):
        return "grid"
    if isinstance(base, TimeSteppedPickEnv):
        return "time_stepped"
    if isinstance(base, PickReserveEnv):
        return "pick_reserve"
    raise PolicyError(f"env {type(base).__name__} is not one of schedrl's env families ({', '.join(FAMILIES)})")


def job_view(env) -> JobView:
    """The waiting jobs of ``env`` the agent can pick now (action order)."""
    base = env.unwrapped
    if family_of(env) == "grid":
        grid = base.grid
        slots = np.asarray(grid.slots, dtype=np.int64)
        occupied = np.flatnonzero(slots >= 0)
        jobs = slots[occupied]
        fits = grid.fit_mask(now_only=True)[occupied]
        demand = np.asarray(grid.demand[jobs], dtype=np.float64).reshape(len(jobs), grid.params.num_res)
        submit = np.asarray(grid.arrival[jobs], dtype=np.float64)
        return JobView(slot=occupied, submit=submit, wait=float(grid.now) - submit,
                       req_time=np.asarray(grid.length[jobs], dtype=np.float64),
                       req_procs=demand.max(axis=1) if len(jobs) else np.zeros(0), demand=demand,
                       fits=np.asarray(fits, dtype=bool), now=float(grid.now))
    sim = base.sim
    k = min(base.window, len(sim.queue))
    q = np.asarray(sim.queue[:k], dtype=np.int64)
    j = sim.jobs
    submit = np.asarray(j.submit[q], dtype=np.float64)
    est = np.asarray(j.estimate[q], dtype=np.float64) if family_of(env) == "time_stepped" else None
    return JobView(slot=np.arange(k), submit=submit, wait=float(sim.clock) - submit,
                   req_time=np.asarray(j.req_time[q], dtype=np.float64),
                   req_procs=np.asarray(j.req_procs[q], dtype=np.float64),
                   demand=np.asarray(j.demand[q], dtype=np.float64),
                   fits=(j.demand[q] <= sim.free).all(axis=1), now=float(sim.clock),
                   bb=np.asarray(j.bb[q], dtype=np.float64), power=np.asarray(j.power[q], dtype=np.float64),
                   estimate=est)


def cluster_view(env) -> dict:
    base = env.unwrapped
    if family_of(env) == "grid":
        grid = base.grid
        return {"free": np.asarray(grid.avail[0], dtype=np.float64), "capacity": grid.capacity.astype(np.float64),
                "running": int(grid.n_running), "now": float(grid.now),
                "free_profile": np.asarray(grid.avail, dtype=np.float64)}
    sim = base.sim
    return {"free": np.asarray(sim.free, dtype=np.float64), "capacity": np.asarray(sim.capacity, dtype=np.float64),
            "running": len(sim.running), "now": float(sim.clock)}


def env_label(env) -> str:
    return getattr(env, "score_label", None) or getattr(env.unwrapped, "score_label", None) or type(env.unwrapped).__name__


# ---------------------------------------------------------------------------------------------
# loading

def _import_callable(spec: str):
    target, _, name = spec.rpartition(":")
    if not target or not name:
        raise PolicyError(f"policy '{spec}': expected module:name or path/file.py:name")
    try:
        if target.endswith(".py") or "/" in target:
            path = Path(target)
            if not path.is_file():
                raise PolicyError(f"policy '{spec}': no file {path}")
            mod_name = f"schedrl_user_{abs(hash(str(path.resolve())))}"
            module = sys.modules.get(mod_name)
            if module is None:
                loader = importlib.util.spec_from_file_location(mod_name, path)
                module = importlib.util.module_from_spec(loader)
                sys.modules[mod_name] = module
                try:
                    loader.loader.exec_module(module)
                except BaseException:
                    del sys.modules[mod_name]
                    raise
        else:
            module = importlib.import_module(target)
    except PolicyError:
        raise
    except Exception as exc:  # the user's module failed to import: one line
        raise PolicyError(f"policy '{spec}': cannot import {target}: {type(exc).__name__}: {exc}") from None
    if not hasattr(module, name):
        raise PolicyError(f"policy '{spec}': {target} has no '{name}'")
    obj = getattr(module, name)
    from schedrl.schedulers import QueuePolicy

    if isinstance(obj, QueuePolicy):  # a queue order built like schedrl.schedulers' own
        return obj
    if not callable(obj):
        raise PolicyError(f"policy '{spec}': '{name}' is not callable")
    return obj


def _callable_kind(fn, spec: str) -> str:
    kind = getattr(fn, "kind", None)
    if kind in ("policy", "priority"):
        return kind
    try:
        params = [p for p in inspect.signature(fn).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty]
    except (TypeError, ValueError):
        return "policy"
    if len(params) == 1:
        return "priority"
    if len(params) == 2:
        return "policy"
    raise PolicyError(f"policy '{spec}': a callable takes (observation, info) or (jobs), not "
                      f"{len(params)} required arguments (or set its 'kind' attribute)")


def _load_sb3(path: Path, spec: str):
    from stable_baselines3.common.save_util import load_from_zip_file

    try:
        data, _, _ = load_from_zip_file(path, device="cpu", load_data=True)
    except Exception as exc:
        raise PolicyError(f"policy '{spec}': not a Stable-Baselines3 model zip ({type(exc).__name__}: {exc})") from None
    module = getattr(data.get("policy_class"), "__module__", "") if data else ""
    if "maskable" in module:
        from sb3_contrib import MaskablePPO as cls
    elif "dqn" in module:
        from stable_baselines3 import DQN as cls
    else:
        from stable_baselines3 import PPO as cls  # actor-critic policies predict alike (A2C, PPO, TRPO)
    try:
        return cls.load(path, device="cpu")
    except Exception as exc:
        raise PolicyError(f"policy '{spec}': cannot load the model ({type(exc).__name__}: {exc})") from None


@dataclass
class Policy:
    """A loaded policy: ``name`` (leaderboard label), ``spec``, ``kind`` (``KINDS``) and its object."""

    name: str
    spec: str
    kind: str
    obj: Any = None
    config: dict | None = None
    #: decisions played per paper (the first word of the env's label), for the behaviour fingerprint
    decisions: dict = field(default_factory=dict)

    # -- what fits where ---------------------------------------------------------------------
    @property
    def observation_shape(self):
        return tuple(self.obj.observation_space.shape) if self.kind in ("sb3", "run") else None

    def misfit(self, env) -> str | None:
        """Why this policy cannot play ``env`` (one phrase), or None when it fits."""
        from gymnasium import spaces

        fam = family_of(env)
        if self.kind == "heuristic" and fam != "grid":
            return f"{self.spec} is a DeepRM grid heuristic; this env is {fam.replace('_', '-')}"
        if self.kind in ("priority", "heuristic") and not isinstance(env.action_space, spaces.Discrete):
            return "a priority function needs a discrete action space"
        if self.kind in ("sb3", "run"):
            want, got = tuple(env.observation_space.shape), self.observation_shape
            if want != got:
                return f"the model reads observations of shape {got}, the env gives {want}"
            if self.obj.action_space != env.action_space:
                return f"the model's actions {self.obj.action_space} differ from the env's {env.action_space}"
        return None

    # -- playing -----------------------------------------------------------------------------
    def bind(self, env, *, deterministic: bool = True):
        """``policy(obs, info) -> action`` for ``env``, every action checked (``PolicyError``)."""
        reason = self.misfit(env)
        if reason:
            raise PolicyError(f"policy {self.name} does not fit {env_label(env)}: {reason}")
        fam = family_of(env)
        base = env.unwrapped
        n = int(env.action_space.n) if hasattr(env.action_space, "n") else None
        label = env_label(env)
        name = self.name
        state = {"step": 0}
        check_mask = self.kind == "policy"
        from schedrl.experiments.fingerprint import Decisions, FingerprintRecorder

        recorder = FingerprintRecorder(env, policy_input=lambda obs, env: None)  # actions only: no scores
        recorder.decisions = self.decisions.setdefault(label.split()[0], Decisions())

        if self.kind == "priority":
            decide = _priority_decider(self.obj, env, fam, n)
        elif self.kind == "heuristic":
            fn = self.obj
            decide = lambda obs, info: fn(base)  # noqa: E731
        elif self.kind == "policy":
            fn = self.obj
            decide = lambda obs, info: _call_user(fn, obs, _enrich(env, info, fam))  # noqa: E731
        else:
            decide = _model_decider(self.obj, deterministic)

        def episode_now():
            if fam == "grid":
                return getattr(base.grid, "episode", 0)
            if base.steps < state.get("next_steps", 0):  # the env's step count went back: a reset
                state["episode"] = state.get("episode", 0) + 1
            state["next_steps"] = base.steps + 1
            return state.get("episode", 0)

        def policy(obs, info):
            ep = episode_now()
            if ep != state.get("ep"):
                state["ep"], state["first_ep"] = ep, state.get("first_ep", ep)
                state["step"] = 0
            state["step"] += 1
            step = state["step"]
            where = f"policy {name} on {label}, episode {ep - state['first_ep']}, step {step}"
            try:
                action = decide(obs, info)
            except (PolicyError, PolicyRaised):
                raise
            except _BadOutput as exc:
                raise PolicyError(f"{where}: {exc}") from None
            except _UserError as err:
                exc = err.exc
                raise PolicyRaised(f"{where} raised {type(exc).__name__}: {exc}", _user_traceback(exc)) from None
            action = _check_action(action, n, info.get("action_mask") if check_mask else None, where)
            recorder.record(obs, action)
            return action

        policy.__name__ = name
        return policy


def _user_traceback(exc: BaseException) -> str:
    """The traceback of ``exc`` without schedrl's own frames (the user's code only)."""
    here = str(Path(__file__).resolve())
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if str(Path(f.filename).resolve()) != here]
    lines = ["Traceback (the policy's code):\n", *traceback.format_list(frames),
             *traceback.format_exception_only(type(exc), exc)]
    return "".join(lines)


def _check_action(action, n: int | None, mask, where: str) -> int:
    a = action
    if isinstance(a, np.ndarray):
        if a.size != 1:
            raise PolicyError(f"{where}: wrong action type: an array of shape {a.shape}, expected one int")
        a = a.reshape(-1)[0]
    if isinstance(a, bool | np.bool_) or not isinstance(a, int | np.integer):
        raise PolicyError(f"{where}: wrong action type {type(action).__name__} ({action!r}), expected an int")
    a = int(a)
    if n is not None and not 0 <= a < n:
        raise PolicyError(f"{where}: action {a} is out of range 0..{n - 1}")
    if mask is not None and not bool(np.asarray(mask)[a]):
        raise PolicyError(f"{where}: action {a} is masked (info['action_mask'] is False there)")
    return a


def _enrich(env, info: dict, fam: str) -> dict:
    out = dict(info)
    out.update(queue=job_view(env), cluster=cluster_view(env), family=fam, env=env.unwrapped)
    return out


def _priority_decider(key_fn, env, fam: str, n: int):
    """Action from a key function ``key_fn(jobs) -> keys`` (lower first) on one env family."""

    def decide(obs, info):
        view = job_view(env)
        void = n - 1  # grid: the void action; time-stepped: X
        if len(view) == 0:
            return void if fam != "pick_reserve" else 0
        try:
            keys = np.asarray(_call_user(key_fn, view), dtype=np.float64).reshape(-1)
        except (TypeError, ValueError) as exc:
            raise _BadOutput(f"the keys are not numbers ({exc})") from None
        if keys.shape != (len(view),):
            raise _BadOutput(f"returned {keys.size} keys for {len(view)} waiting jobs")
        if np.isnan(keys).any():
            raise _BadOutput("returned NaN keys")
        if fam == "pick_reserve":
            return int(view.slot[int(np.argmin(keys))])
        if not view.fits.any():
            return void
        keys = np.where(view.fits, keys, np.inf)
        return int(view.slot[int(np.argmin(keys))])

    return decide


def _model_decider(model, deterministic: bool):
    """``schedrl.envs.rollout.sb3_policy`` (masks passed when supported), its action as one int."""
    from schedrl.envs.rollout import sb3_policy

    policy = sb3_policy(model, deterministic)
    return lambda obs, info: int(np.asarray(policy(obs, info)).reshape(-1)[0])


def _load_authors(path: str, spec: str, name: str | None) -> Policy:
    """A published SB2 zip or DeepRM ``.pkl`` as an SB3-like model (``predict``, spaces)."""
    from schedrl.agents.sb2_reference import ReferenceLoadError, load_reference

    try:
        model = load_reference(path)
    except ReferenceLoadError as exc:
        raise PolicyError(f"policy '{spec}': {exc}") from None
    return Policy(name or Path(path).stem, spec, "sb3", model)


def load_policy(spec: str, name: str | None = None) -> Policy:
    """The ``Policy`` of a spec (see the module docstring); ``PolicyError`` (one line) when it cannot load."""
    spec = str(spec).strip()
    if not spec:
        raise PolicyError("policy: empty spec")
    label = name or spec.rpartition(":")[2] or spec
    if spec.startswith("authors:"):
        return _load_authors(spec[len("authors:"):], spec, name)
    path = Path(spec)
    if ":" not in spec or (path.exists() and not spec.endswith(".py")):
        if path.is_dir():
            if not (path / "model.zip").is_file() or not (path / "config.json").is_file():
                raise PolicyError(f"policy '{spec}': a run folder needs config.json and model.zip")
            from schedrl.experiments.evaluate import load_run

            try:
                model, config = load_run(path)
            except SchedrlError:
                raise
            except Exception as exc:
                raise PolicyError(f"policy '{spec}': cannot load the run ({type(exc).__name__}: {exc})") from None
            label = f"{config.get('algo', 'agent').upper()} {path.parent.name}/{path.name}"
            return Policy(name or label, spec, "run", model, config)
        if spec.endswith(".zip"):
            if not path.is_file():
                raise PolicyError(f"policy '{spec}': no such file")
            from schedrl.agents.sb2_reference import is_sb2_zip

            if is_sb2_zip(path):
                return _load_authors(spec, spec, name)
            return Policy(name or path.stem, spec, "sb3", _load_sb3(path, spec))
        from schedrl.schedulers import get_policy, policy_names
        from schedrl.schedulers.grid import POLICIES

        if spec in policy_names():
            return Policy(name or spec, spec, "priority", get_policy(spec).key_fn)
        if spec in POLICIES:
            return Policy(name or spec, spec, "heuristic", POLICIES[spec])
        raise PolicyError(f"policy '{spec}': not module:name, file.py:name, a model .zip, a run folder or a "
                          f"registered heuristic ({', '.join(policy_names() + sorted(set(POLICIES) - set(policy_names())))})")
    fn = _import_callable(spec)
    from schedrl.schedulers import QueuePolicy

    if isinstance(fn, QueuePolicy):
        return Policy(name or fn.name, spec, "priority", fn.key_fn)
    return Policy(label, spec, _callable_kind(fn, spec), fn)
