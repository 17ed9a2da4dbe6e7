"""Device and arithmetic precision policy of every model (encoder, weighter, training): one check each."""
from __future__ import annotations

from typing import TYPE_CHECKING

from kpqa.errors import Param, UsageError

if TYPE_CHECKING:  # pragma: no cover
    import torch

PRECISIONS = ("auto", "fp32", "bf16", "fp16")
#: scoring's choices: the fast preset besides (bf16 on a CPU with bf16 instructions, fp32 elsewhere; :func:`amp_dtype`)
SCORING_PRECISIONS = (*PRECISIONS, "fast")


def check_precision(precision: str) -> str:
    """``precision`` unchanged if it is one of :data:`SCORING_PRECISIONS`, else a UsageError (no torch needed)."""
    if precision not in SCORING_PRECISIONS:
        raise UsageError(Param("precision", precision), f": must be one of {', '.join(SCORING_PRECISIONS)}")
    return precision


def amp_dtype(device: str, precision: str = "auto") -> "torch.dtype | None":
    """The autocast dtype for ``precision`` on ``device`` (None: plain fp32). ``auto`` is fp32 on every device, so
    that a score does not depend on the machine (bf16 moves single rows by up to 0.18, docs/benchmark.md);
    ``bf16`` works on CPU (fast where the CPU has bf16 instructions) and CUDA, ``fp16`` on CUDA only. ``fast``, the
    measured fast preset, is bf16 on a CPU with bf16 instructions (about 1.7x faster there; the dev suite's
    correlations within 0.0003 of fp32, docs/benchmark.md) and fp32 elsewhere: on a GPU bf16 was no faster, and
    emulated bf16 on a CPU without the instructions is slower."""
    import torch

    check_precision(precision)
    if precision == "fast":
        precision = "bf16" if device.startswith("cpu") and cpu_has_bf16() else "fp32"
    if precision in ("fp32", "auto"):
        return None
    if precision == "fp16" and not device.startswith("cuda"):
        raise UsageError(Param("precision", "fp16"), " needs a CUDA device (use ", Param("precision", "bf16"),
                         " on CPU)")
    return torch.bfloat16 if precision == "bf16" else torch.float16


def training_precision(precision: str) -> str:
    """The arithmetic a training run uses: ``auto`` is bf16 autocast where the hardware has bf16 instructions (a CUDA
    GPU that supports it; a CPU with AVX512-BF16 or AMX, where it trained 1.5x faster at the same dev K-F1 and suite,
    docs/weighter-experiments.md) and fp32 elsewhere, where emulated bf16 would be slower; others unchanged.
    Scoring keeps :func:`amp_dtype`'s rule (fp32 on CPU), so scores do not depend on the CPU."""
    import torch

    if precision != "auto":
        return precision
    if torch.cuda.is_available():
        return "bf16" if torch.cuda.is_bf16_supported() else "fp32"
    return "bf16" if cpu_has_bf16() else "fp32"


def cpu_has_bf16() -> bool:
    """Whether the CPU has bf16 instructions (AVX512-BF16 or AMX); elsewhere torch emulates bf16, slowly."""
    import torch

    return any(getattr(torch.cpu, name, lambda: False)() for name in ("_is_avx512_bf16_supported",
                                                                       "_is_amx_tile_supported"))


def precision_name(dtype: "torch.dtype | None") -> str:
    """``fp32``, ``bf16`` or ``fp16``: the precision a signature records."""
    import torch

    return "fp32" if dtype is None else {torch.bfloat16: "bf16", torch.float16: "fp16"}[dtype]


def cuda_available() -> bool:
    """Whether torch sees a CUDA GPU (asked here, so that modules outside ``kpqa.models`` need no torch)."""
    import torch

    return bool(torch.cuda.is_available())


def pick_device(device: str) -> str:
    """The one device check of every model (encoder, weighter): ``auto`` -> ``cuda`` when available, else ``cpu``;
    ``cpu``, ``cuda``, ``cuda:N`` or another torch device unchanged once checked. A device torch does not know,
    or a GPU that is not there, is a :class:`UsageError` (not a failure deep inside torch)."""
    import torch

    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError):
        raise UsageError(Param("device", device), ": unknown device (use 'auto', 'cpu', 'cuda' or 'cuda:N')") from None
    if dev.type == "cuda":
        if not torch.cuda.is_available():
            raise UsageError(Param("device", device), ": no CUDA GPU is available (use ", Param("device", "cpu"),
                             " or 'auto')")
        if dev.index is not None and dev.index >= torch.cuda.device_count():
            raise UsageError(Param("device", device), f": there are only {torch.cuda.device_count()} CUDA GPUs")
    return device


def resolve_device(device: str) -> "torch.device":
    """:func:`pick_device` (the one device check) as a torch device."""
    import torch

    return torch.device(pick_device(device))
