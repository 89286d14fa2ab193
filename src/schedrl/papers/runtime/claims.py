"""Claims of the runtime paper, ours vs the paper's, counted the way the paper counts them.

* Table 4: ``heuristic_claims`` (values within tolerance, backfilling gains, winners).
* Table 5 / 6 cells within tolerance.
* No count lets a tie win (issue 38): a cell wins only when strictly above on 2-decimal values as
  printed, on our cells and on the paper's alike, and each verdict compares with the paper's own
  cells counted by that rule. The paper's text counts ties (its 14 and 30 are what the printed
  cells give with ties); the note gives both. With ties, identical methods would reproduce "NN2
  beats NN1 in 30 of 36" (the equal cells count for NN2).
* RL beats SJF and FCFS in 14 of 18 Table 5 cases (the text; strictly above both on the paper's
  cells: 13) but never the backfilling variants (above the better of the two: 0 of 18).
* The proposal does not raise utilisation: same-tendency pairs of Table 6 where the better
  proposal beats the baseline by more than 0.01 (paper: 0 of 6).
* NN2 beats NN1 in 30 of 36 Table 6 pairs (the text; NN2 > NN1 on the paper's cells: 22, 8 ties).
  Judged by the interval too: a mean NN2 - NN1 difference whose 95% interval reaches 0 is no win
  (``intervals.comparison_cis``' guard), and "the proposal does not raise utilisation" fails when
  the better proposal's interval over the baseline lies above 0.
* Same-tendency pairs score higher: Table 6 columns (test half x method) whose highest value is
  the same-tendency training half. The paper's text says 7 of 18; its printed table gives 11 with
  ties, 5 without: we count without ties and compare with 5 (like with like); both in the note.
* Section 6.1's other statements: different-tendency cells (test half not WL1_050b: 75) strictly
  below the better of SJF and FCFS (10, baseline 1 vs proposal 9: strictly below on 2-decimal
  values gives exactly that on the paper's cells); every WL1_050b result below SJF/FCFS (18 of 18);
  same-tendency results above SJF/FCFS but below the better backfilling variant (15 of 15).
* ``rl_vs_backfilling`` uses the better backfilling variant (the reading whose count on the
  paper's cells is the text's 0); the weaker variant (2 of 18 on the paper's cells) is in the note.
* Beyond the paper: the share of the oracle utilisation the proposal keeps with the online predictor.

Each count is a verdict from ``paper_values.yaml``'s tolerance for that count; method comparisons
carry a 95% interval (``intervals.py``) and RL claims their value at each training budget (``budget.py``).

Imports flow one way (A -> B: B imports A): experiments -> tables -> intervals -> claims -> (figures,
budget); ``budget``'s convergence fields come in as the ``budgets`` argument.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from schedrl.experiments.heuristics import heuristic_claims
from schedrl.papers.runtime import tables
from schedrl.papers.runtime.experiments import (
    ALGORITHMS,
    LABELS,
    METHODS,
    PAPER,
    TRAIN_WORKLOADS,
    VALUES,
    same_tendency,
    tuned,
)
from schedrl.papers.runtime.intervals import comparison_cis
from schedrl.papers.runtime.tables import ALL_BELOW, BACKFILL, PLAIN

R = 2  # the paper prints two decimals; its counts compare the printed values


def _row(claim_id: str, claim: str, paper_value, ours, verdict: str, note: str = "") -> dict:
    return {"paper": PAPER, "claim_id": claim_id, "claim": claim, "paper_value": paper_value, "ours": ours,
            "verdict": verdict, "note": note}


def _count_verdict(key: str, ours: int, total: int, paper_total: int, paper: float | None = None) -> str:
    """A count compares only over the paper's full set of cases (a smaller grid is not comparable)."""
    return VALUES.verdict(key, ours, paper) if total == paper_total and total else "not comparable"


def _best(t4: pd.DataFrame, workload: str, algorithms: list[str], how: str = "max") -> float:
    return round(float(getattr(t4.loc[workload, algorithms], how)()), R)


