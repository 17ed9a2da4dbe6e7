"""Yang et al. (2018) adapted BLEU / ROUGE-L: the paper's worked examples as exact fractions, plus properties."""
from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import sacrebleu

from kpqa.errors import UsageError
from kpqa.metrics import Context, Rows, get_metric
from kpqa.metrics.yang import (
    DEFAULT_GAMMA,
    adapted_bleu,
    adapted_precisions,
    adapted_rouge_l,
    bleu_counts,
    bleu_from_counts,
    entity_length,
)
from kpqa.metrics.ngrams import f_measure

# Examples 1 and 3 (the paper's English rendering; the period is a token, no lemmatization: footnote 1).
SKIP_CAND = "Skipping rope is an aerobic exercise .".split()
SKIP_REFS = [
    "Skipping rope is a kind of aerobic exercise with low intensity .".split(),
    "Skipping rope can be regarded as an aerobic exercise only when skipping for a long time .".split(),
]
SKIP_LABELS = ["Yes", "Depends"]
# Examples 2 and 4.
QIN_CAND = "Qin unified China in 221 BC after the war against other kingdoms which lasted ten years .".split()
QIN_REFS = ["Qin unified China in ten years , from 230 BC to 221 BC .".split()]
QIN_ENTITIES = [e.split() for e in ("ten years", "230 BC", "221 BC")]


def test_example1_adapted_bigram_precision_yes_no():
    counts = bleu_counts(SKIP_CAND, SKIP_REFS, candidate_label="Yes", reference_labels=SKIP_LABELS)
    assert (counts.totals[1], counts.matches[1], counts.same[1]) == (6, 4, 3)
    assert adapted_precisions(counts, alpha=0, beta=0)[1] == Fraction(4, 6)
    assert adapted_precisions(counts, alpha=1.0, beta=1.0)[1] == Fraction(4 + 3, 6 + 3)


def test_example2_adapted_bigram_precision_entities():
    counts = bleu_counts(QIN_CAND, QIN_REFS, entities=QIN_ENTITIES)
    assert (counts.totals[1], counts.matches[1], counts.entity[1]) == (16, 5, 2)
    assert adapted_precisions(counts, alpha=2.0, beta=0)[1] == Fraction(5, 16)
    assert adapted_precisions(counts, alpha=2.0, beta=1.0)[1] == Fraction(5 + 2, 16 + 2)


def test_example3_adapted_rouge_l_yes_no():
    score = adapted_rouge_l(SKIP_CAND, SKIP_REFS, candidate_label="Yes", reference_labels=SKIP_LABELS, alpha=1.0)
    assert score.precision == Fraction(6 + 6, 7 + 6)
    assert score.recall == Fraction(6 + 6, 12 + 6)
    # The paper's rounded "adapted ROUGE-L 0.78" is nearer the harmonic mean (footnote 2) of these exact P and R.
    assert f_measure(score.precision, score.recall, 1.0) == pytest.approx(0.774, abs=1e-3)
    plain = adapted_rouge_l(SKIP_CAND, SKIP_REFS, alpha=0, beta=0)
    assert (plain.precision, plain.recall) == (Fraction(6, 7), Fraction(6, 12))


def test_example4_adapted_rouge_l_entities():
    assert entity_length(QIN_CAND, QIN_ENTITIES) == 4
    score = adapted_rouge_l(QIN_CAND, QIN_REFS, entities=QIN_ENTITIES, beta=1.0)
    assert score.precision == Fraction(7 + 4, 17 + 4)
    assert score.recall == Fraction(7 + 4, 14 + 4)


def test_paper_trivial_answer_comparison():
    """Section 3.2: "exercise with low intensity" (no opinion) vs the labelled answer; alpha = 1, harmonic F."""
    trivial = adapted_rouge_l("exercise with low intensity".split(), SKIP_REFS, reference_labels=SKIP_LABELS, alpha=1)
    right = adapted_rouge_l(SKIP_CAND, SKIP_REFS, candidate_label="Yes", reference_labels=SKIP_LABELS, alpha=1)
    gap = f_measure(right.precision, right.recall, 1.0) - f_measure(trivial.precision, trivial.recall, 1.0)
    assert gap == pytest.approx(0.774 - 0.5, abs=1e-3)  # the paper rounds this to 0.28


