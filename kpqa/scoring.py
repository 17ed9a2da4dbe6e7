"""Scoring: rows -> metrics -> a table of per-row scores, corpus scores and signatures (-> decisions).

:class:`Scorer` owns its models (weighter, encoders: loaded on first use, reused across calls) and the per-batch loop;
:func:`score` is the one-shot form in the shape bert-score users know, plus questions. Streaming over chunks of a
file is :mod:`kpqa.stream`, data-parallel scoring :mod:`kpqa.parallel`. With ``decide=True`` every metric column
``M`` gets two more, ``M-prob`` (calibrated P(correct)) and ``M-correct`` (1 judged correct, 0 not), from a
:mod:`kpqa.calibration` file, and so does each judge of the file whose input metrics are all scored
(``KPQA-judge``); their corpus values are the mean probability and the share judged correct.

The options of :class:`Scorer` (and :func:`score`): ``metrics``: names (default :data:`DEFAULT_METRICS`; deciding,
:data:`DECIDE_METRICS`; given or not, the inputs of the calibration's judges are added, :func:`judge_metrics`). ``weighter``: a
keyphrase weighter (:class:`~kpqa.context.KeyphraseWeighter`) for every weighted metric, instead of loading
``checkpoint`` (a folder or a shipped name; the question-free one for ``no_question`` and the ``-KP`` metrics).
``precision`` (``auto``, ``fp32``, ``bf16``, ``fp16``, or ``fast``: the fast preset,
:func:`kpqa.models.device.amp_dtype`) sets the models' arithmetic and ``function_word_weight`` scales the keyphrase
weights of function words (:mod:`kpqa.models.weighter`); signatures record both. ``tokenize="auto"`` takes ``zh`` when most texts of the first
rows are Chinese / Japanese, else ``ptb``; CJK text under ``ptb`` or ``whitespace`` warns (:class:`KpqaWarning`).
An empty or missing answer is scored as ``""`` (every metric at its floor) and judged wrong (``Result.empty``).
``known_wrong``: score every metric column ``M`` also against each row's known-wrong answers (``M-wrong``, the
best over them; empty where a row has none), which the judges read; None (default): when the input has an
``incorrect_answers`` column (:data:`kpqa.input.WRONG_COLUMN`). Without it every score is what it was.
``on_error``: ``raise`` (default) stops at the first bad row (no reference, an empty question under a
KPQA metric...); ``skip`` leaves its scores empty and ``zero`` sets them to 0, both saying why in an ``error``
column and leaving the row out of the corpus scores. ``max_chars``: a longer question, answer or reference makes a
bad row (default: the metrics' own limit, :func:`kpqa.lengths.text_limit`). ``progress``: a bar of rows scored
(on a terminal only), moving as the weighter works through each block of :data:`PROGRESS_ROWS` rows.
``workers``: worker processes that score the metrics loading no model while this one runs the models
(:mod:`kpqa.workers`; the output is the same to the last bit; 0, the default: none).
``data_parallel=True`` under a launcher that sets ``WORLD_SIZE`` (:mod:`kpqa.parallel`): every process scores a
shard of each batch and all get the per-row scores in input order; corpus scores, signatures and output are the main
process's (``is_main``); all must be given the same rows. ``decide=True`` adds the decision columns of
``calibration`` (a file or :class:`~kpqa.calibration.Calibration`; default: the one beside the weighter checkpoint),
which must hold an entry fitted on scores with each metric's signature (decision columns only of the entries it rates
fit: :mod:`kpqa.calibration.fitness`; ``Result.unfit`` the others); ``prior``: the expected share of correct
answers (:mod:`kpqa.calibration`; recorded as ``prior`` in the decisions' signatures). ``columns``: which of the
input's columns holds which field (``{"answer": "Answer"}``: :func:`kpqa.input.frame_to_table`); an input column
that scoring would write (``F1``) is an error, not overwritten.

A Scorer is fixed when built: what an input settles (``tokenize="auto"``'s tokenizer, read from the first
:data:`CHUNK_ROWS` rows of a file; ``known_wrong=None``'s answer, from whether the input has known-wrong answers) is
a :class:`~kpqa.plan.Plan`, a value computed per input (:meth:`Scorer.plan_for`, :meth:`Scorer.plan`) and handed
to the stream, resume and compare; so a reused Scorer gives what a fresh one gives, whatever the order of its inputs.
"""
from __future__ import annotations

import os
import warnings
from contextlib import contextmanager
from functools import partial
from dataclasses import replace
from typing import Any, Callable, Hashable, Iterable, Iterator, Mapping, Sequence

