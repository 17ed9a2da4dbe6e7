"""What a ``kpqa train-equivalence`` run reads and how it trains."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from kpqa.models.equivalence import MAX_LENGTH


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
    keep_reference: str | None = None  # with max_references: "first" (None) or "closest"
    fold_by: str | None = None
    train_only: list[str] | None = None
    save_every: int = 200
    command: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
