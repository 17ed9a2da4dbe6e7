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
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator, Sequence

import numpy as np
import pandas as pd

from kpqa.errors import InputError, UsageError
from kpqa.rows import Rows

_REF = re.compile(r"^reference(\d*)$")
_REF_LABEL = re.compile(r"^reference(\d*)_label$")
LABELS = {"yes": "Yes", "no": "No", "depends": "Depends"}


@dataclass
class Table:
    """Validated input: the original columns (carried through to the output) and the rows to score."""

    frame: pd.DataFrame
    rows: Rows
    source: str
    numbers: list[int] = field(default_factory=list)  # per row, the number messages give it (JSONL: its line)


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value)) or not str(value).strip()


def _bad_utf8_row(path: Path, err: UnicodeDecodeError) -> int | None:
    """Data-row number (1-based, header excluded) holding the byte that failed to decode."""
    data = path.read_bytes()
    return _line_row(path, data[: err.start].count(b"\n"))


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
    """The same check as :func:`_read_text`, line by line (a UTF-8 sequence never spans a newline byte)."""
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


def _read_text(path: Path) -> str:
    _check_file(path)
    try:
        return path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as e:
        raise InputError(
            f"not UTF-8 text (byte 0x{e.object[e.start]:02x} at offset {e.start}); re-save the file as UTF-8",
            file=str(path),
            row=_bad_utf8_row(path, e),
        ) from None


def _check_header(path: Path, first_line: str) -> None:
    """InputError when a CSV header names a column twice (pandas would silently rename the second ``x.1``)."""
    header = next(csv.reader([first_line]), [])
    seen: set[str] = set()
    for name in (h.strip() for h in header):
        if name in seen and name:
            raise InputError(f"duplicate column {name!r} in the header", file=str(path), column=name)
        seen.add(name)


def _csv_frame(path: Path, text: str) -> pd.DataFrame:
    if not text.strip():
        raise InputError("empty file", file=str(path))
    _check_header(path, text.lstrip("\ufeff").split("\n", 1)[0])
    try:
        frame = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False, na_filter=False)
    except (pd.errors.ParserError, csv.Error) as e:
        raise _csv_error(path, e) from None
    except pd.errors.EmptyDataError:
        raise InputError("empty file", file=str(path)) from None
    return frame


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


def _jsonl_frame(path: Path, lines: Iterable[str]) -> tuple[pd.DataFrame, list[int]]:
    """The records of JSONL ``lines`` as a frame, and the line number of each."""
    numbered = list(_json_records(path, lines))
    if not numbered:
        raise InputError("empty file", file=str(path))
    return _numbered_frame(path, numbered)


def _records_frame(
    records: list[dict], source: str = "<records>", numbers: Sequence[int] | None = None
) -> pd.DataFrame:
    """Records with a ``references`` list become ``reference1..N`` columns (labels likewise); ``numbers``: the row
    number of each record in messages (default 1, 2, ...)."""
    flat = []
    for number, record in zip(numbers or range(1, len(records) + 1), records):
        record = dict(record)
        refs = record.pop("references", None)
        if isinstance(refs, (dict, int, float)) and not _blank(refs):
            raise InputError("'references' must be a list of strings", file=source, row=number, column="references")
        refs = [refs] if isinstance(refs, str) else [] if _blank(refs) else list(refs)
        for k, ref in enumerate(refs, 1):
            record[f"reference{k}"] = ref
        labels = record.pop("reference_labels", None)
        for k, label in enumerate([] if labels is None else list(labels), 1):
            record[f"reference{k}_label"] = label
        if isinstance(record.get("entities"), list):
            record["entities"] = json.dumps(record["entities"], ensure_ascii=False)
        flat.append(record)
    return pd.DataFrame(flat)


def _ref_columns(frame: pd.DataFrame) -> list[str]:
    cols = [c for c in frame.columns if _REF.match(str(c))]
    return sorted(cols, key=lambda c: int(_REF.match(c).group(1) or 0))


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


