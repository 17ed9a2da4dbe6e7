"""Measure an answer-equivalence model's held-out fold beside the shipped candidate (issue 53).

Reads a ``kpqa train-equivalence --folds K --fold N`` run's ``heldout.csv`` (the new model's held-out logits) and
prints, per set (EVOUNA-NQ, EVOUNA-TQ, TruthfulQA and its ``kind`` model / written): rows, accuracy and balanced
accuracy at logit 0 and AUROC, for the new model and for ``--human`` (``experiments/checkpoints/equivalence-human``): on NQ / TQ
its own held-out CV logits (``--human-heldout``, docs/equivalence-cv/heldout_B.csv: other folds, but every row held
out there), on TruthfulQA its logits on the same rows (it never saw the set). Then the swap property for both:
the held-out swap rows (rejected: logit < 0), the sentences of tests/test_calibration.py's swap test (the right
answer's logit against each swapped one) and the hand-made set (accuracy at logit 0, right / wrong side).

    python experiments/equivalence_fold0.py --heldout runs/mixed/heldout.csv --model runs/mixed/fold-0 \\
        --human experiments/checkpoints/equivalence-human --data ../shared/data/human_eval --out runs/mixed/fold0.md
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.metrics import roc_auc_score

ROOT = Path(__file__).resolve().parents[1]
SETS = {"evouna_nq_train.csv": "NQ", "evouna_tq_dev.csv": "TQ", "truthfulqa_train.csv": "TruthfulQA"}


def figures(labels: np.ndarray, logits: np.ndarray) -> dict[str, float]:
    """Rows, accuracy and balanced accuracy at logit 0, AUROC."""
    right = (logits > 0) == (labels == 1)
    recall = [right[labels == c].mean() for c in (0, 1) if (labels == c).any()]
    auroc = roc_auc_score(labels, logits) if len(set(labels.tolist())) == 2 else float("nan")
    return {"rows": int(len(labels)), "accuracy": float(right.mean()), "balanced": float(np.mean(recall)),
            "auroc": float(auroc)}


def references(row: dict) -> list[str]:
    cols = sorted((c for c in row if c.startswith("reference")), key=lambda c: int(c[9:] or 0))
    return [row[c] for c in cols if str(row[c]).strip()]


def load_rows(data: Path, name: str) -> pd.DataFrame:
    frame = pd.read_csv(data / name, dtype=str, keep_default_na=False)
    frame.insert(0, "row", range(1, len(frame) + 1))
    return frame


def held_rows(args: argparse.Namespace) -> dict[str, pd.DataFrame]:
    """The rows of the held-out fold (kpqa.train.equivalence.fold_of) of TruthfulQA and the swaps, by file name."""
    from kpqa.train.equivalence import fold_of

    out = {}
    for path in (Path(args.data) / "truthfulqa_train.csv", Path(args.swaps)):
        rows = pd.read_csv(path, dtype=str, keep_default_na=False)
        rows.insert(0, "row", range(1, len(rows) + 1))
        keep = [fold_of(q, args.folds, args.seed) == args.fold for q in rows.question]
        out[path.name] = rows[keep]
    return out


def human_logits(args: argparse.Namespace, human) -> pd.DataFrame:
    """equivalence-human's logits on the held-out TruthfulQA and swap rows (file, row, logit), computed once and
    kept in ``--human-cache`` (so that they can be made while the new model trains)."""
    if args.human_cache and Path(args.human_cache).is_file():
        return pd.read_csv(args.human_cache, keep_default_na=False)
    parts = []
    for name, rows in held_rows(args).items():
        logits = human.best(rows.question.tolist(), [references(r) for r in rows.to_dict("records")],
                            rows.answer.tolist())
        parts.append(pd.DataFrame({"file": name, "row": rows.row.to_numpy(), "logit": logits}))
    frame = pd.concat(parts)
    if args.human_cache:
        frame.to_csv(args.human_cache, index=False)
    return frame


def measure(args: argparse.Namespace) -> dict:
    from kpqa.models.equivalence import EquivalenceRunner

    held = pd.read_csv(args.heldout, keep_default_na=False)
    held = held[held.fold == args.fold].copy()
    held["file"] = held.source.map(lambda s: Path(s).name)
    human_cv = pd.read_csv(args.human_heldout, keep_default_na=False)
    new = EquivalenceRunner.load(args.model, device="cpu", precision="fp32")
    human = EquivalenceRunner.load(args.human, device="cpu", precision="fp32")
    cached = human_logits(args, human).set_index(["file", "row"]).logit
    out: dict = {"sets": {}, "swaps": {}, "ci": {}, "handmade": {}}
    for name, label in SETS.items():
        mine = held[held.file == name]
        if mine.empty:
            continue
        rows = load_rows(Path(args.data), name).set_index("row").loc[mine.row.tolist()]
        if name == "truthfulqa_train.csv":
            theirs = cached.loc[[(name, r) for r in mine.row]].to_numpy()
        else:
            cv = human_cv[human_cv.source == name].set_index("row").loc[mine.row.tolist()]
            assert (cv.label.to_numpy() == mine.label.to_numpy()).all()
            theirs = cv.logit.to_numpy()
        parts = {label: np.ones(len(mine), dtype=bool)}
        if "kind" in rows.columns:
            for kind in sorted(set(rows.kind)):
                parts[f"{label} {kind}"] = (rows.kind == kind).to_numpy()
        for part, mask in parts.items():
            y = mine.label.to_numpy()[mask]
            out["sets"][part] = {"new": figures(y, mine.logit.to_numpy()[mask]),
                                 "human": figures(y, np.asarray(theirs)[mask])}
    swaps = held[held.file == Path(args.swaps).name]
    if not swaps.empty:
        rows = pd.read_csv(args.swaps, dtype=str, keep_default_na=False)
        rows.insert(0, "row", range(1, len(rows) + 1))
        rows = rows.set_index("row").loc[swaps.row.tolist()]
        theirs = cached.loc[[(Path(args.swaps).name, r) for r in swaps.row]].to_numpy()
        for who, logits in (("new", swaps.logit.to_numpy()), ("human", theirs)):
            out["swaps"][who] = {"rows": int(len(logits)), "rejected": float((logits < 0).mean())}
            for source in sorted({s.rsplit(":", 1)[0] for s in rows.source_row}):
                mask = rows.source_row.str.startswith(source + ":").to_numpy()
                out["swaps"][f"{who} {SETS.get(source, source)}"] = {
                    "rows": int(mask.sum()), "rejected": float((logits[mask] < 0).mean())}
    swaps = json.loads((ROOT / "tests" / "data" / "key_fact_swaps.json").read_text(encoding="utf-8"))  # the CI test's

    for who, model in (("new", new), ("human", human)):
        lines = []
        for question, reference, answer, key, others in ((d["question"], d["reference"], d["answer"], d["key"],
                                                          d["others"]) for d in swaps):
            answers = [answer, *(answer.replace(key, o) for o in others)]
            logits = model.best([question] * len(answers), [[reference]] * len(answers), answers)
            lines.append({"question": question, "right": round(float(logits[0]), 3),
                          "swapped": [round(float(v), 3) for v in logits[1:]]})
        swapped = np.array([v for line in lines for v in line["swapped"]])
        out["ci"][who] = {"swapped_below_0": int((swapped < 0).sum()), "swapped": int(len(swapped)),
                          "right_above_0": sum(line["right"] > 0 for line in lines),
                          "below_right": sum(v < line["right"] for line in lines for v in line["swapped"]),
                          "lines": lines}
        hand = pd.read_csv(ROOT / "tests" / "data" / "handmade_judge.csv", dtype=str, keep_default_na=False)
        logits = model.best(hand.question.tolist(), [references(r) for r in hand.to_dict("records")],
                            hand.answer.tolist())
        y = hand.scores.astype(float).to_numpy()
        ok = (logits > 0) == (y == 1)
        out["handmade"][who] = {"rows": int(len(y)), "accuracy": float(ok.mean()),
                                "right": float(ok[y == 1].mean()), "wrong": float(ok[y == 0].mean())}
    return out


def markdown(result: dict) -> str:
    lines = ["| set (fold 0, held out) | rows | new: accuracy / balanced / AUROC | equivalence-human |",
             "| --- | --- | --- | --- |"]
    for part, f in result["sets"].items():
        n, h = f["new"], f["human"]
        lines.append(f"| {part} | {n['rows']} | {100 * n['accuracy']:.1f} / {100 * n['balanced']:.1f} / "
                     f"{n['auroc']:.3f} | {100 * h['accuracy']:.1f} / {100 * h['balanced']:.1f} / {h['auroc']:.3f} |")
    lines += ["", "| swap property | new | equivalence-human |", "| --- | --- | --- |"]
    for key in sorted({k.split(" ", 1)[1] if " " in k else "" for k in result["swaps"]}):
        n, h = result["swaps"][f"new {key}".strip()], result["swaps"][f"human {key}".strip()]
        lines.append(f"| held-out swaps {key or 'all'} ({n['rows']}): rejected at logit 0 | {100 * n['rejected']:.1f} % "
                     f"| {100 * h['rejected']:.1f} % |")
    n, h = result["ci"]["new"], result["ci"]["human"]
    lines.append(f"| CI swap sentences: swapped below 0 / below the right answer (of {n['swapped']}) | "
                 f"{n['swapped_below_0']} / {n['below_right']} | {h['swapped_below_0']} / {h['below_right']} |")
    lines.append(f"| CI swap sentences: right answer above 0 (of 5) | {n['right_above_0']} | {h['right_above_0']} |")
    n, h = result["handmade"]["new"], result["handmade"]["human"]
    lines.append(f"| hand-made ({n['rows']}): accuracy (right / wrong) | {100 * n['accuracy']:.1f} "
                 f"({100 * n['right']:.1f} / {100 * n['wrong']:.1f}) | {100 * h['accuracy']:.1f} "
                 f"({100 * h['right']:.1f} / {100 * h['wrong']:.1f}) |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--heldout")
    p.add_argument("--model")
    p.add_argument("--human", default=str(ROOT / "experiments" / "checkpoints" / "equivalence-human"))
    p.add_argument("--human-heldout", default=str(ROOT / "docs" / "equivalence-cv" / "heldout_B.csv"))
    p.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "human_eval"))
    p.add_argument("--swaps", default="runs/swaps.csv")
    p.add_argument("--out", help="also write the table here (and the figures as JSON beside it)")
    p.add_argument("--folds", type=int, default=5)
    p.add_argument("--fold", type=int, default=0)
    p.add_argument("--seed", type=int, default=13)
    p.add_argument("--human-cache", help="equivalence-human's logits on the held-out TruthfulQA and swap rows "
                   "(made when missing)")
    p.add_argument("--prepare", action="store_true", help="only make --human-cache, and stop")
    args = p.parse_args(argv)
    if args.prepare:
        from kpqa.models.equivalence import EquivalenceRunner

        frame = human_logits(args, EquivalenceRunner.load(args.human, device="cpu", precision="fp32"))
        print(f"{args.human_cache}: {len(frame)} rows")
        return 0
    result = measure(args)
    table = markdown(result)
    print(table)
    if args.out:
        Path(args.out).write_text(table, encoding="utf-8")
        Path(args.out).with_suffix(".json").write_text(json.dumps(result, indent=1), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
