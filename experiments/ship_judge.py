"""The shipped calibration with new judges and the metrics' entries kept: ``kpqa calibrate`` fits every metric and
the judges on the same files; the judge of issue 53 is fitted on the three human-labelled sets, while each metric's
own decisions (``M-prob``, ``M-correct``) stay what they were, so that refitting the judge changes no other column.

    kpqa calibrate NQ.csv TQ.csv TQA.csv --reuse-scores -o runs/judge3.json     # scored files, M-wrong in TQA
    python experiments/ship_judge.py checkpoints/default/calibration.json runs/judge3.json \\
        -o checkpoints/default/calibration.json --force

The file written holds OLD's metric entries and data records, NEW's judges, and a ``labels`` line that says which
came from where (the files and sha256 of NEW's data).
"""
from __future__ import annotations

import argparse
from dataclasses import replace

from kpqa.calibration import Calibration


def merged(old: Calibration, new: Calibration) -> Calibration:
    """``old`` with ``new``'s judges, its labels line saying so."""
    judged = "; ".join(f"{d.path} (sha256 {d.sha256[:12]}, {d.rows} rows, {d.positives} correct)" for d in new.data)
    labels = (f"{old.labels} (metric entries); judges: {new.labels}, fitted on {judged}, each file weighing the "
              "same (experiments/ship_judge.py)")
    return replace(old, judges=dict(new.judges), labels=labels, path=None)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("old", help="the calibration whose metric entries are kept")
    parser.add_argument("new", help="the calibration whose judges are taken")
    parser.add_argument("-o", "--output", required=True)
    parser.add_argument("--force", action="store_true", help="allow replacing OLD")
    args = parser.parse_args(argv)
    old, new = Calibration.load(args.old), Calibration.load(args.new)
    out = merged(old, new)
    out.save(args.output, inputs=[] if args.force else [args.old, args.new])
    print(out.summary())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
