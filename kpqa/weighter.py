"""The keyphrase weighter (KPW, Lee et al. 2021, sec. 3.1): a K/O token classifier over the answer's word pieces.

Input ``[CLS] question [SEP] text [SEP]`` (or ``[CLS] text [SEP]`` for the question-free -KP ablation). A linear
head is trained on top of the encoder (``kpqa_train``), whose transformer layers are either fine-tuned (embeddings
frozen) or adapted with LoRA (``peft``) on every linear map (query, key, value, attention output, intermediate,
output). A checkpoint (``kpqa.checkpoint``) stores only what differs from the pip-shipped backbone: the head and the
layers or the adapter; loading merges an adapter into the backbone's weights. A piece's weight is its K-probability.
Texts longer than the model's window are covered by overlapping windows (the question repeated in each); a piece
takes its weight from the window where it is most central.
"""
from __future__ import annotations

import warnings
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

import numpy as np
import torch
from torch import nn

from kpqa import backbone as backbones
from kpqa import checkpoint as ckpt
from kpqa.encoder import amp_dtype, pick_device
from kpqa.errors import CheckpointError, UsageError

if TYPE_CHECKING:
    from kpqa.text import Tokenizer

CHECKPOINTS = Path(__file__).resolve().parent.parent / "checkpoints"
CACHE_SIZE = 100_000


def shipped_checkpoint(no_question: bool = False) -> Path:
    """Folder of the shipped default (or question-free) checkpoint."""
    try:
        import kpqa.checkpoints as shipped

        root = Path(shipped.__file__).resolve().parent
    except ImportError:  # running from a source tree that is not installed
        root = CHECKPOINTS
    return root / ("no-question" if no_question else "default")


def load_encoder(backbone: str):
    """(transformers encoder, fast tokenizer) of a backbone name, quietly."""
    from transformers import AutoModel, AutoTokenizer
    from transformers.utils import logging as hf_logging

    path = backbones.resolve(backbone)
    verbosity = hf_logging.get_verbosity()
    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()
    try:
        encoder = AutoModel.from_pretrained(path)
        tokenizer = AutoTokenizer.from_pretrained(path)
    except OSError as e:
        raise CheckpointError(f"cannot load backbone {backbone!r} from {path}: {str(e).splitlines()[0]}") from e
    finally:
        hf_logging.set_verbosity(verbosity)
        hf_logging.enable_progress_bar()
    if not getattr(tokenizer, "is_fast", False):
        raise CheckpointError(f"backbone {backbone!r} has no fast tokenizer (needed for character offsets)")
    return encoder, tokenizer


def _layer_list(encoder: nn.Module) -> tuple[str, nn.ModuleList]:
    n = encoder.config.num_hidden_layers
    for name, module in encoder.named_modules():
        if isinstance(module, nn.ModuleList) and len(module) == n:
            return name, module
    raise CheckpointError(f"cannot find the {n} transformer layers of {type(encoder).__name__}")


def lora_targets(encoder: nn.Module) -> list[str]:
    """Names, relative to one transformer layer, of the layer's linear maps (the LoRA targets)."""
    _, layers = _layer_list(encoder)
    return [name for name, module in layers[0].named_modules() if isinstance(module, nn.Linear)]


