"""MS-MARCO Q&A v2.1 (official JSON, a list of records, JSONL, or the ``ms_marco`` v2.1 hub dataset) to tagged answer
sentences: the sentences of the selected passages that hold an answer, with every occurrence of an answer tagged.

Answers are matched case-insensitively on word boundaries, without a final full stop (a written answer often ends
with one where the passage goes on); an answer that crosses a sentence boundary takes all the sentences it
touches. ``wellFormedAnswers`` are rewrites of the answer into a full sentence, not passage text, so they are not
used. Queries answered "No Answer Present." are skipped. A "Yes" or "No" answer gives a polar example (see
:class:`~kpqa.train.examples.TaggedExample`) with the first sentence of the first selected passage as evidence.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from kpqa.errors import InputError

from .examples import TaggedExample, polar_answers
from .layout import field
from .sentences import TOO_LONG, covering_sentences, find_occurrences, join_texts, sentence_bounds, too_long

LAYOUT = "MS-MARCO"
NO_ANSWER = "No Answer Present."


@dataclass(frozen=True)
class MarcoRecord:
    """One query in the form all routes share: ``passages`` are ``(is_selected, passage_text)`` pairs."""

    id: str
    question: str
    passages: tuple[tuple[bool, str], ...]
    answers: tuple[str, ...]


def _rows(data: Any, file: str) -> Iterator[tuple[str, Any]]:
    """``(row key, record)`` pairs of the column-oriented official layout or of a list of records."""
    if isinstance(data, list):
        yield from ((str(i), record) for i, record in enumerate(data))
        return
    if isinstance(data, dict) and isinstance(data.get("query"), dict):
        columns = {name: column for name, column in data.items() if isinstance(column, dict)}
        for key in data["query"]:
            yield key, {name: column[key] for name, column in columns.items() if key in column}
        return
    got = "an object with 'data' (SQuAD layout?)" if isinstance(data, dict) and "data" in data else "another layout"
    raise InputError(f"expected MS-MARCO records (columns keyed by row, a list, or JSON lines), got {got}", file=file)


def records_from_json(data: Any, file: str) -> Iterator[MarcoRecord]:
    """The queries of an MS-MARCO v2.1 file: ``query, passages[{is_selected, passage_text}], answers``."""
    for key, record in _rows(data, file):
        where = f"row {key}"
        passages = field(record, "passages", list, file=file, where=where, layout=LAYOUT)
        pairs = []
        for j, passage in enumerate(passages):
            selected = field(passage, "is_selected", (int, bool), file=file, where=f"{where}.passages[{j}]",
                             layout=LAYOUT)
            text = field(passage, "passage_text", str, file=file, where=f"{where}.passages[{j}]", layout=LAYOUT)
            pairs.append((bool(selected), text))
        answers = field(record, "answers", list, file=file, where=where, layout=LAYOUT)
        yield MarcoRecord(id=str(record.get("query_id", key)),
                          question=field(record, "query", str, file=file, where=where, layout=LAYOUT),
                          passages=tuple(pairs), answers=tuple(map(str, answers)))


def records_from_rows(rows: Iterable[dict[str, Any]], file: str) -> Iterator[MarcoRecord]:
    """The rows of the ``ms_marco`` v2.1 hub dataset (``passages{is_selected[], passage_text[]}``)."""
    layout = "ms_marco dataset"
    for i, row in enumerate(rows):
        where = f"row {i}"
        passages = field(row, "passages", dict, file=file, where=where, layout=layout)
        selected = field(passages, "is_selected", list, file=file, where=f"{where}.passages", layout=layout)
        texts = field(passages, "passage_text", list, file=file, where=f"{where}.passages", layout=layout)
        yield MarcoRecord(id=str(row.get("query_id", i)),
                          question=field(row, "query", str, file=file, where=where, layout=layout),
                          passages=tuple((bool(s), str(t)) for s, t in zip(selected, texts)),
                          answers=tuple(map(str, field(row, "answers", list, file=file, where=where, layout=layout))))


def _needle(answer: str) -> str:
    answer = answer.strip()
    return answer[:-1].rstrip() if answer.endswith(".") else answer


def convert(records: Iterable[MarcoRecord], counts: Counter) -> Iterator[TaggedExample]:
    """Tagged examples from MS-MARCO records; ``counts`` gets ``kept`` or the reason a record was skipped."""
    for record in records:
        needles = [n for n in dict.fromkeys(_needle(a) for a in record.answers if a.strip() != NO_ANSWER) if n]
        if not needles:
            counts["no answer"] += 1
            continue
        selected = [text for is_selected, text in record.passages if is_selected]
        if too_long(record.question, *selected):
            counts[TOO_LONG] += 1
            continue
        polar = polar_answers(needles)
        if polar:
            counts["yes/no answer"] += 1
            evidence = sentence_bounds(selected[0]) if selected else ()
            text = selected[0][slice(*evidence[0])] if evidence else ""
            yield TaggedExample(question=record.question, text=text, spans=(), source="msmarco", id=record.id,
                                polar=polar)
            continue
        if not selected:
            counts["no selected passage"] += 1
            continue
        parts = [covering_sentences(text, [span for needle in needles for span in find_occurrences(text, needle)])
                 for text in selected]
        text, spans = join_texts(parts)
        if not spans:
            counts["answer not in selected passages"] += 1
            continue
        counts["kept"] += 1
        yield TaggedExample(question=record.question, text=text, spans=spans, source="msmarco", id=record.id)
