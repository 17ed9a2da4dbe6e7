"""Meta-evaluation data: the settings of a run and the loaded human-judgment files (human scores, metric scores,
items, systems). See :mod:`kpqa.metaeval` for the layout of a human-judgment file."""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Hashable, Sequence

import numpy as np

from kpqa.calibration import Calibration
from kpqa.metaeval import statistics
from kpqa.columns import as_binary
from kpqa.labelled import ScorerFactory, human_column, keep_rows, metric_scores, read_labelled
from kpqa.context import ScorerOptions
from kpqa.errors import InputError, KpqaWarning, Param
from kpqa.roles import Role, role_of
from kpqa.input import Table
from kpqa.scoring import factory
from kpqa.signature import Signature


@dataclass
class Settings:
    """Options of one meta-evaluation run (the CLI's flags); ``scorer_options`` (:class:`~kpqa.context.ScorerOptions`,
    the one options object of every command that scores) those the metrics a file has no column of are scored with,
    its ``columns`` also how its files are read, its ``tokenize`` also the AEv grid's."""

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
    scorer_options: ScorerOptions = field(default_factory=ScorerOptions)
    positive_above: float | None = None
    #: the calibration file (None: the one beside the weighter), or the calibration itself (:func:`report.run` loads
    #: it once for all the files)
    calibration: str | Calibration | None = None
    #: leave out the rows whose question the calibration was fitted on (:func:`outside_fit`)
    outside_fit: bool = False


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
    #: each metric's ``M-wrong`` (the file has ``incorrect_answers``): what the judges read, not a metric reported
    wrong: dict[str, np.ndarray] = field(default_factory=dict)


def human_scores(table: Table, column: str) -> np.ndarray:
    """The numeric human score column (:func:`kpqa.labelled.human_column`), of at least
    :data:`kpqa.metaeval.statistics.MIN_ROWS` rows."""
    return _enough(table, human_column(table, column))


def _enough(table: Table, human: np.ndarray) -> np.ndarray:
    """``human`` when there are enough rows to correlate; InputError otherwise."""
    if len(human) < statistics.MIN_ROWS:
        raise InputError(f"{len(human)} rows: correlations need at least {statistics.MIN_ROWS}", file=table.source)
    return human


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


#: the column that names each row's system when ``system_column`` is not given
SYSTEM_COLUMN = "system"


def scorer_factory(settings: Settings) -> ScorerFactory:
    """Builds one :class:`~kpqa.scoring.Scorer` per distinct list of metrics to score, reused across files
    (:func:`kpqa.scoring.factory` of the run's options)."""
    return factory(settings.scorer_options)


def load_dataset(path: str | Path, settings: Settings, scorers: ScorerFactory | None = None,
                 name: str | None = None) -> Dataset:
    """Read a human-judgment file and get every requested metric's per-row scores: from the file's column of that
    name when there is one, else from ``scorers(missing names)`` (default: :func:`scorer_factory`)
    (:func:`kpqa.labelled.metric_scores`)."""
    table, human = read_labelled(path, settings.human_column, columns=settings.scorer_options.columns)
    table, human = outside_fit(table, human, settings)
    _enough(table, human)
    if settings.by is not None and settings.by not in table.frame.columns:
        raise InputError(Param("by", settings.by),
                         f": no such column (columns: {', '.join(map(str, table.frame.columns))})",
                         file=table.source, column=settings.by)
    binary = as_binary(human, settings.positive_above) is not None
    names = list(settings.metrics) + (judge_inputs(settings, settings.metrics, table.rows.wrong is not None)
                                      if binary else [])
    scores, signatures = metric_scores(table, names, scorers or scorer_factory(settings))
    wrong = {c: scores.pop(c) for c in list(scores) if role_of(c) is Role.WRONG}
    signatures = with_sidecar(path, signatures)
    if "Contains" not in scores and binary:  # binary reports' baseline
        from kpqa.context import Context
        from kpqa.metrics.base import get_metric

        contains = get_metric("Contains")
        scores["Contains"] = contains.score(table.rows, Context())["Contains"]
        signatures["Contains"] = contains.signature(Context())
    keys = item_keys(table)
    systems, how = detect_systems(table, keys, settings.system_column)
    return Dataset(name or Path(str(path)).stem, table.source, table, human, scores, signatures, keys, systems, how,
                   wrong)


