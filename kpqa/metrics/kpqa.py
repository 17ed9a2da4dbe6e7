"""BLEU-1-KPQA and ROUGE-L-KPQA (Lee et al. 2021, eq. 1-5): BLEU-1 and ROUGE-L with keyphrase weights (KPW).

Each candidate token is weighted by KPW(Q, candidate) and each reference token by KPW(Q, reference). By default the
tokens are the weighter's own word pieces (``Context.piece_tokens``: lower-cased, punctuation left out), each with
its K-probability (the unit the weighter tags, so no mapping is needed); ``:tok=words`` uses the lexical tokenizer's
words instead, each weighted by the largest KPW of its pieces (``Context.word_weights``). On the shared human sets
pieces correlate better (docs/results.md). The weighted sums are those of :func:`kpqa.metrics.bleu.weighted_bleu1`
and :func:`kpqa.metrics.rouge.weighted_rouge_l`; with uniform weights and ``tok=words`` the scores are BLEU-1 and
ROUGE-L. The column ends in ``-KPQA``, or ``-KP`` when the metric is built with ``question=False`` for the
question-free weighter (the paper's Table 4 ablation; ``get_metric("BLEU-1-KP")``).
"""
from __future__ import annotations

from abc import abstractmethod
from typing import ClassVar, Sequence

import numpy as np

from kpqa.errors import UsageError
from kpqa.context import Context
from kpqa.metrics.base import MeanMetric, register
from kpqa.metrics.bleu import weighted_bleu1
from kpqa.metrics.lexical import tokenize_rows
from kpqa.metrics.rouge import BETA, SUBSEQUENCES, weighted_rouge_l, weighted_rouge_l_rows
from kpqa.metrics.spec import Option, kp_suffix
from kpqa.numbers import SMALL
from kpqa.rows import Rows, regroup, weighted_pairs
from kpqa.stopwords import NLTK_ENGLISH_STOPWORDS
from kpqa.text import Tokenizer, get_tokenizer


#: the tokens a KPQA metric weighs (``:tok=``): the weighter's word pieces (the default) or the tokenizer's words
TOKENS = ("pieces", "words")
#: ROUGE-L-KPQA's default subsequence (``:lcs=``)
HEAVIEST = SUBSEQUENCES[1]


def row_weights(rows: Rows, ctx: Context, tokenizer: Tokenizer,
                question: bool = True) -> tuple[list[np.ndarray], list[list[np.ndarray]]]:
    """KPW per token of each candidate (from (question, candidate)) and of each reference (from (question, ref)),
    computed in one batch (questions left empty with ``question=False``)."""
    if ctx.word_weights is None:
        raise UsageError("KPQA metrics need a keyphrase weighter (Context.word_weights is not set)")
    weights = ctx.word_weights(weighted_pairs(rows, question), tokenizer)
    return weights[: len(rows)], regroup(weights[len(rows) :], rows.references)


class _WeightedLexical(MeanMetric):
    """A lexical metric on KPW-weighted tokens: the weighter's word pieces (``tok="pieces"``, the default) or the
    words of the context's lexical tokenizer with word weights (``tok="words"``)."""

    requires = frozenset({"weights"})
    uses_model = True
    spec_options: ClassVar[tuple[Option, ...]] = (Option("tok", default=TOKENS[0], choices=TOKENS),)
    kp_form = True
    base: ClassVar[str]

    def __init__(self, tok: str = TOKENS[0], question: bool = True, spec: str = "") -> None:
        if tok not in TOKENS:
            raise UsageError(f"tok must be {' or '.join(TOKENS)}, not {tok!r}")
        self.tok = tok
        self.question = question
        self.suffix = kp_suffix(question)
        self.spec = spec

    def columns(self) -> list[str]:
        return [f"{self.base}-{self.suffix}{self.spec}"]

    def signature_name(self) -> str:
        """The column's own name (``-KP`` for the question-free weighter), without the options."""
        return f"{self.base}-{self.suffix}"

    def token_unit(self, ctx: Context) -> str | None:
        """The lexical tokenizer's words, or the weighter's pieces."""
        return ctx.tokenizer if self.tok == "words" else "kpw-pieces"

    @abstractmethod
    def _score_one(
        self, cand: list[str], cand_w: np.ndarray, refs: list[list[str]], refs_w: Sequence[np.ndarray]
    ) -> float:
        """The score of one row."""

    def weighted_tokens(self, rows: Rows, ctx: Context) -> tuple[list, list, list, list]:
        """Per row: the answer's tokens and their keyphrase weights, each reference's tokens and weights (words under
        ``tok="words"``, else the weighter's word pieces)."""
        if self.tok == "words":
            cand_w, refs_w = row_weights(rows, ctx, get_tokenizer(ctx.tokenizer), self.question)
            cands, refs = tokenize_rows(rows, ctx)
            return cands, cand_w, refs, refs_w
        if ctx.piece_tokens is None:
            raise UsageError("KPQA metrics need a keyphrase weighter (Context.piece_tokens is not set)")
        pieces = ctx.piece_tokens
        # BLEU-1-KPQA and ROUGE-L-KPQA of a batch read the same pieces: made once (the batch's memo)
        found = ctx.shared(("piece-tokens", self.question, pieces), lambda: pieces(weighted_pairs(rows, self.question)))
        n = len(rows)
        tokens, weights = [t for t, _ in found], [w for _, w in found]
        return tokens[:n], weights[:n], regroup(tokens[n:], rows.references), regroup(weights[n:], rows.references)

    def row_scores(self, rows: Rows, ctx: Context) -> np.ndarray:
        values = [self._score_one(*args) for args in zip(*self.weighted_tokens(rows, ctx))]
        return np.asarray(values, dtype=float)


