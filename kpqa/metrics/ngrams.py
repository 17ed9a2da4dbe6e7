"""Counting primitives shared by the lexical metrics: n-gram counts, clipping, the closest reference length,
longest common subsequence, the F-measure."""
from __future__ import annotations

from collections import Counter
from typing import Any, Hashable, Sequence

_LCSseq: Any
try:
    from rapidfuzz.distance import LCSseq as _LCSseq
except ImportError:  # pragma: no cover - rapidfuzz is a dependency
    _LCSseq = None


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


def lcs_table(a: Sequence[Hashable], b: Sequence[Hashable]) -> list[list[int]]:
    """Dynamic-programming table: ``t[i][j]`` is the LCS length of ``a[:i]`` and ``b[:j]``."""
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i, x in enumerate(a, 1):
        row, prev = table[i], table[i - 1]
        for j, y in enumerate(b, 1):
            row[j] = prev[j - 1] + 1 if x == y else (prev[j] if prev[j] >= row[j - 1] else row[j - 1])
    return table


def lcs_length(a: Sequence[Hashable], b: Sequence[Hashable]) -> int:
    """Length of the longest common subsequence of ``a`` and ``b`` (rapidfuzz's bit-parallel ``LCSseq``; the
    dynamic programme of :func:`lcs_table` when rapidfuzz is not installed)."""
    if not a or not b:
        return 0
    if _LCSseq is not None:
        return int(_LCSseq.similarity(a, b))
    return lcs_table(a, b)[len(a)][len(b)]


def lcs_alignment(a: Sequence[Hashable], b: Sequence[Hashable]) -> list[tuple[int, int]]:
    """One longest common subsequence as index pairs ``(i, j)`` with ``a[i] == b[j]``, in increasing order.

    Ties (several LCSs of equal length) are resolved by backtracking from the end and preferring to drop a token
    of ``a`` (``i - 1``) when both moves keep the length: the match kept for a repeated token is then its last
    possible occurrence in ``a``. The choice matters only for weighted LCS sums.
    """
    if not a or not b:
        return []
    table = lcs_table(a, b)
    i, j, pairs = len(a), len(b), []
    while i and j:
        if a[i - 1] == b[j - 1]:
            pairs.append((i - 1, j - 1))
            i, j = i - 1, j - 1
        elif table[i - 1][j] >= table[i][j - 1]:
            i -= 1
        else:
            j -= 1
    return pairs[::-1]
