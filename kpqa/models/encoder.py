"""Contextual token embeddings from a local transformers encoder, for BERTScore and BERTScore-KPQA.

:class:`Encoder` loads a backbone resolved by :func:`kpqa.models.backbone.resolve` and returns, for each text, the
L2-normalised hidden states of one layer (or several, from one forward pass) for the text's own tokens, without the
special tokens ([CLS]/[SEP], <s>/</s>), with each token's vocabulary id and character offsets in the text.

Texts are deduplicated and encoded in length-sorted batches with dynamic padding under ``torch.inference_mode``; the
embeddings of recent texts are kept (least recently used first out, up to :data:`CACHE_TOKENS` tokens), so a
reference that recurs in a later batch (one per system judged) is not encoded again
(``precision``: fp32 by default on every device; bf16 / fp16 autocast when asked). Texts longer than the
model limit are encoded in half-overlapping windows, each token taking its vector from the window where it has the
most context on both sides; nothing is cut.
The layer count is read from the model config, so local folders need no hand-set table.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Sequence

import numpy as np

from kpqa.context import DEFAULT_BATCH_SIZE
from kpqa.errors import CheckpointError, UsageError
from kpqa.models.backbone import DEFAULT_BACKBONE, resolve
from kpqa.models.device import amp_dtype, pick_device
from kpqa.models.loader import load_pretrained
from kpqa.models.runner import LRU
from kpqa.models.windows import batches, centred_windows, padded

if TYPE_CHECKING:  # pragma: no cover
    import torch

#: Default BERTScore layer per backbone alias, chosen by ``experiments/bertscore_layers.py`` (see
#: kpqa.metrics.bertscore).
DEFAULT_LAYERS = {"minilm": 6, "mpnet": 11}
#: Without a measured layer: this fraction of the depth, the median of bert-score's tuned layer / depth ratios.
DEPTH_FRACTION = 0.75
#: Tokens whose embeddings an :class:`Encoder` keeps across calls (about 100 MB at MiniLM's width of 384).
CACHE_TOKENS = 65_536


@dataclass
class TokenEmbeddings:
    """One text's tokens: ``ids`` int64[n], ``offsets`` int64[n, 2] (start, end characters), ``vectors`` float32
    [n, d] (one layer) or [k, n, d] (``k`` layers, in the order asked); ``special`` holds the vectors of the special
    tokens around the text ([CLS] and [SEP]: [2, d] or [k, 2, d]), which bert-score's greedy matching also uses."""

    ids: np.ndarray
    offsets: np.ndarray
    vectors: np.ndarray
    special: np.ndarray


def default_layer(backbone: str, num_layers: int) -> int:
    """The measured layer for a known alias, bert-score's tuned layer for a hub name it knows, else 3/4 depth."""
    if backbone in DEFAULT_LAYERS:
        return DEFAULT_LAYERS[backbone]
    try:
        from bert_score.utils import model2layers
    except ImportError:  # bert-score is optional: its table of tuned layers is all kpqa takes from it
        model2layers = {}
    if backbone in model2layers:
        return int(model2layers[backbone])
    return max(1, round(DEPTH_FRACTION * num_layers))


