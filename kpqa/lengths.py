"""The text-length rule, in one place: how long a text (question, answer, reference, known-wrong answer) each metric
scores in bounded time, the ``max_chars`` setting that overrides it, and the check of one text against it.

Memory is linear in the texts whatever the limit; what a limit bounds is time. A longer text makes a bad row
(:func:`kpqa.input.frame_to_table`: an :class:`~kpqa.errors.InputError` naming the cell, or a row left out under
``on_error``) rather than a run of hours.
"""
from __future__ import annotations

from typing import Iterable, Protocol

from kpqa.errors import InputError, Param, UsageError

#: the longest text a model metric (the weighter's and the encoders' windows, the weighted LCS) scores by default:
#: the weighted LCS grows with the product of two texts' lengths and the models with the length. About 33,000
#: words; a 200,000-character answer against a 200,000-character reference takes about five minutes of one CPU core
#: (docs/benchmark.md).
MAX_CHARS = 200_000
#: the longest text an LCS metric (ROUGE-L and its adapted form: rapidfuzz's bit-parallel LCS, linear memory)
#: scores: two texts this long take seconds, not minutes
LCS_MAX_CHARS = 1_000_000


class Limited(Protocol):
    """What the rule reads of a metric: whether it runs a model, and its own limit (None: any length)."""

    @property
    def uses_model(self) -> bool: ...

    @property
    def max_chars(self) -> int | None: ...


def text_limit(metrics: Iterable[Limited]) -> int | None:
    """The longest text every one of ``metrics`` scores in bounded time: the smallest of their ``max_chars``,
    :data:`MAX_CHARS` for a model metric; None when every one takes any length."""
    limits = [MAX_CHARS if m.uses_model else m.max_chars for m in metrics]
    return min((x for x in limits if x is not None), default=None)


def model_limit(max_chars: int | None) -> int:
    """The longest text a model reads (the explanation, the report's weights): ``max_chars``, or :data:`MAX_CHARS`."""
    return MAX_CHARS if max_chars is None else max_chars


def check_max_chars(max_chars: int | None) -> int | None:
    """``max_chars`` unchanged if it is a positive integer or None (no limit), else a :class:`UsageError`."""
    if max_chars is not None and (isinstance(max_chars, bool) or not isinstance(max_chars, int) or max_chars < 1):
        raise UsageError(Param("max_chars", max_chars), ": must be a positive integer or None")
    return max_chars


def check_length(text: str, max_chars: int | None, source: str | Param, row: int | None = None,
                 column: str | None = None) -> str:
    """``text`` unchanged, or an :class:`InputError` naming the cell (or the parameter ``source`` that gave the text)
    when it is longer than ``max_chars``."""
    if max_chars is not None and len(text) > max_chars:
        message = (f"text of {len(text):,} characters, over the limit of {max_chars:,} per text (raise it with ",
                   Param("max_chars", metavar="N"), ")")
        if isinstance(source, Param):
            raise InputError(source, ": ", *message)
        raise InputError(*message, file=source, row=row, column=column)
    return text