import numpy as np
import pandas as pd

from kpqa.calibration import JUDGE_INPUTS, Calibration, Decisions, decision_columns, unfit, warn_unjudged
from kpqa.context import (
    DEFAULT_BATCH_SIZE, DEFAULT_DEVICE, DEFAULT_FUNCTION_WORD_WEIGHT, DEFAULT_PRECISION, DEFAULT_TOKENIZER, Context,
    KeyphraseWeighter, Models, ScorerOptions, check_function_word_weight, check_on_error,
)
from kpqa.errors import InputError, KpqaWarning, Param, UsageError
from kpqa.input import WRONG_COLUMN, ColumnMap, Table, check_columns, layout_hint, read_input
from kpqa.roles import Role, role_of
from kpqa.rows import Rows, against_wrong, empty_answers, select_rows, take_rows, weighted_pairs, \
    wrong_as_reference
from kpqa.lengths import check_max_chars, text_limit
from kpqa.metrics.base import CORPUS_PASS, DocFreq, Metric, Totals, get_metric
from kpqa.parallel import DataParallel
from kpqa.plan import Plan, first_settles, plan_of, plan_of_source
from kpqa.reasons import judge_reasons, text_columns
from kpqa.results import ERROR_COLUMN, Result, StreamResult, scored_frame, spread
from kpqa.signature import Signature
from kpqa.stream import CHUNK_ROWS, Accumulator, Chunks, rereadable
from kpqa.workers import Block, Workers, away, score_batch

#: share of CJK texts from which scoring under a tokenizer for space-separated languages warns (a Chinese name in
#: a few English answers is no reason to)
CJK_WARN_SHARE = 0.01
#: rows the batched metrics score at a time: texts are sorted by length for the models' batches within a block, so
#: blocks of ``batch_size`` rows cost 19% more of the weighter's CPU time than blocks of this size (1,000 MS-MARCO
#: rows: 52 s against 44 s); the progress bar moves within a block while the weighter works (:meth:`Scorer._weigh`)
PROGRESS_ROWS = 1024
DEFAULT_METRICS = ("BLEU-1", "BLEU-4", "ROUGE-L", "BERTScore", "BLEU-1-KPQA", "ROUGE-L-KPQA", "BERTScore-KPQA")
#: the default metrics when deciding: the default suite, then the other inputs of the judge (:data:`JUDGE_INPUTS`, in
#: its order), derived so that the two cannot drift apart (then what the judges of the calibration decided with read
#: beyond these: :func:`judge_metrics`)
DECIDE_METRICS = DEFAULT_METRICS + tuple(m for m in JUDGE_INPUTS if m not in DEFAULT_METRICS)


Advance = Callable[[int], None]
Write = Callable[[pd.DataFrame], None]
#: the corpus statistics of a run, by :meth:`~kpqa.metrics.base.Metric.corpus_key`
Corpus = Mapping[Hashable, DocFreq]


def progress_bar(total: int | None) -> Any:
    """A tqdm bar of rows scored; tqdm hides it when stderr is not a terminal."""
    from tqdm.auto import tqdm

    return tqdm(total=total, desc="scoring", unit="row", disable=None, dynamic_ncols=True, smoothing=0.05)


@contextmanager
def tracking(total: int | None, shown: bool = True) -> Iterator[Advance | None]:
    """``advance(rows done)`` of a :func:`progress_bar` (None unless ``shown``), closed at the end."""
    bar = progress_bar(total) if shown else None
    try:
        yield bar.update if bar is not None else None
    finally:
        if bar is not None:
            bar.close()


