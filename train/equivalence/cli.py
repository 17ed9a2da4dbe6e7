"""``kpqa train-equivalence``'s flags: parsed into an :class:`~.config.EquivalenceConfig`, then a run or a
cross-validation."""
from __future__ import annotations

import argparse
import json
import math
import shlex
import sys
from typing import Sequence

from kpqa.errors import Param, UsageError
from kpqa.models.device import PRECISIONS
from kpqa.models.equivalence import POOLINGS

from .config import EquivalenceConfig
from .crossval import cross_validate
from .training import train


#: the command's description (the package's docstring says more; it imports this module, so not read from it)
DESCRIPTION = "train the answer-equivalence model (kpqa.models.equivalence) on labelled answers"


def build_parser() -> argparse.ArgumentParser:
    """The options of ``kpqa train-equivalence``."""
    p = argparse.ArgumentParser(prog="kpqa train-equivalence", description=DESCRIPTION,
                                formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    d = EquivalenceConfig(data=[], output="")
    p.add_argument("--data", action="append", required=True, metavar="FILE", help="labelled answers, in any input "
                   "format (repeatable)")
    p.add_argument("--output", required=True, metavar="DIR", help="checkpoint folder")
    p.add_argument("--backbone", default=d.backbone, help="minilm, or a transformers model name / folder")
    p.add_argument("--trained-layers", type=int, default=None, metavar="N", help="fine-tune the top N layers (all)")
    p.add_argument("--pooling", choices=POOLINGS, default=d.pooling, help="what the head reads: [CLS] or the mean")
    p.add_argument("--epochs", type=int, default=d.epochs)
    p.add_argument("--batch-size", type=int, default=d.batch_size, help="rows per step")
    p.add_argument("--lr", type=float, default=d.lr, help="peak learning rate")
    p.add_argument("--max-length", type=int, default=d.max_length, help="word pieces per input")
    p.add_argument("--dev-share", type=float, default=d.dev_share, help="share of questions held out")
    p.add_argument("--max-rows", type=int, default=None, help="train on a seeded sample of this many rows")
    p.add_argument("--max-per-kind", type=int, default=None, metavar="N",
                   help="at most N rows of each `kind` (a seeded sample), so that no kind dominates")
    p.add_argument("--precision", choices=PRECISIONS, default=d.precision)
    p.add_argument("--device", default=d.device)
    p.add_argument("--seed", type=int, default=d.seed)
    p.add_argument("--init", metavar="DIR", help="start from this answer-equivalence checkpoint (e.g. one trained "
                   "on rule-made answers) instead of the bare backbone")
    p.add_argument("--folds", type=int, metavar="K", help="grouped K-fold cross-validation by question instead of "
                   "one model: OUTPUT/fold-N/ models and OUTPUT/heldout.csv, each row's held-out logit")
    p.add_argument("--fold", type=int, metavar="N", help="with --folds: run fold N only (0 to K-1; for runs in "
                   "parallel)")
    p.add_argument("--mix", metavar="W[:N],..", help="one weight per --data file, in its order: every batch draws "
                   "from each file in proportion to its weight (each a cyclic seeded shuffle); W:N also caps that "
                   "file at N rows per kind. Folds and dev split by question across files; hash folds")
    p.add_argument("--steps-per-epoch", type=int, metavar="N", help="with --mix: steps in an epoch (default: "
                   "training rows / batch size)")
    p.add_argument("--max-references", type=int, metavar="K", help="in training, at most K references an example "
                   "(the first, or with --keep-reference closest the closest to the answer, and a seeded sample of "
                   "the others); dev figures and scoring use all")
    p.add_argument("--keep-reference", choices=("first", "closest"), help="with --max-references: the reference "
                   "always kept is the first (the default) or the one closest to the answer by token F1")
    p.add_argument("--train-only", action="append", metavar="FILE", help="with --folds: a --data file whose rows "
                   "train every fold and are never held out nor scored (rule-made answers to other questions)")
    p.add_argument("--save-every", type=int, default=d.save_every, metavar="N", help="save a resumable state every "
                   "N steps (and on Ctrl-C) in OUTPUT/resume.pt: the same command resumes from it")
    p.add_argument("--fold-by", choices=("hash", "group"), help="--folds by a hash of the question (fold_of; the "
                   "default with --mix) or scikit-learn's GroupKFold by question (the default without)")
    return p


def parse_mix(text: str, files: int) -> tuple[list[float], list[int | None]]:
    """``--mix``'s weights and per-kind caps (``W`` or ``W:N`` per file); UsageError unless there is one per
    ``--data`` file, each weight >= 0 and one > 0, each cap >= 1."""
    weights: list[float] = []
    caps: list[int | None] = []
    for part in text.split(","):
        weight, _, cap = part.strip().partition(":")
        try:
            weights.append(float(weight))
            caps.append(int(cap) if cap else None)
        except ValueError:
            raise UsageError(Param("mix", text), f": {part.strip()!r} is not W or W:N") from None
    if len(weights) != files:
        raise UsageError(Param("mix", text), f" gives {len(weights)} weights for {files} --data files")
    if min(weights) < 0 or max(weights) <= 0 or not all(map(math.isfinite, weights)) or \
            any(c is not None and c < 1 for c in caps):
        raise UsageError(Param("mix", text), " needs weights >= 0, one of them > 0, and caps >= 1")
    return weights, caps


def main(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv``, train, print the kept checkpoint's dev figures as JSON."""
    argv = list(sys.argv[1:] if argv is None else argv)
    args = build_parser().parse_args(argv)
    config = EquivalenceConfig(data=args.data, output=args.output, backbone=args.backbone,
                               trained_layers=args.trained_layers, pooling=args.pooling, epochs=args.epochs,
                               batch_size=args.batch_size, lr=args.lr, max_length=args.max_length,
                               dev_share=args.dev_share, max_rows=args.max_rows, max_per_kind=args.max_per_kind,
                               precision=args.precision, device=args.device, seed=args.seed, init=args.init,
                               folds=args.folds, fold=args.fold,
                               command=shlex.join(["kpqa", "train-equivalence", *argv]))
    if args.fold is not None and (args.folds is None or not 0 <= args.fold < args.folds):
        raise UsageError(Param("fold", args.fold), " needs --folds K and a value from 0 to K-1")
    if args.mix is not None:
        config.mix, config.mix_caps = parse_mix(args.mix, len(args.data))
        if args.max_per_kind is not None:
            raise UsageError(Param("max_per_kind", args.max_per_kind), " with --mix: cap a file as W:N in --mix")
    elif args.steps_per_epoch is not None:
        raise UsageError(Param("steps_per_epoch", args.steps_per_epoch), " needs --mix")
    for name in ("steps_per_epoch", "max_references", "save_every"):
        if getattr(args, name) is not None and getattr(args, name) < 1:
            raise UsageError(Param(name, getattr(args, name)), " must be 1 or more")
    config.steps_per_epoch, config.max_references = args.steps_per_epoch, args.max_references
    if args.keep_reference is not None and args.max_references is None:
        raise UsageError(Param("keep_reference", args.keep_reference), " needs --max-references")
    config.keep_reference = args.keep_reference
    config.save_every = args.save_every
    config.fold_by = args.fold_by
    if args.train_only is not None:
        if args.folds is None or set(args.train_only) - set(args.data):
            raise UsageError(Param("train_only", args.train_only[0]), " needs --folds and one of the --data files")
        config.train_only = args.train_only
    if config.folds is not None:
        print(json.dumps({"heldout": str(cross_validate(config))}))
        return 0
    metadata = train(config)
    print(json.dumps({"output": args.output, "best_epoch": metadata["best_epoch"], "dev": metadata["dev"]}))
    return 0
