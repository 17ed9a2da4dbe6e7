"""ROUGE-L as the COCO caption toolkit (pycocoevalcap) computes it, and the weighted ROUGE-L of KPQA.

For each reference k: ``P_k = LCS_k / len(candidate)``, ``R_k = LCS_k / len(reference_k)``. COCO then takes the
largest precision and the largest recall over the references *separately* (they may come from different
references) and combines them with ``beta = 1.2``::

    F = (1 + beta^2) * P * R / (R + beta^2 * P)        P = max_k P_k,  R = max_k R_k;  F = 0 when P or R is 0

This is not the F of the best single reference (rouge-score's convention), and with one reference the two agree.
An empty candidate or reference has LCS 0 (COCO would split "" into one empty token; the score is 0 either way,
except that COCO scores an empty candidate against an empty reference 1 and we score it 0).
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from kpqa.context import Context
from kpqa.rows import Rows
from kpqa.lengths import LCS_MAX_CHARS
from kpqa.metrics.base import MeanMetric, register
from kpqa.metrics.lexical import check_weights, tokenize_rows
from kpqa.metrics.ngrams import f_measure, lcs_length

BETA = 1.2


def _shared(a: Sequence[str], b: Sequence[str]) -> tuple[list[int], list[int]]:
    """Indices of the tokens of ``a`` that occur in ``b`` and vice versa: the only ones an LCS can use."""
    in_a, in_b = set(a), set(b)
    return [i for i, t in enumerate(a) if t in in_b], [j for j, t in enumerate(b) if t in in_a]


def rouge_l(cand: Sequence[str], refs: Sequence[Sequence[str]], beta: float = BETA) -> tuple[float, float, float]:
    """(P, R, F) of ``cand`` against ``refs`` (token lists), COCO's aggregation over references."""
    precisions, recalls = [0.0], [0.0]
    for ref in refs:
        ia, ib = _shared(cand, ref)
        lcs = lcs_length([cand[i] for i in ia], [ref[j] for j in ib]) if ia else 0
        precisions.append(lcs / float(len(cand)) if cand else 0.0)
        recalls.append(lcs / float(len(ref)) if ref else 0.0)
    p, r = max(precisions), max(recalls)
    return p, r, f_measure(p, r, beta)


