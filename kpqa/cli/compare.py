"""``kpqa compare``: flags -> :func:`kpqa.compare` (:func:`kpqa.comparison.compare`) -> its table, and its JSON with
``--json``."""
from __future__ import annotations

import argparse

from kpqa.cli.common import SCORER_FLAGS, add_text_files, names, parent, positive_int, scorer_options, text_input, \
    wrote
from kpqa.errors import UsageError


def add(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "compare",
        help="compare two systems' answers to the same questions (paired bootstrap)",
        description="Score two systems' answers to the same rows (or read the scores of `kpqa score --decide -o` "
        "files) and compare them as sacrebleu's paired bootstrap does: per metric and for KPQA-judge's share judged "
        "correct, B - A with a 95 % interval and a p-value. Inputs: two files (A B), one file with a column naming "
        "each row's system (FILE --system COLUMN), or plain-text files with --answers A.txt B.txt --references "
        "REF.txt [--questions Q.txt], one text a line.",
        parents=[parent(*SCORER_FLAGS)],
    )
    p.add_argument("inputs", nargs="*", metavar="A B", help="the two systems' files (CSV, TSV, JSONL, JSON, Parquet)")
    add_text_files(p, answers="the two systems' answers, one a line (A.txt B.txt)", nargs=2)
    p.add_argument("--metrics", type=names, help="comma-separated metric names (default: the --decide suite)")
    p.add_argument("--no-question", action="store_true", help="use the -KP weighter (no question)")
    p.add_argument("--no-judge", action="store_true", help="metrics only: no calibration, no KPQA-judge")
    p.add_argument("--calibration", metavar="FILE", help="the judge's calibration (default: the weighter's)")
    p.add_argument("--bootstrap", type=positive_int, default=1000, help="resamples (default: %(default)s)")
    p.add_argument("--seed", type=int, default=0, help="seed of the resamples (default: %(default)s)")
    p.add_argument("--json", metavar="FILE", help="also write the comparison as JSON here")
    p.add_argument("--human-column", "--human", default="scores", metavar="COLUMN",
                   help="a human score column both files have is compared too (default: %(default)s)")
    p.add_argument("--allow-different-signatures", action="store_true",
                   help="compare scores read from two files whose signatures (FILE.signatures.json) differ, the "
                   "difference printed as a note (default: refuse)")
    p.add_argument("--system", metavar="COLUMN",
                   help="one file holding both systems, told apart by this column (their rows paired in the file's "
                   "order): `kpqa compare FILE --system system [--systems A,B]`")
    p.add_argument("--systems", type=names, metavar="A,B",
                   help="with --system: the two systems to compare (default: the column's two values)")
    p.add_argument("--key", nargs="?", const="question,references", type=names, metavar="COLUMN,...",
                   help="pair the rows of A and B by these columns, whatever their order (--key alone: question and "
                   "references); a key given twice in a file, or in one file only, is an error. Without it, rows "
                   "pair in file order, checked to answer the same items")
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from kpqa.comparison import compare
    from kpqa.output import Destination, write_text

    if args.json:  # refuse a path it cannot write before anything is read or scored
        Destination(args.json, inputs=args.inputs or args.answer_files)
    if args.systems and not args.system:
        raise UsageError("--systems A,B needs --system COLUMN")
    if args.system and (len(args.inputs) != 1 or args.answer_files):
        raise UsageError("--system COLUMN compares two systems inside one file: give that one file")
    if not args.system and (bool(args.inputs) == bool(args.answer_files) or (args.inputs and len(args.inputs) != 2)):
        raise UsageError("give two files (A B) or --answers A.txt B.txt with --references, not both")
    inputs = args.inputs or [text_input(args, n, "compare") for n in args.answer_files]
    result = compare(inputs, args.metrics, options=scorer_options(args), judge=not args.no_judge,
                     calibration=args.calibration, system=args.system, systems=args.systems or (), key=args.key,
                     human_column=args.human_column, resamples=args.bootstrap, seed=args.seed,
                     allow_different_signatures=args.allow_different_signatures)
    print(result.table())
    if args.json:
        write_text(args.json, result.to_json(), inputs=args.inputs or args.answer_files)
        wrote(args.json, "comparison as JSON")
    return 0
