"""Metrics: one interface (:class:`Metric`), one registry (:func:`get_metric`)."""
from kpqa.metrics.base import Context, Metric, Rows, available, get_metric, register, register_pattern

__all__ = ["Context", "Metric", "Rows", "available", "get_metric", "register", "register_pattern"]
