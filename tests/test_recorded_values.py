"""docs/where-rl-stands.md: the README figure's agents taken apart per workload and seed, from the
records alone (pooled per scale and scored on the pooled anchors, as the figure's aggregate is)."""

from __future__ import annotations

import pandas as pd

from schedrl.report.normalised import long_rows, scores
from schedrl.report.recorded_values import agent_rows, values_block


def _recorded(rows, run, scale="paper-budget"):
    frame = scores(pd.DataFrame(rows).assign(placed_from=""))
    return frame.assign(run=run, scale=scale, recipe="")


def _runs():
    # two seeds recorded as two runs; "w 2" is degenerate (random valid play beats the heuristic)
    def rows(seed, agent):
        out = []
        for w, rand, heur, mine in (("w 10", 10.0, 4.0, agent), ("w 2", 3.0, 5.0, 2.0)):
            out += [long_rows("p", w, "random valid", "random", seed, "slowdown", "lower", rand),
                    long_rows("p", w, "SJF", "heuristic", -1, "slowdown", "lower", heur),
                    long_rows("p", w, "PPO", "agent", seed, "slowdown", "lower", mine)]
        # the network PPO started from, on one workload; "untrained P" is no network of "PPO"'s name
        out += [long_rows("p", "w 10", "untrained PPO", "untrained", seed, "slowdown", "lower", 8.0 + seed),
                long_rows("p", "w 10", "untrained P", "untrained", seed, "slowdown", "lower", 1.0)]
        return out

    return pd.concat([_recorded(rows(0, 7.0), "r0"), _recorded(rows(1, 4.0), "r1")], ignore_index=True)


def test_each_workload_shows_the_anchors_and_each_seeds_value_and_score():
    header, rows = agent_rows(_runs(), "paper-budget", "PPO")
    assert header[3:] == ["uniform play", "untrained network", "seed 0: value (normalised)",
                          "seed 1: value (normalised)", "normalised, mean"]
    assert [r[0] for r in rows] == ["w 2 (slowdown, lower)", "w 10 (slowdown, lower)"]  # numbers sort as numbers
    degenerate, scaled = rows
    assert scaled[1:] == ["SJF: 4.000 (60.0% better than random)", "10.000", "-", "8.500", "7.000 (+0.50)",
                          "4.000 (+1.00)", "+0.75"]  # the untrained network's mean over its seeds
    assert degenerate[1] == "SJF: 5.000 (66.7% worse than random)"
    assert degenerate[4] == "-" and degenerate[5] == "2.000 (no scale)" and degenerate[-1].startswith("no scale (")


def test_the_block_names_each_agent_of_the_figure_and_says_where_values_were_not_recorded():
    front = pd.DataFrame([
        {"paper": "p", "scale": "paper-budget", "player": "PPO", "role": "agent", "iqm": 0.75, "runs": "r0; r1"},
        {"paper": "q", "scale": "default", "player": "DFP", "role": "agent", "iqm": -0.1, "runs": "old"},
        {"paper": "p", "scale": "paper-budget", "player": "untrained PPO", "role": "untrained", "iqm": 0.0,
         "runs": "r0"}])
    block = values_block(front, {"p": _runs(), "q": None})
    assert "### `p`, paper budget: PPO (IQM 0.75; r0; r1)" in block and "| w 10 (slowdown, lower) |" in block
    assert "### `q`, default: DFP" in block and "values per workload are not in the records" in block
    assert "untrained PPO" not in block  # references are rows of the agents' tables, not tables of their own
