"""SQuAD v1.1 exact match and token F1 with the official normalisation."""
from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import shared

from kpqa.metrics import Context, Rows, get_metric
from kpqa.metrics.squad import exact_match, normalize_answer, token_f1


@pytest.mark.parametrize(
    ("text", "normalised"),
    [
        ("The  Denver Broncos!", "denver broncos"),
        ("an apple, a day", "apple day"),
        ("Theater of the absurd", "theater of absurd"),  # articles only as whole words
        ("U.S. $5.50 (approx.)", "us 550 approx"),
        ("   ", ""),
    ],
)
def test_normalize_answer(text, normalised):
    assert normalize_answer(text) == normalised


def test_exact_match_and_f1_hand_computed():
    assert exact_match("the Denver Broncos", ["Broncos", "Denver Broncos."]) == 1.0
    assert exact_match("Denver", ["Denver Broncos"]) == 0.0
    # 2 shared tokens; P = 2/3, R = 1 -> F1 = 0.8; the best reference counts
    assert token_f1("Denver Broncos team", ["Broncos of Denver", "Denver Broncos"]) == pytest.approx(0.8)
    # bag overlap is clipped: "x x y" vs "x y y" share 2 of 3 tokens each
    assert token_f1("x x y", ["x y y"]) == pytest.approx(2 / 3)
    assert token_f1("", ["anything"]) == 0.0 and token_f1("the", ["a"]) == 0.0


def test_registered_metrics_ignore_the_tokenizer():
    rows = Rows(questions=["q", "q"], candidates=["Denver Broncos", "in 1990"],
                references=[["the Denver Broncos"], ["1991"]])
    for ctx in (Context(), Context(tokenizer="zh")):
        assert get_metric("EM").score(rows, ctx)["EM"].tolist() == [1.0, 0.0]
        assert get_metric("F1").score(rows, ctx)["F1"].tolist() == [1.0, 0.0]
    assert str(get_metric("F1").signature(Context())).startswith("F1|norm:squad-v1.1|version:")


@pytest.mark.shared_data
def test_squad_dev_human_agreement():
    """The second gold answer scored against the other gold answers: SQuAD's human performance on dev (Rajpurkar
    et al. 2016: EM 80.3, F1 90.5). Measured on the shared dev file (10,567 questions with 2+ answers): EM 0.815,
    F1 0.910; the first answer against all answers scores 1."""
    data = json.loads(shared("squad/dev-v1.1.json").read_text())
    answers = [[a["text"] for a in q["answers"]] for art in data["data"] for p in art["paragraphs"] for q in p["qas"]]
    assert all(exact_match(a[0], a) == 1.0 and token_f1(a[0], a) == 1.0 for a in answers)
    multi = [a for a in answers if len(a) > 1]
    em = np.mean([exact_match(a[1], a[:1] + a[2:]) for a in multi])
    f1 = np.mean([token_f1(a[1], a[:1] + a[2:]) for a in multi])
    assert abs(em - 0.803) <= 0.02 and abs(f1 - 0.905) <= 0.02
