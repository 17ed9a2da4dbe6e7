"""The rows of labelled files whose question is in one hash fold (:func:`kpqa.folds.fold_of`): the rows a model
trained with ``kpqa train-equivalence --folds N --fold K`` never saw, written as they are (the csv module: every
cell as written) with their source's 1-based data row in ``source_row`` (``FILE:ROW``), for scoring them with that
model and cross-validating a judge on them (experiments/judge_cv.py --within-fold K/N).

    python experiments/fold_rows.py ../shared/data/human_eval/evouna_nq_train.csv ... --fold 0/5 --out runs/fold0

``--per-kind N`` keeps at most N rows of each ``kind`` of a file that has that column (a seeded sample, the rows'
order kept): the near misses of a fold, so that no kind outweighs the others in a check or a fit.
"""
from __future__ import annotations

import argparse
import csv
import random
import sys
from pathlib import Path

from kpqa.folds import fold_of, parse_fold


def per_kind(rows: list[tuple[int, list[str]]], column: int, cap: int) -> list[tuple[int, list[str]]]:
    """At most ``cap`` of ``rows`` of each kind (column ``column``): a sample seeded by the kind, the order kept."""
    by_kind: dict[str, list[int]] = {}
    for k, (_, r) in enumerate(rows):
        by_kind.setdefault(r[column], []).append(k)
    keep = {k for kind, ks in by_kind.items()
            for k in (random.Random(f"13|{kind}").sample(ks, cap) if len(ks) > cap else ks)}
    return [row for k, row in enumerate(rows) if k in keep]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("inputs", nargs="+", help="CSV files with a question column")
    parser.add_argument("--fold", required=True, metavar="K/N")
    parser.add_argument("--out", required=True, help="folder for the files (same names)")
    parser.add_argument("--per-kind", type=int, metavar="N", help="at most N rows of each kind (seeded sample)")
    args = parser.parse_args(argv)
    if args.per_kind is not None and args.per_kind < 1:
        parser.error(f"--per-kind {args.per_kind}: must be a positive number of rows")
    for missing in (p for p in args.inputs if not Path(p).is_file()):
        parser.error(f"{missing}: no such file")
    fold, folds = parse_fold(args.fold)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for path in map(Path, args.inputs):
        with path.open(newline="", encoding="utf-8") as f:
            reader = csv.reader(f)
            header = next(reader)
            q = header.index("question")
            rows = [(n, r) for n, r in enumerate(reader, 1) if fold_of(r[q], folds) == fold]
        if args.per_kind and "kind" in header:
            rows = per_kind(rows, header.index("kind"), args.per_kind)
        extra = [] if "source_row" in header else ["source_row"]
        with (out / path.name).open("w", newline="", encoding="utf-8") as f:
            writer = csv.writer(f)
            writer.writerow(header + extra)
            writer.writerows(r + ([f"{path.name}:{n}"] if extra else []) for n, r in rows)
        print(f"{out / path.name}: {len(rows)} rows of fold {fold} of {folds}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
