"""Soricut & Brill (2004): the AEv(alpha, N) family, between a BLEU-like precision and a ROUGE-like recall.

After stop-word removal and stemming of every text (``S(X, n)``: the n-grams of the remaining stems)::

    P(n)  = sum_C sum_{g in S(C,n)} Count_clip(g) / sum_C sum_{g in S(C,n)} Count(g)     (clip: max over references)
    R(n)  = sum_R sum_{g in S(R,n)} Count_clip(g) / sum_R sum_{g in S(R,n)} Count(g)     (clip: its candidate)
    PS(N) = BP * exp(sum_{n<=N} log P(n) / N),  BP = 1 if B|c| >= |r| else exp(1 - |r| / (B|c|))
    RS(N) = WP * exp(sum_{n<=N} log R(n) / N),  WP = 1 if W|c| <= |r| else exp(1 - W|c| / |r|)
    AEv(alpha, N) = RS PS / (alpha RS + (1 - alpha) PS)          (alpha = 0: RS, alpha = 1: PS)

with ``B = 1``, ``W = 2``, ``w_n = 1/N``, the paper's restrictions. Lengths are counted after stop-word removal.
The paper has one reference per candidate; with several, PS follows BLEU (clip against the most generous
reference, ``|r|`` = the reference length closest to the candidate's), so AEv(1, 4) without stop words and stemming
is corpus BLEU-4, while RS sums over every (reference, candidate) pair (``|r|`` = all reference lengths, ``|c|`` =
the candidate's length once per reference). A ratio with nothing to count, or a zero n-gram precision / recall,
gives 0 (the paper calls the family well-defined only where every P(n), R(n) > 0).

WP is implemented as printed. The paper also says ROUGE is the member with ``W = inf``; under the printed formula
``W = inf`` zeroes every score and it is ``W = 0`` that switches the wordiness penalty off.

Per-row scores apply the same formulas to a one-row corpus. All per-N counts are computed once
(:func:`aev_counts`), so a whole alpha x N grid (:func:`aev_grid`) costs a few array operations.

Stop words: the paper's own 626-word list is not public; the default is NLTK's English list
(:data:`kpqa.stopwords.NLTK_ENGLISH_STOPWORDS`, 179 words). Stemming: nltk's Porter stemmer in its original-algorithm
mode (Porter 1980, as the paper cites).
"""
from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

import numpy as np

from kpqa.errors import UsageError
from kpqa.context import Context
from kpqa.rows import Rows
from kpqa.metrics.base import Metric, Totals, register_pattern
from kpqa.metrics.ngrams import clipped_matches, closest_ref_length, max_ref_counts, ngram_counts
from kpqa.metrics.spec import Option, base_name, read_options
from kpqa.stopwords import NLTK_ENGLISH_STOPWORDS

STOPWORD_LISTS: dict[str, frozenset[str]] = {"nltk": NLTK_ENGLISH_STOPWORDS, "none": frozenset()}
STEMMERS = ("porter", "none")
#: the paper's restrictions: brevity factor B of PS's penalty and wordiness factor W of RS's
BREVITY, WORDINESS = 1.0, 2.0


@lru_cache(maxsize=None)
def _porter():
    from nltk.stem.porter import PorterStemmer

    return PorterStemmer(mode=PorterStemmer.ORIGINAL_ALGORITHM)


@lru_cache(maxsize=200_000)
def porter_stem(word: str) -> str:
    """Porter (1980) stem of ``word`` (lower-cased)."""
    return _porter().stem(word)


def preprocess(
    tokens: Sequence[str], stopwords: frozenset[str] = NLTK_ENGLISH_STOPWORDS, stem: bool = True
) -> list[str]:
    """Drop stop words (compared lower-cased), then stem what remains."""
    kept = [t for t in tokens if t.lower() not in stopwords] if stopwords else list(tokens)
    return [porter_stem(t) for t in kept] if stem else kept


