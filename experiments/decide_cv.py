"""Cross-validated correct / incorrect decisions on a binary human-judgment set (default: EVOUNA-TQ dev), and the
same calibrations checked on contrastive answers (``python -m kpqa.train.contrastive``), per kind of change.

For each fold of ``GroupKFold`` grouped by question (every answer to a question in the same fold), calibrations
are fitted on the other folds, plus every row of ``--mix`` (the contrastive fit part), exactly as ``kpqa calibrate``
fits them (class-balanced, so P(correct) assumes half the answers are correct; decisions at the max-balanced-
accuracy threshold), and applied to the held-out fold as ``kpqa score --decide`` applies them
(:meth:`kpqa.calibration.Decisions.apply`); the table pools the held-out predictions of all folds (accuracy,
balanced accuracy, kappa, Brier, ECE: :mod:`kpqa.binary`, :mod:`kpqa.arraystats`), with the spread of accuracy over folds, then accuracy by
answer length. AUROC is that of the raw score for single metrics, and of the held-out probability for combined judges.
With ``--check``, calibrations fitted on all of INPUT and ``--mix`` judge the check part: accuracy per ``kind``
(correct kinds: the right fact in other words; wrong kinds: the reference's wording with the key fact changed) and
per answer length.

Judges: :func:`kpqa.calibration.fit_judge` on the metric columns named in :data:`JUDGES` (``KPQA-judge`` is the
shipped one), logistic or of the kind named there (``trees``: ``kpqa calibrate --judge-kind trees``), so what is
measured is what ``kpqa calibrate`` fits. Metric columns already in a file are used as they are; the others are
scored. With ``--hand``, the same calibrations as for ``--check`` judge a hand-made labelled set (its ``kind`` column
kinds of answer, right and wrong): accuracy on its right and wrong answers, per kind.

    python experiments/decide_cv.py                               # ../shared/data/human_eval/evouna_tq_dev.csv
    python -m kpqa.train.contrastive --out runs/contrastive   # then:
    python experiments/decide_cv.py --mix runs/contrastive/fit.csv --check runs/contrastive/check.csv -o cv.md
    python experiments/decide_cv.py --group system --threshold kappa   # each system held out in turn
"""
from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from kpqa import arraystats, binary, calibration
from kpqa.columns import binary_labels

REPO = Path(__file__).resolve().parents[1]
DEFAULT_INPUT = REPO.parent / "shared" / "data" / "human_eval" / "evouna_tq_dev.csv"
SINGLE = ["BLEU-1-KPQA", "ROUGE-L-KPQA", "BERTScore-KPQA", "KeyFact-KPQA", "BLEU-1", "BLEU-4", "ROUGE-L",
          "BERTScore", "EM", "F1", "Contains", "Equivalence"]
#: fixed rules, no fitting: (metric, decide correct at score >= this)
FIXED = {"EM (as is)": ("EM", 1.0), "F1 >= 0.5": ("F1", 0.5), "Contains (as is)": ("Contains", 1.0)}


def trees(inputs: list[str]) -> tuple[str, list[str]]:
    """A judge of boosted trees on ``inputs`` (``kpqa calibrate --judge-kind trees``), as :data:`JUDGES` names one."""
    return "trees", inputs


