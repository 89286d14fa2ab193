"""The jobs an episode leaves waiting at its cap, started after it by one fixed rule.

An episode that stops at time T (DeepRM's grid at ``episode_max_length``) leaves jobs that never
started, and a metric must say what they cost. Counting each as if it started at T (the MDP paper's
reading, ``schedrl.papers.mdp.evaluation``) charges withholding a job at most what starting it at T
would, however long the queue behind it: a policy that keeps capacity free for short jobs by leaving
long ones waiting at the end pays for them at the cap's price. ``drained_slowdowns`` asks the
question a cluster would: keep the machine running after T, with no new arrivals, and start the
waiting jobs by one rule that every policy shares (``sjf``: shortest first, ties by arrival;
``fcfs``: arrival order), each greedily whenever it fits, as the grid's heuristics do. Jobs placed
before T keep their recorded start and finish.

``records`` is a grid's ``job_records()`` (``schedrl.sim.grid.Grid`` or the batched grid): fields
``arrival``, ``length``, ``demand_<r>``, ``start``, ``finish`` and ``state`` (``"waiting"`` for a job
never placed).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

#: the drain's orders of the waiting jobs: a sort key per job index
RULES = ("sjf", "fcfs")


def drained_schedule(records: np.ndarray, now: int, capacity: int | Sequence[int],
                     rule: str = "sjf") -> tuple[np.ndarray, np.ndarray]:
    """(start, finish) of every job of ``records`` when the jobs waiting at ``now`` start from ``now``
    on in ``rule``'s order, each at the first time it fits beside the jobs running then (greedy list
    scheduling: at each time a job ends, every waiting job that fits starts, in order)."""
    if rule not in RULES:
        raise ValueError(f"unknown drain rule {rule!r} (choose from: {', '.join(RULES)})")
    n = len(records)
    demand_fields = sorted(f for f in records.dtype.names if f.startswith("demand_"))
    demand = np.stack([records[f] for f in demand_fields], axis=1).astype(np.int64) if n else np.zeros((0, 1), np.int64)
    cap = np.broadcast_to(np.asarray(capacity, dtype=np.int64), (demand.shape[1],))
    start = np.asarray(records["start"], dtype=np.int64).copy()
    finish = np.asarray(records["finish"], dtype=np.int64).copy()
    arrival, length = np.asarray(records["arrival"], np.int64), np.asarray(records["length"], np.int64)
    waiting = np.flatnonzero(np.asarray(records["state"]) == "waiting")
    if rule == "sjf":
        order = list(waiting[np.lexsort((waiting, arrival[waiting], length[waiting]))])
    else:
        order = list(waiting[np.lexsort((waiting, arrival[waiting]))])
    too_big = [int(j) for j in order if np.any(demand[j] > cap)]
    if too_big:
        raise ValueError(f"job {too_big[0]} asks for more than the capacity {cap.tolist()}: it can never start")
    placed = np.asarray(records["state"]) != "waiting"
    t = int(now)
    while order:
        running = placed & (start <= t) & (finish > t)
        free = cap - demand[running].sum(axis=0)
        rest = []
        for j in order:
            if np.all(demand[j] <= free):
                start[j], finish[j] = t, t + length[j]
                placed[j] = True
                free = free - demand[j]
            else:
                rest.append(j)
        order = rest
        if order:  # the next time a job ends (one is running, or every waiting job would have fitted)
            t = int(finish[placed & (finish > t)].min())
    return start, finish


def drained_slowdowns(records: np.ndarray, now: int, capacity: int | Sequence[int], rule: str = "sjf") -> np.ndarray:
    """Per job, (finish - arrival) / length under ``drained_schedule``."""
    _, finish = drained_schedule(records, now, capacity, rule)
    return (finish - np.asarray(records["arrival"], np.int64)) / np.asarray(records["length"], np.float64)