@dataclass(frozen=True)
class AEvCounts:
    """Per-row n-gram statistics; ``[:, n - 1]`` holds n-grams. Sum with :meth:`corpus` for corpus scores."""

    cand_match: np.ndarray  #: (rows, max_n) candidate n-grams clipped by the most generous reference
    cand_total: np.ndarray  #: (rows, max_n) candidate n-grams
    ref_match: np.ndarray  #: (rows, max_n) reference n-grams clipped by the candidate, summed over references
    ref_total: np.ndarray  #: (rows, max_n) reference n-grams, summed over references
    cand_len: np.ndarray  #: (rows,) BP's |c|
    closest_ref_len: np.ndarray  #: (rows,) BP's |r|: the reference length closest to the candidate's
    ref_len: np.ndarray  #: (rows,) WP's |r|: all reference lengths
    paired_cand_len: np.ndarray  #: (rows,) WP's |c|: the candidate length once per reference

    @property
    def max_n(self) -> int:
        return self.cand_total.shape[1]

    @staticmethod
    def statistics(max_n: int) -> tuple[str, ...]:
        """The names of the columns of :meth:`to_array` (the metric's statistics), in order: ``cand_match_1`` ..
        ``ref_total_<max_n>``, then the lengths."""
        return (*(f"{f}_{n}" for f in BY_ORDER for n in range(1, max_n + 1)), *LENGTHS)

    def corpus(self) -> "AEvCounts":
        """One row holding the sums over all rows."""
        return AEvCounts(*(getattr(self, f).sum(axis=0, keepdims=True) for f in self.__dataclass_fields__))

    def to_array(self) -> np.ndarray:
        """The counts as one int64 array ``[rows, 4 * max_n + 4]`` (the metric's statistics, named by
        :meth:`statistics`)."""
        columns = {f"{f}_{n}": getattr(self, f)[:, n - 1] for f in BY_ORDER for n in range(1, self.max_n + 1)}
        columns.update({f: getattr(self, f) for f in LENGTHS})
        return np.stack([columns[k] for k in self.statistics(self.max_n)], axis=1).astype(np.int64)

    @classmethod
    def from_array(cls, stats: np.ndarray, max_n: int) -> "AEvCounts":
        """The inverse of :meth:`to_array`."""
        names = cls.statistics(max_n)
        column = dict(zip(names, np.asarray(stats, dtype=np.int64).reshape(-1, len(names)).T))
        return cls(**{f: np.stack([column[f"{f}_{n}"] for n in range(1, max_n + 1)], axis=1) for f in BY_ORDER},
                   **{f: column[f] for f in LENGTHS})


#: the :class:`AEvCounts` held per n-gram order, and those held once per row
BY_ORDER = ("cand_match", "cand_total", "ref_match", "ref_total")
LENGTHS = ("cand_len", "closest_ref_len", "ref_len", "paired_cand_len")


def aev_counts(
    candidates: Sequence[Sequence[str]], references: Sequence[Sequence[Sequence[str]]], max_n: int = 4
) -> AEvCounts:
    """Count everything AEv needs, for every N up to ``max_n``, on already preprocessed tokens."""
    rows = len(candidates)
    cm, ct, rm, rt = (np.zeros((rows, max_n), dtype=np.int64) for _ in range(4))
    lens = np.zeros((4, rows), dtype=np.int64)
    for i, (cand, refs) in enumerate(zip(candidates, references)):
        if not refs:
            raise ValueError(f"row {i}: at least one reference is needed")
        for n in range(1, max_n + 1):
            cand_counts = ngram_counts(cand, n)
            ct[i, n - 1] = sum(cand_counts.values())
            cm[i, n - 1] = clipped_matches(cand_counts, max_ref_counts(refs, n))
            for ref in refs:
                ref_counts = ngram_counts(ref, n)
                rt[i, n - 1] += sum(ref_counts.values())
                rm[i, n - 1] += clipped_matches(ref_counts, cand_counts)
        c = len(cand)
        lens[:, i] = (c, closest_ref_length(c, [len(r) for r in refs]), sum(map(len, refs)), c * len(refs))
    return AEvCounts(cm, ct, rm, rt, *lens)


