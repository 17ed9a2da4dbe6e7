"""Soricut & Brill (2004) AEv(alpha, N): BLEU as a member, the alpha extremes, bounds, a hand-computed case."""
from __future__ import annotations

import math

import numpy as np
import pytest
import sacrebleu
from hypothesis import given, settings
from hypothesis import strategies as st
from nltk.translate.bleu_score import corpus_bleu as nltk_corpus_bleu

from kpqa.errors import UsageError
from kpqa.metrics import Context, Rows, get_metric
from kpqa.metrics.aev import (
    NLTK_ENGLISH_STOPWORDS,
    aev,
    aev_counts,
    aev_grid,
    combine,
    precision_score,
    preprocess,
    recall_score,
)

CANDS = [
    "the cat sat on the mat and looked at the dog",
    "a quick brown fox jumps over the lazy dog near the river",
    "it is a guide to action which ensures that the military always obeys the commands of the party",
    "he read the book because he was interested in world history",
]
REFS = [
    ["the cat was sitting on the mat looking at a dog", "a cat sat on the mat and stared at the dog"],
    ["the quick brown fox jumped over the lazy dog by the river", "a fast brown fox leaps over a lazy dog"],
    [
        "it is a guide to action that ensures that the military will forever heed party commands",
        "it is the practical guide for the army always to heed the directions of the party",
    ],
    [
        "he was interested in world history because he read the book",
        "he read the book since world history interested him",
    ],
]


def _split(cands, refs):
    return [c.split() for c in cands], [[r.split() for r in rs] for rs in refs]


@pytest.mark.parametrize("nrefs", [1, 2])
def test_aev_1_4_is_corpus_bleu(nrefs):
    refs = [rs[:nrefs] for rs in REFS]
    counts = aev_counts(*_split(CANDS, refs))
    expected = sacrebleu.corpus_bleu(CANDS, [list(s) for s in zip(*refs)], tokenize="none", smooth_method="none")
    assert expected.score > 0
    assert aev(counts.corpus(), 1.0, 4, brevity=1.0)[0] == pytest.approx(expected.score / 100, abs=1e-9)


def test_aev_1_4_is_nltk_corpus_bleu_with_ragged_references():
    refs = [REFS[0], REFS[1][:1], REFS[2], REFS[3][:1]]
    cands, toks = _split(CANDS, refs)
    expected = nltk_corpus_bleu(toks, cands)
    assert aev(aev_counts(cands, toks).corpus(), 1.0, 4)[0] == pytest.approx(expected, abs=1e-9)


def test_alpha_extremes_are_rs_and_ps():
    counts = aev_counts(*_split(CANDS, REFS)).corpus()
    for n in (1, 2, 3, 4):
        ps, rs = precision_score(counts, n), recall_score(counts, n)
        assert aev(counts, 1.0, n)[0] == ps[0]
        assert aev(counts, 0.0, n)[0] == rs[0]
        mid = aev(counts, 0.5, n)[0]
        assert mid == pytest.approx(2 * rs[0] * ps[0] / (rs[0] + ps[0]))
        assert min(ps[0], rs[0]) <= mid <= max(ps[0], rs[0])


def test_hand_computed_case():
    """cand "the cats sat on mats today" -> cat sat mat todai; ref "a cat sat on the mat" -> cat sat mat."""
    cand = preprocess("the cats sat on mats today".split())
    ref = preprocess("a cat sat on the mat".split())
    assert ref == ["cat", "sat", "mat"] and cand[:3] == ["cat", "sat", "mat"] and len(cand) == 4
    counts = aev_counts([cand], [[ref]])
    # P(1) = 3/4, P(2) = 2/3, BP = 1 (|c| = 4 >= |r| = 3); R(1) = R(2) = 1, WP = exp(1 - 2*4/3)
    ps, rs = math.sqrt(3 / 4 * 2 / 3), math.exp(1 - 8 / 3)
    assert precision_score(counts, 2)[0] == pytest.approx(ps, abs=1e-15)
    assert recall_score(counts, 2, wordiness=2.0)[0] == pytest.approx(rs, abs=1e-15)
    assert aev(counts, 0.3, 2)[0] == pytest.approx(rs * ps / (0.3 * rs + 0.7 * ps), abs=1e-15)
    assert recall_score(counts, 2, wordiness=0.0)[0] == 1.0  # W = 0 switches the wordiness penalty off
    # brevity: the reference as candidate against the longer candidate as reference, B = 1 vs B = 2
    rev = aev_counts([ref], [[cand]])
    assert precision_score(rev, 1, brevity=1.0)[0] == pytest.approx(math.exp(1 - 4 / 3))
    assert precision_score(rev, 1, brevity=2.0)[0] == pytest.approx(1.0)


