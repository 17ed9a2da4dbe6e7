"""Two systems compared on the same rows (``kpqa compare A B``; :func:`compare`, which is ``kpqa.compare``), as
sacrebleu's paired bootstrap does: per metric (the mean of its per-row scores) and for the judge's accuracy (the
share it judges correct), the difference B - A with a percentile bootstrap interval and a two-sided p-value, over
resamples of the rows that both systems share (:func:`kpqa.arraystats.bootstrap_chunks`: the same resamples for every
column).

The test is :func:`kpqa.metaeval.statistics.paired_test`, meta-eval's too, and so is the p-value's convention
(:func:`kpqa.metaeval.statistics.shift_p_value`: Koehn 2004, Efron & Tibshirani's shift method): the resampled differences ``d_i``
are moved by ``delta`` to centre them on zero (the null hypothesis of no difference), and
``p = (1 + #{|d_i - delta| >= |delta|}) / (1 + R)``: two-sided, never 0 with ``R`` resamples.
"""
from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np

from kpqa.columns import numeric_column
from kpqa.roles import ResultColumn, Role
from kpqa.context import ScorerOptions
from kpqa.errors import InputError, Param, UsageError
from kpqa.input import Table, frame_to_table, read_input
from kpqa.metaeval import statistics
from kpqa.results import read_signatures
from kpqa.plan import Plan
from kpqa.scoring import Scorer, build
from kpqa.signature import Signature
from kpqa.types import Floats

#: the share of rows a confidence interval leaves out on both sides together
CONFIDENCE = 0.95


@dataclass
class Difference:
    """One column compared: the means of A and B, ``delta`` = B - A, its interval and the p-value."""

    column: str
    a: float
    b: float
    delta: float
    ci_low: float | None
    ci_high: float | None
    p_value: float | None


@dataclass
class Comparison:
    """System A against system B on ``rows`` shared rows (``resamples`` bootstrap resamples, ``seed``)."""

    a: str
    b: str
    rows: int
    resamples: int
    seed: int | None
    confidence: float
    differences: list[Difference] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def to_dict(self) -> dict:
        """JSON-ready form."""
        return asdict(self)

    def to_json(self) -> str:
        """The JSON text ``kpqa compare --json FILE`` writes."""
        return json.dumps(self.to_dict(), indent=2) + "\n"

    def table(self) -> str:
        """An aligned plain-text table: column, A, B, B - A, its interval and p-value; ``*`` marks p < 0.05."""
        width = max([len(d.column) for d in self.differences] + [6])
        level = f"{100 * self.confidence:g} %"
        lines = [f"A: {self.a}", f"B: {self.b}",
                 f"{self.rows} paired rows, {self.resamples} bootstrap resamples (seed {self.seed})",
                 f"{'column':<{width}}  {'A':>7}  {'B':>7}  {'B - A':>8}  {level + ' interval':>20}  {'p':>6}"]
        for d in self.differences:
            interval = "" if d.ci_low is None else f"[{d.ci_low:+.4f}, {d.ci_high:+.4f}]"
            p = "" if d.p_value is None else f"{d.p_value:.4f}" + ("*" if d.p_value < 0.05 else " ")
            lines.append(f"{d.column:<{width}}  {d.a:>7.4f}  {d.b:>7.4f}  {d.delta:>+8.4f}  {interval:>20}  {p:>7}")
        return "\n".join(lines + [f"note: {n}" for n in self.notes])


def paired_difference(a: Floats, b: Floats, resamples: int = 1000, seed: int | None = 0,
                      confidence: float = CONFIDENCE, column: str = "") -> Difference:
    """The mean of ``b`` minus that of ``a`` (paired rows), with the percentile interval of that difference over
    ``resamples`` bootstrap resamples of the rows and the paired bootstrap p-value (module docstring)."""
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if x.shape != y.shape or x.ndim != 1 or len(x) == 0:
        raise UsageError(f"{column or 'scores'}: the two systems need the same, non-empty rows")
    diff = y - x
    delta = float(diff.mean())
    if resamples < 1:
        return Difference(column, float(x.mean()), float(y.mean()), delta, None, None, None)
    found = statistics.paired_test(lambda idx: diff[idx].mean(axis=1), len(diff), delta, resamples, seed, confidence)
    return Difference(column, float(x.mean()), float(y.mean()), delta, found.ci_low, found.ci_high, found.p_value)


