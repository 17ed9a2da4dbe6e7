"""Stand-ins for the models, for tests of the metrics' and the scorer's logic that need none loaded."""
from __future__ import annotations

import numpy as np

from kpqa.models.alignment import max_overlap


class StubWeighter:
    """A keyphrase weighter (:class:`kpqa.context.KeyphraseWeighter`) whose subclasses give ``piece_weights``; the
    words' weights and the pieces' strings follow from it as the real weighter's do. It records the pairs asked."""

    checkpoint_hash = "stub"
    backbone = "stub"
    use_question = True
    function_word_weight = 1.0
    precision = "fp32"

    def __init__(self) -> None:
        self.asked: list[tuple[str, str]] = []

    def piece_weights(self, pairs, progress=None):
        raise NotImplementedError

    def word_weights(self, pairs, tokenizer):
        out = []
        for (offsets, weights), (_, text) in zip(self.piece_weights(pairs), pairs):
            spans = np.array([(s, e) for _, s, e in tokenizer.spans(text)], dtype=np.int64).reshape(-1, 2)
            out.append(max_overlap(spans, offsets, weights))
        return out

    def piece_tokens(self, pairs):
        return [([text[s:e].lower() for s, e in offsets], weights)
                for (offsets, weights), (_, text) in zip(self.piece_weights(pairs), pairs)]


class WordWeighter(StubWeighter):
    """One piece per whitespace word, weighted ``weight(word)`` (default 1)."""

    def __init__(self, weight=lambda word: 1.0) -> None:
        super().__init__()
        self.weight = weight

    def piece_weights(self, pairs, progress=None):
        self.asked += list(pairs)
        if progress is not None:
            progress(1, 1)
        out = []
        for _, text in pairs:
            spans, pos = [], 0
            for word in text.split():
                start = text.index(word, pos)
                spans.append((start, start + len(word)))
                pos = start + len(word)
            out.append((np.array(spans, dtype=np.int64).reshape(-1, 2),
                        np.array([self.weight(text[s:e]) for s, e in spans], dtype=np.float32)))
        return out
