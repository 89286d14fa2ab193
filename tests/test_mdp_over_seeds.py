"""mdp's Fig. 4 over the recorded runs, the training seed as the unit (``schedrl.papers.mdp.over_seeds``)."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from schedrl.papers import over_seeds, status_bullets
from schedrl.papers.mdp import layout as ml
from schedrl.papers.mdp.normalised import agent_player
from schedrl.papers.mdp.over_seeds import fig4_claims_over_seeds, fig4_over_seeds, seed_lines

CSR, IMAGE = agent_player(ml.PROPOSED), agent_player(ml.BASE)


def _rows(run: str, scenario: int, seed: int, csr: float, image: float, scale: str = "paper-budget") -> list[dict]:
    base = {"run": run, "scale": scale, "paper": "mdp", "workload": f"scenario {scenario}", "role": "agent",
            "seed": seed}
    return [{**base, "player": CSR, "value": csr}, {**base, "player": IMAGE, "value": image},
            {**base, "player": "SJF", "role": "heuristic", "value": 3.0}]


def _scores() -> pd.DataFrame:
    rows = []
    for seed, (a, b) in enumerate([(2.0, 4.0), (2.2, 4.2), (2.4, 4.4)]):
        rows += _rows(f"s3 seed {seed}", 3, seed, a, b)
    for seed, (a, b) in enumerate([(3.0, 2.0), (3.1, 2.1), (3.2, 2.2)]):
        rows += _rows(f"s6 seed {seed}", 6, seed, a, b)
    rows += _rows("s9 seed 0", 9, 0, 1.5, 1.9)
    rows += _rows("tuned s3", 3, 0, 0.1, 9.0, scale="tuned")  # another scale: left out
    return pd.DataFrame(rows)


def test_welch_over_seeds_hand_worked():
    table = fig4_over_seeds(_scores()).set_index("scenario")
    s3 = table.loc[3]
    assert (s3.seeds_proposed, s3.seeds_base) == (3, 3)
    assert s3.proposed == pytest.approx(2.2) and s3.base == pytest.approx(4.2) and s3["diff"] == pytest.approx(-2.0)
    # sd 0.2 each, n 3: se sqrt(2 * 0.04 / 3) = 0.163299, Welch df 4, t(0.975, 4) = 2.776445
    assert (s3.lo, s3.hi) == pytest.approx((-2.0 - 0.453393, -2.0 + 0.453393), abs=1e-5)
    assert s3.p == pytest.approx(2.5522e-4, rel=1e-3)  # t = -12.247, df 4: 2 * sf(12.247; 4)
    s9 = table.loc[9]
    assert (s9.seeds_proposed, s9["diff"]) == (1, pytest.approx(-0.4))
    assert math.isnan(s9.lo) and math.isnan(s9.p)


def test_claims_over_seeds_follow_the_run_rules():
    claims = {c["claim_id"]: c for c in fig4_claims_over_seeds(fig4_over_seeds(_scores()))}
    # worse in 6 of the 3 scenarios recorded: one scenario moves the share by 33% > the 10% tolerance
    assert claims["fig4-not-worse"]["verdict"] == "not comparable"
    assert "67% of 3 (worse: {6})" in claims["fig4-not-worse"]["ours"]
    # tested: 3 and 6 (two seeds or more each); 9 has one seed
    assert claims["fig4-better"]["verdict"] == "reproduced"  # the paper's set among the tested: {3}
    assert "untested (one seed): {9}" in claims["fig4-better"]["ours"]
    assert claims["fig4-scenario6"]["verdict"] == "reproduced"


def test_one_seed_per_scenario_tests_nothing():
    rows = pd.DataFrame(_rows("a", 3, 0, 2.0, 4.0) + _rows("b", 6, 0, 2.0, 4.0))
    claims = {c["claim_id"]: c for c in fig4_claims_over_seeds(fig4_over_seeds(rows))}
    assert claims["fig4-better"]["verdict"] == "not comparable"
    assert claims["fig4-scenario6"]["ours"] == "scenario 6 has one seed"


def test_a_scenario_seed_recorded_again_counts_once_the_later():
    rows = _scores()
    again = pd.DataFrame(_rows("s3 seed 0 again", 3, 0, 2.6, 4.0))
    table = fig4_over_seeds(pd.concat([rows, again], ignore_index=True)).set_index("scenario")
    assert table.loc[3].seeds_proposed == 3
    assert table.loc[3].proposed == pytest.approx((2.6 + 2.2 + 2.4) / 3)


def test_sections_reach_the_status_pages_only_for_mdp():
    from schedrl.report.status_tables import PaperStatus, paper_seed_lines

    sections = seed_lines(_scores())
    assert [t for t, _ in sections] == ["paper budget: Fig. 4 over seeds, from the records"]
    assert "| 3 | 3, 3 | 2.200 | 4.200 | -2.000 [-2.453, -1.547] | 0.000255 |" in sections[0][1]
    assert over_seeds("deeprm", _scores()) == [] and over_seeds("mdp", None) == []
    status = PaperStatus(paper="mdp", status_link="", default=None, budget=None, same_setup=[], runs=[],
                         headline=[], over_seeds=over_seeds("mdp", _scores()))
    lines = paper_seed_lines(status)
    assert lines[0] == "### `mdp`, paper budget: Fig. 4 over seeds, from the records"


def test_status_bullet_gives_each_seed_the_heuristics_and_the_gap_from_the_records():
    """status.md's generated Fig. 4 bullet: per scenario each agent's per-seed means in seed order, the
    heuristics', the gap over seeds (one seed: untested), and fig4-better over seeds; the seeds said once
    where every scenario has the same. It reaches mdp's status page block, and no other paper's."""
    from schedrl.report.status_tables import PaperStatus, status_page_block

    rows = _scores()
    rows = rows[~((rows["workload"] == "scenario 3") & (rows["seed"] == 2))]  # scenario 3 on seeds 0, 1
    (bullet,) = status_bullets("mdp", rows)
    assert "(mean slowdown: C+S+R vs image-like per seed | SJF | C+S+R minus image-like" in bullet
    assert "scenario 3 (seeds 0, 1): 2.000, 2.200 vs 4.000, 4.200 | 3.000 | -2.000 [" in bullet
    assert "scenario 6 (seeds 0, 1, 2): 3.000, 3.100, 3.200 vs 2.000, 2.100, 2.200 | 3.000 | +1.000 [" in bullet
    assert "scenario 9 (seed 0): 1.500 vs 1.900 | 3.000 | -0.400 (one seed: untested)" in bullet
    assert bullet.endswith("Over seeds fig4-better R ({3} of tested {3, 6}; untested (one seed): {9}).")
    same = pd.DataFrame(_rows("a", 3, 0, 2.0, 4.0) + _rows("b", 3, 1, 2.1, 4.1) + _rows("c", 6, 0, 2.0, 4.0)
                        + _rows("d", 6, 1, 2.1, 4.1))
    assert "(seeds 0, 1, mean slowdown:" in status_bullets("mdp", same)[0]
    assert status_bullets("deeprm", rows) == [] and status_bullets("mdp", None) == []
    status = PaperStatus(paper="mdp", status_link="", default=None, budget=None, same_setup=[], runs=[],
                         headline=[], bullets=[bullet])
    assert "- **Fig. 4 at the paper's budget**" in status_page_block(status)
