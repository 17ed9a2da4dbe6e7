"""Decisions: a calibration applied to per-row scores, the one way the scorer (``kpqa score --decide``) and the
meta-evaluation (``kpqa meta-eval``'s "correct or not" section) both do it (:meth:`Decisions.apply`). See
:mod:`kpqa.calibration`."""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Iterable, Iterator, Mapping, Sequence

import numpy as np

from kpqa.calibration.model import JUDGE_KIND, Calibration, JudgeCalibration, MetricCalibration
from kpqa.errors import KpqaWarning
from kpqa.roles import DECISION_SUFFIXES, DECISIONS, Role, decided_metric, role_of
from kpqa.signature import Signature

__all__ = ["DECISION_SUFFIXES", "Decisions", "JudgeSet", "decided_metric", "decision_columns", "unfit",
           "warn_unjudged"]


@dataclass(frozen=True)
class JudgeSet:
    """Some judges of one calibration, and which of them decides each row: a judge decides in its own columns
    (``J-prob``, ``J-correct``) unless it decides in another's place (:attr:`JudgeCalibration.replaces`: on the
    rows where all its inputs are scored, the rows with known-wrong answers). The one reader of ``replaces``."""

    judges: tuple[JudgeCalibration, ...] = ()

    @classmethod
    def every(cls, calibration: Calibration) -> "JudgeSet":
        """Every judge of ``calibration``."""
        return cls(tuple(calibration.judges.values()))

    def __iter__(self) -> Iterator[JudgeCalibration]:
        return iter(self.judges)

    def on(self, columns: Iterable[str]) -> "JudgeSet":
        """The judges whose inputs are all among ``columns``."""
        have = set(columns)
        return JudgeSet(tuple(j for j in self.judges if set(j.inputs) <= have))

    def deciding(self) -> list[JudgeCalibration]:
        """The judges with decision columns of their own."""
        return [j for j in self.judges if j.replaces is None]

    def in_place_of(self, name: str) -> list[JudgeCalibration]:
        """The judges that decide in judge ``name``'s place where their inputs are scored."""
        return [j for j in self.judges if j.replaces == name]

    def lacking(self, columns: Sequence[str]) -> dict[str, list[str]]:
        """Each judge with columns of its own that cannot decide on ``columns``, with the inputs they lack."""
        missing = {j.name: [m for m in j.inputs if m not in columns] for j in self.deciding()}
        return {name: m for name, m in missing.items() if m}

    def apply(self, per_row: Mapping[str, np.ndarray], out: dict[str, np.ndarray], prior: float | None) -> None:
        """Add to ``out`` the decision columns of each judge whose inputs ``per_row`` all has, each then replaced
        on the rows that a judge deciding in its place has every input of."""
        usable = self.on(per_row)
        for judge in usable.deciding():
            out[Role.PROB.of(judge.name)] = judge.prob(per_row, prior)
            out[Role.CORRECT.of(judge.name)] = judge.decide(per_row, prior)
            for other in usable.in_place_of(judge.name):
                scored = np.all(np.isfinite(other.features(per_row)), axis=1)
                if scored.any():
                    full = {m: np.where(scored, np.asarray(per_row[m], dtype=float), 0.0) for m in other.inputs}
                    for role, values in ((Role.PROB, other.prob(full, prior)), (Role.CORRECT, other.decide(full, prior))):
                        column = role.of(judge.name)
                        out[column] = np.where(scored, values, out[column])


def decision_columns(calibration: Calibration, columns: list[str], fit_only: bool = False) -> list[str]:
    """``-prob`` and ``-correct`` of each of ``columns`` (but the scores against known-wrong answers, ``M-wrong``:
    a judge's inputs only) and of the judges with columns of their own whose inputs are all among them
    (:class:`JudgeSet`); ``fit_only``: of those whose decisions mean something (:meth:`Calibration.rating`) alone."""
    judges = [j.name for j in JudgeSet.every(calibration).on(columns).deciding()]
    decided = [c for c in columns if role_of(c) is not Role.WRONG]
    return [role.of(c) for c in decided + judges if not fit_only or _fit(calibration, c) for role in DECISIONS]


def unfit(calibration: Calibration, columns: list[str]) -> dict[str, str]:
    """The metrics of ``columns`` and the judges that read only them whose decisions the calibration rates unfit,
    each with what it fails (:mod:`kpqa.calibration.fitness`)."""
    judges = [j.name for j in JudgeSet.every(calibration).on(columns).deciding()]
    decided = [c for c in columns if role_of(c) is not Role.WRONG]
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
    judges: JudgeSet
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
            if role_of(column) is Role.WRONG:  # a judge's input, no decision of its own
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
        return cls(calibration, entries, JudgeSet(tuple(judges)), prior, unchecked)

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
                out[Role.PROB.of(column)] = entry.prob(per_row[column], self.prior)
                out[Role.CORRECT.of(column)] = entry.decide(per_row[column], self.prior)
        self.judges.apply(per_row, out, self.prior)
        return out

    def signatures(self, signatures: Mapping[str, Signature]) -> dict[str, Signature]:
        """The decision columns' signatures: their metric's (in ``signatures``) plus ``cal:`` (the calibration's
        digest) and ``prior:`` when one is set; a judge's: its inputs, its ``kind`` (but the default one's), ``cal:``
        and ``prior:``."""
        cal = [("cal", self.calibration.digest)] + ([("prior", f"{self.prior:g}")] if self.prior is not None else [])
        decided = {c: signatures[c].with_fields(cal) for c in self.entries}
        decided.update({j.name: Signature.of(j.name, [("inputs", "+".join(j.inputs)), *_kind(j),
                                                      *_in_place(j, self.judges), *cal])
                        for j in self.judges.deciding()})
        return {role.of(column): signature for column, signature in decided.items() for role in DECISIONS}


def _in_place(judge: JudgeCalibration, judges: JudgeSet) -> list[tuple[str, str]]:
    """The ``known-wrong`` field of a judge's decision signatures: the judges that decide in its place where the
    known-wrong answers are scored (their extra inputs), none when there are none."""
    extra = ["+".join(m for m in j.inputs if m not in judge.inputs) for j in judges.in_place_of(judge.name)]
    return [("known-wrong", ",".join(extra))] if extra else []


def _kind(judge: JudgeCalibration) -> list[tuple[str, str]]:
    """The ``kind`` field of a judge's decision signatures: none for the default kind (as before kinds existed)."""
    return [] if judge.kind == JUDGE_KIND else [("kind", judge.kind)]


def warn_unjudged(calibration: Calibration, columns: Sequence[str]) -> None:
    """A :class:`~kpqa.errors.KpqaWarning` for each judge of ``calibration`` that cannot decide on ``columns`` (say
    why: the inputs it reads that they lack); a judge that decides in another's place is never missed."""
    for name, missing in JudgeSet.every(calibration).lacking(columns).items():
        warnings.warn(KpqaWarning(f"{name} left out: it reads {', '.join(missing)}, which this run does not "
                                  "score (a -KP metric is another metric than its -KPQA one)"), stacklevel=3)
