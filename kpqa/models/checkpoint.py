"""Weighter checkpoint files: the trained tensors (safetensors) and ``metadata.json``.

A checkpoint stores only what differs from the pip-shipped backbone, in fp16: the linear K/O head and either the
LoRA adapter of the encoder (rank, scale and target maps in the metadata's ``lora``) or, when ``lora`` is null, the
fine-tuned transformer layers (the top ``trained_layers`` of them when the metadata names a number, else all).
Loading checks that both files are there, that the tensors are the ones the metadata names (sha256) and that the
installed backbone is the one the checkpoint was trained on (sha256 of its weights).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch
from safetensors.torch import load_file, save_file

from kpqa.models import backbone as backbones
from kpqa.models.backbone import file_sha256
from kpqa.errors import CheckpointError
from kpqa.output import output_path, write_text

WEIGHTS = "weights.safetensors"
METADATA = "metadata.json"
LABELS = ["O", "K"]
STORE_DTYPE = torch.float16


@dataclass(frozen=True)
class Lora:
    """The LoRA adapter a checkpoint holds: rank, alpha (the scale is alpha / rank) and the adapted linear maps."""

    rank: int
    alpha: float
    targets: list[str]


@dataclass(frozen=True)
class Metadata:
    """What inference reads of a checkpoint's ``metadata.json`` (the file holds more: the training data, command and
    history, kept in ``raw``)."""

    backbone: str
    use_question: bool
    max_length: int
    lora: Lora | None  # None: the top ``trained_layers`` transformer layers were fine-tuned (None: all of them)
    trained_layers: int | None
    dev_k_f1: float | None
    raw: dict[str, Any]

    @classmethod
    def of(cls, raw: dict[str, Any]) -> "Metadata":
        """The fields of a metadata dict (as :func:`load` returns it)."""
        lora = raw.get("lora")
        k_f1 = (raw.get("dev") or {}).get("k_f1")
        return cls(backbone=raw["backbone"]["name"], use_question=bool(raw["use_question"]),
                   max_length=int(raw["max_length"]),
                   lora=None if lora is None else Lora(int(lora["rank"]), float(lora["alpha"]), list(lora["targets"])),
                   trained_layers=raw.get("trained_layers"), dev_k_f1=None if k_f1 is None else float(k_f1), raw=raw)


def save(folder: str | Path, tensors: dict[str, torch.Tensor], metadata: dict) -> str:
    """Write ``tensors`` (cast to fp16) and ``metadata`` (plus the tensors' sha256) to ``folder``; returns the hash."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    stored = {k: v.detach().to("cpu", STORE_DTYPE).contiguous() for k, v in sorted(tensors.items())}
    with output_path(folder / WEIGHTS) as tmp:  # written as every output is: a temp file renamed into place
        save_file(stored, tmp)
    digest = file_sha256(folder / WEIGHTS)
    metadata = {**metadata, "weights_sha256": digest}
    write_text(folder / METADATA, json.dumps(metadata, indent=2, sort_keys=False) + "\n")
    return digest[:12]


def load(folder: str | Path) -> tuple[dict[str, torch.Tensor], dict, str]:
    """(tensors in fp32, metadata, short checkpoint hash) of a checkpoint folder, verified.

    Raises CheckpointError when a file is missing, the tensors do not match their recorded sha256, or the
    installed backbone's weights differ from the ones the checkpoint was trained on.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise CheckpointError(f"checkpoint {folder}: no such folder")
    for name in (WEIGHTS, METADATA):
        if not (folder / name).is_file():
            raise CheckpointError(f"checkpoint {folder}: missing file {name}")
    try:
        metadata = json.loads((folder / METADATA).read_text(encoding="utf-8"))
    except json.JSONDecodeError as e:
        raise CheckpointError(f"checkpoint {folder}: {METADATA} is not valid JSON ({e.msg}, line {e.lineno})") from e
    for key in ("backbone", "use_question", "lora", "max_length", "weights_sha256"):
        if key not in metadata:
            raise CheckpointError(f"checkpoint {folder}: {METADATA} lacks {key!r}")
    digest = file_sha256(folder / WEIGHTS)
    if digest != metadata["weights_sha256"]:
        raise CheckpointError(f"checkpoint {folder}: {WEIGHTS} sha256 {digest[:12]} does not match metadata "
                              f"{metadata['weights_sha256'][:12]} (file changed or corrupt)")
    verify_backbone(metadata["backbone"], folder)
    tensors = {k: v.float() for k, v in load_file(str(folder / WEIGHTS)).items()}
    return tensors, metadata, digest[:12]


def verify_backbone(recorded: dict, folder: Path) -> None:
    """CheckpointError unless the installed backbone's weights hash equals the recorded one (when recorded)."""
    expected = recorded.get("weights_sha256")
    if expected is None:
        return
    actual = backbones.describe(recorded["name"])["weights_sha256"]
    if actual != expected:
        package = recorded.get("package")
        hint = f" ({backbones.install_hint(package, recorded.get('package_version'))})" if package else ""
        raise CheckpointError(
            f"checkpoint {folder}: backbone {recorded['name']!r} weights sha256 {str(actual)[:12]} differ from "
            f"the {expected[:12]} it was trained on{hint}"
        )
