"""Where the contrastive answers come from: QA sources read through :mod:`kpqa.train.sources` (the readers
``kpqa train --data`` uses), named by a spec ``[LABEL=]NAME:PATH`` or ``[LABEL=]NAME:hub[:SPLIT]``. ``NAME`` is a
source of :data:`kpqa.train.sources.SOURCES`; ``LABEL`` (default: ``NAME``) is what the rows say in their
``source`` column and what seeds their choices. A SQuAD-layout source gives its articles (:class:`Article`), the
others (ConditionalQA, MS-MARCO, HotpotQA) their yes/no questions (:data:`Polar`)."""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Callable

from kpqa.errors import InputError

from ..conditionalqa import ConditionalRecord
from ..examples import polar_answers
from ..hotpotqa import HotpotRecord
from ..msmarco import MarcoRecord
from ..sentences import sentence_bounds
from ..sources import SOURCES, read_records
from ..squad import SquadRecord

#: a real yes/no question: (id, question, ``yes`` | ``no``, evidence sentence or "")
Polar = tuple[str, str, str, str]


@dataclass(frozen=True)
class Spec:
    """One source of the contrastive answers: the rows' label, the source's name and where it is read from."""

    label: str
    name: str
    where: str

    @classmethod
    def parse(cls, spec: str) -> "Spec":
        """``[LABEL=]NAME:PATH`` or ``[LABEL=]NAME:hub[:SPLIT]``; InputError for another form or name."""
        label, sep, rest = spec.partition("=") if "=" in spec.split(":", 1)[0] else ("", "", spec)
        name, colon, where = rest.partition(":")
        if not colon or not where or not name or (sep and not label):
            raise InputError(f"contrastive source {spec!r} should be [LABEL=]NAME:PATH or [LABEL=]NAME:hub[:SPLIT]")
        if name not in SOURCES:
            raise InputError(f"unknown training source {name!r} in {spec!r}; known: {', '.join(sorted(SOURCES))}")
        return cls(label or name, name, where)

    @property
    def articles(self) -> bool:
        """Whether the source is in SQuAD's layout (it gives articles; the others give yes/no questions)."""
        return self.name not in POLAR


@dataclass
class Question:
    """One question of an article with its answer spans (every annotator's) and where the first one stands."""

    id: str
    question: str
    context: str
    answers: list[str]
    start: int


@dataclass
class Article:
    """The questions of one article (the unit of the fit / check split) and the sentences of its paragraphs."""

    source: str
    title: str
    questions: list[Question] = field(default_factory=list)


def squad_articles(records: Iterable[SquadRecord], source: str) -> Iterator[Article]:
    """The articles of SQuAD-layout records, in order, each with its questions that have an answer (every
    annotator's text, stripped, once each)."""
    article: Article | None = None
    number = -1
    for record in records:
        if article is None or record.article != number:
            if article is not None:
                yield article
            article, number = Article(source, record.title), record.article
        texts = [t.strip() for t in record.answers if t.strip()]
        if texts and record.answer_start is not None:
            article.questions.append(Question(record.id, record.question.strip(), record.context,
                                              list(dict.fromkeys(texts)), record.answer_start))
    if article is not None:
        yield article


def conditionalqa_polar(records: Iterable[ConditionalRecord]) -> list[Polar]:
    """ConditionalQA's yes/no questions, the first evidence sentence as evidence, as plain text (the reader's: tags
    dropped, entities decoded, whitespace collapsed)."""
    out = []
    for record in records:
        polar = polar_answers(list(record.answers)) if record.answers else None
        if polar:
            out.append((record.id, record.question.strip(), polar, record.evidences[0] if record.evidences else ""))
    return out


def msmarco_polar(records: Iterable[MarcoRecord]) -> list[Polar]:
    """MS-MARCO's yes/no queries (capitalised, a question mark added), the first selected passage's first sentence
    as evidence. A query's id is its text: the shared sample has no ``query_id``, and the row number the reader
    falls back on would tie a query's seeds to the file's order."""
    out = []
    for record in records:
        polar = polar_answers(list(record.answers))
        if polar:
            selected = [text for is_selected, text in record.passages if is_selected]
            evidence = ""
            if selected:
                s, e = sentence_bounds(selected[0])[0]
                evidence = selected[0][s:e]
            query = record.question.strip()
            out.append((query, query[0].upper() + query[1:] + "?", polar, evidence))
    return out


def hotpotqa_polar(records: Iterable[HotpotRecord]) -> list[Polar]:
    """HotpotQA's yes/no questions, without evidence."""
    return [(r.id, r.question, r.answer.lower(), "") for r in records if r.answer.lower() in ("yes", "no")]


#: the sources that give yes/no questions, each with its reader; every other source is in SQuAD's layout
POLAR: dict[str, Callable[[Iterable], list[Polar]]] = {
    "conditionalqa": conditionalqa_polar, "msmarco": msmarco_polar, "hotpotqa": hotpotqa_polar}


def articles(spec: Spec) -> list[Article]:
    """The articles of a SQuAD-layout source."""
    return list(squad_articles(read_records(spec.name, spec.where), spec.label))


def polar_questions(spec: Spec) -> list[Polar]:
    """The yes/no questions of a ConditionalQA, MS-MARCO or HotpotQA source."""
    return POLAR[spec.name](read_records(spec.name, spec.where))
