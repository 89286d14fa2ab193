"""The compiled event-driven simulation loop (numba): whole-trace runs with a static queue order.

Decision points are job submissions and job ends; all events at one instant are applied before
the scheduler runs (ends first, then arrivals). At a decision point the scheduler

1. starts jobs from the head of the queue (in policy order) while the head fits;
2. then, depending on ``backfill``:

   * ``BF_NONE``: stops (the head blocks everyone behind it);
   * ``BF_EASY``: reserves the head at its *shadow time* (the earliest expected end, by requested
     walltime, of running jobs after which the head fits in every dimension) and starts any later
     job that fits now and either ends, by its requested walltime, no later than the shadow time or
     fits in the *extra* resources (free at the shadow time beyond the head's demand, counting
     every running job whose requested end is at or before the shadow time) in every dimension;
     the extra shrinks by what such jobs take (jobs ending by the shadow time take none of it);
   * ``BF_CONSERVATIVE``: every queued job holds a reservation in a free-resource profile built
     from running jobs' requested ends and the other reservations. At each decision point the jobs,
     in policy order, are moved to their earliest slot (never later than the one they held: the
     profile only gains room when jobs end early) and new jobs get their first one; jobs whose
     slot is now start now. No reservation is ever delayed (under ``overrun="kill"``); a
     zero-length reservation holds its instant (see ``_profile_add``);
   * ``BF_GREEDY``: no reservation: every later job that fits now starts, in policy order (list
     scheduling in Graham's sense; it can starve large jobs).

Resources are int64 vectors (see ``cluster.py``), so capacity checks are exact. Reservations use
requested walltimes; jobs end at their (possibly shorter) actual runtime.
"""

from __future__ import annotations

import numpy as np
from numba import njit

BF_NONE, BF_EASY, BF_CONSERVATIVE, BF_GREEDY = 0, 1, 2, 3
BACKFILL_CODES = {"none": BF_NONE, "easy": BF_EASY, "conservative": BF_CONSERVATIVE,
                  "greedy": BF_GREEDY}


@njit(cache=True, inline="always")
def _fits(demand, j, avail):
    for d in range(avail.shape[0]):
        if demand[j, d] > avail[d]:
            return False
    return True


@njit(cache=True, inline="always")
def _shadow_walk(avail, h, demand, jobs, ends, n, floor):
    """EASY's shadow time for job ``h``: add the first ``n`` running ``jobs`` (sorted by requested
    end ``ends``) to ``avail`` in place until ``h`` fits; the shadow time is that end, never before
    ``floor`` (inf if ``h`` never fits). Every job whose requested end ties the shadow time has
    released its resources then too, so those are added as well (``avail`` then holds the free
    resources at the shadow time)."""
    ndim = avail.shape[0]
    shadow = np.inf
    r = 0
    while r < n:
        j = jobs[r]
        for d in range(ndim):
            avail[d] += demand[j, d]
        r += 1
        if _fits(demand, h, avail):
            shadow = max(ends[r - 1], floor)
            break
    while r < n and ends[r] <= shadow:
        j = jobs[r]
        for d in range(ndim):
            avail[d] += demand[j, d]
        r += 1
    return shadow


@njit(cache=True)
def _heap_push(heap_t, heap_j, size, t, j):
    i = size
    heap_t[i] = t
    heap_j[i] = j
    while i > 0:
        parent = (i - 1) >> 1
        # ties broken by job index so the order of simultaneous ends is deterministic
        if heap_t[parent] > heap_t[i] or (heap_t[parent] == heap_t[i] and heap_j[parent] > heap_j[i]):
            heap_t[parent], heap_t[i] = heap_t[i], heap_t[parent]
            heap_j[parent], heap_j[i] = heap_j[i], heap_j[parent]
            i = parent
        else:
            break
    return size + 1


@njit(cache=True)
def _heap_pop(heap_t, heap_j, size):
    size -= 1
    heap_t[0] = heap_t[size]
    heap_j[0] = heap_j[size]
    i = 0
    while True:
        left = 2 * i + 1
        if left >= size:
            break
        best = left
        right = left + 1
        if right < size and (heap_t[right] < heap_t[left]
                             or (heap_t[right] == heap_t[left] and heap_j[right] < heap_j[left])):
            best = right
        if heap_t[best] < heap_t[i] or (heap_t[best] == heap_t[i] and heap_j[best] < heap_j[i]):
            heap_t[best], heap_t[i] = heap_t[i], heap_t[best]
            heap_j[best], heap_j[i] = heap_j[i], heap_j[best]
            i = best
        else:
            break
    return size


