"""Training-data converters: SQuAD, HotpotQA and MS-MARCO files in their official layouts and as hub rows."""
from __future__ import annotations

import gzip
import json
import time
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kpqa.errors import InputError
from kpqa.train.examples import TaggedExample
from kpqa.train.sentences import covering_sentences, find_occurrences, sentence_bounds
from kpqa.train.sources import examples_from_rows, load_source

# ---------------------------------------------------------------- SQuAD

CONTEXT = ("Alpha is first.  Dr. Smith lives in Paris.  The end came in 1990. "
           "Later, first came last. Nothing else.")


def squad_qas() -> list[dict]:
    def qa(i, question, text, start):
        return {"id": f"q{i}", "question": question, "answers": [{"text": text, "answer_start": start}] if text else []}

    return [
        qa(0, "Where does Smith live?", "Paris", CONTEXT.index("Paris")),
        qa(1, "What crosses?", "Paris.  The end", CONTEXT.index("Paris")),
        qa(2, "When?", "1990", 0),  # wrong offset: found by search
        qa(3, "Which first?", "first", CONTEXT.index("first came")),  # the second occurrence, as the offset says
        qa(4, "Missing?", "Berlin", 5),
        qa(5, "Unanswerable?", None, None),
    ]


def squad_file(tmp_path, qas=None):
    path = tmp_path / "squad.json"
    data = {"version": "1.1", "data": [{"title": "T", "paragraphs": [{"context": CONTEXT, "qas": qas or squad_qas()}]}]}
    path.write_text(json.dumps(data))
    return path


SQUAD_EXPECTED = [
    TaggedExample("Where does Smith live?", "Dr. Smith lives in Paris.", ((19, 24),), "squad", "q0"),
    TaggedExample("What crosses?", "Dr. Smith lives in Paris. The end came in 1990.", ((19, 33),), "squad", "q1"),
    TaggedExample("When?", "The end came in 1990.", ((16, 20),), "squad", "q2"),
    TaggedExample("Which first?", "Later, first came last.", ((7, 12),), "squad", "q3"),
]
SQUAD_COUNTS = Counter({"kept": 4, "answer not in context": 1, "no answer": 1})


def test_squad_file(tmp_path):
    examples, counts = load_source(f"squad:{squad_file(tmp_path)}")
    assert examples == SQUAD_EXPECTED
    assert counts == SQUAD_COUNTS
    assert examples[1].answers == ["Paris. The end"]  # the double space between sentences became one


def test_squad_rows_match_file():
    rows = [{"id": qa["id"], "title": "T", "context": CONTEXT, "question": qa["question"],
             "answers": {"text": [a["text"] for a in qa["answers"]],
                         "answer_start": [a["answer_start"] for a in qa["answers"]]}} for qa in squad_qas()]
    datasets = pytest.importorskip("datasets")
    examples, counts = examples_from_rows("squad", datasets.Dataset.from_list(rows))
    assert examples == SQUAD_EXPECTED
    assert counts == SQUAD_COUNTS


def test_squad_records_keep_every_answer_and_their_article(tmp_path):
    """What the contrastive answers read of a SQuAD record (read_records: the reader's records, not converted), the
    same from the file and from hub rows (an article is then a run of rows with one title)."""
    from kpqa.train.sources import SOURCES, read_records

    qas = squad_qas()
    qas[0]["answers"].append({"text": " Paris ", "answer_start": CONTEXT.index("Paris") - 1})
    data = {"data": [{"title": "T", "paragraphs": [{"context": CONTEXT, "qas": qas}]},
                     {"paragraphs": [{"context": CONTEXT, "qas": qas[:1]}]}]}
    (tmp_path / "two.json").write_text(json.dumps(data))
    records = list(read_records("squad", tmp_path / "two.json"))
    assert [(r.id, r.article, r.title) for r in records] == [(f"q{i}", 0, "T") for i in range(6)] + [("q0", 1, "1")]
    assert (records[0].answers, records[0].answer, records[5].answers) == (("Paris", " Paris "), "Paris", ())
    rows = [{"id": r.id, "title": r.title, "context": r.context, "question": r.question,
             "answers": {"text": list(r.answers), "answer_start": [r.answer_start] * len(r.answers)}} for r in records]
    from_rows = list(SOURCES["squad"].from_rows(rows, "rows"))
    assert [(r.id, r.article, r.title, r.answers) for r in from_rows] == [(r.id, r.article, r.title, r.answers)
                                                                           for r in records]


