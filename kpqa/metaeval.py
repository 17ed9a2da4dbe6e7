"""Meta-evaluation of whole human-judgment files: load, score, run the statistics of :mod:`kpqa.meta`, report.

A human-judgment file is a scoring input (``question, answer, reference1..N``) with a numeric human score column
(``scores`` by default). Requested metrics whose column is already in the file are taken from it; the others are
scored with :class:`~kpqa.scoring.Scorer`.

Systems (needed by rank-pair agreement and Yang et al.'s overall level) come from ``system_column`` when given.
Otherwise the KPQA release layout is recognised: an even number of rows where row ``i`` and row ``i + n/2`` have the
same question and references, and no item repeats within a half, is two systems, rows ``1..n/2`` and
``n/2+1..n`` (``marco_all.csv``: 1,000 rows, all 500 questions and references of the first half repeated in the
same order in the second; the two halves are UniLM and MHPGM, in an order the release does not say). Any other
layout is one system (``nrqa_mhpgm.csv``: 500 rows, 500 distinct questions, one model), where rank-pair and the
overall level are undefined and the report says so. Items are matched across systems by (question, references).

Binary labels (every human score 0 or 1, or ``positive_above`` given) add a "correct or not" section: per metric,
accuracy and Cohen's kappa of the calibrated decisions, AUROC and average precision of the scores, Brier score and
expected calibration error of the calibrated probabilities (:mod:`kpqa.binary`), with bootstrap intervals; beside
them ``KPQA-judge`` when its inputs are there, ``Contains`` (scored here when not requested) and the majority class.
Decisions come from the calibration (``Settings.calibration``, default: the one beside the weighter); a metric it
has no entry for gets AUROC and AP only, unless its scores are 0/1 already (EM, Contains: taken as they are).
"""
from __future__ import annotations

import json
import math
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Hashable, Sequence

import numpy as np
import pandas as pd

from kpqa.version import __version__
from kpqa import meta
from kpqa.errors import InputError, UsageError
from kpqa.io import Table, read_input

SUFFIXES = ("-KPQA", "-KP", "-adapted")


def base_metric(name: str) -> str | None:
    """The metric a KPQA / -KP / Yang-adapted metric extends (``BLEU-1-KPQA`` -> ``BLEU-1``), else None."""
    for suffix in SUFFIXES:
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return None


@dataclass
class Settings:
    """Options of one meta-evaluation run (the CLI's flags)."""

    metrics: list[str]
    human_column: str = "scores"
    system_column: str | None = None
    by: str | None = None
    bootstrap: int = 1000
    seed: int = 0
    threshold: float = 2.0
    strict: bool = False
    compare: list[tuple[str, str]] = field(default_factory=list)
    overall_questions: int = 30
    overall_draws: int = 100
    aev_grid: bool = False
    tokenize: str = "ptb"
    scorer_options: dict[str, Any] = field(default_factory=dict)
    positive_above: float | None = None
    calibration: str | None = None


@dataclass
class Dataset:
    """A loaded human-judgment file: human scores, metric scores per column, item keys and systems."""

    name: str
    source: str
    table: Table
    human: np.ndarray
    scores: dict[str, np.ndarray]
    signatures: dict[str, str]
    keys: list[Hashable]
    systems: list[str] | None
    systems_how: str


def human_scores(table: Table, column: str) -> np.ndarray:
    """The numeric human score column; InputError naming the file / row / column when missing or not a number."""
    frame = table.frame
    if column not in frame.columns:
        raise InputError(
            f"no human score column {column!r} (columns: {', '.join(map(str, frame.columns))}); "
            "pick one with --human-column",
            file=table.source,
            column=column,
        )
    values = pd.to_numeric(frame[column], errors="coerce").to_numpy(dtype=float)
    bad = ~np.isfinite(values)
    if bad.any():
        row = int(np.flatnonzero(bad)[0]) + 1
        raise InputError(f"human score {frame[column].iloc[row - 1]!r} is not a number", file=table.source,
                         row=row, column=column)
    if len(values) < meta.MIN_ROWS:
        raise InputError(f"{len(values)} rows: correlations need at least {meta.MIN_ROWS}", file=table.source)
    return values


def item_keys(table: Table) -> list[Hashable]:
    """One key per row: (question, references), the item a system answered."""
    return [(q, tuple(refs)) for q, refs in zip(table.rows.questions, table.rows.references)]


