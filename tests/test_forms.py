"""Answer forms of the example builder: short answers, yes/no answers, the answer-share filter."""
from __future__ import annotations

import random

import pytest

from kpqa.errors import UsageError
from kpqa.train.examples import TaggedExample, is_choice_question, polar_answer
from kpqa.train.forms import AnswerForms, build_examples, choice_copies, echo, lengthen, polar_text, restate, shorten

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
    kept, counts = build_examples([BRIDGE, POLAR], AnswerForms(yes_no="bare", bare=1.0), seed=1)
    assert counts == {"cut to the bare answer": 1, "yes/no as bare word": 1}
    assert kept[0].text == "the old bridge" and kept[0].answers == ["the old bridge"] and kept[1].text == "yes"
    # a share of the examples that were not cut short
    many = [TaggedExample(BRIDGE.question, TEXT, BRIDGE.spans, "squad", str(i)) for i in range(200)]
    _, counts = build_examples(many, AnswerForms(short=0.5, bare=0.5), seed=3)
    assert 70 <= counts["cut to a short answer"] <= 130 and 25 <= counts["cut to the bare answer"] <= 75
    assert sum(counts.values()) == 200


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


HOME_TEXT = "They said the food was leftover from home and not from a restaurant."
HOME = TaggedExample("Was it leftover from home or takeout?", HOME_TEXT,
                     ((HOME_TEXT.index("from home"), HOME_TEXT.index(" and not")),), "squad", "h")


@pytest.mark.parametrize("question, answer, expected", [
    ("Was it leftover from home or takeout?", "from home", True),
    ("Was it leftover from home or takeout?", "home", True),
    ("Which characters falls to their death, M or C?", "C.", True),  # outer punctuation stripped, case folded
    ("Was it leftover from home or takeout?", "restaurant", False),  # the answer is not an option
    ("Was it leftover from home or takeout?", "om", False),  # whole words only
    ("Who ordered the food from home?", "home", False),  # "or" only inside "ordered": not a choice
    ("What was leftover from home?", "home", False),  # no "or"
])
def test_is_choice_question(question, answer, expected):
    text = f"It was {answer} indeed."
    example = TaggedExample(question, text, ((7, 7 + len(answer)),), "squad", "c")
    assert is_choice_question(example) is expected


def test_a_polar_example_is_not_a_choice_question():
    assert not is_choice_question(TaggedExample("Is it home or takeout?", "home", (), "msmarco", "p", polar="yes"))


def test_choice_copies_are_short_seeded_copies_of_choice_examples_only():
    copies = choice_copies([BRIDGE, HOME, POLAR, HOME], AnswerForms(choice=3), seed=2)
    assert [origin for origin, _ in copies] == [1, 1, 3, 3]
    for _, copy in copies:
        assert copy.answers == ["from home"] and copy.text in HOME_TEXT and copy.question == HOME.question
        before, _, after = copy.text.partition("from home")
        assert len(before.split()) <= 3 and len(after.split()) <= 3
    assert copies == choice_copies([BRIDGE, HOME, POLAR, HOME], AnswerForms(choice=3), seed=2)
    assert len({c.text for _, c in choice_copies([HOME], AnswerForms(choice=40), seed=2)}) > 1  # each copy seeded
    assert choice_copies([HOME], AnswerForms(), seed=2) == []  # choice=1: each example once, no copies


@pytest.mark.parametrize("options, message", [
    ({"choice": 0}, "--choice-questions must be at least 1"),
    ({"short": 1.5}, "--short-answers must be a share"),
    ({"yes_no": "maybe"}, "--yes-no must be one of off, bare, sentence, mixed"),
    ({"max_answer_share": 0.0}, "--max-answer-share must be in"),
])
def test_bad_options(options, message):
    with pytest.raises(UsageError, match=message):
        AnswerForms(**options)


PASSAGE = ("The Avon flows west. In 1990 the old bridge over the river Avon was finally replaced by a new one. "
           "It cost ten million pounds. Traffic doubled. A ferry had served the town before.")
LONG = TaggedExample("What was replaced?", TEXT, BRIDGE.spans, "squad", "l", passage=PASSAGE,
                     passage_span=(PASSAGE.index("the old bridge"), PASSAGE.index(" over the river")))


@pytest.mark.parametrize("seed", range(30))
def test_lengthen_adds_one_to_four_whole_sentences_around_the_answer_sentence(seed):
    long = lengthen(LONG, random.Random(seed))
    assert long is not None and long.answers == ["the old bridge"] and long.question == LONG.question
    assert TEXT in long.text and long.text in PASSAGE and long.text != TEXT
    before, _, after = long.text.partition(TEXT)
    extra = before.count(". ") + after.count(".")
    assert 1 <= extra <= 4 and before.count(".") <= 2 and after.count(".") <= 2


def test_lengthen_needs_a_passage_with_another_sentence():
    assert lengthen(BRIDGE, random.Random(0)) is None  # no passage kept (not a SQuAD-layout source)
    alone = TaggedExample("q", TEXT, BRIDGE.spans, "squad", "a", passage=TEXT, passage_span=BRIDGE.spans[0])
    assert lengthen(alone, random.Random(0)) is None


def test_long_answers_take_their_share_and_leave_other_examples_as_they_were():
    many = [TaggedExample(LONG.question, TEXT, BRIDGE.spans, "squad", str(i), passage=PASSAGE,
                          passage_span=LONG.passage_span) for i in range(400)]
    kept, counts = build_examples(many + [BRIDGE], AnswerForms(long=0.5), seed=4)
    assert 150 <= counts["long answer (sentences around it)"] <= 250
    assert kept[-1].text == TEXT  # without a passage it stays a sentence
    assert build_examples(many, AnswerForms(), seed=4)[0] == many  # off by default: nothing changes
    with pytest.raises(UsageError, match="--long-answers"):
        AnswerForms(long=1.5)


@pytest.mark.parametrize("question, subject", [
    ("Who was the man behind The Chipmunks?", "The man behind The Chipmunks"),
    ("What is the capital of France?", "The capital of France"),
    ("How many steps are there in a test?", "Steps are there in a test"),
    ("In what year did it end?", "In what year did it end"),  # no leading wh-word: kept as asked
    ("  ", ""),  # an empty question stays empty
])
def test_restate_drops_the_wh_word_and_its_auxiliary(question, subject):
    assert restate(question) == subject


def test_echo_answers_restate_the_question_and_tag_only_the_answer():
    seen = set()
    for seed in range(30):
        echoed = echo(BRIDGE, random.Random(seed))
        assert echoed.answers == ["the old bridge"] and echoed.text.endswith("the old bridge.")
        assert "replaced" in echoed.text.lower()  # the question's words are in the text, untagged
        seen.add(echoed.text)
    assert len(seen) == 3
    many = [TaggedExample(BRIDGE.question, TEXT, BRIDGE.spans, "squad", str(i)) for i in range(200)]
    _, counts = build_examples(many, AnswerForms(echo=0.25), seed=5)
    assert 30 <= counts["the question restated around the answer"] <= 70
    with pytest.raises(UsageError, match="--echo-answers"):
        AnswerForms(echo=-0.1)
