"""The contrastive answer data (kpqa.train.contrastive: the builder, its rule-made forms and its sources): span types,
the rows of a hand-made article, each form's rule on hand-written fixtures, seeding, the fit / check split by
article, the sources read through kpqa.train.sources, the CSV written; on the shared data, the whole build and the
train part."""
from __future__ import annotations

import random
import re

import pytest

from kpqa.errors import InputError
from kpqa.train.contrastive import (FIELDS, FIT_CHECK_SOURCES, FORM_KINDS, KINDS_CORRECT, KINDS_WRONG, TRAIN_SOURCES,
                                    Article, Builder, Question, Spec, build, build_train, forms, in_check, in_folder,
                                    polar_rows, span_type, write)

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
    parts = build(in_folder(root, FIT_CHECK_SOURCES), seed=13, per_source=40)
    fit, check = parts["fit"], parts["check"]
    assert not {r["article"] for r in fit} & {r["article"] for r in check}
    for part in (fit, check):
        assert sum(r["scores"] for r in part) * 2 == len(part)
    kinds = {r["kind"] for r in fit + check}
    assert {"swap", "swap-span", "choice-other", "polar-flip", "polar-wrong-statement", "clause"} <= kinds
    # no text of the human-judgment sets: the questions are the QA sources' own
    human = (root / "human_eval" / "evouna_tq_dev.csv").read_text(encoding="utf-8")
    assert not any(f'\n{r["question"]},' in human for r in fit + check)


def _balanced(rows) -> None:
    by_question: dict[str, list] = {}
    for r in rows:
        by_question.setdefault(r["qid"], []).append(r)
    for found in by_question.values():
        assert sum(r["scores"] for r in found) * 2 == len(found), found


@pytest.mark.parametrize(("question", "yes", "echo"), [
    ("Does copper attract magnets?", False, "It doesn't."),
    ("Does copper conduct electricity?", True, "It does."),
    ("Were the Beatles British?", False, "They weren't."),
    ("Can I claim Carer's Allowance?", True, "You can."),
    ("Am I eligible for a refund?", True, "You are."),
    ("Is Mike Pence older than Al Gore?", False, "Mike Pence isn't."),
    ("Are Giuseppe Verdi and Ambroise Thomas both composers?", True, "They are."),
    ("My son is 17. Can he work full time?", True, "He can."),
    ("Can my landlord evict me?", False, "They can't."),  # a person: singular they
    ("Can dogs eat chocolate?", False, "They can't."),
    ("Can diabetes cause blindness?", True, "It can."),
    ("Is there a fee?", False, "There isn't."),
    ("Who opposed the treaty? Is it Garibaldi?", False, "It isn't."),
    ("Who opposed the treaty?", True, None),
])
def test_polar_echo(question, yes, echo):
    assert forms.polar_echo(question, yes) == echo


def test_polar_echo_full_negation_and_lead_ins():
    assert forms.polar_echo("Did it rain in Leeds?", False, contracted=False) == "It did not."
    assert forms.polar_echo("Can you color grout?", False, contracted=False) == "You cannot."
    assert forms.lower_first("The treaty was signed.") == "the treaty was signed."
    assert forms.lower_first("Napoleon met Cavour.") == "Napoleon met Cavour."
    for seed in range(30):  # the wrong answer is the right one's form with the other polarity
        right, wrong = forms.implicit_pair("Does copper attract magnets?", False, random.Random(seed),
                                           "Copper is not magnetic.")
        assert right.lower().endswith("copper is not magnetic.") and wrong.lower().endswith("copper is not magnetic.")
        echo_right, echo_wrong = (a[: a.lower().index("copper is")] for a in (right, wrong))
        assert "doesn't" in echo_right or "does not" in echo_right
        assert "does" in echo_wrong and "not" not in echo_wrong and "n't" not in echo_wrong
        assert not {"yes", "no"} & set(re.split(r"\W+", right.lower()))


def test_implicit_pair_is_seeded():
    one = forms.implicit_pair("Does copper attract magnets?", False, random.Random(3))
    assert one == forms.implicit_pair("Does copper attract magnets?", False, random.Random(3))
    assert one is not None and one[0].endswith(("it doesn't.", "it does not.", "It doesn't.", "It does not."))
    assert one[1].endswith(("it does.", "It does."))