class KeyphraseTagger(nn.Module):
    """Encoder and a linear O/K head. With ``lora_rank`` >= 1 the encoder is adapted by LoRA of that rank (scale
    ``lora_alpha / lora_rank``) on the ``targets`` of every transformer layer (default: all their linear maps) and
    only adapter and head are trained; with ``lora_rank`` 0 the transformer layers themselves are fine-tuned (the
    embeddings stay frozen, so a checkpoint need not store them)."""

    def __init__(self, encoder: nn.Module, lora_rank: int, lora_alpha: float | None = None,
                 targets: Sequence[str] | None = None, dropout: float = 0.1):
        super().__init__()
        if lora_rank < 0:
            raise UsageError(f"--lora-rank must be 0 (fine-tune the layers) or more, not {lora_rank}")
        layers_name, layers = _layer_list(encoder)
        self.lora_rank = lora_rank
        if lora_rank == 0:
            self.targets: list[str] = []
            self.lora_alpha = 0.0
            self._trained_prefix = f"encoder.{layers_name}."
            for name, param in encoder.named_parameters():
                param.requires_grad = name.startswith(f"{layers_name}.")
            self.encoder = encoder
        else:
            from peft import LoraConfig, get_peft_model

            self.targets = list(targets) if targets is not None else lora_targets(encoder)
            self.lora_alpha = float(lora_alpha if lora_alpha is not None else 2 * lora_rank)
            self._trained_prefix = None
            modules = [f"{layers_name}.{i}.{t}" for i in range(len(layers)) for t in self.targets]
            config = LoraConfig(r=lora_rank, lora_alpha=self.lora_alpha, lora_dropout=0.0, bias="none",
                                target_modules=modules)
            with warnings.catch_warnings():  # peft asks transformers a deprecated question; not the user's business
                warnings.filterwarnings("ignore", message=".*is_gradient_checkpointing", category=FutureWarning)
                self.encoder = get_peft_model(encoder, config)
        self.dropout = nn.Dropout(dropout)
        self.head = nn.Linear(encoder.config.hidden_size, len(ckpt.LABELS))
        self.merged = lora_rank == 0

    @property
    def adaptation(self) -> dict | None:
        """The checkpoint metadata's ``lora`` entry: None when the layers themselves are fine-tuned."""
        if self.lora_rank == 0:
            return None
        return {"rank": self.lora_rank, "alpha": self.lora_alpha, "dropout": 0.0, "targets": self.targets,
                "layers": "all"}

    def forward(self, **inputs: torch.Tensor) -> torch.Tensor:
        """Logits [batch, length, 2] (O, K)."""
        hidden = self.encoder(**inputs).last_hidden_state
        return self.head(self.dropout(hidden))

    def trained_state(self) -> dict[str, torch.Tensor]:
        """The tensors a checkpoint stores: the head, and the LoRA adapter or the fine-tuned layers."""
        state = self.state_dict()
        if self._trained_prefix is not None:
            return {k: v for k, v in state.items() if k.startswith(("head.", self._trained_prefix))}
        if self.merged:
            raise RuntimeError("the adapter is merged into the encoder; its tensors are no longer separate")
        return {k: v for k, v in state.items() if k.startswith("head.") or ".lora_" in k}

    def load_trained(self, tensors: dict[str, torch.Tensor]) -> None:
        """Load stored tensors; CheckpointError unless they are exactly the trained ones."""
        expected = set(self.trained_state())
        if set(tensors) != expected:
            missing, extra = sorted(expected - set(tensors)), sorted(set(tensors) - expected)
            raise CheckpointError(f"checkpoint tensors do not fit the model (missing {missing[:3]}, extra {extra[:3]})")
        self.load_state_dict(tensors, strict=False)

    def merge(self) -> None:
        """Fold the adapter into the encoder's weights (same outputs, plain encoder speed); for inference only."""
        if not self.merged:
            self.encoder = self.encoder.merge_and_unload()
            self.merged = True


@dataclass
class Window:
    """One model input covering (part of) a text: ``inputs`` for the model, the positions of the text's pieces in
    it, their character offsets in the text, and whether the window is the text's first / last."""

    sample: int
    inputs: dict[str, list[int]]
    positions: np.ndarray
    offsets: np.ndarray
    first: bool
    last: bool


