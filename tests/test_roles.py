"""What a result column holds (:mod:`kpqa.roles`) and which judge decides each row (:class:`kpqa.calibration.JudgeSet`)."""
from __future__ import annotations

import numpy as np
import pytest

from kpqa import calibration
from kpqa.roles import DECISIONS, ResultColumn, Role, decided_metric, decision_names, metric_of, role_of


@pytest.mark.parametrize("metric", ["BLEU-1", "ROUGE-L-KPQA", "KPQA-judge", "KPQA-judge+wrong", "BERTScore-KPQA-KP"])
def test_every_role_s_name_reads_back_as_its_metric_and_role(metric):
    for role in Role:
        column = ResultColumn.parse(role.of(metric))
        assert (column.metric, column.role, column.name) == (metric, role, role.of(metric))
    assert decision_names(metric) == [metric + "-prob", metric + "-correct"]


def test_names_that_only_look_like_a_role_are_scores():
    assert ResultColumn.parse("-prob") == ResultColumn("-prob", Role.SCORE)  # a suffix alone names no metric
    assert role_of("F1") is Role.SCORE and metric_of("F1-wrong") == "F1" and role_of("F1-wrong") is Role.WRONG
    assert decided_metric("F1-correct") == "F1" and decided_metric("F1-wrong") == "F1-wrong"
    assert [r.value for r in DECISIONS] == list(calibration.DECISION_SUFFIXES) == ["-prob", "-correct"]


def _judges() -> tuple[calibration.Calibration, np.ndarray, dict[str, np.ndarray]]:
    """A calibration with a judge J on a and b, and W (on a, b and a-wrong) deciding in J's place."""
    rng = np.random.default_rng(1)
    n = 400
    y = (rng.random(n) < 0.5).astype(float)
    scores = {"a": y + rng.normal(0, 0.6, n), "b": y + rng.normal(0, 0.8, n), "a-wrong": 1 - y + rng.normal(0, 0.3, n)}
    scores["a-wrong"][: n // 2] = np.nan  # the first half has no known-wrong answers
    sigs = {m: m for m in scores}
    j = calibration.fit_judge("J", {m: scores[m] for m in ("a", "b")}, sigs, y)
    w = calibration.fit_judge("W", {m: scores[m][n // 2:] for m in ("a", "b", "a-wrong")}, sigs, y[n // 2:],
                              replaces="J")
    return calibration.Calibration(labels="", data=[], metrics={}, judges={"J": j, "W": w}), y, scores


def test_a_judge_set_says_which_judge_decides_each_row():
    cal, y, scores = _judges()
    judges = calibration.JudgeSet.every(cal)
    assert [j.name for j in judges.deciding()] == ["J"] and [j.name for j in judges.in_place_of("J")] == ["W"]
    assert [j.name for j in judges.on(["a", "b"])] == ["J"]
    assert judges.lacking(["a"]) == {"J": ["b"]}  # W, in J's place, is never missed
    out = calibration.Decisions(cal, {}, judges).apply(scores)
    assert list(out) == ["J-prob", "J-correct"]  # W writes no columns of its own
    half = len(y) // 2
    j, w = cal.judges["J"], cal.judges["W"]
    assert np.array_equal(out["J-prob"][:half], j.prob({m: v[:half] for m, v in scores.items()}))
    assert np.array_equal(out["J-prob"][half:], w.prob({m: v[half:] for m, v in scores.items()}))
    assert not np.array_equal(out["J-prob"][half:], j.prob({m: v[half:] for m, v in scores.items()}))
    assert list(calibration.Decisions(cal, {}, judges).apply({m: scores[m] for m in ("a", "b")})) == [
        "J-prob", "J-correct"]  # without the known-wrong scores J decides every row


def test_the_decision_suite_is_the_default_one_and_the_judge_s_inputs():
    """Adding a judge input is one line (``JUDGE_INPUTS``): the suite scored when deciding follows."""
    from kpqa.scoring import DECIDE_METRICS, DEFAULT_METRICS

    assert DECIDE_METRICS[:len(DEFAULT_METRICS)] == DEFAULT_METRICS
    assert set(DECIDE_METRICS) == set(DEFAULT_METRICS) | set(calibration.JUDGE_INPUTS)
    assert len(set(DECIDE_METRICS)) == len(DECIDE_METRICS)
