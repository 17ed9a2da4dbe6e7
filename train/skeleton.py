"""What both trainers share, around their own steps (the weighter's: train/trainer.py; the answer-equivalence
model's: train/equivalence/training.py): the dev split by groups, Ctrl-C deferred to the end of a step, the best
epoch by dev loss, the machine a run trained on, and the line a run logs at each save when nobody watches a bar.
Their optimiser, schedule and step are train/loop.py's; their length-grouped batches train/batches.py's."""
from __future__ import annotations

import hashlib
import json
import os
import platform
import signal
import sys
import threading
from contextlib import contextmanager
from typing import Any, Iterator, Sequence


def grouped_split(groups: Sequence[str], share: float, seed: int) -> tuple[list[int], list[int]]:
    """(train, dev) indices of items in ``groups`` (one group name per item): a group is in dev when a seeded hash
    of it falls under ``share``, so every item of a group (the answers of one question, the sentences of one
    passage) is on one side, whatever else the data holds."""
    def in_dev(group: str) -> bool:
        digest = hashlib.sha256(f"{seed}|dev|{group}".encode()).digest()
        return int.from_bytes(digest[:8], "big") / 2**64 < share

    chosen = {g: in_dev(g) for g in dict.fromkeys(groups)}
    return [i for i, g in enumerate(groups) if not chosen[g]], [i for i, g in enumerate(groups) if chosen[g]]


def is_better(loss: float, best: float | None) -> bool:
    """Whether an epoch's dev ``loss`` beats the ``best`` so far (None: none yet): the epoch a run keeps."""
    return best is None or loss < best


@contextmanager
def deferred_interrupt() -> Iterator[list[bool]]:
    """The first Ctrl-C (SIGINT) sets a flag, which the loop checks after each step, instead of raising at once; a
    second one interrupts as usual. Yields the flag (a list: true once it holds an item); the handler is put back
    on leaving. Off the main thread (where no handler can be set) the flag stays empty."""
    interrupted: list[bool] = []
    if threading.current_thread() is not threading.main_thread():
        yield interrupted
        return
    previous = signal.getsignal(signal.SIGINT)

    def handler(signum: int, frame: Any) -> None:
        interrupted.append(True)
        signal.signal(signal.SIGINT, previous)

    signal.signal(signal.SIGINT, handler)
    try:
        yield interrupted
    finally:
        signal.signal(signal.SIGINT, previous)


def machine(device: Any, processes: int = 1) -> dict[str, Any]:
    """What a run trained on, for its checkpoint's metadata: platform, processor, cores, device, processes, torch's
    threads and the Python and torch versions."""
    import torch

    return {
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "device": torch.cuda.get_device_name(device) if getattr(device, "type", str(device)) == "cuda" else "cpu",
        "processes": processes,
        "torch_threads": torch.get_num_threads(),
        "python": platform.python_version(),
        "torch": torch.__version__,
    }


def log_line(record: dict[str, Any]) -> None:
    """One JSON line on stderr: a run's progress where no bar is shown (a log, not a terminal)."""
    print(json.dumps(record), file=sys.stderr)
