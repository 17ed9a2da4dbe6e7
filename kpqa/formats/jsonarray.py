"""JSON (``.json``): an array of objects, read whole (messages number the rows from 1), or JSON lines (as
:mod:`kpqa.formats.jsonlines`); written as an array, one object a line. Numbers are read as written and a key given
twice is an error (:data:`kpqa.formats.base.DECODER`)."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Iterator

from kpqa.errors import InputError
from kpqa.formats import jsonlines
from kpqa.formats.base import (DECODER, Chunk, DuplicateKey, Format, Writer, check_utf8, duplicate_key, given_frame,
                               register)


def read(path: Path, chunk_rows: int) -> Iterator[Chunk]:
    """Chunks of at most ``chunk_rows`` records of the array (or of the JSON lines)."""
    check_utf8(path, header=False)
    if not _is_array(path):
        yield from jsonlines.read_lines(path, chunk_rows)
        return
    records = _array(path)
    for start in range(0, len(records), chunk_rows):
        numbers = list(range(start + 1, min(start + chunk_rows, len(records)) + 1))
        yield given_frame(records[start:start + chunk_rows], str(path), numbers), numbers


def count(path: Path) -> int | None:
    """The number of JSON lines; None for an array (it would have to be parsed)."""
    return None if _is_array(path) else jsonlines.count(path)


def finish(staged: str, out: str) -> None:
    """The JSON array of the staged JSON lines, streamed: one object a line."""
    with open(out, "w", encoding="utf-8") as f, open(staged, encoding="utf-8") as lines:
        f.write("[")
        for k, line in enumerate(lines):
            f.write(("," if k else "") + "\n" + line.rstrip("\n"))
        f.write("\n]\n")


def _is_array(path: Path) -> bool:
    with open(path, encoding="utf-8-sig") as f:
        return f.read(4096).lstrip().startswith("[")


def _array(path: Path) -> list[dict]:
    text = path.read_text(encoding="utf-8-sig")
    try:
        records = DECODER.decode(text)
    except json.JSONDecodeError as e:
        raise InputError(f"malformed JSON: {e.msg} at line {e.lineno}, column {e.colno}", file=str(path)) from None
    except DuplicateKey as e:
        row, line = _duplicate_at(text)
        raise InputError(f"line {line}: {duplicate_key(e)}", file=str(path), row=row) from None
    if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
        raise InputError("a .json input must be an array of objects (or JSON lines: one object per line)",
                         file=str(path))
    if not records:
        raise InputError("empty file", file=str(path))
    return records


def _duplicate_at(text: str) -> tuple[int | None, int]:
    """The row (from 1) and line of the first element of a JSON array (otherwise well formed) that gives a key twice
    (None and the line of the text's start when that is not an element of an array)."""
    start = len(text) - len(text.lstrip())
    if text.startswith("[", start):
        at, row = start + 1, 0
        while True:
            at += len(text[at:]) - len(text[at:].lstrip())
            row += 1
            try:
                _, end = DECODER.raw_decode(text, at)
            except DuplicateKey:
                return row, text.count("\n", 0, at) + 1
            at = end + len(text[end:]) - len(text[end:].lstrip())
            if not text.startswith(",", at):
                break
            at += 1
    return None, text.count("\n", 0, start) + 1


JSON = register(Format("json", (".json",), read, count, Writer(finish=finish), note="an array of objects", rank=40))
