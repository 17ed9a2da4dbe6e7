"""Properties every metric must have, checked on generated rows (hypothesis, small example counts).

Lexical metrics and the KPQA forms of BLEU-1 / ROUGE-L run with made-up keyphrase weights (a deterministic positive
function of the token and its position), so the properties of the weighted formulas are checked without a model.
The BERTScore and real-weighter properties run on a few fixed rows and are marked ``model``.
"""
from __future__ import annotations

import math
import zlib
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from stubs import StubWeighter

from kpqa.context import Context
from kpqa.rows import Rows
from kpqa.metrics.base import available, get_metric

FAST = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
WORDS = ["the", "a", "cat", "sat", "on", "mat", "four", "steps", "hypothesis", "test", "Paris", "is", "capital",
         "of", "France", "running", "ran", "runs", "quickly", "1,000", "U.S.", "don't", "well-known", ".", ",", "?"]
OTHER = ["zyx", "qwv", "plk", "mnb", "vcx", "jhg"]  # never in WORDS: references made of these are irrelevant
LABELS = ["Yes", "No", "Depends", None]
CIDER_MAX = 10.0
AEV = ["AEv-0.5-2", "AEv-1-1", "AEv-0-3"]
WEIGHTED = ["BLEU-1-KPQA", "ROUGE-L-KPQA", "BLEU-1-KPQA:tok=words", "ROUGE-L-KPQA:tok=words"]
#: per-row score = max over references (so an extra reference can only raise it); BLEU-n's closest-reference
#: brevity penalty, CIDEr's mean over references and AEv's recall summed over references are not of this kind
MAX_OVER_REFERENCES = ["ROUGE-L", "ROUGE-L-KPQA", "METEOR", "EM", "F1", "ROUGE-L-adapted"]


def lexical_metrics() -> list[str]:
    """Every registered metric that needs no model, plus a few AEv members and the weighted lexical KPQA forms."""
    names = [n for n in available() if not get_metric(n).uses_model]
    return names + AEV + WEIGHTED


def fake_weight(question: str, text: str, token: str, position: int) -> float:
    """A positive pseudo-KPW in [0.05, 1], a deterministic function of its arguments."""
    return 0.05 + 0.95 * (zlib.crc32(f"{question}|{text}|{token}|{position}".encode()) % 1000) / 999


def fake_word_weights(pairs, tokenizer):
    return [np.array([fake_weight(q, t, tok, i) for i, tok in enumerate(tokenizer.tokenize(t))], dtype=float)
            for q, t in pairs]


def uniform_word_weights(value: float = 1.0):
    def weights(pairs, tokenizer):
        return [np.full(len(tokenizer.tokenize(t)), value, dtype=float) for _, t in pairs]

    return weights


def context(word_weights=fake_word_weights) -> Context:
    """Made-up weights for both token kinds: the "pieces" are the PTB tokens, weighted as the words are."""
    from kpqa.text import get_tokenizer

    ptb = get_tokenizer("ptb")

    def piece_tokens(pairs):
        return [(ptb.tokenize(t), w) for (_, t), w in zip(pairs, word_weights(pairs, ptb))]

    return Context(tokenizer="ptb", word_weights=word_weights, piece_tokens=piece_tokens)


def score(name: str, rows: Rows, ctx: Context | None = None) -> dict[str, np.ndarray]:
    ctx = ctx or context()
    metric = get_metric(name)
    per_row = metric.score(rows, ctx)
    corpus = metric.corpus_score(rows, ctx)
    return {**per_row, **{f"corpus:{k}": np.array([v]) for k, v in corpus.items()}}


texts = st.lists(st.sampled_from(WORDS), min_size=1, max_size=12).map(" ".join)


@st.composite
def row_sets(draw, min_rows=1, max_rows=5):
    n = draw(st.integers(min_rows, max_rows))
    refs = [draw(st.lists(texts, min_size=1, max_size=3)) for _ in range(n)]
    return Rows(
        questions=[draw(texts) for _ in range(n)],
        candidates=[draw(texts) for _ in range(n)],
        references=refs,
        candidate_labels=[draw(st.sampled_from(LABELS)) for _ in range(n)],
        reference_labels=[[draw(st.sampled_from(LABELS)) for _ in r] for r in refs],
        entities=[draw(st.lists(st.sampled_from(WORDS[2:15]), max_size=2)) for _ in range(n)],
    )