def test_squad_gzip(tmp_path):
    path = tmp_path / "squad.json.gz"
    path.write_bytes(gzip.compress(squad_file(tmp_path).read_bytes()))
    assert load_source(f"squad:{path}")[0] == SQUAD_EXPECTED


# ---------------------------------------------------------------- HotpotQA

def hotpot_records() -> list[dict]:
    context = [
        ["A", ["Anna lives in Paris.", " She likes parisian food."], 1.5],  # a score after the sentences: tolerated
        ["B", ["Bob was born in Rome.", " Bob moved to paris, then to PARIS again."]],
    ]
    return [
        {"_id": "h0", "question": "Where?", "answer": "Paris", "supporting_facts": [["B", 1], ["A", 0]],
         "context": context, "type": "bridge", "level": "easy"},
        {"_id": "h1", "question": "Same?", "answer": "yes", "supporting_facts": [["A", 0]], "context": context},
        {"_id": "h2", "question": "Who?", "answer": "Carol", "supporting_facts": [["A", 0], ["B", 0]],
         "context": context},
        {"_id": "h3", "question": "Bad fact?", "answer": "Rome", "supporting_facts": [["B", 7]], "context": context},
        {"_id": "h4", "question": "Born?", "answer": "Rome", "supporting_facts": [["B", 0]], "context": context},
    ]


HOTPOT_EXPECTED = [
    TaggedExample("Where?", "Bob moved to paris, then to PARIS again. Anna lives in Paris.",
                  ((13, 18), (28, 33), (55, 60)), "hotpotqa", "h0"),
    TaggedExample("Same?", "Anna lives in Paris.", (), "hotpotqa", "h1", polar="yes"),
    TaggedExample("Born?", "Bob was born in Rome.", ((16, 20),), "hotpotqa", "h4"),
]
HOTPOT_COUNTS = Counter({"kept": 2, "yes/no answer": 1, "answer not in supporting sentences": 1,
                         "supporting fact not in context": 1})


def test_hotpot_file(tmp_path):
    path = tmp_path / "hotpot.json"
    path.write_text(json.dumps(hotpot_records()))
    examples, counts = load_source(f"hotpotqa:{path}")
    assert examples == HOTPOT_EXPECTED
    assert counts == HOTPOT_COUNTS
    assert examples[0].answers == ["paris", "PARIS", "Paris"]  # "parisian" is not an occurrence
    assert examples[1].answers == []  # a yes/no answer is not in the passage: a polar example


def test_hotpot_rows_match_file():
    rows = [{"id": r["_id"], "question": r["question"], "answer": r["answer"], "type": "bridge", "level": "easy",
             "supporting_facts": {"title": [t for t, _ in r["supporting_facts"]],
                                  "sent_id": [s for _, s in r["supporting_facts"]]},
             "context": {"title": [c[0] for c in r["context"]], "sentences": [c[1] for c in r["context"]]}}
            for r in hotpot_records()]
    datasets = pytest.importorskip("datasets")
    examples, counts = examples_from_rows("hotpotqa", datasets.Dataset.from_list(rows))
    assert examples == HOTPOT_EXPECTED
    assert counts == HOTPOT_COUNTS


# ---------------------------------------------------------------- MS-MARCO

