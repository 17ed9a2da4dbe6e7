"""Known-wrong answers as evidence (issue 53): the ``incorrect_answers`` column read in its list forms, each metric
column's ``M-wrong`` (the metric against the known-wrong answers), scores without the column unchanged, and the
judge that decides the rows with known-wrong answers in KPQA-judge's place (lexical metrics only: fast)."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from kpqa import calibration
from kpqa.cli import main
from kpqa.errors import InputError
from kpqa.input import frame_to_table
from kpqa.roles import Role, role_of
from kpqa.scoring import Scorer

LEXICAL = ["F1", "ROUGE-L", "BLEU-1", "Contains"]
FRAME = pd.DataFrame({
    "question": ["What happens if you crack your knuckles a lot?", "Where is the Eiffel Tower?", "Who wrote it?"],
    "answer": ["You will get arthritis.", "It is in Paris, France.", "Shakespeare"],
    "reference1": ["Nothing in particular happens", "Paris", "William Shakespeare"],
    "reference2": ["Cracking your knuckles does not cause arthritis", "", ""],
    "incorrect_answers": ["If you crack your knuckles a lot, you will develop arthritis ; You will get arthritis",
                          '["It is in London", "Rome"]', ""],
})


@pytest.mark.parametrize(("cell", "expected"), [
    ("A ; B", ["A", "B"]),                       # TruthfulQA's layout in the dev suite
    ("A; B;C", ["A", "B;C"]),                    # TruthfulQA.csv as published: ';' and a space
    ('["A ; B", "C"]', ["A ; B", "C"]),          # JSON list text: an answer may hold the separator
    (["A", " ", "B"], ["A", "B"]),               # a list (JSONL, Parquet, records): blanks dropped
    ("", []), (None, []),                        # none known for this row
    ("A;B", ["A;B"]),                            # only ' ; ' separates
])
def test_incorrect_answers_are_read_in_every_list_form(cell, expected):
    frame = pd.DataFrame({"question": ["q"], "answer": ["a"], "reference1": ["r"], "incorrect_answers": [cell]})
    assert frame_to_table(frame).rows.wrong == [expected]


@pytest.mark.parametrize("cell", ['["A", 3]', "[not json", 7, "A; ; B", "A; B;", "A;", "; A", "A ;; B"])
def test_an_incorrect_answers_cell_that_is_not_a_list_of_texts_names_its_cell(cell):
    frame = pd.DataFrame({"question": ["q", "q"], "answer": ["a", "a"], "reference1": ["r", "r"],
                          "incorrect_answers": ["", cell]})
    with pytest.raises(InputError) as info:
        frame_to_table(frame, "f.csv")
    assert "f.csv" in str(info.value) and "row 2" in str(info.value) and "incorrect_answers" in str(info.value)


def test_without_the_column_rows_have_no_wrong_answers_and_no_wrong_columns():
    scorer = Scorer(LEXICAL)
    result = scorer.score(FRAME.drop(columns="incorrect_answers"))
    assert not any(role_of(c) is Role.WRONG for c in result.frame.columns)
    assert scorer.known_wrong is None  # the scorer is as built: the input's plan said "no known-wrong answers"


CJK = pd.DataFrame({"question": ["谁写了红楼梦？"] * 2, "answer": ["曹雪芹写了红楼梦。", "鲁迅写的。"],
                    "reference1": ["红楼梦的作者是曹雪芹。"] * 2})


@pytest.mark.filterwarnings("ignore:.*Chinese / Japanese")  # CJK text under ptb: warned once per scorer
@pytest.mark.parametrize("tokenize", ["ptb", "auto"])
def test_a_reused_scorer_gives_what_fresh_ones_give_whatever_the_order_of_its_inputs(tokenize):
    """Issue 61: a Scorer is fixed when built. Known-wrong answers (``known_wrong=None``) and ``tokenize="auto"``
    are settled per input (a plan), so a scorer that scored a frame without ``incorrect_answers`` still writes the
    ``-wrong`` columns of one with it, and a Chinese input does not leave ``zh`` behind for an English one."""
    inputs = [FRAME, FRAME.drop(columns="incorrect_answers"), CJK]
    fresh = [Scorer(LEXICAL, tokenize=tokenize).score(f) for f in inputs]
    assert any(role_of(c) is Role.WRONG for c in fresh[0].frame.columns)
    assert not any(role_of(c) is Role.WRONG for c in fresh[1].frame.columns)
    for order in ([0, 1, 2], [1, 0, 2], [2, 1, 0], [2, 0, 1]):
        scorer = Scorer(LEXICAL, tokenize=tokenize)
        for k in order:
            again = scorer.score(inputs[k])
            pd.testing.assert_frame_equal(again.frame, fresh[k].frame)
            assert again.signatures == fresh[k].signatures and again.corpus == fresh[k].corpus
    if tokenize == "auto":
        assert "tok:zh" in str(fresh[2].signatures["ROUGE-L"]) and "tok:ptb" in str(fresh[1].signatures["ROUGE-L"])


def test_m_wrong_is_the_metric_with_the_wrong_answers_as_references_and_nan_where_none():
    result = Scorer(LEXICAL).score(FRAME)
    plain = Scorer(LEXICAL).score(FRAME.drop(columns="incorrect_answers"))
    for column in LEXICAL:  # the scores themselves and the corpus scores do not move
        assert result.frame[column].tolist() == plain.frame[column].tolist()
    assert result.corpus == plain.corpus
    wrong = frame_to_table(FRAME).rows.wrong
    as_references = pd.DataFrame({"question": FRAME["question"][:2], "answer": FRAME["answer"][:2],
                                  "references": [wrong[0], wrong[1]]})
    expected = Scorer(LEXICAL).score(as_references).frame
    for column in LEXICAL:
        got = result.frame[Role.WRONG.of(column)].to_numpy()
        assert got[:2].tolist() == expected[column].tolist()
        assert np.isnan(got[2])
    # the second answer is closer to a wrong answer than the first is: ROUGE-L to "You will get arthritis" is 1
    assert result.frame[Role.WRONG.of("ROUGE-L")][0] == pytest.approx(1.0)
    assert "against:incorrect_answers" in str(result.signatures[Role.WRONG.of("F1")])


def test_the_cli_writes_the_wrong_columns_when_the_input_has_the_column(tmp_path, capsys):
    FRAME.to_csv(tmp_path / "in.csv", index=False)
    assert main(["score", str(tmp_path / "in.csv"), "--metrics", "F1,Contains", "-o", str(tmp_path / "out.csv"),
                 "--quiet"]) == 0
    out = pd.read_csv(tmp_path / "out.csv", keep_default_na=False)
    assert list(out.columns[-4:]) == ["F1", "Contains", "F1-wrong", "Contains-wrong"]
    assert out["F1-wrong"].tolist()[2] == ""  # no known-wrong answer: an empty cell


def _synthetic(n: int = 600, seed: int = 0) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Scores where a right answer is close to a right reference and far from the wrong ones, and a wrong answer
    in the question's frame is close to both: the plain score cannot tell them apart, its ``-wrong`` can."""
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.4).astype(float)
    scores = {m: np.clip(0.6 + 0.1 * rng.standard_normal(n), 0, 1) for m in calibration.JUDGE_INPUTS}
    for m in calibration.JUDGE_INPUTS:
        scores[Role.WRONG.of(m)] = np.clip(np.where(y == 1, 0.3, 0.7) + 0.1 * rng.standard_normal(n), 0, 1)
    return scores, y


