"""Each paper's status.md is a page a reader finishes (issue 71, item 3).

* It opens with the paper's current state: a dated ``**Current state (YYYY-MM-DD).**`` line, then at
  most 30 lines in all (up to the line linking history.md), each at most 120 characters.
* It links history.md beside it, which exists and links back; the dated history lives there, not in
  status.md.
* The installed package carries history.md as it carries status.md, and the report shows the status
  page with history.md folded below it (``schedrl.report.render.status_with_history``).
"""

from __future__ import annotations

import importlib.util
import re
import tomllib
from pathlib import Path

import pytest

from schedrl.papers import implemented
from schedrl.report.render import HISTORY_HEADING, HISTORY_LINK, status_lines, status_with_history

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 30
MAX_WIDTH = 120
FIRST_LINE = re.compile(r"^\*\*Current state \(\d{4}-\d{2}-\d{2}\)\.\*\*")


def _folder(paper: str) -> Path:
    return Path(importlib.util.find_spec(f"schedrl.papers.{paper}").origin).parent


def _opening(text: str) -> list[str]:
    """The lines above the one linking history.md (the first 31 lines where none does)."""
    lines = text.splitlines()
    at = next((i for i, line in enumerate(lines) if HISTORY_LINK in line), MAX_LINES + 1)
    return lines[:at]


def test_every_paper_package_is_checked():
    folders = sorted(p.parent.name for p in (ROOT / "src" / "schedrl" / "papers").glob("*/__init__.py"))
    assert sorted(implemented()) == folders and len(folders) >= 5


@pytest.mark.parametrize("paper", implemented())
def test_status_opens_with_a_short_dated_current_state(paper):
    status = _folder(paper) / "status.md"
    assert status.is_file(), f"{paper} has no status.md"
    opening = _opening(status.read_text())
    assert FIRST_LINE.match(opening[0]), f"{paper}/status.md starts {opening[0][:60]!r}, not a dated Current state"
    assert len(opening) <= MAX_LINES, f"{paper}/status.md opens with {len(opening)} lines (at most {MAX_LINES})"
    wide = [(n, len(line)) for n, line in enumerate(opening, 1) if len(line) > MAX_WIDTH]
    assert not wide, f"{paper}/status.md: lines (number, width) wider than {MAX_WIDTH}: {wide}"


@pytest.mark.parametrize("paper", implemented())
def test_status_links_its_history_which_links_back(paper):
    text = (_folder(paper) / "status.md").read_text()
    assert HISTORY_LINK in text, f"{paper}/status.md does not link {HISTORY_LINK}"
    assert f"\n{HISTORY_HEADING}\n" not in text, f"{paper}/status.md holds its dated history: move it to history.md"
    history = _folder(paper) / "history.md"
    assert history.is_file(), f"{paper}/status.md links history.md, which does not exist"
    assert "[status.md](status.md)" in history.read_text().splitlines()[0]


def test_history_is_installed_package_data():
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["schedrl"]
    assert "papers/*/status.md" in data and "papers/*/history.md" in data


def test_every_record_file_is_installed_package_data():
    """schedrl status reads recorded_runs.csv, recorded_normalised.csv and recorded_scores.csv (the
    per-seed scores its merged normalised rows pool): an installed package carries all three."""
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["schedrl"]
    for name in ("recorded_runs.csv", "recorded_normalised.csv", "recorded_scores.csv"):
        assert f"papers/*/{name}" in data, f"{name} is not package data"


def test_report_shows_the_status_page_and_folds_its_history():
    status = "**Current state (2026-01-01).**\n- **Default**: 3 R.\n\nHistory and measurements: [history.md](history.md)\n"
    history = ("# alpha: history (the current state is in [status.md](status.md))\n\n"
               "## Current state in detail (as of 2026-01-01)\n\nlong text\n\n## History\n\n**2025-12-31 run**\n")
    lines = status_lines(status_with_history(status, history))
    assert lines[0] == "**Current state (2026-01-01).**\n- **Default**: 3 R." and lines[-1] == "</details>"
    folded = "\n".join(lines[1:])
    assert "#### Current state in detail (as of 2026-01-01)" in folded and "#### History" in folded
    assert "**2025-12-31 run**" in folded and "history.md" not in "\n".join(lines) and "status.md" not in folded
    assert status_with_history(status) == status.strip().rsplit("\n", 1)[0].strip()
