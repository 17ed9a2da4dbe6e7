"""``kpqa train-equivalence``: train the answer-equivalence model (:mod:`kpqa.models.equivalence`) on labelled answers.

The data are labelled files in any input format (:mod:`kpqa.input`: CSV, TSV, JSON lines, JSON, Parquet) in the
human-judgment layout with 0/1 labels (``question, answer, reference1.., scores`` and, when there, ``kind``): the contrastive answers of :mod:`kpqa.train.contrastive` (``--part train``, drawn from
sources the calibration's fit / check parts do not use). A row's logit is the best over its references (as at
scoring time), its loss the binary cross-entropy of that logit, the two classes weighed equally. A seeded share of
the questions (``--dev-share``) is held out: after each epoch its accuracy (at logit 0) and loss are measured, per
kind too, and the epoch with the lowest dev loss is the checkpoint kept. AdamW with linear warmup and decay;
bf16 autocast where the CPU or GPU has it (``--precision``). No human-judgment set is read unless named.

``--init DIR`` goes on from an answer-equivalence checkpoint (the shipped model: pre-trained on the rule-made
answers, then trained on people's judgments of EVOUNA's answers). ``--folds K`` runs grouped K-fold
cross-validation by question instead (``--fold N``: one fold, for runs in parallel): each fold's model scores its
held-out rows, gathered in ``OUTPUT/heldout.csv``, which is what a judge that reads the model is fitted on.

    kpqa train-equivalence --data runs/contrastive/train.csv --max-per-kind 1000 --output runs/pretrained
    kpqa train-equivalence --data nq.csv --data tq.csv --init runs/pretrained --lr 5e-5 --epochs 3 --output checkpoints/equivalence
    kpqa train-equivalence --data nq.csv --data tq.csv --init runs/pretrained --lr 5e-5 --epochs 3 --folds 5 --output runs/cv

**Mixed sources** (``--mix W1,W2,..``, one weight per ``--data`` file in its order; issue 53): each file is a source,
and every batch draws from each source in proportion to its weight (a smooth weighted round-robin over the batch's
slots, so that each batch holds each source's share give or take one row), each source a cyclic stream of its
training rows, shuffled anew (seeded) at each pass. An epoch is ``--steps-per-epoch`` steps (default: the training
rows over ``--batch-size``), so a small source is seen several times and a large one in part. A weight may carry its
source's cap on rows per kind as ``W:N`` (``1:1000``: the rule-made rows, at most 1,000 of each kind; with ``--mix``
the cap is per source, and ``--max-per-kind`` is refused). The two classes weigh equally over the mix (the positive
share is the weighted mean of the sources'). With ``--mix``, the dev split and the folds go by question across the
files (a question's rows in every file on one side), and ``--folds`` uses hash folds (:func:`fold_of`) unless
``--fold-by group`` says otherwise; ``--fold-by hash`` gives hash folds without ``--mix`` too. ``--train-only FILE``
(one of the ``--data`` files): its rows are in every fold's training and never held out nor scored (the rule-made
answers, to questions of other sources, which the judge's CV does not read).

``--max-references K``: in training (not in the dev figures nor in scoring), an example uses at most K of its
references: the first (the best answer) and a seeded sample of the others (TruthfulQA rows have up to 12, each a
forward pass). ``--keep-reference closest`` keeps, instead of the first, the reference closest to the answer by
token F1 (a right answer that matches one alias of many is then trained against that alias, not against an alias it
does not match). Without ``--mix``, ``--max-references``, ``--keep-reference``, ``--steps-per-epoch``, ``--fold-by``
and ``--train-only``, a run is the same as before they were added.

    python -m experiments.generators.swaps --data NQ --data TQ --data TRUTHFULQA --out runs/swaps.csv
    kpqa train-equivalence --data NQ --data TQ --data TRUTHFULQA --data runs/swaps.csv --data RULES
        --mix 1,1,1,0.5,1:1000 --train-only RULES --max-references 3 --max-length 128
        --init checkpoints/equivalence --folds 5 --fold 0 --output runs/mixed

The package, by stage: :mod:`.data` (the labelled rows, read through :mod:`kpqa.input`), :mod:`.folds` (the dev
split and the cross-validation folds), :mod:`.mix` (mixed sources), :mod:`.evaluation` (dev figures),
:mod:`.training` (the model, the loop, the checkpoint's metadata), :mod:`.crossval` (``--folds``) and :mod:`.cli`
(the flags); batches of similar length are :mod:`kpqa.train.batches`' as the weighter's are.
"""
from __future__ import annotations

from .cli import build_parser, main, parse_mix
from .config import EquivalenceConfig
from .crossval import HELDOUT_COLUMNS, cross_validate
from .data import Example, cap_kinds, load_examples, read_examples
from .evaluation import evaluate
from .folds import fold_by, fold_of, grouped_folds, hash_folds, split_dev
from .mix import MixedSampler
from .training import train, train_on

__all__ = ["HELDOUT_COLUMNS", "EquivalenceConfig", "Example", "MixedSampler", "build_parser", "cap_kinds",
           "cross_validate", "evaluate", "fold_by", "fold_of", "grouped_folds", "hash_folds", "load_examples", "main",
           "parse_mix", "read_examples", "split_dev", "train", "train_on"]
