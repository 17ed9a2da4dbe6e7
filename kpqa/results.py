"""What scoring gives back: per-row tables, corpus scores and signatures (:class:`Result`, :class:`StreamResult`,
both with a :class:`Summary`), the frame helpers that put per-row scores beside the input's columns, and what a
run's signatures file holds (:func:`signature_record`)."""
from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

import numpy as np
import pandas as pd

from kpqa.calibration import Calibration
from kpqa.roles import Role, decided_metric, role_of
from kpqa.calibration.fitness import MIN_BALANCED
from kpqa.errors import InputError
from kpqa.input import Table
from kpqa.metrics.base import Totals
from kpqa.signature import Signature

#: what is added to an output file's name to name the file of its run's signatures (:func:`signature_record`)
SIGNATURES_SUFFIX = ".signatures.json"
#: the ``error`` column of the output when ``on_error`` is ``skip`` or ``zero``
ERROR_COLUMN = "error"

#: the column of why KPQA-judge decided a row wrong (:mod:`kpqa.reasons`); empty for a row judged correct
REASON = "KPQA-judge-reason"

def signature_record(signatures: dict[str, Signature], calibration: Calibration | None = None) -> dict[str, Any]:
    """What a run's signatures file holds (JSON-ready): every column's full signature and its short hash, and the
    calibration the decisions were made with (its path and digest, the signatures' ``cal:``)."""
    record: dict[str, Any] = {"signatures": {c: str(s) for c, s in signatures.items()},
                              "short_hashes": {c: s.short_hash for c, s in signatures.items()}}
    if calibration is not None:
        record["calibration"] = {"path": calibration.path, "digest": calibration.digest}
    return record


def write_signatures(output: str | os.PathLike, signatures: dict[str, Signature],
                     calibration: Calibration | None = None, inputs: Sequence[str | os.PathLike] = (),
                     force: bool = False) -> str:
    """Write the signatures file of the scores written to ``output`` (``output`` + :data:`SIGNATURES_SUFFIX`,
    :func:`signature_record`, atomically as every output: :func:`kpqa.output.write_text`, which refuses to replace one
    of ``inputs`` unless ``force``), which :func:`read_signatures` reads back; its path."""
    from kpqa.output import write_text

    sidecar = f"{output}{SIGNATURES_SUFFIX}"
    write_text(sidecar, json.dumps(signature_record(signatures, calibration), indent=2, ensure_ascii=False) + "\n",
               inputs=list(inputs), force=force)
    return sidecar


