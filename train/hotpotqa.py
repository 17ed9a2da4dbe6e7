"""HotpotQA (official JSON or the ``hotpot_qa`` hub dataset) to tagged answer sentences: the supporting-fact
sentences in the order given, with every occurrence of the answer tagged.

The KPQA paper resolved coreferences in the paragraphs with SpanBERT before picking the supporting sentences; no
coreference model can be had here, so the sentences are taken as written (a pronoun stays a pronoun), and the
answer is tagged wherever its text occurs in them (case-insensitive, on word boundaries). Yes/no answers, which
are not in the passage, give polar examples with the supporting sentences as evidence (the paper dropped them,
section 5.1; ``kpqa train --yes-no off`` still does).
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from kpqa.errors import InputError

from .examples import TaggedExample, polar_answer
from .layout import field
from .sentences import TOO_LONG, find_occurrences, join_texts, too_long

LAYOUT = "HotpotQA"


@dataclass(frozen=True)
class HotpotRecord:
    """One question in the form both routes share."""

    id: str
    question: str
    answer: str
    supporting_facts: tuple[tuple[str, int], ...]
    context: tuple[tuple[str, tuple[str, ...]], ...]


def records_from_json(data: Any, file: str) -> Iterator[HotpotRecord]:
    """The records of a HotpotQA JSON file (a list of ``_id, question, answer, supporting_facts, context``)."""
    if not isinstance(data, list):
        got = "an object with 'data' (SQuAD layout?)" if isinstance(data, dict) and "data" in data else "an object"
        raise InputError(f"expected a HotpotQA JSON list of records, got {got}", file=file)
    for i, record in enumerate(data):
        where = f"record {i}"
        facts = field(record, "supporting_facts", list, file=file, where=where, layout=LAYOUT)
        context = field(record, "context", list, file=file, where=where, layout=LAYOUT)
        if not all(isinstance(f, list) and len(f) == 2 and isinstance(f[1], int) for f in facts):
            raise InputError(f"{where}: 'supporting_facts' should be [title, sentence index] pairs", file=file)
        # entries may carry more after the sentences (half the shared sample has a float score there)
        if not all(isinstance(c, list) and len(c) >= 2 and isinstance(c[1], list) for c in context):
            raise InputError(f"{where}: 'context' should be a list of [title, [sentences]]", file=file)
        yield HotpotRecord(id=str(field(record, "_id", (str, int), file=file, where=where, layout=LAYOUT)),
                           question=field(record, "question", str, file=file, where=where, layout=LAYOUT),
                           answer=field(record, "answer", str, file=file, where=where, layout=LAYOUT),
                           supporting_facts=tuple((str(t), s) for t, s in facts),
                           context=tuple((str(c[0]), tuple(map(str, c[1]))) for c in context))


def records_from_rows(rows: Iterable[dict[str, Any]], file: str) -> Iterator[HotpotRecord]:
    """The rows of the ``hotpot_qa`` hub dataset (``supporting_facts{title[], sent_id[]}``,
    ``context{title[], sentences[]}``)."""
    layout = "hotpot_qa dataset"
    for i, row in enumerate(rows):
        where = f"row {i}"
        facts = field(row, "supporting_facts", dict, file=file, where=where, layout=layout)
        context = field(row, "context", dict, file=file, where=where, layout=layout)
        titles = field(facts, "title", list, file=file, where=f"{where}.supporting_facts", layout=layout)
        sent_ids = field(facts, "sent_id", list, file=file, where=f"{where}.supporting_facts", layout=layout)
        paragraph_titles = field(context, "title", list, file=file, where=f"{where}.context", layout=layout)
        sentences = field(context, "sentences", list, file=file, where=f"{where}.context", layout=layout)
        yield HotpotRecord(id=str(field(row, "id", (str, int), file=file, where=where, layout=layout)),
                           question=field(row, "question", str, file=file, where=where, layout=layout),
                           answer=field(row, "answer", str, file=file, where=where, layout=layout),
                           supporting_facts=tuple((str(t), int(s)) for t, s in zip(titles, sent_ids)),
                           context=tuple((str(t), tuple(map(str, s))) for t, s in zip(paragraph_titles, sentences)))


def supporting_sentences(record: HotpotRecord) -> list[str] | None:
    """The supporting-fact sentences, stripped, in the order given; ``None`` if a fact points outside the context."""
    paragraphs = dict(record.context)
    sentences = []
    for title, index in record.supporting_facts:
        paragraph = paragraphs.get(title)
        if paragraph is None or not 0 <= index < len(paragraph):
            return None
        sentences.append(paragraph[index].strip())
    return sentences


def convert(records: Iterable[HotpotRecord], counts: Counter) -> Iterator[TaggedExample]:
    """Tagged examples from HotpotQA records; ``counts`` gets ``kept`` or the reason a record was skipped."""
    for record in records:
        answer = record.answer.strip()
        if not answer:
            counts["no answer"] += 1
            continue
        sentences = supporting_sentences(record)
        if sentences is None:
            counts["supporting fact not in context"] += 1
            continue
        if not sentences:
            counts["no supporting facts"] += 1
            continue
        text, _ = join_texts([(sentence, ()) for sentence in sentences])
        if too_long(text, record.question):
            counts[TOO_LONG] += 1
            continue
        polar = polar_answer(answer)
        if polar:
            counts["yes/no answer"] += 1
            yield TaggedExample(question=record.question, text=text, spans=(), source="hotpotqa", id=record.id,
                                polar=polar)
            continue
        spans = find_occurrences(text, answer)
        if not spans:
            counts["answer not in supporting sentences"] += 1
            continue
        counts["kept"] += 1
        yield TaggedExample(question=record.question, text=text, spans=tuple(spans), source="hotpotqa", id=record.id)