def marco_records() -> list[dict]:
    def record(i, passages, answers):
        return {"query_id": 100 + i, "query": f"query {i}", "query_type": "DESCRIPTION", "wellFormedAnswers": [],
                "answers": answers, "passages": [{"is_selected": s, "passage_text": t, "url": "http://x"}
                                                 for s, t in passages]}

    return [
        record(0, [(0, "Blue is unrelated here."), (1, "The sky is blue. Grass is green. Blue whales are big.")],
               ["Blue."]),
        record(1, [(1, "Nothing to see.")], ["No Answer Present."]),
        record(2, [(0, "It is 5 km long.")], ["5 km"]),
        record(3, [(1, "It is 6 km long.")], ["5 km"]),
        record(4, [(1, "Costs run from $5 to $9. Some say more."), (0, "x"), (1, "Mr. Lee paid $9.  He left.")],
               ["$5 to $9", "$9"]),
    ]


MARCO_EXPECTED = [
    TaggedExample("query 0", "The sky is blue. Blue whales are big.", ((11, 15), (17, 21)), "msmarco", "100"),
    TaggedExample("query 4", "Costs run from $5 to $9. Mr. Lee paid $9.", ((15, 23), (38, 40)), "msmarco", "104"),
]
MARCO_COUNTS = Counter({"kept": 2, "no answer": 1, "no selected passage": 1, "answer not in selected passages": 1})


def marco_columns(records: list[dict]) -> dict:
    return {name: {str(i): r[name] for i, r in enumerate(records)} for name in records[0]}


@pytest.mark.parametrize("layout", ["columns", "list", "jsonl"])
def test_marco_file(tmp_path, layout):
    records = marco_records()
    path = tmp_path / f"marco.{layout}"
    if layout == "columns":
        path.write_text(json.dumps(marco_columns(records)))
    elif layout == "list":
        path.write_text(json.dumps(records))
    else:
        path.write_text("\n".join(json.dumps(r) for r in records) + "\n")
    examples, counts = load_source(f"msmarco:{path}")
    assert examples == MARCO_EXPECTED
    assert counts == MARCO_COUNTS


def test_marco_rows_match_file():
    rows = [{**r, "passages": {"is_selected": [p["is_selected"] for p in r["passages"]],
                               "passage_text": [p["passage_text"] for p in r["passages"]],
                               "url": [p["url"] for p in r["passages"]]}} for r in marco_records()]
    datasets = pytest.importorskip("datasets")
    examples, counts = examples_from_rows("msmarco", datasets.Dataset.from_list(rows))
    assert examples == MARCO_EXPECTED
    assert counts == MARCO_COUNTS


def test_marco_columns_without_query_id_use_row_key(tmp_path):
    columns = marco_columns(marco_records())
    del columns["query_id"]
    path = tmp_path / "marco.json"
    path.write_text(json.dumps(columns))
    assert [e.id for e in load_source(f"msmarco:{path}")[0]] == ["0", "4"]


# ---------------------------------------------------------------- the hub route

@pytest.mark.parametrize("spec, args, split", [
    ("squad:hub", ("squad",), "train"),
    ("hotpotqa:hub:validation", ("hotpot_qa", "distractor"), "validation"),
    ("msmarco:hub:train", ("ms_marco", "v2.1"), "train"),
])
def test_hub_spec_calls_load_dataset(monkeypatch, spec, args, split):
    datasets = pytest.importorskip("datasets")
    calls = []
    monkeypatch.setattr(datasets, "load_dataset", lambda *a, split: calls.append((a, split)) or [])
    assert load_source(spec) == ([], Counter())
    assert calls == [(args, split)]


def test_hub_failure_is_an_input_error(monkeypatch):
    datasets = pytest.importorskip("datasets")

    def offline(*args, split):
        raise ConnectionError("no network")

    monkeypatch.setattr(datasets, "load_dataset", offline)
    with pytest.raises(InputError, match="squad split 'train'.*no network"):
        load_source("squad:hub")


# ---------------------------------------------------------------- bad input

def test_wrong_layouts_name_the_file(tmp_path):
    hotpot = tmp_path / "hotpot.json"
    hotpot.write_text(json.dumps(hotpot_records()))
    squad = squad_file(tmp_path)
    with pytest.raises(InputError, match=r"hotpot\.json.*SQuAD.*HotpotQA layout\?"):
        load_source(f"squad:{hotpot}")
    with pytest.raises(InputError, match=r"squad\.json.*HotpotQA.*SQuAD layout\?"):
        load_source(f"hotpotqa:{squad}")
    with pytest.raises(InputError, match=r"squad\.json.*MS-MARCO.*SQuAD layout\?"):
        load_source(f"msmarco:{squad}")
    with pytest.raises(InputError, match=r"hotpot\.json: row 0: no 'passages' field"):
        load_source(f"msmarco:{hotpot}")


