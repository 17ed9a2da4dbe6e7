"""KPQA-judge under grouped 5-fold cross-validation by question over the human-labelled sets that may train it
(issue 53): per set and per fold, the accuracy, balanced accuracy and AUROC of the shipped judge (the decision
columns ``kpqa score --decide`` wrote) and of judges refitted on the other folds exactly as ``kpqa calibrate`` fits
them (:func:`kpqa.calibration.fit`: each file and class weighing the same, decided at the max-balanced threshold,
applied with :meth:`kpqa.calibration.Decisions.apply`, so a row with known-wrong answers is decided by
``KPQA-judge+wrong`` when its ``M-wrong`` columns are there). A row's fold is :func:`fold_of` its question (the
same folds as ``kpqa train-equivalence --fold-by hash``).

Each INPUT is a file ``kpqa score FILE --decide -o SCORED`` wrote (its ``scores`` column the person's 0/1; with
``incorrect_answers`` in FILE, also the ``M-wrong`` columns). Besides the table per fold: the best single input's
AUROC on each set (a judge should not be below it: "does no harm"), and TruthfulQA by ``kind``.

    python experiments/judge_cv.py runs/scored/evouna_nq_train.csv runs/scored/evouna_tq_dev.csv \\
        runs/scored/truthfulqa_train.csv -o docs/judge-cv.md
"""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import Callable

import numpy as np
import pandas as pd
from sklearn.metrics import roc_auc_score

from kpqa import calibration
from kpqa.arraystats import accuracy, balanced_accuracy
from kpqa.roles import Role, role_of

from judging import FOLDS, NINE, fitted, judged, load  # experiments/judging.py, beside this script
from kpqa.folds import parse_fold

#: answer lengths (words) reported apart: long answers are the weak part
LENGTHS = [(1, 3), (4, 10), (11, 30), (31, 0)]


#: a judge variant: (name, inputs, whether it reads the M-wrong columns, which sets it is fitted on: None = all,
#: the kind of judge, the kind of the judge of rows with known-wrong answers)
Variant = tuple[str, list[str], bool, list[str] | None, str, str]


def figures(y: np.ndarray, p: np.ndarray, d: np.ndarray) -> tuple[float, float, float]:
    """Accuracy, balanced accuracy (%) and AUROC."""
    auroc = roc_auc_score(y, p) if 0 < y.sum() < len(y) else float("nan")
    return 100 * accuracy(y, d), 100 * balanced_accuracy(y, d), auroc


def cross_validate(data: pd.DataFrame, variant: Variant) -> tuple[np.ndarray, np.ndarray]:
    """Every row's held-out (P(correct), decision) under ``variant``."""
    _, inputs, wrong, sets, kind, wrong_kind = variant
    p, d = np.full(len(data), np.nan), np.full(len(data), np.nan)
    for k in range(FOLDS):
        train = data[(data["fold"] != k) & (data["set"].isin(sets) if sets else True)]
        test = data["fold"] == k
        p[test], d[test] = judged(fitted(train, inputs, wrong, kind, wrong_kind), data[test])
    return p, d


def table(data: pd.DataFrame, results: dict[str, tuple[np.ndarray, np.ndarray]],
          parts: dict[str, Callable[[pd.DataFrame], np.ndarray]]) -> list[str]:
    """One row per judge and part: pooled accuracy / balanced / AUROC, then each fold's."""
    out = ["| part | judge | accuracy / balanced / AUROC (pooled) | per fold: accuracy / balanced / AUROC |",
           "| --- | --- | --- | --- |"]
    for part, mask_of in parts.items():
        mask = mask_of(data)
        y = data["label"].to_numpy()
        for name, (p, d) in results.items():
            a, b, u = figures(y[mask], p[mask], d[mask])
            folds = []
            for k in range(FOLDS):
                m = mask & (data["fold"].to_numpy() == k)
                fa, fb, fu = figures(y[m], p[m], d[m])
                folds.append(f"{fa:.1f} / {fb:.1f} / {fu:.3f}")
            out.append(f"| {part} ({mask.sum()}) | {name} | {a:.1f} / {b:.1f} / {u:.3f} | {'; '.join(folds)} |")
    return out


