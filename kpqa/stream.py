"""Scoring a file or a stream of chunks one chunk at a time: each chunk's table goes to a ``write`` callback in
input order, each metric's statistics are summed over the chunks (and processes), so the corpus scores equal those
of one pass over the whole input without keeping the rows; a ``whole_input`` metric (CIDEr, whose idf needs every
reference) alone keeps the rows' texts, and is scored over all of them at the end."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

import numpy as np
import pandas as pd

from kpqa.input import Table, count_rows, iter_input
from kpqa.rows import concat_rows
from kpqa.metrics.base import Rows, Totals
from kpqa.scoring import (
    CHUNK_ROWS, Advance, Scorer, Summary, missing_score, numbered, scored_frame, spread, sums, tracking,
)
from kpqa.signature import Signature

Write = Callable[[pd.DataFrame], None]
Fill = Callable[[dict[str, np.ndarray]], None]


@dataclass
class StreamResult(Summary):
    """What :func:`score_stream` returns: the number of rows, corpus scores, signatures and the rows left unscored
    (the per-row tables went to its ``write`` callback). Empty on processes other than the main one."""

    rows: int
    corpus: dict[str, float]
    signatures: dict[str, Signature] = field(default_factory=dict)
    errors: dict[int, str] = field(default_factory=dict)
    empty: list[int] = field(default_factory=list)  # rows whose answer is empty: scored as "", judged wrong


@dataclass
class Stream:
    """What :func:`score_stream` sums and keeps across chunks."""

    keep: bool  # keep the rows' texts (a whole_input metric is asked)
    kept: list[Rows] = field(default_factory=list)
    where: list[np.ndarray] = field(default_factory=list)  # per chunk, the output rows its scored rows are
    totals: dict[int, Totals] = field(default_factory=dict)
    decisions: dict[str, Totals] = field(default_factory=dict)
    errors: dict[int, str] = field(default_factory=dict)
    empty: list[int] = field(default_factory=list)
    done: int = 0  # rows read
    scored: int = 0  # rows scored

    def add(self, totals: dict[int, Totals], decided: dict[str, np.ndarray]) -> None:
        """Add a chunk's statistics and the sums of its decision columns."""
        for i, t in totals.items():
            self.totals[i] = self.totals.get(i, Totals()) + t
        for c, t in sums(decided).items():
            self.decisions[c] = self.decisions.get(c, Totals()) + t

    def keep_rows(self, table: Table) -> None:
        """Keep the chunk's rows and where they go in the output (for the ``whole_input`` metrics)."""
        self.kept.append(table.rows)
        self.where.append(self.done + np.asarray(range(len(table.frame)) if table.keep is None else table.keep, int))


def score_file(scorer: Scorer, source: Any, write: Write | None = None, fill: Fill | None = None,
               chunk_rows: int = CHUNK_ROWS) -> StreamResult:
    """:func:`score_stream` over :func:`kpqa.input.iter_input` chunks of ``source``, the progress bar's total counted
    first (:func:`kpqa.input.count_rows`) when there is a bar to show."""
    total = count_rows(source) if scorer.progress and scorer.is_main else None
    return score_stream(scorer, iter_input(source, chunk_rows, scorer.on_error, scorer.max_chars), write, fill,
                        total=total)


def score_stream(scorer: Scorer, tables: Iterable[Table], write: Write | None = None, fill: Fill | None = None,
                 total: int | None = None) -> StreamResult:
    """Score chunks (e.g. :func:`kpqa.input.iter_input`) one at a time, handing each chunk's table (input columns plus
    scores) to ``write`` in input order, on the main process. Memory holds one chunk's encodings; each metric's
    statistics are summed over the chunks (and processes), so the corpus scores equal those of one pass over the
    whole input (corpus BLEU sums counts over all rows) without keeping the rows. Only when a ``whole_input`` metric
    (CIDEr) is asked are the rows' texts kept (main process): its columns are written empty and handed to ``fill``
    at the end, scored over all rows at once, so that they too do not depend on the chunk size
    (:meth:`kpqa.output.OutputWriter.fill`). ``total``: the number of rows, for the progress bar."""
    run = Stream(keep=any(m.whole_input for m in scorer.metrics))  # only then are the rows' texts needed at the end
    with tracking(total, scorer.progress and scorer.is_main) as advance:
        for table in tables:
            _score_chunk(scorer, scorer.prepare(table), run, advance, write)
    if not scorer.is_main or not run.scored:
        return StreamResult(rows=run.done, corpus={}, signatures={}, errors=run.errors, empty=run.empty)
    if run.keep:
        _score_whole_input(scorer, run, fill)
    corpus, signatures = scorer.corpus(run.totals, run.decisions)
    return StreamResult(rows=run.done, corpus=corpus, signatures=signatures, errors=run.errors, empty=run.empty)


def _score_chunk(scorer: Scorer, table: Table, run: Stream, advance: Advance | None, write: Write | None) -> None:
    """Score one chunk (all but the ``whole_input`` metrics), add its statistics to ``run`` and hand its table to
    ``write`` (main process)."""
    scores, totals = scorer.per_row(table.rows, advance, whole_input=False)
    decided = scorer.decide(scores, table.rows)
    run.scored += len(table.rows)
    run.add(totals, decided)
    if advance is not None and table.errors:
        advance(len(table.errors))
    if scorer.is_main:
        if run.keep:
            run.keep_rows(table)
        run.errors.update(numbered(table))
        run.empty += table.empty_numbers()
        if write is not None:
            write(scored_frame(table, {**scores, **decided}, scorer.value_columns, scorer.on_error))
    run.done += len(table.frame)


def _score_whole_input(scorer: Scorer, run: Stream, fill: Fill | None) -> None:
    """The ``whole_input`` metrics over every kept row at once (main process only: lexical metrics), handed to
    ``fill``; their statistics and decision sums go into ``run``."""
    rows = run.kept[0] if len(run.kept) == 1 else concat_rows(run.kept)
    scores, totals = scorer.per_row(rows, whole_input=True, here=True)
    run.totals.update(totals)
    decided = scorer.decide(scores, rows)
    if fill is not None:
        fill({c: spread(v, np.concatenate(run.where), run.done, missing_score(scorer.on_error))
              for c, v in {**scores, **decided}.items()})
    run.decisions.update(sums(decided))  # judges on whole-input metrics: known only now
