"""What the weighter and the answer-equivalence model share as batched inference: the model on its device in eval
mode, its tokenizer and checkpoint hash, batch size and arithmetic, and a cache of results by input, kept in
least-recently-used order and bounded by :data:`CACHE_SIZE` entries (:class:`LRU`, which the encoder's cache of
embeddings is too, bounded in tokens)."""
from __future__ import annotations

from collections import OrderedDict
from typing import Any, Callable, Generic, Hashable, Iterator, Sequence, TypeVar

import torch

from kpqa.context import DEFAULT_BATCH_SIZE, DEFAULT_PRECISION
from kpqa.models.device import amp_dtype, precision_name

#: results kept per model (the least recently used go first)
CACHE_SIZE = 100_000

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class LRU(Generic[K, V]):
    """A cache of results by key, bounded: ``limit`` in units of ``size(result)`` (one per result unless told), the
    least recently used results going first."""

    def __init__(self, limit: int, size: Callable[[V], int] = lambda _: 1) -> None:
        self.limit, self.size, self.used = limit, size, 0
        self._items: OrderedDict[K, V] = OrderedDict()

    def get(self, keys: Sequence[K], compute: Callable[[list[K]], Sequence[V]]) -> list[V]:
        """The result of each key, in order: ``compute`` gets the distinct keys not kept yet (once each); the
        least recently used results beyond ``limit`` then go."""
        todo = list(dict.fromkeys(k for k in keys if k not in self._items))
        for key, value in zip(todo, compute(todo) if todo else ()):
            self._items[key] = value
            self.used += self.size(value)
        out = []
        for key in keys:
            self._items.move_to_end(key)
            out.append(self._items[key])
        while self.used > self.limit and self._items:
            self.used -= self.size(self._items.popitem(last=False)[1])
        return out

    def clear(self) -> None:
        self._items.clear()
        self.used = 0

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[K]:
        return iter(self._items)


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
        self._cache: LRU[K, V] = LRU(CACHE_SIZE)

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
        return self._cache.get(keys, compute)
