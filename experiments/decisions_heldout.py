"""How each entry of a calibration decides rows it was not fitted on: the share it judges correct and its balanced
accuracy, beside its rating (kpqa/calibration/fitness.py). docs/decisions.md, "Decisions only where they mean
something", has the table for MS-MARCO and EVOUNA-NQ. Usage:

    kpqa score ../shared/data/human_eval/marco_all.csv --decide -o marco.csv
    python experiments/decisions_heldout.py marco.csv --positive-above 3 [--calibration FILE]

Every metric column of the file with an entry is decided by that entry (as ``--decide`` would write it, were it
fit); KPQA-judge by its ``-correct`` column.
"""
from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

from kpqa.calibration import load
from kpqa.columns import as_binary


def balanced(decided: np.ndarray, labels: np.ndarray) -> float:
    """The mean of the recall of right (1) and of wrong (0) answers."""
    return float((decided[labels == 1].mean() + (1 - decided[labels == 0]).mean()) / 2)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scored", help="a file of kpqa score --decide -o with a human column")
    parser.add_argument("--human-column", default="scores")
    parser.add_argument("--positive-above", type=float)
    parser.add_argument("--calibration")
    args = parser.parse_args()
    cal = load(args.calibration)
    frame = pd.read_csv(args.scored)
    labels = as_binary(frame[args.human_column].to_numpy(float), args.positive_above)
    assert labels is not None, "labels must be 0/1, or give --positive-above"
    print(f"{args.scored}: {len(labels)} rows, {labels.mean():.1%} right\n")
    print("| entry | rated | judged correct | balanced accuracy |\n| --- | --- | --- | --- |")
    decided = {name: e.decide(frame[name].to_numpy(float)) for name, e in cal.metrics.items() if name in frame}
    decided.update({j: frame[f"{j}-correct"].to_numpy(float) for j in cal.judges if f"{j}-correct" in frame})
    for name, d in decided.items():
        rating = "fit" if cal.rating(name).fit else "unfit"
        print(f"| {name} | {rating} | {d.mean():.1%} | {balanced(d, labels):.3f} |")


if __name__ == "__main__":
    main()
