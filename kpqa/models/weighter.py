"""KPW inference (Lee et al. 2021, sec. 3.1): the keyphrase tagger (:mod:`kpqa.models.tagger`) of a checkpoint,
batched and cached by (question, text).

Input ``[CLS] question [SEP] text [SEP]`` (or ``[CLS] text [SEP]`` for the question-free -KP ablation). A linear
head is trained on top of the encoder (``kpqa.train``), whose transformer layers are either fine-tuned (embeddings
frozen) or adapted with LoRA (``peft``) on every linear map (query, key, value, attention output, intermediate,
output). A checkpoint (``kpqa.models.checkpoint``) stores only what differs from the pip-shipped backbone: the head and the
layers or the adapter; loading merges an adapter into the backbone's weights. A piece's weight is its K-probability.
Texts longer than the model's window are covered by overlapping windows (the question repeated in each); a piece
takes its weight from the window where it is most central.

Function words (:data:`kpqa.stopwords.FUNCTION_WORDS`: NLTK's English stop words less the negations) have their
pieces' K-probabilities multiplied by ``function_word_weight`` (default 0.2,
:data:`kpqa.context.DEFAULT_FUNCTION_WORD_WEIGHT`; 1 gives the tagger's probabilities, as the paper uses them).
The tagger learns to mark whole answer spans, so "the", "of" and "his" inside an answer get weights near the
content words': on the dev suite, scaling them by 0.2 raised every lexical KPQA cell
(docs/weighter-experiments.md, round 4).
"""
from __future__ import annotations

import os
import warnings
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np
import torch

from kpqa.context import (
    DEFAULT_BATCH_SIZE, DEFAULT_DEVICE, DEFAULT_FUNCTION_WORD_WEIGHT, DEFAULT_PRECISION, Progress,
    check_function_word_weight,
)
from kpqa.errors import CheckpointError, KpqaWarning, Param, UsageError
from kpqa.models import backbone as backbones
from kpqa.models import checkpoint as ckpt
from kpqa.models import shipped
from kpqa.models.alignment import max_overlap
from kpqa.models.device import resolve_device
from kpqa.models.loader import load_pretrained
from kpqa.models.runner import CachedRunner
from kpqa.models.tagger import KeyphraseTagger
from kpqa.models.windows import batches, encode, merge, pad
from kpqa.stopwords import function_word_spans

if TYPE_CHECKING:
    from kpqa.text import Tokenizer

#: a checkpoint whose dev K-F1 (metadata ``dev.k_f1``) is below this learned next to nothing, and one whose dev
#: pieces' K-probabilities spread less than ``MIN_DEV_K_SPREAD`` (``dev.k_spread``, std) weighs them nearly alike:
#: loading it warns, as the training run that made it did (the trainer's bars are these)
MIN_DEV_K_F1, MIN_DEV_K_SPREAD = 0.05, 0.02


def load_encoder(backbone: str) -> tuple[Any, Any]:
    """(transformers encoder, fast tokenizer) of a backbone name, quietly."""
    return load_pretrained(backbone, backbones.resolve(backbone))