def read_signatures(path: str | os.PathLike) -> dict[str, str]:
    """Column -> signature text from ``path`` + :data:`SIGNATURES_SUFFIX` (``{"signatures": {...}}`` as
    ``kpqa score -o`` writes it, or a flat object); empty when there is no such file."""
    sidecar = Path(f"{path}{SIGNATURES_SUFFIX}")
    if not sidecar.is_file():
        return {}
    try:
        record = json.loads(sidecar.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise InputError(f"not a signatures file: {e}", file=str(sidecar)) from None
    found = record.get("signatures", record) if isinstance(record, dict) else None
    if not isinstance(found, dict) or not all(isinstance(v, str) for v in found.values()):
        raise InputError("not a signatures file: expected an object of column -> signature text", file=str(sidecar))
    return {str(k): v for k, v in found.items()}


class Summary:
    """What a result of scoring says in a few lines: its corpus scores and signatures (:meth:`summary`)."""

    corpus: dict[str, float]
    signatures: dict[str, Signature]
    unfit: dict[str, str]

    def summary(self, verbose: bool = False) -> str:
        """Corpus scores as an aligned plain-text table, one row per metric and judge (judges first): name, corpus
        score, mean P(correct) and share judged correct (when deciding; ``unfit`` for a metric whose calibration
        does not pass the bar of :mod:`kpqa.calibration.fitness`, which gets no decisions), the short hash of its
        signature (:attr:`~kpqa.signature.Signature.short_hash`); ``verbose``: every column with its full
        signature."""
        corpus, signatures = self.corpus, self.signatures
        width = max(map(len, corpus), default=0)
        note = ([f"no decisions from {', '.join(self.unfit)}: their calibration does not pass the bar (decisions "
                 f"right on {MIN_BALANCED:.0%} of the answers, class-balanced, and none on effectively zero scores; "
                 "`kpqa calibrate` gives each one's figures, docs/decisions.md why)"] if self.unfit else [])
        if verbose:
            return "\n".join([f"{name:<{width}}  {value:.4f}  {signatures.get(name, '')}"
                              for name, value in corpus.items()] + note)
        if not corpus:
            return ""
        names = list(dict.fromkeys(decided_metric(c) for c in corpus))
        names = [n for n in names if n not in corpus] + [n for n in names if n in corpus]  # judges first
        deciding = any(role_of(c) is Role.CORRECT for c in corpus)
        width = max(map(len, names + ["metric"]))
        value = lambda c: f"{corpus[c]:.4f}" if c in corpus else ""  # noqa: E731
        lines = [f"{'metric':<{width}}   score" + ("  P(correct)  correct" if deciding else "") + "  signature"]
        for name in names:
            signature = signatures.get(name) or signatures.get(Role.CORRECT.of(name))
            decided = (f"  {'':>10}  {'unfit':>7}" if name in self.unfit else
                       f"  {value(Role.PROB.of(name)):>10}  {value(Role.CORRECT.of(name)):>7}") if deciding else ""
            lines.append(f"{name:<{width}}  {value(name):>6}{decided}  {signature.short_hash if signature else ''}")
        return "\n".join(lines + note)


@dataclass
class Result(Summary):
    """Per-row scores (``frame``: the input columns plus one column per metric, and an ``error`` column when
    ``on_error`` is ``skip`` or ``zero``), corpus scores, :class:`~kpqa.signature.Signature` objects (``str()`` prints
    one), and the rows left unscored (row number -> why)."""

    frame: pd.DataFrame
    corpus: dict[str, float]
    signatures: dict[str, Signature] = field(default_factory=dict)
    errors: dict[int, str] = field(default_factory=dict)
    empty: list[int] = field(default_factory=list)  # rows whose answer is empty: scored as "", judged wrong
    unfit: dict[str, str] = field(default_factory=dict)  # metric -> why its decisions are not written


def sums(per_row: dict[str, np.ndarray]) -> dict[str, Totals]:
    """Each column's sum (of a decision column: its corpus value is the mean)."""
    return {c: Totals.of(np.asarray(v, dtype=float).reshape(-1, 1)) for c, v in per_row.items()}

@dataclass
class StreamResult(Summary):
    """What a stream of chunks scored gives (:meth:`kpqa.scoring.Scorer.score_stream`): the number of rows, corpus
    scores, signatures and the rows left unscored (the per-row tables went to its ``write`` callback). Empty on
    processes other than the main one."""

    rows: int
    corpus: dict[str, float]
    signatures: dict[str, Signature] = field(default_factory=dict)
    errors: dict[int, str] = field(default_factory=dict)
    empty: list[int] = field(default_factory=list)  # rows whose answer is empty: scored as "", judged wrong
    unfit: dict[str, str] = field(default_factory=dict)  # metric -> why its decisions are not written


def missing_score(on_error: str) -> float:
    """The score of a row that could not be scored: empty (``skip``) or 0 (``zero``)."""
    return 0.0 if on_error == "zero" else np.nan


def scored_frame(table: Table, per_row: dict[str, np.ndarray], columns: list[str], on_error: str,
                 texts: dict[str, list[str]] | None = None) -> pd.DataFrame:
    """The table's frame with the value ``columns`` (NaN for those ``per_row`` lacks), the ``texts`` columns (one
    text per scored row; empty for a row not scored) and, when ``on_error`` is not ``raise``, the ``error``
    column."""
    out = table.frame.copy()
    n = len(out)
    kept = np.arange(n) if table.kept_rows is None else np.asarray(table.kept_rows, dtype=int)
    for column in columns:
        values = per_row.get(column)
        out[column] = np.full(n, np.nan) if values is None else spread(values, kept, n, missing_score(on_error))
    for column, text in (texts or {}).items():
        cells = [""] * n
        for i, t in zip(kept, text):
            cells[i] = t
        out[column] = cells
    if on_error != "raise":
        out[ERROR_COLUMN] = [table.errors.get(i, "") for i in range(n)]
    return out


def spread(values: np.ndarray, where: np.ndarray, n: int, missing: float) -> np.ndarray:
    """``n`` values: ``values`` at the positions ``where``, ``missing`` elsewhere."""
    out = np.full(n, missing, dtype=float)
    out[where] = values
    return out


def numbered(table: Table) -> dict[int, str]:
    """The table's errors by row number."""
    return {table.numbers[i]: reason for i, reason in sorted(table.errors.items())}


