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
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Iterable, Sequence

import numpy as np
import pandas as pd

import kpqa.metrics  # noqa: F401  (registers the metrics)
from kpqa.calibration import Calibration, JudgeCalibration, MetricCalibration
from kpqa.errors import InputError, UsageError
from kpqa.context import DEFAULT_BATCH_SIZE, DEFAULT_DEVICE, DEFAULT_PRECISION, DEFAULT_TOKENIZER
from kpqa.io import Table, concat_rows, read_input, take_rows
from kpqa.metrics.base import Context, Metric, Rows, Totals, get_metric
from kpqa.metrics.spec import split_kp
from kpqa.signature import Signature

DEFAULT_METRICS = ("BLEU-1", "BLEU-4", "ROUGE-L", "BERTScore", "BLEU-1-KPQA", "ROUGE-L-KPQA", "BERTScore-KPQA")
#: the default metrics when deciding: the default suite plus what the shipped judge also needs
DECIDE_METRICS = DEFAULT_METRICS + ("Contains",)


def _summary(corpus: dict[str, float], signatures: dict[str, str]) -> str:
    width = max(map(len, corpus), default=0)
    return "\n".join(f"{name:<{width}}  {value:.4f}  {signatures.get(name, '')}" for name, value in corpus.items())


@dataclass
class Result:
    """Per-row scores (``frame``: the input columns plus one column per metric), corpus scores and signatures."""

    frame: pd.DataFrame
    corpus: dict[str, float]
    signatures: dict[str, str] = field(default_factory=dict)

    def summary(self) -> str:
        """Corpus scores and signatures as an aligned plain-text table."""
        return _summary(self.corpus, self.signatures)


@dataclass
class StreamResult:
    """What :meth:`Scorer.score_stream` returns: the number of rows, corpus scores and signatures (the per-row
    tables went to its ``write`` callback). Empty on processes other than the main one."""

    rows: int
    corpus: dict[str, float]
    signatures: dict[str, str] = field(default_factory=dict)

    def summary(self) -> str:
        """Corpus scores and signatures as an aligned plain-text table."""
        return _summary(self.corpus, self.signatures)


