"""Yang et al. (2018): BLEU-4 and ROUGE-L adapted to yes-no opinion and entity answers.

Both adaptations add a bonus to the numerator and the denominator of the plain ratios, so scores stay in [0, 1]:

* BLEU: each n-gram precision becomes ``(clip + a*clip_s + b*clip_e) / (count + a*clip_s + b*clip_e)``, where
  ``clip_s`` clips the candidate's n-grams against the references that share the candidate's opinion label
  (Yes / No / Depends) and ``clip_e`` against the gold entity strings (each entity acts as one "reference": the
  ceiling of an n-gram is its largest count in any single entity). Corpus BLEU sums these augmented numerators and
  denominators over the data set, and the candidate length ``c`` and the closest-reference length ``r`` of the
  brevity penalty ``exp(min(1 - r/c, 0))`` over the data set too (the bonus does not enter BP).
* ROUGE-L: for each reference ``r``, ``bonus = a*LCS(r, c)*[label(r) == label(c)] + b*sum_e len(e)*[e in c]``
  (``e in c``: the entity's tokens occur contiguously in the candidate; duplicate entities count once) is added to
  the numerator and denominator of ``P = LCS/|c|`` and ``R = LCS/|r|``; the row's P and R are the maxima over the
  references (taken separately, as in the DuReader / COCO evaluation) and ``F = (1+g^2) P R / (R + g^2 P)`` with
  ``g = 1.2``. The corpus score is the mean of the per-row scores.

``a`` (alpha, yes-no bonus) defaults to 2.0 and ``b`` (beta, entity bonus) to 1.0, the paper's settings; with both
at 0 the functions give plain BLEU / ROUGE-L. A candidate without a label gets no yes-no bonus, a row without
entities no entity bonus. Counts and ratios are exact (:class:`fractions.Fraction`); only the geometric mean, BP and
F are floats. The functional layer takes token sequences; the metrics tokenize with the context's tokenizer (gold
entities with the same one).

The metrics read gold labels (``labels=gold``, the default: ``answer_label`` / ``reference<k>_label`` columns or an
``entities`` column). ``BLEU-4-adapted:labels=auto`` / ``ROUGE-L-adapted:labels=auto`` take a row's gold labels
where it has them and find the others (:mod:`kpqa.metrics.labels`: the question's type, the answers' opinions for
yes-no questions, the references' keyphrase spans as entities for entity questions); they read the keyphrase
weighter, so their signatures carry its hash and say ``labels:auto`` with the span threshold (``entities:kpw>=0.5``,
or ``entities:gold-only`` under the Chinese tokenizer, where there are no automatic entities).
"""
from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from fractions import Fraction
from typing import ClassVar, Hashable, Mapping, Sequence

import numpy as np

from kpqa.errors import InputError, KpqaWarning, UsageError
from kpqa.context import Context
from kpqa.rows import Rows
from kpqa.lengths import LCS_MAX_CHARS
from kpqa.metrics.base import MeanMetric, Metric, Totals, register
from kpqa.metrics.bleu import MAX_N, BleuStats, bleu_stats
from kpqa.metrics.labels import SPAN_THRESHOLD, find_labels, language
from kpqa.metrics.ngrams import clipped_matches, f_measure, lcs_length, max_ref_counts, ngram_counts
from kpqa.metrics.rouge import BETA as ROUGE_BETA
from kpqa.metrics.spec import Option
from kpqa.signature import Signature

Tokens = Sequence[Hashable]

DEFAULT_ALPHA = 2.0
DEFAULT_BETA = 1.0
#: the F-measure's weight of recall: ROUGE-L's beta
DEFAULT_GAMMA = ROUGE_BETA
#: where the labels come from: the input's (the default) or found where the input lacks them
LABELS = ("gold", "auto")


def _norm(label: str | None) -> str | None:
    """Labels compare case-insensitively; a blank label is no label."""
    if label is None or not str(label).strip():
        return None
    return str(label).strip().casefold()


def same_opinion(
    references: Sequence[Tokens], candidate_label: str | None, reference_labels: Sequence[str | None] | None
) -> list[bool]:
    """For each reference, whether it carries the candidate's (non-empty) opinion label."""
    if reference_labels is not None and len(reference_labels) != len(references):
        raise ValueError(f"{len(reference_labels)} reference labels for {len(references)} references")
    label = _norm(candidate_label)
    if label is None or reference_labels is None:
        return [False] * len(references)
    return [_norm(r) == label for r in reference_labels]


#: the :class:`BleuCounts` held per n-gram order (adapted BLEU's statistics are these, then the two lengths)
BY_ORDER = ("matches", "same", "entity", "totals")


