"""Scoring: rows -> metrics -> a table of per-row scores, corpus scores and signatures.

:class:`Scorer` loads the weighter and encoders once and can be reused across calls; :func:`score` is the one-shot
form in the shape bert-score users know, plus questions.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np
import pandas as pd

import kpqa.metrics  # noqa: F401  (registers the metrics)
from kpqa.errors import InputError, UsageError
from kpqa.io import Table, read_input
from kpqa.metrics.base import Context, Metric, Rows, get_metric

DEFAULT_METRICS = ("BLEU-1", "BLEU-4", "ROUGE-L", "BERTScore", "BLEU-1-KPQA", "ROUGE-L-KPQA", "BERTScore-KPQA")


@dataclass
class Result:
    """Per-row scores (``frame``: the input columns plus one column per metric), corpus scores and signatures."""

    frame: pd.DataFrame
    corpus: dict[str, float]
    signatures: dict[str, str] = field(default_factory=dict)

    def summary(self) -> str:
        """Corpus scores and signatures as an aligned plain-text table."""
        width = max(map(len, self.corpus), default=0)
        lines = [f"{name:<{width}}  {value:.4f}  {self.signatures.get(name, '')}" for name, value in self.corpus.items()]
        return "\n".join(lines)


def _split_kp(name: str, no_question: bool) -> tuple[str, bool]:
    """Map a requested column name to (registered metric name, uses the no-question weighter)."""
    if name.endswith("-KP"):
        return name + "QA", True
    return name, no_question and name.endswith("-KPQA")


class Scorer:
    """Reusable scorer: resolves metrics once, loads the weighter(s) and encoders on first use."""

    def __init__(
        self,
        metrics: Sequence[str] | None = None,
        *,
        tokenize: str = "ptb",
        checkpoint: str | None = None,
        no_question: bool = False,
        device: str = "auto",
        batch_size: int = 64,
        progress: bool = False,
    ) -> None:
        if batch_size < 1:
            raise UsageError(f"--batch-size must be a positive integer, got {batch_size}")
        from kpqa.text import get_tokenizer

        get_tokenizer(tokenize)  # fail early on an unknown tokenizer
        self.tokenize, self.checkpoint, self.device, self.batch_size = tokenize, checkpoint, device, batch_size
        self.progress = progress
        self._metrics: list[tuple[Metric, bool]] = []
        for name in metrics or DEFAULT_METRICS:
            registered, kp = _split_kp(name.strip(), no_question)
            metric = get_metric(registered)
            if kp:
                if not hasattr(metric, "suffix"):
                    raise UsageError(f"metric {name!r} has no -KP form")
                metric.suffix = "KP"
            self._metrics.append((metric, kp))
        self._contexts: dict[bool, Context] = {}

    @property
    def metrics(self) -> list[Metric]:
        """The resolved metrics, in output order."""
        return [m for m, _ in self._metrics]

    def _context(self, no_question: bool, weighted: bool) -> Context:
        key = no_question if weighted else None
        if key not in self._contexts:
            ctx = Context(tokenizer=self.tokenize, extras={"device": self.device, "batch_size": self.batch_size})
            if weighted:
                from kpqa.weighter import Weighter

                weighter = Weighter.load(
                    self.checkpoint, no_question=no_question, device=self.device, batch_size=self.batch_size
                )
                ctx.word_weights = weighter.word_weights
                ctx.extras["weighter"] = weighter
            self._contexts[key] = ctx
        return self._contexts[key]

    def _check(self, rows: Rows, source: str) -> None:
        for metric, kp in self._metrics:
            if "weights" in metric.requires and not kp:
                for number, question in enumerate(rows.questions, 1):
                    if not question.strip():
                        raise InputError(
                            f"empty question, needed by {metric.columns()[0]} (use --no-question for the -KP weighter)",
                            file=source,
                            row=number,
                            column="question",
                        )

    def score_rows(self, rows: Rows, source: str = "<rows>") -> tuple[dict[str, np.ndarray], dict[str, float], dict[str, str]]:
        """Per-row scores, corpus scores and signatures for every metric, in metric order."""
        self._check(rows, source)
        per_row: dict[str, np.ndarray] = {}
        corpus: dict[str, float] = {}
        signatures: dict[str, str] = {}
        metrics = self._metrics
        if self.progress:
            from tqdm.auto import tqdm

            metrics = tqdm(metrics, desc="metrics", unit="metric")
        for metric, kp in metrics:
            weighted = "weights" in metric.requires
            ctx = self._context(kp, weighted)
            scores = metric.score(rows, ctx)
            per_row.update(scores)
            corpus.update(metric.corpus_score(rows, ctx, scores))
            signature = metric.signature(ctx)
            if weighted:
                weighter = ctx.extras["weighter"]
                signature += f"|kpw:{weighter.checkpoint_hash}|backbone:{weighter.backbone}|question:{'no' if kp else 'yes'}"
            for column in scores:
                signatures[column] = signature
        return per_row, corpus, signatures

    def score(self, data: Any) -> Result:
        """Score a file path, DataFrame, ``datasets.Dataset``, records or :class:`~kpqa.io.Table`."""
        table = data if isinstance(data, Table) else read_input(data)
        per_row, corpus, signatures = self.score_rows(table.rows, table.source)
        frame = table.frame.copy()
        for column, values in per_row.items():
            frame[column] = values
        return Result(frame=frame, corpus=corpus, signatures=signatures)


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