@njit(cache=True)
def simulate_arrays(submit, req_time, run_time, demand, key, capacity, backfill):
    """Simulate jobs sorted by ``submit``; return (start, end, first_reservation) arrays.

    ``key`` is the static queue priority (lower first; ties by arrival). ``first_reservation`` is
    the shadow time first promised to a job by EASY (NaN if never reserved).
    """
    n = submit.shape[0]
    ndim = capacity.shape[0]
    start = np.full(n, np.nan)
    end = np.full(n, np.nan)
    first_res = np.full(n, np.nan)
    free = capacity.copy()
    avail = np.empty(ndim, dtype=np.int64)
    extra = np.empty(ndim, dtype=np.int64)

    queue = np.empty(n, dtype=np.int64)
    qhead = 0
    qtail = 0
    heap_t = np.empty(n, dtype=np.float64)
    heap_j = np.empty(n, dtype=np.int64)
    hsize = 0
    # running jobs sorted by expected end (start + requested walltime), stable
    run_j = np.empty(n, dtype=np.int64)
    run_e = np.empty(n, dtype=np.float64)
    rlen = 0
    # conservative backfilling's profile: breakpoints and free vector from each breakpoint on
    # and each job's current reservation (NaN: none yet)
    res_at = np.full(n, np.nan)
    if backfill == BF_CONSERVATIVE:
        ptime = np.empty(2 * n + 4, dtype=np.float64)
        pfree = np.empty((2 * n + 4, ndim), dtype=np.int64)
    else:
        ptime = np.empty(0, dtype=np.float64)
        pfree = np.empty((0, ndim), dtype=np.int64)

    nxt = 0
    finished = 0
    while finished < n:
        t = np.inf
        if nxt < n:
            t = submit[nxt]
        if hsize > 0 and heap_t[0] < t:
            t = heap_t[0]
        # job ends at t
        while hsize > 0 and heap_t[0] <= t:
            j = heap_j[0]
            hsize = _heap_pop(heap_t, heap_j, hsize)
            for d in range(ndim):
                free[d] += demand[j, d]
            p = 0
            while run_j[p] != j:
                p += 1
            for q in range(p, rlen - 1):
                run_j[q] = run_j[q + 1]
                run_e[q] = run_e[q + 1]
            rlen -= 1
            finished += 1
        # arrivals at t, inserted in (key, arrival) order
        while nxt < n and submit[nxt] <= t:
            k = key[nxt]
            if qtail == qhead or key[queue[qtail - 1]] <= k:
                queue[qtail] = nxt
            else:
                lo = qhead
                hi = qtail
                while lo < hi:
                    mid = (lo + hi) >> 1
                    if key[queue[mid]] <= k:
                        lo = mid + 1
                    else:
                        hi = mid
                for q in range(qtail, lo, -1):
                    queue[q] = queue[q - 1]
                queue[lo] = nxt
            qtail += 1
            nxt += 1

        if qhead == qtail:
            continue

        if backfill == BF_CONSERVATIVE:
            for p in range(qhead, qtail):
                # a reservation already in the past was broken by a job running over its
                # walltime (overrun="continue"): the job is placed afresh
                if res_at[queue[p]] < t:
                    res_at[queue[p]] = np.nan
            qtail, hsize, rlen = _conservative_pass(
                t, queue, qhead, qtail, res_at, first_res, ptime, pfree, free, start, end,
                run_time, req_time, demand, heap_t, heap_j, hsize, run_j, run_e, rlen)
            if rlen == 0 and qhead < qtail:
                # only possible with overruns: nothing runs, so no event would come; re-plan
                for p in range(qhead, qtail):
                    res_at[queue[p]] = np.nan
                qtail, hsize, rlen = _conservative_pass(
                    t, queue, qhead, qtail, res_at, first_res, ptime, pfree, free, start, end,
                    run_time, req_time, demand, heap_t, heap_j, hsize, run_j, run_e, rlen)
            continue

        # 1. start from the head while it fits
        while qhead < qtail:
            j = queue[qhead]
            if not _fits(demand, j, free):
                break
            _start(j, t, start, end, run_time, req_time, demand, free,
                   heap_t, heap_j, hsize, run_j, run_e, rlen)
            hsize += 1
            rlen += 1
            qhead += 1
        if backfill == BF_NONE or qhead == qtail or free[0] == 0:
            continue
        h = queue[qhead]
        shadow = np.inf  # greedy: no reservation, every later job that fits starts
        if backfill == BF_EASY:
            # 2. EASY: reserve the head at the shadow time, backfill behind it
            for d in range(ndim):
                avail[d] = free[d]
            shadow = _shadow_walk(avail, h, demand, run_j, run_e, rlen, t)
            for d in range(ndim):
                extra[d] = avail[d] - demand[h, d]
            if np.isnan(first_res[h]):
                first_res[h] = shadow
        w = qhead + 1
        p = qhead + 1
        while p < qtail and free[0] > 0:  # every job needs a node: none fits once they are gone
            j = queue[p]
            go = False
            if _fits(demand, j, free):
                if t + req_time[j] <= shadow:
                    go = True
                elif _fits(demand, j, extra):
                    go = True
                    for d in range(ndim):
                        extra[d] -= demand[j, d]
            if go:
                _start(j, t, start, end, run_time, req_time, demand, free,
                       heap_t, heap_j, hsize, run_j, run_e, rlen)
                hsize += 1
                rlen += 1
            else:
                queue[w] = j
                w += 1
            p += 1
        if w < p:  # close the gaps left by started jobs
            for q in range(p, qtail):
                queue[w] = queue[q]
                w += 1
            qtail = w
    return start, end, first_res