def test_bad_record_is_located(tmp_path):
    qas = squad_qas()
    del qas[2]["question"]
    with pytest.raises(InputError, match=r"squad\.json: data\[0\]\.paragraphs\[0\]\.qas\[2\]: no 'question'"):
        load_source(f"squad:{squad_file(tmp_path, qas)}")
    records = hotpot_records()
    records[3]["supporting_facts"] = "B"
    path = tmp_path / "h.json"
    path.write_text(json.dumps(records))
    with pytest.raises(InputError, match=r"h\.json: record 3: 'supporting_facts' should be a list, got a string"):
        load_source(f"hotpotqa:{path}")


def test_unreadable_and_unknown(tmp_path):
    with pytest.raises(InputError, match=r"missing\.json: cannot read"):
        load_source(f"squad:{tmp_path / 'missing.json'}")
    broken = tmp_path / "broken.json"
    broken.write_text('{"data": [')
    with pytest.raises(InputError, match=r"broken\.json: not JSON"):
        load_source(f"squad:{broken}")
    with pytest.raises(InputError, match=r"broken\.json: line 1 is not JSON"):
        load_source(f"msmarco:{broken}")
    known = "conditionalqa, covidqa, hotpotqa, msmarco, policyqa, squad, squadshifts"
    with pytest.raises(InputError, match=f"unknown training source 'nq'; known: {known}"):
        load_source("nq:x.json")
    with pytest.raises(InputError, match=r"NAME\[@N\]:PATH"):
        load_source("squad")


# ---------------------------------------------------------------- helpers

def test_sentence_bounds_keep_abbreviations():
    text = "Dr. Smith met Mr. Jones in the U.S. on Monday.  Then they left!  Why?"
    assert [text[s:e] for s, e in sentence_bounds(text)] == [
        "Dr. Smith met Mr. Jones in the U.S. on Monday.", "Then they left!", "Why?"]


def test_find_occurrences_word_boundaries():
    assert find_occurrences("Art, art; ARTS and smart art.", "art") == [(0, 3), (5, 8), (25, 28)]
    assert find_occurrences("cost $5 or $50", "$5") == [(5, 7)]
    assert find_occurrences("anything", "  ") == []


SENTENCE = st.lists(st.sampled_from(["alpha", "beta", "Gamma", "Dr.", "x1", "(delta)"]), min_size=1, max_size=5)


@settings(max_examples=60, deadline=None)
@given(st.lists(SENTENCE, min_size=1, max_size=5), st.data())
def test_covering_sentences_keeps_the_span_text(words, data):
    text = "  ".join(" ".join(sentence) + "." for sentence in words)
    start = data.draw(st.integers(0, len(text) - 1))
    end = data.draw(st.integers(start + 1, len(text)))
    while start < end and text[start] == " ":
        start += 1
    while end > start and text[end - 1] == " ":
        end -= 1
    if start == end:
        return
    joined, spans = covering_sentences(text, [(start, end)])
    assert len(spans) == 1
    s, e = spans[0]
    assert joined[s:e] == " ".join(text[start:end].split("  "))
    assert joined.replace(" ", "") in text.replace(" ", "")
    assert joined == joined.strip() and "  " not in joined


# ---------------------------------------------------------------- shared data

def _load(shared_data, name, relpath):
    path = shared_data(relpath)
    began = time.perf_counter()
    examples, counts = load_source(f"{name}:{path}")
    print(f"{relpath}: {dict(counts)} in {time.perf_counter() - began:.1f} s")
    return examples, counts


