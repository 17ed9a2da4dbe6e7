"""Meta-evaluation statistics: one :class:`DatasetReport` per loaded file (correlations, paired tests, rank pairs,
overall level, breakdowns, binary section) in a :class:`Report`, which :mod:`kpqa.metaeval.render` writes as
Markdown, JSON (:meth:`Report.to_dict`) or plots."""
from __future__ import annotations

import warnings
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from kpqa.metaeval import statistics
from kpqa.errors import Param, UsageError
from kpqa.version import __version__
from kpqa.columns import as_binary
from kpqa.metaeval.data import Dataset, ScorerFactory, Settings, aev_scores, load_all

from kpqa.metrics.spec import SUFFIXES, base_metric
from kpqa.roles import Role, ResultColumn, role_of

if TYPE_CHECKING:
    from kpqa.calibration import Decisions

__all__ = ["SUFFIXES", "BinarySection", "Breakdown", "DatasetReport", "Group", "HumanRange", "OverallSection",
           "RankPairSection", "Report", "ReportSettings", "Systems", "base_metric", "build_report", "evaluate", "run"]

#: metric -> statistic (:data:`kpqa.metaeval.statistics.STATISTICS`) -> its correlation with the human scores
Correlations = dict[str, dict[str, statistics.Correlation]]


def _optional() -> Any:
    """A field that is None when the report has no such part, and then left out of :meth:`Part.to_dict`."""
    return field(default=None, metadata={"optional": True})


def to_plain(value: Any) -> Any:
    """``value`` as JSON-ready data: anything with a ``to_dict`` (report parts, :mod:`kpqa.metaeval.statistics` results) through it,
    dicts and lists item by item."""
    if hasattr(value, "to_dict"):
        return value.to_dict()
    if isinstance(value, dict):
        return {k: to_plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_plain(v) for v in value]
    return value


