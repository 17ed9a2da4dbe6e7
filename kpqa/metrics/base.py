"""The one metric interface, the rows it scores, and the registry that names metrics.

A metric takes a :class:`Rows` batch and a :class:`Context` (shared tokenizers, weighter, encoder) and returns one
array of per-row scores per output column. Lexical metrics never touch torch: the context hands them tokens and,
for the KPQA forms, per-token weights.
"""
from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, ClassVar, Sequence

import numpy as np

if TYPE_CHECKING:  # pragma: no cover
    from kpqa.text import Tokenizer


@dataclass
class Rows:
    """A batch of examples. ``references[i]`` holds the non-empty references of row ``i`` (at least one).

    Optional fields are ``None`` when the input has no such column: ``candidate_labels[i]`` and
    ``reference_labels[i][k]`` are Yes / No / Depends opinion labels (Yang et al.), ``entities[i]`` the gold
    entity strings of row ``i``.
    """

    questions: list[str]
    candidates: list[str]
    references: list[list[str]]
    candidate_labels: list[str | None] | None = None
    reference_labels: list[list[str | None]] | None = None
    entities: list[list[str]] | None = None

    def __len__(self) -> int:
        return len(self.candidates)


WordWeightFn = Callable[[Sequence[tuple[str, str]], "Tokenizer"], list[np.ndarray]]
"""``fn(pairs, tokenizer)``: for each (question, text) pair, one weight per ``tokenizer.tokenize(text)`` token."""
PieceTokensFn = Callable[[Sequence[tuple[str, str]]], list[tuple[list[str], np.ndarray]]]
"""``fn(pairs)``: for each (question, text) pair, the text's word pieces (as strings) and one weight per piece."""


@dataclass
class Context:
    """Resources shared by the metrics of one scoring run, created once and reused across batches."""

    tokenizer: str = "ptb"
    word_weights: WordWeightFn | None = None
    piece_tokens: PieceTokensFn | None = None
    extras: dict = field(default_factory=dict)


class Metric(ABC):
    """A metric: per-row scores (max over references unless it says otherwise) and a corpus score."""

    name: ClassVar[str]
    #: what the rows must carry beyond question/candidate/references: "labels", "entities", "weights"
    requires: ClassVar[frozenset[str]] = frozenset()
    #: per-row scores depend on statistics of all the rows scored together (CIDEr's idf): streamed scoring
    #: computes them once every row has been read
    whole_input: ClassVar[bool] = False
    #: per-row scores depend on the other rows of the same call (BERTScore's idf): scored a chunk at a time, not
    #: in ``batch_size`` slices
    pooled: bool = False
    #: runs a model (encoder or weighter): the scorer checks its device before reading any input
    uses_model: ClassVar[bool] = False
    #: the ``:key=value`` options the name takes, for ``kpqa metrics``
    spec_help: ClassVar[str] = ""

    def columns(self) -> list[str]:
        """Output column names, in order."""
        return [self.name]

    @abstractmethod
    def score(self, rows: Rows, ctx: Context) -> dict[str, np.ndarray]:
        """Per-row scores, one float array of ``len(rows)`` per column."""

    def corpus_score(self, rows: Rows, ctx: Context, per_row: dict[str, np.ndarray]) -> dict[str, float]:
        """Corpus-level score per column; the mean of the per-row scores unless the metric defines its own."""
        return {c: float(np.mean(v)) if len(v) else float("nan") for c, v in per_row.items()}

    def options(self) -> dict[str, object]:
        """Settings that change the score; they go into the signature."""
        return {}

    def signature(self, ctx: Context) -> str:
        """sacrebleu-style string naming the metric, tokenizer and options."""
        from kpqa import __version__

        parts = [self.name, f"tok:{ctx.tokenizer}"] + [f"{k}:{v}" for k, v in self.options().items()]
        return "|".join(parts + [f"version:{__version__}"])


_REGISTRY: dict[str, Callable[[], Metric]] = {}
_PATTERNS: list[tuple[Callable[[str], bool], Callable[[str], Metric], str, str]] = []


def register(name: str) -> Callable[[Callable[[], Metric]], Callable[[], Metric]]:
    """Decorator: register a metric factory (class or function of no arguments) under ``name``."""

    def deco(factory: Callable[[], Metric]) -> Callable[[], Metric]:
        if name in _REGISTRY:
            raise ValueError(f"metric {name!r} registered twice")
        _REGISTRY[name] = factory
        return factory

    return deco


def register_pattern(matches: Callable[[str], bool], build: Callable[[str], Metric], family: str = "",
                     description: str = "") -> None:
    """Register a parametrised family, e.g. ``AEv-<alpha>-<N>``: ``build(name)`` for every name ``matches``.
    ``family`` names it in listings (its text before the first ``<`` is matched case-insensitively)."""
    _PATTERNS.append((matches, build, family, description))


def available() -> list[str]:
    """Names of the registered metrics (parametrised families not expanded)."""
    return sorted(_REGISTRY)


def _first_line(obj: object) -> str:
    return (obj.__doc__ or "").strip().split("\n")[0].strip().replace("``", "")


def describe() -> list[tuple[str, str, str]]:
    """(name, one-line description, options) of every metric name: the registered ones, the -KP form of each
    KPQA metric and the parametrised families."""
    out = []
    for name in available():
        factory = _REGISTRY[name]
        options = getattr(factory, "spec_help", "")
        out.append((name, _first_line(factory), options))
        if name.endswith("-KPQA"):
            out.append((name[:-2], f"{name} with the weighter trained without the question (the -KP ablation)",
                        options))
    out += [(family, description, "") for _, _, family, description in _PATTERNS if family]
    return out


def _canonical(name: str) -> str:
    """``name`` with its metric part (before any ``:``) spelled as registered, matched case-insensitively."""
    base, sep, spec = name.partition(":")
    known = {n.lower(): n for n in _REGISTRY}
    known.update({n[:-2].lower(): n[:-2] for n in _REGISTRY if n.endswith("-KPQA")})
    if base.lower() in known:
        return known[base.lower()] + sep + spec
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

    canonical = _canonical(name.strip())
    base = canonical.split(":")[0]
    if base in _REGISTRY or (base.endswith("-KP") and base + "QA" in _REGISTRY) \
            or any(matches(canonical) for matches, *_ in _PATTERNS):
        return canonical
    names = [n for n, _, _ in describe()]
    close = difflib.get_close_matches(base.lower(), [n.lower() for n in names], n=3, cutoff=0.6)
    spelled = {n.lower(): n for n in names}
    hint = f"; did you mean {' or '.join(repr(spelled[c]) for c in close)}?" if close else ""
    raise UsageError(f"unknown metric {name!r}{hint} (`kpqa metrics` lists them: {', '.join(names)})")


def get_metric(name: str) -> Metric:
    """Build the metric registered under ``name`` (case-insensitive); :class:`~kpqa.errors.UsageError` when
    unknown."""
    name = resolve_name(name)
    if name in _REGISTRY:
        return _REGISTRY[name]()
    for matches, build, _, _ in _PATTERNS:
        if matches(name):
            return build(name)
    raise AssertionError(name)  # resolve_name found it
