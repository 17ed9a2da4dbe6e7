"""``python -m kpqa.train.contrastive``: the contrastive answers' parts written as CSVs (fit.csv and check.csv,
train.csv), with their counts by kind."""
from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from . import __doc__ as package_doc
from .build import FIT_CHECK_SOURCES, TRAIN_SOURCES, build, build_train, in_folder, write


def build_parser() -> argparse.ArgumentParser:
    """The command's options."""
    parser = argparse.ArgumentParser(prog="python -m kpqa.train.contrastive", description=package_doc.split("\n\n")[0])
    parser.add_argument("--data", default=str(Path(__file__).resolve().parents[2].parent / "shared" / "data"),
                        help="the shared data folder the default sources are in (default: ../shared/data beside the "
                        "repo)")
    parser.add_argument("--fit-check", action="append", metavar="[LABEL=]NAME:PATH",
                        help="a source of the fit and check parts, repeatable (default: "
                        f"{', '.join(FIT_CHECK_SOURCES)}, in --data)")
    parser.add_argument("--train", action="append", metavar="[LABEL=]NAME:PATH",
                        help=f"a source of the train part, repeatable (default: {', '.join(TRAIN_SOURCES)}, in --data)")
    parser.add_argument("--out", required=True, help="folder for the parts' CSVs (created)")
    parser.add_argument("--part", choices=("fit-check", "train", "all"), default="fit-check",
                        help="fit.csv and check.csv (default), train.csv (disjoint sources), or all three")
    parser.add_argument("--train-questions", type=int, default=3000, help="SQuAD train questions in train.csv")
    parser.add_argument("--train-rare-questions", type=int, default=20000,
                        help="other SQuAD train questions in train.csv, for the rare classes only")
    parser.add_argument("--form-pairs", type=int, default=2,
                        help="pairs of rule-made classes per question (0: the parts as before they were added)")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--per-source", type=int, default=500, help="questions taken from each SQuAD-layout file")
    parser.add_argument("--check-share", type=float, default=0.4, help="share of articles in the check part")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Build the parts ``--part`` names, write them in ``--out`` and print their counts."""
    args = build_parser().parse_args(argv)
    parts: dict[str, list[dict]] = {}
    if args.part in ("fit-check", "all"):
        sources = args.fit_check or in_folder(args.data, FIT_CHECK_SOURCES)
        parts.update(build(sources, args.seed, args.per_source, args.check_share, args.form_pairs))
    if args.part in ("train", "all"):
        sources = args.train or in_folder(args.data, TRAIN_SOURCES)
        parts["train"] = build_train(sources, args.seed, args.train_questions, args.form_pairs,
                                     args.train_rare_questions)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for name, rows in parts.items():
        write(rows, out / f"{name}.csv")
        correct = sum(r["scores"] for r in rows)
        print(f"{out / name}.csv: {len(rows)} rows, {correct} correct, "
              f"{len({r['article'] for r in rows})} articles")
        counts: dict[str, int] = {}
        for r in rows:
            counts[r["kind"]] = counts.get(r["kind"], 0) + 1
        print("  " + ", ".join(f"{k} {n}" for k, n in sorted(counts.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