def frame_to_table(frame: pd.DataFrame, source: str = "<data>", numbers: Sequence[int] | None = None) -> Table:
    """Validate a frame in the KPQA layout and extract the rows to score. Messages number the rows 1, 2, ... or by
    ``numbers`` (rows of a chunk further down a file, JSONL line numbers)."""
    frame = frame.rename(columns=lambda c: str(c).strip())
    if len(frame) == 0:
        raise InputError("no data rows (header only?)", file=source)
    if "answer" not in frame.columns:
        raise InputError(f"no 'answer' column (columns: {', '.join(frame.columns)})", file=source, column="answer")
    ref_cols = _ref_columns(frame)
    if not ref_cols:
        raise InputError("no reference column (expected reference1, reference2, ...)", file=source, column="reference1")
    has_q = "question" in frame.columns
    label_cols = {int(m.group(1) or 0): c for c in frame.columns if (m := _REF_LABEL.match(str(c)))}
    has_labels = "answer_label" in frame.columns or bool(label_cols)
    has_entities = "entities" in frame.columns

    questions, candidates, references = [], [], []
    cand_labels: list[str | None] = []
    ref_labels: list[list[str | None]] = []
    entities: list[list[str]] = []
    records = frame.to_dict("records")
    numbers = list(numbers) if numbers is not None else list(range(1, len(records) + 1))
    for number, record in zip(numbers, records):
        answer = record["answer"]
        if _blank(answer):
            raise InputError("empty answer", file=source, row=number, column="answer")
        refs, labels = [], []
        for col in ref_cols:
            if not _blank(record[col]):
                refs.append(_text(record[col], source, number, col))
                k = int(_REF.match(col).group(1) or 0)
                labels.append(_label(record.get(label_cols[k]), source, number, label_cols[k]) if k in label_cols else None)
        if not refs:
            raise InputError("no non-empty reference", file=source, row=number, column=ref_cols[0])
        question = record["question"] if has_q else None
        questions.append("" if _blank(question) else _text(question, source, number, "question"))
        candidates.append(_text(answer, source, number, "answer"))
        references.append(refs)
        ref_labels.append(labels)
        cand_labels.append(_label(record.get("answer_label"), source, number, "answer_label"))
        if has_entities:
            entities.append(_entities(record["entities"], source, number))
    rows = Rows(
        questions=questions,
        candidates=candidates,
        references=references,
        candidate_labels=cand_labels if has_labels else None,
        reference_labels=ref_labels if has_labels else None,
        entities=entities if has_entities else None,
    )
    return Table(frame=frame, rows=rows, source=source, numbers=numbers)


def read_input(source: str | os.PathLike | pd.DataFrame | Any) -> Table:
    """Read CSV / JSONL files, DataFrames, ``datasets.Dataset`` or lists of records into a validated :class:`Table`."""
    if isinstance(source, pd.DataFrame):
        return frame_to_table(source.copy(), "<DataFrame>")
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        text = _read_text(path)
        if _is_jsonl(path):
            frame, numbers = _jsonl_frame(path, text.splitlines())
            return frame_to_table(frame, str(path), numbers=numbers)
        return frame_to_table(_csv_frame(path, text), str(path))
    if hasattr(source, "to_pandas") and hasattr(source, "column_names"):  # datasets.Dataset
        frame = source.to_pandas()
        if "references" in frame.columns:
            frame = _records_frame(frame.to_dict("records"), "<Dataset>")
        return frame_to_table(frame, "<Dataset>")
    if isinstance(source, Iterable):
        return frame_to_table(_records_frame(list(source)), "<records>")
    raise InputError(f"cannot read input of type {type(source).__name__}")


def _is_jsonl(path: Path) -> bool:
    return path.suffix.lower() in {".jsonl", ".json", ".ndjson"}


def iter_input(source: str | os.PathLike | pd.DataFrame | Any, chunk_rows: int) -> Iterator[Table]:
    """Validated :class:`Table` chunks of at most ``chunk_rows`` rows, in input order; messages number rows from the
    start of the input. Files are streamed (CSV through pandas' chunked reader, JSONL line by line); other sources
    are read whole, then split."""
    if chunk_rows < 1:
        raise UsageError(f"chunk size must be a positive integer, got {chunk_rows}")
    if not isinstance(source, (str, os.PathLike)):
        table = read_input(source)
        for start in range(0, len(table.rows), chunk_rows):
            yield _slice(table, start, start + chunk_rows)
        return
    path = Path(source)
    _check_file(path)
    _check_utf8(path)
    if _is_jsonl(path):
        for frame, numbers in _jsonl_chunks(path, chunk_rows):
            yield frame_to_table(frame, str(path), numbers=numbers)
        return
    done = 0
    for frame in _csv_chunks(path, chunk_rows):
        yield frame_to_table(frame, str(path), range(done + 1, done + len(frame) + 1))
        done += len(frame)


