"""Encoder and weighter precision: fp32 on CPU by default, bf16 on request, recorded in the signatures."""
from __future__ import annotations

import numpy as np
import pytest
import torch

from kpqa.models.device import amp_dtype, cpu_has_bf16, precision_name
from kpqa.errors import UsageError
from kpqa.scoring import Scorer

ROWS = [
    {"question": "how many steps are in the process?", "answer": "there are seven steps",
     "references": ["the process has four steps"]},
    {"question": "what colour is the sky?", "answer": "the sky is blue on a clear day",
     "references": ["blue", "it is blue"]},
    {"question": "who wrote hamlet?", "answer": "hamlet was written by shakespeare",
     "references": ["william shakespeare wrote hamlet"]},
]


def test_auto_is_fp32_on_every_device_and_bf16_is_asked_for():
    assert amp_dtype("cpu") is None and amp_dtype("cpu", "fp32") is None
    assert amp_dtype("cuda") is None and amp_dtype("cuda:1", "auto") is None
    assert amp_dtype("cpu", "bf16") is torch.bfloat16
    assert [precision_name(d) for d in (None, torch.bfloat16, torch.float16)] == ["fp32", "bf16", "fp16"]


def test_the_fast_preset_is_bf16_on_a_cpu_with_the_instructions_and_fp32_elsewhere(monkeypatch):
    assert amp_dtype("cpu", "fast") is (torch.bfloat16 if cpu_has_bf16() else None)
    assert amp_dtype("cuda", "fast") is None and amp_dtype("cuda:0", "fast") is None  # no faster on a GPU
    monkeypatch.setattr("kpqa.models.device.cpu_has_bf16", lambda: False)
    assert amp_dtype("cpu", "fast") is None  # emulated bf16 would be slower
    monkeypatch.setattr("kpqa.models.device.cpu_has_bf16", lambda: True)
    assert amp_dtype("cpu", "fast") is torch.bfloat16


def test_training_has_no_fast_preset():
    from kpqa.train.cli import build_parser

    with pytest.raises(SystemExit):
        build_parser().parse_args(["--precision", "fast"])


def test_bad_precisions_are_usage_errors():
    with pytest.raises(UsageError, match="needs a CUDA device"):
        amp_dtype("cpu", "fp16")
    with pytest.raises(UsageError, match="precision='fp8': must be one of auto, fp32, bf16, fp16, fast"):
        Scorer(["BLEU-1"], precision="fp8")  # the API's words; the CLI says --precision (argparse checks it first)


@pytest.mark.model
def test_bf16_moves_scores_a_little_and_says_so():
    metrics = ["BERTScore", "BLEU-1-KPQA", "BERTScore-KPQA"]
    exact = Scorer(metrics, device="cpu").score(ROWS)
    half = Scorer(metrics, device="cpu", precision="bf16").score(ROWS)
    for column in ["BERTScore", "BLEU-1-KPQA", "BERTScore-KPQA"]:
        a, b = exact.frame[column].to_numpy(), half.frame[column].to_numpy()
        assert np.abs(a - b).max() < 0.03 and not np.array_equal(a, b)
        assert exact.signatures[column].get("precision") == "fp32" and half.signatures[column].get("precision") == "bf16"
        assert str(exact.signatures[column]).count("|precision:") == 1 == str(half.signatures[column]).count("|precision:")
