"""The one metric interface, the statistics it sums, and the registry that names metrics.

A metric works in three steps, as sacrebleu's ``_extract_corpus_statistics`` / ``_compute_score_from_stats`` and
torchmetrics' ``_update`` / ``_compute``:

* :meth:`Metric.stats` -- per-row sufficient statistics of a :class:`~kpqa.rows.Rows` batch under a
  :class:`~kpqa.context.Context`: an array ``[rows, k]`` (integer counts for BLEU / AEv, the per-row scores for
  metrics whose corpus score is a mean);
* :meth:`Metric.per_row` -- the per-row scores (one float array per output column) from those statistics;
* :meth:`Metric.corpus` -- the corpus scores from :class:`Totals`, the statistics summed over all rows, which the
  scorer accumulates over chunks and processes (exactly: integers as integers, floats as fractions), so that a
  corpus score never needs the rows' texts again.

Each metric declares how its statistics reduce (:attr:`Metric.reduction`, as torchmetrics' ``dist_reduce_fx``):
:data:`SUM` (per-row statistics summed over chunks and processes: every metric but two) or :data:`CORPUS_PASS`
(idf-weighted metrics, whose per-row scores need document frequencies over every reference of the input: the scorer
first passes over the whole input summing :meth:`Metric.corpus_stats` (a :class:`DocFreq`) over chunks and
processes, then scores each chunk under that sum, found in ``Context.corpus``), so no per-row score depends on how
the input was chunked or sharded.

Lexical metrics never touch torch: the context hands them tokens and, for the KPQA forms, per-token weights.
"""
from __future__ import annotations

import importlib
import pkgutil
import re
from abc import ABC, abstractmethod
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Callable, ClassVar, Hashable, Iterable, Sequence

import numpy as np

from kpqa.context import Context
from kpqa.rows import Rows
from kpqa.metrics.spec import KPQA_SUFFIX, Option, base_name, kp_name, read_options, split_kp
from kpqa.signature import LOWER_IS_BETTER, Signature

#: :attr:`Metric.reduction`: per-row statistics summed over chunks and processes
SUM = "sum"
#: :attr:`Metric.reduction`: a corpus pass first (:meth:`Metric.corpus_stats` summed over the whole input), then
#: per-row statistics under it, summed
CORPUS_PASS = "corpus-pass"
REDUCTIONS = (SUM, CORPUS_PASS)


def exact_sum(values: np.ndarray) -> Fraction:
    """The exact sum of finite floats, as the :class:`~fractions.Fraction` that adding them one by one as Fractions
    gives, in integer arithmetic: each float is ``mantissa * 2**exponent`` with a 53-bit integer mantissa
    (:func:`numpy.frexp`), so the sum is one integer over the smallest power of two."""
    mantissa, exponent = np.frexp(np.asarray(values, dtype=np.float64))
    whole = (mantissa * 2.0**53).astype(np.int64)  # exact: a float64 mantissa has 53 bits
    power = exponent.astype(np.int64) - 53
    if not len(whole):
        return Fraction(0)
    low = int(power.min())
    total = sum(m << s for m, s in zip(whole.tolist(), (power - low).tolist()))
    return Fraction(total << low) if low >= 0 else Fraction(total, 1 << -low)


class Totals:
    """Statistics summed over rows, exactly: integer columns as ``int``, float columns as ``Fraction`` (so a sum
    does not depend on how the rows were split into chunks or processes). ``n`` counts the rows."""

    def __init__(self, n: int = 0, sums: list[int | Fraction | float] | None = None) -> None:
        self.n = n
        self.sums = sums

    @classmethod
    def of(cls, stats: np.ndarray) -> "Totals":
        """The totals of one ``[rows, k]`` statistics array."""
        stats = np.asarray(stats)
        if stats.ndim != 2:
            raise ValueError(f"statistics must be [rows, k], got shape {stats.shape}")
        sums: list[int | Fraction | float] = []
        for column in stats.T:
            if column.dtype.kind in "iub":
                sums.append(int(column.astype(np.int64).sum()))
            elif np.isfinite(column).all():
                sums.append(exact_sum(column))
            else:
                sums.append(float(column.sum()))
        return cls(len(stats), sums)

    def __add__(self, other: "Totals") -> "Totals":
        if self.sums is None:
            return Totals(self.n + other.n, other.sums)
        if other.sums is None:
            return Totals(self.n + other.n, self.sums)
        if len(self.sums) != len(other.sums):
            raise ValueError("cannot add statistics of different widths")
        return Totals(self.n + other.n, [a + b for a, b in zip(self.sums, other.sums)])  # type: ignore[operator]

    def exact(self, k: int) -> int | Fraction | float:
        """The sum of column ``k`` (0 when no row was added)."""
        return 0 if self.sums is None else self.sums[k]

    def named(self, names: Sequence[str]) -> dict[str, int | Fraction | float]:
        """The sums by statistic name (``names``: :meth:`Metric.statistics`, one per column; 0s when no row was
        added)."""
        if self.sums is not None and len(self.sums) != len(names):
            raise ValueError(f"{len(names)} statistic names for {len(self.sums)} columns")
        return {name: self.exact(k) for k, name in enumerate(names)}

    def mean(self, k: int = 0) -> float:
        """The mean of column ``k`` over the rows, correctly rounded; NaN without rows."""
        if not self.n:
            return float("nan")
        return float(self.exact(k) / self.n)