def compare(inputs: Sequence[str | os.PathLike | Table | Any], metrics: Sequence[str] | None = None, *,
            options: ScorerOptions | None = None, judge: bool = True, calibration: str | os.PathLike | None = None,
            system: str | None = None, systems: Sequence[str] = (), key: Sequence[str] | None = None,
            human_column: str = "scores", resamples: int = 1000, seed: int | None = 0,
            allow_different_signatures: bool = False) -> Comparison:
    """Two systems' answers to the same rows compared (``kpqa compare``, which prints this result's :meth:`table`
    and writes its :meth:`to_json`): ``inputs`` are the two systems' files (or tables, :func:`kpqa.input.read_input`'s
    sources), or with ``system`` one file whose column ``system`` names each row's system (:func:`split_systems`;
    ``systems``: which two). Rows pair in order, checked to answer the same items (:func:`check_paired`), or by
    ``key`` (:func:`align`). Each system's rows are scored with ``metrics`` (default: the decision suite) and, with
    ``judge``, the judges of ``calibration`` (default: the weighter's), by a scorer of ``options``; a file that has
    every one of those columns (``kpqa score --decide -o``) is read instead, and a note says so. A human score
    column both have (``human_column``) is compared too. The comparison: :func:`compare_scores`. Scores both read
    from files are checked against the signatures beside them (``FILE.signatures.json``, :func:`check_signatures`):
    a compared column signed differently is a :class:`UsageError`, or with ``allow_different_signatures`` a note."""
    options = options or ScorerOptions()
    if systems and not system:
        raise UsageError(Param("systems", ",".join(systems)), ": needs ", Param("system", metavar="COLUMN"))
    if len(inputs) != (1 if system else 2):
        raise UsageError(Param("inputs", metavar="A B"), f": {len(inputs)} given; "
                         f"{'one file holding both systems' if system else 'two systems to compare'}")
    scorer = build(options, metrics, decide=judge, calibration=calibration if judge else None)
    tables = [i if isinstance(i, Table) else read_input(i, max_chars=scorer.max_chars, columns=options.columns)
              for i in inputs]
    names = [i.source if isinstance(i, Table) else str(i) if isinstance(i, (str, os.PathLike)) else "AB"[k]
             for k, i in enumerate(inputs)]
    if system:
        tables, names = split_systems(tables[0], system, systems)
    if key:
        tables = [tables[0], align(tables[0], tables[1], key)]
    check_paired(*tables)
    plans = [scorer.plan(t.rows) for t in tables]  # what each input settles (its known-wrong answers...)
    tables = [scorer.prepare(t, plan) for t, plan in zip(tables, plans)]
    (a, read_a), (b, read_b) = (system_scores(t, scorer, plan) for t, plan in zip(tables, plans))
    human_a, human_b = (human_scores(t, human_column) for t in tables)
    if human_a is not None and human_b is not None:
        a[f"{human_column} (human)"], b[f"{human_column} (human)"] = human_a, human_b
    result = compare_scores(a, b, (str(names[0]), str(names[1])), resamples, seed)
    sidecars = [read_signatures(i) if read and isinstance(i, (str, os.PathLike)) and not system else {}
                for i, read in zip(inputs, (read_a, read_b))]
    checked = all(sidecars)
    if checked:
        differ = check_signatures([d.column for d in result.differences], sidecars[0], sidecars[1],
                                  (str(names[0]), str(names[1])), allow_different_signatures)
        result.notes += differ or ["scores read from both files' columns, signed alike (their FILE.signatures.json)"]
    result.notes += [f"{n}: scores read from its columns (their signatures unchecked)"
                     for n, read in zip(names, (read_a, read_b)) if read and not checked]
    return result


