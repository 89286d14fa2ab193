"""Shared test fixtures."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import schedrl  # noqa: F401 - first, so the math libraries' code-path pins act in every test (issue 61)

REPO = Path(__file__).resolve().parents[1]
SHARED_TRACES = REPO.parent / "shared" / "traces"

os.environ.setdefault("OMP_NUM_THREADS", "1")


@pytest.fixture(scope="session")
def repo() -> Path:
    return REPO


@pytest.fixture(scope="session")
def traces_dir() -> Path:
    """The shared public traces (../shared/traces); tests needing them skip when absent."""
    if not SHARED_TRACES.is_dir():
        pytest.skip("../shared/traces is not present")
    return SHARED_TRACES