#: the nine inputs KPQA-judge had before the equivalence model joined it (issue 48)
NINE = [m for m in calibration.JUDGE_INPUTS if m != "Equivalence"]
#: the judges measured: name -> input columns (a logistic judge, the default kind) or (kind, input columns)
JUDGES: dict[str, list[str] | tuple[str, list[str]]] = {
    "KPQA-judge (shipped)": list(calibration.JUDGE_INPUTS),
    "judge: the nine before issue 48 (no Equivalence)": NINE,
    "judge: 3 KPQA + Contains (before)": ["BLEU-1-KPQA", "ROUGE-L-KPQA", "BERTScore-KPQA", "Contains"],
    "judge: 7 (3 KPQA, KeyFact, Contains, BERTScore, F1)": ["BLEU-1-KPQA", "ROUGE-L-KPQA", "BERTScore-KPQA",
                                                            "KeyFact-KPQA", "Contains", "BERTScore", "F1"],
    "judge: Equivalence, KeyFact, Contains, F1": ["Equivalence", "KeyFact-KPQA", "Contains", "F1"],
    "judge: Equivalence + 3 KPQA + KeyFact + Contains": ["Equivalence", "BLEU-1-KPQA", "ROUGE-L-KPQA",
                                                         "BERTScore-KPQA", "KeyFact-KPQA", "Contains"],
    "judge: all 12 (+ EM, BLEU-1-KPQA)": SINGLE,
    "trees: the shipped inputs": trees(list(calibration.JUDGE_INPUTS)),
    "trees: the nine (no Equivalence)": trees(NINE),
}


def kind_and_inputs(judge: list[str] | tuple[str, list[str]]) -> tuple[str, list[str]]:
    """(kind, input columns) of a :data:`JUDGES` value."""
    return (calibration.JUDGE_KIND, judge) if isinstance(judge, list) else judge


@dataclass
class Labelled:
    """Per-row metric scores, 0/1 labels and answers of one file."""

    scores: dict[str, np.ndarray]
    labels: np.ndarray
    answers: list[str]
    frame: Any

    def take(self, idx: np.ndarray) -> "Labelled":
        return Labelled({m: s[idx] for m, s in self.scores.items()}, self.labels[idx],
                        [self.answers[i] for i in idx], None)

    def plus(self, other: "Labelled | None") -> "Labelled":
        if other is None:
            return self
        return Labelled({m: np.concatenate([s, other.scores[m]]) for m, s in self.scores.items()},
                        np.concatenate([self.labels, other.labels]), self.answers + other.answers, None)


def fit_all(train: Labelled, method: str, mixed: int = 0, rule: str = "balanced") -> calibration.Calibration:
    """Every single metric's and judge's calibration fitted on ``train``, whose last ``mixed`` rows come from
    ``--mix``, deciding at ``rule``'s threshold: as ``kpqa calibrate`` with two files, each file weighs the same
    (and each class)."""
    sources = None if not mixed else np.repeat([0, 1], [len(train.labels) - mixed, mixed])
    w = None if sources is None else calibration.balanced_weights(train.labels, sources)
    metrics = {m: calibration.fit_metric(m, "", train.scores[m], train.labels, method, rule, weights=w)
               for m in names(train)}
    judges = {}
    for name, judge in JUDGES.items():
        kind, features = kind_and_inputs(judge)
        if all(f in train.scores for f in features):
            judges[name] = calibration.fit_judge(name, {f: train.scores[f] for f in features},
                                                 dict.fromkeys(features, ""), train.labels, method, rule, w, kind)
    return calibration.Calibration(metrics=metrics, data=[], labels="", judges=judges)


def names(data: Labelled) -> list[str]:
    return [m for m in SINGLE if m in data.scores]


def apply(fitted: calibration.Calibration, test: Labelled, prior: float | None) -> dict[str, tuple[Any, Any]]:
    """(prob, decision) of every fitted calibration (:meth:`kpqa.calibration.Decisions.apply`, as ``kpqa score
    --decide``) and fixed rule on ``test``."""
    decisions = calibration.Decisions(fitted, dict(fitted.metrics), calibration.JudgeSet.every(fitted), prior)
    columns = decisions.apply(test.scores)
    out: dict[str, tuple[Any, Any]] = {name: (columns[f"{name}-prob"], columns[f"{name}-correct"])
                                       for name in [*fitted.metrics, *fitted.judges]}
    for name, (metric, cut) in FIXED.items():
        if metric in test.scores:
            out[name] = (test.scores[metric], (test.scores[metric] >= cut).astype(float))
    return out


