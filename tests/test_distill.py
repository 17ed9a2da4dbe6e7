"""Distillation (``kpqa train --teacher``): the soft-target loss, the polar floor, the teacher's label cache, and a
student that learns its teacher's weights."""
from __future__ import annotations

import json
import re
from dataclasses import replace

import numpy as np
import pytest
import torch

from kpqa.errors import UsageError
from kpqa.models import checkpoint as ckpt
from kpqa.models.weighter import Weighter
from kpqa.train import distill
from kpqa.train.trainer import IGNORE, Loss, TrainConfig, _loss_and_counts, train

from test_trainer import small_config, squad_file


def _logits_and_labels(seed: int = 0) -> tuple[torch.Tensor, torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    logits = torch.randn(2, 5, 2, generator=g)
    labels = torch.tensor([[IGNORE, 1, 0, 0, IGNORE], [IGNORE, 0, 1, IGNORE, IGNORE]])
    return logits, labels


@pytest.mark.parametrize("temperature", [1.0, 2.0])
def test_soft_loss_is_zero_when_the_student_already_gives_the_teacher_probabilities(temperature):
    logits, labels = _logits_and_labels()
    own = torch.softmax(logits / temperature, -1)[..., 1]
    # the targets are the teacher's probabilities at temperature 1: undo the softening the loss applies
    teacher = torch.sigmoid(torch.logit(own) * temperature)
    loss, counts = _loss_and_counts(logits, labels, teacher, Loss(0.0, temperature))
    assert loss.item() == pytest.approx(0.0, abs=1e-5)
    assert counts[1].item() == 5  # only labelled pieces count
    other, _ = _loss_and_counts(logits, labels, 1 - teacher, Loss(0.0, temperature))
    assert other.item() > 0.01


def test_hard_weight_mixes_the_two_losses():
    logits, labels = _logits_and_labels(1)
    soft = torch.full(labels.shape, 0.3)
    hard, _ = _loss_and_counts(logits, labels)
    only_soft, _ = _loss_and_counts(logits, labels, soft, Loss(0.0))
    assert _loss_and_counts(logits, labels, soft, Loss(1.0))[0].item() == pytest.approx(hard.item())
    mixed, _ = _loss_and_counts(logits, labels, soft, Loss(0.25))
    assert mixed.item() == pytest.approx(0.25 * hard.item() + 0.75 * only_soft.item(), rel=1e-5)


def test_loss_settings_are_checked():
    with pytest.raises(UsageError, match="--hard-weight"):
        Loss(1.5)
    with pytest.raises(UsageError, match="--temperature"):
        Loss(0.0, 0.0)


def _word_offsets(text: str) -> np.ndarray:
    return np.array([m.span() for m in re.finditer(r"\w+", text)], dtype=np.int64)


def test_polar_floor_raises_the_content_words_after_a_leading_yes_or_no():
    text = "No, she leaves it closed"
    offsets = _word_offsets(text)
    probs = np.array([1.0, 0.01, 0.0, 0.02, 0.5], dtype=np.float32)
    floored = distill.floor_after_polar(text, offsets, probs, 0.3)
    # "No" keeps 1.0, the function words "she" and "it" keep theirs, "leaves" rises to 0.3, "closed" keeps 0.5
    assert floored.tolist() == pytest.approx([1.0, 0.01, 0.3, 0.02, 0.5])
    assert distill.floor_after_polar(text, offsets, probs, 0.0) is probs
    tail = probs[1:]
    plain = "She leaves it closed"
    assert distill.floor_after_polar(plain, _word_offsets(plain), tail, 0.3) is tail
    nobody = "Nobody leaves it closed"  # "no" must be a whole word
    assert distill.floor_after_polar(nobody, _word_offsets(nobody), tail, 0.3) is tail


def test_targets_take_the_largest_overlapping_teacher_piece():
    teacher = (np.array([[0, 3], [3, 8], [9, 12]]), np.array([0.2, 0.9, 0.4], dtype=np.float32))
    student = np.array([[0, 8], [9, 10], [10, 12], [13, 14]])
    assert distill.targets(student, teacher).tolist() == pytest.approx([0.9, 0.4, 0.4, 0.0])


def test_reading_the_label_cache_keeps_each_shard_once(tmp_path):
    """A shard's arrays are read once and shared by views: reading a key at a time held a whole copy per text
    (21 GB for a 113-shard cache, killed by the OOM killer)."""
    import tracemalloc

    texts, pieces = 200, 100
    keys = [["q", f"text {i}"] for i in range(texts)]
    probs = np.random.default_rng(0).random(texts * pieces).astype(np.float32)
    offsets = np.arange(texts * pieces * 2, dtype=np.int64).reshape(-1, 2)
    np.savez(tmp_path / "shard-00000.npz", keys=np.array(json.dumps(keys)), offsets=offsets, probs=probs,
             lengths=np.full(texts, pieces))
    tracemalloc.start()
    found = distill._read(tmp_path)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert len(found) == texts
    assert found[("q", "text 3")][1].tolist() == probs[300:400].tolist()
    assert found[("q", "text 3")][0].tolist() == offsets[300:400].tolist()
    assert peak < 4 * (offsets.nbytes + probs.nbytes)


@pytest.mark.model
def test_distillation_options_need_a_teacher(tmp_path):
    config = TrainConfig(data=["squad:x"], output=str(tmp_path / "o"), hard_weight=0.5)
    with pytest.raises(UsageError, match="give --teacher"):
        train(config)


def _k_probs(folder, questions_texts):
    w = Weighter.load(folder, device="cpu", function_word_weight=1.0)
    return np.concatenate([p for _, p in w.piece_weights(questions_texts)])


@pytest.mark.model
def test_a_student_learns_its_teachers_weights_and_the_labels_are_cached(tmp_path, capsys):
    spec = squad_file(tmp_path / "s.json")
    teacher = tmp_path / "teacher"
    train(small_config(spec, teacher))
    student = replace(small_config(spec, tmp_path / "student", lora_rank=0, teacher=str(teacher)), epochs=3, lr=5e-4)
    meta = train(student)
    cache = tmp_path / "student" / distill.FOLDER
    assert json.loads((cache / distill.MANIFEST).read_text())["teacher"] == ckpt.load(teacher)[2]
    assert meta["distillation"]["texts"] == 12 and meta["distillation"]["labelled_now"]["texts"] == 12
    assert meta["distillation"]["teacher_backbone"] == "minilm" and meta["distillation"]["hard_weight"] == 0.0

    pairs = [("Who is the mayor of the town?", "The mayor of the town is hugo."),
             ("Who is the mayor of the town?", "Everyone came to see the mayor, anna.")]
    taught = _k_probs(teacher, pairs)
    learned = _k_probs(tmp_path / "student", pairs)
    # a student trained on hard labels only, with the same seed and steps, lands further from the teacher
    hard = replace(student, output=str(tmp_path / "hard"), teacher=None)
    train(hard)
    assert np.abs(learned - taught).mean() < np.abs(_k_probs(tmp_path / "hard", pairs) - taught).mean()

    # a second run with the same pool labels nothing again; a teacher that reads the question cannot teach -KP
    labels, record = distill.label(teacher, [("Who is the mayor of the town?", "hugo")], cache, True)
    assert "labelled_now" in record and len(list(cache.glob("shard-*.npz"))) == 2
    again, record = distill.label(teacher, [("Who is the mayor of the town?", "hugo")], cache, True)
    assert "labelled_now" not in record and np.array_equal(again[0][1], labels[0][1])
    with pytest.raises(UsageError, match="reads the question"):
        distill.label(teacher, [("", "hugo")], cache, False)