def test_fit_adds_a_judge_that_decides_the_rows_with_wrong_answers_in_kpqa_judges_place():
    scores, y = _synthetic()
    half = len(y) // 2
    for m in calibration.JUDGE_INPUTS:  # the first half has no known-wrong answers
        scores[Role.WRONG.of(m)][:half] = np.nan
    signatures = {c: f"{c}|x" for c in scores}
    cal = calibration.fit(scores, signatures, y)
    assert set(cal.metrics) == set(calibration.JUDGE_INPUTS)  # no entry of its own for an M-wrong column
    wrong = cal.judges[calibration.WRONG_JUDGE]
    assert wrong.replaces == calibration.JUDGE and wrong.calibration.fit.n == len(y) - half
    decisions = calibration.Decisions(cal, {}, calibration.JudgeSet.every(cal))
    out = decisions.apply(scores)
    assert set(out) == {f"{calibration.JUDGE}-prob", f"{calibration.JUDGE}-correct"}
    plain = cal.judges[calibration.JUDGE].prob(scores)
    assert np.array_equal(out[f"{calibration.JUDGE}-prob"][:half], plain[:half])  # rows without: KPQA-judge's own
    assert np.array_equal(out[f"{calibration.JUDGE}-prob"][half:], wrong.prob(
        {m: scores[m][half:] for m in wrong.inputs}))
    held = (out[f"{calibration.JUDGE}-correct"] == y)
    assert held[half:].mean() > 0.95 > held[:half].mean()  # the evidence decides what the scores alone cannot
    assert calibration.decision_columns(cal, list(scores)) == [
        f"{c}{s}" for c in [*calibration.JUDGE_INPUTS, calibration.JUDGE] for s in calibration.DECISION_SUFFIXES]
    signature = decisions.signatures({})
    assert "known-wrong:" in str(signature[f"{calibration.JUDGE}-prob"])


