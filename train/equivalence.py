"""``kpqa train-equivalence``: train the answer-equivalence model (:mod:`kpqa.models.equivalence`) on labelled answers.

The data are CSV files in the human-judgment layout with 0/1 labels (``question, answer, reference1.., scores``
and, when there, ``kind``): the contrastive answers of :mod:`kpqa.train.contrastive` (``--part train``, drawn from
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
forward pass). Without ``--mix``, ``--max-references``, ``--steps-per-epoch``, ``--fold-by`` and ``--train-only``,
a run is the same as before they were added.

    python -m kpqa.train.swaps --data NQ --data TQ --data TRUTHFULQA --out runs/swaps.csv
    kpqa train-equivalence --data NQ --data TQ --data TRUTHFULQA --data runs/swaps.csv --data RULES
        --mix 1,1,1,0.5,1:1000 --train-only RULES --max-references 3 --max-length 128
        --init checkpoints/equivalence --folds 5 --fold 0 --output runs/mixed
"""
from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import random
import shlex
import sys
import time
from collections import defaultdict
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

import numpy as np
import torch

from kpqa.errors import CheckpointError, InputError, Param, UsageError
from kpqa.models import backbone as backbones
from kpqa.models import checkpoint as ckpt
from kpqa.models.device import PRECISIONS, amp_dtype, resolve_device, training_precision
from kpqa.models.equivalence import KIND, MAX_LENGTH, POOLINGS, EquivalenceModel, collate, encode
from kpqa.models.loader import load_pretrained

from .loop import optimizer_and_schedule, step


@dataclass
class Example:
    """One labelled answer: its question, references, candidate, 0/1 label, kind, group (what the dev split
    keeps together) and where it came from (file, 1-based data row)."""

    question: str
    references: list[str]
    candidate: str
    label: int
    kind: str = ""
    group: str = ""
    source: str = ""
    row: int = 0


@dataclass
class EquivalenceConfig:
    """What a training run reads and how it trains (recorded in the checkpoint's metadata)."""

    data: list[str]
    output: str
    backbone: str = "minilm"
    trained_layers: int | None = None
    pooling: str = "mean"
    epochs: int = 2
    batch_size: int = 16
    lr: float = 1e-4
    warmup: float = 0.06
    weight_decay: float = 0.01
    max_length: int = MAX_LENGTH
    dev_share: float = 0.1
    max_rows: int | None = None
    max_per_kind: int | None = None
    precision: str = "auto"
    device: str = "auto"
    seed: int = 13
    init: str | None = None
    folds: int | None = None
    fold: int | None = None
    mix: list[float] | None = None
    mix_caps: list[int | None] | None = None
    steps_per_epoch: int | None = None
    max_references: int | None = None
    fold_by: str | None = None
    train_only: list[str] | None = None
    command: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


def read_examples(path: str | Path) -> list[Example]:
    """The labelled rows of a CSV (InputError naming file, row and column for a label that is not 0 / 1)."""
    from kpqa.input import read_csv_frame

    frame = read_csv_frame(path)
    refs = sorted((c for c in frame.columns if c.startswith("reference")), key=lambda c: int(c[9:] or 0))
    for column in ("question", "answer", "scores"):
        if column not in frame.columns:
            raise InputError(f"no {column!r} column", file=str(path))
    out = []
    for i, row in enumerate(frame.to_dict("records")):
        if row["scores"] not in ("0", "1", "0.0", "1.0"):
            raise InputError(f"label {row['scores']!r} is not 0 or 1", file=str(path), row=i + 1, column="scores")
        references = [row[c] for c in refs if row[c].strip()]
        if not references or not row["answer"].strip():
            continue
        group = row.get("article") or row["question"]
        out.append(Example(row["question"], references, row["answer"], int(float(row["scores"])),
                           row.get("kind", ""), f"{path}:{group}", str(path), i + 1))
    return out


def cap_kinds(examples: Sequence[Example], cap: int, seed: int) -> list[Example]:
    """At most ``cap`` examples of each kind (a seeded sample; the input order kept), so that no kind dominates."""
    by_kind: dict[str, list[int]] = defaultdict(list)
    for i, e in enumerate(examples):
        by_kind[e.kind].append(i)
    rng = random.Random(seed)
    keep = {i for idx in by_kind.values() for i in (rng.sample(idx, cap) if len(idx) > cap else idx)}
    return [e for i, e in enumerate(examples) if i in keep]