def check_signatures(columns: Sequence[str], a: Mapping[str, str], b: Mapping[str, str], names: tuple[str, str],
                     allow: bool = False) -> list[str]:
    """The signatures of ``columns`` in two files' sidecars (:func:`kpqa.results.read_signatures`) compared, a judge's
    ``-correct`` column by its own or its ``-prob``'s: a :class:`UsageError` naming the first column signed
    differently (the fields that differ) unless ``allow``, which gives one note per such column instead."""
    notes = []
    for column in columns:
        found = ResultColumn.parse(column)
        base = found.metric if found.role is Role.CORRECT else column
        keys = [column, Role.PROB.of(base), base]
        x, y = (next((s[k] for k in keys if k in s), None) for s in (a, b))
        if x is None or y is None or Signature.parse(x).comparable() == Signature.parse(y).comparable():
            continue
        fx, fy = (set(Signature.parse(t).fields) | {("version", Signature.parse(t).version)} for t in (x, y))
        said = f"{column}: {'|'.join(f'{k}:{v}' for k, v in sorted(fx - fy))} in {names[0]}, " \
               f"{'|'.join(f'{k}:{v}' for k, v in sorted(fy - fx))} in {names[1]}"
        if not allow:
            raise UsageError(f"scored differently, not comparable: {said} (", Param("allow_different_signatures"),
                             " to compare them anyway)")
        notes.append(f"signed differently: {said}")
    return notes


def compare_scores(a: Mapping[str, Floats], b: Mapping[str, Floats], names: tuple[str, str] = ("A", "B"),
                   resamples: int = 1000, seed: int | None = 0, confidence: float = CONFIDENCE) -> Comparison:
    """Every column ``a`` and ``b`` both have (in ``a``'s order), compared on the same bootstrap resamples."""
    columns = [c for c in a if c in b]
    if not columns:
        raise UsageError(f"{names[0]} and {names[1]} share no score column to compare")
    rows = len(np.asarray(a[columns[0]]))
    differences = [paired_difference(a[c], b[c], resamples, seed, confidence, c) for c in columns]
    return Comparison(names[0], names[1], rows, resamples, seed, confidence, differences)


def split_systems(table: Table, system: str, systems: Sequence[str] = ()) -> tuple[list[Table], list[str]]:
    """The rows of two systems of one file, told apart by its column ``system``: ``systems`` names them (default:
    the column's values, when there are exactly two), each system's rows a table of its own in the file's order,
    their rows numbered as in the file. A :class:`UsageError` when two systems are not named and the column has not
    two."""
    if system not in table.frame.columns:
        raise InputError(f"no column {system!r} to tell the systems apart (columns: "
                         f"{', '.join(map(str, table.frame.columns))})", file=table.source)
    values = table.frame[system].astype(str).to_numpy()
    found = list(dict.fromkeys(values))
    if systems and len(systems) != 2:
        raise UsageError(Param("systems", ",".join(systems)), f": {len(systems)} systems named; name two")
    names = list(systems) or found
    if len(names) != 2:
        shown = ", ".join(found[:8]) + (", ..." if len(found) > 8 else "")
        raise UsageError(Param("system", system), f": {len(found)} systems in {table.source} ({shown}); name two "
                         "with ", Param("systems", metavar="A,B"))
    tables = []
    for name in names:
        rows = np.flatnonzero(values == name)
        if not len(rows):
            raise InputError(f"no row of system {name!r} in column {system!r} (it holds {', '.join(found[:8])})",
                             file=table.source)
        tables.append(frame_to_table(table.frame.iloc[rows].reset_index(drop=True), f"{table.source} ({name})",
                                     [table.numbers[i] for i in rows], max_chars=None, columns=table.fields))
    return tables, names


#: what ``kpqa compare --key`` pairs rows by when it names no column: each row's question and references
ITEM_KEY = ("question", "references")


def row_keys(table: Table, key: Sequence[str] = ITEM_KEY) -> list[tuple]:
    """Each row's key: the values of the columns ``key`` names (a column mapped to a field with ``columns`` also by
    its field's name); ``question`` and ``references`` are the row's question and references as read."""
    rows, kept = table.rows, range(len(table.frame)) if table.kept_rows is None else table.kept_rows
    position = {k: i for i, k in enumerate(kept)}
    parts = []
    for name in key:
        if name in ITEM_KEY:
            values = rows.questions if name == "question" else [tuple(r) for r in rows.references]
            parts.append([values[position[i]] if i in position else None for i in range(len(table.frame))])
            continue
        column = table.fields.get(name, name)
        if column not in table.frame.columns:
            raise InputError(Param("key", ",".join(key)), f": no column {name!r} (columns: "
                             f"{', '.join(map(str, table.frame.columns))})", file=table.source, column=name)
        parts.append([str(v) for v in table.frame[column]])
    return list(zip(*parts))