def subset(rows: Rows, order) -> Rows:
    return Rows(
        questions=[rows.questions[i] for i in order],
        candidates=[rows.candidates[i] for i in order],
        references=[rows.references[i] for i in order],
        candidate_labels=[rows.candidate_labels[i] for i in order],
        reference_labels=[rows.reference_labels[i] for i in order],
        entities=[rows.entities[i] for i in order],
    )


def test_weighted_metrics_are_registered():
    assert {n.split(":")[0] for n in WEIGHTED} <= set(available())
    assert [get_metric(n).columns() for n in WEIGHTED] == [[n] for n in WEIGHTED]
    assert {"BLEU-1", "BLEU-4", "ROUGE-L", "METEOR", "CIDEr", "EM", "F1"} <= set(available())


@FAST
@given(rows=row_sets())
def test_scores_are_finite_and_in_range(rows):
    for name in lexical_metrics():
        for column, values in score(name, rows).items():
            upper = CIDER_MAX if column.endswith("CIDEr") else 1.0
            assert np.all(np.isfinite(values)), (name, column, values)
            assert np.all(values >= 0) and np.all(values <= upper + 1e-9), (name, column, values)


@FAST
@given(text=texts, question=texts, extra=st.lists(texts, max_size=2))
def test_candidate_equal_to_a_reference_scores_one(text, question, extra):
    from kpqa.text import get_tokenizer

    if not get_tokenizer("ptb").tokenize(text):
        return  # nothing to match (e.g. a text of punctuation only): the score is 0 by definition
    rows = Rows([question], [text], [[text] + extra])  # the closest reference length is the candidate's own
    for name in ["BLEU-1", "ROUGE-L", *WEIGHTED]:
        # BLEU's guard (matches + 1e-15) / (weight sum + 1e-9) keeps it a hair under 1 (weights here are >= 0.05)
        assert score(name, rows)[name][0] == pytest.approx(1.0, abs=1e-7), name


@FAST
@given(rows=row_sets(), scale=st.floats(0.01, 100))
def test_uniform_weights_reproduce_the_unweighted_metric(rows, scale):
    for weighted, plain in zip(WEIGHTED, ["BLEU-1", "ROUGE-L"] * 2):
        expected = score(plain, rows)[plain]
        ones = score(weighted, rows, context(uniform_word_weights(1.0)))[weighted]
        np.testing.assert_array_equal(ones, expected)  # exactly, as the docstrings promise
        scaled = score(weighted, rows, context(uniform_word_weights(scale)))[weighted]
        np.testing.assert_allclose(scaled, expected, rtol=1e-7, atol=1e-12)


@FAST
@given(rows=row_sets(min_rows=2), data=st.data())
def test_row_order_changes_no_score(rows, data):
    order = data.draw(st.permutations(range(len(rows))))
    shuffled = subset(rows, order)
    for name in lexical_metrics():
        a, b = score(name, rows), score(name, shuffled)
        for column in a:
            if column.startswith("corpus:"):
                np.testing.assert_allclose(b[column], a[column], atol=1e-6, err_msg=name)
            else:
                np.testing.assert_allclose(b[column], a[column][list(order)], atol=1e-6, err_msg=name)


@FAST
@given(rows=row_sets(min_rows=2, max_rows=4))
def test_scoring_rows_in_smaller_batches_changes_no_row_score(rows):
    """Per-row scores do not depend on which rows are scored together (except CIDEr, whose idf is the batch's)."""
    for name in lexical_metrics():
        if name == "CIDEr":
            continue
        together = score(name, rows)
        for i in range(len(rows)):
            alone = score(name, subset(rows, [i]))
            for column in alone:
                if not column.startswith("corpus:"):
                    assert alone[column][0] == pytest.approx(together[column][i], abs=1e-6), (name, column)


