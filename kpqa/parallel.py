"""Data-parallel scoring: the processes scoring together, each taking an equal contiguous shard of every batch of
rows; per-row scores gathered back in process (= input) order and the metrics' statistics (and a corpus pass's)
summed: every process reduces the same states."""
from __future__ import annotations

import atexit
import os

import numpy as np

from typing import Hashable

from kpqa.rows import Rows, take_rows
from kpqa.metrics.base import DocFreq, Totals


class DataParallel:
    """The processes scoring together: one, or under a launcher that sets ``WORLD_SIZE`` (data-parallel), each
    scoring an equal contiguous shard of every batch of rows; per-row scores are gathered back in process (= input)
    order and the statistics summed."""

    def __init__(self, rank: int = 0, world: int = 1, device: str | None = None) -> None:
        self.rank, self.world = rank, world
        self.device = device  # the process's own device (data-parallel), else None

    @classmethod
    def start(cls, enabled: bool, device: str) -> "DataParallel":
        """The processes of this run: this one alone unless ``enabled`` under a launcher."""
        if not (enabled and int(os.environ.get("WORLD_SIZE", "1")) > 1):
            return cls()
        from kpqa.models.device import cuda_available
        from kpqa.optional import require

        PartialState = require("accelerate", "data-parallel scoring").PartialState

        # gloo between CPU processes (accelerate picks the CPU backend only when told)
        state = PartialState(cpu=device == "cpu" or not cuda_available())
        # tear gloo down before the interpreter exits: left to process exit it can abort a rank
        # ("terminate called without an active exception") after all the work is done
        atexit.register(state.destroy_process_group)
        return cls(state.process_index, state.num_processes, str(state.device))

    @property
    def is_main(self) -> bool:
        return self.rank == 0

    def shard(self, rows: Rows) -> Rows:
        """This process's contiguous share of ``rows``."""
        bounds = [len(rows) * k // self.world for k in range(self.world + 1)]
        return take_rows(rows, bounds[self.rank], bounds[self.rank + 1])

    def gather(self, local: dict[str, np.ndarray],
               totals: dict[int, Totals]) -> tuple[dict[str, np.ndarray], dict[int, Totals]]:
        """Every process's per-row scores, concatenated in process order, and their statistics summed."""
        from accelerate.utils import gather_object

        shards = gather_object([(local, totals)])  # one pair per process, in process order
        summed = {i: sum((t[i] for _, t in shards), Totals()) for i in totals}
        return {c: np.concatenate([s[c] for s, _ in shards]) for c in local}, summed

    def reduce(self, found: dict[Hashable, DocFreq]) -> dict[Hashable, DocFreq]:
        """A corpus pass's statistics summed over the processes (each passed over its shards)."""
        if self.world == 1:
            return found
        from accelerate.utils import gather_object

        shards = gather_object([found])  # one per process
        return {key: sum((s[key] for s in shards), DocFreq()) for key in found}
