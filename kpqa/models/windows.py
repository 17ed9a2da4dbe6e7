"""Long texts as overlapping model windows, nothing cut: the encoder's and the weighter's.

Two schemes, each tied to what its model was trained or measured with (unifying them would change scores of texts
longer than one window, so they stay as they are, side by side):

* :func:`centred_windows` (the BERTScore encoder): half-overlapping windows over the text's pieces alone, each piece
  taking its vector from the window where it has the most context on both sides;
* :func:`encode` / :func:`merge` (the weighter, training included): the tokenizer's own overflowing windows with
  the question repeated in each and a quarter-window stride; a piece takes its weight from the window where it is
  most central.
"""
from __future__ import annotations

import contextlib
import logging
import warnings
from dataclasses import dataclass
from typing import TYPE_CHECKING, Iterator, Sequence

import numpy as np

from kpqa.errors import CheckpointError, KpqaWarning

if TYPE_CHECKING:  # pragma: no cover
    import torch


#: padded tokens one forward pass takes at most (the batch size permitting): the activations of a batch of long
#: windows (e.g. 64 x 512 tokens, whose attention scores alone take 0.8 GB) stay near those of short texts
MAX_BATCH_TOKENS = 4_096


def batches(order: Sequence[int], lengths: Sequence[int], batch_size: int,
            max_tokens: int = MAX_BATCH_TOKENS) -> Iterator[list[int]]:
    """``order`` cut into consecutive batches of at most ``batch_size`` inputs whose padded size (the longest
    ``lengths`` times the count) is at most ``max_tokens``; an input longer than that goes alone."""
    batch: list[int] = []
    longest = 0
    for i in order:
        if batch and (len(batch) == batch_size or max(longest, lengths[i]) * (len(batch) + 1) > max_tokens):
            yield batch
            batch, longest = [], 0
        batch.append(i)
        longest = max(longest, lengths[i])
    if batch:
        yield batch


