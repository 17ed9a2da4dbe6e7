"""BERTScore and BERTScore-KPQA: the weighted P/R/F formula by hand, properties, agreement with bert-score."""
from __future__ import annotations

import warnings
from math import log

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kpqa.models.encoder import Encoder
from kpqa.errors import UsageError
from kpqa.metrics import Context, Rows, get_metric
from stubs import WordWeighter

from kpqa.metrics.bertscore import (
    BERTScoreKPQA,
    bertscore,
    best_matches,
    embed_rows,
    greedy_prf,
    idf_weights,
    lookup,
)

CANDS = [
    "the cat sat on the mat",
    "paris is the capital of france .",
    "it takes 5 to 20 hours of walking to lose one pound",
    "water boils at 100 degrees celsius at sea level",
    "he was born in 1879 in ulm , germany",
]
REFS = [
    "a cat was sitting on the mat",
    "the capital of france is paris",
    "walk for 5 to 20 hours to lose 1 pound",
    "at sea level , water boils at 212 degrees fahrenheit",
    "albert einstein was born in ulm",
]


# ---- the formula on hand-made vectors -------------------------------------------------------------------------

C = np.array([[1.0, 0.0], [0.6, 0.8]])  # candidate vectors
R = np.array([[0.0, 1.0], [0.8, 0.6]])  # reference vectors
# similarities: c1.r1 = 0, c1.r2 = 0.8, c2.r1 = 0.8, c2.r2 = 0.96


def test_weighted_prf_by_hand():
    p, r, f = greedy_prf(C, np.array([1.0, 3.0]), R, np.array([2.0, 1.0]))
    # P: c1 best 0.8 (w 1), c2 best 0.96 (w 3) -> 3.68 / 4;  R: r1 best 0.8 (w 2), r2 best 0.96 (w 1) -> 2.56 / 3
    assert p == pytest.approx(0.92)
    assert r == pytest.approx(2.56 / 3)
    assert f == pytest.approx(2 * 0.92 * (2.56 / 3) / (0.92 + 2.56 / 3))


def test_f_is_zero_where_p_plus_r_is_not_positive():
    """F is 2PR / (P + R) where P + R > 0 and 0 elsewhere; bert-score divides anyway, which is unbounded there."""
    p, r, f = greedy_prf(np.array([[1.0, 0.0]]), np.array([1.0]), np.array([[-0.6, 0.8]]), np.array([1.0]))
    assert (p, r, f) == pytest.approx((-0.6, -0.6, 0.0))  # every best match negative
    cand = np.array([[1.0, 0.0], [0.0, 1.0]])
    ref = np.array([[-0.8, 0.6]])
    p, r, f = greedy_prf(cand, np.array([9.0, 1.0]), ref, np.array([1.0]))
    assert p == pytest.approx((9 * -0.8 + 0.6) / 10) and r == pytest.approx(0.6)
    assert f == 0.0  # bert-score's formula would give 2 * -0.66 * 0.6 / -0.06 = 13.2
    p, r, f = greedy_prf(cand, np.array([1.0, 1.0]), ref, np.array([1.0]))
    assert (p, r) == pytest.approx((-0.1, 0.6)) and f == pytest.approx(2 * -0.1 * 0.6 / 0.5)  # P + R > 0: the formula


def test_special_vectors_are_zero_weight_match_targets():
    special = np.array([[1.0, 0.0]])  # lets c1 match with 1.0 instead of 0.8
    p, r, _ = greedy_prf(C, np.array([1.0, 3.0]), R, np.array([2.0, 1.0]), cand_extra=None, ref_extra=special)
    assert p == pytest.approx((1.0 + 3 * 0.96) / 4)
    assert r == pytest.approx(2.56 / 3)  # the special target adds no reference weight


def test_uniform_weights_are_plain_means():
    p, r, _ = greedy_prf(C, np.ones(2), R, np.ones(2))
    assert (p, r) == (pytest.approx((0.8 + 0.96) / 2), pytest.approx((0.8 + 0.96) / 2))


