"""The answer-equivalence model: a cross-encoder reading question, reference and candidate together, giving a logit
that the candidate gives the reference's answer (as BEM does with BERT; here the pip-shipped MiniLM).

Input ``[CLS] question [SEP] reference [SEP] candidate [SEP]`` (token types 0 / 0 / 1): the question and the
reference are cut to :data:`QUESTION_PIECES` and :data:`REFERENCE_PIECES` word pieces, the candidate to what is left
of ``max_length`` (its head: a long answer says its answer first far more often than last). A linear head on the
``[CLS]`` vector, or on the mean of the pieces' vectors (``pooling``), gives the logit. The transformer layers are fine-tuned (embeddings frozen; the top
``trained_layers`` of them), so a checkpoint (:mod:`kpqa.models.checkpoint`, fp16) stores only those layers and the
head. :class:`EquivalenceRunner` runs it batched, length-sorted and cached by (question, reference, candidate); a row's
score is the best over its references (:meth:`EquivalenceRunner.best`). Trained by ``kpqa train-equivalence``
(:mod:`kpqa.train.equivalence`) on the contrastive answers of :mod:`kpqa.train.contrastive`.
"""
from __future__ import annotations

import os
from typing import Any, Sequence

import numpy as np
import torch
from torch import nn

from kpqa.context import DEFAULT_BATCH_SIZE, DEFAULT_DEVICE, DEFAULT_PRECISION
from kpqa.errors import CheckpointError
from kpqa.models import checkpoint as ckpt
from kpqa.models.device import resolve_device
from kpqa.models.loader import load_pretrained
from kpqa.models.runner import CachedRunner
from kpqa.models.tagger import layer_list, load_exactly
from kpqa.models.windows import batches
from kpqa.rows import regroup

#: word pieces kept of the question and of the reference (the candidate takes the rest of ``max_length``)
QUESTION_PIECES, REFERENCE_PIECES = 64, 96
MAX_LENGTH = 256
#: the checkpoint folder's name among the shipped ones (:func:`kpqa.models.shipped.root`)
SHIPPED = "equivalence"
#: ``metadata.json``'s ``kind`` for this model (a weighter checkpoint has none)
KIND = "equivalence"

#: what the head reads: the ``[CLS]`` vector, or the mean of every piece's (what sentence-transformers trained
#: MiniLM's vectors for)
POOLINGS = ("cls", "mean")

Triple = tuple[str, str, str]


class EquivalenceModel(nn.Module):
    """Encoder and a linear head on ``[CLS]``; the top ``trained_layers`` transformer layers (default: all) and the
    head are trainable, the rest (embeddings included) stays as the backbone ships it."""

    def __init__(self, encoder: Any, trained_layers: int | None = None, dropout: float = 0.1,
                 pooling: str = "cls") -> None:
        super().__init__()
        if pooling not in POOLINGS:
            raise ValueError(f"pooling must be {' or '.join(POOLINGS)}, not {pooling!r}")
        self.pooling = pooling
        name, layers = layer_list(encoder)
        n = trained_layers or len(layers)
        if not 1 <= n <= len(layers):
            raise ValueError(f"trained_layers must be 1 to {len(layers)}, not {trained_layers}")
        self.trained_layers = n
        prefixes = tuple(f"{name}.{i}." for i in range(len(layers) - n, len(layers)))
        for pname, param in encoder.named_parameters():
            param.requires_grad = pname.startswith(prefixes)
        self._prefixes = ("head.", *(f"encoder.{p}" for p in prefixes))
        self.encoder = encoder
        self.dropout = nn.Dropout(dropout)
        self.head = nn.Linear(int(encoder.config.hidden_size), 1)

    def forward(self, **inputs: torch.Tensor) -> torch.Tensor:
        """One logit per input sequence, [batch]."""
        hidden = self.encoder(**inputs).last_hidden_state
        if self.pooling == "mean":
            mask = inputs["attention_mask"].unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1)
        else:
            pooled = hidden[:, 0]
        return self.head(self.dropout(pooled)).squeeze(-1)

    def trained_state(self) -> dict[str, torch.Tensor]:
        """The tensors a checkpoint stores: the head and the trained layers."""
        return {k: v for k, v in self.state_dict().items() if k.startswith(self._prefixes)}

    def load_trained(self, tensors: dict[str, torch.Tensor]) -> None:
        """Load stored tensors; CheckpointError unless they are exactly the trained ones."""
        load_exactly(self, tensors, set(self.trained_state()))


