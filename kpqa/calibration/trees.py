"""Boosted regression trees as plain arrays, the model of a ``trees`` judge (:class:`~kpqa.calibration.TreesJudge`):
each :class:`Tree` is a flat list of nodes, and :func:`leaf_sum` walks every row through every tree at once in numpy,
level by level. :func:`from_gradient_boosting` reads them out of a fitted scikit-learn
``GradientBoostingClassifier`` (its public ``tree_`` arrays). See :mod:`kpqa.calibration`."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

#: rows walked through the trees at a time (the walk holds a few arrays of rows x trees node indices)
BLOCK_ROWS = 4096


@dataclass
class Tree:
    """One regression tree as flat node arrays, node 0 its root. An inner node sends a row to ``left[i]`` when its
    score ``feature[i]`` (an index into the judge's inputs) is ``<= threshold[i]``, else to ``right[i]``; a leaf has
    ``feature`` -1 (``left`` and ``right`` -1, ``threshold`` 0) and adds ``value[i]`` (the learning rate included)
    to the row's logit. Scores are rounded to float32 before the comparison, as scikit-learn's trees do."""

    feature: list[int]
    threshold: list[float]
    left: list[int]
    right: list[int]
    value: list[float]

    def __post_init__(self) -> None:
        n = len(self.feature)
        if not n or any(len(a) != n for a in (self.threshold, self.left, self.right, self.value)):
            raise ValueError("a tree's node arrays must be non-empty and of one length")
        feature, left, right = (np.asarray(a, dtype=int) for a in (self.feature, self.left, self.right))
        inner = feature >= 0
        if np.any(feature < -1) or np.any(left[~inner] != -1) or np.any(right[~inner] != -1) \
                or np.any(left[inner] <= np.flatnonzero(inner)) or np.any(right[inner] <= np.flatnonzero(inner)) \
                or np.any(left[inner] >= n) or np.any(right[inner] >= n):
            raise ValueError("a tree's inner nodes must point to later nodes and its leaves (feature -1) to none")


class Flat(NamedTuple):
    """Every tree's nodes in one set of arrays (children as indices into them) and each tree's root."""

    feature: np.ndarray
    threshold: np.ndarray
    left: np.ndarray
    right: np.ndarray
    value: np.ndarray
    roots: np.ndarray


def flatten(trees: list[Tree]) -> Flat:
    """The nodes of ``trees`` one after the other, children moved by their tree's offset."""
    sizes = np.array([len(t.feature) for t in trees], dtype=int)
    roots = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(int)
    offset = np.repeat(roots, sizes)

    def child(name: str) -> np.ndarray:
        c = np.concatenate([np.asarray(getattr(t, name), dtype=int) for t in trees])
        return np.where(c >= 0, c + offset, -1)

    feature = np.concatenate([np.asarray(t.feature, dtype=int) for t in trees])
    threshold = np.concatenate([np.asarray(t.threshold, dtype=float) for t in trees])
    value = np.concatenate([np.asarray(t.value, dtype=float) for t in trees])
    return Flat(feature, threshold, child("left"), child("right"), value, roots)


def leaf_sum(flat: Flat, x: np.ndarray) -> np.ndarray:
    """Per row of ``x`` (rows x inputs), the sum over the trees of the value of the leaf it reaches."""
    x = np.asarray(x, dtype=float).astype(np.float32).astype(float)
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
            go_left = block[rows, np.maximum(feature, 0)] <= flat.threshold[node]
            node = np.where(inner, np.where(go_left, flat.left[node], flat.right[node]), node)
        out[start:start + len(block)] = flat.value[node].sum(axis=1)
    return out


def _tree(tree: Any, learning_rate: float) -> Tree:
    """A scikit-learn regression tree (``tree_``) as a :class:`Tree`, its leaves' values times ``learning_rate``."""
    leaf = tree.children_left < 0
    return Tree(np.where(leaf, -1, tree.feature).tolist(), np.where(leaf, 0.0, tree.threshold).tolist(),
                np.where(leaf, -1, tree.children_left).tolist(), np.where(leaf, -1, tree.children_right).tolist(),
                np.where(leaf, learning_rate * tree.value[:, 0, 0], 0.0).tolist())


def from_gradient_boosting(model: Any) -> tuple[float, list[Tree]]:
    """(baseline, trees) of a fitted binary ``GradientBoostingClassifier`` (its default initial estimator, a
    prior): its ``decision_function`` is baseline + :func:`leaf_sum`. The baseline is the log-odds of the prior's
    P(correct), clipped to [eps, 1 - eps] as scikit-learn does."""
    eps = np.finfo(np.float64).eps
    p = float(np.clip(model.init_.class_prior_[1], eps, 1 - eps))
    return float(np.log(p / (1 - p))), [_tree(est.tree_, model.learning_rate) for est in model.estimators_[:, 0]]
