"""The batch of examples every stage passes along: questions, candidates, references and optional labels."""
from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any, Callable, Sequence, TypeVar

import numpy as np

from kpqa.cells import WRONG_COLUMN, Cell, entity_list, opinion_label, wrong_answers

T = TypeVar("T")


@dataclass(frozen=True)
class InputField:
    """How input fills an optional field of :class:`Rows`, declared on the field itself (:func:`input_fields`): its
    ``column`` in the KPQA layout, ``read`` (a cell's value -> the field's value for the row, an
    :class:`~kpqa.errors.InputError` naming the cell otherwise; :mod:`kpqa.cells`), ``per_reference`` (a field kept
    per reference: the suffix of its columns, ``reference{k}_label``; ``column`` is then the records' list of them)
    and ``group`` (fields present together, when any of their columns is)."""

    column: str
    read: Callable[[Any, Cell], Any]
    per_reference: str = ""
    group: str = ""
    about: str = ""  # what ``--columns --help`` says of it

    def listing(self) -> str:
        """How the column mapping's help names the field: ``reference1_label..`` per reference, else its column (and
        what it holds)."""
        if self.per_reference:
            return f"reference1{self.per_reference}.."
        return f"{self.column}: {self.about}" if self.about else self.column


def _optional(column: str, read: Callable[[Any, Cell], Any], per_reference: str = "", group: str = "",
              about: str = "") -> Any:
    """An optional field of :class:`Rows` (None when the input has no such column) and how input fills it."""
    return field(default=None, metadata={"input": InputField(column, read, per_reference, group, about)})

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
    candidate_labels: list[str | None] | None = _optional("answer_label", opinion_label, group="labels")
    reference_labels: list[list[str | None]] | None = _optional("reference_labels", opinion_label, "_label", "labels")
    entities: list[list[str]] | None = _optional("entities", entity_list)
    wrong: list[list[str]] | None = _optional(WRONG_COLUMN, wrong_answers,
                                              about="known-wrong answers, one text or a JSON list")

    def __len__(self) -> int:
        return len(self.candidates)


def input_fields() -> dict[str, InputField]:
    """The optional fields of :class:`Rows` by name, in declared order, each with how input fills it: the one list
    the reader (:mod:`kpqa.input`) and the column mapping (``columns``) follow."""
    return {f.name: f.metadata["input"] for f in fields(Rows) if "input" in f.metadata}


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
