"""The keyphrase tagger: an encoder and a linear O/K head over its word pieces (what training fits, what a checkpoint
stores, what :class:`kpqa.models.weighter.Weighter` runs). The transformer layers are either fine-tuned (embeddings
frozen; all layers, or only the top N so that a large backbone's checkpoint stays small) or adapted with LoRA
(``peft``) on every linear map of every layer."""
from __future__ import annotations

import warnings
from typing import Any, Sequence

import torch
from torch import nn

from kpqa.errors import CheckpointError, Param, Part, UsageError
from kpqa.models import checkpoint as ckpt


def layer_list(encoder: Any) -> tuple[str, nn.ModuleList]:
    """(module path, list) of an encoder's transformer layers: the ModuleList as long as its configured depth."""
    n = encoder.config.num_hidden_layers
    for name, module in encoder.named_modules():
        if isinstance(module, nn.ModuleList) and len(module) == n:
            return name, module
    raise CheckpointError(f"cannot find the {n} transformer layers of {type(encoder).__name__}")


def lora_targets(encoder: nn.Module) -> list[str]:
    """Names, relative to one transformer layer, of the layer's linear maps (the LoRA targets)."""
    _, layers = layer_list(encoder)
    return [name for name, module in layers[0].named_modules() if isinstance(module, nn.Linear)]


def load_exactly(module: nn.Module, tensors: dict[str, torch.Tensor], expected: set[str]) -> None:
    """Load ``tensors`` into ``module``; CheckpointError unless their names are exactly ``expected`` (the trained
    ones: a checkpoint of another model, or of the same model trained otherwise, does not fit)."""
    if set(tensors) != expected:
        missing, extra = sorted(expected - set(tensors)), sorted(set(tensors) - expected)
        raise CheckpointError(f"checkpoint tensors do not fit the model (missing {missing[:3]}, extra {extra[:3]})")
    module.load_state_dict(tensors, strict=False)


class KeyphraseTagger(nn.Module):
    """Encoder and a linear O/K head. With ``lora_rank`` >= 1 the encoder is adapted by LoRA of that rank (scale
    ``lora_alpha / lora_rank``) on the ``targets`` of every transformer layer (default: all their linear maps) and
    only adapter and head are trained; with ``lora_rank`` 0 the transformer layers themselves are fine-tuned (the
    embeddings stay frozen, so a checkpoint need not store them): all of them, or with ``train_layers`` N only the
    top N (the others stay as the backbone ships them, so a checkpoint need not store them either)."""

    def __init__(self, encoder: Any, lora_rank: int, lora_alpha: float | None = None,
                 targets: Sequence[str] | None = None, dropout: float = 0.1, train_layers: int | None = None):
        super().__init__()
        if lora_rank < 0:
            raise UsageError(Param("lora_rank", lora_rank), ": must be 0 (fine-tune the layers) or more")
        layers_name, layers = layer_list(encoder)
        if train_layers is not None and not (lora_rank == 0 and 1 <= train_layers <= len(layers)):
            given: list[Part] = [" (not ", Param("lora_rank", lora_rank), ")"] if lora_rank else []
            raise UsageError(Param("train_layers", train_layers), f": must be 1 to {len(layers)} (this backbone's "
                             "layers), with ", Param("lora_rank", 0), *given)
        self.lora_rank = lora_rank
        self.train_layers = None if train_layers == len(layers) else train_layers
        if lora_rank == 0:
            self.targets: list[str] = []
            self.lora_alpha = 0.0
            first = len(layers) - (self.train_layers or len(layers))
            trained = tuple(f"{layers_name}.{i}." for i in range(first, len(layers)))
            self._trained_prefixes: tuple[str, ...] | None = tuple(f"encoder.{p}" for p in trained)
            for name, param in encoder.named_parameters():
                param.requires_grad = name.startswith(trained)
            self.encoder = encoder
        else:
            from kpqa.optional import require

            peft = require("peft", "a LoRA adapter")
            LoraConfig, get_peft_model = peft.LoraConfig, peft.get_peft_model

            self.targets = list(targets) if targets is not None else lora_targets(encoder)
            self.lora_alpha = float(lora_alpha if lora_alpha is not None else 2 * lora_rank)
            self._trained_prefixes = None
            modules = [f"{layers_name}.{i}.{t}" for i in range(len(layers)) for t in self.targets]
            config = LoraConfig(r=lora_rank, lora_alpha=self.lora_alpha,  # type: ignore[arg-type]
                                lora_dropout=0.0, bias="none", target_modules=modules)
            with warnings.catch_warnings():  # peft asks transformers a deprecated question; not the user's business
                warnings.filterwarnings("ignore", message=".*is_gradient_checkpointing", category=FutureWarning)
                self.encoder = get_peft_model(encoder, config)
        self.dropout = nn.Dropout(dropout)
        self.head = nn.Linear(int(encoder.config.hidden_size), len(ckpt.LABELS))
        self.merged = lora_rank == 0

    @property
    def adaptation(self) -> dict | None:
        """The checkpoint metadata's ``lora`` entry: None when the layers themselves are fine-tuned."""
        if self.lora_rank == 0:
            return None
        return {"rank": self.lora_rank, "alpha": self.lora_alpha, "dropout": 0.0, "targets": self.targets,
                "layers": "all"}

    def forward(self, **inputs: torch.Tensor) -> torch.Tensor:
        """Logits [batch, length, 2] (O, K)."""
        hidden = self.encoder(**inputs).last_hidden_state
        return self.head(self.dropout(hidden))

    def trained_state(self) -> dict[str, torch.Tensor]:
        """The tensors a checkpoint stores: the head, and the LoRA adapter or the fine-tuned layers."""
        state = self.state_dict()
        if self._trained_prefixes is not None:
            return {k: v for k, v in state.items() if k.startswith(("head.", *self._trained_prefixes))}
        if self.merged:
            raise RuntimeError("the adapter is merged into the encoder; its tensors are no longer separate")
        return {k: v for k, v in state.items() if k.startswith("head.") or ".lora_" in k}

    def load_trained(self, tensors: dict[str, torch.Tensor]) -> None:
        """Load stored tensors; CheckpointError unless they are exactly the trained ones."""
        load_exactly(self, tensors, set(self.trained_state()))

    def merge(self) -> None:
        """Fold the adapter into the encoder's weights (same outputs, plain encoder speed); for inference only."""
        if not self.merged:
            self.encoder = self.encoder.merge_and_unload()  # type: ignore[operator]
            self.merged = True
