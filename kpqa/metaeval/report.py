"""Meta-evaluation statistics: one report per loaded file (correlations, paired tests, rank pairs, overall level,
breakdowns, binary section), a plain ``dict`` that :mod:`kpqa.metaeval.render` writes as Markdown, JSON or plots."""
from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from kpqa import meta
from kpqa.errors import Param, UsageError
from kpqa.version import __version__
from kpqa.calibration import as_binary
from kpqa.metaeval.data import Dataset, ScorerFactory, Settings, aev_scores, load_all

from kpqa.metrics.spec import SUFFIXES, base_metric

__all__ = ["SUFFIXES", "base_metric", "build_report", "evaluate", "run"]


def _binary(data: Dataset, settings: Settings, labels: np.ndarray) -> dict[str, Any]:
    """The "correct or not" section: one row of :func:`kpqa.binary.evaluate` statistics per metric, judge and
    baseline, their accuracy per answer-length band (:data:`kpqa.binary.LENGTH_BANDS`), and the reliability bins of
    every calibrated probability. The decisions are :meth:`kpqa.calibration.Decisions.apply`'s, as ``kpqa score
    --decide`` makes them."""
    from kpqa import binary
    from kpqa.calibration import Decisions, load

    cal = load(settings.calibration, settings.scorer_options.checkpoint, required=False)
    out: dict[str, Any] = {"rows": len(labels), "positives": int(labels.sum()),
                           "calibration": None if cal is None else {"path": cal.path, "digest": cal.digest},
                           "results": {}, "reliability": {}, "notes": []}
    decisions = None if cal is None else Decisions.of(cal, data.signatures, every=False)
    decided = {} if decisions is None else decisions.apply(data.scores)
    probs = {c.removesuffix("-prob"): p for c, p in decided.items() if c.endswith("-prob")}
    choices = {c.removesuffix("-correct"): d for c, d in decided.items() if c.endswith("-correct")}
    options: dict[str, Any] = {"bootstrap": settings.bootstrap, "seed": settings.seed}
    for c, s in data.scores.items():
        if c in probs:
            out["results"][c] = binary.evaluate(labels, scores=s, probs=probs[c], decisions=choices[c], **options)
            if decisions is not None and c in decisions.unchecked:
                out["notes"].append(f"{c}: calibrated scores from the input column; their signature is unchecked")
        elif np.isin(s, (0.0, 1.0)).all():
            choices[c] = s
            out["results"][c] = binary.evaluate(labels, scores=s, probs=s, decisions=s, **options)
        else:
            out["results"][c] = binary.evaluate(labels, scores=s, **options)
            out["notes"].append(f"{c}: no calibration, so AUROC and AP only (fit one with `kpqa calibrate`)")
    judges = [] if decisions is None else [j.name for j in decisions.judges]
    for name in judges:
        out["results"][name] = binary.evaluate(labels, scores=probs[name], probs=probs[name],
                                               decisions=choices[name], **options)
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