def test_long_pair():
    sentence = "The Treaty of Turin was signed in 1860."
    swapped = "The Treaty of Turin was signed in 1858."
    hows = set()
    for seed in range(40):
        right, wrong, how = forms.long_pair("1860", "1858", sentence, swapped, ["Nice was annexed."],
                                            random.Random(seed))
        hows.add(how)
        assert sentence in right and "1858" in right and len(right.split(". ")) >= 2
        assert "1860" in wrong and "1858" in wrong
        if how == "asserts":  # the same words with the two answers swapped
            assert wrong == right.replace("1860", "#").replace("1858", "1860").replace("#", "1858")
        else:
            assert wrong.count("Nice was annexed.") == 1
    assert hows == {"asserts", "undecided"}
    right, wrong, how = forms.long_pair("1860", "1858", sentence, swapped, [], random.Random(0))
    assert how == "asserts"  # no sentence to go with a declining answer


def test_form_rows_of_a_hand_made_article():
    rows = list(Builder(seed=1).rows(_article()))
    kinds = {r["kind"] for r in rows}
    assert {"polar-implicit", "polar-implicit-flip", "long-asserts", "long-mentions"} <= kinds
    _balanced(rows)
    pairs = dict(FORM_KINDS)
    for r in rows:
        if r["kind"] in pairs:  # a right form row and its wrong twin, on the same question
            twin = [x for x in rows if x["qid"] == r["qid"] and x["kind"] == pairs[r["kind"]]]
            assert len(twin) == 1 and twin[0]["question"] == r["question"] and r["scores"] == 1
        if r["kind"] == "polar-implicit":
            assert r["question"].endswith("?") and "? Is it " in r["question"]
            yes = r["references"][0].startswith("Yes")
            assert (" is" in r["answer"].split(".")[0].split(":")[0].split(";")[0]) and \
                (("n't" in r["answer"] or " not" in r["answer"]) != yes)
    for r in rows:
        if r["kind"] == "choice-asked":  # both options asked; the right answer names the reference's, not the other
            twin = next(x for x in rows if x["qid"] == r["qid"] and x["kind"] == "choice-asked-other")
            options = re.split(r" or |, |: |\? (?:Was it )?", r["question"].rstrip("?"))
            assert sum(o in r["answer"] for o in options[-2:]) >= 1 and r["answer"] != twin["answer"]
    assert list(Builder(seed=1).rows(_article())) == list(Builder(seed=1).rows(_article()))
    assert [r for r in Builder(seed=1, form_pairs=0).rows(_article())] == \
        [r for r in Builder(seed=1).rows(_article()) if r["kind"] not in dict(FORM_KINDS).keys() | set(pairs.values())]


def test_polar_rows_gain_implicit_answers():
    records = [("1", "Does copper attract magnets?", "no", ""), ("2", "Who knows?", "yes", ""),
               ("3", "Are whales mammals?", "yes", "Whales are mammals.")]
    rows = list(polar_rows(records, "test", seed=5))
    assert rows == list(polar_rows(records, "test", seed=5))
    _balanced(rows)
    got = {(r["qid"], r["kind"]): r for r in rows}
    assert got["1", "polar-implicit"]["answer"].lower().endswith(("it doesn't.", "it does not."))
    assert got["1", "polar-implicit-flip"]["answer"].lower().endswith("it does.")
    assert ("2", "polar-implicit") not in got  # no auxiliary to echo
    assert got["3", "polar-implicit"]["scores"] == 1 and "they are" in got["3", "polar-implicit"]["answer"].lower()


@pytest.mark.shared_data
@pytest.mark.slow
def test_train_part_on_the_shared_data(shared_data):
    root = shared_data("squad/train-v1.1.json").parents[1]
    sources = in_folder(root, TRAIN_SOURCES)
    rows = build_train(sources, seed=13, n_questions=60, rare_questions=400)
    assert rows == build_train(sources, seed=13, n_questions=60, rare_questions=400)
    assert {r["source"] for r in rows} == {"squad-train", "conditionalqa-train"}
    _balanced(rows)
    kinds = {r["kind"] for r in rows}
    assert {k for pair in FORM_KINDS for k in pair} - {"role-reorder", "role-swap"} <= kinds
    assert {"swap", "polar-flip", "clause"} <= kinds
    without = build_train(sources, seed=13, n_questions=60, rare_questions=0)
    full = {r["qid"] for r in without if r["source"] == "squad-train"}
    assert 40 <= len(full) <= 60 and all(r in rows for r in without)  # the sample's questions that give rows
    rare = [r for r in rows if r["source"] == "squad-train" and r["qid"] not in full]
    assert rare and {r["kind"] for r in rare} <= {"alias", "alias-wrong", "qualifier-synonym", "qualifier-swap",
                                                  "role-reorder", "role-swap", "value-restated", "value-near"}