@njit(cache=True)
def _conservative_pass(t, queue, qhead, qtail, res_at, first_res, ptime, pfree, free, start, end,
                       run_time, req_time, demand, heap_t, heap_j, hsize, run_j, run_e, rlen):
    """One conservative-backfilling pass at time ``t``; returns the new (qtail, hsize, rlen)."""
    ndim = free.shape[0]
    # profile: the free vector from each breakpoint on, from running jobs' requested ends and
    # every queued job's current reservation
    plen = 1
    ptime[0] = t
    for d in range(ndim):
        pfree[0, d] = free[d]
    for r in range(rlen):
        e = run_e[r]
        if e <= t:  # overran its walltime (overrun="continue"): may end any moment
            e = np.nextafter(t, np.inf)
        plen = _profile_add(ptime, pfree, plen, e, np.inf, demand, run_j[r], 1)
    for p in range(qhead, qtail):
        j = queue[p]
        if not np.isnan(res_at[j]):
            plen = _profile_add(ptime, pfree, plen, res_at[j], res_at[j] + req_time[j], demand, j, -1)
    # in policy order, move each job to its earliest slot (never later than its old one: the
    # profile only gained room since); new jobs get their first reservation
    w = qhead
    for p in range(qhead, qtail):
        j = queue[p]
        if not np.isnan(res_at[j]):
            plen = _profile_add(ptime, pfree, plen, res_at[j], res_at[j] + req_time[j], demand, j, 1)
        k = _earliest_slot(ptime, pfree, plen, demand, j, req_time[j])
        s0 = ptime[k]
        res_at[j] = s0
        if k > 0 or req_time[j] > 0:  # a zero-length job started now holds nothing
            plen = _profile_add(ptime, pfree, plen, s0, s0 + req_time[j], demand, j, -1)
        if k == 0:
            _start(j, t, start, end, run_time, req_time, demand, free,
                   heap_t, heap_j, hsize, run_j, run_e, rlen)
            hsize += 1
            rlen += 1
        else:
            if np.isnan(first_res[j]):
                first_res[j] = s0
            queue[w] = j
            w += 1
    return w, hsize, rlen


@njit(cache=True)
def _breakpoint(ptime, pfree, plen, x):
    """Index of the breakpoint at time ``x`` (>= ptime[0]), inserted if missing; new plen."""
    m = plen
    while m > 0 and ptime[m - 1] > x:
        m -= 1
    if ptime[m - 1] == x:
        return m - 1, plen
    for q in range(plen, m, -1):
        ptime[q] = ptime[q - 1]
        for d in range(pfree.shape[1]):
            pfree[q, d] = pfree[q - 1, d]
    ptime[m] = x
    for d in range(pfree.shape[1]):
        pfree[m, d] = pfree[m - 1, d]
    return m, plen + 1


