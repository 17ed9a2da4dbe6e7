"""The one place that reads and validates input, and the one place that writes output.

Input layouts: the KPQA release's CSV (``question, answer, reference1..referenceN`` plus any extra columns, e.g.
``scores`` with a human judgment), JSONL (``{"question", "answer", "references": [...]}``), a pandas DataFrame or a
``datasets.Dataset`` of either shape. Optional columns for Yang et al.: ``answer_label``, ``reference{k}_label``
(Yes / No / Depends) and ``entities`` (a JSON list of gold entity strings). Rows are numbered from 1 in messages,
not counting the CSV header.
"""
from __future__ import annotations

import csv
import io
import json
import math
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

import pandas as pd

from kpqa.errors import InputError
from kpqa.metrics.base import Rows

_REF = re.compile(r"^reference(\d*)$")
_REF_LABEL = re.compile(r"^reference(\d*)_label$")
LABELS = {"yes": "Yes", "no": "No", "depends": "Depends"}


@dataclass
class Table:
    """Validated input: the original columns (carried through to the output) and the rows to score."""

    frame: pd.DataFrame
    rows: Rows
    source: str


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value)) or not str(value).strip()


def _bad_utf8_row(path: Path, err: UnicodeDecodeError) -> int:
    """Data-row number (1-based, header excluded) holding the byte that failed to decode."""
    data = path.read_bytes()
    return data[: err.start].count(b"\n")


def _read_text(path: Path) -> str:
    if not path.exists():
        raise InputError("no such file", file=str(path))
    if path.is_dir():
        raise InputError("is a folder, not a file", file=str(path))
    try:
        return path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as e:
        raise InputError(
            f"not UTF-8 text (byte 0x{e.object[e.start]:02x} at offset {e.start}); re-save the file as UTF-8",
            file=str(path),
            row=_bad_utf8_row(path, e),
        ) from None


def _csv_frame(path: Path, text: str) -> pd.DataFrame:
    if not text.strip():
        raise InputError("empty file", file=str(path))
    try:
        frame = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False, na_filter=False)
    except (pd.errors.ParserError, csv.Error) as e:
        line = re.search(r"line (\d+)", str(e))
        raise InputError(
            f"malformed CSV: {str(e).splitlines()[0]}", file=str(path), row=int(line.group(1)) - 1 if line else None
        ) from None
    except pd.errors.EmptyDataError:
        raise InputError("empty file", file=str(path)) from None
    return frame


def _jsonl_frame(path: Path, text: str) -> pd.DataFrame:
    records = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as e:
            raise InputError(f"malformed JSON line: {e.msg} at char {e.pos}", file=str(path), row=number) from None
        if not isinstance(record, dict):
            raise InputError("each JSONL line must be a JSON object", file=str(path), row=number)
        records.append(record)
    if not records:
        raise InputError("empty file", file=str(path))
    return _records_frame(records, str(path))


def _records_frame(records: list[dict], source: str = "<records>") -> pd.DataFrame:
    """Records with a ``references`` list become ``reference1..N`` columns (labels likewise)."""
    flat = []
    for number, record in enumerate(records, 1):
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


def frame_to_table(frame: pd.DataFrame, source: str = "<data>") -> Table:
    """Validate a frame in the KPQA layout and extract the rows to score."""
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
    for number, record in enumerate(records, 1):
        answer = record["answer"]
        if _blank(answer):
            raise InputError("empty answer", file=source, row=number, column="answer")
        refs, labels = [], []
        for col in ref_cols:
            if not _blank(record[col]):
                refs.append(str(record[col]))
                k = int(_REF.match(col).group(1) or 0)
                labels.append(_label(record.get(label_cols[k]), source, number, label_cols[k]) if k in label_cols else None)
        if not refs:
            raise InputError("no non-empty reference", file=source, row=number, column=ref_cols[0])
        questions.append("" if not has_q or _blank(record["question"]) else str(record["question"]))
        candidates.append(str(answer))
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
    return Table(frame=frame, rows=rows, source=source)


def read_input(source: str | os.PathLike | pd.DataFrame | Any) -> Table:
    """Read CSV / JSONL files, DataFrames, ``datasets.Dataset`` or lists of records into a validated :class:`Table`."""
    if isinstance(source, pd.DataFrame):
        return frame_to_table(source.copy(), "<DataFrame>")
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        text = _read_text(path)
        if path.suffix.lower() in {".jsonl", ".json", ".ndjson"}:
            return frame_to_table(_jsonl_frame(path, text), str(path))
        return frame_to_table(_csv_frame(path, text), str(path))
    if hasattr(source, "to_pandas") and hasattr(source, "column_names"):  # datasets.Dataset
        frame = source.to_pandas()
        if "references" in frame.columns:
            frame = _records_frame(frame.to_dict("records"), "<Dataset>")
        return frame_to_table(frame, "<Dataset>")
    if isinstance(source, Iterable):
        return frame_to_table(_records_frame(list(source)), "<records>")
    raise InputError(f"cannot read input of type {type(source).__name__}")


def write_output(frame: pd.DataFrame, path: str | os.PathLike) -> None:
    """Write ``frame`` as CSV (or JSONL for ``.jsonl``) atomically: a temp file in the same folder, then rename."""
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise InputError("output folder does not exist", file=str(folder))
    if path.is_dir():
        raise InputError("output path is a folder, not a file", file=str(path))
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    except OSError as e:
        raise InputError(f"cannot write output: {e.strerror}", file=str(path)) from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            if path.suffix.lower() in {".jsonl", ".ndjson"}:
                frame.to_json(f, orient="records", lines=True, force_ascii=False)
            else:
                frame.to_csv(f, index=False)
        os.replace(tmp, path)
    except OSError as e:
        Path(tmp).unlink(missing_ok=True)
        raise InputError(f"cannot write output: {e.strerror or e}", file=str(path)) from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