@pytest.mark.parametrize("cw,rw", [(np.zeros(2), np.ones(2)), (np.ones(2), np.zeros(2))])
def test_no_weight_scores_zero(cw, rw):
    assert greedy_prf(C, cw, R, rw) == (0.0, 0.0, 0.0)


def test_empty_side_scores_zero():
    assert greedy_prf(C[:0], np.ones(0), R, np.ones(2)) == (0.0, 0.0, 0.0)


def test_idf_as_bert_score_computes_it():
    idf = idf_weights([np.array([1, 2]), np.array([2, 3, 3]), np.array([2])])
    assert idf[1] == pytest.approx(log(4 / 2))
    assert idf[2] == pytest.approx(0.0)  # in every reference, like [CLS]/[SEP]
    assert idf[3] == pytest.approx(log(4 / 2))  # counted once per reference
    assert lookup(idf, np.array([1, 99]), 3).tolist() == pytest.approx([log(2), log(4)])


def test_align_takes_max_of_overlapping_pieces():
    from kpqa.models.alignment import max_overlap as align  # what BERTScore-KPQA maps the pieces' weights with

    tokens = np.array([[0, 5], [6, 11], [12, 13]])
    pieces = np.array([[0, 3], [3, 5], [6, 11]])
    assert align(tokens, pieces, np.array([0.2, 0.9, 0.5])).tolist() == pytest.approx([0.9, 0.5, 0.0])
    # same tokenization on both sides: one to one
    assert align(pieces, pieces, np.array([0.2, 0.9, 0.5])).tolist() == pytest.approx([0.2, 0.9, 0.5])


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 40), st.integers(1, 40), st.integers(1, 9), st.integers(0, 2**32 - 1))
def test_best_matches_in_blocks_equal_the_whole_matrix(m, n, block, seed):
    rng = np.random.default_rng(seed)
    c, r = rng.standard_normal((m, 5)).astype(np.float32), rng.standard_normal((n, 5)).astype(np.float32)
    rows, cols = best_matches(c, r, block)
    sim = c @ r.T
    assert rows == pytest.approx(sim.max(axis=1, initial=-np.inf), abs=1e-6)
    assert cols == pytest.approx(sim.max(axis=0, initial=-np.inf), abs=1e-6)


def test_greedy_matching_of_long_texts_keeps_blocks_of_rows():
    import tracemalloc

    rng = np.random.default_rng(0)
    c, r = (x / np.linalg.norm(x, axis=1, keepdims=True) for x in rng.standard_normal((2, 12_000, 4), np.float32))
    tracemalloc.start()
    p, r_, _ = greedy_prf(c, np.ones(len(c)), r, np.ones(len(r)))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 96 * 2**20  # the whole 12,000 x 12,000 matrix would take 549 MiB
    assert 0.9 < p <= 1 and 0.9 < r_ <= 1  # 12,000 directions in 4 dimensions: each has a close neighbour


# ---- with the pip-shipped MiniLM ------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def encoder(minilm_encoder) -> Encoder:  # the session fixture (conftest)
    return minilm_encoder


@pytest.mark.model
def test_encoder_reads_depth_from_config(encoder):
    assert encoder.num_layers == 6 and 1 <= encoder.layer <= 6
    with pytest.raises(UsageError, match="out of range"):
        encoder.encode(["x"], layers=[7])


@pytest.mark.model
def test_encoder_outputs(encoder):
    (e,) = encoder.encode(["Paris is nice."])
    assert [("Paris is nice."[s:t]) for s, t in e.offsets] == ["Paris", "is", "nice", "."]
    assert e.vectors.shape == (4, 384) and e.special.shape == (2, 384)
    assert np.linalg.norm(e.vectors, axis=1) == pytest.approx(np.ones(4), abs=1e-5)
    (empty,) = encoder.encode([""])
    assert empty.vectors.shape == (0, 384) and empty.special.shape == (2, 384)


