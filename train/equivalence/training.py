"""The training loop: the model (from the backbone or ``--init``), AdamW under the shared schedule, each epoch's
batches, the epoch with the lowest dev loss kept as the checkpoint with its metadata."""
from __future__ import annotations

import json
import math
import random
import sys
import time
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator, Sequence

import numpy as np
import torch

from kpqa.errors import CheckpointError
from kpqa.models import backbone as backbones
from kpqa.models import checkpoint as ckpt
from kpqa.models.device import amp_dtype, resolve_device, training_precision
from kpqa.models.equivalence import KIND, EquivalenceModel
from kpqa.models.loader import load_pretrained

from ..batches import length_grouped
from ..loop import optimizer_and_schedule, step
from ..skeleton import fit, log_line, machine, train_steps
from .config import EquivalenceConfig
from .data import Example, load_examples
from .evaluation import best_logits, evaluate, text_length
from .folds import split_dev
from .mix import mixed_plan, some_references


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
    tensors, metadata, _ = ckpt.load(folder)
    if metadata.kind != KIND:
        raise CheckpointError(f"--init {folder}: not an answer-equivalence checkpoint")
    if (metadata.pooling, metadata.trained_layers) != (model.pooling, model.trained_layers):
        raise CheckpointError(f"--init {folder}: trained with pooling {metadata.pooling!r} and "
                              f"{metadata.trained_layers} layers, not {model.pooling!r} and {model.trained_layers}")
    model.load_trained(tensors)


def train(config: EquivalenceConfig) -> dict[str, Any]:
    """Train, keep the epoch with the lowest dev loss in ``config.output``; returns the checkpoint's metadata."""
    return train_on(load_examples(config), config)


def train_on(examples: list[Example], config: EquivalenceConfig) -> dict[str, Any]:
    """Train on ``examples`` (a seeded share of their questions held out as dev), keep the epoch with the lowest
    dev loss in ``config.output``; returns the checkpoint's metadata. With ``config.mix``, the batches are drawn
    from the sources in proportion to their weights (:class:`MixedSampler`)."""
    train_idx, dev_idx = split_dev(examples, config.dev_share, config.seed)
    if config.mix is not None:
        return _fit(examples, train_idx, dev_idx, config, *mixed_plan(examples, train_idx, config))
    rng = random.Random(config.seed)
    positive = float(np.mean([examples[i].label for i in train_idx]))
    return _fit(examples, train_idx, dev_idx, config, math.ceil(len(train_idx) / config.batch_size),
                lambda: length_grouped(train_idx, text_length(examples), config.batch_size, rng), positive, {})


def _fit(examples: list[Example], train_idx: list[int], dev_idx: list[int], config: EquivalenceConfig,
         steps_per_epoch: int, epoch_batches: Callable[[], Iterable[list[int]]], positive: float,
         extra: dict[str, Any]) -> dict[str, Any]:
    """The run (:func:`~kpqa.train.skeleton.fit`): ``epoch_batches()`` each epoch, the epoch with the lowest dev loss
    kept. A resumable state is saved every ``config.save_every`` steps, at each epoch's end and on Ctrl-C once the
    step under way is done (:class:`Resume`); the same command goes on from it."""
    def start() -> _Run:
        model, tokenizer, params, optimizer, scheduler = _setup(config, steps_per_epoch * config.epochs)
        device = resolve_device(config.device)
        model.to(device)
        run = _Run(config, examples, train_idx, dev_idx, extra, epoch_batches, model, tokenizer, params, optimizer,
                   scheduler, device, amp_dtype(str(device), training_precision(config.precision)),
                   {1: 0.5 / positive, 0: 0.5 / (1 - positive)}, random.Random(f"{config.seed}|references"),
                   Resume(config))
        run.state = run.resume.load(model, optimizer, scheduler)
        if run.state:
            run.history, run.best = run.state["history"], run.state["best"]
        run.started = time.time() - (run.state["seconds"] if run.state else 0.0)
        return run

    return fit(start, config.epochs)