@dataclass(frozen=True)
class DocFreq:
    """Document frequencies, summed over chunks and processes: ``docs`` documents seen, ``df[t]`` of them holding
    ``t`` (counted once per document), as an idf needs them."""

    docs: int = 0
    df: Counter = field(default_factory=Counter)

    @classmethod
    def of(cls, documents: Iterable[Iterable[Hashable]]) -> "DocFreq":
        """The document frequencies of ``documents`` (each an iterable of terms)."""
        df: Counter = Counter()
        docs = 0
        for terms in documents:
            df.update(set(terms))
            docs += 1
        return cls(docs, df)

    def __add__(self, other: "DocFreq") -> "DocFreq":
        return DocFreq(self.docs + other.docs, self.df + other.df)


class Metric(ABC):
    """A metric: per-row statistics, per-row scores (max over references unless it says otherwise) and corpus
    scores from summed statistics."""

    name: ClassVar[str]
    #: what the rows must carry beyond question/candidate/references: "labels", "entities", "weights"
    requires: ClassVar[frozenset[str]] = frozenset()
    #: how the statistics reduce over chunks and processes: :data:`SUM`, or :data:`CORPUS_PASS` when per-row scores
    #: need statistics of the whole input first (an idf: :meth:`corpus_stats`)
    reduction: str = SUM
    #: runs a model (encoder or weighter): the scorer checks its device before reading any input
    uses_model: ClassVar[bool] = False
    #: the ``:key=value`` options its name takes (``BERTScore:layer=5``), each a keyword of its constructor: declared
    #: once here, read by :func:`~kpqa.metrics.spec.read_options` and listed by ``kpqa metrics``
    spec_options: ClassVar[tuple[Option, ...]] = ()
    #: the options' text as its name was written (``:layer=5``; it ends the column names): given to the constructor
    spec: str = ""
    #: whether a higher score says a better answer (calibration fits and decides the other way round when not; a
    #: lower-is-better metric's signature says ``better:lower``)
    higher_is_better: ClassVar[bool] = True
    #: a keyphrase-weighted metric with a -KP form: built with ``question=False`` (by :func:`get_metric`) it reads
    #: the question-free weighter and its columns end in ``-KP``
    kp_form: ClassVar[bool] = False
    #: whether the metric's weights come from the weighter that reads the question (set when it is built)
    question: bool = True
    #: the longest text (characters) the metric scores in bounded time; None: any length (its work grows linearly).
    #: A model metric's is :data:`kpqa.lengths.MAX_CHARS` whatever this says (:func:`kpqa.lengths.text_limit`)
    max_chars: ClassVar[int | None] = None

    @classmethod
    def from_options(cls, spec: str = "", **options: object) -> "Metric":
        """The metric a name with options asks for: ``options`` are the constructor arguments of its
        :attr:`spec_options` (:func:`~kpqa.metrics.spec.read_options`), ``spec`` their text as written."""
        return cls(spec=spec, **options)  # type: ignore[call-arg]

    def columns(self) -> list[str]:
        """Output column names, in order."""
        return [self.name]

    def statistics(self) -> tuple[str, ...]:
        """The names of the columns of :meth:`stats`, in order (for a metric whose statistics are its per-row scores,
        its columns)."""
        return tuple(self.columns())

    @abstractmethod
    def stats(self, rows: Rows, ctx: Context) -> np.ndarray:
        """Per-row sufficient statistics, ``[len(rows), k]``."""

    @abstractmethod
    def per_row(self, stats: np.ndarray) -> dict[str, np.ndarray]:
        """Per-row scores from :meth:`stats`, one float array per column."""

    @abstractmethod
    def corpus(self, totals: Totals) -> dict[str, float]:
        """Corpus scores per column from the statistics summed over all rows."""

    def corpus_key(self) -> Hashable:
        """Under :data:`CORPUS_PASS`: the key of its corpus statistics in ``Context.corpus`` (metrics that share
        them share the key)."""
        return (type(self).__name__,)

    def corpus_stats(self, rows: Rows, ctx: Context) -> DocFreq:
        """Under :data:`CORPUS_PASS`: the corpus statistics of ``rows``, summed over the whole input before any
        row is scored."""
        raise NotImplementedError(f"{self.name} has no corpus pass")

    def corpus_of(self, rows: Rows, ctx: Context) -> DocFreq:
        """The corpus statistics :meth:`stats` reads: the scorer's pass over the whole input (``Context.corpus``),
        else those of ``rows`` alone (a metric called by hand)."""
        found = (ctx.corpus or {}).get(self.corpus_key())
        return found if found is not None else self.corpus_stats(rows, ctx)

    def score(self, rows: Rows, ctx: Context) -> dict[str, np.ndarray]:
        """Per-row scores of ``rows``: :meth:`per_row` of :meth:`stats`."""
        return self.per_row(self.stats(rows, ctx))

    def corpus_score(self, rows: Rows, ctx: Context) -> dict[str, float]:
        """Corpus scores of ``rows`` alone, from their summed statistics."""
        return self.corpus(Totals.of(self.stats(rows, ctx)))

    def options(self) -> dict[str, object]:
        """Settings that change the score; they go into the signature."""
        return {}

    def token_unit(self, ctx: Context) -> str | None:
        """What the metric counts as a token (the signature's ``tok``); None when it normalises on its own."""
        return ctx.tokenizer

    def signature_name(self) -> str:
        """The name the signature starts with."""
        return self.name

    def signature(self, ctx: Context) -> Signature:
        """Metric name, token unit and options; for the metrics that need weights, the weighter's checkpoint hash,
        backbone, whether the weights read the question (the metric asks for it and the weighter reads it), its
        arithmetic precision and its function-word weight."""
        tok = self.token_unit(ctx)
        fields = ([("tok", tok)] if tok is not None else []) + list(self.options().items())
        direction: list[tuple[str, object]] = [] if self.higher_is_better else [LOWER_IS_BETTER]
        signature = Signature.of(self.signature_name(), fields + direction)
        weighter = ctx.weighter
        if "weights" in self.requires and weighter is not None:
            signature = signature.with_fields([
                ("kpw", weighter.checkpoint_hash), ("backbone", weighter.backbone),
                ("question", "yes" if self.question and weighter.use_question else "no"),
                ("precision", weighter.precision),
            ])
            # fw is named unless it is 1, the tagger's own weights (what the metrics used before the option
            # existed): older signatures, and the calibrations fitted on them, read as fw=1, as they were
            if weighter.function_word_weight != 1.0:
                signature = signature.with_fields([("fw", f"{weighter.function_word_weight:g}")])
        return signature


