"""Distillation: a teacher weighter's K-probabilities as soft targets for a student (``kpqa train --teacher DIR``).

The teacher (any checkpoint, e.g. the MPNet LoRA adapter) labels each distinct (question, text) of the examples once,
without the function-word scaling the metrics apply; its piece probabilities are cached in shards of
:data:`SHARD` texts under ``OUTPUT/teacher/``, keyed by (question, text), so an interrupted run resumes without
labelling again (and a larger or smaller pool reuses what was labelled). Teacher and
student tokenizers differ: a student piece takes the largest probability of the teacher pieces that overlap its
characters (:func:`kpqa.models.alignment.max_overlap`, the rule that maps pieces to words when scoring).

``polar_floor`` (0: off) raises the targets of the content words that follow a leading polar word ("no, she leaves
it closed": "leaves", "closed") to at least that value: the teacher gives such words almost nothing, so a candidate
with the right "no" and any other content scores as high as a right one.
"""
from __future__ import annotations

import json
import re
import sys
import time
from pathlib import Path
from typing import Sequence

import numpy as np

from kpqa.errors import UsageError
from kpqa.models.alignment import max_overlap
from kpqa.stopwords import function_word_spans

SHARD = 500
FOLDER = "teacher"
MANIFEST = "teacher.json"
_POLAR = re.compile(r"\s*(yes|no)\b", re.IGNORECASE)
_WORD = re.compile(r"\w+")

Labels = tuple[np.ndarray, np.ndarray]  # teacher piece offsets [n, 2], K-probabilities [n]


def _read(folder: Path) -> dict[tuple[str, str], Labels]:
    """Every (question, text) labelled in ``folder``'s shards."""
    found: dict[tuple[str, str], Labels] = {}
    for shard in sorted(folder.glob("shard-*.npz")):
        with np.load(shard) as z:  # each z[name] reads the whole array again: read it once, share it by views
            offsets, probs, lengths, keys = z["offsets"], z["probs"], z["lengths"], z["keys"]
        bounds = np.cumsum(np.concatenate([[0], lengths]))
        found.update((tuple(k), (offsets[a:b], probs[a:b]))
                     for k, a, b in zip(json.loads(str(keys)), bounds[:-1], bounds[1:]))
    return found  # type: ignore[return-value]


def label(teacher: str | Path, keys: Sequence[tuple[str, str]], folder: Path, use_question: bool,
          batch_size: int = 64) -> tuple[list[Labels], dict]:
    """The teacher's piece offsets and K-probabilities of each (question, text) in ``keys`` (the question ignored
    by a question-free teacher): read from ``folder``'s shards where labelled before (by this teacher: a pool may
    grow or shrink between runs), else computed and written there :data:`SHARD` texts at a time. Also returns what
    the metadata records (teacher, its hash, texts; texts, seconds and texts/s of those labelled in this call)."""
    from kpqa.models import shipped
    from kpqa.models.weighter import Weighter

    # a shipped name (mpnet) takes its -KP twin for a question-free student
    weighter = Weighter.load(shipped.resolve(teacher, no_question=not use_question), batch_size=batch_size,
                             function_word_weight=1.0)
    if weighter.use_question != use_question:
        raise UsageError(f"--teacher {teacher} {'reads' if weighter.use_question else 'does not read'} the question; "
                         f"the student {'does' if use_question else 'does not'}: they must agree")
    folder.mkdir(parents=True, exist_ok=True)
    manifest = folder / MANIFEST
    if manifest.exists() and json.loads(manifest.read_text())["teacher"] != weighter.checkpoint_hash:
        raise UsageError(f"{folder} holds another teacher's labels; remove it or use another --output")
    manifest.write_text(json.dumps({"teacher": weighter.checkpoint_hash, "backbone": weighter.backbone}))
    found = _read(folder)
    todo = [k for k in dict.fromkeys(keys) if k not in found]
    seconds = 0.0
    for start in range(0, len(todo), SHARD):
        chunk = todo[start:start + SHARD]
        began = time.monotonic()
        labels = weighter.piece_weights(chunk)
        seconds += time.monotonic() - began
        shard = folder / f"shard-{len(list(folder.glob('shard-*.npz'))):05d}.npz"
        tmp = folder / "partial.npz"
        np.savez(tmp, keys=np.array(json.dumps(chunk)), offsets=np.concatenate([o for o, _ in labels]),
                 probs=np.concatenate([p for _, p in labels]), lengths=np.array([len(p) for _, p in labels]))
        tmp.rename(shard)
        found.update(zip(chunk, labels))
        print(f"teacher: {start + len(chunk)}/{len(todo)} texts, {(start + len(chunk)) / seconds:.1f} texts/s",
              file=sys.stderr, flush=True)
    record: dict = {"teacher": str(teacher), "teacher_hash": weighter.checkpoint_hash,
                    "teacher_backbone": weighter.backbone, "texts": len(set(keys))}
    if todo:
        record["labelled_now"] = {"texts": len(todo), "seconds": round(seconds, 1),
                                  "texts_per_second": round(len(todo) / seconds, 2)}
    return [found[k] for k in keys], record


def floor_after_polar(text: str, offsets: np.ndarray, probs: np.ndarray, floor: float) -> np.ndarray:
    """``probs`` of the pieces (character ``offsets``) with those inside a content word after a leading "yes" /
    "no" raised to at least ``floor`` (unchanged when the text does not start with a polar word)."""
    start = _POLAR.match(text)
    if floor <= 0 or start is None:
        return probs
    function = set(function_word_spans(text))
    words = [m.span() for m in _WORD.finditer(text, start.end()) if m.span() not in function]
    if not words:
        return probs
    spans = np.asarray(words).reshape(-1, 2)
    pieces = np.asarray(offsets).reshape(-1, 2)
    inside = ((pieces[:, None, 0] < spans[None, :, 1]) & (pieces[:, None, 1] > spans[None, :, 0])).any(axis=1)
    return np.where(inside, np.maximum(probs, floor), probs).astype(np.float32)


def targets(window_offsets: np.ndarray, teacher: Labels) -> np.ndarray:
    """Soft K-targets of a student window's text pieces: the largest teacher probability over each piece's
    characters."""
    return max_overlap(window_offsets, teacher[0], teacher[1])
