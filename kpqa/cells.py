"""One cell of input read as the text or texts it holds, one way for every reader: the NFC text of a field, a blank,
a length over the limit, an opinion label, a JSON list of entities, texts joined in one cell (``a; b``) and the
known-wrong answers; each problem an :class:`InputError` naming the file, row and column."""
from __future__ import annotations

import json
import math
import re
import unicodedata
from dataclasses import dataclass
from typing import Any

import numpy as np

from kpqa.errors import InputError
from kpqa.lengths import check_length

#: the opinion labels of Yang et al. (``answer_label``, ``reference{k}_label``), by their lower-case spelling
LABELS = {"yes": "Yes", "no": "No", "depends": "Depends"}


def blank(value: Any) -> bool:
    """Whether a cell holds no text: None, NaN, or only white space."""
    return value is None or (isinstance(value, float) and math.isnan(value)) or not str(value).strip()


@dataclass(frozen=True)
class Cell:
    """Where a value was read, for its messages (file, row number, column), and the longest text it may hold."""

    source: str
    row: int
    column: str
    max_chars: int | None = None

    def error(self, reason: str) -> InputError:
        """An :class:`InputError` naming this cell."""
        return InputError(reason, file=self.source, row=self.row, column=self.column)


def opinion_label(value: Any, cell: Cell) -> str | None:
    """A Yes / No / Depends label (any capitals), None for a blank cell."""
    if blank(value):
        return None
    label = LABELS.get(str(value).strip().lower())
    if label is None:
        raise cell.error(f"opinion label {value!r} is not Yes, No or Depends")
    return label


def entity_list(value: Any, cell: Cell) -> list[str]:
    """A row's gold entities: a list, or JSON list text, of strings (blanks dropped)."""
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if not isinstance(value, (list, tuple)) and blank(value):
        return []
    if isinstance(value, (list, tuple)):
        items = list(value)
    else:
        try:
            items = json.loads(str(value))
        except json.JSONDecodeError:
            raise cell.error(f"{cell.column} must be a JSON list of strings") from None
    if not isinstance(items, list) or not all(isinstance(e, str) for e in items):
        raise cell.error(f"{cell.column} must be a JSON list of strings")
    return [e for e in items if e.strip()]


#: the optional column of answers known to be wrong (TruthfulQA's ``incorrect_answers``)
WRONG_COLUMN = "incorrect_answers"
#: what joins several texts in one text cell (``incorrect_answers``, ``references``): ';' and a space, as TruthfulQA.csv
#: writes them (``a; b``; `` ; `` too: the parts are stripped)
LIST_SEPARATOR = re.compile(r";\s")


def split_texts(text: str, source: str, row: int, column: str) -> list[str]:
    """The texts of a cell joined with :data:`LIST_SEPARATOR` (``"a; b"`` and ``"a ; b"``: ``["a", "b"]``), each
    stripped; an :class:`InputError` naming the cell when a part is empty or starts or ends with ';' (``"a; ; b"``,
    ``"a; b;"``): no split of it is certain."""
    parts = [part.strip() for part in LIST_SEPARATOR.split(text)]
    if any(not part or part.startswith(";") or part.endswith(";") for part in parts):
        raise InputError("cannot split the cell into texts joined with '; ': a text is empty or begins or ends with "
                         "';' (give the texts as a JSON list)", file=source, row=row, column=column)
    return parts


def wrong_answers(value: Any, cell: Cell) -> list[str]:
    """A row's known-wrong answers: a list of strings (JSONL, Parquet, records), JSON list text, or text joined
    with '; ' (:func:`split_texts`: TruthfulQA's layout; an answer holding '; ' must come as a list); blanks
    dropped. InputError naming the cell for anything else."""
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if not isinstance(value, (list, tuple)) and blank(value):
        return []
    if isinstance(value, str) and value.lstrip().startswith("["):
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            raise cell.error(f"{cell.column!r} is not a JSON list of strings") from None
    if isinstance(value, str):
        value = split_texts(value, cell.source, cell.row, cell.column)
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise cell.error(f"{cell.column!r} must be a list of strings or text joined with '; '")
    return [check_length(v, cell.max_chars, cell.source, cell.row, cell.column) for v in value if v.strip()]


def cell_text(value: Any, source: str, row: int, column: str) -> str:
    """A cell as the text every metric reads: Unicode NFC (``"Cafe\u0301"`` is ``"Café"``, as a reader sees it),
    numbers written out; lists, objects and booleans are errors. The output keeps the cell as given."""
    if isinstance(value, (list, tuple, dict, bool)):
        kind = {list: "a list", tuple: "a list", dict: "an object", bool: "true/false"}[type(value)]
        raise InputError(f"expected text, got {kind}", file=source, row=row, column=column)
    return unicodedata.normalize("NFC", str(value))
