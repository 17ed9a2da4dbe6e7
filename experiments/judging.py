"""What the judge experiments share (``judge_cv.py``, ``judge_checks.py``): the scored human sets read as one frame
with each row's hash fold, and a judge fitted as ``kpqa calibrate`` fits it and applied as ``kpqa score --decide``
applies it. A helper, not an experiment: run the experiments from anywhere, their folder is on ``sys.path``."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from kpqa import calibration
from kpqa.folds import fold_of
from kpqa.roles import Role

#: hash folds by question, as ``kpqa train-equivalence --fold-by hash`` makes them
FOLDS, SEED = 5, 13
#: the shipped judge's inputs
NINE = list(calibration.JUDGE_INPUTS)


def load(paths: list[str], heldout: dict[str, str] | None = None, within: tuple[int, int] | None = None
         ) -> pd.DataFrame:
    """The scored files as one frame: ``set`` (file stem), ``label``, ``fold``, ``kind`` and the score columns; each
    ``heldout`` NAME=FILE adds column NAME, a model's held-out logits (``source``, ``row`` from 1, ``logit``: the
    files ``kpqa train-equivalence --folds`` gathers), matched by the input file's name and row."""
    parts = []
    logits = {name: pd.read_csv(file, keep_default_na=False) for name, file in (heldout or {}).items()}
    for path in paths:
        frame = pd.read_csv(path, keep_default_na=False, na_values=[""], low_memory=False)
        frame["set"] = Path(path).stem
        for name, table in logits.items():
            mine = table[table["source"].map(lambda s: Path(s).stem) == Path(path).stem.removeprefix("s_")]
            frame[name] = pd.Series(mine["logit"].to_numpy(float), index=mine["row"].to_numpy(int) - 1)
            if frame[name].isna().any():  # rows the trainer skipped (an empty answer): every judge is measured
                print(f"{path}: {int(frame[name].isna().sum())} rows without a held-out {name} logit, left out")
                frame = frame[frame[name].notna()]  # on the same rows
        frame["label"] = frame["scores"].astype(float)
        frame["kind"] = frame["kind"].astype(str) if "kind" in frame else ""
        parts.append(frame)
    data = pd.concat(parts, ignore_index=True)
    data["fold"] = [fold_of(str(q), FOLDS, SEED) for q in data["question"]]
    if within is not None:  # the rows of one outer fold (a model's held-out rows), cut into sub-folds by another seed
        data = data[data["fold"] == within[0]].reset_index(drop=True)
        data["fold"] = [fold_of(str(q), FOLDS, SEED + 1) for q in data["question"]]
    data["Words"] = np.log1p(data["answer"].fillna("").astype(str).str.split().str.len().fillna(0).to_numpy(dtype=float))
    return data


def fitted(train: pd.DataFrame, inputs: list[str], wrong: bool, kind: str = "logistic",
           wrong_kind: str = calibration.WRONG_JUDGE_KIND) -> calibration.Calibration:
    """The calibration ``kpqa calibrate`` fits on ``train`` (each set a source), its judge on ``inputs``."""
    columns = inputs + ([Role.WRONG.of(m) for m in inputs] if wrong else [])
    scores = {c: train[c].to_numpy(dtype=float) for c in columns}
    signatures = {c: f"{c}|cv" for c in columns}
    return calibration.fit(scores, signatures, train["label"].to_numpy(), sources=train["set"].to_numpy(),
                           judge_inputs=inputs, judge_kind=kind, wrong_kind=wrong_kind)


def judged(cal: calibration.Calibration, test: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """(P(correct), decision) of KPQA-judge on ``test`` as the scorer decides (:meth:`Decisions.apply`)."""
    columns = {c for j in cal.judges.values() for c in j.inputs if c in test}  # no M-wrong: KPQA-judge alone
    per_row = {c: test[c].to_numpy(dtype=float) for c in columns}
    out = calibration.Decisions(cal, {}, calibration.JudgeSet.every(cal)).apply(per_row)
    return out[f"{calibration.JUDGE}-prob"], out[f"{calibration.JUDGE}-correct"]