def _wins(a: float, b: float, ties: bool) -> bool:
    """``a`` beats ``b`` on printed (2-decimal) values; a tie wins only with ``ties``."""
    return round(a, R) >= b if ties else round(a, R) > b


def rl_vs_heuristics(t5: pd.DataFrame, t4: pd.DataFrame, value: str, ties: bool = False) -> tuple[int, int, int]:
    """(cells above both SJF and FCFS, cells above the better backfilling variant, cells) of
    Table 5 (``ties``: at or above, the paper's text's rule).

    ``t5``: long table (workload, method, ``value``); ``t4``: workload x algorithm (wide)."""
    beats = beats_bf = total = 0
    for w, v in zip(t5["workload"], t5[value]):
        if w not in t4.index or not np.isfinite(v):
            continue
        total += 1
        beats += _wins(v, _best(t4, w, PLAIN), ties)
        beats_bf += _wins(v, _best(t4, w, BACKFILL), ties)
    return beats, beats_bf, total


def rl_vs_weaker_backfilling(t5: pd.DataFrame, t4: pd.DataFrame, value: str, ties: bool = False) -> tuple[int, int]:
    """The other reading of section 6.1: Table 5 cells above the weaker backfilling variant."""
    hits = total = 0
    for w, v in zip(t5["workload"], t5[value]):
        if w in t4.index and np.isfinite(v):
            total += 1
            hits += _wins(v, _best(t4, w, BACKFILL, "min"), ties)
    return hits, total


def nn2_vs_nn1(t6: pd.DataFrame, value: str, ties: bool = False) -> tuple[int, int]:
    """(Table 6 pairs where NN2 is above NN1, pairs); ``ties``: at or above (the text's 30)."""
    wide = t6.pivot_table(index=["train", "test"], columns="method", values=value)
    if not {"proposal_nn1", "proposal_nn2"} <= set(wide.columns):
        return 0, 0
    wide = wide.dropna(subset=["proposal_nn1", "proposal_nn2"])
    nn2, nn1 = wide["proposal_nn2"].round(R), wide["proposal_nn1"].round(R)
    return int((nn2 >= nn1).sum() if ties else (nn2 > nn1).sum()), len(wide)


def same_tendency_best(t6: pd.DataFrame, value: str, ties: bool = False) -> tuple[int, int]:
    """Columns (test, method) whose maximum is the same-tendency training half (``ties``: a tie
    with another half counts; without, the same-tendency half must be the only maximum)."""
    hits = total = 0
    for (test, _), col in t6.groupby(["test", "method"]):
        same = col[col["train"].map(same_tendency) == test]
        if same.empty or col[value].isna().any():
            continue
        total += 1
        mine = round(float(same[value].iloc[0]), R)
        others = col.loc[col.index != same.index[0], value].round(R)
        hits += mine >= others.max() if ties else mine > others.max()
    return hits, total


def proposal_gain(t6: pd.DataFrame, value: str) -> tuple[int, int]:
    """Same-tendency pairs where the better proposal beats the baseline by more than 0.01."""
    diag = t6[t6["train"].map(same_tendency) == t6["test"]]
    wide = diag.pivot_table(index="train", columns="method", values=value)
    props = [m for m in ("proposal_nn1", "proposal_nn2") if m in wide.columns]
    if "baseline" not in wide.columns or not props:
        return 0, 0
    gain = wide[props].max(axis=1).round(R) - wide["baseline"].round(R)
    return int((gain > 0.01 + 1e-9).sum()), int(gain.notna().sum())


def below_heuristics_other(t6: pd.DataFrame, t4: pd.DataFrame, value: str) -> dict[str, tuple[int, int]]:
    """Per method: (cells strictly below the better of SJF and FCFS, cells) over Table 6's
    different-tendency pairs whose test half is not WL1_050b (6 x 5 - 5 = 25 per method: the
    paper's 75 cases). Strictly below on 2-decimal values gives the paper's 10 (1 + 9) on its cells."""
    out: dict[str, list[int]] = {}
    for train, test, method, v in zip(t6["train"], t6["test"], t6["method"], t6[value]):
        if test == ALL_BELOW or same_tendency(train) == test or test not in t4.index or not np.isfinite(v):
            continue
        hit = out.setdefault(method, [0, 0])
        hit[0] += round(v, R) < _best(t4, test, PLAIN)
        hit[1] += 1
    return {m: (h, n) for m, (h, n) in out.items()}