class Scorer:
    """Reusable scorer: resolves metrics once, loads the weighter(s) and encoders on first use.

    With ``data_parallel=True`` under ``accelerate launch`` or ``torchrun`` (any launcher that sets ``WORLD_SIZE``),
    every process takes an equal contiguous shard of each batch of rows, and the per-row scores are gathered back
    in input order on every process; corpus scores, signatures and output are the main process's (``is_main``).
    All processes must be given the same rows. ``device="auto"`` then takes each process's own device.
    ``precision`` (``auto``, ``fp32``, ``bf16``, ``fp16``; see :func:`kpqa.encoder.amp_dtype`) sets the arithmetic
    of the encoder and the weighter; the model metrics' signatures record it. ``decide=True`` adds the decision
    columns of ``calibration`` (a file or :class:`~kpqa.calibration.Calibration`; default: the one beside the
    weighter checkpoint), which must hold an entry fitted on scores with each metric's signature; deciding, the
    default metrics are ``DECIDE_METRICS``.
    """

    def __init__(
        self,
        metrics: Sequence[str] | None = None,
        *,
        tokenize: str = DEFAULT_TOKENIZER,
        checkpoint: str | None = None,
        no_question: bool = False,
        device: str = DEFAULT_DEVICE,
        batch_size: int = DEFAULT_BATCH_SIZE,
        precision: str = DEFAULT_PRECISION,
        progress: bool = False,
        data_parallel: bool = False,
        decide: bool = False,
        calibration: str | os.PathLike | Calibration | None = None,
    ) -> None:
        if batch_size < 1:
            raise UsageError(f"--batch-size must be a positive integer, got {batch_size}")
        from kpqa.encoder import check_precision
        from kpqa.text import get_tokenizer

        self.precision = check_precision(precision)

        get_tokenizer(tokenize)  # fail early on an unknown tokenizer
        self.tokenize, self.checkpoint, self.device, self.batch_size = tokenize, checkpoint, device, batch_size
        self.progress = progress
        self._metrics: list[tuple[Metric, bool]] = []
        if metrics is not None and not any(name.strip() for name in metrics):
            raise UsageError("no metric named (--metrics is empty)")
        default = DECIDE_METRICS if decide or calibration is not None else DEFAULT_METRICS
        for name in default if metrics is None else [n for n in metrics if n.strip()]:
            registered, kp = split_kp(name.strip(), no_question)
            metric = get_metric(registered)
            if kp:
                if not hasattr(metric, "suffix"):
                    raise UsageError(f"metric {name!r} has no -KP form")
                metric.suffix = "KP"
            self._metrics.append((metric, kp))
        self._contexts: dict[bool | None, Context] = {}
        self.calibration: Calibration | None = None
        if decide or calibration is not None:
            from kpqa.calibration import default_path

            self.calibration = calibration if isinstance(calibration, Calibration) else Calibration.load(
                default_path(checkpoint) if calibration is None else calibration)
        self._entries: dict[str, MetricCalibration] | None = None
        self._judges: list[JudgeCalibration] = []
        self.rank, self.world = 0, 1
        if data_parallel and int(os.environ.get("WORLD_SIZE", "1")) > 1:
            import torch
            from accelerate import PartialState

            # gloo between CPU processes (accelerate picks the CPU backend only when told)
            state = PartialState(cpu=device == "cpu" or not torch.cuda.is_available())
            self.rank, self.world = state.process_index, state.num_processes
            # tear gloo down before the interpreter exits: left to process exit it can abort a rank
            # ("terminate called without an active exception") after all the work is done
            atexit.register(state.destroy_process_group)
            if device == "auto":
                self.device = str(state.device)

    @property
    def metrics(self) -> list[Metric]:
        """The resolved metrics, in output order."""
        return [m for m, _ in self._metrics]

    @property
    def score_columns(self) -> list[str]:
        """The metric columns, in order."""
        return [c for m, _ in self._metrics for c in m.columns()]

    @property
    def columns(self) -> list[str]:
        """The output columns, in order: the metric columns, then (deciding) ``-prob`` and ``-correct`` of each."""
        if self.calibration is None:
            return self.score_columns
        judges = [j.name for j in self.calibration.judges.values() if set(j.inputs) <= set(self.score_columns)]
        return self.score_columns + [f"{c}{s}" for c in self.score_columns + judges for s in ("-prob", "-correct")]

    @property
    def is_main(self) -> bool:
        """True on the process that writes output (always, unless data-parallel)."""
        return self.rank == 0

    def _context(self, no_question: bool, weighted: bool) -> Context:
        key = no_question if weighted else None
        if key not in self._contexts:
            weighter = None
            if weighted:
                from kpqa.weighter import Weighter

                weighter = Weighter.load(
                    self.checkpoint, no_question=no_question, device=self.device, batch_size=self.batch_size,
                    precision=self.precision,
                )
            self._contexts[key] = Context(
                tokenizer=self.tokenize, weighter=weighter, no_question=weighted and no_question, device=self.device,
                batch_size=self.batch_size, precision=self.precision,
            )
        return self._contexts[key]

    def _metric_context(self, metric: Metric, kp: bool) -> Context:
        return self._context(kp, "weights" in metric.requires)

    def _check(self, rows: Rows, source: str, numbers: Sequence[int] | None = None) -> None:
        for metric, kp in self._metrics:
            if "weights" in metric.requires and not kp:
                for number, question in zip(numbers or range(1, len(rows) + 1), rows.questions):
                    if not question.strip():
                        raise InputError(
                            f"empty question, needed by {metric.columns()[0]} (use --no-question for the -KP weighter)",
                            file=source,
                            row=number,
                            column="question",
                        )

    def _per_row(
        self, rows: Rows, progress: bool, whole_input: bool | None = None
    ) -> tuple[dict[str, np.ndarray], dict[int, Totals]]:
        """Per-row scores of this process's shard of ``rows`` and each metric's summed statistics (by index in
        ``self._metrics``; only the metrics whose ``whole_input`` is that value, unless None)."""
        chosen = [(i, m, kp) for i, (m, kp) in enumerate(self._metrics)
                  if whole_input is None or m.whole_input == whole_input]
        if not len(rows):
            return {c: np.empty(0) for _, m, _ in chosen for c in m.columns()}, {i: Totals() for i, _, _ in chosen}
        todo: Iterable[tuple[int, Metric, bool]] = chosen
        if progress:
            from tqdm.auto import tqdm

            todo = tqdm(chosen, desc="metrics", unit="metric", leave=False)
        per_row: dict[str, np.ndarray] = {}
        totals: dict[int, Totals] = {}
        memo: dict = {}  # work shared by the metrics of this batch (n-gram counts, embeddings); dropped after it
        for i, metric, kp in todo:
            ctx = replace(self._metric_context(metric, kp), memo=memo)
            stats = metric.stats(rows, ctx)
            per_row.update(metric.per_row(stats))
            totals[i] = Totals.of(stats)
        return per_row, totals

    def _gathered(
        self, rows: Rows, progress: bool, whole_input: bool | None = None
    ) -> tuple[dict[str, np.ndarray], dict[int, Totals]]:
        """Per-row scores of all of ``rows`` and the metrics' statistics summed over them: scored here, or in
        shards by every process, per-row scores gathered in order and statistics summed."""
        if self.world == 1:
            return self._per_row(rows, progress, whole_input)
        from accelerate.utils import gather_object

        bounds = [len(rows) * k // self.world for k in range(self.world + 1)]
        shard = take_rows(rows, bounds[self.rank], bounds[self.rank + 1])
        local, totals = self._per_row(shard, progress and self.is_main, whole_input)
        shards = gather_object([(local, totals)])  # one pair per process, in process order
        summed = {i: sum((t[i] for _, t in shards), Totals()) for i in totals}
        return {c: np.concatenate([s[c] for s, _ in shards]) for c in local}, summed

    def _signature(self, metric: Metric, kp: bool) -> Signature:
        return metric.signature(self._metric_context(metric, kp))

    @property
    def signatures(self) -> dict[str, str]:
        """The signature of every metric column (loads the weighter when a metric needs it)."""
        return {c: str(self._signature(m, kp)) for m, kp in self._metrics for c in m.columns()}

    def _calibrated(self) -> dict[str, MetricCalibration]:
        """Each metric column's calibration entry, checked against its signature (before any scoring)."""
        if self._entries is None:
            assert self.calibration is not None
            signatures = self.signatures
            self._entries = {c: self.calibration.entry(c, sig) for c, sig in signatures.items()}
            self._judges = self.calibration.usable_judges(signatures)
        return self._entries

    def _with_decisions(self, per_row: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
        """``per_row`` plus the ``-prob`` and ``-correct`` columns of its metric columns, when deciding."""
        if self.calibration is None:
            return per_row
        out = dict(per_row)
        for column, entry in self._calibrated().items():
            if column in per_row:
                out[f"{column}-prob"] = entry.prob(per_row[column])
                out[f"{column}-correct"] = entry.decide(per_row[column])
        for judge in self._judges:
            if all(m in per_row for m in judge.inputs):
                out[f"{judge.name}-prob"] = judge.prob(per_row)
                out[f"{judge.name}-correct"] = judge.decide(per_row)
        return out

    def _decision_totals(self, per_row: dict[str, np.ndarray]) -> dict[str, Totals]:
        """The sums of the ``-prob`` and ``-correct`` columns in ``per_row`` (their corpus values are means)."""
        if self.calibration is None:
            return {}
        return {c: Totals.of(np.asarray(v, dtype=float).reshape(-1, 1)) for c, v in per_row.items()
                if c.endswith(("-prob", "-correct")) and c not in self.score_columns}

    def _corpus(
        self, totals: dict[int, Totals], decisions: dict[str, Totals]
    ) -> tuple[dict[str, float], dict[str, str]]:
        """Corpus scores and signatures from the metrics' summed statistics (and the decision columns' sums)."""
        corpus: dict[str, float] = {}
        signatures: dict[str, Signature] = {}
        for i, (metric, kp) in enumerate(self._metrics):
            corpus.update(metric.corpus(totals.get(i, Totals())))
            signature = self._signature(metric, kp)
            for column in metric.columns():
                signatures[column] = signature
        if self.calibration is not None:
            cal = [("cal", self.calibration.digest)]
            decided = {c: signatures[c].with_fields(cal) for c in self.score_columns}
            decided.update({j.name: Signature.of(j.name, [("inputs", "+".join(j.inputs)), *cal])
                            for j in self._judges})
            for column, signature in decided.items():
                for suffix in ("-prob", "-correct"):
                    corpus[column + suffix] = decisions.get(column + suffix, Totals()).mean(0)
                    signatures[column + suffix] = signature
        return corpus, {c: str(s) for c, s in signatures.items()}

    def score_rows(
        self, rows: Rows, source: str = "<rows>", numbers: Sequence[int] | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, float], dict[str, str]]:
        """Per-row scores, corpus scores and signatures for every metric, in metric order (``numbers``: the row
        numbers messages give, default 1, 2, ...)."""
        self._check(rows, source, numbers)
        if self.calibration is not None:
            self._calibrated()
        scores, totals = self._gathered(rows, self.progress)
        per_row = self._with_decisions(scores)
        corpus, signatures = self._corpus(totals, self._decision_totals(per_row))
        return per_row, corpus, signatures

    def score(self, data: Any) -> Result:
        """Score a file path, DataFrame, ``datasets.Dataset``, records or :class:`~kpqa.io.Table`."""
        table = data if isinstance(data, Table) else read_input(data)
        per_row, corpus, signatures = self.score_rows(table.rows, table.source, table.numbers)
        return Result(frame=_with_scores(table.frame, per_row), corpus=corpus, signatures=signatures)

    def score_stream(
        self,
        tables: Iterable[Table],
        write: Callable[[pd.DataFrame], None] | None = None,
        fill: Callable[[dict[str, np.ndarray]], None] | None = None,
    ) -> StreamResult:
        """Score chunks (e.g. :func:`kpqa.io.iter_input`) one at a time, handing each chunk's table (input columns
        plus scores) to ``write`` in input order, on the main process. Memory holds one chunk's encodings; the
        texts of all rows are kept (main process only) for the corpus scores, which equal those of one pass over
        the whole input (corpus BLEU sums counts over all rows). The columns of ``whole_input`` metrics (CIDEr)
        are written empty and handed to ``fill`` at the end, scored over all rows at once, so that they too do not
        depend on the chunk size (:meth:`kpqa.io.OutputWriter.fill`)."""
        if self.calibration is not None:
            self._calibrated()  # a calibration that does not fit stops the run before any scoring
        bar = None
        if self.progress and self.is_main:
            from tqdm.auto import tqdm

            bar = tqdm(desc="rows", unit="row")
        keep = any(m.whole_input for m, _ in self._metrics)  # only then are the rows' texts needed at the end
        kept: list[Rows] = []
        totals: dict[int, Totals] = {}
        decisions: dict[str, Totals] = {}
        total = 0
        for table in tables:
            self._check(table.rows, table.source, table.numbers)
            total += len(table.rows)
            scores, chunk_totals = self._gathered(table.rows, progress=False, whole_input=False)
            per_row = self._with_decisions(scores)
            for i, t in chunk_totals.items():
                totals[i] = totals.get(i, Totals()) + t
            for c, t in self._decision_totals(per_row).items():
                decisions[c] = decisions.get(c, Totals()) + t
            if self.is_main:
                if keep:
                    kept.append(table.rows)
                if write is not None:
                    nan = np.full(len(table.rows), np.nan)
                    write(_with_scores(table.frame, {c: per_row.get(c, nan) for c in self.columns}))
            if bar is not None:
                bar.update(len(table.rows))
        if bar is not None:
            bar.close()
        if not self.is_main or not total:
            return StreamResult(rows=total, corpus={}, signatures={})
        if keep:
            rows = kept[0] if len(kept) == 1 else concat_rows(kept)
            late_scores, late_totals = self._per_row(rows, progress=False, whole_input=True)  # main process only
            totals.update(late_totals)
            late = self._with_decisions(late_scores)
            if fill is not None:
                fill(late)
            decisions.update(self._decision_totals(late))  # judges on whole-input metrics: known only now
        corpus, signatures = self._corpus(totals, decisions)
        return StreamResult(rows=total, corpus=corpus, signatures=signatures)


def _with_scores(frame: pd.DataFrame, per_row: dict[str, np.ndarray]) -> pd.DataFrame:
    out = frame.copy()
    for column, values in per_row.items():
        out[column] = values
    return out


def score(
    questions: Sequence[str] | None,
    candidates: Sequence[str],
    references: Sequence[str] | Sequence[Sequence[str]],
    metrics: Sequence[str] | None = None,
    **options: Any,
) -> pd.DataFrame:
    """Score candidates against references (one string or a list of strings per candidate).

    ``questions`` may be None with ``no_question=True`` (the -KP weighter) or lexical metrics only.
    Options are those of :class:`Scorer`. Returns one row per candidate, one column per metric.
    """
    if len(candidates) != len(references) or (questions is not None and len(questions) != len(candidates)):
        raise UsageError("questions, candidates and references must have the same length")
    records = [
        {
            "question": "" if questions is None else questions[i],
            "answer": candidates[i],
            "references": [references[i]] if isinstance(references[i], str) else list(references[i]),
        }
        for i in range(len(candidates))
    ]
    return Scorer(metrics, **options).score(records).frame
