"""The runtime paper's evaluation outputs as the long table of the normalised score (issue 68).

Workloads: each held-out 'b' half an agent is tested on with oracle estimates (``estimator ==
actual``), on each Lublin draw; headline metric ``utilization``, higher is better. An agent trained
on an 'a' half is placed on its same-tendency 'b' half (Table 5's pairing), at the grid point the
paper's tuning rule picks (``experiments.best_grid``); its value is the mean over evaluation episodes,
one seed per training seed. Players:

* random valid play: the random reference's play of the same cases (``references/random``), per seed;
* heuristics: Table 4's four (SJF, SJF w/ BF, FCFS, FCFS w/ BF) from ``heuristics/<draw>/<half>.csv``
  and, where built, the three first-fit heuristics played in the agents' env (``heuristics/fit.csv``).
  Table 4's are scheduled by the event simulator to the end of the half, the agents' play is capped
  at the evaluation's steps: the comparison the claims already make (Table 5 against Table 4);
* agents: PPO per method (baseline, proposal NN1, NN2); untrained: each method's untrained network.

* uniform play over all actions, invalid picks included (an empty slot acts as X, a job that does
  not fit is a failed pick): the uniform reference (``references/uniform``), per seed, role ``uniform``.

The paper's own agents, placed (not measured; ``schedrl.report.normalised.place_authors``): Table
6's same-tendency cells (trained on X_a, tested on X_b, mean of 5 runs) against Table 4's heuristics
on the same 'b' half, on each of our draws of that half. Table 5 (the agents on their training 'a'
half) against Table 4's 'a' rows has no workload of ours to land on (our scale is on the 'b'
halves): a gap. Where our best heuristic is one of Table 4's four the paper's value of it is used,
else (a first-fit heuristic played in the agents' env) the paper's best of the four.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from schedrl.experiments.heuristics import algorithm_label
from schedrl.papers.runtime import experiments as rx
from schedrl.papers.runtime import references as rref
from schedrl.report.normalised import PLACED, long_rows, missing_gap, with_authors

PAPER = "runtime"
METRIC = "utilization"


def _workload(test: str, draw: int) -> str:
    return f"{test} draw {int(draw)}"


def placements(values, workloads) -> tuple[list[dict], list[dict]]:
    """(placements, gaps) of the paper's agents: Table 6's same-tendency cells against Table 4's row
    of the same 'b' half, one placement per draw of that half among ``workloads`` (our long table's
    workload names); Table 5 is one gap (its 'a' halves are not workloads of ours)."""
    t4, t6 = values["table4"], values["table6"]
    out = []
    for train, tests in t6["rows"].items():
        test = rx.same_tendency(train)
        if test not in tests or test not in t4["rows"]:
            continue
        heuristics = {algorithm_label(c): v for c, v in zip(t4["columns"], t4["rows"][test], strict=True)}
        draws = sorted(w for w in workloads if w.startswith(f"{test} draw "))
        for method, value in zip(t6["columns"], tests[test], strict=True):
            for workload in draws or [test]:
                out.append({"paper": PAPER, "workload": workload, "player": f"paper's {rx.LABELS[method]}",
                            "value": float(value), "heuristics": heuristics,
                            "source": f"Table 6 ({train} -> {test}) against Table 4 ({test})"})
    gaps = [{"paper": PAPER, "player": "paper's Table 5 agents" + PLACED,
             "gap": "not placed: Table 5 scores the agents on their training 'a' halves (against Table 4's 'a' "
             "rows); our scale is on the held-out 'b' halves, where Table 6's same-tendency cells are placed"}]
    return out, gaps


def _own_half(frame: pd.DataFrame) -> pd.DataFrame:
    """Oracle-estimate rows on the training half's same-tendency 'b' half."""
    frame = frame[frame["estimator"] == "actual"]
    return frame[frame["test"] == frame["train"].map(rx.same_tendency)]


def long_table(spec: dict, root: str | Path = rx.ROOT) -> tuple[pd.DataFrame, list[dict]]:
    rows, gaps = [], []
    if "agents" not in spec:
        return pd.DataFrame(), [{"paper": PAPER, "player": "agents", "gap": "no runtime.agents in the config"}]
    tests = sorted({rx.same_tendency(w) for w in spec["agents"]["workloads"]})
    draws = rx.draws(spec)

    def read(paths, player):
        have = [p for p in paths if Path(p).is_file()]
        for p in sorted(set(paths) - set(have)):
            gaps.append(missing_gap(PAPER, player, p))
        return pd.concat([pd.read_csv(p) for p in have], ignore_index=True) if have else None

    for draw in draws:
        for test in tests:
            table4 = read([rx.heuristics_file(test, draw)], "Table 4 heuristics")
            for _, h in (table4.iterrows() if table4 is not None else []):
                rows.append(long_rows(PAPER, _workload(test, draw), h["label"], "heuristic", 0, METRIC, "higher",
                                      h["utilization"]))
        fit = read([rx.fit_file(draw)], "first-fit heuristics")
        for _, h in (fit[fit["workload"].isin(tests)].iterrows() if fit is not None else []):
            rows.append(long_rows(PAPER, _workload(h["workload"], draw), h["label"], "heuristic", 0, METRIC, "higher",
                                  h["utilization"]))

    def agents(frame, player_of, role):
        if frame is None:
            return
        frame = _own_half(frame)
        for (method, test, draw, seed), g in frame.groupby(["method", "test", "draw", "run_seed"], sort=True):
            rows.append(long_rows(PAPER, _workload(test, draw), player_of(method), role, seed, METRIC, "higher",
                                  g[METRIC].mean()))

    trained = read(rx.evaluation_files(spec, root), "agents")
    if trained is not None:
        trained = trained.merge(rx.best_grid(trained), on=["method", "train", "grid"])
    agents(trained, lambda m: f"PPO {rx.LABELS[m]}", "agent")
    untrained = read(rref.reference_files(spec, "untrained", root), "untrained networks")
    agents(untrained, lambda m: f"untrained {rx.LABELS[m]}", "untrained")
    random = read(rref.reference_files(spec, "random", root), "random valid")
    if random is not None:
        # one group play stands in for every method: its rows repeat per member, keep one
        random = random.drop_duplicates(["train", "test", "draw", "run_seed", "estimator", "episode"])
        agents(random.assign(method="any"), lambda m: "random valid", "random")
    uniform = read(rref.reference_files(spec, rref.UNIFORM, root), "uniform over all actions")
    if uniform is not None:
        uniform = uniform.drop_duplicates(["train", "test", "draw", "run_seed", "estimator", "episode"])
        agents(uniform.assign(method="any"), lambda m: "uniform over all actions", "uniform")
    from schedrl.papers import paper_values

    long = pd.DataFrame(rows)
    placed, unplaced = placements(paper_values(PAPER), set(long["workload"]) if len(long) else set())
    return with_authors(long, gaps, placed, unplaced)
