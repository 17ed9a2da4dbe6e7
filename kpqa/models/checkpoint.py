"""Checkpoint files (a keyphrase weighter's or the answer-equivalence model's): the trained tensors (safetensors) and
``metadata.json`` (read, typed, by :mod:`kpqa.models.metadata`).

A checkpoint stores only what differs from the pip-shipped backbone, in fp16: the linear K/O head and either the
LoRA adapter of the encoder (rank, scale and target maps in the metadata's ``lora``) or, when ``lora`` is null, the
fine-tuned transformer layers (the top ``trained_layers`` of them when the metadata names a number, else all).
Loading checks that both files are there, that the tensors are the ones the metadata names (sha256) and that the
installed backbone is the one the checkpoint was trained on (sha256 of its weights).
"""
from __future__ import annotations

import json
from pathlib import Path

import torch
from safetensors.torch import load_file, save_file

from kpqa.models import backbone as backbones
from kpqa.models.backbone import file_sha256
from kpqa.errors import CheckpointError
from kpqa.models.metadata import METADATA, Metadata, read
from kpqa.output import output_path, write_text

WEIGHTS = "weights.safetensors"
LABELS = ["O", "K"]
STORE_DTYPE = torch.float16


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


def load(folder: str | Path) -> tuple[dict[str, torch.Tensor], Metadata, str]:
    """(tensors in fp32, typed metadata, short checkpoint hash) of a checkpoint folder, verified: the one loader of
    both kinds of checkpoint (a caller checks ``Metadata.kind``).

    Raises CheckpointError when a file is missing, the metadata is not what :func:`kpqa.models.metadata.read`
    needs, the tensors do not match their recorded sha256, or the installed backbone's weights differ from the ones
    the checkpoint was trained on.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise CheckpointError(f"checkpoint {folder}: no such folder")
    for name in (WEIGHTS, METADATA):
        if not (folder / name).is_file():
            raise CheckpointError(f"checkpoint {folder}: missing file {name}")
    metadata = read(folder)
    digest = file_sha256(folder / WEIGHTS)
    if digest != metadata.raw["weights_sha256"]:
        raise CheckpointError(f"checkpoint {folder}: {WEIGHTS} sha256 {digest[:12]} does not match metadata "
                              f"{metadata.raw['weights_sha256'][:12]} (file changed or corrupt)")
    verify_backbone(metadata.raw["backbone"], folder)
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
