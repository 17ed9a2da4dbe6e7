"""What a calibration is and how its file reads and writes: the maps score -> P(correct) (:class:`IsotonicMap`,
:class:`LogisticMap`), one metric's entry (:class:`MetricCalibration`), a judge (:class:`JudgeCalibration`, of a kind:
:class:`LogisticJudge`, :class:`TreesJudge`), the file (:class:`Calibration`) and where it is found (:func:`load`).
See :mod:`kpqa.calibration`."""
from __future__ import annotations

import hashlib
import json
import os
from dataclasses import Field, asdict, dataclass, field, fields, is_dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, Callable, ClassVar, Mapping, Sequence

import numpy as np

from kpqa.calibration.fitness import Fitness, rate
from kpqa.calibration.trees import Flat, Tree, flatten, from_hist_gradient_boosting, leaf_sum
from kpqa.errors import KpqaError, Param, UsageError
from kpqa.signature import Signature
from kpqa.types import Floats
from kpqa.version import __version__

METHODS = ("isotonic", "logistic")
#: what picks the decision threshold (the first is the default)
RULES = ("balanced", "accuracy", "kappa")
#: the shipped judge and the metrics it combines (BLEU-1-KPQA, in the MPNet weighter's judge with a negative weight,
#: left out since the MiniLM student: level under CV, and it decides examples/sample.csv as a person would; the
#: answer-equivalence model's logit, Equivalence, not in it: the rule-made model costs EVOUNA-TQ accuracy and the
#: sample; the one trained here on people's labels and near misses (experiments/checkpoints/equivalence-nearmiss, issue 59)
#: lifts every human set under CV but decides a sample row and two CI swap rows against the person; docs/decisions.md)
JUDGE = "KPQA-judge"
JUDGE_INPUTS = ("ROUGE-L-KPQA", "BERTScore-KPQA", "KeyFact-KPQA", "BLEU-1", "BLEU-4", "ROUGE-L", "BERTScore", "F1",
                "Contains")
#: the judge that decides in KPQA-judge's place on the rows that come with known-wrong answers (``incorrect_answers``):
#: its inputs are KPQA-judge's and each one's score against the closest wrong answer (``M-wrong``)
WRONG_JUDGE = "KPQA-judge+wrong"
#: its kind: boosted trees (under grouped CV on TruthfulQA's answers, AUROC 0.933 against the logistic judge's 0.922
#: on model answers, 0.881 against 0.825 on written ones: how close an answer is to a right and to a wrong answer
#: does not add up linearly; docs/decisions.md)
WRONG_JUDGE_KIND = "trees"
#: the kind of judge ``kpqa calibrate`` fits unless told otherwise (:data:`JUDGE_KINDS`), and the kind of a file's judge
#: entry that names none
JUDGE_KIND = "logistic"
#: the share of correct answers the fitted probabilities assume (class-balanced fitting)
PRIOR = 0.5
#: 4: isotonic maps hold the knots of the strictly increasing map (:class:`IsotonicMap`); files of format 3 hold
#: scikit-learn's steps, turned into those knots on loading (:meth:`Calibration.load`)
FORMAT = 4
#: the format whose isotonic maps are scikit-learn's steps, still read
STEPS_FORMAT = 3
FILENAME = "calibration.json"
#: inside a run of equal isotonic values, P(correct) rises from the run's value less this share of the gap to the
#: nearer neighbouring value to the run's value plus as much (:meth:`IsotonicMap.from_steps`)
TILT = 0.02
#: the isotonic values are squeezed into [P_EDGE, 1 - P_EDGE]: no score is certainly right or wrong
P_EDGE = 1e-4
#: isotonic values closer than this are one run (scikit-learn's pooled means can differ in the last bit)
RUN_TOLERANCE = 1e-12


#: a field's metadata: the file leaves the field out while it holds its declared default (so that the files written
#: before the field existed read back to the same text and digest)
OPTIONAL = {"optional": True}
#: a field's metadata: not in the file at all (where it was read from)
UNSAVED = {"unsaved": True}


def _default(f: Field) -> Any:
    return f.default_factory() if callable(f.default_factory) else f.default


def plain(value: Any) -> Any:
    """What a calibration file holds for ``value``, the one serializer of every part: a dataclass as its fields in
    declared order, each made plain, leaving out the :data:`UNSAVED` ones and the :data:`OPTIONAL` ones at their
    declared default, and a tagged class's ``kind`` first unless it is the default kind (:data:`JUDGE_KIND`: the
    logistic judges of files from before kinds name none); dicts, lists and tuples item by item; anything else as
    it is."""
    if is_dataclass(value) and not isinstance(value, type):
        kind = value.kind if isinstance(value, JudgeCalibration) else JUDGE_KIND
        out: dict[str, Any] = {} if kind == JUDGE_KIND else {"kind": kind}
        for f in fields(value):
            held = getattr(value, f.name)
            if not (f.metadata.get("unsaved") or f.metadata.get("optional") and held == _default(f)):
                out[f.name] = plain(held)
        return out
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


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


