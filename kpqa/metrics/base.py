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
_PATTERNS: list[tuple[Callable[[str], bool], Callable[[str], Metric]]] = []


def register(name: str) -> Callable[[Callable[[], Metric]], Callable[[], Metric]]:
    """Decorator: register a metric factory (class or function of no arguments) under ``name``."""

    def deco(factory: Callable[[], Metric]) -> Callable[[], Metric]:
        if name in _REGISTRY:
            raise ValueError(f"metric {name!r} registered twice")
        _REGISTRY[name] = factory
        return factory

    return deco


def register_pattern(matches: Callable[[str], bool], build: Callable[[str], Metric]) -> None:
    """Register a parametrised family, e.g. ``AEv-<alpha>-<N>``: ``build(name)`` for every name ``matches``."""
    _PATTERNS.append((matches, build))


def available() -> list[str]:
    """Names of the registered metrics (parametrised families not expanded)."""
    return sorted(_REGISTRY)


def get_metric(name: str) -> Metric:
    """Build the metric registered under ``name``; :class:`~kpqa.errors.UsageError` when unknown."""
    from kpqa.errors import UsageError

    if name in _REGISTRY:
        return _REGISTRY[name]()
    for matches, build in _PATTERNS:
        if matches(name):
            return build(name)
    raise UsageError(f"unknown metric {name!r}; known: {', '.join(available())}, AEv-<alpha>-<N>")