class Scorer:
    """Reusable scorer: resolves metrics once, owns the weighter(s) and encoders it loads on first use (or the
    ``weighter`` handed in), runs the per-batch loop (options: the module docstring); scores a file chunk by chunk
    (:meth:`score_file`, :mod:`kpqa.stream`), across processes with ``data_parallel=True`` (:mod:`kpqa.parallel`)."""

    def __init__(
        self, metrics: Sequence[str] | None = None, *, tokenize: str = DEFAULT_TOKENIZER,
        checkpoint: str | os.PathLike | None = None, no_question: bool = False, device: str = DEFAULT_DEVICE,
        batch_size: int = DEFAULT_BATCH_SIZE, precision: str = DEFAULT_PRECISION,
        function_word_weight: float = DEFAULT_FUNCTION_WORD_WEIGHT, progress: bool = False, on_error: str = "raise",
        max_chars: int | None = None, data_parallel: bool = False, decide: bool = False,
        calibration: str | os.PathLike | Calibration | None = None, prior: float | None = None,
        weighter: KeyphraseWeighter | None = None, columns: ColumnMap | None = None,
        known_wrong: bool | None = None, workers: int = 0,
    ) -> None:
        from kpqa.models.device import check_precision

        if batch_size < 1:
            raise UsageError(Param("batch_size", batch_size), ": must be a positive integer")
        self.function_word_weight = check_function_word_weight(function_word_weight)
        self.precision, self.on_error = check_precision(precision), check_on_error(on_error)
        self.tokenize, self.checkpoint, self.device = _tokenizer(tokenize), checkpoint, device
        self.batch_size, self.progress, self.weighter, self._warned_cjk = batch_size, progress, weighter, False
        self.fields = check_columns(columns)  # field -> the input's column holding it (kpqa.input.frame_to_table)
        self.known_wrong = known_wrong  # score against known-wrong answers too (None: as each input's plan says)
        deciding = decide or calibration is not None
        self.calibration, self.prior = _calibration(deciding, calibration, checkpoint, prior), prior
        self.metrics = resolve_metrics(metrics, DECIDE_METRICS if deciding else DEFAULT_METRICS, no_question)
        if self.calibration is not None:  # the judges keep their inputs (a metric list given or not)
            self.metrics += judge_metrics(self.calibration, self.score_columns, no_question)
        self.unfit = unfit(self.calibration, self.score_columns) if self.calibration else {}  # no decisions from them
        if weighter is None:
            _check_models(self.metrics, checkpoint, device)
        self.max_chars = check_max_chars(max_chars) if max_chars is not None else text_limit(self.metrics)
        self.models = Models()  # what this scorer loaded (weighters, encoders), shared by its metrics
        self.workers = Workers(workers) if workers else None  # the CPU side's processes (kpqa.workers)
        self._contexts: dict[tuple[bool | None, str], Context] = {}
        self._decisions: dict[Plan, Decisions | None] = {}  # by plan: checked against its signatures once
        #: the processes scoring together (``rank``, ``world``: one unless data-parallel)
        self.parallel = DataParallel.start(data_parallel, device)
        if device == "auto" and self.parallel.device is not None:
            self.device = self.parallel.device

    @property
    def is_main(self) -> bool:
        """True on the process that writes output (always, unless data-parallel)."""
        return self.parallel.is_main

    @property
    def score_columns(self) -> list[str]:
        """The metric columns, in order."""
        return [c for m in self.metrics for c in m.columns()]

    def plan(self, rows: Rows | None = None, known_wrong: bool | None = None) -> Plan:
        """What scoring ``rows`` settles (:func:`kpqa.plan.plan_of`; ``known_wrong``: instead of the option's)."""
        return plan_of(rows, self.tokenize, self.known_wrong if known_wrong is None else known_wrong)

    def plan_for(self, source: Any) -> Plan:
        """What a file's first rows settle (:func:`kpqa.plan.plan_of_source`), whatever its chunks."""
        return plan_of_source(source, self.tokenize, self.known_wrong, self.fields)

    def value_columns(self, plan: Plan) -> list[str]:
        """The metric columns, their ``-wrong`` ones, then (deciding) each fit one's ``-prob`` and ``-correct``."""
        scored = self.score_columns + [Role.WRONG.of(c) for c in self.score_columns if plan.known_wrong]
        extra = [] if self.calibration is None else decision_columns(self.calibration, scored, True)
        return scored + extra

    def columns(self, plan: Plan) -> list[str]:
        """The output columns: :meth:`value_columns`, the judge's reason (:func:`~kpqa.reasons.text_columns`), then
        ``error`` unless ``on_error`` is ``raise``."""
        values = self.value_columns(plan)
        return values + text_columns(values) + ([ERROR_COLUMN] if self.on_error != "raise" else [])

    def decisions(self, plan: Plan) -> Decisions | None:
        """The calibration's entries for the metric columns and its usable judges (None unless deciding), checked
        against the metrics' signatures under ``plan`` (which loads the weighter when a metric needs it)."""
        if self.calibration is not None and plan not in self._decisions:
            self._decisions[plan] = Decisions.of(self.calibration, self._signatures(plan), self.prior,
                                                 fit_only=True)
        return self._decisions.get(plan)

    def _context(self, metric: Metric, tokenize: str) -> Context:
        """The context of ``metric`` under ``tokenize``: one for the metrics that read the weighter (one for the
        question-free one's), one for the rest; every one holds this scorer's :attr:`models`."""
        weighted = "weights" in metric.requires
        key = ((not metric.question) if weighted else None, tokenize)
        if key not in self._contexts:
            self._contexts[key] = Context(
                tokenizer=tokenize, weighter=self._weighter(not metric.question) if weighted else None,
                device=self.device, batch_size=self.batch_size, precision=self.precision, models=self.models)
        return self._contexts[key]

    def _weighter(self, no_question: bool) -> KeyphraseWeighter:
        """The weighter handed in, or the checkpoint's (question-free with ``no_question``), loaded once."""
        if self.weighter is not None:
            return self.weighter
        from kpqa.models.weighter import Weighter

        return self.models.get(("weighter", no_question), lambda: Weighter.load(
            self.checkpoint, no_question=no_question, device=self.device, batch_size=self.batch_size,
            precision=self.precision, function_word_weight=self.function_word_weight))

    def _signatures(self, plan: Plan) -> dict[str, Signature]:
        """The signature of every metric column, then of their ``-wrong`` ones (the metric's, against the known-wrong
        answers; loads the weighter when a metric needs it)."""
        found = {c: m.signature(self._context(m, plan.tokenize)) for m in self.metrics for c in m.columns()}
        return found | {Role.WRONG.of(c): s.with_fields([("against", WRONG_COLUMN)]) for c, s in found.items()
                        if plan.known_wrong}

    def signatures(self, plan: Plan) -> dict[str, str]:
        """The signature of every metric column under ``plan``, as printed (loads the weighter if a metric needs it)."""
        return {c: str(s) for c, s in self._signatures(plan).items()}

    def prepare(self, table: Table, plan: Plan, strict: bool = False) -> Table:
        """The table with the rows these metrics cannot score (an empty question under a KPQA metric) raised as
        errors (``strict``, or ``on_error="raise"``) or moved to ``table.errors``. A calibration that does not fit
        the metrics under ``plan`` stops the run here, before any scoring."""
        self._warned_cjk = check_text(table.rows, plan.tokenize, self._warned_cjk)
        self.decisions(plan)  # checked before any scoring
        needs = [m.columns()[0] for m in self.metrics if "weights" in m.requires and m.question]
        return drop_empty_questions(table, needs[0], strict or self.on_error == "raise") if needs else table

    def per_row(self, rows: Rows, plan: Plan, advance: Advance | None = None,
                corpus: Corpus | None = None) -> tuple[dict[str, np.ndarray], dict[int, Totals]]:
        """Per-row scores of ``rows`` and each metric's statistics summed over them (by index in :attr:`metrics`),
        from every process's shard (in order); ``corpus``: the corpus pass's statistics (:func:`corpus_pass`)."""
        chosen = [(i, m, replace(self._context(m, plan.tokenize), corpus=corpus)) for i, m in enumerate(self.metrics)]
        blocks = partial(score_blocks, chosen, known_wrong=plan.known_wrong, workers=self.workers)
        if self.parallel.world == 1:
            return blocks(rows, advance)
        scaled = (lambda n: advance(n * self.parallel.world)) if advance is not None and self.is_main else None
        return self.parallel.gather(*blocks(self.parallel.shard(rows), scaled))

    def decide(self, per_row: dict[str, np.ndarray], plan: Plan, rows: Rows | None = None) -> dict[str, np.ndarray]:
        """The ``-prob`` / ``-correct`` columns of ``per_row``'s metrics (none unless deciding); empty answers wrong."""
        decisions = self.decisions(plan)
        return {} if decisions is None else decisions.apply(per_row, None if rows is None else empty_answers(rows))

    def score_stream(self, tables: Iterable[Table], write: Write | None = None, total: int | None = None,
                     run: Accumulator | None = None, done: Callable[[Accumulator], None] | None = None,
                     plan: Plan | None = None) -> StreamResult:
        """The scoring loop under ``plan`` (default: the first table's): chunks scored one at a time
        (:func:`score_chunk`), their statistics added to an :class:`~kpqa.stream.Accumulator` (``run``: one carried
        on, whose chunks are skipped), then handed to ``done``; corpus scores at the end. A corpus pass (an idf) reads
        ``tables`` twice (a one-time iterator's chunks are kept). ``total``: rows, for the progress bar. Corpus
        scores and signatures are the main process's."""
        run = Accumulator() if run is None else run
        if plan is None:
            plan, tables = first_settles(tables, self.tokenize, self.known_wrong)
        tables = rereadable(tables) if any(m.reduction == CORPUS_PASS for m in self.metrics) else tables
        corpus = corpus_pass(self, tables, plan)
        with tracking(total, self.progress and self.is_main) as advance:
            if advance is not None and run.rows:
                advance(run.rows)
            for k, table in enumerate(tables):
                table = check_taken(self.prepare(table, plan), self.columns(plan))  # a chunk done before too
                if k < run.chunks:
                    continue
                run.update(table, *score_chunk(self, table, plan, advance, corpus, write))
                if done is not None:
                    done(run)
        corpus_scores, signatures = (run.compute(self.metrics, self._signatures(plan), self.decisions(plan))
                                     if run.scored and self.is_main else ({}, {}))
        return StreamResult(rows=run.rows, corpus=corpus_scores, signatures=signatures, errors=run.errors,
                            empty=run.empty, unfit=self.unfit)

    def score(self, data: Any, plan: Plan | None = None) -> Result:
        """Score a path, DataFrame, ``datasets.Dataset``, records or Table as one chunk (:meth:`score_stream`); the
        input's columns carried as read: a CSV's or TSV's as text, exactly as written (``007``), others typed."""
        table = data if isinstance(data, Table) else read_input(data, self.on_error, self.max_chars, self.fields)
        frames: list[pd.DataFrame] = []
        result = self.score_stream([table], frames.append, total=len(table.frame), plan=plan)
        return Result(frames[0], result.corpus, result.signatures, result.errors, result.empty, result.unfit)

    def score_rows(
        self, rows: Rows, source: str = "<rows>", numbers: Sequence[int] | None = None,
        known_wrong: bool | None = None,
    ) -> tuple[dict[str, np.ndarray], dict[str, float], dict[str, Signature]]:
        """Per-row scores, corpus scores and signatures for every metric, in metric order (``numbers``: the row
        numbers messages give, default 1, 2, ...; ``known_wrong``: :meth:`plan`'s). Every row must be scorable
        (``on_error`` applies to tables)."""
        table = Table(frame=pd.DataFrame(index=range(len(rows))), rows=rows, source=source,
                      numbers=list(numbers or range(1, len(rows) + 1)))
        plan = self.plan(rows, known_wrong)
        self.prepare(table, plan, strict=True)
        result = self.score(table, plan)
        return {c: result.frame[c].to_numpy() for c in self.value_columns(plan)}, result.corpus, result.signatures

    def score_file(self, source: Any, write: Write | None = None, chunk_rows: int = CHUNK_ROWS,
                   run: Accumulator | None = None, done: Callable[[Accumulator], None] | None = None,
                   plan: Plan | None = None) -> StreamResult:
        """``source`` read (:func:`kpqa.input.iter_input`) and scored (:meth:`score_stream`) ``chunk_rows`` rows at
        a time under ``plan`` (default: :meth:`plan_for` the source), the progress bar's total counted first
        (:func:`kpqa.input.count_rows`) when there is a bar."""
        from kpqa.input import count_rows

        total = count_rows(source) if self.progress and self.is_main else None
        chunks = Chunks(source, chunk_rows, self.on_error, self.max_chars, self.fields)
        return self.score_stream(chunks, write, total, run, done, plan or self.plan_for(source))