@register("BLEU-1-KPQA")
class Bleu1KPQA(_WeightedLexical):
    """KPW-weighted unigram precision (eq. 1), per row against all its references."""

    name = "BLEU-1-KPQA"
    base = "BLEU-1"

    def _score_one(self, cand, cand_w, refs, refs_w) -> float:
        return float(weighted_bleu1(cand, cand_w, refs, refs_w))


@register("ROUGE-L-KPQA")
class RougeLKPQA(_WeightedLexical):
    """KPW-weighted ROUGE-L F (eq. 2-5, ROUGE-L's beta), the best over the references.

    ``lcs="heaviest"`` (default) counts the common subsequence whose matches carry the most keyphrase weight
    (:func:`kpqa.metrics.rouge.heaviest_common_subsequence`); ``lcs="longest"`` is the paper's eq. 5, a longest
    common subsequence (the heaviest of those). On the dev suite heaviest raised MS-MARCO r from 0.695 to 0.727
    and left NarrativeQA (0.791) and EVOUNA-TQ (AUROC 0.957) as they were (docs/weighter-experiments.md)."""

    name = "ROUGE-L-KPQA"
    base = "ROUGE-L"
    spec_options = (*_WeightedLexical.spec_options, Option("lcs", default=HEAVIEST, choices=SUBSEQUENCES))

    def __init__(self, tok: str = TOKENS[0], beta: float = BETA, lcs: str = HEAVIEST, question: bool = True,
                 spec: str = "") -> None:
        super().__init__(tok, question, spec)
        if lcs not in SUBSEQUENCES:
            raise UsageError(f"lcs must be {' or '.join(SUBSEQUENCES)}, not {lcs!r}")
        self.beta, self.lcs = beta, lcs

    def options(self) -> dict[str, object]:
        # lcs is named unless it is "longest", what ROUGE-L-KPQA computed before the option existed: signatures (and
        # the calibrations fitted on them) from before then read as lcs=longest, as they were
        return {"beta": self.beta, **({"lcs": self.lcs} if self.lcs != "longest" else {})}

    def _score_one(self, cand, cand_w, refs, refs_w) -> float:
        return float(weighted_rouge_l(cand, cand_w, refs, refs_w, beta=self.beta, lcs=self.lcs)[2])

    def row_scores(self, rows: Rows, ctx: Context) -> np.ndarray:
        """Each row's F; the heaviest subsequences of a batch's rows computed together (the same numbers)."""
        if self.lcs != HEAVIEST:
            return super().row_scores(rows, ctx)
        found = weighted_rouge_l_rows(list(zip(*self.weighted_tokens(rows, ctx))), beta=self.beta)
        return np.asarray([f for _, _, f in found], dtype=float)


#: number words read as the digits they stand for when tokens are matched (KeyFact-KPQA)
NUMBER_WORDS = {w: str(i) for i, w in enumerate(SMALL)}
#: unit symbols and the words that say the same (a reference's "100 °C" is held by "100 degrees Celsius")
UNITS = {"°c": ("celsius",), "℃": ("celsius",), "°f": ("fahrenheit",), "℉": ("fahrenheit",),
         "km": ("kilometres", "kilometers"), "kg": ("kilograms",), "lb": ("pounds",), "lbs": ("pounds",),
         "ft": ("feet",), "mi": ("miles",), "mph": ("miles",)}
POLAR = frozenset({"yes", "no"})
#: words that may follow a polar word without adding a statement ("Yes, that's right.")
ASSENT = frozenset({"right", "correct", "true", "indeed", "exactly", "sure", "yeah", "yep", "nope"})


def held(words: Sequence[str]) -> set[str]:
    """What a candidate's tokens (number words already read as digits) hold: the tokens, and runs of two or three
    adjacent tokens joined (a word the weighter cut into pieces, "ce" "ls" "ius", is then found whole)."""
    return set(words) | {"".join(words[i:i + n]) for n in (2, 3) for i in range(len(words) - n + 1)}


def _holds(token: str, present: set[str]) -> bool:
    """Whether ``present`` holds ``token`` (a number word as its digits, a unit symbol also by its name)."""
    token = NUMBER_WORDS.get(token, token)
    return token in present or any(u in present for u in UNITS.get(token, ()))