def load(calibration: str | os.PathLike | Calibration | None = None, checkpoint: str | os.PathLike | None = None,
         *, required: bool = True) -> Calibration | None:
    """The calibration to decide with: ``calibration`` itself, the file it names, or (None) the one beside the
    weighter ``checkpoint`` (:func:`default_path`). A missing file is a CalibrationError, except the default one
    when not ``required`` (None: no decisions)."""
    if isinstance(calibration, Calibration):
        return calibration
    path = default_path(checkpoint) if calibration is None else Path(os.fspath(calibration))
    if calibration is None and not required and not path.is_file():
        return None
    return Calibration.load(path)


def check_prior(prior: float) -> float:
    """``prior`` when it is a share strictly between 0 and 1; UsageError otherwise."""
    if not 0.0 < prior < 1.0:
        raise UsageError(Param("prior", prior), ": must be the expected share of correct answers, strictly between "
                         "0 and 1")
    return prior


def with_prior(p: Floats, prior: float) -> np.ndarray:
    """Probabilities fitted with half the answers correct, moved to a share ``prior``: the odds times
    ``prior / (1 - prior)`` (0 and 1 stay)."""
    p = np.asarray(p, dtype=float)
    ratio = check_prior(prior) / (1 - prior)
    return p * ratio / (p * ratio + 1 - p)


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
class Quality:
    """How well a threshold decides the fitting data."""

    accuracy: float
    kappa: float
    balanced_accuracy: float


@dataclass
class Fit:
    """What an entry scored on its own data: rows, correct ones, the quality of its threshold, and that of the
    threshold of each rule (``at_max_balanced``, ``at_max_accuracy``, ``at_max_kappa``)."""

    n: int
    positives: int
    accuracy: float
    kappa: float
    balanced_accuracy: float
    at_max_balanced: Quality
    at_max_accuracy: Quality
    at_max_kappa: Quality

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> "Fit":
        """The fit a file's entry holds."""
        return cls(raw["n"], raw["positives"], raw["accuracy"], raw["kappa"], raw["balanced_accuracy"],
                   *(Quality(**raw[f"at_max_{rule}"]) for rule in RULES))


@dataclass
class MetricCalibration:
    """The calibration of one metric (see :mod:`kpqa.calibration`); ``fit`` holds what it scored on its own data.
    ``signature``: the text of the fitting scores' signature, as the file holds it (:attr:`fitted_on` parsed)."""

    metric: str
    signature: str
    method: str
    rule: str
    threshold: float
    thresholds: dict[str, float]
    params: IsotonicMap | LogisticMap
    fit: Fit
    #: whether its metric's score rises with correctness (its signature has no ``better:lower``); when not, the map
    #: reads the negated score (:meth:`oriented`) and a row is correct at or below ``threshold``
    higher_is_better: bool = field(default=True, metadata=OPTIONAL)

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> "MetricCalibration":
        """The calibration a file's entry holds (its ``params`` as the map of its ``method``, one of ``MAPS``)."""
        return cls(**{**raw, "params": MAPS[raw["method"]](**raw["params"]), "fit": Fit.from_dict(raw["fit"])})

    def to_dict(self) -> dict[str, Any]:
        """What the file holds (:func:`plain`)."""
        out: dict[str, Any] = plain(self)
        return out

    def oriented(self, scores: Floats) -> np.ndarray:
        """The scores as the map reads them: rising with correctness (negated for a lower-is-better metric)."""
        s = np.asarray(scores, dtype=float)
        return s if self.higher_is_better else -s

    @cached_property
    def fitted_on(self) -> Signature:
        """The signature of the scores it was fitted on, parsed once."""
        return Signature.parse(self.signature)

    def prob(self, scores: Floats, prior: float | None = None) -> np.ndarray:
        """P(correct) of each score, with half the answers correct (:data:`PRIOR`) or a share ``prior``."""
        p = self.params(self.oriented(scores))
        return p if prior is None else with_prior(p, prior)

    def decide(self, scores: Floats, prior: float | None = None) -> np.ndarray:
        """1.0 where a score is judged correct, else 0.0: at or above the threshold (at or below it for a
        lower-is-better metric), or, given ``prior``, where P(correct) at that prior is at least 0.5."""
        if prior is not None:
            return (self.prob(scores, prior) >= 0.5).astype(float)
        s = np.asarray(scores, dtype=float)
        return (s >= self.threshold if self.higher_is_better else s <= self.threshold).astype(float)

    def describe(self, width: int = 0) -> str:
        """One line: the threshold, its rule, its quality on the fitting data and the other rules' thresholds."""
        others = ", ".join(f"max-{r} {t:.4g}" for r, t in self.thresholds.items() if r != self.rule)
        at = ">=" if self.higher_is_better else "<="
        return (f"{self.metric:<{width}}  correct at {at} {self.threshold:.4g}, max-{self.rule} (fit accuracy "
                f"{self.fit.accuracy:.3f}, kappa {self.fit.kappa:.3f}, balanced {self.fit.balanced_accuracy:.3f}; "
                f"{others})")


