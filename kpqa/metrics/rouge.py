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
from kpqa.metrics.base import LCS_MAX_CHARS, MeanMetric, register
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
    check_weights(cand, cand_w, refs, refs_w)
    # in float64: float32 sums can put an identical candidate and reference above 1
    cand_w64: list[float] = np.asarray(cand_w, dtype=float).tolist()
    cand_total = sum(cand_w64)
    precisions, recalls = [0.0], [0.0]
    for ref, ref_w in zip(refs, (np.asarray(w, dtype=float).tolist() for w in refs_w)):
        if lcs == "longest":
            _, lcs_c, lcs_r = weighted_lcs(cand, cand_w64, ref, ref_w)
        else:
            lcs_c, lcs_r = heaviest_common_subsequence(cand, cand_w64, ref, ref_w)
        ref_total = sum(ref_w)
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
