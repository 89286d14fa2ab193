"""Fig. 4 over the recorded runs, each training seed a unit (issue 68: three seeds at the paper's budget).

At the paper's budget each scenario-seed of mdp is a run of its own (~2.4 core-hours), recorded in the
session that trained it, and a session's machine does not keep one session's files for the next: the
together step of ``scripts/run_seeds.py`` (one claims table over every scenario and seed, played again
from the runs' files) needs them all on one disk. What every record keeps is each player's mean
slowdown per scenario and seed (``recorded_scores.csv``). Fig. 4's three claims are read here from
those rows: per scenario, compact + sparse + reduced against image-like with the training seed as the
unit (Welch's t-test over the seeds' means and the 95% interval of the difference of means, as two
algorithms are compared over seeds). A run's own claims test over the evaluation trials (each trial's
mean over the run's seeds); over seeds is the stricter reading, and a scenario needs two seeds of each
agent before it is tested at all.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from schedrl.papers.mdp import claims as mc
from schedrl.papers.mdp import evaluation as me
from schedrl.papers.mdp import layout as ml
from schedrl.papers.mdp.normalised import agent_player
from schedrl.report.recorded import pooled_rows

SCALE = "paper-budget"
#: the table's columns: per scenario, each agent's seeds and mean of the seeds' means, their difference
#: (C+S+R minus image-like) with its 95% Welch interval, and Welch's p over the seeds
COLUMNS = ("scenario", "seeds_proposed", "seeds_base", "proposed", "base", "diff", "lo", "hi", "p")


def _scenario(workload: str) -> int | None:
    head, _, sid = str(workload).partition(" ")
    return int(sid) if head == "scenario" and sid.isdigit() else None


def fig4_over_seeds(scores: pd.DataFrame, scale: str = SCALE) -> pd.DataFrame:
    """Per scenario with both agents recorded at ``scale``: ``COLUMNS`` from the seeds' means of the runs
    recorded (a scenario-seed recorded twice: the later record). ``lo``, ``hi`` and ``p`` are NaN where
    either agent has fewer than two seeds."""
    from scipy import stats

    rows = pooled_rows(scores[scores["scale"] == scale]) if len(scores) else scores
    proposed, base = agent_player(ml.PROPOSED), agent_player(ml.BASE)
    out = []
    for workload, part in rows.groupby("workload", sort=False):
        sid = _scenario(workload)
        a = part.loc[part["player"] == proposed, "value"].to_numpy(float)
        b = part.loc[part["player"] == base, "value"].to_numpy(float)
        if sid is None or not len(a) or not len(b):
            continue
        lo = hi = p = float("nan")
        if len(a) >= 2 and len(b) >= 2:
            p = me.welch_p(a, b)
            if np.ptp(a) or np.ptp(b):
                ci = stats.ttest_ind(a, b, equal_var=False).confidence_interval(0.95)
                lo, hi = float(ci.low), float(ci.high)
            else:
                lo = hi = float(a.mean() - b.mean())
        out.append({"scenario": sid, "seeds_proposed": len(a), "seeds_base": len(b), "proposed": float(a.mean()),
                    "base": float(b.mean()), "diff": float(a.mean() - b.mean()), "lo": lo, "hi": hi, "p": p})
    return pd.DataFrame(out, columns=list(COLUMNS)).sort_values("scenario", ignore_index=True)


def _tested(table: pd.DataFrame) -> pd.DataFrame:
    return table[(table["seeds_proposed"] >= 2) & (table["seeds_base"] >= 2)]


def fig4_claims_over_seeds(table: pd.DataFrame) -> list[dict]:
    """Fig. 4's claims (``claim_id``, ``paper``, ``ours``, ``verdict``) from ``fig4_over_seeds``'s table,
    by the rules of the run's own claims (``claims.fig4_rows``), with the seed as the unit."""
    values, alpha = mc.VALUES, float(mc.VALUES["fig4.alpha"])
    out = {int(r.scenario): {"diff": r.diff, "lo": r.lo, "hi": r.hi, "p": r.p, "better": r.diff < 0}
           for r in table.itertuples()}
    rows = []
    # not worse: a share over the scenarios recorded (every scenario counts, one seed or more)
    summ = mc.fig4_summary(out, alpha) if out else {"worse": [], "share": float("nan"), "better": set()}
    tol = values.tolerance("fig4.not_worse_share", "abs")
    verdict = values.verdict("fig4.not_worse_share", summ["share"]) if out else "not comparable"
    verdict, guard = mc.share_guard(verdict, len(out), tol)
    rows.append({"claim_id": "fig4-not-worse", "paper": f"{values['fig4.not_worse_share']:.0%}",
                 "ours": (f"{summ['share']:.0%} of {len(out)} (worse: {mc._scenarios(summ['worse'])})"
                          if out else "no scenario recorded") + guard, "verdict": verdict})
    # significantly better: only scenarios with two seeds of each agent are tested
    tested = set(_tested(table)["scenario"].astype(int))
    untested = sorted(set(out) - tested)
    note = f"; untested (one seed): {mc._scenarios(untested)}" if untested else ""
    if tested:
        better = mc.fig4_summary({s: out[s] for s in tested}, alpha)["better"]
        expected = {s for s in values["fig4.better_scenarios"] if s in tested}
        rows.append({"claim_id": "fig4-better", "paper": mc._scenarios(values["fig4.better_scenarios"]),
                     "ours": f"{mc._scenarios(better)} of tested {mc._scenarios(sorted(tested))}{note}",
                     "verdict": mc.better_set_verdict(better, expected)})
    else:
        rows.append({"claim_id": "fig4-better", "paper": mc._scenarios(values["fig4.better_scenarios"]),
                     "ours": f"no scenario with two seeds of each agent{note}", "verdict": "not comparable"})
    if 6 in tested:
        r = out[6]
        ours = f"C+S+R minus image-like {r['diff']:+.3f} [{r['lo']:+.3f}, {r['hi']:+.3f}], p = {r['p']:.3g}"
        rows.append({"claim_id": "fig4-scenario6", "paper": "scenario 6", "ours": ours,
                     "verdict": mc.scenario6_verdict(r, alpha)})
    else:
        rows.append({"claim_id": "fig4-scenario6", "paper": "scenario 6",
                     "ours": "scenario 6 has one seed" if 6 in out else "scenario 6 not recorded",
                     "verdict": "not comparable"})
    return rows


