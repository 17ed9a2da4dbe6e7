"""The scorer's streaming state: what :meth:`kpqa.scoring.Scorer.score_stream` adds up chunk by chunk (update per
chunk, compute at the end, as torchmetrics' ``update`` / ``compute``), and the re-readable chunks of a file.

Every metric's statistics are summed over chunks and processes (:class:`~kpqa.metrics.base.Totals`: exact), so the
corpus scores equal those of one pass over the whole input without keeping the rows; metrics whose per-row scores
need statistics of the whole input (an idf: :data:`~kpqa.metrics.base.CORPUS_PASS`) have them from a first pass
over the chunks. The state is plain data (:meth:`Accumulator.state`), so a run can be carried on where it stopped
(:mod:`kpqa.resume`)."""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Iterable, Iterator, Sequence

import numpy as np

from kpqa.calibration import Decisions
from kpqa.input import ColumnMap, Table, iter_input
from kpqa.metrics.base import Metric, Totals
from kpqa.results import numbered, sums
from kpqa.signature import Signature

#: rows :meth:`~kpqa.scoring.Scorer.score_file` reads, scores and writes at a time (see docs/benchmark.md for the
#: memory it takes); a file's first chunk settles ``tokenize="auto"`` (:mod:`kpqa.plan`)
CHUNK_ROWS = 5000


@dataclass
class Accumulator:
    """The statistics of the chunks scored so far: each metric's (by index in the scorer's metrics), the sums of
    the decision columns, the rows left unscored (by row number), those with an empty answer and the rows read and
    scored."""

    totals: dict[int, Totals] = field(default_factory=dict)
    decisions: dict[str, Totals] = field(default_factory=dict)
    errors: dict[int, str] = field(default_factory=dict)
    empty: list[int] = field(default_factory=list)  # rows whose answer is empty (scored as "", judged wrong)
    rows: int = 0  # rows read
    scored: int = 0  # rows scored
    chunks: int = 0  # chunks done

    def update(self, table: Table, totals: dict[int, Totals], decided: dict[str, np.ndarray]) -> None:
        """Add one chunk: its metrics' statistics (already summed over processes), its decision columns' sums, its
        errors and its row counts."""
        for i, t in totals.items():
            self.totals[i] = self.totals.get(i, Totals()) + t
        for c, t in sums(decided).items():
            self.decisions[c] = self.decisions.get(c, Totals()) + t
        self.errors.update(numbered(table))
        self.empty += table.empty_numbers()
        self.rows += len(table.frame)
        self.scored += len(table.rows)
        self.chunks += 1

    def compute(self, metrics: Sequence[Metric], signatures: dict[str, Signature],
                decisions: Decisions | None) -> tuple[dict[str, float], dict[str, Signature]]:
        """Corpus scores and signatures of every column: the ``metrics``' from their summed statistics (``signatures``:
        of their columns), then the decision columns' means, with their signatures."""
        corpus: dict[str, float] = {}
        for i, metric in enumerate(metrics):
            corpus.update(metric.corpus(self.totals.get(i, Totals())))
        signatures = dict(signatures)
        for column, signature in ({} if decisions is None else decisions.signatures(signatures)).items():
            corpus[column] = self.decisions.get(column, Totals()).mean(0)
            signatures[column] = signature
        return corpus, signatures

    def state(self) -> dict[str, Any]:
        """The state as JSON-ready data (sums exactly: fractions as ``"p/q"`` text); :meth:`of_state` reads it."""
        return {"rows": self.rows, "scored": self.scored, "chunks": self.chunks,
                "errors": {str(k): v for k, v in self.errors.items()}, "empty": self.empty,
                "totals": {str(i): _totals_state(t) for i, t in self.totals.items()},
                "decisions": {c: _totals_state(t) for c, t in self.decisions.items()}}

    @classmethod
    def of_state(cls, state: dict[str, Any]) -> "Accumulator":
        """The accumulator :meth:`state` wrote."""
        return cls(totals={int(i): _totals_of(t) for i, t in state["totals"].items()},
                   decisions={c: _totals_of(t) for c, t in state["decisions"].items()},
                   errors={int(k): v for k, v in state["errors"].items()}, empty=list(state.get("empty", [])),
                   rows=state["rows"], scored=state["scored"], chunks=state["chunks"])


def _totals_state(totals: Totals) -> dict[str, Any]:
    def one(x: int | Fraction | float) -> Any:
        return x if isinstance(x, int) else {"fraction": str(x)} if isinstance(x, Fraction) else {"float": repr(x)}

    return {"n": totals.n, "sums": None if totals.sums is None else [one(x) for x in totals.sums]}


def _totals_of(state: dict[str, Any]) -> Totals:
    def one(x: Any) -> int | Fraction | float:
        return x if isinstance(x, int) else Fraction(x["fraction"]) if "fraction" in x else float(x["float"])

    return Totals(state["n"], None if state["sums"] is None else [one(x) for x in state["sums"]])


@dataclass
class Chunks:
    """The chunks of ``source`` (:func:`kpqa.input.iter_input`), read anew on every iteration (a corpus pass reads
    the input once more than the scoring does)."""

    source: str | os.PathLike | Any
    chunk_rows: int
    on_error: str
    max_chars: int | None
    columns: ColumnMap | None = None

    def __iter__(self) -> Iterator[Table]:
        return iter_input(self.source, self.chunk_rows, self.on_error, self.max_chars, self.columns)


def rereadable(tables: Iterable[Table]) -> Iterable[Table]:
    """``tables`` as something that can be iterated twice: itself unless it is a one-time iterator (then its
    chunks, kept)."""
    return list(tables) if iter(tables) is tables else tables
