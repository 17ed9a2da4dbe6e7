"""Calibration: from a metric's score to P(correct) and a correct / incorrect decision, fitted on human labels.

Per metric, a calibration holds a strictly increasing map score -> P(correct) (``isotonic``: scikit-learn's isotonic
regression with each plateau slightly tilted, :class:`IsotonicMap`, so that P(correct) ranks answers as their scores
do; ``logistic``: a one-feature logistic regression) and a decision threshold: a row is judged correct when its
score is >= ``threshold``, the threshold its ``rule`` picks on the fitting data: highest ``balanced`` accuracy (the
mean of the recall of correct and of wrong answers; the default), highest ``accuracy``, or highest Cohen's
``kappa``; all three are recorded. Accuracy depends on the share of correct answers in the fitting data (85.5% in
EVOUNA-TQ): its threshold is the lowest and judges too many wrong answers correct on a set with fewer correct ones;
balanced accuracy does not depend on that share. Thresholds lie halfway between adjacent distinct scores.

**The prior, said out loud.** Every map is fitted class-balanced (each class weighs half), so P(correct) assumes
that half the answers are correct (:data:`PRIOR`), whatever the share in the fitting data. ``prior=P`` (the
expected share of correct answers where the calibration is used; ``kpqa score --prior P``) shifts the log-odds by
``logit(P)`` and then decides "correct" where P(correct) >= 0.5; the decisions' signatures record it as ``prior``.

A *judge* combines several metrics into one probability: a class-balanced logistic regression on their
standardised scores, whose logit is then calibrated like a metric's score (``KPQA-judge``: :data:`JUDGE_INPUTS`,
chosen by cross-validation on EVOUNA-TQ dev and the contrastive data, ``scripts/decide_cv.py``).

A calibration file records, per metric and judge input, the signature of the scores it was fitted on (which names the weighter
checkpoint's hash); :meth:`Calibration.entry` refuses scores with another signature, so that a calibration never
silently outlives its weighter. The arithmetic precision (``|precision:...``; bf16 moves single scores by up to ~0.2) is
left out of the comparison, so a calibration fitted on CPU in fp32 applies on a GPU in bf16.

No torch here: fitting and applying take arrays of scores.
"""
from __future__ import annotations

import hashlib
import json
import os
from dataclasses import asdict, dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Mapping, Protocol, Sequence

import numpy as np

from kpqa.version import __version__
from kpqa.errors import InputError, KpqaError, Param, UsageError
from kpqa.input import Table, read_input
from kpqa.rows import Rows, select_rows
from kpqa.signature import Signature
from kpqa.types import Floats

METHODS = ("isotonic", "logistic")
#: what picks the decision threshold (the first is the default)
RULES = ("balanced", "accuracy", "kappa")
#: the shipped judge and the metrics it combines (BLEU-1-KPQA, in the MPNet weighter's judge with a negative weight,
#: left out since the MiniLM student: level under CV, and it decides examples/sample.csv as a person would;
#: docs/decisions.md)
JUDGE = "KPQA-judge"
JUDGE_INPUTS = ("ROUGE-L-KPQA", "BERTScore-KPQA", "KeyFact-KPQA", "BLEU-1", "BLEU-4", "ROUGE-L", "BERTScore", "F1",
                "Contains")
MIN_ROWS = 20
#: rows of a fitting file rescored to check the metric columns it already has (``reuse_scores``)
SPOT_CHECK = 32
#: how far a reused score may lie from its rescore: fp32 scores move by a few 1e-6 with the texts a batch holds
#: (padding, the forward pass's token cap; at most 3.1e-6 on EVOUNA-TQ dev), another weighter or setting by far more
REUSE_TOLERANCE = 1e-5
#: the share of correct answers the fitted probabilities assume (class-balanced fitting)
PRIOR = 0.5
#: 4: isotonic maps hold the knots of the strictly increasing map (:class:`IsotonicMap`); files of format 3 hold
#: scikit-learn's steps, turned into those knots on loading (:meth:`Calibration.load`)
FORMAT = 4
#: the format whose isotonic maps are scikit-learn's steps, still read
STEPS_FORMAT = 3
FILENAME = "calibration.json"


class CalibrationError(KpqaError):
    """A calibration file that cannot be read, or that does not fit the scores it is applied to."""


