"""Equivalence: the answer-equivalence model's logit that the candidate gives the reference's answer, the best over
the references (:mod:`kpqa.models.equivalence`, a MiniLM cross-encoder over question, reference and candidate).

The score is the logit itself (any real number; above 0 the model reads the candidate as giving the reference's
answer), because that is what KPQA-judge combines with the other metrics (:mod:`kpqa.calibration`); its calibrated
P(correct) is what ``--decide`` writes. ``Equivalence:model=DIR`` takes another checkpoint (``kpqa train-equivalence``).
The corpus score is the mean logit. The signature names the checkpoint's hash and the arithmetic precision.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from kpqa.context import Context
from kpqa.rows import Rows
from kpqa.metrics.base import MeanMetric, register
from kpqa.metrics.spec import Option
from kpqa.signature import Signature

if TYPE_CHECKING:  # pragma: no cover
    from kpqa.models.equivalence import EquivalenceRunner

NAME = "Equivalence"


@register(NAME)
class Equivalence(MeanMetric):
    """The answer-equivalence model's logit (question, reference, candidate), best over references."""

    name = NAME
    uses_model = True
    spec_options = (Option("model", default=None, shown="DIR"),)

    def __init__(self, model: str | None = None, spec: str = "") -> None:
        self.model, self.spec = model, spec

    def columns(self) -> list[str]:
        return [f"{NAME}{self.spec}"]

    def signature_name(self) -> str:
        return NAME

    def token_unit(self, ctx: Context) -> str | None:
        return None

    def _model(self, ctx: Context) -> "EquivalenceRunner":
        from kpqa.models.equivalence import EquivalenceRunner

        return ctx.models.get(("equivalence", self.model, ctx.device, ctx.precision),
                              lambda: EquivalenceRunner.load(self.model, device=ctx.device,
                                                             batch_size=ctx.batch_size, precision=ctx.precision))

    def row_scores(self, rows: Rows, ctx: Context) -> np.ndarray:
        return self._model(ctx).best(rows.questions, rows.references, rows.candidates)

    def signature(self, ctx: Context) -> Signature:
        """The checkpoint's hash, its backbone and the arithmetic precision."""
        model = self._model(ctx)
        return Signature.of(NAME, [("model", model.checkpoint_hash), ("backbone", model.backbone),
                                   ("precision", model.precision)])
