"""Sentence splitting with character offsets, answer search, and cutting answer sentences out of a context."""
from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

Span = tuple[int, int]


@lru_cache(maxsize=1)
def _segmenter():  # noqa: ANN202  (a pysbd.Segmenter)
    """pysbd's English segmenter, imported on first use (``kpqa train --help`` works without the train extra)."""
    import pysbd

    return pysbd.Segmenter(language="en", clean=False)

#: the longest context (characters) a converter reads: sentence splitting and the trainer's windows grow with a
#: text's length, so a record with a longer one is skipped and counted under :data:`TOO_LONG` (the longest SQuAD
#: v1.1 context has under 4,000 characters)
MAX_CONTEXT_CHARS = 100_000
TOO_LONG = f"text over {MAX_CONTEXT_CHARS:,} characters"


def too_long(*texts: str) -> bool:
    """Whether any of ``texts`` is longer than :data:`MAX_CONTEXT_CHARS`."""
    return any(len(text) > MAX_CONTEXT_CHARS for text in texts)


@lru_cache(maxsize=256)
def sentence_bounds(text: str) -> tuple[Span, ...]:
    """``(start, end)`` offsets of the sentences of ``text`` (pysbd's English rules), whitespace trimmed.

    The bounds cover every non-space character of ``text``: a sentence runs up to where the next one starts. pysbd's
    own ``char_span`` mode compiles one regex per sentence and is several times slower, so its sentences are located
    here with ``str.find``; one it altered beyond recognition is merged into the sentence before it. Cached: the
    questions of one SQuAD paragraph share a context.
    """
    starts: list[int] = []
    cursor = 0
    for sentence in _segmenter().processor(text).process():
        sentence = sentence.strip()
        found = text.find(sentence, cursor) if sentence else -1
        if found >= 0:
            starts.append(found)
            cursor = found + len(sentence)
    if not starts or starts[0] != 0:
        starts.insert(0, 0)
    bounds = []
    for start, end in zip(starts, starts[1:] + [len(text)]):
        trimmed = _trim(text, start, end)
        if trimmed[0] < trimmed[1]:
            bounds.append(trimmed)
    return tuple(bounds)


def _trim(text: str, start: int, end: int) -> Span:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def trim_span(text: str, span: Span) -> Span:
    """``span`` without the whitespace at its edges."""
    return _trim(text, *span)


def find_occurrences(text: str, needle: str) -> list[Span]:
    """Every occurrence of ``needle`` in ``text``, case-insensitive, not inside a longer word."""
    needle = needle.strip()
    if not needle:
        return []
    pattern = re.compile(rf"(?<!\w){re.escape(needle)}(?!\w)", re.IGNORECASE)
    return [match.span() for match in pattern.finditer(text)]


def disjoint(spans: Sequence[Span]) -> tuple[Span, ...]:
    """Sorted spans, dropping any that overlaps an earlier-starting (or, at the same start, longer) one."""
    kept: list[Span] = []
    for start, end in sorted(set(spans), key=lambda span: (span[0], -span[1])):
        if start < end and (not kept or start >= kept[-1][1]):
            kept.append((start, end))
    return tuple(kept)


def covering_sentences(text: str, spans: Sequence[Span]) -> tuple[str, tuple[Span, ...]]:
    """The sentences of ``text`` that hold the ``spans``, joined with single spaces, and the spans moved into them.

    Sentences that touch in ``text`` (no whitespace between them) stay touching.

    A span that crosses a sentence boundary takes all the sentences it touches. Returns ``("", ())`` when no span
    touches a sentence.
    """
    if not spans:
        return "", ()
    bounds = sentence_bounds(text)
    spans = [trim_span(text, span) for span in spans]
    chosen = sorted({k for k, (s, e) in enumerate(bounds) for start, end in spans if s < end and start < e})
    pieces: list[str] = []
    offsets: list[int] = []
    for i, k in enumerate(chosen):
        s, e = bounds[k]
        if pieces:  # no space where two neighbouring sentences touch in the source ("...ended.Then")
            pieces.append("" if chosen[i - 1] == k - 1 and bounds[k - 1][1] == s else " ")
        offsets.append(sum(map(len, pieces)))
        pieces.append(text[s:e])
    moved = []
    for start, end in spans:
        first = next((i for i, k in enumerate(chosen) if bounds[k][1] > start), None)
        last = next((i for i in reversed(range(len(chosen))) if bounds[chosen[i]][0] < end), None)
        if first is None or last is None or first > last:
            continue
        new_start = offsets[first] + max(start - bounds[chosen[first]][0], 0)
        new_end = offsets[last] + min(end, bounds[chosen[last]][1]) - bounds[chosen[last]][0]
        moved.append((new_start, new_end))
    return "".join(pieces), disjoint(moved)


def join_texts(parts: Sequence[tuple[str, Sequence[Span]]]) -> tuple[str, tuple[Span, ...]]:
    """Texts with their spans, joined with single spaces into one text with its spans (empty texts dropped)."""
    pieces: list[str] = []
    spans: list[Span] = []
    length = 0
    for text, text_spans in parts:
        if not text:
            continue
        length += 1 if pieces else 0
        spans.extend((start + length, end + length) for start, end in text_spans)
        pieces.append(text)
        length += len(text)
    return " ".join(pieces), disjoint(spans)