def comparable(signature: Signature) -> tuple[str, frozenset[tuple[str, str]], str]:
    """The part of a signature a calibration must match: all fields but the arithmetic precision, in any order
    (files written before the version moved to the end of the signature still match)."""
    return signature.comparable(ignore=("precision",))


def default_path(checkpoint: str | os.PathLike | None = None) -> Path:
    """The calibration shipped beside a weighter checkpoint (a folder or a shipped name; default: the default
    weighter's)."""
    from kpqa.models.shipped import resolve

    return resolve(checkpoint) / FILENAME


def binary_labels(values: Sequence[Any], positive_above: float | None = None, *, source: str = "<labels>",
                  column: str = "scores") -> np.ndarray:
    """Human labels as a 0/1 array: the values themselves when all are 0 or 1, else ``value > positive_above``;
    InputError naming the first row that is not a number (or not 0/1 without ``positive_above``)."""
    import pandas as pd

    raw = pd.Series(list(values), dtype=object)
    numeric = pd.to_numeric(raw, errors="coerce").to_numpy(dtype=float)
    bad = ~np.isfinite(numeric)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise InputError(f"human label {raw.iloc[row]!r} is not a number", file=source, row=row + 1, column=column)
    if positive_above is not None:
        return (numeric > positive_above).astype(float)
    other = ~np.isin(numeric, (0.0, 1.0))
    if other.any():
        row = int(np.flatnonzero(other)[0])
        raise InputError(f"human label {raw.iloc[row]!r} is not 0 or 1; set ", Param("positive_above"),
                         " to T to count labels above T as correct", file=source, row=row + 1, column=column)
    return numeric


def check_labels(labels: np.ndarray, source: str = "the calibration data") -> None:
    """InputError unless there are at least ``MIN_ROWS`` labels, of both classes."""
    if len(labels) < MIN_ROWS:
        raise InputError(f"{len(labels)} labelled rows: a calibration needs at least {MIN_ROWS}", file=source)
    if labels.min() == labels.max():
        which = "correct (1)" if labels[0] else "wrong (0)"
        raise InputError(f"every label is {which}: a calibration needs both classes", file=source)


def thresholds(scores: np.ndarray, labels: np.ndarray, weights: np.ndarray | None = None
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(candidate thresholds, accuracy, kappa, balanced accuracy) of the rules ``score >= t``: the lowest score
    (all correct), the midpoints between adjacent distinct scores, and just above the highest (none correct).
    ``weights``: what each row counts for (default 1)."""
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
    chance = (p / n) * (predicted / n) + (1 - p / n) * (1 - predicted / n)
    with np.errstate(invalid="ignore", divide="ignore"):
        kap = np.where(chance < 1, (acc - chance) / (1 - chance), np.nan)
    balanced = (tp / max(p, 1) + tn / max(n - p, 1)) / 2
    return cut, acc, kap, balanced


#: inside a run of equal isotonic values, P(correct) rises from the run's value less this share of the gap to the
#: nearer neighbouring value to the run's value plus as much (:meth:`IsotonicMap.from_steps`)
TILT = 0.02
#: the isotonic values are squeezed into [P_EDGE, 1 - P_EDGE]: no score is certainly right or wrong
P_EDGE = 1e-4
#: isotonic values closer than this are one run (scikit-learn's pooled means can differ in the last bit)
RUN_TOLERANCE = 1e-12


@dataclass
class IsotonicMap:
    """Score -> P(correct) from scikit-learn's isotonic regression, made strictly increasing so that it ranks
    answers as their scores do (no ties between different scores): linear between the knots ``(x, y)`` (both strictly
    increasing, ``y`` inside (0, 1)) and beyond them on the logistic curve through the end knot whose slope (in
    log-odds per unit of score) is the mean one between the first and last knots."""

    x: list[float]
    y: list[float]

    def __post_init__(self) -> None:
        if len(self.x) != len(self.y) or not self.x or np.any(np.diff(self.x) <= 0) or np.any(np.diff(self.y) <= 0) \
                or not 0 < self.y[0] <= self.y[-1] < 1:
            raise ValueError("isotonic knots must be strictly increasing, with values strictly between 0 and 1")

    @classmethod
    def from_steps(cls, x: Floats, y: Floats) -> "IsotonicMap":
        """The strictly increasing map of an isotonic fit's interpolation points (scikit-learn's ``X_thresholds_``,
        ``y_thresholds_``: runs of equal values, flat between their first and last score; values within
        :data:`RUN_TOLERANCE` are equal): the values squeezed into [:data:`P_EDGE`, 1 - :data:`P_EDGE`], and each
        run with more than one score tilted by :data:`TILT` of the gap to its neighbours' values (the first run's
        lower neighbour is 0, the last run's upper one 1), so its mean P(correct) hardly moves."""
        xs, ys = np.asarray(x, dtype=float), P_EDGE + (1 - 2 * P_EDGE) * np.asarray(y, dtype=float)
        if len(xs) != len(ys) or not len(xs) or np.any(np.diff(xs) <= 0) or np.any(np.diff(ys) < 0):
            raise ValueError("isotonic steps must have increasing scores and non-decreasing values")
        first = np.flatnonzero(np.r_[True, np.diff(ys) > RUN_TOLERANCE])  # the first point of each run
        last = np.r_[first[1:], len(xs)] - 1
        values = ys[first]
        gaps = np.diff(np.r_[0.0, values, 1.0])
        tilt = TILT * np.minimum(gaps[:-1], gaps[1:])
        knots = [((xs[a], v - t), (xs[b], v + t)) if b > a else ((xs[a], v),)
                 for a, b, v, t in zip(first, last, values, tilt)]
        points = [point for run in knots for point in run]
        return cls([float(p[0]) for p in points], [float(p[1]) for p in points])

    def __call__(self, scores: np.ndarray) -> np.ndarray:
        x, y = np.asarray(self.x), np.asarray(self.y)
        p = np.array(np.interp(scores, x, y))
        slope = (_logit(y[-1]) - _logit(y[0])) / (x[-1] - x[0]) if len(x) > 1 else 1.0
        for outside, end in ((scores < x[0], 0), (scores > x[-1], -1)):
            if outside.any():
                p[outside] = 1 / (1 + np.exp(-(_logit(y[end]) + slope * (scores[outside] - x[end]))))
        return p


