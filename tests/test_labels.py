"""Yang's labels found automatically (kpqa/metrics/labels.py): question type, opinion, keyphrase spans, gold first;
the hand-written English yes-no set tests/data/yesno_opinions.csv and DuReader's gold opinions."""
from __future__ import annotations

import csv
import json
import re
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from kpqa.errors import UsageError
from kpqa.metrics import Context, Rows
from kpqa.metrics.kpqa import POLAR
from kpqa.metrics.labels import (
    AUTO,
    DEPENDS,
    DESCRIPTION,
    ENTITY,
    GOLD,
    NO,
    YES,
    YES_NO,
    find_labels,
    keyphrase_spans,
    opinion,
    question_type,
)
from stubs import WordWeighter

ENGLISH_SET = Path(__file__).resolve().parent / "data" / "yesno_opinions.csv"


@pytest.mark.parametrize("question, expected", [
    ("Can ostriches fly?", YES_NO),
    ("does azythromycin cause burning", YES_NO),
    ("Isn't the museum closed on Mondays?", YES_NO),
    ("Is beer or wine more fattening?", ENTITY),  # a choice, not yes / no
    ("Had war not intervened, which city would have hosted the 1916 Olympics?", ENTITY),
    ("how many steps are in a hypothesis test", ENTITY),
    ("what year did ww2 end", ENTITY),
    ("Who wrote Hamlet?", ENTITY),
    ("how to cook rice", DESCRIPTION),
    ("what is a hypothesis test", DESCRIPTION),
    ("why is the sky blue", DESCRIPTION),
    ("yoos insurance agency", DESCRIPTION),
    ("", DESCRIPTION),
    ("壁虎是益虫吗", YES_NO),
    ("孕妇能不能吃银耳", YES_NO),
    ("范冰冰多高", ENTITY),
    ("上海哪个医院骨科比较好", ENTITY),
    ("怎么做红烧肉", DESCRIPTION),
])
def test_question_type(question, expected):
    assert question_type(question) == expected


@pytest.mark.parametrize("answer, expected", [
    ("They can't.", NO),  # a polar answer without the polar word
    ("No, it is not.", NO),
    ("yes , azithromycin causes burning .", YES),
    ("Nope.", NO),
    ("It does.", YES),
    ("Ostriches run fast.", YES),  # a statement that denies nothing affirms
    ("It depends on the dose.", DEPENDS),
    ("Not always.", DEPENDS),
    ("Yes and no.", DEPENDS),
    ("Never.", NO),
    ("It is illegal in most states.", NO),  # the question's own predicate negated
    ("It is legal, but not in Texas.", YES),  # only the first clause is read
    ("", YES),
])
def test_english_opinion(answer, expected):
    assert opinion(answer, "Is it legal to keep a monkey?") == expected


def test_polar_words_read_as_keyfact_reads_them():
    """An answer that opens with KeyFact-KPQA's polar words takes their side whatever follows."""
    assert {w: opinion(f"{w}, it is not something anyone would deny.") for w in sorted(POLAR)} == {"no": NO,
                                                                                                   "yes": YES}


@pytest.mark.parametrize("answer, expected", [
    ("不值得。", NO),
    ("壁虎不是虫，是爬行动物", NO),
    ("根据科学研究，吃红薯是不会使人发胖的", NO),  # the attribution clause is skipped
    ("壁虎是益虫,它吃蚊子的", YES),
    ("天道在大中介里还是不错的", YES),  # 不错 denies nothing
    ("目前已经在一定程度上控制住了，但病毒开发者仍在持续对抗升级病毒。", DEPENDS),
    ("不一定，看体质。", DEPENDS),
])
def test_chinese_opinion(answer, expected):
    assert opinion(answer) == expected


def test_keyphrase_spans_runs_trimmed_and_distinct():
    tokens = "the war of the roses ended in 1487 and the war of the roses".split()
    weights = [0.9, 0.8, 0.7, 0.6, 0.9, 0.1, 0.2, 0.95, 0.5, 0.6, 0.9, 0.8, 0.7, 0.6]
    # runs: "the war of the roses" (trimmed: "war of the roses"), "1487 and the war of the roses" (trimmed
    # of nothing at the start); the second run is a different span
    assert keyphrase_spans(tokens, weights) == [["war", "of", "the", "roses"],
                                                ["1487", "and", "the", "war", "of", "the", "roses"]]
    # "the" (0.9) alone is trimmed away
    assert keyphrase_spans(tokens, weights, threshold=0.85) == [["roses"], ["1487"], ["war"]]
    assert keyphrase_spans(["the", "of"], [1.0, 1.0]) == []  # function words alone are no entity
    assert keyphrase_spans(tokens, np.zeros(len(tokens))) == []
    with pytest.raises(ValueError, match="3 weights for 2 tokens"):
        keyphrase_spans(["a", "b"], [1, 1, 1])


def _weighter():
    return WordWeighter(lambda word: 0.9 if word.strip(".").lower() in {"shakespeare", "william", "1603"} else 0.1)


