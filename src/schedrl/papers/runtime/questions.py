"""The runtime paper's two questions, asked of the trained agents at every budget (issue 59):

1. Does PPO learn the scheduling task? Each trained agent's mean utilisation against random valid
   play (what an agent that learned nothing valid gets), the untrained network, and the best of
   FCFS / SJF / largest first among the jobs that fit (the heuristics with the agent's own action
   set); Table 4's four heuristics beside for scale.
2. Does the runtime estimate help? Proposal minus baseline on the halves where the estimate
   carries information beyond the request (``*_rnd``: Spearman 0.94 to the request, 0.999-1.000
   elsewhere), and on the others for contrast.

Intervals are 95% Welch t-intervals of a difference of means over episodes (each episode a full
play of a half; the agents sample their actions, the heuristics are deterministic, so a heuristic's
side has no spread). The episode seeds are shared but the two sides' sampling is independent, so
the comparison is unpaired. Budgets: the run's checkpoints at 1/8, 1/4 and 1/2 of its steps
(``evaluation_budget.csv``: the first ``evaluate.budget_episodes`` episodes per case) and its final
model (every episode).

Imports flow one way: experiments -> tables -> questions.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from schedrl.papers.runtime import experiments as rx
from schedrl.papers.runtime import tables
from schedrl.papers.runtime.budget import budget_path
from schedrl.papers.runtime.references import reference_files
from schedrl.report.convergence import t_ci as mean_ci
from schedrl.report.convergence import welch_diff as diff_ci

#: the halves on which the estimate differs from the request (the second question's evidence)
INFORMATIVE = ("wl1_rnda", "wl1_rndb", "wl2_rnda", "wl2_rndb")


def _fmt(t: tuple[float, float, float], signed: bool = False) -> str:
    m, lo, hi = t
    f = "{:+.3f}" if signed else "{:.3f}"
    if np.isnan(lo):
        return f.format(m)
    return f"{f.format(m)} [{f.format(lo)}, {f.format(hi)}]"


def _side(t: tuple[float, float, float]) -> str:
    """'above', 'below' or 'not different' (interval spans 0 or is undefined)."""
    m, lo, hi = t
    if np.isnan(lo):
        return "no interval"
    return "above" if lo > 0 else "below" if hi < 0 else "not different"


def _vs(t: tuple[float, float, float], what: str) -> str:
    side = _side(t)
    return {"not different": f"not different from {what}", "no interval": f"no interval against {what}"}.get(
        side, f"{side} {what}")


def agent_rows(spec: dict, root: str | Path = rx.ROOT, extra: dict[str, str | Path] | None = None) -> pd.DataFrame:
    """One row per played episode of every trained run (final model and budget checkpoints) and of
    ``extra`` run folders (label -> folder, e.g. a MaskablePPO run of another results root):
    agent, method, train, draw, test, budget (steps), fraction, episode, utilization."""
    steps = int(spec["agents"]["steps"])
    found = [(f"PPO {rx.LABELS[m]} seed {s}" + (f" draw {d}" if d else ""), Path(p))
             for m, _, _, s, d, p in rx.runs(spec, root)]
    found += [(label, Path(p)) for label, p in (extra or {}).items()]
    frames = []
    for label, run in found:
        final = pd.read_csv(rx.eval_path(run))
        frames.append(final[final["estimator"] == "actual"].assign(agent=label, fraction=1.0, budget=steps))
        if budget_path(run).exists():
            frames.append(pd.read_csv(budget_path(run)).assign(agent=label))
    rows = pd.concat(frames, ignore_index=True)
    if "draw" not in rows.columns:
        rows["draw"] = 0
    rows["draw"] = rows["draw"].fillna(0).astype(int)
    return rows[["agent", "method", "train", "draw", "test", "budget", "fraction", "episode", "utilization"]]


def reference_rows(spec: dict, root: str | Path = rx.ROOT) -> pd.DataFrame:
    """Random valid play and the untrained network, one row per episode: reference, method, train,
    test, episode, utilization (random play is the same for every method: kept once per half)."""
    frames = []
    for ref in ("random", "untrained"):
        for path in reference_files(spec, ref, root):
            if Path(path).exists():
                t = pd.read_csv(path)
                frames.append(t[t["estimator"] == "actual"].assign(reference=ref))
    if not frames:
        return pd.DataFrame(columns=["reference", "method", "train", "draw", "test", "episode", "utilization"])
    rows = pd.concat(frames, ignore_index=True)
    rows["draw"] = rows["draw"].fillna(0).astype(int) if "draw" in rows.columns else 0
    return rows.drop_duplicates(["reference", "method", "train", "test", "episode", "draw", "run_seed"])


def heuristic_values(spec: dict) -> dict[int, pd.DataFrame]:
    """Lublin draw -> workload x heuristic utilisation (Table 4's four and the three fit heuristics)."""
    out = {}
    for d in rx.draws(spec):
        runs = [rx.heuristics_file(w, d) for w in rx.WORKLOADS if Path(rx.heuristics_file(w, d)).exists()]
        fit = [rx.fit_file(d)] if Path(rx.fit_file(d)).exists() else []
        if runs:
            out[int(d)] = tables.heuristics_table(runs, fit=fit)
    return out


def paper_value(method: str, train: str, test: str) -> float:
    """The paper's utilisation for ``method`` trained on ``train``, tested on ``test``: Table 5 on its
    own half, Table 6 on a 'b' half (NaN where the paper has no cell)."""
    if test == train:
        t = rx.VALUES["table5"]
        row = t["rows"].get(train)
    else:
        t = rx.VALUES["table6"]
        row = t["rows"].get(train, {}).get(test)
    cols = t["columns"]
    return float(row[cols.index(method)]) if row is not None and method in cols else float("nan")


def _budget_label(fraction: float, budget: float) -> str:
    share = {0.125: "1/8", 0.25: "1/4", 0.5: "1/2", 1.0: "all"}.get(round(float(fraction), 3), f"{fraction:g}")
    return f"{share} ({int(budget):,} steps)"


def questions_markdown(agents: pd.DataFrame, refs: pd.DataFrame, heuristics: dict[int, pd.DataFrame]) -> str:
    """The two questions' tables and one-sentence answers, as markdown; every agent is compared with
    the references and heuristics of its own Lublin draw."""
    out = ["# Runtime paper: does PPO learn, and does the runtime estimate help?", "",
           "Mean utilisation over episodes with 95% t-intervals; differences with 95% Welch intervals "
           "(`schedrl.papers.runtime.questions`). Heuristics are deterministic (one play per half).", ""]
    answers = []
    # -- question 1: every agent on its own half and the same-tendency 'b' half, at every budget
    out += ["## 1. Trained agent vs random valid play, the untrained network and the best fit heuristic", "",
            "| agent | test half | budget | trained | paper (Table 5/6) | random valid | trained - random | untrained | "
            "best fit heuristic | trained - best fit | best of Table 4 |",
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for (agent, train, draw), mine in agents.groupby(["agent", "train", "draw"], sort=False):
        method = mine["method"].iloc[0]
        heur = heuristics.get(int(draw), pd.DataFrame())
        fit_cols = [a for a in tables.FIT if a in heur.columns]
        mine_refs = refs[(refs["train"] == train) & (refs["draw"] == draw)]
        for test in (train, rx.same_tendency(train)):
            for (fraction, budget), cell in mine[mine["test"] == test].groupby(["fraction", "budget"]):
                u = cell["utilization"].to_numpy()
                rnd = mine_refs[(mine_refs["reference"] == "random") & (mine_refs["test"] == test)]
                rnd = rnd.drop_duplicates(["test", "episode"])["utilization"].to_numpy()
                unt = mine_refs[(mine_refs["reference"] == "untrained") & (mine_refs["test"] == test)
                                & (mine_refs["method"] == method)]["utilization"].to_numpy()
                best_fit = heur.loc[test, fit_cols].astype(float).idxmax() if fit_cols and test in heur.index else None
                fit_value = float(heur.loc[test, best_fit]) if best_fit else float("nan")
                t4 = [a for a in tables.PLAIN + tables.BACKFILL if a in heur.columns]
                best_t4 = heur.loc[test, t4].astype(float).idxmax() if t4 and test in heur.index else None
                d_rnd = diff_ci(u, rnd) if len(rnd) else (float("nan"),) * 3
                d_fit = diff_ci(u, [fit_value]) if best_fit else (float("nan"),) * 3
                paper = paper_value(method, train, test)
                out.append(f"| {agent} | {test} | {_budget_label(fraction, budget)} | {_fmt(mean_ci(u))} | "
                           f"{'n/a' if np.isnan(paper) else f'{paper:.2f}'} | "
                           f"{_fmt(mean_ci(rnd)) if len(rnd) else 'n/a'} | {_fmt(d_rnd, True)} | "
                           f"{_fmt(mean_ci(unt)) if len(unt) else 'n/a'} | "
                           f"{f'{rx.FIT_LABELS[best_fit]} {fit_value:.3f}' if best_fit else 'n/a'} | "
                           f"{_fmt(d_fit, True)} | "
                           f"{f'{best_t4} {float(heur.loc[test, best_t4]):.3f}' if best_t4 else 'n/a'} |")
                if fraction == 1.0 and test == train:
                    answers.append(f"- **{agent}** on its own half {train} after {int(budget):,} steps: "
                                   f"{_fmt(mean_ci(u))} (the paper's {rx.LABELS[method]}: "
                                   f"{'n/a' if np.isnan(paper) else f'{paper:.2f}'}), {_vs(d_rnd, 'random valid play')} "
                                   f"({_fmt(d_rnd, True)}) and {_vs(d_fit, 'the best fit heuristic')}"
                                   + (f" {rx.FIT_LABELS[best_fit]} ({_fmt(d_fit, True)})." if best_fit else "."))
    out.append("")
    # -- the heuristics beside: every one on each half an agent was tested on, per draw
    for draw, heur in sorted(heuristics.items()):
        halves = [h for h in dict.fromkeys(agents.loc[agents["draw"] == draw, "test"]) if h in heur.index]
        cols = [a for a in (*tables.FIT, *tables.PLAIN, *tables.BACKFILL) if a in heur.columns]
        if not halves or not cols:
            continue
        names = [rx.FIT_LABELS.get(a, a) for a in cols]
        out += [f"Heuristics on the halves above (Lublin draw {draw}; fit: among the window's jobs that fit, "
                "the agent's action set; Table 4's four: the paper's simulator with and without backfilling):", "",
                "| half | " + " | ".join(names) + " |", "| --- |" + " --- |" * len(cols)]
        out += [f"| {h} | " + " | ".join(f"{float(heur.loc[h, a]):.3f}" for a in cols) + " |" for h in halves]
        out.append("")
    # -- question 2: proposal minus baseline of the same seed, draw and grid point, per half
    out += ["## 2. Proposal minus baseline (the runtime estimate's effect)", "",
            "The estimate carries information beyond the request only on the `*_rnd` halves "
            f"({', '.join(INFORMATIVE)}); elsewhere 'no effect' holds by construction.", "",
            "| proposal | test half | estimate informative | budget | proposal - baseline |",
            "| --- | --- | --- | --- | --- |"]
    ppo = agents[agents["agent"].str.startswith("PPO ")]
    base = ppo[ppo["method"] == "baseline"]
    for method in [m for m in rx.METHODS if m != "baseline" and m in set(ppo["method"])]:
        prop = ppo[ppo["method"] == method]
        for train in sorted(set(prop["train"]) & set(base["train"])):
            for test in (train, rx.same_tendency(train)):
                for (fraction, budget), cell in prop[(prop["train"] == train) & (prop["test"] == test)].groupby(
                        ["fraction", "budget"]):
                    b = base[(base["train"] == train) & (base["test"] == test) & (base["fraction"] == fraction)
                             & base["draw"].isin(set(cell["draw"]))]
                    if b.empty:
                        continue
                    d = diff_ci(cell["utilization"], b["utilization"])
                    out.append(f"| {rx.LABELS[method]} ({train}) | {test} | {'yes' if test in INFORMATIVE else 'no'} | "
                               f"{_budget_label(fraction, budget)} | {_fmt(d, True)} |")
                    if fraction == 1.0 and test in INFORMATIVE:
                        answers.append(f"- **{rx.LABELS[method]} vs Baseline** trained on {train}, tested on {test} "
                                       f"after {int(budget):,} steps: {_fmt(d, True)} utilisation, "
                                       f"{_vs(d, 'zero')}.")
    out.append("")
    return "\n".join(out[:4] + ["## Answers", "", *(answers or ["- no final evaluation to answer from"]), ""] + out[4:])


def write_questions(spec: dict, out: str | Path, root: str | Path = rx.ROOT,
                    extra: dict[str, str | Path] | None = None) -> str:
    from schedrl.io import atomic_path

    text = questions_markdown(agent_rows(spec, root, extra), reference_rows(spec, root), heuristic_values(spec))
    with atomic_path(out) as tmp:
        Path(tmp).write_text(text)
    return text
