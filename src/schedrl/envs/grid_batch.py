"""N DeepRM grids stepped together by one compiled call (issue 26): the batched twin of
``schedrl.envs.deeprm.DeepRMEnv`` for the options DeepRM's own agent trains on.

``GridBatch`` keeps the state of N grids (``schedrl.sim.grid.Grid``) as arrays (the slots as job
indices, the backlog as a ring buffer, the jobs on the machine as a list per grid instead of a
dict of finish times) and ``GridBatch.step`` applies one action per running grid in one numba
call that also writes each grid's next observation (DeepRM's image), its action mask, reward and
end flags straight into arrays the caller owns. It reproduces ``DeepRMEnv`` exactly (same
observations, rewards, masks, ends and job records: ``tests/test_grid_batch.py``) for

* ``obs_mode="image"`` (any ``obs_layout``), ``action_mode="discrete"``, ``transitions="dense"``,
  ``reward`` "slowdown" or "completion_time", ``backlog_full="drop"``, placement "earliest" or
  "now" with jobs no longer than the horizon, and seeded job sets (``jobset_seed`` an int);

``supported(env)`` says whether an env qualifies (its wrappers included: only gymnasium's checkers
and ``JobMetricsInfo``); everything else stays on the Python env. The slowdown reward is the same
``np.dot`` as ``Grid.inv_length_sum`` (numba calls the same BLAS ``ddot``), so rewards agree bit
for bit, not just to rounding.
"""

from __future__ import annotations

import numba
import numpy as np

from schedrl.sim.grid import DROPPED, PLACED, WAITING, _advance, _earliest_start, _fit_mask, _place

# wrappers whose effect the batch reproduces (gymnasium's own checkers do nothing to a step)
_NEUTRAL_WRAPPERS = ("OrderEnforcing", "PassiveEnvChecker")
_METRICS_WRAPPER = "JobMetricsInfo"



def supported(env) -> bool:
    """Whether ``GridBatch`` reproduces ``env`` (a possibly wrapped ``DeepRMEnv``) exactly."""
    from schedrl.envs.deeprm import DeepRMEnv

    inner = env
    while not isinstance(inner, DeepRMEnv):
        name = type(inner).__name__
        if name not in _NEUTRAL_WRAPPERS + (_METRICS_WRAPPER,) or not hasattr(inner, "env"):
            return False
        inner = inner.env
    p = inner.params
    return (inner.obs_mode == "image" and inner.action_mode == "discrete" and not inner.sparse
            and inner.reward_name in ("slowdown", "completion_time") and p.backlog_full == "drop"
            and p.rows == p.time_horizon and inner._jobsets is not None)


def unwrapped(env):
    from schedrl.envs.deeprm import DeepRMEnv

    while not isinstance(env, DeepRMEnv):
        env = env.env
    return env


@numba.njit(cache=True)
def _enqueue(i, now, arrival, length, demand, n_jobs, nxt, slot_job, slot_len, slot_dem, backlog,
             b_head, b_len, backlog_size, state, count_by_len, n_in_system, time_since_new, dropped, dirty):
    """Grid.move_on's arrivals of grid i (backlog_full "drop"); ``dirty[s]`` marks refilled slots."""
    W = slot_job.shape[1]
    R = slot_dem.shape[2]
    while nxt[i] < n_jobs[i] and arrival[i, nxt[i]] <= now[i]:
        job = nxt[i]
        nxt[i] += 1
        slot = -1
        for s in range(W):
            if slot_job[i, s] < 0:
                slot = s
                break
        if slot >= 0:
            slot_job[i, slot] = job
            dirty[slot] = True
            slot_len[i, slot] = length[i, job]
            for r in range(R):
                slot_dem[i, slot, r] = demand[i, job, r]
        elif b_len[i] < backlog_size:
            backlog[i, (b_head[i] + b_len[i]) % backlog_size] = job
            b_len[i] += 1
        else:
            state[i, job] = DROPPED
            dropped[i] += 1
            time_since_new[i] = 0
            continue
        time_since_new[i] = 0
        state[i, job] = WAITING
        count_by_len[i, length[i, job]] += 1.0
        n_in_system[i] += 1


