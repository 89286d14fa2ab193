"""Named rewards of the HPC environment (``schedrl/HPC-v0``): small functions of a :class:`RewardContext`.

The env calls the chosen function once per step in phase ``"decision"``,
right after the action was applied and before the clock moves (the simulator shows the queue and
machine of that instant); for functions with an ``integrates`` attribute once more in phase
``"elapsed"`` after the clock moved to the next decision point (``ctx.elapsed`` seconds; the
attribute names what the env integrates over that time, since each costs a pass over the running
jobs: ``"area"`` = integral of sum(1/runtime) of the jobs in the system, ``"idle"`` = idle
node-seconds; ``ctx.area`` / ``ctx.idle`` stay 0 unless named); and once in
phase ``"end"`` when the episode terminates or is truncated. The calls' values are added. A function returns 0 in the phases it does not use. A new paper adds
its reward here: write the function and add it to ``REWARDS``; extra parameters come from the
env's ``reward_kwargs``.

* ``dras_theta`` (DRAS on Theta; SEM section 4.3): at each decision on job i,
  ``w1 * N_used / N + w2 * t_i / max(t_max, wait_floor) + w3 * n_i / N`` with ``N_used`` the busy
  nodes after the action, ``t_i`` / ``n_i`` the chosen job's wait and nodes and ``t_max`` the
  longest wait in the queue at the decision; weights 1/3 each. ``wait_floor`` 6 h (default) is
  DRAS's public code; ``wait_floor=0`` is the paper's text, ``t_i / t_max``, whose wait term is 0
  when ``t_max`` is 0 (every waiting job arrived this instant).
* ``neg_inv_runtime`` (DRAS/SEM on DataStar, after DeepRM): ``-sum(1 / t_j)`` over the jobs in the
  system (waiting and running) at the decision, ``t_j`` the job's runtime (at least 1 s). Charged
  per decision, as the paper writes it, not per unit of time.
* ``neg_slowdown`` (a time-integrated ``neg_inv_runtime``, DeepRM's per-time-step charge in
  continuous time): ``-area``, so an episode run to its end returns ``-sum(slowdown_j)`` with
  slowdown = (wait + runtime) / max(runtime, 1 s).
* ``runtime_final`` (runtime paper, brief 4.4): 0 at decisions; at the end
  ``started / jobs + utilisation + (max_steps - steps) / max_steps``. Utilisation: when every job
  was scheduled, used node-seconds of all jobs / (N x (last end - first submit)) (the paper's
  utilisation, equal to ``schedrl.metrics.runtime_utilization`` of the schedule); at truncation,
  node-seconds of the jobs completed by now / (N x (now - first submit)).
* ``runtime_idle`` (beyond the runtime paper, issue 38: a reward PPO can learn from): after each
  step ``-idle node-seconds / (N x scale)`` over the time the clock moved (``scale`` 1 day), and at
  the end the idle node-seconds until the last running job ends. An episode run to its end
  returns ``-(N x span - used node-seconds) / (N x scale)``, span = last end - first submit: a
  strictly increasing function of the paper's utilisation, so every policy is ranked as the
  paper's metric ranks it, and each step is charged for the idle nodes it leaves.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from schedrl.errors import ConfigError

HOUR = 3600.0
MIN_RUNTIME = 1.0  # runtimes below a second count as one (SWF runtimes are whole seconds)


@dataclass
class RewardContext:
    """What a reward function may read. ``sim`` is the ``HPCSimulator`` at that moment."""

    sim: Any
    phase: str = "decision"     # "decision" or "end"
    job: int = -1               # simulator job index the action acted on (-1: none)
    started: bool = False       # the action started that job
    wait: float = 0.0           # its wait at the decision (s)
    max_wait: float = 0.0       # longest wait in the queue at the decision (s)
    steps: int = 0              # env steps taken so far in the episode (this one included)
    max_steps: int | None = None
    n_jobs: int = 0
    n_started: int = 0
    terminated: bool = False
    truncated: bool = False
    elapsed: float = 0.0        # phase "elapsed": seconds the clock moved during the step
    area: float = 0.0           # phase "elapsed": integral of sum(1/runtime) over jobs in the system
    idle: float = 0.0           # phase "elapsed": idle node-seconds over that time (jobs busy until their ends)


def dras_theta(ctx: RewardContext, weights=(1 / 3, 1 / 3, 1 / 3), wait_floor: float = 6 * HOUR) -> float:
    if ctx.phase != "decision" or ctx.job < 0:
        return 0.0
    sim = ctx.sim
    n = float(sim.cluster.nodes)
    used = n - float(sim.free[0])
    size = float(sim.jobs.req_procs[ctx.job])
    w1, w2, w3 = weights
    scale = max(float(ctx.max_wait), float(wait_floor))
    wait_term = float(ctx.wait) / scale if scale > 0 else 0.0  # t_i <= t_max, so 0 / 0 means no wait
    return float(w1 * used / n + w2 * wait_term + w3 * size / n)


def neg_inv_runtime(ctx: RewardContext) -> float:
    if ctx.phase != "decision":
        return 0.0
    sim = ctx.sim
    idx = np.asarray(sim.queue + sim.running, dtype=np.int64)
    if len(idx) == 0:
        return 0.0
    return -float(np.sum(1.0 / np.maximum(sim.jobs.run_time[idx], MIN_RUNTIME)))


def neg_slowdown(ctx: RewardContext) -> float:
    return -float(ctx.area) if ctx.phase == "elapsed" else 0.0


neg_slowdown.integrates = frozenset({"area"})


def runtime_utilisation_so_far(sim, all_scheduled: bool) -> float:
    """Utilisation for ``runtime_final`` (see the module docstring); 0 on an empty span."""
    jobs = sim.jobs
    t0 = float(jobs.submit[0])
    start, end = sim.start_time, sim.end_time
    ran = np.isfinite(start)
    if all_scheduled:
        t1 = float(np.max(end[ran])) if ran.any() else t0
        keep = ran
    else:
        t1 = float(sim.clock)
        keep = ran & (end <= t1)
    if not np.isfinite(t1) or t1 <= t0:
        return 0.0
    used = np.sum(jobs.req_procs[keep] * (end[keep] - start[keep]))
    return float(used / (sim.cluster.nodes * (t1 - t0)))


def runtime_final(ctx: RewardContext) -> float:
    if ctx.phase != "end":
        return 0.0
    frac = ctx.n_started / ctx.n_jobs if ctx.n_jobs else 0.0
    util = runtime_utilisation_so_far(ctx.sim, ctx.n_started == ctx.n_jobs)
    left = (ctx.max_steps - ctx.steps) / ctx.max_steps if ctx.max_steps else 0.0
    return float(frac + util + max(left, 0.0))


def runtime_idle(ctx: RewardContext, scale: float = 86_400.0) -> float:
    sim = ctx.sim
    per = float(sim.cluster.nodes) * float(scale)
    if ctx.phase == "elapsed":
        return -float(ctx.idle) / per
    if ctx.phase == "end" and ctx.terminated and sim.running:
        # every job has started: the machine idles around the running ones until the last ends
        run = np.asarray(sim.running, dtype=np.int64)
        left = np.clip(sim.end_time[run] - sim.clock, 0.0, None)  # a job may have ended between ticks
        busy = float(np.sum(sim.jobs.req_procs[run] * left))
        return -(float(sim.cluster.nodes) * float(left.max()) - busy) / per
    return 0.0


runtime_idle.integrates = frozenset({"idle"})


REWARDS = {
    "dras_theta": dras_theta,
    "neg_inv_runtime": neg_inv_runtime,
    "neg_slowdown": neg_slowdown,
    "runtime_final": runtime_final,
    "runtime_idle": runtime_idle,
}


def reward_names() -> list[str]:
    return sorted(REWARDS)


def get_reward(name: str, **kwargs):
    """The reward function ``name`` with ``kwargs`` bound; ConfigError naming the choices otherwise."""
    try:
        fn = REWARDS[name]
    except (KeyError, TypeError):  # TypeError: a list or a mapping given as the name
        raise ConfigError(f"unknown reward '{name}' (choose from: {', '.join(reward_names())})") from None
    if not kwargs:
        return fn
    import functools
    import inspect

    bad = set(kwargs) - (set(inspect.signature(fn).parameters) - {"ctx"})
    if bad:
        raise ConfigError(f"reward '{name}' takes no parameter(s) {', '.join(sorted(bad))}")
    return functools.partial(fn, **kwargs)
