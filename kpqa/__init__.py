"""kpqa: keyphrase-weighted metrics for judging generated answers to questions."""
from __future__ import annotations

__version__ = "0.1.0"

from kpqa.scoring import DEFAULT_METRICS, Result, Scorer, score  # noqa: E402

__all__ = ["DEFAULT_METRICS", "Result", "Scorer", "score", "__version__"]
