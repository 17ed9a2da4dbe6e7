"""Shared test fixtures: where the shared data is, the models (loaded once per session), and the ``model`` marker.

A test needs the pip-shipped encoder or the committed weighter when it uses one of the session fixtures below
(``minilm``, ``minilm_encoder``, ``shipped_weighter``); when its source (or a fixture's) calls what always loads a
model (``train``, ``Weighter.load``, ``load_encoder``, ``Encoder``, ``get_encoder``, ``bertscore``, the CLI's
``explain``); when it calls a scoring entry point (``Scorer``, ``kpqa.score``, the CLI's ``score`` / ``meta-eval`` /
``calibrate``) and names a model metric or asks for the default suite (a ``-KPQA`` / ``-KP`` metric of a scorer
handed a ``weighter=`` does not count); when it calls the CLI's ``report`` without
``--no-weights``; or when it is a parametrised case naming a model metric. Such tests get the ``model`` marker at
collection, so ``pytest -m "not model"`` runs the rest without loading any model, and a test without the marker
that loads a model anyway fails (the audit keeps the static rule honest).
"""
from __future__ import annotations

import inspect
import os
import re
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = Path(os.environ.get("KPQA_SHARED_DATA", REPO.parent / "shared" / "data"))

#: session fixtures that load a model
MODEL_FIXTURES = frozenset({"minilm", "minilm_encoder", "shipped_weighter"})
#: calls in a test's (or its fixtures') source that load a model whatever they are given
MODEL_CALLS = re.compile(
    r"\b(train\(|Weighter\.load\(|EquivalenceRunner\.load\(|load_encoder\(|Encoder\(|get_encoder\(|bertscore\(|_launch\(|shipped_scorer|"
    r"main\(\[\s*\"explain\"|\"kpqa\", \"explain\"|\"-m\", \"kpqa(\.cli)?\", \"explain\")"
)
#: the scorer, kpqa.score, a metric's own methods and the CLI's scoring commands: they load a model for a model
#: metric only
SCORING_CALLS = re.compile(
    r"\.(score|stats|corpus_score)\(|\b(Scorer\(|kpqa\.score\(|_run\(|embed_rows\(|"
    r"main\(\[\s*\"(score|meta-eval|calibrate)\"|"
    r"\"kpqa\", \"(score|meta-eval|calibrate)\"|\"-m\", \"kpqa(\.cli)?\", \"(score|meta-eval|calibrate)\")"
)
#: the CLI's report: it loads the weighter unless told --no-weights
REPORT_CALLS = re.compile(r"main\(\[\s*\"report\"|\"kpqa\", \"report\"|\"-m\", \"kpqa(\.cli)?\", \"report\"")
#: a model metric named, or the default suite asked for: a scorer without a list of metrics, or a scoring command
#: without --metrics
MODEL_METRICS = re.compile(r"BERTScore|Equivalence|-KPQA\b|-KP\b|DEFAULT_METRICS|DECIDE_METRICS|decide")
DEFAULT_SUITE = re.compile(r"\bScorer\(\s*(\)|[a-z_]+=)|\bkpqa\.score\((?![^)]*metrics)")


def _needs_model_source(source: str) -> bool:
    """Whether code that calls these entry points loads a model (tests/README.md says how a test is marked)."""
    if MODEL_CALLS.search(source):
        return True
    if REPORT_CALLS.search(source) and "--no-weights" not in source:
        return True
    if not SCORING_CALLS.search(source):
        return False
    if "weighter=" in source:  # a scorer handed a weighter loads none for its -KPQA / -KP metrics (BERTScore's stays)
        source = re.sub(r"-KPQA\b|-KP\b", "", source)
    return bool(MODEL_METRICS.search(source) or DEFAULT_SUITE.search(source)
                or ("\"score\"" in source or "\"meta-eval\"" in source or "\"calibrate\"" in source)
                and "--metrics" not in source)


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


def _source(obj: Any) -> str:
    try:
        return inspect.getsource(obj)
    except (OSError, TypeError):
        return ""


def _needs_model(item: pytest.Item) -> bool:
    names = set(getattr(item, "fixturenames", ()))
    if names & MODEL_FIXTURES:
        return True
    function = getattr(item, "function", None)
    sources = [_source(function)] if function is not None else []
    manager = getattr(getattr(item, "session", None), "_fixturemanager", None)
    for name in names:  # module fixtures that load a model (e.g. a shared Scorer) count too
        defs = manager.getfixturedefs(name, item) if manager is not None else None
        sources += [_source(d.func) for d in defs or ()]
    callspec = getattr(item, "callspec", None)  # a parametrised case that names a model metric
    if callspec is not None and MODEL_METRICS.search(repr(callspec.params)):
        return True
    return any(_needs_model_source(s) for s in sources)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.get_closest_marker("model") is None and _needs_model(item):
            item.add_marker(pytest.mark.model)


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
