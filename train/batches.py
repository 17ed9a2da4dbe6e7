"""Length-grouped batches, the one sampler both trainers use: rows shuffled, cut into blocks of ``group`` batches,
each block sorted by length and cut into batches (so that a batch holds rows of similar length: less padding),
the batches shuffled; without a generator, every row sorted by length (for evaluation). Torch-free."""
from __future__ import annotations

import math
import random
from typing import Callable, Sequence

#: batches a block holds: the rows sorted by length within it
GROUP = 50


def length_grouped(indices: Sequence[int], length: Callable[[int], int], batch_size: int,
                   rng: random.Random | None = None, group: int = GROUP) -> list[list[int]]:
    """Batches of the rows ``indices`` (each row's ``length(i)``), as the module says; ``rng``: the generator the
    order is drawn from (None: sorted by length, not shuffled)."""
    order = list(indices)
    if rng is None:
        order.sort(key=length)
        return [order[k:k + batch_size] for k in range(0, len(order), batch_size)]
    rng.shuffle(order)
    size = group * batch_size
    batches = []
    for start in range(0, len(order), size):
        block = sorted(order[start:start + size], key=length)
        batches += [block[k:k + batch_size] for k in range(0, len(block), batch_size)]
    rng.shuffle(batches)
    return batches


def count(rows: int, batch_size: int, group: int = GROUP) -> int:
    """How many batches :func:`length_grouped` makes of ``rows`` rows (a block's last batch may be short)."""
    size = group * batch_size
    return sum(math.ceil(min(size, rows - s) / batch_size) for s in range(0, rows, size))