def encode(tokenizer: Any, triples: Sequence[Triple], max_length: int = MAX_LENGTH) -> list[dict[str, list[int]]]:
    """Token ids and token types of each (question, reference, candidate), cut as the module docstring says."""
    texts = list(dict.fromkeys(t for triple in triples for t in triple))
    ids = dict(zip(texts, tokenizer(texts, add_special_tokens=False, verbose=False)["input_ids"])) if texts else {}
    cls, sep = tokenizer.cls_token_id, tokenizer.sep_token_id
    out = []
    for q, r, c in triples:
        first = [cls, *ids[q][:QUESTION_PIECES], sep, *ids[r][:REFERENCE_PIECES], sep]
        second = [*ids[c][: max(1, max_length - len(first) - 1)], sep]
        out.append({"input_ids": first + second, "token_type_ids": [0] * len(first) + [1] * len(second)})
    return out


def collate(tokenizer: Any, encoded: Sequence[dict[str, list[int]]]) -> dict[str, torch.Tensor]:
    """Right-padded tensors (ids, token types, attention mask) of encoded inputs: the tokenizer's own padding."""
    return dict(tokenizer.pad(list(encoded), return_tensors="pt"))


def default_folder() -> str:
    """The shipped model's folder."""
    from kpqa.models.shipped import root

    return str(root() / SHIPPED)


class EquivalenceRunner(CachedRunner[Triple, float]):
    """Batched inference of an answer-equivalence checkpoint, cached by (question, reference, candidate)."""

    def __init__(self, model: EquivalenceModel, tokenizer: Any, metadata: ckpt.Metadata, checkpoint_hash: str,
                 device: torch.device, batch_size: int = DEFAULT_BATCH_SIZE,
                 precision: str = DEFAULT_PRECISION) -> None:
        super().__init__(model, tokenizer, checkpoint_hash, device, batch_size, precision)
        self.metadata = metadata
        self.max_length = metadata.max_length

    @classmethod
    def load(cls, folder: str | os.PathLike | None = None, *, device: str = DEFAULT_DEVICE,
             batch_size: int = DEFAULT_BATCH_SIZE, precision: str = DEFAULT_PRECISION) -> "EquivalenceRunner":
        """Load a checkpoint folder (default: the shipped one); CheckpointError when it is not an
        answer-equivalence checkpoint or does not fit the installed backbone."""
        folder = default_folder() if folder is None else os.fspath(folder)
        tensors, metadata, digest = ckpt.load(folder)
        if metadata.kind != KIND:
            raise CheckpointError(f"checkpoint {folder}: not an answer-equivalence model (metadata kind "
                                  f"{metadata.kind!r}, expected {KIND!r})")
        from kpqa.models import backbone as backbones

        encoder, tokenizer = load_pretrained(metadata.backbone, backbones.resolve(metadata.backbone))
        model = EquivalenceModel(encoder, metadata.trained_layers, pooling=metadata.pooling)
        model.load_trained(tensors)
        return cls(model, tokenizer, metadata, digest, resolve_device(device), batch_size, precision)

    @property
    def backbone(self) -> str:
        """The backbone's name (``minilm``)."""
        return self.metadata.backbone

    def logits(self, triples: Sequence[Triple]) -> np.ndarray:
        """The logit of each (question, reference, candidate), float64 [n]; each distinct triple is computed once
        and kept (up to :data:`kpqa.models.runner.CACHE_SIZE`)."""
        return np.array(self._cached(triples, lambda todo: self._compute(todo).tolist()), dtype=np.float64)

    def best(self, questions: Sequence[str], references: Sequence[Sequence[str]],
             candidates: Sequence[str]) -> np.ndarray:
        """Per row, the largest logit over its references."""
        triples = [(q, r, c) for q, refs, c in zip(questions, references, candidates) for r in refs]
        return np.array([max(row) for row in regroup(self.logits(triples).tolist(), references)], dtype=np.float64)

    def _compute(self, triples: Sequence[Triple]) -> np.ndarray:
        encoded = encode(self.tokenizer, triples, self.max_length)
        lengths = [len(e["input_ids"]) for e in encoded]
        order = sorted(range(len(encoded)), key=lengths.__getitem__)
        out = np.empty(len(encoded), dtype=np.float64)
        with torch.inference_mode(), torch.autocast(self.device.type, dtype=self.dtype, enabled=self.dtype is not None):
            for idx in batches(order, lengths, self.batch_size):
                batch = {k: v.to(self.device) for k, v in collate(self.tokenizer, [encoded[i] for i in idx]).items()}
                out[idx] = self.model(**batch).float().cpu().numpy()
        return out
