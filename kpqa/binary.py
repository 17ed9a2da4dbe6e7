"""Yes/no judgments measured against binary human labels (1 correct, 0 wrong), for the meta-evaluation: every
statistic of :mod:`kpqa.arraystats` that the inputs allow, with percentile bootstrap intervals (:func:`evaluate`,
an :class:`Estimate` each: ``None`` with a note where the statistic is undefined); answer-length bands; reliability
bins and what their diagram shows (:func:`reliability_chart`).

- ``accuracy`` and Cohen's ``kappa`` of 0/1 decisions;
- ``auroc`` and ``average_precision`` of scores;
- ``brier`` and ``ece`` (over ``BINS`` equal-width bins) of probabilities.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Mapping, Sequence

import numpy as np

from kpqa.arraystats import BINS, accuracy, auroc, average_precision, bootstrap_chunks, brier, ece, kappa
from kpqa.types import Floats

#: statistics of decisions (0/1), of scores (any monotone scale) and of probabilities (in [0, 1])
ON_DECISIONS = ("accuracy", "kappa")
ON_SCORES = ("auroc", "average_precision")
ON_PROBS = ("brier", "ece")
STATISTICS = ON_DECISIONS + ON_SCORES + ON_PROBS
#: answer-length bands (words, inclusive) that decisions are reported by: trivia answers, phrases, a sentence,
#: several sentences (LLM answers)
LENGTH_BANDS = ((1, 3), (4, 10), (11, 30), (31, None))


def band_name(band: tuple[int, int | None]) -> str:
    """``"1-3 words"``, ..., ``"31+ words"``."""
    low, high = band
    return f"{low}+ words" if high is None else f"{low}-{high} words"


def length_bands(texts: Sequence[str]) -> np.ndarray:
    """The :data:`LENGTH_BANDS` index of each text by its number of whitespace-separated words (an empty text
    goes with the shortest)."""
    words = np.array([len(str(t).split()) for t in texts])
    return np.array([next(i for i, (low, high) in enumerate(LENGTH_BANDS) if high is None or n <= high)
                     for n in words], dtype=int)


def reliability(labels: Floats, probs: Floats, bins: int = BINS) -> dict[str, list]:
    """Per bin of :func:`ece`: rows, mean probability and share correct (None for empty bins)."""
    y, p = np.asarray(labels, dtype=float), np.asarray(probs, dtype=float)
    which = np.clip((p * bins).astype(int), 0, bins - 1)
    count = np.bincount(which, minlength=bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_p = np.bincount(which, p, minlength=bins) / count
        mean_y = np.bincount(which, y, minlength=bins) / count
    nan_none = lambda a: [None if not np.isfinite(v) else float(v) for v in a]  # noqa: E731
    return {"edges": list(np.linspace(0, 1, bins + 1)), "rows": count.tolist(), "mean_prob": nan_none(mean_p),
            "correct": nan_none(mean_y)}


def bins_ece(b: Mapping[str, Any]) -> float:
    """Expected calibration error from the bins of :func:`reliability` (the same value as :func:`ece`: the
    rows-weighted mean gap between share correct and mean P(correct)), for the charts drawn from the bins."""
    rows = np.asarray(b["rows"], dtype=float)
    gaps = [n * abs(p - c) for n, p, c in zip(rows, b["mean_prob"], b["correct"]) if p is not None]
    return float(sum(gaps) / rows.sum()) if rows.sum() else float("nan")


#: a reliability bin with fewer rows than this is drawn hollow and left out of the line: its share is noise
MIN_BIN_ROWS = 20
#: the reliability diagram's axis labels (x, y)
RELIABILITY_AXES = ("predicted P(correct)", "share correct (humans)")


@dataclass
class ReliabilityChart:
    """What a reliability diagram of :func:`reliability`'s bins shows, whoever draws it
    (:func:`kpqa.plots.reliability` with matplotlib, :func:`kpqa.svgcharts.reliability` as inline SVG): the diagonal
    (perfect calibration), one point per non-empty bin (mean P(correct), share correct, rows), full and joined by
    the line when the bin has at least ``min_rows`` rows, hollow and left out of the line otherwise; the rows per
    bin (``edges``, ``rows``) under it; ECE and n as its ``caption``; :data:`RELIABILITY_AXES` as its axes."""

    points: list[tuple[float, float, int]]
    edges: list[float]
    rows: list[int]
    min_rows: int
    caption: str

    def full(self, rows: int) -> bool:
        """Whether a bin of ``rows`` rows is drawn full and joined by the line."""
        return rows >= self.min_rows

    @property
    def line(self) -> list[tuple[float, float]]:
        """(mean P(correct), share correct) of the full bins, in bin order: the points the line joins."""
        return [(p, s) for p, s, n in self.points if self.full(n)]

    @property
    def hollow(self) -> list[tuple[float, float]]:
        """(mean P(correct), share correct) of the bins with fewer than ``min_rows`` rows."""
        return [(p, s) for p, s, n in self.points if not self.full(n)]

    @property
    def hollow_label(self) -> str:
        """What the hollow points are, for a legend."""
        return f"bins < {self.min_rows} rows"


def reliability_chart(bins: Mapping[str, Any], min_rows: int = MIN_BIN_ROWS) -> ReliabilityChart:
    """The :class:`ReliabilityChart` of the bins of :func:`reliability`."""
    points = [(p, s, n) for p, s, n in zip(bins["mean_prob"], bins["correct"], bins["rows"]) if p is not None]
    n_rows = int(sum(bins["rows"]))
    caption = f"ECE {bins_ece(bins):.3f}, n = {n_rows:,}" if n_rows else "no rows"
    return ReliabilityChart(points, list(bins["edges"]), list(bins["rows"]), min_rows, caption)


_FUNCTIONS = {"accuracy": accuracy, "kappa": kappa, "auroc": auroc, "average_precision": average_precision,
              "brier": brier, "ece": ece}


@dataclass
class Estimate:
    """A statistic on the data with its percentile bootstrap interval; ``value`` None when undefined (``note``)."""

    statistic: str
    value: float | None
    ci_low: float | None = None
    ci_high: float | None = None
    note: str | None = None

    def to_dict(self) -> dict:
        """JSON-ready form."""
        return asdict(self)


def _finite(x: float) -> float | None:
    return float(x) if np.isfinite(x) else None


def evaluate(
    labels: Floats,
    *,
    scores: Floats | None = None,
    probs: Floats | None = None,
    decisions: Floats | None = None,
    bootstrap: int = 1000,
    seed: int | None = 0,
    confidence: float = 0.95,
) -> dict[str, Estimate]:
    """Every statistic that the given inputs allow (decisions -> accuracy, kappa; scores -> AUROC, AP; probs ->
    Brier, ECE), each with a percentile bootstrap interval over the same resamples (``bootstrap=0``: none)."""
    y = np.asarray(labels, dtype=float)
    inputs = {"decisions": decisions, "scores": scores, "probs": probs}
    arrays = {k: np.asarray(v, dtype=float) for k, v in inputs.items() if v is not None}
    for name, a in arrays.items():
        if a.shape != y.shape:
            raise ValueError(f"{name} must have the shape of labels {y.shape}, got {a.shape}")
    wanted = [(s, "decisions") for s in ON_DECISIONS] + [(s, "scores") for s in ON_SCORES] + \
        [(s, "probs") for s in ON_PROBS]
    wanted = [(s, k) for s, k in wanted if k in arrays]
    samples: dict[str, list[np.ndarray]] = {s: [] for s, _ in wanted}
    for idx in bootstrap_chunks(len(y), bootstrap, seed) if bootstrap else []:
        for statistic, key in wanted:
            samples[statistic].append(_FUNCTIONS[statistic](y[idx], arrays[key][idx]))
    one_class = y.min() == y.max() if len(y) else True
    tail = (1 - confidence) / 2 * 100
    out: dict[str, Estimate] = {}
    for statistic, key in wanted:
        value = _finite(_FUNCTIONS[statistic](y[None], arrays[key][None])[0])
        low = high = None
        values = np.concatenate(samples[statistic]) if samples[statistic] else np.empty(0)
        values = values[np.isfinite(values)]
        if value is not None and len(values):
            low, high = (float(v) for v in np.percentile(values, [tail, 100 - tail]))
        note = None
        if value is None:
            note = "undefined: the labels have one class" if one_class else "undefined: the decisions have one class"
        out[statistic] = Estimate(statistic, value, low, high, note)
    return out
