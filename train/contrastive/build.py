"""The builder of the contrastive answers (:mod:`kpqa.train.contrastive`): a question's rows (:class:`Builder`),
a real yes/no question's (:func:`polar_rows`), and the parts: fit and check (:func:`build`, split by article) and
train (:func:`build_train`), from sources read through :mod:`kpqa.train.sources` (:mod:`.records`); :func:`write`
puts a part in a CSV as every kpqa output is written (:mod:`kpqa.output`)."""
from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from kpqa.numbers import ORDINALS, SCALES, SMALL, TENS, YEAR, months_pattern

from . import forms, values
from .records import Article, Polar, Question, Spec, articles, polar_questions
from ..sentences import find_occurrences, sentence_bounds

#: the rule-made classes (:mod:`.forms`): (right kind, wrong kind)
FORM_KINDS: tuple[tuple[str, str], ...] = (("polar-implicit", "polar-implicit-flip"), ("long-asserts", "long-mentions"),
                                           ("alias", "alias-wrong"), ("negation-paraphrase", "negation-flip"),
                                           ("qualifier-synonym", "qualifier-swap"), ("role-reorder", "role-swap"),
                                           ("value-restated", "value-near"), ("choice-asked", "choice-asked-other"))
KINDS_CORRECT: tuple[str, ...] = ("span", "clause", "other-sentence", "verbose", "polar-same",
                                  *(k for k, _ in FORM_KINDS))
KINDS_WRONG: tuple[str, ...] = ("swap", "swap-span", "swap-verbose", "choice-other", "polar-flip",
                                "polar-wrong-statement", *(k for _, k in FORM_KINDS))
FIELDS = ("question", "answer", "reference1", "reference2", "reference3", "scores", "kind", "article", "source")

_DATE = re.compile(rf"\b({months_pattern(abbreviated=True)})\b", re.IGNORECASE)
_YEAR = re.compile(rf"^({YEAR})s?$")
#: number words a span of the ``number`` type may be ("Four", "a dozen")
_NUMBER_WORDS = (*SMALL, *TENS, *SCALES, *ORDINALS[:10], "half", "dozen")
_NUMBER = re.compile(r"^[$£€~]?\d[\d,.:/]*(%|s|st|nd|rd|th|k|m|bn)?$|^(" + "|".join(_NUMBER_WORDS) + r")$",
                     re.IGNORECASE)
_LOWER_IN_NAMES = {"of", "the", "and", "de", "la", "von", "van", "du", "del", "da", "for", "in", "on", "at", "&"}
CLAUSES = ("It is {}.", "The answer is {}.", "{}.", "That would be {}.", "It was {}.", "I believe it is {}.")
#: what may follow a bare polar word ("Yes", "Yes.", "Yes, it is.")
POLAR_TAILS = {"Yes": ("", ".", ", it is.", ", that's right."), "No": ("", ".", ", it is not.", ", it isn't.")}
MAX_SPAN_WORDS = 8


def span_type(text: str) -> str | None:
    """The type an answer span is swapped within: ``year``, ``date``, ``number``, ``name`` (every word
    capitalised, bar particles), or None (not swapped: too long, or plain words)."""
    words = text.split()
    if not words or len(words) > MAX_SPAN_WORDS:
        return None
    if len(words) == 1 and _YEAR.match(words[0]):
        return "year"
    if _DATE.search(text) and re.search(r"\d", text):
        return "date"
    if len(words) <= 4 and any(_NUMBER.match(w) for w in words):
        return "number"
    if all(w[:1].isupper() or w.lower() in _LOWER_IN_NAMES for w in words) and words[0][:1].isupper():
        return "name"
    return None


def _norm(text: str) -> str:
    return re.sub(r"\W+", " ", text.lower()).strip()


def _sentence_of(context: str, start: int) -> tuple[int, list[tuple[int, int]]]:
    bounds = list(sentence_bounds(context))
    k = next((i for i, (s, e) in enumerate(bounds) if s <= start < e), 0)
    return k, bounds


