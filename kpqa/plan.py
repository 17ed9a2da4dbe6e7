"""What one input settles of a scoring run (issue 61): a :class:`Plan`, computed per input and handed to the
stream, resume and compare, so that a :class:`~kpqa.scoring.Scorer` stays as it was built whatever it scored before.

Two things are settled by the input rather than by the scorer's options: the lexical tokenizer under
``tokenize="auto"`` (``zh`` when most texts of the first rows are Chinese / Japanese, else ``ptb``:
:func:`kpqa.text.pick_tokenizer`), and, under ``known_wrong=None``, whether every metric is also scored against the
rows' known-wrong answers (``M-wrong``: when the input has an ``incorrect_answers`` column). A file read chunk by
chunk is settled by its first rows (its first chunk's, :data:`~kpqa.stream.CHUNK_ROWS`, under ``auto``, else one),
whatever the chunks it is scored in.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any, Iterable, Iterator

from kpqa.input import ColumnMap, Table
from kpqa.rows import Rows
from kpqa.stream import CHUNK_ROWS, Chunks
from kpqa.text import AUTO, resolve_tokenizer


@dataclass(frozen=True)
class Plan:
    """The lexical tokenizer and whether the known-wrong answers are scored (``M-wrong``), for one input."""

    tokenize: str
    known_wrong: bool


def plan_of(rows: Rows | None, tokenize: str, known_wrong: bool | None) -> Plan:
    """The plan of ``rows`` under the options ``tokenize`` and ``known_wrong`` (None: when ``rows`` have
    known-wrong answers); no rows: ``auto`` takes ``ptb`` and there are no known-wrong answers."""
    texts = [] if rows is None or tokenize != AUTO else list(rows.candidates) + [r for g in rows.references for r in g]
    wrong = known_wrong if known_wrong is not None else rows is not None and rows.wrong is not None
    return Plan(tokenize=resolve_tokenizer(tokenize, texts), known_wrong=wrong)


def plan_of_source(source: Any, tokenize: str, known_wrong: bool | None, fields: ColumnMap | None) -> Plan:
    """The plan of an input read chunk by chunk (a file): what its first rows settle."""
    if tokenize != AUTO and known_wrong is not None:
        return plan_of(None, tokenize, known_wrong)
    first = next(iter(Chunks(source, CHUNK_ROWS if tokenize == AUTO else 1, "skip", None, fields)), None)
    return plan_of(None if first is None else first.rows, tokenize, known_wrong)


def first_settles(tables: Iterable[Table], tokenize: str, known_wrong: bool | None
                  ) -> tuple[Plan, Iterator[Table]]:
    """The plan of a stream of tables (its first table's) and the same stream, that table kept."""
    it = iter(tables)
    first = next(it, None)
    plan = plan_of(None if first is None else first.rows, tokenize, known_wrong)
    return plan, itertools.chain([] if first is None else [first], it)
