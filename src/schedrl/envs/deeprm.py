"""Gymnasium environment ``schedrl/DeepRM-v0``: DeepRM's multi-resource cluster scheduling MDP."""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from schedrl.encoders import get_encoder, register_encoder
from schedrl.errors import ConfigError, check_bool, check_int, check_real
from schedrl.sim.grid import Grid, GridParams
from schedrl.workloads.deeprm import generate_jobset, legacy_jobsets, make_model

register_encoder("profile", "schedrl.encoders.grid_profile", "ProfileEncoder")

OBS_MODES = ("image", "stacked", "compact", "profile")
ACTION_MODES = ("discrete", "multibinary")
REWARDS = ("slowdown", "completion_time", "slowdown_window")
TRANSITIONS = ("dense", "sparse")
SKIPPED_REWARDS = ("sum", "zero", "charge")
OBS_LAYOUTS = ("native", "flat", "chw")
JOBSET_RNGS = ("pcg64", "legacy")
MULTIBINARY_RULES = ("first_failure", "try_all")


_JOBSETS: dict = {}


def _seeded_jobsets(model, simu_len: int, num_jobsets: int, seed: int, rng: str) -> list:
    """The seeded job sets of an env, drawn once per process and shared (read-only) by every env
    of the same parameters: a trainer with hundreds of env copies draws them once."""
    key = (model, simu_len, num_jobsets, seed, rng)
    if key not in _JOBSETS:
        if len(_JOBSETS) > 64:
            _JOBSETS.clear()
        if rng == "legacy":
            _JOBSETS[key] = legacy_jobsets(model, simu_len, num_jobsets, seed)
        else:
            _JOBSETS[key] = [generate_jobset(model, simu_len, seed + k) for k in range(num_jobsets)]
    return list(_JOBSETS[key])