def test_a_calibration_with_the_wrong_judge_round_trips_and_a_plain_one_names_no_replaces(tmp_path):
    scores, y = _synthetic()
    cal = calibration.fit(scores, {c: f"{c}|x" for c in scores}, y)
    cal.save(tmp_path / "c.json")
    raw = json.loads((tmp_path / "c.json").read_text())
    assert raw["judges"][calibration.WRONG_JUDGE]["replaces"] == calibration.JUDGE
    assert "replaces" not in raw["judges"][calibration.JUDGE]
    again = calibration.Calibration.load(tmp_path / "c.json")
    assert again.to_json() == cal.to_json()
    assert np.array_equal(again.judges[calibration.WRONG_JUDGE].prob(scores),
                          cal.judges[calibration.WRONG_JUDGE].prob(scores))


@pytest.mark.model
def test_deciding_without_wrong_answers_warns_of_nothing_and_with_them_the_wrong_judge_decides(recwarn, monkeypatch):
    monkeypatch.setattr("kpqa.calibration.fitness.MIN_BALANCED", 0.0)  # the plain judge of made-up scores decides
    scores, y = _synthetic()
    inputs = ["F1", "Contains", "ROUGE-L", "BLEU-1"]
    frame = FRAME.copy()
    # a calibration on these four lexical metrics and their -wrong: fitted from synthetic scores
    signer = Scorer(inputs)  # the signatures of the four and of their -wrong columns
    cal = calibration.fit({m: scores[calibration.JUDGE_INPUTS[k]] for k, m in enumerate(inputs)} |
                          {Role.WRONG.of(m): scores[Role.WRONG.of(calibration.JUDGE_INPUTS[k])]
                           for k, m in enumerate(inputs)},
                          signer.signatures(signer.plan(known_wrong=True)), y, judge_inputs=inputs)
    plain = Scorer(inputs, calibration=cal).score(frame.drop(columns="incorrect_answers")).frame
    assert not [w for w in recwarn if "left out" in str(w.message)]
    judged = Scorer(inputs, calibration=cal).score(frame).frame
    assert f"{calibration.WRONG_JUDGE}-prob" not in judged
    assert judged[f"{calibration.JUDGE}-prob"][2] == plain[f"{calibration.JUDGE}-prob"][2]  # no wrong answers there
    assert judged[f"{calibration.JUDGE}-prob"][0] < plain[f"{calibration.JUDGE}-prob"][0]  # it repeats a wrong one


@pytest.mark.model
def test_kpqa_score_takes_incorrect_answers_as_the_file_does():
    import kpqa

    wrong = frame_to_table(FRAME).rows.wrong
    got = kpqa.score(list(FRAME["question"]), list(FRAME["answer"]),
                     [[r for r in row if r] for row in FRAME[["reference1", "reference2"]].values.tolist()],
                     metrics=["F1", "ROUGE-L"], incorrect_answers=wrong)
    from_file = Scorer(["F1", "ROUGE-L"]).score(FRAME).frame
    for column in ("F1", "ROUGE-L", "F1-wrong", "ROUGE-L-wrong"):
        assert np.array_equal(got[column].to_numpy(), from_file[column].to_numpy(), equal_nan=True)
    with pytest.raises(Exception, match="incorrect_answers.*one list per candidate"):
        kpqa.score(["q"], ["a"], ["r"], metrics=["F1"], incorrect_answers=[])


