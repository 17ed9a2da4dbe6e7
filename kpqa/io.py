"""The one place that reads and validates input, and the one place that writes output.

Input layouts: the KPQA release's CSV (``question, answer, reference1..referenceN`` plus any extra columns, e.g.
``scores`` with a human judgment), JSONL (``{"question", "answer", "references": [...]}``), a pandas DataFrame or a
``datasets.Dataset`` of either shape. Optional columns for Yang et al.: ``answer_label``, ``reference{k}_label``
(Yes / No / Depends) and ``entities`` (a JSON list of gold entity strings). Rows are numbered from 1 in messages,
not counting the CSV header.
"""
from __future__ import annotations

import contextlib
import csv
import io
import itertools
import json
import math
import os
import re
import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence

import numpy as np
import pandas as pd

from kpqa.errors import InputError, KpqaError, Param, UsageError
from kpqa.rows import MAX_CHARS, Rows

_REF = re.compile(r"^reference(\d*)$")
_REF_LABEL = re.compile(r"^reference(\d*)_label$")
LABELS = {"yes": "Yes", "no": "No", "depends": "Depends"}


@dataclass
class Table:
    """Validated input: the original columns (carried through to the output) and the rows to score."""

    frame: pd.DataFrame
    rows: Rows
    source: str
    numbers: list[int] = field(default_factory=list)  # per frame row, the number messages give it (JSONL: its line)
    keep: list[int] | None = None  # the frame rows that ``rows`` holds, in order (None: all of them)
    errors: dict[int, str] = field(default_factory=dict)  # frame row -> why it was left out (``on_error``)

    def row_numbers(self) -> list[int]:
        """The numbers of the rows in ``rows``."""
        return self.numbers if self.keep is None else [self.numbers[k] for k in self.keep]


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value)) or not str(value).strip()


def _line_row(path: Path, line: int) -> int | None:
    """The row number of 0-based physical ``line``: JSONL lines are rows 1, 2, ...; a CSV's line 0 is its header
    (no row)."""
    return line + 1 if _is_jsonl(path) else line or None


def _check_file(path: Path) -> None:
    if not path.exists():
        raise InputError("no such file", file=str(path))
    if path.is_dir():
        raise InputError("is a folder, not a file", file=str(path))


def _check_utf8(path: Path) -> None:
    """InputError naming the row and byte offset of the first byte that is not UTF-8 (checked line by line: a UTF-8
    sequence never spans a newline byte)."""
    offset = 0
    with open(path, "rb") as f:
        for number, line in enumerate(f):
            try:
                line.decode("utf-8")
            except UnicodeDecodeError as e:
                raise InputError(
                    f"not UTF-8 text (byte 0x{line[e.start]:02x} at offset {offset + e.start}); re-save the file as UTF-8",
                    file=str(path),
                    row=_line_row(path, number),
                ) from None
            offset += len(line)


def _check_header(path: Path, first_line: str, sep: str = ",") -> None:
    """InputError when a CSV header names a column twice (pandas would silently rename the second ``x.1``)."""
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


def _json_records(path: Path, lines: Iterable[str]) -> Iterator[tuple[int, dict]]:
    """(line number, JSON object) of each non-blank line."""
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as e:
            raise InputError(f"malformed JSON line: {e.msg} at char {e.pos}", file=str(path), row=number) from None
        if not isinstance(record, dict):
            raise InputError("each JSONL line must be a JSON object", file=str(path), row=number)
        yield number, record


