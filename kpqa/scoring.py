"""Scoring: rows -> metrics -> a table of per-row scores, corpus scores and signatures (-> decisions).

:class:`Scorer` loads the weighter and encoders once and can be reused across calls; :func:`score` is the one-shot
form in the shape bert-score users know, plus questions. With ``decide=True`` every metric column ``M`` gets two
more, ``M-prob`` (calibrated P(correct)) and ``M-correct`` (1 judged correct, 0 not), from a
:mod:`kpqa.calibration` file, and so does each judge of the file whose input metrics are all scored
(``KPQA-judge``); their corpus values are the mean probability and the share judged correct.
"""
from __future__ import annotations

import atexit
import os
import warnings
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterable, Iterator, Sequence

import numpy as np
import pandas as pd

import kpqa.metrics  # noqa: F401  (registers the metrics)
from kpqa.calibration import Calibration, JudgeCalibration, MetricCalibration
from kpqa.errors import InputError, KpqaWarning, Param, UsageError
from kpqa.context import (
    DEFAULT_BATCH_SIZE, DEFAULT_DEVICE, DEFAULT_FUNCTION_WORD_WEIGHT, DEFAULT_PRECISION, DEFAULT_TOKENIZER, Models,
    check_function_word_weight, check_max_chars, check_on_error,
)
from kpqa.input import Table, count_rows, iter_input, read_input
from kpqa.rows import concat_rows, select_rows, take_rows
from kpqa.metrics.base import Context, Metric, Rows, Totals, get_metric, text_limit
from kpqa.signature import Signature

#: share of CJK texts from which scoring under a tokenizer for space-separated languages warns (a Chinese name in
#: a few English answers is no reason to)
CJK_WARN_SHARE = 0.01
#: rows the batched metrics score at a time: texts are sorted by length for the models' batches within a block, so
#: blocks of ``batch_size`` rows cost 19% more of the weighter's CPU time than blocks of this size (1,000 MS-MARCO
#: rows: 52 s against 44 s); the progress bar moves within a block while the weighter works (:meth:`Scorer._weigh`)
PROGRESS_ROWS = 1024
#: rows :meth:`Scorer.score_file` reads, scores and writes at a time (see docs/benchmark.md for the memory it takes)
CHUNK_ROWS = 5000
DEFAULT_METRICS = ("BLEU-1", "BLEU-4", "ROUGE-L", "BERTScore", "BLEU-1-KPQA", "ROUGE-L-KPQA", "BERTScore-KPQA")
#: the default metrics when deciding: the default suite plus what the shipped judge also needs
DECIDE_METRICS = DEFAULT_METRICS + ("Contains", "KeyFact-KPQA", "F1")


#: the decision columns of a metric or judge ``M``: ``M-prob`` (P(correct)) and ``M-correct`` (1 / 0)
DECISION_SUFFIXES = ("-prob", "-correct")
#: what is added to an output file's name to name the file of its run's signatures (:func:`signature_record`)
SIGNATURES_SUFFIX = ".signatures.json"


def decided_metric(column: str) -> str:
    """The metric or judge column a decision column (``M-prob``, ``M-correct``) is of; any other column itself."""
    for suffix in DECISION_SUFFIXES:
        if column.endswith(suffix):
            return column.removesuffix(suffix)
    return column


def _summary(corpus: dict[str, float], signatures: dict[str, Signature], verbose: bool = False) -> str:
    """One row per metric and judge: name, corpus score, mean P(correct) and share judged correct (when deciding),
    the short hash of its signature (:attr:`~kpqa.signature.Signature.short_hash`); ``verbose``: one line per
    column with its full signature instead."""
    width = max(map(len, corpus), default=0)
    if verbose:
        return "\n".join(f"{name:<{width}}  {value:.4f}  {signatures.get(name, '')}" for name, value in corpus.items())
    if not corpus:
        return ""
    names = list(dict.fromkeys(decided_metric(c) for c in corpus))
    deciding = any(c.endswith("-correct") for c in corpus)
    width = max(map(len, names + ["metric"]))
    value = lambda c: f"{corpus[c]:.4f}" if c in corpus else ""  # noqa: E731
    lines = [f"{'metric':<{width}}   score" + ("  P(correct)  correct" if deciding else "") + "  signature"]
    for name in names:
        signature = signatures.get(name) or signatures.get(name + "-correct")
        decided = f"  {value(name + '-prob'):>10}  {value(name + '-correct'):>7}" if deciding else ""
        lines.append(f"{name:<{width}}  {value(name):>6}{decided}  {signature.short_hash if signature else ''}")
    return "\n".join(lines)