@pytest.mark.parametrize(("span", "question", "expected"), [
    ("Galileo", "Who observed the moons of Jupiter?", ("Galileo Galilei", "Omar Khayyam", "synonym")),
    ("World Health Organization", "Who recommends it?",
     ("WHO", "United Nations Educational Scientific and Cultural Organization", "synonym")),
    ("Welsh", "What nationality was Dylan Thomas?", ("from Wales", "from Muscovy", "demonym")),
    ("Welsh", "What language is spoken in Cardiff?", None),  # not a nationality question; two noun senses
    ("anterior", "Which segment is the prothorax?", None),  # an adjective first ("front tooth" as a noun)
    ("7", "How far is it?", None),
    ("traders", "Who brought the missionaries?", None),  # a plural: the lemmas are singular
])
def test_alias_pair(span, question, expected):
    # the same in every process: nltk keeps a synset's relations in a set, the siblings are sorted
    assert forms.alias_pair(span, question, random.Random(0)) == expected


def test_alias_rows():
    context = "Galileo observed the moons of Jupiter in 1610. Kepler wrote to him in 1611."
    article = Article("test", "Moons", [
        Question("1", "Who observed the moons of Jupiter?", context, ["Galileo"], 0),
        Question("2", "Who wrote to him?", context, ["Kepler"], context.index("Kepler")),
    ])
    rows = [r for seed in range(6) for r in Builder(seed).rows(article) if r["qid"] == "1"]
    right = [r for r in rows if r["kind"] == "alias"]
    wrong = [r for r in rows if r["kind"] == "alias-wrong"]
    assert right and len(right) == len(wrong)
    assert all("Galileo Galilei" in r["answer"] and r["scores"] == 1 for r in right)
    assert all("Galileo" not in r["answer"] and r["scores"] == 0 for r in wrong)


@pytest.mark.parametrize(("question", "statements"), [
    ("Am I eligible for a refund?",
     ("You are eligible for a refund.", "You are ineligible for a refund.", "You are not eligible for a refund.")),
    ("Is it legal for my landlord to keep my deposit?",
     ("It is legal for your landlord to keep your deposit.", "It is illegal for your landlord to keep your deposit.",
      "It is not legal for your landlord to keep your deposit.")),
    ("Is bismuth radioactive?", ("It is radioactive.", "It is nonradioactive.", "It is not radioactive.")),
    ("Is my son eligible for a permit?",
     ("He is eligible for a permit.", "He is ineligible for a permit.", "He is not eligible for a permit.")),
    ("Am I able to appeal after I was fired?", ("You are able to appeal after you were fired.",
                                                 "You are unable to appeal after you were fired.",
                                                 "You are not able to appeal after you were fired.")),
    ("Are there any bursaries available?", None),  # the adjective is not the subject's
    ("Is the theory test just a quiz?", None),  # "just" / "unjust": another sense
    ("Can I claim a refund?", None),
])
def test_predicate_statements(question, statements):
    assert forms.predicate_statements(question) == statements


def test_negation_pair_sides():
    plain, antonym, negated = forms.predicate_statements("Am I eligible for a refund?") or ("", "", "")
    no = {forms.negation_pair("Am I eligible for a refund?", False, random.Random(s)) for s in range(30)}
    yes = {forms.negation_pair("Am I eligible for a refund?", True, random.Random(s)) for s in range(30)}
    assert no == {(antonym, plain), (negated, plain)}  # "not eligible" said another way, or said so
    assert yes == {(plain, antonym), (plain, negated)}  # the negation added, or the antonym
    rows = list(polar_rows([("1", "Am I eligible for a refund?", "no", "")], "test", seed=2))
    _balanced(rows)
    got = {r["kind"]: r for r in rows}
    assert got["negation-paraphrase"]["answer"] in (antonym, negated) and got["negation-paraphrase"]["scores"] == 1
    assert got["negation-flip"]["answer"] == plain and got["negation-flip"]["scores"] == 0


