"""``--folds K``: a model per fold, trained on the other folds, scores its held-out rows; their logits gathered
in ``OUTPUT/heldout.csv`` (what a judge that reads the model is fitted on)."""
from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import numpy as np

from .config import EquivalenceConfig
from .data import load_examples
from .folds import fold_by, grouped_folds, hash_folds
from .training import train_on


#: the columns of a cross-validation run's ``heldout.csv``
HELDOUT_COLUMNS = ("source", "row", "question", "fold", "label", "logit")


def cross_validate(config: EquivalenceConfig) -> Path:
    """Grouped ``config.folds``-fold cross-validation: for each fold (or only ``config.fold``), a model trained on
    the other folds (in ``output/fold-K``) scores the held-out fold's rows as the Equivalence metric does (best
    logit over the references, fp32); the held-out logits of the folds run so far are gathered in
    ``output/heldout.csv`` (:data:`HELDOUT_COLUMNS`). Returns that file's path."""
    import pandas as pd

    from kpqa.models.equivalence import EquivalenceRunner

    assert config.folds is not None
    examples = load_examples(config)
    split = hash_folds if fold_by(config) == "hash" else grouped_folds
    always = [e.source in (config.train_only or ()) for e in examples]
    fold = np.full(len(examples), -1)  # -1: a --train-only row, in every fold's training
    fold[~np.array(always, dtype=bool)] = split([e for e, a in zip(examples, always) if not a], config.folds,
                                                config.seed)
    out = Path(config.output)
    for k in range(config.folds) if config.fold is None else [config.fold]:
        folder = out / f"fold-{k}"
        train_on([e for e, f in zip(examples, fold) if f != k], replace(config, output=str(folder), folds=None,
                                                                        fold=None))
        held = [e for e, f in zip(examples, fold) if f == k]
        model = EquivalenceRunner.load(folder, device=config.device, precision="fp32")
        logits = model.best([e.question for e in held], [e.references for e in held], [e.candidate for e in held])
        frame = pd.DataFrame([(e.source, e.row, e.question, k, e.label, v) for e, v in zip(held, logits)],
                             columns=list(HELDOUT_COLUMNS))
        frame.to_csv(folder / "heldout.csv", index=False)
    parts = sorted(out.glob("fold-*/heldout.csv"))
    merged = pd.concat([pd.read_csv(p, keep_default_na=False) for p in parts]).sort_values(["source", "row"])
    partial = out / f".heldout.{os.getpid()}.csv"  # parallel folds each gather what is there, atomically
    merged.to_csv(partial, index=False)
    os.replace(partial, out / "heldout.csv")
    return out / "heldout.csv"
