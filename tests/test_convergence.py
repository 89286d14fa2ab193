"""Convergence and uncertainty helpers shared by every paper's claims (schedrl.report.convergence)."""

import numpy as np
import pandas as pd
import pytest

from schedrl.errors import InputFileError
from schedrl.papers.values import PaperValues
from schedrl.report.claims import CLAIM_COLUMNS, make_claims
from schedrl.report.convergence import (
    NOT_CONVERGED,
    bootstrap_ci,
    bootstrap_diff,
    budget_fields,
    guard_win,
    trend,
)


def test_bootstrap_ci_covers_the_mean_and_narrows_with_more_episodes():
    rng = np.random.default_rng(0)
    small = rng.normal(2.0, 1.0, 20)
    large = rng.normal(2.0, 1.0, 2000)
    m, lo, hi = bootstrap_ci(small)
    assert lo < m < hi and m == pytest.approx(small.mean())
    _, lo2, hi2 = bootstrap_ci(large)
    assert lo2 < 2.0 < hi2 and (hi2 - lo2) < (hi - lo) / 4


def test_seed_spread_widens_the_interval():
    # Two seeds whose means differ a lot: resampling seeds must show it, not only episodes.
    seeds = np.array([np.full(50, 0.0) + np.linspace(-0.01, 0.01, 50), np.full(50, 10.0)])
    _, lo, hi = bootstrap_ci(seeds)
    assert hi - lo > 5


def test_paired_difference_removes_the_job_sets_spread():
    rng = np.random.default_rng(1)
    base = rng.normal(0, 10, 40)  # job sets differ a lot
    a, b = base + 1.0, base
    _, plo, phi = bootstrap_diff(a, b, paired=True)
    _, ulo, uhi = bootstrap_diff(a, b)
    assert plo == pytest.approx(1.0) and phi == pytest.approx(1.0)
    assert ulo < 0 < uhi  # unpaired, the spread of the job sets hides the gap
    with pytest.raises(ValueError):
        bootstrap_diff(a, b[:10], paired=True)


def test_relative_difference():
    point, lo, hi = bootstrap_diff(np.full(10, 90.0), np.full(10, 100.0), relative=True)
    assert point == pytest.approx(-0.1) and lo == pytest.approx(-0.1) and hi == pytest.approx(-0.1)


def test_guard_win_and_trend():
    assert guard_win("reproduced", -0.1, 0.2) == "partly reproduced"
    assert guard_win("reproduced", 0.1, 0.2) == "reproduced"
    assert guard_win("not reproduced", -0.1, 0.2) == "not reproduced"
    assert trend([5, 4, 3.0, 3.01], 2.0, noise=0.05) == "flat"
    assert trend([5, 4, 3.0, 2.5], 2.0, noise=0.05) == "toward paper"
    assert trend([5, 4, 3.0, 3.5], 2.0, noise=0.05) == "away from paper"
    assert trend([1, 2], None, noise=0.1) == "moving"


def test_budget_fields_rows_and_claim_columns():
    fields, rows = budget_fields("p", "c1", [1, 2, 4, 8], [3.0, 2.5, 2.2, 2.1], 2.0, unit="steps", noise=0.05,
                                 band=(1.8, 2.2))
    assert fields["converged"] == NOT_CONVERGED and fields["trend"] == "toward paper"
    assert fields["at_budgets"].startswith("1/8: 3") and fields["at_budgets"].endswith("all: 2.1")
    assert [r["fraction"] for r in rows] == [0.125, 0.25, 0.5, 1.0]
    frame = make_claims([{"paper": "p", "claim_id": "c1", "claim": "x", "paper_value": 2, "ours": 2.1,
                          "verdict": "reproduced", "note": "", **fields}])
    assert list(frame.columns) == list(CLAIM_COLUMNS) and frame.loc[0, "ci95"] == ""
    with pytest.raises(ValueError, match="unknown claim column"):
        make_claims([{"paper": "p", "claim_id": "c", "claim": "x", "paper_value": 1, "ours": 1,
                      "verdict": "reproduced", "note": "", "typo": 1}])


def test_budget_figure_draws_every_claim(tmp_path):
    from schedrl.plots.budget import budget_figure

    _, rows = budget_fields("p", "c1", [1, 2, 4, 8], [3.0, 2.5, 2.2, 2.1], 2.0, unit="steps", noise=0.05)
    paths = budget_figure(pd.DataFrame(rows), tmp_path / "budget.png", title="t")
    assert paths["png"].stat().st_size > 0 and len(pd.read_csv(paths["csv"])) == 4


def test_deviations_are_checked(tmp_path):
    path = tmp_path / "paper_values.yaml"
    path.write_text("paper: x\nvalues: {}\ndeviations:\n  - what: trace\n    paper: 2018\n    ours: 2022\n"
                    "    reason: not public\n")
    assert PaperValues.load(path).deviations[0]["ours"] == 2022
    path.write_text("paper: x\nvalues: {}\ndeviations:\n  - what: trace\n    paper: 2018\n")
    with pytest.raises(InputFileError, match=r"deviations\[0\]: missing ours, reason"):
        PaperValues.load(path)


def test_budget_figure_draws_no_tolerance_band_of_zero_width(tmp_path, monkeypatch):
    from matplotlib.axes import Axes

    from schedrl.plots.budget import budget_figure

    spans = []
    monkeypatch.setattr(Axes, "axhspan", lambda self, lo, hi, **kw: spans.append((lo, hi)))
    _, exact = budget_fields("p", "exact", [1, 2, 4, 8], [3.0, 2.5, 2.1, 2.0], 2.0, unit="steps", noise=0.05, band=(2.0, 2.0))
    _, banded = budget_fields("p", "banded", [1, 2, 4, 8], [3.0, 2.5, 2.1, 2.0], 2.0, unit="steps", noise=0.05, band=(1.7, 2.3))
    budget_figure(pd.DataFrame(exact + banded), tmp_path / "budget.png", title="t")
    assert spans == [(1.7, 2.3)]