def test_calibrate_fits_the_wrong_judge_on_the_file_that_has_known_wrong_answers(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("kpqa.calibration.fitness.MIN_BALANCED", 0.0)
    rng = np.random.default_rng(5)
    rows = []
    for i in range(60):  # right answers repeat the reference, wrong ones repeat a known-wrong answer
        right = i % 2 == 0
        rows.append({"question": f"q{i}?", "answer": f"the answer is red{i}" if right else f"the answer is blue{i}",
                     "reference1": f"red{i} it is", "incorrect_answers": f"blue{i} it is ; green{i}",
                     "scores": int(right)})
    with_wrong = pd.DataFrame(rows)
    plain = pd.DataFrame([{**r, "answer": r["answer"] if rng.random() < 0.8 else "no idea"}
                          for r in rows]).drop(columns="incorrect_answers")
    with_wrong.to_csv(tmp_path / "w.csv", index=False)
    plain.to_csv(tmp_path / "p.csv", index=False)
    assert main(["calibrate", str(tmp_path / "p.csv"), str(tmp_path / "w.csv"), "--metrics", "F1,Contains",
                 "--judge-inputs", "F1,Contains", "-o", str(tmp_path / "c.json"), "--quiet"]) == 0
    cal = calibration.Calibration.load(tmp_path / "c.json")
    wrong = cal.judges[calibration.WRONG_JUDGE]
    assert wrong.inputs == ["F1", "Contains", "F1-wrong", "Contains-wrong"] and wrong.calibration.fit.n == 60
    assert cal.judges[calibration.JUDGE].calibration.fit.n == 120 and set(cal.metrics) == {"F1", "Contains"}
    # the scores written by kpqa score are reused: the -wrong columns of the one file, none of the other
    for name in ("p", "w"):
        assert main(["score", str(tmp_path / f"{name}.csv"), "--metrics", "F1,Contains", "-o",
                     str(tmp_path / f"s{name}.csv"), "--quiet"]) == 0
    assert main(["calibrate", str(tmp_path / "sp.csv"), str(tmp_path / "sw.csv"), "--metrics", "F1,Contains",
                 "--judge-inputs", "F1,Contains", "--reuse-scores", "-o", str(tmp_path / "c2.json"), "--quiet"]) == 0
    again = calibration.Calibration.load(tmp_path / "c2.json")
    assert again.judges[calibration.WRONG_JUDGE].to_dict() == wrong.to_dict()


@pytest.mark.model
def test_meta_eval_decides_rows_with_known_wrong_answers_as_kpqa_score_decide_does(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("kpqa.calibration.fitness.MIN_BALANCED", 0.0)
    # most wrong answers are as close to the reference as the right ones: only the known-wrong answer tells them apart
    rows = [{"question": f"q{i}?", "answer": f"it is red{i} surely" if i % 3 else f"it is blue{i} red{i}" if i % 2
             else f"it is blue{i}",
             "reference1": f"red{i} it is", "incorrect_answers": f"blue{i} it is ; green{i}", "scores": int(i % 3 > 0)}
            for i in range(150)]
    pd.DataFrame(rows).to_csv(tmp_path / "w.csv", index=False)
    assert main(["calibrate", str(tmp_path / "w.csv"), "--metrics", "F1,Contains", "--judge-inputs", "F1,Contains",
                 "-o", str(tmp_path / "c.json"), "--quiet"]) == 0
    assert main(["score", str(tmp_path / "w.csv"), "--metrics", "F1,Contains", "--calibration", str(tmp_path / "c.json"),
                 "-o", str(tmp_path / "s.csv"), "--quiet"]) == 0
    scored = pd.read_csv(tmp_path / "s.csv")
    accuracy = float((scored[f"{calibration.JUDGE}-correct"] == scored["scores"]).mean())
    assert main(["meta-eval", str(tmp_path / "w.csv"), "--metrics", "F1,Contains", "--calibration",
                 str(tmp_path / "c.json"), "--json", str(tmp_path / "m.json"), "-o", str(tmp_path / "m.md")]) == 0
    assert accuracy == 1.0  # KPQA-judge+wrong decided every row (KPQA-judge alone: 5 of 6)
    report = json.loads((tmp_path / "m.json").read_text())
    results = report["datasets"][0]["binary"]["results"]
    assert calibration.WRONG_JUDGE not in results and not any(role_of(c) is Role.WRONG for c in results)
    assert results[calibration.JUDGE]["accuracy"]["value"] == pytest.approx(accuracy)
    # kpqa compare reads KPQA-judge's decisions of the two systems, made by KPQA-judge+wrong on these rows
    other = pd.DataFrame(rows).assign(answer=lambda f: [f"it is blue{i} red{i}" for i in range(len(f))])
    other.to_csv(tmp_path / "b.csv", index=False)
    assert main(["compare", str(tmp_path / "w.csv"), str(tmp_path / "b.csv"), "--metrics", "F1,Contains",
                 "--calibration", str(tmp_path / "c.json"), "--json", str(tmp_path / "cmp.json")]) == 0
    compared = json.loads((tmp_path / "cmp.json").read_text())
    assert f"{calibration.JUDGE}-correct" in json.dumps(compared) and calibration.WRONG_JUDGE not in json.dumps(compared)


@pytest.mark.model
def test_meta_eval_decides_as_score_decide_does_on_known_wrong_answers(tmp_path, capsys):
    """``kpqa meta-eval`` of a ``kpqa score --decide -o`` file with ``incorrect_answers``: its KPQA-judge is the one
    the file holds (KPQA-judge+wrong in its place on the rows with known-wrong answers), not the plain judge: the
    same AUROC as the file's ``KPQA-judge-prob``, and a note says so. Likewise from the unscored file. A
    calibration of F1 and ROUGE-L fitted here, so that no model loads."""
    from sklearn.metrics import roc_auc_score

    rows = []
    for k in range(60):
        ref, wrong = f"the answer number {k}", f"a wrong claim {k}"
        answer = [ref, f"answer {k} maybe", wrong, f"claim {k} the answer"][k % 4]
        label = int(k % 4 in (0, 1)) if k % 7 else int(k % 4 == 2)
        rows.append((f"question {k}", answer, ref, json.dumps([wrong]) if k % 5 else "", label))
    pd.DataFrame(rows, columns=["question", "answer", "reference1", "incorrect_answers", "scores"]).to_csv(
        tmp_path / "t.csv", index=False)
    t, cal, scored = str(tmp_path / "t.csv"), str(tmp_path / "c.json"), str(tmp_path / "J.csv")
    lexical = ["--metrics", "F1,ROUGE-L", "--quiet"]
    assert main(["calibrate", t, "--judge-inputs", "F1,ROUGE-L", "-o", cal] + lexical) == 0
    assert json.loads((tmp_path / "c.json").read_text())["judges"]["KPQA-judge+wrong"]["replaces"] == "KPQA-judge"
    assert main(["score", t, "--decide", "--calibration", cal, "-o", scored] + lexical) == 0
    frame = pd.read_csv(scored)
    held = roc_auc_score(frame["scores"], frame["KPQA-judge-prob"])
    for source in (scored, t):
        capsys.readouterr()
        report = str(tmp_path / "m.json")
        assert main(["meta-eval", source, "--calibration", cal, "--json", report, "--force"] + lexical) == 0
        binary = json.loads((tmp_path / "m.json").read_text())["datasets"][0]["binary"]
        assert binary["results"]["KPQA-judge"]["auroc"]["value"] == pytest.approx(held)
        assert any("by KPQA-judge+wrong on the 48 rows with known-wrong answers" in n for n in binary["notes"])


def test_a_known_wrong_answer_equal_to_a_reference_is_warned_of_naming_its_rows():
    """An ``incorrect_answers`` entry equal to one of the row's references (case and spacing aside): one warning
    naming those rows; the rows are still scored. A row whose wrong answers differ from its references is not
    named."""
    from kpqa.errors import KpqaWarning

    frame = pd.DataFrame({"question": ["q1", "q2", "q3"], "answer": ["a b", "x", "y"],
                          "reference1": ["Paris", "rome", "Oslo"],
                          "incorrect_answers": ['["  paris ", "lyon"]', '["milan"]', "oslo"]})
    with pytest.warns(KpqaWarning, match=r"incorrect_answers entry equals one of the references in row\(s\) 1, 3:"):
        result = Scorer(LEXICAL).score(frame)
    assert len(result.frame) == 3 and not result.errors