def build(options: ScorerOptions, metrics: Sequence[str] | None = None, **more: Any) -> Scorer:
    """A :class:`Scorer` of ``metrics`` built with the shared ``options`` (:class:`~kpqa.context.ScorerOptions`)
    and the keywords ``more`` that are the caller's own (``decide``, ``calibration``, ``on_error``...)."""
    return Scorer(metrics, **options.kwargs(), **more)


def factory(options: ScorerOptions, **more: Any) -> Callable[[list[str]], Scorer]:
    """Scorers of ``options`` (:func:`build`), one per distinct list of metrics, built on first use and reused
    (meta-eval scores each file's missing metrics with it, ``kpqa calibrate`` its metrics and held-out ones)."""
    cache: dict[tuple[str, ...], Scorer] = {}

    def scorer(names: list[str]) -> Scorer:
        if tuple(names) not in cache:
            cache[tuple(names)] = build(options, names, **more)
        return cache[tuple(names)]

    return scorer


def score_chunk(scorer: Scorer, table: Table, plan: Plan, advance: Advance | None, corpus: Corpus,
                write: Write | None) -> tuple[dict[int, Totals], dict[str, np.ndarray]]:
    """One chunk of :meth:`Scorer.score_stream` scored and decided, its table (input columns, which must not be
    those it writes, plus scores) handed to ``write``: each metric's statistics and the decisions. The models'
    caches start empty (a chunk's scores are its own rows' alone, to the last bit: resumable)."""
    warn_wrong_as_reference(table)
    scorer.models.clear_caches()
    scores, totals = scorer.per_row(table.rows, plan, advance, corpus)
    decided = scorer.decide(scores, plan, table.rows)
    if advance is not None and table.errors:
        advance(len(table.errors))
    if write is not None:
        reasons = judge_reasons(table.rows, decided, partial(scorer._context, tokenize=plan.tokenize))
        write(scored_frame(table, {**scores, **decided}, scorer.value_columns(plan), scorer.on_error, reasons))
    return totals, decided


