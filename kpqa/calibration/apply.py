"""Decisions: a calibration applied to per-row scores, the one way the scorer (``kpqa score --decide``) and the
meta-evaluation (``kpqa meta-eval``'s "correct or not" section) both do it (:meth:`Decisions.apply`). See
:mod:`kpqa.calibration`."""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Mapping, Sequence

import numpy as np

from kpqa.calibration.model import JUDGE_KIND, Calibration, JudgeCalibration, MetricCalibration
from kpqa.errors import KpqaWarning
from kpqa.rows import WRONG_SUFFIX
from kpqa.signature import Signature

#: the decision columns of a metric or judge ``M``: ``M-prob`` (P(correct)) and ``M-correct`` (1 / 0)
DECISION_SUFFIXES = ("-prob", "-correct")


def decided_metric(column: str) -> str:
    """The metric or judge column a decision column (``M-prob``, ``M-correct``) is of; any other column itself."""
    for suffix in DECISION_SUFFIXES:
        if column.endswith(suffix):
            return column.removesuffix(suffix)
    return column


def decision_columns(calibration: Calibration, columns: list[str], fit_only: bool = False) -> list[str]:
    """``-prob`` and ``-correct`` of each of ``columns`` (but the scores against known-wrong answers, ``M-wrong``:
    a judge's inputs only) and of the judges whose inputs are all among them (but those that decide in another's
    place: :attr:`~kpqa.calibration.JudgeCalibration.replaces`); ``fit_only``: of those whose decisions mean
    something (:meth:`Calibration.rating`) alone."""
    judges = [j.name for j in calibration.judges.values() if set(j.inputs) <= set(columns) and j.replaces is None]
    decided = [c for c in columns if not c.endswith(WRONG_SUFFIX)]
    return [f"{c}{s}" for c in decided + judges if not fit_only or _fit(calibration, c) for s in DECISION_SUFFIXES]


def unfit(calibration: Calibration, columns: list[str]) -> dict[str, str]:
    """The metrics of ``columns`` and the judges that read only them whose decisions the calibration rates unfit,
    each with what it fails (:mod:`kpqa.calibration.fitness`)."""
    judges = [j.name for j in calibration.judges.values() if set(j.inputs) <= set(columns) and j.replaces is None]
    decided = [c for c in columns if not c.endswith(WRONG_SUFFIX)]
    return {c: calibration.rating(c).why() for c in judges + decided if not _fit(calibration, c)}


def _fit(calibration: Calibration, name: str) -> bool:
    """Whether ``name`` has an entry (or is a judge) of ``calibration`` rated fit; True for a name without one."""
    return name not in calibration.metrics and name not in calibration.judges or calibration.rating(name).fit


