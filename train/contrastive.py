"""Contrastive answer data for fitting and checking correct / incorrect decisions (``kpqa.calibration``) and for
training an answer-equivalence model.

From extractive QA data (SQuAD layout: SQuADShifts Wikipedia and Amazon reviews, SQuAD dev; ConditionalQA, MS-MARCO and HotpotQA for real yes/no
questions) every question gives a reference answer and candidates labelled correct (1) or wrong (0), of these
``kind``s:

correct (the right fact, in other words)
    ``span`` the bare answer span (another annotator's span when there is one); ``clause`` the span in a short
    clause ("It is X."); ``other-sentence`` another sentence of the article that holds the span; ``verbose`` 2-4
    sentences: the span in a clause, then sentences around the answer sentence; ``polar-same`` the right yes/no
    word, bare or before the evidence.
wrong (the reference's wording, the key fact changed)
    ``swap`` the answer sentence with the span replaced by another answer of the same type (year, date, number,
    proper name) from the same article; ``swap-span`` that other answer alone; ``swap-verbose`` a ``verbose``
    answer with the span swapped; ``choice-other`` the other option of a choice question ("Q: A or B?");
    ``polar-flip`` the other yes/no word (bare, or before the evidence); ``polar-wrong-statement`` the right
    polar word followed by the answer sentence with its fact swapped.
rule-made classes (:mod:`kpqa.train.contrastive_forms`), each a right and a wrong side in the same form
    ``polar-implicit`` / ``polar-implicit-flip`` a yes/no question answered by echoing its auxiliary ("It
    doesn't.", "That's right, they were: ..."), as the reference does / the opposite; ``long-asserts`` /
    ``long-mentions`` a multi-sentence answer asserting the reference's answer while naming another in passing /
    asserting the other while naming the reference's, or declining, or listing both; ``alias`` / ``alias-wrong``
    the answer by another name from WordNet ("Decalogue" for "Ten Commandments", "a native of Wales" for "Welsh")
    / a sibling's name ("Copernicus" for "Galileo"), bare, in a clause or in the answer sentence;
    ``negation-paraphrase`` / ``negation-flip`` a yes/no question on an adjective answered by a statement, the
    adjective, its negation or its WordNet antonym ("Am I eligible?" / no: "You are ineligible." / "You are
    eligible."); ``qualifier-synonym`` / ``qualifier-swap`` the answer sentence (or "Yes, <sentence>" to "Q? Is it
    <span>?") with an adjective the question and the sentence share put in other words ("the biggest city" for
    "the largest city") / turned into its antonym ("the smallest city"); ``role-reorder`` / ``role-swap`` "Who
    replaced Wilkinson?" answered by a statement keeping the roles, active or passive ("Wilkinson was replaced by
    Oaks.") / with the two names swapped ("Wilkinson replaced Oaks.").

The reference is the answer sentence (MS-MARCO style) or the bare spans of every annotator (TriviaQA style), half
each. Synthetic polar questions come from a SQuAD question and a candidate fact ("Q Is it X?"). Each question
gets up to ``--form-pairs`` pairs of the rule-made classes (0: the rows of the other kinds only, unchanged).
Questions are split by article into ``fit`` and ``check`` parts (``--check-share``), so no article's text is in
both. The ``train`` part is drawn from other sources only (SQuAD v1.1 train, ConditionalQA train); more SQuAD
train questions (``--train-rare-questions``) give only the pairs of the classes few questions allow. Every choice
is seeded per question (seed, source, id): the output does not depend on the order of the sources. No
human-judgment set is read.

    python -m kpqa.train.contrastive --out runs/contrastive               # writes fit.csv and check.csv
    python -m kpqa.train.contrastive --out runs/contrastive --part train  # writes train.csv
"""
from __future__ import annotations

import argparse
import csv
import hashlib
import random
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import contrastive_forms as forms
from . import contrastive_values as values
from .examples import polar_answers
from .sentences import find_occurrences, sentence_bounds
from .sources import read_json

#: the rule-made classes (:mod:`kpqa.train.contrastive_forms`): (right kind, wrong kind)
FORM_KINDS: tuple[tuple[str, str], ...] = (("polar-implicit", "polar-implicit-flip"), ("long-asserts", "long-mentions"),
                                           ("alias", "alias-wrong"), ("negation-paraphrase", "negation-flip"),
                                           ("qualifier-synonym", "qualifier-swap"), ("role-reorder", "role-swap"),
                                           ("value-restated", "value-near"), ("choice-asked", "choice-asked-other"))