def splits(labels: np.ndarray, groups: list, folds: int, fold_ids: np.ndarray | None) -> list:
    """(train, test) index pairs: the given fold of each row (``--fold-column``), else ``GroupKFold`` by group."""
    from sklearn.model_selection import GroupKFold

    if fold_ids is not None:
        return [(np.flatnonzero(fold_ids != k), np.flatnonzero(fold_ids == k)) for k in np.unique(fold_ids)]
    return list(GroupKFold(n_splits=folds).split(labels, labels, groups))


def cross_validate(data: Labelled, groups: list, folds: int, method: str, threshold: str = "balanced",
                   mix: Labelled | None = None, prior: float | None = None,
                   fold_ids: np.ndarray | None = None) -> dict[str, dict]:
    """Held-out (prob, decision) per row of every metric, judge, fixed rule and the majority class; accuracy per
    fold. Each fold's calibrations are fitted on the other folds plus ``mix``."""
    n = len(data.labels)
    out: dict[str, dict] = {}
    for train, test in splits(data.labels, groups, folds, fold_ids):
        fitting = data.take(train).plus(mix)
        held = apply(fit_all(fitting, method, 0 if mix is None else len(mix.labels), threshold), data.take(test),
                     prior)
        rate = data.labels[train].mean()
        held["majority class"] = (np.full(len(test), rate), np.full(len(test), float(rate >= 0.5)))
        for name, (prob, decision) in held.items():
            h = out.setdefault(name, {"prob": np.zeros(n), "decision": np.zeros(n), "fold_acc": []})
            h["prob"][test], h["decision"][test] = prob, decision
            h["fold_acc"].append(float(arraystats.accuracy(data.labels[test], decision)))
    return out


def balanced(labels: np.ndarray, decision: np.ndarray) -> float:
    """Balanced accuracy (:func:`kpqa.arraystats.balanced_accuracy`) of one judge's decisions."""
    return float(arraystats.balanced_accuracy(labels, decision))


