"""Quiet loading of a transformers model and its fast tokenizer (the encoder's and the weighter's one loader)."""
from __future__ import annotations

from typing import Any

from kpqa.errors import CheckpointError


def load_pretrained(name: str, path: str, what: str = "backbone") -> tuple[Any, Any]:
    """(model, fast tokenizer) from ``path`` (a folder or hub name resolved from backbone ``name``), without
    transformers' warnings or "Loading weights" bar on stderr (kpqa errors are one line); CheckpointError when it
    cannot be loaded or has no fast tokenizer (character offsets are needed)."""
    from transformers import AutoModel, AutoTokenizer
    from transformers.utils import logging as hf_logging

    verbosity = hf_logging.get_verbosity()
    hf_logging.set_verbosity_error()
    hf_logging.disable_progress_bar()
    try:
        model = AutoModel.from_pretrained(path)
        tokenizer = AutoTokenizer.from_pretrained(path, use_fast=True)
    except OSError as e:
        raise CheckpointError(f"cannot load {what} {name!r} from {path}: {str(e).splitlines()[0]}") from e
    finally:
        hf_logging.set_verbosity(verbosity)
        hf_logging.enable_progress_bar()
    if not getattr(tokenizer, "is_fast", False):
        raise CheckpointError(f"{what} {name!r} has no fast tokenizer (needed for character offsets)")
    return model, tokenizer