def _records_frame(
    records: list[dict], source: str = "<records>", numbers: Sequence[int] | None = None
) -> pd.DataFrame:
    """Records with a ``references`` list become ``reference1..N`` columns (labels likewise); ``numbers``: the row
    number of each record in messages (default 1, 2, ...)."""
    flat = []
    for number, record in zip(numbers or range(1, len(records) + 1), records):
        record = dict(record)
        refs = record.pop("references", None)
        if isinstance(refs, str) and refs.lstrip().startswith("["):
            try:
                refs = json.loads(refs)
            except json.JSONDecodeError:
                raise InputError("'references' is not a JSON list of strings", file=source, row=number,
                                 column="references") from None
        if isinstance(refs, (dict, int, float)) and not _blank(refs):
            raise InputError("'references' must be a list of strings", file=source, row=number, column="references")
        refs = [refs] if isinstance(refs, str) else [] if _blank(refs) else list(refs)
        for k, ref in enumerate(refs, 1):
            record[f"reference{k}"] = ref
        labels = record.pop("reference_labels", None)
        if isinstance(labels, str):
            labels = json.loads(labels) if labels.lstrip().startswith("[") else [labels]
        for k, label in enumerate([] if labels is None else list(labels), 1):
            record[f"reference{k}_label"] = label
        if isinstance(record.get("entities"), (list, tuple, np.ndarray)):
            record["entities"] = json.dumps(list(record["entities"]), ensure_ascii=False)
        flat.append(record)
    return pd.DataFrame(flat)


def _ref_columns(frame: pd.DataFrame) -> list[str]:
    cols = [c for c in frame.columns if _REF.match(str(c))]
    return sorted(cols, key=lambda c: int(_REF.match(c).group(1) or 0))  # type: ignore[union-attr]


def _label(value: Any, source: str, row: int, column: str) -> str | None:
    if _blank(value):
        return None
    label = LABELS.get(str(value).strip().lower())
    if label is None:
        raise InputError(f"opinion label {value!r} is not Yes, No or Depends", file=source, row=row, column=column)
    return label


def _entities(value: Any, source: str, row: int) -> list[str]:
    if _blank(value):
        return []
    if isinstance(value, (list, tuple)):
        items = list(value)
    else:
        try:
            items = json.loads(str(value))
        except json.JSONDecodeError:
            raise InputError("entities must be a JSON list of strings", file=source, row=row, column="entities") from None
    if not isinstance(items, list) or not all(isinstance(e, str) for e in items):
        raise InputError("entities must be a JSON list of strings", file=source, row=row, column="entities")
    return [e for e in items if e.strip()]


def _text(value: Any, source: str, row: int, column: str) -> str:
    """A cell as text: strings as they are, numbers written out; lists, objects and booleans are errors."""
    if isinstance(value, (list, tuple, dict, bool)):
        kind = {list: "a list", tuple: "a list", dict: "an object", bool: "true/false"}[type(value)]
        raise InputError(f"expected text, got {kind}", file=source, row=row, column=column)
    return str(value)


ON_ERROR = ("raise", "skip", "zero")

def check_max_chars(max_chars: int | None) -> int | None:
    """``max_chars`` unchanged if it is a positive integer or None (no limit), else a :class:`UsageError`."""
    if max_chars is not None and (isinstance(max_chars, bool) or not isinstance(max_chars, int) or max_chars < 1):
        raise UsageError(f"max_chars must be a positive integer or None, not {max_chars!r}")
    return max_chars


def check_length(text: str, max_chars: int | None, source: str, row: int | None, column: str | None) -> str:
    """``text`` unchanged, or an :class:`InputError` naming the cell when it is longer than ``max_chars``."""
    if max_chars is not None and len(text) > max_chars:
        raise InputError(f"text of {len(text):,} characters, over the limit of {max_chars:,} per text (raise it "
                         "with ", Param("max_chars", metavar="N"), ")", file=source, row=row, column=column)
    return text


def check_on_error(on_error: str) -> str:
    """``on_error`` unchanged if it is one of :data:`ON_ERROR`, else a :class:`UsageError`."""
    if on_error not in ON_ERROR:
        raise UsageError(f"on_error must be one of {', '.join(ON_ERROR)}, not {on_error!r}")
    return on_error


_LAYOUT = ("expected the KPQA layout: columns question, answer, reference1..referenceN (or references: a list of "
           "strings, JSON list text in CSV)")


