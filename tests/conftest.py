"""Shared test fixtures: where the shared data is, and skipping when it (or the model) is absent."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("KPQA_SHARED_DATA", REPO.parent / "shared" / "data"))


def shared(relpath: str) -> Path:
    """Path of a file under ../shared/data; skips the calling test when it is absent."""
    path = SHARED_DATA / relpath
    if not path.exists():
        pytest.skip(f"shared data not available: {path} (tests need ../shared/data beside the repo)")
    return path


@pytest.fixture
def shared_data():
    """The ``shared`` helper as a fixture: ``shared_data("human_eval/marco_all.csv")``."""
    return shared
