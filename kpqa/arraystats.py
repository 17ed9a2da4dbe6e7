"""Plain array statistics of 0/1 labels (1 correct, 0 wrong), and the bootstrap's resamples: numpy (and scipy's
ranks) only, no kpqa module, so that every stage that measures decisions uses the one formula of each (calibration's
thresholds, the equivalence trainer's dev figures, the meta-evaluation's :mod:`kpqa.binary` and
:mod:`kpqa.metaeval.stats`).

Every statistic of labels is computed on a ``[resamples, rows]`` matrix at once (or one ``[rows]`` array), so that
the point value (one row: the data) and the bootstrap (rows resampled with replacement, :func:`bootstrap_chunks`)
share one implementation:

- :func:`accuracy`, :func:`balanced_accuracy` (its formula :func:`balanced`, on counts) and Cohen's :func:`kappa`
  (its formula :func:`cohen_kappa`, on shares) of 0/1 decisions;
- :func:`auroc` (ties count one half, as in the Mann-Whitney U) and :func:`average_precision` (sklearn's definition:
  the sum over distinct thresholds of the recall gained times the precision there) of scores;
- :func:`brier` (mean squared error of probabilities) and :func:`ece`, the expected calibration error over ``BINS``
  equal-width probability bins: sum over bins of (rows in bin / rows) * |mean label - mean probability|.

A statistic that is undefined (one class only; kappa when the chance agreement is 1) is NaN.
"""
from __future__ import annotations

from typing import Iterator

import numpy as np

from kpqa.types import Floats

BINS = 10
CHUNK = 2_000_000  # indices drawn at a time: bounds the memory of a bootstrap over many rows


def bootstrap_chunks(n: int, resamples: int, seed: int | None = 0) -> Iterator[np.ndarray]:
    """Row indices of ``resamples`` resamples of ``n`` rows (with replacement), a block of rows at a time; the same
    (n, resamples, seed) always gives the same resamples, so metrics scored with one seed share them."""
    rng = np.random.default_rng(seed)
    per = max(1, CHUNK // max(1, n))
    for start in range(0, resamples, per):
        yield rng.integers(0, n, size=(min(per, resamples - start), n))


def bootstrap_indices(n: int, resamples: int, seed: int | None = 0) -> np.ndarray:
    """All of :func:`bootstrap_chunks` as one ``[resamples, n]`` matrix."""
    return np.concatenate(list(bootstrap_chunks(n, resamples, seed)) or [np.empty((0, n), dtype=np.int64)])


def accuracy(labels: np.ndarray, decisions: np.ndarray) -> np.ndarray:
    """Share of rows where the decision equals the label, per row of the ``[B, n]`` matrices."""
    return np.mean(labels == decisions, axis=-1)


def balanced(true_pos: Floats, positives: Floats, true_neg: Floats, negatives: Floats) -> np.ndarray:
    """Balanced accuracy from counts (or weights): the mean of the share of correct (1) rows judged correct
    (``true_pos / positives``) and of wrong (0) rows judged wrong (``true_neg / negatives``); NaN where a class has
    no rows."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return (np.asarray(true_pos) / positives + np.asarray(true_neg) / negatives) / 2


def balanced_accuracy(labels: np.ndarray, decisions: np.ndarray) -> np.ndarray:
    """:func:`balanced` accuracy of decisions against labels, per row of the ``[B, n]`` matrices (what ``kpqa
    calibrate``'s default threshold maximises); NaN with one class."""
    y = np.asarray(labels, dtype=float)
    right = np.asarray(labels) == np.asarray(decisions)
    return balanced((right * y).sum(axis=-1), y.sum(axis=-1), (right * (1 - y)).sum(axis=-1), (1 - y).sum(axis=-1))


def cohen_kappa(observed: Floats, correct: Floats, judged: Floats) -> np.ndarray:
    """Cohen's kappa from the observed agreement, the share of rows correct and the share judged correct (the
    chance agreement ``correct * judged + (1 - correct) * (1 - judged)``); NaN where the chance agreement is 1."""
    chance = np.asarray(correct) * judged + (1 - np.asarray(correct)) * (1 - np.asarray(judged))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(chance < 1, (np.asarray(observed) - chance) / (1 - chance), np.nan)


def kappa(labels: np.ndarray, decisions: np.ndarray) -> np.ndarray:
    """Cohen's kappa of decisions against labels, per row; NaN where the chance agreement is 1."""
    y, d = labels.astype(float), decisions.astype(float)
    return cohen_kappa(np.mean(y == d, axis=-1), y.mean(axis=-1), d.mean(axis=-1))


def auroc(labels: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """Area under the ROC curve per row (Mann-Whitney U / (positives x negatives)); NaN with one class."""
    from scipy import stats

    y = labels.astype(float)
    ranks = stats.rankdata(scores, axis=-1)  # average ranks: a tie counts one half
    pos = y.sum(axis=-1)
    neg = y.shape[-1] - pos
    with np.errstate(invalid="ignore", divide="ignore"):
        return ((ranks * y).sum(axis=-1) - pos * (pos + 1) / 2) / (pos * neg)


def average_precision(labels: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """Average precision per row, tied scores taken as one threshold (sklearn's definition); NaN without positives."""
    y, s = np.atleast_2d(labels).astype(float), np.atleast_2d(scores)
    order = np.argsort(-s, axis=-1, kind="stable")
    ys, ss = np.take_along_axis(y, order, -1), np.take_along_axis(s, order, -1)
    n = ys.shape[-1]
    precision = np.cumsum(ys, axis=-1) / np.arange(1, n + 1)
    last = np.ones_like(ss, dtype=bool)  # the last row of each run of tied scores: where a threshold falls
    last[:, :-1] = ss[:, :-1] != ss[:, 1:]
    index = np.where(last, np.arange(n), n)
    end = np.minimum.accumulate(index[:, ::-1], axis=-1)[:, ::-1]  # each row's threshold: its run's last row
    with np.errstate(invalid="ignore", divide="ignore"):
        out = (ys * np.take_along_axis(precision, end, -1)).sum(axis=-1) / ys.sum(axis=-1)
    return out.reshape(np.shape(labels)[:-1])


def brier(labels: np.ndarray, probs: np.ndarray) -> np.ndarray:
    """Mean squared difference between probability and label, per row."""
    return np.mean((probs - labels) ** 2, axis=-1)


def ece(labels: np.ndarray, probs: np.ndarray, bins: int = BINS) -> np.ndarray:
    """Expected calibration error over ``bins`` equal-width bins of [0, 1] (1.0 falls in the last), per row."""
    y, p = np.atleast_2d(labels).astype(float), np.atleast_2d(probs)
    b, n = p.shape
    which = np.clip((p * bins).astype(int), 0, bins - 1) + bins * np.arange(b)[:, None]
    gap = np.bincount(which.ravel(), (y - p).ravel(), minlength=b * bins).reshape(b, bins)
    return (np.abs(gap).sum(axis=-1) / n).reshape(np.shape(labels)[:-1])