@dataclass(frozen=True)
class _Layout:
    """Where a frame in the KPQA layout keeps each field: reference columns, their label columns (by reference
    number), and whether it has a question and an entities column."""

    references: list[str]
    labels: dict[int, str]
    question: bool
    entities: bool


@dataclass(frozen=True)
class _Row:
    """One row's fields, validated."""

    question: str
    candidate: str
    references: list[str]
    reference_labels: list[str | None]
    candidate_label: str | None
    entities: list[str]


def _read_row(record: dict[str, Any], layout: _Layout, source: str, number: int, max_chars: int | None) -> _Row:
    """A record's fields, checked (an :class:`InputError` naming the cell of the first problem)."""
    answer = record["answer"]
    if _blank(answer):
        raise InputError("empty answer", file=source, row=number, column="answer")
    refs, labels = [], []
    for col in layout.references:
        if not _blank(record[col]):
            refs.append(check_length(_text(record[col], source, number, col), max_chars, source, number, col))
            k = int(_REF.match(col).group(1) or 0)  # type: ignore[union-attr]
            labels.append(_label(record.get(layout.labels[k]), source, number, layout.labels[k])
                          if k in layout.labels else None)
    if not refs:
        raise InputError("no non-empty reference", file=source, row=number, column=layout.references[0])
    question = record["question"] if layout.question else None
    question = "" if _blank(question) else _text(question, source, number, "question")
    check_length(question, max_chars, source, number, "question")
    candidate = check_length(_text(answer, source, number, "answer"), max_chars, source, number, "answer")
    cand_label = _label(record.get("answer_label"), source, number, "answer_label")
    found = _entities(record["entities"], source, number) if layout.entities else []
    return _Row(question, candidate, refs, labels, cand_label, found)


def frame_to_table(frame: pd.DataFrame, source: str = "<data>", numbers: Sequence[int] | None = None,
                   on_error: str = "raise", max_chars: int | None = MAX_CHARS) -> Table:
    """Validate a frame in the KPQA layout and extract the rows to score. Messages number the rows 1, 2, ... or by
    ``numbers`` (rows of a chunk further down a file, JSONL line numbers). A ``references`` column (lists, or JSON
    list text) becomes ``reference1..N``. A bad row (empty answer, no reference, a bad label...) raises an
    :class:`InputError` with ``on_error="raise"``; otherwise it is left out of ``rows`` and its reason recorded in
    ``Table.errors`` (the scorer then leaves its scores empty, ``skip``, or 0, ``zero``). So is a row with a text
    longer than ``max_chars`` characters (None: no limit)."""
    check_on_error(on_error)
    check_max_chars(max_chars)
    frame = frame.rename(columns=lambda c: str(c).strip())
    numbers = list(numbers) if numbers is not None else list(range(1, len(frame) + 1))
    if len(frame) == 0:
        raise InputError("no data rows (header only?)", file=source)
    if "references" in frame.columns:
        frame = _records_frame(frame.to_dict("records"), source, numbers)
    if "answer" not in frame.columns:
        raise InputError(f"no 'answer' column (columns: {', '.join(map(str, frame.columns))}); {_LAYOUT}",
                         file=source, column="answer")
    ref_cols = _ref_columns(frame)
    if not ref_cols:
        raise InputError(f"no reference column; {_LAYOUT}", file=source, column="reference1")
    label_cols = {int(m.group(1) or 0): c for c in frame.columns if (m := _REF_LABEL.match(str(c)))}
    layout = _Layout(ref_cols, label_cols, "question" in frame.columns, "entities" in frame.columns)
    has_labels = "answer_label" in frame.columns or bool(label_cols)
    read: list[_Row] = []
    keep: list[int] = []
    errors: dict[int, str] = {}
    for position, (number, record) in enumerate(zip(numbers, frame.to_dict("records"))):
        try:
            read.append(_read_row(record, layout, source, number, max_chars))
        except InputError as e:
            if on_error == "raise":
                raise
            errors[position] = e.reason
            continue
        keep.append(position)
    rows = Rows(
        questions=[r.question for r in read],
        candidates=[r.candidate for r in read],
        references=[r.references for r in read],
        candidate_labels=[r.candidate_label for r in read] if has_labels else None,
        reference_labels=[r.reference_labels for r in read] if has_labels else None,
        entities=[r.entities for r in read] if layout.entities else None,
    )
    return Table(frame=frame, rows=rows, source=source, numbers=numbers, keep=keep, errors=errors)