def detect_systems(table: Table, keys: Sequence[Hashable], column: str | None = None) -> tuple[list[str] | None, str]:
    """(system label per row or None for one system, how it was decided); see the module docstring."""
    if column is not None:
        if column not in table.frame.columns:
            raise InputError(f"no system column {column!r} (columns: {', '.join(map(str, table.frame.columns))})",
                             file=table.source, column=column)
        labels = [str(v) for v in table.frame[column]]
        return labels, f"column {column!r}: {len(set(labels))} systems"
    n = len(keys)
    half = n // 2
    if n % 2 == 0 and half >= 1 and list(keys[:half]) == list(keys[half:]) and len(set(keys[:half])) == half:
        labels = [f"rows 1-{half}"] * half + [f"rows {half + 1}-{n}"] * half
        return labels, f"2 systems: rows 1-{half} and rows {half + 1}-{n} (row i and row i+{half} share question and references)"
    return None, "1 system (no --system column and not two halves answering the same items)"


def _read_scores(table: Table, column: str) -> np.ndarray | None:
    values = pd.to_numeric(table.frame[column], errors="coerce").to_numpy(dtype=float)
    bad = ~np.isfinite(values)
    if bad.any():
        row = int(np.flatnonzero(bad)[0]) + 1
        raise InputError(f"metric score {table.frame[column].iloc[row - 1]!r} is not a number", file=table.source,
                         row=row, column=column)
    return values


ScorerFactory = Callable[[list[str]], Any]
"""``factory(metric names)`` -> an object with :meth:`~kpqa.scoring.Scorer.score_rows` for those metrics."""


def scorer_factory(settings: Settings) -> ScorerFactory:
    """Builds one :class:`~kpqa.scoring.Scorer` per distinct list of metrics to score, reused across files."""
    cache: dict[tuple[str, ...], Any] = {}

    def build(names: list[str]) -> Any:
        if tuple(names) not in cache:
            from kpqa.scoring import Scorer

            cache[tuple(names)] = Scorer(names, tokenize=settings.tokenize, **settings.scorer_options)
        return cache[tuple(names)]

    return build


def load_dataset(path: str | Path, settings: Settings, scorers: ScorerFactory | None = None,
                 name: str | None = None) -> Dataset:
    """Read a human-judgment file and get every requested metric's per-row scores: from the file's column of that
    name when there is one, else from ``scorers(missing names)`` (default: :func:`scorer_factory`)."""
    table = read_input(path)
    human = human_scores(table, settings.human_column)
    if settings.by is not None and settings.by not in table.frame.columns:
        raise InputError(f"no --by column {settings.by!r} (columns: {', '.join(map(str, table.frame.columns))})",
                         file=table.source, column=settings.by)
    scores: dict[str, np.ndarray] = {}
    signatures: dict[str, str] = {}
    missing = []
    for metric in settings.metrics:
        if metric in table.frame.columns:
            scores[metric] = _read_scores(table, metric)  # type: ignore[assignment]  # present: not None
            signatures[metric] = f"from input column {metric!r}"
        else:
            missing.append(metric)
    if missing:
        per_row, _, sigs = (scorers or scorer_factory(settings))(missing).score_rows(table.rows, table.source)
        scores.update({c: np.asarray(v, dtype=float) for c, v in per_row.items() if c not in scores})
        signatures.update({c: sig for c, sig in sigs.items() if c in per_row})
    if "Contains" not in scores and binary_labels(human, settings) is not None:  # the baseline of binary reports
        from kpqa.metrics.base import Context, get_metric

        contains = get_metric("Contains")
        scores["Contains"] = contains.score(table.rows, Context())["Contains"]
        signatures["Contains"] = str(contains.signature(Context()))
    keys = item_keys(table)
    systems, how = detect_systems(table, keys, settings.system_column)
    return Dataset(name or Path(str(path)).stem, table.source, table, human, scores, signatures, keys, systems, how)


# ------------------------------------------------------------------------------------------------------ evaluation


def binary_labels(human: np.ndarray, settings: Settings) -> np.ndarray | None:
    """0/1 labels: ``human > positive_above`` when set, the human scores when they are all 0 or 1, else None."""
    if settings.positive_above is not None:
        return (human > settings.positive_above).astype(float)
    return human.astype(float) if np.isin(human, (0.0, 1.0)).all() else None


def _load_calibration(settings: Settings) -> Any:
    from kpqa.calibration import Calibration, default_path

    path = settings.calibration or default_path(settings.scorer_options.get("checkpoint"))
    return Calibration.load(path) if settings.calibration or Path(path).is_file() else None


