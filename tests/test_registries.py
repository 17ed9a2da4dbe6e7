"""The registries find what is there: every metric module's metrics without a hand-kept list of modules, every kind
of judge with its fitter. Each test lists what its registry holds, so a metric or kind that goes missing fails."""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import numpy as np

METRICS = Path(__file__).resolve().parents[1] / "kpqa" / "metrics"


def test_the_metric_registry_lists_every_metric_of_every_module():
    from kpqa.metrics.base import available, describe

    assert available() == [
        "BERTScore", "BERTScore-KPQA", "BERTScore-P", "BERTScore-R", "BLEU-1", "BLEU-1-KPQA", "BLEU-2", "BLEU-3",
        "BLEU-4", "BLEU-4-adapted", "CIDEr", "Contains", "EM", "Equivalence", "F1", "KeyFact-KPQA", "METEOR",
        "ROUGE-L", "ROUGE-L-KPQA", "ROUGE-L-adapted"]
    assert [family for family, _, _ in describe() if "<" in family] == ["AEv-<alpha>-<N>"]


def test_every_module_that_registers_a_metric_is_found_without_a_list():
    # the modules whose source calls register / register_pattern are exactly those the registry imported
    registering = sorted(p.stem for p in METRICS.glob("*.py") if any(
        isinstance(n, ast.Call) and getattr(n.func, "id", "") in {"register", "register_pattern"} for n in ast.walk(ast.parse(p.read_text(encoding="utf-8")))))
    assert registering == ["aev", "bertscore", "bleu", "cider", "equivalence", "kpqa", "meteor", "rouge", "squad",
                           "yang"]
    code = ("import sys; from kpqa.metrics.base import available; available(); "
            "print(sorted(m.split('.')[-1] for m in sys.modules if m.startswith('kpqa.metrics.')))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert set(registering) <= set(ast.literal_eval(loaded))


def test_judge_kinds_are_the_judge_classes_each_with_its_fitter():
    from kpqa.calibration import JUDGE_KINDS, LogisticJudge, TreesJudge

    assert JUDGE_KINDS == {"logistic": LogisticJudge, "trees": TreesJudge}
    rng = np.random.default_rng(0)
    x = rng.normal(size=(200, 2))
    y = (x[:, 0] + x[:, 1] > 0).astype(float)
    for kind, cls in JUDGE_KINDS.items():
        judge = cls.fit("J", ["a", "b"], {"a": "a", "b": "b"}, x, y, np.ones(len(y)))
        assert type(judge) is cls and judge.kind == kind
        logit = judge.logit({"a": x[:, 0], "b": x[:, 1]})
        assert np.mean((logit > 0) == (y == 1)) > 0.9  # a fitted judge, not a stub