@numba.njit(cache=True)
def _reset_one(i, avail, canvas, res_slot, slot_job, slot_len, slot_dem, b_head, b_len, start, finish,
               state, withheld, color_index, color_used, count_by_len, n_in_system, running, n_running,
               time_since_new, nxt, now, dropped, arrival, length, demand, n_jobs, backlog, backlog_size, dirty):
    avail[i] = res_slot
    canvas[i] = 0.0
    slot_job[i] = -1
    slot_len[i] = 0
    slot_dem[i] = 0
    b_head[i] = 0
    b_len[i] = 0
    start[i] = -1
    finish[i] = -1
    state[i] = 0
    withheld[i] = 0
    color_index[i] = -1
    color_used[i] = False
    count_by_len[i] = 0.0
    n_in_system[i] = 0
    n_running[i] = 0
    time_since_new[i] = 0
    nxt[i] = 0
    now[i] = 0
    dropped[i] = 0
    _enqueue(i, now, arrival, length, demand, n_jobs, nxt, slot_job, slot_len, slot_dem, backlog,
             b_head, b_len, backlog_size, state, count_by_len, n_in_system, time_since_new, dropped, dirty)


@numba.njit(cache=True)
def _draw_machine(img, canvas, per_res):
    """The machine blocks of one grid's image (``img`` H x width) from its canvas (R x H x S)."""
    R, H, S = canvas.shape
    for r in range(R):
        c0 = r * per_res
        for t in range(H):
            for c in range(S):
                img[t, c0 + c] = canvas[r, t, c]


@numba.njit(cache=True)
def _draw_slot(img, s, length, demand, S, M, per_res):
    """Slot s's block: 1 in its job's first ``length`` rows and first ``demand[r]`` columns."""
    for r in range(demand.shape[0]):
        base = r * per_res + S + s * M
        d = demand[r]
        for t in range(img.shape[0]):
            on = t < length
            for c in range(M):
                img[t, base + c] = 1.0 if (on and c < d) else 0.0


@numba.njit(cache=True)
def _draw_backlog(img, n, b0, width):
    """The backlog block, one cell per waiting job, row-major, and nothing else."""
    for t in range(img.shape[0]):
        for c in range(width):
            img[t, b0 + c] = 1.0 if t * width + c < n else 0.0


@numba.njit(cache=True)
def _draw_all(img, canvas, slot_len, slot_dem, n_backlog, since_new, max_track, backlog_width, M):
    """One grid's whole image (``ImageEncoder``'s layout)."""
    R, H, S = canvas.shape
    W = slot_len.shape[0]
    per_res = S + M * W
    _draw_machine(img, canvas, per_res)
    for s in range(W):
        _draw_slot(img, s, slot_len[s], slot_dem[s], S, M, per_res)
    _draw_backlog(img, n_backlog, per_res * R, backlog_width)
    for t in range(H):
        img[t, per_res * R + backlog_width] = since_new / max_track


@numba.njit(cache=True)
def _emit(img, avail, slot_len, slot_dem, now_only, fits, out, mask, out2, mask2):
    """Copy one grid's image into ``out`` and ``out2`` and write its discrete action mask (slots
    that hold a job that fits under the placement rule, then the void action) into ``mask`` and
    ``mask2``."""
    H, width = img.shape
    for t in range(H):
        for c in range(width):
            v = img[t, c]
            out[t, c] = v
            out2[t, c] = v
    _fit_mask(avail, slot_len, slot_dem, now_only, H, fits)
    W = slot_len.shape[0]
    for s in range(W):
        mask[s] = fits[s]
        mask2[s] = fits[s]
    mask[W] = True
    mask2[W] = True