def centred_windows(n: int, width: int) -> tuple[list[tuple[int, int]], np.ndarray]:
    """Half-overlapping windows over ``n`` tokens and, per token, the index of the window that centres it best (the
    first on ties); one pass over the windows, so memory is linear in ``n``."""
    if n <= width:
        return [(0, n)], np.zeros(n, dtype=np.int64)
    stride = max(1, width // 2)
    starts = list(range(0, n - width, stride)) + [n - width]
    spans = [(s, s + width) for s in starts]
    best, owner = np.full(n, -1, dtype=np.int64), np.zeros(n, dtype=np.int64)
    for k, (lo, hi) in enumerate(spans):
        t = np.arange(lo, hi)
        context = np.minimum(t - lo, hi - 1 - t)
        better = context > best[lo:hi]
        best[lo:hi][better], owner[lo:hi][better] = context[better], k
    return spans, owner


@dataclass
class Window:
    """One model input covering (part of) a text: ``inputs`` for the model, the positions of the text's pieces in
    it, their character offsets in the text, and whether the window is the text's first / last."""

    sample: int
    inputs: dict[str, list[int]]
    positions: np.ndarray
    offsets: np.ndarray
    first: bool
    last: bool


def encode(tokenizer, questions: Sequence[str] | None, texts: Sequence[str], max_length: int) -> list[Window]:
    """Windows over ``texts`` (each preceded by its question unless ``questions`` is None), overlapping by a
    quarter of ``max_length``; nothing is cut. Questions longer than half the window are shortened with a warning."""
    stride = max_length // 4
    kwargs = dict(max_length=max_length, stride=stride, return_overflowing_tokens=True,
                  return_offsets_mapping=True, padding=False)
    if questions is None:
        enc = tokenizer(list(texts), truncation=True, **kwargs)
        text_seq = 0
    else:
        enc = tokenizer(_shorten(tokenizer, questions, max_length // 2), list(texts), truncation="only_second", **kwargs)
        text_seq = 1
    windows: list[Window] = []
    samples = enc["overflow_to_sample_mapping"]
    model_keys = [k for k in ("input_ids", "token_type_ids", "attention_mask") if k in enc]
    for i, sample in enumerate(samples):
        seq_ids = enc.sequence_ids(i)
        positions = np.array([p for p, s in enumerate(seq_ids) if s == text_seq], dtype=np.int64)
        offsets = np.asarray(enc["offset_mapping"][i], dtype=np.int64).reshape(-1, 2)[positions]
        windows.append(Window(
            sample=sample,
            inputs={k: enc[k][i] for k in model_keys},
            positions=positions,
            offsets=offsets,
            first=i == 0 or samples[i - 1] != sample,
            last=i == len(samples) - 1 or samples[i + 1] != sample,
        ))
    _check_whole(tokenizer, texts, windows, max_length)
    return windows


def _check_whole(tokenizer, texts: Sequence[str], windows: Sequence[Window], max_length: int) -> None:
    """CheckpointError unless every text that may have overflowed its first window ends in its last window.
    tokenizers 0.23.2 returns two windows however long the text (seen on a GPU machine, 2026-11-27): the rest would
    be scored as if it were not there. Only the texts with more than one window, or with one full window, are
    tokenized again, to find their last piece."""
    counts = np.bincount([w.sample for w in windows], minlength=len(texts))
    full = {w.sample for w in windows if w.last and len(w.inputs["input_ids"]) >= max_length}
    long = [i for i in range(len(texts)) if counts[i] > 1 or i in full]
    if not long:
        return
    with whole_texts():
        whole = tokenizer([texts[i] for i in long], add_special_tokens=False, return_offsets_mapping=True)
    ends = {w.sample: int(w.offsets[-1][1]) for w in windows if w.last and len(w.offsets)}
    for i, offsets in zip(long, whole["offset_mapping"]):
        if offsets and ends.get(i) != offsets[-1][1]:
            import tokenizers

            raise CheckpointError(f"the tokenizer cut a long text to its first {counts[i]} windows (tokenizers "
                                  f"{tokenizers.__version__} drops overflowing tokens): install another version, "
                                  "e.g. pip install 'tokenizers!=0.23.2'")


#: the start of transformers' warning on a text longer than the model takes, said when a whole text is tokenized
TOO_LONG = "Token indices sequence length is longer than the specified maximum sequence length"


@contextlib.contextmanager
def whole_texts() -> Iterator[None]:
    """Whole texts tokenized to be measured, not fed to the model (kpqa windows them): transformers' "Token indices
    sequence length is longer than ..." warning (:data:`TOO_LONG`) is held back meanwhile, any other said."""
    logger = logging.getLogger("transformers.tokenization_utils_base")
    quiet = lambda record: not record.getMessage().startswith(TOO_LONG)  # noqa: E731
    logger.addFilter(quiet)
    try:
        yield
    finally:
        logger.removeFilter(quiet)


def _shorten(tokenizer, questions: Sequence[str], limit: int) -> list[str]:
    """Each question cut to its first ``limit`` word pieces (a file repeats its questions across answers: each
    distinct one is tokenized once)."""
    distinct = list(dict.fromkeys(questions))
    with whole_texts():
        enc = tokenizer(distinct, add_special_tokens=False, return_offsets_mapping=True)
    offsets = dict(zip(distinct, enc["offset_mapping"]))
    long = [len(offsets[q]) for q in questions if len(offsets[q]) > limit]
    out = [q[: offsets[q][limit - 1][1]] if len(offsets[q]) > limit else q for q in questions]
    if long:  # one warning per call, not one per question: a file repeats its questions across answers
        warnings.warn(KpqaWarning(f"{len(long)} question(s) longer than {limit} word pieces (up to {max(long)}) were "
                                  f"cut to their first {limit}"), stacklevel=3)
    return out


def padded(sequences: Sequence[Sequence[int]], fill: int, left: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(values int64 [n, longest], filled bool [n, longest]): the sequences one a row, padded with ``fill`` on the
    right (``left``: on the left); built in numpy, no Python loop over the rows' cells."""
    sizes = np.array([len(x) for x in sequences])
    filled = np.arange(sizes.max()) < sizes[:, None]
    if left:
        filled = filled[:, ::-1]
    values = np.full(filled.shape, fill, dtype=np.int64)
    values[filled] = np.fromiter((v for x in sequences for v in x), dtype=np.int64, count=int(sizes.sum()))
    return values, filled


def pad(tokenizer, windows: Sequence[Window]) -> dict[str, torch.Tensor]:
    """A padded batch of window inputs (dynamic padding to the longest), as ``tokenizer.pad`` makes it: the ids
    padded with the pad token, the token types with the pad token type, the attention mask with 0, on the
    tokenizer's padding side (:func:`padded`: ``tokenizer.pad`` walks every row in Python)."""
    import torch

    fill = {"input_ids": tokenizer.pad_token_id, "token_type_ids": tokenizer.pad_token_type_id, "attention_mask": 0}
    left = tokenizer.padding_side == "left"
    return {key: torch.from_numpy(padded([w.inputs[key] for w in windows], fill[key], left)[0])
            for key in windows[0].inputs}


def merge(windows: Sequence[Window], probs: Sequence[np.ndarray], n: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per text, its pieces in order, each with the probability from the window where it is most central."""
    best: list[dict[tuple[int, int], tuple[int, float]]] = [{} for _ in range(n)]
    for w, p in zip(windows, probs):
        m = len(w.offsets)
        j = np.arange(m)
        left = np.where(w.first, m, j)
        right = np.where(w.last, m, m - 1 - j)
        centrality = np.minimum(left, right)
        chosen = best[w.sample]
        for (s, e), c, prob in zip(w.offsets.tolist(), centrality.tolist(), p.tolist()):
            if (s, e) not in chosen or c > chosen[(s, e)][0]:
                chosen[(s, e)] = (c, prob)
    out = []
    for chosen in best:
        spans = sorted(chosen)
        out.append((np.array(spans, dtype=np.int64).reshape(-1, 2),
                    np.array([chosen[s][1] for s in spans], dtype=np.float32)))
    return out