def test_shorter_entity_answer_loses_once_entities_count():
    """Section 3.2: the shorter answer without "ten years" beats the longer one under plain ROUGE-L (harmonic F).

    The paper says the adapted ROUGE-L fixes this for beta > 2.6; from the exact counts of Example 4 (LCS 6 vs 7,
    entity lengths 2 vs 4) the order already flips between beta = 0.1 and 0.2, so we test the flip, not 2.6.
    """
    short = "Qin unified China in 221 BC after the war against other kingdoms".split()

    def f(cand, beta):
        s = adapted_rouge_l(cand, QIN_REFS, entities=QIN_ENTITIES, beta=beta)
        return f_measure(s.precision, s.recall, 1.0)

    assert f(short, 0) > f(QIN_CAND, 0)
    assert f(short, 0.1) > f(QIN_CAND, 0.1)
    assert f(short, 0.2) < f(QIN_CAND, 0.2)
    assert f(short, 1.0) < f(QIN_CAND, 1.0)


def test_zero_bonus_is_plain_corpus_bleu():
    cands = ["the cat sat on the mat", "a dog ran in the big park today", "hello there general kenobi you are bold"]
    refs = [
        ["the cat sat on a mat", "there is a cat on the mat"],
        ["a dog was running in the park", "the dog ran in a big park"],
        ["hello there general kenobi", "general kenobi you are a bold one"],
    ]
    counts = [bleu_counts(c.split(), [r.split() for r in rs]) for c, rs in zip(cands, refs)]
    expected = sacrebleu.corpus_bleu(cands, list(map(list, zip(*refs))), tokenize="none", smooth_method="none")
    assert bleu_from_counts(counts, alpha=0, beta=0) == pytest.approx(expected.score / 100, abs=1e-12)
    # the labels and entities are absent, so the default bonuses change nothing either
    assert bleu_from_counts(counts) == pytest.approx(expected.score / 100, abs=1e-12)


def test_corpus_sums_counts_and_lengths():
    a = bleu_counts("a b c d e".split(), ["a b c d e f g".split()], candidate_label="Yes", reference_labels=["Yes"])
    b = bleu_counts("x y z w v".split(), ["x y z w u".split()], entities=[["x", "y"]])
    precisions = adapted_precisions([a, b], alpha=2, beta=1)
    # unigrams: matches 5 + 4, totals 5 + 5, same-opinion clips 5, entity clips 2
    assert precisions[0] == Fraction(9 + 10 + 2, 10 + 10 + 2)
    bp = math.exp(1 - 12 / 10)
    expected = bp * math.exp(sum(math.log(p) for p in precisions) / 4)
    assert bleu_from_counts([a, b], alpha=2, beta=1) == pytest.approx(expected, abs=1e-15)


def test_bonus_only_for_matching_label_and_bounded():
    refs = ["yes it is aerobic".split(), "no it is not aerobic".split()]
    cand = "it is very aerobic".split()
    right = adapted_bleu(cand, refs, candidate_label="yes", reference_labels=["Yes", "No"], max_n=2)
    unlabeled = adapted_bleu(cand, refs, reference_labels=["Yes", "No"], max_n=2)
    wrong = adapted_bleu(cand, refs, candidate_label="Depends", reference_labels=["Yes", "No"], max_n=2)
    assert wrong == unlabeled < right <= 1.0
    assert adapted_bleu(refs[0], refs, candidate_label="Yes", reference_labels=["Yes", "No"]) == pytest.approx(1.0)


def test_entity_length_contiguous_and_distinct():
    cand = list("上海长征医院骨科")
    entities = [list("长征医院"), list("长征医院"), list("长海医院"), list("上海医院")]
    assert entity_length(cand, entities) == 4


def _rows(**kw):
    base = dict(
        questions=["q1", "q2"],
        candidates=["it is aerobic", "qin unified china in 221 bc"],
        references=[["yes it is aerobic", "no it is not"], ["qin unified china in ten years"]],
    )
    return Rows(**base, **kw)


@pytest.fixture
def ws():
    return Context(tokenizer="whitespace")


@pytest.mark.parametrize("name", ["BLEU-4-adapted", "ROUGE-L-adapted"])
def test_metric_needs_labels_or_entities(name, ws):
    with pytest.raises(UsageError, match="opinion labels .* or gold entities"):
        get_metric(name).score(_rows(), ws)