def _num(x: float, fmt: str = ".3f") -> str:
    return "-" if not np.isfinite(x) else format(x, fmt)


def seed_lines(scores: pd.DataFrame) -> list[tuple[str, list[str]]]:
    """The "Verdicts over seeds" section of the paper-budget runs' Fig. 4 ((title, markdown lines)),
    [] where no scenario has both agents recorded."""
    from schedrl.report.recorded import SHORT

    table = fig4_over_seeds(scores)
    if table.empty:
        return []
    runs = list(dict.fromkeys(scores.loc[scores["scale"] == SCALE, "run"]))
    head = ["scenario", "seeds (C+S+R, image-like)", "C+S+R", "image-like", "C+S+R minus image-like [95%]",
            "p (Welch over seeds)"]
    lines = [f"Each scenario-seed is a run of its own, recorded apart ({len(runs)} runs); Fig. 4 from their "
             "recorded per-seed mean slowdowns, the training seed as the unit (lower is better; a run's own "
             "claims test over its evaluation trials instead).", "",
             "| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    for r in table.itertuples():
        interval = f"{r.diff:+.3f} [{_num(r.lo, '+.3f')}, {_num(r.hi, '+.3f')}]" if np.isfinite(r.lo) else f"{r.diff:+.3f}"
        lines.append(f"| {r.scenario} | {r.seeds_proposed}, {r.seeds_base} | {r.proposed:.3f} | {r.base:.3f} | "
                     f"{interval} | {_num(r.p, '.3g')} |")
    lines += ["", "| claim | paper | ours over seeds | verdict |", "| --- | --- | --- | --- |"]
    lines += [f"| {mc.FIG4_CLAIMS[c['claim_id']]} | {c['paper']} | {c['ours']} | {SHORT[c['verdict']]} |"
              for c in fig4_claims_over_seeds(table)]
    return [("paper budget: Fig. 4 over seeds, from the records", lines + [""])]


def _listed(values) -> str:
    return ", ".join(f"{v:.3f}" for v in values)


def _seeds(seeds: list[int]) -> str:
    return f"seed{'s' * (len(seeds) != 1)} {', '.join(map(str, seeds))}"


def status_bullets(scores: pd.DataFrame) -> list[str]:
    """mdp status.md's generated bullet of Fig. 4 at the paper's budget (one markdown line, unwrapped):
    per scenario each agent's mean slowdown per seed, the heuristics', and the gap over seeds with its
    interval and Welch's p; then fig4-better over seeds. [] where no scenario has both agents recorded."""
    from schedrl.report.recorded import SHORT

    table = fig4_over_seeds(scores)
    if table.empty:
        return []
    rows = pooled_rows(scores[scores["scale"] == SCALE])
    proposed, base = agent_player(ml.PROPOSED), agent_player(ml.BASE)
    heuristics = sorted(set(rows.loc[rows["role"] == "heuristic", "player"]))
    found = []
    for r in table.itertuples():
        part = rows[rows["workload"] == f"scenario {r.scenario}"].sort_values("seed", kind="stable")
        mine = part[part["player"] == proposed]
        heur = part[part["role"] == "heuristic"].groupby("player")["value"].mean()
        gap = (f"{r.diff:+.3f} [{_num(r.lo, '+.3f')}, {_num(r.hi, '+.3f')}], p {_num(r.p, '.3g')}"
               if np.isfinite(r.lo) else f"{r.diff:+.3f} (one seed: untested)")
        found.append((r.scenario, mine["seed"].astype(int).tolist(), _listed(mine["value"]),
                      _listed(part.loc[part["player"] == base, "value"]),
                      ", ".join(_num(heur.get(h, np.nan)) for h in heuristics), gap))
    once = f"{_seeds(found[0][1])}, " if len({tuple(f[1]) for f in found}) == 1 else ""  # the seeds said once
    parts = [f"scenario {sid}{'' if once else ' (' + _seeds(sd) + ')'}: {a} vs {b} | {h} | {gap}"
             for sid, sd, a, b, h, gap in found]
    better = next(c for c in fig4_claims_over_seeds(table) if c["claim_id"] == "fig4-better")
    return [f"- **Fig. 4 at the paper's budget** ({once}mean slowdown: C+S+R vs image-like per seed | "
            f"{', '.join(heuristics)} | C+S+R minus image-like over seeds [95%], Welch's p): " + "; ".join(parts)
            + f". Over seeds fig4-better {SHORT[better['verdict']]} ({better['ours']})."]
