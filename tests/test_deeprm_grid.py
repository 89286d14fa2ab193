"""DeepRM time-slot grid: a hand-checked scenario, slot/backlog rules and simulation invariants."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedrl.errors import ConfigError
from schedrl.sim.grid import Grid, GridParams
from schedrl.workloads.deeprm import JobSet, generate_jobset, mao_model

# one resource of 4 units, 2 slots, backlog 2, horizon 5
SMALL = GridParams(num_res=1, num_nw=2, time_horizon=5, res_slot=4, max_job_len=5, max_job_size=4,
                   backlog_size=2)


def hand_jobs() -> JobSet:
    # j0: t=0, len 2, 3 units; j1: t=0, len 1, 2 units; j2: t=1, len 3, 1 unit
    return JobSet.from_lists([0, 0, 1], [2, 1, 3], [[3], [2], [1]], simu_len=2)


def test_hand_scenario_earliest_placement():
    g = Grid(SMALL)
    g.reset(hand_jobs())
    assert g.slots == [0, 1] and g.now == 0 and g.n_in_system == 2
    assert g.allocate(0)  # j0 now: rows 0-1 keep 1 unit
    assert (g.start[0], g.finish[0]) == (0, 2)
    assert g.slots == [-1, 1]
    assert g.allocate(1)  # j1 needs 2 units: earliest row with room is 2
    assert (g.start[1], g.finish[1]) == (2, 3)
    assert g.avail[:, 0].tolist() == [1, 1, 2, 4, 4]
    # canvas: leftmost cells, colours 1/40 (j0) and 2/40 (j1)
    c = g.canvas[0]
    assert c[0].tolist() == pytest.approx([0.025, 0.025, 0.025, 0.0])
    assert c[2].tolist() == pytest.approx([0.05, 0.05, 0.0, 0.0])
    rewards = []
    rewards.append(-g.inv_length_sum())  # [0,1): j0 (1/2) and j1 (1/1)
    g.move_on()
    assert g.now == 1 and g.slots == [2, -1]
    assert g.avail[:, 0].tolist() == [1, 2, 4, 4, 4]
    assert g.allocate(0)  # j2 (1 unit) fits now
    assert (g.start[2], g.finish[2]) == (1, 4)
    for _ in range(3):
        rewards.append(-g.inv_length_sum())
        g.move_on()
    assert g.all_done() and g.now == 4
    assert rewards == pytest.approx([-1.5, -(0.5 + 1 + 1 / 3), -(1 + 1 / 3), -1 / 3])
    rec = g.job_records()
    assert rec["slowdown"].tolist() == pytest.approx([1.0, 3.0, 1.0])
    assert rec["completion_time"].tolist() == [2, 3, 3]
    assert sum(rewards) == pytest.approx(-rec["slowdown"].sum())
    assert set(rec["state"]) == {"finished"}
    assert rec["withheld"].tolist() == [0, 0, 0]


def test_hand_scenario_now_placement_and_withheld():
    g = Grid(GridParams(**{**SMALL.__dict__, "placement": "now"}))
    g.reset(hand_jobs())
    assert g.allocate(0)
    assert not g.allocate(1)  # only 1 unit free now
    assert g.slots == [-1, 1] and g.start[1] == -1
    g.move_on()  # j1 did not fit now: not withheld
    assert g.withheld.tolist() == [0, 0, 0]
    g.move_on()  # t=1 -> 2: j0 still holds 3 units, so only j2 (1 unit) could have started
    assert g.withheld.tolist() == [0, 0, 1]
    g.move_on()  # t=2 -> 3: the machine is empty, both could have started
    assert g.withheld.tolist() == [0, 1, 2]
    assert g.withheld_lengths().tolist() == [1, 3]


def test_backlog_refill_and_drop():
    g = Grid(GridParams(num_res=1, num_nw=1, time_horizon=5, res_slot=4, max_job_len=5, max_job_size=4,
                        backlog_size=1))
    g.reset(JobSet.from_lists([0, 0, 0], [1, 2, 3], [[1], [1], [1]]))
    assert g.slots == [0] and list(g.backlog) == [1] and g.dropped == [2]
    assert g.n_in_system == 2 and g.time_since_new == 0
    assert g.allocate(0)
    assert g.slots == [1] and g.backlog_len == 0
    rec = g.job_records()
    assert rec["job"].tolist() == [0, 1]  # the dropped job is not reported
    assert rec["state"].tolist() == ["running", "waiting"]


def test_job_that_never_fits_and_time_since_new():
    g = Grid(SMALL)
    g.reset(JobSet.from_lists([0, 5], [5, 1], [[4], [1]], simu_len=6))
    assert g.allocate(0)
    g.move_on()
    assert g.time_since_new == 1
    for _ in range(3):
        g.move_on()
    assert g.time_since_new == 4 and g.n_in_system == 1
    g.move_on()  # t=5: j0 finished, j1 arrives
    assert g.time_since_new == 0 and g.slots == [1, -1] and g.n_in_system == 1


def test_params_validation():
    with pytest.raises(ConfigError, match="time_horizon"):
        GridParams(time_horizon=10, max_job_len=15)
    with pytest.raises(ConfigError, match="res_slot"):
        GridParams(res_slot=5, max_job_size=10)
    with pytest.raises(ConfigError, match="placement"):
        GridParams(placement="later")
    g = Grid(GridParams())
    with pytest.raises(ConfigError, match="resources"):
        g.reset(JobSet.from_lists([0], [1], [[1]]))


def _check_invariants(g: Grid) -> None:
    p = g.params
    # avail = capacity minus the demand of every placed job over its rows in the horizon
    expect = np.full((p.rows, p.num_res), p.res_slot, dtype=np.int64)
    for j in np.flatnonzero(g.start >= 0):
        lo, hi = g.start[j] - g.now, g.finish[j] - g.now
        if hi > 0:
            expect[max(lo, 0):hi] -= g.demand[j]
    assert np.array_equal(g.avail, expect)
    assert g.avail.min() >= 0
    used_cells = (g.canvas > 0).sum(axis=2).T  # (H, R)
    assert np.array_equal(used_cells, p.res_slot - g.avail)
    # every job in the system is in exactly one place
    waiting = g.waiting_jobs()
    running = g.running_jobs()
    assert len(waiting) + len(running) == g.n_in_system
    assert len(set(waiting) | set(running)) == g.n_in_system
    assert all(g.finish[j] > g.now for j in running)
    assert g.inv_length_sum() == pytest.approx(sum(1 / g.length[j] for j in waiting + running))
    assert g.backlog_len <= p.backlog_size
    # the queue bookkeeping the compact state reads
    assert g.n_waiting == len(waiting)
    assert np.array_equal(g.waiting_work, sum((g.length[j] * g.demand[j] for j in waiting),
                                              np.zeros(p.num_res, dtype=np.int64)))
    first = g.first_to_finish()
    assert (first == -1) == (not running)
    if running:
        assert g.finish[first] == min(g.finish[j] for j in running)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10_000), rate=st.floats(0.1, 1.0), num_nw=st.integers(1, 6),
       placement=st.sampled_from(["earliest", "now"]), num_res=st.integers(1, 3),
       actions=st.lists(st.integers(0, 6), min_size=1, max_size=300),
       backlog_full=st.sampled_from(["drop", "retry"]))
def test_invariants_under_random_actions(seed, rate, num_nw, placement, num_res, actions, backlog_full):
    # placement "now" may book jobs longer than the horizon (sched-rl-gym's d = 48 with H = 20)
    max_len = 30 if placement == "now" else 15
    p = GridParams(num_res=num_res, num_nw=num_nw, backlog_size=7, placement=placement, max_job_len=max_len,
                   backlog_full=backlog_full)
    g = Grid(p)
    g.reset(generate_jobset(mao_model(num_res=num_res, max_job_len=max_len, new_job_rate=rate), 30, seed))
    total = 0.0
    for a in actions:
        if a < num_nw:
            before = g.fits(a)
            assert g.allocate(a) == before
        else:
            total -= g.inv_length_sum()
            g.move_on()
        _check_invariants(g)
    rec = g.job_records()  # mid-episode: waiting jobs report the slowdown accrued so far
    waiting = rec["state"] == "waiting"
    assert rec["slowdown"][waiting] == pytest.approx((g.now - rec["arrival"][waiting]) / rec["length"][waiting])
    steps = 0
    while not g.all_done():  # finish greedily: place the first job that fits, else move on
        fits = g.fit_mask()
        if fits.any():
            assert g.allocate(int(np.argmax(fits)))
        else:
            total -= g.inv_length_sum()
            g.move_on()
        steps += 1
        assert steps < 10_000
    _check_invariants(g)
    rec = g.job_records()
    assert set(rec["state"]) <= {"finished"}
    # every job accrues 1/length per step in the system: the return is minus the summed slowdown
    assert total == pytest.approx(-rec["slowdown"].sum())
    assert np.all(rec["slowdown"] >= 1.0)
    assert np.all(rec["start"] >= rec["arrival"])
    assert len(rec) + len(g.dropped) == len(g.jobset)
    if backlog_full == "retry":  # nobody is lost; delays only push arrivals later, in order
        assert not g.dropped and np.all(np.diff(g.arrival) >= 0) and np.all(g.arrival >= g.jobset.arrival)


def test_jobs_longer_than_the_horizon_with_placement_now():
    p = GridParams(num_res=1, num_nw=2, time_horizon=3, res_slot=2, max_job_len=6, max_job_size=2,
                   backlog_size=0, placement="now")
    assert p.rows == 6
    g = Grid(p)
    g.reset(JobSet.from_lists([0, 0], [6, 2], [[1], [2]]))
    assert g.allocate(0) and g.finish[0] == 6
    assert g.avail[:, 0].tolist() == [1] * 6
    for _ in range(5):
        assert not g.fits(1)
        g.move_on()
    assert g.now == 5 and not g.fits(1)
    g.move_on()
    assert g.fits(1) and g.allocate(1) and g.finish[1] == 8
    with pytest.raises(ConfigError, match="placement 'now' allows it"):
        GridParams(time_horizon=3, max_job_len=6)


def test_submission_features():
    g = Grid(SMALL)
    g.reset(hand_jobs())
    assert g.sub_queue[:2].tolist() == [0, 1] and g.sub_work[:2].tolist() == [0, 6]
    assert g.sub_free[:2].tolist() == [4, 4]
    g.allocate(0)
    g.move_on()  # j2 arrives with j1 waiting (work 2) and 1 unit free
    assert (g.sub_queue[2], g.sub_work[2], g.sub_free[2]) == (1, 2, 1)
    assert g.n_waiting == 2 and g.waiting_work.tolist() == [5]


class _ReferenceDeepRM:
    """A slow, literal transcription of DeepRM's environment.py step logic (lists, no kernels)."""

    def __init__(self, p: GridParams, jobs: JobSet):
        self.p, self.jobs = p, jobs
        self.now = 0
        self.avail = [[p.res_slot] * p.num_res for _ in range(p.rows)]
        self.slots = [None] * p.num_nw
        self.backlog = []
        self.running = []  # (job, finish)
        self.start = {}
        self._arrive()

    def _arrive(self):
        for j in np.flatnonzero(self.jobs.arrival == self.now):
            if None in self.slots:
                self.slots[self.slots.index(None)] = int(j)
            elif len(self.backlog) < self.p.backlog_size:
                self.backlog.append(int(j))

    def allocate(self, i) -> bool:
        j = self.slots[i]
        if j is None:
            return False
        length, dem = int(self.jobs.length[j]), self.jobs.demand[j]
        last = 0 if self.p.placement == "now" else self.p.time_horizon - length
        for t0 in range(last + 1):
            if all(self.avail[t][r] >= dem[r] for t in range(t0, t0 + length) for r in range(self.p.num_res)):
                for t in range(t0, t0 + length):
                    for r in range(self.p.num_res):
                        self.avail[t][r] -= dem[r]
                self.start[j] = self.now + t0
                self.running.append((j, self.now + t0 + length))
                self.slots[i] = self.backlog.pop(0) if self.backlog else None
                return True
        return False

    def reward(self) -> float:
        jobs = [j for j, _ in self.running] + [j for j in self.slots if j is not None] + self.backlog
        return -sum(1.0 / self.jobs.length[j] for j in jobs)

    def move_on(self):
        self.now += 1
        self.avail = self.avail[1:] + [[self.p.res_slot] * self.p.num_res]
        self.running = [(j, f) for j, f in self.running if f > self.now]
        self._arrive()


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), rate=st.floats(0.2, 1.0), num_nw=st.integers(1, 5),
       placement=st.sampled_from(["earliest", "now"]),
       actions=st.lists(st.integers(0, 5), min_size=1, max_size=250))
