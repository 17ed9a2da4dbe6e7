"""Whether a calibrated metric's decisions mean something: the bar a calibration entry must pass for ``kpqa score
--decide`` to write its ``-prob`` / ``-correct`` columns (issue 54; docs/decisions.md says why this bar).

An entry is **fit** when, on the labelled rows it was fitted on, (1) its threshold decides right on at least
:data:`MIN_BALANCED` of the answers, class-balanced (the mean of the recall of right and of wrong answers: the
figure the default threshold rule maximises, which does not depend on the share of right answers), and (2) it
does not call an effectively zero score correct: for a score whose floor is 0 (an overlap metric: its lowest
fitted score is not below 0), P(correct) at :data:`ZERO` is under one half. A BLEU-4 whose P(correct) jumps from
0.18 to 0.68 between two scores that both say "no 4-gram in common" (4e-17 and 1e-4) fails (2).

Both figures come from what every calibration file holds (the fit's balanced accuracy, the map), so a file fitted
before the bar existed is rated by the same rule when it is read (:func:`rate`); ``kpqa calibrate`` records the
rating and its figures in the file it writes (``fitness``), and a file's recorded rating is the one applied.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping, Protocol

import numpy as np

#: the lowest balanced accuracy (on the fitting data) of a metric whose decisions are written
MIN_BALANCED = 0.85
#: a score of a metric whose floor is 0 that is "effectively zero" (BLEU's smoothed 1e-15, one stop word in common)
ZERO = 0.01
#: the rule, as a file records it beside its figures
RULE = f"balanced accuracy >= {MIN_BALANCED:g} and P(correct) at score {ZERO:g} < 0.5 (floor-0 scores)"


@dataclass(frozen=True)
class Fitness:
    """An entry's rating: its balanced accuracy on the fitting data, its P(correct) at :data:`ZERO` (None when its
    scores go below 0: a logit, BERTScore), whether it passes :data:`RULE` (``fit``) and the rule it was rated by."""

    balanced_accuracy: float
    p_at_zero: float | None
    fit: bool
    rule: str = RULE

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> "Fitness":
        """The rating a file records."""
        return cls(float(raw["balanced_accuracy"]), None if raw["p_at_zero"] is None else float(raw["p_at_zero"]),
                   bool(raw["fit"]), str(raw["rule"]))

    def why(self) -> str:
        """What it fails, in a few words (empty when fit)."""
        failed = ([f"balanced accuracy {self.balanced_accuracy:.3f} < {MIN_BALANCED:g}"]
                  if self.balanced_accuracy < MIN_BALANCED else [])
        if self.p_at_zero is not None and self.p_at_zero >= 0.5:
            failed.append(f"P(correct) {self.p_at_zero:.2f} at score {ZERO:g}")
        return "; ".join(failed)


class Rated(Protocol):
    """What the rule reads of a calibration entry (:class:`kpqa.calibration.model.MetricCalibration`, which imports
    this module: a Protocol here, so that the two modules do not import each other)."""

    @property
    def higher_is_better(self) -> bool: ...

    @property
    def params(self) -> Any: ...  # the map: an isotonic one has its knots' scores in ``x``

    @property
    def fit(self) -> Any: ...  # the fit's figures: ``balanced_accuracy``

    def prob(self, scores: Any, prior: float | None = None) -> np.ndarray: ...


def floor_zero(entry: Rated) -> bool:
    """Whether the entry's scores have 0 as their floor, the worst score of an overlap metric: no fitted score below
    0 (an isotonic map's lowest knot; a logistic map, which keeps no scores, is taken to be of such a score). Never
    for a lower-is-better metric's (0 is its best)."""
    if not entry.higher_is_better:
        return False
    xs = getattr(entry.params, "x", None)
    return xs is None or float(xs[0]) >= 0.0


def rate(entry: Rated) -> Fitness:
    """The rating of ``entry`` by :data:`RULE`, from what it holds."""
    balanced = float(entry.fit.balanced_accuracy)
    p_zero = float(entry.prob(np.array([ZERO]))[0]) if floor_zero(entry) else None
    fit = balanced >= MIN_BALANCED and (p_zero is None or p_zero < 0.5)
    return Fitness(round(balanced, 6), None if p_zero is None else round(p_zero, 6), fit)
