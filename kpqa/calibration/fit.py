"""Fitting calibrations on arrays of scores and human labels: one metric's map and thresholds
(:func:`fit_metric`), a judge (:func:`fit_judge`), several at once (:func:`fit`); the labels' checks (their rule,
:func:`kpqa.columns.binary_labels`, is the input layer's). See :mod:`kpqa.calibration`."""
from __future__ import annotations

import warnings
from typing import Any, Mapping, Sequence

import numpy as np

from kpqa.calibration.model import (
    JUDGE, JUDGE_INPUTS, JUDGE_KIND, JUDGE_KINDS, METHODS, RULES, WRONG_JUDGE, WRONG_JUDGE_KIND, Calibration,
    DataFile, Fit, IsotonicMap, JudgeCalibration, LogisticMap, MetricCalibration, Quality,
)
from kpqa.arraystats import balanced, cohen_kappa
from kpqa.calibration.fitness import rate
from kpqa.errors import InputError, KpqaWarning, Param, UsageError
from kpqa.roles import Role, role_of
from kpqa.signature import Signature
from kpqa.types import Floats

MIN_ROWS = 20


def check_labels(labels: np.ndarray, source: str = "the calibration data") -> None:
    """InputError unless there are at least ``MIN_ROWS`` labels, of both classes."""
    if len(labels) < MIN_ROWS:
        raise InputError(f"{len(labels)} labelled rows: a calibration needs at least {MIN_ROWS}", file=source)
    if labels.min() == labels.max():
        which = "correct (1)" if labels[0] else "wrong (0)"
        raise InputError(f"every label is {which}: a calibration needs both classes", file=source)