class JudgeCalibration:
    """A judge: a model of one :data:`JUDGE_KINDS` kind that turns the scores of ``inputs`` (their signatures' text
    recorded, :attr:`fitted_on` parsed) into a logit per row, which ``calibration`` calibrates as a metric's score.
    The kinds: :class:`LogisticJudge` and :class:`TreesJudge`; :meth:`from_dict` reads either from a file's entry."""

    kind: ClassVar[str]
    name: str
    inputs: list[str]
    signatures: dict[str, str]
    calibration: MetricCalibration
    #: the judge whose decisions this one makes on the rows where every one of its inputs is scored (a judge that
    #: reads the scores against known-wrong answers, ``M-wrong``, decides the rows that have them); None: its own
    replaces: str | None

    @staticmethod
    def from_dict(raw: dict[str, Any]) -> "JudgeCalibration":
        """The judge a file's entry holds, of the entry's ``kind`` (``logistic`` when it names none)."""
        kind = raw.get("kind", JUDGE_KIND)
        if kind not in JUDGE_KINDS:
            raise ValueError(f"judge {raw.get('name')!r}: unknown kind {kind!r}; one of {', '.join(JUDGE_KINDS)}")
        return JUDGE_KINDS[kind].from_entry({k: v for k, v in raw.items() if k != "kind"})

    @classmethod
    def fit(cls, name: str, inputs: list[str], signatures: dict[str, str], x: np.ndarray, y: np.ndarray,
            w: np.ndarray, calibrate: Callable[[np.ndarray], "MetricCalibration"],
            replaces: str | None = None) -> "JudgeCalibration":
        """A judge of this kind fitted on the scores ``x`` [rows, inputs] with labels ``y`` and row weights ``w``,
        built whole: ``calibrate`` turns its logits on ``x`` into its calibration
        (:func:`~kpqa.calibration.fit_judge`)."""
        raise NotImplementedError

    @classmethod
    def from_entry(cls, raw: dict[str, Any]) -> "JudgeCalibration":
        """The judge of this kind an entry (less its ``kind``) holds."""
        return cls(**{**raw, "calibration": MetricCalibration.from_dict(raw["calibration"])})

    def to_dict(self) -> dict[str, Any]:
        """What the file holds (:func:`plain`: ``kind`` first but for the logistic judges; ``replaces`` only when
        set)."""
        out: dict[str, Any] = plain(self)
        return out

    @cached_property
    def fitted_on(self) -> dict[str, Signature]:
        """The signatures of the input scores it was fitted on, parsed once."""
        return {m: Signature.parse(s) for m, s in self.signatures.items()}

    def features(self, scores: Mapping[str, Floats]) -> np.ndarray:
        """The input metrics' scores as a rows x inputs array."""
        return np.stack([np.asarray(scores[m], dtype=float) for m in self.inputs], axis=1)

    def logit(self, scores: Mapping[str, Floats]) -> np.ndarray:
        """The model's logit of each row, from the input metrics' scores."""
        raise NotImplementedError

    def prob(self, scores: Mapping[str, Floats], prior: float | None = None) -> np.ndarray:
        """P(correct) of each row (at a share ``prior`` of correct answers; default :data:`PRIOR`)."""
        return self.calibration.prob(self.logit(scores), prior)

    def decide(self, scores: Mapping[str, Floats], prior: float | None = None) -> np.ndarray:
        """1.0 where a row is judged correct, else 0.0 (see :meth:`MetricCalibration.decide`)."""
        return self.calibration.decide(self.logit(scores), prior)