def _logit(p: float) -> float:
    return float(np.log(p / (1 - p)))


@dataclass
class LogisticMap:
    """Score -> P(correct) by a one-feature logistic regression."""

    coef: float
    intercept: float

    def __call__(self, scores: np.ndarray) -> np.ndarray:
        return 1 / (1 + np.exp(-(self.coef * scores + self.intercept)))


#: the map of each method (the file's ``params`` are its fields)
MAPS: dict[str, type[IsotonicMap] | type[LogisticMap]] = {"isotonic": IsotonicMap, "logistic": LogisticMap}


@dataclass
class MetricCalibration:
    """The calibration of one metric (see the module docstring); ``fit`` holds what it scored on its own data.
    ``signature``: the text of the fitting scores' signature, as the file holds it (:attr:`fitted_on` parsed)."""

    metric: str
    signature: str
    method: str
    rule: str
    threshold: float
    thresholds: dict[str, float]
    params: IsotonicMap | LogisticMap
    fit: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> "MetricCalibration":
        """The calibration a file's entry holds (its ``params`` as the map of its ``method``, one of ``MAPS``)."""
        return cls(**{**raw, "params": MAPS[raw["method"]](**raw["params"])})

    @cached_property
    def fitted_on(self) -> Signature:
        """The signature of the scores it was fitted on, parsed once."""
        return Signature.parse(self.signature)

    def prob(self, scores: Floats, prior: float | None = None) -> np.ndarray:
        """P(correct) of each score, with half the answers correct (:data:`PRIOR`) or a share ``prior``."""
        p = self.params(np.asarray(scores, dtype=float))
        return p if prior is None else with_prior(p, prior)

    def decide(self, scores: Floats, prior: float | None = None) -> np.ndarray:
        """1.0 where a score is judged correct, else 0.0: at or above the threshold, or, given ``prior``, where
        P(correct) at that prior is at least 0.5."""
        if prior is not None:
            return (self.prob(scores, prior) >= 0.5).astype(float)
        return (np.asarray(scores, dtype=float) >= self.threshold).astype(float)


