"""Statistics of meta-evaluation: how well a metric's scores follow human judgments.

- :func:`correlate`: Pearson, Spearman and Kendall (tau-b) with scipy's p-values and percentile bootstrap intervals
  (rows resampled with replacement).
- :func:`paired_bootstrap`: Koehn (2004)'s paired bootstrap test of one metric against another on the same
  resamples (their correlations' difference), through :func:`paired_test`, the one paired test of kpqa (``kpqa
  compare`` tests two systems' mean scores with it too): a percentile interval of the difference and the two-sided
  p-value of :func:`shift_p_value`.
- :func:`pair_rows` / :func:`rank_pairs`: the KPQA paper's rank-pair agreement (Table 7).
- :func:`overall_level`: Yang et al. (2018, sec. 4.2)'s "overall" level, a correlation of per-system means over
  sampled question sets.
- :func:`aev_grid`: Soricut & Brill (2004)'s alpha x N grid of Pearson r and R^2 for the AEv family.

A correlation that is not defined (constant scores, fewer than 3 rows, non-finite values) is returned with
``value=None`` and a ``note`` saying why: never a silent NaN.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from itertools import combinations
from typing import Callable, Hashable, Sequence

import numpy as np
from scipy import stats

from kpqa.arraystats import bootstrap_chunks
from kpqa.types import Floats

STATISTICS = ("pearson", "spearman", "kendall")
MIN_ROWS = 3


@dataclass
class Correlation:
    """One correlation of a metric with human scores. ``value`` is None when undefined (see ``note``)."""

    statistic: str
    value: float | None
    p_value: float | None
    n: int
    ci_low: float | None = None
    ci_high: float | None = None
    note: str | None = None

    def to_dict(self) -> dict:
        """JSON-ready form."""
        return asdict(self)


def undefined_reason(human: np.ndarray, metric: np.ndarray) -> str | None:
    """Why a correlation between the two arrays is undefined, or None when it is defined."""
    if len(human) < MIN_ROWS:
        return f"undefined: {len(human)} rows (need at least {MIN_ROWS})"
    if not np.all(np.isfinite(metric)):
        return f"undefined: {int(np.sum(~np.isfinite(metric)))} non-finite metric scores"
    if not np.all(np.isfinite(human)):
        return f"undefined: {int(np.sum(~np.isfinite(human)))} non-finite human scores"
    if np.ptp(human) == 0:
        return "undefined: the human scores are constant"
    if np.ptp(metric) == 0:
        return "undefined: the metric scores are constant"
    return None


def _rowwise_pearson(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Pearson r of each row of ``x`` with the same row of ``y`` (NaN where a row is constant)."""
    xc = x - x.mean(axis=1, keepdims=True)
    yc = y - y.mean(axis=1, keepdims=True)
    constant = (np.ptp(x, axis=1) == 0) | (np.ptp(y, axis=1) == 0)
    denom = np.sqrt((xc * xc).sum(axis=1) * (yc * yc).sum(axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        r = (xc * yc).sum(axis=1) / denom
    r[constant] = np.nan
    return np.clip(r, -1.0, 1.0)


def resampled(statistic: str, human: np.ndarray, metric: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """The statistic on each resample (rows of ``indices``); NaN where a resample is constant."""
    h, m = human[indices], metric[indices]
    if statistic == "pearson":
        return _rowwise_pearson(h, m)
    if statistic == "spearman":
        return _rowwise_pearson(stats.rankdata(h, axis=1), stats.rankdata(m, axis=1))
    if statistic == "kendall":
        out = np.full(len(indices), np.nan)
        for b in range(len(indices)):
            if np.ptp(h[b]) > 0 and np.ptp(m[b]) > 0:
                out[b] = stats.kendalltau(h[b], m[b]).statistic
        return out
    raise ValueError(f"unknown statistic {statistic!r}; one of {', '.join(STATISTICS)}")


def point(statistic: str, human: np.ndarray, metric: np.ndarray) -> tuple[float, float]:
    """(coefficient, two-sided p-value) from scipy.stats; call only when :func:`undefined_reason` is None."""
    fn = {"pearson": stats.pearsonr, "spearman": stats.spearmanr, "kendall": stats.kendalltau}[statistic]
    result = fn(human, metric)
    return float(result.statistic), float(result.pvalue)


def bootstrap_values(statistic: str, human: np.ndarray, metric: np.ndarray, resamples: int, seed: int | None) -> np.ndarray:
    """The statistic on each of ``resamples`` bootstrap resamples (:func:`~kpqa.arraystats.bootstrap_chunks`)."""
    parts = [resampled(statistic, human, metric, idx) for idx in bootstrap_chunks(len(human), resamples, seed)]
    return np.concatenate(parts) if parts else np.empty(0)


def _interval(values: np.ndarray, confidence: float) -> tuple[float | None, float | None]:
    values = values[np.isfinite(values)]
    if len(values) == 0:
        return None, None
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(values, [tail, 100 - tail])
    return float(low), float(high)


def correlate(
    human: Floats,
    metric: Floats,
    *,
    statistics: Sequence[str] = STATISTICS,
    bootstrap: int = 1000,
    seed: int | None = 0,
    confidence: float = 0.95,
) -> dict[str, Correlation]:
    """Correlations of ``metric`` with ``human``, each with a percentile bootstrap interval (``bootstrap=0``: none).
    Metrics evaluated with the same seed on the same rows share their resamples."""
    h, m = np.asarray(human, dtype=float), np.asarray(metric, dtype=float)
    if h.shape != m.shape or h.ndim != 1:
        raise ValueError(f"human and metric scores must be 1-d of the same length, got {h.shape} and {m.shape}")
    reason = undefined_reason(h, m)
    out: dict[str, Correlation] = {}
    for statistic in statistics:
        if reason is not None:
            out[statistic] = Correlation(statistic, None, None, len(h), note=reason)
            continue
        value, p = point(statistic, h, m)
        low = high = None
        if bootstrap:
            low, high = _interval(bootstrap_values(statistic, h, m, bootstrap, seed), confidence)
        out[statistic] = Correlation(statistic, value, p, len(h), low, high)
    return out


def shift_p_value(differences: np.ndarray, delta: float) -> float:
    """The paired bootstrap's p-value, kpqa's one convention (meta-eval's paired tests and ``kpqa compare``): the
    resampled differences ``d_i`` shifted by the observed ``delta`` to centre them on zero (the null hypothesis of no
    difference; Koehn 2004, Efron & Tibshirani's shift method) and ``p = (1 + #{|d_i - delta| >= |delta|}) / (1 +
    R)``. Two-sided, because a test of "A differs from B" should not depend on which one is named first (swapping
    them gives the same p) and matches the two-sided interval printed beside it; the +1 counts the observed sample
    as one of the resamples, so p is never 0 with ``R`` resamples (its resolution is ``1 / (R + 1)``), as
    sacrebleu's paired bootstrap reports it. A tie (``delta == 0``) gives p = 1."""
    extreme = int(np.sum(np.abs(differences - delta) >= abs(delta)))
    return (extreme + 1) / (len(differences) + 1)


@dataclass
class Bootstrapped:
    """What :func:`paired_test` finds: the interval of the difference, its p-value and the resamples it counted
    (those where the difference is finite); all None / 0 when no resample gives a finite difference."""

    ci_low: float | None
    ci_high: float | None
    p_value: float | None
    resamples: int


def paired_test(difference: Callable[[np.ndarray], np.ndarray], n: int, delta: float, resamples: int = 1000,
                seed: int | None = 0, confidence: float = 0.95) -> Bootstrapped:
    """The one paired bootstrap test: ``difference(indices)`` gives the statistic's difference (A - B, or B - A)
    on each resample of a ``[k, n]`` block of row indices (:func:`~kpqa.arraystats.bootstrap_chunks`: the same resamples for every
    test with this ``n`` and ``seed``), ``delta`` the difference on the rows themselves. Non-finite resampled
    differences (a correlation of a constant resample) are left out; the interval is the percentile one at
    ``confidence``, the p-value :func:`shift_p_value`'s."""
    parts = [difference(idx) for idx in bootstrap_chunks(n, resamples, seed)]
    diffs = np.concatenate(parts) if parts else np.empty(0)
    diffs = diffs[np.isfinite(diffs)]
    if len(diffs) == 0:
        return Bootstrapped(None, None, None, 0)
    low, high = _interval(diffs, confidence)
    return Bootstrapped(low, high, shift_p_value(diffs, delta), len(diffs))


@dataclass
class PairedTest:
    """Paired bootstrap test of metric A against metric B (same resamples).

    ``delta`` is A's correlation minus B's on the data; ``p_value`` the two-sided p-value of no difference
    (:func:`shift_p_value`: small, A and B differ; ``delta``'s sign says which is better). ``None`` with a ``note``
    when undefined."""

    statistic: str
    a: str
    b: str
    delta: float | None
    p_value: float | None
    resamples: int
    ci_low: float | None = None
    ci_high: float | None = None
    note: str | None = None

    def to_dict(self) -> dict:
        """JSON-ready form."""
        return asdict(self)


def paired_bootstrap(
    human: Floats,
    a: Floats,
    b: Floats,
    *,
    statistic: str = "pearson",
    resamples: int = 1000,
    seed: int | None = 0,
    names: tuple[str, str] = ("A", "B"),
    confidence: float = 0.95,
) -> PairedTest:
    """Koehn (2004)'s paired bootstrap: resample rows, compare the two correlations on each resample
    (:func:`paired_test`)."""
    h, x, y = (np.asarray(v, dtype=float) for v in (human, a, b))
    reason = undefined_reason(h, x) or undefined_reason(h, y)
    if reason is not None or resamples < 1:
        return PairedTest(statistic, *names, None, None, resamples, note=reason or "no resamples")
    delta = point(statistic, h, x)[0] - point(statistic, h, y)[0]
    found = paired_test(lambda idx: resampled(statistic, h, x, idx) - resampled(statistic, h, y, idx), len(h), delta,
                        resamples, seed, confidence)
    if found.p_value is None:
        return PairedTest(statistic, *names, delta, None, resamples, note="every resample is constant")
    return PairedTest(statistic, *names, delta, found.p_value, found.resamples, found.ci_low, found.ci_high)


# ---------------------------------------------------------------------------------------------------- rank pairs


def pair_rows(keys: Sequence[Hashable], systems: Sequence[Hashable]) -> list[tuple[int, int]]:
    """Row pairs (i, j), i < j, that answer the same item (same key) from two different systems.

    A key a system answers more than once pairs each of its rows with each row of the other systems."""
    if len(keys) != len(systems):
        raise ValueError("keys and systems must have the same length")
    groups: dict[Hashable, list[int]] = {}
    for i, key in enumerate(keys):
        groups.setdefault(key, []).append(i)
    return [(i, j) for rows in groups.values() for i, j in combinations(rows, 2) if systems[i] != systems[j]]


@dataclass
class RankPairs:
    """Rank-pair agreement: of ``pairs`` row pairs with a human gap at or above the threshold, ``matches`` are
    ordered the same way by the metric; ``ties`` are metric ties (counted as misses)."""

    metric: str
    pairs: int
    matches: int
    ties: int
    threshold: float
    strict: bool

    @property
    def percent(self) -> float | None:
        """Matches as a percentage of the pairs (None without pairs)."""
        return 100.0 * self.matches / self.pairs if self.pairs else None

    def to_dict(self) -> dict:
        """JSON-ready form."""
        return {**asdict(self), "percent": self.percent}


def select_pairs(
    human: Floats, pairs: Sequence[tuple[int, int]], threshold: float = 2.0, strict: bool = False
) -> list[tuple[int, int]]:
    """The pairs whose human scores differ by at least ``threshold`` (more than it with ``strict``).

    The KPQA paper says "greater than 2" on its 1-5 scale and reports 93 MS-MARCO pairs; on the released
    ``marco_all.csv`` a gap of >= 2 gives exactly 93 pairs (4 have a gap of exactly 2.0) and > 2 gives 89, so the
    default is the inclusive rule that reproduces the paper's count. A 1e-9 tolerance absorbs float noise in the
    averaged scores."""
    h = np.asarray(human, dtype=float)
    eps = 1e-9
    keep = []
    for i, j in pairs:
        gap = abs(h[i] - h[j])
        if (gap > threshold + eps) if strict else (gap >= threshold - eps):
            keep.append((i, j))
    return keep


def rank_pairs(
    human: Floats,
    metric: Floats,
    pairs: Sequence[tuple[int, int]],
    *,
    name: str = "metric",
    threshold: float = 2.0,
    strict: bool = False,
) -> RankPairs:
    """How often the metric orders each selected pair (see :func:`select_pairs`) as the humans do."""
    h, m = np.asarray(human, dtype=float), np.asarray(metric, dtype=float)
    chosen = select_pairs(h, pairs, threshold, strict)
    matches = ties = 0
    for i, j in chosen:
        if m[i] == m[j]:
            ties += 1
        elif (m[i] > m[j]) == (h[i] > h[j]):
            matches += 1
    return RankPairs(name, len(chosen), matches, ties, threshold, strict)


# ------------------------------------------------------------------------------------------------- overall level


@dataclass
class OverallLevel:
    """Yang et al.'s overall-level Pearson r over ``points`` (system, draw) means; None with a note if undefined."""

    metric: str
    value: float | None
    p_value: float | None
    points: int
    systems: int
    questions: int
    draws: int
    note: str | None = None

    def to_dict(self) -> dict:
        """JSON-ready form."""
        return asdict(self)


def overall_level(
    human: Floats,
    metric: Floats,
    keys: Sequence[Hashable],
    systems: Sequence[Hashable],
    *,
    name: str = "metric",
    questions: int = 30,
    draws: int = 100,
    seed: int | None = 0,
    aggregate: Callable[[np.ndarray], float] | None = None,
) -> OverallLevel:
    """Yang et al. (2018, sec. 4.2) "overall" level: in each of ``draws`` draws, sample ``questions`` items (keys
    answered by every system, without replacement; every system gets the same items), score each system by the mean
    human score and by ``aggregate(row indices)`` of the metric (default: the mean of its per-row scores; pass a
    corpus-level scorer to follow the paper's "scored together" for BLEU), then take Pearson r over all
    ``draws x systems`` (human, metric) points. With 5 systems and 100 draws the paper gets 500 points."""
    h, m = np.asarray(human, dtype=float), np.asarray(metric, dtype=float)
    system_ids = list(dict.fromkeys(systems))
    rows: dict[Hashable, dict[Hashable, list[int]]] = {}
    for i, (key, system) in enumerate(zip(keys, systems)):
        rows.setdefault(key, {}).setdefault(system, []).append(i)
    shared = [k for k, by in rows.items() if len(by) == len(system_ids)]

    def result(value=None, p=None, points=0, note=None) -> OverallLevel:
        return OverallLevel(name, value, p, points, len(system_ids), questions, draws, note)

    if len(system_ids) < 2:
        return result(note="undefined: needs at least 2 systems")
    if len(shared) < questions:
        return result(note=f"undefined: {len(shared)} items answered by every system (need {questions})")
    agg = aggregate or (lambda idx: float(np.mean(m[idx])))
    rng = np.random.default_rng(seed)
    hx, mx = [], []
    for _ in range(draws):
        picked = rng.choice(len(shared), size=questions, replace=False)
        for system in system_ids:
            idx = np.array([i for p in picked for i in rows[shared[p]][system]])
            hx.append(float(np.mean(h[idx])))
            mx.append(agg(idx))
    hx_arr, mx_arr = np.array(hx), np.array(mx)
    reason = undefined_reason(hx_arr, mx_arr)
    if reason is not None:
        return result(points=len(hx), note=reason)
    value, p = point("pearson", hx_arr, mx_arr)
    return result(value, p, len(hx))


# ---------------------------------------------------------------------------------------------------- AEv grid


ALPHAS = tuple(round(0.1 * k, 1) for k in range(11))
ORDERS = (1, 2, 3, 4)


def aev_name(alpha: float, n: int) -> str:
    """Registry name of one AEv cell, e.g. ``AEv-0.3-2``."""
    return f"AEv-{alpha:g}-{n}"


@dataclass
class Grid:
    """Soricut & Brill's grid: ``pearson[k][j]`` and ``r2[k][j]`` for ``orders[k]`` and ``alphas[j]``."""

    alphas: list[float]
    orders: list[int]
    pearson: list[list[float | None]]
    r2: list[list[float | None]]
    notes: dict[str, str] = field(default_factory=dict)

    def best(self) -> tuple[float, int, float] | None:
        """(alpha, N, R^2) of the cell with the highest R^2, or None when every cell is undefined."""
        cells = [(v, self.alphas[j], self.orders[k]) for k, row in enumerate(self.r2)
                 for j, v in enumerate(row) if v is not None]
        if not cells:
            return None
        v, alpha, n = max(cells)
        return alpha, n, v

    def to_dict(self) -> dict:
        """JSON-ready form."""
        return asdict(self)


def grid_from_scores(
    human: Floats, scores: np.ndarray, alphas: Floats = ALPHAS, orders: Sequence[int] = ORDERS
) -> Grid:
    """Pearson r and R^2 (= r^2 of a simple linear fit; Soricut & Brill's coefficient of determination) per cell
    of ``scores[k, j, row]``: AEv(``alphas[j]``, ``orders[k]``) per row (as ``kpqa.metrics.aev.aev_grid`` returns).

    Soricut & Brill take one point per system (7 to 15 systems); the human sets here have one or two systems, so
    the points are answers (rows)."""
    h = np.asarray(human, dtype=float)
    values = np.asarray(scores, dtype=float)
    if values.shape != (len(orders), len(alphas), len(h)):
        raise ValueError(f"scores must have shape {(len(orders), len(alphas), len(h))}, got {values.shape}")
    pearson: list[list[float | None]] = []
    r2: list[list[float | None]] = []
    notes: dict[str, str] = {}
    for k, n in enumerate(orders):
        prow: list[float | None] = []
        rrow: list[float | None] = []
        for j, alpha in enumerate(alphas):
            reason = undefined_reason(h, values[k, j])
            if reason is not None:
                notes[aev_name(alpha, n)] = reason
                prow.append(None)
                rrow.append(None)
                continue
            r = point("pearson", h, values[k, j])[0]
            prow.append(r)
            rrow.append(r * r)
        pearson.append(prow)
        r2.append(rrow)
    return Grid(list(alphas), list(orders), pearson, r2, notes)