@pytest.mark.shared_data
@pytest.mark.slow
def test_shared_squad_dev(shared_data):
    examples, counts = _load(shared_data, "squad", "squad/dev-v1.1.json")
    assert counts == Counter({"kept": 10570})
    data = json.loads(shared_data("squad/dev-v1.1.json").read_text())
    first = {qa["id"]: qa["answers"][0]["text"] for a in data["data"] for p in a["paragraphs"] for qa in p["qas"]}
    assert all(e.answers == [" ".join(first[e.id].split())] for e in examples if "  " not in first[e.id])
    assert len({e.id for e in examples}) == 10570
    assert all(len(e.spans) == 1 and e.source == "squad" for e in examples)


@pytest.mark.shared_data
def test_shared_squad_train_head(shared_data):
    examples, counts = _load(shared_data, "squad", "squad/train-v1.1-head.json")
    assert counts == Counter({"kept": 3807})
    assert examples[0].id == "5733be284776f41900661182"
    assert examples[0].answers == ["Saint Bernadette Soubirous"]


@pytest.mark.shared_data
def test_shared_hotpot_sample(shared_data):
    examples, counts = _load(shared_data, "hotpotqa", "hotpotqa/dev-sample.json")
    assert counts == Counter({"kept": 178, "yes/no answer": 20, "answer not in supporting sentences": 2})
    assert all(a.lower() == examples[0].answers[0].lower() for a in examples[0].answers)
    assert sum(len(e.spans) > 1 for e in examples) == 29
    assert sum(e.polar is not None for e in examples) == 20


def test_tagged_example_rejects_bad_spans():
    with pytest.raises(ValueError, match="out of order or outside"):
        TaggedExample("q", "abc", ((0, 4),), "squad", "x")
    with pytest.raises(ValueError, match="out of order or outside"):
        TaggedExample("q", "abcdef", ((2, 4), (3, 5)), "squad", "x")
    assert TaggedExample("q", "abcdef", ((0, 1), (3, 5)), "squad", "x").answers == ["a", "de"]
    with pytest.raises(ValueError, match="no answer span"):
        TaggedExample("q", "abc", (), "squad", "x")
    with pytest.raises(ValueError, match="polar 'yes' or 'no' and no spans"):
        TaggedExample("q", "abc", ((0, 1),), "squad", "x", polar="yes")
    with pytest.raises(ValueError, match="polar 'yes' or 'no' and no spans"):
        TaggedExample("q", "abc", (), "squad", "x", polar="maybe")


# ---------------------------------------------------------------- sets in SQuAD's layout, budgets

@pytest.mark.parametrize("name", ["squadshifts", "policyqa", "covidqa"])
def test_squad_layout_sets_keep_their_name(tmp_path, name):
    examples, counts = load_source(f"{name}:{squad_file(tmp_path)}")
    assert [(e.question, e.text, e.spans, e.id) for e in examples] == [
        (e.question, e.text, e.spans, e.id) for e in SQUAD_EXPECTED]
    assert {e.source for e in examples} == {name}
    assert counts == load_source(f"squad:{squad_file(tmp_path)}")[1]


def test_budget_keeps_a_seeded_sample_in_source_order(tmp_path):
    full, _ = load_source(f"squad:{squad_file(tmp_path)}")
    sample, counts = load_source(f"squad@2:{squad_file(tmp_path)}")
    assert len(sample) == 2 and counts["over the @N budget"] == len(full) - 2
    assert [full.index(e) for e in sample] == sorted(full.index(e) for e in sample)
    assert load_source(f"squad@2:{squad_file(tmp_path)}")[0] == sample  # the same sample every time
    assert load_source(f"squad@99:{squad_file(tmp_path)}")[0] == full
    for bad in ("0", "x", "", "choices"):
        with pytest.raises(InputError, match="@N must be a positive number of examples or 'choice'"):
            load_source(f"squad@{bad}:{squad_file(tmp_path)}")