def _binary(data: Dataset, settings: Settings, labels: np.ndarray) -> dict[str, Any]:
    """The "correct or not" section: one row of :func:`kpqa.binary.evaluate` statistics per metric, judge and
    baseline, and the reliability bins of every calibrated probability."""
    from kpqa import binary

    cal = _load_calibration(settings)
    out: dict[str, Any] = {"rows": len(labels), "positives": int(labels.sum()),
                           "calibration": None if cal is None else {"path": cal.path, "digest": cal.digest},
                           "results": {}, "reliability": {}, "notes": []}
    probs: dict[str, np.ndarray] = {}
    options: dict[str, Any] = {"bootstrap": settings.bootstrap, "seed": settings.seed}
    for c, s in data.scores.items():
        given = data.signatures[c].startswith("from input column")
        if cal is not None and c in cal.metrics:
            entry = cal.metrics[c] if given else cal.entry(c, data.signatures[c])
            if given:
                out["notes"].append(f"{c}: calibrated scores from the input column; their signature is unchecked")
            probs[c] = entry.prob(s)
            out["results"][c] = binary.evaluate(labels, scores=s, probs=probs[c], decisions=entry.decide(s), **options)
        elif np.isin(s, (0.0, 1.0)).all():
            out["results"][c] = binary.evaluate(labels, scores=s, probs=s, decisions=s, **options)
        else:
            out["results"][c] = binary.evaluate(labels, scores=s, **options)
            out["notes"].append(f"{c}: no calibration, so AUROC and AP only (fit one with `kpqa calibrate`)")
    signatures = {c: sig for c, sig in data.signatures.items() if not sig.startswith("from input column")}
    for judge in [] if cal is None else cal.usable_judges(signatures):
        probs[judge.name] = judge.prob(data.scores)
        out["results"][judge.name] = binary.evaluate(labels, scores=probs[judge.name], probs=probs[judge.name],
                                                     decisions=judge.decide(data.scores), **options)
    rate = float(labels.mean())
    out["results"]["majority class"] = binary.evaluate(
        labels, scores=np.zeros(len(labels)), probs=np.full(len(labels), rate),
        decisions=np.full(len(labels), float(rate >= 0.5)), **options)
    out["results"] = {name: {k: v.to_dict() for k, v in r.items()} for name, r in out["results"].items()}
    out["reliability"] = {name: binary.reliability(labels, p) for name, p in probs.items()}
    return out


def _comparisons(columns: Sequence[str], extra: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    pairs = [(c, base_metric(c)) for c in columns if base_metric(c) in columns]
    for a, b in extra:
        for name in (a, b):
            if name not in columns:
                raise UsageError(f"--compare {a}:{b}: no metric column {name!r} (have: {', '.join(columns)})")
        if (a, b) not in pairs:
            pairs.append((a, b))
    return pairs  # type: ignore[return-value]  # base_metric(c) is in columns, so not None


def aev_scores(table: Table, tokenize: str, alphas: Sequence[float], orders: Sequence[int]) -> np.ndarray:
    """AEv(alpha, N) per row for the whole grid, shape ``(len(orders), len(alphas), rows)``: counts once, then a
    few array operations per cell (:func:`kpqa.metrics.aev.aev_grid`)."""
    from kpqa.metrics.aev import AEv, aev_grid
    from kpqa.metrics.base import Context

    counts = AEv(0.0, max(orders)).counts(table.rows, Context(tokenizer=tokenize))
    return aev_grid(counts, list(alphas), list(orders))


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
        "signatures": data.signatures,
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
    labels = binary_labels(h, settings)
    if labels is not None:
        out["binary"] = _binary(data, settings, labels)
        notes += out["binary"]["notes"]
    out["warnings"] = notes + [w for w in (out["rank_pairs"].get("note"), out["overall"].get("note")) if w]
    return out


def _rank_pairs(data: Dataset, settings: Settings) -> dict[str, Any]:
    rule = f"human gap {'>' if settings.strict else '>='} {settings.threshold:g}"
    if data.systems is None or len(set(data.systems)) < 2:
        return {"rule": rule, "pairs": 0, "note": "rank-pair undefined: one system answers each item "
                "(give --system COLUMN if the file holds several)"}
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


def load_all(paths: Sequence[str | Path], settings: Settings, scorers: ScorerFactory | None = None) -> list[Dataset]:
    """Load and score every file (data sets named by file stem, numbered when two stems clash)."""
    names = [Path(str(p)).stem for p in paths]
    scorers = scorers or scorer_factory(settings)
    return [load_dataset(path, settings, scorers, names[k] if names.count(names[k]) == 1 else f"{names[k]}-{k + 1}")
            for k, path in enumerate(paths)]


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


def _num(value: float | None, digits: int = 3) -> str:
    return "n/a" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.{digits}f}"