class MeanMetric(Metric):
    """A metric with one column whose corpus score is the mean of its per-row scores (the statistics are the
    scores themselves)."""

    @abstractmethod
    def row_scores(self, rows: Rows, ctx: Context) -> np.ndarray:
        """One float per row."""

    def stats(self, rows: Rows, ctx: Context) -> np.ndarray:
        return np.asarray(self.row_scores(rows, ctx), dtype=float).reshape(len(rows), 1)

    def per_row(self, stats: np.ndarray) -> dict[str, np.ndarray]:
        return {self.columns()[0]: stats[:, 0]}

    def corpus(self, totals: Totals) -> dict[str, float]:
        return {self.columns()[0]: totals.mean(0)}


_REGISTRY: dict[str, Callable[..., Metric]] = {}
_PATTERNS: list[tuple[Callable[[str], bool], Callable[..., Metric], str, str]] = []
_LOADED = False


def _load_builtin() -> None:
    """Import every module of :mod:`kpqa.metrics` (the metric modules register themselves): no list to keep."""
    global _LOADED
    if not _LOADED:
        _LOADED = True
        for module in sorted(m.name for m in pkgutil.iter_modules([str(Path(__file__).parent)])):
            importlib.import_module(f"kpqa.metrics.{module}")


def register(name: str) -> Callable[[Callable[..., Metric]], Callable[..., Metric]]:
    """Decorator: register a metric factory (class or function of no arguments) under ``name``; a factory with
    ``kp_form`` set also takes ``question=False`` (its -KP form)."""

    def deco(factory: Callable[..., Metric]) -> Callable[..., Metric]:
        if name in _REGISTRY:
            raise ValueError(f"metric {name!r} registered twice")
        _REGISTRY[name] = factory
        return factory

    return deco


