"""kpqa: keyphrase-weighted metrics for judging generated answers to questions.

The scoring API (:func:`score`, :class:`Scorer`, :class:`Result`, ``DEFAULT_METRICS``, :class:`ScorerOptions`) and
:func:`compare` (two systems, :func:`kpqa.comparison.compare`) are imported on first use, so that importing a
low-level module (``kpqa.metrics.ngrams``, ``kpqa.text``) does not load pandas and every metric.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from kpqa.version import __version__

if TYPE_CHECKING:  # pragma: no cover
    from kpqa.comparison import compare
    from kpqa.context import ScorerOptions
    from kpqa.results import Result
    from kpqa.scoring import DEFAULT_METRICS, Scorer, score

__all__ = ["DEFAULT_METRICS", "Result", "Scorer", "ScorerOptions", "compare", "evaluate_path", "score", "__version__"]


def evaluate_path() -> str:
    """The path of kpqa's Hugging Face ``evaluate`` metric: ``evaluate.load(kpqa.evaluate_path())`` (offline;
    :mod:`kpqa.hf_evaluate`)."""
    from pathlib import Path

    return str(Path(__file__).with_name("hf_evaluate.py"))


def __getattr__(name: str) -> Any:
    if name in ("DEFAULT_METRICS", "Scorer", "score"):
        from kpqa import scoring

        return getattr(scoring, name)
    if name == "Result":
        from kpqa.results import Result

        return Result
    if name == "ScorerOptions":
        from kpqa.context import ScorerOptions

        return ScorerOptions
    if name == "compare":
        from kpqa.comparison import compare

        return compare
    raise AttributeError(f"module 'kpqa' has no attribute {name!r}")


def __dir__() -> list[str]:
    """The module's names and the scoring API imported on first use (``dir(kpqa)`` lists ``score`` and ``Scorer``)."""
    return sorted(set(globals()) | set(__all__))
