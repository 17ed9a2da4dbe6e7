"""Keyphrase weighter: checkpoint files, windows over long texts, (question, text) caching, word mapping."""
from __future__ import annotations

import json

import numpy as np
import pytest
import torch
from torch import nn

from kpqa import checkpoint as ckpt
from kpqa.errors import CheckpointError, UsageError
from kpqa.weighter import KeyphraseTagger, Weighter, Window, _merge, encode, load_encoder, resolve_device


@pytest.fixture(scope="module")
def minilm():
    return load_encoder("minilm")


@pytest.fixture(scope="module")
def tokenizer(minilm):
    return minilm[1]


class Stub(nn.Module):
    """K-logit +10 for text pieces whose id is in ``hot`` (or, with ``from_question``, in the window's question)."""

    def __init__(self, hot=(), from_question=False):
        super().__init__()
        self.hot, self.from_question, self.calls = set(hot), from_question, 0

    def forward(self, input_ids, attention_mask, token_type_ids=None):
        self.calls += 1
        if self.from_question:
            question = (token_type_ids == 0) & (attention_mask == 1)
            hot = torch.stack([torch.isin(ids, ids[q]) for ids, q in zip(input_ids, question)])
        else:
            hot = torch.isin(input_ids, torch.tensor(sorted(self.hot) or [-1]))
        k = torch.where(hot, 10.0, -10.0)
        return torch.stack([torch.zeros_like(k), k], dim=-1)


def stub_weighter(tokenizer, model, use_question=True, max_length=128):
    metadata = {"use_question": use_question, "backbone": {"name": "minilm"}, "max_length": max_length}
    return Weighter(model, tokenizer, metadata, "stub", torch.device("cpu"), batch_size=4)


def test_long_text_windows_cover_everything_and_keep_late_keywords(tokenizer):
    text = "the weather was mild . " * 130 + "the farmer bought a zebra . " + "the weather was mild . " * 20
    zebra = tokenizer.convert_tokens_to_ids("zebra")
    w = stub_weighter(tokenizer, Stub(hot={zebra}))
    [(offsets, probs)] = w.piece_weights([("what did the farmer buy?", text)])
    alone = tokenizer(text, add_special_tokens=False, return_offsets_mapping=True)["offset_mapping"]
    assert len(alone) > 700
    assert offsets.tolist() == [list(o) for o in alone]  # every piece once, in order: nothing cut
    at = text.index("zebra")
    hit = np.flatnonzero(offsets[:, 0] == at)
    assert hit.size == 1 and hit[0] > 600 and probs[hit[0]] > 0.99
    assert np.delete(probs, hit[0]).max() < 1e-3


def test_merge_takes_each_piece_from_its_most_central_window():
    offs = np.array([[2 * i, 2 * i + 1] for i in range(9)])
    a = Window(0, {}, np.arange(6), offs[0:6], first=True, last=False)
    b = Window(0, {}, np.arange(6), offs[3:9], first=False, last=True)
    [(offsets, probs)] = _merge([a, b], [np.full(6, 0.1), np.full(6, 0.9)], 1)
    assert offsets.tolist() == offs.tolist()
    # piece 3: 3rd from A's inner edge vs B's edge -> A; piece 5: A's edge vs 3rd in B -> B
    assert probs.tolist() == pytest.approx([0.1, 0.1, 0.1, 0.1, 0.1, 0.9, 0.9, 0.9, 0.9])


def test_encode_repeats_the_question_in_every_window(tokenizer):
    windows = encode(tokenizer, ["who?"], ["word " * 300], 64)
    assert len(windows) > 5
    q = tokenizer("who?", add_special_tokens=False)["input_ids"]
    assert all(w.inputs["input_ids"][1:1 + len(q)] == q for w in windows)
    assert all(len(w.inputs["input_ids"]) <= 64 for w in windows)
    assert [w.first for w in windows].count(True) == 1 and windows[-1].last


def test_cache_is_keyed_by_question_and_text(tokenizer):
    model = Stub(from_question=True)
    w = stub_weighter(tokenizer, model)
    text = "paris london"
    (_, p1), (_, p2) = w.piece_weights([("paris?", text), ("london?", text)])
    assert p1 == pytest.approx([1, 0], abs=1e-4) and p2 == pytest.approx([0, 1], abs=1e-4)
    calls = model.calls
    (_, again), = w.piece_weights([("london?", text)])
    assert model.calls == calls and again == pytest.approx(p2)


def test_without_question_the_question_is_ignored(tokenizer):
    paris = tokenizer.convert_tokens_to_ids("paris")
    model = Stub(hot={paris})
    w = stub_weighter(tokenizer, model, use_question=False)
    (_, p1), (_, p2) = w.piece_weights([("paris?", "paris london"), ("anything", "paris london")])
    assert model.calls == 1 and p1 == pytest.approx([1, 0], abs=1e-4) and p2 == pytest.approx(p1)


class Spans:
    """A metric tokenizer stub: whitespace tokens (and one extra span the backbone has no piece for)."""

    name = "stub"

    def spans(self, text):
        out, at = [], 0
        for tok in text.split():
            at = text.index(tok, at)
            out.append((tok, at, at + len(tok)))
            at += len(tok)
        return out