def split_dev(examples: Sequence[Example], share: float, seed: int) -> tuple[list[int], list[int]]:
    """(train, dev) indices, whole groups on one side (a seeded hash of the group)."""
    def in_dev(group: str) -> bool:
        digest = hashlib.sha256(f"{seed}|dev|{group}".encode()).digest()
        return int.from_bytes(digest[:8], "big") / 2**64 < share

    dev = [i for i, e in enumerate(examples) if in_dev(e.group)]
    chosen = set(dev)
    return [i for i in range(len(examples)) if i not in chosen], dev


def _logits(model: EquivalenceModel, tokenizer: Any, batch: Sequence[Example], max_length: int,
            device: torch.device, dtype: torch.dtype | None) -> torch.Tensor:
    """Each example's best logit over its references, [len(batch)]."""
    triples = [(e.question, r, e.candidate) for e in batch for r in e.references]
    inputs = {k: v.to(device) for k, v in collate(tokenizer, encode(tokenizer, triples, max_length)).items()}
    with torch.autocast(device.type, dtype=dtype, enabled=dtype is not None):
        flat = model(**inputs).float()
    owner = torch.tensor([i for i, e in enumerate(batch) for _ in e.references], device=device)
    best = torch.full((len(batch),), -torch.inf, device=device)
    return best.scatter_reduce(0, owner, flat, reduce="amax")


def _batches(examples: Sequence[Example], indices: Sequence[int], batch_size: int, rng: random.Random | None
             ) -> list[list[int]]:
    """Batches of similar length (shuffled in blocks when ``rng`` is given)."""
    lengths = {i: sum(len(examples[i].candidate) + len(r) for r in examples[i].references) for i in indices}
    order = list(indices)
    if rng is not None:
        rng.shuffle(order)
        blocks = [sorted(order[k:k + 50 * batch_size], key=lengths.__getitem__)
                  for k in range(0, len(order), 50 * batch_size)]
        out = [b[k:k + batch_size] for b in blocks for k in range(0, len(b), batch_size)]
        rng.shuffle(out)
        return out
    order.sort(key=lengths.__getitem__)
    return [order[k:k + batch_size] for k in range(0, len(order), batch_size)]


def evaluate(model: EquivalenceModel, tokenizer: Any, examples: Sequence[Example], indices: Sequence[int],
             config: EquivalenceConfig, device: torch.device, dtype: torch.dtype | None) -> dict[str, Any]:
    """Loss, accuracy and balanced accuracy at logit 0 on ``indices``, and accuracy per kind."""
    model.eval()
    logits = np.empty(len(indices))
    position = {i: k for k, i in enumerate(indices)}
    with torch.inference_mode():
        for batch in _batches(examples, indices, 2 * config.batch_size, None):
            values = _logits(model, tokenizer, [examples[i] for i in batch], config.max_length, device, dtype)
            for i, v in zip(batch, values.cpu().numpy()):
                logits[position[i]] = v
    labels = np.array([examples[i].label for i in indices], dtype=float)
    loss = float(torch.nn.functional.binary_cross_entropy_with_logits(torch.tensor(logits), torch.tensor(labels)))
    right = (logits > 0) == (labels == 1)
    kinds: dict[str, list[bool]] = defaultdict(list)
    for i, ok in zip(indices, right):
        kinds[examples[i].kind].append(bool(ok))
    recall = [right[labels == c].mean() for c in (0, 1) if (labels == c).any()]
    return {"loss": loss, "accuracy": float(right.mean()), "balanced_accuracy": float(np.mean(recall)),
            "rows": len(indices), "per_kind": {k: round(float(np.mean(v)), 4) for k, v in sorted(kinds.items())}}


def _setup(config: EquivalenceConfig, n_steps: int) -> tuple[EquivalenceModel, Any, list[torch.nn.Parameter], Any,
                                                              Any]:
    """The model (seeded head, ``--init``'s tensors loaded), its tokenizer, its trained parameters, AdamW and the
    schedule over ``n_steps``."""
    torch.manual_seed(config.seed)
    encoder, tokenizer = load_pretrained(config.backbone, backbones.resolve(config.backbone))
    model = EquivalenceModel(encoder, config.trained_layers, pooling=config.pooling)
    if config.init is not None:
        _start_from(model, config.init)
    params = [p for p in model.parameters() if p.requires_grad]
    optimizer, scheduler = optimizer_and_schedule(params, config.lr, config.weight_decay, n_steps, config.warmup)
    return model, tokenizer, params, optimizer, scheduler


