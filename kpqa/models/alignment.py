"""Piece -> token weights: the one mapping from the weighter's word pieces to any other token unit."""
from __future__ import annotations

import numpy as np

#: token x piece cells compared at a time: memory stays ~ this many bytes x 9 whatever the texts' lengths
BLOCK_CELLS = 1 << 20


def max_overlap(token_spans: np.ndarray, piece_spans: np.ndarray, piece_weights: np.ndarray) -> np.ndarray:
    """Weight of each token (character spans [n, 2]): the largest weight of the pieces (spans [m, 2]) overlapping
    it, 0 when none does (e.g. a token the backbone drops). With the same tokenizer on both sides this is the
    piece's own weight. float32 [n]. Tokens are compared in blocks of at most :data:`BLOCK_CELLS` token x piece
    cells, each only with the pieces that can reach its character range, so time and memory stay linear for
    texts in reading order."""
    t = np.asarray(token_spans).reshape(-1, 2)
    p = np.asarray(piece_spans).reshape(-1, 2)
    w = np.asarray(piece_weights, dtype=np.float32).reshape(-1)
    order = np.argsort(p[:, 0], kind="stable")
    p, w = p[order], w[order]
    reach = np.maximum.accumulate(p[:, 1]) if len(p) else p[:, 1]  # the furthest end of the pieces up to each one
    out = np.zeros(len(t), dtype=np.float32)
    rows = max(1, BLOCK_CELLS // max(1, len(p)))
    for start in range(0, len(t), rows):
        block = t[start:start + rows]
        lo = int(np.searchsorted(reach, block[:, 0].min(), side="right"))  # pieces before lo end at or before it
        hi = int(np.searchsorted(p[:, 0], block[:, 1].max(), side="left"))  # pieces from hi start at or after it
        while hi > lo:  # at most BLOCK_CELLS cells at a time
            step = max(1, BLOCK_CELLS // len(block))
            cand = slice(lo, min(hi, lo + step))
            overlap = (p[None, cand, 0] < block[:, 1:2]) & (p[None, cand, 1] > block[:, 0:1])
            best = np.where(overlap, w[None, cand], np.float32(0.0)).max(axis=1, initial=0.0)
            out[start:start + len(block)] = np.maximum(out[start:start + len(block)], best)
            lo = cand.stop
    return out


def max_overlap_each(items: list[tuple[np.ndarray, np.ndarray, np.ndarray]]) -> list[np.ndarray]:
    """:func:`max_overlap` of each (token spans, piece spans, piece weights), the same numbers, in one pass over all
    of them: each text's spans are moved past the previous text's, so that no two texts' spans can overlap."""
    tokens, pieces, weights, counts = [], [], [], []
    shift = 0
    for token_spans, piece_spans, piece_weights in items:
        t = np.asarray(token_spans, dtype=np.int64).reshape(-1, 2)
        p = np.asarray(piece_spans, dtype=np.int64).reshape(-1, 2)
        tokens.append(t + shift)
        pieces.append(p + shift)
        weights.append(np.asarray(piece_weights, dtype=np.float32).reshape(-1))
        counts.append(len(t))
        shift += max(int(t.max(initial=0)), int(p.max(initial=0))) + 1
    if not items:
        return []
    out = max_overlap(np.concatenate(tokens), np.concatenate(pieces), np.concatenate(weights))
    return np.split(out, np.cumsum(counts)[:-1])
