"""Metrics: one interface (:class:`Metric`), one registry (:func:`get_metric`).

The built-in metric modules register themselves when the registry is first asked (:func:`get_metric`,
:func:`available`), so importing one metric module does not import the others.
"""
from kpqa.context import Context
from kpqa.metrics.base import MeanMetric, Metric, Totals, available, get_metric, register, register_pattern
from kpqa.metrics.spec import Option
from kpqa.rows import Rows

__all__ = ["Context", "MeanMetric", "Metric", "Option", "Rows", "Totals", "available", "get_metric", "register",
           "register_pattern"]