def wl1_050b_below(t6: pd.DataFrame, t4: pd.DataFrame, value: str) -> tuple[int, int]:
    """Table 6 cells tested on WL1_050b strictly below the better of SJF and FCFS."""
    cells = t6[(t6["test"] == ALL_BELOW) & t6[value].notna()]
    if ALL_BELOW not in t4.index:
        return 0, 0
    return int((cells[value].round(R) < _best(t4, ALL_BELOW, PLAIN)).sum()), len(cells)


def same_tendency_between(t6: pd.DataFrame, t4: pd.DataFrame, value: str) -> tuple[int, int]:
    """Same-tendency Table 6 cells (test half not WL1_050b) above the better of SJF and FCFS and
    below the better backfilling variant (section 6.1's first bullet)."""
    hits = total = 0
    for train, test, v in zip(t6["train"], t6["test"], t6[value]):
        if same_tendency(train) != test or test == ALL_BELOW or test not in t4.index or not np.isfinite(v):
            continue
        total += 1
        hits += _best(t4, test, PLAIN) < round(v, R) < _best(t4, test, BACKFILL)
    return hits, total


def _within(table: pd.DataFrame, key: str) -> dict:
    tol = VALUES.tolerance(key, "abs")
    has = table["paper"].notna()
    n_close = int((table.loc[has, "diff"].abs() <= tol).sum())
    total = int(has.sum())
    share = n_close / total if total else 0.0
    verdict = ("not comparable" if not total else "reproduced" if share >= 0.9 else
               "partly reproduced" if share >= 0.6 else "not reproduced")
    return _row(f"{key}_cells_within_tolerance", f"{VALUES.source(key)} cells within +-{tol:g} of the paper",
                f"{total}/{total}", f"{n_close}/{total}", verdict,
                f"mean |diff| {float(table.loc[has, 'diff'].abs().mean()):.3f}" if total else "")


def paper_table5() -> pd.DataFrame:
    cols = VALUES["table5"]["columns"]
    return pd.DataFrame([{"workload": w, "method": m, "ours": v[i]} for w, v in VALUES["table5"]["rows"].items()
                         for i, m in enumerate(cols)])


def paper_table6() -> pd.DataFrame:
    cols = VALUES["table6"]["columns"]
    return pd.DataFrame([{"train": a, "test": b, "method": m, "ours": v[i]}
                         for a, tests in VALUES["table6"]["rows"].items() for b, v in tests.items()
                         for i, m in enumerate(cols)])


def paper_table4() -> pd.DataFrame:
    return pd.DataFrame(VALUES["table4"]["rows"], index=ALGORITHMS).T


#: RL count claims: claim id -> (statement, which tables it reads)
COUNT_CLAIMS = {
    "rl_vs_heuristics": "RL (Table 5) above both SJF and FCFS (Table 4, same half)",
    "rl_vs_backfilling": "RL (Table 5) above the better backfilling variant (the paper: never)",
    "nn2_beats_nn1": "Proposal (NN2) above Proposal (NN1) (Table 6 pairs)",
    "same_tendency_best": "Table 6 columns (test half x method) topped by the same-tendency training half",
    "proposal_gain": "same-tendency pairs where the better proposal beats the baseline by > 0.01",
    "below_heuristics_other": "different-tendency Table 6 cells (not WL1_050b) below the better of SJF and FCFS",
    "wl1_050b_below_heuristics": "every Table 6 result on WL1_050b below the better of SJF and FCFS",
    "same_tendency_between": "same-tendency Table 6 results above SJF and FCFS but below backfilling",
}