def test_metrics_on_rows(ws):
    rows = _rows(candidate_labels=["Yes", None], reference_labels=[["Yes", "No"], [None]], entities=[[], ["221 bc"]])
    rouge = get_metric("ROUGE-L-adapted")
    scores = rouge.score(rows, ws)["ROUGE-L-adapted"]
    # row 1: LCS with "yes it is aerobic" = 3, bonus 2*3: P = 9/9, R = 9/10
    assert scores[0] == pytest.approx(f_measure(Fraction(1), Fraction(9, 10), DEFAULT_GAMMA))
    # row 2: LCS 4, entity bonus 2: P = 6/8, R = 6/8
    assert scores[1] == pytest.approx(0.75)
    assert rouge.corpus_score(rows, ws)["ROUGE-L-adapted"] == pytest.approx(scores.mean())
    bleu = get_metric("BLEU-4-adapted")
    per_row = bleu.score(rows, ws)
    corpus = bleu.corpus_score(rows, ws)["BLEU-4-adapted"]
    assert 0 < corpus <= 1 and per_row["BLEU-4-adapted"].shape == (2,)
    plain = get_metric("BLEU-4-adapted")
    plain.alpha = plain.beta = 0.0
    assert plain.corpus_score(rows, ws)["BLEU-4-adapted"] < corpus
    assert np.all((per_row["BLEU-4-adapted"] >= 0) & (per_row["BLEU-4-adapted"] <= 1))
    assert "alpha:2.0|beta:1.0" in str(bleu.signature(ws))


def test_entities_only_input_is_enough(ws):
    rows = _rows(entities=[[], ["221 bc"]])
    assert get_metric("ROUGE-L-adapted").score(rows, ws)["ROUGE-L-adapted"][1] == pytest.approx(0.75)


def test_chinese_entity_row_with_zh_tokens():
    """A DuReader-style row: character tokens, an entity with a trailing space (tokenized like the text)."""
    rows = Rows(
        questions=["小米6防水等级"],
        candidates=["小米6是IP68级防水"],
        references=[["小米6是支持IP68级的防水。"]],
        entities=[["IP68级 "]],
    )
    score = get_metric("ROUGE-L-adapted").score(rows, Context(tokenizer="zh"))["ROUGE-L-adapted"][0]
    # 小 米 6 是 ip68 级 防 水 (8 tokens) vs 小 米 6 是 支 持 ip68 级 的 防 水 (11): LCS 8; entity "ip68 级": 2
    assert score == pytest.approx(f_measure(Fraction(10, 10), Fraction(10, 13), DEFAULT_GAMMA))


@pytest.mark.shared_data
def test_dureader_script(shared_data, capsys):
    import runpy

    data = shared_data("dureader/search.dev.jsonl")
    script = runpy.run_path(str(Path(__file__).resolve().parents[1] / "experiments" / "dureader_yang.py"))
    script["main"](["--data", str(data)])
    table = {}
    for line in capsys.readouterr().out.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 7 and cells[0] in ("YES_NO", "ENTITY", "DESCRIPTION"):
            table[cells[0], cells[1]] = [float(c) for c in cells[3:]]  # BLEU, adapted, ROUGE-L, adapted
    assert len(table) == 6
    # no labels and no entities on DESCRIPTION questions: the bonuses change nothing there
    bleu, bleu_a, rouge, rouge_a = table["DESCRIPTION", "retrieved"]
    assert (bleu, rouge) == (bleu_a, rouge_a)
    # with the oracle opinion label the adapted ROUGE-L of the retrieved YES_NO sentences is far higher
    bleu, bleu_a, rouge, rouge_a = table["YES_NO", "retrieved"]
    assert rouge_a > rouge + 5 and bleu_a > bleu


def _auto_rows(**kw) -> Rows:
    base = dict(
        questions=["Can ostriches fly?", "Who wrote Hamlet?"],
        candidates=["no ostriches can not really fly", "hamlet was written by william shakespeare"],
        references=[["no ostriches can not fly", "yes they can fly"], ["william shakespeare wrote hamlet"]],
    )
    return Rows(**{**base, **kw})


def _stub_context(tokenizer: str = "whitespace") -> Context:
    from stubs import WordWeighter

    return Context(tokenizer=tokenizer,
                   weighter=WordWeighter(lambda word: 0.9 if word in {"william", "shakespeare"} else 0.1))