def share_held(ref: Sequence[str], weights: np.ndarray, present: set[str]) -> float:
    """The share of ``ref``'s keyphrase weight on tokens ``present`` holds (a unit symbol also by its name); 0
    without weight."""
    total = float(weights.sum())
    if total <= 0:
        return 0.0
    found = [_holds(t, present) for t in ref]
    return float(np.dot(weights, found)) / total


def key_fact(cand: list[str], refs: list[list[str]], refs_w: Sequence[np.ndarray]) -> float:
    """KeyFact of one row: the share of the reference's keyphrase weight on tokens the candidate holds
    (:func:`held`), the best over the references.

    A reference that starts with "yes" or "no" is a polar answer: a candidate opening with the other polar word
    scores 0, one opening with the same word and saying nothing more ("Yes.", "No, it is not.") scores 1. Otherwise
    the statement after the reference's polar word is checked on its own: the polar word takes nearly all of a polar
    answer's weight, so "no, <wrong fact>" would otherwise pass."""
    words = [NUMBER_WORDS.get(t, t) for t in cand]
    polar = words[0] if words and words[0] in POLAR else None
    bare = polar is not None and all(t in NLTK_ENGLISH_STOPWORDS or t in ASSENT for t in words[1:])
    present = held(words)
    best = 0.0
    for ref, w in zip(refs, refs_w):
        ref = [NUMBER_WORDS.get(t, t) for t in ref]
        weights = np.asarray(w, dtype=float)
        if ref and ref[0] in POLAR:
            if polar is not None and polar != ref[0]:
                continue
            if bare:
                return 1.0
            ref, weights = ref[1:], weights[1:]
        best = max(best, share_held(ref, weights, present))
    return best


@register("KeyFact-KPQA")
class KeyFactKPQA(_WeightedLexical):
    """Whether the candidate holds the reference's key fact: the share of the reference's keyphrase weight on
    tokens the candidate holds, polar answers checked word first (:func:`key_fact`)."""

    name = "KeyFact-KPQA"
    base = "KeyFact"

    def _score_one(self, cand, cand_w, refs, refs_w) -> float:
        return key_fact(cand, refs, refs_w)


def heaviest_missing(cand: list[str], refs: list[list[str]], refs_w: Sequence[np.ndarray]
                     ) -> tuple[float, int, int]:
    """(weight, reference, token) of the heaviest reference token the candidate does not hold (:func:`held`; number
    words as digits, a unit symbol also by its name), of the reference whose heaviest missing token is lightest;
    (0.0, -1, -1) when a reference's every token is held."""
    return _heaviest(held([NUMBER_WORDS.get(t, t) for t in cand]), refs, refs_w)


def _heaviest(present: set[str], refs: list[list[str]], refs_w: Sequence[np.ndarray]) -> tuple[float, int, int]:
    best = (0.0, -1, -1)
    for r, (ref, w) in enumerate(zip(refs, refs_w)):
        missing = [(float(x), i) for i, (t, x) in enumerate(zip(ref, np.asarray(w, dtype=float)))
                   if not _holds(t, present)]
        if not missing:
            return 0.0, -1, -1
        weight, i = max(missing)
        if best[1] < 0 or weight < best[0]:
            best = (weight, r, i)
    return best


def missing_phrase(cand: list[str], refs: list[list[str]], refs_w: Sequence[np.ndarray],
                   share: float = 0.5) -> tuple[float, str]:
    """(weight, phrase): the heaviest missing reference token (:func:`heaviest_missing`) with the missing tokens
    beside it that carry at least ``share`` of its weight, joined by spaces; (0.0, "") when nothing is missing."""
    present = held([NUMBER_WORDS.get(t, t) for t in cand])
    weight, r, i = _heaviest(present, refs, refs_w)
    if i < 0:
        return 0.0, ""
    ref, w = refs[r], np.asarray(refs_w[r], dtype=float)

    def part(j: int) -> bool:
        return 0 <= j < len(ref) and not _holds(ref[j], present) and w[j] >= share * weight

    lo, hi = i, i
    while part(lo - 1):
        lo -= 1
    while part(hi + 1):
        hi += 1
    return weight, " ".join(ref[lo:hi + 1])


def key_miss(cand: list[str], refs: list[list[str]], refs_w: Sequence[np.ndarray]) -> float:
    """KeyMiss of one row: the largest keyphrase weight of a reference token the candidate does not hold, the lowest
    over the references (:func:`heaviest_missing`); 0 when a reference's every token is held. A near miss ("1968"
    for "1969", "Vitamin D" for "Vitamin C") holds every token of the reference but the one that carries its
    answer: a high KeyMiss where KeyFact's share stays high."""
    return heaviest_missing(cand, refs, refs_w)[0]


@register("KeyMiss-KPQA")
class KeyMissKPQA(_WeightedLexical):
    """The largest keyphrase weight of a reference token the candidate lacks, the lowest over the references
    (:func:`key_miss`): lower is better. A judge input (the near-miss signal only keyphrase weights give)."""

    name = "KeyMiss-KPQA"
    base = "KeyMiss"
    higher_is_better = False

    def _score_one(self, cand, cand_w, refs, refs_w) -> float:
        return key_miss(cand, refs, refs_w)
