"""The README stays a five-minute read (issue 39, item 1), and the docs it points to stay reachable.

* README.md has at most 200 lines; each row of its reproduction-status table at most 400 characters,
  one row per paper, each "paper | claims | core-h | date | at the paper's budget | note | detail"; the papers table at the top
  names each paper's text.
* Every relative link (and image) in README.md and docs/*.md points to a file of the repository,
  and an anchor to a heading of that file.
* The README still states the test command that CI runs (``make test`` in .ci/run) and its block.
* docs/figures.md holds ``schedrl figures --format markdown`` verbatim (the listing moved there from
  the README).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))

MAX_LINES = 200
MAX_ROW = 400
#: Links allowed to point at a file that is not in the repository (yet).
ALLOWED_MISSING: set[str] = set()
TEST_BLOCK = """\
pytest -q -n 2 --dist loadfile   # two processes (pytest-xdist), a test file's tests in one
for c in config/config.yaml config/smoke.yaml config/paper.yaml; do snakemake all -n --configfile $c; done
for t in $(python scripts/paper_budget_targets.py); do snakemake $t -n --configfile config/paper-budget.yaml; done
snakemake all --cores 2 --configfile config/smoke.yaml
python scripts/check_added_seed.py --configfile config/smoke.yaml   # one more seed reruns no run there is
"""

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def _prose(text: str) -> str:
    """The text without fenced code blocks or inline code (links there are not links)."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    return re.sub(r"`[^`\n]*`", "", text)


def _anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    heads = re.findall(r"^#{1,6}\s+(.*)$", re.sub(r"^```.*?^```", "", path.read_text(), flags=re.S | re.M),
                       flags=re.M)
    return {_anchor(h) for h in heads}


def _section(text: str, title: str) -> str:
    start = text.index(f"\n## {title}\n")
    end = text.find("\n## ", start + 1)
    return text[start:end if end >= 0 else None]


def test_readme_is_short():
    lines = README.read_text().splitlines()
    assert len(lines) <= MAX_LINES, f"README.md has {len(lines)} lines (at most {MAX_LINES}): move detail to docs/"


def test_status_rows_are_short_one_per_paper():
    from schedrl.papers import PAPERS

    section = _section(README.read_text(), "Reproduction status")
    rows = [line for line in section.splitlines() if line.startswith("|")][2:]  # less header and rule
    assert [row.split("|")[1].strip().strip("`") for row in rows] == list(PAPERS)
    for row in rows:
        assert len(row) <= MAX_ROW, f"status row of {len(row)} characters (at most {MAX_ROW}): {row[:60]}..."
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert len(cells) == 8 and re.fullmatch(r"[\d.]+", cells[2]) and re.fullmatch(r"\d{4}-\d\d-\d\d", cells[3]), \
            ("status row is not 'paper | claims | core-h | date | at the paper's budget | best agent, normalised | "
             f"note | detail': {row[:80]}...")


def test_papers_table_names_each_papers_text():
    """The table at the top names each paper's text (a status row pasted there once went unnoticed)."""
    from schedrl.papers import PAPERS

    table = README.read_text().split("\n## ")[0]
    rows = [line for line in table.splitlines() if line.startswith("| `")]
    assert [row.split("|")[1].strip().strip("`") for row in rows] == list(PAPERS)
    for row in rows:
        cells = [c.strip() for c in row.strip("|").split("|")]
        assert len(cells) == 3 and ".txt" in cells[1], f"papers-table row is not 'name | text | one line': {row[:80]}..."


@pytest.mark.parametrize("page", [README, *DOCS], ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(page):
    broken = []
    for target in LINK.findall(_prose(page.read_text())):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
            continue
        path, _, fragment = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        rel = file.relative_to(ROOT).as_posix() if file.is_relative_to(ROOT) else str(file)
        if rel in ALLOWED_MISSING:
            continue
        if not file.exists():
            broken.append(f"{target}: no file {rel}")
        elif fragment and file.suffix == ".md" and fragment not in _anchors(file):
            broken.append(f"{target}: no heading #{fragment} in {rel}")
    assert not broken, f"{page.relative_to(ROOT)}: " + "; ".join(broken)


def test_readme_states_the_ci_test_command():
    text = README.read_text()
    assert "make test" in text
    assert "```bash\n" + TEST_BLOCK + "```" in text, "README lost the test command block that `make test` runs"
    assert "make test" in (ROOT / ".ci" / "run").read_text()
    make = (ROOT / "Makefile").read_text()
    workers = re.search(r"^TEST_WORKERS \?= (\d+)$", make, re.M).group(1)
    pytest_line = re.search(r"^pytest: setup\n\t(.+)$", make, re.M).group(1).replace("$(TEST_WORKERS)", workers)
    assert TEST_BLOCK.startswith(pytest_line + " "), f"README's pytest line is not the Makefile's: {pytest_line}"
    smoke = make.split("\nsmoke: setup\n", 1)[1].split("\n\n", 1)[0]
    assert TEST_BLOCK.splitlines()[-1].split("   #")[0] in smoke, "the Makefile's smoke target lost the added-seed check"


@pytest.mark.parametrize("page", DOCS, ids=lambda p: p.name)
def test_docs_pages_open_with_what_they_hold(page):
    lines = page.read_text().splitlines()
    assert lines[0].startswith("# ")
    first = next(line for line in lines[1:] if line.strip())
    assert not first.startswith(("#", "|", "```", "*")), f"{page.name} should open with a sentence"


def test_figures_page_is_the_figures_listing(capsys, tmp_path):
    from schedrl.cli import main

    # an empty --root: not the claims files an earlier run left in the checkout's results/
    assert main(["figures", "--format", "markdown", "--root", str(tmp_path)]) == 0
    table = capsys.readouterr().out.strip()
    assert table in (ROOT / "docs" / "figures.md").read_text(), \
        "docs/figures.md is stale: paste `schedrl figures --format markdown`"
