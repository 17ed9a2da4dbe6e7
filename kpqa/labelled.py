"""Labelled files: human-judgment files read, their human column checked, and every metric's per-row scores taken
from the file's column of that name or scored, with the scores' signatures. The one path of ``kpqa calibrate``
(:func:`fit_files`) and ``kpqa meta-eval`` (:func:`kpqa.metaeval.load_dataset`). It drives a
:class:`~kpqa.scoring.Scorer`, so it comes a stage after the scorer, outside :mod:`kpqa.calibration`, which knows
nothing of how scores were computed."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from kpqa.calibration.fit import check_labels, choose_judge_inputs, fit
from kpqa.calibration.model import JUDGE_KIND, RULES, Calibration, DataFile
from kpqa.columns import binary_labels, numeric_column
from kpqa.errors import InputError, Param, Part, UsageError
from kpqa.folds import fold_of, question_digest
from kpqa.input import ColumnMap, Table, frame_to_table, read_csv_frame, read_input
from kpqa.metrics.base import get_metric
from kpqa.roles import Role, metric_of, role_of
from kpqa.rows import select_rows
from kpqa.scoring import Scorer
from kpqa.signature import Signature

#: rows of a file rescored to check the metric columns it already has (``reuse="check"``)
SPOT_CHECK = 32
#: how far a reused score may lie from its rescore, absolutely and relative to it: fp32 scores move by a few 1e-6
#: with the texts a batch holds (padding, the forward pass's token cap; at most 3.1e-6 on EVOUNA-TQ dev), an
#: answer-equivalence logit (up to about 10) by up to 4e-5 of itself (5e-5 at -1.38 between batch sizes 32 and 64);
#: another weighter, model or setting by far more
REUSE_TOLERANCE = 1e-4
#: how the metric columns a file already has are used: ``trust`` them (their signature unknown: None), ``check``
#: them against a rescore of :data:`SPOT_CHECK` rows (the rescore's signature), or ``never`` (score every metric)
REUSE = ("trust", "check", "never")

ScorerFactory = Callable[[list[str]], Scorer]
"""``factory(metric names)`` -> the :class:`~kpqa.scoring.Scorer` of those metrics."""
#: the columns of a file of held-out scores (``kpqa train-equivalence --folds`` writes them): the labelled file's name (or
#: path) and 1-based data row, and the score
HELDOUT_COLUMNS = ("source", "row", "logit")


@dataclass(frozen=True)
class Heldout:
    """One metric's held-out scores from cross-validation (``kpqa train-equivalence --folds``'s ``heldout.csv``), used
    in place of the final model's own scores of the rows it was trained on (which would be too sure of them), by
    file name and data row; ``signature``: the final model's, the one the calibration then applies to."""

    metric: str
    path: str
    scores: dict[tuple[str, int], float]
    signature: Signature

    @classmethod
    def read(cls, metric: str, path: str, signature: Signature) -> "Heldout":
        """The file at ``path`` (InputError naming it when a column is missing or a score is not a number)."""
        frame = read_csv_frame(path)
        for column in HELDOUT_COLUMNS:
            if column not in frame.columns:
                raise InputError(f"no {column!r} column (held-out scores need {', '.join(HELDOUT_COLUMNS)})",
                                 file=path)
        logits = numeric_column(frame["logit"], source=path, column="logit", what=("held-out score ",))
        rows = numeric_column(frame["row"], source=path, column="row", what=("row number ",)).astype(int)
        keys = zip((Path(str(x)).name for x in frame["source"]), rows.tolist())
        return cls(metric, path, dict(zip(keys, logits.tolist())), signature)

    def take(self, table: Table) -> np.ndarray:
        """The held-out score of each row of ``table``; InputError naming the first row it has none for."""
        name = Path(table.source).name
        out = np.empty(len(table.numbers))
        for i, number in enumerate(table.numbers):
            value = self.scores.get((name, number))
            if value is None:
                raise InputError(f"no held-out {self.metric} score in {self.path} for this row", file=table.source,
                                 row=number)
            out[i] = value
        return out


def read_labelled(path: str | Path, column: str, what: str = "score", columns: ColumnMap | None = None
                  ) -> tuple[Table, np.ndarray]:
    """A labelled file (read without a length limit: :func:`metric_scores` applies the scorer's; ``columns``: which
    of its columns holds which field) and its human column as numbers; InputError naming the file / row / column
    when the column is missing or holds a value that is not a number (``what``: the human ``score`` or ``label``)."""
    table = read_input(path, max_chars=None, columns=columns)
    return table, human_column(table, column, what)


def human_column(table: Table, column: str, what: str = "score") -> np.ndarray:
    """The human column of ``table`` as numbers (see :func:`read_labelled`)."""
    if column not in table.frame.columns:
        raise InputError(f"no human {what} column {column!r} (columns: {', '.join(map(str, table.frame.columns))}); "
                         "pick one with ", Param("human_column"), file=table.source, column=column)
    return _numbers(table, column, (f"human {what} ",), " is not a number")