def test_grid_matches_a_literal_reference(seed, rate, num_nw, placement, actions):
    p = GridParams(num_nw=num_nw, backlog_size=6, placement=placement)
    jobs = generate_jobset(mao_model(new_job_rate=rate), 40, seed)
    g, ref = Grid(p), _ReferenceDeepRM(p, jobs)
    g.reset(jobs)
    for a in actions:
        if a < num_nw:
            assert g.allocate(a) == ref.allocate(a)
        else:
            assert -g.inv_length_sum() == pytest.approx(ref.reward())
            g.move_on()
            ref.move_on()
        assert g.slots == [-1 if j is None else j for j in ref.slots]
        assert list(g.backlog) == ref.backlog
        assert g.avail.tolist() == ref.avail
    for j, s in ref.start.items():
        assert g.start[j] == s


def _one_slot_grid(backlog_full: str) -> tuple[Grid, JobSet]:
    params = GridParams(num_res=1, num_nw=1, time_horizon=10, res_slot=2, max_job_len=5, max_job_size=2,
                        backlog_size=1, backlog_full=backlog_full)
    jobs = JobSet(arrival=np.array([0, 1, 2, 3]), length=np.array([5, 5, 1, 1]),
                  demand=np.array([[2], [2], [1], [1]]), simu_len=4)
    grid = Grid(params)
    grid.reset(jobs)
    return grid, jobs


