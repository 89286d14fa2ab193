"""The SB3 DeepRM report's claims checked against our evaluation results.

``claims_rows(spec, root)`` returns rows for ``schedrl.report.claims.write_claims``. Every claim
is checked under both evaluation protocols (``dl.PROTOCOLS``), as two rows whose ids end in
``@heldout`` (unseen job sets, every job counted, episodes run to the end) and ``@report`` (the
report code's seed-42 sequence, sampled actions, placed jobs only), at the report's loads
(``box_rate`` = "130%", ``withheld_rate`` = "110%"); an agent the config does not train at this
scale gives a "not comparable" row that says so rather than a guess. Two ``finding-`` rows
compare the protocols: the in-sample vs held-out gap, and the jobs never placed (starvation);
two ``finding-greedy-`` rows say whether A2C and DeepRM's agent beat SJF held out with sampled
and with greedy actions (``dl.GREEDY``).

No-learning references (issue 41): every RL claim (a claim about trained agents) is computed again
with the agents replaced by the uniform-random valid policy and by their untrained networks
(``dl.REFERENCES``: same job sets, seeds and protocol), giving ``random_verdict``,
``untrained_verdict`` and ``uninformative``; ``plays_as`` names a heuristic or slot the claim's
agents follow on >= 95% of their contested decisions (their fingerprints). In the claims against
the DeepRM agent only the SB3 agents are replaced: the trained DeepRM agent stays the yardstick.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

from schedrl.errors import InputFileError
from schedrl.experiments.fingerprint import describe
from schedrl.papers import paper_values
from schedrl.papers.deeprm import evaluation as de
from schedrl.papers.deeprm import layout as dl
from schedrl.papers.deeprm import references as dr
from schedrl.papers.deeprm import training as dt
from schedrl.report.claims import reference_fields
from schedrl.report.convergence import (
    BUDGET_FRACTIONS,
    bootstrap_ci,
    bootstrap_diff,
    budget_fields,
    evidence,
    flat_noise,
    format_ci,
    guard_win,
)

PAPER = "deeprm"
VALUES = paper_values(PAPER)
REL_TOL = VALUES.tolerance("versus_deeprm_agent", "rel")  # "almost similar" to the DeepRM agent
MARGIN = VALUES.tolerance("beats", "margin")  # "A beats B" needs A at least this much below B


def paper_key(variant: str, algo: str, metric: str) -> str:
    """Key of a 130%-load number in paper_values.yaml."""
    return f"{variant}.{algo}.{metric}"


def paper_at_130(variant: str, algo: str, metric: str) -> float | None:
    key = paper_key(variant, algo, metric)
    return float(VALUES[key]) if key in VALUES else None


def _beats(a: float, b: float) -> bool:
    return a < b * (1 - MARGIN)


def _fmt(x: float) -> str:
    return "n/a" if x is None or not np.isfinite(x) else f"{x:.2f}"


class _Results:
    """Evaluation results under ``protocol``; with ``fraction`` < 1 the agents' episodes are those
    of their checkpoints at that share of training (``dl.budget_path``; baselines unchanged); with
    ``reference`` (``dl.REFERENCES``) those of their random or untrained stand-ins."""

    def __init__(self, spec: dict, root, protocol: str = "heldout", fraction: float = 1.0,
                 reference: str | None = None):
        self.spec, self.root, self.protocol, self.fraction = spec, root, protocol, float(fraction)
        self.reference = reference
        self._cache: dict[str, pd.DataFrame] = {}

    def fingerprints(self, variant: str, algos, objective: str | None = "slowdown") -> list[Path]:
        """Fingerprints of the trained agents ``algos`` (the configured ones) of ``variant`` under
        this protocol: the agents a claim rests on (``plays_as``)."""
        if variant not in self.spec["variants"]:
            return []
        have = set(self.spec["variants"][variant]["algos"])
        objectives = [objective] if objective else self.spec["objectives"]
        return [dl.fingerprint_path(dl.run_dir(self.root, variant, a, o, s), self.protocol)
                for a in algos if a in have for o in objectives for s in dl.run_seeds(self.spec, a, o)]

    def episodes(self, variant: str) -> pd.DataFrame | None:
        if variant not in self.spec["variants"]:
            return None
        if variant not in self._cache:
            frame = de.episodes_table(self.spec, self.root, variant, protocol=self.protocol,
                                      baselines=self.protocol in dl.PROTOCOLS, reference=self.reference)
            if self.fraction < 1.0:
                frame = pd.concat([frame[frame["algo"].isin(dl.BASELINES)],
                                   de.budget_episodes(self.spec, self.root, variant, self.protocol, self.fraction)],
                                  ignore_index=True)
            self._cache[variant] = frame
        return self._cache[variant]

    def deeprm_agent(self) -> pd.DataFrame | None:
        """DeepRM's agent, held out (at this share of its training); trained under a reference too
        (it is the yardstick of the claims that read it)."""
        if self.fraction < 1.0:
            return de.deeprm_agent_budget_episodes(self.spec, self.root, "heldout", self.fraction)
        return de.deeprm_agent_episodes(self.spec, self.root)

    def per_seed(self, variant: str, algo: str, metric: str, rate: float, objective: str | None = None,
                 frame: pd.DataFrame | None = None) -> list[np.ndarray]:
        """Per-episode values of ``metric``, one array per seed, episodes in job-set order."""
        frame = self.episodes(variant) if frame is None else frame
        if frame is None:
            return []
        sel = frame[(frame["algo"] == algo) & np.isclose(frame["rate"], rate)]
        if objective is not None:
            sel = sel[sel["objective"] == objective]
        return [g.sort_values("episode")[metric].to_numpy(float) for _, g in sel.groupby("seed")]

    def mean(self, variant: str, algo: str, metric: str, rate: float, objective: str | None = None) -> float | None:
        """Mean of ``metric`` of an agent (trained for ``objective``) or a baseline at ``rate``."""
        frame = self.episodes(variant)
        if frame is None:
            return None
        sel = frame[(frame["algo"] == algo) & np.isclose(frame["rate"], rate)]
        if objective is not None:
            sel = sel[sel["objective"] == objective]
        return float(sel[metric].mean()) if len(sel) else None

    def load(self, variant: str, rate: float) -> str:
        """Our load (eq. 4.1 per resource) at ``rate`` in ``variant``, as text for notes."""
        frame = self.episodes(variant)
        sel = frame[np.isclose(frame["rate"], rate)] if frame is not None else None
        return "" if sel is None or sel.empty else f"; our load at rate {rate:g} is {float(sel['load'].iloc[0]):.0%}"

    def jobs(self, variant: str, algo: str) -> pd.DataFrame | None:
        if variant not in self.spec["variants"] or algo not in self.spec["variants"][variant]["algos"]:
            return None
        try:
            return pd.concat([de.read_csv(dl.eval_paths(dl.agent_eval_dir(self.root, variant, algo, "slowdown", s,
                                                                          self.reference), self.protocol)["jobs"])
                              for s in dl.run_seeds(self.spec, algo, "slowdown")], ignore_index=True)
        except InputFileError:
            return None


def _row(claim_id: str, claim: str, paper_value: str, ours: str, verdict_: str, note: str = "", *,
         value: float | None = None, paper: float | None = None, band=None, label: str = "",
         ci95: str = "", noise: float | None = None, steps: int | None = None, agents=None) -> dict:
    """A claims row; ``value`` (with the paper's number ``paper`` and its tolerance ``band``) is the
    claim's number that the budget evaluation follows over training (dropped before writing);
    ``steps``: the training steps of the claim's longest-trained agent (the budget axis);
    ``agents``: fingerprint files of the trained agents the claim rests on (an RL claim: it gets the
    no-learning references; dropped before writing)."""
    row = {"paper": PAPER, "claim_id": claim_id, "claim": claim, "paper_value": paper_value, "ours": ours,
           "verdict": verdict_, "note": note}
    if agents is not None:
        row["_agents"] = [str(p) for p in agents]
    if ci95:
        row["ci95"] = ci95
    if value is not None:
        row["_budget"] = {"value": float(value), "paper": paper, "band": band, "label": label or claim_id,
                          "noise": noise, "steps": steps}
    return row


def _steps(spec: dict, variant: str, algos, objective: str | None) -> int:
    """Training steps of the longest-trained SB3 run among ``algos`` in ``variant`` (``train.steps``
    and ``steps_by``; heuristics and the DeepRM agent add none), for a claim's budget axis."""
    runs = [dt.run_steps(spec, variant, a, objective or "slowdown") for a in algos
            if a not in dl.BASELINES and a != dl.DEEPRM_AGENT]
    return max(runs, default=int(spec["train"]["steps"]))


def _seeds_episodes(groups: list[np.ndarray]) -> str:
    return evidence(len(groups), int(max((len(g) for g in groups), default=0)))


def _paired_gap(res: _Results, agent: list[np.ndarray], ref: list[np.ndarray]):
    """Relative gap mean(agent)/mean(ref) - 1 with its 95% interval; the reference (a heuristic, one
    run) played the same job sets as each seed of the agent, so the draws are paired."""
    if not agent or not ref:
        return float("nan"), float("nan"), float("nan")
    tiled = [ref[0]] * len(agent)
    if any(len(a) != len(ref[0]) for a in agent):
        return bootstrap_diff(agent, ref, relative=True)
    return bootstrap_diff(agent, tiled, relative=True, paired=True)


def _band(key: str, paper: float) -> tuple[float, float]:
    tol = max(VALUES.tolerance(key, "rel") * abs(paper), VALUES.tolerance(key, "abs"))
    return paper - tol, paper + tol


def _missing(claim_id, claim, paper_value, what) -> dict:
    return _row(claim_id, claim, paper_value, "n/a", "not comparable", f"{what} not trained/evaluated at this scale")


def _numeric(res: _Results, claim_id, claim, variant, algo, metric, rate, objective) -> dict:
    key = paper_key(variant, algo, metric)
    paper = float(VALUES[key])
    ours = res.mean(variant, algo, metric, rate, objective)
    if ours is None:
        return _missing(claim_id, claim, f"{paper:g}", f"{dl.label(algo)} in {variant}")
    groups = res.per_seed(variant, algo, metric, rate, objective)
    agent = algo not in dl.BASELINES
    noise = None
    if agent and groups:
        _, lo, hi = bootstrap_ci(groups)
        noise = (hi - lo) / 2
    return _row(claim_id, claim, f"{paper:g}", _fmt(ours), VALUES.verdict(key, ours),
                f"{dl.PROTOCOL_LABEL[res.protocol]}; mean over job sets and seeds ({_seeds_episodes(groups)}); "
                f"{VALUES.describe(key)}{res.load(variant, rate)}",
                value=ours if agent else None, paper=paper, band=_band(key, paper), noise=noise,
                steps=_steps(res.spec, variant, [algo], objective),
                agents=res.fingerprints(variant, [algo], objective) if agent else None)


def _better(res: _Results, claim_id, claim, paper_value, variant, agents, baseline, metric, rate, objective) -> dict:
    """Do ``agents`` (trained for ``objective``) beat ``baseline`` on ``metric`` at ``rate``?"""
    ref = res.mean(variant, baseline, metric, rate)
    vals = {a: res.mean(variant, a, metric, rate, objective) for a in agents}
    have = {a: v for a, v in vals.items() if v is not None}
    if ref is None or not have:
        return _missing(claim_id, claim, paper_value, " and ".join(dl.label(a) for a in agents))
    wins = sum(_beats(v, ref) for v in have.values())
    ours = ", ".join(f"{dl.label(a)} {_fmt(v)}" for a, v in have.items()) + f" vs {dl.label(baseline)} {_fmt(ref)}"
    result = "reproduced" if wins == len(agents) else "partly reproduced" if wins else "not reproduced"
    note = "" if len(have) == len(agents) else "only " + ", ".join(dl.label(a) for a in have) + " trained at this scale"
    base = res.per_seed(variant, baseline, metric, rate)
    cis, groups = {}, []
    for a in have:
        groups = res.per_seed(variant, a, metric, rate, objective)
        cis[a] = _paired_gap(res, groups, base)
    for lo, hi in ((c[1], c[2]) for c in cis.values()):
        result = guard_win(result, lo, hi)
    ci = "; ".join(f"{dl.label(a)} vs {dl.label(baseline)} {format_ci(*c, percent=True)}" for a, c in cis.items())
    note = (f"{note}; relative gap per agent with a 95% CI (two-level bootstrap, paired on job sets; a win whose "
            f"CI spans 0 is at most partly reproduced); {_seeds_episodes(groups)} per agent"
            f"{res.load(variant, rate)}").lstrip("; ")
    worst = max(have, key=have.get)
    return _row(claim_id, claim, paper_value, ours, result, note, ci95=ci, value=have[worst] / ref - 1,
                noise=(cis[worst][2] - cis[worst][1]) / 2, label=f"{claim_id}: worst agent's gap to {dl.label(baseline)}",
                steps=_steps(res.spec, variant, have, objective), agents=res.fingerprints(variant, have, objective))


def _heuristic_beats_agents(res: _Results, claim_id, claim, paper_value, variant, baseline, metric, rate, objective):
    ref = res.mean(variant, baseline, metric, rate)
    algos = res.spec["variants"].get(variant, {}).get("algos", [])
    vals = {a: res.mean(variant, a, metric, rate, objective) for a in algos}
    vals = {a: v for a, v in vals.items() if v is not None}
    if ref is None or not vals:
        return _missing(claim_id, claim, paper_value, f"agents of {variant}")
    best = min(vals, key=vals.get)
    ours = f"{dl.label(baseline)} {_fmt(ref)} vs best agent {dl.label(best)} {_fmt(vals[best])}"
    groups = res.per_seed(variant, best, metric, rate, objective)
    base = res.per_seed(variant, baseline, metric, rate)
    gap, lo, hi = _paired_gap(res, groups, base)  # best agent vs the heuristic: > 0 = the heuristic wins
    result = guard_win("reproduced" if _beats(ref, vals[best]) else "not reproduced", lo, hi)
    return _row(claim_id, claim, paper_value, ours, result,
                f"a tie within {MARGIN:.0%} is not a win; CI: best agent's gap to {dl.label(baseline)} "
                f"(two-level bootstrap, paired on job sets; {_seeds_episodes(groups)}); a win whose CI spans 0 "
                f"is at most partly reproduced" + res.load(variant, rate),
                ci95=f"{dl.label(best)} vs {dl.label(baseline)} {format_ci(gap, lo, hi, percent=True)}",
                value=vals[best] / ref - 1, noise=(hi - lo) / 2,
                label=f"{claim_id}: best agent's gap to {dl.label(baseline)}", steps=_steps(res.spec, variant, vals, objective),
                agents=res.fingerprints(variant, vals, objective))


def _high_load(res: _Results, claim_id, variant) -> dict:
    """Above the report's "110%" (rates above ``withheld_rate``), does the best agent beat SJF and
    Packer at every rate? Rates, not our load numbers, match the report's axis in both phases: its
    phase-1 load formula is not given and the phase-1 job model has less demand per job."""
    threshold = res.spec["eval"]["withheld_rate"]
    claim = f"{variant}: the best agent beats SJF and Packer on slowdown at every rate above {threshold:g} (110%)"
    paper_value = "agents better above 110% load"
    frame = res.episodes(variant)
    if frame is None:
        return _missing(claim_id, claim, paper_value, variant)
    agents = frame[(frame["objective"] == "slowdown") & ~frame["algo"].isin(dl.BASELINES)]
    heur = frame[frame["algo"].isin(["sjf", "packer"])]
    high = sorted({float(r) for r in frame["rate"] if r > threshold + 1e-9})
    if agents.empty or heur.empty or not high:
        return _missing(claim_id, claim, paper_value, f"rates above {threshold:g} or agents in {variant}")
    wins, parts = 0, []
    for rate in high:
        best = agents[np.isclose(agents["rate"], rate)].groupby("algo")["mean_slowdown"].mean().min()
        ref = heur[np.isclose(heur["rate"], rate)].groupby("algo")["mean_slowdown"].mean().min()
        load = float(frame.loc[np.isclose(frame["rate"], rate), "load"].iloc[0])
        wins += _beats(best, ref)
        parts.append(f"rate {rate:g} (load {load:.0%}): {_fmt(best)} vs {_fmt(ref)}")
    result = "reproduced" if wins == len(high) else "partly reproduced" if wins else "not reproduced"
    return _row(claim_id, claim, paper_value, "; ".join(parts), result,
                "best slowdown-trained agent vs best of SJF/Packer, mean slowdown",
                agents=res.fingerprints(variant, sorted(set(agents["algo"])), "slowdown"))


def _withheld(res: _Results, claim_id, variant, algo) -> dict:
    claim = f"{variant}: {dl.label(algo)} withholds mostly long jobs (length >= 10) at 110% load"
    paper_value = "mostly jobs of length >= 10"
    jobs = res.jobs(variant, algo)
    if jobs is None:
        return _missing(claim_id, claim, paper_value, f"{dl.label(algo)} in {variant}")
    jobs = de.at_rate(jobs, res.spec["eval"]["withheld_rate"])
    held = jobs[jobs["withheld"].astype(bool)]
    long_len = int(VALUES["withheld_long"])
    long_generated = float((jobs["length"] >= long_len).mean()) if len(jobs) else float("nan")
    prints = res.fingerprints(variant, [algo], "slowdown")
    if held.empty:
        return _row(claim_id, claim, paper_value, "no job withheld", "not reproduced",
                    "the agent is work-conserving on these job sets", agents=prints)
    share = float((held["length"] >= long_len).mean())
    over = share > 1.5 * long_generated
    result = "reproduced" if share > 0.5 else "partly reproduced" if over else "not reproduced"
    note = (f"long = length >= {long_len}; partly = long jobs at least 1.5x over-represented among withheld "
            "jobs, but not a majority")
    if len(held) < 20:
        note += f"; only {len(held)} withheld jobs: weak evidence"
    return _row(claim_id, claim, paper_value,
                f"{share:.0%} of {len(held)} withheld jobs are long (long jobs are {long_generated:.0%} of all)",
                result, note, agents=prints)


def _versus_deeprm(res: _Results, claim_id, variant, agents) -> dict:
    """Report §5.1.2/§5.2.2: SB3 agents trained at 130% "almost performed similarly" to the DeepRM
    agent of Mao et al. (trained at every load) at 130%, with larger differences at other loads.
    Verdict at the box rate: each agent's mean slowdown within REL_TOL of our DeepRM agent's (trained
    at that rate); the other configured rates above it are listed for information."""
    box = res.spec["eval"]["box_rate"]
    names = " and ".join(dl.label(a) for a in agents)
    claim = (f"{variant}: trained at 130%, {names} perform almost like the DeepRM agent of Mao et al. "
             "(trained at every load) at 130% load")
    paper_value = "almost similar at 130%"
    agent = res.spec.get("deeprm_agent")
    if not agent:
        return _missing(claim_id, claim, paper_value, "the DeepRM agent (deeprm.deeprm_agent)")
    try:
        frame = res.deeprm_agent()
    except InputFileError:
        frame = None
    if frame is None or frame.empty:
        return _missing(claim_id, claim, paper_value, "the DeepRM agent's evaluation")
    rates = sorted({float(r) for r in frame["rate"] if r >= box - 1e-9})
    if not any(np.isclose(r, box) for r in rates):
        return _missing(claim_id, claim, paper_value, f"the DeepRM agent at rate {box:g}")
    parts, close = [], 0
    have = {}
    for rate in rates:
        ref = float(frame.loc[np.isclose(frame["rate"], rate), "mean_slowdown"].mean())
        vals = {a: res.mean(variant, a, "mean_slowdown", rate, "slowdown") for a in agents}
        vals = {a: v for a, v in vals.items() if v is not None}
        if np.isclose(rate, box):
            have = vals
            close = sum(abs(v - ref) <= REL_TOL * ref for v in vals.values())
        parts.append(f"rate {rate:g}: DeepRM agent {_fmt(ref)} vs " +
                     (", ".join(f"{dl.label(a)} {_fmt(v)}" for a, v in vals.items()) or "no agents"))
    if not have:
        return _missing(claim_id, claim, paper_value, f"{names} in {variant}")
    result = "reproduced" if close == len(agents) else "partly reproduced" if close else "not reproduced"
    where = "" if agent["variant"] == variant else f"; the DeepRM agent acts in {agent['variant']}"
    note = (f"mean slowdown; within {int(REL_TOL * 100)}% of the DeepRM agent at rate {box:g} counts as similar; "
            f"our DeepRM agent: {dt.deeprm_agent_iterations(res.spec, box)} iterations x {agent['jobsets']} job sets x "
            f"{agent['trajectories']} trajectories{where}")
    if len(have) < len(agents):
        note = "only " + ", ".join(dl.label(a) for a in have) + " trained at this scale; " + note
    ref_groups = res.per_seed(variant, dl.DEEPRM_AGENT, "mean_slowdown", box, frame=frame)
    cis = {a: bootstrap_diff(res.per_seed(variant, a, "mean_slowdown", box, "slowdown"), ref_groups, relative=True)
           for a in have}
    ci = "; ".join(f"{dl.label(a)} vs DeepRM agent {format_ci(*c, percent=True)}" for a, c in cis.items())
    note += (f"; CI: relative difference at rate {box:g} (two-level bootstrap, unpaired: the DeepRM agent "
             f"is evaluated held out; {_seeds_episodes(ref_groups)} for it)")
    ref = float(frame.loc[np.isclose(frame["rate"], box), "mean_slowdown"].mean())
    return _row(claim_id, claim, paper_value, "; ".join(parts), result, note + res.load(variant, box), ci95=ci,
                value=max(abs(v / ref - 1) for v in have.values()), paper=0.0, band=(0.0, REL_TOL),
                label=f"{claim_id}: largest |gap| to the DeepRM agent", steps=_steps(res.spec, variant, have, "slowdown"),
                agents=res.fingerprints(variant, have, "slowdown"))


def claims_rows(spec: dict, root, budget: list[dict] | None = None) -> list[dict]:
    """Every claim under each protocol (ids ``<claim>@<protocol>``), then the ``finding-`` rows.

    With ``budget`` (a list, filled here with the rows of ``claims_budget.csv``) every RL claim with
    a number is recomputed from the agents' checkpoints at 1/8, 1/4 and 1/2 of their training
    (``dl.budget_path`` files) and its row gains ``at_budgets``, ``trend`` and ``converged``."""
    rows = []
    for protocol in dl.PROTOCOLS:
        final = _protocol_rows(spec, root, protocol)
        if budget is not None:
            final = _with_budgets(spec, root, protocol, final, budget)
        final = _with_authors(spec, root, protocol, final)
        rows += _protocol_ids(final, protocol)
    findings = _findings(spec, root)
    for row in findings:
        if row["claim_id"] == "finding-insample-gap":
            texts = [f"{p}: {t}" for p, t in ((p, _authors_text(spec, root, p, AUTHORS_CLAIMS["d2-rl-beats-sjf"][:1],
                                                                "mean_slowdown")) for p in ("report", "heldout")) if t]
            if texts:
                row["note"] = f"{row['note']}; the authors' agent, " + "; ".join(texts)
    rows += findings + _greedy_findings(spec, root)
    refs = {ref: _reference_verdicts(spec, root, ref) for ref in dl.REFERENCES}
    for row in rows:
        row.pop("_budget", None)
        agents = row.pop("_agents", None)
        if agents is None or row["verdict"] == "not comparable":
            continue  # not a claim about trained agents (or none here): no references
        plays = _plays_as(agents)
        row.update(reference_fields(row["verdict"], refs["random"].get(row["claim_id"], ""),
                                    refs["untrained"].get(row["claim_id"], ""), plays))
        if plays:
            row["note"] = f"{row['note']}; {plays}".lstrip("; ")
    return rows


# claims (base ids) about an agent the report's authors published: (variant, authors' agent) pairs
# whose values under the same protocol go into the claim's note (issue 40)
AUTHORS_CLAIMS = {
    "d2-a2c-slowdown": [("discrete-image", "a2c-slowdown")],
    "d2-rl-beats-sjf": [("discrete-image", "a2c-slowdown"), ("discrete-image", "ppo-slowdown")],
    "d2-a2c-completion": [("discrete-image", "a2c-completion_time")],
    "mb2-rl-beats-sjf": [("multibinary-image", "a2c-slowdown"), ("multibinary-image", "ppo-slowdown")],
    "deeprm-agent": [("discrete-image", f"{dl.DEEPRM_AGENT}-slowdown")],
}


def _authors_text(spec: dict, root, protocol: str, pairs, metric: str) -> str:
    """"authors' A2C (slowdown) 3.87 vs SJF 4.93" for the authors' agents of ``pairs`` that were
    played (at the box rate under ``protocol``); "" when none was."""
    have = {(v, n) for v, n, _ in dl.authors_runs(spec)}
    rate = spec["eval"]["box_rate"]
    parts = []
    for variant, name in pairs:
        if (variant, name) not in have:
            continue
        frame = de.at_rate(dr.authors_episodes(spec, root, variant, protocol), rate)
        algo, _, objective = name.partition("-")
        part = frame[(frame["algo"] == dl.AUTHORS_PREFIX + algo) & (frame["objective"] == objective)]
        sjf = de.at_rate(de.read_csv(dl.eval_paths(dl.baseline_dir(root, variant, "sjf"), protocol)["episodes"]), rate)
        if len(part):
            parts.append(f"{dr.authors_label(name)} {_fmt(float(part[metric].mean()))} vs SJF "
                         f"{_fmt(float(sjf[metric].mean()))}" + (" (multi-binary)" if variant.startswith("multi") else ""))
    return "; ".join(parts)


def _with_authors(spec: dict, root, protocol: str, final: list[dict]) -> list[dict]:
    """Claims about an agent the authors published get its value under the same protocol in the note
    ("the authors' agent": their model played in our env, SB2's integer cast applied)."""
    if not dl.authors_runs(spec):
        return final
    out = []
    for row in final:
        pairs = AUTHORS_CLAIMS.get(row["claim_id"])
        if pairs:
            metric = "mean_completion_time" if "completion" in row["claim_id"] else "mean_slowdown"
            text = _authors_text(spec, root, protocol, pairs, metric)
            if text:
                row = {**row, "note": f"{row['note']}; the authors' agent: {text}".lstrip("; ")}
        out.append(row)
    return out


def _protocol_ids(final: list[dict], protocol: str) -> list[dict]:
    """Rows of one protocol with ids ``<claim>@<protocol>`` (the two protocol-free rows once)."""
    out = []
    for row in final:
        if row["claim_id"] not in ("acktr", "algorithms"):
            row = {**row, "claim_id": f"{row['claim_id']}@{protocol}", "claim": f"{row['claim']} [{protocol}]"}
        elif protocol != dl.PROTOCOLS[0]:
            continue
        out.append(row)
    return out


def _reference_verdicts(spec: dict, root, reference: str) -> dict[str, str]:
    """{claim id: verdict} of every claim computed with the agents replaced by ``reference``; {}
    when its evaluations are missing (the claims then carry no reference)."""
    try:
        rows = []
        for protocol in dl.PROTOCOLS:
            rows += _protocol_ids(_protocol_rows(spec, root, protocol, _Results(spec, root, protocol,
                                                                                  reference=reference)), protocol)
        rows += _findings(spec, root, reference) + _greedy_findings(spec, root, reference)
    except InputFileError as exc:
        print(f"deeprm claims: no {reference} reference ({exc})")
        return {}
    return {r["claim_id"]: r["verdict"] for r in rows}


def _plays_as(paths: list[str]) -> str:
    """The pickers the claim's agents follow on >= 95% of their contested decisions, from their
    fingerprints ("" when none does; each agent named when the claim rests on several)."""
    prints = [json.loads(Path(p).read_text()) for p in paths if Path(p).is_file()]
    hits = [(fp.get("agent", ""), describe(fp)) for fp in prints]
    hits = [(who, text) for who, text in hits if text]
    if not hits:
        return ""
    if len(prints) == 1:
        return hits[0][1]
    return "; ".join(f"{who} {text}" for who, text in hits)


def _with_budgets(spec: dict, root, protocol: str, final: list[dict], out: list[dict]) -> list[dict]:
    """``final``'s RL rows with their values at every budget share (and the long rows into ``out``).
    The x axis is the claim's SB3 agents' env steps at each share (their run steps x share; DeepRM's own
    agent is at the same share of its iterations)."""
    earlier = {}
    for fraction in BUDGET_FRACTIONS[:-1]:
        try:
            part = _protocol_rows(spec, root, protocol, _Results(spec, root, protocol, fraction))
        except InputFileError:
            continue  # budget evaluations missing: the claims stay without budgets
        earlier[fraction] = {r["claim_id"]: r.get("_budget", {}).get("value") for r in part}
    rows = []
    for row in final:
        info = row.get("_budget")
        if info is None:
            rows.append(row)
            continue
        fractions = [f for f in BUDGET_FRACTIONS[:-1] if earlier.get(f, {}).get(row["claim_id"]) is not None]
        if len(fractions) < 2:
            rows.append(row)
            continue
        values = [earlier[f][row["claim_id"]] for f in fractions] + [info["value"]]
        fractions.append(1.0)
        paper, band = info["paper"], info["band"]
        # flat = the last doubling moved less than the final value's 95% CI half-width where the claim
        # has one, else half its tolerance (schedrl.report.convergence)
        noise = info["noise"]
        if noise is None or not np.isfinite(noise):
            noise = flat_noise(paper, abs_tol=0.5 * (band[1] - band[0])) if band else 0.05 * abs(values[-1])
        steps = float(info["steps"] or spec["train"]["steps"])
        fields, long_rows = budget_fields(PAPER, f"{row['claim_id']}@{protocol}", [f * steps for f in fractions],
                                          values, paper, unit="env steps", noise=noise,
                                          label=f"{info['label']} [{protocol}]", band=band, fractions=fractions)
        out += long_rows
        rows.append({**row, **fields})
    return rows


def _findings(spec: dict, root, reference: str | None = None) -> list[dict]:
    """In-sample vs held-out gap and starvation (discrete phase 2, A2C trained for slowdown)."""
    variant, algo, rate = "discrete-image", "a2c", spec["eval"]["box_rate"]
    held = _Results(spec, root, "heldout", reference=reference)
    rep = _Results(spec, root, "report", reference=reference)
    if variant not in spec["variants"] or algo not in spec["variants"][variant]["algos"]:
        return [_missing("finding-insample-gap", "RL beats SJF in-sample but not held out", "", "A2C"),
                _missing("finding-starvation", "Agents never place some long jobs", "", "A2C")]
    vals = {}
    for name, res in (("report", rep), ("heldout", held)):
        frame = res.episodes(variant)
        sel = frame[np.isclose(frame["rate"], rate)]
        for who, part in ((algo, sel[(sel["algo"] == algo) & (sel["objective"] == "slowdown")]),
                          ("sjf", sel[sel["algo"] == "sjf"])):
            vals[name, who, "placed"] = float(part["mean_slowdown_placed"].mean())
            vals[name, who, "all"] = float(part["mean_slowdown_all"].mean())
            vals[name, who, "never"] = float(part["n_never_placed"].mean())
            vals[name, who, "lengths"] = de.never_placed_lengths(part["never_placed_lengths"])
    ins = vals["report", algo, "placed"] / vals["report", "sjf", "placed"]
    out_all = vals["heldout", algo, "all"] / vals["heldout", "sjf", "all"]
    out_placed = vals["heldout", algo, "placed"] / vals["heldout", "sjf", "placed"]
    gap = (f"A2C/SJF slowdown ratio: in-sample placed-only {ins:.2f} ({_fmt(vals['report', algo, 'placed'])} vs "
           f"{_fmt(vals['report', 'sjf', 'placed'])}); held-out placed-only {out_placed:.2f}; held-out all jobs "
           f"{out_all:.2f} ({_fmt(vals['heldout', algo, 'all'])} vs {_fmt(vals['heldout', 'sjf', 'all'])})")
    never = vals["heldout", algo, "never"]
    lengths = vals["heldout", algo, "lengths"]
    long_share = float(np.mean([n >= 10 for n in lengths])) if lengths else 0.0
    starve = (f"A2C never places {never:.2f} jobs per held-out episode ({long_share:.0%} of them of length >= 10); "
              f"slowdown all jobs {_fmt(vals['heldout', algo, 'all'])} vs placed only "
              f"{_fmt(vals['heldout', algo, 'placed'])}; SJF never places {vals['heldout', 'sjf', 'never']:.2f}")
    return [
        _row("finding-insample-gap", "Discrete phase 2, rate 0.7: A2C's advantage over SJF measured in-sample "
             "(report protocol) shrinks or vanishes on held-out job sets", "RL beats SJF (report, in-sample)", gap,
             "reproduced" if out_all > ins else "not reproduced",
             "reproduced = the A2C/SJF ratio is worse held out (all jobs) than in-sample; our finding, not the "
             "report's claim", agents=held.fingerprints(variant, [algo]) + rep.fingerprints(variant, [algo])),
        _row("finding-starvation", "Discrete phase 2, rate 0.7: agents withhold long jobs for good, which "
             "placed-only counting hides", "report §5.1.2: agents withhold large jobs", starve,
             "reproduced" if never > 0 and long_share >= 0.5 else "not reproduced",
             "held-out protocol, episodes run until every job finished (cap "
             f"{spec['eval'].get('episode_max_length', 2000)}); never-placed jobs count with their slowdown so far",
             agents=held.fingerprints(variant, [algo])),
    ]


def _greedy_findings(spec: dict, root, reference: str | None = None) -> list[dict]:
    """Held-out at the box rate, every job counted: does the agent beat SJF with sampled actions
    and with greedy ones? One row for A2C (discrete phase 2, trained for slowdown) and one for
    DeepRM's own agent (at its own training rate), when configured."""
    variant, rate = "discrete-image", float(spec["eval"]["box_rate"])
    held, greedy = _Results(spec, root, "heldout", reference=reference), _Results(spec, root, dl.GREEDY, reference=reference)
    sjf = held.episodes(variant) if variant in spec["variants"] else None
    claim = "Held-out job sets at rate {rate:g}, every job counted: {who} beats SJF with sampled and with greedy actions"
    rows = []
    candidates = [("a2c", "finding-greedy-a2c")]
    agent = spec.get("deeprm_agent")
    if agent and agent["variant"] == variant and any(np.isclose(rate, r) for r in agent["rates"]):
        candidates.append((dl.DEEPRM_AGENT, "finding-greedy-deeprm_pg"))
    for algo, claim_id in candidates:
        text = claim.format(rate=rate, who=dl.label(algo))
        if sjf is None or (algo != dl.DEEPRM_AGENT and algo not in spec["variants"][variant]["algos"]):
            rows.append(_missing(claim_id, text, "", f"{dl.label(algo)} in {variant}"))
            continue
        if algo == dl.DEEPRM_AGENT:
            frames = {m: de.deeprm_agent_episodes(spec, root, p, reference)
                      for m, p in (("sampled", "heldout"), ("greedy", dl.GREEDY))}
            prints = [dl.fingerprint_path(dl.deeprm_agent_dir(root, agent["variant"], r, s), p)
                      for p in ("heldout", dl.GREEDY) for r, s in dl.deeprm_agent_runs(spec) if np.isclose(r, rate)]
        else:
            frames = {"sampled": held.episodes(variant), "greedy": greedy.episodes(variant)}
            prints = held.fingerprints(variant, [algo]) + greedy.fingerprints(variant, [algo])
        frames["SJF"] = sjf
        vals = {}
        for mode, frame in frames.items():
            sel = frame[np.isclose(frame["rate"], rate) & (frame["algo"] == ("sjf" if mode == "SJF" else algo))]
            if algo != dl.DEEPRM_AGENT and mode != "SJF":
                sel = sel[sel["objective"] == "slowdown"]
            vals[mode] = {k: float(sel[c].mean()) for k, c in
                          (("all", "mean_slowdown_all"), ("placed", "mean_slowdown_placed"), ("never", "n_never_placed"))}
        wins = [m for m in ("sampled", "greedy") if _beats(vals[m]["all"], vals["SJF"]["all"])]
        ours = "; ".join(f"{m}: all jobs {_fmt(v['all'])}, placed only {_fmt(v['placed'])}, "
                         f"{v['never']:.2f} never placed per episode" for m, v in vals.items())
        verdict_ = "reproduced" if len(wins) == 2 else "partly reproduced" if wins else "not reproduced"
        rows.append(_row(claim_id, text, "report: RL beats SJF at 130% (sampled actions, in-sample)", ours, verdict_,
                         "our finding, not the report's claim: reproduced = beats SJF (mean slowdown over every "
                         f"job, margin {MARGIN:.0%}) both ways, partly = one way only ({', '.join(wins) or 'neither'}); "
                         f"{spec['eval']['episodes']} held-out job sets, episodes run until every job finished "
                         f"(cap {spec['eval'].get('episode_max_length', 2000)})", agents=prints))
    return rows


def _protocol_rows(spec: dict, root, protocol: str, res: _Results | None = None) -> list[dict]:
    res = _Results(spec, root, protocol) if res is None else res
    box = spec["eval"]["box_rate"]
    sd, ct = "mean_slowdown", "mean_completion_time"
    rows = [
        _numeric(res, "d2-a2c-slowdown", "Discrete phase 2, 130% load: A2C mean slowdown",
                 "discrete-image", "a2c", sd, box, "slowdown"),
        _numeric(res, "d2-trpo-slowdown", "Discrete phase 2, 130% load: TRPO mean slowdown",
                 "discrete-image", "trpo", sd, box, "slowdown"),
        _numeric(res, "d2-sjf-slowdown", "Discrete phase 2, 130% load: SJF mean slowdown",
                 "discrete-image", "sjf", sd, box, None),
        _better(res, "d2-rl-beats-sjf", "Discrete phase 2, 130% load: A2C and TRPO beat SJF on slowdown",
                "3.9 and 4.0 vs 4.9", "discrete-image", ["a2c", "trpo"], "sjf", sd, box, "slowdown"),
        _numeric(res, "d2-a2c-completion", "Discrete phase 2, 130% load: A2C mean completion time",
                 "discrete-image", "a2c", ct, box, "completion_time"),
        _numeric(res, "d2-trpo-completion", "Discrete phase 2, 130% load: TRPO mean completion time",
                 "discrete-image", "trpo", ct, box, "completion_time"),
        _numeric(res, "d2-sjf-completion", "Discrete phase 2, 130% load: SJF mean completion time",
                 "discrete-image", "sjf", ct, box, None),
        _numeric(res, "d1-sjf-slowdown", "Discrete phase 1, 130% load: SJF mean slowdown",
                 "discrete-stacked", "sjf", sd, box, None),
        _numeric(res, "d1-dqn-slowdown", "Discrete phase 1, 130% load: DQN mean slowdown",
                 "discrete-stacked", "dqn", sd, box, "slowdown"),
        _heuristic_beats_agents(res, "d1-sjf-beats-agents", "Discrete phase 1, 130% load: SJF beats every agent "
                                "on slowdown", "SJF 2.9 vs best agent DQN 3.8", "discrete-stacked", "sjf", sd, box,
                                "slowdown"),
        _heuristic_beats_agents(res, "d1-sjf-beats-agents-ct", "Discrete phase 1, 130% load: SJF beats every agent "
                                "on completion time", "SJF ~8 vs best agent DQN ~10", "discrete-stacked", "sjf", ct,
                                box, "completion_time"),
        _better(res, "mb1-a2c-beats-heuristics", "Multi-binary phase 1, 130% load: A2C (slowdown) beats SJF on "
                "slowdown", "A2C best of all", "multibinary-stacked", ["a2c"], "sjf", sd, box, "slowdown"),
        _better(res, "mb2-rl-beats-sjf", "Multi-binary phase 2, 130% load: A2C and PPO beat SJF on slowdown",
                "agents below SJF, Packer, Random", "multibinary-image", ["a2c", "ppo"], "sjf", sd, box, "slowdown"),
        _high_load(res, "d2-high-load", "discrete-image"),
        _high_load(res, "mb1-high-load", "multibinary-stacked"),
        _high_load(res, "mb2-high-load", "multibinary-image"),
        _withheld(res, "d2-withheld-a2c", "discrete-image", "a2c"),
        _withheld(res, "mb1-withheld-a2c", "multibinary-stacked", "a2c"),
        _withheld(res, "mb2-withheld-a2c", "multibinary-image", "a2c"),
        _withheld(res, "mb2-withheld-ppo", "multibinary-image", "ppo"),
        _versus_deeprm(res, "deeprm-agent", "discrete-image", ["a2c", "trpo"]),
        _versus_deeprm(res, "deeprm-agent-mb", "multibinary-image", ["a2c", "ppo"]),
        _row("acktr", "ACKTR was imported but not evaluated; it has no stable-baselines3/sb3-contrib "
             "implementation", "not evaluated", "n/a", "not comparable",
             "ACKTR (Stable-Baselines v2, TensorFlow 1) was never ported to SB3"),
        _row("algorithms", "Agents trained with Stable-Baselines (v2) DQN, A2C, PPO2, TRPO", "SB2 defaults",
             "SB3 DQN/A2C/PPO + sb3-contrib TRPO with SB2 defaults", "not comparable",
             "SB3 DQN has no double/dueling Q and actor/critic no longer share layers"),
    ]
    return rows
