"""What a paper's rules build: one ``Target`` per figure, table or claims file.

A paper's ``figures.TARGETS`` lists them; its rule file registers exactly those files with the
aggregate target (so the DAG and ``schedrl figures`` cannot disagree), and a test checks that each
target's rule exists and builds its files. Two hops from a file to its code:
``figures/<paper>/<name>.png`` -> rule ``Target.rule`` in ``workflow/rules/<paper>.smk`` ->
``Target.function``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

#: kind -> file suffixes under figures/<paper>/<name> (claims live in results/<paper>/claims.csv)
KINDS = {"figure": (".png", ".pdf", ".csv"), "table": (".png", ".pdf", ".csv", ".md"), "markdown": (".md",),
         "claims": ()}


@dataclass(frozen=True)
class Target:
    """One output of a paper: ``figures/<paper>/<name>.*`` (or the claims table)."""

    paper: str
    name: str
    function: Callable
    rule: str
    caption: str
    kind: str = "figure"
    claims: tuple[str, ...] = ()  # claim_id prefixes of the claims this target shows

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"unknown target kind '{self.kind}' (choose from: {', '.join(KINDS)})")

    @property
    def function_name(self) -> str:
        return f"{self.function.__module__}.{self.function.__qualname__}"

    def files(self) -> list[str]:
        """Every file of the target, the main one first (.png, or .md, or claims.csv)."""
        if self.kind == "claims":
            return [f"results/{self.paper}/claims.csv"]
        stem = f"figures/{self.paper}/{self.name}"
        suffixes = KINDS[self.kind]
        return [stem + s for s in sorted(suffixes, key=lambda s: s != (".md" if self.kind == "markdown" else ".png"))]

    @property
    def path(self) -> str:
        return self.files()[0]