def encode(tokenizer, questions: Sequence[str] | None, texts: Sequence[str], max_length: int) -> list[Window]:
    """Windows over ``texts`` (each preceded by its question unless ``questions`` is None), overlapping by a
    quarter of ``max_length``; nothing is cut. Questions longer than half the window are shortened with a warning."""
    stride = max_length // 4
    kwargs = dict(max_length=max_length, stride=stride, return_overflowing_tokens=True,
                  return_offsets_mapping=True, padding=False)
    if questions is None:
        enc = tokenizer(list(texts), truncation=True, **kwargs)
        text_seq = 0
    else:
        enc = tokenizer(_shorten(tokenizer, questions, max_length // 2), list(texts), truncation="only_second", **kwargs)
        text_seq = 1
    windows: list[Window] = []
    samples = enc["overflow_to_sample_mapping"]
    model_keys = [k for k in ("input_ids", "token_type_ids", "attention_mask") if k in enc]
    for i, sample in enumerate(samples):
        seq_ids = enc.sequence_ids(i)
        positions = np.array([p for p, s in enumerate(seq_ids) if s == text_seq], dtype=np.int64)
        offsets = np.asarray(enc["offset_mapping"][i], dtype=np.int64).reshape(-1, 2)[positions]
        windows.append(Window(
            sample=sample,
            inputs={k: enc[k][i] for k in model_keys},
            positions=positions,
            offsets=offsets,
            first=i == 0 or samples[i - 1] != sample,
            last=i == len(samples) - 1 or samples[i + 1] != sample,
        ))
    return windows


def _shorten(tokenizer, questions: Sequence[str], limit: int) -> list[str]:
    out = list(questions)
    enc = tokenizer(out, add_special_tokens=False, return_offsets_mapping=True)
    long = [len(offsets) for offsets in enc["offset_mapping"] if len(offsets) > limit]
    for i, offsets in enumerate(enc["offset_mapping"]):
        if len(offsets) > limit:
            out[i] = out[i][: offsets[limit - 1][1]]
    if long:  # one warning per call, not one per question: a file repeats its questions across answers
        warnings.warn(f"{len(long)} question(s) longer than {limit} word pieces (up to {max(long)}) were cut to "
                      f"their first {limit}", stacklevel=3)
    return out


def pad(tokenizer, windows: Sequence[Window]) -> dict[str, torch.Tensor]:
    """A padded batch of window inputs (dynamic padding to the longest)."""
    return dict(tokenizer.pad([w.inputs for w in windows], return_tensors="pt"))


def resolve_device(device: str) -> torch.device:
    """:func:`kpqa.encoder.pick_device` (the one device check) as a torch device."""
    return torch.device(pick_device(device))


class Weighter:
    """Batched KPW inference from a checkpoint, cached by (question, text)."""

    def __init__(self, model: KeyphraseTagger, tokenizer, metadata: dict, checkpoint_hash: str,
                 device: torch.device, batch_size: int = 64, precision: str = "auto"):
        self.model = model.to(device).eval()
        self.tokenizer = tokenizer
        self.metadata = metadata
        self.checkpoint_hash = checkpoint_hash
        self.device = device
        self.batch_size = batch_size
        self.dtype = amp_dtype(str(device), precision)
        self.use_question: bool = bool(metadata["use_question"])
        self.backbone: str = metadata["backbone"]["name"]
        self.max_length: int = int(metadata["max_length"])
        self._cache: OrderedDict[tuple[str, str], tuple[np.ndarray, np.ndarray]] = OrderedDict()

    @classmethod
    def load(cls, checkpoint: str | Path | None = None, *, no_question: bool = False, device: str = "auto",
             batch_size: int = 64, precision: str = "auto") -> "Weighter":
        """Load a checkpoint folder (None -> the shipped default, or the question-free one with ``no_question``);
        ``precision`` as in :func:`kpqa.encoder.amp_dtype`."""
        dev = resolve_device(device)
        folder = Path(checkpoint) if checkpoint is not None else shipped_checkpoint(no_question)
        tensors, metadata, digest = ckpt.load(folder)
        if no_question and metadata["use_question"]:
            raise UsageError(f"checkpoint {folder} reads the question; no_question=True needs one trained without it")
        encoder, tokenizer = load_encoder(metadata["backbone"]["name"])
        lora = metadata["lora"]
        model = (KeyphraseTagger(encoder, 0) if lora is None
                 else KeyphraseTagger(encoder, int(lora["rank"]), float(lora["alpha"]), lora["targets"]))
        model.load_trained(tensors)
        model.merge()
        return cls(model, tokenizer, metadata, digest, dev, batch_size, precision)

    def piece_weights(self, pairs: Sequence[tuple[str, str]]) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per (question, text): (char offsets [n, 2] of the text's word pieces, K-probabilities float32 [n]).
        The question is ignored when ``use_question`` is False."""
        keys = [(q if self.use_question else "", t) for q, t in pairs]
        todo = list(dict.fromkeys(k for k in keys if k not in self._cache))
        if todo:
            for key, value in zip(todo, self._compute(todo)):
                self._cache[key] = value
        out = []
        for key in keys:
            self._cache.move_to_end(key)
            out.append(self._cache[key])
        while len(self._cache) > CACHE_SIZE:
            self._cache.popitem(last=False)
        return out

    def word_weights(self, pairs: Sequence[tuple[str, str]], tokenizer: "Tokenizer") -> list[np.ndarray]:
        """Per pair, one weight per ``tokenizer.tokenize(text)`` token: the maximum K-probability of the word pieces
        overlapping the token's character span (0 when none does, e.g. a token the backbone drops)."""
        out = []
        for (offsets, probs), (_, text) in zip(self.piece_weights(pairs), pairs):
            spans = np.array([(s, e) for _, s, e in tokenizer.spans(text)], dtype=np.int64).reshape(-1, 2)
            overlap = (offsets[None, :, 0] < spans[:, 1:2]) & (offsets[None, :, 1] > spans[:, 0:1])
            out.append(np.where(overlap, probs[None, :], 0.0).max(axis=1, initial=0.0).astype(np.float32))
        return out

    def piece_tokens(self, pairs: Sequence[tuple[str, str]]) -> list[tuple[list[str], np.ndarray]]:
        """Per (question, text): the text's word pieces as lower-cased surface strings (``"playing"`` -> ``"play"``,
        ``"ing"``) and their K-probabilities, leaving out pieces without a letter or digit (punctuation, as the
        PTB tokenizer does). The tokens BLEU-1-KPQA and ROUGE-L-KPQA use by default."""
        out = []
        for (offsets, probs), (_, text) in zip(self.piece_weights(pairs), pairs):
            pieces = [text[s:e].lower() for s, e in offsets.tolist()]
            keep = [i for i, piece in enumerate(pieces) if any(ch.isalnum() for ch in piece)]
            out.append(([pieces[i] for i in keep], probs[keep]))
        return out

    def _compute(self, keys: Sequence[tuple[str, str]]) -> list[tuple[np.ndarray, np.ndarray]]:
        questions = [q for q, _ in keys] if self.use_question else None
        windows = encode(self.tokenizer, questions, [t for _, t in keys], self.max_length)
        order = sorted(range(len(windows)), key=lambda i: len(windows[i].inputs["input_ids"]))
        probs: list[np.ndarray] = [np.empty(0)] * len(windows)
        with torch.inference_mode(), torch.autocast(self.device.type, dtype=self.dtype, enabled=self.dtype is not None):
            for start in range(0, len(order), self.batch_size):
                idx = order[start:start + self.batch_size]
                batch = {k: v.to(self.device) for k, v in pad(self.tokenizer, [windows[i] for i in idx]).items()}
                k_prob = self.model(**batch).float().softmax(-1)[..., 1].cpu().numpy()
                for row, i in enumerate(idx):
                    probs[i] = k_prob[row, windows[i].positions]
        return _merge(windows, probs, len(keys))


def _merge(windows: Sequence[Window], probs: Sequence[np.ndarray], n: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per text, its pieces in order, each with the probability from the window where it is most central."""
    best: list[dict[tuple[int, int], tuple[int, float]]] = [{} for _ in range(n)]
    for w, p in zip(windows, probs):
        m = len(w.offsets)
        j = np.arange(m)
        left = np.where(w.first, m, j)
        right = np.where(w.last, m, m - 1 - j)
        centrality = np.minimum(left, right)
        chosen = best[w.sample]
        for (s, e), c, prob in zip(w.offsets.tolist(), centrality.tolist(), p.tolist()):
            if (s, e) not in chosen or c > chosen[(s, e)][0]:
                chosen[(s, e)] = (c, prob)
    out = []
    for chosen in best:
        spans = sorted(chosen)
        out.append((np.array(spans, dtype=np.int64).reshape(-1, 2),
                    np.array([chosen[s][1] for s in spans], dtype=np.float32)))
    return out