def rl_counts(t5: pd.DataFrame | None, t4: pd.DataFrame | None, t6: pd.DataFrame | None,
              value: str = "ours") -> dict[str, tuple]:
    """claim id -> (hits, cases) of every RL count claim the tables allow, ties not counted
    (``<id>_ties``: the same count with ties, as the paper's text counts; ``below_heuristics_split``:
    ((baseline hits, cells), (proposal hits, cells)))."""
    out: dict[str, tuple] = {}
    if t5 is not None and t4 is not None and len(t5):
        beats, beats_bf, n = rl_vs_heuristics(t5, t4, value)
        out["rl_vs_heuristics"], out["rl_vs_backfilling"] = (beats, n), (beats_bf, n)
        beats, beats_bf, n = rl_vs_heuristics(t5, t4, value, ties=True)
        out["rl_vs_heuristics_ties"], out["rl_vs_backfilling_ties"] = (beats, n), (beats_bf, n)
        out["rl_vs_weaker_backfilling"] = rl_vs_weaker_backfilling(t5, t4, value)
    if t6 is not None and len(t6):
        out["nn2_beats_nn1"] = nn2_vs_nn1(t6, value)
        out["nn2_beats_nn1_ties"] = nn2_vs_nn1(t6, value, ties=True)
        out["same_tendency_best"] = same_tendency_best(t6, value)
        out["same_tendency_best_ties"] = same_tendency_best(t6, value, ties=True)
        out["proposal_gain"] = proposal_gain(t6, value)
        if t4 is not None:
            per = below_heuristics_other(t6, t4, value)
            out["below_heuristics_other"] = (sum(h for h, _ in per.values()), sum(n for _, n in per.values()))
            base = per.get("baseline", (0, 0))
            props = [per[m] for m in ("proposal_nn1", "proposal_nn2") if m in per]
            out["below_heuristics_split"] = (base, (sum(h for h, _ in props), sum(n for _, n in props)))
            out["wl1_050b_below_heuristics"] = wl1_050b_below(t6, t4, value)
            out["same_tendency_between"] = same_tendency_between(t6, t4, value)
    return out


def trained_scope(t5: pd.DataFrame | None, t6: pd.DataFrame | None) -> tuple[list[str], list[str]]:
    """(methods, training halves) that trained agents at this scale, in the paper's order, as the
    tables hold them (a scale may train fewer than the paper's 3 x 6: ``config/paper-budget.yaml``)."""
    methods, halves = set(), set()
    for table, half in ((t5, "workload"), (t6, "train")):
        if table is not None and len(table):
            methods |= set(table["method"])
            halves |= set(table[half])
    return [m for m in METHODS if m in methods], [w for w in TRAIN_WORKLOADS if w in halves]


def scope_note(methods: list[str], halves: list[str]) -> str:
    """"only ... trained at this scale" when fewer than the paper's methods or training halves trained; else ""."""
    if set(methods) >= set(METHODS) and set(halves) >= set(TRAIN_WORKLOADS):
        return ""
    return (f"only {', '.join(LABELS[m] for m in methods) or 'no method'} on {', '.join(halves) or 'no half'} "
            f"trained at this scale (the paper: {len(METHODS)} methods x {len(TRAIN_WORKLOADS)} training halves)")


def untrained_claims(methods: list[str], halves: list[str]) -> dict[str, str]:
    """RL claim id -> what it compares that this scale did not train (its row reads "not comparable")."""
    out = {}
    nn = [LABELS[m] for m in ("proposal_nn1", "proposal_nn2") if m not in methods]
    if nn:
        out["nn2_beats_nn1"] = " and ".join(nn)
    if "baseline" not in methods or not {"proposal_nn1", "proposal_nn2"} & set(methods):
        what = LABELS["baseline"] if "baseline" not in methods else "a proposal (NN1 or NN2)"
        out["proposal_gain"] = out["below_heuristics_split"] = what
    if len(halves) < 2:
        out["same_tendency_best"] = "a second training half (a column's maximum is over the training halves)"
    return out


def _absent(claim_id: str, claim: str, paper_value, ours: str, what: str, scope: str) -> dict:
    """The row of a claim on runs this scale did not train: ``ours`` is the count the tables allow
    (e.g. 0/0), the verdict "not comparable", the note says what is missing."""
    return _row(claim_id, claim, paper_value, ours, "not comparable",
                f"{what} not trained at this scale" + (f"; {scope}" if scope else ""))


