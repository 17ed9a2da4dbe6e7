"""Reading input: files, frames and records in the KPQA layout, validated into a :class:`Table` of :class:`Rows`.

Input layouts: the KPQA release's CSV (``question, answer, reference1..referenceN`` plus any extra columns, e.g.
``scores`` with a human judgment), JSONL (``{"question", "answer", "references": [...]}``), a pandas DataFrame or a
``datasets.Dataset`` of either shape. Optional columns for Yang et al.: ``answer_label``, ``reference{k}_label``
(Yes / No / Depends) and ``entities`` (a JSON list of gold entity strings). Rows are numbered from 1 in messages,
not counting the CSV header. A file is read by the format its extension names (:mod:`kpqa.formats`: one module each,
found by the registry); writing output is :mod:`kpqa.output`.
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping, Sequence

import numpy as np
import pandas as pd

from kpqa.cells import WRONG_COLUMN, Cell, blank, cell_text, split_texts
from kpqa.context import ON_ERROR, check_on_error
from kpqa.errors import InputError, KpqaError, Param, UsageError, check_file
from kpqa.formats import Format, formats, listing
from kpqa.formats.base import DECODER, check_utf8, given_frame
from kpqa.lengths import MAX_CHARS, check_length, check_max_chars
from kpqa.rows import InputField, Rows, input_fields

_REF = re.compile(r"^reference(\d*)$")


@dataclass
class Table:
    """Validated input: the original columns (carried through to the output) and the rows to score."""

    frame: pd.DataFrame
    rows: Rows
    source: str
    numbers: list[int] = field(default_factory=list)  # per frame row, the number messages give it (JSONL: its line)
    kept_rows: list[int] | None = None  # the frame rows (0-based) that ``rows`` holds, in order (None: all of them)
    errors: dict[int, str] = field(default_factory=dict)  # frame row -> why it was left out (``on_error``)
    empty: list[int] = field(default_factory=list)  # frame rows whose answer is empty or missing (scored as "")
    fields: dict[str, str] = field(default_factory=dict)  # field -> the frame's column that holds it (``columns``)

    def empty_numbers(self) -> list[int]:
        """The numbers of the rows whose answer is empty or missing: a system that said nothing, scored as ``""``
        (every metric at its floor) and judged wrong."""
        return [self.numbers[i] for i in self.empty if i not in self.errors]

    def row_numbers(self) -> list[int]:
        """The numbers of the rows in ``rows``."""
        return self.numbers if self.kept_rows is None else [self.numbers[k] for k in self.kept_rows]


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
                refs = DECODER.decode(refs)  # numbers as written
            except ValueError:
                raise InputError("'references' is not a JSON list of strings", file=source, row=number,
                                 column="references") from None
        if isinstance(refs, (dict, int, float)) and not blank(refs):
            raise InputError("'references' must be a list of strings", file=source, row=number, column="references")
        if isinstance(refs, str):  # one text, or texts joined with '; '
            refs = split_texts(refs, source, number, "references") if refs.strip() else [refs]
        elif blank(refs):
            refs = []
        refs = list(refs)
        if any(blank(ref) and not isinstance(ref, str) for ref in refs):
            raise InputError("'references' holds null; give a list of strings", file=source, row=number,
                             column="references")
        for k, ref in enumerate(refs, 1):
            record[f"reference{k}"] = ref
        for spec in (s for s in input_fields().values() if s.per_reference):
            values = record.pop(spec.column, None)
            if isinstance(values, str):
                values = json.loads(values) if values.lstrip().startswith("[") else [values]
            for k, value in enumerate([] if values is None else list(values), 1):
                record[f"reference{k}{spec.per_reference}"] = value
        flat.append(record)
    return pd.DataFrame(flat, dtype=object)  # values as given: reference1 2024 beside 2024.5 stays 2024


def _records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """The frame's rows as records, numpy scalars as Python's, other values as held (``to_dict`` would make a number
    read as written, a :class:`~kpqa.formats.base.JsonNumber`, a plain float: ``1e5`` would be ``100000.0``)."""
    names = list(frame.columns)
    return [{name: value.item() if isinstance(value, np.generic) else value for name, value in zip(names, values)}
            for values in frame.itertuples(index=False, name=None)]


def _ref_columns(frame: pd.DataFrame) -> list[str]:
    cols = [c for c in frame.columns if _REF.match(str(c))]
    return sorted(cols, key=lambda c: int(_REF.match(c).group(1) or 0))  # type: ignore[union-attr]


#: the fields a column mapping (``columns={"question": "Question", ...}``, ``--columns question=Question,...``)
#: may name, beside ``reference<N>`` and ``reference<N>_label``: each is a column of the KPQA layout, the optional
#: ones as :class:`~kpqa.rows.Rows` declares them (:func:`~kpqa.rows.input_fields`)
FIELDS = ("question", "answer", "references", *(spec.column for spec in input_fields().values()))


def _per_reference(spec: InputField, name: str) -> int | None:
    """The reference number of ``name`` when it is one of ``spec``'s per-reference columns (``reference2_label``: 2;
    ``reference_label``: 0), else None."""
    found = re.fullmatch(r"reference(\d*)" + re.escape(spec.per_reference), name) if spec.per_reference else None
    return None if found is None else int(found.group(1) or 0)


def is_field_column(name: str) -> bool:
    """Whether ``name`` is a column of the KPQA layout (a field, a reference or a per-reference field's column)
    rather than one the input carries along (scores, ids)."""
    return name in FIELDS or bool(_REF.match(name)) or any(
        _per_reference(spec, name) is not None for spec in input_fields().values())
#: a column mapping: KPQA field -> the input's column that holds it
ColumnMap = Mapping[str, str]


def check_columns(columns: ColumnMap | None) -> dict[str, str]:
    """A column mapping checked (every key a field of the KPQA layout, no column given two fields); a
    :class:`UsageError` naming the parameter otherwise."""
    found = dict(columns or {})
    for name, column in found.items():
        if not is_field_column(name) or not str(column).strip():
            raise UsageError(Param("columns", f"{name}={column}"), f": the fields are {', '.join(FIELDS)}, "
                             "reference1..N and reference1_label..; each given as FIELD=COLUMN")
    taken = [c for c in found.values() if list(found.values()).count(c) > 1]
    if taken:
        raise UsageError(Param("columns"), f": column {taken[0]!r} given to two fields")
    return found


def map_columns(frame: pd.DataFrame, columns: ColumnMap, source: str) -> pd.DataFrame:
    """``frame`` with the columns ``columns`` names renamed to their fields; an :class:`InputError` naming the file
    when one is missing or when the frame also has a column of the field's own name (which would be two)."""
    names = [str(c) for c in frame.columns]
    for name, column in columns.items():
        if column not in names:
            raise InputError(Param("columns", f"{name}={column}"), f": no column {column!r} (columns: "
                             f"{', '.join(names)})", file=source, column=column)
        if name in names and name != column:
            raise InputError(Param("columns", f"{name}={column}"), f": the input has a column {name!r} too; "
                             "rename or drop one of them", file=source, column=name)
    return frame.rename(columns={column: name for name, column in columns.items()})


def layout_hint(frame: pd.DataFrame, field: str) -> tuple[Any, ...]:
    """What to say beside a missing ``field``: a column of that name in other capitals to map
    (``--columns answer=Answer``), or how to name one."""
    names = [str(c) for c in frame.columns]
    same = [n for n in names if n.strip().lower() == field]
    if same:
        return ("; map your column with ", Param("columns", f"{field}={same[0]}"))
    return ("; or name yours with ", Param("columns", f"{field}=COLUMN"))


_LAYOUT = ("expected the KPQA layout: columns question, answer, reference1..referenceN (or references: a list of "
           "strings, JSON list text in CSV)")


@dataclass(frozen=True)
class _Layout:
    """Where a frame in the KPQA layout keeps each field: its reference columns, whether it has a question, and the
    optional fields (:func:`~kpqa.rows.input_fields`) it has: each per-row one's column, each per-reference one's
    columns by reference number (a field of a group that is there is there too, if without a column of its own)."""

    references: list[str]
    question: bool
    per_row: dict[str, InputField]
    per_reference: dict[str, tuple[InputField, dict[int, str]]]

    @classmethod
    def of(cls, frame: pd.DataFrame, references: list[str]) -> "_Layout":
        names = [str(c) for c in frame.columns]
        fields = input_fields()
        numbered = {name: {k: c for c in names if (k := _per_reference(spec, c)) is not None}
                    for name, spec in fields.items() if spec.per_reference}
        found = {name for name, spec in fields.items()
                 if (numbered[name] if spec.per_reference else spec.column in names)}
        groups = {fields[name].group for name in found if fields[name].group}
        found |= {name for name, spec in fields.items() if spec.group in groups}
        return cls(references, "question" in names,
                   {name: spec for name, spec in fields.items() if name in found and not spec.per_reference},
                   {name: (spec, numbered[name]) for name, spec in fields.items()
                    if name in found and spec.per_reference})

    @property
    def names(self) -> list[str]:
        """The :class:`~kpqa.rows.Rows` fields a table of this layout fills, in declared order."""
        return ["questions", "candidates", "references", *(n for n in input_fields()
                                                            if n in self.per_row or n in self.per_reference)]


def _read_row(record: dict[str, Any], layout: _Layout, source: str, number: int,
              max_chars: int | None) -> dict[str, Any]:
    """A record's fields by :class:`~kpqa.rows.Rows`' names (one row's values), checked: an :class:`InputError`
    naming the cell of the first problem."""
    row: dict[str, Any] = {"references": [], **{name: [] for name in layout.per_reference}}
    for col in layout.references:
        if not blank(record[col]):
            row["references"].append(check_length(cell_text(record[col], source, number, col), max_chars, source,
                                                  number, col))
            k = int(_REF.match(col).group(1) or 0)  # type: ignore[union-attr]
            for name, (spec, columns) in layout.per_reference.items():
                column = columns.get(k)
                row[name].append(None if column is None else
                                 spec.read(record.get(column), Cell(source, number, column, max_chars)))
    if not row["references"]:
        raise InputError("no non-empty reference", file=source, row=number, column=layout.references[0])
    question = record["question"] if layout.question else None
    question = "" if blank(question) else cell_text(question, source, number, "question")
    row["questions"] = check_length(question, max_chars, source, number, "question")
    answer = record["answer"]
    row["candidates"] = "" if blank(answer) else check_length(cell_text(answer, source, number, "answer"), max_chars,
                                                               source, number, "answer")
    for name, spec in layout.per_row.items():
        row[name] = spec.read(record.get(spec.column), Cell(source, number, spec.column, max_chars))
    return row


def frame_to_table(frame: pd.DataFrame, source: str = "<data>", numbers: Sequence[int] | None = None,
                   on_error: str = "raise", max_chars: int | None = MAX_CHARS,
                   columns: ColumnMap | None = None) -> Table:
    """Validate a frame in the KPQA layout and extract the rows to score. Messages number the rows 1, 2, ... or by
    ``numbers`` (rows of a chunk further down a file, JSONL line numbers). A ``references`` column (lists, or JSON
    list text) is read as ``reference1..N``; ``Table.frame`` keeps it as given. An empty or missing answer is an
    answer (a system that said nothing): scored as ``""``, listed in ``Table.empty``. A bad row (no reference, a bad
    label...) raises an
    :class:`InputError` with ``on_error="raise"``; otherwise it is left out of ``rows`` and its reason recorded in
    ``Table.errors`` (the scorer then leaves its scores empty, ``skip``, or 0, ``zero``). So is a row with a text
    longer than ``max_chars`` characters (None: no limit). ``columns``: which of the frame's columns holds which
    field (:data:`FIELDS`; e.g. ``{"answer": "Answer"}``); ``Table.frame`` keeps the frame's own names."""
    check_on_error(on_error)
    check_max_chars(max_chars)
    frame = frame.rename(columns=lambda c: str(c).strip())
    numbers = list(numbers) if numbers is not None else list(range(1, len(frame) + 1))
    if len(frame) == 0:
        raise InputError("no data rows (header only?)", file=source)
    given = frame  # what the output carries: the input's columns as given (a list column stays a list column)
    if columns:
        frame = map_columns(frame, check_columns(columns), source)
    if "references" in frame.columns:
        frame = _records_frame(_records(frame), source, numbers)
    if "answer" not in frame.columns:
        raise InputError(f"no 'answer' column (columns: {', '.join(map(str, frame.columns))}); {_LAYOUT}",
                         *layout_hint(frame, "answer"), file=source, column="answer")
    ref_cols = _ref_columns(frame)
    if not ref_cols:
        raise InputError(f"no reference column; {_LAYOUT}", *layout_hint(frame, "references"), file=source,
                         column="reference1")
    layout = _Layout.of(frame, ref_cols)
    read: list[dict[str, Any]] = []
    kept: list[int] = []
    errors: dict[int, str] = {}
    for position, (number, record) in enumerate(zip(numbers, _records(frame))):
        try:
            read.append(_read_row(record, layout, source, number, max_chars))
        except InputError as e:
            if on_error == "raise":
                raise
            errors[position] = e.reason
            continue
        kept.append(position)
    rows = Rows(**{name: [r[name] for r in read] for name in layout.names})
    empty = [kept[i] for i, r in enumerate(read) if not r["candidates"]]
    return Table(frame=given, rows=rows, source=source, numbers=numbers, kept_rows=kept, errors=errors, empty=empty,
                 fields=dict(columns or {}))


WHOLE = 1 << 40  # a chunk size that reads a file whole


def input_format(path: str | os.PathLike) -> Format:
    """The format of an input file by its extension (:func:`kpqa.formats.formats`); an :class:`InputError` naming
    the accepted ones for any other."""
    suffix = Path(path).suffix.lower()
    found = formats().get(suffix)
    if found is None:
        raise InputError(f"unknown input format {suffix or '(no extension)'!r}; accepted: {listing()}",
                         file=str(path))
    return found


def read_input(source: str | os.PathLike | pd.DataFrame | Any, on_error: str = "raise",
               max_chars: int | None = MAX_CHARS, columns: ColumnMap | None = None) -> Table:
    """Read CSV / TSV / JSONL / JSON / Parquet files, DataFrames, ``datasets.Dataset`` or lists of records into a
    validated :class:`Table` (``on_error``, ``max_chars``, ``columns``: see :func:`frame_to_table`)."""
    return next(iter_input(source, WHOLE, on_error, max_chars, columns))


def _source_frame(source: Any) -> tuple[pd.DataFrame, str]:
    """A DataFrame, ``datasets.Dataset`` or records as a frame, and the name messages give it."""
    if isinstance(source, pd.DataFrame):
        return source.copy(), "<DataFrame>"
    if hasattr(source, "to_pandas") and hasattr(source, "column_names"):  # datasets.Dataset
        return source.to_pandas(), "<Dataset>"
    if isinstance(source, Iterable) and not isinstance(source, (str, bytes, dict)):
        return given_frame(list(source), "<records>"), "<records>"
    raise InputError(f"cannot read input of type {type(source).__name__}")


def count_rows(source: str | os.PathLike | Any) -> int | None:
    """The number of data rows of an input, read cheaply by its format's ``count`` (CSV / TSV records, non-blank
    JSON lines, Parquet metadata), without validating them; None when it cannot be told."""
    if not isinstance(source, (str, os.PathLike)):
        return len(source) if hasattr(source, "__len__") else None
    path = Path(source)
    try:
        return input_format(path).count(path)
    except (OSError, UnicodeDecodeError, KpqaError, ImportError, ValueError):
        return None


def iter_input(source: str | os.PathLike | pd.DataFrame | Any, chunk_rows: int,
               on_error: str = "raise", max_chars: int | None = MAX_CHARS,
               columns: ColumnMap | None = None) -> Iterator[Table]:
    """Validated :class:`Table` chunks of at most ``chunk_rows`` rows, in input order; messages number rows from the
    start of the input. A file is read in the chunks its format (:mod:`kpqa.formats`, by its extension) gives: CSV /
    TSV (pandas' chunked reader), JSON lines and Parquet (by record batches) are streamed, JSON arrays read whole;
    other sources are read whole, then split. ``on_error``, ``max_chars``, ``columns``: see
    :func:`frame_to_table`."""
    if chunk_rows < 1:
        raise UsageError(Param("chunk_rows", chunk_rows), ": must be a positive integer")
    columns = check_columns(columns)
    if not isinstance(source, (str, os.PathLike)):
        frame, name = _source_frame(source)
        if len(frame) == 0:
            frame_to_table(frame, name)  # raises: no data rows
        for start in range(0, len(frame), chunk_rows):
            part = frame.iloc[start:start + chunk_rows]
            yield frame_to_table(part, name, range(start + 1, start + len(part) + 1), on_error, max_chars, columns)
        return
    path = Path(source)
    check_file(path)
    for frame, numbers in input_format(path).read(path, chunk_rows):
        yield frame_to_table(frame, str(path), numbers, on_error, max_chars, columns)


def text_files(answers: str | os.PathLike, references: Sequence[str | os.PathLike],
               questions: str | os.PathLike | None = None, on_error: str = ON_ERROR[0],
               max_chars: int | None = MAX_CHARS) -> Table:
    """Plain-text files, one text a line (sacrebleu's layout): the answers, one file per reference (a blank line: no
    reference of that rank) and optionally the questions, line ``i`` of each making row ``i``. Files of different
    lengths are an :class:`InputError` naming the file; messages name the answers file and its line."""
    if not references:
        raise UsageError(Param("references"), ": at least one file of references, one a line")
    columns = {} if questions is None else {"question": _lines(questions)}
    columns["answer"] = _lines(answers)
    columns.update({f"reference{k}": _lines(path) for k, path in enumerate(references, 1)})
    names = {"answer": answers, "question": questions, **{f"reference{k}": p for k, p in enumerate(references, 1)}}
    for column, lines in columns.items():
        if len(lines) != len(columns["answer"]):
            raise InputError(f"{len(lines)} lines, but the answers ({answers}) have {len(columns['answer'])}: one "
                             "text a line, the same lines in every file", file=str(names[column]))
    return frame_to_table(pd.DataFrame(columns), str(answers), on_error=on_error, max_chars=max_chars)


def _lines(path: str | os.PathLike) -> list[str]:
    """The lines of a UTF-8 text file (a last newline ends the last line, it does not start another)."""
    file = Path(path)
    check_file(file)
    check_utf8(file, header=False)  # a text file has no header: line k is row k
    text = file.read_text(encoding="utf-8-sig")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if not lines:
        raise InputError("empty file", file=str(file))
    return [line.removesuffix("\r") for line in lines]


def read_csv_frame(path: str | Path) -> pd.DataFrame:
    """A whole CSV file as text cells, read exactly as input is (:mod:`kpqa.formats.delimited`), for the side files
    of calibration (a cross-validation's held-out scores; labelled rows are input, read by :func:`read_input`); InputError naming the file when it is missing or
    not a readable CSV."""
    from kpqa.formats.delimited import read_whole

    if not Path(path).is_file():
        raise InputError("no such file", file=str(path))
    try:
        return read_whole(path)
    except InputError as e:
        raise InputError(f"not a readable CSV ({e.reason})", file=str(path)) from None