class Part:
    """A part of the report (a dataclass): :meth:`to_dict` gives its fields in order, an optional one only when
    it is there."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {f.name: to_plain(getattr(self, f.name)) for f in fields(self)  # type: ignore[arg-type]
                if not (f.metadata.get("optional") and getattr(self, f.name) is None)}


@dataclass
class HumanRange(Part):
    """Mean, smallest and largest human score."""

    mean: float
    min: float
    max: float


@dataclass
class Systems(Part):
    """How many systems answer the items, and how they were told apart (:func:`kpqa.metaeval.detect_systems`)."""

    count: int
    how: str


@dataclass
class RankPairSection(Part):
    """Rank-pair agreement (KPQA paper, Table 7): the rule that keeps a pair, how many pairs of answers to the same
    item there are and how many it keeps, one result per metric; ``note`` says why it is undefined."""

    rule: str
    same_item_pairs: int | None = _optional()
    pairs: int = 0
    results: list[statistics.RankPairs] | None = _optional()
    note: str | None = _optional()


@dataclass
class OverallSection(Part):
    """Yang et al.'s overall level: the draws' protocol and one result per metric; ``note`` says why it is
    undefined."""

    questions: int
    draws: int
    seed: int
    results: list[statistics.OverallLevel] | None = _optional()
    note: str | None = _optional()


@dataclass
class Group(Part):
    """The rows of one value of the breakdown column and their correlations."""

    rows: int
    correlations: Correlations


@dataclass
class Breakdown(Part):
    """Correlations per value of ``column``."""

    column: str
    groups: dict[str, Group]


@dataclass
class BinarySection(Part):
    """The "correct or not" section: labelled rows and correct ones, the calibration used (path and digest), per
    judge its :func:`kpqa.binary.evaluate` statistics (name -> statistic -> value with interval), the reliability
    bins of each calibrated probability, notes, and accuracy per answer-length band (band -> rows, positives,
    accuracy per judge)."""

    rows: int
    positives: int
    calibration: dict[str, str] | None
    results: dict[str, dict[str, dict[str, Any]]]
    reliability: dict[str, dict[str, list]]
    notes: list[str]
    bands: dict[str, dict[str, Any]] = field(default_factory=dict)


@dataclass
class DatasetReport(Part):
    """Every statistic of one data set; ``warnings``: what the report must say about it."""

    name: str
    source: str
    rows: int
    human_column: str
    human: HumanRange
    systems: Systems
    signatures: dict[str, str]
    correlations: Correlations
    paired: list[statistics.PairedTest]
    rank_pairs: RankPairSection
    overall: OverallSection
    by: Breakdown | None = _optional()
    aev_grid: statistics.Grid | None = _optional()
    binary: BinarySection | None = _optional()
    warnings: list[str] = field(default_factory=list)


@dataclass
class ReportSettings(Part):
    """The settings a report was made with (those its numbers depend on)."""

    metrics: list[str]
    human_column: str
    system_column: str | None
    by: str | None
    bootstrap: int
    seed: int
    rank_pair_threshold: float
    rank_pair_strict: bool
    positive_above: float | None

    @classmethod
    def of(cls, settings: Settings) -> "ReportSettings":
        """The report's part of a run's :class:`Settings`."""
        return cls(settings.metrics, settings.human_column, settings.system_column, settings.by, settings.bootstrap,
                   settings.seed, settings.threshold, settings.strict, settings.positive_above)


@dataclass
class Report(Part):
    """A meta-evaluation: the kpqa version, the settings and one :class:`DatasetReport` per data set."""

    kpqa_version: str
    settings: ReportSettings
    datasets: list[DatasetReport]


def _binary(data: Dataset, settings: Settings, labels: np.ndarray) -> dict[str, Any]:
    """The "correct or not" section: one row of :func:`kpqa.binary.evaluate` statistics per metric, judge and
    baseline, their accuracy per answer-length band (:data:`kpqa.binary.LENGTH_BANDS`), and the reliability bins of
    every calibrated probability. The decisions are :meth:`kpqa.calibration.Decisions.apply`'s, as ``kpqa score
    --decide`` makes them."""
    from kpqa import binary
    from kpqa.calibration import Decisions, load
    from kpqa.rows import empty_answers

    cal = load(settings.calibration, settings.scorer_options.checkpoint, required=False)
    out: dict[str, Any] = {"rows": len(labels), "positives": int(labels.sum()),
                           "calibration": None if cal is None else {"path": cal.path, "digest": cal.digest},
                           "results": {}, "reliability": {}, "notes": []}
    decisions = None if cal is None else Decisions.of(cal, data.signatures, every=False)
    decided = {} if decisions is None else decisions.apply({**data.scores, **data.wrong},
                                                           empty_answers(data.table.rows))
    parsed = {c: ResultColumn.parse(c) for c in decided}
    probs = {parsed[c].metric: p for c, p in decided.items() if parsed[c].role is Role.PROB}
    choices = {parsed[c].metric: d for c, d in decided.items() if parsed[c].role is Role.CORRECT}
    options: dict[str, Any] = {"bootstrap": settings.bootstrap, "seed": settings.seed}
    for c, raw in data.scores.items():
        signature = data.signatures.get(c)
        higher = signature is None or signature.higher_is_better
        s = raw if higher else -raw  # AUROC and AP rank by correctness
        if c in probs:
            out["results"][c] = binary.evaluate(labels, scores=s, probs=probs[c], decisions=choices[c], **options)
            if decisions is not None and c in decisions.unchecked:
                out["notes"].append(f"{c}: calibrated scores from the input column; their signature is unchecked")
        elif higher and np.isin(s, (0.0, 1.0)).all():
            choices[c] = s
            out["results"][c] = binary.evaluate(labels, scores=s, probs=s, decisions=s, **options)
        else:
            out["results"][c] = binary.evaluate(labels, scores=s, **options)
            out["notes"].append(f"{c}: no calibration, so AUROC and AP only (fit one with `kpqa calibrate`)")
    judges = [] if decisions is None else [j.name for j in decisions.judges.deciding()]
    for name in judges:
        out["results"][name] = binary.evaluate(labels, scores=probs[name], probs=probs[name],
                                               decisions=choices[name], **options)
        if decisions is not None and name in decisions.unchecked:
            out["notes"].append(f"{name}: inputs from the file's columns; their signatures are unchecked")
        out["notes"] += _in_place_note(name, decisions, data.wrong) if decisions is not None else []
    choices = {name: choices[name] for name in [*data.scores, *judges] if name in choices}
    rate = float(labels.mean())
    out["results"]["majority class"] = binary.evaluate(
        labels, scores=np.zeros(len(labels)), probs=np.full(len(labels), rate),
        decisions=np.full(len(labels), float(rate >= 0.5)), **options)
    out["results"] = {name: {k: v.to_dict() for k, v in r.items()} for name, r in out["results"].items()}
    out["reliability"] = {name: binary.reliability(labels, p) for name, p in probs.items()}
    bands = binary.length_bands(data.table.rows.candidates)
    out["bands"] = {binary.band_name(band): {
        "rows": int((bands == i).sum()), "positives": int(labels[bands == i].sum()),
        "accuracy": {name: float(np.mean(d[bands == i] == labels[bands == i])) for name, d in choices.items()},
    } for i, band in enumerate(binary.LENGTH_BANDS) if (bands == i).any()}
    return out


def _in_place_note(name: str, decisions: Decisions, wrong: dict[str, np.ndarray]) -> list[str]:
    """What says that judge ``name`` decided as ``kpqa score --decide`` does: another judge in its place on the rows
    whose known-wrong answers are scored (``wrong``: the ``M-wrong`` scores), with how many rows that was."""
    notes = []
    for judge in decisions.judges.in_place_of(name):
        against = [m for m in judge.inputs if role_of(m) is Role.WRONG]
        if all(m in wrong for m in against):
            scored = np.all([np.isfinite(wrong[m]) for m in against], axis=0)
            notes.append(f"{name}: decided as `kpqa score --decide` decides, by {judge.name} on the "
                         f"{int(np.sum(scored))} rows with known-wrong answers")
    return notes


def _comparisons(columns: Sequence[str], extra: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    pairs = [(c, base_metric(c)) for c in columns if base_metric(c) in columns]
    for a, b in extra:
        for name in (a, b):
            if name not in columns:
                raise UsageError(Param("compare"), f" {a}:{b}: no metric column {name!r} (have: {', '.join(columns)})")
        if (a, b) not in pairs:
            pairs.append((a, b))
    return pairs  # type: ignore[return-value]  # base_metric(c) is in columns, so not None


def _correlations(human: np.ndarray, scores: dict[str, np.ndarray], settings: Settings) -> Correlations:
    """Each metric's correlations with ``human``."""
    return {c: statistics.correlate(human, s, bootstrap=settings.bootstrap, seed=settings.seed) for c, s in scores.items()}