def signature_record(signatures: dict[str, Signature], calibration: Calibration | None = None) -> dict[str, Any]:
    """What a run's signatures file holds (JSON-ready): every column's full signature and its short hash, and the
    calibration the decisions were made with (its path and digest, the signatures' ``cal:``)."""
    record: dict[str, Any] = {"signatures": {c: str(s) for c, s in signatures.items()},
                              "short_hashes": {c: s.short_hash for c, s in signatures.items()}}
    if calibration is not None:
        record["calibration"] = {"path": calibration.path, "digest": calibration.digest}
    return record


@dataclass
class Result:
    """Per-row scores (``frame``: the input columns plus one column per metric, and an ``error`` column when
    ``on_error`` is ``skip`` or ``zero``), corpus scores, :class:`~kpqa.signature.Signature` objects (``str()`` prints
    one), and the rows left unscored (row number -> why)."""

    frame: pd.DataFrame
    corpus: dict[str, float]
    signatures: dict[str, Signature] = field(default_factory=dict)
    errors: dict[int, str] = field(default_factory=dict)

    def summary(self, verbose: bool = False) -> str:
        """Corpus scores as an aligned plain-text table, one row per metric with its signature's short hash (and
        with decisions, the mean P(correct) and the share judged correct); ``verbose``: every column with its full
        signature."""
        return _summary(self.corpus, self.signatures, verbose)


@dataclass
class StreamResult:
    """What :meth:`Scorer.score_stream` returns: the number of rows, corpus scores, signatures and the rows left
    unscored (the per-row tables went to its ``write`` callback). Empty on processes other than the main one."""

    rows: int
    corpus: dict[str, float]
    signatures: dict[str, Signature] = field(default_factory=dict)
    errors: dict[int, str] = field(default_factory=dict)

    def summary(self, verbose: bool = False) -> str:
        """Corpus scores as an aligned plain-text table, one row per metric with its signature's short hash (and
        with decisions, the mean P(correct) and the share judged correct); ``verbose``: every column with its full
        signature."""
        return _summary(self.corpus, self.signatures, verbose)


#: the ``error`` column of the output when ``on_error`` is ``skip`` or ``zero``
ERROR_COLUMN = "error"

Advance = Callable[[int], None]


