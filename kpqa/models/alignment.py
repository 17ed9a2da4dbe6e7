"""Piece -> token weights: the one mapping from the weighter's word pieces to any other token unit."""
from __future__ import annotations

import numpy as np


def max_overlap(token_spans: np.ndarray, piece_spans: np.ndarray, piece_weights: np.ndarray) -> np.ndarray:
    """Weight of each token (character spans [n, 2]): the largest weight of the pieces (spans [m, 2]) overlapping
    it, 0 when none does (e.g. a token the backbone drops). With the same tokenizer on both sides this is the
    piece's own weight. float32 [n]."""
    t = np.asarray(token_spans).reshape(-1, 2)
    p = np.asarray(piece_spans).reshape(-1, 2)
    overlap = (p[None, :, 0] < t[:, 1:2]) & (p[None, :, 1] > t[:, 0:1])
    return np.where(overlap, np.asarray(piece_weights)[None, :], 0.0).max(axis=1, initial=0.0).astype(np.float32)