def evaluate(data: Dataset, settings: Settings) -> DatasetReport:
    """Every statistic for one data set."""
    h = data.human
    notes: list[str] = []
    if np.ptp(h) == 0:
        notes.append(f"the human scores are constant ({h[0]:g}): every correlation is undefined")
    correlations = _correlations(h, data.scores, settings)
    notes += [f"{c}: correlation {corr['pearson'].note}" for c, corr in correlations.items()
              if corr["pearson"].note and np.ptp(h) > 0]
    report = DatasetReport(
        name=data.name, source=data.source, rows=len(h), human_column=settings.human_column,
        human=HumanRange(float(np.mean(h)), float(np.min(h)), float(np.max(h))),
        systems=Systems(len(set(data.systems)) if data.systems else 1, data.systems_how),
        signatures={c: f"from input column {c!r}" if s is None else str(s) for c, s in data.signatures.items()
                    if c in data.scores},
        correlations=correlations, paired=_paired(data, settings),
        rank_pairs=_rank_pairs(data, settings), overall=_overall(data, settings))
    if settings.by is not None:
        report.by = _breakdown(data, settings)
    if settings.aev_grid:
        scores = aev_scores(data.table, settings.scorer_options.tokenize, statistics.ALPHAS, statistics.ORDERS)
        report.aev_grid = statistics.grid_from_scores(h, scores, statistics.ALPHAS, statistics.ORDERS)
    labels = as_binary(h, settings.positive_above)
    if labels is not None:
        report.binary = BinarySection(**_binary(data, settings, labels))
        notes += report.binary.notes
    report.warnings = notes + [w for w in (report.rank_pairs.note, report.overall.note) if w]
    return report