class DataParallel:
    """The processes scoring together: one, or under a launcher that sets ``WORLD_SIZE`` (data-parallel), each
    scoring an equal contiguous shard of every batch of rows; per-row scores are gathered back in process (= input)
    order and the statistics summed."""

    def __init__(self, rank: int = 0, world: int = 1, device: str | None = None) -> None:
        self.rank, self.world = rank, world
        self.device = device  # the process's own device (data-parallel), else None

    @classmethod
    def start(cls, enabled: bool, device: str) -> "DataParallel":
        """The processes of this run: this one alone unless ``enabled`` under a launcher."""
        if not (enabled and int(os.environ.get("WORLD_SIZE", "1")) > 1):
            return cls()
        from kpqa.models.device import cuda_available
        from kpqa.optional import require

        PartialState = require("accelerate", "data-parallel scoring").PartialState

        # gloo between CPU processes (accelerate picks the CPU backend only when told)
        state = PartialState(cpu=device == "cpu" or not cuda_available())
        # tear gloo down before the interpreter exits: left to process exit it can abort a rank
        # ("terminate called without an active exception") after all the work is done
        atexit.register(state.destroy_process_group)
        return cls(state.process_index, state.num_processes, str(state.device))

    @property
    def is_main(self) -> bool:
        return self.rank == 0

    def shard(self, rows: Rows) -> Rows:
        """This process's contiguous share of ``rows``."""
        bounds = [len(rows) * k // self.world for k in range(self.world + 1)]
        return take_rows(rows, bounds[self.rank], bounds[self.rank + 1])

    def gather(self, local: dict[str, np.ndarray],
               totals: dict[int, Totals]) -> tuple[dict[str, np.ndarray], dict[int, Totals]]:
        """Every process's per-row scores, concatenated in process order, and their statistics summed."""
        from accelerate.utils import gather_object

        shards = gather_object([(local, totals)])  # one pair per process, in process order
        summed = {i: sum((t[i] for _, t in shards), Totals()) for i in totals}
        return {c: np.concatenate([s[c] for s, _ in shards]) for c in local}, summed


class Decisions:
    """The decision columns of a calibration: ``M-prob`` and ``M-correct`` of each metric column ``M`` and of each
    usable judge, their sums (corpus values are means) and their signatures (the metric's plus ``cal:``)."""

    def __init__(self, calibration: Calibration, prior: float | None = None) -> None:
        self.calibration = calibration
        self.prior = prior
        self.entries: dict[str, MetricCalibration] | None = None
        self.judges: list[JudgeCalibration] = []

    def check(self, signatures: Callable[[], dict[str, Signature]]) -> dict[str, MetricCalibration]:
        """Each metric column's calibration entry, checked against its signature (once, before any scoring)."""
        if self.entries is None:
            found = signatures()
            self.entries = {c: self.calibration.entry(c, sig) for c, sig in found.items()}
            self.judges = self.calibration.usable_judges(found)
        return self.entries

    def columns(self, score_columns: list[str]) -> list[str]:
        """``-prob`` and ``-correct`` of each metric column and of the judges whose inputs are all scored."""
        judges = [j.name for j in self.calibration.judges.values() if set(j.inputs) <= set(score_columns)]
        return [f"{c}{s}" for c in score_columns + judges for s in DECISION_SUFFIXES]

    def add(self, per_row: dict[str, np.ndarray], entries: dict[str, MetricCalibration]) -> dict[str, np.ndarray]:
        """``per_row`` plus the decision columns of its metric columns and of the judges it has every input of."""
        out = dict(per_row)
        for column, entry in entries.items():
            if column in per_row:
                out[f"{column}-prob"] = entry.prob(per_row[column], self.prior)
                out[f"{column}-correct"] = entry.decide(per_row[column], self.prior)
        for judge in self.judges:
            if all(m in per_row for m in judge.inputs):
                out[f"{judge.name}-prob"] = judge.prob(per_row, self.prior)
                out[f"{judge.name}-correct"] = judge.decide(per_row, self.prior)
        return out

    @staticmethod
    def totals(per_row: dict[str, np.ndarray], score_columns: list[str]) -> dict[str, Totals]:
        """The sums of the ``-prob`` and ``-correct`` columns in ``per_row``."""
        return {c: Totals.of(np.asarray(v, dtype=float).reshape(-1, 1)) for c, v in per_row.items()
                if c.endswith(DECISION_SUFFIXES) and c not in score_columns}

    def corpus(self, corpus: dict[str, float], signatures: dict[str, Signature], decisions: dict[str, Totals],
               score_columns: list[str]) -> None:
        """Add the decision columns' corpus values (means) and signatures to ``corpus`` and ``signatures``."""
        cal = [("cal", self.calibration.digest)] + ([("prior", f"{self.prior:g}")] if self.prior is not None else [])
        decided = {c: signatures[c].with_fields(cal) for c in score_columns}
        decided.update({j.name: Signature.of(j.name, [("inputs", "+".join(j.inputs)), *cal]) for j in self.judges})
        for column, signature in decided.items():
            for suffix in DECISION_SUFFIXES:
                corpus[column + suffix] = decisions.get(column + suffix, Totals()).mean(0)
                signatures[column + suffix] = signature


def progress_bar(total: int | None) -> Any:
    """A tqdm bar of rows scored; tqdm hides it when stderr is not a terminal."""
    from tqdm.auto import tqdm

    return tqdm(total=total, desc="scoring", unit="row", disable=None, dynamic_ncols=True, smoothing=0.05)


class Scorer:
    """Reusable scorer: resolves metrics once, loads the weighter(s) and encoders on first use.

    With ``data_parallel=True`` under ``accelerate launch`` or ``torchrun`` (any launcher that sets ``WORLD_SIZE``),
    every process takes an equal contiguous shard of each batch of rows, and the per-row scores are gathered back
    in input order on every process; corpus scores, signatures and output are the main process's (``is_main``).
    All processes must be given the same rows. ``device="auto"`` then takes each process's own device.
    ``precision`` (``auto``, ``fp32``, ``bf16``, ``fp16``; see :func:`kpqa.models.encoder.amp_dtype`) sets the arithmetic
    of the encoder and the weighter; the model metrics' signatures record it. ``function_word_weight`` scales the
    keyphrase weights of function words (:mod:`kpqa.models.weighter`; 1 = the tagger's probabilities, as in the
    paper); KPQA signatures record it as ``fw`` when it is not 1. ``decide=True`` adds the decision
    columns of ``calibration`` (a file or :class:`~kpqa.calibration.Calibration`; default: the one beside the
    weighter checkpoint), which must hold an entry fitted on scores with each metric's signature; deciding, the
    default metrics are ``DECIDE_METRICS``. ``prior``: the expected share of correct answers, which moves the
    calibrated P(correct) from the shipped assumption of one half and decides where it is at least 0.5
    (:mod:`kpqa.calibration`; recorded as ``prior`` in the decisions' signatures).
    ``tokenize="auto"`` takes ``zh`` when most texts of the first rows scored are Chinese / Japanese, else ``ptb``
    (the signatures name the one taken); CJK text under ``ptb`` or ``whitespace`` gives a :class:`KpqaWarning`.
    ``on_error``: ``raise`` (default) stops at the first bad row (empty answer, no reference, an empty question
    under a KPQA metric...); ``skip`` leaves its scores empty and ``zero`` sets them to 0, both saying why in an
    ``error`` column and leaving the row out of the corpus scores. ``max_chars``: a question, answer or reference
    longer than this many characters makes its row a bad row (``on_error`` applies), which bounds the time a row
    can take (memory is linear in the texts); None (default) takes the metrics' own limit
    (:func:`kpqa.metrics.base.text_limit`: 200,000 characters with a model metric, 1,000,000 with ROUGE-L, none
    for BLEU, METEOR, CIDEr, EM / F1 / Contains, AEv). ``progress`` shows a bar of rows scored (on a
    terminal only), advanced after each batch of the weighter and each block of :data:`PROGRESS_ROWS` rows.
    """

    def __init__(
        self,
        metrics: Sequence[str] | None = None,
        *,
        tokenize: str = DEFAULT_TOKENIZER,
        checkpoint: str | os.PathLike | None = None,
        no_question: bool = False,
        device: str = DEFAULT_DEVICE,
        batch_size: int = DEFAULT_BATCH_SIZE,
        precision: str = DEFAULT_PRECISION,
        function_word_weight: float = DEFAULT_FUNCTION_WORD_WEIGHT,
        progress: bool = False,
        on_error: str = "raise",
        max_chars: int | None = None,
        data_parallel: bool = False,
        decide: bool = False,
        calibration: str | os.PathLike | Calibration | None = None,
        prior: float | None = None,
    ) -> None:
        if batch_size < 1:
            raise UsageError(Param("batch_size", batch_size), ": must be a positive integer")
        self.function_word_weight = check_function_word_weight(function_word_weight)
        from kpqa.models.device import check_precision
        from kpqa.text import AUTO, get_tokenizer

        self.precision = check_precision(precision)
        self.on_error = check_on_error(on_error)
        if tokenize != AUTO:
            get_tokenizer(tokenize)  # fail early on an unknown tokenizer
        self.tokenize, self.checkpoint, self.device, self.batch_size = tokenize, checkpoint, device, batch_size
        self.progress = progress
        self._warned_cjk = False
        self._metrics: list[tuple[Metric, bool]] = []
        if metrics is not None and not any(name.strip() for name in metrics):
            raise UsageError("no metric named (metrics is empty)")
        default = DECIDE_METRICS if decide or calibration is not None else DEFAULT_METRICS
        for name in default if metrics is None else [n for n in metrics if n.strip()]:
            metric = get_metric(name.strip(), no_question)
            self._metrics.append((metric, not metric.question))
        if any(m.uses_model for m, _ in self._metrics):
            from kpqa.models.device import pick_device

            pick_device(device)  # the one device check, before any input is read
        from kpqa.models.shipped import require

        for kp in sorted({kp for m, kp in self._metrics if "weights" in m.requires}):
            require(checkpoint, no_question=kp)  # the weighter's extra (kpqa[mpnet]), before any input is read
        self.max_chars = check_max_chars(max_chars) if max_chars is not None else text_limit(self.metrics)
        #: the models this scorer loaded (weighters, encoders), shared by its metrics and dropped with it
        self.models = Models()
        self._contexts: dict[bool | None, Context] = {}
        self.calibration: Calibration | None = None
        if decide or calibration is not None:
            from kpqa.calibration import default_path

            self.calibration = calibration if isinstance(calibration, Calibration) else Calibration.load(
                default_path(checkpoint) if calibration is None else os.fspath(calibration))
        if prior is not None:
            from kpqa.calibration import check_prior

            check_prior(prior)
            if self.calibration is None:
                raise UsageError(Param("prior"), " is the share of correct answers decisions assume: it needs ",
                                 Param("decide", True))
        self._decisions = Decisions(self.calibration, prior) if self.calibration is not None else None
        self._parallel = DataParallel.start(data_parallel, device)
        if device == "auto" and self._parallel.device is not None:
            self.device = self._parallel.device

    @property
    def rank(self) -> int:
        """This process's index among those scoring together (0 unless data-parallel)."""
        return self._parallel.rank

    @property
    def world(self) -> int:
        """The number of processes scoring together."""
        return self._parallel.world

    @property
    def _judges(self) -> list[JudgeCalibration]:
        return [] if self._decisions is None else self._decisions.judges

    @property
    def metrics(self) -> list[Metric]:
        """The resolved metrics, in output order."""
        return [m for m, _ in self._metrics]

    @property
    def score_columns(self) -> list[str]:
        """The metric columns, in order."""
        return [c for m, _ in self._metrics for c in m.columns()]

    @property
    def value_columns(self) -> list[str]:
        """The metric columns, then (deciding) ``-prob`` and ``-correct`` of each and of the judges."""
        if self._decisions is None:
            return self.score_columns
        return self.score_columns + self._decisions.columns(self.score_columns)

    @property
    def columns(self) -> list[str]:
        """The output columns, in order: :attr:`value_columns`, then ``error`` when ``on_error`` is not ``raise``."""
        return self.value_columns + ([ERROR_COLUMN] if self.on_error != "raise" else [])

    @property
    def is_main(self) -> bool:
        """True on the process that writes output (always, unless data-parallel)."""
        return self._parallel.is_main

    def _context(self, no_question: bool, weighted: bool) -> Context:
        """The context of the metrics that read the weighter (the question-free one with ``no_question``) or of
        those that read none; every one holds this scorer's :attr:`models`."""
        key = no_question if weighted else None
        if key not in self._contexts:
            weighter = None
            if weighted:
                from kpqa.models.weighter import Weighter

                weighter = self.models.get(("weighter", no_question), lambda: Weighter.load(
                    self.checkpoint, no_question=no_question, device=self.device, batch_size=self.batch_size,
                    precision=self.precision, function_word_weight=self.function_word_weight,
                ))
            self._contexts[key] = Context(
                tokenizer=self.tokenize, weighter=weighter, device=self.device, batch_size=self.batch_size,
                precision=self.precision, models=self.models,
            )
        return self._contexts[key]

    def _metric_context(self, metric: Metric, kp: bool) -> Context:
        return self._context(kp, "weights" in metric.requires)

    def _check_text(self, rows: Rows) -> None:
        """Resolve ``tokenize="auto"`` on the first rows seen; warn (once) of CJK text under a tokenizer for
        space-separated languages."""
        from kpqa.text import AUTO, cjk_share, pick_tokenizer

        texts = list(rows.candidates) + [r for g in rows.references for r in g]
        if self.tokenize == AUTO:
            self.tokenize = pick_tokenizer(texts)
        if self.tokenize == "zh" or self._warned_cjk:
            return
        share = cjk_share(texts)
        if share >= CJK_WARN_SHARE:
            self._warned_cjk = True
            warnings.warn(KpqaWarning(
                f"{share:.0%} of the texts are Chinese / Japanese, which ", Param("tokenize", self.tokenize),
                " cannot split into words (one token per clause: meaningless lexical scores); use ",
                Param("tokenize", "zh"), " or 'auto'"), stacklevel=3)

    def _prepare(self, table: Table, strict: bool = False) -> Table:
        """The table with the rows that cannot be scored by these metrics (an empty question under a KPQA metric)
        raised as errors (``strict``, or ``on_error="raise"``) or moved to ``table.errors``. A calibration that
        does not fit the metrics stops the run here, before any scoring."""
        if self._decisions is not None:
            self._calibrated()
        self._check_text(table.rows)
        needs = [m.columns()[0] for m, kp in self._metrics if "weights" in m.requires and not kp]
        if not needs:
            return table
        keep = list(range(len(table.frame))) if table.keep is None else table.keep
        bad = [i for i, q in enumerate(table.rows.questions) if not q.strip()]
        if not bad:
            return table
        error = InputError(f"empty question, needed by {needs[0]} (use ", Param("no_question", True),
                           " for the -KP weighter)",
                           file=table.source, row=table.row_numbers()[bad[0]], column="question")
        if strict or self.on_error == "raise":
            raise error
        good = [i for i in range(len(table.rows)) if i not in set(bad)]
        errors = {**table.errors, **{keep[i]: error.reason for i in bad}}
        return replace(table, rows=select_rows(table.rows, good), keep=[keep[i] for i in good], errors=errors)

    def _per_row(self, rows: Rows, advance: Callable[[int], None] | None = None,
                 whole_input: bool | None = None) -> tuple[dict[str, np.ndarray], dict[int, Totals]]:
        """Per-row scores of this process's shard of ``rows`` and each metric's statistics summed over it (by
        index in ``self._metrics``; only the metrics whose ``whole_input`` is that value, unless None),
        ``PROGRESS_ROWS`` rows at a time (all at once for a metric whose rows share statistics), calling
        ``advance(rows done)`` as the weighter works through a block (:meth:`_weigh`) and after it."""
        metrics = [(i, m, kp) for i, (m, kp) in enumerate(self._metrics)
                   if whole_input is None or m.whole_input == whole_input]
        totals = {i: Totals() for i, _, _ in metrics}
        if not len(rows) or not metrics:
            return {c: np.empty(0) for _, m, _ in metrics for c in m.columns()}, totals
        pooled = [(i, m, kp) for i, m, kp in metrics if m.whole_input or m.pooled]
        batched = [(i, m, kp) for i, m, kp in metrics if not (m.whole_input or m.pooled)]
        parts: dict[str, list[np.ndarray]] = {c: [] for _, m, _ in metrics for c in m.columns()}

        def run(chosen: list[tuple[int, Metric, bool]], batch: Rows) -> None:
            memo: dict = {}  # work shared by the metrics of this batch (n-gram counts, embeddings); dropped after it
            for i, metric, kp in chosen:
                stats = metric.stats(batch, replace(self._metric_context(metric, kp), memo=memo))
                for column, values in metric.per_row(stats).items():
                    parts[column].append(values)
                totals[i] = totals[i] + Totals.of(stats)

        if pooled:
            run(pooled, rows)
        step = PROGRESS_ROWS if batched else len(rows)
        for start in range(0, len(rows), step):
            batch = take_rows(rows, start, start + step)
            shown = self._weigh(batch, batched, advance) if advance is not None else 0
            run(batched, batch)
            if advance is not None:
                advance(len(batch) - shown)
        return {c: np.concatenate(v) for c, v in parts.items()}, totals

    def _weigh(self, rows: Rows, metrics: list[tuple[int, Metric, bool]], advance: Advance) -> int:
        """The keyphrase weights of every text of ``rows`` for ``metrics``, computed ahead of them (they find them in
        the weighter's cache) in slices of ``batch_size`` texts, fewest word pieces first (so each slice pads as
        little as the whole block would: sorted by characters instead, the weighter took 30% longer), the bar
        advancing after each by the share of the texts done; the rows shown."""
        weighters = {kp: self._metric_context(m, kp).weighter for _, m, kp in metrics if "weights" in m.requires}
        pairs = list(dict.fromkeys(list(zip(rows.questions, rows.candidates))
                                   + [(q, r) for q, g in zip(rows.questions, rows.references) for r in g]))
        slices = []
        for weighter in weighters.values():
            if weighter is None:
                continue
            ordered = [pairs[k] for k in np.argsort(_piece_counts(weighter, pairs), kind="stable")]
            slices += [(weighter, ordered[k:k + self.batch_size]) for k in range(0, len(ordered), self.batch_size)]
        shown = 0
        for done, (weighter, part) in enumerate(slices, 1):
            weighter.piece_weights(part)
            due = len(rows) * done // (len(slices) + 1)  # the metrics' own work after it: one slice's worth
            advance(due - shown)
            shown = due
        return shown

    def _gathered(self, rows: Rows, advance: Callable[[int], None] | None = None,
                  whole_input: bool | None = None) -> tuple[dict[str, np.ndarray], dict[int, Totals]]:
        """Per-row scores of all of ``rows`` and the metrics' statistics summed over them: scored here, or in
        shards by every process, the per-row scores gathered in order and the statistics summed."""
        if self.world == 1:
            return self._per_row(rows, advance, whole_input)
        scaled = (lambda n: advance(n * self.world)) if advance is not None and self.is_main else None
        local, totals = self._per_row(self._parallel.shard(rows), scaled, whole_input)
        return self._parallel.gather(local, totals)

    def _bar(self, total: int | None) -> Any:
        """A progress bar of rows (None when ``progress`` is off or not on the main process)."""
        return progress_bar(total) if self.progress and self.is_main else None

    @contextmanager
    def _progress(self, total: int | None) -> Iterator[Advance | None]:
        """``advance(rows done)`` of a progress bar (None without one), closed at the end."""
        bar = self._bar(total)
        try:
            yield bar.update if bar is not None else None
        finally:
            if bar is not None:
                bar.close()

    def _signature(self, metric: Metric, kp: bool) -> Signature:
        return metric.signature(self._metric_context(metric, kp))

    def _signatures(self) -> dict[str, Signature]:
        """The signature of every metric column (loads the weighter when a metric needs it)."""
        return {c: self._signature(m, kp) for m, kp in self._metrics for c in m.columns()}

    @property
    def signatures(self) -> dict[str, str]:
        """The signature of every metric column as printed (JSON-ready; loads the weighter when a metric needs
        it)."""
        return {c: str(s) for c, s in self._signatures().items()}

    def _calibrated(self) -> dict[str, MetricCalibration]:
        """Each metric column's calibration entry, checked against its signature (before any scoring)."""
        assert self._decisions is not None
        return self._decisions.check(self._signatures)

    def _with_decisions(self, per_row: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """``per_row`` plus the ``-prob`` and ``-correct`` columns of its metric columns, when deciding."""
        if self._decisions is None:
            return per_row
        return self._decisions.add(per_row, self._calibrated())

    def _decision_totals(self, per_row: dict[str, np.ndarray]) -> dict[str, Totals]:
        """The sums of the ``-prob`` and ``-correct`` columns in ``per_row`` (their corpus values are means)."""
        if self._decisions is None:
            return {}
        return Decisions.totals(per_row, self.score_columns)

    def _corpus(
        self, totals: dict[int, Totals], decisions: dict[str, Totals]
    ) -> tuple[dict[str, float], dict[str, Signature]]:
        """Corpus scores and signatures from the metrics' summed statistics (and the decision columns' sums)."""
        corpus: dict[str, float] = {}
        signatures: dict[str, Signature] = {}
        for i, (metric, kp) in enumerate(self._metrics):
            corpus.update(metric.corpus(totals.get(i, Totals())))
            signature = self._signature(metric, kp)
            for column in metric.columns():
                signatures[column] = signature
        if self._decisions is not None:
            self._decisions.corpus(corpus, signatures, decisions, self.score_columns)
        return corpus, signatures

    def score_rows(
        self, rows: Rows, source: str = "<rows>", numbers: Sequence[int] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, float], dict[str, Signature]]:
        """Per-row scores, corpus scores and signatures for every metric, in metric order (``numbers``: the row
        numbers messages give, default 1, 2, ...). Every row must be scorable (``on_error`` applies to tables)."""
        table = Table(frame=pd.DataFrame(index=range(len(rows))), rows=rows, source=source,
                      numbers=list(numbers or range(1, len(rows) + 1)))
        self._prepare(table, strict=True)
        with self._progress(len(rows)) as advance:
            scores, totals = self._gathered(rows, advance)
        per_row = self._with_decisions(scores)
        corpus, signatures = self._corpus(totals, self._decision_totals(per_row))
        return per_row, corpus, signatures

    def score(self, data: Any) -> Result:
        """Score a file path, DataFrame, ``datasets.Dataset``, records or :class:`~kpqa.input.Table`."""
        table = data if isinstance(data, Table) else read_input(data, self.on_error, self.max_chars)
        table = self._prepare(table)
        with self._progress(len(table.rows)) as advance:
            scores, totals = self._gathered(table.rows, advance)
        per_row = self._with_decisions(scores)
        corpus, signatures = self._corpus(totals, self._decision_totals(per_row)) if len(table.rows) else ({}, {})
        return Result(frame=self._with_scores(table, per_row), corpus=corpus, signatures=signatures,
                      errors=_numbered(table))

    def score_file(self, source: Any, write: Callable[[pd.DataFrame], None] | None = None,
                   fill: Callable[[dict[str, np.ndarray]], None] | None = None,
                   chunk_rows: int = CHUNK_ROWS) -> StreamResult:
        """:meth:`score_stream` over :func:`kpqa.input.iter_input` chunks of ``source``, the progress bar's total
        counted first (:func:`kpqa.input.count_rows`) when there is a bar to show."""
        total = count_rows(source) if self.progress and self.is_main else None
        return self.score_stream(iter_input(source, chunk_rows, self.on_error, self.max_chars), write, fill,
                                 total=total)

    def score_stream(
        self,
        tables: Iterable[Table],
        write: Callable[[pd.DataFrame], None] | None = None,
        fill: Callable[[dict[str, np.ndarray]], None] | None = None,
        total: int | None = None,
    ) -> StreamResult:
        """Score chunks (e.g. :func:`kpqa.input.iter_input`) one at a time, handing each chunk's table (input columns
        plus scores) to ``write`` in input order, on the main process. Memory holds one chunk's encodings; each
        metric's statistics are summed over the chunks (and processes), so the corpus scores equal those of one
        pass over the whole input (corpus BLEU sums counts over all rows) without keeping the rows. Only when a
        ``whole_input`` metric (CIDEr) is asked are the rows' texts kept (main process): its columns are written
        empty and handed to ``fill`` at the end, scored over all rows at once, so that they too do not depend on
        the chunk size (:meth:`kpqa.output.OutputWriter.fill`). ``total``: the number of rows, for the progress
        bar."""
        keep = any(m.whole_input for m, _ in self._metrics)  # only then are the rows' texts needed at the end
        run = _Stream(keep)
        with self._progress(total) as advance:
            for table in tables:
                self._score_chunk(self._prepare(table), run, advance, write)
        if not self.is_main or not run.scored:
            return StreamResult(rows=run.done, corpus={}, signatures={}, errors=run.errors)
        if keep:
            self._score_whole_input(run, fill)
        corpus, signatures = self._corpus(run.totals, run.decisions)
        return StreamResult(rows=run.done, corpus=corpus, signatures=signatures, errors=run.errors)

    def _score_chunk(self, table: Table, run: "_Stream", advance: Advance | None,
                     write: Callable[[pd.DataFrame], None] | None) -> None:
        """Score one chunk (all but the ``whole_input`` metrics), add its statistics to ``run`` and hand its table
        to ``write`` (main process)."""
        scores, chunk_totals = self._gathered(table.rows, advance, whole_input=False)
        per_row = self._with_decisions(scores)
        run.scored += len(table.rows)
        for i, t in chunk_totals.items():
            run.totals[i] = run.totals.get(i, Totals()) + t
        for c, t in self._decision_totals(per_row).items():
            run.decisions[c] = run.decisions.get(c, Totals()) + t
        if advance is not None and table.errors:
            advance(len(table.errors))
        if self.is_main:
            if run.keep:
                run.kept.append(table.rows)
                run.where.append(run.done + np.asarray(range(len(table.frame)) if table.keep is None else table.keep,
                                                       int))
            run.errors.update(_numbered(table))
            if write is not None:
                write(self._with_scores(table, per_row))
        run.done += len(table.frame)

    def _score_whole_input(self, run: "_Stream", fill: Callable[[dict[str, np.ndarray]], None] | None) -> None:
        """The ``whole_input`` metrics over every kept row at once (main process only: lexical metrics), handed to
        ``fill``; their statistics and decision sums go into ``run``."""
        rows = run.kept[0] if len(run.kept) == 1 else concat_rows(run.kept)
        late_scores, late_totals = self._per_row(rows, whole_input=True)
        run.totals.update(late_totals)
        late = self._with_decisions(late_scores)
        if fill is not None:
            fill({c: _spread(v, np.concatenate(run.where), run.done, self._missing) for c, v in late.items()})
        run.decisions.update(self._decision_totals(late))  # judges on whole-input metrics: known only now

    @property
    def _missing(self) -> float:
        """The score of a row that could not be scored: empty (``skip``) or 0 (``zero``)."""
        return 0.0 if self.on_error == "zero" else np.nan

    def _with_scores(self, table: Table, per_row: dict[str, np.ndarray]) -> pd.DataFrame:
        """The table's frame with one column per metric (NaN for the ``whole_input`` ones not scored yet) and, when
        ``on_error`` is not ``raise``, the ``error`` column."""
        out = table.frame.copy()
        n = len(out)
        keep = np.arange(n) if table.keep is None else np.asarray(table.keep, dtype=int)
        for column in self.value_columns:
            values = per_row.get(column)
            out[column] = np.full(n, np.nan) if values is None else _spread(values, keep, n, self._missing)
        if self.on_error != "raise":
            out[ERROR_COLUMN] = [table.errors.get(i, "") for i in range(n)]
        return out


@dataclass
class _Stream:
    """What :meth:`Scorer.score_stream` sums and keeps across chunks."""

    keep: bool  # keep the rows' texts (a whole_input metric is asked)
    kept: list[Rows] = field(default_factory=list)
    where: list[np.ndarray] = field(default_factory=list)  # per chunk, the output rows its scored rows are
    totals: dict[int, Totals] = field(default_factory=dict)
    decisions: dict[str, Totals] = field(default_factory=dict)
    errors: dict[int, str] = field(default_factory=dict)
    done: int = 0  # rows read
    scored: int = 0  # rows scored


def _piece_counts(weighter: Any, pairs: Sequence[tuple[str, str]]) -> list[int]:
    """The length in word pieces of each (question, text) pair's model input (the text alone when the weighter does
    not read the question)."""
    texts = [t for _, t in pairs]
    tokenizer = weighter.tokenizer
    ids = (tokenizer([q for q, _ in pairs], texts, verbose=False) if weighter.use_question
           else tokenizer(texts, verbose=False))["input_ids"]
    return [len(x) for x in ids]


def _spread(values: np.ndarray, where: np.ndarray, n: int, missing: float) -> np.ndarray:
    """``n`` values: ``values`` at the positions ``where``, ``missing`` elsewhere."""
    out = np.full(n, missing, dtype=float)
    out[where] = values
    return out


def _numbered(table: Table) -> dict[int, str]:
    """The table's errors by row number."""
    return {table.numbers[i]: reason for i, reason in sorted(table.errors.items())}


def score(
    questions: Sequence[str] | None,
    candidates: Sequence[str],
    references: Sequence[str] | Sequence[Sequence[str]],
    metrics: Sequence[str] | None = None,
    *,
    return_result: bool = False,
    **options: Any,
) -> pd.DataFrame | Result:
    """Score candidates against references (one string or a list of strings per candidate).

    ``questions`` may be None with ``no_question=True`` (the -KP weighter) or lexical metrics only.
    Options are those of :class:`Scorer`. Returns one row per candidate, one column per metric; with
    ``return_result=True``, the :class:`Result` (per-row frame, corpus scores, signatures, rows not scored).
    """
    result = Scorer(metrics, **options).score(records(questions, candidates, references))
    return result if return_result else result.frame


def records(questions: Sequence[str] | None, candidates: Sequence[str],
            references: Sequence[str] | Sequence[Sequence[str]]) -> list[dict[str, Any]]:
    """The rows of :func:`score`'s arguments as records (``question``, ``answer``, ``references``: a list)."""
    if len(candidates) != len(references) or (questions is not None and len(questions) != len(candidates)):
        raise UsageError("questions, candidates and references must have the same length")
    return [
        {
            "question": "" if questions is None else questions[i],
            "answer": candidates[i],
            "references": [references[i]] if isinstance(references[i], str) else list(references[i]),
        }
        for i in range(len(candidates))
    ]
