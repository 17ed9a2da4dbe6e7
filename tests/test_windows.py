"""Windows over long texts (kpqa.models.windows): centred windows and their owners, batches bounded in padded
tokens, the question repeated in every window, each piece merged from its most central window."""
from __future__ import annotations

import numpy as np
import pytest

from kpqa.errors import KpqaWarning
from kpqa.models.windows import Window, encode
from kpqa.models.windows import centred_windows as _windows
from kpqa.models.windows import merge as _merge


def test_windows_cover_every_token_from_its_most_central_window():
    spans, owner = _windows(23, 8)
    assert spans[0][0] == 0 and spans[-1][1] == 23 and all(e - s == 8 for s, e in spans)
    for t, w in enumerate(owner):
        s, e = spans[w]
        assert s <= t < e
        best = max(min(t - a, b - 1 - t) for a, b in spans if a <= t < b)
        assert min(t - s, e - 1 - t) == best


def test_windows_owner_equals_the_whole_comparison():
    for n, width in [(0, 4), (3, 8), (23, 8), (100, 7), (1000, 510), (5000, 2)]:
        spans, owner = _windows(n, width)
        t = np.arange(n)[:, None]
        lo, hi = np.array([s for s, _ in spans])[None, :], np.array([e for _, e in spans])[None, :]
        context = np.where((t >= lo) & (t < hi), np.minimum(t - lo, hi - 1 - t), -1)
        assert np.array_equal(owner, context.argmax(axis=1))


def test_batches_bound_the_padded_tokens_of_a_forward_pass():
    from kpqa.models.windows import batches

    lengths = [512] * 40 + [30] * 100 + [9_000]
    order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
    got = list(batches(order, lengths, 64, max_tokens=8_192))
    # the one over the budget alone, then 16 x 512 padded tokens (the last 8 long with 8 short), then 64 short
    assert [len(b) for b in got] == [1, 16, 16, 16, 64, 28]
    assert [i for b in got for i in b] == order
    assert [len(b) for b in batches(list(range(100)), [30] * 100, 64)] == [64, 36]  # short texts: batch_size rules


@pytest.mark.model
def test_a_tokenizer_that_drops_overflowing_tokens_is_refused(tokenizer):
    """tokenizers 0.23.2 returns two windows however long the text: the rest would silently weigh nothing."""
    from kpqa.errors import CheckpointError

    class FirstWindows:  # the bug: only the first ``kept`` windows come back (0.23.2: two)
        def __init__(self, kept: int):
            self.kept = kept

        def __call__(self, *args, **kwargs):
            enc = tokenizer(*args, **kwargs)
            if kwargs.get("return_overflowing_tokens"):
                for key in list(enc.keys()):
                    enc[key] = enc[key][:self.kept]
            return enc

    for kept in (2, 1):  # one full window is checked too: a text cut there has no second window to give it away
        with pytest.raises(CheckpointError, match="tokenizers .* drops overflowing tokens"):
            encode(FirstWindows(kept), ["who?"], ["word " * 300], 64)
    assert len(encode(FirstWindows(2), ["who?"], ["word " * 70], 64)) == 2  # two windows were all it needed
    assert len(encode(FirstWindows(1), ["who?"], ["word " * 59], 64)) == 1  # a window filled exactly, nothing cut


@pytest.mark.model
def test_encode_repeats_the_question_in_every_window(tokenizer):
    windows = encode(tokenizer, ["who?"], ["word " * 300], 64)
    assert len(windows) > 5
    q = tokenizer("who?", add_special_tokens=False)["input_ids"]
    assert all(w.inputs["input_ids"][1:1 + len(q)] == q for w in windows)
    assert all(len(w.inputs["input_ids"]) <= 64 for w in windows)
    assert [w.first for w in windows].count(True) == 1 and windows[-1].last


def test_merge_takes_each_piece_from_its_most_central_window():
    offs = np.array([[2 * i, 2 * i + 1] for i in range(9)])
    a = Window(0, {}, np.arange(6), offs[0:6], first=True, last=False)
    b = Window(0, {}, np.arange(6), offs[3:9], first=False, last=True)
    [(offsets, probs)] = _merge([a, b], [np.full(6, 0.1), np.full(6, 0.9)], 1)
    assert offsets.tolist() == offs.tolist()
    # piece 3: 3rd from A's inner edge vs B's edge -> A; piece 5: A's edge vs 3rd in B -> B
    assert probs.tolist() == pytest.approx([0.1, 0.1, 0.1, 0.1, 0.1, 0.9, 0.9, 0.9, 0.9])


@pytest.mark.model
def test_a_question_longer_than_half_the_window_is_cut_with_one_warning_the_cli_can_say(tokenizer):
    """One :class:`KpqaWarning` per call (the CLI prints it as one ``kpqa: warning:`` line), naming how many were cut."""
    long = " ".join(["word"] * 40)
    with pytest.warns(KpqaWarning, match=r"^2 question\(s\) longer than 16 word pieces \(up to 40\) were cut"):
        windows = encode(tokenizer, [long, long, "short?"], ["an answer"] * 3, 32)
    assert [tokenizer.decode(w.inputs["input_ids"]).count("word") for w in windows[:2]] == [16, 16]


@pytest.mark.model
def test_a_text_longer_than_the_model_takes_is_windowed_without_transformers_warning(tokenizer):
    """kpqa windows long texts, so transformers' "Token indices sequence length is longer than the specified maximum
    sequence length" (logged once per tokenizer when a whole text is tokenized to be measured) is not said; the
    text is still windowed whole."""
    import logging

    said: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda record: said.append(record.getMessage())  # type: ignore[method-assign]
    logger = logging.getLogger("transformers")
    logger.addHandler(handler)
    try:
        tokenizer.deprecation_warnings.pop("sequence-length-is-longer-than-the-specified-maximum", None)
        long = "word " * (2 * tokenizer.model_max_length)
        windows = encode(tokenizer, None, [long], 64)
        with pytest.warns(KpqaWarning, match="cut to their first"):
            windows += encode(tokenizer, [long], ["an answer"], 64)
    finally:
        logger.removeHandler(handler)
    assert not [m for m in said if "Token indices sequence length is longer" in m]
    assert len(windows) > 2 and windows[0].last is False


@pytest.mark.model
@pytest.mark.parametrize("side", ["right", "left"])
def test_pad_is_what_the_tokenizers_pad_makes(tokenizer, side):
    """The batch the weighter runs, built in numpy, equals ``tokenizer.pad``'s on both padding sides."""
    import torch

    from kpqa.models.windows import pad

    windows = encode(tokenizer, ["who wrote it?", "when?", "which one is larger, a or b?"],
                     ["william shakespeare wrote hamlet around 1600", "1989", "the pacific ocean " * 40], 48)
    old, tokenizer.padding_side = tokenizer.padding_side, side
    try:
        ours, theirs = pad(tokenizer, windows), dict(tokenizer.pad([w.inputs for w in windows], return_tensors="pt"))
    finally:
        tokenizer.padding_side = old
    assert set(ours) == set(theirs) and len({len(w.inputs["input_ids"]) for w in windows}) > 1
    assert all(torch.equal(ours[k], theirs[k]) for k in ours)
