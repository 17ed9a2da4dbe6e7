"""BLEU-1-KPQA and ROUGE-L-KPQA (Lee et al. 2021, eq. 1-5): BLEU-1 and ROUGE-L with keyphrase weights (KPW).

Each candidate token is weighted by KPW(Q, candidate) and each reference token by KPW(Q, reference), mapped to the
metric tokenizer's tokens by ``Context.word_weights`` (the weighter's one word mapping). The weighted sums are those
of :func:`kpqa.metrics.bleu.weighted_bleu1` and :func:`kpqa.metrics.rouge.weighted_rouge_l`; with uniform weights
the scores are BLEU-1 and ROUGE-L. The column ends in ``-KPQA``, or ``-KP`` when the scorer sets ``suffix = "KP"``
for the question-free weighter (the paper's Table 4 ablation).
"""
from __future__ import annotations

from abc import abstractmethod
from typing import ClassVar, Sequence

import numpy as np

from kpqa.errors import UsageError
from kpqa.metrics.base import Context, Metric, Rows, register
from kpqa.metrics.bertscore import regroup
from kpqa.metrics.bleu import weighted_bleu1
from kpqa.metrics.lexical import tokenize_rows
from kpqa.metrics.rouge import weighted_rouge_l
from kpqa.text import Tokenizer, get_tokenizer


def row_weights(rows: Rows, ctx: Context, tokenizer: Tokenizer) -> tuple[list[np.ndarray], list[list[np.ndarray]]]:
    """KPW per token of each candidate (from (question, candidate)) and of each reference (from (question, ref)),
    computed in one batch."""
    if ctx.word_weights is None:
        raise UsageError("KPQA metrics need a keyphrase weighter (Context.word_weights is not set)")
    pairs = list(zip(rows.questions, rows.candidates))
    pairs += [(q, r) for q, g in zip(rows.questions, rows.references) for r in g]
    weights = ctx.word_weights(pairs, tokenizer)
    return weights[: len(rows)], regroup(weights[len(rows) :], rows.references)


class _WeightedLexical(Metric):
    """A lexical metric on KPW-weighted tokens."""

    requires = frozenset({"weights"})
    base: ClassVar[str]
    suffix: str = "KPQA"

    def columns(self) -> list[str]:
        return [f"{self.base}-{self.suffix}"]

    @abstractmethod
    def _score_one(
        self, cand: list[str], cand_w: np.ndarray, refs: list[list[str]], refs_w: Sequence[np.ndarray]
    ) -> float:
        """The score of one row."""

    def score(self, rows: Rows, ctx: Context) -> dict[str, np.ndarray]:
        cand_w, refs_w = row_weights(rows, ctx, get_tokenizer(ctx.tokenizer))
        cands, refs = tokenize_rows(rows, ctx)
        values = [self._score_one(*args) for args in zip(cands, cand_w, refs, refs_w)]
        return {self.columns()[0]: np.asarray(values, dtype=float)}


@register("BLEU-1-KPQA")
class Bleu1KPQA(_WeightedLexical):
    """KPW-weighted unigram precision (eq. 1), per row against all its references."""

    name = "BLEU-1-KPQA"
    base = "BLEU-1"

    def _score_one(self, cand, cand_w, refs, refs_w) -> float:
        return float(weighted_bleu1(cand, cand_w, refs, refs_w))


@register("ROUGE-L-KPQA")
class RougeLKPQA(_WeightedLexical):
    """KPW-weighted ROUGE-L F (eq. 2-5, beta 1.2), the best over the references."""

    name = "ROUGE-L-KPQA"
    base = "ROUGE-L"

    def __init__(self, beta: float = 1.2) -> None:
        self.beta = beta

    def options(self) -> dict[str, object]:
        return {"beta": self.beta}

    def _score_one(self, cand, cand_w, refs, refs_w) -> float:
        return float(weighted_rouge_l(cand, cand_w, refs, refs_w, beta=self.beta)[2])
