"""``kpqa report``: flags -> :func:`kpqa.htmlreport.read_scored`, the weights (:func:`~kpqa.htmlreport.weigh_rows`)
-> :func:`~kpqa.htmlreport.to_html` -> one HTML page."""
from __future__ import annotations

import argparse

from kpqa.cli.common import names, nonnegative_int, parent, wrote


def add(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "report",
        help="browse a scored file as one HTML page",
        description="Write one self-contained HTML page (no network) from a file `kpqa score -o` wrote: the "
        "metrics' mean scores and signatures (from FILE.signatures.json when it is there), score histograms and "
        "reliability diagrams, and every row in a table that sorts and filters by metric, decision and disagreement "
        "with a human label column; a row opens to show its texts with their keyphrase weights (as `kpqa explain` "
        "shows them) and its per-metric P(correct).",
        parents=[parent("--columns", "--tokenize", "--checkpoint", "--function-words", "--device", "--batch-size",
                        "--quiet", tokenize="tokenizer for --unit word (default: %(default)s)")],
    )
    p.add_argument("input", help="a scored file: CSV, TSV, JSONL, JSON (array) or Parquet")
    p.add_argument("-o", "--output", required=True, help="write the HTML page here")
    p.add_argument("--metrics", type=names, help="comma-separated metric columns to show (default: every numeric column that "
                   "is not a text, the human column or a -prob / -correct column; judges with decisions alone count)")
    p.add_argument("--human-column", "--human", metavar="COLUMN",
                   help="column of human labels (default: 'scores' when the file has one)")
    p.add_argument("--positive-above", type=float, metavar="T",
                   help="count a numeric human score above T as correct (without it, labels must be 0 or 1)")
    p.add_argument("--no-weights", action="store_true", help="leave out the keyphrase weights (no model is loaded)")
    p.add_argument("--weights-rows", type=nonnegative_int, metavar="N",
                   help="weigh the texts of N rows (default: 200, kpqa.htmlreport.WEIGHED_ROWS): those where KPQA-judge disagrees with the "
                   "human label first, then file order; 0 or a number over the rows: all (slow on a CPU: the weighter "
                   "runs again over every text)")
    p.add_argument("--unit", choices=("word", "piece"), default="word",
                   help="weights per word of --tokenize (default) or per word piece of the weighter, as in explain")
    p.add_argument("--no-question", action="store_true", help="use the -KP weighter (no question)")
    p.add_argument("--force", action="store_true", help="allow -o to replace INPUT")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from kpqa import explain, htmlreport
    from kpqa.output import Destination, write_text

    Destination(args.output, inputs=[args.input], force=args.force)  # refuse before anything is read
    scored = htmlreport.read_scored(args.input, metrics=args.metrics, human_column=args.human_column,
                                    positive_above=args.positive_above, columns=args.columns)
    weights = palette = None
    if not args.no_weights:
        from kpqa.models.weighter import Weighter

        weighter = Weighter.load(args.checkpoint, no_question=args.no_question, device=args.device,
                                 batch_size=args.batch_size, function_word_weight=args.function_word_weight)
        limit = htmlreport.WEIGHED_ROWS if args.weights_rows is None else args.weights_rows or None
        rows = htmlreport.weighed_rows(scored, limit)
        weights = htmlreport.weigh_rows(scored, weighter, tokenize=args.tokenize, unit=args.unit,
                                        progress=not args.quiet, rows=rows)
        palette = explain.palette()
    page = htmlreport.to_html(scored, weights, palette, unit=args.unit)
    write_text(args.output, page, inputs=[args.input], force=args.force)
    wrote(args.output, f"{len(scored.table.frame):,} rows, {len(page) / 1e6:.1f} MB")
    return 0