@pytest.mark.parametrize(("word", "expected"), [
    ("difficult", ("hard", "easy")), ("largest", ("biggest", "smallest")), ("highest", (None, "lowest")),
    ("important", ("significant", "unimportant")), ("oldest", (None, "youngest")), ("table", (None, None)),
])
def test_adjective_variants(word, expected):
    assert forms.adjective_variants(word) == expected


@pytest.mark.parametrize(("question", "sentence", "span", "expected"), [
    ("What is the largest city in Wales?", "Cardiff is the largest city in Wales and an important port.", "Cardiff",
     ("Cardiff is the biggest city in Wales and an important port.",
      "Cardiff is the smallest city in Wales and an important port.", "largest")),
    ("What is an important industry in Israel?", "Tourism is an important industry in Israel.", "Tourism",
     ("Tourism is a significant industry in Israel.", "Tourism is an unimportant industry in Israel.", "important")),
    # no synonym for "highest": the right answer puts one in place of another adjective, the qualifier kept
    ("What is the highest peak of the range?", "The highest peak of the huge range is Mont Blanc.", "Mont Blanc",
     ("The highest peak of the enormous range is Mont Blanc.", "The lowest peak of the huge range is Mont Blanc.",
      "highest")),
    # every occurrence outside the span: "largest" twice
    ("Which is the largest?", "Leeds is the largest, not the largest port.", "Leeds",
     ("Leeds is the biggest, not the biggest port.", "Leeds is the smallest, not the smallest port.", "largest")),
    ("When did the war end?", "The war ended in 1945.", "1945", None),  # no adjective
    ("Is it legal?", "It is hard to tell legal and illegal actions apart.", "actions", None),  # antonym already there
])
def test_qualifier_pair(question, sentence, span, expected):
    assert forms.qualifier_pair(question, sentence, span, random.Random(0)) == expected


def test_qualifier_rows():
    context = ("Cardiff is the largest city in Wales. Swansea is the second city of Wales. Newport is a city "
               "in Wales.")
    article = Article("test", "Wales", [
        Question("1", "What is the largest city in Wales?", context, ["Cardiff"], 0),
        Question("2", "What is the second city of Wales?", context, ["Swansea"], context.index("Swansea")),
        Question("3", "What else is a city in Wales?", context, ["Newport"], context.index("Newport")),
    ])
    rows = [r for seed in range(8) for r in Builder(seed).rows(article) if r["qid"] == "1"]
    right = [r for r in rows if r["kind"] == "qualifier-synonym"]
    wrong = [r for r in rows if r["kind"] == "qualifier-swap"]
    assert right and len(right) == len(wrong)
    assert {r["answer"] for r in right} <= {"Cardiff is the biggest city in Wales.",
                                            "Yes, Cardiff is the biggest city in Wales."}
    assert {r["answer"] for r in wrong} <= {"Cardiff is the smallest city in Wales.",
                                            "Yes, Cardiff is the smallest city in Wales."}
    assert all(r["question"].endswith("? Is it Cardiff?") for r in right + wrong if r["answer"].startswith("Yes"))


@pytest.mark.parametrize(("question", "span", "right", "wrong"), [
    ("Who replaced Wilkinson as president?", "Dallin H. Oaks",
     {"Dallin H. Oaks replaced Wilkinson as president.", "Wilkinson was replaced as president by Dallin H. Oaks."},
     {"Wilkinson replaced Dallin H. Oaks as president.", "Dallin H. Oaks was replaced as president by Wilkinson."}),
    ("Who was defeated by William in 1066?", "Harold",
     {"William defeated Harold in 1066.", "Harold was defeated in 1066 by William."},
     {"Harold defeated William in 1066.", "William was defeated in 1066 by Harold."}),
    ("Who succeeded Carrion Jr.?", "Rubén Díaz, Jr.",
     {"Rubén Díaz, Jr. succeeded Carrion Jr.", "Carrion Jr. was succeeded by Rubén Díaz, Jr."},
     {"Carrion Jr. succeeded Rubén Díaz, Jr.", "Rubén Díaz, Jr. was succeeded by Carrion Jr."}),
])
def test_role_pair(question, span, right, wrong):
    got = [forms.role_pair(question, span, random.Random(seed)) for seed in range(20)]
    assert {g[0] for g in got if g} == right and {g[1] for g in got if g} == wrong
    assert {g[2] for g in got if g} == {"active-active", "active-passive", "passive-active", "passive-passive"}