@dataclass
class LogisticJudge(JudgeCalibration):
    """The ``logistic`` judge: a logistic regression on the standardised scores of ``inputs`` (``(score - mean) /
    scale``, times ``coef``, plus ``intercept``)."""

    kind: ClassVar[str] = JUDGE_KIND
    name: str
    inputs: list[str]
    signatures: dict[str, str]
    mean: list[float]
    scale: list[float]
    coef: list[float]
    intercept: float
    calibration: MetricCalibration
    replaces: str | None = field(default=None, metadata=OPTIONAL)  # files from before it name none

    @classmethod
    def fit(cls, name: str, inputs: list[str], signatures: dict[str, str], x: np.ndarray, y: np.ndarray,
            w: np.ndarray, calibrate: Callable[[np.ndarray], "MetricCalibration"],
            replaces: str | None = None) -> "LogisticJudge":
        """scikit-learn's L2-regularised logistic regression, C=1, on the standardised scores."""
        from sklearn.linear_model import LogisticRegression

        mean, scale = x.mean(axis=0), x.std(axis=0)
        scale[scale == 0] = 1.0
        lr = LogisticRegression().fit((x - mean) / scale, y, sample_weight=w)
        coef, intercept = lr.coef_[0].tolist(), float(lr.intercept_[0])
        logit = _standardised_logit(x, mean.tolist(), scale.tolist(), coef, intercept)
        return cls(name, inputs, signatures, mean.tolist(), scale.tolist(), coef, intercept, calibrate(logit),
                   replaces)

    def logit(self, scores: Mapping[str, Floats]) -> np.ndarray:
        """The regression's logit of each row."""
        return _standardised_logit(self.features(scores), self.mean, self.scale, self.coef, self.intercept)


def _standardised_logit(x: np.ndarray, mean: list[float], scale: list[float], coef: list[float],
                        intercept: float) -> np.ndarray:
    """A logistic judge's logit of each row of ``x`` [rows, inputs]."""
    return ((x - mean) / scale) @ np.asarray(coef) + intercept


#: the trees judge's estimator: scikit-learn's ``HistGradientBoostingClassifier`` (``GradientBoostingClassifier``,
#: whose trees are public, was 0.7 points behind it under CV on EVOUNA-TQ dev, and far behind on the contrastive
#: check part's kinds that the old fit part lacks: docs/decisions.md), and its settings (the others its defaults;
#: early stopping on 10 % of the rows, as it is by default from 10,000 rows, here at any size)
TREES_ESTIMATOR = "HistGradientBoostingClassifier"
TREES = {"max_iter": 200, "max_leaf_nodes": 15, "learning_rate": 0.1, "early_stopping": True,
         "validation_fraction": 0.1, "n_iter_no_change": 10, "random_state": 0}


@dataclass
class TreesJudge(JudgeCalibration):
    """The ``trees`` judge: boosted regression trees on the raw scores of ``inputs``; a row's logit is ``baseline``
    plus the value of the leaf it reaches in each of ``trees`` (:mod:`kpqa.calibration.trees`). ``model``: the
    estimator and settings it was fitted with (a record; applying it needs only the trees)."""

    kind: ClassVar[str] = "trees"
    name: str
    inputs: list[str]
    signatures: dict[str, str]
    model: dict[str, Any]
    baseline: float
    trees: list[Tree]
    calibration: MetricCalibration
    replaces: str | None = field(default=None, metadata=OPTIONAL)  # files from before it name none

    @classmethod
    def fit(cls, name: str, inputs: list[str], signatures: dict[str, str], x: np.ndarray, y: np.ndarray,
            w: np.ndarray, calibrate: Callable[[np.ndarray], "MetricCalibration"],
            replaces: str | None = None) -> "TreesJudge":
        """:data:`TREES_ESTIMATOR` with :data:`TREES` on the raw scores, its trees read out
        (:func:`~kpqa.calibration.trees.from_hist_gradient_boosting`); the entry records every setting."""
        import sklearn
        from sklearn.ensemble import HistGradientBoostingClassifier

        model = HistGradientBoostingClassifier(**TREES).fit(x, y, sample_weight=w)  # type: ignore[arg-type]
        baseline, trees = from_hist_gradient_boosting(model)
        record = {"estimator": TREES_ESTIMATOR, "scikit-learn": sklearn.__version__, "params": model.get_params()}
        logit = baseline + leaf_sum(flatten(trees), x)
        return cls(name, inputs, signatures, record, baseline, trees, calibrate(logit), replaces)

    @classmethod
    def from_entry(cls, raw: dict[str, Any]) -> "TreesJudge":
        """The trees judge an entry holds (its trees checked: :class:`~kpqa.calibration.trees.Tree`)."""
        n = len(raw["inputs"])
        trees = [Tree(**t) for t in raw["trees"]]
        if not trees or any(f >= n for t in trees for f in t.feature):
            raise ValueError(f"judge {raw['name']!r}: no trees, or a split on an input it does not have")
        return cls(**{**raw, "trees": trees, "calibration": MetricCalibration.from_dict(raw["calibration"])})

    @cached_property
    def flat(self) -> Flat:
        """Every tree's nodes in one set of arrays, made once."""
        return flatten(self.trees)

    def logit(self, scores: Mapping[str, Floats]) -> np.ndarray:
        """``baseline`` plus the leaves each row reaches."""
        return self.baseline + leaf_sum(self.flat, self.features(scores))


