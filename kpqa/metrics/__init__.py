"""Metrics: one interface (:class:`Metric`), one registry (:func:`get_metric`)."""
from kpqa.metrics.base import Context, Metric, Rows, available, get_metric, register, register_pattern
from kpqa.metrics import yang  # noqa: F401  (registers BLEU-4-adapted, ROUGE-L-adapted)
from kpqa.metrics import aev  # noqa: F401  (registers the AEv-<alpha>-<N> family)

__all__ = ["Context", "Metric", "Rows", "available", "get_metric", "register", "register_pattern"]
