"""The typed per-run context the metrics read, and the run defaults (written here once).

A :class:`Context` is built once per scoring run (per weighter) by :class:`kpqa.scoring.Scorer`, or by hand in
tests and scripts. It carries the lexical tokenizer's name, the device / batch size / precision of the models, the
keyphrase weighter when a metric needs one, and ``memo``: work shared by the metrics of one batch (BLEU-1..4 share
their n-gram counts, BERTScore and BERTScore-KPQA their embeddings). The scorer gives every batch a fresh ``memo``
and drops it afterwards, so nothing outlives the batch it was computed for. ``models`` holds the models the metrics
load (BERTScore's encoders): they belong to the context, and to the scorer that hands one :class:`Models` to every
context it builds, not to the process.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, Callable, Hashable, Iterator, Mapping, Protocol, Sequence, TypeVar

import numpy as np

from kpqa.errors import Param, UsageError
from kpqa.text import DEFAULT_TOKENIZER  # a run default, named here with the others

if TYPE_CHECKING:  # pragma: no cover
    from kpqa.text import Tokenizer

DEFAULT_DEVICE = "auto"
DEFAULT_BATCH_SIZE = 64
DEFAULT_PRECISION = "auto"
#: the factor on function words' keyphrase weights (:mod:`kpqa.models.weighter`); 1 = the tagger's own
DEFAULT_FUNCTION_WORD_WEIGHT = 0.2


#: what the scorer does with a row it cannot score: stop, or leave its scores empty (``skip``) or 0 (``zero``)
ON_ERROR = ("raise", "skip", "zero")


def check_on_error(on_error: str) -> str:
    """``on_error`` unchanged if it is one of :data:`ON_ERROR`, else a :class:`UsageError`."""
    if on_error not in ON_ERROR:
        raise UsageError(Param("on_error", on_error), f": must be one of {', '.join(ON_ERROR)}")
    return on_error


def check_function_word_weight(value: float) -> float:
    """``value`` as a float if it is in [0, 1], else a UsageError (no torch needed)."""
    if not 0.0 <= value <= 1.0:
        raise UsageError(Param("function_word_weight", value), ": must be between 0 and 1")
    return float(value)


@dataclass(frozen=True)
class ScorerOptions:
    """How a run's scorers are built, one object for every command and API entry that scores rows (``kpqa score``,
    ``meta-eval``, ``calibrate``, ``compare``, the Hugging Face ``evaluate`` wrapper): the
    :class:`~kpqa.scoring.Scorer` keywords that do not depend on the metrics or on what is done with the scores.
    :func:`kpqa.scoring.build` makes a scorer of them (``Scorer(metrics, **options.kwargs(), **more)``), so no caller
    copies the keywords by hand."""

    tokenize: str = DEFAULT_TOKENIZER
    checkpoint: str | os.PathLike | None = None
    no_question: bool = False
    device: str = DEFAULT_DEVICE
    batch_size: int = DEFAULT_BATCH_SIZE
    precision: str = DEFAULT_PRECISION
    function_word_weight: float = DEFAULT_FUNCTION_WORD_WEIGHT
    #: a longer question, answer or reference is a bad row; None: the limit of the metrics scored
    max_chars: int | None = None
    #: which input column holds which field (:func:`kpqa.input.frame_to_table`)
    columns: Mapping[str, str] | None = None
    progress: bool = False
    #: worker processes for the metrics that load no model (:mod:`kpqa.workers`; 0: none)
    workers: int = 0

    def kwargs(self) -> dict[str, Any]:
        """The options as :class:`~kpqa.scoring.Scorer` keywords."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def split(cls, options: Mapping[str, Any]) -> tuple["ScorerOptions", dict[str, Any]]:
        """``options`` (Scorer keywords) as the options object of the keywords it has and the rest."""
        names = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in options.items() if k in names}), \
            {k: v for k, v in options.items() if k not in names}


