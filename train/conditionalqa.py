"""ConditionalQA (Sun et al. 2022; its own JSON layout, or the same records as rows) to tagged answer sentences.

A record has ``id``, ``question``, ``scenario``, ``answers`` (``[answer, conditions]`` pairs; many are "yes"/"no")
and ``evidences`` (HTML sentences of the document that support the answer). The documents themselves are not
shared, so the evidence sentences (tags stripped) are the only context: an extractive answer is tagged wherever
it occurs in them (case-insensitive, on word boundaries); a yes/no answer gives a polar example with the
evidence as its text. The scenario is not part of the question (the weighter sees the question alone, as at
scoring time).
"""
from __future__ import annotations

import html
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from kpqa.errors import InputError

from .examples import TaggedExample, polar_answer, polar_answers
from .layout import field
from .sentences import TOO_LONG, disjoint, find_occurrences, join_texts, too_long

LAYOUT = "ConditionalQA"
_TAG = re.compile(r"<[^>]+>")


@dataclass(frozen=True)
class ConditionalRecord:
    """One question: its answers (conditions dropped) and evidence sentences as plain text."""

    id: str
    question: str
    answers: tuple[str, ...]
    evidences: tuple[str, ...]


def plain(fragment: str) -> str:
    """An HTML fragment as plain text: tags dropped, entities decoded, whitespace collapsed."""
    return " ".join(html.unescape(_TAG.sub(" ", fragment)).split())


def records_from_rows(rows: Iterable[Any], file: str) -> Iterator[ConditionalRecord]:
    """The records of a ConditionalQA file (a JSON list) or the same records as rows."""
    for i, record in enumerate(rows):
        where = f"record {i}"
        answers = []
        for j, pair in enumerate(field(record, "answers", list, file=file, where=where, layout=LAYOUT)):
            if not (isinstance(pair, list) and pair and isinstance(pair[0], str)):
                raise InputError(f"{where}.answers[{j}]: expected [answer, conditions], got {pair!r:.60}", file=file)
            answers.append(pair[0])
        evidences = field(record, "evidences", list, file=file, where=where, layout=LAYOUT)
        yield ConditionalRecord(id=str(record.get("id", i)),
                                question=field(record, "question", str, file=file, where=where, layout=LAYOUT),
                                answers=tuple(answers),
                                evidences=tuple(t for t in (plain(str(e)) for e in evidences) if t))


def records_from_json(data: Any, file: str) -> Iterator[ConditionalRecord]:
    """The records of a ConditionalQA JSON file (a list of objects)."""
    if not isinstance(data, list):
        got = "an object with 'data' (SQuAD layout?)" if isinstance(data, dict) and "data" in data else "an object"
        raise InputError(f"expected a ConditionalQA JSON list of records, got {got}", file=file)
    return records_from_rows(data, file)


def convert(records: Iterable[ConditionalRecord], counts: Counter) -> Iterator[TaggedExample]:
    """Tagged examples from ConditionalQA records; ``counts`` gets ``kept`` / ``yes/no answer`` or why a record was
    skipped."""
    for record in records:
        answers = [a.strip() for a in record.answers if a.strip()]
        if not answers:
            counts["no answer"] += 1
            continue
        if not record.evidences:
            counts["no evidence"] += 1
            continue
        text, _ = join_texts([(sentence, ()) for sentence in record.evidences])
        if too_long(text, record.question):
            counts[TOO_LONG] += 1
            continue
        polar = polar_answers(answers)
        if polar:
            counts["yes/no answer"] += 1
            yield TaggedExample(question=record.question, text=text, spans=(), source="conditionalqa", id=record.id,
                                polar=polar)
            continue
        tagged = disjoint([span for a in answers if not polar_answer(a) for span in find_occurrences(text, a)])
        if not tagged:
            counts["answer not in evidence"] += 1
            continue
        counts["kept"] += 1
        yield TaggedExample(question=record.question, text=text, spans=tagged, source="conditionalqa", id=record.id)
