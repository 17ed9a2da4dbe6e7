"""BLEU-1-KPQA and ROUGE-L-KPQA: weights wired from (question, text), uniform weights give the plain metrics,
a hand-computed weighted case, the -KP column names; with the shipped checkpoint, properties of real scores."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from stubs import WordWeighter

from kpqa.errors import UsageError
from kpqa.metrics import Context, Rows, get_metric
from kpqa.text import get_tokenizer

ROWS = Rows(
    questions=["where did the cat sit?", "what is the capital of france?", "how long to walk off a pound?"],
    candidates=["The cat sat on the mat.", "Paris is the capital of France.", "It takes 5 to 20 hours of walking."],
    references=[
        ["A cat was sitting on the mat.", "The cat is on the mat."],
        ["The capital of France is Paris."],
        ["Walk for 5 to 20 hours to lose 1 pound.", "About 10 hours."],
    ],
)


class FakeWeights:
    """``word_weights`` stand-in: weight of a token from ``table`` (default 1), per (question, text) pair."""

    def __init__(self, table: dict[str, float] | None = None, by_pair: dict[tuple[str, str], list[float]] | None = None):
        self.table, self.by_pair, self.seen = table or {}, by_pair or {}, []

    def __call__(self, pairs, tokenizer):
        self.seen += list(pairs)
        return [
            np.array(self.by_pair.get(p) or [self.table.get(t, 1.0) for t in tokenizer.tokenize(p[1])], dtype=float)
            for p in pairs
        ]

    def pieces(self, pairs):
        """``piece_tokens`` stand-in: the PTB tokens as the "pieces", weighted as above."""
        ptb = get_tokenizer("ptb")
        return [(ptb.tokenize(t), w) for (_, t), w in zip(pairs, self(pairs, ptb))]

    def context(self) -> Context:
        return Context(word_weights=self, piece_tokens=self.pieces)


@pytest.mark.model
@pytest.mark.parametrize("name,plain", [("BLEU-1-KPQA", "BLEU-1"), ("ROUGE-L-KPQA", "ROUGE-L"),
                                        ("BLEU-1-KPQA:tok=words", "BLEU-1"), ("ROUGE-L-KPQA:tok=words", "ROUGE-L")])
def test_uniform_weights_give_the_plain_metric(name, plain):
    weights = FakeWeights()
    ctx = weights.context()
    got = get_metric(name).score(ROWS, ctx)[name]
    assert got == pytest.approx(get_metric(plain).score(ROWS, Context())[plain], abs=1e-9)
    n = len(ROWS)
    assert weights.seen[:n] == list(zip(ROWS.questions, ROWS.candidates))  # candidates weighted by KPW(Q, cand)
    assert weights.seen[n:] == [(q, r) for q, g in zip(ROWS.questions, ROWS.references) for r in g]


@pytest.mark.model
def test_weighted_by_hand():
    q, cand, ref = "q?", "alpha beta gamma", "alpha delta gamma"
    rows = Rows(questions=[q], candidates=[cand], references=[[ref]])
    ctx = FakeWeights(by_pair={(q, cand): [0.1, 0.5, 0.9], (q, ref): [0.1, 0.7, 0.9]}).context()
    # LCS = alpha gamma; P = candidate weight in it / candidate total, R = reference weight in it / reference total
    p, r = (0.1 + 0.9) / 1.5, (0.1 + 0.9) / 1.7
    rouge = get_metric("ROUGE-L-KPQA").score(rows, ctx)["ROUGE-L-KPQA"][0]
    assert rouge == pytest.approx((1 + 1.2**2) * p * r / (r + 1.2**2 * p))
    # BLEU-1-KPQA: weighted unigram precision (eq. 1), equal lengths -> no brevity penalty
    assert get_metric("BLEU-1-KPQA").score(rows, ctx)["BLEU-1-KPQA"][0] == pytest.approx(p, abs=1e-6)


@pytest.mark.model
def test_keyword_weights_move_the_score():
    rows = Rows(questions=["capital?"], candidates=["lyon is the capital of france"],
                references=[["paris is the capital of france"]])
    flat = get_metric("ROUGE-L-KPQA").score(rows, FakeWeights().context())["ROUGE-L-KPQA"][0]
    keyed = FakeWeights({"lyon": 5.0, "paris": 5.0}).context()
    assert get_metric("ROUGE-L-KPQA").score(rows, keyed)["ROUGE-L-KPQA"][0] < flat
    assert get_metric("BLEU-1-KPQA").score(rows, keyed)["BLEU-1-KPQA"][0] < 5 / 6


@pytest.mark.model
@pytest.mark.parametrize("name", ["BLEU-1-KPQA", "ROUGE-L-KPQA"])
def test_columns_follow_the_weighter(name):
    metric = get_metric(name)
    assert metric.columns() == [name] and "weights" in metric.requires
    kp = get_metric(name.replace("-KPQA", "-KP"))
    assert kp.columns() == [name.replace("-KPQA", "-KP")] and not kp.question
    assert get_metric(name, no_question=True).columns() == kp.columns()
    assert get_metric(name).columns() == [name]  # a fresh metric is unaffected


@pytest.mark.model
def test_needs_weights():
    with pytest.raises(UsageError, match="weighter"):
        get_metric("ROUGE-L-KPQA").score(ROWS, Context())


@pytest.mark.model
def test_with_the_shipped_checkpoint(shipped_weighter):
    ctx = Context(weighter=shipped_weighter, device="cpu")
    same = Rows(ROWS.questions, [g[0] for g in ROWS.references], ROWS.references)
    for name in ("BLEU-1-KPQA", "ROUGE-L-KPQA", "BLEU-1-KPQA:tok=words", "ROUGE-L-KPQA:tok=words", "BERTScore-KPQA"):
        got = get_metric(name).score(ROWS, ctx)[name]
        assert np.all((got >= 0) & (got <= 1 + 1e-6)), name
        assert get_metric(name).score(same, ctx)[name] == pytest.approx(np.ones(len(ROWS)), abs=1e-4), name


@pytest.mark.model
def test_pieces_are_the_weighters_and_words_map_through_them():
    """Default tokens: the weighter's word pieces (lower-cased, punctuation dropped) with their own weights; with
    ``tok=words`` a PTB word takes the largest weight of its pieces. A hand-made weighter gives both by hand."""

    class Pieces:
        def piece_tokens(self, pairs):
            return [(["play", "ing", "chess"], np.array([0.2, 0.9, 0.5])) if t == "playing chess!" else
                    (["chess", "play", "ing"], np.array([0.5, 0.1, 0.9])) for _, t in pairs]

        def word_weights(self, pairs, tokenizer):
            return [np.array([0.9, 0.5]) if t == "playing chess!" else np.array([0.5, 0.9]) for _, t in pairs]

    w = Pieces()
    ctx = Context(word_weights=w.word_weights, piece_tokens=w.piece_tokens)
    rows = Rows(["q"], ["playing chess!"], [["chess playing"]])
    # pieces: the LCS is "play ing" (candidate weights 0.2 + 0.9 of 1.6; reference 0.1 + 0.9 of 1.5)
    p, r = 1.1 / 1.6, 1.0 / 1.5
    got = get_metric("ROUGE-L-KPQA").score(rows, ctx)["ROUGE-L-KPQA"][0]
    assert got == pytest.approx((1 + 1.2**2) * p * r / (r + 1.2**2 * p))
    # words: "playing chess" vs "chess playing", LCS of one word: the heavier is "playing" (0.9 of 1.4 both sides)
    p = r = 0.9 / 1.4
    words = get_metric("ROUGE-L-KPQA:tok=words").score(rows, ctx)["ROUGE-L-KPQA:tok=words"][0]
    assert words == pytest.approx(p)
    with pytest.raises(UsageError, match="the tok option takes pieces or words"):
        get_metric("ROUGE-L-KPQA:tok=chars")
    with pytest.raises(UsageError, match="bad option"):
        get_metric("BLEU-1-KPQA:beta=2")


@pytest.mark.model
def test_weighter_pieces_are_lowercased_text_without_punctuation(shipped_weighter):
    weighter = shipped_weighter
    pair = ("Who wrote it?", "Shakespeare's HAMLET, 1603.")
    [(pieces, weights)] = weighter.piece_tokens([pair])
    assert pieces == ["shakespeare", "s", "hamlet", "1603"]
    [(offsets, probs)] = weighter.piece_weights([pair])
    kept = [i for i, (a, b) in enumerate(offsets.tolist()) if pair[1][a:b].lower() in pieces]
    np.testing.assert_array_equal(weights, probs[kept])


def test_only_keyphrase_weighted_metrics_have_a_kp_form():
    from kpqa.metrics.base import _REGISTRY

    assert get_metric("BLEU-4", no_question=True).question  # no weights, nothing to drop
    _REGISTRY["Toy-KPQA"] = _REGISTRY["BLEU-1"]
    try:
        with pytest.raises(UsageError, match="no -KP form"):
            get_metric("Toy-KP")
    finally:
        del _REGISTRY["Toy-KPQA"]


def test_identical_pair_with_float32_weights_scores_at_most_one():
    """The weighter returns float32; summed in float32, BLEU-1-KPQA of an identical pair came out 1 + 2.4e-7."""
    from kpqa.metrics.bleu import weighted_bleu1
    from kpqa.metrics.rouge import weighted_rouge_l

    rng = np.random.default_rng(0)
    for _ in range(500):
        n = int(rng.integers(3, 30))
        toks = [f"t{j}" for j in rng.integers(0, 8, n)]
        w = rng.random(n).astype(np.float32)
        for score in (weighted_bleu1(toks, w, [toks], [w]), weighted_rouge_l(toks, w, [toks], [w])[2]):
            assert 1 - 1e-6 <= score <= 1.0


@pytest.mark.model
def test_function_word_weight_discounts_padding_and_is_signed():
    """Extra function words around the right answer cost less as their weight falls; at 0 they cost nothing."""
    from kpqa.scoring import Scorer

    rows = [{"question": "who wrote hamlet?", "answer": "it was by shakespeare of the", "references": ["shakespeare"]}]
    got = {}
    for fw in (1.0, 0.2, 0.0):
        result = Scorer(["BLEU-1-KPQA", "ROUGE-L-KPQA"], device="cpu", function_word_weight=fw).score(rows)
        got[fw] = result.frame.iloc[0]
        assert result.signatures["BLEU-1-KPQA"].get("fw") == (None if fw == 1.0 else f"{fw:g}")
        assert fw == 1.0 or f"|fw:{fw:g}|" in str(result.signatures["ROUGE-L-KPQA"])
    for name in ("BLEU-1-KPQA", "ROUGE-L-KPQA"):
        assert got[1.0][name] <= got[0.2][name] <= got[0.0][name]
    assert got[0.0]["BLEU-1-KPQA"] == pytest.approx(1.0)
    with pytest.raises(UsageError, match="function_word_weight=2.0: must be between 0 and 1"):
        Scorer(["BLEU-1"], function_word_weight=2.0)


def _w(*values: float) -> np.ndarray:
    return np.array(values, dtype=float)


@pytest.mark.parametrize(("cand", "ref", "weights", "expected"), [
    ("there are seven steps", "four steps", _w(1.0, 0.2), 0.2 / 1.2),  # Figure 1: the key number missed
    ("there are 4 steps", "four steps", _w(1.0, 0.2), 1.0),  # number words read as digits
    ("four stages", "four steps", _w(1.0, 0.2), 1.0 / 1.2),  # a lighter token missed
    ("water boils at 100 degrees ce ls ius", "100 °c", _w(0.9, 0.9), 1.0),  # a unit by its name, pieces joined
    ("water boils at 90 degrees celsius", "100 °c", _w(0.9, 0.9), 0.5),
    ("no", "yes they were", _w(1.0, 0.0, 0.0), 0.0),  # the other polar word
    ("yes", "yes they were", _w(1.0, 0.0, 0.0), 1.0),  # the same one, bare
    ("yes it is", "yes parachutes were carried", _w(1.0, 0.1, 0.0, 0.0), 1.0),  # nothing but function words after it
    ("yes parachutes were used", "yes parachutes were carried", _w(1.0, 0.1, 0.0, 0.02), 0.1 / 0.12),
    # the right polar word before a wrong statement: the statement after the polar word is what counts
    ("yes kennedy were carried", "yes parachutes were carried", _w(1.0, 0.1, 0.0, 0.02), 0.02 / 0.12),
    ("parachutes slowed it", "yes parachutes were carried", _w(1.0, 0.1, 0.0, 0.02), 0.1 / 0.12),
    ("anything", "", _w(), 0.0),
])
def test_key_fact_worked_examples(cand, ref, weights, expected):
    from kpqa.metrics.kpqa import key_fact

    assert key_fact(cand.split(), [ref.split()], [weights]) == pytest.approx(expected)


def test_key_fact_takes_the_best_reference_and_rises_when_a_missed_token_is_added():
    from hypothesis import given, settings, strategies as st

    from kpqa.metrics.kpqa import key_fact

    assert key_fact(["paris"], [["berlin"], ["paris", "france"]], [_w(1.0), _w(0.9, 0.3)]) == pytest.approx(0.75)
    words = st.sampled_from(["paris", "four", "yes", "no", "steps", "the", "seven", "4"])

    @settings(max_examples=200, deadline=None)
    @given(st.lists(words, max_size=6), st.lists(st.tuples(words, st.floats(0, 1)), min_size=1, max_size=6))
    def check(cand, ref):
        tokens, weights = [t for t, _ in ref], _w(*(w for _, w in ref))
        score = key_fact(cand, [tokens], [weights])
        assert 0.0 <= score <= 1.0
        if not cand or cand[0] not in ("yes", "no"):  # a polar opening decides on its own
            for token in tokens:
                assert key_fact(cand + [token], [tokens], [weights]) >= score - 1e-12

    check()


@pytest.mark.model
@pytest.mark.parametrize("name,question", [("BLEU-1-KPQA", "yes"), ("BLEU-1-KP", "no"), ("ROUGE-L-KP:tok=words", "no"),
                                           ("KeyFact-KPQA", "yes")])
def test_the_signature_says_question_as_the_metric_reads_it(name, question):
    metric, weighter = get_metric(name), WordWeighter()
    signature = metric.signature(Context(weighter=weighter))
    assert signature.get("question") == question and signature.get("kpw") == "stub"
    metric.score(ROWS, Context(weighter=weighter))
    assert {q for q, _ in weighter.asked} == ({""} if question == "no" else set(ROWS.questions))


def test_a_question_free_weighter_signs_no_question_whatever_the_metric():
    weighter = WordWeighter()
    weighter.use_question = False
    assert get_metric("BLEU-1-KPQA").signature(Context(weighter=weighter)).get("question") == "no"


@pytest.mark.model
@pytest.mark.slow
@pytest.mark.shared_data
def test_kpqa_correlations_on_marco_all_are_the_results_file_s():
    """ROUGE-L-KPQA's and BERTScore-KPQA's Pearson r with people on marco_all.csv, recomputed with the shipped
    weighter, equal docs/results.json's (what the README's table quotes) to 1e-4."""
    import json

    from conftest import shared
    from kpqa.scoring import Scorer

    frame = Scorer(["ROUGE-L-KPQA", "BERTScore-KPQA"], device="cpu").score(str(shared("human_eval/marco_all.csv"))).frame
    results = json.loads((Path(__file__).resolve().parents[1] / "docs" / "results.json").read_text())
    quoted = next(d for d in results["datasets"] if d["name"] == "marco_all")["correlations"]
    human = frame["scores"].astype(float).to_numpy()
    for metric in ("ROUGE-L-KPQA", "BERTScore-KPQA"):
        r = np.corrcoef(frame[metric].to_numpy(dtype=float), human)[0, 1]
        assert r == pytest.approx(quoted[metric]["pearson"]["value"], abs=1e-4), metric