@numba.njit(cache=True)
def _step(envs, actions, rewards, ended, rows_out, obs, masks, group, cursor, cur_obs, cur_masks,  # per call
          avail, canvas, res_slot, slot_job, slot_len, slot_dem, backlog, b_head, b_len, backlog_size,
          start, finish, state, withheld, color_index, color_used, colors, machine_colors,
          count_by_len, inv_len, n_in_system, running, n_running, time_since_new, max_track, nxt, now,
          dropped, arrival, length, demand, n_jobs, now_only, horizon, max_length, completion_time,
          backlog_width, slot_width, fits, img, dirty):
    """Step grid ``envs[k]`` with ``actions[k]`` (DeepRMEnv.step, discrete, dense); its reward into
    ``rewards[k]``, 0 running / 1 terminated / 2 truncated into ``ended[k]``; a grid still running
    gets its next image and mask at row ``cursor[group[envs[k]]]`` of ``obs``/``masks`` (then the
    cursor moves on) and that row in ``rows_out[k]`` (-1 when it ended). Each grid's image is kept
    in ``img`` and redrawn where the step changed it (machine, refilled slots, backlog, time).
    The running grids' observations and masks also go, in order, to ``cur_obs``/``cur_masks``
    (the next step's batch in one array)."""
    kept = 0
    W = slot_job.shape[1]
    R = slot_dem.shape[2]
    S = canvas.shape[3]
    per_res = S + slot_width * W
    b0 = per_res * R
    cap = colors.shape[0]
    for k in range(envs.shape[0]):
        i = envs[k]
        a = actions[k]
        move = True
        for s in range(W):
            dirty[s] = False
        if 0 <= a < W:  # allocate (Grid.allocate)
            job = slot_job[i, a]
            if job >= 0:
                ln = slot_len[i, a]
                last = 0 if now_only else horizon - ln
                offset = _earliest_start(avail[i], ln, slot_dem[i, a], last)
                if offset >= 0:
                    move = False
                    color = np.float32(1.0)
                    if machine_colors:
                        c = cap - 1
                        for q in range(cap):
                            if not color_used[i, q]:
                                c = q
                                break
                        color_used[i, c] = True
                        color_index[i, job] = c
                        color = colors[c]
                    _place(avail[i], canvas[i], offset, ln, slot_dem[i, a], color)
                    _draw_machine(img[i], canvas[i], per_res)
                    st = now[i] + offset
                    start[i, job] = st
                    finish[i, job] = st + ln
                    state[i, job] = PLACED
                    running[i, n_running[i]] = job
                    n_running[i] += 1
                    dirty[a] = True
                    if b_len[i] > 0:  # the backlog's head takes the freed slot
                        nj = backlog[i, b_head[i]]
                        b_head[i] = (b_head[i] + 1) % backlog_size
                        b_len[i] -= 1
                        slot_job[i, a] = nj
                        slot_len[i, a] = length[i, nj]
                        for r in range(R):
                            slot_dem[i, a, r] = demand[i, nj, r]
                        _draw_backlog(img[i], b_len[i], b0, backlog_width)
                    else:
                        slot_job[i, a] = -1
                        slot_len[i, a] = 0
                        for r in range(R):
                            slot_dem[i, a, r] = 0
        reward = 0.0
        if move:  # charge, then Grid.move_on
            if completion_time:
                reward = -float(n_in_system[i])
            else:
                reward = -np.dot(count_by_len[i], inv_len)
            _advance(avail[i], canvas[i], res_slot, slot_len[i], slot_dem[i], slot_job[i], withheld[i], fits)
            now[i] += 1
            q = 0
            while q < n_running[i]:
                j = running[i, q]
                if finish[i, j] == now[i]:
                    count_by_len[i, length[i, j]] -= 1.0
                    if color_index[i, j] >= 0:
                        color_used[i, color_index[i, j]] = False
                    n_in_system[i] -= 1
                    n_running[i] -= 1
                    running[i, q] = running[i, n_running[i]]
                else:
                    q += 1
            if time_since_new[i] < max_track:
                time_since_new[i] += 1
            if nxt[i] < n_jobs[i] and arrival[i, nxt[i]] <= now[i]:
                _enqueue(i, now, arrival, length, demand, n_jobs, nxt, slot_job, slot_len, slot_dem, backlog,
                         b_head, b_len, backlog_size, state, count_by_len, n_in_system, time_since_new, dropped, dirty)
            _draw_machine(img[i], canvas[i], per_res)
            _draw_backlog(img[i], b_len[i], b0, backlog_width)
            since = time_since_new[i] / max_track
            for t in range(horizon):
                img[i, t, b0 + backlog_width] = since
        for s in range(W):
            if dirty[s]:
                _draw_slot(img[i], s, slot_len[i, s], slot_dem[i, s], S, slot_width, per_res)
        rewards[k] = reward
        terminated = nxt[i] >= n_jobs[i] and n_in_system[i] == 0
        if terminated:
            ended[k] = 1
        elif now[i] >= max_length:
            ended[k] = 2
        else:
            ended[k] = 0
        if ended[k]:
            rows_out[k] = -1
        else:
            g = group[i]
            row = cursor[g]
            cursor[g] += 1
            rows_out[k] = row
            _emit(img[i], avail[i], slot_len[i], slot_dem[i], now_only, fits, obs[g, row], masks[g, row],
                  cur_obs[kept], cur_masks[kept])
            kept += 1