SPLIT_CLAIM = "of those, the proposal (NN1 + NN2) below SJF/FCFS more often than the baseline (the paper: it generalises worse)"


def split_verdict(ours: tuple, paper: tuple) -> str:
    """Below-heuristics cells, baseline vs proposal: reproduced when the proposal's share is larger
    (the paper's 9 of 50 vs 1 of 25), not when it is not; not comparable without both."""
    (bh, bn), (ph, pn) = ours
    if not bn or not pn or (bn, pn) != (paper[0][1], paper[1][1]):
        return "not comparable"
    return "reproduced" if ph / pn > bh / bn else "not reproduced"


def _add_budget(row: dict, fields: dict | None) -> None:
    """The convergence columns of ``budget.budget_rows`` into a claims row (its note appended)."""
    if fields:
        row.update({k: v for k, v in fields.items() if k != "note"})
        if fields.get("note"):
            row["note"] = f"{row['note']}; {fields['note']}" if row.get("note") else fields["note"]


def rl_claims(t5: pd.DataFrame | None, t4: pd.DataFrame | None, t6: pd.DataFrame | None,
              sens: pd.DataFrame | None = None, note: str = "", *, evals: pd.DataFrame | None = None,
              budgets: dict | None = None, per_draw: dict | None = None) -> list[dict]:
    """Claims rows of Tables 5-6 (and the sensitivity study) from the figures' long tables.

    ``evals``: the tuned per-episode evaluation rows (``experiments.tuned``), for the 95% intervals
    of the method comparisons; ``budgets``: claim id -> convergence fields (``budget.py``)."""
    rows = []
    ours = rl_counts(t5, t4, t6)
    paper = rl_counts(paper_table5(), paper_table4(), paper_table6())
    cis = comparison_cis(evals, t4) if evals is not None and len(evals) else {}
    scope = scope_note(*trained_scope(t5, t6))
    absent = untrained_claims(*trained_scope(t5, t6)) if scope else {}

    def scoped(row: dict) -> dict:
        """A count over fewer cells than the paper's says which runs this scale trained."""
        if scope:
            row["note"] = f"{row['note']}; {scope}" if row.get("note") else scope
        return row

    for table, key in ((t5, "table5"), (t6, "table6")):
        if table is not None and len(table):
            rows.append(scoped(_within(table, key)))
            _add_budget(rows[-1], (budgets or {}).get(f"{key}_cells_within_tolerance"))
    for key, claim in COUNT_CLAIMS.items():
        if key not in ours:
            continue
        (oh, on), (ph, pn) = ours[key], paper[key]
        if key in absent:
            rows.append(_absent(key, claim, f"{ph}/{pn}", f"{oh}/{on}", absent[key], scope))
            continue
        text = VALUES[key]
        # like with like: the verdict compares ours with the paper's printed cells counted by the
        # same rule (no tie wins); the text's number and the counts with ties are in the note
        verdict = _count_verdict(key, oh, on, pn, paper=ph)
        paper_value = f"{ph}/{pn}"
        extra = f"the paper's printed cells by our rule (a tie is no win) give {ph}/{pn}; its text says {text}/{pn}"
        if f"{key}_ties" in ours:
            (th, _), (pth, _) = ours[f"{key}_ties"], paper[f"{key}_ties"]
            extra += f"; with ties counted the paper's cells give {pth}/{pn}, ours {th}/{on}"
        if key == "rl_vs_backfilling":
            wh, wn = ours["rl_vs_weaker_backfilling"]
            pw, _ = paper["rl_vs_weaker_backfilling"]
            extra += (f"; the other reading (at or above the weaker backfilling variant): paper's cells {pw}/{pn}, "
                      f"ours {wh}/{wn}")
        if per_draw and key in per_draw:
            extra += f"; per Lublin draw: {', '.join(per_draw[key])}"
        row = _row(key, claim, paper_value, f"{oh}/{on}", verdict, f"{extra}; {note}" if note else extra)
        if key in cis:
            row.update(cis[key]["fields"])
            row["verdict"] = cis[key]["guard"](row["verdict"])
            row["note"] += f"; {cis[key]['note']}"
        _add_budget(row, (budgets or {}).get(key))
        rows.append(scoped(row))
        if key == "below_heuristics_other" and "below_heuristics_split" in ours:
            o, p = ours["below_heuristics_split"], paper["below_heuristics_split"]
            if "below_heuristics_split" in absent:
                rows.append(_absent("below_heuristics_split", SPLIT_CLAIM,
                                    f"baseline {p[0][0]}/{p[0][1]}, proposal {p[1][0]}/{p[1][1]}",
                                    f"baseline {o[0][0]}/{o[0][1]}, proposal {o[1][0]}/{o[1][1]}",
                                    absent["below_heuristics_split"], scope))
                continue
            split = _row("below_heuristics_split", SPLIT_CLAIM,
                         f"baseline {p[0][0]}/{p[0][1]}, proposal {p[1][0]}/{p[1][1]}",
                         f"baseline {o[0][0]}/{o[0][1]}, proposal {o[1][0]}/{o[1][1]}", split_verdict(o, p),
                         "the text: 1 vs 9 of 10 (verdict on the direction)"
                         + (f"; per Lublin draw: {', '.join(per_draw['below_heuristics_split'])}"
                            if per_draw and "below_heuristics_split" in per_draw else "") + f"; {note}")
            if "below_heuristics_split" in cis:
                split.update(cis["below_heuristics_split"]["fields"])
                split["note"] += f"; {cis['below_heuristics_split']['note']}"
            _add_budget(split, (budgets or {}).get("below_heuristics_split"))
            rows.append(scoped(split))
    fit = [a for a in tables.FIT if t4 is not None and a in t4.columns]
    if fit and t5 is not None and len(t5):
        # beyond the paper (issue 38): the heuristics under the agent's own action set
        hits = total = 0
        for w, v in zip(t5["workload"], t5["ours"]):
            if w in t4.index and np.isfinite(v):
                total += 1
                hits += _wins(v, _best(t4, w, fit), ties=False)
        rows.append(_row("rl_vs_fit_heuristics", "beyond the paper: RL (Table 5) above the best heuristic under "
                         "the agent's own action set (FCFS, SJF or largest first among the jobs that fit)", "-",
                         f"{hits}/{total}", "not comparable",
                         "like for like: the paper's SJF/FCFS block at the queue head, the agent may start any "
                         "fitting job of the first N_jobs; these heuristics may too (played through the "
                         f"evaluation env); {note}"))
        if "rl_vs_fit_heuristics" in cis:
            rows[-1].update(cis["rl_vs_fit_heuristics"]["fields"])
            rows[-1]["note"] += f"; {cis['rl_vs_fit_heuristics']['note']}"
        scoped(rows[-1])
    if sens is not None and len(sens):
        kept = sens[(sens["estimator"] == "running_accuracy") & sens["method"].str.startswith("proposal")]
        if len(kept):
            rows.append(_row("sensitivity_online_predictor",
                             "beyond the paper: share of the oracle utilisation the proposal keeps with the "
                             "online predictor (request x running mean accuracy)", "-",
                             f"{float(kept['kept'].mean()):.3f} (min {float(kept['kept'].min()):.3f})",
                             "not comparable", "the paper names no predictor"))
            scoped(rows[-1])
    return rows