@njit(cache=True)
def _profile_add(ptime, pfree, plen, a, b, demand, j, sign):
    """Add ``sign`` x job ``j``'s demand to the free profile over [a, b) (b may be inf).

    An empty interval (a zero-length reservation) holds the instant ``a``: [a, nextafter(a)), so
    that no later reservation takes the room the job was promised (it then starts at ``a`` and
    ends at once, and the jobs reserved just after it start at the same instant).
    """
    if not b > a:
        b = np.nextafter(a, np.inf)
    ia, plen = _breakpoint(ptime, pfree, plen, a)
    ib = plen
    if b < np.inf:
        ib, plen = _breakpoint(ptime, pfree, plen, b)
    for q in range(ia, ib):
        for d in range(pfree.shape[1]):
            pfree[q, d] += sign * demand[j, d]
    return plen


@njit(cache=True)
def _earliest_slot(ptime, pfree, plen, demand, j, duration):
    """First breakpoint from which job ``j`` fits for ``duration`` (at least at that instant)."""
    k = 0
    while True:
        ok = True
        m = k
        while m < plen and (m == k or ptime[m] < ptime[k] + duration):
            for d in range(pfree.shape[1]):
                if pfree[m, d] < demand[j, d]:
                    ok = False
                    break
            if not ok:
                break
            m += 1
        if ok:
            return k
        k += 1


@njit(cache=True)
def _start(j, t, start, end, run_time, req_time, demand, free, heap_t, heap_j, hsize, run_j, run_e, rlen):
    """Start job ``j`` at ``t``: book resources, push its end, insert it by expected end."""
    start[j] = t
    e = t + run_time[j]
    end[j] = e
    for d in range(free.shape[0]):
        free[d] -= demand[j, d]
    _heap_push(heap_t, heap_j, hsize, e, j)
    exp = t + req_time[j]
    p = rlen
    while p > 0 and run_e[p - 1] > exp:
        run_j[p] = run_j[p - 1]
        run_e[p] = run_e[p - 1]
        p -= 1
    run_j[p] = j
    run_e[p] = exp


# --------------------------------------------------------------------------- step API kernels
@njit(cache=True)
def easy_shadow(free, h, running, start, req_time, demand, clock):
    """EASY's shadow time and extra for job ``h`` given the ``running`` jobs (step API).

    Same rule as the whole-trace loop: the earliest requested end (never before ``clock``) after
    which ``h`` fits, and the resources free then beyond its demand, counting every running job
    whose requested end is at or before it. ``h`` fitting now gives (clock, free - demand).
    """
    avail = free.copy()
    if _fits(demand, h, avail):
        return clock, avail - demand[h]
    n = running.shape[0]
    ends = np.empty(n)
    for r in range(n):
        ends[r] = max(start[running[r]] + req_time[running[r]], clock)
    order = np.argsort(ends, kind="mergesort")  # stable: ties keep the running order
    shadow = _shadow_walk(avail, h, demand, running[order], ends[order], n, clock)
    return shadow, avail - demand[h]


@njit(cache=True)
def easy_backfill_picks(queue, reserved, demand, req_time, clock, shadow, free, extra):
    """The jobs of ``queue`` (in order) that EASY backfills now around ``reserved``.

    A job is picked when it fits in what is free after the earlier picks and either ends, by its
    requested walltime, no later than ``shadow`` or fits in the extra left by earlier picks that
    run past it. Returns (picked jobs, extra after them); ``free`` and ``extra`` are not changed.
    """
    ndim = free.shape[0]
    f = free.copy()
    e = extra.copy()
    picks = np.empty(queue.shape[0], dtype=np.int64)
    m = 0
    for p in range(queue.shape[0]):
        if f[0] <= 0:  # every job needs a node
            break
        j = queue[p]
        if j == reserved or not _fits(demand, j, f):
            continue
        if clock + req_time[j] > shadow:
            if not _fits(demand, j, e):
                continue
            for d in range(ndim):
                e[d] -= demand[j, d]
        for d in range(ndim):
            f[d] -= demand[j, d]
        picks[m] = j
        m += 1
    return picks[:m], e
