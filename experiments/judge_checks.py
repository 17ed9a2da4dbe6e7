"""The opposite case for a judge fitted on every row of the human sets (as the shipped one is): the hand-made set
(right and wrong sides), ``examples/sample.csv`` (rows 1, 4, 7 and 8 wrong), swaps made from people's right answers
(``python -m experiments.generators.swaps``; rejected share per ``span_type``) and the CI swap test's rows (a column ``original``
names the right answer a swapped row came from). Each file is one ``kpqa score FILE --decide -o SCORED`` wrote; the
judges are fitted as ``kpqa calibrate`` fits them (:func:`judging.fitted`) and applied as ``kpqa score --decide``
applies them.

    python experiments/judge_checks.py --human NQ.csv TQ.csv TQA.csv --hand hand.csv --sample sample.csv \\
        --swaps swaps.csv --ci-swaps ci.csv [--kind logistic --kind trees] [--mix fit.csv]
"""
from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

from judging import NINE, fitted, judged, load  # experiments/judging.py, beside this script

SAMPLE_WRONG = {1, 4, 7, 8}
SPAN_TYPES = ("year", "date", "number", "name", "other")


def read(path: str) -> pd.DataFrame:
    return pd.read_csv(path, keep_default_na=False, na_values=[""], low_memory=False)


def near_misses(cal, near: pd.DataFrame) -> str:
    """Near misses (``python -m experiments.generators.nearmiss``): the share rejected of each wrong kind, accepted of each
    right kind."""
    if "kind" not in near:
        near = near.assign(kind=np.where(near["scores"].astype(float) == 0, "near miss", "right"))
    _, d = judged(cal, near)
    parts = []
    for kind in sorted(set(near["kind"])):
        mine = (near["kind"] == kind).to_numpy()
        label = near["scores"].astype(float).to_numpy()[mine][0]
        hit = np.mean(d[mine] == label)
        parts.append(f"{kind} {'accepted' if label == 1 else 'rejected'} {100 * hit:.1f} % ({int(mine.sum())})")
    wrong = near["scores"].astype(float).to_numpy() == 0
    return (f"near misses rejected {100 * np.mean(d[wrong] == 0):.1f} %, right ones accepted "
            f"{100 * np.mean(d[~wrong] == 1):.1f} %: " + ", ".join(parts))


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
    parser.add_argument("--extra", action="append", default=[], metavar="M1,M2",
                        help="judge inputs beside the nine (comma-separated; repeatable: one judge each)")
    parser.add_argument("--near", action="append", default=[], metavar="FILE",
                        help="scored near misses (with a kind column): the share rejected / accepted per kind")
    parser.add_argument("--fit-near", help="scored near misses fitted on as one more source")
    parser.add_argument("--within-fold", metavar="K/N", help="fit on the human sets' rows of hash fold K of N only")
    args = parser.parse_args(argv)
    from kpqa.folds import parse_fold

    data = load(args.human, within=None if args.within_fold is None else parse_fold(args.within_fold))
    for extra in (args.mix, args.fit_near):
        if extra:
            data = pd.concat([data, load([extra])], ignore_index=True)
    files = [read(p) for p in (args.hand, args.sample, args.swaps, args.ci_swaps)]
    nears = [read(p) for p in args.near]
    for inputs in [NINE] + [[*NINE, *e.split(",")] for e in args.extra]:
        for kind in args.kind or ["logistic"]:
            cal = fitted(data, inputs, True, kind)
            print(f"{'+'.join(inputs[len(NINE):]) or 'nine'}, {kind}: {checks(cal, *files)}")
            for near in nears:
                print(f"  {near_misses(cal, near)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
