"""kpqa as a Hugging Face ``evaluate`` metric (kpqa/hf_evaluate.py): loaded offline from the installed package, its
numbers are kpqa.score's on the same rows."""
from __future__ import annotations

import socket
from pathlib import Path

import pytest

import kpqa

evaluate = pytest.importorskip("evaluate")

QUESTIONS = ["How many steps are involved in a hypothesis test?", "Who wrote Hamlet?",
             "What is the capital of Australia?"]
PREDICTIONS = ["There are seven steps involved in a hypothesis test .", "Hamlet was written by Shakespeare.",
               "Canberra"]
REFERENCES = [["Four steps are involved in a hypothesis test.", "four"], ["William Shakespeare"],
              ["Canberra is the capital.", "Canberra"]]


@pytest.fixture(scope="module")
def metric():
    """The metric, loaded with every network connection refused."""
    def refuse(*args, **kwargs):
        raise OSError("network access in an offline test")

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HF_HUB_OFFLINE", "1")
        patch.setenv("HF_DATASETS_OFFLINE", "1")
        patch.setattr(socket.socket, "connect", refuse)
        loaded = evaluate.load(kpqa.evaluate_path())
    return loaded


def _same(out: dict, result: kpqa.Result, per_row: bool = True) -> None:
    """``out`` (what compute returned) holds ``result``'s corpus scores, signatures and per-row scores, exactly."""
    assert {c: out[c] for c in result.corpus} == result.corpus
    assert out["signatures"] == {c: str(s) for c, s in result.signatures.items()}
    if per_row:
        assert out["per_row"] == {c: result.frame[c].tolist() for c in result.corpus}


def test_the_path_is_the_packaged_module():
    path = Path(kpqa.evaluate_path())
    assert path.is_file() and path.parent == Path(kpqa.__file__).parent


def test_multiple_references_and_per_row_scores_are_kpqa_score(metric):
    metrics = ["BLEU-1", "ROUGE-L", "F1"]
    out = metric.compute(predictions=PREDICTIONS, references=REFERENCES, questions=QUESTIONS, metrics=metrics,
                         per_row=True)
    _same(out, kpqa.score(QUESTIONS, PREDICTIONS, REFERENCES, metrics=metrics, return_result=True))
    assert metric.name == "kpqa" and len(out["per_row"]["F1"]) == 3


def test_one_reference_per_prediction_as_strings_and_no_per_row_by_default(metric):
    references = [r[0] for r in REFERENCES]
    out = metric.compute(predictions=PREDICTIONS, references=references, questions=QUESTIONS, metrics="BLEU-1,F1")
    _same(out, kpqa.score(QUESTIONS, PREDICTIONS, references, metrics=["BLEU-1", "F1"], return_result=True),
          per_row=False)
    assert "per_row" not in out


def test_precision_is_an_option_of_the_shared_options_object(metric):
    out = metric.compute(predictions=PREDICTIONS, references=REFERENCES, questions=QUESTIONS, metrics="F1",
                         precision="bf16")
    _same(out, kpqa.score(QUESTIONS, PREDICTIONS, REFERENCES, metrics=["F1"], precision="bf16", return_result=True),
          per_row=False)
    assert any(s.precision == "bf16" for s in metric._scorers.values())


@pytest.mark.model
def test_the_kp_form_needs_no_questions(metric):
    metrics = ["BLEU-1-KPQA", "ROUGE-L-KPQA"]
    out = metric.compute(predictions=PREDICTIONS, references=REFERENCES, metrics=metrics, no_question=True,
                         per_row=True)
    assert set(out["per_row"]) == {"BLEU-1-KP", "ROUGE-L-KP"}
    _same(out, kpqa.score(None, PREDICTIONS, REFERENCES, metrics=metrics, no_question=True, return_result=True))


@pytest.mark.model
@pytest.mark.slow
def test_decisions_are_kpqa_score_decide(metric):
    out = metric.compute(predictions=PREDICTIONS, references=REFERENCES, questions=QUESTIONS, decide=True,
                         per_row=True)
    _same(out, kpqa.score(QUESTIONS, PREDICTIONS, REFERENCES, decide=True, return_result=True))
    assert set(out["per_row"]["KPQA-judge-correct"]) <= {0.0, 1.0}
    assert all(0 <= p <= 1 for p in out["per_row"]["KPQA-judge-prob"])
    assert "|cal:" in out["signatures"]["KPQA-judge-prob"]
