"""Meta-evaluation output: a :class:`~kpqa.metaeval.report.Report` as Markdown, JSON, or figures."""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any, Sequence


from kpqa.metaeval import statistics
from kpqa.metaeval.data import Dataset
from kpqa.metaeval.report import (
    BinarySection, Breakdown, Correlations, DatasetReport, OverallSection, RankPairSection, Report,
)


def _num(value: float | None, digits: int = 3) -> str:
    return "n/a" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.{digits}f}"


def p_text(value: float | None) -> str:
    """A p-value as the tables print it."""
    if value is None:
        return "n/a"
    return "<1e-4" if value < 1e-4 else f"{value:.4f}"


def _cell(value: float | None, ci_low: float | None, ci_high: float | None) -> str:
    if value is None:
        return "undefined"
    ci = f" [{_num(ci_low)}, {_num(ci_high)}]" if ci_low is not None else ""
    return f"{value:.3f}{ci}"


def _stat_cell(c: dict[str, Any]) -> str:
    """A binary statistic's cell (its ``to_dict`` form)."""
    return _cell(c["value"], c["ci_low"], c["ci_high"])


def _correlation_table(correlations: Correlations) -> list[str]:
    lines = ["| metric | Pearson r [95% CI] | p | Spearman ρ [95% CI] | p | Kendall τ [95% CI] | p |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for metric, corr in correlations.items():
        cells = [f"{_cell(corr[s].value, corr[s].ci_low, corr[s].ci_high)} | {p_text(corr[s].p_value)}"
                 for s in statistics.STATISTICS]
        lines.append(f"| {metric} | " + " | ".join(cells) + " |")
    return lines


def grid_table(grid: statistics.Grid, key: str, percent: bool) -> list[str]:
    """An AEv(alpha, N) grid's ``key`` cells (``r2`` or ``pearson``) as a markdown table (``percent``: x 100, two
    decimals)."""
    lines = ["| N \\ α | " + " | ".join(f"{a:g}" for a in grid.alphas) + " |",
             "| --- |" + " --- |" * len(grid.alphas)]
    for n, row in zip(grid.orders, getattr(grid, key)):
        cells = ["n/a" if v is None else (f"{100 * v:.2f}" if percent else f"{v:.3f}") for v in row]
        lines.append(f"| {n} | " + " | ".join(cells) + " |")
    return lines


def _binary_section(b: BinarySection) -> list[str]:
    from kpqa.binary import STATISTICS

    cal = b.calibration
    how = f"calibration `{cal['path']}` (cal:{cal['digest']})" if cal else "no calibration file"
    out = ["### Correct or not (binary labels)", "",
           f"{b.rows} rows, {b.positives} correct ({100 * b.positives / b.rows:.1f} %); decisions and "
           f"probabilities from {how}; 0/1 metrics (EM, Contains) as they are. ECE over 10 equal-width bins.", "",
           "| judge | accuracy | kappa | AUROC | avg. precision | Brier | ECE |", "| --- |" + " --- |" * 6]
    for name, r in b.results.items():
        cells = [_stat_cell(r[s]) if s in r else "n/a" for s in STATISTICS]
        out.append(f"| {name} | " + " | ".join(cells) + " |")
    bands = b.bands
    if bands:
        out += ["", "Accuracy (%) by answer length (words; rows, share correct):", "",
                "| judge | " + " | ".join(f"{band} ({v['rows']}, {100 * v['positives'] / v['rows']:.0f} %)"
                                         for band, v in bands.items()) + " |", "| --- |" + " --- |" * len(bands)]
        for name in next(iter(bands.values()))["accuracy"]:
            out.append(f"| {name} | " + " | ".join(f"{100 * v['accuracy'][name]:.1f}" for v in bands.values()) + " |")
    return out + [""]


def to_markdown(report: Report) -> str:
    """The report as markdown tables, one section per data set."""
    s = report.settings
    out = ["# Meta-evaluation", "",
           f"kpqa {report.kpqa_version}; bootstrap: {s.bootstrap} resamples of the rows, seed {s.seed}; "
           "intervals are 95% percentile intervals; p-values of the correlations are scipy.stats' two-sided ones.", ""]
    for d in report.datasets:
        out += _dataset_markdown(d)
    return "\n".join(out)


def _dataset_markdown(d: DatasetReport) -> list[str]:
    """One data set's section: header and warnings, then each statistic's subsection."""
    h = d.human
    out = [f"## {d.name}", "",
           f"`{d.source}`: {d.rows} rows; human score column `{d.human_column}` "
           f"(mean {h.mean:.3f}, range {h.min:g}-{h.max:g}); systems: {d.systems.how}.", ""]
    if d.warnings:
        out += ["**Warnings**", ""] + [f"- {w}" for w in d.warnings] + [""]
    if d.binary is not None:
        out += _binary_section(d.binary)
    out += ["### Correlation with human judgments", ""] + _correlation_table(d.correlations) + [""]
    if d.paired:
        out += _paired_section(d.paired)
    out += _rank_pair_section(d.rank_pairs) + _overall_section(d.overall)
    if d.by is not None:
        out += _by_section(d.by, list(d.correlations))
    if d.aev_grid is not None:
        out += ["### AEv(α, N) grid (Soricut & Brill 2004)", "", "R² × 100 (points: answers):", ""]
        out += grid_table(d.aev_grid, "r2", True) + ["", "Pearson r:", ""]
        out += grid_table(d.aev_grid, "pearson", False) + [""]
    return out + ["### Signatures", ""] + [f"- {m}: `{sig}`" for m, sig in d.signatures.items()] + [""]


def _paired_section(paired: list[statistics.PairedTest]) -> list[str]:
    out = ["### Paired bootstrap (Koehn 2004)", "",
           "p: two-sided, of no difference between the two correlations (the resampled differences shifted by the "
           "observed one, (1 + extreme) / (1 + resamples): kpqa.metaeval.statistics.shift_p_value, as kpqa "
           "compare's).", "",
           "| metric | against | statistic | Δ [95% CI] | p |", "| --- | --- | --- | --- | --- |"]
    for t in paired:
        delta = "undefined" if t.delta is None else f"{t.delta:+.3f} [{_num(t.ci_low)}, {_num(t.ci_high)}]"
        out.append(f"| {t.a} | {t.b} | {t.statistic} | {delta} | {p_text(t.p_value)} |")
    return out + [""]


def _rank_pair_section(rp: RankPairSection) -> list[str]:
    out = ["### Rank-pair agreement (KPQA paper, Table 7)", ""]
    if rp.results is not None and rp.pairs:
        out += [f"{rp.pairs} of {rp.same_item_pairs} pairs of answers to the same item by two systems "
                f"have a {rp.rule}; "
                "a metric tie counts as a miss.", "", "| metric | matches | ties | % |", "| --- | --- | --- | --- |"]
        out += [f"| {r.metric} | {r.matches}/{r.pairs} | {r.ties} | {_num(r.percent, 2)} |" for r in rp.results]
    else:
        out.append(f"{rp.note}.")
    return out + [""]


def _overall_section(ov: OverallSection) -> list[str]:
    out = ["### Overall level (Yang et al. 2018)", ""]
    if ov.results is not None and ov.note is None:
        out += [f"{ov.draws} draws of {ov.questions} items answered by every system; each system scored by "
                "its mean human and mean metric score; Pearson r over all (draw, system) points.", "",
                "| metric | r | p | points |", "| --- | --- | --- | --- |"]
        out += [f"| {r.metric} | {_num(r.value)} | {p_text(r.p_value)} | {r.points} |"
                + (f" {r.note}" if r.note else "") for r in ov.results]
    else:
        out.append(f"{ov.note}.")
    return out + [""]


def _by_section(by: Breakdown, metrics: list[str]) -> list[str]:
    out = [f"### Pearson r by `{by.column}`", "",
           "| group | rows | " + " | ".join(metrics) + " |", "| --- | --- |" + " --- |" * len(metrics)]
    for label, g in by.groups.items():
        cells = [_num(g.correlations[m]["pearson"].value) for m in metrics]
        out.append(f"| {label} | {g.rows} | " + " | ".join(cells) + " |")
    return out + [""]


def to_json(report: Report) -> str:
    """The report as JSON (undefined values are null, with a note beside them)."""
    return json.dumps(report.to_dict(), indent=2, ensure_ascii=False, allow_nan=False)


def write_plots(report: Report, folder: str | Path, data: Sequence[Dataset] | None = None,
                formats: Sequence[str] = ("png",)) -> list[Path]:
    """Figures of a report, per data set and in each of ``formats`` (png at 300 dpi, pdf, svg): metric-vs-human
    scatter plots (for the data sets in ``data``, which hold the per-row scores), the reliability diagram of the
    binary section, the AEv grid heat map and the by-group bars with bootstrap intervals when the report has them."""
    by_name = {d.name: d for d in data or []}
    return [path for d in report.datasets for path in _dataset_plots(d, by_name.get(d.name), Path(folder), formats)]


def _dataset_plots(d: DatasetReport, loaded: Dataset | None, folder: Path, formats: Sequence[str]) -> list[Path]:
    """:func:`write_plots` of one data set (``loaded``: its per-row scores, if at hand)."""
    from kpqa import plots

    written = []
    if d.binary is not None and d.binary.reliability:
        for fmt in formats:
            written.append(plots.reliability(d.binary.reliability, folder / f"{d.name}-reliability.{fmt}",
                                             title=f"{d.name}: reliability of P(correct)"))
    pearson = {m: c["pearson"].value for m, c in d.correlations.items()}
    for fmt in formats:
        if loaded is not None:
            written.append(plots.scatter(loaded.human, loaded.scores, folder / f"{d.name}-scatter.{fmt}",
                                         title=d.name, pearson=pearson, human_label=d.human_column))
        if d.aev_grid is not None:
            written.append(plots.grid_heatmap(d.aev_grid.to_dict(), folder / f"{d.name}-aev-grid.{fmt}",
                                              title=f"{d.name}: AEv(α, N), R² × 100"))
        if d.by is not None:
            groups = {label: {m: c["pearson"].to_dict() for m, c in g.correlations.items()}
                      for label, g in d.by.groups.items()}
            counts = {label: g.rows for label, g in d.by.groups.items()}
            written.append(plots.breakdown(groups, folder / f"{d.name}-by-{d.by.column}.{fmt}",
                                           title=f"{d.name}: Pearson r by {d.by.column}", counts=counts))
    return written
