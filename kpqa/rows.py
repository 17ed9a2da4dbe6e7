"""The batch of examples every stage passes along: questions, candidates, references and optional labels."""
from __future__ import annotations

from dataclasses import dataclass

#: the longest text (question, answer or reference, in characters) a row may hold by default: the work and memory
#: of the model metrics and of an LCS grow with the product of two texts' lengths, so a longer text makes a bad row
#: (:func:`kpqa.io.frame_to_table`) rather than a run that fills the machine. About 1,500-2,000 words; the longest
#: text of the shared human-judgment sets has 1,543 characters.
MAX_CHARS = 10_000


@dataclass
class Rows:
    """A batch of examples. ``references[i]`` holds the non-empty references of row ``i`` (at least one).

    Optional fields are ``None`` when the input has no such column: ``candidate_labels[i]`` and
    ``reference_labels[i][k]`` are Yes / No / Depends opinion labels (Yang et al.), ``entities[i]`` the gold
    entity strings of row ``i``.
    """

    questions: list[str]
    candidates: list[str]
    references: list[list[str]]
    candidate_labels: list[str | None] | None = None
    reference_labels: list[list[str | None]] | None = None
    entities: list[list[str]] | None = None

    def __len__(self) -> int:
        return len(self.candidates)
