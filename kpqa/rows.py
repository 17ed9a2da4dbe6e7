"""The batch of examples every stage passes along: questions, candidates, references and optional labels."""
from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Callable, Sequence, TypeVar

import numpy as np

T = TypeVar("T")

#: the longest text (question, answer or reference, in characters) a row may hold by default with a model metric:
#: their memory is linear in the texts (blocks, windows, one LCS row at a time), but the time of the weighted LCS
#: grows with the product of two texts' lengths and the models' with the length, so a longer text makes a bad row
#: (:func:`kpqa.input.frame_to_table`) rather than a run of hours. About 33,000 words; a 200,000-character answer
#: against a 200,000-character reference takes about five minutes of one CPU core (docs/benchmark.md).
MAX_CHARS = 200_000


@dataclass
class Rows:
    """A batch of examples. ``references[i]`` holds the non-empty references of row ``i`` (at least one).

    Optional fields are ``None`` when the input has no such column: ``candidate_labels[i]`` and
    ``reference_labels[i][k]`` are Yes / No / Depends opinion labels (Yang et al.), ``entities[i]`` the gold
    entity strings of row ``i``, ``wrong[i]`` the answers known to be wrong for row ``i`` (``incorrect_answers``;
    possibly none for a row).
    """

    questions: list[str]
    candidates: list[str]
    references: list[list[str]]
    candidate_labels: list[str | None] | None = None
    reference_labels: list[list[str | None]] | None = None
    entities: list[list[str]] | None = None
    wrong: list[list[str]] | None = None

    def __len__(self) -> int:
        return len(self.candidates)


def take_rows(rows: Rows, start: int, end: int) -> Rows:
    """Rows ``start`` to ``end`` (exclusive) of ``rows``."""
    return _each_field(rows, lambda values: values[start:end])


def select_rows(rows: Rows, indices: Sequence[int]) -> Rows:
    """The rows at ``indices`` of ``rows``, in that order."""
    return _each_field(rows, lambda values: [values[i] for i in indices])


def concat_rows(parts: Sequence[Rows]) -> Rows:
    """The rows of ``parts`` one after the other (an optional field is kept when every part has it)."""
    out: dict[str, Any] = {}
    for f in fields(Rows):
        values = [getattr(p, f.name) for p in parts]
        out[f.name] = None if any(v is None for v in values) else [x for v in values for x in v]
    return Rows(**out)


def _each_field(rows: Rows, cut: Callable[[list], list]) -> Rows:
    """``rows`` with ``cut`` applied to each of its fields (every one of the dataclass's; None stays None)."""
    out: dict[str, Any] = {f.name: None if getattr(rows, f.name) is None else cut(getattr(rows, f.name))
                           for f in fields(Rows)}
    return Rows(**out)


def weighted_pairs(rows: Rows, question: bool = True) -> list[tuple[str, str]]:
    """The (question, text) pairs keyphrase weights are computed for: every candidate, then every reference (rows
    flattened); each question empty with ``question=False``."""
    questions = rows.questions if question else [""] * len(rows)
    pairs = list(zip(questions, rows.candidates))
    return pairs + [(q, r) for q, g in zip(questions, rows.references) for r in g]


def regroup(items: Sequence[T], groups: Sequence[Sequence[str]]) -> list[list[T]]:
    """Split ``items`` (one per reference, rows flattened) back into one list per row."""
    out, k = [], 0
    for g in groups:
        out.append(list(items[k : k + len(g)]))
        k += len(g)
    return out


#: the suffix of a metric column's score against the row's known-wrong answers: ``M-wrong`` is ``M`` with those
#: answers as the references (empty where a row has none); a judge's input, with no decision of its own
WRONG_SUFFIX = "-wrong"


def against_wrong(rows: Rows) -> tuple[Rows, list[int]]:
    """The rows that have known-wrong answers, each with those answers as its references (labels and entities
    dropped), and their indices in ``rows``: what a metric scores to say how close an answer is to a wrong one."""
    wrong = rows.wrong or []
    have = [i for i, w in enumerate(wrong) if w]
    return Rows([rows.questions[i] for i in have], [rows.candidates[i] for i in have],
                [list(wrong[i]) for i in have]), have


def wrong_as_reference(rows: Rows) -> list[int]:
    """The indices of the rows with a known-wrong answer equal to one of their references (case and spacing aside):
    an answer the row calls both right and wrong, which the judge would weigh as both."""
    same = lambda text: " ".join(text.casefold().split())  # noqa: E731
    return [i for i, wrong in enumerate(rows.wrong or []) if wrong and {same(w) for w in wrong} &
            {same(r) for r in rows.references[i]}]


def empty_answers(rows: Rows) -> np.ndarray:
    """A mask of the rows whose answer is empty (a system that said nothing: every metric at its floor)."""
    return np.array([not c for c in rows.candidates], dtype=bool)