def test_choice_budget_keeps_the_choice_questions_only(tmp_path):
    context = "Dinner was leftover from home. The bill was paid in cash."
    qas = [{"id": "c1", "question": "Was dinner from home or takeout?",
            "answers": [{"text": "home", "answer_start": context.index("home")}]},
           {"id": "c2", "question": "Was the bill paid in cash or by card?",
            "answers": [{"text": "cash", "answer_start": context.index("cash")}]},
           {"id": "n1", "question": "Who paid, him or her?",  # a choice question answered with another word
            "answers": [{"text": "bill", "answer_start": context.index("bill")}]},
           {"id": "n2", "question": "Where was dinner from?",
            "answers": [{"text": "home", "answer_start": context.index("home")}]}]
    path = tmp_path / "choice.json"
    path.write_text(json.dumps({"data": [{"title": "t", "paragraphs": [{"context": context, "qas": qas}]}]}))
    chosen, counts = load_source(f"squad@choice:{path}")
    assert [e.id for e in chosen] == ["c1", "c2"]
    assert counts == {"kept": 4, "not a choice question": 2}


def test_sources_without_a_hub_route_say_so():
    with pytest.raises(InputError, match="policyqa has no datasets-hub route"):
        load_source("policyqa:hub")


# ---------------------------------------------------------------- ConditionalQA

def conditional_records() -> list[dict]:
    def record(i, answers, evidences):
        return {"id": f"c{i}", "url": "u", "scenario": "I live in Wales.", "question": f"question {i}?",
                "not_answerable": not answers, "answers": answers, "evidences": evidences}

    return [
        record(0, [["yes", []]], ["<p>You can apply if you are 18 or over.</p>", "<li>children</li>"]),
        record(1, [["up to £200", ["if you are under 18"]]], ["<p>You get up to £100 a week.</p>"]),
        record(2, [], ["<p>Anything.</p>"]),
        record(3, [["no", []]], []),
        record(4, [["Carol", []]], ["<p>Anna lives here.</p>"]),
        record(5, [["NO", []], ["No", ["if married"]]], ["<p>Married couples &amp; partners pay.</p>"]),
    ]


def test_conditionalqa_file(tmp_path):
    path = tmp_path / "cqa.json"
    path.write_text(json.dumps(conditional_records()))
    examples, counts = load_source(f"conditionalqa:{path}")
    assert counts == Counter({"yes/no answer": 2, "no answer": 1, "no evidence": 1, "answer not in evidence": 2})
    assert examples == [
        TaggedExample("question 0?", "You can apply if you are 18 or over. children", (), "conditionalqa", "c0",
                      polar="yes"),
        TaggedExample("question 5?", "Married couples & partners pay.", (), "conditionalqa", "c5", polar="no"),
    ]


def test_conditionalqa_tags_extractive_answers_in_the_evidence(tmp_path):
    records = [{"id": "c1", "question": "How much?", "answers": [["up to £100", []]],
                "evidences": ["<p>You get <b>up to £100</b> a week.</p>", "<p>Up to £100 is paid.</p>"]}]
    path = tmp_path / "cqa.json"
    path.write_text(json.dumps(records))
    (example,), counts = load_source(f"conditionalqa:{path}")
    assert example.text == "You get up to £100 a week. Up to £100 is paid."
    assert example.answers == ["up to £100", "Up to £100"]
    assert counts == Counter({"kept": 1})


def test_conditionalqa_wrong_layout(tmp_path):
    path = tmp_path / "cqa.json"
    path.write_text(json.dumps({"data": []}))
    with pytest.raises(InputError, match="expected a ConditionalQA JSON list of records, got an object with 'data'"):
        load_source(f"conditionalqa:{path}")
    path.write_text(json.dumps([{"id": "x", "question": "q", "answers": ["yes"], "evidences": []}]))
    with pytest.raises(InputError, match=r"record 0.answers\[0\]: expected \[answer, conditions\]"):
        load_source(f"conditionalqa:{path}")


