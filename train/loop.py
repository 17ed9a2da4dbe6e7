"""What the two trainers' loops share: AdamW (no decay on biases and norms) under a linear warm-up and decay, and
one optimisation step (backward, gradients clipped to norm :data:`MAX_GRAD_NORM`, step, schedule, zero)."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import torch

#: the gradient norm every step is clipped to
MAX_GRAD_NORM = 1.0


def optimizer_and_schedule(params: Sequence[torch.nn.Parameter], lr: float, weight_decay: float, steps: int,
                           warmup: float) -> tuple[torch.optim.AdamW, Any]:
    """AdamW over ``params`` (weight decay on matrices only) and its linear schedule: a warm-up over the first
    ``warmup`` share of ``steps``, then a decay to 0 at ``steps``."""
    from transformers import get_linear_schedule_with_warmup

    decay = [p for p in params if p.ndim > 1]
    rest = [p for p in params if p.ndim <= 1]
    optimizer = torch.optim.AdamW([{"params": decay, "weight_decay": weight_decay},
                                   {"params": rest, "weight_decay": 0.0}], lr=lr)
    return optimizer, get_linear_schedule_with_warmup(optimizer, int(warmup * steps), steps)


def step(loss: torch.Tensor, params: Sequence[torch.nn.Parameter], optimizer: Any, scheduler: Any,
         accelerator: Any = None) -> None:
    """One optimisation step on ``loss``: through ``accelerator`` (an ``accelerate.Accelerator``) when given."""
    if accelerator is not None:
        accelerator.backward(loss)
        accelerator.clip_grad_norm_(params, MAX_GRAD_NORM)
    else:
        loss.backward()
        torch.nn.utils.clip_grad_norm_(params, MAX_GRAD_NORM)
    optimizer.step()
    scheduler.step()
    optimizer.zero_grad()
