"""Metrics: one interface (:class:`Metric`), one registry (:func:`get_metric`)."""
from kpqa.metrics.base import Context, Metric, Rows, available, get_metric, register, register_pattern
from kpqa.metrics import yang  # noqa: F401  (registers BLEU-4-adapted, ROUGE-L-adapted)
from kpqa.metrics import aev  # noqa: F401  (registers the AEv-<alpha>-<N> family)
from kpqa.metrics import bleu  # noqa: F401  (registers BLEU-1 .. BLEU-4)
from kpqa.metrics import rouge  # noqa: F401  (registers ROUGE-L)
from kpqa.metrics import meteor  # noqa: F401  (registers METEOR)
from kpqa.metrics import cider  # noqa: F401  (registers CIDEr)
from kpqa.metrics import squad  # noqa: F401  (registers EM, F1, Contains)
from kpqa.metrics import bertscore  # noqa: F401  (registers BERTScore[-P|-R|-KPQA][:options]; torch loads lazily)
from kpqa.metrics import kpqa  # noqa: F401  (registers BLEU-1-KPQA, ROUGE-L-KPQA)

__all__ = ["Context", "Metric", "Rows", "available", "get_metric", "register", "register_pattern"]
