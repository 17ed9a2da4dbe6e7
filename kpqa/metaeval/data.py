"""Meta-evaluation data: the settings of a run and the loaded human-judgment files (human scores, metric scores,
items, systems). See :mod:`kpqa.metaeval` for the layout of a human-judgment file."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Hashable, Sequence

import numpy as np
import pandas as pd

from kpqa import meta
from kpqa.errors import InputError, Param
from kpqa.input import Table, frame_to_table, read_input
from kpqa.signature import Signature


@dataclass
class Settings:
    """Options of one meta-evaluation run (the CLI's flags)."""

    metrics: list[str]
    human_column: str = "scores"
    system_column: str | None = None
    by: str | None = None
    bootstrap: int = 1000
    seed: int = 0
    threshold: float = 2.0
    strict: bool = False
    compare: list[tuple[str, str]] = field(default_factory=list)
    overall_questions: int = 30
    overall_draws: int = 100
    aev_grid: bool = False
    tokenize: str = "ptb"
    scorer_options: dict[str, Any] = field(default_factory=dict)
    positive_above: float | None = None
    calibration: str | None = None
    max_chars: int | None = None  # a longer text is an error; None: the limit of the metrics scored (Scorer)


@dataclass
class Dataset:
    """A loaded human-judgment file: human scores, metric scores per column and their signatures (None for scores
    taken from the file's own column, which say nothing of how they were computed), item keys and systems."""

    name: str
    source: str
    table: Table
    human: np.ndarray
    scores: dict[str, np.ndarray]
    signatures: dict[str, Signature | None]
    keys: list[Hashable]
    systems: list[str] | None
    systems_how: str


def human_scores(table: Table, column: str) -> np.ndarray:
    """The numeric human score column; InputError naming the file / row / column when missing or not a number."""
    frame = table.frame
    if column not in frame.columns:
        raise InputError(
            f"no human score column {column!r} (columns: {', '.join(map(str, frame.columns))}); "
            "pick one with ", Param("human_column"),
            file=table.source,
            column=column,
        )
    values = pd.to_numeric(frame[column], errors="coerce").to_numpy(dtype=float)
    bad = ~np.isfinite(values)
    if bad.any():
        row = int(np.flatnonzero(bad)[0]) + 1
        raise InputError(f"human score {frame[column].iloc[row - 1]!r} is not a number", file=table.source,
                         row=row, column=column)
    if len(values) < meta.MIN_ROWS:
        raise InputError(f"{len(values)} rows: correlations need at least {meta.MIN_ROWS}", file=table.source)
    return values


def item_keys(table: Table) -> list[Hashable]:
    """One key per row: (question, references), the item a system answered."""
    return [(q, tuple(refs)) for q, refs in zip(table.rows.questions, table.rows.references)]


def detect_systems(table: Table, keys: Sequence[Hashable], column: str | None = None) -> tuple[list[str] | None, str]:
    """(system label per row or None for one system, how it was decided); see the module docstring."""
    if column is None and SYSTEM_COLUMN in table.frame.columns:
        column = SYSTEM_COLUMN
    if column is not None:
        if column not in table.frame.columns:
            raise InputError(f"no system column {column!r} (columns: {', '.join(map(str, table.frame.columns))})",
                             file=table.source, column=column)
        labels = [str(v) for v in table.frame[column]]
        return labels, f"column {column!r}: {len(set(labels))} systems"
    n = len(keys)
    half = n // 2
    if n % 2 == 0 and half >= 1 and list(keys[:half]) == list(keys[half:]) and len(set(keys[:half])) == half:
        labels = [f"rows 1-{half}"] * half + [f"rows {half + 1}-{n}"] * half
        return labels, f"2 systems: rows 1-{half} and rows {half + 1}-{n} (row i and row i+{half} share question and references)"
    return None, "1 system (no column of systems and not two halves answering the same items)"


def _read_scores(table: Table, column: str) -> np.ndarray | None:
    values = pd.to_numeric(table.frame[column], errors="coerce").to_numpy(dtype=float)
    bad = ~np.isfinite(values)
    if bad.any():
        row = int(np.flatnonzero(bad)[0]) + 1
        raise InputError(f"metric score {table.frame[column].iloc[row - 1]!r} is not a number", file=table.source,
                         row=row, column=column)
    return values


#: the column that names each row's system when ``system_column`` is not given
SYSTEM_COLUMN = "system"

ScorerFactory = Callable[[list[str]], Any]
"""``factory(metric names)`` -> an object with :meth:`~kpqa.scoring.Scorer.score_rows` for those metrics."""


def scorer_factory(settings: Settings) -> ScorerFactory:
    """Builds one :class:`~kpqa.scoring.Scorer` per distinct list of metrics to score, reused across files."""
    cache: dict[tuple[str, ...], Any] = {}

    def build(names: list[str]) -> Any:
        if tuple(names) not in cache:
            from kpqa.scoring import Scorer

            cache[tuple(names)] = Scorer(names, tokenize=settings.tokenize, max_chars=settings.max_chars,
                                         **settings.scorer_options)
        return cache[tuple(names)]

    return build


def load_dataset(path: str | Path, settings: Settings, scorers: ScorerFactory | None = None,
                 name: str | None = None) -> Dataset:
    """Read a human-judgment file and get every requested metric's per-row scores: from the file's column of that
    name when there is one, else from ``scorers(missing names)`` (default: :func:`scorer_factory`)."""
    table = read_input(path, max_chars=None)
    human = human_scores(table, settings.human_column)
    if settings.by is not None and settings.by not in table.frame.columns:
        raise InputError(Param("by", settings.by),
                         f": no such column (columns: {', '.join(map(str, table.frame.columns))})",
                         file=table.source, column=settings.by)
    scores: dict[str, np.ndarray] = {}
    signatures: dict[str, Signature | None] = {}
    missing = []
    for metric in settings.metrics:
        if metric in table.frame.columns:
            scores[metric] = _read_scores(table, metric)  # type: ignore[assignment]  # present: not None
            signatures[metric] = None
        else:
            missing.append(metric)
    if missing:
        scorer = (scorers or scorer_factory(settings))(missing)
        limit = getattr(scorer, "max_chars", None)  # the longest text the metrics scored here take
        if limit is not None:
            table = frame_to_table(table.frame, table.source, table.numbers, max_chars=limit)
        per_row, _, sigs = scorer.score_rows(table.rows, table.source)
        scores.update({c: np.asarray(v, dtype=float) for c, v in per_row.items() if c not in scores})
        signatures.update({c: sig for c, sig in sigs.items() if c in per_row})
    if "Contains" not in scores and binary_labels(human, settings) is not None:  # the baseline of binary reports
        from kpqa.metrics.base import Context, get_metric

        contains = get_metric("Contains")
        scores["Contains"] = contains.score(table.rows, Context())["Contains"]
        signatures["Contains"] = contains.signature(Context())
    keys = item_keys(table)
    systems, how = detect_systems(table, keys, settings.system_column)
    return Dataset(name or Path(str(path)).stem, table.source, table, human, scores, signatures, keys, systems, how)


# ------------------------------------------------------------------------------------------------------ evaluation


def binary_labels(human: np.ndarray, settings: Settings) -> np.ndarray | None:
    """0/1 labels: ``human > positive_above`` when set, the human scores when they are all 0 or 1, else None."""
    if settings.positive_above is not None:
        return (human > settings.positive_above).astype(float)
    return human.astype(float) if np.isin(human, (0.0, 1.0)).all() else None


def aev_scores(table: Table, tokenize: str, alphas: Sequence[float], orders: Sequence[int]) -> np.ndarray:
    """AEv(alpha, N) per row for the whole grid, shape ``(len(orders), len(alphas), rows)``: counts once, then a
    few array operations per cell (:func:`kpqa.metrics.aev.aev_grid`)."""
    from kpqa.metrics.aev import AEv, aev_grid
    from kpqa.metrics.base import Context

    counts = AEv(0.0, max(orders)).counts(table.rows, Context(tokenizer=tokenize))
    return aev_grid(counts, list(alphas), list(orders))


def load_all(paths: Sequence[str | Path], settings: Settings, scorers: ScorerFactory | None = None) -> list[Dataset]:
    """Load and score every file (data sets named by file stem, numbered when two stems clash)."""
    names = [Path(str(p)).stem for p in paths]
    scorers = scorers or scorer_factory(settings)
    return [load_dataset(path, settings, scorers, names[k] if names.count(names[k]) == 1 else f"{names[k]}-{k + 1}")
            for k, path in enumerate(paths)]
