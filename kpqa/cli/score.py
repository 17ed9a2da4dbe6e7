"""``kpqa score``: flags -> :class:`~kpqa.scoring.Scorer` (:func:`kpqa.scoring.build`), carried on by
:meth:`kpqa.resume.Resume.for_scorer`, its signatures beside the output (:func:`kpqa.results.write_signatures`)."""
from __future__ import annotations

import argparse
import contextlib
import functools
import sys
from typing import Any

from kpqa.cli.common import SCORER_FLAGS, add_text_files, names, parent, positive_int, resume_collection, \
    scorer_options, some, text_input, wrote
from kpqa.errors import UsageError


def add(sub: argparse._SubParsersAction) -> None:
    from kpqa.context import ON_ERROR
    from kpqa.scoring import CHUNK_ROWS, DEFAULT_METRICS

    p = sub.add_parser(
        "score",
        help="score generated answers against references",
        description="Score each row of INPUT (CSV: question, answer, reference1..N; or JSONL) with the chosen "
        "metrics; print corpus scores and their signatures' hashes (-v: the signatures), and write the per-row table "
        "with -o (and every signature to OUTPUT.signatures.json).",
        parents=[parent(*SCORER_FLAGS)],
    )
    p.add_argument("input", nargs="?", help="CSV, TSV, JSONL, JSON (array) or Parquet file (or --answers)")
    add_text_files(p, answers="instead of INPUT: plain-text answers, one a line (with --references)")
    p.add_argument("-o", "--output",
                   help="write input columns + one column per metric here, in the format the extension names (.csv, "
                   ".tsv, .jsonl, .json, .parquet); '-' (or no -o when stdout is a pipe): CSV on stdout, the corpus "
                   "scores then go to stderr")
    p.add_argument("--force", action="store_true", help="allow -o to replace the input file")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="print every column's corpus score with its full signature, one line each, instead of one "
                   "row per metric with a short hash of its signature (-o FILE also writes them all to "
                   "FILE.signatures.json)")
    p.add_argument("--on-error", choices=ON_ERROR, default=ON_ERROR[0],
                   help="a row that cannot be scored (no reference, a text over --max-chars, empty "
                   "question under a KPQA metric): stop (raise, default), or leave its scores empty (skip) or 0 "
                   "(zero), say why in an 'error' column and list the rows at the end")
    p.add_argument(
        "--metrics", type=names,
        help=f"comma-separated metric names (default: {','.join(DEFAULT_METRICS)}; with --decide also KeyFact-KPQA, F1 and Contains); "
        "see `kpqa metrics`",
    )
    p.add_argument("--no-question", action="store_true", help="use the -KP weighter (no question); columns end in -KP")
    p.add_argument(
        "--chunk-rows",
        type=positive_int,
        default=CHUNK_ROWS,
        help="rows read, scored and written at a time (default: %(default)s); memory grows with it, corpus scores "
        "do not depend on it. Under `accelerate launch`, each process scores its share of every chunk",
    )
    p.add_argument("--resume", action="store_true",
                   help="carry on an interrupted run of this command from its last finished chunk (the same command "
                   "does so by itself; with --resume it is an error when there is none). With -o FILE the finished "
                   "chunks are kept on Ctrl-C or a kill in .FILE.partial and .FILE.resume.json")
    p.add_argument("--decide", action="store_true",
                   help="add <metric>-prob (calibrated P(correct)) and <metric>-correct (0/1) columns, and those of "
                   "KPQA-judge; the summary gives the share judged correct. Default metrics then also include "
                   "KeyFact-KPQA, F1 and Contains (the judge's inputs)")
    p.add_argument("--calibration", metavar="FILE",
                   help="calibration for --decide (implies it; default: calibration.json beside the weighter)")
    p.add_argument("--prior", type=float, metavar="P",
                   help="with --decide: the share of correct answers you expect (0 < P < 1). The shipped calibration "
                   "assumes half; P moves every P(correct) to that share and decides at 0.5 (recorded in the "
                   "decision signatures as prior:P)")
    p.set_defaults(run=run, resumes_collection=True)  # once its models are loaded (run)