def cv_table(data: Labelled, held: dict, title: str) -> list[str]:
    lines = [title, "", "| judge | accuracy | fold range | balanced accuracy | kappa | AUROC | Brier | ECE |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for name, h in held.items():
        ranking = data.scores.get(name, np.zeros(len(data.labels)) if name == "majority class" else h["prob"])
        stats = binary.evaluate(data.labels, scores=ranking, probs=h["prob"], decisions=h["decision"], bootstrap=0)
        cell = {k: "n/a" if v.value is None else f"{v.value:.3f}" for k, v in stats.items()}
        acc = h["fold_acc"]
        lines.append(f"| {name} | {100 * (stats['accuracy'].value or 0):.1f} % | {100 * min(acc):.1f}-{100 * max(acc):.1f} |"
                     f" {100 * balanced(data.labels, h['decision']):.1f} % | {cell['kappa']} | {cell['auroc']} | "
                     f"{cell['brier']} | {cell['ece']} |")
    return lines


def part_table(data: Labelled, held: dict, parts: np.ndarray, fold_ids: np.ndarray, names: list[str]) -> list[str]:
    """Per part of the input (``--part-column``): each judge's held-out accuracy, balanced accuracy and accuracy in
    each fold."""
    folds = sorted(set(fold_ids.tolist()))
    lines = ["Held-out accuracy per part (%), pooled and per fold:", "",
             "| part | judge | accuracy | balanced | " + " | ".join(f"fold {k}" for k in folds) + " |",
             "|" + " --- |" * (len(folds) + 4)]
    for part in sorted(set(parts.tolist())):
        rows = parts == part
        for name in names:
            if name not in held:
                continue
            d, y = held[name]["decision"][rows], data.labels[rows]
            per_fold = [100 * np.mean(d[fold_ids[rows] == k] == y[fold_ids[rows] == k]) for k in folds]
            lines.append(f"| {part} ({int(rows.sum())}) | {name} | {100 * arraystats.accuracy(y, d):.1f} | "
                         f"{100 * balanced(y, d):.1f} | " + " | ".join(f"{a:.1f}" for a in per_fold) + " |")
    return lines


def by_group_table(labels: np.ndarray, decisions: dict[str, np.ndarray], groups: np.ndarray, order: list,
                   title: str, label_of=str) -> list[str]:
    """Accuracy of each judge within each group (rows: judges; columns: groups, with their row counts)."""
    present = [g for g in order if (groups == g).any()]
    head = " | ".join(f"{label_of(g)} ({int((groups == g).sum())})" for g in present)
    lines = [title, "", f"| judge | {head} | all |", "|" + " --- |" * (len(present) + 2)]
    for name, decision in decisions.items():
        right = decision == labels
        cells = " | ".join(f"{100 * right[groups == g].mean():.1f}" for g in present)
        lines.append(f"| {name} | {cells} | {100 * right.mean():.1f} |")
    return lines


def hand_table(data: Labelled, decisions: dict[str, np.ndarray], title: str) -> list[str]:
    """Accuracy of each judge on all rows, the right and the wrong answers, and each ``kind`` of ``data``."""
    kinds = np.array(data.frame["kind"].astype(str).tolist())
    order = sorted(set(kinds))
    head = " | ".join(f"{k} ({int((kinds == k).sum())})" for k in order)
    lines = [title, "", f"| judge | all | right | wrong | {head} |", "|" + " --- |" * (len(order) + 4)]
    for name, decision in decisions.items():
        hit = decision == data.labels
        sides = [hit, hit[data.labels == 1], hit[data.labels == 0], *(hit[kinds == k] for k in order)]
        lines.append(f"| {name} | " + " | ".join(f"{100 * h.mean():.1f}" for h in sides) + " |")
    return lines


def load(path: str, human_column: str) -> Labelled:
    from kpqa import metaeval

    settings = metaeval.Settings(metrics=SINGLE, human_column=human_column,
                                 scorer_options=metaeval.ScorerOptions(progress=True))
    data = metaeval.load_dataset(path, settings)
    labels = binary_labels(data.table.frame[human_column], source=data.source, column=human_column)
    return Labelled(data.scores, labels, data.table.frame["answer"].astype(str).tolist(), data.table.frame)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("input", nargs="?", default=str(DEFAULT_INPUT), help="binary human-judgment CSV / JSONL")
    parser.add_argument("--mix", help="more labelled rows added to every fold's fitting data (the contrastive fit "
                        "part), as the shipped calibration is fitted")
    parser.add_argument("--check", help="labelled rows with a `kind` column (the contrastive check part): judged by "
                        "calibrations fitted on INPUT and --mix")
    parser.add_argument("--hand", help="a hand-made labelled set with a `kind` column (runs/scored3/hand.csv): "
                        "judged by the calibrations fitted on INPUT and --mix, per kind and right / wrong side")
    parser.add_argument("--human-column", default="scores")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--method", choices=calibration.METHODS, default="isotonic")
    parser.add_argument("--threshold", choices=calibration.RULES, default="balanced",
                        help="decide at the max-balanced-accuracy threshold (default, what kpqa ships), the "
                        "max-accuracy or the max-kappa one")
    parser.add_argument("--prior", type=float, help="decide at P(correct) >= 0.5 for this share of correct answers "
                        "instead of at a threshold (kpqa score --prior)")
    parser.add_argument("--group", default="question",
                        help="column the folds are grouped by (default: question; `system` holds each system out)")
    parser.add_argument("--fold-column", help="a column holding each row's fold (the folds the equivalence model "
                        "was cross-validated on: docs/equivalence-cv) instead of GroupKFold by --group")
    parser.add_argument("--part-column", help="a column naming each row's part (e.g. NQ / TQ): accuracy per part "
                        "and fold")
    parser.add_argument("--test", help="another labelled file judged by the calibrations fitted on all of INPUT "
                        "(and --mix): a transfer check")
    parser.add_argument("-o", "--output", help="also write the tables here (markdown)")
    args = parser.parse_args(argv)

    data = load(args.input, args.human_column)
    mix = load(args.mix, args.human_column) if args.mix else None
    groups = data.frame[args.group].astype(str).tolist()
    fold_ids = data.frame[args.fold_column].astype(int).to_numpy() if args.fold_column else None
    held = cross_validate(data, groups, args.folds, args.method, args.threshold, mix, args.prior, fold_ids)
    fitted_on = f" + every row of `{Path(args.mix).name}`" if mix else ""
    how = f"P(correct) >= 0.5 at prior {args.prior:g}" if args.prior is not None else f"max-{args.threshold} threshold"
    lines = cv_table(data, held, f"{args.folds}-fold cross-validation grouped by {args.group} on "
                     f"`{Path(args.input).name}` ({len(data.labels)} rows, {int(data.labels.sum())} correct); "
                     f"calibration: {args.method}, class-balanced, fitted on the other folds{fitted_on}; {how}; "
                     "held-out predictions pooled over folds.")
    bands = binary.length_bands(data.answers)
    lines += [""] + by_group_table(data.labels, {n: h["decision"] for n, h in held.items()}, bands,
                                   list(range(len(binary.LENGTH_BANDS))), "Accuracy (%) by answer length (held out):",
                                   lambda b: binary.band_name(binary.LENGTH_BANDS[b]))
    if args.part_column:
        ids = fold_ids if fold_ids is not None else np.zeros(len(data.labels), dtype=int)
        lines += [""] + part_table(data, held, np.array(data.frame[args.part_column].astype(str).tolist()), ids,
                                   [*JUDGES, *SINGLE])
    mixed = 0 if mix is None else len(mix.labels)
    final = fit_all(data.plus(mix), args.method, mixed, args.threshold) if args.check or args.hand or args.test \
        else None
    if args.test:
        test = load(args.test, args.human_column)
        decided = {n: d for n, (_, d) in apply(final, test, args.prior).items()}
        lines += ["", f"Accuracy on `{Path(args.test).name}` ({len(test.labels)} rows, {int(test.labels.sum())} "
                  f"correct), calibrations fitted on all of `{Path(args.input).name}`{fitted_on}:", "",
                  "| judge | accuracy | balanced |", "| --- | --- | --- |"]
        lines += [f"| {n} | {100 * arraystats.accuracy(test.labels, d):.1f} | {100 * balanced(test.labels, d):.1f} |"
                  for n, d in decided.items()]
    if args.check:
        check = load(args.check, args.human_column)
        decided = {n: d for n, (_, d) in apply(final, check, args.prior).items()}
        kinds = np.array(check.frame["kind"].astype(str).tolist())
        from kpqa.train.contrastive import KINDS_CORRECT, KINDS_WRONG

        lines += [""] + by_group_table(
            check.labels, decided, kinds, [*KINDS_CORRECT, *KINDS_WRONG],
            f"Accuracy (%) on `{Path(args.check).name}` ({len(check.labels)} rows) by kind, calibrations fitted on "
            f"`{Path(args.input).name}`{fitted_on}; correct kinds: {', '.join(KINDS_CORRECT)}; wrong: "
            f"{', '.join(KINDS_WRONG)}:")
        lines += [""] + by_group_table(check.labels, decided, binary.length_bands(check.answers),
                                       list(range(len(binary.LENGTH_BANDS))), "The same by answer length:",
                                       lambda b: binary.band_name(binary.LENGTH_BANDS[b]))
        lines += ["", "Balanced accuracy (%) on the check part: " + ", ".join(
            f"{n} {100 * balanced(check.labels, d):.1f}" for n, d in decided.items())]
    if args.hand:
        hand = load(args.hand, args.human_column)
        decided = {n: d for n, (_, d) in apply(final, hand, args.prior).items()}
        lines += [""] + hand_table(hand, decided, f"Accuracy (%) on `{Path(args.hand).name}` ({len(hand.labels)} rows, "
                                   f"{int(hand.labels.sum())} right), calibrations fitted on `{Path(args.input).name}`"
                                   f"{fitted_on}; right / wrong: on its right / wrong answers; then per kind:")
    text = "\n".join(lines)
    print(text)
    if args.output:
        Path(args.output).write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
