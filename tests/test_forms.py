"""Answer forms of the example builder: short answers, yes/no answers, the answer-share filter."""
from __future__ import annotations

import random

import pytest

from kpqa.errors import UsageError
from kpqa.train.examples import TaggedExample, polar_answer
from kpqa.train.forms import AnswerForms, build_examples, polar_text, shorten

TEXT = "In 1990 the old bridge over the river Avon was finally replaced by a new one."
BRIDGE = TaggedExample("What was replaced?", TEXT, ((TEXT.index("the old bridge"), TEXT.index(" over")),), "squad", "b")
POLAR = TaggedExample("Is it open?", "The bridge opened in 1991. It is busy.", (), "msmarco", "p", polar="yes")


def test_polar_answer():
    assert [polar_answer(a) for a in ("Yes", " no. ", "YES!", "yes it is", "", "No Answer Present.")] == [
        "yes", "no", "yes", None, None, None]


@pytest.mark.parametrize("seed", range(40))
def test_shorten_keeps_the_span_and_at_most_three_words_each_side(seed):
    short = shorten(BRIDGE, random.Random(seed))
    assert short.answers == ["the old bridge"]
    before, _, after = short.text.partition("the old bridge")
    assert len(before.split()) <= 3 and len(after.split()) <= 3
    assert short.text in TEXT and short.question == BRIDGE.question


def test_shorten_keeps_other_spans_inside_the_window():
    text = "paris and Paris and far away PARIS"
    example = TaggedExample("q", text, ((0, 5), (10, 15), (29, 34)), "hotpotqa", "h")
    rng = random.Random(0)
    for _ in range(30):
        short = shorten(example, rng)
        assert short.answers[0] == "paris"
        assert all(a.lower() == "paris" for a in short.answers)
        assert ("Paris" in short.text) == (len(short.answers) >= 2)


def test_polar_forms_tag_the_polar_word_only():
    sentence = polar_text(POLAR, "sentence")
    assert sentence.text == "Yes, The bridge opened in 1991." and sentence.answers == ["Yes"]
    bare = polar_text(POLAR, "bare")
    assert bare.text == "yes" and bare.answers == ["yes"]
    no_evidence = TaggedExample("Is it?", "", (), "msmarco", "e", polar="no")
    assert polar_text(no_evidence, "sentence").text == "no"


def test_build_examples_counts_and_options():
    flat = TaggedExample("q", "Answer here.", ((0, 11),), "msmarco", "f")
    examples = [BRIDGE, POLAR, flat]
    kept, counts = build_examples(examples, AnswerForms(), seed=1)
    assert kept == [BRIDGE, flat] and counts == {"yes/no dropped": 1, "answer sentence": 2}
    kept, counts = build_examples(examples, AnswerForms(yes_no="bare", max_answer_share=0.5), seed=1)
    assert [e.text for e in kept] == [TEXT, "yes"]
    assert counts == {"answer sentence": 1, "yes/no as bare word": 1, "answer share too large, dropped": 1}
    kept, counts = build_examples([BRIDGE], AnswerForms(short=1.0), seed=1)
    assert counts == {"cut to a short answer": 1} and kept[0].answers == ["the old bridge"]


def test_build_examples_is_seeded_per_example_not_by_order():
    many = [TaggedExample(BRIDGE.question, TEXT, BRIDGE.spans, "squad", str(i)) for i in range(200)]
    polar = [TaggedExample("Is it?", "It is.", (), "msmarco", str(i), polar="yes") for i in range(200)]
    forms = AnswerForms(short=0.3, yes_no="mixed")
    kept, counts = build_examples(many + polar, forms, seed=5)
    again, _ = build_examples(list(reversed(many + polar)), forms, seed=5)
    assert sorted(kept, key=repr) == sorted(again, key=repr)
    assert 40 <= counts["cut to a short answer"] <= 80  # about 30 % of 200
    assert 70 <= counts["yes/no as bare word"] <= 130  # about half of 200
    assert build_examples(many, forms, seed=6)[0] != kept[:200]


@pytest.mark.parametrize("options, message", [
    ({"short": 1.5}, "--short-answers must be a share"),
    ({"yes_no": "maybe"}, "--yes-no must be one of off, bare, sentence, mixed"),
    ({"max_answer_share": 0.0}, "--max-answer-share must be in"),
])
def test_bad_options(options, message):
    with pytest.raises(UsageError, match=message):
        AnswerForms(**options)
