"""The ``kpqa`` command: thin argument parsing around the library.

Errors the user can fix print one line (``kpqa: error: ...``) and exit 2; anything else prints one line and exits 1
(set ``KPQA_DEBUG=1`` for the traceback).
"""
from __future__ import annotations

import argparse
import os
import sys
from typing import Callable, Sequence

from kpqa import __version__
from kpqa.errors import KpqaError


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return value


def _add_score(sub: argparse._SubParsersAction) -> None:
    from kpqa.scoring import DEFAULT_METRICS

    p = sub.add_parser(
        "score",
        help="score generated answers against references",
        description="Score each row of INPUT (CSV: question, answer, reference1..N; or JSONL) with the chosen "
        "metrics; print corpus scores and signatures, and write the per-row table with -o.",
    )
    p.add_argument("input", help="CSV or JSONL file")
    p.add_argument("-o", "--output", help="write input columns + one column per metric here (.csv or .jsonl)")
    p.add_argument(
        "--metrics",
        default=",".join(DEFAULT_METRICS),
        help="comma-separated metric names (default: %(default)s); see `kpqa metrics`",
    )
    p.add_argument("--tokenize", default="ptb", help="tokenizer for lexical metrics: ptb (default), whitespace, zh")
    p.add_argument("--no-question", action="store_true", help="use the -KP weighter (no question); columns end in -KP")
    p.add_argument("--checkpoint", help="weighter checkpoint folder (default: the shipped one)")
    p.add_argument("--device", default="auto", help="auto (default), cpu, cuda, cuda:N")
    p.add_argument("--batch-size", type=_positive_int, default=64, help="encoder batch size (default: %(default)s)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(run=_run_score)


def _run_score(args: argparse.Namespace) -> int:
    from kpqa.io import read_input, write_output
    from kpqa.scoring import Scorer

    table = read_input(args.input)
    scorer = Scorer(
        [m for m in args.metrics.split(",") if m.strip()],
        tokenize=args.tokenize,
        checkpoint=args.checkpoint,
        no_question=args.no_question,
        device=args.device,
        batch_size=args.batch_size,
        progress=not args.quiet,
    )
    result = scorer.score(table)
    if args.output:
        write_output(result.frame, args.output)
    print(f"{len(result.frame)} rows from {table.source}")
    print(result.summary())
    return 0


def _add_metrics(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("metrics", help="list the registered metrics", description="List the registered metric names.")
    p.set_defaults(run=_run_metrics)


def _run_metrics(args: argparse.Namespace) -> int:
    import kpqa.metrics as metrics

    for name in metrics.available():
        print(name)
    print("AEv-<alpha>-<N>  (Soricut & Brill family, e.g. AEv-0.3-2)")
    return 0


def _add_train(sub: argparse._SubParsersAction) -> None:
    from kpqa_train.cli import add_arguments, run

    p = sub.add_parser(
        "train",
        help="train the keyphrase weighter",
        description="Train the KPQA keyphrase weighter (token classifier) on extractive QA data.",
    )
    add_arguments(p)
    p.set_defaults(run=run)


SUBCOMMANDS: list[Callable[[argparse._SubParsersAction], None]] = [_add_score, _add_metrics, _add_train]


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


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``kpqa`` console script."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except KpqaError as e:
        print(f"kpqa: error: {e}", file=sys.stderr)
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
