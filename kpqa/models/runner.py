"""What the weighter and the answer-equivalence model share as batched inference: the model on its device in eval
mode, its tokenizer and checkpoint hash, batch size and arithmetic, and a cache of results by input, kept in
least-recently-used order and bounded by :data:`CACHE_SIZE` entries."""
from __future__ import annotations

from collections import OrderedDict
from typing import Any, Callable, Generic, Hashable, Sequence, TypeVar

import torch

from kpqa.context import DEFAULT_BATCH_SIZE, DEFAULT_PRECISION
from kpqa.models.device import amp_dtype, precision_name

#: results kept per model (the least recently used go first)
CACHE_SIZE = 100_000

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class CachedRunner(Generic[K, V]):
    """A model run in batches on ``device`` at ``precision``, its results cached by input key."""

    def __init__(self, model: torch.nn.Module, tokenizer: Any, checkpoint_hash: str, device: torch.device,
                 batch_size: int = DEFAULT_BATCH_SIZE, precision: str = DEFAULT_PRECISION) -> None:
        self.model = model.to(device).eval()
        self.tokenizer = tokenizer
        self.checkpoint_hash = checkpoint_hash
        self.device = device
        self.batch_size = batch_size
        self.dtype = amp_dtype(str(device), precision)
        self._cache: OrderedDict[K, V] = OrderedDict()

    @property
    def precision(self) -> str:
        """The arithmetic it runs in: ``fp32``, ``bf16`` or ``fp16``."""
        return precision_name(self.dtype)

    def clear_cache(self) -> None:
        """Forget the results kept from earlier calls."""
        self._cache.clear()

    def _cached(self, keys: Sequence[K], compute: Callable[[list[K]], Sequence[V]]) -> list[V]:
        """The result of each key, in order: ``compute`` gets the distinct keys not kept yet (once each); the
        cache then drops its least recently used results beyond :data:`CACHE_SIZE`."""
        todo = list(dict.fromkeys(k for k in keys if k not in self._cache))
        if todo:
            self._cache.update(zip(todo, compute(todo)))
        out = []
        for key in keys:
            self._cache.move_to_end(key)
            out.append(self._cache[key])
        while len(self._cache) > CACHE_SIZE:
            self._cache.popitem(last=False)
        return out