@pytest.mark.parametrize("backlog_full", ["drop", "retry"])
def test_full_backlog_drops_or_retries_by_hand(backlog_full):
    """One slot, a backlog of one. t0: job 0 in the slot; t1: job 1 to the backlog; t2: job 2 finds
    both full: dropped, or (the report's phase-1 code) it and job 3 arrive a step later. Job 0
    starts at t2 and job 1 moves up; t3: job 2 (retry) or job 3 (drop) takes the backlog; t4: job 3
    (retry) finds it full again and slips to t5."""
    grid, jobs = _one_slot_grid(backlog_full)
    assert grid.slots == [0] and list(grid.backlog) == []
    grid.move_on()
    assert grid.now == 1 and list(grid.backlog) == [1]
    grid.move_on()
    assert grid.now == 2 and list(grid.backlog) == [1]
    assert grid.dropped == ([2] if backlog_full == "drop" else [])
    assert grid.allocate(0) and grid.start[0] == 2 and grid.slots == [1] and not grid.backlog
    grid.move_on()
    assert list(grid.backlog) == ([2] if backlog_full == "retry" else [3])
    grid.move_on()
    if backlog_full == "retry":
        assert grid.dropped == [] and grid.arrival.tolist() == [0, 1, 3, 5]
        assert jobs.arrival.tolist() == [0, 1, 2, 3]  # the job set itself is untouched
        assert grid.time_since_new == 1  # job 3 has not arrived at t4
    else:
        assert grid.dropped == [2] and grid.arrival.tolist() == [0, 1, 2, 3]


def test_backlog_full_rule_is_checked():
    with pytest.raises(ConfigError, match="backlog_full"):
        GridParams(backlog_full="requeue")