@dataclass
class Decisions:
    """A calibration's entries for some score columns (checked against their signatures), the judges usable on
    them, and the share of correct answers assumed (``prior``; None: :data:`~kpqa.calibration.PRIOR`).
    ``unchecked``: the columns whose entry was taken without a signature to check (scores read from a file)."""

    calibration: Calibration
    entries: dict[str, MetricCalibration]
    judges: list[JudgeCalibration]
    prior: float | None = None
    unchecked: list[str] = field(default_factory=list)

    @classmethod
    def of(cls, calibration: Calibration, signatures: Mapping[str, Signature | None], prior: float | None = None,
           *, every: bool = True, fit_only: bool = False) -> "Decisions":
        """The entries of the columns of ``signatures``: each checked against its signature (CalibrationError when
        it was fitted on other scores; a None signature is not checked); a column without an entry is a
        CalibrationError when ``every``, else left undecided. The judges: those whose inputs all have a
        signature (unless ``every``, also those that read columns with a None signature: unchecked). ``fit_only``:
        the entries and judges rated fit alone (:meth:`Calibration.rating`; every one is checked all the same)."""
        entries, unchecked = {}, []
        for column, signature in signatures.items():
            if column.endswith(WRONG_SUFFIX):  # a judge's input, no decision of its own
                continue
            if signature is None and column in calibration.metrics:
                entries[column] = calibration.metrics[column]
                unchecked.append(column)
            elif signature is not None and (every or column in calibration.metrics):
                entries[column] = calibration.entry(column, signature)
        known = {c: s for c, s in signatures.items() if s is not None}
        judges = calibration.usable_judges(known)
        for judge in [] if every else calibration.judges.values():  # a judge may read unchecked columns too
            if judge not in judges and all(m in signatures for m in judge.inputs):
                filled = {m: signatures[m] or judge.fitted_on[m] for m in judge.inputs}
                if judge in calibration.usable_judges(filled):
                    judges.append(judge)
                    unchecked.append(judge.name)
        if fit_only:
            entries = {c: e for c, e in entries.items() if _fit(calibration, c)}
            judges = [j for j in judges if _fit(calibration, j.name)]
        return cls(calibration, entries, judges, prior, unchecked)

    def apply(self, per_row: Mapping[str, np.ndarray], empty: np.ndarray | None = None) -> dict[str, np.ndarray]:
        """``M-prob`` and ``M-correct`` of each column ``M`` of ``per_row`` with an entry, then of each judge whose
        inputs ``per_row`` all has. ``empty``: a mask of the rows whose answer is empty (a system that said nothing),
        judged wrong by every entry and judge (P(correct) 0)."""
        out = self._apply(per_row)
        if empty is None or not np.any(empty):
            return out
        return {c: np.where(np.asarray(empty, dtype=bool), 0.0, np.asarray(v, dtype=float)) for c, v in out.items()}

    def _apply(self, per_row: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
        out = {}
        for column, entry in self.entries.items():
            if column in per_row:
                out[f"{column}-prob"] = entry.prob(per_row[column], self.prior)
                out[f"{column}-correct"] = entry.decide(per_row[column], self.prior)
        for judge in self.judges:
            if judge.replaces is None and all(m in per_row for m in judge.inputs):
                out[f"{judge.name}-prob"] = judge.prob(per_row, self.prior)
                out[f"{judge.name}-correct"] = judge.decide(per_row, self.prior)
        for judge in self.judges:  # in the place of another judge, on the rows where all its inputs are scored
            if judge.replaces is not None and f"{judge.replaces}-prob" in out \
                    and all(m in per_row for m in judge.inputs):
                scored = np.all(np.isfinite(judge.features(per_row)), axis=1)
                if scored.any():
                    full = {m: np.where(scored, np.asarray(per_row[m], dtype=float), 0.0) for m in judge.inputs}
                    for suffix, values in (("-prob", judge.prob(full, self.prior)),
                                           ("-correct", judge.decide(full, self.prior))):
                        column = f"{judge.replaces}{suffix}"
                        out[column] = np.where(scored, values, out[column])
        return out

    def signatures(self, signatures: Mapping[str, Signature]) -> dict[str, Signature]:
        """The decision columns' signatures: their metric's (in ``signatures``) plus ``cal:`` (the calibration's
        digest) and ``prior:`` when one is set; a judge's: its inputs, its ``kind`` (but the default one's), ``cal:``
        and ``prior:``."""
        cal = [("cal", self.calibration.digest)] + ([("prior", f"{self.prior:g}")] if self.prior is not None else [])
        decided = {c: signatures[c].with_fields(cal) for c in self.entries}
        decided.update({j.name: Signature.of(j.name, [("inputs", "+".join(j.inputs)), *_kind(j),
                                                      *_in_place(j, self.judges), *cal])
                        for j in self.judges if j.replaces is None})
        return {column + suffix: signature for column, signature in decided.items() for suffix in DECISION_SUFFIXES}


def _in_place(judge: JudgeCalibration, judges: Sequence[JudgeCalibration]) -> list[tuple[str, str]]:
    """The ``known-wrong`` field of a judge's decision signatures: the judges that decide in its place where the
    known-wrong answers are scored (their extra inputs), none when there are none."""
    extra = ["+".join(m for m in j.inputs if m not in judge.inputs) for j in judges if j.replaces == judge.name]
    return [("known-wrong", ",".join(extra))] if extra else []


def _kind(judge: JudgeCalibration) -> list[tuple[str, str]]:
    """The ``kind`` field of a judge's decision signatures: none for the default kind (as before kinds existed)."""
    return [] if judge.kind == JUDGE_KIND else [("kind", judge.kind)]


def warn_unjudged(calibration: Calibration, columns: Sequence[str]) -> None:
    """A :class:`~kpqa.errors.KpqaWarning` for each judge of ``calibration`` that cannot decide on ``columns`` (say
    why: the inputs it reads that they lack)."""
    for judge in calibration.judges.values():
        missing = [m for m in judge.inputs if m not in columns]
        if judge.replaces is not None:  # decides only where its inputs are there (known-wrong answers given)
            continue
        if missing:
            warnings.warn(KpqaWarning(f"{judge.name} left out: it reads {', '.join(missing)}, which this run does not "
                                      "score (a -KP metric is another metric than its -KPQA one)"), stacklevel=3)
