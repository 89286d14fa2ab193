"""The README's opening figure (issue 68): ``schedrl.report.front`` picks, per paper, the best
agent of each recorded scale (most seeds first, then IQM) and the references of the scale whose
agent leads, falling back to another scale only for a role the leading scale lacks."""

from __future__ import annotations

import pandas as pd

from schedrl.report.front import FRONT_COLUMNS, front_csv, front_rows, front_table, reference_scale


def _row(scale, player, role, seeds, iqm, lo=None, hi=None):
    return {"paper": "p", "scale": scale, "player": player, "role": role, "seeds": seeds, "workloads": 3,
            "iqm": iqm, "iqm_lo": iqm if lo is None else lo, "iqm_hi": iqm if hi is None else hi,
            "p_beats_best_heuristic": 0.0,  # the tuned runs recorded their recipe's learning probe
            "recipe_probe": "passed (gain +60%, +55% on seeds 0, 1)" if scale == "tuned" else ""}


PLAYERS = pd.DataFrame([
    _row("default", "A2C", "agent", 2, 0.3, 0.1, 0.5),
    _row("default", "untrained A2C", "untrained", 2, -0.5),
    _row("default", "uniform over all actions", "uniform", 1, -1.0),
    _row("paper-budget", "A2C", "agent", 1, 0.9),  # one seed: stands only where no agent has more
    _row("paper-budget", "authors' A2C", "authors", 1, 0.7),
    _row("tuned", "MaskablePPO", "agent", 3, 0.4, 0.35, 0.45),
    _row("tuned", "PPO", "agent", 3, 0.2, 0.1, 0.3),
    _row("tuned", "PPO one seed", "agent", 1, 5.0),
    _row("tuned", "untrained PPO", "untrained", 3, -0.2),
    _row("tuned", "untrained MaskablePPO", "untrained", 3, 0.1),
    _row("tuned", "SJF", "heuristic", 1, 1.0),
    _row("tuned", "report's DQN (placed)", "authors", 0, float("nan")),
])


def test_best_agent_per_scale_then_the_leading_scales_references():
    rows = front_rows("p", PLAYERS)
    assert list(rows.columns) == FRONT_COLUMNS
    assert list(rows["row"]) == ["ours, default: A2C", "ours, paper budget: A2C", "ours, tuned: MaskablePPO",
                                 "authors' A2C", "untrained MaskablePPO", "uniform over all actions"]
    # the tuned agent (3 seeds) leads: its scale's strongest untrained network; the paper's agent and
    # uniform play come from the scales that have them; an unscored placement is left out
    assert list(rows["scale"]) == ["default", "paper-budget", "tuned", "paper-budget", "tuned", "default"]
    verdicts = dict(zip(rows["row"], rows["verdict"]))
    assert verdicts["ours, tuned: MaskablePPO"] == "above random valid play, below the best heuristic"
    assert "not a verdict" in verdicts["ours, paper budget: A2C"] and verdicts["authors' A2C"] == ""
    # made-up paper p's own recipes are in no config/recipe-probes.csv: a verdict on them says so
    assert verdicts["ours, default: A2C"] == "above random valid play, below the best heuristic (trainer not probed)"


def test_reference_scale_prefers_the_most_seeded_trained_agent():
    agents = {"default": pd.Series({"seeds": 5, "iqm": 2.0}), "paper-budget": pd.Series({"seeds": 1, "iqm": 0.9}),
              "tuned": pd.Series({"seeds": 3, "iqm": 0.1})}
    assert reference_scale(agents) == "tuned"
    assert reference_scale({"default": agents["default"]}) == "default" and reference_scale({}) is None


def test_a_paper_without_scores_has_one_row_saying_so():
    table = front_table({"p": PLAYERS, "q": PLAYERS.iloc[:0]})
    q = table[table["paper"] == "q"]
    assert len(q) == 1 and q["role"].iloc[0] == "none" and q["row"].iloc[0] == "no normalised score recorded yet"
    text = front_csv(table)
    assert text.splitlines()[0] == ",".join(FRONT_COLUMNS) and text.endswith("\n") and "\r" not in text


def test_the_figure_draws_points_off_its_range_at_the_edge(tmp_path):
    from schedrl.plots.normalised import FRONT_XLIM, front_figure

    far = PLAYERS.assign(iqm=PLAYERS["iqm"].where(PLAYERS["role"] != "uniform", FRONT_XLIM[0] - 20))
    png = front_figure(front_table({"p": far, "q": PLAYERS.iloc[:0]}), tmp_path / "front.png")
    assert png.is_file() and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