class Encoder:
    """Token embeddings of one hidden layer of ``backbone`` (an alias of :mod:`kpqa.models.backbone`, a folder or hub name).

    ``layer`` counts from 1 (the first transformer layer's output; 0 is the embedding layer) up to the config's
    ``num_hidden_layers``; None takes :func:`default_layer`. ``max_length`` (tokens per window, special tokens
    included) defaults to the tokenizer's limit. ``precision``: see :func:`amp_dtype`.
    """

    def __init__(
        self,
        backbone: str = DEFAULT_BACKBONE,
        layer: int | None = None,
        device: str = "auto",
        batch_size: int = DEFAULT_BATCH_SIZE,
        max_length: int | None = None,
        precision: str = "auto",
    ) -> None:
        if batch_size < 1:
            raise UsageError(f"batch size must be a positive integer, got {batch_size}")
        self.backbone, self.path, self.batch_size = backbone, resolve(backbone), batch_size
        self.device = pick_device(device)
        self.dtype = amp_dtype(self.device, precision)
        self.model, self.tokenizer = load_pretrained(backbone, self.path, what="encoder")
        self.model = self.model.eval().to(self.device)
        if not self.tokenizer.is_fast:
            raise CheckpointError(f"encoder {backbone!r} has no fast tokenizer (needed for character offsets)")
        self.num_layers = int(self.model.config.num_hidden_layers)
        self.layer = default_layer(backbone, self.num_layers) if layer is None else self._check_layer(layer)
        limit = self.tokenizer.model_max_length
        if not limit or limit > 100_000:  # tokenizers without a recorded limit
            limit = int(getattr(self.model.config, "max_position_embeddings", 512))
        self.max_length = int(max_length or limit)
        probe = self.tokenizer("a", add_special_tokens=True, return_special_tokens_mask=True)
        content = [k for k, special in enumerate(probe["special_tokens_mask"]) if not special]
        # the special tokens around a single text, e.g. [CLS] ... [SEP] or <s> ... </s>
        self._prefix = probe["input_ids"][: content[0]]
        self._suffix = probe["input_ids"][content[-1] + 1 :]
        self.width = self.max_length - len(self._prefix) - len(self._suffix)
        if self.width < 1:
            raise UsageError(f"max_length {self.max_length} leaves no room for tokens")
        self._cache: LRU[tuple[str, tuple[int, ...]], TokenEmbeddings] = LRU(CACHE_TOKENS, lambda e: len(e.ids))

    def _check_layer(self, layer: int) -> int:
        if not 0 <= layer <= self.num_layers:
            raise UsageError(f"layer {layer} out of range for {self.backbone!r}: 0..{self.num_layers}")
        return int(layer)

    def tokenize(self, texts: Sequence[str]) -> list[tuple[np.ndarray, np.ndarray]]:
        """(ids int64[n], offsets int64[n, 2]) of each text's tokens, special tokens excluded, nothing cut."""
        if not texts:
            return []
        enc = self.tokenizer(
            list(texts), add_special_tokens=False, return_offsets_mapping=True, truncation=False, verbose=False
        )
        return [
            (np.asarray(ids, dtype=np.int64), np.asarray(offs, dtype=np.int64).reshape(-1, 2))
            for ids, offs in zip(enc["input_ids"], enc["offset_mapping"])
        ]

    def encode(self, texts: Sequence[str], layers: Sequence[int] | None = None,
               batch_size: int | None = None) -> list[TokenEmbeddings]:
        """Embeddings of each text: one layer (``self.layer``) when ``layers`` is None, else ``[k, n, d]``;
        ``batch_size`` windows per forward pass (default ``self.batch_size``)."""
        wanted = [self.layer] if layers is None else [self._check_layer(x) for x in layers]
        key = tuple(wanted) if layers is not None else ()

        def compute(todo: list[tuple[str, tuple[int, ...]]]) -> list[TokenEmbeddings]:
            done = self._encode([t for t, _ in todo], wanted, layers is None, batch_size or self.batch_size)
            return [done[t] for t, _ in todo]

        return self._cache.get([(t, key) for t in texts], compute)

    def clear_cache(self) -> None:
        """Forget the embeddings kept from earlier calls."""
        self._cache.clear()

    def _encode(self, unique: list[str], wanted: list[int], one_layer: bool,
                batch_size: int) -> dict[str, TokenEmbeddings]:
        """Embeddings of distinct texts (see :meth:`encode`), computed."""
        toks = self.tokenize(unique)
        jobs: list[tuple[int, int, int]] = []  # one per window: (text index, first token, end token)
        owners: list[np.ndarray] = []  # per text and token: the job its vector comes from
        ends: list[tuple[int, int]] = []  # per text: its first and last job
        for i, (ids, _) in enumerate(toks):
            spans, owner = centred_windows(len(ids), self.width)
            owners.append(owner + len(jobs))
            ends.append((len(jobs), len(jobs) + len(spans) - 1))
            jobs += [(i, s, e) for s, e in spans]
        inputs = [self._prefix + toks[i][0][s:e].tolist() + self._suffix for i, s, e in jobs]
        head, tail = len(self._prefix), len(self._suffix)
        width = int(self.model.config.hidden_size)
        # filled window by window as the batches come: nothing of a batch outlives it
        vecs = [np.zeros((len(wanted), len(ids), width), dtype=np.float32) for ids, _ in toks]
        special = [np.zeros((len(wanted), head + tail, width), dtype=np.float32) for _ in toks]

        def keep(job: int, out: np.ndarray) -> None:
            i, start, end = jobs[job]
            mine = np.flatnonzero(owners[i][start:end] == job)  # the tokens this window centres best
            vecs[i][:, start + mine] = out[:, head + mine]
            if job == ends[i][0]:  # [CLS] of the first window, [SEP] of the last
                special[i][:, :head] = out[:, :head]
            if job == ends[i][1]:
                special[i][:, head:] = out[:, out.shape[1] - tail :]

        self._forward(inputs, wanted, batch_size, keep)
        return {text: TokenEmbeddings(*toks[i], *((vecs[i][0], special[i][0]) if one_layer else (vecs[i], special[i])))
                for i, text in enumerate(unique)}

    def _forward(self, inputs: list[list[int]], layers: list[int], batch_size: int,
                 keep: Callable[[int, np.ndarray], None]) -> None:
        """``keep(j, states)`` with the normalised hidden states ``[k, len(input), d]`` of each input ``j``, computed
        in length-sorted, padded batches (:func:`kpqa.models.windows.batches`)."""
        import torch

        order = sorted(range(len(inputs)), key=lambda j: -len(inputs[j]))
        pad = self.tokenizer.pad_token_id or 0
        autocast = torch.autocast(self.device.split(":")[0], dtype=self.dtype, enabled=self.dtype is not None)
        with torch.inference_mode(), autocast:
            for batch in batches(order, [len(x) for x in inputs], batch_size):
                ids, mask = padded([inputs[j] for j in batch], pad)
                hidden = self.model(input_ids=torch.from_numpy(ids).to(self.device),
                                    attention_mask=torch.from_numpy(mask.astype(np.int64)).to(self.device),
                                    output_hidden_states=True).hidden_states
                stacked = torch.stack([hidden[x] for x in layers], dim=1).float()  # [B, k, T, d]
                normed = torch.nn.functional.normalize(stacked, dim=-1).cpu().numpy()
                for row, j in enumerate(batch):
                    keep(j, normed[row][:, : len(inputs[j])])