@pytest.mark.model
def test_a_text_seen_before_is_not_encoded_again(monkeypatch):
    fresh = Encoder("minilm", device="cpu")
    calls: list[int] = []
    real = fresh._forward
    monkeypatch.setattr(fresh, "_forward", lambda inputs, *a: calls.append(len(inputs)) or real(inputs, *a))
    (first,) = fresh.encode(["the reference answer"])
    again, other = fresh.encode(["the reference answer", "a candidate"])
    assert calls == [1, 1] and again is first  # only the new text went through the model
    (three,) = fresh.encode(["the reference answer"], layers=[2, 6])  # other layers: another entry
    assert calls == [1, 1, 1] and three.vectors.shape == (2, 3, 384)
    assert np.allclose(three.vectors[1], first.vectors, atol=1e-5)
    monkeypatch.setattr(fresh._cache, "limit", 4)  # over the budget: the least recently used goes first
    fresh.encode(["one two three"])
    assert list(fresh._cache) == [("one two three", ())] and fresh._cache.used == 3


@pytest.mark.model
def test_long_texts_are_windowed_not_cut(encoder):
    text = " ".join(CANDS * 3)
    small = Encoder("minilm", layer=encoder.layer, device="cpu", max_length=16)
    (full,), (windowed,) = encoder.encode([text]), small.encode([text])
    assert len(windowed.ids) == len(full.ids) > 16 and windowed.special.shape == (2, 384)
    assert np.array_equal(windowed.offsets, full.offsets)
    assert np.linalg.norm(windowed.vectors, axis=1) == pytest.approx(np.ones(len(full.ids)), abs=1e-5)
    (short,) = small.encode(["the cat sat"])  # within the limit: the same as without windows
    assert np.allclose(short.vectors, encoder.encode(["the cat sat"])[0].vectors, atol=1e-5)


@pytest.mark.model
def test_identical_candidate_scores_one():
    for idf in (False, True):
        p, r, f = bertscore(REFS, REFS, idf=idf, device="cpu")
        assert f == pytest.approx(np.ones(len(REFS)), abs=1e-4)


@pytest.mark.model
def test_scores_are_bounded_and_prefer_the_right_reference():
    p, r, f = bertscore(CANDS, REFS, device="cpu")
    assert np.all((f > 0) & (f <= 1)) and np.all((p > 0) & (p <= 1)) and np.all((r > 0) & (r <= 1))
    _, _, shuffled = bertscore(CANDS, REFS[1:] + REFS[:1], device="cpu")
    assert np.all(f > shuffled)


@pytest.mark.model
def test_multi_reference_takes_best_f_and_its_p_r():
    p, r, f = bertscore(CANDS[:2], [[REFS[1], REFS[0]], [REFS[0], REFS[1]]], device="cpu")
    p0, r0, f0 = bertscore(CANDS[:2], REFS[:2], device="cpu")
    assert f == pytest.approx(f0) and p == pytest.approx(p0) and r == pytest.approx(r0)


@pytest.fixture(scope="module")
def reference_scorer(encoder):
    """bert-score's own scorer on the same local model folder and layer, one per (layer, idf references)."""
    bert_score = pytest.importorskip("bert_score")
    made: dict = {}

    def get(layer: int, idf_refs: list[str] | None = None):
        key = (layer, idf_refs is not None)
        if key not in made:
            made[key] = bert_score.BERTScorer(
                model_type=encoder.path, num_layers=layer, idf=idf_refs is not None, idf_sents=idf_refs,
                device="cpu",
            )
        elif idf_refs is not None:
            with warnings.catch_warnings():  # "Overwriting the previous importance weights": intended
                warnings.simplefilter("ignore")
                made[key].compute_idf(idf_refs)
        return made[key]

    return get