def align(a: Table, b: Table, key: Sequence[str] = ITEM_KEY) -> Table:
    """``b``'s rows in the order of ``a``'s, paired by ``key`` (:func:`row_keys`): an :class:`InputError` naming the
    row when a key is given twice in one file or is in one file only."""
    keys_a, keys_b = row_keys(a, key), row_keys(b, key)
    for table, keys in ((a, keys_a), (b, keys_b)):
        seen: dict[tuple, int] = {}
        for i, k in enumerate(keys):
            if k in seen:
                raise InputError(f"the key ({', '.join(key)}) of row {table.numbers[seen[k]]} again: a key must name "
                                 "one row", file=table.source, row=table.numbers[i])
            seen[k] = i
    where = {k: i for i, k in enumerate(keys_b)}
    missing = [i for i, k in enumerate(keys_a) if k not in where]
    if missing or len(keys_a) != len(keys_b):
        one, other, i = (a, b, missing[0]) if missing else \
            (b, a, next(i for i, k in enumerate(keys_b) if k not in set(keys_a)))
        raise InputError(f"no row of {other.source} has this row's key ({', '.join(key)})", file=one.source,
                         row=one.numbers[i])
    order = [where[k] for k in keys_a]
    return frame_to_table(b.frame.iloc[order].reset_index(drop=True), b.source, [b.numbers[i] for i in order],
                          max_chars=None, columns=b.fields)


def check_paired(a: Table, b: Table) -> None:
    """The two tables answer the same items row by row (same number of rows, the same question and references in
    each): an :class:`InputError` naming the first row where they do not."""
    if len(a.frame) != len(b.frame):
        raise InputError(f"{len(a.frame)} rows, but {b.source} has {len(b.frame)}: a paired comparison needs the "
                         "same rows in both", file=a.source)
    if a.kept_rows != b.kept_rows:
        raise InputError(f"rows scored differ from {b.source}'s (an error in one file only)", file=a.source)
    rows_a, rows_b = a.rows, b.rows
    for i, (qa, qb, ra, rb) in enumerate(zip(rows_a.questions, rows_b.questions, rows_a.references,
                                             rows_b.references)):
        if qa != qb or ra != rb:
            what = "question" if qa != qb else "references"
            raise InputError(f"another {what} than {b.source}'s: a paired comparison needs the same items in the same "
                             "order (or ", Param("key", metavar="COLUMN,..."), " to pair rows by a key)",
                             file=a.source, row=a.row_numbers()[i], column="question" if qa != qb else None)


def _kept(table: Table) -> list[int]:
    """The frame positions of the rows of ``table`` that are scored (its ``rows``), in order."""
    return list(range(len(table.frame))) if table.kept_rows is None else table.kept_rows


def human_scores(table: Table, column: str) -> np.ndarray | None:
    """The numeric human column of ``table``'s scored rows (the share a person judged correct, compared beside the
    metrics and the judge), or None when it has none (or one that is not all numbers)."""
    if column not in table.frame.columns:
        return None
    try:
        return numeric_column(table.frame[column].iloc[_kept(table)], source=table.source, column=column)
    except InputError:
        return None


def system_scores(table: Table, scorer: Scorer, plan: Plan) -> tuple[dict[str, np.ndarray], bool]:
    """The scorer's metric columns and its judges' ``-correct`` columns (the share judged correct) for the rows of
    ``table`` that are scored, and whether they were read from its own columns (a file from ``kpqa score
    --decide -o``: every one of them there; their signatures unchecked) rather than scored here, under ``plan``."""
    decisions = scorer.decisions(plan)
    judges = [] if decisions is None else [Role.CORRECT.of(j.name) for j in decisions.judges.deciding()]
    wanted = scorer.score_columns + judges
    read = all(c in table.frame.columns for c in wanted)
    frame = table.frame if read else scorer.score(table, plan).frame
    out = {column: numeric_column(frame[column].iloc[_kept(table)], source=table.source, column=column,
                                  numbers=table.row_numbers(), after=" is not a score") for column in wanted}
    return out, read