def _csv_chunks(path: Path, chunk_rows: int) -> Iterator[pd.DataFrame]:
    with open(path, encoding="utf-8-sig") as f:
        _check_header(path, f.readline())
    try:
        reader = pd.read_csv(
            path, dtype=str, keep_default_na=False, na_filter=False, encoding="utf-8-sig", chunksize=chunk_rows
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


def _slice(table: Table, start: int, end: int) -> Table:
    return Table(frame=table.frame.iloc[start:end], rows=take_rows(table.rows, start, end), source=table.source,
                 numbers=table.numbers[start:end])


_ROW_FIELDS = ("questions", "candidates", "references", "candidate_labels", "reference_labels", "entities")


def take_rows(rows: Rows, start: int, end: int) -> Rows:
    """Rows ``start`` to ``end`` (exclusive) of ``rows``."""
    return Rows(**{f: None if getattr(rows, f) is None else getattr(rows, f)[start:end] for f in _ROW_FIELDS})


def concat_rows(parts: Sequence[Rows]) -> Rows:
    """The rows of ``parts`` one after the other (an optional field is kept when every part has it)."""
    fields = {}
    for f in _ROW_FIELDS:
        values = [getattr(p, f) for p in parts]
        fields[f] = None if any(v is None for v in values) else [x for v in values for x in v]
    return Rows(**fields)


class OutputWriter:
    """Writes the output table chunk by chunk into a temp file beside ``path``, renamed into place by
    :meth:`close` (so ``path`` never holds a partial table); :meth:`abort` removes it. A context manager: leaving
    the block normally closes, an exception aborts.

    CSV: the first chunk fixes the header. When a later chunk brings new columns (JSONL input whose rows have
    more references further down), the file is rewritten at the end with all columns, ``last_columns`` (the
    metric columns) last, as the whole table would have been written."""

    def __init__(self, path: str | os.PathLike, last_columns: Sequence[str] = ()) -> None:
        self.path = path = Path(path)
        folder = path.parent if str(path.parent) else Path(".")
        if not folder.is_dir():
            problem = "is a file, not a folder" if folder.exists() else "does not exist"
            raise InputError(f"output folder {problem}", file=str(folder))
        if path.is_dir():
            raise InputError("output path is a folder, not a file", file=str(path))
        self._jsonl = path.suffix.lower() in {".jsonl", ".ndjson"}
        self._last = list(last_columns)
        self._columns: list[str] | None = None
        self._reshape = False
        self._fill: dict[str, np.ndarray] = {}
        try:
            fd, self._tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
        except OSError as e:
            raise InputError(f"cannot write output: {e.strerror}", file=str(path)) from None
        self._file = os.fdopen(fd, "w", encoding="utf-8", newline="")

    def write(self, frame: pd.DataFrame) -> None:
        """Append the rows of ``frame``."""
        with self._errors():
            if self._jsonl:
                frame.to_json(self._file, orient="records", lines=True, force_ascii=False)
                return
            if self._columns is None:
                self._columns = list(frame.columns)
                frame.to_csv(self._file, index=False)
                return
            new = [c for c in frame.columns if c not in self._columns]
            if new:
                self._columns += new
                self._reshape = True
            frame.reindex(columns=self._columns).to_csv(self._file, index=False, header=False)

    def fill(self, values: dict[str, np.ndarray]) -> None:
        """Put ``values`` (one per row, in row order) into these columns, written empty so far, on closing."""
        self._fill.update(values)

    def close(self) -> None:
        """Finish the file and move it to ``path``."""
        with self._errors():
            self._file.close()
            if self._jsonl and self._fill:
                self._rewrite_jsonl()
            elif self._reshape or self._fill:
                self._rewrite()
            os.chmod(self._tmp, 0o666 & ~_umask())  # mkstemp's 0600 would be an odd mode for a scores file
            os.replace(self._tmp, self.path)

    def abort(self) -> None:
        """Drop the temp file; ``path`` is left as it was."""
        self._file.close()
        Path(self._tmp).unlink(missing_ok=True)

    def _rewrite(self) -> None:
        assert self._columns is not None
        columns = [c for c in self._columns if c not in self._last] + [c for c in self._last if c in self._columns]
        fd, tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".tmp", dir=Path(self._tmp).parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
                header = True
                # the file's own header names only the first chunk's columns; the rows carry all of them
                reader = pd.read_csv(self._tmp, dtype=str, keep_default_na=False, na_filter=False, header=None,
                                     names=self._columns, skiprows=1, chunksize=10_000)
                with reader:
                    done = 0
                    for chunk in reader:
                        for column, values in self._fill.items():
                            chunk[column] = values[done:done + len(chunk)]
                        done += len(chunk)
                        chunk[columns].to_csv(f, index=False, header=header)
                        header = False
            os.replace(tmp, self._tmp)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def _rewrite_jsonl(self) -> None:
        fd, tmp = tempfile.mkstemp(prefix=f".{self.path.name}.", suffix=".tmp", dir=Path(self._tmp).parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8", newline="") as f, open(self._tmp, encoding="utf-8") as lines:
                done = 0
                while batch := [json.loads(line) for line in itertools.islice(lines, 10_000)]:
                    frame = pd.DataFrame.from_records(batch)
                    for column, values in self._fill.items():
                        frame[column] = values[done:done + len(frame)]
                    done += len(frame)
                    frame.to_json(f, orient="records", lines=True, force_ascii=False)
            os.replace(tmp, self._tmp)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    @contextlib.contextmanager
    def _errors(self) -> Iterator[None]:
        try:
            yield
        except OSError as e:
            self.abort()
            raise InputError(f"cannot write output: {e.strerror or e}", file=str(self.path)) from None

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


def write_output(frame: pd.DataFrame, path: str | os.PathLike) -> None:
    """Write ``frame`` as CSV (or JSONL for ``.jsonl``) atomically: a temp file in the same folder, then rename."""
    with OutputWriter(path) as out:
        out.write(frame)