def _comparisons(columns: Sequence[str], extra: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    pairs = [(c, base_metric(c)) for c in columns if base_metric(c) in columns]
    for a, b in extra:
        for name in (a, b):
            if name not in columns:
                raise UsageError(Param("compare"), f" {a}:{b}: no metric column {name!r} (have: {', '.join(columns)})")
        if (a, b) not in pairs:
            pairs.append((a, b))
    return pairs  # type: ignore[return-value]  # base_metric(c) is in columns, so not None


def evaluate(data: Dataset, settings: Settings) -> dict[str, Any]:
    """Every statistic for one data set, as a JSON-ready dict (``warnings``: what the report must say)."""
    h, n = data.human, len(data.human)
    columns = list(data.scores)
    notes: list[str] = []
    if np.ptp(h) == 0:
        notes.append(f"the human scores are constant ({h[0]:g}): every correlation is undefined")
    out: dict[str, Any] = {
        "name": data.name,
        "source": data.source,
        "rows": n,
        "human_column": settings.human_column,
        "human": {"mean": float(np.mean(h)), "min": float(np.min(h)), "max": float(np.max(h))},
        "systems": {"count": len(set(data.systems)) if data.systems else 1, "how": data.systems_how},
        "signatures": {c: f"from input column {c!r}" if s is None else str(s) for c, s in data.signatures.items()},
        "correlations": {},
        "paired": [],
    }
    for c in columns:
        corr = meta.correlate(h, data.scores[c], bootstrap=settings.bootstrap, seed=settings.seed)
        out["correlations"][c] = {s: v.to_dict() for s, v in corr.items()}
        note = corr["pearson"].note
        if note and np.ptp(h) > 0:
            notes.append(f"{c}: correlation {note}")
    comparisons = _comparisons(columns, settings.compare)
    for a, b in comparisons if settings.bootstrap else []:
        for statistic in ("pearson", "spearman"):
            test = meta.paired_bootstrap(h, data.scores[a], data.scores[b], statistic=statistic,
                                         resamples=settings.bootstrap, seed=settings.seed, names=(a, b))
            out["paired"].append(test.to_dict())
    out["rank_pairs"] = _rank_pairs(data, settings)
    out["overall"] = _overall(data, settings)
    if settings.by is not None:
        out["by"] = _breakdown(data, settings)
    if settings.aev_grid:
        scores = aev_scores(data.table, settings.tokenize, meta.ALPHAS, meta.ORDERS)
        out["aev_grid"] = meta.grid_from_scores(h, scores, meta.ALPHAS, meta.ORDERS).to_dict()
    labels = as_binary(h, settings.positive_above)
    if labels is not None:
        out["binary"] = _binary(data, settings, labels)
        notes += out["binary"]["notes"]
    out["warnings"] = notes + [w for w in (out["rank_pairs"].get("note"), out["overall"].get("note")) if w]
    return out


def _rank_pairs(data: Dataset, settings: Settings) -> dict[str, Any]:
    rule = f"human gap {'>' if settings.strict else '>='} {settings.threshold:g}"
    if data.systems is None or len(set(data.systems)) < 2:
        return {"rule": rule, "pairs": 0, "note": "rank-pair undefined: one system answers each item "
                "(name the column of systems if the file holds several)"}
    candidates = meta.pair_rows(data.keys, data.systems)
    kept = meta.select_pairs(data.human, candidates, settings.threshold, settings.strict)
    results = [meta.rank_pairs(data.human, data.scores[c], candidates, name=c, threshold=settings.threshold,
                               strict=settings.strict).to_dict() for c in data.scores]
    out = {"rule": rule, "same_item_pairs": len(candidates), "pairs": len(kept), "results": results}
    if not kept:
        out["note"] = f"rank-pair undefined: no pair of answers to the same item has a {rule}"
    return out


def _overall(data: Dataset, settings: Settings) -> dict[str, Any]:
    protocol = {"questions": settings.overall_questions, "draws": settings.overall_draws, "seed": settings.seed}
    if data.systems is None or len(set(data.systems)) < 2:
        return {**protocol, "note": "overall level undefined: it needs at least 2 systems"}
    results = [meta.overall_level(data.human, data.scores[c], data.keys, data.systems, name=c,
                                  questions=settings.overall_questions, draws=settings.overall_draws,
                                  seed=settings.seed).to_dict() for c in data.scores]
    notes = {r["note"] for r in results if r["note"]}
    out: dict[str, Any] = {**protocol, "results": results}
    if notes and all(r["value"] is None for r in results):
        out["note"] = "overall level " + "; ".join(sorted(notes))
    return out


def _breakdown(data: Dataset, settings: Settings) -> dict[str, Any]:
    column = settings.by
    labels = data.table.frame[column].astype(str).to_numpy()
    groups: dict[str, Any] = {}
    for label in sorted(set(labels)):
        idx = np.flatnonzero(labels == label)
        entry: dict[str, Any] = {"rows": len(idx), "correlations": {}}
        for c in data.scores:
            corr = meta.correlate(data.human[idx], data.scores[c][idx], bootstrap=settings.bootstrap,
                                  seed=settings.seed)
            entry["correlations"][c] = {s: v.to_dict() for s, v in corr.items()}
        groups[label] = entry
    return {"column": column, "groups": groups}


def build_report(datasets: Sequence[Dataset], settings: Settings) -> dict[str, Any]:
    """The JSON-ready report: settings and one :func:`evaluate` dict per data set."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category=RuntimeWarning)  # scipy's constant-input warnings: we say why
        evaluated = [evaluate(d, settings) for d in datasets]
    return {
        "kpqa_version": __version__,
        "settings": {
            "metrics": settings.metrics, "human_column": settings.human_column, "system_column": settings.system_column,
            "by": settings.by, "bootstrap": settings.bootstrap, "seed": settings.seed,
            "rank_pair_threshold": settings.threshold, "rank_pair_strict": settings.strict,
            "positive_above": settings.positive_above,
        },
        "datasets": evaluated,
    }


def run(paths: Sequence[str | Path], settings: Settings, scorers: ScorerFactory | None = None) -> dict[str, Any]:
    """Load, score and meta-evaluate each file: :func:`build_report` of :func:`load_all`."""
    return build_report(load_all(paths, settings, scorers), settings)


# ---------------------------------------------------------------------------------------------------------- report


