"""A judge you can audit (issue 60, item 9): each decision's reason (the reference's key phrase the answer lacks,
by KPQA's keyphrase weights), the questions behind a calibration recorded, and meta-eval's figures on the rows
outside them."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from kpqa.cli import main
from kpqa.folds import question_digest
from kpqa.metrics.kpqa import key_miss, missing_phrase
from kpqa.reasons import KEY_WEIGHT, WHOLE, explain

REF = ["the", "berlin", "wall", "fell", "on", "november", "9", "1989"]
W = np.array([0.01, 0.2, 0.2, 0.05, 0.02, 0.7, 0.8, 0.95])


def test_the_missing_key_phrase_is_the_heaviest_missing_word_with_its_missing_neighbours():
    weight, phrase = missing_phrase(["the", "berlin", "wall", "fell", "on", "november", "9", "1991"], [REF], [W])
    assert (weight, phrase) == (0.95, "1989")
    weight, phrase = missing_phrase(["the", "wall", "fell", "in", "1991"], [REF], [W])
    assert (weight, phrase) == (0.95, "november 9 1989")  # "berlin" (0.2) is under half of 1989's weight
    assert missing_phrase(REF, [REF], [W]) == (0.0, "")
    assert key_miss(["nine", "november", "1989"], [REF], [W]) == pytest.approx(0.2)  # number words as digits


def test_the_reference_the_answer_comes_closest_to_holding_gives_the_phrase():
    other, w2 = ["1989"], np.array([0.9])
    assert missing_phrase(["in", "1989"], [REF, other], [W, w2]) == (0.0, "")
    assert missing_phrase(["in", "1991"], [other, REF], [w2, W])[1] == "1989"


def test_a_wrong_answer_that_holds_every_key_word_is_said_so():
    reasons = explain([REF + ["not"], ["1991"]], [[REF], [REF]], [[W], [W]])
    assert reasons == [WHOLE, "lacks 'november 9 1989'"] and KEY_WEIGHT > 0


def _labelled(path: Path, questions: range) -> str:
    rows = []
    for k in questions:
        ref = f"the answer number {k}"
        for answer, label in ((ref, 1), (f"claim {k} maybe", 0), (f"answer {k} perhaps number", 1)):
            rows.append((f"question {k}", answer, ref, label))
    pd.DataFrame(rows, columns=["question", "answer", "reference1", "scores"]).to_csv(path, index=False)
    return str(path)


def test_a_calibration_records_its_questions_and_meta_eval_can_leave_them_out(tmp_path, capsys):
    fit, other = _labelled(tmp_path / "fit.csv", range(40)), _labelled(tmp_path / "mine.csv", range(30, 70))
    cal = str(tmp_path / "c.json")
    lexical = ["--metrics", "F1,ROUGE-L", "--quiet"]
    assert main(["calibrate", fit, "--judge-inputs", "F1,ROUGE-L", "-o", cal] + lexical) == 0
    recorded = json.loads(Path(cal).read_text())["questions"]
    assert recorded == sorted({question_digest(f"question {k}") for k in range(40)})
    assert question_digest("Question  30") == question_digest("question 30")
    report = str(tmp_path / "m.json")
    capsys.readouterr()
    assert main(["meta-eval", other, "--calibration", cal, "--json", report] + lexical) == 0
    assert "30 of 120 rows ask questions the calibration's judges were fitted on" in capsys.readouterr().err
    assert json.loads(Path(report).read_text())["datasets"][0]["rows"] == 120
    assert main(["meta-eval", other, "--calibration", cal, "--json", report, "--force", "--outside-fit"] + lexical) == 0
    assert "30 rows on questions the calibration's judges were fitted on left out" in capsys.readouterr().err
    assert json.loads(Path(report).read_text())["datasets"][0]["rows"] == 90


@pytest.mark.model
@pytest.mark.slow
def test_the_sample_s_wrong_rows_get_a_reason_and_its_right_rows_none(tmp_path):
    from kpqa.reasons import REASON
    from kpqa.scoring import Scorer

    sample = Path(__file__).resolve().parents[1] / "examples" / "sample.csv"
    frame = Scorer(decide=True, device="cpu").score(str(sample)).frame
    wrong = frame["KPQA-judge-correct"] == 0
    assert wrong.any() and (frame.loc[wrong, REASON] != "").all()
    assert (frame.loc[~wrong, REASON] == "").all()
    assert frame.loc[wrong, REASON].str.startswith("lacks '").any()
