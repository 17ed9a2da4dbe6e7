"""Fit the shipped calibration when the answer-equivalence model was trained on part of the fitting data (stacking).

``kpqa calibrate`` scores every fitting row with the models it ships. The answer-equivalence model
(``checkpoints/equivalence``) is trained on EVOUNA-TQ dev too, so its own logits on those rows are in-sample, far more
confident than on new answers, and a judge fitted on them would lean on it too much. As in stacked generalisation, the
judge is fitted on held-out logits instead: each EVOUNA-TQ dev row's ``Equivalence`` comes from the fold model that
did not train on it (``--evouna``: the scored file with those held-out logits), the contrastive fit part's from the
shipped model (which never saw it). Every other column is the file's own (scored with the shipped weighter). The
signatures recorded are the shipped models' (the scorer's), as ``kpqa calibrate`` records them; the fitting files
and how their Equivalence column was made are recorded in the calibration's ``data``.

    python scripts/calibrate_stacked.py --evouna runs/judge/oof/evouna_tq_dev.csv --mix runs/judge/full/fit.csv \\
        -o checkpoints/default/calibration.json
"""
from __future__ import annotations

import argparse
import sys

import numpy as np
import pandas as pd

from kpqa import calibration
from kpqa.scoring import DECIDE_METRICS, Scorer


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--evouna", required=True, help="EVOUNA-TQ dev with the metric columns, Equivalence held out")
    parser.add_argument("--mix", required=True, help="the contrastive fit part with the metric columns")
    parser.add_argument("-o", "--output", required=True, help="calibration.json to write")
    parser.add_argument("--note", default="Equivalence on EVOUNA-TQ dev: held-out logits of 3 fold models",
                        help="how the Equivalence column of --evouna was made (recorded)")
    args = parser.parse_args(argv)
    metrics = list(DECIDE_METRICS)
    frames = [pd.read_csv(args.evouna), pd.read_csv(args.mix)]
    for path, frame in zip((args.evouna, args.mix), frames):
        missing = [m for m in metrics if m not in frame.columns]
        if missing:
            raise SystemExit(f"{path}: no column {missing[0]!r}")
    labels = [calibration.binary_labels(f["scores"], source=p) for p, f in zip((args.evouna, args.mix), frames)]
    scores = {m: np.concatenate([f[m].to_numpy(dtype=float) for f in frames]) for m in metrics}
    signatures = {m: calibration.Signature.parse(s) for m, s in Scorer(metrics, device="cpu").signatures().items()}
    data = [calibration.describe_file(p, len(y), int(y.sum())) for p, y in zip((args.evouna, args.mix), labels)]
    data[0]["equivalence"] = args.note
    sources = np.repeat([0, 1], [len(y) for y in labels])
    fitted = calibration.fit(scores, signatures, np.concatenate(labels), data=data, label_rule="'scores' 0/1",
                             sources=sources)
    fitted.save(args.output, inputs=[args.evouna, args.mix])
    judge = fitted.judges[calibration.JUDGE]
    print(f"wrote {args.output}: {calibration.JUDGE} on {', '.join(judge.inputs)}; coefficients "
          + ", ".join(f"{m} {c:+.2f}" for m, c in zip(judge.inputs, judge.coef)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