class DeepRMEnv(gym.Env):
    """DeepRM (Mao et al. 2016) as re-implemented in the SB3 report (deeprm-sb3-report.txt).

    ## Description
    One machine with ``num_res`` resources of ``res_slot`` units each, seen ``time_horizon`` steps
    ahead. Jobs arrive (Bernoulli(``new_job_rate``) per time step, DeepRM's bimodal job model) into
    ``num_nw`` visible job slots, then a backlog of ``backlog_size``; jobs beyond that are dropped
    (``backlog_full="drop"``, DeepRM) or retried at the next step with the rest of the set delayed
    (``"retry"``, the SB3 report's phase-1 code, whose job sequence stalls on a full backlog).
    The agent picks jobs from the slots; a picked job is placed at the earliest time in the horizon
    where it fits (``placement="earliest"``) or only now (``"now"``). The simulator is
    ``schedrl.sim.grid.Grid``.

    ## Action space
    * ``action_mode="discrete"``: ``Discrete(num_nw + 1)``. ``i < num_nw`` allocates slot i's job;
      ``num_nw`` is the void action. Time is frozen while jobs are allocated; a void action, an
      empty slot or a job that does not fit moves time on by one step (DeepRM's ``MoveOn``).
    * ``action_mode="multibinary"``: ``MultiBinary(num_nw)`` (report section 3.3.2). The slots whose
      bit is 1 are tried in increasing order; the first failure (empty slot, job does not fit)
      ends the step with ``MoveOn``. All-zero actions move on; if every set bit succeeds, time
      stays frozen and the agent acts again (``multibinary_rule="first_failure"``, the default).
    * ``multibinary_rule="try_all"`` (the SB3 report's public code, ``MultiBinaryDeepRM.py``):
      every set bit is tried in increasing order and each failure (empty slot, job does not fit)
      moves time on by one step, after which the next set bit is tried in the new time step; an
      all-zero action moves on once per slot. A step moves time on at most ``move_on_cap`` times
      (4 there), then ends. The step earns one charge of the reward, taken on the state at its
      end, whatever the number of moves (0 to ``move_on_cap``), and 0 if it placed more than one
      job. Episode returns then no longer sum to minus the slowdowns.

    Invalid actions are safe (they move on). Masks: ``info["action_mask"]`` and ``action_masks()``
    (sb3-contrib ``MaskablePPO``) mark slots whose job fits under the placement rule and the void
    action (discrete: ``num_nw + 1`` booleans), or per slot ``[bit 0 allowed, bit 1 allowed]``
    (multibinary: ``2 * num_nw`` booleans, the layout of sb3-contrib's multi-binary masks).

    ## Observation space
    ``Box(0, 1, shape, float32)``:

    | obs_mode | shape | content |
    | --- | --- | --- |
    | ``image`` | ``(time_horizon, (res_slot + max_job_size * num_nw) * num_res + backlog_width + 1)`` | DeepRM image: per resource the machine then each slot; backlog; time since the last job |
    | ``stacked`` | ``((num_nw + 1) * time_horizon, num_res * res_slot)`` | phase 1: machine on top, then each slot's profile |
    | ``compact`` | ``(2 * time_horizon * num_res + 7 * num_nw + 8,)`` | sched-rl-gym's feature vector (mdp-design section 4.2) |
    | ``profile`` | ``(num_nw + 1, time_horizon, num_res)`` | free units, then each slot's demand profile, as numbers in ``[0, res_slot]`` (the SB3 report code's phase-1 state; ``schedrl.encoders.grid_profile``) |

    ``backlog_width = ceil(backlog_size / time_horizon)``; the image is 20 x 224 for the defaults
    (20 x 124 with ``num_nw=5``). See ``schedrl.encoders.grid_images`` and ``.compact``.

    ## Rewards
    Zero after an allocation that keeps time frozen. On ``MoveOn`` from step t to t+1, over the
    jobs in the system during [t, t+1) (running or booked on the machine, in slots, in the backlog):

    * ``reward="slowdown"`` (eq. 3.1): ``-sum(1 / length)``. Over an episode that runs to the end
      the return is exactly ``-sum(slowdown)`` of its jobs.
    * ``reward="completion_time"`` (eq. 3.2): ``-(number of jobs)``; the return is
      ``-sum(completion time)``.
    * ``reward="slowdown_window"`` (mdp-design section 4.4, "reduced"): ``-sum(1 / length)`` over
      the jobs in the W visible slots only.

    (DeepRM charges the same sums after advancing, i.e. for [t+1, t+2); episode totals agree.)

    ## Transitions
    ``transitions="dense"`` (DeepRM): the agent sees every time step. ``"sparse"`` (mdp-design
    section 4.3, a semi-MDP): after any step, time keeps moving on while no visible job can be
    placed (and the episode goes on). The initial state is unchanged. What the skipped time steps
    earn, ``skipped_reward``:

    * ``"sum"`` (default): the step's reward is its own plus the sum over the skipped time steps,
      so episode returns keep their meaning (minus the summed slowdown with ``reward="slowdown"``);
    * ``"zero"`` (mdp-design section 4.3, "we extend the reward function to return zero in all
      intermediate states after successfully scheduling a job"): skipped time steps earn 0, so an
      allocation earns 0 even when time then moves on, and a void or failed action earns one time
      step's charge (as in the dense MDP). Every work-conserving order then earns the same return
      (0 with the window reward): the reward cannot teach which job to run;
    * ``"charge"`` (sched-rl-gym's rule, in every version; discrete actions): an allocation keeps
      the clock where it is, even when nothing else fits (the agent is asked again), and earns 0; an
      action that allocates nothing moves time on until a window job fits (or the episode ends) and
      earns one step's charge, read at the state where the agent is asked again. Waiting longer
      costs more, so the order of the jobs matters (C+S+R scenario 1, 100 job sets: SJF -26.8,
      FIFO -47.2, random -49.1, LJF -63.2 by ``tests/test_mdp_env.py``'s players).

    ## The MDP-design paper's MDPs (mdp-design.txt, sections 4-5)
    Each of the paper's MDPs is a combination of options of this env (no fork):

    | paper | options |
    | --- | --- |
    | image-like, the base MDP (4.1, DeepRM) | ``obs_mode="image"``, ``transitions="dense"``, ``reward="slowdown"`` |
    | compact state (4.2, Table 1) | ``obs_mode="compact"`` |
    | sparse transitions (4.3) = sched-rl-gym's event-based simulation | ``transitions="sparse"`` |
    | reduced reward (4.4) = sched-rl-gym's bounded reward | ``reward="slowdown_window"`` |
    | a Table 3 scenario (n_p, d, j_s) | ``num_res=1, res_slot=n_p, max_job_size=n_p, workload="cunha", workload_max_job_size=j_s, max_job_len=d, placement="now"``, with ``new_job_rate=0.3, simu_len=100, episode_max_length=100`` |

    Where the paper is vague, what sched-rl-gym (its code, renatolfc/sched-rl-gym) does and our choice:

    * *Event-based simulation and bounded rewards* (the paper's second experiment set, "in dense and
      compact MDPs") are not new mechanisms: sched-rl-gym's ``simulation_type="event-based"`` is the
      sparse transition of section 4.3 (from its 2021-06-29 version on, time moves on until a job in
      the W slots fits now; before, until any job waits), and its "bound negative rewards" change
      (2021-06-13) is the window reward of section 4.4. So the second set is ``image`` or ``compact``
      with ``transitions="sparse"`` and ``reward="slowdown_window"``; "dense" there means the image
      state (Fig. 2's caption), not dense transitions.
    * *Reward over skipped time steps* (sparse transitions): the paper returns zero in the
      intermediate states; sched-rl-gym, the simulator it used, never moves time after an
      allocation and charges one time step's reward at the state where the agent is called again
      (``skipped_reward="charge"``, what the MDP paper's verdicts use; a 2022 commit of sched-rl-gym
      changed it to the discounted sum over the skipped steps, close to ``"sum"``). ``"zero"`` is the
      paper's sentence read alone.
    * *When a step is charged*: sched-rl-gym charges the jobs present after time moves (t + 1), we the
      jobs present during [t, t + 1); episode totals agree.
    * *Placement*: sched-rl-gym starts a job now or not at all, hence ``placement="now"`` (which also
      lets d = 48 exceed H = 20); the image's slot blocks are n_p columns wide (``max_job_size = n_p``)
      as in sched-rl-gym, which gives the paper's parameter counts.
    * *Compact normalisation*: the paper lists the features only; see ``schedrl.encoders.compact``
      for our limits (sched-rl-gym divides times by the episode length; we divide requested time by
      ``max_job_len``).

    ## Starting state
    Empty machine at time 0 with the jobs arriving at step 0 in the slots. Job sets: with an int
    ``jobset_seed``, episodes cycle through the ``num_jobsets`` job sets generated with seeds
    ``jobset_seed, jobset_seed + 1, ...``; ``reset(seed=...)`` restarts the cycle, and
    ``reset(options={"jobset": k})`` picks the k-th set of the cycle. With ``jobset_seed=None`` each
    episode draws a fresh job set from ``self.np_random``. ``jobset_rng`` says how the seeded sets
    are drawn: ``"pcg64"`` (default; set k from ``default_rng(jobset_seed + k)``, vectorised) or
    ``"legacy"`` (the ``num_jobsets`` sets are one run of numpy's legacy ``RandomState(jobset_seed)``
    cut into sequences, in DeepRM's draw order: ``schedrl.workloads.deeprm.legacy_jobsets``; the SB3
    report's code trains and evaluates on ``jobset_seed=42, num_jobsets=1``). ``reset`` then
    reports ``info["jobset"]``, the index of the set being played.

    ## Episode end
    Terminated when every job of the set has arrived and finished (dropped jobs excepted).
    Truncated when time reaches ``episode_max_length``. At either end ``info`` carries:

    * ``jobs``: structured array (``Grid.job_records``) with fields job, arrival, length,
      demand_r, start, finish, slowdown, completion_time, state, withheld. At truncation jobs still
      on the machine keep their known finish time (as DeepRM records them) and jobs never placed
      count with their slowdown so far, ``(now - arrival) / length`` (state "waiting").
    * ``withheld``: lengths of the jobs withheld at least once. A job is *withheld* at a
      ``MoveOn`` if it was in a visible slot and its demand fitted in the free resources from the
      current step for its whole length, so it could have started at once but the agent moved on.
    * ``dropped``: number of jobs lost to a full backlog.

    ## Arguments
    ``gymnasium.make("schedrl/DeepRM-v0", **kwargs)`` after ``import schedrl.envs``. Defaults follow
    DeepRM's ``parameters.py`` with the report's phase-2 ``num_nw=10``: obs_mode "image",
    action_mode "discrete", reward "slowdown", num_res 2, num_nw 10, time_horizon 20, max_job_len
    15, res_slot 10, max_job_size 10, backlog_size 60, new_job_rate 0.7 (load 130%), simu_len 50,
    episode_max_length 200, jobset_seed 0, num_jobsets 10 (DeepRM's ``num_ex``). Further:
    ``workload`` ("deeprm", "sb3_phase1", "cunha"), ``workload_max_job_size`` (largest demand the
    workload draws, default ``max_job_size``, which sets the image's slot width; sched-rl-gym draws
    up to j_s on slots n_p wide), ``placement`` ("earliest", "now"; "now" allows jobs longer than
    the horizon), ``transitions`` ("dense", "sparse"), ``skipped_reward`` ("sum", "zero", "charge"; sparse
    transitions only), ``obs_layout`` ("native" as in the table
    above, "flat" 1-D, or "chw" with a leading channel axis for CNN policies),
    ``max_track_since_new`` 10, ``job_num_cap`` 40 (colours), ``machine_colors`` True,
    ``jobset_rng`` ("pcg64", "legacy"; see Starting state), ``multibinary_rule`` ("first_failure",
    "try_all"), ``move_on_cap`` 4 (see Action space) and ``backlog_full`` ("drop", "retry"; see
    Description).

    ## Batched twin
    ``schedrl.envs.grid_batch.GridBatch`` steps N copies of this env (image observations, discrete
    actions, dense transitions, the slowdown or completion-time reward, seeded job sets) in one
    compiled call and reproduces it exactly (``tests/test_grid_batch.py``); DeepRM's REINFORCE
    trainer uses it where ``grid_batch.supported(env)``. This class stays the reference.

    ## Version history
    * v0: first version.
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}

    def __init__(self, obs_mode: str = "image", action_mode: str = "discrete", reward: str = "slowdown",
                 num_res: int = 2, num_nw: int = 10, time_horizon: int = 20, max_job_len: int = 15,
                 res_slot: int = 10, max_job_size: int = 10, backlog_size: int = 60,
                 new_job_rate: float = 0.7, simu_len: int = 50, episode_max_length: int = 200,
                 jobset_seed: int | None = 0, num_jobsets: int = 10, workload: str = "deeprm",
                 placement: str = "earliest", max_track_since_new: int = 10, job_num_cap: int = 40,
                 machine_colors: bool = True, transitions: str = "dense", obs_layout: str = "native",
                 workload_max_job_size: int | None = None, render_mode: str | None = None,
                 skipped_reward: str = "sum", jobset_rng: str = "pcg64",
                 multibinary_rule: str = "first_failure", move_on_cap: int = 4, backlog_full: str = "drop"):
        for name, value, choices in (("obs_mode", obs_mode, OBS_MODES),
                                     ("action_mode", action_mode, ACTION_MODES),
                                     ("reward", reward, REWARDS),
                                     ("transitions", transitions, TRANSITIONS),
                                     ("skipped_reward", skipped_reward, SKIPPED_REWARDS),
                                     ("obs_layout", obs_layout, OBS_LAYOUTS),
                                     ("jobset_rng", jobset_rng, JOBSET_RNGS),
                                     ("multibinary_rule", multibinary_rule, MULTIBINARY_RULES)):
            if value not in choices:
                raise ConfigError(f"unknown {name} '{value}' (choose from: {', '.join(choices)})")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ConfigError(f"unknown render_mode '{render_mode}'")
        episode_max_length, num_jobsets = check_int("episode_max_length", episode_max_length, 1), \
            check_int("num_jobsets", num_jobsets, 1)
        simu_len, move_on_cap = check_int("simu_len", simu_len, 0), check_int("move_on_cap", move_on_cap, 1)
        if jobset_seed is not None:
            jobset_seed = check_int("jobset_seed", jobset_seed, 0)
        if workload_max_job_size is not None:
            workload_max_job_size = check_int("workload_max_job_size", workload_max_job_size, 1)
        self.params = GridParams(num_res=num_res, num_nw=num_nw, time_horizon=time_horizon,
                                 res_slot=res_slot, max_job_len=max_job_len, max_job_size=max_job_size,
                                 backlog_size=backlog_size, placement=placement,
                                 max_track_since_new=max_track_since_new, job_num_cap=job_num_cap,
                                 machine_colors=check_bool("machine_colors", machine_colors),
                                 backlog_full=backlog_full)
        drawn_size = self.params.max_job_size if workload_max_job_size is None else workload_max_job_size
        self.model = make_model(workload, num_res=self.params.num_res, max_job_len=self.params.max_job_len,
                                max_job_size=drawn_size, res_slot=self.params.res_slot,
                                new_job_rate=check_real("new_job_rate", new_job_rate))
        if self.model.max_len > max_job_len or self.model.max_demand > max_job_size:
            raise ConfigError(f"workload '{workload}' draws jobs larger than max_job_len/max_job_size")
        self.obs_mode, self.action_mode, self.reward_name = obs_mode, action_mode, reward
        self.sparse = transitions == "sparse"
        self.skipped_sum = skipped_reward == "sum"
        self.charge_rule = self.sparse and skipped_reward == "charge" and action_mode == "discrete"
        self.try_all = action_mode == "multibinary" and multibinary_rule == "try_all"
        self.move_on_cap = int(move_on_cap)
        self.simu_len, self.episode_max_length = int(simu_len), int(episode_max_length)
        self.jobset_seed, self.num_jobsets = jobset_seed, int(num_jobsets)
        self.render_mode = render_mode

        self.grid = Grid(self.params)
        self.encoder = get_encoder(obs_mode)(self.params, time_limit=episode_max_length)
        shape = tuple(self.encoder.shape)
        if obs_layout == "flat":
            shape = (int(np.prod(shape)),)
        elif obs_layout == "chw":
            shape = (1,) + shape if len(shape) == 2 else shape
        self._obs_shape = shape
        self.observation_space = spaces.Box(low=np.float32(self.encoder.low), high=np.float32(self.encoder.high),
                                            shape=shape, dtype=np.float32)
        W = num_nw
        if action_mode == "discrete":
            self.action_space = spaces.Discrete(W + 1)
            self._mask = np.ones(W + 1, dtype=np.bool_)
        else:
            self.action_space = spaces.MultiBinary(W)
            self._mask = np.ones(2 * W, dtype=np.bool_)
        self._fits = np.zeros(W, dtype=np.bool_)
        self._inv_len = np.concatenate([[0.0], 1.0 / np.arange(1, max_job_len + 1)])
        self._jobsets = None
        if jobset_seed is not None:
            self._jobsets = _seeded_jobsets(self.model, self.simu_len, self.num_jobsets, int(jobset_seed), jobset_rng)
        self._episode = 0
        self.jobset = None
        self.jobset_index = -1

    # -- gymnasium API ---------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None):
        super().reset(seed=seed)
        self.grid.rng = self.np_random
        if seed is not None:
            self._episode = 0
        if self._jobsets is None:
            jobset = generate_jobset(self.model, self.simu_len, self.np_random)
        else:
            k = self._episode
            if options and "jobset" in options:
                k = int(options["jobset"])
                self._episode = k
            jobset = self._jobsets[k % self.num_jobsets]
            self._episode += 1
            self.jobset_index = k % self.num_jobsets
        self.jobset = jobset
        self.grid.reset(jobset)
        info = self._info()
        if self._jobsets is not None:
            info["jobset"] = self.jobset_index
        return self._observe(), info

    def step(self, action):
        grid = self.grid
        W = self.params.num_nw
        if self.try_all:
            return self._step_try_all(action)
        if self.action_mode == "discrete":
            a = action if type(action) is int else int(np.asarray(action).item())  # also shape (1,)
            move = a >= W or a < 0 or not grid.allocate(a)
        else:
            move = True
            for i in np.flatnonzero(np.asarray(action).reshape(-1)[:W]):
                move = not grid.allocate(int(i))
                if move:
                    break
        reward = 0.0
        if self.charge_rule:
            return self._step_charge(move)
        if move:
            reward = self._move_on()
        terminated = grid.all_done()
        truncated = not terminated and grid.now >= self.episode_max_length
        if self.sparse:
            while not (terminated or truncated) and not grid.fit_mask(out=self._fits).any():
                charge = self._move_on()
                if self.skipped_sum:
                    reward += charge
                terminated = grid.all_done()
                truncated = not terminated and grid.now >= self.episode_max_length
        info = self._info()
        if terminated or truncated:
            info["jobs"] = grid.job_records()
            info["withheld"] = grid.withheld_lengths()
            info["dropped"] = len(grid.dropped)
        return self._observe(), reward, terminated, truncated, info

    def _step_charge(self, move: bool):
        """``skipped_reward="charge"`` (sched-rl-gym): an allocation keeps the clock where it is (the
        agent is asked again, whatever fits); an action that allocates nothing moves time on until a
        window job fits, and earns one step's charge read at the state where the agent is asked
        again."""
        grid = self.grid
        reward = 0.0
        terminated, truncated = self._ended()
        if move and not (terminated or truncated):
            grid.move_on()
            terminated, truncated = self._ended()
            while not (terminated or truncated) and not grid.fit_mask(out=self._fits).any():
                grid.move_on()
                terminated, truncated = self._ended()
            reward = self._charge()
        info = self._info()
        if terminated or truncated:
            info["jobs"] = grid.job_records()
            info["withheld"] = grid.withheld_lengths()
            info["dropped"] = len(grid.dropped)
        return self._observe(), reward, terminated, truncated, info

    def _ended(self) -> tuple[bool, bool]:
        terminated = self.grid.all_done()
        return terminated, not terminated and self.grid.now >= self.episode_max_length

    def _step_try_all(self, action):
        """``multibinary_rule="try_all"`` (see the class docstring)."""
        grid = self.grid
        W = self.params.num_nw
        bits = np.asarray(action).reshape(-1)[:W]
        tries = np.flatnonzero(bits) if bits.any() else np.arange(W)  # all-zero: move on per slot
        moves = placed = 0
        terminated, truncated = self._ended()
        for i in tries:
            if terminated or truncated:
                break
            if bits.any() and grid.allocate(int(i)):
                placed += 1
                continue
            grid.move_on()
            moves += 1
            terminated, truncated = self._ended()
            if moves == self.move_on_cap:
                break
        reward = 0.0
        if placed <= 1:  # one charge per step, on the state it ends in
            reward = self._charge()
        terminated, truncated = self._ended()
        info = self._info()
        if terminated or truncated:
            info["jobs"] = grid.job_records()
            info["withheld"] = grid.withheld_lengths()
            info["dropped"] = len(grid.dropped)
        return self._observe(), reward, terminated, truncated, info

    def _observe(self) -> np.ndarray:
        return self.encoder(self.grid).reshape(self._obs_shape)

    def _move_on(self) -> float:
        """Charge the reward for the current time step, then advance the grid one step."""
        reward = self._charge()
        self.grid.move_on()
        return reward

    def _charge(self) -> float:
        """The reward of one time step for the jobs in the system now."""
        grid = self.grid
        if self.reward_name == "slowdown":
            return -grid.inv_length_sum()
        if self.reward_name == "completion_time":
            return -float(grid.n_in_system)
        return -float(self._inv_len[grid.slot_len].sum())

    def action_masks(self) -> np.ndarray:
        """Valid actions now (see the class docstring), for sb3-contrib's MaskablePPO."""
        fits = self.grid.fit_mask(out=self._fits)
        mask = self._mask
        if self.action_mode == "discrete":
            mask[:-1] = fits
        else:
            mask[1::2] = fits
        return mask.copy()

    def _info(self) -> dict[str, Any]:
        return {"action_mask": self.action_masks(), "time": self.grid.now}

    def render(self):
        if self.render_mode is None:
            return None
        img = get_encoder("image")(self.params)(self.grid)
        if self.render_mode == "rgb_array":
            gray = (255 * (1.0 - img)).astype(np.uint8)
            return np.repeat(gray[:, :, None], 3, axis=2)
        rows = ["".join("#" if v >= 1 else ("+" if v > 0 else ".") for v in row) for row in img]
        return f"t={self.grid.now}\n" + "\n".join(rows)