def _pair(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """``first + second * 1j``, built exactly: numpy orders complex numbers by real part, then imaginary part, so
    ``np.maximum.accumulate`` of such pairs is a running lexicographic maximum."""
    out = np.empty(len(first), dtype=complex)
    out.real, out.imag = first, second
    return out


def _rows(
    a: Sequence[str], wa: Sequence[float], b: Sequence[str], wb: Sequence[float]
) -> tuple[list[tuple[float, np.ndarray]], np.ndarray, int] | None:
    """The dynamic programme's rows: per token of ``a`` that occurs in ``b``, its weight and the cells ``j`` (1-based
    over the tokens of ``b`` that occur in ``a``) where it matches; those tokens' weights; their count. None when
    the texts share no token."""
    ia, ib = _shared(a, b)
    if not ia:
        return None
    ids = {t: k for k, t in enumerate(dict.fromkeys(b[j] for j in ib))}
    ys = np.fromiter((ids[b[j]] for j in ib), dtype=np.int64, count=len(ib))
    order = np.argsort(ys, kind="stable")
    cells = np.split(order + 1, np.flatnonzero(np.diff(ys[order])) + 1)  # per token id, where it occurs
    yw = np.fromiter((wb[j] for j in ib), dtype=float, count=len(ib))
    return [(float(wa[i]), cells[ids[a[i]]]) for i in ia], yw, len(ib)


def weighted_lcs(
    a: Sequence[str], wa: Sequence[float], b: Sequence[str], wb: Sequence[float]
) -> tuple[int, float, float]:
    """LCS of ``a`` and ``b``: its length, the largest ``wa`` sum and the largest ``wb`` sum of a longest one.

    Among the longest common subsequences the one with the largest weight sum is chosen, separately for each side
    (a lexicographic (length, weight) dynamic programme); with unit weights both sums equal the length. One row of
    the programme at a time, vectorised over ``b``: memory linear in the texts, time ``len(a) * len(b)`` numpy
    steps.
    """
    found = _rows(a, wa, b, wb)
    if found is None:
        return 0, 0.0, 0.0
    rows, yw, m = found
    length, sa, sb = np.zeros(m + 1), np.zeros(m + 1), np.zeros(m + 1)
    for w_x, j in rows:
        # a cell takes the longest of skip x (the row above) and match (its diagonal), the heaviest sums among
        # equals; then the running maximum along the row adds skip y
        cl, ca, cb = length.copy(), sa.copy(), sb.copy()
        dl, da, db = length[j - 1] + 1, sa[j - 1] + w_x, sb[j - 1] + yw[j - 1]
        longer, level = dl > length[j], dl == length[j]
        cl[j] = np.where(longer, dl, length[j])
        ca[j] = np.where(longer, da, np.where(level, np.maximum(da, sa[j]), sa[j]))
        cb[j] = np.where(longer, db, np.where(level, np.maximum(db, sb[j]), sb[j]))
        run_a, run_b = np.maximum.accumulate(_pair(cl, ca)), np.maximum.accumulate(_pair(cl, cb))
        length, sa, sb = run_a.real, run_a.imag, run_b.imag
    return int(length[-1]), float(sa[-1]), float(sb[-1])


def heaviest_common_subsequence(
    a: Sequence[str], wa: Sequence[float], b: Sequence[str], wb: Sequence[float]
) -> tuple[float, float]:
    """The common subsequence of ``a`` and ``b`` whose matches weigh most (a match of ``a[i]`` with ``b[j]`` weighs
    ``wa[i] + wb[j]``): its ``wa`` sum and its ``wb`` sum.

    The longest common subsequence can leave out the one token that matters: in "ptolemy proposed the geocentric
    theory" against "the geocentric theory was proposed by ptolemy" it is "the geocentric theory", without
    "ptolemy". The heaviest one keeps "ptolemy" when its keyphrase weight outweighs the words it displaces. With
    equal weights it is a longest common subsequence, so the sums are the LCS length times the weight. Ties go to
    skipping a token of ``b``, then of ``a``, then to the match. Memory and time as :func:`weighted_lcs`.
    """
    found = _rows(a, wa, b, wb)
    if found is None:
        return 0.0, 0.0
    rows, yw, m = found
    s, sa, sb = np.zeros(m + 1), np.zeros(m + 1), np.zeros(m + 1)
    back = -np.arange(m + 1, dtype=float)  # a running maximum of (s, -j) keeps the first cell of the best weight
    for w_x, j in rows:
        cs, ca, cb = s.copy(), sa.copy(), sb.copy()
        ds = s[j - 1] + w_x + yw[j - 1]
        match = ds > s[j]
        cs[j] = np.where(match, ds, s[j])
        ca[j] = np.where(match, sa[j - 1] + w_x, sa[j])
        cb[j] = np.where(match, sb[j - 1] + yw[j - 1], sb[j])
        source = (-np.maximum.accumulate(_pair(cs, back)).imag).astype(np.int64)
        s, sa, sb = cs[source], ca[source], cb[source]
    return float(sa[-1]), float(sb[-1])


#: the batched programme's arrays hold at most this many cells (pairs x their longest row of cells) at a time
BATCH_CELLS = 1 << 20


def heaviest_common_subsequences(
    pairs: Sequence[tuple[Sequence[str], Sequence[float], Sequence[str], Sequence[float]]],
) -> list[tuple[float, float]]:
    """:func:`heaviest_common_subsequence` of each ``(a, wa, b, wb)``, the same numbers, the programmes of many
    pairs run together: pairs of similar size side by side in arrays of at most :data:`BATCH_CELLS` cells, step k
    taking each pair's k-th row (a pair out of rows keeps its cells). Each cell's arithmetic is the single pair's,
    in the same order, so every sum is the same to the last bit."""
    out: list[tuple[float, float]] = [(0.0, 0.0)] * len(pairs)
    found = [(i, f) for i, f in enumerate(_rows(*pair) for pair in pairs) if f is not None]
    found.sort(key=lambda item: (item[1][2], len(item[1][0])))
    start = 0
    while start < len(found):
        end = start + 1
        while end < len(found) and (end + 1 - start) * (found[end][1][2] + 1) <= BATCH_CELLS:
            end += 1
        group = found[start:end]
        for (i, _), sums in zip(group, _heaviest_together([f for _, f in group])):
            out[i] = sums
        start = end
    return out


def _heaviest_together(found: list[tuple[list[tuple[float, np.ndarray]], np.ndarray, int]]) -> list[tuple[float, float]]:
    """The programmes of :func:`heaviest_common_subsequence` (``_rows`` of each pair) run side by side."""
    n, width = len(found), max(m for _, _, m in found) + 1
    steps = max(len(rows) for rows, _, _ in found)
    yw = np.zeros((n, width))  # yw[p, j]: the weight of pair p's j-th token of b (1-based)
    for p, (_, weights, m) in enumerate(found):
        yw[p, 1 : m + 1] = weights
    lengths = np.array([len(rows) for rows, _, _ in found])
    weights = np.zeros((steps, n))  # weights[k, p]: the weight of pair p's k-th row's token of a
    ks: list[int] = []  # each match of every pair's rows: its step, its pair, its cell
    ps: list[int] = []
    js: list[int] = []
    for p, (rows, _, _) in enumerate(found):
        weights[: len(rows), p] = [w for w, _ in rows]
        for k, (_, cells) in enumerate(rows):
            ks += [k] * len(cells)
            ps += [p] * len(cells)
            js += cells.tolist()
    where = np.array([ks, ps, js], dtype=np.int64)
    where = where[:, np.argsort(where[0], kind="stable")]
    bounds = np.searchsorted(where[0], np.arange(steps + 1))
    s, sa, sb = np.zeros((n, width)), np.zeros((n, width)), np.zeros((n, width))
    back = np.broadcast_to(-np.arange(width, dtype=float), (n, width))
    for k in range(steps):
        live, w_x = k < lengths, weights[k]
        cells = np.zeros((n, width), dtype=bool)
        cells[where[1, bounds[k] : bounds[k + 1]], where[2, bounds[k] : bounds[k + 1]]] = True
        ds, da, db = np.full((n, width), -np.inf), np.zeros((n, width)), np.zeros((n, width))
        ds[:, 1:] = s[:, :-1] + w_x[:, None] + yw[:, 1:]
        da[:, 1:] = sa[:, :-1] + w_x[:, None]
        db[:, 1:] = sb[:, :-1] + yw[:, 1:]
        match = cells & (ds > s)
        cs, ca, cb = np.where(match, ds, s), np.where(match, da, sa), np.where(match, db, sb)
        pair = np.empty((n, width), dtype=complex)
        pair.real, pair.imag = cs, back
        source = (-np.maximum.accumulate(pair, axis=1).imag).astype(np.int64)
        keep = live[:, None]
        s = np.where(keep, np.take_along_axis(cs, source, 1), s)
        sa = np.where(keep, np.take_along_axis(ca, source, 1), sa)
        sb = np.where(keep, np.take_along_axis(cb, source, 1), sb)
    ends = np.array([m for _, _, m in found])
    rows_at = np.arange(n)
    return list(zip(sa[rows_at, ends].tolist(), sb[rows_at, ends].tolist()))


SUBSEQUENCES = ("longest", "heaviest")


def weighted_rouge_l(
    cand: Sequence[str],
    cand_w: Sequence[float],
    refs: Sequence[Sequence[str]],
    refs_w: Sequence[Sequence[float]],
    beta: float = BETA,
    lcs: str = "longest",
) -> tuple[float, float, float]:
    """ROUGE-L-KPQA (Lee et al. 2021, eq. 2-5): (P, R, F) with token weights, aggregated over references as COCO.

    ``P_k`` = candidate weights of the candidate tokens in the LCS / candidate weight sum (eq. 2, 5).
    ``R_k`` = reference weights of the reference tokens in the LCS / reference weight sum. This is our reading of
    eq. 3: eq. 5 literally puts the *candidate* weights of the LCS over the *reference's* weight sum, which can
    exceed 1; weighting each side by its own weights keeps R in [0, 1] and symmetric with P. Among LCSs of equal
    length the heaviest is used (:func:`weighted_lcs`). P = max_k P_k, R = max_k R_k, F as
    :func:`kpqa.metrics.ngrams.f_measure`.
    With ``lcs="heaviest"`` the subsequence is :func:`heaviest_common_subsequence` instead of a longest one.
    With all weights 1 the result equals :func:`rouge_l` exactly (either way).
    """
    if lcs not in SUBSEQUENCES:
        raise ValueError(f"lcs must be {' or '.join(SUBSEQUENCES)}, not {lcs!r}")
    pairs = _float_pairs(cand, cand_w, refs, refs_w)
    found = ([weighted_lcs(*pair)[1:] for pair in pairs] if lcs == "longest"
             else [heaviest_common_subsequence(*pair) for pair in pairs])
    return _weighted_prf(pairs, found, beta)


def weighted_rouge_l_rows(
    rows: Sequence[tuple[Sequence[str], Sequence[float], Sequence[Sequence[str]], Sequence[Sequence[float]]]],
    beta: float = BETA,
) -> list[tuple[float, float, float]]:
    """:func:`weighted_rouge_l` with ``lcs="heaviest"`` of each ``(cand, cand_w, refs, refs_w)``, the same numbers,
    the subsequences of every row and reference computed together (:func:`heaviest_common_subsequences`)."""
    pairs = [_float_pairs(*row) for row in rows]
    found = iter(heaviest_common_subsequences([pair for row in pairs for pair in row]))
    return [_weighted_prf(row, [next(found) for _ in row], beta) for row in pairs]


Pair = tuple[Sequence[str], list[float], Sequence[str], list[float]]


def _float_pairs(cand: Sequence[str], cand_w: Sequence[float], refs: Sequence[Sequence[str]],
                 refs_w: Sequence[Sequence[float]]) -> list[Pair]:
    """(candidate, its weights, reference, its weights) per reference, checked, the weights as float64 lists (float32
    sums can put an identical candidate and reference above 1)."""
    check_weights(cand, cand_w, refs, refs_w)
    cand_w64: list[float] = np.asarray(cand_w, dtype=float).tolist()
    return [(cand, cand_w64, ref, np.asarray(w, dtype=float).tolist()) for ref, w in zip(refs, refs_w)]


def _weighted_prf(pairs: Sequence[Pair], found: Sequence[tuple[float, float]],
                  beta: float) -> tuple[float, float, float]:
    """(P, R, F) from each reference's subsequence sums (candidate side, reference side), COCO's aggregation."""
    precisions, recalls = [0.0], [0.0]
    for (_, cand_w, _, ref_w), (lcs_c, lcs_r) in zip(pairs, found):
        cand_total, ref_total = sum(cand_w), sum(ref_w)
        precisions.append(lcs_c / cand_total if cand_total > 0 else 0.0)
        recalls.append(lcs_r / ref_total if ref_total > 0 else 0.0)
    p, r = max(precisions), max(recalls)
    return p, r, f_measure(p, r, beta)


@register("ROUGE-L")
class RougeL(MeanMetric):
    """ROUGE-L F (beta 1.2), COCO convention; the corpus score is the mean of the rows."""

    name = "ROUGE-L"
    max_chars = LCS_MAX_CHARS

    def options(self) -> dict[str, object]:
        return {"beta": BETA, "refs": "max-p-max-r"}

    def row_scores(self, rows: Rows, ctx: Context) -> np.ndarray:
        cands, refs = tokenize_rows(rows, ctx)
        return np.array([rouge_l(c, r)[2] for c, r in zip(cands, refs)], dtype=float)
