"""Hash folds by question: the one rule that puts a question in a fold, shared by the answer-equivalence trainer's
cross-validation (``kpqa train-equivalence --folds``), the judge's cross-validation and ``kpqa calibrate --fold``,
so that a judge is fitted and measured on exactly the rows a model never saw; and a question's digest, by which a
calibration records the questions it was fitted on."""
from __future__ import annotations

import hashlib

#: the seed of the shipped models' folds
SEED = 13


def fold_of(question: str, k: int, seed: int = SEED) -> int:
    """The hash fold (0 to ``k - 1``) of a question: sha256 of ``"{seed}|{question}"`` (the question stripped of
    surrounding white space), its first 8 bytes as a big-endian integer, modulo ``k``. A row's fold depends only
    on its question, not on which other rows or files are loaded, so a generated row that keeps its source's
    question (:mod:`experiments.generators.swaps`, :mod:`experiments.generators.nearmiss`) lands in its source row's fold."""
    digest = hashlib.sha256(f"{seed}|{question.strip()}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % k


def question_digest(question: str) -> str:
    """A question's identity in a calibration file's list of the questions it was fitted on: the first 16 hex
    digits of the sha256 of the question, white space collapsed and lower case."""
    return hashlib.sha256(" ".join(question.lower().split()).encode()).hexdigest()[:16]


def parse_fold(text: str) -> tuple[int, int]:
    """``K/N`` -> (K, N), with 0 <= K < N; ValueError otherwise."""
    k, _, n = text.partition("/")
    fold, folds = int(k), int(n)
    if not 0 <= fold < folds:
        raise ValueError(f"{text!r}: needs K/N with 0 <= K < N")
    return fold, folds