def _swap(text: str, old: str, new: str) -> str | None:
    found = find_occurrences(text, old)
    if not found:
        return None
    s, e = found[0]
    return text[:s] + new + text[e:]


def _same_form(answers: Sequence[str], sentence: str, span: str, in_sentence: bool, clause: str,
               how: float) -> list[str | None]:
    """The answers of a right / wrong pair all in one form: each put in place of ``span`` in the answer's
    ``sentence`` when ``in_sentence`` (None where it is not found), else in ``clause`` when ``how`` < 0.7, else bare."""
    return [_swap(sentence, span, a) if in_sentence else clause.format(a) if how < 0.7 else a for a in answers]


class Builder:
    """Makes the rows of one article's questions (:meth:`rows`); ``seed`` fixes every choice per question."""

    def __init__(self, seed: int, form_pairs: int = 2, rare_only: bool = False) -> None:
        self.seed = seed
        self.form_pairs = form_pairs
        self.rare_only = rare_only  # only the pairs of the rule-made classes few questions allow

    def rng(self, source: str, key: str) -> random.Random:
        digest = hashlib.sha256(f"{self.seed}|{source}|{key}".encode()).digest()
        return random.Random(int.from_bytes(digest[:8], "big"))

    @staticmethod
    def pools(article: Article) -> dict[str, list[str]]:
        """The first answers of the article's questions by :func:`span_type` (what a span is swapped with)."""
        pools: dict[str, list[str]] = {}
        for q in article.questions:
            kind = span_type(q.answers[0])
            if kind:
                pools.setdefault(kind, []).append(q.answers[0])
        return pools

    @classmethod
    def swappable(cls, article: Article) -> list[str]:
        """The ids of the questions whose answer has another of its type in the article."""
        pools = {kind: {_norm(a) for a in answers} for kind, answers in cls.pools(article).items()}
        return [q.id for q in article.questions if len(pools.get(span_type(q.answers[0]) or "", ())) > 1]

    def rows(self, article: Article, only: set[str] | None = None) -> Iterator[dict[str, Any]]:
        """The rows of the article's questions (those whose id is in ``only``, when given)."""
        pools = self.pools(article)
        for q in article.questions:
            if only is None or q.id in only:
                yield from self._question_rows(article, q, pools)

    def _question_rows(self, article: Article, q: Question, pools: dict[str, list[str]]) -> Iterator[dict[str, Any]]:
        rng = self.rng(article.source, q.id)
        span = q.answers[0]
        if len(span.split()) > MAX_SPAN_WORDS or q.context[q.start:q.start + len(span)] != span:
            return
        k, bounds = _sentence_of(q.context, q.start)
        sentence = q.context[bounds[k][0]:bounds[k][1]]
        if span not in sentence:
            return
        gold = {_norm(a) for a in q.answers}
        kind = span_type(span)
        others = [o for o in dict.fromkeys(pools.get(kind or "", [])) if kind and _norm(o) not in gold
                  and not any(_norm(o) in g or g in _norm(o) for g in gold if g)]
        other = rng.choice(others) if others else None
        as_sentence = rng.random() < 0.5
        refs = [sentence] if as_sentence else q.answers[:3]

        def row(answer: str, label: int, what: str, question: str = q.question,
                references: Sequence[str] = refs) -> dict[str, Any]:
            return {"question": question, "answer": answer, "references": list(references), "scores": label,
                    "kind": what, "article": f"{article.source}:{article.title}", "source": article.source, "qid": q.id}

        if self.rare_only:
            for pair in self._rare_pairs(q, span, sentence, row, self.rng(article.source, f"{q.id}|rare")):
                yield from pair
            return
        neighbours = [q.context[s:e] for i, (s, e) in enumerate(bounds) if i != k and abs(i - k) <= 2]
        verbose = " ".join([rng.choice(CLAUSES).format(span), *neighbours[: rng.randint(1, 3)]]) if neighbours \
            else None
        correct: list[dict[str, Any]] = [row(rng.choice(CLAUSES).format(span), 1, "clause")]
        if as_sentence:
            alt = [a for a in q.answers if _norm(a) != _norm(sentence)]
            correct.append(row(rng.choice(alt or [span]), 1, "span"))
        else:
            correct.append(row(sentence, 1, "other-sentence"))
        elsewhere = [q.context[s:e] for i, (s, e) in enumerate(bounds) if i != k and span in q.context[s:e]]
        if elsewhere:
            correct.append(row(rng.choice(elsewhere), 1, "other-sentence"))
        if verbose:
            correct.append(row(verbose, 1, "verbose"))
        wrong: list[dict[str, Any]] = []
        if other:
            swapped = _swap(sentence, span, other)
            if swapped:
                wrong.append(row(swapped, 0, "swap"))
            wrong.append(row(rng.choice(CLAUSES).format(other) if rng.random() < 0.5 else other, 0, "swap-span"))
            if verbose:
                wrong.append(row(_swap(verbose, span, other) or verbose, 0, "swap-verbose"))
            a, b = (span, other) if rng.random() < 0.5 else (other, span)
            choice = f"{q.question.rstrip(' ?')}: {a} or {b}?"
            wrong.append(row(rng.choice(CLAUSES).format(other), 0, "choice-other", question=choice,
                             references=[span] if not as_sentence else refs))
            correct.append(row(rng.choice(CLAUSES).format(span), 1, "clause", question=choice,
                               references=[span] if not as_sentence else refs))
            asked, truth = (span, "Yes") if rng.random() < 0.5 else (other, "No")
            flip = "No" if truth == "Yes" else "Yes"
            polar_q = f"{q.question.rstrip(' ?')}? Is it {asked}?"
            polar_ref = [f"{truth}, {sentence[0].lower()}{sentence[1:]}"]
            third = [o for o in others if _norm(o) != _norm(other)]
            swapped_again = _swap(sentence, span, rng.choice(third)) if third else swapped
            if swapped_again:
                wrong.append(row(f"{truth}, {swapped_again[0].lower()}{swapped_again[1:]}", 0,
                                 "polar-wrong-statement", question=polar_q, references=polar_ref))
            wrong.append(row(flip + rng.choice(POLAR_TAILS[flip]), 0, "polar-flip", question=polar_q, references=polar_ref))
            correct.append(row(truth + rng.choice(POLAR_TAILS[truth]), 1, "polar-same", question=polar_q,
                               references=polar_ref))
        if not wrong:
            return
        rng.shuffle(correct)
        rng.shuffle(wrong)
        n = min(len(correct), len(wrong), 3)
        yield from correct[:n]
        yield from wrong[:n]
        if other and swapped:
            plain = [x for x in neighbours if span not in x and other not in x]
            for right, wrong_row in self._form_pairs(article, q, span, other, sentence, swapped, plain, row):
                yield right
                yield wrong_row

    def _form_pairs(self, article: Article, q: Question, span: str, other: str, sentence: str, swapped: str,
                    neighbours: list[str], row: Any) -> list[tuple[dict[str, Any], dict[str, Any]]]:
        """Up to ``form_pairs`` (right, wrong) rows of the rule-made classes, each from another class, drawn
        with their own seed (the rows above do not change with them)."""
        rng = self.rng(article.source, f"{q.id}|forms")
        pairs: list[tuple[dict[str, Any], dict[str, Any]]] = []
        asked, yes = (span, True) if rng.random() < 0.5 else (other, False)
        polar_q = f"{q.question.rstrip(' ?')}? Is it {asked}?"
        polar_ref = [f"{'Yes' if yes else 'No'}, {forms.lower_first(sentence)}"]
        with_reason = rng.random() < 0.5
        found = forms.implicit_pair(polar_q, yes, rng, sentence if with_reason else "",
                                    (swapped if rng.random() < 0.5 else sentence) if with_reason else "")
        if found:
            pairs.append((row(found[0], 1, "polar-implicit", question=polar_q, references=polar_ref),
                          row(found[1], 0, "polar-implicit-flip", question=polar_q, references=polar_ref)))
        right, wrong, _ = forms.long_pair(span, other, sentence, swapped, neighbours, rng)
        pairs.append((row(right, 1, "long-asserts"), row(wrong, 0, "long-mentions")))
        pairs.append(self._choice_pair(article, q, span, other, sentence, swapped, row))
        rng.shuffle(pairs)
        return (self._rare_pairs(q, span, sentence, row, rng) + pairs)[: self.form_pairs]

    def _rare_pairs(self, q: Question, span: str, sentence: str, row: Any,
                    rng: random.Random) -> list[tuple[dict[str, Any], dict[str, Any]]]:
        """Up to ``form_pairs`` (right, wrong) rows of the classes few questions allow (alias, qualifier, role, value),
        each of another class."""
        rare: list[tuple[dict[str, Any], dict[str, Any]]] = []
        gold = {_norm(a) for a in q.answers}
        alias = forms.alias_pair(span, q.question, rng)
        if alias and not {_norm(alias[0]), _norm(alias[1])} & gold:
            how = rng.random()
            sentence_form = alias[2] == "synonym" and span[:1].isupper() and how < 0.4
            clause = rng.choice(CLAUSES)  # the same form for the right and the wrong name
            forms_of = _same_form(alias[:2], sentence, span, sentence_form, clause, how)
            if forms_of[0] and forms_of[1]:
                rare.append((row(forms_of[0], 1, "alias"), row(forms_of[1], 0, "alias-wrong")))
        qualifier = forms.qualifier_pair(q.question, sentence, span, rng)
        if qualifier:
            if rng.random() < 0.5:  # the sentence answer, or a right polar answer to "Q? Is it <span>?"
                rare.append((row(qualifier[0], 1, "qualifier-synonym"), row(qualifier[1], 0, "qualifier-swap")))
            else:
                ask = f"{q.question.rstrip(' ?')}? Is it {span}?"
                ref = [f"Yes, {forms.lower_first(sentence)}"]
                rare.append((row(f"Yes, {forms.lower_first(qualifier[0])}", 1, "qualifier-synonym", question=ask,
                                 references=ref),
                             row(f"Yes, {forms.lower_first(qualifier[1])}", 0, "qualifier-swap", question=ask,
                                 references=ref)))
        role = forms.role_pair(q.question, span, rng)
        if role:
            rare.append((row(role[0], 1, "role-reorder"), row(role[1], 0, "role-swap")))
        value = self._value_pair(q, span, sentence, row)
        if value:
            rare.append(value)
        rng.shuffle(rare)
        return rare[: self.form_pairs]

    def _choice_pair(self, article: Article, q: Question, span: str, other: str, sentence: str, swapped: str,
                     row: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        """The question asked with two options in one of several wordings ("Q? Was it A or B?"), answered with the
        right option or the other, both bare, in a clause or in the answer's sentence (its own seed)."""
        rng = self.rng(article.source, f"{q.id}|choice")
        a, b = (span, other) if rng.random() < 0.5 else (other, span)
        stem = q.question.rstrip(" ?")
        question = rng.choice((f"{stem}? Was it {a} or {b}?", f"{stem}, {a} or {b}?", f"{stem}: {a} or {b}?",
                               f"{stem}? {a} or {b}?"))
        how, clause = rng.random(), rng.choice(CLAUSES)
        # the sentence itself, not the span put back into it (which would take the span's case)
        right, wrong = (sentence, swapped) if how < 0.4 else (clause.format(span), clause.format(other)) \
            if how < 0.7 else (span, other)
        return (row(right, 1, "choice-asked", question=question),
                row(wrong, 0, "choice-asked-other", question=question))

    def _value_pair(self, q: Question, span: str, sentence: str, row: Any
                    ) -> tuple[dict[str, Any], dict[str, Any]] | None:
        """The answer's value restated (right) and changed a little (wrong), both bare, in a clause or in the
        answer's sentence (:mod:`.values`), drawn with their own seed."""
        rng = self.rng("value", q.id)
        pair = values.value_pair(span, rng)
        if not pair:
            return None
        how, clause = rng.random(), rng.choice(CLAUSES)
        if re.match(r"(in|the year) ", pair[0]):  # "in 1909" reads as a whole answer, not inside a sentence
            how = max(how, 0.4)
        answers = _same_form(pair, sentence, span, how < 0.4, clause, how)
        if not answers[0] or not answers[1]:
            return None
        return row(answers[0], 1, "value-restated"), row(answers[1], 0, "value-near")


def polar_rows(records: Sequence[Polar], source: str, seed: int,
               form_pairs: int = 2) -> Iterator[dict[str, Any]]:
    """Rows of real yes/no questions, ``(id, question, 'yes'|'no', evidence)``: the reference is the polar word
    (before the evidence when there is one); candidates ``polar-same`` and ``polar-flip``, bare or with the
    evidence, and (when ``form_pairs``) ``polar-implicit`` and ``polar-implicit-flip``."""
    builder = Builder(seed)
    for rid, question, polar, evidence in records:
        rng = builder.rng(source, rid)
        truth = polar.capitalize()
        flip = "No" if truth == "Yes" else "Yes"
        tail = f", {evidence[0].lower()}{evidence[1:]}" if evidence else ""
        refs = [f"{truth}{tail}" if tail and rng.random() < 0.5 else truth]
        article = f"{source}:{rid}"
        answers = [(word + (tail if tail and rng.random() < 0.5 else rng.choice(POLAR_TAILS[word])), label, kind)
                   for word, label, kind in ((truth, 1, "polar-same"), (flip, 0, "polar-flip"))]
        form_rng = builder.rng(source, f"{rid}|forms")
        found = forms.implicit_pair(question, truth == "Yes", form_rng,
                                    evidence if evidence and form_rng.random() < 0.5 else "")
        pairs = [[(found[0], 1, "polar-implicit"), (found[1], 0, "polar-implicit-flip")]] if found else []
        negation = forms.negation_pair(question, truth == "Yes", form_rng)
        if negation:  # the rarer class first
            pairs.insert(0, [(negation[0], 1, "negation-paraphrase"), (negation[1], 0, "negation-flip")])
        answers += [a for pair in pairs[:form_pairs] for a in pair]
        for answer, label, kind in answers:
            yield {"question": question, "answer": answer, "references": refs, "scores": label, "kind": kind,
                   "article": article, "source": source, "qid": rid}


def in_check(article: str, seed: int, share: float) -> bool:
    """Whether an article goes to the check part (a seeded hash of its name)."""
    digest = hashlib.sha256(f"{seed}|split|{article}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < share


def write(rows: Sequence[dict[str, Any]], path: str | Path) -> None:
    """The rows as a CSV in the human-judgment layout (question, answer, reference1..3, scores, kind, article,
    source), written as every kpqa output is (:func:`kpqa.output.write_output`)."""
    import pandas as pd

    from kpqa.output import write_output

    records = [{**{k: r[k] for k in FIELDS if k in r}, **dict(zip(FIELDS[2:5], (r["references"] + ["", "", ""])[:3]))}
               for r in rows]
    write_output(pd.DataFrame(records, columns=list(FIELDS)), path)


def squad_rows(builder: Builder, found: Sequence[Article], name: str, n: int) -> list[dict[str, Any]]:
    """The rows of ``n`` questions (a seeded sample of those with a swappable answer) of a source's articles."""
    questions = sorted(i for a in found for i in builder.swappable(a))
    chosen = set(builder.rng(name, "sample").sample(questions, min(n, len(questions))))
    return [r for article in found for r in builder.rows(article, chosen)]


#: the fit / check part's sources (``[LABEL=]NAME:PATH``, :mod:`.records`), paths in the shared data folder
FIT_CHECK_SOURCES = ("squadshifts-wiki=squadshifts:squadshifts/new_wiki_v1.0.json",
                     "squadshifts-amazon=squadshifts:squadshifts/amazon_reviews_v1.0.json",
                     "squad-dev=squad:squad/dev-v1.1.json", "conditionalqa-dev=conditionalqa:conditionalqa/dev.json",
                     "msmarco=msmarco:msmarco/qna-sample.jsonl", "hotpotqa=hotpotqa:hotpotqa/dev-sample.json")
#: the train part's sources, which fit / check never read
TRAIN_SOURCES = ("squad-train=squad:squad/train-v1.1.json", "conditionalqa-train=conditionalqa:conditionalqa/train.json")


def in_folder(folder: str | Path, specs: Sequence[str]) -> list[str]:
    """``specs`` with their file paths taken in ``folder`` (the shared data folder, for the default sources)."""
    out = []
    for spec in specs:
        head, _, where = spec.partition(":")
        out.append(spec if where == "hub" or where.startswith("hub:") else f"{head}:{Path(folder) / where}")
    return out


def build(sources: Sequence[str], seed: int = 13, per_source: int = 500, check_share: float = 0.4,
          form_pairs: int = 2) -> dict[str, list[dict]]:
    """The fit and check rows of ``sources`` (specs, :class:`~.records.Spec`; e.g. ``in_folder(data,
    FIT_CHECK_SOURCES)``), in their order: ``per_source`` questions of each SQuAD-layout one, every yes/no question
    of the others."""
    builder = Builder(seed, form_pairs)
    rows: list[dict[str, Any]] = []
    for spec in map(Spec.parse, sources):
        if spec.articles:
            rows += squad_rows(builder, articles(spec), spec.label, per_source)
        else:
            rows += polar_rows(polar_questions(spec), spec.label, seed, form_pairs)
    parts: dict[str, list[dict]] = {"fit": [], "check": []}
    for r in rows:
        parts["check" if in_check(r["article"], seed, check_share) else "fit"].append(r)
    return parts


def build_train(sources: Sequence[str], seed: int = 13, n_questions: int = 3000, form_pairs: int = 2,
                rare_questions: int = 20000) -> list[dict[str, Any]]:
    """The training rows of ``sources`` (e.g. ``in_folder(data, TRAIN_SOURCES)``: sources fit / check never read),
    in their order: of each SQuAD-layout one, ``n_questions`` questions (every kind) and ``rare_questions`` other
    ones (only the classes few questions allow: alias, qualifier, role, value); every yes/no question of the
    others."""
    rows: list[dict[str, Any]] = []
    for spec in map(Spec.parse, sources):
        if not spec.articles:
            rows += polar_rows(polar_questions(spec), spec.label, seed, form_pairs)
            continue
        found = articles(spec)
        builder = Builder(seed, form_pairs)
        questions = sorted(i for a in found for i in builder.swappable(a))
        chosen = set(builder.rng(spec.label, "sample").sample(questions, min(n_questions, len(questions))))
        rows += [r for article in found for r in builder.rows(article, chosen)]
        rest = sorted(q.id for a in found for q in a.questions if q.id not in chosen)
        extra = set(builder.rng(spec.label, "rare").sample(rest, min(rare_questions, len(rest))))
        rare = Builder(seed, form_pairs, rare_only=True)
        rows += [r for article in found for r in rare.rows(article, extra)]
    return rows
