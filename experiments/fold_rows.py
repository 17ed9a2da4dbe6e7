"""The rows of labelled files whose question is in one hash fold (:func:`kpqa.folds.fold_of`): the rows a model
trained with ``kpqa train-equivalence --folds N --fold K`` never saw, written as they are (the csv module: every
cell as written) with their source's 1-based data row in ``source_row`` (``FILE:ROW``), for scoring them with that
model and cross-validating a judge on them (experiments/judge_cv.py --within-fold K/N).

    python experiments/fold_rows.py ../shared/data/human_eval/evouna_nq_train.csv ... --fold 0/5 --out runs/fold0
"""
from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

from kpqa.folds import fold_of, parse_fold


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("inputs", nargs="+", help="CSV files with a question column")
    parser.add_argument("--fold", required=True, metavar="K/N")
    parser.add_argument("--out", required=True, help="folder for the files (same names)")
    args = parser.parse_args(argv)
    fold, folds = parse_fold(args.fold)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for path in map(Path, args.inputs):
        with path.open(newline="", encoding="utf-8") as f:
            reader = csv.reader(f)
            header = next(reader)
            q = header.index("question")
            rows = [(n, r) for n, r in enumerate(reader, 1) if fold_of(r[q], folds) == fold]
        extra = [] if "source_row" in header else ["source_row"]
        with (out / path.name).open("w", newline="", encoding="utf-8") as f:
            writer = csv.writer(f)
            writer.writerow(header + extra)
            writer.writerows(r + ([f"{path.name}:{n}"] if extra else []) for n, r in rows)
        print(f"{out / path.name}: {len(rows)} rows of fold {fold} of {folds}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