def test_word_weight_is_the_max_over_overlapping_pieces(tokenizer):
    text = "unaffable zebras"
    pieces = tokenizer.tokenize(text)
    assert len(pieces) >= 4  # both words split into several pieces
    hot = tokenizer.convert_tokens_to_ids(pieces[1])
    w = stub_weighter(tokenizer, Stub(hot={hot}))
    [weights] = w.word_weights([("q", text)], Spans())
    assert weights.dtype == np.float32
    assert weights.tolist() == pytest.approx([1.0, 0.0], abs=1e-4)
    [(offsets, probs)] = w.piece_weights([("q", "x \u200b y")])
    assert offsets.tolist() == [[0, 1], [4, 5]]  # the zero-width space has no piece ...
    spans = type("S", (), {"spans": lambda self, t: [("x", 0, 1), ("\u200b", 2, 3), ("y", 4, 5)]})()
    assert w.word_weights([("q", "x \u200b y")], spans)[0][1] == 0.0  # ... so its token weighs 0
    assert w.word_weights([("q", "")], Spans())[0].shape == (0,)


@pytest.fixture(scope="module")
def saved(minilm, tmp_path_factory):
    encoder, _ = minilm
    model = KeyphraseTagger(encoder, 2)
    torch.manual_seed(0)
    with torch.no_grad():
        for p in model.parameters():
            if p.requires_grad:
                p.add_(torch.randn_like(p) * 0.01)
    folder = tmp_path_factory.mktemp("ckpt")
    metadata = {"backbone": {"name": "minilm", "weights_sha256": None}, "use_question": True,
                "train_layers": 2, "max_length": 64, "labels": ckpt.LABELS}
    from kpqa import backbone

    metadata["backbone"] = backbone.describe("minilm")
    digest = ckpt.save(folder, model.trained_state(), metadata)
    return folder, model.trained_state(), digest


def test_checkpoint_round_trip(saved):
    folder, tensors, digest = saved
    loaded = Weighter.load(folder, device="cpu")
    assert loaded.checkpoint_hash == digest and len(digest) == 12
    state = loaded.model.trained_state()
    assert set(state) == set(tensors) and any(k.startswith("head.") for k in state)
    assert {k.split(".")[3] for k in state if k.startswith("encoder.")} == {"4", "5"}  # top 2 of 6 layers
    for k, v in tensors.items():
        assert torch.equal(state[k], v.half().float()), k
    again = Weighter.load(folder, device="cpu").model.trained_state()
    assert all(torch.equal(again[k], state[k]) for k in state)
    assert loaded.use_question and loaded.backbone == "minilm" and loaded.max_length == 64


def _copy(folder, tmp_path):
    for name in (ckpt.WEIGHTS, ckpt.METADATA):
        (tmp_path / name).write_bytes((folder / name).read_bytes())
    return tmp_path


def test_missing_file_is_a_checkpoint_error(saved, tmp_path):
    folder = _copy(saved[0], tmp_path)
    (folder / ckpt.WEIGHTS).unlink()
    with pytest.raises(CheckpointError, match="missing file weights.safetensors"):
        Weighter.load(folder, device="cpu")


def test_changed_tensors_are_a_checkpoint_error(saved, tmp_path):
    folder = _copy(saved[0], tmp_path)
    raw = bytearray((folder / ckpt.WEIGHTS).read_bytes())
    raw[-1] ^= 1
    (folder / ckpt.WEIGHTS).write_bytes(bytes(raw))
    with pytest.raises(CheckpointError, match="does not match metadata"):
        Weighter.load(folder, device="cpu")


def test_other_backbone_weights_are_a_checkpoint_error(saved, tmp_path):
    folder = _copy(saved[0], tmp_path)
    meta = json.loads((folder / ckpt.METADATA).read_text())
    meta["backbone"]["weights_sha256"] = "0" * 64
    (folder / ckpt.METADATA).write_text(json.dumps(meta))
    with pytest.raises(CheckpointError, match="differ from the 000000000000 it was trained on"):
        Weighter.load(folder, device="cpu")


def test_no_question_refuses_a_question_checkpoint(saved):
    with pytest.raises(UsageError, match="reads the question"):
        Weighter.load(saved[0], no_question=True, device="cpu")


@pytest.mark.skipif(torch.cuda.is_available(), reason="a GPU is present")
def test_cuda_without_gpu_is_a_usage_error():
    with pytest.raises(UsageError, match="no CUDA GPU"):
        resolve_device("cuda")
    assert resolve_device("auto").type == "cpu"


@pytest.mark.model
@pytest.mark.parametrize("text, key", [
    ("Four steps are involved in a hypothesis test.", "four"),
    ("There are seven steps involved in a hypothesis test .", "seven"),
])
def test_shipped_weighter_figure_1(text, key):
    """KPQA paper, Figure 1: the number is the key phrase for 'How many steps are involved in a hypothesis test?'."""
    w = Weighter.load(device="cpu")
    [(offsets, probs)] = w.piece_weights([("How many steps are involved in a hypothesis test?", text)])
    top = offsets[int(np.argmax(probs))]
    assert text[top[0]:top[1]].lower() == key


@pytest.mark.model
def test_shipped_weighter_finds_a_late_answer():
    w = Weighter.load(device="cpu")
    text = "The weather was mild that year. " * 110 + "In spring the farmer bought a zebra. " + "It rained. " * 10
    [(offsets, probs)] = w.piece_weights([("What animal did the farmer buy in spring?", text)])
    at = int(np.flatnonzero(offsets[:, 0] == text.index("zebra"))[0])
    assert at > 600 and probs[at] > 0.5 and probs[at] == probs.max()