WHOLE = 1 << 40  # a chunk size that reads a file whole


def input_format(path: str | os.PathLike) -> str:
    """The format of an input file by its extension (:data:`FORMATS`); a :class:`InputError` naming the accepted
    ones for any other."""
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        raise InputError(f"unknown input format {suffix or '(no extension)'!r}; accepted: {_FORMAT_NAMES}",
                         file=str(path))
    return FORMATS[suffix]


def read_input(source: str | os.PathLike | pd.DataFrame | Any, on_error: str = "raise",
               max_chars: int | None = MAX_CHARS) -> Table:
    """Read CSV / TSV / JSONL / JSON / Parquet files, DataFrames, ``datasets.Dataset`` or lists of records into a
    validated :class:`Table` (``on_error``, ``max_chars``: see :func:`frame_to_table`)."""
    return next(iter_input(source, WHOLE, on_error, max_chars))


def _source_frame(source: Any) -> tuple[pd.DataFrame, str]:
    """A DataFrame, ``datasets.Dataset`` or records as a frame, and the name messages give it."""
    if isinstance(source, pd.DataFrame):
        return source.copy(), "<DataFrame>"
    if hasattr(source, "to_pandas") and hasattr(source, "column_names"):  # datasets.Dataset
        return source.to_pandas(), "<Dataset>"
    if isinstance(source, Iterable) and not isinstance(source, (str, bytes, dict)):
        return _records_frame(list(source)), "<records>"
    raise InputError(f"cannot read input of type {type(source).__name__}")


def _is_jsonl(path: Path) -> bool:
    return path.suffix.lower() in {".jsonl", ".json", ".ndjson"}


def count_rows(source: str | os.PathLike | Any) -> int | None:
    """The number of data rows of an input, read cheaply (CSV / TSV records, non-blank JSON lines, Parquet
    metadata), without validating them; None when it cannot be told."""
    if not isinstance(source, (str, os.PathLike)):
        return len(source) if hasattr(source, "__len__") else None
    path = Path(source)
    try:
        kind = input_format(path)
        if kind == "parquet":
            import pyarrow.parquet as pq

            return pq.ParquetFile(path).metadata.num_rows
        with open(path, encoding="utf-8-sig", newline="") as f:
            if kind in {"csv", "tsv"}:
                return max(0, sum(1 for _ in csv.reader(f, delimiter="\t" if kind == "tsv" else ",")) - 1)
            if kind == "json" and f.read(4096).lstrip().startswith("["):
                return None
            f.seek(0)
            return sum(1 for line in f if line.strip())
    except (OSError, UnicodeDecodeError, csv.Error, KpqaError, ImportError, ValueError):
        return None


