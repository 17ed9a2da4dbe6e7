"""Mixed sources (``--mix``): batches drawn from each file in proportion to its weight; at most K references an
example in training (``--max-references``), led by the first or the closest to the answer (``--keep-reference``)."""
from __future__ import annotations

import math
import random
from dataclasses import replace
from typing import Any, Callable, Sequence

import numpy as np

from kpqa.metrics.squad import token_f1

from .config import EquivalenceConfig
from .data import Example


class MixedSampler:
    """Batches drawn from several sources in proportion to their weights: each slot goes to the source with the
    most credit (every source gains its weight per slot, the chosen one pays the total: a smooth weighted
    round-robin, so each source's count stays within one of its share); each source a cyclic stream of its rows,
    shuffled anew at each pass by its own seeded generator."""

    def __init__(self, sources: Sequence[Sequence[int]], weights: Sequence[float], seed: int) -> None:
        if len(sources) != len(weights) or not sources or any(not s for s in sources) or min(weights) <= 0:
            raise ValueError("every source needs rows and a positive weight")
        self.sources, self.weights = [list(s) for s in sources], [float(w) for w in weights]
        self.rngs = [random.Random(f"{seed}|mix|{k}") for k in range(len(sources))]
        self.orders: list[list[int]] = [[] for _ in sources]
        self.credit = [0.0] * len(sources)

    def _next(self, k: int) -> int:
        if not self.orders[k]:
            order = self.sources[k][:]
            self.rngs[k].shuffle(order)
            self.orders[k] = order[::-1]
        return self.orders[k].pop()

    def batch(self, size: int) -> list[int]:
        """The next ``size`` rows."""
        total, out = sum(self.weights), []
        for _ in range(size):
            self.credit = [c + w for c, w in zip(self.credit, self.weights)]
            k = max(range(len(self.credit)), key=lambda i: (self.credit[i], -i))
            self.credit[k] -= total
            out.append(self._next(k))
        return out


def mixed_plan(examples: Sequence[Example], train_idx: Sequence[int], config: EquivalenceConfig
                ) -> tuple[int, Callable[[], list[list[int]]], float, dict[str, Any]]:
    """Steps per epoch, the epoch's batches, the mix's positive share and the metadata's ``mix`` record."""
    assert config.mix is not None
    by_source = [[i for i in train_idx if examples[i].source == path] for path in config.data]
    live = [k for k, rows in enumerate(by_source) if rows and config.mix[k] > 0]
    weights = [config.mix[k] for k in live]
    sampler = MixedSampler([by_source[k] for k in live], weights, config.seed)
    steps = config.steps_per_epoch or math.ceil(len(train_idx) / config.batch_size)
    positive = sum(w * float(np.mean([examples[i].label for i in by_source[k]])) for k, w in zip(live, weights))
    caps = config.mix_caps or [None] * len(config.data)
    record = {"mix": {"steps_per_epoch": steps, "sources": [
        {"path": path, "weight": config.mix[k], "cap_per_kind": caps[k], "train_rows": len(by_source[k])}
        for k, path in enumerate(config.data)]}}
    return (steps, lambda: [sampler.batch(config.batch_size) for _ in range(steps)], positive / sum(weights),
            record)


def some_references(example: Example, k: int, rng: random.Random, keep: str = "first") -> Example:
    """``example`` with at most ``k`` references: a lead reference and a seeded sample of the others (their order
    kept). The lead is the first (``keep="first"``) or the one closest to the candidate by SQuAD token F1, the
    earliest on a tie (``"closest"``): a right answer that matches one alias is then trained against that alias."""
    refs = example.references
    if len(refs) <= k:
        return example
    lead = 0 if keep == "first" else max(range(len(refs)), key=lambda i: (token_f1(example.candidate, [refs[i]]), -i))
    others = [i for i in range(len(refs)) if i != lead]
    keep_idx = sorted(others[j] for j in rng.sample(range(len(others)), k - 1))
    return replace(example, references=[refs[lead], *(refs[i] for i in keep_idx)])