@dataclass(frozen=True)
class BleuCounts(BleuStats):
    """Exact counts of one candidate for adapted BLEU, index ``n - 1`` for order n: BLEU's (:class:`BleuStats`:
    ``matches`` is Count_clip against all references, ``totals`` the candidate's n-grams) and the bonuses' clips."""

    same: tuple[int, ...]  #: Count_clip-s against the references sharing the candidate's opinion label
    entity: tuple[int, ...]  #: Count_clip-e against the gold entity strings


def bleu_counts(
    candidate: Tokens,
    references: Sequence[Tokens],
    *,
    candidate_label: str | None = None,
    reference_labels: Sequence[str | None] | None = None,
    entities: Sequence[Tokens] = (),
    max_n: int = MAX_N,
) -> BleuCounts:
    """Clipped n-gram counts of ``candidate`` against all references, same-opinion references and entities."""
    if not references:
        raise ValueError("at least one reference is needed")
    agree = [r for r, s in zip(references, same_opinion(references, candidate_label, reference_labels)) if s]
    same, entity = [0] * max_n, [0] * max_n
    if agree or entities:  # the bonuses' clips (BLEU's own counts: bleu_stats)
        for n in range(1, max_n + 1):
            cand = ngram_counts(candidate, n)
            same[n - 1] = clipped_matches(cand, max_ref_counts(agree, n)) if agree else 0
            entity[n - 1] = clipped_matches(cand, max_ref_counts(entities, n)) if entities else 0
    plain = bleu_stats(candidate, references, max_n)
    return BleuCounts(plain.matches, plain.totals, plain.cand_len, plain.ref_len, tuple(same), tuple(entity))


def adapted_precisions(
    counts: BleuCounts | Sequence[BleuCounts], alpha: float = DEFAULT_ALPHA, beta: float = DEFAULT_BETA
) -> list[Fraction]:
    """Adapted n-gram precisions, numerators and denominators summed over ``counts`` (0 where nothing to count)."""
    items = [counts] if isinstance(counts, BleuCounts) else list(counts)
    a, b = Fraction(alpha), Fraction(beta)
    out: list[Fraction] = []
    for i in range(len(items[0].totals) if items else 0):
        bonus = sum((a * c.same[i] + b * c.entity[i] for c in items), Fraction(0))
        num = sum(c.matches[i] for c in items) + bonus
        den = sum(c.totals[i] for c in items) + bonus
        out.append(num / den if den else Fraction(0))
    return out


def bleu_from_counts(
    counts: BleuCounts | Sequence[BleuCounts], alpha: float = DEFAULT_ALPHA, beta: float = DEFAULT_BETA
) -> float:
    """Cumulative adapted BLEU of one candidate or, summed over a list, of a corpus (no smoothing)."""
    items = [counts] if isinstance(counts, BleuCounts) else list(counts)
    precisions = adapted_precisions(items, alpha, beta)
    if not precisions or min(precisions) == 0:
        return 0.0
    c = sum(x.cand_len for x in items)
    r = sum(x.ref_len for x in items)
    bp = math.exp(min(1.0 - r / c, 0.0))
    return bp * math.exp(sum(math.log(p) for p in precisions) / len(precisions))


def adapted_bleu(
    candidate: Tokens,
    references: Sequence[Tokens],
    *,
    candidate_label: str | None = None,
    reference_labels: Sequence[str | None] | None = None,
    entities: Sequence[Tokens] = (),
    alpha: float = DEFAULT_ALPHA,
    beta: float = DEFAULT_BETA,
    max_n: int = MAX_N,
) -> float:
    """Sentence-level adapted BLEU-``max_n`` of one candidate."""
    counts = bleu_counts(
        candidate, references, candidate_label=candidate_label, reference_labels=reference_labels,
        entities=entities, max_n=max_n,
    )
    return bleu_from_counts(counts, alpha, beta)


def entity_length(candidate: Tokens, entities: Sequence[Tokens]) -> int:
    """``sum_e len(e) * [e occurs contiguously in candidate]`` over the distinct non-empty entities."""
    total = 0
    for ent in {tuple(e) for e in entities if len(e)}:
        if ent in ngram_counts(candidate, len(ent)):
            total += len(ent)
    return total


@dataclass(frozen=True)
class AdaptedRougeLScore:
    """Adapted ROUGE-L of one candidate: exact P and R (maxima over references) and the F-measure."""

    precision: Fraction
    recall: Fraction
    fmeasure: float