def claims_rows(table4: pd.DataFrame, table5: pd.DataFrame | None = None, table6: pd.DataFrame | None = None,
                sensitivity: pd.DataFrame | None = None, seed: int = 0, *, evals: pd.DataFrame | None = None,
                budgets: dict | None = None, per_draw: dict | None = None,
                heuristics: pd.DataFrame | None = None, references: dict[str, pd.DataFrame] | None = None,
                plays: dict[str, str] | None = None) -> list[dict]:
    """All claims: Table 4 (``figures.table4``'s long table) and, when given, Tables 5-6 and the
    sensitivity study (``tables.table5_frame`` / ``table6_frame`` / ``sensitivity_frame``);
    ``evals`` (tuned per-episode rows) add 95% intervals, ``budgets`` the convergence columns,
    ``per_draw`` each count per Lublin draw; ``heuristics`` (workload x algorithm, the mean over
    the draws the agents ran on) is what the RL claims compare with (default: Table 4's draw).
    ``references``: reference name (``random``, ``untrained``) -> its per-episode evaluation rows
    (all grid points, as the trained ``evals`` before tuning): every RL claim is counted again on
    them by the same rules and carries their verdicts (``REFERENCE_COLUMNS``); ``plays``: claim id
    -> what its agents play as (``references.claim_plays_as``; key "" for the default)."""
    note = f"our Lublin draws (seed {seed}) differ from the paper's"
    rows = heuristic_claims(table4, ALGORITHMS, paper_name=PAPER, tolerance=VALUES.tolerance("table4", "abs"),
                            note=note, claim_prefix="table4")
    t4 = table4.pivot(index="workload", columns="algorithm", values="ours") if table5 is not None else None
    if heuristics is not None and t4 is not None:
        t4 = heuristics
    rl = rl_claims(table5, t4, table6, sensitivity, note, evals=evals, budgets=budgets, per_draw=per_draw)
    if t4 is not None and all(a in t4.columns for a in tables.FIT):
        rows.append(fit_vs_backfilling(t4, note))
    if references:
        add_references(rl, {ref: reference_claims(ref_evals, t4, note) for ref, ref_evals in references.items()},
                       plays or {})
    return rows + rl