@pytest.mark.parametrize(("question", "span"), [
    ("Who met Cavour?", "Napoleon"),  # symmetric: both met
    ("Who led Chopin's funeral procession?", "Prince Adam"),  # no name object
    ("Who discovered the planet?", "Galle"),
    ("Who replaced Abdul?", "a comedian"),  # the answer is not a name
])
def test_role_pair_does_not_fit(question, span):
    assert forms.role_pair(question, span, random.Random(0)) is None


def test_role_rows():
    context = "Dallin H. Oaks replaced Wilkinson as president in 1971. Jeffrey R. Holland followed Oaks."
    article = Article("test", "BYU", [
        Question("1", "Who replaced Wilkinson as president?", context, ["Dallin H. Oaks"], 0),
        Question("2", "Who followed Oaks?", context, ["Jeffrey R. Holland"], context.index("Jeffrey")),
    ])
    rows = [r for seed in range(4) for r in Builder(seed).rows(article) if r["qid"] == "1"]
    _balanced(rows)
    right = {r["answer"] for r in rows if r["kind"] == "role-reorder" and r["scores"] == 1}
    wrong = {r["answer"] for r in rows if r["kind"] == "role-swap" and r["scores"] == 0}
    assert right and right <= {"Dallin H. Oaks replaced Wilkinson as president.",
                               "Wilkinson was replaced as president by Dallin H. Oaks."}
    assert wrong and wrong <= {"Wilkinson replaced Dallin H. Oaks as president.",
                               "Dallin H. Oaks was replaced as president by Wilkinson."}


def test_role_pair_needs_a_name_not_an_adjective():
    assert forms.role_pair("Who invaded Portugal in 1808?", "French", random.Random(0)) is None
    assert forms.role_pair("Who invaded Portugal in 1808?", "Napoleon", random.Random(0)) is not None


def test_qualifier_synonyms_one_way_where_the_way_back_has_another_sense():
    assert forms.QUALIFIER_SYNONYMS["easier"] == "simpler" and "simpler" not in forms.QUALIFIER_SYNONYMS
    assert forms.QUALIFIER_SYNONYMS["main"] == "principal" and "principal" not in forms.QUALIFIER_SYNONYMS


# ---------------------------------------------------------------------------------------------------- sources


def test_a_source_spec_names_its_label_reader_and_place():
    assert Spec.parse("squad-dev=squad:data/squad/dev.json") == Spec("squad-dev", "squad", "data/squad/dev.json")
    assert Spec.parse("hotpotqa:h=1.json") == Spec("hotpotqa", "hotpotqa", "h=1.json")
    assert Spec.parse("squad:hub:validation") == Spec("squad", "squad", "hub:validation")
    assert Spec.parse("x=msmarco:m.jsonl").articles is False and Spec.parse("covidqa:c.json").articles is True
    for bad in ("squad", "=squad:a.json", "squad:"):
        with pytest.raises(InputError, match="should be"):
            Spec.parse(bad)
    with pytest.raises(InputError, match="unknown training source 'sqad'"):
        Spec.parse("dev=sqad:a.json")
    assert in_folder("/d", ["a=squad:s/x.json", "squad:hub"]) == ["a=squad:/d/s/x.json", "squad:hub"]


def _squad_file(path):
    """The hand-made article as a SQuAD file (one more annotator's span, padded, on the first question; a question
    without an answer), then an article without a title."""
    import json

    qas = [{"id": q.id, "question": f" {q.question}", "answers": [{"text": a, "answer_start": CONTEXT.index(a)}
                                                                  for a in q.answers]} for q in _article().questions]
    qas[0]["answers"].append({"text": " 1860 ", "answer_start": 33})
    qas.append({"id": "none", "question": "Why?", "answers": []})
    data = {"data": [{"title": "Turin", "paragraphs": [{"context": CONTEXT, "qas": qas}]},
                     {"paragraphs": [{"context": CONTEXT, "qas": [
                         {"id": "b1", "question": "Who opposed the treaty?",
                          "answers": [{"text": "Garibaldi", "answer_start": CONTEXT.index("Garibaldi")}]}]}]}]}
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def test_squad_layout_sources_give_articles_with_every_annotators_answer(tmp_path):
    from kpqa.train.contrastive.records import articles

    found = articles(Spec.parse(f"test=squad:{_squad_file(tmp_path / 's.json')}"))
    assert [(a.source, a.title) for a in found] == [("test", "Turin"), ("test", "1")]
    assert found[0] == _article() and [q.id for q in found[1].questions] == ["b1"]


