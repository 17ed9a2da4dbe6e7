"""The one format interface and the registry that finds the formats: a :class:`Format` names a file format by its
suffixes and says how to read it in chunks, count its rows and write it.

Each module of :mod:`kpqa.formats` registers its formats when imported (:func:`register`); the registry imports
every module of the package on the first look-up (:func:`formats`), so adding a format is adding one module.
:mod:`kpqa.input` and :mod:`kpqa.output` reach the formats only through the registry.
"""
from __future__ import annotations

import importlib
import json
import pkgutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import pandas as pd

from kpqa.errors import InputError

#: a chunk read from a file: the frame (the file's columns as given) and the number of each of its rows in messages
Chunk = tuple[pd.DataFrame, Sequence[int]]


@dataclass(frozen=True)
class Writer:
    """How :class:`kpqa.output.OutputWriter` writes a format: chunks staged in a temp file as delimited text
    (``sep``: a CSV header fixed by the first chunk; ``quoted``: fields quoted where needed, else written as they
    are, as TSV reads them) or, with ``sep=None``, as JSON lines; then ``finish(staged, out)`` writes the output
    file ``out`` from the staged one (None: the staged file is the output)."""

    sep: str | None = None
    finish: Callable[[str, str], None] | None = None
    quoted: bool = True


@dataclass(frozen=True)
class Format:
    """A file format: its ``name`` (``csv``), the ``suffixes`` that name it (lower case, with the dot), ``read(path,
    chunk_rows)`` -> chunks of at most ``chunk_rows`` rows in file order (raising :class:`InputError` naming the file
    and row of a problem), ``count(path)`` -> its number of data rows read cheaply (None when it cannot be told),
    and ``writer`` (None: read only). ``note`` is said after its suffixes in listings, which give the formats by
    ``rank``."""

    name: str
    suffixes: tuple[str, ...]
    read: Callable[[Path, int], Iterator[Chunk]]
    count: Callable[[Path], int | None]
    writer: Writer | None = None
    note: str = ""
    rank: int = 100

    def listed(self) -> str:
        """How listings name it: ``.jsonl (or .ndjson)``, ``.json (an array of objects)``."""
        first, *others = self.suffixes
        return first + (f" (or {', '.join(others)})" if others else "") + (f" ({self.note})" if self.note else "")


_FORMATS: dict[str, Format] = {}
_LOADED = False


def _load_builtin() -> None:
    """Import every module of :mod:`kpqa.formats` (the format modules register themselves): no list to keep."""
    global _LOADED
    if not _LOADED:
        _LOADED = True
        package = sys.modules[__package__]
        for module in sorted(m.name for m in pkgutil.iter_modules(package.__path__)):
            importlib.import_module(f"{__package__}.{module}")


def register(fmt: Format) -> Format:
    """Register ``fmt`` (a :class:`ValueError` when its name or one of its suffixes is taken); returns it."""
    taken = {s: f.name for f in _FORMATS.values() for s in f.suffixes}
    if fmt.name in _FORMATS:
        raise ValueError(f"format {fmt.name!r} registered twice")
    for suffix in fmt.suffixes:
        if suffix != suffix.lower() or not suffix.startswith("."):
            raise ValueError(f"format {fmt.name!r}: suffix {suffix!r} is not a lower-case '.ext'")
        if suffix in taken:
            raise ValueError(f"format {fmt.name!r}: suffix {suffix!r} is {taken[suffix]!r}'s")
    _FORMATS[fmt.name] = fmt
    return fmt


def formats() -> dict[str, Format]:
    """``{suffix: Format}`` of every registered format, in the order listings give them."""
    _load_builtin()
    return {s: f for f in sorted(_FORMATS.values(), key=lambda f: (f.rank, f.name)) for s in f.suffixes}


def named(name: str) -> Format:
    """The format registered as ``name``."""
    _load_builtin()
    return _FORMATS[name]


def listing(writable: bool = False) -> str:
    """The formats as messages list them (``.csv, .tsv, ...``); ``writable``: only those with a writer."""
    listed = dict.fromkeys(f for f in formats().values() if f.writer is not None or not writable)
    return ", ".join(f.listed() for f in listed)


def check_utf8(path: Path, header: bool) -> None:
    """InputError naming the row and byte offset of the first byte that is not UTF-8 (checked line by line: a UTF-8
    sequence never spans a newline byte). Rows are numbered by line: from 1 after a ``header`` line (which is no
    row), else from the first line. A gzip file and UTF-16 text (a byte-order mark, or NUL bytes: valid UTF-8 that
    would read as one letter a column) are said to be so."""
    with open(path, "rb") as f:
        start = f.read(4096)
    if start.startswith(b"\x1f\x8b"):
        raise InputError("a gzip file (it starts with the bytes 1f 8b), not text: decompress it first (gunzip)",
                         file=str(path))
    nuls = max(start[::2].count(0), start[1::2].count(0))  # UTF-16's ASCII letters: every other byte a NUL
    if start.startswith((b"\xff\xfe", b"\xfe\xff")) or nuls > len(start) // 4:
        raise InputError("UTF-16 text (a byte-order mark or NUL bytes): save the file as UTF-8", file=str(path))
    offset = 0
    with open(path, "rb") as f:
        for number, line in enumerate(f):
            try:
                line.decode("utf-8")
            except UnicodeDecodeError as e:
                raise InputError(
                    f"not UTF-8 text (byte 0x{line[e.start]:02x} at offset {offset + e.start}); re-save the file as UTF-8",
                    file=str(path),
                    row=(number or None) if header else number + 1,
                ) from None
            offset += len(line)


class JsonNumber(float):
    """A JSON number with a fraction or an exponent (or ``Infinity``): its float for arithmetic, the text JSON wrote
    for ``str`` (``1e5`` stays ``"1e5"``, not ``"100000.0"``), so a text field holding a number reads as written."""

    text: str

    def __new__(cls, text: str) -> JsonNumber:
        number = super().__new__(cls, text)
        number.text = text
        return number

    def __str__(self) -> str:
        return self.text


class DuplicateKey(ValueError):
    """An object of the JSON gives ``key`` twice (``json`` would keep the last value silently)."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found = dict(pairs)
    if len(found) < len(pairs):
        seen: set[str] = set()
        raise DuplicateKey(next(k for k, _ in pairs if k in seen or seen.add(k)))  # type: ignore[func-returns-value]
    return found


def _constant(name: str) -> float:
    return float("nan") if name == "NaN" else JsonNumber(name)  # NaN: a missing value, as pandas writes one


#: the decoder of JSON input: numbers read as written (:class:`JsonNumber`; integers are exact already), ``NaN`` a
#: missing value, a key given twice in one object a :class:`DuplicateKey`
DECODER = json.JSONDecoder(parse_float=JsonNumber, parse_constant=_constant, object_pairs_hook=_object)


def duplicate_key(e: DuplicateKey) -> str:
    """What an error says of a key given twice."""
    return f"key {e.key!r} given twice in one object (JSON would keep the last value; give it once)"


def given_frame(records: list[dict], source: str, numbers: Sequence[int] | None = None) -> pd.DataFrame:
    """Records as a frame with their fields as given (object columns: a 2024 beside a null stays 2024, not 2024.0;
    a ``references`` list stays one column, which :func:`kpqa.input.frame_to_table` reads); a record that is not an
    object is an error naming its row."""
    for number, record in zip(numbers or range(1, len(records) + 1), records):
        if not isinstance(record, dict):
            raise InputError("each record must be an object (a dict)", file=source, row=number)
    return pd.DataFrame(records, dtype=object) if records else pd.DataFrame()