@FAST
@given(rows=row_sets(max_rows=3), junk=st.lists(st.sampled_from(OTHER), min_size=1, max_size=15).map(" ".join))
def test_an_irrelevant_extra_reference_never_lowers_a_max_over_references_score(rows, junk):
    more = Rows(rows.questions, rows.candidates, [r + [junk] for r in rows.references],
                rows.candidate_labels, [labels + [None] for labels in rows.reference_labels], rows.entities)
    for name in MAX_OVER_REFERENCES:
        before, after = score(name, rows)[name], score(name, more)[name]
        assert np.all(after >= before - 1e-12), (name, before, after)


def test_an_irrelevant_reference_can_lower_bleu_through_the_brevity_penalty():
    """Why BLEU is not in MAX_OVER_REFERENCES: COCO's BP uses the reference length closest to the candidate's."""
    rows = Rows(["q"], ["the cat sat on mats"], [["the cat"]])  # r = 2 < c = 5: no brevity penalty
    longer = Rows(["q"], rows.candidates, [["the cat", "zyx qwv plk mnb vcx jhg"]])  # now r = 6 > c
    before, after = score("BLEU-1", rows)["BLEU-1"][0], score("BLEU-1", longer)["BLEU-1"][0]
    assert before == pytest.approx(2 / 5) and after == pytest.approx(2 / 5 * math.exp(1 - 6 / 5))


def test_a_text_without_tokens_scores_zero_everywhere():
    """Punctuation-only or emoji-only answers and references tokenize to nothing: every metric gives 0, not NaN."""
    rows = Rows(["q", "q"], ["?!", "the cat"], [["the cat"], ["... ,"]],
                [None, None], [[None], [None]], [[], []])
    for name in lexical_metrics():
        for column, values in score(name, rows).items():
            if not column.startswith("corpus:"):
                # COCO's BLEU guards leave a tiny positive value (e.g. 2e-9) where a plain formula gives 0
                assert np.all(values <= 1e-6) and np.all(np.isfinite(values)), (name, column, values)


# ------------------------------------------------------------------ model: BERTScore and the shipped weighter

FIXED = Rows(
    questions=["how many steps are involved in a hypothesis test?", "who wrote hamlet?",
               "what is the boiling point of water?", "where is the eiffel tower?"],
    candidates=["there are seven steps involved in a hypothesis test .", "hamlet was written by shakespeare",
                "water boils at 100 degrees celsius", "it is in paris , france"],
    references=[["four steps are involved in a hypothesis test."], ["william shakespeare wrote hamlet"],
                ["100 degrees celsius at sea level", "212 degrees fahrenheit"], ["the eiffel tower is in paris"]],
)


class UniformWeighter(StubWeighter):
    """Weight 1 on the whole text."""

    def piece_weights(self, pairs):
        return [(np.array([[0, len(t)]]), np.ones(1, dtype=np.float32)) for _, t in pairs]


@pytest.fixture(scope="module")
def shipped_scorer():
    from kpqa.models import shipped

    if not (shipped.resolve() / "metadata.json").exists():
        pytest.fail(f"the committed weighter checkpoint is missing at {shipped.resolve()}")
    from kpqa.scoring import Scorer

    return Scorer(["BERTScore", "BLEU-1-KPQA", "ROUGE-L-KPQA", "BERTScore-KPQA"], device="cpu")


@pytest.mark.model
def test_bertscore_identity_range_and_uniform_weights():
    bert = get_metric("BERTScore")
    ctx = Context(device="cpu", weighter=UniformWeighter())
    plain = bert.score(FIXED, ctx)["BERTScore"]
    assert np.all((plain > 0) & (plain <= 1 + 1e-6))
    uniform = get_metric("BERTScore-KPQA").score(FIXED, ctx)["BERTScore-KPQA"]
    np.testing.assert_allclose(uniform, plain, atol=1e-6)
    same = Rows(FIXED.questions, FIXED.candidates, [[c] for c in FIXED.candidates])
    np.testing.assert_allclose(bert.score(same, ctx)["BERTScore"], 1.0, atol=1e-4)
    more = Rows(FIXED.questions, FIXED.candidates, [r + ["zyx qwv plk mnb"] for r in FIXED.references])
    assert np.all(bert.score(more, ctx)["BERTScore"] >= plain - 1e-6)