def test_yes_no_sources_give_their_polar_questions(tmp_path):
    import json

    from kpqa.train.contrastive.records import polar_questions

    cqa = [{"id": "c1", "question": "Can I claim? ", "answers": [["yes", []]], "scenario": "",
            "evidences": ["<p>You can claim  if you&#39;re over 18.</p>", "<p>More.</p>"]},
           {"id": "c2", "question": "How much?", "answers": [["£10", []]], "scenario": "", "evidences": []}]
    (tmp_path / "c.json").write_text(json.dumps(cqa), encoding="utf-8")
    assert polar_questions(Spec.parse(f"c=conditionalqa:{tmp_path / 'c.json'}")) == [
        ("c1", "Can I claim?", "yes", "You can claim if you're over 18.")]
    marco = {"query_id": 7, "query": " is it cold ", "answers": ["No."],
             "passages": [{"is_selected": 0, "passage_text": "Other."},
                          {"is_selected": 1, "passage_text": "It is warm. Very warm."}]}
    mixed = {**marco, "query_id": 8, "answers": ["Yes", "No"]}
    (tmp_path / "m.jsonl").write_text(json.dumps(marco) + "\n" + json.dumps(mixed) + "\n", encoding="utf-8")
    assert polar_questions(Spec.parse(f"msmarco:{tmp_path / 'm.jsonl'}")) == [  # keyed by the query, not its id
        ("is it cold", "Is it cold?", "no", "It is warm.")]
    hotpot = [{"_id": "h1", "question": "Are both Dutch?", "answer": "Yes", "supporting_facts": [], "context": []},
              {"_id": "h2", "question": "Who?", "answer": "Ann", "supporting_facts": [], "context": []}]
    (tmp_path / "h.json").write_text(json.dumps(hotpot), encoding="utf-8")
    assert polar_questions(Spec.parse(f"hotpotqa:{tmp_path / 'h.json'}")) == [("h1", "Are both Dutch?", "yes", "")]


def test_the_parts_are_built_from_source_specs_and_written_as_csv(tmp_path):
    from kpqa.input import read_csv_frame

    path = _squad_file(tmp_path / "s.json")
    parts = build([f"test=squad:{path}"], seed=3, per_source=100, check_share=0.0)
    assert parts == {"fit": list(Builder(seed=3).rows(_article())), "check": []} and parts["fit"]
    sources = [f"one=squad:{path}", f"two=squad:{path}"]
    rows = build_train(sources, seed=3, n_questions=4, rare_questions=0)
    assert [r for r in rows if r["source"] == "one"] == build_train(sources[:1], seed=3, n_questions=4,
                                                                     rare_questions=0)
    assert {r["source"] for r in rows} == {"one", "two"} and len({r["qid"] for r in rows if r["source"] == "one"}) <= 4
    rows = list(Builder(seed=1).rows(_article()))
    write(rows, tmp_path / "part.csv")
    frame = read_csv_frame(tmp_path / "part.csv")
    assert list(frame.columns) == list(FIELDS) and len(frame) == len(rows)
    for r, written in zip(rows, frame.to_dict("records")):
        refs = [written[f"reference{i}"] for i in (1, 2, 3)]
        assert written["answer"] == r["answer"] and written["scores"] == str(r["scores"])
        assert refs == (r["references"] + ["", "", ""])[:3] and written["article"] == "test:Turin"


def test_number_words_have_one_home():
    from kpqa.metrics.kpqa import NUMBER_WORDS
    from kpqa.numbers import ORDINALS, SMALL, TENS
    from kpqa.train.contrastive.values import number_words

    assert NUMBER_WORDS["seventeen"] == "17" and len(NUMBER_WORDS) == len(SMALL) == 21
    assert (number_words(45), ORDINALS[11], TENS[0]) == ("forty-five", "twelfth", "twenty")
    assert [span_type(w) for w in ("dozen", "ninety", "tenth", "eleventh")] == ["number", "number", "number", None]