def _p(value: float | None) -> str:
    if value is None:
        return "n/a"
    return "<1e-4" if value < 1e-4 else f"{value:.4f}"


def _cell(c: dict) -> str:
    if c["value"] is None:
        return "undefined"
    ci = f" [{_num(c['ci_low'])}, {_num(c['ci_high'])}]" if c["ci_low"] is not None else ""
    return f"{c['value']:.3f}{ci}"


def _correlation_table(correlations: dict[str, dict]) -> list[str]:
    lines = ["| metric | Pearson r [95% CI] | p | Spearman ρ [95% CI] | p | Kendall τ [95% CI] | p |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for metric, corr in correlations.items():
        cells = [f"{_cell(corr[s])} | {_p(corr[s]['p_value'])}" for s in meta.STATISTICS]
        lines.append(f"| {metric} | " + " | ".join(cells) + " |")
    return lines


def _grid_table(grid: dict, key: str, percent: bool) -> list[str]:
    lines = ["| N \\ α | " + " | ".join(f"{a:g}" for a in grid["alphas"]) + " |",
             "| --- |" + " --- |" * len(grid["alphas"])]
    for n, row in zip(grid["orders"], grid[key]):
        cells = ["n/a" if v is None else (f"{100 * v:.2f}" if percent else f"{v:.3f}") for v in row]
        lines.append(f"| {n} | " + " | ".join(cells) + " |")
    return lines


def _binary_section(b: dict[str, Any]) -> list[str]:
    from kpqa.binary import STATISTICS

    cal = b["calibration"]
    how = f"calibration `{cal['path']}` (cal:{cal['digest']})" if cal else "no calibration file"
    out = ["### Correct or not (binary labels)", "",
           f"{b['rows']} rows, {b['positives']} correct ({100 * b['positives'] / b['rows']:.1f} %); decisions and "
           f"probabilities from {how}; 0/1 metrics (EM, Contains) as they are. ECE over 10 equal-width bins.", "",
           "| judge | accuracy | kappa | AUROC | avg. precision | Brier | ECE |", "| --- |" + " --- |" * 6]
    for name, r in b["results"].items():
        cells = [_cell(r[s]) if s in r else "n/a" for s in STATISTICS]
        out.append(f"| {name} | " + " | ".join(cells) + " |")
    return out + [""]


def to_markdown(report: dict[str, Any]) -> str:
    """The report as markdown tables, one section per data set."""
    s = report["settings"]
    out = ["# Meta-evaluation", "",
           f"kpqa {report['kpqa_version']}; bootstrap: {s['bootstrap']} resamples of the rows, seed {s['seed']}; "
           "intervals are 95% percentile intervals; p-values of the correlations are scipy.stats' two-sided ones.", ""]
    for d in report["datasets"]:
        h = d["human"]
        out += [f"## {d['name']}", "",
                f"`{d['source']}`: {d['rows']} rows; human score column `{d['human_column']}` "
                f"(mean {h['mean']:.3f}, range {h['min']:g}-{h['max']:g}); systems: {d['systems']['how']}.", ""]
        if d["warnings"]:
            out += ["**Warnings**", ""] + [f"- {w}" for w in d["warnings"]] + [""]
        if "binary" in d:
            out += _binary_section(d["binary"])
        out += ["### Correlation with human judgments", ""] + _correlation_table(d["correlations"]) + [""]
        if d["paired"]:
            out += ["### Paired bootstrap (Koehn 2004)", "",
                    "p: share of resamples where the metric's correlation is not higher than the base metric's.", "",
                    "| metric | against | statistic | Δ [95% CI] | p |", "| --- | --- | --- | --- | --- |"]
            for t in d["paired"]:
                delta = "undefined" if t["delta"] is None else (
                    f"{t['delta']:+.3f} [{_num(t['ci_low'])}, {_num(t['ci_high'])}]")
                p = f"<{1 / t['resamples']:.2g}" if t["p_value"] == 0 else _p(t["p_value"])  # resolution: 1/B
                out.append(f"| {t['a']} | {t['b']} | {t['statistic']} | {delta} | {p} |")
            out.append("")
        rp = d["rank_pairs"]
        out += ["### Rank-pair agreement (KPQA paper, Table 7)", ""]
        if "results" in rp and rp["pairs"]:
            out += [f"{rp['pairs']} of {rp['same_item_pairs']} pairs of answers to the same item by two systems "
                    f"have a {rp['rule']}; "
                    "a metric tie counts as a miss.", "", "| metric | matches | ties | % |", "| --- | --- | --- | --- |"]
            out += [f"| {r['metric']} | {r['matches']}/{r['pairs']} | {r['ties']} | {_num(r['percent'], 2)} |"
                    for r in rp["results"]]
        else:
            out.append(rp["note"] + ".")
        out.append("")
        ov = d["overall"]
        out += ["### Overall level (Yang et al. 2018)", ""]
        if "results" in ov and "note" not in ov:
            out += [f"{ov['draws']} draws of {ov['questions']} items answered by every system; each system scored by "
                    "its mean human and mean metric score; Pearson r over all (draw, system) points.", "",
                    "| metric | r | p | points |", "| --- | --- | --- | --- |"]
            out += [f"| {r['metric']} | {_num(r['value'])} | {_p(r['p_value'])} | {r['points']} |"
                    + (f" {r['note']}" if r["note"] else "") for r in ov["results"]]
        else:
            out.append(ov["note"] + ".")
        out.append("")
        if "by" in d:
            by = d["by"]
            metrics = list(d["correlations"])
            out += [f"### Pearson r by `{by['column']}`", "",
                    "| group | rows | " + " | ".join(metrics) + " |", "| --- | --- |" + " --- |" * len(metrics)]
            for label, g in by["groups"].items():
                cells = [_num(g["correlations"][m]["pearson"]["value"]) for m in metrics]
                out.append(f"| {label} | {g['rows']} | " + " | ".join(cells) + " |")
            out.append("")
        if "aev_grid" in d:
            out += ["### AEv(α, N) grid (Soricut & Brill 2004)", "", "R² × 100 (points: answers):", ""]
            out += _grid_table(d["aev_grid"], "r2", True) + ["", "Pearson r:", ""]
            out += _grid_table(d["aev_grid"], "pearson", False) + [""]
        out += ["### Signatures", ""] + [f"- {m}: `{sig}`" for m, sig in d["signatures"].items()] + [""]
    return "\n".join(out)


def to_json(report: dict[str, Any]) -> str:
    """The report as JSON (undefined values are null, with a note beside them)."""
    return json.dumps(report, indent=2, ensure_ascii=False, allow_nan=False)


def write_plots(report: dict[str, Any], folder: str | Path, data: Sequence[Dataset] | None = None,
                formats: Sequence[str] = ("png",)) -> list[Path]:
    """Figures of a report, per data set and in each of ``formats`` (png at 300 dpi, pdf, svg): metric-vs-human
    scatter plots (for the data sets in ``data``, which hold the per-row scores), the AEv grid heat map and the
    by-group bars with bootstrap intervals when the report has them."""
    from kpqa import plots

    folder = Path(folder)
    written = []
    by_name = {d.name: d for d in data or []}
    for d in report["datasets"]:
        pearson = {m: c["pearson"]["value"] for m, c in d["correlations"].items()}
        if d.get("binary", {}).get("reliability"):
            for fmt in formats:
                written.append(plots.reliability(d["binary"]["reliability"],
                                                 folder / f"{d['name']}-reliability.{fmt}",
                                                 title=f"{d['name']}: reliability of P(correct)"))
        for fmt in formats:
            if d["name"] in by_name:
                loaded = by_name[d["name"]]
                written.append(plots.scatter(loaded.human, loaded.scores, folder / f"{d['name']}-scatter.{fmt}",
                                             title=d["name"], pearson=pearson, human_label=d["human_column"]))
            if "aev_grid" in d:
                written.append(plots.grid_heatmap(d["aev_grid"], folder / f"{d['name']}-aev-grid.{fmt}",
                                                  title=f"{d['name']}: AEv(α, N), R² × 100"))
            if "by" in d:
                groups = {label: {m: c["pearson"] for m, c in g["correlations"].items()}
                          for label, g in d["by"]["groups"].items()}
                counts = {label: g["rows"] for label, g in d["by"]["groups"].items()}
                written.append(plots.breakdown(groups, folder / f"{d['name']}-by-{d['by']['column']}.{fmt}",
                                               title=f"{d['name']}: Pearson r by {d['by']['column']}", counts=counts))
    return written
