"""``paper_values.yaml``: the numbers a paper publishes, each with unit, source and tolerance.

Every paper package holds one such file::

    paper: runtime
    values:
      table4:
        value: {wl1_100a: [0.54, 0.70, 0.54, 0.74], ...}   # a number, a list or a mapping
        unit: fraction of node-seconds
        source: Table 4
        tolerance: {abs: 0.05}          # rel and/or abs (|ours - paper|); {} for qualitative claims
        note: columns SJF, SJF w/ BF, FCFS, FCFS w/ BF   # optional

and a ``deviations`` list: every deliberate difference between our setup and the paper's, each
``{what, paper, ours, reason}`` (optional ``effect``: what the other reading gives, measured), which
the report renders under the paper::

    deviations:
      - what: Theta trace
        paper: Theta 2018 (five months)
        ours: Theta 2022 (public)
        reason: the 2018 trace is not public
        effect: not measurable

and optionally ``headline_claims``: the claim ids (``claim_id`` of its claims table) whose recorded
value and verdict the README's and docs/reproduction-status.md's status tables show as the paper's
note (``schedrl status``), first the one the README shows::

    headline_claims: [d2-rl-beats-sjf@heldout, d2-rl-beats-sjf@report]

The values are what we compare with, never inputs to our computation. Claims take a value's
tolerance from here (``PaperValues.verdict``), so a tolerance is stated once, next to its number.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from schedrl.errors import ConfigError, InputFileError

FIELDS = ("value", "unit", "source", "tolerance")
OPTIONAL = ("note",)
DEVIATION_FIELDS = ("what", "paper", "ours", "reason")
DEVIATION_OPTIONAL = ("effect",)
TOLERANCE_KEYS = ("rel", "abs", "margin")


def values_path(paper: str) -> Path:
    """The ``paper_values.yaml`` of ``schedrl.papers.<paper>`` (a Snakemake input of its rules)."""
    return Path(__file__).parent / paper / "paper_values.yaml"


def _check_keys(path: Path, where: str, entry, required: tuple, optional: tuple) -> None:
    """One line naming ``where`` when ``entry`` is no mapping or lacks or adds keys."""
    if not isinstance(entry, dict):
        raise InputFileError(path, f"{where}: expected a mapping with {', '.join(required)}")
    missing = [f for f in required if f not in entry]
    unknown = sorted(set(entry) - set(required) - set(optional), key=str)
    if missing or unknown:
        raise InputFileError(path, f"{where}: " + "; ".join(
            ([f"missing {', '.join(missing)}"] if missing else [])
            + ([f"unknown key(s) {', '.join(map(str, unknown))}"] if unknown else [])))


class PaperValues(Mapping):
    """Read-only mapping key -> value of one paper's ``paper_values.yaml`` (checked on load)."""

    def __init__(self, paper: str, entries: dict[str, dict], path: Path | None = None,
                 deviations: list[dict] | None = None, headline_claims: list[str] | None = None):
        self.paper, self.path = paper, path
        self._entries = entries
        self.deviations = list(deviations or [])
        self.headline_claims = list(headline_claims or [])

    @classmethod
    def load(cls, path: str | Path) -> PaperValues:
        path = Path(path)
        if not path.is_file():
            raise InputFileError(path, "no such file")
        try:
            data = yaml.safe_load(path.read_text())
        except yaml.YAMLError as exc:
            raise InputFileError(path, f"not valid YAML ({str(exc).splitlines()[0]})") from None
        if not isinstance(data, dict) or not isinstance(data.get("paper"), str) \
                or not isinstance(data.get("values"), dict):
            raise InputFileError(path, "expected keys 'paper' (name) and 'values' (mapping)")
        for key, entry in data["values"].items():
            where = f"values.{key}"
            _check_keys(path, where, entry, FIELDS, OPTIONAL)
            tol = entry["tolerance"]
            if not isinstance(tol, dict) or set(tol) - set(TOLERANCE_KEYS) or \
                    not all(isinstance(v, int | float) and v >= 0 for v in tol.values()):
                raise InputFileError(path, f"{where}.tolerance: expected {{}} or non-negative "
                                     f"{'/'.join(TOLERANCE_KEYS)}")
        deviations = data.get("deviations") or []
        if not isinstance(deviations, list):
            raise InputFileError(path, "deviations: expected a list of mappings")
        for i, dev in enumerate(deviations):
            _check_keys(path, f"deviations[{i}]", dev, DEVIATION_FIELDS, DEVIATION_OPTIONAL)
        headline = data.get("headline_claims") or []
        if not isinstance(headline, list) or not all(isinstance(c, str) and c.strip() for c in headline):
            raise InputFileError(path, "headline_claims: expected a list of claim ids")
        unknown_top = sorted(set(data) - {"paper", "values", "deviations", "headline_claims"})
        if unknown_top:
            raise InputFileError(path, f"unknown top-level key(s) {', '.join(unknown_top)}")
        return cls(data["paper"], data["values"], path, deviations, headline)

    # Mapping protocol: key -> the paper's value
    def __getitem__(self, key: str) -> Any:
        return self.entry(key)["value"]

    def __iter__(self) -> Iterator[str]:
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key) -> bool:
        return key in self._entries

    def entry(self, key: str) -> dict:
        try:
            return self._entries[key]
        except KeyError:
            raise ConfigError(f"{self.path or self.paper}: no paper value '{key}'") from None

    def tolerance(self, key: str, name: str, default: float = 0.0) -> float:
        """One tolerance (``rel``, ``abs`` or ``margin``) of ``key``."""
        return float(self.entry(key)["tolerance"].get(name, default))

    def source(self, key: str) -> str:
        return str(self.entry(key)["source"])

    def unit(self, key: str) -> str:
        return str(self.entry(key)["unit"])

    def verdict(self, key: str, ours: float, paper: float | None = None) -> str:
        """``schedrl.report.claims.verdict`` with ``key``'s tolerances (``paper`` defaults to its value)."""
        from schedrl.protocol import verdict

        value = self[key] if paper is None else paper
        return verdict(float(ours), float(value), rel_tol=self.tolerance(key, "rel"),
                       abs_tol=self.tolerance(key, "abs"))

    def describe(self, key: str) -> str:
        """``"Table 4; tolerance abs 0.05"``: where a value comes from and how it is compared."""
        tol = self.entry(key)["tolerance"]
        text = ", ".join(f"{k} {v:g}" for k, v in tol.items()) or "none (qualitative)"
        return f"{self.source(key)}; tolerance {text}"

    def table(self) -> list[dict]:
        """One row per value (for listings and tests)."""
        return [{"paper": self.paper, "key": k, "unit": e["unit"], "source": e["source"],
                 "tolerance": e["tolerance"], "note": e.get("note", "")} for k, e in self._entries.items()]


@cache
def paper_values(paper: str) -> PaperValues:
    """The checked ``paper_values.yaml`` of ``paper`` (cached)."""
    values = PaperValues.load(values_path(paper))
    if values.paper != paper:
        raise InputFileError(values.path, f"'paper: {values.paper}' but the file belongs to {paper}")
    return values
