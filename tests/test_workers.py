"""The CPU side in worker processes (:mod:`kpqa.workers`): the output is that of one process, to the last bit."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from kpqa import Scorer
from kpqa.errors import KpqaWarning, UsageError
from kpqa.metrics.base import MeanMetric

QUESTIONS = ["who wrote hamlet?", "when did the wall fall?", "what is the boiling point of water?"] * 7
ANSWERS = ["Shakespeare wrote it.", "in 1991", "100 degrees Celsius at sea level", "Marlowe", "November 1989",
           "it boils at 90 °C"] * 3 + ["", "the bard", "1989"]
REFERENCES = ["William Shakespeare", "The Berlin Wall fell on November 9, 1989.", "100 °C"] * 7


def _frame() -> pd.DataFrame:
    return pd.DataFrame({"question": QUESTIONS, "answer": ANSWERS, "reference1": REFERENCES,
                         "incorrect_answers": ["Marlowe; Bacon", "", "90 °C"] * 7})


def _same(metrics: list[str], monkeypatch, **kwargs) -> None:
    monkeypatch.setattr("kpqa.scoring.PROGRESS_ROWS", 4)  # several blocks, merged in order
    alone = Scorer(metrics, **kwargs).score(_frame())
    pooled = Scorer(metrics, workers=2, **kwargs)
    with_workers = pooled.score(_frame())
    pooled.workers.close()
    pd.testing.assert_frame_equal(alone.frame, with_workers.frame, check_exact=True)
    assert alone.corpus == with_workers.corpus and alone.signatures == with_workers.signatures
    assert any(c.endswith("-wrong") for c in alone.frame.columns)  # the known-wrong pass runs in the workers too


def test_lexical_metrics_in_workers_give_one_process_s_output(monkeypatch):
    _same(["BLEU-1", "BLEU-4", "ROUGE-L", "F1", "Contains", "METEOR", "CIDEr"], monkeypatch)


@pytest.mark.model
def test_the_suite_with_workers_gives_one_process_s_output_and_decisions(monkeypatch):
    _same(["BLEU-1", "ROUGE-L", "F1", "Contains", "BLEU-1-KPQA", "ROUGE-L-KPQA", "KeyFact-KPQA", "BERTScore",
           "BERTScore-KPQA"], monkeypatch, decide=True)


@pytest.mark.parametrize("bad", [-1, True, 1.5])
def test_workers_must_be_a_count(bad):
    with pytest.raises(UsageError, match="workers"):
        Scorer(["BLEU-1"], workers=bad)


class Warns(MeanMetric):
    """A metric that loads no model and warns as it scores (what a worker's warning must become in this process)."""

    name = "Warns"

    def row_scores(self, rows, ctx):
        import warnings

        warnings.warn(KpqaWarning("Warns: a warning from the metric"))
        return np.zeros(len(rows))


def test_a_worker_s_warnings_are_given_in_this_process_once_a_pass(monkeypatch, recwarn):
    from kpqa.metrics import base

    base.available()  # the built-in metrics registered first
    monkeypatch.setitem(base._REGISTRY, "Warns", Warns)  # for this test alone
    monkeypatch.setattr("kpqa.scoring.PROGRESS_ROWS", 4)  # six blocks, each warning in its worker
    scorer = Scorer(["Warns", "BLEU-1"], workers=1)
    scorer.score(_frame().drop(columns="incorrect_answers"))  # one pass over the rows
    scorer.workers.close()
    said = [str(w.message) for w in recwarn if issubclass(w.category, KpqaWarning)]
    assert said == ["Warns: a warning from the metric"]