def singles(data: pd.DataFrame, parts: dict[str, Callable[[pd.DataFrame], np.ndarray]],
            columns: list[str]) -> list[str]:
    """Each part's best single input by AUROC (of the raw score; a ``-wrong`` column counted as lower-is-better)."""
    out = ["| part | best single input | its AUROC |", "| --- | --- | --- |"]
    for part, mask_of in parts.items():
        mask = mask_of(data)
        y = data["label"].to_numpy()[mask]
        best = ("", 0.0)
        for c in columns:
            x = data[c].to_numpy(dtype=float)[mask]
            have = np.isfinite(x)
            if have.mean() < 0.99 or len(set(y[have])) < 2:  # a -wrong column where the rows have known-wrong answers
                continue
            auroc = roc_auc_score(y[have], -x[have] if role_of(c) is Role.WRONG else x[have])
            best = max(best, (c, auroc), key=lambda t: t[1])
        out.append(f"| {part} | {best[0]} | {best[1]:.3f} |")
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("inputs", nargs="+", help="files kpqa score --decide wrote")
    parser.add_argument("-o", "--output", help="write the tables here (Markdown)")
    parser.add_argument("--trees", action="store_true", help="each judge as boosted trees too")
    parser.add_argument("--words", action="store_true", help="judges that read the answer's length too")
    parser.add_argument("--heldout", action="append", default=[], metavar="NAME=FILE",
                        help="a model's held-out logits as one more judge input (e.g. Equivalence=heldout.csv)")
    parser.add_argument("--extra", action="append", default=[], metavar="METRIC",
                        help="metric columns of the scored files (comma-separated) as more judge inputs (with their "
                        "-wrong columns where the files have them), e.g. Equivalence,KeyMiss-KPQA (repeatable)")
    parser.add_argument("--within-fold", metavar="K/N", help="only the rows of hash fold K of N (a fold-K model's "
                        "held-out rows), cross-validated in sub-folds of them")
    args = parser.parse_args(argv)
    heldout = dict(item.split("=", 1) for item in args.heldout)
    data = load(args.inputs, heldout, None if args.within_fold is None else parse_fold(args.within_fold))
    sets = list(dict.fromkeys(data["set"]))
    has_wrong = all(Role.WRONG.of(m) in data for m in NINE)
    variants: list[Variant] = [("nine, refitted on every set", NINE, False, None, "logistic", "trees")]
    if has_wrong:
        variants += [("+ KPQA-judge+wrong (trees) where known-wrong answers are given", NINE, True, None, "logistic",
                      "trees"),
                     ("+ KPQA-judge+wrong (logistic)", NINE, True, None, "logistic", "logistic")]
    if args.trees:
        variants += [(f"{v[0]}, trees", v[1], v[2], v[3], "trees", v[5]) for v in variants[:1]]
    if args.words:  # the answer's length as an input: long answers are the weak part
        variants += [("nine + Words (log answer words), logistic", [*NINE, "Words"], False, None, "logistic",
                      "trees"), ("nine + Words, trees", [*NINE, "Words"], False, None, "trees", "trees")]
    for name in heldout:  # a model's held-out logits beside the nine (no NAME-wrong: the rows' known-wrong answers
        # were not scored by the model, so KPQA-judge+wrong is not fitted with it)
        variants += [(f"nine + {name}, logistic", [*NINE, name], False, None, "logistic", "trees"),
                     (f"nine + {name}, trees", [*NINE, name], False, None, "trees", "trees")]
    for name in args.extra:  # scored metrics beside the nine, with their -wrong scores where the files have them
        more = name.split(",")
        extra_wrong = has_wrong and all(Role.WRONG.of(m) in data for m in more)
        variants += [(f"nine + {name}, logistic", [*NINE, *more], False, None, "logistic", "trees"),
                     (f"nine + {name}, trees", [*NINE, *more], False, None, "trees", "trees")]
        if extra_wrong:
            variants += [(f"nine + {name}, logistic; +wrong (trees)", [*NINE, *more], True, None, "logistic", "trees"),
                         (f"nine + {name}, trees; +wrong (trees)", [*NINE, *more], True, None, "trees", "trees")]
    shipped = [f"{calibration.JUDGE}-prob", f"{calibration.JUDGE}-correct"]  # files scored without --decide lack them
    results = ({"shipped KPQA-judge": (data[shipped[0]].to_numpy(dtype=float), data[shipped[1]].to_numpy(dtype=float))}
               if all(c in data for c in shipped) else {})
    for variant in variants:
        results[variant[0]] = cross_validate(data, variant)
    parts: dict[str, Callable[[pd.DataFrame], np.ndarray]] = {
        s: (lambda d, s=s: (d["set"] == s).to_numpy()) for s in sets}
    for kind in sorted(k for k in set(data["kind"]) if k):
        parts[f"kind={kind}"] = lambda d, kind=kind: (d["kind"] == kind).to_numpy()
    words = data["answer"].fillna("").astype(str).str.split().str.len().fillna(0).to_numpy()
    for low, high in LENGTHS:
        parts[f"answers of {low}-{high or 'more'} words"] = (
            lambda d, low=low, high=high: (words >= low) & (words <= (high or np.inf)))
    columns = NINE + list(heldout) + [m for name in args.extra for m in name.split(",")] + ([Role.WRONG.of(m) for m in NINE] if has_wrong else [])
    lines = ["# KPQA-judge under grouped 5-fold CV by question", "", *table(data, results, parts), "",
             "## Best single input", "", *singles(data, parts, columns), ""]
    text = "\n".join(lines)
    print(text)
    if args.output:
        Path(args.output).write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
