"""CIDEr as the COCO caption toolkit (pycocoevalcap's ``Cider``, which is CIDEr-D) computes it.

Each text becomes, for n = 1..4, a vector of n-gram ``tf * idf`` with raw counts as tf and
``idf(g) = log(N) - log(max(1, df(g)))``, where N is the number of rows scored together and df(g) the number of
rows whose references contain g: **the idf comes from the references of the scored corpus**, so a row's score
depends on the other rows of the input (as in COCO); the scorer makes a corpus pass first
(:attr:`~kpqa.metrics.base.Metric.reduction`), so it does not depend on how the input is chunked. Per reference and order, the similarity is the
clipped cosine ``sum_g min(c_g, r_g) * r_g / (|c| |r|)`` times the length penalty ``exp(-delta^2 / (2 sigma^2))``
with sigma = 6; the row score is the mean over orders of the mean over references, times 10. As in COCO, delta
is the difference of the bigram counts (equal to the token-length difference unless one side is empty).
"""
from __future__ import annotations

import math
from collections import Counter
from typing import Sequence

import numpy as np

from kpqa.context import Context
from kpqa.rows import Rows
from kpqa.metrics.base import CORPUS_PASS, DocFreq, MeanMetric, register
from kpqa.metrics.lexical import tokenize_rows
from kpqa.metrics.ngrams import ngram_counts

MAX_N = 4
SIGMA = 6.0

_Vector = tuple[list[dict[tuple, float]], list[float], int]


def _counts(tokens: Sequence[str], max_n: int) -> Counter:
    counts: Counter = Counter()
    for n in range(1, max_n + 1):
        counts.update(ngram_counts(tokens, n))
    return counts


def _vector(counts: Counter, df: Counter, log_n: float, max_n: int) -> _Vector:
    vec: list[dict[tuple, float]] = [{} for _ in range(max_n)]
    norm = [0.0] * max_n
    for gram, tf in counts.items():
        k = len(gram) - 1
        value = float(tf) * (log_n - math.log(max(1.0, df[gram])))
        vec[k][gram] = value
        norm[k] += value * value
    return vec, [math.sqrt(x) for x in norm], sum(c for g, c in counts.items() if len(g) == 2)


def _similarity(hyp: _Vector, ref: _Vector, max_n: int, sigma: float) -> list[float]:
    (vh, nh, lh), (vr, nr, lr) = hyp, ref
    penalty = math.exp(-((lh - lr) ** 2) / (2 * sigma**2))
    out = []
    for k in range(max_n):
        ref_k = vr[k]
        val = sum(min(v, ref_k[g]) * ref_k[g] for g, v in vh[k].items() if g in ref_k)
        if nh[k] != 0 and nr[k] != 0:
            val /= nh[k] * nr[k]
        out.append(val * penalty)
    return out


def ngram_docs(refs: Sequence[Sequence[Sequence[str]]], max_n: int = MAX_N) -> DocFreq:
    """The document frequencies CIDEr's idf reads: a row's references are one document of n-grams (n = 1..max_n)."""
    return DocFreq.of(set().union(*(_counts(r, max_n) for r in rs)) for rs in refs)


def cider_d(
    cands: Sequence[Sequence[str]], refs: Sequence[Sequence[Sequence[str]]], max_n: int = MAX_N, sigma: float = SIGMA,
    corpus: DocFreq | None = None,
) -> np.ndarray:
    """Per-row CIDEr-D of tokenized candidates against their tokenized references (idf from these references, or
    from ``corpus``: the document frequencies of a whole input's, :func:`ngram_docs`)."""
    if not cands:
        return np.zeros(0)
    ref_counts = [[_counts(r, max_n) for r in rs] for rs in refs]
    freq = corpus if corpus is not None else DocFreq.of(set().union(*rows_refs) for rows_refs in ref_counts)
    df: Counter = freq.df
    log_n = math.log(float(freq.docs))
    scores = []
    for cand, rows_refs in zip(cands, ref_counts):
        hyp = _vector(_counts(cand, max_n), df, log_n, max_n)
        total = [0.0] * max_n
        for rc in rows_refs:
            for k, s in enumerate(_similarity(hyp, _vector(rc, df, log_n, max_n), max_n, sigma)):
                total[k] += s
        scores.append(sum(total) / max_n / len(rows_refs) * 10.0 if rows_refs else 0.0)
    return np.array(scores, dtype=float)


@register("CIDEr")
class Cider(MeanMetric):
    """COCO's CIDEr (CIDEr-D: clipping, length penalty sigma 6, x10); idf from the scored rows' references."""

    name = "CIDEr"
    reduction = CORPUS_PASS

    def options(self) -> dict[str, object]:
        return {"n": MAX_N, "sigma": SIGMA, "idf": "refs"}

    def corpus_key(self) -> tuple[str, str]:
        return ("cider-df", str(MAX_N))

    def corpus_stats(self, rows: Rows, ctx: Context) -> DocFreq:
        return ngram_docs(tokenize_rows(rows, ctx)[1])

    def row_scores(self, rows: Rows, ctx: Context) -> np.ndarray:
        cands, refs = tokenize_rows(rows, ctx)
        return cider_d(cands, refs, corpus=self.corpus_of(rows, ctx))