def thresholds(scores: np.ndarray, labels: np.ndarray, weights: np.ndarray | None = None,
               higher_is_better: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(candidate thresholds, accuracy, kappa, balanced accuracy) of the rules ``score >= t``: the lowest score
    (all correct), the midpoints between adjacent distinct scores, and just above the highest (none correct).
    ``weights``: what each row counts for (default 1). Not ``higher_is_better``: the rules ``score <= t`` (the
    highest score, the midpoints, just below the lowest)."""
    if not higher_is_better:
        cut, acc, kap, bal = thresholds(-np.asarray(scores, dtype=float), labels, weights)
        return -cut + 0.0, acc, kap, bal  # + 0.0: no -0.0 thresholds
    w = np.ones(len(labels)) if weights is None else np.asarray(weights, dtype=float)
    values, inverse = np.unique(scores, return_inverse=True)
    pos = np.bincount(inverse, labels * w, minlength=len(values))
    neg = np.bincount(inverse, (1 - labels) * w, minlength=len(values))
    n, p = w.sum(), (labels * w).sum()
    cut = np.concatenate([values[:1], (values[:-1] + values[1:]) / 2, [np.nextafter(values[-1], np.inf)]])
    tp = p - np.concatenate([[0], np.cumsum(pos)])  # positives at or above each cut
    tn = np.concatenate([[0], np.cumsum(neg)])  # negatives below it
    acc = (tp + tn) / n
    predicted = tp + (n - p - tn)  # rows judged correct
    return cut, acc, cohen_kappa(acc, p / n, predicted / n), balanced(tp, max(p, 1), tn, max(n - p, 1))


def balanced_weights(labels: Floats, sources: np.ndarray | Sequence[Any] | None = None) -> np.ndarray:
    """Per-row weights (mean 1) under which each class weighs half and, given each row's source (the file it came
    from), each source weighs the same: ``n / (sources * classes in the source * rows of that source and class)``."""
    y = np.asarray(labels, dtype=float)
    keys = np.zeros(len(y), dtype=int) if sources is None else np.unique(np.asarray(sources, dtype=str),
                                                                          return_inverse=True)[1]
    cells = {(k, c): int(((keys == k) & (y == c)).sum()) for k in np.unique(keys) for c in (0.0, 1.0)}
    classes = {k: sum(1 for c in (0.0, 1.0) if cells[(k, c)]) for k in np.unique(keys)}
    return np.array([len(y) / (len(classes) * classes[k] * cells[(k, c)]) for k, c in zip(keys, y)])


def _fit_map(method: str, s: np.ndarray, y: np.ndarray, w: np.ndarray) -> IsotonicMap | LogisticMap:
    """The score -> P(correct) map of ``method``, fitted with row weights ``w``."""
    if method == "isotonic":
        from sklearn.isotonic import IsotonicRegression

        iso = IsotonicRegression(y_min=0.0, y_max=1.0, increasing=True, out_of_bounds="clip")
        iso.fit(s, y, sample_weight=w)
        return IsotonicMap.from_steps(iso.X_thresholds_, iso.y_thresholds_)
    if method == "logistic":
        from sklearn.linear_model import LogisticRegression

        # effectively unpenalised: a one-feature fit
        lr = LogisticRegression(C=1e6).fit(s[:, None], y, sample_weight=w)
        return LogisticMap(float(lr.coef_[0, 0]), float(lr.intercept_[0]))
    raise UsageError(f"unknown calibration method {method!r}; one of {', '.join(METHODS)}")


def _check_finite(scores: np.ndarray, owner: str, of: str = "") -> None:
    """InputError naming ``owner`` (and ``of``: whose scores, for a judge's input) unless every score is finite."""
    if not np.all(np.isfinite(scores)):
        raise InputError(f"{owner}: {int(np.sum(~np.isfinite(scores)))} scores{of} are not finite numbers")


def fit_metric(metric: str, signature: Signature | str, scores: Floats, labels: Floats,
               method: str = "isotonic", rule: str = RULES[0], weights: Floats | None = None) -> MetricCalibration:
    """Fit one metric's map and thresholds (deciding by ``rule``'s), in the direction its ``signature`` says
    (:attr:`~kpqa.signature.Signature.higher_is_better`: a ``better:lower`` score is fitted negated, and decided
    correct at or below its threshold); InputError with fewer than ``MIN_ROWS`` rows, one class, or non-finite
    scores."""
    if rule not in RULES:
        raise UsageError(f"unknown threshold rule {rule!r}; one of {', '.join(RULES)}")
    higher = (Signature.parse(signature) if isinstance(signature, str) else signature).higher_is_better
    s, y = np.asarray(scores, dtype=float), np.asarray(labels, dtype=float)
    check_labels(y)
    w = balanced_weights(y) if weights is None else np.asarray(weights, dtype=float)
    _check_finite(s, metric)
    params = _fit_map(method, s if higher else -s, y, w)
    cut, acc, kap, bal = thresholds(s, y, None if weights is None else w, higher)
    best = {"balanced": int(np.argmax(bal)), "accuracy": int(np.argmax(acc)), "kappa": int(np.nanargmax(kap))}
    quality = {r: Quality(float(acc[i]), float(kap[i]), float(bal[i])) for r, i in best.items()}
    chosen = quality[rule]
    fitted = Fit(len(y), int(y.sum()), chosen.accuracy, chosen.kappa, chosen.balanced_accuracy,
                 quality["balanced"], quality["accuracy"], quality["kappa"])
    return MetricCalibration(metric, str(signature), method, rule, float(cut[best[rule]]),
                             {r: float(cut[i]) for r, i in best.items()}, params, fitted, higher)


def _check_kind(kind: str) -> None:
    if kind not in JUDGE_KINDS:
        raise UsageError(Param("judge_kind", kind), f": unknown kind of judge; one of {', '.join(JUDGE_KINDS)}")


def fit_judge(name: str, scores: Mapping[str, Floats], signatures: Mapping[str, Signature | str],
              labels: Floats, method: str = "isotonic", rule: str = RULES[0],
              weights: Floats | None = None, kind: str = JUDGE_KIND, replaces: str | None = None) -> JudgeCalibration:
    """Fit a judge of ``kind`` (one of :data:`JUDGE_KINDS`) on the columns of ``scores``, classes weighed equally
    (or by ``weights``): ``logistic``, a logistic regression on standardised scores; ``trees``, boosted trees
    (:data:`TREES`); then calibrate its logit with :func:`fit_metric`. InputError for non-finite scores.
    ``replaces``: the judge whose decisions it makes where its inputs are all scored
    (:attr:`~kpqa.calibration.JudgeCalibration.replaces`)."""
    _check_kind(kind)
    inputs = list(scores)
    x = np.stack([np.asarray(scores[m], dtype=float) for m in inputs], axis=1)
    y = np.asarray(labels, dtype=float)
    check_labels(y)
    for m, column in zip(inputs, x.T):
        _check_finite(column, name, f" of {m}")
    w = balanced_weights(y) if weights is None else np.asarray(weights, dtype=float)
    return JUDGE_KINDS[kind].fit(name, inputs, {m: str(signatures[m]) for m in inputs}, x, y, w,
                                 lambda logit: fit_metric(name, f"{name}|logit", logit, y, method, rule, weights),
                                 replaces)


def choose_judge_inputs(columns: Sequence[str], inputs: Sequence[str] | None = None) -> list[str] | None:
    """The inputs of the judge :func:`fit` fits: ``inputs`` (blanks and repeats dropped; each must be among
    ``columns``: UsageError naming the first that is not, or none named), or by default :data:`JUDGE_INPUTS` when
    ``columns`` has them all (else None and a warning naming those it lacks: no judge, said)."""
    if inputs is None:
        lacking = [m for m in JUDGE_INPUTS if m not in columns]
        if lacking:
            warnings.warn(KpqaWarning(f"no {JUDGE} fitted: the scores lack {', '.join(lacking)} of its inputs; "
                                      "score them too or name the judge's inputs (", Param("judge_inputs"), ")"),
                          stacklevel=2)
        return None if lacking else list(JUDGE_INPUTS)
    chosen = list(dict.fromkeys(m.strip() for m in inputs if m.strip()))
    missing = [m for m in chosen if m not in columns]
    if missing or not chosen:
        said = f"no score column {missing[0]!r} (columns: {', '.join(columns)})" if missing else "names no metric"
        raise UsageError(Param("judge_inputs", ",".join(inputs)), f": {said}")
    return chosen


def fit(scores: Mapping[str, Floats], signatures: Mapping[str, Signature], labels: Floats, *,
        method: str = "isotonic", rule: str = RULES[0], data: list[DataFile] | None = None,
        label_rule: str = "", sources: np.ndarray | Sequence[Any] | None = None,
        judge_kind: str = JUDGE_KIND, judge_inputs: Sequence[str] | None = None,
        wrong_kind: str = WRONG_JUDGE_KIND) -> Calibration:
    """One :class:`MetricCalibration` per column of ``scores`` (all on the same ``labels``; not the scores against
    known-wrong answers, ``M-wrong``), and the ``KPQA-judge`` of ``judge_kind`` on ``judge_inputs`` (default:
    :data:`JUDGE_INPUTS` when they are all there, else none; see :func:`choose_judge_inputs`). ``sources`` (each
    row's file): each weighs the same (:func:`balanced_weights`), as each class does. When ``scores`` has every
    judge input's ``M-wrong`` too (NaN where a row has no known-wrong answer), :data:`WRONG_JUDGE` is fitted on the
    rows that have them, on both, to decide those rows in KPQA-judge's place (:func:`fit_wrong_judge`; of
    ``wrong_kind``)."""
    plain = [c for c in scores if role_of(c) is not Role.WRONG]
    inputs = choose_judge_inputs(plain, judge_inputs)
    _check_kind(judge_kind)
    y = np.asarray(labels, dtype=float)
    check_labels(y)
    w = None if sources is None else balanced_weights(y, sources)
    metrics = {name: fit_metric(name, signatures[name], scores[name], y, method, rule, w) for name in plain}
    judges = {}
    if inputs is not None:
        judges[JUDGE] = fit_judge(JUDGE, {m: scores[m] for m in inputs}, signatures, y, method, rule, w, judge_kind)
        if all(Role.WRONG.of(m) in scores for m in inputs):
            judges[WRONG_JUDGE] = fit_wrong_judge(scores, signatures, y, inputs, method=method, rule=rule,
                                                  sources=sources, kind=wrong_kind)
    fitness = {**{n: rate(m) for n, m in metrics.items()}, **{n: rate(j.calibration) for n, j in judges.items()}}
    return Calibration(metrics=metrics, data=data or [], labels=label_rule, judges=judges, fitness=fitness)


def fit_wrong_judge(scores: Mapping[str, Floats], signatures: Mapping[str, Signature | str], labels: Floats,
                    inputs: Sequence[str], *, method: str = "isotonic", rule: str = RULES[0],
                    sources: np.ndarray | Sequence[Any] | None = None, kind: str = WRONG_JUDGE_KIND
                    ) -> JudgeCalibration:
    """:data:`WRONG_JUDGE`: a judge on ``inputs`` and their ``M-wrong`` scores, fitted on the rows where all of
    them are scores (the rows with known-wrong answers; each source and class weighing the same), that decides
    those rows in KPQA-judge's place. InputError when fewer than ``MIN_ROWS`` rows, or one class, have them."""
    both = [*inputs, *(Role.WRONG.of(m) for m in inputs)]
    x = np.stack([np.asarray(scores[m], dtype=float) for m in both], axis=1)
    have = np.all(np.isfinite(x), axis=1)
    y = np.asarray(labels, dtype=float)[have]
    check_labels(y, "the rows with known-wrong answers")
    w = balanced_weights(y, None if sources is None else np.asarray(sources)[have])
    return fit_judge(WRONG_JUDGE, {m: x[have, k] for k, m in enumerate(both)}, signatures, y, method, rule, w,
                     kind, replaces=JUDGE)