def iter_input(source: str | os.PathLike | pd.DataFrame | Any, chunk_rows: int,
               on_error: str = "raise", max_chars: int | None = MAX_CHARS) -> Iterator[Table]:
    """Validated :class:`Table` chunks of at most ``chunk_rows`` rows, in input order; messages number rows from the
    start of the input. CSV / TSV (pandas' chunked reader), JSON lines and Parquet (by record batches) files are
    streamed; JSON arrays and other sources are read whole, then split. ``on_error``, ``max_chars``: see
    :func:`frame_to_table`."""
    if chunk_rows < 1:
        raise UsageError(f"chunk size must be a positive integer, got {chunk_rows}")
    if not isinstance(source, (str, os.PathLike)):
        frame, name = _source_frame(source)
        if len(frame) == 0:
            frame_to_table(frame, name)  # raises: no data rows
        for start in range(0, len(frame), chunk_rows):
            part = frame.iloc[start:start + chunk_rows]
            yield frame_to_table(part, name, range(start + 1, start + len(part) + 1), on_error, max_chars)
        return
    path = Path(source)
    _check_file(path)
    kind = input_format(path)
    if kind == "parquet":
        yield from _parquet_chunks(path, chunk_rows, on_error, max_chars)
        return
    _check_utf8(path)
    if kind == "json" and _is_json_array(path):
        records = _json_array(path)
        for start in range(0, len(records), chunk_rows):
            numbers = list(range(start + 1, min(start + chunk_rows, len(records)) + 1))
            frame = _records_frame(records[start:start + chunk_rows], str(path), numbers)
            yield frame_to_table(frame, str(path), numbers, on_error, max_chars)
        return
    if kind in {"jsonl", "json"}:
        for frame, numbers in _jsonl_chunks(path, chunk_rows):
            yield frame_to_table(frame, str(path), numbers=numbers, on_error=on_error, max_chars=max_chars)
        return
    done = 0
    for frame in _csv_chunks(path, chunk_rows, "\t" if kind == "tsv" else ","):
        yield frame_to_table(frame, str(path), range(done + 1, done + len(frame) + 1), on_error, max_chars)
        done += len(frame)


def _is_json_array(path: Path) -> bool:
    with open(path, encoding="utf-8-sig") as f:
        return f.read(4096).lstrip().startswith("[")


def _json_array(path: Path) -> list[dict]:
    try:
        records = json.loads(path.read_text(encoding="utf-8-sig"))
    except json.JSONDecodeError as e:
        raise InputError(f"malformed JSON: {e.msg} at line {e.lineno}, column {e.colno}", file=str(path)) from None
    if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
        raise InputError("a .json input must be an array of objects (or JSON lines: one object per line)",
                         file=str(path))
    if not records:
        raise InputError("empty file", file=str(path))
    return records


def _parquet_chunks(path: Path, chunk_rows: int, on_error: str, max_chars: int | None) -> Iterator[Table]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        batches = pq.ParquetFile(path).iter_batches(batch_size=min(chunk_rows, 1 << 30))
        done = 0
        for batch in batches:
            frame = batch.to_pandas()
            yield frame_to_table(frame, str(path), range(done + 1, done + len(frame) + 1), on_error, max_chars)
            done += len(frame)
    except (pa.ArrowException, OSError) as e:
        raise InputError(f"not a readable Parquet file: {str(e).splitlines()[0]}", file=str(path)) from None
    if not done:
        raise InputError("no data rows", file=str(path))


def _csv_chunks(path: Path, chunk_rows: int, sep: str = ",") -> Iterator[pd.DataFrame]:
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


def _jsonl_chunks(path: Path, chunk_rows: int) -> Iterator[tuple[pd.DataFrame, list[int]]]:
    """(frame, line numbers) of at most ``chunk_rows`` records at a time."""
    with open(path, encoding="utf-8-sig") as f:
        numbered: list[tuple[int, dict]] = []
        seen = False
        for item in _json_records(path, f):
            numbered.append(item)
            if len(numbered) == chunk_rows:
                yield _numbered_frame(path, numbered)
                seen, numbered = True, []
        if numbered:
            yield _numbered_frame(path, numbered)
        elif not seen:
            raise InputError("empty file", file=str(path))


def _numbered_frame(path: Path, numbered: list[tuple[int, dict]]) -> tuple[pd.DataFrame, list[int]]:
    numbers = [n for n, _ in numbered]
    return _records_frame([r for _, r in numbered], str(path), numbers), numbers


_ROW_FIELDS = ("questions", "candidates", "references", "candidate_labels", "reference_labels", "entities")


def take_rows(rows: Rows, start: int, end: int) -> Rows:
    """Rows ``start`` to ``end`` (exclusive) of ``rows``."""
    fields: dict[str, Any] = {f: None if getattr(rows, f) is None else getattr(rows, f)[start:end] for f in _ROW_FIELDS}
    return Rows(**fields)