@dataclass
class _Run:
    """The answer-equivalence model's task in the trainers' loop (:class:`~kpqa.train.skeleton.Task`): its rows and
    split, the model and its optimisation, the arithmetic, the class weights, the references' sampler and the
    resumable state."""

    config: EquivalenceConfig
    examples: list[Example]
    train_idx: list[int]
    dev_idx: list[int]
    extra: dict[str, Any]
    epoch_batches: Callable[[], Iterable[list[int]]]
    model: EquivalenceModel
    tokenizer: Any
    params: list[torch.nn.Parameter]
    optimizer: Any
    scheduler: Any
    device: Any
    dtype: Any
    class_weight: dict[int, float]
    ref_rng: random.Random
    resume: "Resume"
    state: dict[str, Any] | None = None  # what a resumed run loaded
    history: list[dict[str, Any]] = field(default_factory=list)
    best: dict[str, Any] | None = None
    started: float = 0.0
    batches: list[list[int]] = field(default_factory=list)  # the epoch's, drawn in every epoch
    total: float = 0.0  # the epoch's loss sum and rows so far
    seen: int = 0

    @property
    def best_loss(self) -> float | None:
        return None if self.best is None else self.best["dev"]["loss"]

    def references(self, rows: list[Example]) -> list[Example]:
        """``rows`` with at most ``--max-references`` references each (the sampler drawn for every batch)."""
        k = self.config.max_references
        keep = self.config.keep_reference or "first"
        return rows if k is None else [some_references(e, k, self.ref_rng, keep) for e in rows]

    def save(self, epoch: int, step_: int) -> None:
        self.resume.save(self.model, self.optimizer, self.scheduler, epoch, step_, self.total, self.seen,
                         self.history, self.best, time.time() - self.started)

    def skip(self, epoch: int) -> bool:
        self.batches = list(self.epoch_batches())  # so that a resumed run draws what an unbroken one does
        if self.state and epoch < self.state["epoch"]:
            for batch in self.batches:
                self.references([self.examples[i] for i in batch])
            return True
        return False

    def train_epoch(self, epoch: int, interrupted: list[bool]) -> None:
        """One epoch's steps, from the saved step when the run resumes there."""
        here = self.state if self.state and epoch == self.state["epoch"] else None
        done = here["step"] if here else 0
        self.total, self.seen = (here["total"], here["seen"]) if here else (0.0, 0)
        self.model.train()

        def rows() -> Iterator[list[Example]]:
            for k, batch in enumerate(self.batches):
                drawn = self.references([self.examples[i] for i in batch])
                if k >= done:
                    yield drawn

        train_steps(rows(), self._step, done=done, length=len(self.batches), desc=f"epoch {epoch + 1}",
                    save=lambda k: self.save(epoch, k), where=self.resume.path, interrupted=interrupted,
                    save_every=self.config.save_every, status=lambda: {
                        "epoch": epoch + 1, "train_loss": round(self.total / max(self.seen, 1), 4),
                        "seconds": round(time.time() - self.started, 1)})

    def _step(self, rows: list[Example]) -> float:
        logits = best_logits(self.model, self.tokenizer, rows, self.config.max_length, self.device, self.dtype)
        labels = torch.tensor([float(e.label) for e in rows], device=self.device)
        weights = torch.tensor([self.class_weight[e.label] for e in rows], device=self.device)
        loss = torch.nn.functional.binary_cross_entropy_with_logits(logits, labels, weight=weights)
        step(loss, self.params, self.optimizer, self.scheduler)
        value = float(loss.detach())
        self.total, self.seen = self.total + value * len(rows), self.seen + len(rows)
        return value

    def evaluate(self) -> dict[str, float]:
        if not self.dev_idx:
            return {"loss": 0.0}
        return evaluate(self.model, self.tokenizer, self.examples, self.dev_idx, self.config, self.device,
                        self.dtype)

    def end_epoch(self, epoch: int, dev: dict[str, float], better: bool) -> None:
        self.history.append({"epoch": epoch + 1, "train_loss": self.total / max(self.seen, 1), "dev": dev,
                             "seconds": round(time.time() - self.started, 1)})
        log_line({k: v for k, v in self.history[-1].items() if k != "dev"} |
                 {"dev_loss": dev["loss"], "dev_accuracy": dev.get("accuracy")})
        if better:
            self.best = self.history[-1]
            ckpt.save(self.config.output, self.model.trained_state(), self._metadata())
        self.total, self.seen = 0.0, 0
        self.save(epoch + 1, 0)

    def finish(self) -> dict[str, Any]:
        metadata = self._metadata()
        ckpt.save(self.config.output, _load_kept(self.config.output), metadata)
        self.resume.clear()
        return metadata

    def _metadata(self) -> dict[str, Any]:
        return _metadata(self.config, self.examples, self.train_idx, self.dev_idx, self.model, self.history,
                         self.best) | self.extra