@pytest.mark.model
@pytest.mark.parametrize("idf", [False, True])
def test_agrees_with_bert_score(encoder, reference_scorer, idf):
    P, R, F = reference_scorer(encoder.layer, REFS if idf else None).score(CANDS, REFS)
    p, r, f = bertscore(CANDS, REFS, idf=idf, device="cpu")
    assert p == pytest.approx(P.numpy(), abs=1e-4)
    assert r == pytest.approx(R.numpy(), abs=1e-4)
    assert f == pytest.approx(F.numpy(), abs=1e-4)
    # several references: bert-score maxes P, R, F separately; F agrees (idf from all references, as bert-score)
    multi = [[REFS[i], REFS[(i + 1) % len(REFS)]] for i in range(len(REFS))]
    flat = [r for g in multi for r in g]
    _, _, F = reference_scorer(encoder.layer, flat if idf else None).score(CANDS, multi)
    assert bertscore(CANDS, multi, idf=idf, device="cpu")[2] == pytest.approx(F.numpy(), abs=1e-4)


# a short reference whose best match in the candidate is a negative cosine similarity (EVOUNA-TQ), beside long rows
NEGATIVE = ("The name for this garment is a jubbah.", "A FARJI")
LONG = ("Sherlock Holmes is a fictional character created by Sir Arthur Conan Doyle, so he does not practice any "
        "real science, but the stories present his method of deduction as a science of detection.", "Detection")


@pytest.mark.model
def test_negative_best_match_agrees_with_bert_score_unpadded(encoder, reference_scorer):
    """A reference token whose best match is negative keeps its negative similarity, whatever rows share its batch;
    bert-score agrees when nothing is padded (its batched matching multiplies padded similarities by 0, so there
    such a token takes 0 when a longer row shares the batch: scores that depend on the batch)."""
    cand, ref = NEGATIVE
    vectors = encoder.encode([cand, ref])
    unit = [np.vstack([v.vectors, v.special]) for v in vectors]  # [CLS] and [SEP] are match targets too
    c, r = (u / np.linalg.norm(u, axis=1, keepdims=True) for u in unit)
    best = (c @ r[: len(vectors[1].ids)].T).max(axis=0)
    assert best.min() < 0  # the case under test: a reference token with no positive match
    alone = bertscore([cand], [ref], device="cpu")
    beside = bertscore([LONG[0], cand], [LONG[1], ref], device="cpu")
    np.testing.assert_allclose(np.array(beside)[:, 1], np.array(alone)[:, 0], atol=1e-6)
    P, R, F = reference_scorer(encoder.layer).score([LONG[0], cand], [LONG[1], ref], batch_size=1)
    np.testing.assert_allclose(np.array(beside), np.stack([P.numpy(), R.numpy(), F.numpy()]), atol=1e-4)


@pytest.mark.model
def test_other_layer_agrees_with_bert_score(reference_scorer):
    _, _, F = reference_scorer(2).score(CANDS, REFS)
    assert bertscore(CANDS, REFS, layer=2, device="cpu")[2] == pytest.approx(F.numpy(), abs=1e-4)


# ---- the registered metrics -----------------------------------------------------------------------------------


ROWS = Rows(questions=["q"] * len(CANDS), candidates=CANDS, references=[[r] for r in REFS])


def ctx(weighter=None) -> Context:
    return Context(device="cpu", weighter=weighter)


def test_registered_columns():
    assert get_metric("BERTScore").columns() == ["BERTScore"]
    assert get_metric("BERTScore-P").columns() == ["BERTScore-P"]
    assert get_metric("BERTScore-R").columns() == ["BERTScore-R"]
    metric = get_metric("BERTScore-KPQA")
    assert metric.columns() == ["BERTScore-KPQA"] and "weights" in metric.requires
    assert get_metric("BERTScore-KP").columns() == ["BERTScore-KP"]
    assert get_metric("BERTScore-KPQA:layer=5", no_question=True).columns() == ["BERTScore-KP:layer=5"]


