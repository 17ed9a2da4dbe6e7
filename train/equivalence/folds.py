"""The dev split and the cross-validation folds: whole questions (or groups) on one side."""
from __future__ import annotations

from typing import Sequence

import numpy as np

from kpqa.errors import InputError
from kpqa.folds import fold_of

from ..skeleton import grouped_split
from .config import EquivalenceConfig
from .data import Example


def split_dev(examples: Sequence[Example], share: float, seed: int) -> tuple[list[int], list[int]]:
    """(train, dev) indices, whole groups on one side (:func:`kpqa.train.skeleton.grouped_split`)."""
    return grouped_split([e.group for e in examples], share, seed)


def grouped_folds(examples: Sequence[Example], k: int, seed: int) -> np.ndarray:
    """Each example's fold, 0 to ``k - 1``: scikit-learn's ``GroupKFold`` (shuffled, seeded) with the question as
    the group, so that every answer to a question is in one fold and no question is on both sides of a split."""
    from sklearn.model_selection import GroupKFold

    questions = [e.question for e in examples]
    if len(set(questions)) < k:
        raise InputError(f"{k} folds need at least {k} distinct questions")
    fold = np.empty(len(examples), dtype=int)
    splitter = GroupKFold(n_splits=k, shuffle=True, random_state=seed)
    for f, (_, test) in enumerate(splitter.split(np.zeros(len(questions)), groups=questions)):
        fold[test] = f
    return fold


def hash_folds(examples: Sequence[Example], k: int, seed: int) -> np.ndarray:
    """Each example's :func:`fold_of` its question."""
    if len({e.question.strip() for e in examples}) < k:
        raise InputError(f"{k} folds need at least {k} distinct questions")
    return np.array([fold_of(e.question, k, seed) for e in examples], dtype=int)


def fold_by(config: EquivalenceConfig) -> str:
    """How ``--folds`` splits: ``hash`` (:func:`fold_of`) or ``group`` (:func:`grouped_folds`); ``--fold-by`` when
    given, else hash folds with ``--mix`` and grouped ones without."""
    return config.fold_by or ("hash" if config.mix is not None else "group")