@pytest.mark.model
def test_shipped_weighter_metrics_identity_order_batch_and_extra_reference(shipped_scorer):
    from kpqa.scoring import Scorer

    per_row, _, _ = shipped_scorer.score_rows(FIXED)
    for column, values in per_row.items():
        assert np.all((values >= 0) & (values <= 1 + 1e-6)), column
    # BERTScore and BERTScore-KPQA read through two contexts, which share the scorer's one encoder
    assert sorted(type(m).__name__ for m in shipped_scorer.models) == ["Encoder", "Weighter"]
    same = Rows(FIXED.questions, FIXED.candidates, [[c] for c in FIXED.candidates])
    identical, _, _ = shipped_scorer.score_rows(same)
    for column in ["BLEU-1-KPQA", "ROUGE-L-KPQA"]:
        np.testing.assert_allclose(identical[column], 1.0, atol=1e-8)
    np.testing.assert_allclose(identical["BERTScore-KPQA"], 1.0, atol=1e-4)

    order = [2, 0, 3, 1]
    shuffled, _, _ = Scorer(list(per_row), device="cpu", batch_size=1).score_rows(subset_plain(FIXED, order))
    for column in per_row:
        np.testing.assert_allclose(shuffled[column], per_row[column][order], atol=1e-6, err_msg=column)

    more = Rows(FIXED.questions, FIXED.candidates, [r + ["zyx qwv plk mnb"] for r in FIXED.references])
    extra, _, _ = shipped_scorer.score_rows(more)
    for column in ["ROUGE-L-KPQA", "BERTScore", "BERTScore-KPQA"]:
        assert np.all(extra[column] >= per_row[column] - 1e-6), column


def subset_plain(rows: Rows, order) -> Rows:
    return Rows([rows.questions[i] for i in order], [rows.candidates[i] for i in order],
                [rows.references[i] for i in order])



# ------------------------------------------------------------------ chunked scoring (kpqa score --chunk-rows)

SAMPLE = Path(__file__).resolve().parents[1] / "examples" / "sample.csv"


def _stream(metric: str, chunk_rows: int, out: Path):
    from kpqa.output import OutputWriter
    from kpqa.input import iter_input
    from kpqa.scoring import Scorer

    with OutputWriter(out) as writer:
        result = Scorer([metric], progress=False).score_stream(iter_input(SAMPLE, chunk_rows), writer.write)
    frame = pd.read_csv(out) if out.suffix == ".csv" else pd.read_json(out, lines=True)
    return frame, result.corpus


@pytest.mark.parametrize("suffix", [".csv", ".jsonl"])
@pytest.mark.parametrize("metric", ["BLEU-1", "BLEU-4", "ROUGE-L", "METEOR", "CIDEr", "EM", "F1", "AEv-0.5-2"])
def test_chunk_size_changes_no_score(metric, suffix, tmp_path):
    whole, whole_corpus = _stream(metric, 5000, tmp_path / f"whole{suffix}")
    assert len(whole) > 3 and whole[metric].notna().all()
    for chunk in (1, 2):
        chunked, chunked_corpus = _stream(metric, chunk, tmp_path / f"chunked{chunk}{suffix}")
        assert list(chunked.columns) == list(whole.columns)
        np.testing.assert_allclose(chunked[metric].to_numpy(), whole[metric].to_numpy(), atol=1e-6)
        assert chunked_corpus[metric] == pytest.approx(whole_corpus[metric], abs=1e-6)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(allow_nan=False, allow_infinity=False), max_size=60))
def test_exact_sum_is_the_sum_of_the_floats_as_fractions(values):
    """:func:`kpqa.metrics.base.exact_sum` (integer arithmetic) is what adding the floats one by one as Fractions
    gives, to the numerator and denominator: subnormals, signed zeros and exponents far apart included."""
    from fractions import Fraction

    from kpqa.metrics.base import exact_sum

    got, want = exact_sum(np.array(values, dtype=np.float64)), sum(map(Fraction, values), Fraction(0))
    assert (got.numerator, got.denominator) == (want.numerator, want.denominator)
