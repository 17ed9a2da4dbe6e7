"""A table's numeric columns and 0/1 labels, read one way: every reader of a score, a human judgment, a held-out
logit or a training label goes through :func:`numeric_column` and :func:`binary_labels`, and a cell that is not
what it should be is one :class:`~kpqa.errors.InputError` naming the file, the row (as the table numbers it: a CSV
data row, a JSON line) and the column."""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import pandas as pd

from kpqa.errors import InputError, Param, Part


def _cells(values: Sequence[Any] | pd.Series) -> pd.Series:
    """The cells as Python objects (a message shows ``5.0``, not ``np.float64(5.0)``), numbered from 0."""
    return pd.Series(list(values), dtype=object)


def numeric_column(values: Sequence[Any] | pd.Series, *, source: str, column: str,
                   numbers: Sequence[int] | None = None, what: tuple[Part, ...] = (),
                   after: str = " is not a number", blanks: bool = False) -> np.ndarray:
    """The cells as floats; an InputError naming the first cell that is not a finite number (``what``, the cell's
    value, ``after``: ``human score 'x' is not a number``). ``numbers``: each cell's row number in messages
    (default 1, 2, ...); ``blanks``: an empty cell is NaN, not an error."""
    cells = _cells(values)
    out = pd.to_numeric(cells, errors="coerce").to_numpy(dtype=float, copy=True)
    bad = ~np.isfinite(out)
    if blanks:
        blank = cells.isna().to_numpy() | (cells.astype(str).str.strip() == "").to_numpy()
        bad &= ~blank
        out[blank] = np.nan
    found = np.flatnonzero(bad)
    if len(found):
        i = int(found[0])
        raise InputError(*what, f"{cells.iloc[i]!r}{after}", file=source, column=column,
                         row=i + 1 if numbers is None else int(numbers[i]))
    return out


def as_binary(values: Any, positive_above: float | None = None) -> np.ndarray | None:
    """Numeric human labels as 0/1: ``value > positive_above`` when it is set, else the values themselves when all
    are 0 or 1, else None."""
    numeric = np.asarray(values, dtype=float)
    if positive_above is not None:
        return (numeric > positive_above).astype(float)
    return numeric if np.isin(numeric, (0.0, 1.0)).all() else None


def binary_labels(values: Sequence[Any] | pd.Series, positive_above: float | None = None, *,
                  source: str = "<labels>", column: str = "scores", numbers: Sequence[int] | None = None,
                  threshold_hint: bool = True) -> np.ndarray:
    """Human labels as a 0/1 array (:func:`as_binary`); InputError naming the first cell that is not a number (or
    not 0/1 without ``positive_above``; ``threshold_hint``: say that ``positive_above`` would count it).
    ``numbers``: as in :func:`numeric_column`."""
    cells = _cells(values)
    numeric = numeric_column(cells, source=source, column=column, numbers=numbers, what=("human label ",))
    labels = as_binary(numeric, positive_above)
    if labels is None:
        i = int(np.flatnonzero(~np.isin(numeric, (0.0, 1.0)))[0])
        hint: tuple[Part, ...] = ("; set ", Param("positive_above"), " to T to count labels above T as correct") \
            if threshold_hint else ()
        raise InputError(f"human label {cells.iloc[i]!r} is not 0 or 1", *hint, file=source, column=column,
                         row=i + 1 if numbers is None else int(numbers[i]))
    return labels