def warn_wrong_as_reference(table: Table) -> None:
    """A :class:`KpqaWarning` naming the rows of ``table`` whose known-wrong answers include one of their references
    (:func:`kpqa.rows.wrong_as_reference`): they are scored, but the judge reads that answer as right and wrong."""
    found = wrong_as_reference(table.rows)
    if found:
        numbers = [table.row_numbers()[i] for i in found]
        shown = ", ".join(map(str, numbers[:20])) + (f" and {len(numbers) - 20} more" if len(numbers) > 20 else "")
        warnings.warn(KpqaWarning(f"{table.source}: an incorrect_answers entry equals one of the references in "
                                  f"row(s) {shown}: the judge reads that answer as both right and wrong"), stacklevel=3)


def check_taken(table: Table, columns: Sequence[str]) -> Table:
    """``table``, or an :class:`InputError` naming the first column of the input that a metric (or decision, or the
    ``error`` column) would write: its values would be lost under the scores. Nothing is renamed: the user says what
    it is."""
    taken = [c for c in map(str, table.frame.columns) if c in columns]
    if taken:
        raise InputError(f"the input has a column {taken[0]!r}, which kpqa writes its {taken[0]} scores to (its "
                         "values would be lost): rename it in the input, or score other metrics", file=table.source,
                         column=taken[0])
    return table


