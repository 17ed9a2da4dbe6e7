"""Boosted regression trees as plain arrays, the model of a ``trees`` judge (:class:`~kpqa.calibration.TreesJudge`):
each :class:`Tree` is a flat list of nodes, and :func:`leaf_sum` walks every row through every tree at once in numpy,
level by level. :func:`from_hist_gradient_boosting` reads them out of a fitted scikit-learn
``HistGradientBoostingClassifier``; it has no public view of its trees, so this reads its private ``_predictors``
and ``_baseline_prediction`` (tests/test_calibration.py checks that the walk gives its ``decision_function``). See
:mod:`kpqa.calibration`."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

#: rows walked through the trees at a time (the walk holds a few arrays of rows x trees node indices)
BLOCK_ROWS = 4096
#: the fields of scikit-learn's tree nodes (``TreePredictor.nodes``) read here
NODE_FIELDS = ("value", "feature_idx", "num_threshold", "missing_go_to_left", "left", "right", "is_leaf",
               "is_categorical")


@dataclass
class Tree:
    """One regression tree as flat node arrays, node 0 its root. An inner node sends a row to ``left[i]`` when its
    score ``feature[i]`` (an index into the judge's inputs) is ``<= threshold[i]``, else to ``right[i]``, and a row
    whose score is missing (NaN) to ``left[i]`` when ``missing_left[i]``; a leaf has ``feature`` -1 (``left`` and
    ``right`` -1, ``threshold`` 0, ``missing_left`` false) and adds ``value[i]`` (the learning rate included) to the
    row's logit (inner nodes' ``value`` is 0)."""

    feature: list[int]
    threshold: list[float]
    left: list[int]
    right: list[int]
    missing_left: list[bool]
    value: list[float]

    def __post_init__(self) -> None:
        n = len(self.feature)
        if not n or any(len(a) != n for a in (self.threshold, self.left, self.right, self.missing_left, self.value)):
            raise ValueError("a tree's node arrays must be non-empty and of one length")
        feature, left, right = (np.asarray(a, dtype=int) for a in (self.feature, self.left, self.right))
        inner, index = feature >= 0, np.arange(n)
        if np.any(feature < -1) or np.any(left[~inner] != -1) or np.any(right[~inner] != -1) \
                or np.any(left[inner] <= index[inner]) or np.any(right[inner] <= index[inner]) \
                or np.any(left[inner] >= n) or np.any(right[inner] >= n):
            raise ValueError("a tree's inner nodes must point to later nodes and its leaves (feature -1) to none")


class Flat(NamedTuple):
    """Every tree's nodes in one set of arrays (children as indices into them) and each tree's root."""

    feature: np.ndarray
    threshold: np.ndarray
    left: np.ndarray
    right: np.ndarray
    missing_left: np.ndarray
    value: np.ndarray
    roots: np.ndarray


def flatten(trees: list[Tree]) -> Flat:
    """The nodes of ``trees`` one after the other, children moved by their tree's offset."""
    sizes = np.array([len(t.feature) for t in trees], dtype=int)
    roots = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(int)
    offset = np.repeat(roots, sizes)

    def joined(name: str, dtype: type) -> np.ndarray:
        return np.concatenate([np.asarray(getattr(t, name), dtype=dtype) for t in trees])

    left, right = joined("left", int), joined("right", int)
    return Flat(joined("feature", int), joined("threshold", float), np.where(left >= 0, left + offset, -1),
                np.where(right >= 0, right + offset, -1), joined("missing_left", bool), joined("value", float), roots)


def leaf_sum(flat: Flat, x: np.ndarray) -> np.ndarray:
    """Per row of ``x`` (rows x inputs), the sum over the trees of the value of the leaf it reaches."""
    x = np.asarray(x, dtype=float)
    out = np.empty(len(x))
    for start in range(0, len(x), BLOCK_ROWS):
        block = x[start:start + BLOCK_ROWS]
        node = np.broadcast_to(flat.roots, (len(block), len(flat.roots))).copy()
        rows = np.arange(len(block))[:, None]
        while True:
            feature = flat.feature[node]
            inner = feature >= 0
            if not inner.any():
                break
            score = block[rows, np.maximum(feature, 0)]
            with np.errstate(invalid="ignore"):
                go_left = np.where(np.isnan(score), flat.missing_left[node], score <= flat.threshold[node])
            node = np.where(inner, np.where(go_left, flat.left[node], flat.right[node]), node)
        out[start:start + len(block)] = flat.value[node].sum(axis=1)
    return out


def _tree(nodes: np.ndarray) -> Tree:
    """A scikit-learn ``TreePredictor``'s nodes as a :class:`Tree`."""
    leaf = nodes["is_leaf"].astype(bool)
    feature, left, right = (nodes[f].astype(np.int64) for f in ("feature_idx", "left", "right"))  # left: unsigned
    threshold = np.where(leaf, 0.0, nodes["num_threshold"])
    if nodes["is_categorical"].any() or not np.all(np.isfinite(threshold)):
        raise ValueError("a tree splits on a category or at an infinite threshold (missing values in the fitting "
                         "scores?)")
    missing_left = ~leaf & nodes["missing_go_to_left"].astype(bool)
    return Tree(np.where(leaf, -1, feature).tolist(), threshold.tolist(), np.where(leaf, -1, left).tolist(),
                np.where(leaf, -1, right).tolist(), missing_left.tolist(), np.where(leaf, nodes["value"], 0.0).tolist())


def from_hist_gradient_boosting(model: Any) -> tuple[float, list[Tree]]:
    """(baseline, trees) of a fitted binary ``HistGradientBoostingClassifier``: its ``decision_function`` is
    baseline + :func:`leaf_sum` (its private ``_baseline_prediction`` and ``_predictors``; ValueError when they are
    not what this reads)."""
    predictors, baseline = getattr(model, "_predictors", None), getattr(model, "_baseline_prediction", None)
    if predictors is None or baseline is None or np.size(baseline) != 1 or any(len(p) != 1 for p in predictors) \
            or any(f not in (predictors[0][0].nodes.dtype.names or ()) for f in NODE_FIELDS):
        raise ValueError("scikit-learn's HistGradientBoostingClassifier no longer holds its trees as kpqa reads them "
                         "(_predictors, _baseline_prediction); kpqa.calibration.trees needs updating")
    return float(np.ravel(baseline)[0]), [_tree(p[0].nodes) for p in predictors]
