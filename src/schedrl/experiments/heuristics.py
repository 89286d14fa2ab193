"""Classic heuristics over workload files, compared with a paper's table (e.g. the runtime paper's
Table 4: utilisation of SJF, SJF with backfilling, FCFS, FCFS with backfilling per workload).

An *algorithm* is ``policy:backfill`` (``sjf:easy``). ``run_heuristics`` simulates one workload
under several algorithms; ``compare_with_paper`` puts the paper's values beside ours;
``heuristic_claims`` turns the comparison into claims rows (numbers within tolerance, which
algorithm wins, whether backfilling helps) for ``schedrl.report.claims``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from schedrl import metrics
from schedrl.errors import SchedrlError
from schedrl.protocol import verdict
from schedrl.sim import ClusterSpec, HPCSimulator, simulate

BACKFILL_LABELS = {"none": "", "easy": " w/ BF", "conservative": " w/ CBF", "greedy": " greedy"}


def parse_algorithm(spec: str) -> tuple[str, str]:
    """``"sjf:easy"`` -> ("sjf", "easy"); a bare policy means no backfilling."""
    policy, _, backfill = spec.partition(":")
    backfill = backfill or "none"
    if backfill not in BACKFILL_LABELS or not policy:
        raise SchedrlError(f"bad algorithm '{spec}': use POLICY:BACKFILL, backfill one of "
                           f"{', '.join(BACKFILL_LABELS)}")
    return policy, backfill


def algorithm_label(spec: str) -> str:
    """Display name in the papers' style: ``sjf:easy`` -> ``SJF w/ BF``."""
    policy, backfill = parse_algorithm(spec)
    return policy.upper() + BACKFILL_LABELS[backfill]


def simulate_algorithm(jobs: pd.DataFrame, cluster: ClusterSpec, policy: str, backfill: str, *,
                       overrun: str = "kill", sim_step: float = 0.0) -> pd.DataFrame:
    """One schedule: event-driven ``simulate`` or, with ``sim_step`` > 0, the time-stepped
    ``HPCSimulator`` (decisions on ticks of that many seconds, no idle-step doubling)."""
    if sim_step:
        sim = HPCSimulator(cluster, overrun=overrun, sim_step=sim_step, double_idle=False)
        sim.reset(jobs)
        return sim.run_policy(policy, backfill)
    return simulate(jobs, cluster, policy, backfill, overrun)


def run_heuristics(jobs: pd.DataFrame, cluster: ClusterSpec, algorithms, *, workload: str = "",
                   sim_step: float = 0.0, overrun: str = "kill", span: str = "submit"):
    """Simulate ``jobs`` under each algorithm; return (metrics rows DataFrame, {spec: schedule}).

    ``sim_step`` > 0 runs the time-stepped simulator (decisions on ticks of that many seconds, no
    step doubling: that is a training device) instead of the event-driven one.
    """
    rows, schedules = [], {}
    for spec in algorithms:
        policy, backfill = parse_algorithm(spec)
        sched = simulate_algorithm(jobs, cluster, policy, backfill, overrun=overrun, sim_step=sim_step)
        schedules[spec] = sched
        summary = metrics.summary(sched, cluster, span=span)
        rows.append({"workload": workload, "algorithm": spec, "label": algorithm_label(spec),
                     "policy": policy, "backfill": backfill, "sim_step": sim_step,
                     **{k: summary[k] for k in ("jobs", "utilization", "mean_wait", "max_wait",
                                                "mean_slowdown", "mean_bounded_slowdown",
                                                "makespan")}})
    return pd.DataFrame(rows), schedules


def read_runs(paths, algorithms, metric: str = "utilization") -> pd.DataFrame:
    """The rows of ``algorithms`` from ``heuristics run`` CSVs; InputFileError names a bad file."""
    from schedrl.errors import InputFileError

    frames = []
    for path in paths:
        try:
            frames.append(pd.read_csv(path))
        except FileNotFoundError:
            raise InputFileError(path, "no such file") from None
        except (pd.errors.EmptyDataError, pd.errors.ParserError) as exc:
            raise InputFileError(path, f"not a CSV ({str(exc).splitlines()[0]})") from None
    ours = pd.concat(frames, ignore_index=True)
    for col in ("workload", "algorithm", "label", metric):
        if col not in ours.columns:
            raise InputFileError(paths[0], f"lacks column '{col}' (not a 'heuristics run' output?)")
    missing = sorted(set(algorithms) - set(ours["algorithm"]))
    if missing:
        raise SchedrlError(f"algorithm(s) {', '.join(missing)} not in the run files")
    return ours[ours["algorithm"].isin(algorithms)]


def compare_with_paper(ours: pd.DataFrame, paper: dict[str, list[float]], algorithms,
                       metric: str = "utilization") -> pd.DataFrame:
    """Long table workload x algorithm with columns ours, paper, diff (ours - paper).

    ``paper`` maps a workload to its values in ``algorithms`` order; a workload the paper does not
    list gets NaN. Workloads keep the order of ``paper`` first, then any others.
    """
    algorithms = list(algorithms)
    for name, values in paper.items():
        if len(values) != len(algorithms):
            raise SchedrlError(f"paper values for {name}: {len(values)} numbers for "
                               f"{len(algorithms)} algorithms")
    table = ours[["workload", "algorithm", "label", metric]].rename(columns={metric: "ours"})
    table = table.copy()
    table["paper"] = [paper[w][algorithms.index(a)] if w in paper else np.nan
                      for w, a in zip(table["workload"], table["algorithm"])]
    table["diff"] = table["ours"] - table["paper"]
    order = {w: i for i, w in enumerate([*paper, *sorted(set(table["workload"]) - set(paper))])}
    table["_w"] = table["workload"].map(order)
    table["_a"] = table["algorithm"].map({a: i for i, a in enumerate(algorithms)})
    return table.sort_values(["_w", "_a"]).drop(columns=["_w", "_a"]).reset_index(drop=True)


