"""kpqa.arraystats and kpqa.binary: the statistics of yes/no decisions against human labels (against scikit-learn, by
hand; one formula each, calibration's thresholds included) and the answer-length bands."""
from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import (
    average_precision_score, balanced_accuracy_score, brier_score_loss, cohen_kappa_score, roc_auc_score,
)

from kpqa import arraystats, binary


def test_binary_statistics_agree_with_sklearn_on_ties():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 200).astype(float)
    s = np.round(rng.random(200) + 0.4 * y, 1)  # many ties
    d = (s >= 0.7).astype(float)
    assert arraystats.auroc(y[None], s[None])[0] == pytest.approx(roc_auc_score(y, s))
    assert arraystats.average_precision(y[None], s[None])[0] == pytest.approx(average_precision_score(y, s))
    assert arraystats.kappa(y[None], d[None])[0] == pytest.approx(cohen_kappa_score(y, d))
    assert arraystats.balanced_accuracy(y[None], d[None])[0] == pytest.approx(balanced_accuracy_score(y, d))
    p = np.clip(s, 0, 1)
    assert arraystats.brier(y[None], p[None])[0] == pytest.approx(brier_score_loss(y, p))


def test_brier_and_ece_by_hand():
    y = np.array([1, 0, 1, 1, 0, 0.0])
    p = np.array([0.9, 0.8, 0.15, 0.1, 0.12, 1.0])
    assert arraystats.brier(y[None], p[None])[0] == pytest.approx(
        (0.01 + 0.64 + 0.7225 + 0.81 + 0.0144 + 1.0) / 6)
    # bins: [0.1, 0.2) holds 0.15, 0.1, 0.12 (labels 1, 1, 0): |2 - 0.37|; [0.8, 0.9) holds 0.8 (label 0): 0.8;
    # the last bin [0.9, 1.0] holds 0.9 and 1.0 (labels 1, 0): |1 - 1.9|
    assert arraystats.ece(y[None], p[None])[0] == pytest.approx((1.63 + 0.8 + 0.9) / 6)


def test_evaluate_gives_intervals_around_the_value_and_notes_one_class():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 300).astype(float)
    s = y + rng.normal(0, 1, 300)
    out = binary.evaluate(y, scores=s, probs=1 / (1 + np.exp(-s)), decisions=(s > 0.5).astype(float),
                          bootstrap=200)
    assert set(out) == set(binary.STATISTICS)
    for e in out.values():
        assert e.ci_low <= e.value <= e.ci_high
    one = binary.evaluate(np.ones(10), scores=np.arange(10.0), bootstrap=0)
    assert one["auroc"].value is None and "one class" in one["auroc"].note


def test_length_bands():
    texts = ["Paris", "in Paris, France", "one two three four", "x " * 10, "x " * 11, "x " * 30, "x " * 31, ""]
    assert binary.length_bands(texts).tolist() == [0, 0, 1, 1, 2, 2, 3, 0]
    assert [binary.band_name(b) for b in binary.LENGTH_BANDS] == ["1-3 words", "4-10 words", "11-30 words",
                                                                 "31+ words"]


def test_balanced_accuracy_by_hand_and_undefined_with_one_class():
    y = np.array([[1, 1, 1, 0], [1, 1, 1, 1.0]])
    d = np.array([[1, 0, 1, 1], [1, 0, 1, 1.0]])
    out = arraystats.balanced_accuracy(y, d)  # (2/3 of the correct judged so + 0/1 of the wrong) / 2; one class: NaN
    assert out[0] == pytest.approx(1 / 3) and np.isnan(out[1])


def test_calibrations_thresholds_measure_each_rule_as_the_array_statistics_do():
    """fit.thresholds counts every cut at once; its accuracy, kappa and balanced accuracy are arraystats' formulas, to
    the bit, on the decisions ``score >= cut``."""
    from kpqa.calibration.fit import thresholds

    rng = np.random.default_rng(5)
    scores, labels = rng.integers(0, 12, 80) / 4, rng.integers(0, 2, 80).astype(float)
    cut, acc, kap, bal = thresholds(scores, labels)
    decisions = (scores[None] >= cut[:, None]).astype(float)
    y = np.broadcast_to(labels, decisions.shape)
    assert acc.tolist() == arraystats.accuracy(y, decisions).tolist()
    assert bal.tolist() == arraystats.balanced_accuracy(y, decisions).tolist()
    assert np.array_equal(kap, arraystats.kappa(y, decisions), equal_nan=True)


def test_the_reliability_chart_joins_full_bins_only_and_captions_ece_and_n():
    labels = np.r_[np.zeros(27), np.ones(3), np.ones(5), np.ones(20)]
    probs = np.r_[np.full(30, 0.15), np.full(5, 0.85), np.full(20, 0.95)]
    chart = binary.reliability_chart(binary.reliability(labels, probs))
    assert [n for _, _, n in chart.points] == [30, 5, 20]
    assert np.array([(p, s) for p, s, _ in chart.points]) == pytest.approx(np.array([[0.15, 0.1], [0.85, 1.0], [0.95, 1.0]]))
    assert np.array(chart.line) == pytest.approx(np.array([[0.15, 0.1], [0.95, 1.0]]))  # 5 rows < MIN_BIN_ROWS = 20
    assert np.array(chart.hollow) == pytest.approx(np.array([[0.85, 1.0]])) and chart.hollow_label == "bins < 20 rows"
    assert chart.caption == "ECE 0.059, n = 55"  # (30 * 0.05 + 5 * 0.15 + 20 * 0.05) / 55 = 3.25 / 55
    assert chart.rows == [0, 30, 0, 0, 0, 0, 0, 0, 5, 20] and len(chart.edges) == 11
    assert binary.reliability_chart(binary.reliability(labels, probs), min_rows=5).hollow == []
    empty = binary.reliability_chart(binary.reliability(np.array([]), np.array([])))
    assert empty.points == [] and empty.caption == "no rows"
