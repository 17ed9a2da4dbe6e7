"""Calibration: from a metric's score to P(correct) and a correct / incorrect decision, fitted on human labels.

Per metric, a calibration holds a strictly increasing map score -> P(correct) (``isotonic``: scikit-learn's isotonic
regression with each plateau slightly tilted, :class:`IsotonicMap`, so that P(correct) ranks answers as their scores
do; ``logistic``: a one-feature logistic regression) and a decision threshold: a row is judged correct when its
score is >= ``threshold`` (for a lower-is-better metric, whose signature says ``better:lower``, the map reads the
negated score and a row is correct when its score is <= ``threshold``), the threshold its ``rule`` picks on the
fitting data: highest ``balanced`` accuracy (the
mean of the recall of correct and of wrong answers; the default), highest ``accuracy``, or highest Cohen's
``kappa``; all three are recorded. Accuracy depends on the share of correct answers in the fitting data (85.5% in
EVOUNA-TQ): its threshold is the lowest and judges too many wrong answers correct on a set with fewer correct ones;
balanced accuracy does not depend on that share. Thresholds lie halfway between adjacent distinct scores.

**The prior, said out loud.** Every map is fitted class-balanced (each class weighs half), so P(correct) assumes
that half the answers are correct (:data:`PRIOR`), whatever the share in the fitting data. ``prior=P`` (the
expected share of correct answers where the calibration is used; ``kpqa score --prior P``) shifts the log-odds by
``logit(P)`` and then decides "correct" where P(correct) >= 0.5; the decisions' signatures record it as ``prior``.

A *judge* combines several metrics into one probability: a class-balanced model of their scores gives a logit per
row, which is then calibrated like a metric's score (``KPQA-judge``: :data:`JUDGE_INPUTS`, chosen by
cross-validation on EVOUNA-TQ dev and the contrastive data, ``experiments/decide_cv.py``). The model is of a kind
(:data:`JUDGE_KINDS`): ``logistic`` (the default, :class:`LogisticJudge`), a logistic regression on the standardised
scores; or ``trees`` (:class:`TreesJudge`), boosted regression trees (:data:`TREES`) held as plain node arrays
(:mod:`~kpqa.calibration.trees`) and walked in numpy, which can learn that a score matters only when another is high.

A calibration file records, per metric and judge input, the signature of the scores it was fitted on (which names
the weighter checkpoint's hash); :meth:`Calibration.entry` refuses scores with another signature, so that a
calibration never silently outlives its weighter. The arithmetic precision (``|precision:...``, which moves scores
by up to ~1e-2) is left out of the comparison, so a calibration fitted on CPU in fp32 applies on a GPU in bf16.

The package: :mod:`~kpqa.calibration.model` (the maps, the entries, the file: :func:`load`),
:mod:`~kpqa.calibration.trees` (the trees judge's arithmetic), :mod:`~kpqa.calibration.fit` (fitting on arrays of
scores and labels), :mod:`~kpqa.calibration.apply` (the decision columns, :class:`Decisions`: one ``apply`` for the
scorer and the meta-evaluation). Fitting from labelled files, which drives a scorer, is a stage later, outside the
package: :mod:`kpqa.labelled` (labelled files read and scored: ``kpqa calibrate``, ``kpqa meta-eval``).
:mod:`~kpqa.calibration.fitness` rates whether an entry's decisions mean something (``kpqa score --decide`` writes
only theirs). No torch here: fitting and applying take arrays of scores.
"""
from kpqa.calibration.apply import (
    DECISION_SUFFIXES, Decisions, JudgeSet, decided_metric, decision_columns, unfit, warn_unjudged,
)
from kpqa.calibration.fitness import Fitness, rate
from kpqa.calibration.fit import (
    MIN_ROWS, balanced_weights, check_labels, choose_judge_inputs, fit, fit_judge, fit_metric, fit_wrong_judge,
    thresholds,
)
from kpqa.calibration.model import (
    FILENAME, FORMAT, JUDGE, JUDGE_INPUTS, JUDGE_KIND, JUDGE_KINDS, MAPS, METHODS, P_EDGE, PRIOR, RULES, RUN_TOLERANCE,
    STEPS_FORMAT, TILT, TREES, TREES_ESTIMATOR, WRONG_JUDGE, WRONG_JUDGE_KIND, Calibration, CalibrationError, DataFile,
    Fit, IsotonicMap, JudgeCalibration, LogisticJudge, LogisticMap, MetricCalibration, Quality, TreesJudge,
    check_prior, comparable, default_path, load, with_prior,
)
from kpqa.calibration.trees import Tree

__all__ = [
    "DECISION_SUFFIXES", "FILENAME", "FORMAT", "JUDGE", "JUDGE_INPUTS", "JUDGE_KIND", "JUDGE_KINDS", "MAPS", "METHODS",
    "MIN_ROWS", "PRIOR", "P_EDGE", "RULES", "RUN_TOLERANCE", "STEPS_FORMAT", "TILT", "TREES", "TREES_ESTIMATOR",
    "WRONG_JUDGE", "WRONG_JUDGE_KIND",
    "Calibration", "CalibrationError", "DataFile", "Decisions", "Fit", "IsotonicMap", "JudgeCalibration", "JudgeSet",
    "LogisticJudge", "LogisticMap", "MetricCalibration", "Quality", "Tree", "TreesJudge",
    "balanced_weights", "check_labels", "check_prior", "choose_judge_inputs", "comparable",
    "decided_metric", "decision_columns", "default_path", "fit", "fit_judge", "fit_metric", "fit_wrong_judge",
    "load", "thresholds", "unfit", "warn_unjudged", "with_prior", "Fitness", "rate",
]