def _numbers(table: Table, column: str, before: tuple[Part, ...], after: str, blanks: bool = False) -> np.ndarray:
    """The column as numbers (:func:`kpqa.columns.numeric_column`: the first cell that is not one named, ``before``
    its value ``after``); ``blanks``: an empty cell is NaN (a row without known-wrong answers has no ``M-wrong``
    score)."""
    return numeric_column(table.frame[column], source=table.source, column=column, numbers=table.numbers,
                          what=before, after=after, blanks=blanks)


def metric_scores(table: Table, metrics: Sequence[str], scorers: ScorerFactory, reuse: str = "trust"
                  ) -> tuple[dict[str, np.ndarray], dict[str, Signature | None]]:
    """Every metric's per-row scores and signature: the columns ``table`` has of those names, as ``reuse`` says
    (:data:`REUSE`), then the other metrics scored by ``scorers(their names)`` over the rows (checked against the
    longest text that scorer takes)."""
    given: dict[str, np.ndarray] = {}
    for metric in metrics if reuse != "never" else []:
        if metric in table.frame.columns:
            before: tuple[Part, ...] = (Param("reuse_scores", True), ": ") if reuse == "check" else ("metric score ",)
            given[metric] = _numbers(table, metric, before, " is not a score" if reuse == "check" else
                                     " is not a number", blanks=role_of(metric) is Role.WRONG)
    scores: dict[str, np.ndarray] = dict(given)
    signatures: dict[str, Signature | None] = dict.fromkeys(given)
    missing = [m for m in metrics if m not in given]
    if missing:  # an M-wrong is scored with M, by a scorer of the known-wrong answers
        scorer = scorers(list(dict.fromkeys(metric_of(m) for m in missing)))
        wrong = True if any(role_of(m) is Role.WRONG for m in missing) else None
        per_row, _, found = scorer.score_rows(_within(table, scorer).rows, table.source, table.numbers, wrong)
        scores.update({c: np.asarray(v, dtype=float) for c, v in per_row.items() if c not in given})
        signatures.update({c: s for c, s in found.items() if c in per_row and c not in given})
    if reuse == "check" and given:
        signatures.update(_spot_check(_within(table, scorers(list(given))), given, scorers(list(given))))
    return scores, signatures


def _within(table: Table, scorer: Scorer) -> Table:
    """``table`` checked against the longest text ``scorer`` takes (a longer one is an InputError)."""
    limit = getattr(scorer, "max_chars", None)  # a stand-in scorer may say nothing of it
    return table if limit is None else frame_to_table(table.frame, table.source, table.numbers, max_chars=limit,
                                                      columns=table.fields)


def _spot_check(table: Table, given: dict[str, np.ndarray], scorer: Scorer) -> dict[str, Signature]:
    """The signatures of a rescore of :data:`SPOT_CHECK` seeded rows, once every ``given`` column agrees with it
    within :data:`REUSE_TOLERANCE` (absolute and relative); InputError naming the first cell that does not."""
    rows = sorted(np.random.default_rng(0).choice(len(table.rows), min(SPOT_CHECK, len(table.rows)), replace=False))
    fresh, _, signatures = scorer.score_rows(select_rows(table.rows, rows), table.source,
                                             [table.numbers[i] for i in rows])
    for c, values in given.items():
        off = np.flatnonzero(~np.isclose(values[rows], fresh[c], rtol=REUSE_TOLERANCE, atol=REUSE_TOLERANCE,
                                         equal_nan=True))
        if len(off):
            j = int(off[0])
            raise InputError(Param("reuse_scores", True), f": the column holds {values[rows[j]]:.6g}, a rescore "
                             f"gives {fresh[c][j]:.6g} (scored with other settings? drop the column or the option)",
                             file=table.source, row=table.numbers[rows[j]], column=c)
    return signatures


def judge_columns(metrics: Sequence[str], judge_inputs: Sequence[str] | None, no_question: bool = False
                  ) -> tuple[list[str], list[str] | None]:
    """The metrics a calibration scores (``metrics``, then the metrics named in ``judge_inputs`` that they lack) and
    its judge's inputs as score columns (each metric's columns; None: the default,
    :data:`~kpqa.calibration.JUDGE_INPUTS` when all are scored). A judge input that names no metric is a UsageError
    naming ``judge_inputs``."""
    if judge_inputs is None:
        return list(metrics), None
    inputs: list[str] = []
    for name in judge_inputs:
        try:
            inputs += get_metric(name, no_question).columns()
        except UsageError as e:
            raise UsageError(Param("judge_inputs", ",".join(judge_inputs)), ": ", *e.parts) from None
    scored = {c for m in metrics for c in get_metric(m, no_question).columns()}
    return list(metrics) + [m for m in dict.fromkeys(inputs) if m not in scored], inputs


