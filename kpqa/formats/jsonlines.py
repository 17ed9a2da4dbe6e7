"""JSON lines (``.jsonl``, ``.ndjson``): one JSON object a line, blank lines skipped; messages number the rows by
their line. Numbers are read as written and a key given twice is an error (:data:`kpqa.formats.base.DECODER`)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Iterable, Iterator

from kpqa.errors import InputError
from kpqa.formats.base import (DECODER, Chunk, DuplicateKey, Format, Writer, check_utf8, duplicate_key, given_frame,
                               register)


def read(path: Path, chunk_rows: int) -> Iterator[Chunk]:
    """Chunks of at most ``chunk_rows`` records, each numbered by its line."""
    check_utf8(path, header=False)
    return read_lines(path, chunk_rows)


def read_lines(path: Path, chunk_rows: int) -> Iterator[Chunk]:
    """:func:`read` of a file already checked to be UTF-8."""
    with open(path, encoding="utf-8-sig") as f:
        numbered: list[tuple[int, dict]] = []
        seen = False
        for item in _records(path, f):
            numbered.append(item)
            if len(numbered) == chunk_rows:
                yield _numbered_frame(path, numbered)
                seen, numbered = True, []
        if numbered:
            yield _numbered_frame(path, numbered)
        elif not seen:
            raise InputError("empty file", file=str(path))


def count(path: Path) -> int:
    """The number of non-blank lines."""
    with open(path, encoding="utf-8-sig", newline="") as f:
        return sum(1 for line in f if line.strip())


def _records(path: Path, lines: Iterable[str]) -> Iterator[tuple[int, dict]]:
    """(line number, JSON object) of each non-blank line."""
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = DECODER.decode(line)
        except json.JSONDecodeError as e:
            raise InputError(f"malformed JSON line: {e.msg} at char {e.pos}", file=str(path), row=number) from None
        except DuplicateKey as e:
            raise InputError(duplicate_key(e), file=str(path), row=number) from None
        if not isinstance(record, dict):
            raise InputError("each JSONL line must be a JSON object", file=str(path), row=number)
        yield number, record


def _numbered_frame(path: Path, numbered: list[tuple[int, dict]]) -> Chunk:
    numbers = [n for n, _ in numbered]
    return given_frame([r for _, r in numbered], str(path), numbers), numbers


JSONL = register(Format("jsonl", (".jsonl", ".ndjson"), read, count, Writer(), rank=30))
