"""Counting primitives shared by the lexical metrics: n-gram counts, clipping, the closest reference length,
longest common subsequence, the F-measure."""
from __future__ import annotations

from collections import Counter
from typing import Hashable, Sequence

from rapidfuzz.distance import LCSseq


def closest_ref_length(testlen: int, reflens: Sequence[int]) -> int:
    """The reference length closest to ``testlen``; the shorter one on a tie (COCO's "closest")."""
    return min((abs(r - testlen), r) for r in reflens)[1]


def f_measure(p: float, r: float, beta: float) -> float:
    """``(1 + beta^2) P R / (R + beta^2 P)`` (COCO's ROUGE-L F, Yang et al.'s with their gamma); 0 when P or R is
    0."""
    if p == 0 or r == 0:
        return 0.0
    return ((1 + beta**2) * p * r) / float(r + beta**2 * p)


def ngram_counts(tokens: Sequence[Hashable], n: int) -> Counter:
    """Counts of the ``n``-grams (as tuples) of ``tokens``."""
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def max_ref_counts(refs: Sequence[Sequence[Hashable]], n: int) -> Counter:
    """For each n-gram, the largest count it has in any one reference (BLEU's clipping ceiling)."""
    ceiling: Counter = Counter()
    for ref in refs:
        for gram, count in ngram_counts(ref, n).items():
            if count > ceiling[gram]:
                ceiling[gram] = count
    return ceiling


def clipped_matches(candidate: Counter, ceiling: Counter) -> int:
    """Sum over candidate n-grams of ``min(count, ceiling)`` (BLEU's ``Count_clip``)."""
    return sum(min(count, ceiling[gram]) for gram, count in candidate.items() if gram in ceiling)


def lcs_length(a: Sequence[Hashable], b: Sequence[Hashable]) -> int:
    """Length of the longest common subsequence of ``a`` and ``b`` (rapidfuzz's bit-parallel ``LCSseq``, a
    required dependency)."""
    if not a or not b:
        return 0
    return int(LCSseq.similarity(a, b))