def corpus_pass(scorer: Scorer, tables: Iterable[Table], plan: Plan) -> dict[Hashable, DocFreq]:
    """The statistics of the whole input that the :data:`~kpqa.metrics.base.CORPUS_PASS` metrics read (an
    idf's document frequencies), summed over the scorable rows of every chunk and process; empty when no
    metric asks for them (then ``tables`` is not read)."""
    passing = {m.corpus_key(): m for m in scorer.metrics if m.reduction == CORPUS_PASS}
    found: dict[Hashable, DocFreq] = {}
    for table in tables if passing else ():
        rows = scorer.prepare(table, plan).rows
        rows = scorer.parallel.shard(rows) if scorer.parallel.world > 1 else rows
        for key, metric in passing.items():
            found[key] = found.get(key, DocFreq()) + metric.corpus_stats(rows, scorer._context(metric, plan.tokenize))
    return scorer.parallel.reduce(found)


def check_text(rows: Rows, tokenize: str, warned: bool) -> bool:
    """Whether CJK text under a tokenizer for space-separated languages was warned of (once: ``warned``)."""
    from kpqa.text import cjk_share

    texts = list(rows.candidates) + [r for g in rows.references for r in g]
    share = 0.0 if tokenize == "zh" or warned else cjk_share(texts)
    if share < CJK_WARN_SHARE:
        return warned
    warnings.warn(KpqaWarning(
        f"{share:.0%} of the texts are Chinese / Japanese, which ", Param("tokenize", tokenize),
        " cannot split into words (one token per clause: meaningless lexical scores); use ",
        Param("tokenize", "zh"), " or 'auto'"), stacklevel=3)
    return True


