"""The contrastive answer data (kpqa.train.contrastive): span types, the rows of a hand-made article, seeding,
the fit / check split by article; on the shared data, the whole build."""
from __future__ import annotations

import pytest

from kpqa.train.contrastive import KINDS_CORRECT, KINDS_WRONG, Article, Builder, Question, build, in_check, span_type

CONTEXT = ("The Treaty of Turin was signed in 1860. In this treaty, Savoy and Nice were annexed into France from "
           "the Kingdom of Sardinia. Napoleon III met Cavour at Plombieres in 1858. The plebiscite in Nice was held "
           "in April 1860 and drew 25,743 votes. Four steps were needed to ratify it. Garibaldi, born in Nice, "
           "opposed the treaty.")


def _article() -> Article:
    def q(i: int, question: str, answer: str, extra: tuple[str, ...] = ()) -> Question:
        return Question(str(i), question, CONTEXT, [answer, *extra], CONTEXT.index(answer))

    return Article("test", "Turin", [
        q(1, "When was the Treaty of Turin signed?", "1860"),
        q(2, "From which kingdom were Savoy and Nice annexed?", "Kingdom of Sardinia", ("Sardinia",)),
        q(3, "Whom did Napoleon III meet at Plombieres?", "Cavour"),
        q(4, "When did Napoleon III meet Cavour?", "1858"),
        q(5, "How many votes did the plebiscite draw?", "25,743"),
        q(6, "How many steps were needed to ratify it?", "Four"),
        q(7, "Who opposed the treaty?", "Garibaldi"),
    ])


@pytest.mark.parametrize(("text", "kind"), [
    ("1860", "year"), ("April 1860", "date"), ("25,743", "number"), ("Four", "number"), ("100% oxygen", "number"),
    ("Kingdom of Sardinia", "name"), ("Jane Austen", "name"), ("a red car", None),
    ("one two three four five six seven eight nine", None),
])
def test_span_type(text, kind):
    assert span_type(text) == kind


def test_rows_of_a_hand_made_article():
    rows = list(Builder(seed=1).rows(_article()))
    assert {r["kind"] for r in rows} <= set(KINDS_CORRECT) | set(KINDS_WRONG)
    by_question: dict[str, list] = {}
    for r in rows:
        by_question.setdefault(r["qid"], []).append(r)
        assert r["article"] == "test:Turin" and r["scores"] in (0, 1) and r["answer"].strip()
    for found in by_question.values():  # as many right as wrong answers to each question
        assert sum(r["scores"] for r in found) * 2 == len(found)
    for r in rows:
        if r["kind"] == "swap":  # the answer sentence, its fact replaced by another of the same type
            gold = next(q.answers for q in _article().questions if q.id == r["qid"])
            assert gold[0] not in r["answer"] and span_type(gold[0]) is not None
        if r["kind"] == "polar-flip":
            assert r["answer"].split(",")[0].rstrip(".").lower() != r["references"][0].split(",")[0].lower()
    years = [r for r in rows if r["qid"] == "1" and r["kind"] in ("swap", "swap-span")]
    assert all("1858" in r["answer"] for r in years)  # the only other year of the article


def test_rows_are_seeded_and_the_split_is_by_article():
    assert list(Builder(seed=1).rows(_article())) == list(Builder(seed=1).rows(_article()))
    assert list(Builder(seed=1).rows(_article())) != list(Builder(seed=2).rows(_article()))
    names = [f"squad:{i}" for i in range(2000)]
    share = sum(in_check(n, 13, 0.4) for n in names) / len(names)
    assert 0.36 < share < 0.44
    assert [in_check(n, 13, 0.4) for n in names] == [in_check(n, 13, 0.4) for n in names]


@pytest.mark.shared_data
@pytest.mark.slow
def test_build_on_the_shared_data(shared_data):
    root = shared_data("squad/dev-v1.1.json").parents[1]
    parts = build(root, seed=13, per_source=40)
    fit, check = parts["fit"], parts["check"]
    assert not {r["article"] for r in fit} & {r["article"] for r in check}
    for part in (fit, check):
        assert sum(r["scores"] for r in part) * 2 == len(part)
    kinds = {r["kind"] for r in fit + check}
    assert {"swap", "swap-span", "choice-other", "polar-flip", "polar-wrong-statement", "clause"} <= kinds
    # no text of the human-judgment sets: the questions are the QA sources' own
    human = (root / "human_eval" / "evouna_tq_dev.csv").read_text(encoding="utf-8")
    assert not any(f'\n{r["question"]},' in human for r in fit + check)
