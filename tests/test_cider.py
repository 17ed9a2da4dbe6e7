"""CIDEr (COCO's CIDEr-D): COCO's values over a small corpus, a hand-computed case, corpus-dependent idf."""
from __future__ import annotations

import math

import numpy as np
import pytest
from coco_values import COCO_ROWS

from kpqa.metrics import Context, Rows, get_metric
from kpqa.metrics.cider import cider_d
from kpqa.text import get_tokenizer

tok = get_tokenizer("ptb").tokenize


def test_cider_equals_coco_over_the_same_corpus():
    cands = [tok(c) for c, *_ in COCO_ROWS]
    refs = [[tok(r) for r in rs] for _, rs, *_ in COCO_ROWS]
    assert cider_d(cands, refs) == pytest.approx([e for *_, e in COCO_ROWS], rel=1e-9)


def test_registered_metric():
    rows = Rows(questions=[""] * len(COCO_ROWS), candidates=[c for c, *_ in COCO_ROWS],
                references=[list(r) for _, r, *_ in COCO_ROWS])
    metric = get_metric("CIDEr")
    scores = metric.score(rows, Context())["CIDEr"]
    assert scores == pytest.approx([e for *_, e in COCO_ROWS], rel=1e-9)
    assert "|n:4|sigma:6.0|idf:refs|" in str(metric.signature(Context()))


def test_hand_computed():
    # N = 2 rows: idf(a) = log 2. Row 1 matches its reference on unigrams only: cosine 1 for n = 1, 0 for n = 2..4,
    # equal lengths (no penalty): mean over orders 1/4, times 10 = 2.5. Row 2 shares nothing with its reference.
    assert cider_d([["a"], ["b"]], [[["a"]], [["c"]]]).tolist() == [2.5, 0.0]
    # cosines 1/sqrt(2) (unigrams), 1/sqrt(3) (bigrams), 0, 0; two bigrams more than the reference: exp(-4 / 72)
    got = cider_d([["a", "b", "x", "y"], ["q"]], [[["a", "b"]], [["r"]]])[0]
    assert got == pytest.approx((1 / math.sqrt(2) + 1 / math.sqrt(3)) / 4 * 10 * math.exp(-4 / 72), rel=1e-12)


def test_idf_comes_from_the_scored_rows():
    cands, refs = [["a", "b"]], [[["a", "b", "c"]]]
    alone = cider_d(cands, refs)  # log(1) = 0: every idf is 0, so is the score
    with_others = cider_d(cands + [["z"]], refs + [[["y"]]])
    assert alone.tolist() == [0.0] and with_others[0] > 0


def test_empty_input():
    assert cider_d([], []).shape == (0,)
    assert np.all(cider_d([[], ["a"]], [[["a"]], [["a"]]]) >= 0)
