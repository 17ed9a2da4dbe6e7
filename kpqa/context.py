"""The typed per-run context the metrics read, and the run defaults (written here once).

A :class:`Context` is built once per scoring run (per weighter) by :class:`kpqa.scoring.Scorer`, or by hand in
tests and scripts. It carries the lexical tokenizer's name, the device / batch size / precision of the models, the
keyphrase weighter when a metric needs one, and ``memo``: work shared by the metrics of one batch (BLEU-1..4 share
their n-gram counts, BERTScore and BERTScore-KPQA their embeddings). The scorer gives every batch a fresh ``memo``
and drops it afterwards, so nothing outlives the batch it was computed for.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Hashable, Protocol, Sequence, TypeVar

import numpy as np

from kpqa.errors import UsageError
from kpqa.text import DEFAULT_TOKENIZER  # noqa: F401  (a run default, named here with the others)

if TYPE_CHECKING:  # pragma: no cover
    from kpqa.text import Tokenizer

DEFAULT_DEVICE = "auto"
DEFAULT_BATCH_SIZE = 64
DEFAULT_PRECISION = "auto"
#: the factor on function words' keyphrase weights (:mod:`kpqa.models.weighter`); 1 = the tagger's own
DEFAULT_FUNCTION_WORD_WEIGHT = 0.2


def check_function_word_weight(value: float) -> float:
    """``value`` as a float if it is in [0, 1], else a UsageError (no torch needed)."""
    if not 0.0 <= value <= 1.0:
        raise UsageError(f"function_word_weight={value}: must be between 0 and 1")
    return float(value)


Pair = tuple[str, str]
WordWeightFn = Callable[[Sequence[Pair], "Tokenizer"], list[np.ndarray]]
"""``fn(pairs, tokenizer)``: for each (question, text) pair, one weight per ``tokenizer.tokenize(text)`` token."""
PieceTokensFn = Callable[[Sequence[Pair]], list[tuple[list[str], np.ndarray]]]
"""``fn(pairs)``: for each (question, text) pair, the text's word pieces (as strings) and one weight per piece."""
PieceWeightsFn = Callable[[Sequence[Pair]], list[tuple[np.ndarray, np.ndarray]]]
"""``fn(pairs)``: for each (question, text) pair, the character offsets [n, 2] of its pieces and their weights."""


class KeyphraseWeighter(Protocol):
    """What the metrics need of a keyphrase weighter (:class:`kpqa.models.weighter.Weighter` is one)."""

    def piece_weights(self, pairs: Sequence[Pair]) -> list[tuple[np.ndarray, np.ndarray]]: ...


T = TypeVar("T")


@dataclass
class Context:
    """Resources and settings shared by the metrics of one scoring run.

    ``weighter`` fills ``word_weights`` and ``piece_tokens`` from its methods of those names unless they are given.
    ``no_question``: the weighter reads no question (the -KP ablation), recorded in the signatures.
    """

    tokenizer: str = DEFAULT_TOKENIZER
    word_weights: WordWeightFn | None = None
    piece_tokens: PieceTokensFn | None = None
    weighter: KeyphraseWeighter | None = None
    no_question: bool = False
    device: str = DEFAULT_DEVICE
    batch_size: int = DEFAULT_BATCH_SIZE
    precision: str = DEFAULT_PRECISION
    memo: dict[Hashable, Any] | None = None

    def __post_init__(self) -> None:
        if self.weighter is not None:
            if self.word_weights is None:
                self.word_weights = getattr(self.weighter, "word_weights", None)
            if self.piece_tokens is None:
                self.piece_tokens = getattr(self.weighter, "piece_tokens", None)

    def shared(self, key: Hashable, compute: Callable[[], T]) -> T:
        """``compute()``, done once per ``key`` while this context's ``memo`` lives (every time without one)."""
        if self.memo is None:
            return compute()
        if key not in self.memo:
            self.memo[key] = compute()
        value: T = self.memo[key]
        return value