def check_prior(prior: float) -> float:
    """``prior`` when it is a share strictly between 0 and 1; UsageError otherwise."""
    if not 0.0 < prior < 1.0:
        raise UsageError(f"prior must be the expected share of correct answers, strictly between 0 and 1, not {prior}")
    return prior


def with_prior(p: Floats, prior: float) -> np.ndarray:
    """Probabilities fitted with half the answers correct, moved to a share ``prior``: the odds times
    ``prior / (1 - prior)`` (0 and 1 stay)."""
    p = np.asarray(p, dtype=float)
    ratio = check_prior(prior) / (1 - prior)
    return p * ratio / (p * ratio + 1 - p)


def balanced_weights(labels: Floats, sources: np.ndarray | Sequence[Any] | None = None) -> np.ndarray:
    """Per-row weights (mean 1) under which each class weighs half and, given each row's source (the file it came
    from), each source weighs the same: ``n / (sources * classes in the source * rows of that source and class)``."""
    y = np.asarray(labels, dtype=float)
    keys = np.zeros(len(y), dtype=int) if sources is None else np.unique(np.asarray(sources, dtype=str),
                                                                          return_inverse=True)[1]
    cells = {(k, c): int(((keys == k) & (y == c)).sum()) for k in np.unique(keys) for c in (0.0, 1.0)}
    classes = {k: sum(1 for c in (0.0, 1.0) if cells[(k, c)]) for k in np.unique(keys)}
    return np.array([len(y) / (len(classes) * classes[k] * cells[(k, c)]) for k, c in zip(keys, y)])


def fit_metric(metric: str, signature: Signature | str, scores: Floats, labels: Floats,
               method: str = "isotonic", rule: str = RULES[0], weights: Floats | None = None) -> MetricCalibration:
    """Fit one metric's map and thresholds (deciding by ``rule``'s); InputError with fewer than ``MIN_ROWS`` rows,
    one class, or non-finite scores."""
    if rule not in RULES:
        raise UsageError(f"unknown threshold rule {rule!r}; one of {', '.join(RULES)}")
    s, y = np.asarray(scores, dtype=float), np.asarray(labels, dtype=float)
    check_labels(y)
    w = balanced_weights(y) if weights is None else np.asarray(weights, dtype=float)
    if not np.all(np.isfinite(s)):
        raise InputError(f"{metric}: {int(np.sum(~np.isfinite(s)))} scores are not finite numbers")
    if method == "isotonic":
        from sklearn.isotonic import IsotonicRegression

        iso = IsotonicRegression(y_min=0.0, y_max=1.0, increasing=True, out_of_bounds="clip")
        iso.fit(s, y, sample_weight=w)
        params: IsotonicMap | LogisticMap = IsotonicMap.from_steps(iso.X_thresholds_, iso.y_thresholds_)
    elif method == "logistic":
        from sklearn.linear_model import LogisticRegression

        # effectively unpenalised: a one-feature fit
        lr = LogisticRegression(C=1e6).fit(s[:, None], y, sample_weight=w)
        params = LogisticMap(float(lr.coef_[0, 0]), float(lr.intercept_[0]))
    else:
        raise UsageError(f"unknown calibration method {method!r}; one of {', '.join(METHODS)}")
    cut, acc, kap, bal = thresholds(s, y, None if weights is None else w)
    best = {"balanced": int(np.argmax(bal)), "accuracy": int(np.argmax(acc)), "kappa": int(np.nanargmax(kap))}
    chosen = best[rule]
    fitted = {"n": len(y), "positives": int(y.sum()), "accuracy": float(acc[chosen]), "kappa": float(kap[chosen]),
              "balanced_accuracy": float(bal[chosen]),
              **{f"at_max_{r}": {"accuracy": float(acc[i]), "kappa": float(kap[i]), "balanced_accuracy": float(bal[i])}
                 for r, i in best.items()}}
    return MetricCalibration(metric, str(signature), method, rule, float(cut[chosen]),
                             {r: float(cut[i]) for r, i in best.items()}, params, fitted)