#: the kinds of judge, by the name a file's entry gives as its ``kind``: every :class:`JudgeCalibration` defined,
#: each with its fitter (:meth:`JudgeCalibration.fit`)
JUDGE_KINDS: dict[str, type[JudgeCalibration]] = {cls.kind: cls for cls in JudgeCalibration.__subclasses__()}


@dataclass
class DataFile:
    """The record of one fitting file: path as given, sha256, rows and positives."""

    path: str
    sha256: str
    rows: int
    positives: int

    @classmethod
    def of(cls, path: str | Path, rows: int, positives: int) -> "DataFile":
        """The record of the file at ``path`` (its sha256 read now)."""
        return cls(str(path), hashlib.sha256(Path(path).read_bytes()).hexdigest(), rows, positives)


@dataclass(kw_only=True)
class Calibration:
    """Calibrations of several metrics (and judges) fitted on the same labelled rows, with a record of them; its
    fields in the order the file holds them."""

    format: int = FORMAT
    kpqa_version: str = __version__
    labels: str
    data: list[DataFile]
    metrics: dict[str, MetricCalibration]
    judges: dict[str, JudgeCalibration] = field(default_factory=dict)
    #: each entry's rating by :data:`kpqa.calibration.fitness.RULE` as fitted (empty in files fitted before
    #: ratings, which are rated when asked: :meth:`rating`)
    fitness: dict[str, Fitness] = field(default_factory=dict, metadata=OPTIONAL)
    #: the questions of the rows it was fitted on, as :func:`kpqa.folds.question_digest` (empty in files fitted
    #: before they were recorded): meta-eval can then leave a user's rows on those questions out
    questions: list[str] = field(default_factory=list, metadata=OPTIONAL)
    #: the file it was read from or saved to (None: not yet)
    path: str | None = field(default=None, metadata=UNSAVED)

    def to_dict(self) -> dict[str, Any]:
        """What the file holds (:func:`plain`)."""
        out: dict[str, Any] = plain(self)
        return out

    def rating(self, name: str) -> Fitness:
        """Whether the decisions of the metric or judge ``name`` mean something (:mod:`kpqa.calibration.fitness`):
        the file's recorded rating, else its rating now by the same rule."""
        if name in self.fitness:
            return self.fitness[name]
        return rate(self.metrics[name] if name in self.metrics else self.judges[name].calibration)

    def to_json(self) -> str:
        """The file's text."""
        return json.dumps(self.to_dict(), indent=2, ensure_ascii=False, allow_nan=False) + "\n"

    @property
    def digest(self) -> str:
        """Short sha256 of the file's text: the ``cal:`` part of the signatures of decisions made with it."""
        return hashlib.sha256(self.to_json().encode("utf-8")).hexdigest()[:12]

    @property
    def rows(self) -> int:
        """The labelled rows it was fitted on."""
        return sum(d.rows for d in self.data)

    def summary(self) -> str:
        """One line per metric and judge: its threshold and how well it decides the fitting data."""
        entries = list(self.metrics.values()) + [j.calibration for j in self.judges.values()]
        width = max((len(e.metric) for e in entries), default=0)
        rated = {e.metric: self.rating(e.metric) for e in entries}
        return "\n".join(e.describe(width) + ("; fit" if rated[e.metric].fit else
                                              f"; unfit: {rated[e.metric].why()}, no decisions") for e in entries)

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
            judges = {name: JudgeCalibration.from_dict(j) for name, j in raw.get("judges", {}).items()}
            data = [DataFile(**d) for d in raw["data"]]
            fitness = {name: Fitness.from_dict(f) for name, f in raw.get("fitness", {}).items()}
            questions = [str(q) for q in raw.get("questions", [])]
            return cls(metrics=metrics, data=data, labels=raw["labels"], judges=judges,
                       kpqa_version=raw["kpqa_version"], format=FORMAT, path=str(path), fitness=fitness,
                       questions=questions)
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
