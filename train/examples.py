"""The unit the source converters produce and the trainer consumes."""
from __future__ import annotations

import re
from dataclasses import dataclass, field

POLAR = ("yes", "no")
_OR = re.compile(r"\bor\b")


@dataclass(frozen=True)
class TaggedExample:
    """A question with its answer sentence(s) and the character spans of the answer in them.

    ``text`` is the answer sentence(s) joined with single spaces; ``spans`` are ``(start, end)`` character offsets
    into ``text`` (end exclusive), sorted and non-overlapping; ``source`` names the source (``squad``,
    ``squadshifts``, ``policyqa``, ``covidqa``, ``conditionalqa``, ``hotpotqa``, ``msmarco``); ``id`` is the
    source's record id.

    A yes/no answer is not in any passage: its example has ``polar`` set to ``"yes"`` or ``"no"``, ``text`` holds
    the evidence (may be empty) and ``spans`` is empty; :func:`kpqa.train.forms.build_examples` turns it into a
    tagged answer ("Yes, <evidence>" or a bare "yes") or drops it. Every other example has at least one span.

    ``passage`` is the paragraph ``text`` was cut from and ``passage_span`` the first answer's span in it, where the
    converter has them (the SQuAD-layout sources): the long-answer form cuts a few sentences around the answer from it.
    """

    question: str
    text: str
    spans: tuple[tuple[int, int], ...]
    source: str
    id: str
    polar: str | None = None
    passage: str = field(default="", compare=False, repr=False)
    passage_span: tuple[int, int] | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.polar is not None:
            if self.polar not in POLAR or self.spans:
                raise ValueError(f"example {self.id!r}: a polar example has polar 'yes' or 'no' and no spans")
            return
        if not self.spans:
            raise ValueError(f"example {self.id!r}: no answer span")
        previous_end = 0
        for start, end in self.spans:
            if not (previous_end <= start < end <= len(self.text)):
                raise ValueError(f"example {self.id!r}: span ({start}, {end}) out of order or outside its text")
            previous_end = end

    @property
    def answers(self) -> list[str]:
        """The tagged substrings of ``text``."""
        return [self.text[start:end] for start, end in self.spans]


def polar_answer(answer: str) -> str | None:
    """``"yes"`` or ``"no"`` when ``answer`` is a bare yes/no answer ("Yes", "no.", " YES "), else ``None``."""
    word = answer.strip().rstrip(".!").strip().lower()
    return word if word in POLAR else None


def polar_answers(answers: list[str]) -> str | None:
    """``"yes"`` or ``"no"`` when every one of ``answers`` is that same bare yes/no answer, else ``None``."""
    found = {polar_answer(a) for a in answers}
    return found.pop() if len(found) == 1 and None not in found else None


def is_choice_question(example: TaggedExample) -> bool:
    """Whether ``example`` answers a choice question with one of its options ("was it from home or takeout?" ->
    "home"): the question has an "or" and an answer's words (case-folded, outer punctuation stripped) occur as
    whole words in the question. The one case where the answer repeats question words, which the weighter otherwise
    learns to leave untagged."""
    question = example.question.lower()
    if example.polar is not None or not _OR.search(question):
        return False
    for answer in example.answers:
        words = answer.lower().strip(" .,;:!?\"'()")
        if words and re.search(rf"(?<!\w){re.escape(words)}(?!\w)", question):
            return True
    return False
