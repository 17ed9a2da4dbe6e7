"""SQuAD v1.1 exact match and token F1, with the official evaluation script's answer normalisation, and the
answer-containment baseline of answer-equivalence work (``Contains``).

Normalisation: lower-case, delete ASCII punctuation (``string.punctuation``), replace the articles a/an/the by a
space, collapse whitespace. F1 is over whitespace tokens of the normalised strings (bag overlap). Per row, the
maximum over the references. ``Contains`` is 1 when some normalised reference occurs in the normalised candidate as
a run of whole tokens (``"9"`` is not in ``"1990"``); references that normalise to nothing are skipped. The official
script prints 100 x the mean; here scores are in [0, 1]. These metrics use their own normalisation, not the
context's tokenizer, so their signature says ``norm:squad-v1.1``.
"""
from __future__ import annotations

import re
import string
from collections import Counter
from typing import Sequence

import numpy as np

from kpqa.context import Context
from kpqa.rows import Rows
from kpqa.metrics.base import MeanMetric, register

_PUNCT = str.maketrans("", "", string.punctuation)
_ARTICLES = re.compile(r"\b(a|an|the)\b")


def normalize_answer(text: str) -> str:
    """SQuAD v1.1 normalisation: lower, drop punctuation, drop articles, collapse whitespace."""
    return " ".join(_ARTICLES.sub(" ", text.lower().translate(_PUNCT)).split())


def exact_match(prediction: str, references: Sequence[str]) -> float:
    """1.0 when the normalised prediction equals some normalised reference, else 0.0."""
    pred = normalize_answer(prediction)
    return float(any(pred == normalize_answer(r) for r in references))


def contains(prediction: str, references: Sequence[str]) -> float:
    """1.0 when some normalised reference occurs in the normalised prediction as a run of whole tokens, else 0.0."""
    pred = f" {normalize_answer(prediction)} "
    return float(any(ref and f" {ref} " in pred for ref in map(normalize_answer, references)))


def _f1(pred_tokens: list[str], ref_tokens: list[str]) -> float:
    same = sum((Counter(pred_tokens) & Counter(ref_tokens)).values())
    if same == 0:
        return 0.0
    precision, recall = same / len(pred_tokens), same / len(ref_tokens)
    return 2 * precision * recall / (precision + recall)


def token_f1(prediction: str, references: Sequence[str]) -> float:
    """Largest bag-of-tokens F1 between the normalised prediction and a normalised reference."""
    pred = normalize_answer(prediction).split()
    return max((_f1(pred, normalize_answer(r).split()) for r in references), default=0.0)


class _Squad(MeanMetric):
    def options(self) -> dict[str, object]:
        return {"norm": "squad-v1.1"}

    def token_unit(self, ctx: Context) -> str | None:
        return None  # SQuAD's own normalisation, named by ``norm``


@register("EM")
class ExactMatch(_Squad):
    """SQuAD v1.1 exact match (0/1 per row); the corpus score is the fraction of rows matched."""

    name = "EM"

    def row_scores(self, rows: Rows, ctx: Context) -> np.ndarray:
        return np.array([exact_match(c, r) for c, r in zip(rows.candidates, rows.references)], float)


@register("F1")
class TokenF1(_Squad):
    """SQuAD v1.1 token F1; the corpus score is the mean over rows."""

    name = "F1"

    def row_scores(self, rows: Rows, ctx: Context) -> np.ndarray:
        return np.array([token_f1(c, r) for c, r in zip(rows.candidates, rows.references)], float)


@register("Contains")
class Contains(_Squad):
    """Gold-answer containment (0/1 per row): some SQuAD-normalised reference occurs in the normalised candidate;
    the corpus score is the fraction of rows that contain one."""

    name = "Contains"

    def row_scores(self, rows: Rows, ctx: Context) -> np.ndarray:
        return np.array([contains(c, r) for c, r in zip(rows.candidates, rows.references)], float)
