"""CSV and TSV: a header line naming the columns, then one record a row; every cell read as text, exactly as
written or refused. CSV quotes as RFC 4180 does (a quoted field may hold commas, doubled quotes and line breaks; a
quote that does not close a field is an error); TSV has no quoting (a field is the text between tabs, quotes
included, so it cannot hold a tab or a line break). A record with more or fewer fields than the header is an error
naming its line and the counts (pandas would take an extra field as an index column and shift every column).
Blank lines are skipped. Messages number the rows from 1 after the header."""
from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Iterator

import pandas as pd

from kpqa.errors import InputError
from kpqa.formats.base import Chunk, Format, Writer, check_utf8, register


#: the longest field a delimited file may hold: texts are limited by what their metrics score (``max_chars``,
#: none for BLEU), not by the csv module's default of 131,072 characters; the most a C long holds everywhere
FIELD_LIMIT = 2**31 - 1


@dataclass(frozen=True)
class Dialect:
    """How a delimited format splits a line: the ``sep`` and whether quotes are special (``quoted``)."""

    name: str
    sep: str
    quoted: bool

    def reader(self, f: Iterator[str]) -> Iterator[list[str]]:
        """Python's csv reader of this dialect (strict: a stray quote in a quoted CSV field is an error), with the
        csv module's field limit (131,072 characters) raised to :data:`FIELD_LIMIT`."""
        csv.field_size_limit(max(csv.field_size_limit(), FIELD_LIMIT))
        if self.quoted:
            return csv.reader(f, delimiter=self.sep, strict=True)
        return csv.reader(f, delimiter=self.sep, quoting=csv.QUOTE_NONE)

    def hint(self, more: bool) -> str:
        """What most often gives a record ``more`` fields than the header (none for fewer: a field left out)."""
        if not more:
            return ""
        if self.quoted:
            return "; quote a field that holds a comma (\"Paris, France\")"
        return " (TSV has no quoting: a field cannot hold a tab)"


def dialect_of(sep: str, quoted: bool = True) -> Dialect:
    """The dialect of a separator (a format module's ``partial(read, sep="|")``)."""
    return Dialect("TSV" if sep == "\t" else "CSV" if sep == "," else f"{sep!r}-separated text", sep, quoted)


def read(path: Path, chunk_rows: int, sep: str = ",", quoted: bool = True) -> Iterator[Chunk]:
    """Chunks of at most ``chunk_rows`` records of ``sep``-separated text (``quoted``: with CSV quoting), numbered
    from 1 after the header."""
    dialect = dialect_of(sep, quoted)
    check_utf8(path, header=True)
    done = 0
    for frame in _chunks(path, chunk_rows, dialect):
        yield frame, range(done + 1, done + len(frame) + 1)
        done += len(frame)


def count(path: Path, sep: str = ",", quoted: bool = True) -> int | None:
    """The number of records after the header; None when the file is no readable CSV."""
    with open(path, encoding="utf-8-sig", newline="") as f:
        try:
            return max(0, sum(1 for record in dialect_of(sep, quoted).reader(f) if record) - 1)
        except csv.Error:
            return None


def read_whole(path: str | Path) -> pd.DataFrame:
    """A whole CSV file as text cells, read as :func:`read` reads it (side files: labelled rows, held-out scores)."""
    frames = [frame for frame, _ in read(Path(path), 1 << 40)]
    return frames[0] if frames else pd.DataFrame()


def _chunks(path: Path, chunk_rows: int, dialect: Dialect) -> Iterator[pd.DataFrame]:
    with open(path, encoding="utf-8-sig", newline="") as f:
        records = dialect.reader(f)
        line, done = 0, 0
        rows: list[list[str]] = []
        try:
            header = next((r for r in records if r), None)
            if header is None:
                raise InputError("empty file", file=str(path))
            header = _header(path, header, dialect)
            line = records.line_num  # type: ignore[attr-defined]
            for record in records:
                start, line = line + 1, records.line_num  # type: ignore[attr-defined]
                if not record:
                    continue
                if len(record) != len(header):
                    raise InputError(f"line {start}: {len(record)} fields, header has {len(header)}"
                                     f"{dialect.hint(len(record) > len(header))}",
                                     file=str(path), row=done + len(rows) + 1)
                rows.append(record)
                if len(rows) == chunk_rows:
                    yield pd.DataFrame(rows, columns=header, dtype=str)
                    done, rows = done + len(rows), []
        except csv.Error as e:
            raise InputError(f"line {line + 1}: malformed {dialect.name} ({e})", file=str(path),
                             row=done + len(rows) + 1 if line else None) from None
    if rows or not done:  # the last rows, or a header alone (no rows: the caller says so)
        yield pd.DataFrame(rows, columns=header, dtype=str)


def _header(path: Path, header: list[str], dialect: Dialect) -> list[str]:
    """The column names (a blank one named ``Unnamed: K`` as pandas names it); InputError when a name is given twice
    (pandas would silently rename the second ``x.1``), when the header is one name holding another separator
    (a ';'-separated file read as CSV), or when it is Excel's ``sep=,`` line."""
    if len(header) <= 2 and header[0].lower().startswith("sep=") and len(header[0]) <= 5 and not "".join(header[1:]):
        raise InputError(f"the first line, {dialect.sep.join(header)!r}, is Excel's separator hint, not a header: "
                         "remove it (the header is the line after it)", file=str(path))
    others = [said for sep, said in ((";", "';'"), ("\t", "a tab"), (",", "','")) if sep != dialect.sep
              and sep in header[0]]
    if len(header) == 1 and others:
        raise InputError(f"the header is one column, {header[0]!r}, holding {others[0]}: is the file "
                         f"{others[0]}-separated? {dialect.name} files are read {dialect.sep!r}-separated (.csv: ',', "
                         ".tsv: a tab); save it so, or with the extension of its separator", file=str(path))
    seen: set[str] = set()
    for name in (h.strip() for h in header):
        if name in seen and name:
            raise InputError(f"duplicate column {name!r} in the header", file=str(path), column=name)
        seen.add(name)
    return [name if name.strip() else f"Unnamed: {k}" for k, name in enumerate(header)]


CSV = register(Format("csv", (".csv",), partial(read, sep=","), partial(count, sep=","), Writer(sep=","), rank=10))
TSV = register(Format("tsv", (".tsv",), partial(read, sep="\t", quoted=False), partial(count, sep="\t", quoted=False),
                      Writer(sep="\t", quoted=False), rank=20))