def _start_from(model: EquivalenceModel, folder: str) -> None:
    """Load an answer-equivalence checkpoint's trained tensors into ``model`` (the ``--init`` of a run that goes on
    from it: pre-training on rule-made answers, then people's judgments); CheckpointError when it is not one or
    was trained with another pooling or number of layers."""
    tensors, raw, _ = ckpt.load(folder)
    if raw.get("kind") != KIND:
        raise CheckpointError(f"--init {folder}: not an answer-equivalence checkpoint")
    if (raw.get("pooling", "cls"), raw.get("trained_layers")) != (model.pooling, model.trained_layers):
        raise CheckpointError(f"--init {folder}: trained with pooling {raw.get('pooling', 'cls')!r} and "
                              f"{raw.get('trained_layers')} layers, not {model.pooling!r} and {model.trained_layers}")
    model.load_trained(tensors)


def load_examples(config: EquivalenceConfig) -> list[Example]:
    """The rows a run trains on: every file's, capped per kind and sampled as ``config`` says."""
    if config.mix is not None:  # per source: its own cap; the question is the group across files
        caps = config.mix_caps or [None] * len(config.data)
        examples = [e for path, cap in zip(config.data, caps) for e in _capped(
            [replace(e, group=e.question) for e in read_examples(path)], cap, config.seed)]
    else:
        examples = [e for path in config.data for e in read_examples(path)]
    if config.max_per_kind is not None:
        examples = cap_kinds(examples, config.max_per_kind, config.seed)
    if config.max_rows is not None:
        examples = random.Random(config.seed).sample(examples, min(config.max_rows, len(examples)))
    if len(examples) < 2 or len({e.label for e in examples}) < 2:
        raise InputError("training the answer-equivalence model needs labelled rows of both classes",
                         file=", ".join(config.data))
    return examples


def grouped_folds(examples: Sequence[Example], k: int, seed: int) -> np.ndarray:
    """Each example's fold, 0 to ``k - 1``: scikit-learn's ``GroupKFold`` (shuffled, seeded) with the question as
    the group, so that every answer to a question is in one fold and no question is on both sides of a split."""
    from sklearn.model_selection import GroupKFold

    questions = [e.question for e in examples]
    if len(set(questions)) < k:
        raise InputError(f"{k} folds need at least {k} distinct questions")
    fold = np.empty(len(examples), dtype=int)
    splitter = GroupKFold(n_splits=k, shuffle=True, random_state=seed)
    for f, (_, test) in enumerate(splitter.split(np.zeros(len(questions)), groups=questions)):
        fold[test] = f
    return fold


def _capped(examples: list[Example], cap: int | None, seed: int) -> list[Example]:
    return examples if cap is None else cap_kinds(examples, cap, seed)


def fold_of(question: str, k: int, seed: int) -> int:
    """The hash fold (0 to ``k - 1``) of a question: sha256 of ``"{seed}|{question}"`` (the question stripped of
    surrounding white space), its first 8 bytes as a big-endian integer, modulo ``k``. A row's fold depends only
    on its question, not on which other rows or files are loaded, so the judge's CV can use the very same folds and
    a generated row that keeps its source's question (:mod:`kpqa.train.swaps`) lands in its source's fold."""
    digest = hashlib.sha256(f"{seed}|{question.strip()}".encode()).digest()
    return int.from_bytes(digest[:8], "big") % k


def hash_folds(examples: Sequence[Example], k: int, seed: int) -> np.ndarray:
    """Each example's :func:`fold_of` its question."""
    if len({e.question.strip() for e in examples}) < k:
        raise InputError(f"{k} folds need at least {k} distinct questions")
    return np.array([fold_of(e.question, k, seed) for e in examples], dtype=int)


def fold_by(config: EquivalenceConfig) -> str:
    """How ``--folds`` splits: ``hash`` (:func:`fold_of`) or ``group`` (:func:`grouped_folds`); ``--fold-by`` when
    given, else hash folds with ``--mix`` and grouped ones without."""
    return config.fold_by or ("hash" if config.mix is not None else "group")


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


def train(config: EquivalenceConfig) -> dict[str, Any]:
    """Train, keep the epoch with the lowest dev loss in ``config.output``; returns the checkpoint's metadata."""
    return train_on(load_examples(config), config)


def train_on(examples: list[Example], config: EquivalenceConfig) -> dict[str, Any]:
    """Train on ``examples`` (a seeded share of their questions held out as dev), keep the epoch with the lowest
    dev loss in ``config.output``; returns the checkpoint's metadata. With ``config.mix``, the batches are drawn
    from the sources in proportion to their weights (:class:`MixedSampler`)."""
    train_idx, dev_idx = split_dev(examples, config.dev_share, config.seed)
    if config.mix is not None:
        return _fit(examples, train_idx, dev_idx, config, *_mixed_plan(examples, train_idx, config))
    rng = random.Random(config.seed)
    positive = float(np.mean([examples[i].label for i in train_idx]))
    return _fit(examples, train_idx, dev_idx, config, math.ceil(len(train_idx) / config.batch_size),
                lambda: _batches(examples, train_idx, config.batch_size, rng), positive, {})


