"""The headroom verdict (issue 69): where the best agent's IQM interval lies on the normalised scale
(random valid play 0, best heuristic 1), by hand, and which agent counts as the best."""

import pandas as pd
import pytest

from schedrl.report.normalised import best_agent_row, headroom_sentences, headroom_word


@pytest.mark.parametrize("lo, hi, word", [
    (1.05, 1.4, "beats the best heuristic"),
    (0.9, 1.2, "level with the best heuristic"),
    (0.2, 0.8, "above random valid play, below the best heuristic"),
    (-0.1, 0.5, "no better than random valid play"),
    (-0.3, -0.1, "below random valid play"),
    (-0.2, 1.3, "undecided (the interval spans random play and the best heuristic)"),
])
def test_headroom_words_by_hand(lo, hi, word):
    assert headroom_word({"iqm_lo": lo, "iqm_hi": hi}) == word


def test_one_seed_gives_no_headroom_verdict():
    """An agent on one seed has no interval over seeds (its bootstrap collapses to the point): its words
    say so, above the best heuristic or below random play alike."""
    for iqm in (1.32, -0.37):
        assert headroom_word({"seeds": 1, "iqm_lo": iqm, "iqm_hi": iqm}) == "one seed, no interval over seeds: not a verdict"
    assert headroom_word(pd.Series({"seeds": 2, "iqm_lo": 1.1, "iqm_hi": 1.3})) == "beats the best heuristic"
    (line,) = headroom_sentences(pd.DataFrame([_row("PPO", "agent", 1, 1.3, 1.3, 1.3, scale="tuned")]),
                                 probes={"runtime": "passed (gain +60%)"})
    assert "not a verdict" in line and "beats" not in line


def _row(player, role, seeds, iqm, lo, hi, scale="paper-budget", paper="runtime"):
    return {"paper": paper, "scale": scale, "player": player, "role": role, "seeds": seeds, "workloads": 2,
            "iqm": iqm, "iqm_lo": lo, "iqm_hi": hi}


def test_the_best_agent_is_the_highest_iqm_among_those_with_the_most_seeds():
    frame = pd.DataFrame([_row("A", "agent", 3, 0.2, 0.1, 0.3), _row("B", "agent", 1, 0.9, 0.9, 0.9),
                          _row("C", "agent", 3, 0.4, 0.2, 0.6), _row("SJF", "heuristic", 1, 1.0, 1.0, 1.0),
                          _row("untrained", "untrained", 3, 0.5, 0.4, 0.6)])
    assert best_agent_row(frame)["player"] == "C"
    assert best_agent_row(frame[frame["role"] != "agent"]) is None


def test_among_candidates_with_as_many_seeds_the_one_over_more_workloads_is_shown():
    """mdp records each scenario-seed apart: the latest run (one scenario) and the runs pooled (every
    scenario recorded) both have one seed; the pooled one stands for the paper, its IQM lower or not."""
    from schedrl.report.status_tables import most_seeds

    one = pd.Series({**_row("PPO", "agent", 1, 0.94, 0.94, 0.94), "workloads": 1})
    pooled = pd.Series({**_row("PPO", "agent", 1, 0.90, 0.90, 0.90), "workloads": 3})
    assert most_seeds([("paper budget", one), ("paper budget (3 runs)", pooled)])[0] == "paper budget (3 runs)"
    more_seeds = pd.Series({**_row("PPO", "agent", 2, 0.5, 0.4, 0.6), "workloads": 1})
    assert most_seeds([("a", pooled), ("b", more_seeds)])[0] == "b"
    assert most_seeds([]) is None


def test_headroom_lines_say_whether_a_tuned_agent_stands_behind_them():
    recipe = pd.DataFrame([_row("PPO", "agent", 3, -0.1, -0.2, 0.05)])
    (line,) = headroom_sentences(recipe)
    assert "no better than random valid play" in line and "no tuned agent yet" in line and "-0.10 [-0.20, 0.05]" in line
    tuned = pd.concat([recipe, pd.DataFrame([_row("PPO tuned", "agent", 3, 1.2, 1.1, 1.3, scale="tuned")])])
    (line,) = headroom_sentences(tuned, probes={"runtime": "passed (gain +60%, +55% on seeds 0, 1)"}, rechecks={})
    assert "PPO tuned" in line and "beats the best heuristic" in line
    assert line.endswith("a tuned agent, its trainer passes the learning probe.")


def test_a_tuned_verdict_needs_a_study_whose_gate_held():
    """A study whose probe gate, rechecked with today's trainers, pruned trials that learn chose its
    recipe among fewer trials than it ran: the tuned line says so and gives no headroom verdict; a
    recheck that found the gate right changes nothing."""
    from schedrl.experiments.tune import GateRecheck

    tuned = pd.DataFrame([_row("PPO tuned", "agent", 3, -0.08, -0.12, -0.01, scale="tuned")])
    passed = {"runtime": "passed (gain +69%, +70% on seeds 0, 1)"}
    (line,) = headroom_sentences(tuned, probes=passed, rechecks={"runtime": GateRecheck(8, 7, "2026-12-07, abc1234")})
    assert "below random valid play" in line and "pruned 7 trial(s) whose trainers pass the probe today" in line
    assert line.endswith("no headroom verdict until the study runs again.")
    (line,) = headroom_sentences(tuned, probes=passed, rechecks={"runtime": GateRecheck(8, 0, "2026-12-07, abc1234")})
    assert line.endswith("its trainer passes the learning probe.")


@pytest.mark.parametrize("probe, clause", [
    ("passed (gain +60%, +55% on seeds 0, 1); trial 3", "its trainer passes the learning probe"),
    ("failed by all 7 trials probed (the best by validation, trial 4, kept)", "fails the learning probe, so this is no headroom verdict"),
    (None, "its trainer not yet through the learning probe"),
])
def test_a_tuned_verdict_counts_only_when_its_trainer_learns(probe, clause):
    """Issue 69 with issue 41: the tuned agent's line says what its recipe's learning probe found
    (the recipe header's line); a trainer that fails it gives no headroom verdict, whichever agent
    is the best."""
    recipe = _row("PPO", "agent", 3, -0.1, -0.2, 0.05)
    for tuned_iqm, who in ((1.2, "a tuned agent, "), (-0.5, "the paper's recipe (the tuned agent scores lower, ")):
        tuned = _row("PPO tuned", "agent", 3, tuned_iqm, tuned_iqm - 0.1, tuned_iqm + 0.1, scale="tuned")
        (line,) = headroom_sentences(pd.DataFrame([recipe, tuned]), probes={"runtime": probe})
        assert who in line and clause in line


def test_a_headroom_line_sets_the_agent_beside_the_untrained_network_of_its_own_scale():
    """The best agent's line says where its untrained network (the same scale's, its name's network)
    stands and whether training moved the agent past it: here 3 seeds below it, apart."""
    rows = pd.DataFrame([_row("PPO", "agent", 3, -0.1, -0.2, 0.05),
                         _row("untrained PPO", "untrained", 3, 0.3, 0.2, 0.4),
                         _row("untrained PPO", "untrained", 3, -0.9, -1.0, -0.8, scale="tuned")])
    (line,) = headroom_sentences(rows)
    assert "IQM -0.10 [-0.20, 0.05]; its untrained network 0.30 [0.20, 0.40]: training lost;" in line
    (line,) = headroom_sentences(rows.iloc[:1])
    assert "untrained" not in line
