"""SQuAD (v1.1 JSON or the ``squad`` hub dataset) to tagged answer sentences: the context sentence(s) holding the
first answer's span, with that span tagged. The sets published in SQuAD's layout (SQuADShifts, PolicyQA, COVID-QA)
go through the same converter under their own source names (:func:`converter`)."""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import partial
from typing import Any

from kpqa.errors import InputError

from .examples import TaggedExample
from .layout import field
from .sentences import TOO_LONG, covering_sentences, too_long, trim_span

LAYOUT = "SQuAD"


@dataclass(frozen=True)
class SquadRecord:
    """One question in the form both routes share: its context and first answer (``None`` when it has none); every
    annotator's answer text and the article it is in (its index in the file and its title, the index where it has
    none), which the contrastive answers read (:mod:`kpqa.train.contrastive`)."""

    id: str
    question: str
    context: str
    answer: str | None
    answer_start: int | None
    answers: tuple[str, ...] = ()
    article: int = 0
    title: str = ""


def records_from_json(data: Any, file: str) -> Iterator[SquadRecord]:
    """The questions of a SQuAD JSON file (``data[].paragraphs[].context/qas[]``), in file order."""
    if not isinstance(data, dict) or "data" not in data:
        got = "a list (HotpotQA layout?)" if isinstance(data, list) else "an object without 'data'"
        raise InputError(f"expected a SQuAD JSON object with a 'data' list of articles, got {got}", file=file)
    articles = field(data, "data", list, file=file, where="top level", layout=LAYOUT)
    for a, article in enumerate(articles):
        paragraphs = field(article, "paragraphs", list, file=file, where=f"data[{a}]", layout=LAYOUT)
        for p, paragraph in enumerate(paragraphs):
            where = f"data[{a}].paragraphs[{p}]"
            context = field(paragraph, "context", str, file=file, where=where, layout=LAYOUT)
            for q, qa in enumerate(field(paragraph, "qas", list, file=file, where=where, layout=LAYOUT)):
                here = f"{where}.qas[{q}]"
                answers = field(qa, "answers", list, file=file, where=here, layout=LAYOUT)
                texts = tuple(field(x, "text", str, file=file, where=f"{here}.answers[{k}]", layout=LAYOUT)
                              for k, x in enumerate(answers))
                start = None
                if answers:
                    start = field(answers[0], "answer_start", int, file=file, where=f"{here}.answers[0]",
                                  layout=LAYOUT)
                yield SquadRecord(id=str(field(qa, "id", (str, int), file=file, where=here, layout=LAYOUT)),
                                  question=field(qa, "question", str, file=file, where=here, layout=LAYOUT),
                                  context=context, answer=texts[0] if texts else None, answer_start=start,
                                  answers=texts, article=a, title=str(article.get("title", a)))


def records_from_rows(rows: Iterable[dict[str, Any]], file: str) -> Iterator[SquadRecord]:
    """The rows of the ``squad`` hub dataset (``id, title, context, question, answers{text[], answer_start[]}``);
    an article is a run of rows with one title."""
    article, title = -1, None
    for i, row in enumerate(rows):
        if row.get("title", "") != title or article < 0:
            article, title = article + 1, row.get("title", "")
        where = f"row {i}"
        answers = field(row, "answers", dict, file=file, where=where, layout="squad dataset")
        texts = field(answers, "text", list, file=file, where=f"{where}.answers", layout="squad dataset")
        starts = field(answers, "answer_start", list, file=file, where=f"{where}.answers", layout="squad dataset")
        yield SquadRecord(id=str(field(row, "id", (str, int), file=file, where=where, layout="squad dataset")),
                          question=field(row, "question", str, file=file, where=where, layout="squad dataset"),
                          context=field(row, "context", str, file=file, where=where, layout="squad dataset"),
                          answer=texts[0] if texts else None,
                          answer_start=int(starts[0]) if texts and starts else None,
                          answers=tuple(map(str, texts)), article=article, title=str(title or article))


def answer_span(record: SquadRecord) -> tuple[int, int] | None:
    """Where the answer is in the context: at ``answer_start`` if the text is there, else the occurrence nearest to
    it (the shared dev file's offsets are first occurrences, the official ones may not be), else ``None``."""
    text, context = record.answer or "", record.context
    if not text.strip():
        return None
    start = record.answer_start
    if start is not None and context[start:start + len(text)] == text:
        return start, start + len(text)
    found = []
    at = context.find(text)
    while at >= 0:
        found.append(at)
        at = context.find(text, at + 1)
    if not found:
        return None
    best = min(found, key=lambda at: abs(at - (start or 0)))
    return best, best + len(text)


def convert(records: Iterable[SquadRecord], counts: Counter, source: str = "squad") -> Iterator[TaggedExample]:
    """Tagged examples from SQuAD records; ``counts`` gets ``kept`` or the reason a record was skipped."""
    for record in records:
        if record.answer is None:
            counts["no answer"] += 1
            continue
        if too_long(record.context, record.question):
            counts[TOO_LONG] += 1
            continue
        span = answer_span(record)
        if span is None:
            counts["answer not in context"] += 1
            continue
        text, spans = covering_sentences(record.context, [span])
        if not spans:
            counts["answer not in context"] += 1
            continue
        counts["kept"] += 1
        yield TaggedExample(question=record.question, text=text, spans=spans, source=source, id=record.id,
                            passage=record.context, passage_span=trim_span(record.context, span))


def converter(source: str) -> Callable[[Iterable[SquadRecord], Counter], Iterator[TaggedExample]]:
    """:func:`convert` for a set in SQuAD's layout, its examples named ``source``."""
    return partial(convert, source=source)