def _wide(table: pd.DataFrame, column: str) -> pd.DataFrame:
    return table.pivot(index="workload", columns="algorithm", values=column)


def _agreement_verdict(agree: int, total: int) -> str:
    if total == 0:
        return "not comparable"
    if agree >= 0.9 * total:
        return "reproduced"
    if agree >= 0.6 * total:
        return "partly reproduced"
    return "not reproduced"


def heuristic_claims(table: pd.DataFrame, algorithms, *, paper_name: str, tolerance: float,
                     note: str = "", claim_prefix: str = "table4") -> list[dict]:
    """Claims rows comparing ``compare_with_paper``'s table with the paper.

    * one row per workload: every algorithm within ``tolerance`` (absolute) of the paper;
    * for each policy run with and without backfilling: backfilling raises utilisation (per
      workload sign agreement with the paper);
    * the best algorithm per workload agrees with the paper's;
    * the ordering of the no-backfilling policies agrees with the paper's.
    """
    algorithms = list(algorithms)
    table = table[table["paper"].notna()]
    ours, paper = _wide(table, "ours")[algorithms], _wide(table, "paper")[algorithms]
    workloads = [w for w in dict.fromkeys(table["workload"])]
    ours, paper = ours.loc[workloads], paper.loc[workloads]
    labels = [algorithm_label(a) for a in algorithms]
    rows = []

    def add(claim_id, claim, paper_value, ours_value, verdict_, extra=""):
        rows.append({"paper": paper_name, "claim_id": f"{claim_prefix}_{claim_id}", "claim": claim,
                     "paper_value": paper_value, "ours": ours_value, "verdict": verdict_,
                     "note": "; ".join(x for x in (extra, note) if x)})

    for w in workloads:
        gaps = (ours.loc[w] - paper.loc[w]).abs()
        worst = float(gaps.max())
        v = verdict(worst, 0.0, abs_tol=tolerance)
        add(f"{w}_values", f"{w}: utilisation of {', '.join(labels)} within +-{tolerance:g} of the paper",
            " / ".join(f"{x:.2f}" for x in paper.loc[w]), " / ".join(f"{x:.2f}" for x in ours.loc[w]),
            v, f"largest gap {worst:.3f}")

    n_close = int(((ours - paper).abs() <= tolerance).to_numpy().sum())
    total = ours.size
    add("cells_within_tolerance", f"table cells within +-{tolerance:g} of the paper",
        f"{total}/{total}", f"{n_close}/{total}", _agreement_verdict(n_close, total),
        f"mean |diff| {float((ours - paper).abs().to_numpy().mean()):.3f}")

    by_policy = {}
    for a in algorithms:
        policy, backfill = parse_algorithm(a)
        by_policy.setdefault(policy, {})[backfill] = a
    for policy, modes in by_policy.items():
        if "none" not in modes:
            continue
        for backfill, spec in modes.items():
            if backfill == "none":
                continue
            base = modes["none"]
            p_gain = paper[spec] - paper[base]
            o_gain = ours[spec] - ours[base]
            p_wins, o_wins = int((p_gain > 0).sum()), int((o_gain > 0).sum())
            agree = int((np.sign(p_gain.round(9)) == np.sign(o_gain.round(9))).sum())
            add(f"{policy}_{backfill}_helps",
                f"{algorithm_label(spec)} gives higher utilisation than {algorithm_label(base)} "
                "(workloads where it does)",
                f"{p_wins}/{len(workloads)}", f"{o_wins}/{len(workloads)}",
                _agreement_verdict(agree, len(workloads)),
                f"sign agrees on {agree}/{len(workloads)} workloads; mean gain paper "
                f"{float(p_gain.mean()):+.3f}, ours {float(o_gain.mean()):+.3f}")

    p_best = paper.idxmax(axis=1)
    o_best = ours.idxmax(axis=1)
    agree = int((p_best == o_best).sum())
    add("best_algorithm", "best algorithm per workload (highest utilisation)",
        ", ".join(f"{w}:{algorithm_label(p_best[w])}" for w in workloads),
        ", ".join(f"{w}:{algorithm_label(o_best[w])}" for w in workloads),
        _agreement_verdict(agree, len(workloads)), f"same winner on {agree}/{len(workloads)}")

    plain = [modes["none"] for modes in by_policy.values() if "none" in modes]
    if len(plain) == 2:
        a, b = plain
        p_first = int((paper[a] > paper[b]).sum())
        o_first = int((ours[a] > ours[b]).sum())
        agree = int((np.sign((paper[a] - paper[b]).round(9)) == np.sign((ours[a] - ours[b]).round(9))).sum())
        add(f"{parse_algorithm(a)[0]}_vs_{parse_algorithm(b)[0]}",
            f"{algorithm_label(a)} gives higher utilisation than {algorithm_label(b)} (workloads where it does)",
            f"{p_first}/{len(workloads)}", f"{o_first}/{len(workloads)}",
            _agreement_verdict(agree, len(workloads)), f"sign agrees on {agree}/{len(workloads)} workloads")
    return rows