class Resume:
    """A run's resumable state, ``OUTPUT/resume.pt``: the trained tensors, AdamW's and the schedule's state, where
    the run is (epoch, step), its history and torch's random state; written beside and swapped in (a run killed
    mid-save keeps the old one), taken only by a run with the same options and data (else an error), removed when
    the run ends."""

    def __init__(self, config: EquivalenceConfig) -> None:
        self.path = Path(config.output) / "resume.pt"
        options = {k: v for k, v in asdict(config).items() if k not in ("command", "extra", "output", "save_every")}
        files = [backbones.file_sha256(p) for p in config.data]
        self.key = json.dumps({"options": options, "files": files}, sort_keys=True, default=str)

    def load(self, model: EquivalenceModel, optimizer: Any, scheduler: Any) -> dict[str, Any] | None:
        """The saved state loaded into the model, optimizer and schedule (None: no state, a new run)."""
        if not self.path.exists():
            return None
        state = torch.load(self.path, map_location="cpu", weights_only=False)
        if state["key"] != self.key:
            raise CheckpointError(f"{self.path}: a resumable state of a run with other options or data; remove it "
                                  "or use another --output")
        model.load_trained(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        torch.set_rng_state(state["torch_rng"])
        print(f"resuming from {self.path}: epoch {state['epoch'] + 1}, step {state['step']}", file=sys.stderr)
        return state

    def save(self, model: EquivalenceModel, optimizer: Any, scheduler: Any, epoch: int, step_: int, total: float,
             seen: int, history: list, best: dict | None, seconds: float) -> None:
        """Write the state (atomically)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        partial = self.path.with_suffix(".partial")
        torch.save({"key": self.key, "model": model.trained_state(), "optimizer": optimizer.state_dict(),
                    "scheduler": scheduler.state_dict(), "epoch": epoch, "step": step_, "total": total, "seen": seen,
                    "history": history, "best": best, "seconds": seconds, "torch_rng": torch.get_rng_state()},
                   partial)
        partial.replace(self.path)

    def clear(self) -> None:
        """Remove the state (the run ended)."""
        self.path.unlink(missing_ok=True)


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
            "config": {k: v for k, v in asdict(config).items() if k not in _PLUMBING
                       and not (k in _NEW_OPTIONS and v is None)},
            "init": _init_facts(config.init), "command": config.command, "history": history,
            "best_epoch": best["epoch"] if best else None, "dev": best["dev"] if best else None,
            "training_seconds": history[-1]["seconds"] if history else 0.0,
            "machine": machine(next(model.parameters()).device), **config.extra}


#: the options added with the mixed sources (issue 53): left out of a run's metadata when not given, so that a run
#: without them records what it did before
_NEW_OPTIONS = ("mix", "mix_caps", "steps_per_epoch", "max_references", "keep_reference", "fold_by", "train_only")
#: left out of the metadata: where a run saves, not what it trains
_PLUMBING = ("command", "extra", "save_every")


def _init_facts(folder: str | None) -> dict[str, str] | None:
    """What a run started from (``--init``): the folder and its weights' sha256."""
    if folder is None:
        return None
    return {"path": folder, "weights_sha256": backbones.file_sha256(Path(folder) / ckpt.WEIGHTS)}
