"""CSV and TSV: a header line naming the columns, then one record a row (quoted fields may span lines); every cell
read as text. Messages number the rows from 1 after the header."""
from __future__ import annotations

import csv
import re
from functools import partial
from pathlib import Path
from typing import Iterator

import pandas as pd

from kpqa.errors import InputError
from kpqa.formats.base import Chunk, Format, Writer, check_utf8, register


def read(path: Path, chunk_rows: int, sep: str) -> Iterator[Chunk]:
    """Chunks of at most ``chunk_rows`` records (pandas' chunked reader), numbered from 1 after the header."""
    check_utf8(path, header=True)
    done = 0
    for frame in _chunks(path, chunk_rows, sep):
        yield frame, range(done + 1, done + len(frame) + 1)
        done += len(frame)


def count(path: Path, sep: str) -> int | None:
    """The number of records after the header; None when the file is no readable CSV."""
    with open(path, encoding="utf-8-sig", newline="") as f:
        try:
            return max(0, sum(1 for _ in csv.reader(f, delimiter=sep)) - 1)
        except csv.Error:
            return None


def _chunks(path: Path, chunk_rows: int, sep: str) -> Iterator[pd.DataFrame]:
    with open(path, encoding="utf-8-sig") as f:
        _check_header(path, f.readline(), sep)
    try:
        reader = pd.read_csv(
            path, dtype=str, keep_default_na=False, na_filter=False, encoding="utf-8-sig", chunksize=chunk_rows,
            sep=sep,
        )
        with reader:
            yield from reader
    except (pd.errors.ParserError, csv.Error) as e:
        raise _csv_error(path, e) from None
    except pd.errors.EmptyDataError:
        raise InputError("empty file", file=str(path)) from None


def _check_header(path: Path, first_line: str, sep: str) -> None:
    """InputError when a header names a column twice (pandas would silently rename the second ``x.1``)."""
    header = next(csv.reader([first_line], delimiter=sep), [])
    seen: set[str] = set()
    for name in (h.strip() for h in header):
        if name in seen and name:
            raise InputError(f"duplicate column {name!r} in the header", file=str(path), column=name)
        seen.add(name)


def _csv_error(path: Path, e: Exception) -> InputError:
    line = re.search(r"line (\d+)", str(e))  # pandas counts records from 1 with the header
    start = re.search(r"starting at row (\d+)", str(e))  # ... or from 0 (an unclosed quote)
    row = int(line.group(1)) - 1 if line else int(start.group(1)) if start else None
    return InputError(f"malformed CSV: {str(e).splitlines()[0]}", file=str(path), row=row)


CSV = register(Format("csv", (".csv",), partial(read, sep=","), partial(count, sep=","), Writer(sep=","), rank=10))
TSV = register(Format("tsv", (".tsv",), partial(read, sep="\t"), partial(count, sep="\t"), Writer(sep="\t"),
                      rank=20))