def run(args: argparse.Namespace) -> int:
    from kpqa.output import STDOUT, Destination, OutputWriter, output_format
    from kpqa.results import write_signatures
    from kpqa.resume import Resume
    from kpqa.scoring import build

    if args.output:  # refuse a path it cannot write before any model is loaded or row scored
        output_format(args.output)
        Destination(args.output, inputs=[args.input or args.answer_files], force=args.force)
    scorer = build(scorer_options(args), args.metrics, on_error=args.on_error, data_parallel=True,
                   decide=args.decide, calibration=args.calibration, prior=args.prior)
    if (args.input is None) == (args.answer_files is None):
        raise UsageError("give INPUT or --answers FILE with --references FILE, not both")
    args.input = args.input or args.answer_files
    inputs = [args.input, *args.reference_files, *([args.question_file] if args.question_file else [])]
    output = args.output or (None if sys.stdout.isatty() else STDOUT)
    # the -wrong columns and 'auto''s tokenizer, before the output's columns and resume key
    table = text_input(args, args.answer_files, "score") if args.answer_files else None
    plan = scorer.plan(table.rows) if table is not None else scorer.plan_for(args.input)
    writer = None
    resume = Resume.for_scorer(scorer, plan, None if args.answer_files else args.input, output, args.chunk_rows,
                               args.resume)
    resume_collection()  # the imports are done and the weighter loaded (the signatures need it)
    if output and scorer.is_main:
        writer = resume.writer(output, scorer.columns(plan), inputs=inputs, force=args.force) if resume else \
            OutputWriter(output, last_columns=scorer.columns(plan), inputs=inputs, force=args.force)
    result = _score_into(args, scorer, writer, resume, plan, table)
    if scorer.is_main:
        report = sys.stderr if output == STDOUT else sys.stdout
        print(f"{result.rows} rows from {args.input}", file=report)
        print(result.summary(args.verbose), file=report)
        if writer is not None:
            wrote(str(output), f"{result.rows} rows, {writer.format.upper()}")
        if writer is not None and writer.to_file and result.signatures:
            sidecar = write_signatures(str(output), result.signatures, scorer.calibration, inputs=[args.input],
                                       force=args.force)
            wrote(sidecar, "signatures")
        if result.empty:
            print(f"{len(result.empty)} of {result.rows} answers empty, scored as such (every metric at its floor, "
                  f"judged wrong): rows {some(result.empty)}", file=report)
        if result.errors:
            numbers = list(result.errors)
            kept = "empty scores" if args.on_error == "skip" else "scores 0"
            print(f"kpqa: warning: {len(numbers)} of {result.rows} rows not scored ({kept}; the 'error' column says "
                  f"why): rows {some(numbers)}", file=sys.stderr)
    return 0


def _score_into(args: argparse.Namespace, scorer: Any, writer: Any, resume: Any, plan: Any, table: Any) -> Any:
    """``scorer.score_file`` of the input into ``writer`` under ``plan``, carrying on from and keeping its finished
    chunks in ``resume`` (:mod:`kpqa.resume`), which is dropped once the output is in place or the run failed;
    ``table``: plain-text inputs read as one table (not carried on: no --resume)."""
    try:
        with writer or contextlib.nullcontext():
            if table is not None:
                result = scorer.score_stream([table], writer.write if writer else None, plan=plan)
            else:
                result = scorer.score_file(args.input, writer.write if writer else None, chunk_rows=args.chunk_rows,
                                           run=resume.accumulator() if resume else None,
                                           done=functools.partial(resume.save, writer) if resume and writer else None,
                                           plan=plan)
    except KeyboardInterrupt:
        if resume is not None and resume.rows:
            print(f"kpqa: {resume.rows} rows scored are kept ({resume.partial}): the same command carries on",
                  file=sys.stderr)
        raise
    except BaseException:
        if resume is not None:
            resume.drop()
        raise
    if resume is not None:
        resume.drop()
    return result