class Weighter(CachedRunner[tuple[str, str], tuple[np.ndarray, np.ndarray]]):
    """Batched KPW inference from a checkpoint, cached by (question, text)."""

    def __init__(self, model: KeyphraseTagger, tokenizer, metadata: ckpt.Metadata, checkpoint_hash: str,
                 device: torch.device, batch_size: int = DEFAULT_BATCH_SIZE, precision: str = DEFAULT_PRECISION,
                 function_word_weight: float = DEFAULT_FUNCTION_WORD_WEIGHT):
        self.function_word_weight = check_function_word_weight(function_word_weight)
        super().__init__(model, tokenizer, checkpoint_hash, device, batch_size, precision)
        self.metadata = metadata
        self.use_question = metadata.use_question
        self.backbone = metadata.backbone
        self.max_length = metadata.max_length

    @classmethod
    def load(cls, checkpoint: str | os.PathLike | None = None, *, no_question: bool = False,
             device: str = DEFAULT_DEVICE, batch_size: int = DEFAULT_BATCH_SIZE,
             precision: str = DEFAULT_PRECISION,
             function_word_weight: float = DEFAULT_FUNCTION_WORD_WEIGHT) -> "Weighter":
        """Load a checkpoint: a folder, or a shipped name (:mod:`kpqa.models.shipped`: None or ``default``, ``mpnet``;
        their question-free twins with ``no_question``);
        ``precision`` as in :func:`kpqa.models.device.amp_dtype`; ``function_word_weight`` as in the module
        docstring."""
        dev = resolve_device(device)
        folder = shipped.require(checkpoint, no_question)
        tensors, metadata, digest = ckpt.load(folder)
        if metadata.kind is not None:
            raise CheckpointError(f"checkpoint {folder}: not a keyphrase weighter (metadata kind {metadata.kind!r})")
        k_f1 = metadata.dev_k_f1
        if k_f1 is not None and k_f1 < MIN_DEV_K_F1:
            warnings.warn(f"checkpoint {folder}: its dev K-F1 is {k_f1:.4f}, the weighter learned next to nothing; "
                          "KPQA metrics with it are meaningless", KpqaWarning, stacklevel=2)
        spread = (metadata.raw.get("dev") or {}).get("k_spread")
        if spread is not None and float(spread) < MIN_DEV_K_SPREAD:
            warnings.warn(f"checkpoint {folder}: its K-probabilities are nearly uniform on its dev set (std "
                          f"{float(spread):.4f}); KPQA metrics with it are close to their unweighted bases",
                          KpqaWarning, stacklevel=2)
        if no_question and metadata.use_question:
            raise UsageError(f"checkpoint {folder} reads the question; ", Param("no_question", True),
                             " needs one trained without it")
        encoder, tokenizer = load_encoder(metadata.backbone)
        lora = metadata.lora
        model = (KeyphraseTagger(encoder, 0, train_layers=metadata.trained_layers) if lora is None
                 else KeyphraseTagger(encoder, lora.rank, lora.alpha, lora.targets))
        model.load_trained(tensors)
        model.merge()
        return cls(model, tokenizer, metadata, digest, dev, batch_size, precision, function_word_weight)

    def piece_weights(self, pairs: Sequence[tuple[str, str]],
                      progress: Progress | None = None) -> list[tuple[np.ndarray, np.ndarray]]:
        """Per (question, text): (char offsets [n, 2] of the text's word pieces, weights float32 [n]: the
        K-probabilities, those of function words' pieces scaled by ``function_word_weight``). The question is
        ignored when ``use_question`` is False. ``progress(done, total)`` is called after each forward pass (the
        batches of the pairs not cached, shortest inputs first)."""
        keys = [(q if self.use_question else "", t) for q, t in pairs]

        def compute(todo: list[tuple[str, str]]) -> list[tuple[np.ndarray, np.ndarray]]:
            return [(offsets, self._scale_function_words(key[1], offsets, probs))
                    for key, (offsets, probs) in zip(todo, self._compute(todo, progress))]

        return self._cached(keys, compute)

    def word_weights(self, pairs: Sequence[tuple[str, str]], tokenizer: "Tokenizer") -> list[np.ndarray]:
        """Per pair, one weight per ``tokenizer.tokenize(text)`` token: the maximum K-probability of the word pieces
        overlapping the token's character span (0 when none does, e.g. a token the backbone drops)."""
        out = []
        for (offsets, probs), (_, text) in zip(self.piece_weights(pairs), pairs):
            spans = np.array([(s, e) for _, s, e in tokenizer.spans(text)], dtype=np.int64).reshape(-1, 2)
            out.append(max_overlap(spans, offsets, probs))
        return out

    def piece_tokens(self, pairs: Sequence[tuple[str, str]]) -> list[tuple[list[str], np.ndarray]]:
        """Per (question, text): the text's word pieces as lower-cased surface strings (``"playing"`` -> ``"play"``,
        ``"ing"``) and their K-probabilities, leaving out pieces without a letter, digit or pictograph (punctuation,
        as the PTB tokenizer does: :func:`kpqa.text.is_word_piece`). The tokens BLEU-1-KPQA and ROUGE-L-KPQA use by
        default."""
        from kpqa.text import is_word_piece

        out = []
        for (offsets, probs), (_, text) in zip(self.piece_weights(pairs), pairs):
            pieces = [text[s:e].lower() for s, e in offsets.tolist()]
            keep = [i for i, piece in enumerate(pieces) if is_word_piece(piece)]
            out.append(([pieces[i] for i in keep], probs[keep]))
        return out

    def _scale_function_words(self, text: str, offsets: np.ndarray, probs: np.ndarray) -> np.ndarray:
        """``probs`` with the pieces inside a function word multiplied by ``function_word_weight`` (time and memory
        linear in the text)."""
        spans = function_word_spans(text) if self.function_word_weight != 1.0 else []
        if not spans:
            return probs
        words, pieces = np.asarray(spans).reshape(-1, 2), np.asarray(offsets).reshape(-1, 2)
        # the words are in order and apart: a piece can lie only inside the last word starting at or before it
        last = np.searchsorted(words[:, 0], pieces[:, 0], side="right") - 1
        inside = (last >= 0) & (pieces[:, 1] <= words[np.maximum(last, 0), 1])
        return np.where(inside, probs * self.function_word_weight, probs).astype(np.float32)

    def _compute(self, keys: Sequence[tuple[str, str]],
                 progress: Progress | None = None) -> list[tuple[np.ndarray, np.ndarray]]:
        """The K-probabilities of each key's text, its windows in batches of similar length (shortest first), so
        that a batch pads little."""
        questions = [q for q, _ in keys] if self.use_question else None
        windows = encode(self.tokenizer, questions, [t for _, t in keys], self.max_length)
        lengths = [len(w.inputs["input_ids"]) for w in windows]
        order = sorted(range(len(windows)), key=lambda i: lengths[i])
        probs: list[np.ndarray] = [np.empty(0)] * len(windows)
        planned = list(batches(order, lengths, self.batch_size))
        with torch.inference_mode(), torch.autocast(self.device.type, dtype=self.dtype, enabled=self.dtype is not None):
            for done, idx in enumerate(planned, 1):
                batch = {k: v.to(self.device) for k, v in pad(self.tokenizer, [windows[i] for i in idx]).items()}
                k_prob = self.model(**batch).float().softmax(-1)[..., 1].cpu().numpy()
                for row, i in enumerate(idx):
                    probs[i] = k_prob[row, windows[i].positions]
                if progress is not None:
                    progress(done, len(planned))
        return merge(windows, probs, len(keys))