@dataclass
class JudgeCalibration:
    """A judge: logistic regression on the standardised scores of ``inputs`` (their signatures' text recorded,
    :attr:`fitted_on` parsed), its logit calibrated by ``calibration``."""

    name: str
    inputs: list[str]
    signatures: dict[str, str]
    mean: list[float]
    scale: list[float]
    coef: list[float]
    intercept: float
    calibration: MetricCalibration

    @cached_property
    def fitted_on(self) -> dict[str, Signature]:
        """The signatures of the input scores it was fitted on, parsed once."""
        return {m: Signature.parse(s) for m, s in self.signatures.items()}

    def logit(self, scores: Mapping[str, Floats]) -> np.ndarray:
        """The regression's logit of each row, from the input metrics' scores."""
        x = np.stack([np.asarray(scores[m], dtype=float) for m in self.inputs], axis=1)
        return ((x - self.mean) / self.scale) @ np.asarray(self.coef) + self.intercept

    def prob(self, scores: Mapping[str, Floats], prior: float | None = None) -> np.ndarray:
        """P(correct) of each row (at a share ``prior`` of correct answers; default :data:`PRIOR`)."""
        return self.calibration.prob(self.logit(scores), prior)

    def decide(self, scores: Mapping[str, Floats], prior: float | None = None) -> np.ndarray:
        """1.0 where a row is judged correct, else 0.0 (see :meth:`MetricCalibration.decide`)."""
        return self.calibration.decide(self.logit(scores), prior)


def fit_judge(name: str, scores: Mapping[str, Floats], signatures: Mapping[str, Signature | str],
              labels: Floats, method: str = "isotonic", rule: str = RULES[0],
              weights: Floats | None = None) -> JudgeCalibration:
    """Fit a judge on the columns of ``scores`` (scikit-learn's L2-regularised logistic regression, C=1, classes
    weighed equally, on standardised scores), then calibrate its logit with :func:`fit_metric`."""
    from sklearn.linear_model import LogisticRegression

    inputs = list(scores)
    x = np.stack([np.asarray(scores[m], dtype=float) for m in inputs], axis=1)
    y = np.asarray(labels, dtype=float)
    check_labels(y)
    mean, scale = x.mean(axis=0), x.std(axis=0)
    scale[scale == 0] = 1.0
    w = balanced_weights(y) if weights is None else np.asarray(weights, dtype=float)
    lr = LogisticRegression().fit((x - mean) / scale, y, sample_weight=w)
    judge = JudgeCalibration(name, inputs, {m: str(signatures[m]) for m in inputs}, mean.tolist(), scale.tolist(),
                             lr.coef_[0].tolist(), float(lr.intercept_[0]), None)  # type: ignore[arg-type]
    judge.calibration = fit_metric(name, f"{name}|logit", judge.logit(scores), y, method, rule, weights)
    return judge


