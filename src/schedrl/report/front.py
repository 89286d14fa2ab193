"""The README's opening figure, "Where RL stands", drawn from the recorded runs alone (issue 68).

The report's own "Where RL stands" shows every player of one build. The README shows what the
records hold across builds and scales, a few rows per paper, so that a reader sees in one look
whether any agent of any paper beats random valid play (0) or the best heuristic (1):

* **ours**: per scale (default, paper budget, tuned) the best agent of that scale's recorded runs,
  merged over seeds where several runs recorded per-seed scores (``status_tables.recorded_players``;
  the agent with the most seeds, then the highest IQM: ``normalised.best_agent_row``), with its
  headroom words (``normalised.headroom_word``) and, where its trainer fails the learning probe or
  was not probed (``trainer_probe``), that note: then the words are no verdict;
* **references** of the *reference scale* (the scale of the best of the tuned and paper-budget
  agents, else the default), each taken from another scale only where that one has none: the papers'
  own agents (the authors' trained models we play, and the reported numbers placed on our scale),
  the strongest untrained network and uniform play over all actions.

``front_rows`` is the table (``docs/where-rl-stands.csv``, compared with the records by
``schedrl status --check``), each row with the recorded runs it comes from (date and commit);
``schedrl.plots.normalised.front_figure`` draws it.
"""

from __future__ import annotations

import pandas as pd

from schedrl.report.recorded import SCALES

#: the columns of the figure's table, in order
FRONT_COLUMNS = ["paper", "row", "scale", "player", "role", "seeds", "workloads", "iqm", "iqm_lo", "iqm_hi",
                 "p_beats_best_heuristic", "verdict", "runs"]
#: the scales in the order their agents are shown, and their names in the figure
SCALE_NAMES = {"default": "default", "paper-budget": "paper budget", "tuned": "tuned"}
#: the roles of the reference rows under the agents, in this order
REFERENCE_ROLES = ("authors", "untrained", "uniform")
#: decimals kept in the table: the records' values to well under a plotted pixel, the same text on any machine
DECIMALS = 4


def _best_agents(players: pd.DataFrame) -> dict[str, pd.Series]:
    from schedrl.report.normalised import best_agent_row

    found = {}
    for scale in SCALES:
        row = best_agent_row(players[players["scale"] == scale])
        if row is not None:
            found[scale] = row
    return found


def reference_scale(agents: dict[str, pd.Series]) -> str | None:
    """The scale whose references stand beside the agents: that of the best tuned or paper-budget
    agent (most seeds, then IQM), else the default's."""
    from schedrl.report.status_tables import most_seeds

    trained = most_seeds([(s, r) for s, r in agents.items() if s != "default"])
    if trained:
        return trained[0]
    return "default" if "default" in agents else None


def _references(players: pd.DataFrame, scale: str | None) -> list[pd.Series]:
    rows = []
    scored = players[players["iqm"].notna() & (players["seeds"] > 0)]
    for role in REFERENCE_ROLES:
        of_role = scored[scored["role"] == role]
        if of_role.empty:
            continue
        here = of_role[of_role["scale"] == scale]
        if here.empty:  # the last scale that has this role
            here = of_role[of_role["scale"] == [s for s in SCALES if s in set(of_role["scale"])][-1]]
        if role == "untrained":  # the strongest no-learning network
            here = here.sort_values("iqm", ascending=False, kind="stable").iloc[:1]
        elif role == "uniform":
            here = here.iloc[:1]
        rows.extend(r for _, r in here.iterrows())
    return rows


def trainer_probe(paper: str, players: pd.DataFrame, scale: str, player: str) -> str | None:
    """``recipe_probes.trainer_probe`` of ``player`` at ``scale``, a tuned run's probe read from the
    rows that recorded it."""
    from schedrl.report.normalised import PROBE_COLUMN
    from schedrl.report.recipe_probes import probe_of
    from schedrl.report.recipe_probes import trainer_probe as probe

    tuned = players.loc[players["scale"] == "tuned", PROBE_COLUMN] if PROBE_COLUMN in players else []
    return probe(paper, scale, player, probe_of(tuned) if scale == "tuned" else None)


def front_rows(paper: str, players: pd.DataFrame) -> pd.DataFrame:
    """The figure's rows of one paper from its ``recorded_players`` table: its best agent per scale,
    then the reference scale's papers' agents, strongest untrained network and uniform play; one row
    ``role = "none"`` where the records hold no normalised score."""
    from schedrl.report.normalised import headroom_word
    from schedrl.report.status_tables import probe_note

    agents = _best_agents(players) if len(players) else {}
    out = []
    for scale, r in agents.items():
        note = probe_note(trainer_probe(paper, players, scale, r["player"]))  # a verdict counts where it learns
        out.append({**r.to_dict(), "row": f"ours, {SCALE_NAMES[scale]}: {r['player']}", "scale": scale,
                    "verdict": headroom_word(r) + (f" ({note})" if note else "")})
    for r in _references(players, reference_scale(agents)) if len(players) else []:
        out.append({**r.to_dict(), "row": r["player"], "verdict": ""})
    if not out:
        out.append({"row": "no normalised score recorded yet", "role": "none", "scale": "", "player": "",
                    "seeds": 0, "workloads": 0, "verdict": "", "runs": ""})
    frame = pd.DataFrame(out).reindex(columns=FRONT_COLUMNS)
    frame["paper"] = paper
    for col in ("seeds", "workloads"):
        frame[col] = frame[col].fillna(0).astype(int)
    for col in ("iqm", "iqm_lo", "iqm_hi", "p_beats_best_heuristic"):
        frame[col] = pd.to_numeric(frame[col]).round(DECIMALS)
    return frame


def front_table(players_by_paper: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """Every paper's ``front_rows``, in the given order."""
    return pd.concat([front_rows(p, f) for p, f in players_by_paper.items()], ignore_index=True)


def front_csv(table: pd.DataFrame) -> str:
    """The table as the text of ``docs/where-rl-stands.csv``."""
    return table.to_csv(index=False, lineterminator="\n")
