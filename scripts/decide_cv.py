"""Cross-validated correct / incorrect decisions on a binary human-judgment set (default: EVOUNA-TQ dev).

For each fold of ``GroupKFold`` grouped by question (every answer to a question in the same fold), calibrations
are fitted on the other folds exactly as ``kpqa calibrate`` fits them and applied to the held-out fold; the table
pools the held-out predictions of all folds (accuracy, kappa, Brier, ECE), with the spread of accuracy over folds.
AUROC is that of the raw score (fitting does not change the ranking) for single metrics, and of the held-out
probability for combined judges. The majority class is the training folds' majority.

Combined judges: :func:`kpqa.calibration.fit_judge` (logistic regression on standardised metric scores, its logit
then calibrated like a metric), as ``kpqa calibrate`` fits ``KPQA-judge``. Metric columns already in INPUT are
used as they are; the others are scored.

    python scripts/decide_cv.py                               # ../shared/data/human_eval/evouna_tq_dev.csv
    python scripts/decide_cv.py scored.csv --method logistic -o cv.md
    python scripts/decide_cv.py --group system --threshold kappa   # each system held out in turn
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
DEFAULT_INPUT = REPO.parent / "shared" / "data" / "human_eval" / "evouna_tq_dev.csv"
SINGLE = ["BLEU-1-KPQA", "ROUGE-L-KPQA", "BERTScore-KPQA", "BLEU-1", "ROUGE-L", "BERTScore", "EM", "F1", "Contains"]
DEFAULT_SUITE = ["BLEU-1", "BLEU-4", "ROUGE-L", "BERTScore", "BLEU-1-KPQA", "ROUGE-L-KPQA", "BERTScore-KPQA"]
SINGLE = SINGLE[:6] + ["BLEU-4"] + SINGLE[6:]
#: fixed rules, no fitting: (metric, decide correct at score >= this)
FIXED = {"EM (as is)": ("EM", 1.0), "F1 >= 0.5": ("F1", 0.5), "Contains (as is)": ("Contains", 1.0)}
JUDGES = {
    "judge: 3 KPQA": ["BLEU-1-KPQA", "ROUGE-L-KPQA", "BERTScore-KPQA"],
    "judge: default suite (7)": DEFAULT_SUITE,
    "KPQA-judge (3 KPQA + Contains)": ["BLEU-1-KPQA", "ROUGE-L-KPQA", "BERTScore-KPQA", "Contains"],
    "judge: ROUGE-L-KPQA + Contains": ["ROUGE-L-KPQA", "Contains"],
    "judge: all 10 metrics": SINGLE,
}


def cross_validate(scores: dict[str, np.ndarray], labels: np.ndarray, groups: list, folds: int, method: str,
                   threshold: str = "balanced") -> dict[str, dict[str, np.ndarray]]:
    """Held-out (prob, decision) per row for every metric, judge, fixed rule and the majority class; accuracy per
    fold. ``threshold``: decide at the max-balanced-accuracy, max-accuracy or max-kappa threshold."""
    from sklearn.model_selection import GroupKFold

    from kpqa import calibration

    names = [m for m in SINGLE if m in scores]
    out = {name: {"prob": np.zeros(len(labels)), "decision": np.zeros(len(labels)), "fold_acc": []}
           for name in [*names, *JUDGES, *FIXED, "majority class"]}

    def decide(cal: calibration.MetricCalibration, s: np.ndarray) -> np.ndarray:
        cut = cal.thresholds[threshold]
        return (s >= cut).astype(float)

    for train, test in GroupKFold(n_splits=folds).split(labels, labels, groups):
        y = labels[train]
        held: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        for name in names:
            cal = calibration.fit_metric(name, "", scores[name][train], y, method)
            held[name] = (cal.prob(scores[name][test]), decide(cal, scores[name][test]))
        for name, features in JUDGES.items():
            judge = calibration.fit_judge(name, {f: scores[f][train] for f in features}, dict.fromkeys(features, ""),
                                          y, method)
            z_test = judge.logit({f: scores[f][test] for f in features})
            held[name] = (judge.calibration.prob(z_test), decide(judge.calibration, z_test))
        for name, (metric, cut) in FIXED.items():
            held[name] = (scores[metric][test], (scores[metric][test] >= cut).astype(float))
        rate = y.mean()
        held["majority class"] = (np.full(len(test), rate), np.full(len(test), float(rate >= 0.5)))
        for name, (prob, decision) in held.items():
            out[name]["prob"][test], out[name]["decision"][test] = prob, decision
            out[name]["fold_acc"].append(float(np.mean(decision == labels[test])))
    return out


def table(scores: dict[str, np.ndarray], labels: np.ndarray, held: dict, folds: int, args: argparse.Namespace,
          source: str) -> str:
    from kpqa import binary

    lines = [f"{folds}-fold cross-validation grouped by {args.group} on `{source}` ({len(labels)} rows, "
             f"{int(labels.sum())} correct); calibration: {args.method}, max-{args.threshold} threshold; held-out "
             "predictions pooled over folds.", "",
             "| judge | accuracy | fold range | balanced accuracy | kappa | AUROC | Brier | ECE |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for name, h in held.items():
        ranking = scores[name] if name in scores else np.zeros(len(labels)) if name == "majority class" else h["prob"]
        stats = binary.evaluate(labels, scores=ranking, probs=h["prob"], decisions=h["decision"], bootstrap=0)
        cell = {k: "n/a" if v.value is None else f"{v.value:.3f}" for k, v in stats.items()}
        acc = h["fold_acc"]
        right = h["decision"] == labels
        balanced = (right[labels == 1].mean() + right[labels == 0].mean()) / 2
        lines.append(f"| {name} | {100 * stats['accuracy'].value:.1f} % | {100 * min(acc):.1f}-{100 * max(acc):.1f} |"
                     f" {100 * balanced:.1f} % | {cell['kappa']} | {cell['auroc']} | {cell['brier']} | {cell['ece']} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("input", nargs="?", default=str(DEFAULT_INPUT), help="binary human-judgment CSV / JSONL")
    parser.add_argument("--human-column", default="scores")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--method", choices=("isotonic", "logistic"), default="isotonic")
    parser.add_argument("--threshold", choices=("balanced", "accuracy", "kappa"), default="balanced",
                        help="decide at the max-balanced-accuracy threshold (default, what kpqa ships), the "
                        "max-accuracy or the max-kappa one")
    parser.add_argument("--group", default="question",
                        help="column the folds are grouped by (default: question; `system` holds each system out)")
    parser.add_argument("-o", "--output", help="also write the table here (markdown)")
    args = parser.parse_args(argv)

    from kpqa import calibration, metaeval

    settings = metaeval.Settings(metrics=SINGLE, human_column=args.human_column, scorer_options={"progress": True})
    data = metaeval.load_dataset(args.input, settings)
    labels = calibration.binary_labels(data.table.frame[args.human_column], source=data.source,
                                       column=args.human_column)
    groups = data.table.frame[args.group].astype(str).tolist()
    held = cross_validate(data.scores, labels, groups, args.folds, args.method, args.threshold)
    text = table(data.scores, labels, held, args.folds, args, Path(args.input).name)
    print(text)
    if args.output:
        Path(args.output).write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
