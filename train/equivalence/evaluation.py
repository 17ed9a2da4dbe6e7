"""A model measured on held-out rows: each row's best logit over its references, the loss, accuracy and balanced
accuracy at logit 0, accuracy per kind."""
from __future__ import annotations

from collections import defaultdict
from typing import Any, Callable, Sequence

import numpy as np
import torch

from kpqa.arraystats import balanced_accuracy
from kpqa.models.equivalence import EquivalenceModel, collate, encode

from ..batches import length_grouped
from .config import EquivalenceConfig
from .data import Example


def text_length(examples: Sequence[Example]) -> Callable[[int], int]:
    """A row's length as batches group it: its candidate's and references' characters, once per reference."""
    return lambda i: sum(len(examples[i].candidate) + len(r) for r in examples[i].references)


def best_logits(model: EquivalenceModel, tokenizer: Any, batch: Sequence[Example], max_length: int,
                device: torch.device, dtype: torch.dtype | None) -> torch.Tensor:
    """Each example's best logit over its references, [len(batch)]."""
    triples = [(e.question, r, e.candidate) for e in batch for r in e.references]
    inputs = {k: v.to(device) for k, v in collate(tokenizer, encode(tokenizer, triples, max_length)).items()}
    with torch.autocast(device.type, dtype=dtype, enabled=dtype is not None):
        flat = model(**inputs).float()
    owner = torch.tensor([i for i, e in enumerate(batch) for _ in e.references], device=device)
    best = torch.full((len(batch),), -torch.inf, device=device)
    return best.scatter_reduce(0, owner, flat, reduce="amax")


def evaluate(model: EquivalenceModel, tokenizer: Any, examples: Sequence[Example], indices: Sequence[int],
             config: EquivalenceConfig, device: torch.device, dtype: torch.dtype | None) -> dict[str, Any]:
    """Loss, accuracy and balanced accuracy at logit 0 on ``indices``, and accuracy per kind."""
    model.eval()
    logits = np.empty(len(indices))
    position = {i: k for k, i in enumerate(indices)}
    with torch.inference_mode():
        for batch in length_grouped(indices, text_length(examples), 2 * config.batch_size):
            values = best_logits(model, tokenizer, [examples[i] for i in batch], config.max_length, device, dtype)
            for i, v in zip(batch, values.cpu().numpy()):
                logits[position[i]] = v
    labels = np.array([examples[i].label for i in indices], dtype=float)
    loss = float(torch.nn.functional.binary_cross_entropy_with_logits(torch.tensor(logits), torch.tensor(labels)))
    right = (logits > 0) == (labels == 1)
    kinds: dict[str, list[bool]] = defaultdict(list)
    for i, ok in zip(indices, right):
        kinds[examples[i].kind].append(bool(ok))
    balanced = float(balanced_accuracy(labels, (logits > 0).astype(float)))
    if np.isnan(balanced):  # the dev rows have one class: that class's recall, the accuracy
        balanced = float(right.mean())
    return {"loss": loss, "accuracy": float(right.mean()), "balanced_accuracy": balanced,
            "rows": len(indices), "per_kind": {k: round(float(np.mean(v)), 4) for k, v in sorted(kinds.items())}}