KINDS_CORRECT: tuple[str, ...] = ("span", "clause", "other-sentence", "verbose", "polar-same",
                                  *(k for k, _ in FORM_KINDS))
KINDS_WRONG: tuple[str, ...] = ("swap", "swap-span", "swap-verbose", "choice-other", "polar-flip",
                                "polar-wrong-statement", *(k for _, k in FORM_KINDS))
FIELDS = ("question", "answer", "reference1", "reference2", "reference3", "scores", "kind", "article", "source")

_MONTHS = ("january|february|march|april|may|june|july|august|september|october|november|december|"
           "jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec")
_DATE = re.compile(rf"\b({_MONTHS})\b", re.IGNORECASE)
_YEAR = re.compile(r"^(1[0-9]{3}|20[0-9]{2})s?$")
_NUMBER_WORDS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
                 "sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred "
                 "thousand million billion first second third fourth fifth sixth seventh eighth ninth tenth "
                 "half dozen").split()
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


def squad_articles(path: str | Path, source: str) -> Iterator[Article]:
    """The articles of a SQuAD-layout file, questions with an answer only."""
    data = read_json(path)
    for a, raw in enumerate(data["data"]):
        article = Article(source, str(raw.get("title", a)))
        for paragraph in raw["paragraphs"]:
            for qa in paragraph["qas"]:
                texts = [x["text"].strip() for x in qa.get("answers", []) if x.get("text", "").strip()]
                if texts:
                    article.questions.append(Question(str(qa["id"]), qa["question"].strip(), paragraph["context"],
                                                      list(dict.fromkeys(texts)), int(qa["answers"][0]["answer_start"])))
        yield article


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
        answer's sentence (:mod:`kpqa.train.contrastive_values`), drawn with their own seed."""
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