def outside_fit(table: Table, human: np.ndarray, settings: Settings) -> tuple[Table, np.ndarray]:
    """The rows whose question the run's calibration was fitted on (its ``questions``) left out with
    ``settings.outside_fit``; without it, a warning names how many there are. Unchanged when the calibration lists
    no questions."""
    from kpqa.calibration import load
    from kpqa.folds import question_digest

    cal = load(settings.calibration, settings.scorer_options.checkpoint, required=False)
    if cal is None or not cal.questions:
        return table, human
    seen = set(cal.questions)
    inside = np.array([question_digest(q) in seen for q in table.rows.questions], dtype=bool)
    if not inside.any():
        return table, human
    if not settings.outside_fit:
        warnings.warn(KpqaWarning(f"{table.source}: {int(inside.sum())} of {len(inside)} rows ask questions the "
                                  "calibration's judges were fitted on; ", Param("outside_fit", True),
                                  " leaves them out"), stacklevel=2)
        return table, human
    keep = np.flatnonzero(~inside).tolist()
    kept = keep_rows(table, keep, settings.scorer_options.columns)
    warnings.warn(KpqaWarning(f"{table.source}: {int(inside.sum())} rows on questions the calibration's judges were "
                              "fitted on left out (", Param("outside_fit", True), f"); {len(keep)} remain"),
                  stacklevel=2)
    return kept, human[keep]


def with_sidecar(path: str | Path, signatures: dict[str, Signature | None]) -> dict[str, Signature | None]:
    """``signatures`` with those of the scores read from the file's own columns (None) taken from the
    ``FILE.signatures.json`` that ``kpqa score -o FILE`` wrote beside it, where it names them (as ``kpqa report``
    reads it); a calibration then checks them as it checks scores computed here."""
    from kpqa.results import read_signatures

    if all(s is not None for s in signatures.values()):
        return signatures
    found = read_signatures(path)
    return {c: Signature.parse(found[c]) if s is None and c in found else s for c, s in signatures.items()}


def judge_inputs(settings: Settings, metrics: Sequence[str], known_wrong: bool = False) -> list[str]:
    """The metrics that the judges of the run's calibration (``settings.calibration``, else the one beside the
    weighter; none when there is none) read and ``metrics`` lacks: a binary report scores them (or reads them from
    the file's columns) so that ``KPQA-judge`` is in its table. The calibration says which they are; with
    ``known_wrong`` (the file has ``incorrect_answers``) also the ``M-wrong`` ones, so that the judge decides as
    ``kpqa score --decide`` does (another judge in its place on the rows with known-wrong answers)."""
    from kpqa.calibration import load

    cal = load(settings.calibration, settings.scorer_options.checkpoint, required=False)
    if cal is None:
        return []
    inputs = (m for j in cal.judges.values() for m in j.inputs if known_wrong or role_of(m) is not Role.WRONG)
    return [m for m in dict.fromkeys(inputs) if m not in metrics]


def aev_scores(table: Table, tokenize: str, alphas: Sequence[float], orders: Sequence[int]) -> np.ndarray:
    """AEv(alpha, N) per row for the whole grid, shape ``(len(orders), len(alphas), rows)``: counts once, then a
    few array operations per cell (:func:`kpqa.metrics.aev.aev_grid`)."""
    from kpqa.metrics.aev import AEv, aev_grid
    from kpqa.context import Context
    from kpqa.text import resolve_tokenizer

    tokenize = resolve_tokenizer(tokenize, list(table.rows.candidates) + [r for g in table.rows.references for r in g])
    counts = AEv(0.0, max(orders)).counts(table.rows, Context(tokenizer=tokenize))
    return aev_grid(counts, list(alphas), list(orders))


def load_all(paths: Sequence[str | Path], settings: Settings, scorers: ScorerFactory | None = None) -> list[Dataset]:
    """Load and score every file (data sets named by file stem, numbered when two stems clash)."""
    names = [Path(str(p)).stem for p in paths]
    scorers = scorers or scorer_factory(settings)
    return [load_dataset(path, settings, scorers, names[k] if names.count(names[k]) == 1 else f"{names[k]}-{k + 1}")
            for k, path in enumerate(paths)]