def adapted_rouge_l(
    candidate: Tokens,
    references: Sequence[Tokens],
    *,
    candidate_label: str | None = None,
    reference_labels: Sequence[str | None] | None = None,
    entities: Sequence[Tokens] = (),
    alpha: float = DEFAULT_ALPHA,
    beta: float = DEFAULT_BETA,
    gamma: float = DEFAULT_GAMMA,
) -> AdaptedRougeLScore:
    """Adapted ROUGE-L of one candidate against its references."""
    if not references:
        raise ValueError("at least one reference is needed")
    a, b = Fraction(alpha), Fraction(beta)
    ent_bonus = b * entity_length(candidate, entities) if entities else Fraction(0)
    best_p, best_r = Fraction(0), Fraction(0)
    for ref, same in zip(references, same_opinion(references, candidate_label, reference_labels)):
        lcs = lcs_length(candidate, ref)
        bonus = (a * lcs if same else 0) + ent_bonus
        num = lcs + bonus
        if len(candidate) + bonus:
            best_p = max(best_p, num / (len(candidate) + bonus))
        if len(ref) + bonus:
            best_r = max(best_r, num / (len(ref) + bonus))
    return AdaptedRougeLScore(best_p, best_r, f_measure(float(best_p), float(best_r), gamma))


class _Adapted(Metric):
    """Shared input handling: tokenize rows, labels and entities; with gold labels (``labels="gold"``) either
    labels or entities must be present, with ``labels="auto"`` the missing ones are found (:func:`find_labels`).

    ``requires`` stays empty for gold labels because either column set is enough: the check is in :meth:`inputs`.
    """

    spec_options: ClassVar[tuple[Option, ...]] = (
        Option("labels", default=LABELS[0], choices=LABELS), Option("alpha", float, DEFAULT_ALPHA),
        Option("beta", float, DEFAULT_BETA))
    #: where the labels come from: "gold" (the input's columns) or "auto" (gold where present, found elsewhere)
    labels: ClassVar[str] = LABELS[0]

    def __init__(self, alpha: float = DEFAULT_ALPHA, beta: float = DEFAULT_BETA, spec: str | None = None):
        self.alpha, self.beta = float(alpha), float(beta)
        self.spec = spec if spec is not None else "" if self.labels == LABELS[0] else f":labels={self.labels}"
        self._warned = False

    @classmethod
    def from_options(cls, spec: str = "", **options: object) -> Metric:
        """The gold-label or the automatic-label form, as ``labels`` says."""
        labels = options.pop("labels")
        return _CLASSES[cls.name][labels == "auto"](spec=spec, **options)  # type: ignore[arg-type]

    def columns(self) -> list[str]:
        return [self.name + self.spec]

    def options(self) -> dict[str, object]:
        return {"alpha": self.alpha, "beta": self.beta}

    def inputs(self, rows: Rows, ctx: Context) -> list[dict]:
        """Per row: candidate / reference tokens, labels and entity tokens, as keyword arguments."""
        if self.labels == "auto":
            return self._auto_inputs(rows, ctx)
        has_labels = rows.candidate_labels is not None and rows.reference_labels is not None
        if not has_labels and rows.entities is None:
            raise UsageError(
                f"{self.name} needs opinion labels (answer_label and reference<k>_label columns) or gold entities "
                "(an entities column); the input has neither"
            )
        from kpqa.text import get_tokenizer

        tok = get_tokenizer(ctx.tokenizer).tokenize
        out = []
        for i in range(len(rows)):
            refs = rows.references[i]
            ref_labels = rows.reference_labels[i] if rows.reference_labels is not None and has_labels else None
            if ref_labels is not None and len(ref_labels) != len(refs):
                raise InputError(f"{len(ref_labels)} labels for {len(refs)} references", row=i + 1, column="labels")
            out.append(
                {
                    "candidate": tok(rows.candidates[i]),
                    "references": [tok(r) for r in refs],
                    "candidate_label": rows.candidate_labels[i] if rows.candidate_labels is not None else None,
                    "reference_labels": ref_labels,
                    "entities": [tok(e) for e in rows.entities[i]] if rows.entities is not None else [],
                }
            )
        return out

    def _auto_inputs(self, rows: Rows, ctx: Context) -> list[dict]:
        from kpqa.text import get_tokenizer

        tok = get_tokenizer(ctx.tokenizer).tokenize
        found = find_labels(rows, ctx)
        if language(ctx) == "zh" and rows.entities is None and not self._warned:
            self._warned = True
            warnings.warn(KpqaWarning(f"{self.columns()[0]}: no automatic entities for Chinese text (the keyphrase "
                                      "weighter reads English); the entity bonus needs an entities column"))
        out = []
        for i, lab in enumerate(found):
            refs = rows.references[i]
            if lab.reference_labels is not None and len(lab.reference_labels) != len(refs):
                raise InputError(f"{len(lab.reference_labels)} labels for {len(refs)} references", row=i + 1,
                                 column="labels")
            out.append({"candidate": tok(rows.candidates[i]), "references": [tok(r) for r in refs],
                        "candidate_label": lab.candidate_label, "reference_labels": lab.reference_labels,
                        "entities": lab.entities})
        return out