def register_pattern(matches: Callable[[str], bool], build: Callable[..., Metric], family: str = "",
                     description: str = "") -> None:
    """Register a parametrised family, e.g. ``AEv-<alpha>-<N>``: ``build(name)`` for every name ``matches``.
    ``family`` names it in listings (its text before the first ``<`` is matched case-insensitively)."""
    _PATTERNS.append((matches, build, family, description))


def available() -> list[str]:
    """Names of the registered metrics (parametrised families not expanded)."""
    _load_builtin()
    return sorted(_REGISTRY)


def _summary(obj: object) -> str:
    """The first paragraph of ``obj``'s docstring on one line (a summary may wrap in the source)."""
    paragraph = (obj.__doc__ or "").strip().split("\n\n")[0]
    return re.sub(r":\w+:`([^`]*)`", r"\1", " ".join(paragraph.split())).replace("``", "")


def describe() -> list[tuple[str, str, str]]:
    """(name, one-line description, options) of every metric name: the registered ones, the -KP form of each
    KPQA metric and the parametrised families."""
    out = []
    for name in available():
        factory = _REGISTRY[name]
        options = spec_help(factory)
        out.append((name, _summary(factory), options))
        if name.endswith(KPQA_SUFFIX):
            out.append((kp_name(name), f"{name} with the weighter trained without the question (the -KP ablation)",
                        options))
    out += [(family, description, "") for _, _, family, description in _PATTERNS if family]
    return out


def spec_help(factory: Callable[..., Metric]) -> str:
    """The options a registered metric's name takes, as ``kpqa metrics`` lists them: ``:tok=pieces|words
    :lcs=longest|heaviest`` (empty: none)."""
    return " ".join(f":{o.show()}" for o in getattr(factory, "spec_options", ()))


def _canonical(name: str) -> str:
    """``name`` with its metric part (before any ``:``) spelled as registered, matched case-insensitively."""
    base = base_name(name)
    known = {n.lower(): n for n in _REGISTRY}
    known.update({kp_name(n).lower(): kp_name(n) for n in _REGISTRY if n.endswith(KPQA_SUFFIX)})
    if base.lower() in known:
        return known[base.lower()] + name[len(base):]
    for _, _, family, _ in _PATTERNS:
        prefix = family.split("<")[0]
        if prefix and base.lower().startswith(prefix.lower()):
            return prefix + name[len(prefix):]
    return name


def resolve_name(name: str) -> str:
    """The canonical spelling of a metric name (case-insensitive); a :class:`~kpqa.errors.UsageError` with the
    nearest names when there is no such metric."""
    import difflib

    from kpqa.errors import UsageError

    _load_builtin()
    canonical = _canonical(name.strip())
    base = base_name(canonical)
    if base in _REGISTRY or split_kp(base)[0] in _REGISTRY \
            or any(matches(canonical) for matches, *_ in _PATTERNS):
        return canonical
    names = [n for n, _, _ in describe()]
    close = difflib.get_close_matches(base.lower(), [n.lower() for n in names], n=3, cutoff=0.6)
    spelled = {n.lower(): n for n in names}
    hint = f"; did you mean {' or '.join(repr(spelled[c]) for c in close)}?" if close else ""
    raise UsageError(f"unknown metric {name!r}{hint} (`kpqa metrics` lists them: {', '.join(names)})")


def get_metric(name: str, no_question: bool = False) -> Metric:
    """Build the metric registered under ``name`` (case-insensitive); :class:`~kpqa.errors.UsageError` when
    unknown.

    A ``-KP`` name (``BLEU-1-KP``, ``ROUGE-L-KP:tok=words``), or any ``-KPQA`` name with ``no_question``, builds
    the registered ``-KPQA`` metric with ``question=False``: it reads the question-free weighter, and its columns
    and signature say ``-KP``."""
    from kpqa.errors import UsageError

    registered, kp = split_kp(resolve_name(name), no_question)
    kwargs: dict[str, bool] = {}
    if kp:
        if not getattr(_REGISTRY.get(base_name(registered)), "kp_form", False):
            raise UsageError(f"metric {name!r} has no -KP form")
        kwargs["question"] = False
    if registered in _REGISTRY:
        return _REGISTRY[registered](**kwargs)
    for matches, build, _, _ in _PATTERNS:
        if matches(registered):
            return build(registered, **kwargs)
    factory = _REGISTRY.get(base_name(registered))
    declared: tuple[Option, ...] = getattr(factory, "spec_options", ())
    if factory is None or not declared:
        raise UsageError(f"{name!r}: {base_name(registered)} takes no options (`kpqa metrics` lists each metric's)")
    options, text = read_options(registered, declared)
    return getattr(factory, "from_options")(text, **options, **kwargs)
