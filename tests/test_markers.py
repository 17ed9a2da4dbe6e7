"""The rule that marks a test ``model`` (tests/conftest.py): lexical scoring is not a model test."""
from __future__ import annotations

import pytest
from conftest import _needs_model_source


#: (a test's source, whether it loads a model); indexed below, so that this file's own tests are not marked ``model``
CASES = [
    ('Scorer(["BLEU-1"], batch_size=4).score(rows)', False),
    ('kpqa.score(q, c, r, metrics=["BLEU-1", "ROUGE-L"])', False),
    ('main(["score", str(path), "--metrics", "BLEU-1", "--quiet"])', False),
    ('get_metric("ROUGE-L").score(rows, Context())', False),
    ('Scorer(["BERTScore"], device="cpu").score(rows)', True),
    ('Scorer(device="cpu").score(rows)', True),
    ("kpqa.score(q, c, r)", True),
    ('main(["score", str(path), "-o", out])', True),
    ('get_metric("BLEU-1-KP").score(rows, ctx)', True),
    ('main(["explain", "--question", "q"])', True),
    ('Weighter.load(device="cpu")', True),
    ('main(["report", str(path), "-o", out])', True),
    ('main(["report", str(path), "-o", out, "--no-weights"])', False),
]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_a_test_is_marked_model_when_its_source_loads_one(case):
    source, needs = CASES[case]
    assert _needs_model_source(source) is needs