class _Auto(_Adapted):
    """The automatic-label form: reads the keyphrase weighter (for the entities), says so in its signature."""

    requires = frozenset({"weights"})
    uses_model = True
    labels = "auto"

    def options(self) -> dict[str, object]:
        return {**super().options(), "labels": "auto"}

    def signature(self, ctx: Context) -> Signature:
        entities = "gold-only" if language(ctx) == "zh" else f"kpw>={SPAN_THRESHOLD:g}"
        return super().signature(ctx).with_fields([("entities", entities)])


@register("BLEU-4-adapted")
class AdaptedBleu(_Adapted):
    """Yang et al.'s BLEU-4 with yes-no and entity bonuses; per-row sentence BLEU, corpus BLEU over sums."""

    name = "BLEU-4-adapted"
    max_n = MAX_N
    #: the names of its per-row statistics, in their columns' order: matches, same-opinion matches, entity matches
    #: and candidate n-grams of each order, the candidate length and the closest reference length
    STATISTICS = (*(f"{f}_{n}" for f in BY_ORDER for n in range(1, MAX_N + 1)),
                  "cand_len", "ref_len")

    def statistics(self) -> tuple[str, ...]:
        return self.STATISTICS

    def stats(self, rows: Rows, ctx: Context) -> np.ndarray:
        """Per row, :attr:`STATISTICS`; int64 ``[rows, 4 * 4 + 2]``."""
        out = np.zeros((len(rows), len(self.STATISTICS)), dtype=np.int64)
        for i, kw in enumerate(self.inputs(rows, ctx)):
            c = bleu_counts(**kw, max_n=self.max_n)
            named = {"cand_len": c.cand_len, "ref_len": c.ref_len,
                     **{f"{f}_{n}": v for f in BY_ORDER for n, v in zip(range(1, self.max_n + 1), getattr(c, f))}}
            out[i] = [named[k] for k in self.STATISTICS]
        return out

    def _counts(self, named: Mapping[str, int | Fraction | float]) -> BleuCounts:
        orders = range(1, self.max_n + 1)
        return BleuCounts(**{f: tuple(int(named[f"{f}_{n}"]) for n in orders) for f in BY_ORDER},
                          cand_len=int(named["cand_len"]), ref_len=int(named["ref_len"]))

    def per_row(self, stats: np.ndarray) -> dict[str, np.ndarray]:
        scores = [bleu_from_counts(self._counts(dict(zip(self.STATISTICS, row))), self.alpha, self.beta)
                  for row in stats.tolist()]
        return {self.columns()[0]: np.array(scores, dtype=float)}

    def corpus(self, totals: Totals) -> dict[str, float]:
        # the sums of the counts give exactly what bleu_from_counts computes over the list of rows
        counts = self._counts(totals.named(self.STATISTICS))
        return {self.columns()[0]: bleu_from_counts([counts] if totals.n else [], self.alpha, self.beta)}


@register("ROUGE-L-adapted")
class AdaptedRougeL(_Adapted, MeanMetric):
    """Yang et al.'s ROUGE-L with yes-no and entity bonuses (gamma: ROUGE-L's beta); the corpus score is the per-row
    mean."""

    name = "ROUGE-L-adapted"
    max_chars = LCS_MAX_CHARS

    spec_options = (*_Adapted.spec_options, Option("gamma", float, DEFAULT_GAMMA))

    def __init__(self, alpha: float = DEFAULT_ALPHA, beta: float = DEFAULT_BETA, gamma: float = DEFAULT_GAMMA,
                 spec: str | None = None):
        super().__init__(alpha, beta, spec)
        self.gamma = float(gamma)

    def options(self) -> dict[str, object]:
        return {**super().options(), "gamma": self.gamma}

    def row_scores(self, rows: Rows, ctx: Context) -> np.ndarray:
        scores = [
            adapted_rouge_l(**kw, alpha=self.alpha, beta=self.beta, gamma=self.gamma).fmeasure
            for kw in self.inputs(rows, ctx)
        ]
        return np.array(scores, dtype=float)


class AutoAdaptedBleu(_Auto, AdaptedBleu):
    """BLEU-4-adapted with the labels the input lacks found automatically (kpqa.metrics.labels)."""


class AutoAdaptedRougeL(_Auto, AdaptedRougeL):
    """ROUGE-L-adapted with the labels the input lacks found automatically (kpqa.metrics.labels)."""


#: each name's gold-label and automatic-label classes (``:labels=``)
_CLASSES: dict[str, tuple[type[_Adapted], type[_Adapted]]] = {
    "BLEU-4-adapted": (AdaptedBleu, AutoAdaptedBleu), "ROUGE-L-adapted": (AdaptedRougeL, AutoAdaptedRougeL)}