def _paired(data: Dataset, settings: Settings) -> list[statistics.PairedTest]:
    """Paired bootstrap tests of each metric against its base and of the pairs ``settings.compare`` names."""
    comparisons = _comparisons(list(data.scores), settings.compare)
    return [statistics.paired_bootstrap(data.human, data.scores[a], data.scores[b], statistic=statistic,
                                  resamples=settings.bootstrap, seed=settings.seed, names=(a, b))
            for a, b in (comparisons if settings.bootstrap else []) for statistic in ("pearson", "spearman")]


def _rank_pairs(data: Dataset, settings: Settings) -> RankPairSection:
    rule = f"human gap {'>' if settings.strict else '>='} {settings.threshold:g}"
    if data.systems is None or len(set(data.systems)) < 2:
        return RankPairSection(rule, pairs=0, note="rank-pair undefined: one system answers each item "
                               "(name the column of systems if the file holds several)")
    candidates = statistics.pair_rows(data.keys, data.systems)
    kept = statistics.select_pairs(data.human, candidates, settings.threshold, settings.strict)
    results = [statistics.rank_pairs(data.human, data.scores[c], candidates, name=c, threshold=settings.threshold,
                               strict=settings.strict) for c in data.scores]
    note = None if kept else f"rank-pair undefined: no pair of answers to the same item has a {rule}"
    return RankPairSection(rule, len(candidates), len(kept), results, note)


def _overall(data: Dataset, settings: Settings) -> OverallSection:
    section = OverallSection(settings.overall_questions, settings.overall_draws, settings.seed)
    if data.systems is None or len(set(data.systems)) < 2:
        section.note = "overall level undefined: it needs at least 2 systems"
        return section
    section.results = [statistics.overall_level(data.human, data.scores[c], data.keys, data.systems, name=c,
                                          questions=settings.overall_questions, draws=settings.overall_draws,
                                          seed=settings.seed) for c in data.scores]
    notes = {r.note for r in section.results if r.note}
    if notes and all(r.value is None for r in section.results):
        section.note = "overall level " + "; ".join(sorted(notes))
    return section


def _breakdown(data: Dataset, settings: Settings) -> Breakdown:
    assert settings.by is not None
    labels = data.table.frame[settings.by].astype(str).to_numpy()
    groups: dict[str, Group] = {}
    for label in sorted(set(labels)):
        idx = np.flatnonzero(labels == label)
        groups[label] = Group(len(idx), _correlations(data.human[idx], {c: s[idx] for c, s in data.scores.items()},
                                                      settings))
    return Breakdown(settings.by, groups)


def build_report(datasets: Sequence[Dataset], settings: Settings) -> Report:
    """The report: settings and one :func:`evaluate` per data set."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category=RuntimeWarning)  # scipy's constant-input warnings: we say why
        evaluated = [evaluate(d, settings) for d in datasets]
    return Report(__version__, ReportSettings.of(settings), evaluated)


def run(paths: Sequence[str | Path], settings: Settings, scorers: ScorerFactory | None = None) -> Report:
    """Load, score and meta-evaluate each file: :func:`build_report` of :func:`load_all`, the calibration read once."""
    from kpqa.calibration import load

    cal = load(settings.calibration, settings.scorer_options.checkpoint, required=False)
    settings = settings if cal is None else replace(settings, calibration=cal)
    return build_report(load_all(paths, settings, scorers), settings)