def score_blocks(chosen: Sequence[tuple[int, Metric, Context]], rows: Rows, advance: Advance | None,
                 known_wrong: bool = False, workers: Workers | None = None
                 ) -> tuple[dict[str, np.ndarray], dict[int, Totals]]:
    """Per-row scores and summed statistics of the ``chosen`` metrics (index, metric, context) over ``rows``,
    :data:`PROGRESS_ROWS` rows at a time, ``advance(rows done)`` called as the weighter works through a block
    (:func:`weigh_ahead`). ``known_wrong``: also each column ``M``'s ``M-wrong``, scored with the rows' known-wrong
    answers as references (NaN where a row has none; their statistics are not summed). ``workers``: the metrics
    that load no model are scored there (:mod:`kpqa.workers`), every block's results merged in block order."""
    if known_wrong:
        scores, totals = score_blocks(chosen, rows, advance, workers=workers)
        against, have = against_wrong(rows)
        wrong = score_blocks(chosen, against, None, workers=workers)[0] if have else {}
        for column in list(scores):
            scores[Role.WRONG.of(column)] = spread(wrong[column], np.asarray(have, dtype=int), len(rows), np.nan) \
                if have else np.full(len(rows), np.nan)
        return scores, totals
    totals = {i: Totals() for i, _, _ in chosen}
    parts: dict[str, list[np.ndarray]] = {c: [] for _, m, _ in chosen for c in m.columns()}
    weighters = {not m.question: ctx.weighter for _, m, ctx in chosen if "weights" in m.requires}
    sent = away(chosen) if workers is not None else []
    away_ids = {i for i, _, _ in sent}
    here = [c for c in chosen if c[0] not in away_ids]
    starts = range(0, len(rows), PROGRESS_ROWS)
    pending = [workers.submit(sent, take_rows(rows, s, s + PROGRESS_ROWS)) for s in starts] \
        if workers is not None and sent else []
    for start in starts:
        batch = take_rows(rows, start, start + PROGRESS_ROWS)
        shown = weigh_ahead(batch, weighters, advance) if advance is not None else 0
        add_block(parts, totals, score_batch(here, batch))
        if advance is not None:
            advance(len(batch) - shown)
    said: dict[tuple[str, type[Warning]], None] = {}
    for future in pending:  # block order: each metric's statistics added as one process adds them
        block, warned = future.result()
        add_block(parts, totals, block)
        said.update(dict.fromkeys(warned))
    for message, category in said:  # what the workers warned of, once each, as this process warns
        warnings.warn(category(message), stacklevel=2)
    return {c: np.concatenate(v) if v else np.empty(0) for c, v in parts.items()}, totals


def add_block(parts: dict[str, list[np.ndarray]], totals: dict[int, Totals], block: Block) -> None:
    """Add one block's per-row scores to ``parts`` and its statistics to ``totals``."""
    scores, found = block
    for column, values in scores.items():
        parts[column].append(values)
    for i, t in found.items():
        totals[i] = totals[i] + t


def weigh_ahead(rows: Rows, weighters: dict[bool, KeyphraseWeighter | None], advance: Advance) -> int:
    """Have each weighter (by ``no_question``) weigh every text of ``rows`` ahead of the metrics (they then find the
    weights in its cache), ``advance`` moving after each of its forward passes; the rows shown."""
    shown = 0

    def report(k: int, done: int, total: int) -> None:
        nonlocal shown
        due = len(rows) * (k * total + done) // (len(weighters) * total + 1)  # the metrics' own work: one pass
        advance(max(due - shown, 0))
        shown = max(due, shown)

    for k, (no_question, weighter) in enumerate(weighters.items()):
        if weighter is not None:
            weighter.piece_weights(weighted_pairs(rows, question=not no_question), partial(report, k))
    return shown


def _tokenizer(name: str) -> str:
    """``name``, once it is known to be a tokenizer (or ``auto``)."""
    from kpqa.text import AUTO, get_tokenizer

    if name != AUTO:
        get_tokenizer(name)  # fail early on an unknown tokenizer
    return name


def resolve_metrics(names: Sequence[str] | None, default: Sequence[str], no_question: bool) -> list[Metric]:
    """The metrics ``names`` name (``default`` when None; blank names skipped); UsageError when they name none."""
    if names is not None and not any(name.strip() for name in names):
        raise UsageError("no metric named (metrics is empty)")
    chosen = dict.fromkeys(name.strip() for name in (default if names is None else names) if name.strip())
    return [get_metric(name, no_question) for name in chosen]  # a name given twice is scored once


def judge_metrics(calibration: Calibration, columns: Sequence[str], no_question: bool = False) -> list[Metric]:
    """The metrics that the judges of ``calibration`` read and that ``columns`` lack (``Equivalence``, for a judge that
    reads it), in the judges' order: what deciding adds to the metrics (a warning says why a judge still cannot decide)."""
    inputs = dict.fromkeys(m for j in calibration.judges.values() for m in j.inputs
                           if m not in columns and role_of(m) is not Role.WRONG)  # M-wrong: scored with M
    added = [m for m in (get_metric(name, no_question) for name in inputs) if not set(m.columns()) <= set(columns)]
    warn_unjudged(calibration, [*columns, *(c for m in added for c in m.columns())])
    return added