class MixedSampler:
    """Batches drawn from several sources in proportion to their weights: each slot goes to the source with the
    most credit (every source gains its weight per slot, the chosen one pays the total: a smooth weighted
    round-robin, so each source's count stays within one of its share); each source a cyclic stream of its rows,
    shuffled anew at each pass by its own seeded generator."""

    def __init__(self, sources: Sequence[Sequence[int]], weights: Sequence[float], seed: int) -> None:
        if len(sources) != len(weights) or not sources or any(not s for s in sources) or min(weights) <= 0:
            raise ValueError("every source needs rows and a positive weight")
        self.sources, self.weights = [list(s) for s in sources], [float(w) for w in weights]
        self.rngs = [random.Random(f"{seed}|mix|{k}") for k in range(len(sources))]
        self.orders: list[list[int]] = [[] for _ in sources]
        self.credit = [0.0] * len(sources)

    def _next(self, k: int) -> int:
        if not self.orders[k]:
            order = self.sources[k][:]
            self.rngs[k].shuffle(order)
            self.orders[k] = order[::-1]
        return self.orders[k].pop()

    def batch(self, size: int) -> list[int]:
        """The next ``size`` rows."""
        total, out = sum(self.weights), []
        for _ in range(size):
            self.credit = [c + w for c, w in zip(self.credit, self.weights)]
            k = max(range(len(self.credit)), key=lambda i: (self.credit[i], -i))
            self.credit[k] -= total
            out.append(self._next(k))
        return out


def _mixed_plan(examples: Sequence[Example], train_idx: Sequence[int], config: EquivalenceConfig
                ) -> tuple[int, Callable[[], list[list[int]]], float, dict[str, Any]]:
    """Steps per epoch, the epoch's batches, the mix's positive share and the metadata's ``mix`` record."""
    assert config.mix is not None
    by_source = [[i for i in train_idx if examples[i].source == path] for path in config.data]
    live = [k for k, rows in enumerate(by_source) if rows and config.mix[k] > 0]
    weights = [config.mix[k] for k in live]
    sampler = MixedSampler([by_source[k] for k in live], weights, config.seed)
    steps = config.steps_per_epoch or math.ceil(len(train_idx) / config.batch_size)
    positive = sum(w * float(np.mean([examples[i].label for i in by_source[k]])) for k, w in zip(live, weights))
    caps = config.mix_caps or [None] * len(config.data)
    record = {"mix": {"steps_per_epoch": steps, "sources": [
        {"path": path, "weight": config.mix[k], "cap_per_kind": caps[k], "train_rows": len(by_source[k])}
        for k, path in enumerate(config.data)]}}
    return (steps, lambda: [sampler.batch(config.batch_size) for _ in range(steps)], positive / sum(weights),
            record)


def _some_references(example: Example, k: int, rng: random.Random) -> Example:
    """``example`` with at most ``k`` references: the first and a seeded sample of the others (their order kept)."""
    if len(example.references) <= k:
        return example
    keep = sorted(rng.sample(range(1, len(example.references)), k - 1))
    return replace(example, references=[example.references[0], *(example.references[i] for i in keep)])


