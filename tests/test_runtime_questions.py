"""The runtime paper's two questions (issue 59): intervals worked by hand and the answers' wording
on small hand-made evaluation tables."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from schedrl.papers.runtime import questions as q


def test_mean_ci_is_the_t_interval():
    m, lo, hi = q.mean_ci([0.5, 0.6, 0.7])
    half = stats.t.ppf(0.975, 2) * 0.1 / np.sqrt(3)
    assert m == pytest.approx(0.6) and (lo, hi) == pytest.approx((0.6 - half, 0.6 + half))
    assert np.isnan(q.mean_ci([0.5])[1])


def test_diff_ci_against_a_constant_is_the_one_sample_interval():
    d, lo, hi = q.diff_ci([0.5, 0.6, 0.7], [0.55])
    half = stats.t.ppf(0.975, 2) * 0.1 / np.sqrt(3)
    assert d == pytest.approx(0.05) and (lo, hi) == pytest.approx((0.05 - half, 0.05 + half))


def test_diff_ci_welch_matches_scipy():
    a, b = [0.61, 0.64, 0.66, 0.70, 0.62], [0.55, 0.60, 0.52]
    d, lo, hi = q.diff_ci(a, b)
    res = stats.ttest_ind(a, b, equal_var=False)
    ci = res.confidence_interval(0.95)
    assert d == pytest.approx(np.mean(a) - np.mean(b)) and (lo, hi) == pytest.approx((ci.low, ci.high))
    assert q._side((d, lo, hi)) == ("above" if ci.low > 0 else "not different")
    assert q._side((0.0, float("nan"), float("nan"))) == "no interval"


def _agents(method, util_own, util_b, fraction=1.0, budget=4000):
    rows = []
    for test, us in (("wl2_rnda", util_own), ("wl2_rndb", util_b)):
        rows += [{"agent": f"PPO {method}", "method": method, "train": "wl2_rnda", "draw": 0, "test": test,
                  "budget": budget, "fraction": fraction, "episode": k, "utilization": u} for k, u in enumerate(us)]
    return pd.DataFrame(rows)


def test_answers_name_the_side_of_each_comparison():
    agents = pd.concat([_agents("baseline", [0.70, 0.71, 0.72], [0.60, 0.61, 0.62]),
                        _agents("proposal_nn1", [0.80, 0.81, 0.82], [0.60, 0.62, 0.61]),
                        _agents("baseline", [0.66, 0.67, 0.65], [0.6, 0.6, 0.6], fraction=0.5, budget=2000)])
    agents["agent"] = agents["agent"].str.replace("PPO proposal_nn1", "PPO Proposal (NN1) seed 0").str.replace(
        "PPO baseline", "PPO Baseline seed 0")
    refs = pd.DataFrame([{"reference": "random", "method": "baseline", "train": "wl2_rnda", "test": t,
                          "episode": k, "utilization": u, "draw": 0, "run_seed": 0}
                         for t in ("wl2_rnda", "wl2_rndb") for k, u in enumerate([0.69, 0.70, 0.71])])
    heur = pd.DataFrame({"fcfs_fit": [0.75, 0.5], "sjf_fit": [0.78, 0.55], "largest_fit": [0.60, 0.5],
                         "FCFS:none": [0.70, 0.5]}, index=["wl2_rnda", "wl2_rndb"])
    md = q.questions_markdown(agents, refs, {0: heur})
    assert md.index("## Answers") < md.index("## 1.")
    # baseline 0.71 vs random 0.70: interval spans 0; vs SJF fit 0.78: below
    assert "**PPO Baseline seed 0** on its own half wl2_rnda after 4,000 steps: 0.710" in md
    assert "not different from random valid play" in md and "below the best fit heuristic SJF first fit" in md
    # proposal 0.81 vs baseline 0.71 on the informative own half: above zero; the 1/2 checkpoint row is listed
    assert "**Proposal (NN1) vs Baseline** trained on wl2_rnda, tested on wl2_rnda after 4,000 steps: +0.100" in md
    assert "above zero" in md and "1/2 (2,000 steps)" in md



def test_paper_value_reads_table5_on_the_own_half_and_table6_elsewhere():
    from schedrl.papers.runtime.experiments import VALUES  # paper_values.yaml, as the claims read it

    t5, t6 = VALUES["table5"], VALUES["table6"]
    assert q.paper_value("proposal_nn1", "wl2_rnda", "wl2_rnda") == t5["rows"]["wl2_rnda"][t5["columns"].index("proposal_nn1")]
    assert q.paper_value("baseline", "wl2_rnda", "wl2_rndb") == t6["rows"]["wl2_rnda"]["wl2_rndb"][0]
    assert np.isnan(q.paper_value("baseline", "wl2_rnda", "nowhere"))