def _check_models(metrics: list[Metric], checkpoint: str | os.PathLike | None, device: str) -> None:
    """The one device check and the weighters' extras (kpqa[mpnet]), before any input is read."""
    if any(m.uses_model for m in metrics):
        from kpqa.models.device import pick_device

        pick_device(device)
    from kpqa.models.shipped import require

    for kp in sorted({not m.question for m in metrics if "weights" in m.requires}):
        require(checkpoint, no_question=kp)


def _calibration(deciding: bool, calibration: str | os.PathLike | Calibration | None,
                 checkpoint: str | os.PathLike | None, prior: float | None) -> Calibration | None:
    """The calibration decisions are made with (None unless ``deciding``: :func:`kpqa.calibration.load`); ``prior``
    checked."""
    from kpqa.calibration import check_prior, load

    loaded = load(calibration, checkpoint) if deciding else None
    if prior is not None:
        check_prior(prior)
        if loaded is None:
            raise UsageError(Param("prior"), " is the share of correct answers decisions assume: it needs ",
                             Param("decide", True))
    return loaded


def drop_empty_questions(table: Table, metric: str, strict: bool) -> Table:
    """``table`` without its rows with an empty question (which ``metric`` needs): InputError at the first one when
    ``strict``, else each moved to ``table.errors``; InputError naming the file when it has no question column."""
    bad = [i for i, q in enumerate(table.rows.questions) if not q.strip()]
    if not bad:
        return table
    names = [str(c) for c in table.frame.columns]
    if table.fields.get("question", "question") not in names:  # no row has a question: one error for the file
        raise InputError(f"no 'question' column, needed by {metric} (columns: {', '.join(names)})",
                         *layout_hint(table.frame, "question"), ", or use ", Param("no_question", True),
                         " for the -KP weighter", file=table.source, column="question")
    error = InputError(f"empty question, needed by {metric} (use ", Param("no_question", True),
                       " for the -KP weighter)", file=table.source, row=table.row_numbers()[bad[0]], column="question")
    if strict:
        raise error
    kept = list(range(len(table.frame))) if table.kept_rows is None else table.kept_rows
    good = [i for i in range(len(table.rows)) if i not in set(bad)]
    reason = f"empty question, needed by {metric} (its -KP form reads no question)"  # the API's and the CLI's words
    errors = {**table.errors, **{kept[i]: reason for i in bad}}
    return replace(table, rows=select_rows(table.rows, good), kept_rows=[kept[i] for i in good], errors=errors)


def score(
    questions: Sequence[str] | None,
    candidates: Sequence[str],
    references: Sequence[str] | Sequence[Sequence[str]],
    metrics: Sequence[str] | None = None,
    *,
    return_result: bool = False,
    incorrect_answers: Sequence[Sequence[str]] | None = None,
    **options: Any,
) -> pd.DataFrame | Result:
    """Score candidates against references (one string or a list of strings per candidate).

    ``questions`` may be None with ``no_question=True`` (the -KP weighter) or lexical metrics only.
    ``incorrect_answers``: a list of answers known to be wrong per candidate (possibly empty): each metric's
    ``M-wrong`` column and the judge read them (see :class:`Scorer`'s ``known_wrong``).
    Options are those of :class:`Scorer`. Returns one row per candidate, one column per metric; with
    ``return_result=True``, the :class:`Result` (per-row frame, corpus scores, signatures, rows not scored).
    """
    result = Scorer(metrics, **options).score(records(questions, candidates, references, incorrect_answers))
    return result if return_result else result.frame


def records(questions: Sequence[str] | None, candidates: Sequence[str],
            references: Sequence[str] | Sequence[Sequence[str]],
            incorrect_answers: Sequence[Sequence[str]] | None = None) -> list[dict[str, Any]]:
    """The rows of :func:`score`'s arguments as records (``question``, ``answer``, ``references``: a list; and
    ``incorrect_answers``, a list, when given)."""
    if len(candidates) != len(references) or (questions is not None and len(questions) != len(candidates)):
        raise UsageError("questions, candidates and references must have the same length")
    if incorrect_answers is not None and len(incorrect_answers) != len(candidates):
        raise UsageError(Param("incorrect_answers"), ": one list per candidate (the same length as candidates)")
    wrong = [{} if incorrect_answers is None else {WRONG_COLUMN: [incorrect_answers[i]] if
                                                   isinstance(incorrect_answers[i], str) else
                                                   list(incorrect_answers[i])} for i in range(len(candidates))]
    return [
        {
            "question": "" if questions is None else questions[i],
            "answer": candidates[i],
            "references": [references[i]] if isinstance(references[i], str) else list(references[i]),
            **wrong[i],
        }
        for i in range(len(candidates))
    ]
