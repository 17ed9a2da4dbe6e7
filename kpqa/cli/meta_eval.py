"""``kpqa meta-eval``: flags -> :class:`kpqa.metaeval.Settings` -> :func:`kpqa.metaeval.load_all`,
:func:`~kpqa.metaeval.build_report` -> Markdown, JSON, figures."""
from __future__ import annotations

import argparse
import sys

from kpqa.cli.common import SCORER_FLAGS, names, nonnegative_int, parent, positive_int, scorer_options, wrote
from kpqa.errors import UsageError


def add(sub: argparse._SubParsersAction) -> None:
    from kpqa.scoring import DEFAULT_METRICS

    p = sub.add_parser(
        "meta-eval",
        help="correlate metrics with human judgments; accuracy and calibration on binary labels",
        description="For each human-judgment file (a scoring input with a human score column), score it (metric "
        "columns already in the file are used as they are) and report Pearson / Spearman / Kendall with p-values and "
        "bootstrap intervals, paired bootstrap tests of each -KPQA / -KP / -adapted metric against its base, "
        "rank-pair agreement and Yang et al.'s overall level when the file holds two systems, and a breakdown by "
        "a column. Writes markdown (-o, else stdout), JSON and plots.",
        parents=[parent(*SCORER_FLAGS)],
    )
    p.add_argument("inputs", nargs="+", metavar="INPUT", help="CSV or JSONL files with human scores")
    p.add_argument("--metrics", type=names, default=",".join(DEFAULT_METRICS),
                   help="comma-separated metrics (default: %(default)s)")
    p.add_argument("--human-column", default="scores", help="column of human scores (default: %(default)s)")
    p.add_argument("--system", dest="system_column", metavar="COLUMN",
                   help="column naming the system of each row (default: the 'system' column when there is one, else "
                   "two halves answering the same items, else one system)")
    p.add_argument("--by", metavar="COLUMN", help="also report Pearson r per value of this column (e.g. question type)")
    p.add_argument("--bootstrap", type=nonnegative_int, default=1000, metavar="N",
                   help="bootstrap resamples for intervals and paired tests (default: %(default)s; 0: none)")
    p.add_argument("--seed", type=int, default=0, help="random seed of the bootstrap and sampling (default: %(default)s)")
    p.add_argument("--rank-pair-threshold", type=float, default=2.0, metavar="T",
                   help="keep answer pairs whose human scores differ by at least T (default: %(default)s, which gives "
                   "the paper's 93 MS-MARCO pairs)")
    p.add_argument("--rank-pair-strict", action="store_true", help="keep pairs differing by more than T")
    p.add_argument("--compare", action="append", default=[], metavar="A:B",
                   help="also run the paired bootstrap of metric A against metric B (repeatable)")
    p.add_argument("--overall-questions", type=positive_int, default=30, metavar="K",
                   help="items per draw in Yang et al.'s overall level (default: %(default)s)")
    p.add_argument("--overall-draws", type=positive_int, default=100, metavar="D",
                   help="draws in Yang et al.'s overall level (default: %(default)s)")
    p.add_argument("--aev-grid", action="store_true", help="add Soricut & Brill's AEv(alpha, N) grid")
    p.add_argument("--positive-above", type=float, metavar="T",
                   help="count a human score above T as correct and add the binary section (automatic when every "
                   "human score is 0 or 1): accuracy, kappa, AUROC, AP, Brier, ECE beside Contains and the majority "
                   "class")
    p.add_argument("--calibration", metavar="FILE",
                   help="calibration for the binary section (default: calibration.json beside the weighter)")
    p.add_argument("--outside-fit", action="store_true",
                   help="leave out the rows whose question the calibration's judges were fitted on (the calibration "
                   "lists them): figures on questions it never saw")
    p.add_argument("-o", "--output", help="write the markdown report here (default: print it)")
    p.add_argument("--json", help="write the report as JSON here")
    p.add_argument("--plots", metavar="DIR", help="write figures into this folder")
    p.add_argument("--plot-format", default="png", metavar="FORMATS",
                   help="comma-separated figure formats: png (300 dpi), pdf, svg (default: %(default)s)")
    p.add_argument("--force", action="store_true", help="allow -o / --json to replace an input file")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from kpqa import metaeval
    from kpqa.output import Destination, write_text
    from kpqa.optional import require

    settings = metaeval.Settings(
        metrics=args.metrics, compare=compare_pairs(args.compare),
        human_column=args.human_column, system_column=args.system_column, by=args.by, bootstrap=args.bootstrap,
        seed=args.seed, threshold=args.rank_pair_threshold, strict=args.rank_pair_strict,
        overall_questions=args.overall_questions, overall_draws=args.overall_draws, aev_grid=args.aev_grid,
        positive_above=args.positive_above, calibration=args.calibration, scorer_options=scorer_options(args),
        outside_fit=args.outside_fit,
    )
    formats = plot_formats(args.plot_format)
    if args.plots:
        require("matplotlib", "--plots")  # before any file is read or scored
    for path in (args.output, args.json):
        if path:
            Destination(path, inputs=args.inputs, force=args.force)  # refuse before anything is read or scored
    datasets = metaeval.load_all(args.inputs, settings)
    report = metaeval.build_report(datasets, settings)
    markdown = metaeval.to_markdown(report)
    if args.output:
        write_text(args.output, markdown, inputs=args.inputs, force=args.force)
        wrote(args.output, "report")
    else:
        print(markdown)
    if args.json:
        write_text(args.json, metaeval.to_json(report), inputs=args.inputs, force=args.force)
        wrote(args.json, "report as JSON")
    if args.plots:
        for path in metaeval.write_plots(report, args.plots, datasets, formats=formats or ["png"]):
            wrote(str(path))
    for dataset in report.datasets:
        for warning in dataset.warnings:
            print(f"kpqa: warning: {dataset.name}: {warning}", file=sys.stderr)
    return 0


def compare_pairs(items: list[str]) -> list[tuple[str, str]]:
    """The (A, B) metric pairs of ``--compare A:B`` flags."""
    pairs = []
    for item in items:
        a, sep, b = item.partition(":")
        if not sep or not a.strip() or not b.strip():
            raise UsageError(f"--compare expects METRIC_A:METRIC_B, got {item!r}")
        pairs.append((a.strip(), b.strip()))
    return pairs


def plot_formats(text: str) -> list[str]:
    """The figure formats of ``--plot-format``, each one :data:`kpqa.plots.FORMATS` has."""
    from kpqa import plots

    formats = [f.lower() for f in names(text)]
    for fmt in formats:
        if fmt not in plots.FORMATS:
            raise UsageError(f"--plot-format: unknown format {fmt!r}; use {', '.join(plots.FORMATS)}")
    return formats