Pair = tuple[str, str]
WordWeightFn = Callable[[Sequence[Pair], "Tokenizer"], list[np.ndarray]]
"""``fn(pairs, tokenizer)``: for each (question, text) pair, one weight per ``tokenizer.tokenize(text)`` token."""
PieceTokensFn = Callable[[Sequence[Pair]], list[tuple[list[str], np.ndarray]]]
"""``fn(pairs)``: for each (question, text) pair, the text's word pieces (as strings) and one weight per piece."""
Progress = Callable[[int, int], None]
"""``progress(done, total)``: called as work advances (a weighter's forward passes done of those it plans)."""


class KeyphraseWeighter(Protocol):
    """What the metrics need of a keyphrase weighter (:class:`kpqa.models.weighter.Weighter` is one): its weights
    and what the signatures of its scores name (checkpoint hash, backbone, whether it reads the question, arithmetic
    precision, function-word weight)."""

    checkpoint_hash: str
    backbone: str
    use_question: bool
    function_word_weight: float

    @property
    def precision(self) -> str:
        """``fp32``, ``bf16`` or ``fp16``."""

    def piece_weights(self, pairs: Sequence[Pair], progress: Progress | None = None
                      ) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per pair, the character offsets [n, 2] of the text's pieces and their weights; ``progress(done, total)``
        after each step of the work (the scorer's progress bar moves with it)."""

    def word_weights(self, pairs: Sequence[Pair], tokenizer: "Tokenizer") -> list[np.ndarray]: ...

    def piece_tokens(self, pairs: Sequence[Pair]) -> list[tuple[list[str], np.ndarray]]: ...


class Cached(Protocol):
    """A model that keeps results of earlier calls (an encoder's embeddings, a weighter's weights)."""

    def clear_cache(self) -> None: ...


T = TypeVar("T")
M = TypeVar("M", bound=Cached)


class Models:
    """The models of a run, each loaded on first use under a key that says what it is (e.g. encoder, backbone,
    device, precision) and kept as long as this object is."""

    def __init__(self) -> None:
        self._loaded: dict[Hashable, Cached] = {}

    def get(self, key: Hashable, load: Callable[[], M]) -> M:
        """The model under ``key``, ``load()``-ed the first time."""
        if key not in self._loaded:
            self._loaded[key] = load()
        model: M = self._loaded[key]  # type: ignore[assignment]
        return model

    def __iter__(self) -> Iterator[Cached]:
        return iter(list(self._loaded.values()))

    def clear_caches(self) -> None:
        """Forget what every model kept from earlier calls (cold timings)."""
        for model in self:
            model.clear_cache()


@dataclass
class Context:
    """Resources and settings shared by the metrics of one scoring run.

    ``weighter`` fills ``word_weights`` and ``piece_tokens`` from its methods of those names unless they are given.
    ``models``: where the metrics keep the models they load (:class:`Models`; a scorer shares one among its contexts).
    """

    tokenizer: str = DEFAULT_TOKENIZER
    word_weights: WordWeightFn | None = None
    piece_tokens: PieceTokensFn | None = None
    weighter: KeyphraseWeighter | None = None
    device: str = DEFAULT_DEVICE
    batch_size: int = DEFAULT_BATCH_SIZE
    precision: str = DEFAULT_PRECISION
    memo: dict[Hashable, Any] | None = None
    models: Models = field(default_factory=Models)
    #: the corpus statistics of the whole input by :meth:`~kpqa.metrics.base.Metric.corpus_key` (the scorer's corpus
    #: pass, for the metrics whose reduction is a corpus pass)
    corpus: Mapping[Hashable, Any] | None = None

    def __post_init__(self) -> None:
        if self.weighter is not None:
            if self.word_weights is None:
                self.word_weights = self.weighter.word_weights
            if self.piece_tokens is None:
                self.piece_tokens = self.weighter.piece_tokens

    def shared(self, key: Hashable, compute: Callable[[], T]) -> T:
        """``compute()``, done once per ``key`` while this context's ``memo`` lives (every time without one)."""
        if self.memo is None:
            return compute()
        if key not in self.memo:
            self.memo[key] = compute()
        value: T = self.memo[key]
        return value