@pytest.mark.model
def test_metric_columns_match_functional_form():
    p, r, f = bertscore(CANDS, REFS, device="cpu")
    for name, expected in (("BERTScore", f), ("BERTScore-P", p), ("BERTScore-R", r)):
        assert get_metric(name).score(ROWS, ctx())[name] == pytest.approx(expected, abs=1e-6)


@pytest.mark.model
def test_kpqa_with_uniform_weights_is_bertscore_without_idf():
    plain = get_metric("BERTScore").score(ROWS, ctx())["BERTScore"]
    weighter = WordWeighter()
    kpqa = BERTScoreKPQA().score(ROWS, ctx(weighter))["BERTScore-KPQA"]
    assert kpqa == pytest.approx(plain, abs=1e-6)
    assert weighter.asked[: len(CANDS)] == [("q", c) for c in CANDS]  # candidate weights from (Q, candidate)
    assert weighter.asked[len(CANDS) :] == [("q", r) for r in REFS]  # reference weights from (Q, reference)


@pytest.mark.model
def test_kpqa_weights_reach_the_tokens():
    # only "paris" weighs, on both sides: the score is the formula with one-hot weights on those encoder tokens
    rows = Rows(questions=["q"], candidates=["paris is the capital of france ."], references=[["the capital of france is paris"]])
    only = BERTScoreKPQA().score(rows, ctx(WordWeighter(lambda w: 1.0 if w == "paris" else 0.0)))["BERTScore-KPQA"]
    cands, refs = embed_rows(rows, ctx())
    c, r = cands[0], refs[0][0]
    cw = np.array([1.0] + [0.0] * (len(c.ids) - 1))
    rw = np.array([0.0] * (len(r.ids) - 1) + [1.0])
    assert only[0] == pytest.approx(greedy_prf(c.vectors, cw, r.vectors, rw, c.special, r.special)[2], abs=1e-6)


@pytest.mark.model
def test_kpqa_needs_a_weighter():
    with pytest.raises(UsageError, match="weighter"):
        BERTScoreKPQA().score(ROWS, ctx())


@pytest.mark.model
def test_idf_comes_from_every_reference_of_the_input_whatever_the_chunks(tmp_path, encoder, reference_scorer):
    """``BERTScore:idf=yes`` scored a chunk at a time takes its idf from the whole input (a corpus pass), as bert-score's
    ``idf=True`` does from every reference it is given: per-row scores the same for any chunk size."""
    import pandas as pd

    from kpqa.input import iter_input
    from kpqa.scoring import Scorer

    path = tmp_path / "rows.csv"
    pd.DataFrame({"question": ["q"] * len(CANDS), "answer": CANDS, "reference": REFS}).to_csv(path, index=False)
    scorer = Scorer(["BERTScore:idf=yes", "BERTScore-P:idf=yes", "BERTScore"], device="cpu")
    whole = scorer.score(path).frame
    for chunk_rows in (1, 2):
        frames: list = []
        scorer.score_stream(iter_input(path, chunk_rows), frames.append)
        chunked = pd.concat(frames)
        for column in ("BERTScore:idf=yes", "BERTScore-P:idf=yes", "BERTScore"):
            np.testing.assert_allclose(chunked[column].to_numpy(), whole[column].to_numpy(), atol=1e-6)
    P, _, F = reference_scorer(encoder.layer, REFS).score(CANDS, REFS)
    np.testing.assert_allclose(whole["BERTScore:idf=yes"].to_numpy(), F.numpy(), atol=1e-4)
    np.testing.assert_allclose(whole["BERTScore-P:idf=yes"].to_numpy(), P.numpy(), atol=1e-4)
    # one row alone: its idf is still the input's (scored alone, every reference token would weigh log(2/2) = 0)
    alone = bertscore(CANDS[:1], REFS[:1], idf=True, device="cpu")[2]
    assert abs(float(alone[0]) - float(whole["BERTScore:idf=yes"].iloc[0])) > 1e-3
