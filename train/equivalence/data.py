"""The labelled answers a run trains on: read through :mod:`kpqa.input`, capped per kind, sampled."""
from __future__ import annotations

import math
import random
from collections import defaultdict
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Sequence

from kpqa.columns import binary_labels
from kpqa.errors import InputError
from kpqa.input import read_input

from .config import EquivalenceConfig


@dataclass
class Example:
    """One labelled answer: its question, references, candidate, 0/1 label, kind, group (what the dev split
    keeps together) and where it came from (file, 1-based data row)."""

    question: str
    references: list[str]
    candidate: str
    label: int
    kind: str = ""
    group: str = ""
    source: str = ""
    row: int = 0


def read_examples(path: str | Path) -> list[Example]:
    """The labelled rows of a file in any input format (:mod:`kpqa.input`: CSV, TSV, JSON lines, JSON, Parquet) and
    layout (``reference1..N`` or ``references``, with any documented column: ``reference1_label``, ``entities``..),
    read as scoring reads them; a ``question`` and a ``scores`` column (0/1) are needed. A row without an answer is
    left out. One InputError naming the file, row and column for a cell that is not what it should be."""
    table = read_input(path, max_chars=None)
    for column in ("question", "scores"):
        if column not in table.frame.columns:
            raise InputError(f"no {column!r} column", file=table.source)
    frame, rows = table.frame, table.rows
    labels = binary_labels(frame["scores"], source=table.source, column="scores", numbers=table.numbers,
                           threshold_hint=False)
    kinds = frame["kind"].tolist() if "kind" in frame.columns else [None] * len(frame)
    groups = frame["article"].tolist() if "article" in frame.columns else [None] * len(frame)
    questions = frame["question"].tolist()
    empty = set(table.empty)
    out = []
    for k, i in enumerate(range(len(frame)) if table.kept_rows is None else table.kept_rows):
        if i in empty:
            continue
        group = questions[i] if _blank(groups[i]) else groups[i]
        out.append(Example(rows.questions[k], list(rows.references[k]), rows.candidates[k], int(labels[i]),
                           "" if _blank(kinds[i]) else str(kinds[i]), f"{path}:{group}", str(path),
                           table.numbers[i]))
    return out


def _blank(value: Any) -> bool:
    return value is None or (isinstance(value, float) and math.isnan(value)) or not str(value).strip()


def cap_kinds(examples: Sequence[Example], cap: int, seed: int) -> list[Example]:
    """At most ``cap`` examples of each kind (a seeded sample; the input order kept), so that no kind dominates."""
    by_kind: dict[str, list[int]] = defaultdict(list)
    for i, e in enumerate(examples):
        by_kind[e.kind].append(i)
    rng = random.Random(seed)
    keep = {i for idx in by_kind.values() for i in (rng.sample(idx, cap) if len(idx) > cap else idx)}
    return [e for i, e in enumerate(examples) if i in keep]


def _capped(examples: list[Example], cap: int | None, seed: int) -> list[Example]:
    return examples if cap is None else cap_kinds(examples, cap, seed)


def load_examples(config: EquivalenceConfig) -> list[Example]:
    """The rows a run trains on: every file's, capped per kind and sampled as ``config`` says."""
    if config.mix is not None:  # per source: its own cap; the question is the group across files
        caps = config.mix_caps or [None] * len(config.data)
        examples = [e for path, cap in zip(config.data, caps) for e in _capped(
            [replace(e, group=e.question) for e in read_examples(path)], cap, config.seed)]
    else:
        examples = [e for path in config.data for e in read_examples(path)]
    if config.max_per_kind is not None:
        examples = cap_kinds(examples, config.max_per_kind, config.seed)
    if config.max_rows is not None:
        examples = random.Random(config.seed).sample(examples, min(config.max_rows, len(examples)))
    if len(examples) < 2 or len({e.label for e in examples}) < 2:
        raise InputError("training the answer-equivalence model needs labelled rows of both classes",
                         file=", ".join(config.data))
    return examples