def test_zero_precision_gives_zero_not_nan():
    counts = aev_counts([["a", "b"]], [[["c", "d"]]])
    assert aev_grid(counts, [0, 0.5, 1], [1, 2]).tolist() == [[[0.0]] * 3] * 2
    assert aev(aev_counts([[]], [[["a"]]]), 0.5, 1)[0] == 0.0
    assert combine(np.array([0.0]), np.array([0.0]), 0.5)[0] == 0.0


def test_preprocess_stopwords_and_stems():
    assert len(NLTK_ENGLISH_STOPWORDS) == 179
    assert preprocess("The ponies were Running".split()) == ["poni", "run"]
    assert preprocess("The ponies".split(), stopwords=frozenset(), stem=False) == ["The", "ponies"]


tokens = st.lists(st.sampled_from("a b c d e f".split()), max_size=12)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(tokens, st.lists(tokens, min_size=1, max_size=3)), min_size=1, max_size=5))
def test_grid_bounded_and_consistent(data):
    counts = aev_counts([c for c, _ in data], [rs for _, rs in data])
    alphas, ns = np.linspace(0, 1, 11), [1, 2, 3, 4]
    for c in (counts, counts.corpus()):
        grid = aev_grid(c, alphas, ns)
        assert grid.shape == (4, 11, len(c.cand_len))
        assert np.all((grid >= 0) & (grid <= 1 + 1e-12))
        assert np.array_equal(grid[1, 3], aev(c, alphas[3], 2))


def test_names_and_options():
    metric = get_metric("AEv-0.3-2")
    assert (metric.alpha, metric.n, metric.name) == (0.3, 2, "AEv-0.3-2")
    assert metric.options() == {"B": 1.0, "W": 2.0, "stop": "nltk", "stem": "porter"}
    custom = get_metric("AEv-1-4:B=1.5:W=0:stop=none:stem=none")
    assert (custom.brevity, custom.wordiness, custom.stopwords, custom.stem) == (1.5, 0.0, "none", "none")
    for bad in ("AEv-1.5-2", "AEv-0.3-0", "AEv-0.3", "AEv-0.3-2:X=1", "AEv-0.3-2:stop=spacy", "AEv-0.3-2:B=x"):
        with pytest.raises(UsageError):
            get_metric(bad)


def test_metric_rows_and_corpus():
    ctx = Context(tokenizer="whitespace")
    rows = Rows(questions=[""] * len(CANDS), candidates=CANDS, references=REFS)
    bleu = get_metric("AEv-1-4:stop=none:stem=none")
    per_row = bleu.score(rows, ctx)[bleu.name]
    expected = sacrebleu.corpus_bleu(CANDS, [list(s) for s in zip(*REFS)], tokenize="none", smooth_method="none")
    corpus = bleu.corpus_score(rows, ctx)[bleu.name]
    assert corpus == pytest.approx(expected.score / 100, abs=1e-9)
    for i, cand in enumerate(CANDS):
        one = sacrebleu.sentence_bleu(cand, REFS[i], tokenize="none", smooth_method="none").score / 100
        assert per_row[i] == pytest.approx(one, abs=1e-9)
    qa = get_metric("AEv-0.3-2")
    scores = qa.score(rows, ctx)["AEv-0.3-2"]
    assert scores.shape == (4,) and np.all((scores > 0) & (scores <= 1))
    assert "B:1.0|W:2.0|stop:nltk|stem:porter" in str(qa.signature(ctx))