def fit_vs_backfilling(t4: pd.DataFrame, note: str = "") -> dict:
    """Beyond the paper: halves where the best heuristic under the agent's action set is above the
    better backfilling variant, i.e. where "RL never above backfilling" is no ceiling of the MDP."""
    best = t4[tables.FIT].max(axis=1).round(R)
    bf = t4[BACKFILL].max(axis=1).round(R)
    which = t4[tables.FIT].idxmax(axis=1)
    above = [f"{w} ({which[w]} {best[w]:.2f} vs {bf[w]:.2f})" for w in t4.index if best[w] > bf[w]]
    return _row("fit_vs_backfilling", "beyond the paper: workload halves where a heuristic under the agent's "
                "action set is above the better backfilling variant (Table 4)", "-", f"{len(above)}/{len(t4)}",
                "not comparable", (f"above: {', '.join(above)}; " if above else "") +
                "a half listed here is one where the agent's MDP allows more than backfilling gives; " + note)


def reference_claims(evals: pd.DataFrame, heuristics: pd.DataFrame | None, note: str = "") -> list[dict]:
    """The RL claims with a reference's evaluation rows in place of the trained agents': the same
    tuning rule, tables, counts and interval guards."""
    return rl_claims(tables.table5_frame(evals, heuristics), heuristics, tables.table6_frame(evals),
                     tables.sensitivity_frame(evals), note, evals=tuned(evals))


def add_references(rows: list[dict], refs: dict[str, list[dict]], plays: dict[str, str]) -> None:
    """Fill the reference columns of RL claim rows in place, and say in the note what the
    references count and what the agents play as."""
    from schedrl.report.claims import reference_fields

    by = {ref: {r["claim_id"]: r for r in ref_rows} for ref, ref_rows in refs.items()}
    for row in rows:
        cid = row["claim_id"]
        got = {ref: by[ref].get(cid) for ref in by}
        plays_as = plays.get(cid, plays.get("", ""))
        row.update(reference_fields(row["verdict"], (got.get("random") or {}).get("verdict", ""),
                                    (got.get("untrained") or {}).get("verdict", ""), plays_as))
        said = [f"{'random play' if ref == 'random' else 'untrained network'} {r['ours']} ({r['verdict']})"
                for ref, r in got.items() if r]
        extra = ([f"no-learning references: {', '.join(said)}"] if said else []) + ([plays_as] if plays_as else [])
        if extra:
            row["note"] = "; ".join([row["note"], *extra]) if row.get("note") else "; ".join(extra)