def polar_rows(records: Sequence[tuple[str, str, str, str]], source: str, seed: int,
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


def conditionalqa_polar(path: str | Path) -> list[tuple[str, str, str, str]]:
    """(id, question, polar, first evidence sentence) of ConditionalQA's yes/no questions."""
    out = []
    for rec in read_json(path):
        polar = polar_answers([a[0] for a in rec.get("answers", [])]) if rec.get("answers") else None
        if polar:
            evidence = re.sub(r"<[^>]+>", "", rec["evidences"][0]).strip() if rec.get("evidences") else ""
            out.append((str(rec["id"]), rec["question"].strip(), polar, evidence))
    return out


def msmarco_polar(path: str | Path) -> list[tuple[str, str, str, str]]:
    """(id, query, polar, first selected passage's first sentence) of MS-MARCO's yes/no queries."""
    out = []
    for rec in read_json(path, jsonl=True):
        polar = polar_answers(rec.get("answers") or [])
        if polar:
            selected = [p["passage_text"] for p in rec.get("passages", []) if p.get("is_selected")]
            evidence = ""
            if selected:
                s, e = sentence_bounds(selected[0])[0]
                evidence = selected[0][s:e]
            query = rec["query"].strip()
            out.append((str(rec.get("query_id", query)), query[0].upper() + query[1:] + "?", polar, evidence))
    return out


def hotpotqa_polar(path: str | Path) -> list[tuple[str, str, str, str]]:
    """(id, question, polar, '') of HotpotQA's yes/no questions."""
    return [(rec["_id"], rec["question"], rec["answer"].lower(), "") for rec in read_json(path)
            if rec.get("answer", "").lower() in ("yes", "no")]


def in_check(article: str, seed: int, share: float) -> bool:
    """Whether an article goes to the check part (a seeded hash of its name)."""
    digest = hashlib.sha256(f"{seed}|split|{article}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < share


def write(rows: Sequence[dict[str, Any]], path: Path) -> None:
    """The rows as a CSV in the human-judgment layout (question, answer, reference1..3, scores, ...)."""
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "w", newline="", encoding="utf-8") as f:
        writer = csv.DictWriter(f, fieldnames=FIELDS)
        writer.writeheader()
        for r in rows:
            refs = (r["references"] + ["", "", ""])[:3]
            writer.writerow({**{k: r[k] for k in FIELDS if k in r}, **{f"reference{i + 1}": refs[i] for i in range(3)}})
    tmp.replace(path)


def squad_rows(builder: Builder, path: Path, name: str, n: int) -> list[dict[str, Any]]:
    """The rows of ``n`` questions (a seeded sample of those with a swappable answer) of a SQuAD-layout file."""
    articles = list(squad_articles(path, name))
    questions = sorted(i for a in articles for i in builder.swappable(a))
    chosen = set(builder.rng(name, "sample").sample(questions, min(n, len(questions))))
    return [r for article in articles for r in builder.rows(article, chosen)]


def build(data: Path, seed: int = 13, per_source: int = 500, check_share: float = 0.4,
          form_pairs: int = 2) -> dict[str, list[dict]]:
    """The fit and check rows from the shared data folder ``data`` (``../shared/data``)."""
    builder = Builder(seed, form_pairs)
    rows: list[dict[str, Any]] = []
    for name, rel in (("squadshifts-wiki", "squadshifts/new_wiki_v1.0.json"),
                      ("squadshifts-amazon", "squadshifts/amazon_reviews_v1.0.json"),
                      ("squad-dev", "squad/dev-v1.1.json")):
        rows += squad_rows(builder, data / rel, name, per_source)
    rows += polar_rows(conditionalqa_polar(data / "conditionalqa/dev.json"), "conditionalqa-dev", seed, form_pairs)
    rows += polar_rows(msmarco_polar(data / "msmarco/qna-sample.jsonl"), "msmarco", seed, form_pairs)
    rows += polar_rows(hotpotqa_polar(data / "hotpotqa/dev-sample.json"), "hotpotqa", seed, form_pairs)
    parts: dict[str, list[dict]] = {"fit": [], "check": []}
    for r in rows:
        parts["check" if in_check(r["article"], seed, check_share) else "fit"].append(r)
    return parts


def build_train(data: Path, seed: int = 13, n_questions: int = 3000, form_pairs: int = 2,
                rare_questions: int = 20000) -> list[dict[str, Any]]:
    """The training rows, from sources that fit / check never read: ``n_questions`` questions of SQuAD v1.1
    train (every kind), ``rare_questions`` other ones (only the classes few questions allow: alias, qualifier,
    role), and every yes/no question of ConditionalQA train."""
    name = "squad-train"
    articles = list(squad_articles(data / "squad/train-v1.1.json", name))
    builder = Builder(seed, form_pairs)
    questions = sorted(i for a in articles for i in builder.swappable(a))
    chosen = set(builder.rng(name, "sample").sample(questions, min(n_questions, len(questions))))
    rows = [r for article in articles for r in builder.rows(article, chosen)]
    rest = sorted(q.id for a in articles for q in a.questions if q.id not in chosen)
    extra = set(builder.rng(name, "rare").sample(rest, min(rare_questions, len(rest))))
    rare = Builder(seed, form_pairs, rare_only=True)
    rows += [r for article in articles for r in rare.rows(article, extra)]
    rows += polar_rows(conditionalqa_polar(data / "conditionalqa/train.json"), "conditionalqa-train", seed, form_pairs)
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", default=str(Path(__file__).resolve().parents[1].parent / "shared" / "data"),
                        help="the shared data folder (default: ../shared/data beside the repo)")
    parser.add_argument("--out", required=True, help="folder for the parts' CSVs (created)")
    parser.add_argument("--part", choices=("fit-check", "train", "all"), default="fit-check",
                        help="fit.csv and check.csv (default), train.csv (disjoint sources), or all three")
    parser.add_argument("--train-questions", type=int, default=3000, help="SQuAD train questions in train.csv")
    parser.add_argument("--train-rare-questions", type=int, default=20000,
                        help="other SQuAD train questions in train.csv, for the rare classes only")
    parser.add_argument("--form-pairs", type=int, default=2,
                        help="pairs of rule-made classes per question (0: the parts as before they were added)")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--per-source", type=int, default=500, help="questions taken from each SQuAD-layout file")
    parser.add_argument("--check-share", type=float, default=0.4, help="share of articles in the check part")
    args = parser.parse_args(argv)
    parts: dict[str, list[dict]] = {}
    if args.part in ("fit-check", "all"):
        parts.update(build(Path(args.data), args.seed, args.per_source, args.check_share, args.form_pairs))
    if args.part in ("train", "all"):
        parts["train"] = build_train(Path(args.data), args.seed, args.train_questions, args.form_pairs,
                                     args.train_rare_questions)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for name, rows in parts.items():
        write(rows, out / f"{name}.csv")
        correct = sum(r["scores"] for r in rows)
        print(f"{out / name}.csv: {len(rows)} rows, {correct} correct, "
              f"{len({r['article'] for r in rows})} articles")
        counts: dict[str, int] = {}
        for r in rows:
            counts[r["kind"]] = counts.get(r["kind"], 0) + 1
        print("  " + ", ".join(f"{k} {n}" for k, n in sorted(counts.items())))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
