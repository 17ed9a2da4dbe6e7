"""The loop both trainers run (the weighter's task: train/trainer.py; the answer-equivalence model's:
train/equivalence/training.py): the epochs (:func:`fit`: those done before a resume passed over, train, evaluate,
the best epoch by dev loss kept, a resumable state saved), an epoch's steps (:func:`train_steps`: a bar, a state
every ``save_every`` steps, Ctrl-C deferred to the end of a step, a log line at each save when nobody watches a
bar), the dev split by groups and the machine a run trained on. A task brings its data, model, evaluation and
checkpoint; its optimiser, schedule and step are train/loop.py's, its length-grouped batches train/batches.py's."""
from __future__ import annotations

import hashlib
import json
import os
import platform
import signal
import sys
import threading
from contextlib import contextmanager
from typing import Any, Callable, Iterable, Iterator, Protocol, Sequence


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


class Task(Protocol):
    """One trainer's side of :func:`fit`."""

    @property
    def best_loss(self) -> float | None:
        """The kept epoch's dev loss (None: none kept yet)."""

    def skip(self, epoch: int) -> bool:
        """Whether ``epoch`` was trained before a resume (what the epoch draws is drawn all the same)."""

    def train_epoch(self, epoch: int, interrupted: list[bool]) -> None:
        """The epoch's steps (:func:`train_steps`), from where a resumed run stopped."""

    def evaluate(self) -> dict[str, float]:
        """The dev metrics now, ``loss`` among them."""

    def end_epoch(self, epoch: int, dev: dict[str, float], better: bool) -> None:
        """Record the epoch, keep it when ``better``, save a resumable state at its end."""

    def finish(self) -> dict[str, Any]:
        """Write the finished checkpoint (the kept epoch); its metadata."""


def fit(start: Callable[[], Task], epochs: int) -> dict[str, Any]:
    """Make the task (``start()``: its setup, or its resume), run it for ``epochs`` epochs and finish it: the
    trainers' one loop. The first Ctrl-C, from the setup on, lets the step under way finish, saves a resumable
    state and raises KeyboardInterrupt (:func:`deferred_interrupt`)."""
    with deferred_interrupt() as interrupted:
        task = start()
        for epoch in range(epochs):
            if task.skip(epoch):
                continue
            task.train_epoch(epoch, interrupted)
            dev = task.evaluate()
            task.end_epoch(epoch, dev, is_better(dev["loss"], task.best_loss))
        return task.finish()


def train_steps(batches: Iterable[Any], one_step: Callable[[Any], float], *, done: int, length: int, desc: str,
                save: Callable[[int], None], where: Any, interrupted: list[bool], save_every: int,
                status: Callable[[], dict[str, Any]] = dict, show: bool | None = None, speaks: bool = True) -> None:
    """An epoch's steps: ``one_step(batch)`` (its loss) for each of ``batches`` (those after the ``done`` first of
    ``length``), under a bar (``show``: None shows it on a terminal). ``save(k)`` writes a resumable state after
    step k: every ``save_every`` steps before the last (with a log line of ``status()`` when no bar is shown), and
    after the step under way when ``interrupted`` fills (Ctrl-C), which then raises KeyboardInterrupt. A second
    Ctrl-C stops at once: the run resumes from the last state saved, never from a step half done. A process that
    does not ``speaks`` (all but the main one of several) shows no bar and prints nothing."""
    from tqdm.auto import tqdm

    bar = tqdm(total=length, initial=done, desc=desc, mininterval=30, file=sys.stderr, dynamic_ncols=True,
               disable=True if not speaks else show if show is None else not show)
    k = done
    for batch in batches:
        loss = one_step(batch)
        k += 1
        bar.update(1)
        bar.set_postfix(loss=f"{loss:.4f}", refresh=False)
        if interrupted:
            save(k)
            if speaks:
                print(f"\ninterrupted: saved a resumable state in {where}; re-run the same command to resume",
                      file=sys.stderr)
            raise KeyboardInterrupt
        if k % save_every == 0 and k < length:
            save(k)
            if bar.disable and speaks:  # a log, not a terminal: one line of progress at each save
                log_line({"step": k, "of": length, **status()})
    bar.close()