def test_find_labels_auto_and_gold_first():
    rows = Rows(
        questions=["Can ostriches fly?", "Who wrote Hamlet?", "Can ostriches fly?", "why is the sky blue"],
        candidates=["They can't.", "Marlowe did.", "Yes.", "Rayleigh scattering."],
        references=[["No, they are flightless.", "They cannot."], ["William Shakespeare wrote it in 1603."],
                    ["No."], ["Because of Rayleigh scattering."]],
        candidate_labels=[None, None, "Depends", None],
        reference_labels=[[None, None], [None], ["Depends"], [None]],
    )
    weighter = _weighter()
    found = find_labels(rows, Context(tokenizer="whitespace", weighter=weighter))
    assert [f.qtype for f in found] == [YES_NO, ENTITY, YES_NO, DESCRIPTION]
    assert (found[0].candidate_label, found[0].reference_labels, found[0].opinion_source) == (NO, [NO, NO], AUTO)
    assert (found[2].candidate_label, found[2].reference_labels, found[2].opinion_source) == (DEPENDS, [DEPENDS],
                                                                                              GOLD)
    assert (found[1].entities, found[1].entity_source) == ([["william", "shakespeare"], ["1603."]], AUTO)
    assert found[1].candidate_label is None and found[3].entities == [] and found[3].entity_source == ""
    # one weighter call, for the entity question's reference only
    assert weighter.asked == [("Who wrote Hamlet?", "William Shakespeare wrote it in 1603.")]


def test_find_labels_gold_entities_and_no_weighter():
    rows = Rows(questions=["Who wrote Hamlet?"], candidates=["Marlowe"], references=[["Shakespeare"]],
                entities=[["William Shakespeare"]])
    found = find_labels(rows, Context(tokenizer="whitespace"))  # gold entities: no weights needed
    assert (found[0].entities, found[0].entity_source) == ([["william", "shakespeare"]], GOLD)
    with pytest.raises(UsageError, match="keyphrase weighter"):
        find_labels(Rows(questions=["Who wrote Hamlet?"], candidates=["x"], references=[["y"]]),
                    Context(tokenizer="whitespace"))


def test_find_labels_chinese_has_no_automatic_entities():
    rows = Rows(questions=["范冰冰多高"], candidates=["163"], references=[["范冰冰163。"]])
    weighter = _weighter()
    found = find_labels(rows, Context(tokenizer="zh", weighter=weighter))
    assert found[0].qtype == ENTITY and found[0].entities == [] and weighter.asked == []


def read_english_set() -> list[dict[str, str]]:
    with open(ENGLISH_SET, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def _without_polar_word(answer: str) -> bool:
    return not re.search(r"\b(yes|no)\b", answer.lower())


def test_english_set_layout():
    rows = read_english_set()
    assert len(rows) >= 60 and set(rows[0]) == {"question", "answer", "label"}
    assert sum(_without_polar_word(r["answer"]) for r in rows) >= len(rows) / 3
    assert {r["label"] for r in rows} == {YES, NO, DEPENDS}
    assert all(question_type(r["question"]) == YES_NO for r in rows)


def per_class(pairs: list[tuple[str, str]]) -> dict[str, tuple[int, int]]:
    """(right, total) per gold class of (gold, predicted) pairs."""
    total, right = Counter(g for g, _ in pairs), Counter(g for g, p in pairs if g == p)
    return {label: (right[label], total[label]) for label in total}


def test_english_set_accuracy():
    """The rules were written before the set; measured: 65 / 76 (Yes 31/31, No 26/34, Depends 8/11); without the
    polar word 28 / 38. The floors sit just under those figures."""
    rows = read_english_set()
    pairs = [(r["label"], opinion(r["answer"], r["question"])) for r in rows]
    accuracy = per_class(pairs)
    assert sum(r for r, _ in accuracy.values()) >= 64
    assert accuracy[YES][0] >= 30 and accuracy[NO][0] >= 25 and accuracy[DEPENDS][0] >= 7
    implicit = [p for p, r in zip(pairs, rows) if _without_polar_word(r["answer"])]
    assert sum(g == p for g, p in implicit) >= 27


@pytest.mark.shared_data
def test_dureader_opinion_accuracy(shared_data):
    """DuReader dev's yes-no answers against their gold Yes / No / Depends (measured: 12 of 14)."""
    pairs = []
    with open(shared_data("dureader/search.dev.jsonl"), encoding="utf-8") as f:
        for line in f:
            q = json.loads(line)
            if q["question_type"] == "YES_NO":
                pairs += [(g, opinion(a, q["question"])) for a, g in zip(q["answers"], q.get("yesno_answers") or [])]
    accuracy = per_class(pairs)
    assert sum(r for r, _ in accuracy.values()) >= 12 and sum(n for _, n in accuracy.values()) == 14


@pytest.mark.shared_data
def test_yang_auto_script_tables(shared_data):
    """experiments/yang_auto.py's model-free parts: its opinion, question-type and auto-vs-gold tables."""
    import runpy

    shared_data("dureader/search.dev.jsonl")  # skips without the shared data
    script = runpy.run_path(str(Path(__file__).resolve().parents[1] / "experiments" / "yang_auto.py"))
    data = Path(shared_data("dureader/search.dev.jsonl")).parents[1]
    opinions = script["opinions"](data)
    assert "| DuReader dev, yes-no answers (Chinese rules) | 8 / 8 | 4 / 6 | - | 12 / 14 |" in opinions
    assert "| English set (`tests/data/yesno_opinions.csv`) | 31 / 31 | 26 / 34 | 8 / 11 | 65 / 76 |" in opinions
    assert "| DuReader dev | 10 / 10 | 19 / 23 | 57 / 67 | 86 / 100 |" in script["question_types"](data)
    table = script["auto_vs_gold"](data)
    # dev's two answers to a yes-no question never share a gold label: the gold bonus is 0 there
    plain, gold = [line.split("|")[4:6] for line in table if line.startswith(("| dev | plain", "| dev | gold"))]
    assert plain == gold