def _fit(examples: list[Example], train_idx: list[int], dev_idx: list[int], config: EquivalenceConfig,
         steps_per_epoch: int, epoch_batches: Callable[[], Iterable[list[int]]], positive: float,
         extra: dict[str, Any]) -> dict[str, Any]:
    """The training loop: ``epoch_batches()`` each epoch, the epoch with the lowest dev loss kept."""
    model, tokenizer, params, optimizer, scheduler = _setup(config, steps_per_epoch * config.epochs)
    device = resolve_device(config.device)
    model.to(device)
    dtype = amp_dtype(str(device), training_precision(config.precision))
    class_weight = {1: 0.5 / positive, 0: 0.5 / (1 - positive)}
    ref_rng = random.Random(f"{config.seed}|references")
    history: list[dict[str, Any]] = []
    best: dict[str, Any] | None = None
    started = time.time()
    from tqdm.auto import tqdm

    for epoch in range(config.epochs):
        model.train()
        total, seen = 0.0, 0
        for batch in tqdm(epoch_batches(), desc=f"epoch {epoch + 1}", mininterval=30, file=sys.stderr):
            rows = [examples[i] for i in batch]
            if config.max_references is not None:
                rows = [_some_references(e, config.max_references, ref_rng) for e in rows]
            logits = _logits(model, tokenizer, rows, config.max_length, device, dtype)
            labels = torch.tensor([float(e.label) for e in rows], device=device)
            weights = torch.tensor([class_weight[e.label] for e in rows], device=device)
            loss = torch.nn.functional.binary_cross_entropy_with_logits(logits, labels, weight=weights)
            step(loss, params, optimizer, scheduler)
            total, seen = total + float(loss.detach()) * len(rows), seen + len(rows)
        dev = evaluate(model, tokenizer, examples, dev_idx, config, device, dtype) if dev_idx else {"loss": 0.0}
        history.append({"epoch": epoch + 1, "train_loss": total / max(seen, 1), "dev": dev,
                        "seconds": round(time.time() - started, 1)})
        print(json.dumps({k: v for k, v in history[-1].items() if k != "dev"} |
                         {"dev_loss": dev["loss"], "dev_accuracy": dev.get("accuracy")}), file=sys.stderr)
        if best is None or dev["loss"] < best["dev"]["loss"]:
            best = history[-1]
            metadata = _metadata(config, examples, train_idx, dev_idx, model, history, best) | extra
            ckpt.save(config.output, model.trained_state(), metadata)
    metadata = _metadata(config, examples, train_idx, dev_idx, model, history, best) | extra
    ckpt.save(config.output, _load_kept(config.output), metadata)
    return metadata


def _load_kept(folder: str) -> dict[str, torch.Tensor]:
    from safetensors.torch import load_file

    return load_file(str(Path(folder) / ckpt.WEIGHTS))


def _metadata(config: EquivalenceConfig, examples: Sequence[Example], train_idx: Sequence[int], dev_idx: Sequence[int],
              model: EquivalenceModel, history: list, best: dict | None) -> dict[str, Any]:
    kinds: dict[str, int] = defaultdict(int)
    for i in train_idx:
        kinds[examples[i].kind] += 1
    files = [{"path": p, "sha256": backbones.file_sha256(p)} for p in config.data]
    return {"kind": KIND, "backbone": backbones.describe(config.backbone), "use_question": True, "lora": None,
            "max_length": config.max_length, "trained_layers": model.trained_layers, "pooling": model.pooling,
            "data": {"files": files, "train_rows": len(train_idx), "dev_rows": len(dev_idx),
                     "train_kinds": dict(sorted(kinds.items()))},
            "config": {k: v for k, v in asdict(config).items() if k not in ("command", "extra")
                       and not (k in _NEW_OPTIONS and v is None)},
            "init": _init_facts(config.init), "command": config.command, "history": history, "best_epoch": best["epoch"] if best else None,
            "dev": best["dev"] if best else None, "training_seconds": history[-1]["seconds"] if history else 0.0,
            **config.extra}


#: the options added with the mixed sources (issue 53): left out of a run's metadata when not given, so that a run
#: without them records what it did before
_NEW_OPTIONS = ("mix", "mix_caps", "steps_per_epoch", "max_references", "fold_by", "train_only")


def _init_facts(folder: str | None) -> dict[str, str] | None:
    """What a run started from (``--init``): the folder and its weights' sha256."""
    if folder is None:
        return None
    return {"path": folder, "weights_sha256": backbones.file_sha256(Path(folder) / ckpt.WEIGHTS)}


def build_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    """The options of ``kpqa train-equivalence``."""
    p = parser or argparse.ArgumentParser(prog="kpqa train-equivalence", description=__doc__.split("\n\n")[0],
                                          formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    d = EquivalenceConfig(data=[], output="")
    p.add_argument("--data", action="append", required=True, metavar="CSV", help="labelled answers (repeatable)")
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
                   "(the first and a seeded sample of the others); dev figures and scoring use all")
    p.add_argument("--train-only", action="append", metavar="CSV", help="with --folds: a --data file whose rows "
                   "train every fold and are never held out nor scored (rule-made answers to other questions)")
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
    for name in ("steps_per_epoch", "max_references"):
        if getattr(args, name) is not None and getattr(args, name) < 1:
            raise UsageError(Param(name, getattr(args, name)), " must be 1 or more")
    config.steps_per_epoch, config.max_references = args.steps_per_epoch, args.max_references
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


if __name__ == "__main__":  # the CLI's error handling: one line, its exit code
    from kpqa.cli import main as kpqa_main

    sys.exit(kpqa_main(["train-equivalence", *sys.argv[1:]]))
