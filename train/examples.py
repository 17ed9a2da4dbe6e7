"""The unit the source converters produce and the trainer consumes."""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class TaggedExample:
    """A question with its answer sentence(s) and the character spans of the answer in them.

    ``text`` is the answer sentence(s) joined with single spaces; ``spans`` are ``(start, end)`` character offsets
    into ``text`` (end exclusive), sorted and non-overlapping (the converters never give an example without one);
    ``source`` is ``"squad"``, ``"hotpotqa"`` or ``"msmarco"``; ``id`` is the source's record id (SQuAD ``id``,
    HotpotQA ``_id``, MS-MARCO ``query_id`` or else the row key).
    """

    question: str
    text: str
    spans: tuple[tuple[int, int], ...]
    source: str
    id: str

    def __post_init__(self) -> None:
        previous_end = 0
        for start, end in self.spans:
            if not (previous_end <= start < end <= len(self.text)):
                raise ValueError(f"example {self.id!r}: span ({start}, {end}) out of order or outside its text")
            previous_end = end

    @property
    def answers(self) -> list[str]:
        """The tagged substrings of ``text``."""
        return [self.text[start:end] for start, end in self.spans]
