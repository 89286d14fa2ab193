"""The reproduction report as markdown and as one self-contained HTML page, checked in a browser."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest

from schedrl.report.claims import write_claims
from schedrl.report.render import Figure, PaperInfo, render_html, render_report


def _report(tmp_path, monkeypatch):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    monkeypatch.chdir(tmp_path)
    (tmp_path / "figures" / "alpha").mkdir(parents=True)
    fig, ax = plt.subplots(figsize=(3, 2))
    ax.plot([0, 1], [0, 1], label="ours")
    fig.savefig(tmp_path / "figures" / "alpha" / "fig1.png")
    plt.close(fig)
    claims = tmp_path / "results" / "alpha" / "claims.csv"
    write_claims(claims, [{"paper": "alpha", "claim_id": "c1", "claim": "A beats B", "paper_value": "3.9",
                           "ours": "4.0", "verdict": "reproduced", "note": "real trace"},
                          {"paper": "alpha", "claim_id": "c2", "claim": "C", "paper_value": "1",
                           "ours": "9", "verdict": "not reproduced", "note": "stand-in"},
                          {"paper": "alpha", "claim_id": "c3", "claim": "RL beats SJF", "paper_value": "-10%",
                           "ours": "-4%", "verdict": "partly reproduced", "note": "2 seeds x 10 episodes",
                           "ci95": "-4% [-9%, +1%]", "at_budgets": "1/8: 2; 1/4: 1; 1/2: -2; all: -4",
                           "trend": "toward paper", "converged": "not converged at this scale"}])
    papers = {"alpha": PaperInfo("Alpha paper", [Figure("figures/alpha/fig1.png", "Figure one"),
                                                 Figure("figures/alpha/fig2.png", "not drawn yet")],
                                 status="Default run: 1.2 core-hours.",
                                 deviations=[{"what": "trace", "paper": "2018", "ours": "2022",
                                              "reason": "not public"}]),
              "beta": PaperInfo("Beta paper")}
    text, frame = render_report([claims], [], "smoke", papers, report_dir="results/report",
                                package_versions={"numpy": "x"})
    html = render_html(text, tmp_path / "results" / "report")
    out = tmp_path / "results" / "report" / "index.html"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(html)
    return text, html, out


def test_markdown_and_html_have_every_paper_figures_and_claims(tmp_path, monkeypatch):
    text, html, _ = _report(tmp_path, monkeypatch)
    # verdict table first: figures drawn / expected, claims by verdict, not converged; then contents
    assert "| [alpha](#paper-alpha) | 1/2 | 3 | 1 | 1 | 1 | 0 | 1 |" in text
    assert text.index("## Verdicts") < text.index("## Contents") < text.index("## Alpha paper")
    assert "1. [Alpha paper](#paper-alpha)" in text and '<a id="paper-alpha"></a>' in text
    # per paper: headline claims (the RL comparison), status, deviations, figures, then all claims
    section = text[text.index("## Alpha paper"):text.index("## Beta paper")]
    order = [section.index(h) for h in ("### Headline claims (1 of 3)", "### Status and measured runs",
                                         "### Deviations from the paper (1)", "![Figure one]", "### All claims (3)")]
    assert order == sorted(order)
    assert "| RL beats SJF | -10% | -4% | -4% [-9%, +1%] |" in section
    assert "![Figure one](../../figures/alpha/fig1.png)" in text and "fig2" not in text
    assert "## Beta paper" in text and "Not reproduced yet" in text
    assert "data:image/png;base64," in html and "figures/alpha/fig1.png" not in html  # self-contained
    assert 'style="background:#d4edda">reproduced' in html and "Smoke scale" in html
    assert "<table>" in html and "Alpha paper" in html and "numpy" in html


def _chromium():
    return shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")


@pytest.mark.skipif(_chromium() is None, reason="no Chromium on this machine (apt-get install chromium)")
def test_report_renders_in_headless_chromium(tmp_path, monkeypatch):
    from PIL import Image

    _, _, page = _report(tmp_path, monkeypatch)
    flags = ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", f"--user-data-dir={tmp_path / 'u'}"]
    dom = subprocess.run([_chromium(), *flags, "--dump-dom", page.as_uri()], capture_output=True, text=True,
                         timeout=120).stdout
    assert 'data-figures-loaded="1/1"' in dom, dom[:500]
    assert 'id="paper-alpha"' in dom and 'href="#paper-alpha"' in dom and "Verdicts" in dom
    # every claim not (fully) reproduced has one cause, counted in the verdict table and grouped per paper
    assert "why: not conv." in dom and "why: disagrees" in dom
    assert "Why claims are not reproduced (2 of 3)" in dom and "<strong>not converged</strong> (1)" in dom
    shot = tmp_path / "shot.png"
    subprocess.run([_chromium(), *flags, f"--screenshot={shot}", "--window-size=1200,1600", page.as_uri()],
                   capture_output=True, timeout=120, check=True)
    pixels = np.asarray(Image.open(shot).convert("L"), dtype=float)
    assert pixels.std() > 5, "the rendered report is blank"


def test_score_leaderboard_is_its_own_chapter(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    section = tmp_path / "figures" / "score" / "leaderboard.md"
    section.parent.mkdir(parents=True)
    section.write_text("| policy | slowdown |\n| --- | --- |\n| wfp3 | 3.1 [2.9, 3.3] |\n")
    text, _ = render_report([], [str(section)], "smoke", {"alpha": PaperInfo("Alpha paper")},
                            report_dir="results/report")
    assert "2. [Your schedulers against the papers (schedrl score)](#paper-score)" in text
    assert text.index("## Your schedulers") < text.index("| wfp3 | 3.1 [2.9, 3.3] |")
