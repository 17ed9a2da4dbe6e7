"""How ``kpqa score --decide`` judges the hand-written test set ``tests/data/handmade_judge.csv``: per kind of
answer and per form, the share of right answers it accepts, of wrong answers it rejects, and of all answers it
judges as the label says. The set is held out: nothing is fitted on it.

    python experiments/handmade.py [--data tests/data/handmade_judge.csv] [--calibration FILE] [--judge KPQA-judge]
                               [--out handmade.md]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import pandas as pd

REPO = Path(__file__).resolve().parents[1]
DEFAULT_DATA = REPO / "tests" / "data" / "handmade_judge.csv"


def _pct(hits: pd.Series) -> str:
    """Mean of 0/1 hits as a percentage, or a dash for no rows."""
    return f"{100 * hits.mean():.1f}" if len(hits) else "-"


def table(frame: pd.DataFrame, by: str, decided: str) -> str:
    """Markdown table of ``frame`` grouped by ``by`` (and all rows): rows, right accepted, wrong rejected, overall."""
    lines = [f"| {by} | rows | right accepted % (n) | wrong rejected % (n) | overall % |",
             "| --- | ---: | ---: | ---: | ---: |"]
    groups = [(str(k), g) for k, g in frame.groupby(by, sort=True)] + [("all", frame)]
    for name, group in groups:
        right, wrong = group[group["scores"] == 1], group[group["scores"] == 0]
        lines.append(f"| {name} | {len(group)} | {_pct(right[decided] == 1)} ({len(right)}) "
                     f"| {_pct(wrong[decided] == 0)} ({len(wrong)}) | {_pct(group[decided] == group['scores'])} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA, help="the labelled file (default: %(default)s)")
    parser.add_argument("--calibration", type=Path, default=None, help="calibration file (default: the shipped one)")
    parser.add_argument("--judge", default="KPQA-judge", help="the decision column's metric (default: %(default)s)")
    parser.add_argument("--out", type=Path, default=None, help="also write the tables to this markdown file")
    args = parser.parse_args()

    from kpqa import Scorer

    frame = Scorer(decide=True, calibration=args.calibration).score(str(args.data)).frame
    decided = f"{args.judge}-correct"
    if decided not in frame.columns:
        sys.exit(f"no column {decided!r} in the scored file (columns: {', '.join(frame.columns)})")
    frame["scores"] = frame["scores"].astype(int)
    frame[decided] = frame[decided].astype(int)
    calibration = args.calibration or "shipped"
    text = (f"{args.judge} on {args.data.name} ({len(frame)} rows, {int(frame['scores'].sum())} right; "
            f"calibration: {calibration})\n\n"
            f"{table(frame, 'kind', decided)}\n\n{table(frame, 'form', decided)}\n")
    print(text)
    if args.out is not None:
        args.out.write_text(text, encoding="utf-8")
        print(f"wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