def select_rows(rows: Rows, indices: Sequence[int]) -> Rows:
    """The rows at ``indices`` of ``rows``, in that order."""
    fields: dict[str, Any] = {f: None if getattr(rows, f) is None else [getattr(rows, f)[i] for i in indices]
                              for f in _ROW_FIELDS}
    return Rows(**fields)


def concat_rows(parts: Sequence[Rows]) -> Rows:
    """The rows of ``parts`` one after the other (an optional field is kept when every part has it)."""
    fields: dict[str, Any] = {}
    for f in _ROW_FIELDS:
        values = [getattr(p, f) for p in parts]
        fields[f] = None if any(v is None for v in values) else [x for v in values for x in v]
    return Rows(**fields)


FORMATS = {".csv": "csv", ".tsv": "tsv", ".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "json",
           ".parquet": "parquet"}
"""File extension -> format, for input and output (``.json``: a JSON array; as input, JSON lines too)."""
_FORMAT_NAMES = ".csv, .tsv, .jsonl (or .ndjson), .json (an array of objects), .parquet"


def output_format(path: str | os.PathLike) -> str:
    """The format an output path names by its extension: ``csv`` for ``-`` (stdout) and for non-regular files
    (``/dev/stdout``, a FIFO) without one; a :class:`UsageError` for an unknown extension."""
    name = Path(path)
    suffix = name.suffix.lower()
    if suffix in FORMATS:
        return FORMATS[suffix]
    if str(path) == STDOUT or (not suffix and name.exists() and not Path(os.path.realpath(name)).is_file()):
        return "csv"
    raise UsageError(f"output {path}: unknown format {suffix or '(no extension)'!r}; use one of {_FORMAT_NAMES}")


STDOUT = "-"


class Destination:
    """Where one output goes, checked before any work is done: ``-`` (stdout); a regular file, new or existing, which
    is replaced atomically (a temp file beside it, renamed over it; a symlink is followed and its target replaced);
    or an existing non-regular file (a character device such as ``/dev/null``, a FIFO), written through and never
    replaced. A path naming one of ``inputs`` is refused unless ``force``."""

    def __init__(self, path: str | os.PathLike, *, inputs: Iterable[Any] = (), force: bool = False) -> None:
        self.name = str(path)
        self.target = Path(os.path.realpath(path)) if self.name != STDOUT else None
        if self.target is not None and self.target.is_dir():
            raise InputError("output path is a folder, not a file", file=self.name)
        self.special = self.target is not None and self.target.exists() and not self.target.is_file()
        if self.target is None or self.special:
            return
        shown = Path(path) if not Path(path).is_symlink() else self.target
        if not self.target.parent.is_dir():
            problem = "is a file, not a folder" if self.target.parent.exists() else "does not exist"
            raise InputError(f"output folder {problem}", file=str(shown.parent))
        for source in () if force else inputs:
            if isinstance(source, (str, os.PathLike)) and self.target.exists() and Path(source).exists() \
                    and os.path.samefile(source, self.target):
                raise UsageError(f"output {self.name} is the input file {source}; pass ", Param("force", True),
                                 " to replace it")

    def temp(self) -> str:
        """A new temp file for this output (beside a regular target, so that the rename stays on one file system)."""
        folder = self.target.parent if self.target is not None and not self.special else None
        stem = "kpqa-stdout" if self.target is None else self.target.name
        try:
            fd, tmp = tempfile.mkstemp(prefix=f".{stem}.", suffix=".tmp", dir=folder)
        except OSError as e:
            raise InputError(f"cannot write output: {e.strerror}", file=self.name) from None
        os.close(fd)
        return tmp

    def publish(self, tmp: str) -> None:
        """Put the finished temp file in place: rename it over a regular file (keeping an existing file's mode, else
        the umask's), or copy its bytes into stdout / the non-regular file and remove it."""
        try:
            if self.target is not None and not self.special:
                mode = self.target.stat().st_mode & 0o7777 if self.target.exists() else 0o666 & ~_umask()
                os.chmod(tmp, mode)  # not mkstemp's 0600
                os.replace(tmp, self.target)
                return
            with open(tmp, "rb") as src:
                if self.target is None:
                    sys.stdout.flush()
                    out = getattr(sys.stdout, "buffer", None)
                    if out is None:
                        sys.stdout.write(src.read().decode("utf-8"))
                    else:
                        shutil.copyfileobj(src, out)
                        out.flush()
                else:
                    with open(self.target, "wb") as dst:
                        shutil.copyfileobj(src, dst)
        except OSError as e:
            raise InputError(f"cannot write output: {e.strerror or e}", file=self.name) from None
        finally:
            Path(tmp).unlink(missing_ok=True)


