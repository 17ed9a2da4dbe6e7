"""kpqa.train.skeleton: the one loop both trainers run (epochs, steps, saves, Ctrl-C, the kept epoch)."""
from __future__ import annotations

import json
from typing import Any

import pytest

from kpqa.train.skeleton import fit, grouped_split, train_steps


class _Task:
    """A task whose dev losses are given, recording what the loop asks of it."""

    def __init__(self, losses: list[float], done_epochs: int = 0) -> None:
        self.losses, self.done_epochs = losses, done_epochs
        self.calls: list[str] = []
        self.kept: list[int] = []
        self.best: float | None = None

    @property
    def best_loss(self) -> float | None:
        return self.best

    def skip(self, epoch: int) -> bool:
        self.calls.append(f"draw {epoch}")
        return epoch < self.done_epochs

    def train_epoch(self, epoch: int, interrupted: list[bool]) -> None:
        self.calls.append(f"train {epoch}")

    def evaluate(self) -> dict[str, float]:
        return {"loss": self.losses.pop(0)}

    def end_epoch(self, epoch: int, dev: dict[str, float], better: bool) -> None:
        self.calls.append(f"end {epoch}")
        if better:
            self.best = dev["loss"]
            self.kept.append(epoch)

    def finish(self) -> dict[str, Any]:
        return {"kept": self.kept}


def test_fit_keeps_each_epoch_that_lowers_the_dev_loss_and_passes_over_those_done_before_a_resume() -> None:
    task = _Task([0.5, 0.6, 0.4, 0.4])
    assert fit(lambda: task, 4) == {"kept": [0, 2]}  # 0.4 again is no better
    resumed = _Task([0.3], done_epochs=2)
    fit(lambda: resumed, 3)
    assert resumed.calls == ["draw 0", "draw 1", "draw 2", "train 2", "end 2"]  # every epoch drawn, one trained


def _steps(n: int, *, done: int = 0, save_every: int = 2, fail_at: int | None = None) -> tuple[list[int], list[int]]:
    """The batches stepped and the steps saved after, of a run over ``n`` batches (``fail_at``: the batch during
    which a second Ctrl-C comes)."""
    stepped: list[int] = []
    saved: list[int] = []

    def one_step(batch: int) -> float:
        if batch == fail_at:
            raise KeyboardInterrupt
        stepped.append(batch)
        return 0.5

    try:
        train_steps(range(done, n), one_step, done=done, length=n, desc="epoch 1", save=saved.append, where="state",
                    interrupted=[], save_every=save_every, show=False)
    except KeyboardInterrupt:
        pass
    return stepped, saved


def test_train_steps_save_every_few_steps_but_not_after_the_last(capsys: pytest.CaptureFixture[str]) -> None:
    assert _steps(7) == ([0, 1, 2, 3, 4, 5, 6], [2, 4, 6])
    assert _steps(6, done=3) == ([3, 4, 5], [4])  # resumed after step 3: counts go on from there; 6 is the last
    lines = [json.loads(line) for line in capsys.readouterr().err.splitlines()]
    assert lines[:2] == [{"step": 2, "of": 7}, {"step": 4, "of": 7}]  # no bar shown: a log line at each save


def test_ctrl_c_saves_after_the_step_under_way_and_a_second_one_saves_nothing(
        capsys: pytest.CaptureFixture[str]) -> None:
    stepped: list[int] = []
    saved: list[int] = []
    flag: list[bool] = []

    def one_step(batch: int) -> float:
        stepped.append(batch)
        if batch == 2:
            flag.append(True)
        return 0.1

    with pytest.raises(KeyboardInterrupt):
        train_steps(range(10), one_step, done=0, length=10, desc="e", save=saved.append, where="out/state",
                    interrupted=flag, save_every=100, show=False)
    assert (stepped, saved) == ([0, 1, 2], [3])  # step 2 finished, the state after it saved
    assert "saved a resumable state in out/state" in capsys.readouterr().err
    assert _steps(10, save_every=4, fail_at=6) == ([0, 1, 2, 3, 4, 5], [4])  # a second Ctrl-C, in step 6: the
    # state of step 4 stands, never one of a step half done


def test_grouped_split_keeps_each_group_on_one_side_whatever_else_the_data_holds() -> None:
    groups = [f"q{i % 40}" for i in range(400)]
    train, dev = grouped_split(groups, 0.25, seed=13)
    assert sorted(train + dev) == list(range(400))
    assert not {groups[i] for i in train} & {groups[i] for i in dev}
    assert 4 <= len({groups[i] for i in dev}) <= 18
    more, more_dev = grouped_split(groups + [f"new{i}" for i in range(50)], 0.25, seed=13)
    assert {groups[i] for i in dev} == {(groups + [""] * 50)[i] for i in more_dev if i < 400}


def test_a_process_that_does_not_speak_saves_alike_and_prints_nothing(capsys: pytest.CaptureFixture[str]) -> None:
    """All but the main one of several processes (the weighter on several GPUs): the same saves, no bar, no log
    line, no message on Ctrl-C."""
    saved: list[int] = []
    flag: list[bool] = []

    def one_step(batch: int) -> float:
        if batch == 4:
            flag.append(True)
        return 0.2

    with pytest.raises(KeyboardInterrupt):
        train_steps(range(10), one_step, done=0, length=10, desc="e", save=saved.append, where="s", interrupted=flag,
                    save_every=2, speaks=False)
    assert saved == [2, 4, 5] and capsys.readouterr().err == ""
