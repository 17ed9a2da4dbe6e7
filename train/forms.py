"""Answer forms: what the examples of the converters are turned into before training (``kpqa train`` options).

The KPQA paper trains on answer *sentences* only. Generated answers and references are often shorter (a bare
entity, "yes") or longer (several sentences), so the builder can also teach

- **short answers** (``short``): a share of the span examples is cut to the answer span with 0-3 words of its
  sentence on either side (all of a 1-3 word reference is then the answer, as it should be);
- **bare answers** (``bare``): a share of the other span examples is cut to the first answer span alone, the shape
  of a gold alias ("the Beatles") or a bare extracted span;
- **long answers** (``long``): a share of the other span examples whose converter kept the paragraph (the
  SQuAD-layout sources) becomes the answer sentence with 1-4 of the paragraph's sentences around it
  (:func:`lengthen`), the shape of a chatty generated answer; only the first answer is tagged;
- **echo answers** (``echo``): a share of the other span examples becomes the question restated around the first
  answer ("Which show had X? The Word.", 'The answer to "Which show had X" is The Word.', "Show had X is The Word."),
  the shape of a chatty generated answer, whose question words are not the answer (:func:`echo`);
- **yes/no answers** (``yes_no``): the polar examples of MS-MARCO, ConditionalQA and HotpotQA become "Yes, <first
  evidence sentence>" or a bare "yes" (``sentence``, ``bare``, or ``mixed`` = half each), tagged K on the polar
  word only; ``off`` drops them as the paper did;
- **choice questions** (``choice``): an example whose answer is one of the options its question offers ("was it
  from home or takeout?" -> "from home") is used ``choice`` times, the extra copies cut to short answers
  (:func:`choice_copies`; copies of training examples only, never of the dev split). SQuAD answers almost never
  repeat question words, so without them the weighter learns that a question word is never the answer;
- **no near-whole-sentence answers** (``max_answer_share``): a span example whose tagged characters are more than
  this share of its text is dropped (MS-MARCO's free-form answers often cover their sentence, which teaches flat
  weights).

Long answers come from the sources themselves (PolicyQA, COVID-QA spans, multi-sentence MS-MARCO answers).
Every choice is seeded per example (seed, source, id), so a form does not depend on the order of the sources.
"""
from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from kpqa.errors import UsageError

from .examples import TaggedExample, is_choice_question
from .sentences import sentence_bounds

YES_NO = ("off", "bare", "sentence", "mixed")
_WORD = re.compile(r"\S+")
MAX_CONTEXT_WORDS = 3
#: most sentences a long answer takes on either side of the answer's own
MAX_EXTRA_SENTENCES = 2


@dataclass(frozen=True)
class AnswerForms:
    """The builder's options (see the module docstring)."""

    short: float = 0.0
    yes_no: str = "off"
    max_answer_share: float = 1.0
    choice: int = 1
    bare: float = 0.0
    long: float = 0.0
    echo: float = 0.0

    def __post_init__(self) -> None:
        if not 0.0 <= self.short <= 1.0:
            raise UsageError(f"--short-answers must be a share in [0, 1], got {self.short}")
        if not 0.0 <= self.bare <= 1.0:
            raise UsageError(f"--bare-answers must be a share in [0, 1], got {self.bare}")
        if not 0.0 <= self.echo <= 1.0:
            raise UsageError(f"--echo-answers must be a share in [0, 1], got {self.echo}")
        if not 0.0 <= self.long <= 1.0:
            raise UsageError(f"--long-answers must be a share in [0, 1], got {self.long}")
        if self.yes_no not in YES_NO:
            raise UsageError(f"--yes-no must be one of {', '.join(YES_NO)}, got {self.yes_no!r}")
        if not 0.0 < self.max_answer_share <= 1.0:
            raise UsageError(f"--max-answer-share must be in (0, 1], got {self.max_answer_share}")
        if self.choice < 1:
            raise UsageError(f"--choice-questions must be at least 1 (use each once), got {self.choice}")


def shorten(example: TaggedExample, rng: random.Random) -> TaggedExample:
    """The example's first span with 0-3 words of its text on either side; the spans inside that window kept."""
    start, end = example.spans[0]
    words = [m.span() for m in _WORD.finditer(example.text)]
    first = next(i for i, (s, e) in enumerate(words) if e > start)
    last = max(i for i, (s, e) in enumerate(words) if s < end)
    first = max(0, first - rng.randint(0, MAX_CONTEXT_WORDS))
    last = min(len(words) - 1, last + rng.randint(0, MAX_CONTEXT_WORDS))
    left, right = min(words[first][0], start), max(words[last][1], end)
    spans = tuple((s - left, e - left) for s, e in example.spans if left <= s and e <= right)
    return TaggedExample(example.question, example.text[left:right], spans, example.source, example.id)