@contextlib.contextmanager
def output_path(path: str | os.PathLike, *, inputs: Iterable[Any] = (), force: bool = False) -> Iterator[str]:
    """A temp file path to write an output into; published to ``path`` (see :class:`Destination`) when the block
    ends normally, removed when it raises, so ``path`` never holds a partial file."""
    destination = Destination(path, inputs=inputs, force=force)
    tmp = destination.temp()
    try:
        yield tmp
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    destination.publish(tmp)


def write_text(path: str | os.PathLike, text: str, *, inputs: Iterable[Any] = (), force: bool = False) -> None:
    """Write ``text`` (UTF-8) to ``path`` the way every output is written (:func:`output_path`)."""
    with output_path(path, inputs=inputs, force=force) as tmp:
        Path(tmp).write_text(text, encoding="utf-8")


class OutputWriter:
    """Writes the output table chunk by chunk into a temp file, put in place by :meth:`close` (so ``path`` never
    holds a partial table; see :class:`Destination` for ``-``, devices, FIFOs, symlinks and ``inputs``);
    :meth:`abort` removes it. A context manager: leaving the block normally closes, an exception aborts.

    The format is the one the extension names (:func:`output_format`). Chunks go to the temp file as CSV / TSV, or
    as JSON lines for the JSON formats and Parquet, which are converted on closing. CSV: the first chunk fixes the
    header. When a later chunk brings new columns (JSONL input whose rows have more references further down), the
    file is rewritten at the end with all columns, ``last_columns`` (the metric columns) last, as the whole table
    would have been written."""

    def __init__(self, path: str | os.PathLike, last_columns: Sequence[str] = (), *, inputs: Iterable[Any] = (),
                 force: bool = False) -> None:
        self.path = path
        self.format = output_format(path)
        self._destination = Destination(path, inputs=inputs, force=force)
        self._jsonl = self.format in {"jsonl", "json", "parquet"}
        self._sep = "\t" if self.format == "tsv" else ","
        self._last = list(last_columns)
        self._columns: list[str] | None = None
        self._reshape = False
        self._fill: dict[str, np.ndarray] = {}
        self._tmp = self._destination.temp()
        self._file = open(self._tmp, "w", encoding="utf-8", newline="")

    @property
    def to_file(self) -> bool:
        """Whether the output is a regular file (not stdout, a device or a FIFO): one beside it can be written."""
        return self._destination.target is not None and not self._destination.special

    def write(self, frame: pd.DataFrame) -> None:
        """Append the rows of ``frame``."""
        with self._errors():
            if self._jsonl:
                frame.to_json(self._file, orient="records", lines=True, force_ascii=False)
                return
            if self._columns is None:
                self._columns = list(frame.columns)
                frame.to_csv(self._file, index=False, sep=self._sep)
                return
            new = [c for c in frame.columns if c not in self._columns]
            if new:
                self._columns += new
                self._reshape = True
            frame.reindex(columns=self._columns).to_csv(self._file, index=False, header=False, sep=self._sep)

    def fill(self, values: dict[str, np.ndarray]) -> None:
        """Put ``values`` (one per row, in row order) into these columns, written empty so far, on closing."""
        self._fill.update(values)

    def close(self) -> None:
        """Finish the file, convert it to the output format and put it in place."""
        with self._errors():
            self._file.close()
            if self._jsonl and self._fill:
                self._rewrite_jsonl()
            elif self._reshape or self._fill:
                self._rewrite()
            if self.format in {"json", "parquet"}:
                self._convert()
        self._destination.publish(self._tmp)

    def abort(self) -> None:
        """Drop the temp file; ``path`` is left as it was."""
        self._file.close()
        Path(self._tmp).unlink(missing_ok=True)

    def _replace_with(self, make: Callable[[str], None]) -> None:
        """Rewrite the temp file: ``make(new)`` writes the new content, which then takes the temp file's place."""
        fd, tmp = tempfile.mkstemp(prefix=Path(self._tmp).name, suffix=".tmp", dir=Path(self._tmp).parent)
        os.close(fd)
        try:
            make(tmp)
            os.replace(tmp, self._tmp)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def _rewrite(self) -> None:
        assert self._columns is not None
        columns = [c for c in self._columns if c not in self._last] + [c for c in self._last if c in self._columns]

        def make(tmp: str) -> None:
            with open(tmp, "w", encoding="utf-8", newline="") as f:
                header = True
                # the file's own header names only the first chunk's columns; the rows carry all of them
                reader = pd.read_csv(self._tmp, dtype=str, keep_default_na=False, na_filter=False, header=None,
                                     names=self._columns, skiprows=1, chunksize=10_000, sep=self._sep)
                with reader:
                    done = 0
                    for chunk in reader:
                        for column, values in self._fill.items():
                            chunk[column] = values[done:done + len(chunk)]
                        done += len(chunk)
                        chunk[columns].to_csv(f, index=False, header=header, sep=self._sep)
                        header = False

        self._replace_with(make)

    def _rewrite_jsonl(self) -> None:
        def make(tmp: str) -> None:
            with open(tmp, "w", encoding="utf-8", newline="") as f, open(self._tmp, encoding="utf-8") as lines:
                done = 0
                while batch := [json.loads(line) for line in itertools.islice(lines, 10_000)]:
                    frame = pd.DataFrame.from_records(batch)
                    for column, values in self._fill.items():
                        frame[column] = values[done:done + len(frame)]
                    done += len(frame)
                    frame.to_json(f, orient="records", lines=True, force_ascii=False)

        self._replace_with(make)

    def _convert(self) -> None:
        """JSON lines -> a JSON array (streamed) or Parquet (through pandas and pyarrow, the table held whole)."""
        def make(tmp: str) -> None:
            if self.format == "parquet":
                frame = pd.read_json(self._tmp, lines=True, dtype=False) if os.path.getsize(self._tmp) else pd.DataFrame()
                frame.to_parquet(tmp, index=False)
                return
            with open(tmp, "w", encoding="utf-8") as f, open(self._tmp, encoding="utf-8") as lines:
                f.write("[")
                for k, line in enumerate(lines):
                    f.write(("," if k else "") + "\n" + line.rstrip("\n"))
                f.write("\n]\n")

        self._replace_with(make)

    @contextlib.contextmanager
    def _errors(self) -> Iterator[None]:
        try:
            yield
        except OSError as e:
            self.abort()
            raise InputError(f"cannot write output: {e.strerror or e}", file=str(self.path)) from None
        except BaseException:
            self.abort()
            raise

    def __enter__(self) -> "OutputWriter":
        return self

    def __exit__(self, kind: type | None, *_: Any) -> None:
        if kind is None:
            self.close()
        else:
            self.abort()


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_output(frame: pd.DataFrame, path: str | os.PathLike, *, inputs: Iterable[Any] = (),
                 force: bool = False) -> None:
    """Write ``frame`` in the format ``path`` names, the way every output is written (:class:`OutputWriter`)."""
    with OutputWriter(path, inputs=inputs, force=force) as out:
        out.write(frame)