@pytest.mark.parametrize("name", ["BLEU-4-adapted", "ROUGE-L-adapted"])
def test_auto_labels_equal_the_same_gold_labels(name):
    """labels=auto on rows without label columns scores what the gold path scores with the labels it finds: No for
    both "no" answers and Yes for "yes they can fly"; the spans "william shakespeare" as the entity."""
    ctx = _stub_context()
    auto = get_metric(f"{name}:labels=auto")
    scores = auto.score(_auto_rows(), ctx)[f"{name}:labels=auto"]
    gold = get_metric(name).score(_auto_rows(candidate_labels=["No", None], reference_labels=[["No", "Yes"], [None]],
                                             entities=[[], ["william shakespeare"]]), ctx)[name]
    np.testing.assert_allclose(scores, gold, rtol=0, atol=1e-12)
    plain = get_metric(f"{name}:labels=auto:alpha=0:beta=0").score(_auto_rows(), ctx)
    plain = plain[f"{name}:labels=auto:alpha=0:beta=0"]
    assert scores[0] > plain[0]  # the opinion bonus
    # the entity bonus (ROUGE-L's; BLEU-4 has no 4-gram to match in row 2 with or without "william shakespeare")
    assert scores[1] > plain[1] if name == "ROUGE-L-adapted" else scores[1] == plain[1] == 0


def test_auto_labels_prefer_gold():
    """A row's gold labels win over the ones the rules would find (here the rules say No, the gold says Yes)."""
    ctx = _stub_context()
    rows = _auto_rows(candidate_labels=["Yes", None], reference_labels=[["Yes", "No"], [None]])
    auto = get_metric("ROUGE-L-adapted:labels=auto").score(rows, ctx)["ROUGE-L-adapted:labels=auto"]
    gold = get_metric("ROUGE-L-adapted").score(
        _auto_rows(candidate_labels=["Yes", None], reference_labels=[["Yes", "No"], [None]],
                   entities=[[], ["william shakespeare"]]), ctx)["ROUGE-L-adapted"]
    np.testing.assert_allclose(auto, gold, rtol=0, atol=1e-12)


def test_auto_signature_and_names():
    ctx = _stub_context()
    metric = get_metric("bleu-4-adapted:labels=auto")
    assert metric.columns() == ["BLEU-4-adapted:labels=auto"] and metric.uses_model
    assert str(metric.signature(ctx)).startswith(
        "BLEU-4-adapted|tok:whitespace|alpha:2.0|beta:1.0|labels:auto|kpw:stub|backbone:stub|question:yes")
    assert "|entities:kpw>=0.5|version:" in str(metric.signature(ctx))
    assert "entities:gold-only" in str(metric.signature(Context(tokenizer="zh")))
    # the gold form keeps its name and signature whether or not labels=gold is spelled out
    gold = get_metric("ROUGE-L-adapted:labels=gold")
    assert str(gold.signature(ctx)) == str(get_metric("ROUGE-L-adapted").signature(ctx))
    assert gold.columns() == ["ROUGE-L-adapted:labels=gold"] and not gold.uses_model
    for bad, message in (("BLEU-4-adapted:labels=guess", "labels option takes gold or auto"),
                         ("BLEU-4-adapted:gamma=1", "bad option 'gamma=1'"),
                         ("ROUGE-L-adapted:alpha=two", "numbers")):
        with pytest.raises(UsageError, match=message):
            get_metric(bad)


def test_auto_on_chinese_warns_once_that_entities_stay_gold():
    from kpqa.errors import KpqaWarning

    rows = Rows(questions=["壁虎是益虫吗", "范冰冰多高"], candidates=["壁虎不是虫", "163"],
                references=[["壁虎是益虫,它吃蚊子的"], ["范冰冰163。"]])
    metric = get_metric("ROUGE-L-adapted:labels=auto")
    with pytest.warns(KpqaWarning, match="no automatic entities for Chinese"):
        scores = metric.score(rows, _stub_context("zh"))["ROUGE-L-adapted:labels=auto"]
    with pytest.warns(KpqaWarning):
        plain = get_metric("ROUGE-L-adapted:labels=auto:alpha=0").score(rows, _stub_context("zh"))
    # row 1: the candidate says No, the reference Yes: no bonus; row 2: no entities for Chinese: no bonus
    np.testing.assert_allclose(scores, plain["ROUGE-L-adapted:labels=auto:alpha=0"])