def _geometric(match: np.ndarray, total: np.ndarray, n: int) -> np.ndarray:
    """``exp(mean_{k<=n} log(match_k / total_k))`` per row; 0 where any ratio is 0 or undefined."""
    m, t = match[:, :n].astype(float), total[:, :n].astype(float)
    ok = np.all((t > 0) & (m > 0), axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.log(np.where(t > 0, m, 1.0) / np.where(t > 0, t, 1.0))
    return np.where(ok, np.exp(np.where(ok[:, None], logs, 0.0).mean(axis=1)), 0.0)


def precision_score(counts: AEvCounts, n: int, brevity: float = BREVITY) -> np.ndarray:
    """PS(N) per row of ``counts``."""
    if not 1 <= n <= counts.max_n:
        raise ValueError(f"N must be in 1..{counts.max_n}")
    c, r = counts.cand_len.astype(float), counts.closest_ref_len.astype(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        bp = np.where(brevity * c >= r, 1.0, np.exp(1.0 - r / (brevity * c)))
    return np.where(c > 0, bp, 0.0) * _geometric(counts.cand_match, counts.cand_total, n)


def recall_score(counts: AEvCounts, n: int, wordiness: float = WORDINESS) -> np.ndarray:
    """RS(N) per row of ``counts``."""
    if not 1 <= n <= counts.max_n:
        raise ValueError(f"N must be in 1..{counts.max_n}")
    c, r = counts.paired_cand_len.astype(float), counts.ref_len.astype(float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        wp = np.where(wordiness * c <= r, 1.0, np.exp(1.0 - wordiness * c / r))
    return np.where(r > 0, wp, 0.0) * _geometric(counts.ref_match, counts.ref_total, n)


def combine(rs: np.ndarray, ps: np.ndarray, alpha: float) -> np.ndarray:
    """``RS PS / (alpha RS + (1 - alpha) PS)``: exactly RS at alpha 0 and PS at alpha 1; 0 where undefined."""
    if alpha == 0:
        return rs
    if alpha == 1:
        return ps
    den = alpha * rs + (1 - alpha) * ps
    return np.where(den > 0, rs * ps / np.where(den > 0, den, 1.0), 0.0)


def aev_grid(
    counts: AEvCounts,
    alphas: Sequence[float],
    ns: Sequence[int],
    brevity: float = BREVITY,
    wordiness: float = WORDINESS,
) -> np.ndarray:
    """AEv for every (N, alpha): shape ``(len(ns), len(alphas), rows of counts)``; use ``counts.corpus()`` for
    corpus scores (one row)."""
    out = np.empty((len(ns), len(alphas), len(counts.cand_len)))
    for i, n in enumerate(ns):
        ps, rs = precision_score(counts, n, brevity), recall_score(counts, n, wordiness)
        for j, alpha in enumerate(alphas):
            out[i, j] = combine(rs, ps, alpha)
    return out


def aev(counts: AEvCounts, alpha: float, n: int, brevity: float = BREVITY, wordiness: float = WORDINESS) -> np.ndarray:
    """AEv(alpha, N) per row of ``counts`` (``counts.corpus()``: the corpus score as a one-element array)."""
    return aev_grid(counts, [alpha], [n], brevity, wordiness)[0, 0]


_NAME = re.compile(r"^AEv-(?P<alpha>[0-9]+(?:\.[0-9]+)?)-(?P<n>[0-9]+)$")


class AEv(Metric):
    """AEv(alpha, N) as a metric: per-row scores on one-row corpora, the corpus score over sums.

    Named ``AEv-<alpha>-<N>``, optionally followed by ``:B=<b>``, ``:W=<w>``, ``:stop=nltk|none``,
    ``:stem=porter|none`` (defaults B=1, W=2, stop=nltk, stem=porter), e.g. ``AEv-1-4:stop=none:stem=none``.
    """

    requires = frozenset()
    spec_options = (Option("B", float, BREVITY, arg="brevity"), Option("W", float, WORDINESS, arg="wordiness"),
                    Option("stop", default="nltk", choices=tuple(STOPWORD_LISTS), arg="stopwords"),
                    Option("stem", default=STEMMERS[0], choices=STEMMERS))

    def __init__(
        self,
        alpha: float,
        n: int,
        *,
        brevity: float = BREVITY,
        wordiness: float = WORDINESS,
        stopwords: str = "nltk",
        stem: str = STEMMERS[0],
        name: str | None = None,
    ):
        if not 0 <= alpha <= 1:
            raise UsageError(f"AEv alpha must be in [0, 1], got {alpha}")
        if n < 1:
            raise UsageError(f"AEv N must be at least 1, got {n}")
        if stopwords not in STOPWORD_LISTS:
            raise UsageError(f"AEv stop words must be one of {', '.join(STOPWORD_LISTS)}, got {stopwords!r}")
        if stem not in STEMMERS:
            raise UsageError(f"AEv stem must be porter or none, got {stem!r}")
        if brevity <= 0 or wordiness < 0 or math.isnan(brevity) or math.isnan(wordiness):
            raise UsageError(f"AEv needs B > 0 and W >= 0, got B={brevity}, W={wordiness}")
        self.alpha, self.n, self.brevity, self.wordiness = float(alpha), int(n), float(brevity), float(wordiness)
        self.stopwords, self.stem = stopwords, stem
        self.name = name or self._canonical_name()  # type: ignore[misc]  # each AEv names itself

    def _canonical_name(self) -> str:
        defaults = {o.key: o.default for o in self.spec_options}
        opts = "".join(f":{k}={v:g}" if isinstance(v, float) else f":{k}={v}" for k, v in self.options().items()
                       if v != defaults[k])
        return f"AEv-{self.alpha:g}-{self.n}{opts}"

    def options(self) -> dict[str, object]:
        return {"B": self.brevity, "W": self.wordiness, "stop": self.stopwords, "stem": self.stem}

    def counts(self, rows: Rows, ctx: Context) -> AEvCounts:
        """Preprocessed per-row counts of ``rows`` for orders 1..N (shared, within a batch, by the AEv metrics
        with the same N, stop words and stemming)."""

        def compute() -> AEvCounts:
            from kpqa.text import get_tokenizer

            tok = get_tokenizer(ctx.tokenizer).tokenize
            sw, stem = STOPWORD_LISTS[self.stopwords], self.stem == STEMMERS[0]
            cands = [preprocess(tok(c), sw, stem) for c in rows.candidates]
            refs = [[preprocess(tok(r), sw, stem) for r in rs] for rs in rows.references]
            return aev_counts(cands, refs, self.n)

        return ctx.shared(("aev-counts", ctx.tokenizer, self.stopwords, self.stem, self.n), compute)

    def statistics(self) -> tuple[str, ...]:
        return AEvCounts.statistics(self.n)

    def stats(self, rows: Rows, ctx: Context) -> np.ndarray:
        return self.counts(rows, ctx).to_array()

    def per_row(self, stats: np.ndarray) -> dict[str, np.ndarray]:
        counts = AEvCounts.from_array(stats, self.n)
        return {self.name: aev(counts, self.alpha, self.n, self.brevity, self.wordiness)}

    def corpus(self, totals: Totals) -> dict[str, float]:
        named = totals.named(self.statistics())
        sums = np.array([[int(named[k]) for k in self.statistics()]], dtype=np.int64)
        return {self.name: float(aev(AEvCounts.from_array(sums, self.n), self.alpha, self.n, self.brevity,
                                     self.wordiness)[0])}


def build(name: str) -> AEv:
    """The metric named ``AEv-<alpha>-<N>`` with the options :attr:`AEv.spec_options` declares."""
    m = _NAME.match(base_name(name))
    if m is None:
        raise UsageError(f"bad AEv name {name!r}; expected AEv-<alpha>-<N> then any of {_OPTIONS}")
    options, _ = read_options(name, AEv.spec_options)
    return AEv(float(m.group("alpha")), int(m.group("n")), name=name, **options)  # type: ignore[arg-type]


_OPTIONS = " ".join(f":{o.show()}" for o in AEv.spec_options)
register_pattern(lambda name: name.startswith("AEv-"), build, "AEv-<alpha>-<N>",
                 "Soricut & Brill's family between BLEU-like precision and ROUGE-like recall, e.g. AEv-0.3-2 "
                 f"(options {_OPTIONS})")