class GridBatch:
    """``n`` copies of one ``DeepRMEnv`` (same options, same job sets) as arrays; see the module
    docstring. ``reset(i, k)`` starts grid i on job set k; ``step`` moves many grids at once."""

    def __init__(self, env, n: int):
        env = unwrapped(env)
        if not supported(env):
            raise ValueError("GridBatch: env options not supported (see schedrl.envs.grid_batch.supported)")
        self.env, self.n = env, int(n)
        p = self.params = env.params
        self.jobsets = list(env._jobsets)
        H, R, W, S = p.time_horizon, p.num_res, p.num_nw, p.res_slot
        J = max(1, max(len(js) for js in self.jobsets))
        n = self.n
        self.obs_shape = tuple(env.observation_space.shape)
        self.image_shape = tuple(env.encoder.shape)
        self.n_actions = W + 1
        i64 = np.int64
        self.avail = np.full((n, H, R), S, dtype=i64)
        self.canvas = np.zeros((n, R, H, S), dtype=np.float32)
        self.slot_job = np.full((n, W), -1, dtype=i64)
        self.slot_len = np.zeros((n, W), dtype=i64)
        self.slot_dem = np.zeros((n, W, R), dtype=i64)
        self.backlog = np.zeros((n, max(p.backlog_size, 1)), dtype=i64)
        self.b_head = np.zeros(n, dtype=i64)
        self.b_len = np.zeros(n, dtype=i64)
        self.start = np.full((n, J), -1, dtype=i64)
        self.finish = np.full((n, J), -1, dtype=i64)
        self.state = np.zeros((n, J), dtype=np.int8)
        self.withheld = np.zeros((n, J), dtype=i64)
        self.color_index = np.full((n, J), -1, dtype=i64)
        self.color_used = np.zeros((n, p.job_num_cap), dtype=np.bool_)
        self.colors = (np.arange(p.job_num_cap, dtype=np.float32) + 1) / np.float32(p.job_num_cap)
        self.count_by_len = np.zeros((n, p.max_job_len + 1), dtype=np.float64)
        self.inv_len = np.concatenate([[0.0], 1.0 / np.arange(1, p.max_job_len + 1, dtype=np.float64)])
        self.n_in_system = np.zeros(n, dtype=i64)
        self.running = np.zeros((n, J), dtype=i64)
        self.n_running = np.zeros(n, dtype=i64)
        self.time_since_new = np.zeros(n, dtype=i64)
        self.nxt = np.zeros(n, dtype=i64)
        self.now = np.zeros(n, dtype=i64)
        self.dropped = np.zeros(n, dtype=i64)
        self.arrival = np.zeros((n, J), dtype=i64)
        self.length = np.ones((n, J), dtype=i64)
        self.demand = np.zeros((n, J, R), dtype=i64)
        self.n_jobs = np.zeros(n, dtype=i64)
        self.jobset_of = np.full(n, -1, dtype=i64)
        self._fits = np.zeros(W, dtype=np.bool_)
        self._dirty = np.zeros(W, dtype=np.bool_)
        self.img = np.zeros((n, *self.image_shape), dtype=np.float32)  # each grid's current image
        self._now_only = p.placement == "now"
        self._completion = env.reward_name == "completion_time"

    def reset(self, i: int, k: int) -> None:
        """Grid i starts job set ``k`` (modulo the number of sets), as ``env.reset(options={"jobset": k})``."""
        js = self.jobsets[k % len(self.jobsets)]
        m = len(js)
        self.jobset_of[i] = k % len(self.jobsets)
        self.n_jobs[i] = m
        self.arrival[i, :m] = js.arrival
        self.length[i, :m] = js.length
        self.demand[i, :m] = js.demand
        p = self.params
        _reset_one(i, self.avail, self.canvas, p.res_slot, self.slot_job, self.slot_len, self.slot_dem,
                   self.b_head, self.b_len, self.start, self.finish, self.state, self.withheld,
                   self.color_index, self.color_used, self.count_by_len, self.n_in_system, self.running,
                   self.n_running, self.time_since_new, self.nxt, self.now, self.dropped, self.arrival,
                   self.length, self.demand, self.n_jobs, self.backlog, p.backlog_size, self._dirty)
        _draw_all(self.img[i], self.canvas[i], self.slot_len[i], self.slot_dem[i], self.b_len[i],
                  self.time_since_new[i], p.max_track_since_new, p.backlog_width, p.max_job_size)

    def observe(self, i: int, out: np.ndarray, mask: np.ndarray) -> None:
        """Grid i's image into ``out`` (any shape of the observation's size) and its mask into ``mask``."""
        out = out.reshape(self.image_shape)
        _emit(self.img[i], self.avail[i], self.slot_len[i], self.slot_dem[i], self._now_only, self._fits,
              out, mask, out, mask)

    def step(self, envs: np.ndarray, actions: np.ndarray, obs: np.ndarray, masks: np.ndarray,
             group: np.ndarray, cursor: np.ndarray, cur_obs: np.ndarray | None = None,
             cur_masks: np.ndarray | None = None):
        """One step of grids ``envs`` (int64, each at most once) with ``actions``. ``obs`` is
        ``(groups, rows, *obs_shape)`` float32, ``masks`` ``(groups, rows, n_actions)`` bool;
        grid i's next observation goes to row ``cursor[group[i]]`` of its group (room is the
        caller's to make); with ``cur_obs`` (``(len(envs), *obs_shape)``) and ``cur_masks`` the
        running grids' observations and masks are also written there, in order. Returns ``(rewards, ended, rows)``: ended 0 running, 1 terminated,
        2 truncated; rows the row written, -1 for an ended grid."""
        m = len(envs)
        rewards = np.empty(m, dtype=np.float64)
        ended = np.empty(m, dtype=np.int8)
        rows = np.empty(m, dtype=np.int64)
        p = self.params
        images = obs.reshape(obs.shape[:2] + self.image_shape)
        if cur_obs is None:
            cur_obs, cur_masks = np.empty((m, *self.image_shape), np.float32), np.empty((m, self.n_actions), bool)
        cur_images = cur_obs.reshape((-1, *self.image_shape))
        _step(envs, actions, rewards, ended, rows, images, masks, group, cursor, cur_images, cur_masks,
              self.avail, self.canvas, p.res_slot, self.slot_job, self.slot_len, self.slot_dem, self.backlog,
              self.b_head, self.b_len, p.backlog_size, self.start, self.finish, self.state,
              self.withheld, self.color_index, self.color_used, self.colors, p.machine_colors,
              self.count_by_len, self.inv_len, self.n_in_system, self.running, self.n_running,
              self.time_since_new, p.max_track_since_new, self.nxt, self.now, self.dropped, self.arrival,
              self.length, self.demand, self.n_jobs, self._now_only, p.time_horizon,
              self.env.episode_max_length, self._completion, p.backlog_width, p.max_job_size, self._fits,
              self.img, self._dirty)
        return rewards, ended, rows

    # -- results (as DeepRMEnv's final info) ---------------------------------------------------
    def job_records(self, i: int) -> np.ndarray:
        """``Grid.job_records`` of grid i."""
        R = self.params.num_res
        m = int(self.n_jobs[i])
        state = self.state[i, :m]
        seen = np.flatnonzero((state == WAITING) | (state == PLACED))
        dtype = ([("job", "i8"), ("arrival", "i8"), ("length", "i8")]
                 + [(f"demand_{r}", "i8") for r in range(R)]
                 + [("start", "i8"), ("finish", "i8"), ("slowdown", "f8"), ("completion_time", "f8"),
                    ("state", "U8"), ("withheld", "i8")])
        rec = np.zeros(len(seen), dtype=dtype)
        arrival, length, finish = self.arrival[i, seen], self.length[i, seen], self.finish[i, seen]
        now = int(self.now[i])
        rec["job"] = seen
        rec["arrival"] = arrival
        rec["length"] = length
        for r in range(R):
            rec[f"demand_{r}"] = self.demand[i, seen, r]
        rec["start"] = self.start[i, seen]
        rec["finish"] = finish
        placed = state[seen] == PLACED
        end = np.where(placed, finish, now)
        rec["completion_time"] = end - arrival
        rec["slowdown"] = rec["completion_time"] / length
        rec["state"] = np.where(placed, np.where(finish <= now, "finished", "running"), "waiting")
        rec["withheld"] = self.withheld[i, seen]
        return rec

    def final_info(self, i: int) -> dict:
        """The final info's numbers of grid i: ``JobMetricsInfo``'s metrics (the same arithmetic as
        ``schedrl.agents.wrappers.job_metrics``), ``time`` and ``dropped``."""
        m = int(self.n_jobs[i])
        state = self.state[i, :m]
        seen = (state == WAITING) | (state == PLACED)
        now = int(self.now[i])
        placed = state[seen] == PLACED
        finish, arrival = self.finish[i, :m][seen], self.arrival[i, :m][seen]
        completion = (np.where(placed, finish, now) - arrival).astype(np.float64)
        slowdown = completion / self.length[i, :m][seen]
        n = int(seen.sum())
        return {"jobs_finished": float((placed & (finish <= now)).sum()),
                "mean_slowdown": float(np.mean(slowdown)) if n else float("nan"),
                "mean_completion_time": float(np.mean(completion)) if n else float("nan"),
                "time": float(now), "dropped": float(self.dropped[i])}


def final_info_keywords(env) -> tuple[str, ...]:
    """The numeric final-info keys of ``env``'s episodes that ``GridBatch.final_info`` gives:
    ``time`` and ``dropped``, and ``JobMetricsInfo``'s metrics where that wrapper is on."""
    keys = ("time", "dropped")
    inner = env
    while hasattr(inner, "env"):
        if type(inner).__name__ == _METRICS_WRAPPER:
            return keys + ("mean_slowdown", "mean_completion_time", "jobs_finished")
        inner = inner.env
    return keys