def test_marco_yes_no_answers_are_polar(tmp_path):
    records = [{"query_id": 7, "query": "is the sky blue", "answers": ["Yes"], "wellFormedAnswers": [],
                "passages": [{"is_selected": 0, "passage_text": "No."},
                             {"is_selected": 1, "passage_text": "The sky is blue. Yes it is."}]},
               {"query_id": 8, "query": "is it", "answers": ["no."], "wellFormedAnswers": [],
                "passages": [{"is_selected": 0, "passage_text": "Maybe."}]}]
    path = tmp_path / "marco.jsonl"
    path.write_text("\n".join(map(json.dumps, records)))
    examples, counts = load_source(f"msmarco:{path}")
    assert examples == [TaggedExample("is the sky blue", "The sky is blue.", (), "msmarco", "7", polar="yes"),
                        TaggedExample("is it", "", (), "msmarco", "8", polar="no")]
    assert counts == Counter({"yes/no answer": 2})


@pytest.mark.shared_data
@pytest.mark.parametrize("name, relpath, expected", [
    ("squadshifts", "squadshifts/reddit_v1.0.json", {"kept": 9803}),
    ("policyqa", "policyqa/dev.json", {"kept": 3809}),
    ("covidqa", "covidqa/200421_covidQA.json", {"kept": 1319, "answer not in context": 8}),
    ("conditionalqa", "conditionalqa/train.json",
     {"yes/no answer": 1116, "kept": 1041, "answer not in evidence": 89, "no answer": 91, "no evidence": 1}),
    ("msmarco", "msmarco/qna-sample.jsonl",
     {"yes/no answer": 73, "kept": 679, "answer not in selected passages": 248, "no selected passage": 6,
      "no answer": 28}),
])
def test_shared_new_sources(shared_data, name, relpath, expected):
    examples, counts = _load(shared_data, name, relpath)
    assert counts == Counter(expected)
    assert {e.source for e in examples} == {name}
    assert len(examples) == expected["kept"] + expected.get("yes/no answer", 0)


# ---------------------------------------------------------------- long texts


@pytest.mark.parametrize("name, records, long_id", [
    ("squad", None, "q0"), ("hotpotqa", hotpot_records, "h0"), ("msmarco", marco_records, "100"),
    ("conditionalqa", conditional_records, "c5")])
def test_a_record_with_a_text_over_the_limit_is_skipped_and_counted(name, records, long_id, tmp_path, monkeypatch):
    """Every converter skips a record whose context (or evidence) is longer than MAX_CONTEXT_CHARS, before any
    sentence splitting, and counts it; the other records are converted as before."""
    from kpqa.train import sentences

    path = tmp_path / f"{name}.json"
    filler = "Filler words here. " * 40  # 760 characters
    if name == "squad":
        qas = squad_qas()
        data = {"version": "1.1", "data": [{"title": "T", "paragraphs": [
            {"context": CONTEXT + " " + filler, "qas": qas[:1]}, {"context": CONTEXT, "qas": qas[1:]}]}]}
        path.write_text(json.dumps(data))
    else:
        listed = records()
        for record in listed:
            if str(record.get("_id", record.get("id", record.get("query_id")))) == long_id:
                if name == "hotpotqa":
                    record["context"] = [[t, [s + " " + filler for s in sents], *rest]
                                         for t, sents, *rest in record["context"]]
                elif name == "msmarco":
                    record["passages"][1]["passage_text"] += " " + filler
                else:
                    record["evidences"] = [e.replace("</p>", " " + filler + "</p>") for e in record["evidences"]]
        path.write_text(json.dumps(listed))
    full, full_counts = load_source(f"{name}:{path}")
    monkeypatch.setattr(sentences, "MAX_CONTEXT_CHARS", 500)
    kept, counts = load_source(f"{name}:{path}")
    assert [e.id for e in kept] == [e.id for e in full if e.id != long_id] and len(kept) == len(full) - 1
    assert counts[sentences.TOO_LONG] == 1 and sum(counts.values()) == sum(full_counts.values())


def test_reading_a_source_shows_a_progress_bar_on_a_terminal(tmp_path, monkeypatch):
    import io
    import sys

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    path = squad_file(tmp_path)
    terminal = Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    load_source(f"squad:{path}")
    assert "reading squad:squad.json" in terminal.getvalue() and "6 records" in terminal.getvalue()
    quiet = io.StringIO()
    monkeypatch.setattr(sys, "stderr", quiet)
    load_source(f"squad:{path}")
    assert quiet.getvalue() == ""