def fit_files(scorer: Scorer, paths: Sequence[str], *, human_column: str = "scores",
              positive_above: float | None = None, method: str = "isotonic", rule: str = RULES[0],
              reuse_scores: bool = False, judge_kind: str = JUDGE_KIND,
              judge_inputs: Sequence[str] | None = None, heldout: Sequence[Heldout] = (),
              columns: ColumnMap | None = None, fold: tuple[int, int] | None = None) -> Calibration:
    """:func:`~kpqa.calibration.fit` on the human labels of the files ``paths`` (column ``human_column``: 0/1, or
    numbers counted correct above ``positive_above``) and the ``scorer``'s scores of their rows (each file weighing
    the same); ``reuse_scores`` takes the metric columns a file already has, checked against a rescore of
    :data:`SPOT_CHECK` rows (:func:`metric_scores`). The judge: of ``judge_kind``, on the score columns
    ``judge_inputs`` (default :data:`~kpqa.calibration.JUDGE_INPUTS`; the scorer must score them:
    :func:`judge_columns`). ``heldout``: metrics whose scores are read from cross-validation's held-out files
    (:class:`Heldout`), not scored (the scorer does not score them). ``columns``: which column of the files holds
    which field (:func:`kpqa.input.frame_to_table`). ``fold`` (K, N): only the rows whose question is in hash fold
    K of N (:func:`kpqa.folds.fold_of`): the rows a model trained with ``--folds N --fold K`` never saw. The labels
    are checked before any scoring."""
    if judge_inputs is not None:
        choose_judge_inputs([*scorer.score_columns, *(h.metric for h in heldout)], judge_inputs)
    tables = [read_labelled(path, human_column, "label", columns)[0] for path in paths]
    if fold is not None:
        tables = [in_fold(t, *fold, columns) for t in tables]
    labels = [binary_labels(t.frame[human_column], positive_above, source=t.source, column=human_column,
                            numbers=t.numbers) for t in tables]
    check_labels(np.concatenate(labels), ", ".join(paths))
    known_wrong = any(t.rows.wrong is not None for t in tables)  # then the judge of such rows is fitted too
    wrong = [Role.WRONG.of(c) for c in scorer.score_columns if known_wrong]
    held = [[h.take(t) for h in heldout] for t in tables]  # every row's held-out score is there before scoring
    parts = [metric_scores(t, scorer.score_columns + (wrong if t.rows.wrong is not None else []),
                           lambda names: scorer, "check" if reuse_scores else "never") for t in tables]
    for t, (s, _) in zip(tables, parts):  # a file without known-wrong answers has no M-wrong score
        s.update({c: np.full(len(t.rows), np.nan) for c in wrong if c not in s})
    scored = scorer.score_columns + wrong
    scores = {c: np.concatenate([s[c] for s, _ in parts]) for c in scored}
    signatures = {c: s for _, found in reversed(parts) for c, s in found.items() if s is not None}
    for k, h in enumerate(heldout):
        scores[h.metric] = np.concatenate([row[k] for row in held])
        signatures[h.metric] = h.signature
    sources = np.repeat(np.arange(len(tables)), [len(y) for y in labels])
    label_rule = f"{human_column!r} " + ("0/1" if positive_above is None else f"> {positive_above:g}")
    label_rule += "" if fold is None else f"; the rows of hash fold {fold[0]} of {fold[1]} (kpqa.folds.fold_of)"
    label_rule += "".join(f"; {h.metric}: the held-out scores of {h.path} (sha256 "
                          f"{DataFile.of(h.path, 0, 0).sha256[:12]})" for h in heldout)
    data = [DataFile.of(t.source, len(y), int(y.sum())) for t, y in zip(tables, labels)]
    fitted = fit(scores, signatures, np.concatenate(labels), method=method, rule=rule, data=data,
               label_rule=label_rule, sources=sources if len(tables) > 1 else None, judge_kind=judge_kind,
               judge_inputs=judge_inputs)
    fitted.questions = sorted({question_digest(q) for t in tables for q in t.rows.questions})
    return fitted


def in_fold(table: Table, fold: int, folds: int, columns: ColumnMap | None = None) -> Table:
    """The rows of ``table`` whose question is in hash fold ``fold`` of ``folds`` (:func:`kpqa.folds.fold_of`);
    InputError when none is."""
    questions = table.frame[table.fields.get("question", "question")].astype(str)
    keep = [i for i, q in enumerate(questions) if fold_of(q, folds) == fold]
    if not keep:
        raise InputError(f"no row's question is in fold {fold} of {folds}", file=table.source)
    return keep_rows(table, keep, columns)


def keep_rows(table: Table, keep: Sequence[int], columns: ColumnMap | None = None) -> Table:
    """A labelled table (every row kept, :func:`read_labelled`: frame row = row) with only the rows ``keep``, their
    numbers as in the file."""
    return frame_to_table(table.frame.iloc[list(keep)].reset_index(drop=True), table.source,
                          [table.numbers[i] for i in keep], max_chars=None, columns=columns)

