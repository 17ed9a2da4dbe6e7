"""Shared test fixtures: where the shared data is, the models (loaded once per session), and the ``model`` marker.

A test that loads the pip-shipped encoder, the committed weighter or the equivalence model carries
``@pytest.mark.model``, written on it (issue 61: no rule over a test's source chooses it), so ``pytest -m "not
model"`` runs the rest without loading any. Two checks keep the marks true: a test that loads a model in this
process without the marker fails (:func:`_model_audit`), and one that asks for a session fixture that loads a model
(:data:`MODEL_FIXTURES`) without it fails (tests/test_markers.py).
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("KPQA_SHARED_DATA", REPO.parent / "shared" / "data"))

#: session fixtures that load a model
MODEL_FIXTURES = frozenset({"minilm", "minilm_encoder", "shipped_weighter"})


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


@pytest.fixture(scope="session")
def minilm() -> tuple[Any, Any]:
    """(transformers model, fast tokenizer) of the pip-shipped MiniLM, loaded once per session."""
    from kpqa.models.weighter import load_encoder

    return load_encoder("minilm")


@pytest.fixture(scope="session")
def tokenizer(minilm: tuple[Any, Any]) -> Any:
    """The pip-shipped MiniLM's fast tokenizer (a test file may define its own ``tokenizer``)."""
    return minilm[1]


@pytest.fixture(scope="session")
def minilm_encoder() -> Any:
    """BERTScore's encoder on MiniLM (CPU)."""
    from kpqa.models.encoder import Encoder

    return Encoder("minilm", device="cpu")


@pytest.fixture(scope="session")
def shipped_weighter() -> Any:
    """The committed default weighter on CPU; a committed checkpoint that is missing fails the test."""
    from kpqa.models import shipped
    from kpqa.models.weighter import Weighter

    if not (shipped.resolve() / "metadata.json").exists():
        pytest.fail(f"the committed weighter checkpoint is missing at {shipped.resolve()}")
    return Weighter.load(device="cpu")


@pytest.fixture(autouse=True)
def _model_audit(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Any:
    """Fail a test that loads a model in this process without the ``model`` marker (the static rule above missed
    it, so ``pytest -m "not model"`` would load one)."""
    if request.node.get_closest_marker("model") is not None:
        yield
        return
    import kpqa.models.encoder
    import kpqa.models.equivalence
    import kpqa.models.weighter  # noqa: F401  (imported before patching, so that they bind the real loader)
    from kpqa.models import loader

    real = loader.load_pretrained
    loaded: list[str] = []

    def watched(*args: Any, **kwargs: Any) -> Any:
        loaded.append(str(args[0] if args else kwargs.get("name")))
        return real(*args, **kwargs)

    monkeypatch.setattr(loader, "load_pretrained", watched)
    for module in ("kpqa.models.encoder", "kpqa.models.equivalence", "kpqa.models.weighter"):
        monkeypatch.setattr(f"{module}.load_pretrained", watched)
    yield
    assert not loaded, f"loaded {', '.join(loaded)} without the 'model' marker (see tests/conftest.py)"
