"""The shared part of the HPC batch-scheduling environments over ``schedrl.sim.HPCSimulator``.

``HPCEnv`` holds what every decision process shares (job tables and episodes, encoders, rewards,
observations, info); a subclass defines how a pick acts and when the agent is asked next:

* ``schedrl.envs.pick_reserve.PickReserveEnv`` (``schedrl/HPCPickReserve-v0``): the picked job
  starts, or is reserved while EASY backfilling runs; event-driven.
* ``schedrl.envs.time_stepped.TimeSteppedPickEnv`` (``schedrl/HPCTimeStepped-v0``): ticks of
  ``sim_step`` seconds; a pick starts the job if it fits, advance rules move the clock.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cached_property
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np
import pandas as pd
from gymnasium import spaces

from schedrl.encoders import get_encoder
from schedrl.encoders.hpc import HPCEncoder, HPCEncoderParams
from schedrl.envs.rewards import MIN_RUNTIME, RewardContext, get_reward
from schedrl.errors import ConfigError, check_bool, check_int, check_real
from schedrl.sim import ClusterSpec, HPCSimulator, job_arrays

SAMPLING = ("random", "sequential")


class LiveState:
    """A read-only, ``SimState``-compatible view of a running ``HPCSimulator``, computing each field
    on first use (an SEM observation on a 4,360-node machine never builds the per-node vectors).

    ``queue_features`` holds only the first ``rows`` waiting jobs (encoders read no more).
    """

    def __init__(self, sim: HPCSimulator, rows: int):
        self._sim = sim
        self._rows = rows
        self.clock = sim.clock
        self.free = sim.free
        self.capacity = sim.capacity
        self.reserved = sim.reserved
        self.shadow = sim.shadow
        self.node_job = sim.node_job
        self.queue = np.asarray(sim.queue, dtype=np.int64)
        self.running = np.asarray(sim.running, dtype=np.int64)

    @property
    def done(self) -> bool:
        return self._sim.done

    @cached_property
    def queue_features(self) -> np.ndarray:
        j, q = self._sim.jobs, self.queue[: self._rows]
        return np.stack([j.req_procs[q].astype(np.float64), j.req_time[q], j.estimate[q],
                         self.clock - j.submit[q], j.bb[q], j.power[q]], axis=1)

    @cached_property
    def running_expected_end(self) -> np.ndarray:
        return self._sim.start_time[self.running] + self._sim.jobs.req_time[self.running]

    @cached_property
    def running_estimated_end(self) -> np.ndarray:
        return self._sim.start_time[self.running] + self._sim.jobs.estimate[self.running]

    def _node_remaining(self, per_job: np.ndarray) -> np.ndarray:
        busy = self.node_job >= 0
        owner = np.where(busy, self.node_job, 0)
        return np.maximum(np.where(busy, self._sim.node_start + per_job[owner] - self.clock, 0.0), 0.0)

    @cached_property
    def node_remaining_req(self) -> np.ndarray:
        return self._node_remaining(self._sim.jobs.req_time)

    @cached_property
    def node_remaining_est(self) -> np.ndarray:
        return self._node_remaining(self._sim.jobs.estimate)


def _load_table(jobs) -> pd.DataFrame:
    if isinstance(jobs, pd.DataFrame):
        return jobs
    if isinstance(jobs, str | Path):
        from schedrl.workloads.swf import read_swf

        return read_swf(jobs)
    raise ConfigError("jobs must be a job table (DataFrame), an SWF path or a callable(rng) -> DataFrame")


class HPCEnv(gym.Env):
    """Event-driven HPC batch scheduling over ``schedrl.sim.HPCSimulator``.

    ## Description
    Rigid parallel jobs arrive at a homogeneous cluster (nodes, optionally burst-buffer units and
    a power budget: ``ClusterSpec``). At each decision point the agent picks one job from a window
    at the front of the waiting queue (arrival order). What a pick does, the action space and the
    episode's end belong to the decision process: see ``PickReserveEnv`` and ``TimeSteppedPickEnv``.
    Masks (``info["action_mask"]`` and ``action_masks()`` for sb3-contrib's MaskablePPO) mark the
    occupied slots (and a subclass's extra actions).

    ## Observation space
    ``Box(0, 1, (size,), float32)`` from the encoder named by ``encoder``
    (``schedrl.encoders.hpc``; W = ``window``, N = nodes, N2 = burst-buffer units, J = window):

    | encoder | size | content |
    | --- | --- | --- |
    | ``dras`` | ``4W + 2N`` | W x (size, requested time, priority, wait); per node [free, remaining] |
    | ``sem`` | ``4W + 2K`` | the same jobs; K largest running jobs (size, remaining), zero-padded |
    | ``mrsch`` | ``4W + 2N + 2N2`` | W x (nodes, burst buffer, requested time, wait); node and burst-buffer unit pairs |
    | ``runtime_baseline`` | ``N + 2J`` | remaining requested time per node; nodes and requested time per job |
    | ``runtime_proposal`` | ``2N + 3J`` | plus remaining estimated time per node and estimated time per job |

    Times are divided by ``time_scale`` (default: the longest requested walltime of the job table,
    24 h for a workload factory), waits by ``wait_scale`` (default ``time_scale``), all clipped
    to [0, 1]. The priority flag is 1 for jobs whose SWF ``queue`` is in ``priority_queues``.

    ## Rewards
    By name from ``schedrl.envs.rewards`` (``reward_kwargs`` bind its parameters): ``dras_theta``
    (per decision: ``w1 N_used/N + w2 t_i/max(t_max, 6 h) + w3 n_i/N``), ``neg_inv_runtime``
    (per decision: ``-sum 1/t_j`` over jobs in the system), ``runtime_final`` (0, then at the
    episode end: fraction of jobs scheduled + utilisation + fraction of steps left), ``neg_slowdown``
    (``-sum 1/t_j`` over the jobs in the system integrated over the time to the next decision:
    an episode's return is minus the sum of its jobs' slowdowns).

    ``info`` (every step): ``action_mask``, ``clock``, ``waiting``, ``running``, ``reserved``
    (job index or -1), ``started``, ``invalid_action``; with ``measurements=True`` also
    ``utilization`` (busy share per resource dimension: MRSch's measurements) and ``demand_share``
    (MRSch's goal vector, eq. 1; O(queue) per step, hence opt-in).

    ## Starting state
    An empty machine at the first submission of the episode's jobs. Episodes: the whole job table,
    or with ``episode_jobs=E`` a block of E consecutive jobs, its start drawn from
    ``self.np_random`` (``episode_sampling="random"``) or the blocks 0, E, 2E, ... in turn
    (``"sequential"``, SEM's 100 episodes of 600 jobs; ``reset(seed=...)`` restarts the cycle).
    ``jobs`` may also be a callable ``f(rng) -> DataFrame`` called with ``self.np_random`` at every
    reset. ``reset(options={"start": s})`` takes the block starting at row s,
    ``options={"jobs": frame}`` runs a given table (e.g. a test split).

    ## Episode end
    Terminated as the decision process says; truncated after ``max_steps`` steps (default: the
    subclass's ``DEFAULT_MAX_STEPS``). Pass ``max_steps`` to the env, not ``max_episode_steps`` to
    ``gymnasium.make``: its TimeLimit wrapper truncates from outside, so no final reward is paid. At
    either end ``info["schedule"]`` is the per-job schedule (``schedrl.sim`` format: job_id,
    submit_time, start_time, end_time, wait_time, run_time, req_procs, ...; NaN start for jobs
    never started), ready for ``schedrl.metrics``; ``info["episode_start"]`` is the block's first row.

    ## Arguments
    ``gymnasium.make("schedrl/HPCPickReserve-v0", jobs=..., cluster=..., ...)`` after
    ``import schedrl.envs`` (or ``schedrl/HPCTimeStepped-v0``): ``jobs`` (DataFrame, SWF path or
    callable), ``cluster`` (``ClusterSpec`` or a node count; default: the table's
    MaxProcs/MaxNodes header), ``encoder`` ("sem"), ``reward`` ("dras_theta"), ``reward_kwargs``,
    ``window`` (the subclass's ``DEFAULT_WINDOW``), ``k`` (34),
    ``episode_jobs``, ``episode_sampling``, ``time_scale``, ``wait_scale``, ``remaining``
    ("req"/"est": which end time the remaining-time features use), ``priority_queues``,
    ``max_steps``, ``overrun`` ("kill"), ``measurements`` (False), and the subclass's own.

    ## Version history
    * v0: first version (one class with ``mode="dras"|"runtime"``, split by decision process since).
    """

    metadata = {"render_modes": ["ansi"]}
    DEFAULT_WINDOW = 50
    DEFAULT_MAX_STEPS: int | None = None
    EXTRA_ACTIONS = 0  # actions after the window's slots (e.g. a stop action)

    def __init__(self, jobs=None, cluster: ClusterSpec | int | None = None,
                 encoder: str = "sem", reward: str = "dras_theta", reward_kwargs: dict | None = None,
                 window: int | None = None, k: int = 34, episode_jobs: int | None = None,
                 episode_sampling: str = "random", time_scale: float | None = None,
                 wait_scale: float | None = None, remaining: str = "req", priority_queues=(),
                 max_steps: int | None = None, overrun: str = "kill", measurements: bool = False,
                 render_mode: str | None = None):
        if episode_sampling not in SAMPLING:
            raise ConfigError(f"unknown episode_sampling '{episode_sampling}' (choose from: {', '.join(SAMPLING)})")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ConfigError(f"unknown render_mode '{render_mode}'")
        if jobs is None:
            raise ConfigError("HPC env needs jobs: a job table, an SWF path or a callable(rng) -> DataFrame")
        self.factory = jobs if callable(jobs) else None
        self.table = None if self.factory else _load_table(jobs)
        if cluster is None:
            from schedrl.workloads.table import machine_size

            size = machine_size(self.table) if self.table is not None else None
            if size is None:
                raise ConfigError("HPC env: give cluster= (the job table states no MaxProcs/MaxNodes)")
            cluster = ClusterSpec(nodes=size)
        elif not isinstance(cluster, ClusterSpec):
            cluster = ClusterSpec(nodes=check_int("cluster", cluster, 1))
        self.cluster = cluster
        if self.table is not None:
            job_arrays(self.table, cluster, overrun)  # a job larger than the machine fails here, not at reset
        self.window = check_int("window", window, 1) if window is not None else self.DEFAULT_WINDOW
        if episode_jobs is not None:
            episode_jobs = check_int("episode_jobs", episode_jobs)
            if episode_jobs < 1 or (self.table is not None and episode_jobs > len(self.table)):
                raise ConfigError(f"episode_jobs must be in 1..{len(self.table) if self.table is not None else 'n'}")
        if self.table is not None and len(self.table) == 0:
            raise ConfigError("HPC env: the job table is empty")
        self.episode_jobs, self.episode_sampling = episode_jobs, episode_sampling
        self.max_episode_steps = self.DEFAULT_MAX_STEPS if max_steps is None else check_int("max_steps", max_steps, 1)
        self.measurements = check_bool("measurements", measurements)
        if isinstance(priority_queues, (str, bytes)) or not isinstance(priority_queues, Iterable):
            raise ConfigError(f"priority_queues must be a list of queue numbers, not {priority_queues!r}")
        self.priority_queues = np.asarray(sorted(check_int("priority_queues", q) for q in priority_queues),
                                          dtype=np.int64)
        self.render_mode = render_mode

        if time_scale is None:
            time_scale = self._longest_request() if self.table is not None else 86_400.0
        wait_scale = time_scale if wait_scale is None else wait_scale
        self.encoder_params = HPCEncoderParams(
            nodes=cluster.nodes, window=self.window, k=check_int("k", k), bb_units=cluster.bb_units,
            time_scale=check_real("time_scale", time_scale), wait_scale=check_real("wait_scale", wait_scale),
            remaining=remaining)
        enc_cls = get_encoder(encoder)
        if not (isinstance(enc_cls, type) and issubclass(enc_cls, HPCEncoder)):
            raise ConfigError(f"encoder '{encoder}' is not an HPC encoder (use dras, sem, mrsch, "
                              "runtime_baseline or runtime_proposal)")
        self.encoder = enc_cls(self.encoder_params)
        self.reward_name = reward
        if reward_kwargs is not None and not isinstance(reward_kwargs, dict):
            raise ConfigError(f"reward_kwargs must be a mapping of the reward's keywords, not {reward_kwargs!r}")
        self.reward_fn = get_reward(reward, **(reward_kwargs or {}))
        wanted = frozenset(getattr(getattr(self.reward_fn, "func", self.reward_fn), "integrates", ()))
        self._integrates = bool(wanted)
        self._integrate_area, self._integrate_idle = "area" in wanted, "idle" in wanted
        self._area = self._idle = 0.0
        self.observation_space = spaces.Box(low=np.float32(self.encoder.low), high=np.float32(self.encoder.high),
                                            shape=self.encoder.shape, dtype=np.float32)
        n_actions = self.window + self.EXTRA_ACTIONS
        self.action_space = spaces.Discrete(n_actions)
        self.sim = self._make_simulator(cluster, overrun)
        self._episode = 0
        self._priority = None
        self.episode_start = 0

    # -- setup ----------------------------------------------------------------------------------
    def _make_simulator(self, cluster: ClusterSpec, overrun: str) -> HPCSimulator:
        """The simulator the decision process drives (event-driven unless a subclass says otherwise)."""
        return HPCSimulator(cluster, overrun=overrun)

    def _longest_request(self) -> float:
        req = pd.to_numeric(self.table["req_time"], errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
        run = pd.to_numeric(self.table["run_time"], errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
        longest = np.nanmax(np.where(req > 0, req, run)) if len(req) else np.nan
        return float(longest) if np.isfinite(longest) and longest > 0 else 86_400.0

    def _episode_table(self, options) -> pd.DataFrame:
        options = options or {}
        if "jobs" in options:
            self.episode_start = 0
            return _load_table(options["jobs"])
        if self.factory is not None:
            self.episode_start = 0
            return self.factory(self.np_random)
        n = len(self.table)
        E = self.episode_jobs
        if E is None:
            self.episode_start = 0
            return self.table
        if "start" in options:
            s = int(options["start"])
            if not 0 <= s <= n - E:
                raise ConfigError(f"episode start {s} out of range 0..{n - E}")
        elif self.episode_sampling == "random":
            s = int(self.np_random.integers(0, n - E + 1))
        else:
            s = (self._episode % (n // E)) * E
        self._episode += 1
        self.episode_start = s
        return self.table.iloc[s: s + E]

    # -- gymnasium API --------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        if seed is not None:
            self._episode = 0
        table = self._episode_table(options)
        if len(table) == 0:
            raise ConfigError("HPC env: the episode has no jobs")
        self.sim.reset(table)
        self._inv_runtime = 1.0 / np.maximum(self.sim.jobs.run_time, MIN_RUNTIME)
        if len(self.priority_queues) and "queue" in table.columns:
            q = pd.to_numeric(table["queue"], errors="coerce").to_numpy(dtype=np.float64, na_value=-1)
            self._priority = np.isin(q[self.sim.jobs.order], self.priority_queues).astype(np.float32)
        else:
            self._priority = None
        self.steps = 0
        self.n_started = 0
        self._reset_process()
        self._schedule_to_decision()
        return self._observe(), self._info()

    def step(self, action):
        a = action if type(action) is int else int(np.asarray(action).reshape(-1)[0])
        self.steps += 1
        ctx, invalid = self._act(a)
        reward = float(self.reward_fn(ctx))  # at the decision instant, before the clock moves
        self._area = self._idle = 0.0
        t0 = self.sim.clock
        self._schedule_to_decision(after_action=ctx)
        if self._integrates:
            elapsed = RewardContext(sim=self.sim, phase="elapsed", steps=self.steps, n_jobs=len(self.sim.jobs),
                                    n_started=self.n_started, elapsed=self.sim.clock - t0, area=self._area,
                                    idle=self._idle)
            reward += float(self.reward_fn(elapsed))
        terminated = self._terminated()
        truncated = (not terminated and self.max_episode_steps is not None
                     and self.steps >= self.max_episode_steps)
        info = self._info()
        info["invalid_action"] = invalid
        if terminated or truncated:
            end = RewardContext(sim=self.sim, phase="end", steps=self.steps, max_steps=self.max_episode_steps,
                                n_jobs=len(self.sim.jobs), n_started=self.n_started,
                                terminated=terminated, truncated=truncated)
            reward += float(self.reward_fn(end))
            info["schedule"] = self.sim.schedule()
            info["episode_start"] = self.episode_start
        return self._observe(), reward, terminated, truncated, info

    def action_masks(self) -> np.ndarray:
        """Valid actions now (see the class docstring), for sb3-contrib's MaskablePPO."""
        sim = self.sim
        k = min(self.window, len(sim.queue))
        mask = np.zeros(self.action_space.n, dtype=np.bool_)
        mask[:k] = True
        return self._mask(mask, k)

    def render(self):
        if self.render_mode != "ansi":
            return None
        sim = self.sim
        return (f"t={sim.clock:.0f}s free={sim.free.tolist()} waiting={len(sim.queue)} "
                f"running={len(sim.running)} reserved={sim.reserved} started={self.n_started}/{len(sim.jobs)}")

    # -- transitions ----------------------------------------------------------------------------
    def _context(self, job: int, started: bool, max_wait: float = 0.0) -> RewardContext:
        sim = self.sim
        wait = float(sim.clock - sim.jobs.submit[job]) if job >= 0 else 0.0
        return RewardContext(sim=sim, job=job, started=started, wait=wait, max_wait=max_wait,
                             steps=self.steps, max_steps=self.max_episode_steps, n_jobs=len(sim.jobs),
                             n_started=self.n_started)

    # A decision process defines these (see PickReserveEnv, TimeSteppedPickEnv).
    def _reset_process(self) -> None:
        """Reset the decision process's own per-episode state (before the first decision point)."""

    def _act(self, a: int) -> tuple[RewardContext, bool]:
        """Carry out pick ``a``; returns the reward context and whether the action was invalid."""
        raise NotImplementedError

    def _schedule_to_decision(self, after_action: RewardContext | None = None) -> None:
        """Run the simulator until the agent has a decision to make (or the episode is over)."""
        raise NotImplementedError

    def _terminated(self) -> bool:
        raise NotImplementedError

    def _mask(self, mask: np.ndarray, k: int) -> np.ndarray:
        """Adjust the base mask (the ``k`` occupied slots) for the process's own actions."""
        return mask

    def _advance(self) -> None:
        sim = self.sim
        if not self._integrates:
            sim.next_decision_point()  # advance() without building a SimState (O(nodes)) nobody reads
            return
        if self._integrate_area:  # sum of 1/runtime over the jobs in the system, times the time it holds
            held = self._inv_runtime[sim.queue].sum() + self._inv_runtime[sim.running].sum()
        if self._integrate_idle:
            run = np.asarray(sim.running, dtype=np.int64)  # nothing starts while the clock moves
        t0 = sim.clock
        sim.next_decision_point()
        if not np.isfinite(sim.clock):
            return
        dt = sim.clock - t0
        if self._integrate_area:
            self._area += float(held) * dt
        if self._integrate_idle:
            # idle node-seconds by the jobs' exact ends (a time-stepped machine frees nodes on the
            # next tick; the paper's utilisation counts a job's nodes busy until its end)
            busy = np.clip(np.minimum(sim.end_time[run], sim.clock) - t0, 0.0, None)
            self._idle += float(sim.cluster.nodes) * dt - float(np.sum(sim.jobs.req_procs[run] * busy))

    # -- observation and info -------------------------------------------------------------------
    def _observe(self) -> np.ndarray:
        sim = self.sim
        view = LiveState(sim, self.window)
        prio = self._priority[view.queue[: self.window]] if self._priority is not None else None
        return self.encoder(view, jobs=sim.jobs, priority=prio)

    def _info(self) -> dict:
        sim = self.sim
        info = {"action_mask": self.action_masks(), "clock": float(sim.clock), "waiting": len(sim.queue),
                "running": len(sim.running), "reserved": int(sim.reserved), "started": self.n_started}
        if self.measurements:
            info["utilization"], info["demand_share"] = resource_measurements(sim)
        return info


def resource_measurements(sim: HPCSimulator) -> tuple[np.ndarray, np.ndarray]:
    """Per resource dimension (``ClusterSpec.dims``): the busy share now, and MRSch's goal eq. (1),
    ``r_j = sum_i P_ij t_i / sum_j sum_i P_ij t_i`` over waiting (t_i = requested time) and running
    (t_i = requested time left) jobs, P_ij job i's share of resource j (uniform when no demand)."""
    cap = sim.capacity.astype(np.float64)
    util = 1.0 - sim.free / cap
    q = np.asarray(sim.queue, dtype=np.int64)
    r = np.asarray(sim.running, dtype=np.int64)
    jobs = sim.jobs
    t = np.concatenate([jobs.req_time[q], np.maximum(sim.start_time[r] + jobs.req_time[r] - sim.clock, 0.0)])
    demand = (jobs.demand[np.concatenate([q, r])] / cap * t[:, None]).sum(axis=0)
    total = demand.sum()
    goal = demand / total if total > 0 else np.full(len(cap), 1.0 / len(cap))
    return util, goal