@dataclass
class Calibration:
    """Calibrations of several metrics (and judges) fitted on the same labelled rows, with a record of them."""

    metrics: dict[str, MetricCalibration]
    data: list[dict[str, Any]]
    labels: str
    judges: dict[str, JudgeCalibration] = field(default_factory=dict)
    kpqa_version: str = __version__
    format: int = FORMAT
    path: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (what the file holds)."""
        return {"format": self.format, "kpqa_version": self.kpqa_version, "labels": self.labels, "data": self.data,
                "metrics": {name: asdict(m) for name, m in self.metrics.items()},
                "judges": {name: asdict(j) for name, j in self.judges.items()}}

    def to_json(self) -> str:
        """The file's text."""
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False, allow_nan=False) + "\n"

    @property
    def digest(self) -> str:
        """Short sha256 of the file's text: the ``cal:`` part of the signatures of decisions made with it."""
        return hashlib.sha256(self.to_json().encode("utf-8")).hexdigest()[:12]

    def save(self, path: str | Path, inputs: Sequence[str | Path] = ()) -> None:
        """Write the file the way every output is written (:func:`kpqa.output.write_text`: a temp file renamed into
        place; refused when it would replace one of ``inputs``)."""
        from kpqa.output import write_text

        write_text(path, self.to_json(), inputs=inputs)
        self.path = str(path)

    @classmethod
    def load(cls, path: str | Path) -> "Calibration":
        """Read a calibration file; CalibrationError when it is missing or malformed. A file of format 3 (isotonic
        maps as scikit-learn's steps) loads as format 4 (:meth:`IsotonicMap.from_steps`): its digest, and so the
        ``cal:`` of the decisions made with it, is that of the format-4 text."""
        path = Path(path)
        if not path.is_file():
            raise CalibrationError(f"calibration {path}: no such file (fit one with `kpqa calibrate`)")
        try:
            raw = json.loads(path.read_text(encoding="utf-8"))
            if raw.get("format") not in (STEPS_FORMAT, FORMAT):
                raise CalibrationError(f"calibration {path}: format {raw.get('format')!r}, expected {FORMAT} (or "
                                       f"{STEPS_FORMAT}); refit it with `kpqa calibrate`")
            entries = [*raw["metrics"].values(), *(j["calibration"] for j in raw.get("judges", {}).values())]
            for m in entries:
                if m["method"] not in METHODS or m["rule"] not in RULES:
                    raise CalibrationError(f"calibration {path}: {m['metric']}: unknown method {m['method']!r} or "
                                           f"threshold rule {m['rule']!r}")
                if raw["format"] == STEPS_FORMAT and m["method"] == "isotonic":
                    m["params"] = asdict(IsotonicMap.from_steps(m["params"]["x"], m["params"]["y"]))
            metrics = {name: MetricCalibration.from_dict(m) for name, m in raw["metrics"].items()}
            judges = {name: JudgeCalibration(**{**j, "calibration": MetricCalibration.from_dict(j["calibration"])})
                      for name, j in raw.get("judges", {}).items()}
            return cls(metrics, raw["data"], raw["labels"], judges, raw["kpqa_version"], FORMAT, str(path))
        except (json.JSONDecodeError, KeyError, TypeError, AttributeError, ValueError) as e:
            raise CalibrationError(f"calibration {path}: not a kpqa calibration file ({type(e).__name__}: {e})")

    def entry(self, metric: str, signature: Signature) -> MetricCalibration:
        """The calibration of ``metric`` for scores with ``signature``; CalibrationError when the file has none or
        was fitted on scores with another signature (another weighter, tokenizer or metric option)."""
        where = self.path or "<calibration>"
        if metric not in self.metrics:
            raise CalibrationError(f"calibration {where} has no entry for {metric} (it has: "
                                   f"{', '.join(self.metrics)}); fit one on {metric}'s scores (`kpqa calibrate`)")
        fitted = self.metrics[metric]
        if comparable(fitted.fitted_on) != comparable(signature):
            raise CalibrationError(f"calibration {where} was fitted on {fitted.signature}, not {signature} (another "
                                   "weighter or other settings); refit it with `kpqa calibrate`")
        return self.metrics[metric]

    def usable_judges(self, signatures: Mapping[str, Signature]) -> list[JudgeCalibration]:
        """The judges whose inputs are all among ``signatures``' columns; CalibrationError when one of those was
        fitted on scores with another signature."""
        usable = [j for j in self.judges.values() if all(m in signatures for m in j.inputs)]
        for judge in usable:
            for m in judge.inputs:
                if comparable(judge.fitted_on[m]) != comparable(signatures[m]):
                    raise CalibrationError(f"calibration {self.path or '<calibration>'}: {judge.name} was fitted on "
                                           f"{judge.signatures[m]}, not {signatures[m]} (another weighter or other "
                                           "settings); refit it with `kpqa calibrate`")
        return usable


def fit(scores: Mapping[str, Floats], signatures: Mapping[str, Signature], labels: Floats, *,
        method: str = "isotonic", rule: str = RULES[0], data: list[dict[str, Any]] | None = None,
        label_rule: str = "", sources: np.ndarray | Sequence[Any] | None = None) -> Calibration:
    """One :class:`MetricCalibration` per column of ``scores`` (all on the same ``labels``), and the
    ``KPQA-judge`` when its inputs are all there. ``sources`` (each row's file): each weighs the same
    (:func:`balanced_weights`), as each class does."""
    y = np.asarray(labels, dtype=float)
    check_labels(y)
    w = None if sources is None else balanced_weights(y, sources)
    metrics = {name: fit_metric(name, signatures[name], s, y, method, rule, w) for name, s in scores.items()}
    judges = {}
    if all(m in scores for m in JUDGE_INPUTS):
        judges[JUDGE] = fit_judge(JUDGE, {m: scores[m] for m in JUDGE_INPUTS}, signatures, y, method, rule, w)
    return Calibration(metrics, data or [], label_rule, judges)


