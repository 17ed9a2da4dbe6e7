"""The CPU side beside the models: the metrics that load no model (BLEU, ROUGE-L, F1, Contains...) scored in worker
processes while the main process runs the model metrics (the weighter's, BERTScore's), block by block.

Each block of rows is one task; its per-row scores and statistics come back and are merged in block order, each
metric's statistics added in the order one process adds them, so the output is that of one process to the last bit
whatever the number of workers (tests/test_workers.py). The workers start by ``forkserver`` (no fork of a process
that holds torch's threads) and import the metrics alone: no torch, no pandas. As with any process pool, a script
that scores with workers keeps its own work under ``if __name__ == "__main__":`` (the workers import it).

The models' tokenizing stays in the main process: the weighter's windows made in a worker and sent back were slower
than making them here (docs/benchmark.md), since the fast tokenizer already spreads a batch over the cores.
"""
from __future__ import annotations

import multiprocessing
import warnings
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import replace
from typing import Sequence

import numpy as np

from kpqa.context import Context, Models
from kpqa.errors import Param, UsageError
from kpqa.metrics.base import Metric, Totals
from kpqa.rows import Rows

#: a metric to score with its index among the scorer's metrics and its context
Chosen = tuple[int, Metric, Context]
#: one block's per-row scores by column and statistics by metric index
Block = tuple[dict[str, np.ndarray], dict[int, Totals]]


def check_workers(workers: int) -> int:
    """``workers`` unchanged if it is an integer >= 0 (0: every metric in this process), else a UsageError."""
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 0:
        raise UsageError(Param("workers", workers), ": must be 0 (no worker processes) or a positive integer")
    return workers


def score_batch(chosen: Sequence[Chosen], batch: Rows) -> Block:
    """Score ``batch`` with the ``chosen`` metrics: per-row scores by column and each metric's statistics; work they
    share (tokens, n-gram counts, embeddings) is kept in a memo dropped after the batch."""
    memo: dict = {}
    scores: dict[str, np.ndarray] = {}
    totals: dict[int, Totals] = {}
    for i, metric, ctx in chosen:
        stats = metric.stats(batch, replace(ctx, memo=memo))
        scores.update(metric.per_row(stats))
        totals[i] = Totals.of(stats)
    return scores, totals


def score_away(chosen: Sequence[Chosen], batch: Rows) -> tuple[Block, list[tuple[str, type[Warning]]]]:
    """:func:`score_batch` in a worker, with the warnings it gave (message, category), for the main process to give:
    a worker's own would bypass the command line's one-line warnings."""
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always")
        block = score_batch(chosen, batch)
    return block, [(str(w.message), w.category) for w in said]


def away(chosen: Sequence[Chosen]) -> list[Chosen]:
    """The ``chosen`` metrics a worker may score: those that load no model, each with a context that holds no
    model (what a worker is sent)."""
    return [(i, m, replace(ctx, models=Models(), memo=None, weighter=None, word_weights=None, piece_tokens=None))
            for i, m, ctx in chosen if not m.uses_model]


class Workers:
    """A pool of ``size`` worker processes, started on first use and kept for the scorer's life."""

    def __init__(self, size: int) -> None:
        self.size = check_workers(size)
        self._pool: ProcessPoolExecutor | None = None

    def submit(self, chosen: Sequence[Chosen], batch: Rows) -> "Future[tuple[Block, list[tuple[str, type[Warning]]]]]":
        """One block's scores by the ``chosen`` metrics, computed in a worker, and the warnings it gave."""
        if self._pool is None:
            self._pool = ProcessPoolExecutor(self.size, mp_context=multiprocessing.get_context("forkserver"))
        return self._pool.submit(score_away, list(chosen), batch)

    def close(self) -> None:
        """Stop the workers (a later block starts them again)."""
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None
