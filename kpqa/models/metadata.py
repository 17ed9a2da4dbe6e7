"""A checkpoint's ``metadata.json``, typed: the one reading of it (torch-free, so that a check of what a checkpoint
needs installed loads no torch). :mod:`kpqa.models.checkpoint` loads the tensors beside it."""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kpqa.errors import CheckpointError

METADATA = "metadata.json"
#: the keys every checkpoint's metadata has
REQUIRED = ("backbone", "use_question", "lora", "max_length", "weights_sha256")


@dataclass(frozen=True)
class Lora:
    """The LoRA adapter a checkpoint holds: rank, alpha (the scale is alpha / rank) and the adapted linear maps."""

    rank: int
    alpha: float
    targets: list[str]


@dataclass(frozen=True)
class Metadata:
    """What inference reads of a checkpoint's ``metadata.json`` (the file holds more: the training data, command and
    history, kept in ``raw``). ``kind``: what the checkpoint is, None for a keyphrase weighter
    (:data:`kpqa.models.equivalence.KIND` for the answer-equivalence model); ``pooling``: what an
    answer-equivalence model's head reads (``cls`` when the file says nothing)."""

    backbone: str
    use_question: bool
    max_length: int
    lora: Lora | None  # None: the top ``trained_layers`` transformer layers were fine-tuned (None: all of them)
    trained_layers: int | None
    dev_k_f1: float | None
    raw: dict[str, Any]
    kind: str | None = None
    pooling: str = "cls"

    @classmethod
    def of(cls, raw: dict[str, Any]) -> "Metadata":
        """The fields of a metadata dict (as :func:`read` reads it)."""
        lora = raw.get("lora")
        k_f1 = (raw.get("dev") or {}).get("k_f1")
        return cls(backbone=raw["backbone"]["name"], use_question=bool(raw["use_question"]),
                   max_length=int(raw["max_length"]),
                   lora=None if lora is None else Lora(int(lora["rank"]), float(lora["alpha"]), list(lora["targets"])),
                   trained_layers=raw.get("trained_layers"), dev_k_f1=None if k_f1 is None else float(k_f1), raw=raw,
                   kind=raw.get("kind"), pooling=raw.get("pooling", "cls"))


def read(folder: str | Path) -> Metadata:
    """The metadata of the checkpoint folder ``folder``; CheckpointError when the file is missing, not JSON or
    lacks a key of :data:`REQUIRED`."""
    path = Path(folder) / METADATA
    if not path.is_file():
        raise CheckpointError(f"checkpoint {folder}: missing file {METADATA}")
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise CheckpointError(f"checkpoint {folder}: {METADATA} is not valid JSON ({e.msg}, line {e.lineno})") from e
    for key in REQUIRED:
        if key not in raw:
            raise CheckpointError(f"checkpoint {folder}: {METADATA} lacks {key!r}")
    return Metadata.of(raw)