def describe_file(path: str | Path, rows: int, positives: int) -> dict[str, Any]:
    """The record of one fitting file: path as given, sha256, rows and positives."""
    digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()
    return {"path": str(path), "sha256": digest, "rows": rows, "positives": positives}


class RowScorer(Protocol):
    """What fitting from files needs of a scorer (:class:`kpqa.scoring.Scorer` is one)."""

    max_chars: int | None

    @property
    def score_columns(self) -> list[str]: ...

    def score_rows(self, rows: Rows, source: str = ..., numbers: Sequence[int] | None = ...
                   ) -> tuple[dict[str, np.ndarray], dict[str, float], dict[str, Signature]]: ...


def given_scores(scorer: RowScorer, table: Table) -> tuple[dict[str, np.ndarray], dict[str, Signature]] | None:
    """The metric columns ``table`` already has and their signatures, checked against a rescore of
    :data:`SPOT_CHECK` seeded rows; None when a column is missing. InputError naming the cell that is not a score or
    differs from the rescore by over :data:`REUSE_TOLERANCE`."""
    import pandas as pd

    if not set(scorer.score_columns) <= set(table.frame.columns):
        return None
    given = {c: pd.to_numeric(table.frame[c], errors="coerce").to_numpy(dtype=float) for c in scorer.score_columns}
    for c, values in given.items():
        if not np.isfinite(values).all():
            i = int(np.flatnonzero(~np.isfinite(values))[0])
            raise InputError(Param("reuse_scores", True), f": {table.frame[c].iloc[i]!r} is not a score",
                             file=table.source, row=table.numbers[i], column=c)
    rows = sorted(np.random.default_rng(0).choice(len(table.rows), min(SPOT_CHECK, len(table.rows)), replace=False))
    fresh, _, signatures = scorer.score_rows(select_rows(table.rows, rows), table.source,
                                             [table.numbers[i] for i in rows])
    for c in scorer.score_columns:
        off = np.flatnonzero(~np.isclose(given[c][rows], fresh[c], rtol=0, atol=REUSE_TOLERANCE))
        if len(off):
            j = int(off[0])
            raise InputError(Param("reuse_scores", True), f": the column holds {given[c][rows[j]]:.6g}, a rescore "
                             f"gives {fresh[c][j]:.6g} (scored with other settings? drop the column or the option)",
                             file=table.source, row=table.numbers[rows[j]], column=c)
    return given, signatures


def fit_files(scorer: RowScorer, paths: Sequence[str], *, human_column: str = "scores",
              positive_above: float | None = None, method: str = "isotonic", rule: str = RULES[0],
              reuse_scores: bool = False) -> Calibration:
    """:func:`fit` on the human labels of the files ``paths`` (column ``human_column``: 0/1, or numbers counted
    correct above ``positive_above``) and the ``scorer``'s scores of their rows (each file weighing the same);
    ``reuse_scores`` takes the metric columns a file already has (:func:`given_scores`). The labels are checked
    before any scoring."""
    tables = [read_input(path, max_chars=scorer.max_chars) for path in paths]
    labels = []
    for table in tables:
        if human_column not in table.frame.columns:
            raise InputError(f"no human label column {human_column!r}; pick one with ", Param("human_column"),
                             file=table.source, column=human_column)
        labels.append(binary_labels(table.frame[human_column], positive_above, source=table.source,
                                    column=human_column))
    check_labels(np.concatenate(labels), ", ".join(paths))
    parts: list[tuple[dict[str, np.ndarray], dict[str, Signature]]] = []
    for table in tables:
        given = given_scores(scorer, table) if reuse_scores else None
        if given is None:
            per_row, _, signatures = scorer.score_rows(table.rows, table.source, table.numbers)
            given = per_row, signatures
        parts.append(given)
    scores = {c: np.concatenate([per_row[c] for per_row, _ in parts]) for c in scorer.score_columns}
    sources = np.repeat(np.arange(len(tables)), [len(y) for y in labels])
    label_rule = f"{human_column!r} " + ("0/1" if positive_above is None else f"> {positive_above:g}")
    data = [describe_file(t.source, len(y), int(y.sum())) for t, y in zip(tables, labels)]
    return fit(scores, parts[0][1], np.concatenate(labels), method=method, rule=rule, data=data,
               label_rule=label_rule, sources=sources if len(tables) > 1 else None)
