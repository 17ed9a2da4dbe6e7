"""BLEU-1..4 as the COCO caption toolkit (pycocoevalcap) computes them, and the weighted BLEU-1 of KPQA.

Per row (sentence BLEU-n, COCO's ``bleu_list``)::

    p_k    = (clipped k-gram matches + 1e-15) / (candidate k-grams + 1e-9)      k = 1..n
    BLEU-n = (p_1 * ... * p_n) ** (1 / n) * BP
    BP     = exp(1 - r / c) when c < r, else 1; r = the reference length closest to c (the shorter on a tie)

Clipping is against the largest count of each n-gram in any one reference. The ``1e-15`` / ``1e-9`` guards are
COCO's: a sentence with no matching k-gram gets a tiny positive score (e.g. ``1e-12``) rather than 0, and the
values here equal COCO's to the last bit. The corpus score is corpus BLEU (Papineni et al. 2002): the same formula
over the sums of matches, k-gram counts, candidate lengths and closest reference lengths of all rows (what COCO
reports as its corpus BLEU, and what sacrebleu computes with ``tokenize="none"``).
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Hashable, Mapping, Sequence

import numpy as np

from kpqa.context import Context
from kpqa.rows import Rows
from kpqa.metrics.base import Metric, Totals, register
from kpqa.metrics.lexical import check_weights, tokenize_rows
from kpqa.metrics.ngrams import clipped_matches, closest_ref_length, max_ref_counts, ngram_counts

TINY = 1e-15  # added to matches (COCO)
SMALL = 1e-9  # added to n-gram counts and lengths (COCO)
MAX_N = 4
ORDERS = range(1, MAX_N + 1)
#: the names of BLEU-1..4's per-row statistics (:func:`row_stats`), in their columns' order: candidate length,
#: closest reference length, clipped matches and candidate n-grams of each order
STATISTICS = ("cand_len", "ref_len", *(f"matches_{n}" for n in ORDERS), *(f"totals_{n}" for n in ORDERS))


@dataclass(frozen=True)
class BleuStats:
    """BLEU's counts of one candidate, index ``n - 1`` for order n: its clipped n-gram matches against the
    references (each n-gram's count capped at its largest count in any one reference) and its n-grams, its length
    and the reference length closest to it (ties: the shorter). Yang et al.'s adapted BLEU counts the same, plus its
    bonuses (:class:`kpqa.metrics.yang.BleuCounts`)."""

    matches: tuple[int, ...]
    totals: tuple[int, ...]
    cand_len: int
    ref_len: int


def bleu_stats(cand: Sequence[Hashable], refs: Sequence[Sequence[Hashable]], max_n: int = MAX_N) -> BleuStats:
    """Statistics of one candidate against its references (token sequences), for orders 1..``max_n``."""
    matches, totals = [], []
    for n in range(1, max_n + 1):
        ceiling = ngram_counts(refs[0], n) if len(refs) == 1 else max_ref_counts(refs, n)
        matches.append(clipped_matches(ngram_counts(cand, n), ceiling))
        totals.append(max(0, len(cand) - n + 1))
    return BleuStats(tuple(matches), tuple(totals), len(cand), closest_ref_length(len(cand), [len(r) for r in refs]))


def bleu_from_stats(matches: Sequence[float], totals: Sequence[float], cand_len: float, ref_len: float) -> list[float]:
    """BLEU-1..len(matches) from (possibly summed) statistics, with COCO's guards and brevity penalty."""
    out, prod = [], 1.0
    for k in range(len(matches)):
        prod *= (float(matches[k]) + TINY) / (float(totals[k]) + SMALL)
        out.append(prod ** (1.0 / (k + 1)))
    ratio = (cand_len + TINY) / (ref_len + SMALL)
    if ratio < 1:
        bp = math.exp(1 - 1 / ratio)
        out = [b * bp for b in out]
    return out


def sentence_bleu(cand: Sequence[str], refs: Sequence[Sequence[str]], max_n: int = MAX_N) -> list[float]:
    """Per-row BLEU-1..``max_n`` of ``cand`` against ``refs`` (token lists), as COCO's per-image scores."""
    s = bleu_stats(cand, refs, max_n)
    return bleu_from_stats(s.matches, s.totals, s.cand_len, s.ref_len)


def corpus_bleu_from_stats(stats: Sequence[BleuStats]) -> list[float]:
    """Corpus BLEU-1..n over rows' statistics (sums of matches, counts and lengths)."""
    if not stats:
        return []
    n = len(stats[0].matches)
    matches = [sum(s.matches[k] for s in stats) for k in range(n)]
    totals = [sum(s.totals[k] for s in stats) for k in range(n)]
    return bleu_from_stats(matches, totals, sum(s.cand_len for s in stats), sum(s.ref_len for s in stats))


def corpus_bleu(
    cands: Sequence[Sequence[str]], refs: Sequence[Sequence[Sequence[str]]], max_n: int = MAX_N
) -> list[float]:
    """Corpus BLEU-1..``max_n`` of tokenized candidates against their tokenized references."""
    return corpus_bleu_from_stats([bleu_stats(c, r, max_n) for c, r in zip(cands, refs)])


def weighted_bleu1(
    cand: Sequence[str],
    cand_w: Sequence[float],
    refs: Sequence[Sequence[str]],
    refs_w: Sequence[Sequence[float]],
) -> float:
    """BLEU-1-KPQA (Lee et al. 2021, eq. 1 with BLEU's clipping and brevity penalty).

    The clipped unigram matches are weighted by the candidate's token weights and divided by the candidate's
    weight sum. A token type occurring ``c`` times in the candidate, clipped to ``m`` matches, contributes
    ``m / c`` of the summed weights of its ``c`` occurrences (every occurrence is credited alike). The brevity
    penalty is BLEU-1's, on token counts. Reference weights do not enter (eq. 1 is a precision); ``refs_w`` is
    taken (and checked) for a signature symmetric with :func:`kpqa.metrics.rouge.weighted_rouge_l`. With all
    weights 1 the result equals :func:`sentence_bleu` ``[0]`` exactly.
    """
    check_weights(cand, cand_w, refs, refs_w)
    ceiling = max_ref_counts(refs, 1)
    mass: dict[str, float] = {}
    count: dict[str, int] = {}
    for tok, w in zip(cand, cand_w):
        mass[tok] = mass.get(tok, 0.0) + float(w)  # float64: float32 sums can put an identical pair above 1
        count[tok] = count.get(tok, 0) + 1
    matched = 0.0
    for tok, c in count.items():
        clip = min(c, ceiling.get((tok,), 0))
        if clip:
            matched += mass[tok] * clip / c
    p = (matched + TINY) / (math.fsum(map(float, cand_w)) + SMALL)
    ratio = (len(cand) + TINY) / (closest_ref_length(len(cand), [len(r) for r in refs]) + SMALL)
    return p * math.exp(1 - 1 / ratio) if ratio < 1 else p


def named_stats(s: BleuStats) -> dict[str, int]:
    """One row's :class:`BleuStats` by the names of :data:`STATISTICS`."""
    return {"cand_len": s.cand_len, "ref_len": s.ref_len, **{f"matches_{n}": m for n, m in zip(ORDERS, s.matches)},
            **{f"totals_{n}": t for n, t in zip(ORDERS, s.totals)}}


def row_stats(rows: Rows, ctx: Context) -> np.ndarray:
    """Statistics of every row for orders 1..4, ``[rows, len(STATISTICS)]`` int64, named by :data:`STATISTICS`
    (shared by BLEU-1..4 through ``ctx.shared``)."""

    def compute() -> np.ndarray:
        cands, refs = tokenize_rows(rows, ctx)
        out = np.zeros((len(rows), len(STATISTICS)), dtype=np.int64)
        for i, (c, r) in enumerate(zip(cands, refs)):
            named = named_stats(bleu_stats(c, r, MAX_N))
            out[i] = [named[k] for k in STATISTICS]
        return out

    return ctx.shared(("bleu-stats", ctx.tokenizer), compute)


def _unpack(stats: Mapping[str, int | Fraction | float]) -> tuple[list[int], list[int], int, int]:
    """(matches, totals, cand_len, ref_len) of one row of :func:`row_stats` (or of their sums) by name."""
    return ([int(stats[f"matches_{n}"]) for n in ORDERS], [int(stats[f"totals_{n}"]) for n in ORDERS],
            int(stats["cand_len"]), int(stats["ref_len"]))


class _Bleu(Metric):
    """Per-row COCO sentence BLEU-n; corpus score is corpus BLEU-n (from the summed counts)."""

    n: int

    def options(self) -> dict[str, object]:
        return {"ref_len": "closest", "smooth": "coco"}

    def statistics(self) -> tuple[str, ...]:
        return STATISTICS

    def stats(self, rows: Rows, ctx: Context) -> np.ndarray:
        return row_stats(rows, ctx)

    def per_row(self, stats: np.ndarray) -> dict[str, np.ndarray]:
        k = self.n - 1  # BLEU-n depends on orders 1..n only: scoring all orders at once changes nothing
        values = [bleu_from_stats(*_unpack(dict(zip(STATISTICS, row))))[k] for row in stats.tolist()]
        return {self.name: np.array(values, dtype=float)}

    def corpus(self, totals: Totals) -> dict[str, float]:
        if not totals.n:
            return {self.name: float("nan")}
        return {self.name: bleu_from_stats(*_unpack(totals.named(STATISTICS)))[self.n - 1]}


@register("BLEU-1")
class Bleu1(_Bleu):
    """BLEU-1 (COCO convention)."""

    name, n = "BLEU-1", 1


@register("BLEU-2")
class Bleu2(_Bleu):
    """BLEU-2 (COCO convention)."""

    name, n = "BLEU-2", 2


@register("BLEU-3")
class Bleu3(_Bleu):
    """BLEU-3 (COCO convention)."""

    name, n = "BLEU-3", 3


@register("BLEU-4")
class Bleu4(_Bleu):
    """BLEU-4 (COCO convention)."""

    name, n = "BLEU-4", 4
