"""``kpqa explain``: flags -> :func:`kpqa.explain.texts`, :func:`~kpqa.explain.explain` -> text, HTML or a figure."""
from __future__ import annotations

import argparse

from kpqa.cli.common import parent, positive_int, wrote


def add(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "explain",
        help="show keyphrase weights as a heat map",
        description="Render the keyphrase weights of the reference(s) and candidate answer, given the question, as "
        "a heat map (HTML with -o, PNG with --png, else plain text), like the KPQA paper's Table 5. Take the texts "
        "from --question/--reference/--candidate or from row N of INPUT.",
        parents=[parent("--tokenize", "--checkpoint", "--function-words", "--device", "--max-chars",
                        tokenize="tokenizer for --unit word (default: %(default)s)")],
    )
    p.add_argument("input", nargs="?", help="CSV or JSONL file (with --row)")
    p.add_argument("--row", type=positive_int, help="row of INPUT to show (1 = first data row)")
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
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
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
        wrote(args.output, "HTML heat map")
    if args.png:
        explain.to_png(result, args.png, inputs=inputs, force=args.force)
        wrote(args.png, "heat map")
    if not args.output and not args.png:
        print(explain.to_text(result))
    return 0