def lengthen(example: TaggedExample, rng: random.Random) -> TaggedExample | None:
    """The sentence of ``example.passage`` holding its first answer with up to :data:`MAX_EXTRA_SENTENCES` of the
    sentences before and after it (at least one more than the answer's own), the answer tagged; ``None`` without a
    passage or when the passage has no other sentence."""
    if not example.passage or example.passage_span is None:
        return None
    bounds = sentence_bounds(example.passage)
    start, end = example.passage_span
    own = (next(k for k, (s, e) in enumerate(bounds) if e > start),
           max(k for k, (s, e) in enumerate(bounds) if s < end))
    before, after = rng.randint(0, MAX_EXTRA_SENTENCES), rng.randint(0, MAX_EXTRA_SENTENCES)
    if before + after == 0:
        before, after = (0, 1) if rng.random() < 0.5 else (1, 0)
    first, last = max(0, own[0] - before), min(len(bounds) - 1, own[1] + after)
    if (first, last) == own:
        return None
    left, right = bounds[first][0], bounds[last][1]
    return TaggedExample(example.question, example.passage[left:right], ((start - left, end - left),),
                         example.source, example.id)


def restate(question: str) -> str:
    """``question`` turned roughly into a statement's subject: the question mark, a leading wh-word ("how many"
    counts as one) and the auxiliary after it dropped ("Who was the man behind X?" -> "The man behind X")."""
    words = question.strip().rstrip("?").split()
    if words and words[0].lower() in _WH:
        words = words[2:] if words[0].lower() == "how" and len(words) > 1 and words[1].lower() in ("many", "much") \
            else words[1:]
    if words and words[0].lower() in _AUX:
        words = words[1:]
    text = " ".join(words) or question.strip()
    return text[:1].upper() + text[1:]


_WH = frozenset("who whom whose what which when where why how".split())
_AUX = frozenset("is are was were do does did has have had can could will would".split())


def echo(example: TaggedExample, rng: random.Random) -> TaggedExample:
    """The question restated around the example's first answer, the answer tagged (:data:`AnswerForms.echo`)."""
    start, end = example.spans[0]
    answer = example.text[start:end]
    question = example.question.strip()
    form = rng.randrange(3)
    if form == 0:
        prefix = f"{question} "
    elif form == 1:
        prefix = f'The answer to "{question.rstrip("?").strip()}" is '
    else:
        prefix = f"{restate(question)} is "
    return TaggedExample(example.question, f"{prefix}{answer}.", ((len(prefix), len(prefix) + len(answer)),),
                         example.source, example.id)


def polar_text(example: TaggedExample, form: str) -> TaggedExample:
    """A polar example as "Yes, <first evidence sentence>" (``sentence``) or "yes" (``bare``), K on the polar word."""
    word = example.polar or ""
    bounds = sentence_bounds(example.text) if example.text.strip() else ()
    if form == "bare" or not bounds:
        return TaggedExample(example.question, word, ((0, len(word)),), example.source, example.id)
    evidence = example.text[slice(*bounds[0])]
    text = f"{word.capitalize()}, {evidence}"
    return TaggedExample(example.question, text, ((0, len(word)),), example.source, example.id)


def build_examples(examples: Iterable[TaggedExample], forms: AnswerForms, seed: int
                   ) -> tuple[list[TaggedExample], Counter]:
    """The training examples ``forms`` asks for, and counts of what was done to them."""
    out: list[TaggedExample] = []
    counts: Counter = Counter()
    for example in examples:
        rng = random.Random(f"{seed}:{example.source}:{example.id}")
        if example.polar is not None:
            if forms.yes_no == "off":
                counts["yes/no dropped"] += 1
                continue
            form = forms.yes_no if forms.yes_no != "mixed" else rng.choice(("bare", "sentence"))
            example = polar_text(example, form)
            counts[f"yes/no as {'bare word' if example.text in ('yes', 'no') else 'sentence'}"] += 1
        else:
            tagged = sum(end - start for start, end in example.spans)
            if tagged > forms.max_answer_share * len(example.text):
                counts["answer share too large, dropped"] += 1
                continue
            if forms.short and rng.random() < forms.short:
                example = shorten(example, rng)
                counts["cut to a short answer"] += 1
            elif forms.bare and rng.random() < forms.bare:
                start, end = example.spans[0]
                example = TaggedExample(example.question, example.text[start:end], ((0, end - start),),
                                        example.source, example.id)
                counts["cut to the bare answer"] += 1
            elif forms.echo and rng.random() < forms.echo:
                example = echo(example, rng)
                counts["the question restated around the answer"] += 1
            elif forms.long and rng.random() < forms.long and (longer := lengthen(example, rng)) is not None:
                example = longer
                counts["long answer (sentences around it)"] += 1
            else:
                counts["answer sentence"] += 1
        out.append(example)
    return out, counts


def choice_copies(examples: Sequence[TaggedExample], forms: AnswerForms, seed: int
                  ) -> list[tuple[int, TaggedExample]]:
    """``forms.choice - 1`` short-answer copies of each choice-question example (:func:`is_choice_question`), as
    (index of the example copied, copy); each copy seeded by (seed, source, id, copy number)."""
    out = []
    for index, example in enumerate(examples):
        if forms.choice > 1 and is_choice_question(example):
            for k in range(1, forms.choice):
                rng = random.Random(f"{seed}:{example.source}:{example.id}:choice{k}")
                out.append((index, shorten(example, rng)))
    return out
