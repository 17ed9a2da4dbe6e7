"""The opposite case for a judge fitted on every row of the human sets (as the shipped one is): the hand-made set
(right and wrong sides), ``examples/sample.csv`` (rows 1, 4, 7 and 8 wrong), swaps made from people's right answers
(``python -m kpqa.train.swaps``; rejected share per ``span_type``) and the CI swap test's rows (a column ``original``
names the right answer a swapped row came from). Each file is one ``kpqa score FILE --decide -o SCORED`` wrote; the
judges are fitted as ``kpqa calibrate`` fits them (:func:`judge_cv.fitted`) and applied as ``kpqa score --decide``
applies them.

    python experiments/judge_checks.py --human NQ.csv TQ.csv TQA.csv --hand hand.csv --sample sample.csv \\
        --swaps swaps.csv --ci-swaps ci.csv [--kind logistic --kind trees] [--mix fit.csv]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from judge_cv import NINE, fitted, judged, load  # noqa: E402

SAMPLE_WRONG = {1, 4, 7, 8}
SPAN_TYPES = ("year", "date", "number", "name", "other")


def read(path: str) -> pd.DataFrame:
    return pd.read_csv(path, keep_default_na=False, na_values=[""], low_memory=False)


def checks(cal, hand: pd.DataFrame, sample: pd.DataFrame, swaps: pd.DataFrame, ci: pd.DataFrame) -> str:
    """One line of figures for the calibration ``cal``."""
    _, d = judged(cal, hand)
    y = hand["scores"].astype(float).to_numpy()
    out = [f"hand-made {100 * np.mean(d == y):.1f} % (right {100 * np.mean(d[y == 1] == 1):.1f} / wrong "
           f"{100 * np.mean(d[y == 0] == 0):.1f})"]
    _, d = judged(cal, sample)
    y = np.array([0.0 if i in SAMPLE_WRONG else 1.0 for i in range(1, len(sample) + 1)])
    out.append(f"sample {int((d == y).sum())} / {len(y)}")
    _, d = judged(cal, swaps)
    by_type = ", ".join(f"{t} {100 * np.mean(d[swaps['span_type'] == t] == 0):.0f}" for t in SPAN_TYPES
                        if (swaps["span_type"] == t).any())
    out.append(f"swaps rejected {100 * np.mean(d == 0):.1f} % of {len(d)} ({by_type})")
    p, _ = judged(cal, ci)
    swapped = ci["original"].notna().to_numpy()
    out.append(f"CI swap rows: highest P of a swapped fact {p[swapped].max():.3f}, lowest of a right answer "
               f"{p[~swapped].min():.3f}")
    return " | ".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--human", nargs="+", required=True, help="the scored human sets the judge is fitted on")
    for name in ("hand", "sample", "swaps", "ci-swaps"):
        parser.add_argument(f"--{name}", required=True)
    parser.add_argument("--kind", action="append", help="the plain judge's kind (repeatable; default logistic)")
    parser.add_argument("--mix", help="a scored rule-made fit part, fitted on as one more source")
    args = parser.parse_args(argv)
    data = load(args.human)
    if args.mix:
        data = pd.concat([data, load([args.mix])], ignore_index=True)
    files = [read(p) for p in (args.hand, args.sample, args.swaps, args.ci_swaps)]
    for kind in args.kind or ["logistic"]:
        print(f"{kind}: {checks(fitted(data, NINE, True, kind), *files)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
