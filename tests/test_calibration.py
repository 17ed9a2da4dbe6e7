"""Contains, calibration fitting / files, decisions, and the calibrate / score --decide / meta-eval
commands on binary labels (lexical metrics only, so it is fast)."""
from __future__ import annotations

import hashlib
import json
from dataclasses import asdict
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from sklearn.isotonic import IsotonicRegression
from sklearn.metrics import roc_auc_score

from kpqa import arraystats, binary, calibration
from kpqa.calibration import Calibration, CalibrationError, fit_metric
from kpqa.cli import main
from kpqa.signature import Signature
from kpqa.errors import InputError, UsageError
from kpqa.metrics.squad import contains


@pytest.fixture
def every_entry_decides(monkeypatch):
    """For the tests that check how decisions are fitted, made and written on small made-up sets, whose lexical
    metrics sit under the bar of kpqa/calibration/fitness.py (balanced 0.833 < 0.85): the bar lifted (it is tested in
    test_hostile.py). Not autouse: a test of the shipped calibration must rate it by the real bar."""
    monkeypatch.setattr("kpqa.calibration.fitness.MIN_BALANCED", 0.0)


@pytest.mark.parametrize(("candidate", "references", "expected"), [
    ("It was written by William Shakespeare.", ["Shakespeare"], 1.0),
    ("The Chipmunks were created by Ross Bagdasarian.", ["David Seville"], 0.0),
    ("Born in 1990", ["9"], 0.0),  # whole tokens only
    ("the answer is The Beatles!", ["Rolling Stones", "the beatles"], 1.0),  # max over references, normalised
    ("anything at all", ["The", "a"], 0.0),  # references that normalise to nothing never match
    ("U.S. president", ["US"], 1.0),
])
def test_contains_worked_examples(candidate, references, expected):
    assert contains(candidate, references) == expected


def test_threshold_maximises_accuracy_on_a_hand_made_set():
    scores = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0] * 2)
    labels = np.array([0, 0, 0, 1, 0, 1, 1, 1, 1, 1] * 2, dtype=float)
    cal = fit_metric("m", "m|version:x", scores, labels, rule="accuracy")
    # score >= 0.35 gets 9 of 10 right (0.5 is the one miss); score >= 0.55 also 9 of 10: the lower one is kept
    assert cal.threshold == pytest.approx(0.35)
    assert cal.fit.accuracy == pytest.approx(0.9)
    brute = max(np.mean((scores >= t) == labels) for t in np.linspace(0, 1.1, 221))
    assert cal.fit.accuracy == pytest.approx(brute)
    assert cal.decide([0.3, 0.35, 0.9]).tolist() == [0.0, 1.0, 1.0]


def test_balanced_threshold_does_not_follow_the_share_of_correct_answers():
    scores = np.array([0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0] * 2)
    labels = np.array([0, 0, 0, 1, 0, 1, 1, 1, 1, 1] * 2, dtype=float)
    cal = fit_metric("m", "m|version:x", scores, labels)  # the default rule: balanced accuracy
    # >= 0.35: recall of correct 6/6, of wrong 3/4 -> 0.875; >= 0.55: 5/6 and 4/4 -> 0.917
    assert cal.rule == "balanced" and cal.threshold == pytest.approx(0.55)
    assert cal.fit.balanced_accuracy == pytest.approx((5 / 6 + 1) / 2)
    assert cal.thresholds == pytest.approx({"balanced": 0.55, "accuracy": 0.35, "kappa": 0.55})
    # five times the correct answers: the accuracy threshold moves down, the balanced one stays
    many = np.concatenate([scores, np.repeat(scores[labels == 1], 4)])
    y = np.concatenate([labels, np.ones(4 * int(labels.sum()))])
    assert fit_metric("m", "m", many, y).threshold == pytest.approx(0.55)
    assert fit_metric("m", "m", many, y, rule="accuracy").threshold == pytest.approx(0.35)
    with pytest.raises(UsageError, match="unknown threshold rule"):
        fit_metric("m", "m", scores, labels, rule="f1")


@pytest.mark.parametrize("method", calibration.METHODS)
def test_calibrated_probability_is_monotone_and_in_range(method):
    rng = np.random.default_rng(1)
    s = rng.random(500)
    y = (rng.random(500) < s).astype(float)
    cal = fit_metric("m", "m", s, y, method)
    grid = np.linspace(-0.5, 1.5, 201)
    p = cal.prob(grid)
    assert np.all(np.diff(p) >= -1e-12) and p.min() >= 0 and p.max() <= 1
    assert cal.prob([0.05])[0] < 0.3 < 0.7 < cal.prob([0.95])[0]


@pytest.mark.parametrize(("labels", "message"), [
    (np.ones(30), "every label is correct"),
    (np.array([0, 1] * 9, dtype=float), "18 labelled rows"),
])
def test_fit_refuses_one_class_and_few_rows(labels, message):
    with pytest.raises(InputError, match=message):
        fit_metric("m", "m", np.linspace(0, 1, len(labels)), labels)


def _fitted(signature: str = "ROUGE-L|tok:ptb|version:0.1.0|kpw:aaaa|precision:fp32") -> Calibration:
    s = np.linspace(0, 1, 40)
    return calibration.fit({"ROUGE-L": s}, {"ROUGE-L": Signature.parse(signature)}, (s > 0.5).astype(float), data=[],
                           label_rule="test")


def test_file_round_trip_and_signature_check(tmp_path):
    cal = _fitted()
    cal.save(tmp_path / "c.json")
    loaded = Calibration.load(tmp_path / "c.json")
    assert loaded.digest == cal.digest and loaded.to_dict() == cal.to_dict()
    assert isinstance(loaded.metrics["ROUGE-L"].params, calibration.IsotonicMap)
    assert loaded.metrics["ROUGE-L"].params == cal.metrics["ROUGE-L"].params
    bf16 = Signature.parse("ROUGE-L|tok:ptb|version:0.1.0|kpw:aaaa|precision:bf16")
    entry = loaded.entry("ROUGE-L", bf16)  # precision ignored
    assert 1 - calibration.P_EDGE < entry.prob([0.9])[0] < 1
    with pytest.raises(CalibrationError, match="kpw:aaaa.*not.*kpw:bbbb.*refit"):
        loaded.entry("ROUGE-L", Signature.parse("ROUGE-L|tok:ptb|version:0.1.0|kpw:bbbb|precision:fp32"))
    with pytest.raises(CalibrationError, match="no entry for BLEU-1"):
        loaded.entry("BLEU-1", Signature.parse("BLEU-1|tok:ptb"))
    (tmp_path / "bad.json").write_text("{}")
    with pytest.raises(CalibrationError, match="format"):
        Calibration.load(tmp_path / "bad.json")


# ------------------------------------------------------------------------------ strictly increasing P(correct)

def _synthetic(n: int = 600, seed: int = 7) -> tuple[np.ndarray, np.ndarray]:
    """Scores with ties and labels more often correct at higher scores (isotonic fits give plateaus)."""
    rng = np.random.default_rng(seed)
    s = np.round(rng.random(n), 3)
    return s, (rng.random(n) < 0.2 + 0.6 * s).astype(float)


SYNTHETIC = fit_metric("m", "m", *_synthetic())


@settings(max_examples=300, deadline=None)
@given(st.floats(0.0, 1.0), st.floats(1e-9, 1.0))
def test_p_correct_rises_strictly_with_the_score(x, step):
    x1, x2 = x, min(x + step, 1.0)  # inside the fitted range [0, 1]
    assume(x2 - x1 >= 1e-9)
    assert SYNTHETIC.prob([x1])[0] < SYNTHETIC.prob([x2])[0]


@settings(max_examples=100, deadline=None)
@given(st.floats(-0.5, 1.5), st.floats(1e-3, 2.0))
def test_p_correct_rises_beyond_the_fitted_range_too(x, step):
    """On the logistic tails (in floating point they reach 0 and 1 far enough out)."""
    assume(min(x + step, 1.5) - x >= 1e-3)
    assert 0 < SYNTHETIC.prob([x])[0] < SYNTHETIC.prob([min(x + step, 1.5)])[0] < 1


def test_p_correct_ranks_answers_as_the_score_does_and_ties_only_equal_scores():
    s, y = _synthetic(400, seed=8)
    p = SYNTHETIC.prob(s)
    assert arraystats.auroc(y[None], p[None])[0] == arraystats.auroc(y[None], s[None])[0]
    assert len(np.unique(p)) == len(np.unique(s))
    assert 0 < p.min() and p.max() < 1
    steps = IsotonicRegression(out_of_bounds="clip").fit(*_synthetic())
    assert len(np.unique(steps.predict(s))) < len(np.unique(s)) / 4  # what the steps gave: plateaus


def test_the_judge_gives_different_rows_different_probabilities():
    s, y = _synthetic(300, seed=9)
    rng = np.random.default_rng(9)
    scores = {"a": s, "b": np.clip(s + rng.normal(0, 0.2, len(s)), 0, 1), "c": (rng.random(len(s)) < s).astype(float)}
    judge = calibration.fit_judge("j", scores, dict.fromkeys(scores, "j"), y)
    p = judge.prob(scores)
    rows = np.stack(list(scores.values()), axis=1)
    assert len(np.unique(p)) == len(np.unique(rows, axis=0))
    assert arraystats.auroc(y[None], p[None])[0] == arraystats.auroc(y[None], judge.logit(scores)[None])[0]


def test_the_strict_map_is_as_well_calibrated_as_the_steps():
    s, y = _synthetic(2000, seed=10)
    held_s, held_y = _synthetic(2000, seed=11)
    steps = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip")
    steps.fit(s, y, sample_weight=calibration.balanced_weights(y))
    strict = fit_metric("m", "m", s, y)
    for scores, labels in ((s, y), (held_s, held_y)):
        before = arraystats.ece(labels, steps.predict(scores))
        assert abs(arraystats.ece(labels, strict.prob(scores)) - before) < 0.005


def test_a_format_3_file_loads_its_steps_as_the_strict_map(tmp_path):
    s, y = _synthetic()
    steps = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit(s, y, calibration.balanced_weights(y))
    raw = json.loads(_fitted().to_json())
    entry = raw["metrics"]["ROUGE-L"]
    entry["params"] = {"x": steps.X_thresholds_.tolist(), "y": steps.y_thresholds_.tolist()}
    (tmp_path / "old.json").write_text(json.dumps({**raw, "format": 3}))
    old = Calibration.load(tmp_path / "old.json")
    assert old.format == calibration.FORMAT == 4
    assert old.metrics["ROUGE-L"].params == calibration.IsotonicMap.from_steps(steps.X_thresholds_,
                                                                               steps.y_thresholds_)
    assert old.digest != hashlib.sha256((tmp_path / "old.json").read_bytes()).hexdigest()[:12]
    (tmp_path / "v2.json").write_text(json.dumps({**raw, "format": 2}))
    with pytest.raises(CalibrationError, match=r"format 2, expected 4 \(or 3\); refit it"):
        Calibration.load(tmp_path / "v2.json")
    entry["params"] = {"x": [0.0, 1.0], "y": [0.7, 0.2]}
    (tmp_path / "bad.json").write_text(json.dumps({**raw, "format": 4}))
    with pytest.raises(CalibrationError, match="strictly increasing"):
        Calibration.load(tmp_path / "bad.json")


def test_the_shipped_calibration_loads_with_strict_maps():
    path = calibration.default_path()
    if not path.exists():
        pytest.fail(f"the committed calibration is missing at {path}")
    cal = Calibration.load(path)
    grid = np.linspace(-12, 12, 2001)
    for entry in [*cal.metrics.values(), *(j.calibration for j in cal.judges.values())]:
        if isinstance(entry.params, calibration.IsotonicMap):
            x = grid if entry.metric == calibration.JUDGE else np.linspace(0, 1, 2001)
            assert np.all(np.diff(entry.prob(x)) > 0), entry.metric


# ------------------------------------------------------------------------------------------------ the commands

LEXICAL = "ROUGE-L,F1,Contains"
QUESTIONS = [("who wrote hamlet", "william shakespeare"), ("capital of france", "paris"),
             ("largest planet", "jupiter"), ("first man on the moon", "neil armstrong"),
             ("boiling point of water in celsius", "100 degrees")]


def _binary_csv(path, rows: int = 40, labels=None):
    records = []
    for i in range(rows):
        question, gold = QUESTIONS[i % len(QUESTIONS)]
        right = i % 3 != 0
        answer = f"I think it is {gold} for sure" if right else f"maybe it is {QUESTIONS[(i + 1) % 5][1]}"
        label = labels[i] if labels is not None else float(right if i % 7 else not right)
        records.append({"question": question, "answer": answer, "reference1": gold, "scores": label})
    pd.DataFrame(records).to_csv(path, index=False)
    return path


@pytest.mark.model
@pytest.mark.usefixtures("every_entry_decides")
def test_calibrate_then_score_with_decisions(tmp_path, capsys):
    data = _binary_csv(tmp_path / "train.csv")
    assert main(["calibrate", str(data), "-o", str(tmp_path / "cal.json"), "--metrics", LEXICAL, "--quiet"]) == 0
    saved = json.loads((tmp_path / "cal.json").read_text())
    assert set(saved["metrics"]) == {"ROUGE-L", "F1", "Contains"}
    assert saved["data"][0]["rows"] == 40 and saved["metrics"]["F1"]["signature"].startswith("F1|norm:squad-v1.1")
    capsys.readouterr()
    out = tmp_path / "scored.csv"
    assert main(["score", str(data), "-o", str(out), "--metrics", LEXICAL, "--calibration", str(tmp_path / "cal.json"),
                 "--quiet"]) == 0
    frame = pd.read_csv(out)
    assert list(frame.columns[-6:]) == ["ROUGE-L-prob", "ROUGE-L-correct", "F1-prob", "F1-correct",
                                        "Contains-prob", "Contains-correct"]
    cal = Calibration.load(tmp_path / "cal.json")
    entry = cal.metrics["ROUGE-L"]
    assert frame["ROUGE-L-correct"].tolist() == (frame["ROUGE-L"] >= entry.threshold).astype(float).tolist()
    summary = capsys.readouterr().out.splitlines()
    row = next(line.split() for line in summary if line.startswith("ROUGE-L "))
    assert summary[1].split() == ["metric", "score", "P(correct)", "correct", "signature"]
    assert row[2:4] == [f"{frame['ROUGE-L-prob'].mean():.4f}", f"{frame['ROUGE-L-correct'].mean():.4f}"]
    record = json.loads((tmp_path / "scored.csv.signatures.json").read_text())
    assert record["calibration"] == {"path": str(tmp_path / "cal.json"), "digest": cal.digest}
    assert f"|cal:{cal.digest}" in record["signatures"]["ROUGE-L-correct"]


def _fails(capsys, argv, message, output):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("kpqa: error:") and message in err
    assert not output.exists() and not list(output.parent.glob(f".{output.name}*"))


def test_calibrate_bad_input_is_one_line_exit_2_and_nothing_written(tmp_path, capsys):
    out = tmp_path / "out" / "cal.json"
    out.parent.mkdir()
    graded = _binary_csv(tmp_path / "graded.csv", labels=[i % 5 for i in range(40)])
    _fails(capsys, ["calibrate", str(graded), "-o", str(out), "--metrics", LEXICAL], "is not 0 or 1", out)
    one = _binary_csv(tmp_path / "one.csv", labels=[1.0] * 40)
    _fails(capsys, ["calibrate", str(one), "-o", str(out), "--metrics", LEXICAL], "needs both classes", out)
    few = _binary_csv(tmp_path / "few.csv", rows=19)
    _fails(capsys, ["calibrate", str(few), "-o", str(out), "--metrics", LEXICAL], "at least 20", out)
    # graded labels are fine with --positive-above
    assert main(["calibrate", str(graded), "-o", str(out), "--metrics", LEXICAL, "--positive-above", "2",
                 "--quiet"]) == 0
    assert json.loads(out.read_text())["labels"] == "'scores' > 2"


def test_score_with_a_calibration_for_other_settings_fails_before_writing(tmp_path, capsys):
    data = _binary_csv(tmp_path / "train.csv")
    cal = tmp_path / "cal.json"
    assert main(["calibrate", str(data), "-o", str(cal), "--metrics", "ROUGE-L", "--tokenize", "whitespace",
                 "--quiet"]) == 0
    assert "no KPQA-judge fitted" in capsys.readouterr().err  # ROUGE-L alone: said, not silent
    out = tmp_path / "scored.csv"
    _fails(capsys, ["score", str(data), "-o", str(out), "--metrics", "ROUGE-L", "--calibration", str(cal)],
           "tok:whitespace", out)
    _fails(capsys, ["score", str(data), "-o", str(out), "--metrics", "F1", "--calibration", str(cal)],
           "no entry for F1", out)


@pytest.mark.model
def test_meta_eval_binary_section(tmp_path, capsys):
    data = _binary_csv(tmp_path / "judged.csv")
    cal = tmp_path / "cal.json"
    assert main(["calibrate", str(data), "-o", str(cal), "--metrics", "ROUGE-L", "--quiet"]) == 0
    report = tmp_path / "report.json"
    assert main(["meta-eval", str(data), "--metrics", "ROUGE-L,F1", "--calibration", str(cal), "--bootstrap", "50",
                 "-o", str(tmp_path / "r.md"), "--json", str(report), "--plots", str(tmp_path / "plots"),
                 "--quiet"]) == 0
    b = json.loads(report.read_text())["datasets"][0]["binary"]
    assert list(b["results"]) == ["ROUGE-L", "F1", "Contains", "majority class"]
    frame = pd.read_csv(data)
    entry = Calibration.load(cal).metrics["ROUGE-L"]
    from kpqa.metrics import Context, Rows, get_metric

    rows = Rows(list(frame.question), list(frame.answer), [[r] for r in frame.reference1])
    rouge = get_metric("ROUGE-L").score(rows, Context())["ROUGE-L"]
    assert b["results"]["ROUGE-L"]["accuracy"]["value"] == pytest.approx(
        np.mean(entry.decide(rouge) == frame.scores))
    assert b["results"]["ROUGE-L"]["auroc"]["value"] == pytest.approx(roc_auc_score(frame.scores, rouge))
    assert b["results"]["majority class"]["accuracy"]["value"] == pytest.approx(max(frame.scores.mean(),
                                                                                    1 - frame.scores.mean()))
    assert "brier" not in b["results"]["F1"]  # no calibration for F1: ranking statistics only
    # accuracy per answer-length band: the answers here are 4-8 words long, so one band holding every row
    bands = binary.length_bands(frame.answer)
    assert list(b["bands"]) == [binary.band_name(binary.LENGTH_BANDS[i]) for i in sorted(set(bands))]
    for name, band in b["bands"].items():
        rows_in = bands == [binary.band_name(x) for x in binary.LENGTH_BANDS].index(name)
        assert band["rows"] == rows_in.sum()
        assert band["accuracy"]["ROUGE-L"] == pytest.approx(np.mean(entry.decide(rouge)[rows_in] ==
                                                                    frame.scores[rows_in]))
    assert "Correct or not" in (tmp_path / "r.md").read_text()
    assert "Accuracy (%) by answer length" in (tmp_path / "r.md").read_text()
    assert (tmp_path / "plots" / "judged-reliability.png").stat().st_size > 0


@pytest.mark.model
def test_shipped_calibration_fits_the_shipped_weighter():
    """Fails after the weighter is replaced until the calibration is refit (README: "Is the answer correct?")."""
    from kpqa.scoring import DECIDE_METRICS, Scorer

    path = calibration.default_path()
    if not path.exists():
        pytest.fail(f"the committed calibration is missing at {path}")
    scorer = Scorer(decide=True, device="cpu")
    assert [m.columns()[0] for m in scorer.metrics] == list(DECIDE_METRICS)
    decisions = scorer.decisions(scorer.plan())  # raises CalibrationError when a signature does not match
    cal = scorer.calibration  # decisions of the metrics whose calibration passes the bar (kpqa.calibration.fitness)
    assert set(decisions.entries) == {m for m in DECIDE_METRICS if cal.rating(m).fit}
    assert [j.name for j in decisions.judges] == [calibration.JUDGE]
    assert cal.data[0].path.endswith("evouna_tq_dev.csv") and cal.data[0].rows == 4805
    contrastive = cal.data[1]  # the fit part of python -m kpqa.train.contrastive: half its answers correct
    assert contrastive.path.endswith("fit.csv") and contrastive.rows == 2 * contrastive.positives > 0
    for entry in decisions.entries.values():
        assert 0 <= entry.threshold <= 1 and entry.fit.n == cal.rows


@pytest.mark.parametrize("name", ["default", "mpnet"])
def test_a_shipped_calibration_file_reads_and_writes_the_same_json(name):
    """The file's text round-trips (format 4): the fits and data records as dataclasses write what was read."""
    path = calibration.default_path(name)
    cal = Calibration.load(path)
    assert isinstance(cal.metrics["BLEU-1"].fit, calibration.Fit) and isinstance(cal.data[0], calibration.DataFile)
    if json.loads(path.read_text())["format"] == calibration.FORMAT:
        assert cal.to_json() == path.read_text()
    assert cal.rows == sum(d.rows for d in cal.data) == cal.metrics["BLEU-1"].fit.n


@pytest.mark.model
@pytest.mark.usefixtures("every_entry_decides")
def test_meta_eval_decides_as_kpqa_score_decide(tmp_path, capsys):
    """One apply: the "correct or not" section's accuracy is that of the -correct columns kpqa score writes."""
    from kpqa import metaeval

    data = _binary_csv(tmp_path / "labels.csv")
    assert main(["calibrate", str(data), "-o", str(tmp_path / "cal.json"), "--metrics", LEXICAL, "--quiet"]) == 0
    assert main(["score", str(data), "-o", str(tmp_path / "out.csv"), "--metrics", LEXICAL, "--calibration",
                 str(tmp_path / "cal.json"), "--quiet"]) == 0
    capsys.readouterr()
    scored, labels = pd.read_csv(tmp_path / "out.csv"), pd.read_csv(data)["scores"].to_numpy()
    settings = metaeval.Settings(metrics=LEXICAL.split(","), bootstrap=0, calibration=str(tmp_path / "cal.json"))
    report = metaeval.run([str(data)], settings).datasets[0].binary
    for metric in LEXICAL.split(","):
        agree = float(np.mean(scored[f"{metric}-correct"].to_numpy() == labels))
        assert report.results[metric]["accuracy"]["value"] == pytest.approx(agree, abs=1e-12)
    assert report.notes == []  # every column scored here: signatures checked


def test_decisions_of_scores_read_from_a_file_are_unchecked_and_a_column_without_entry_is_left():
    cal = _fitted()  # ROUGE-L only
    decisions = calibration.Decisions.of(cal, {"ROUGE-L": None, "BLEU-1": None}, every=False)
    assert list(decisions.entries) == ["ROUGE-L"] and decisions.unchecked == ["ROUGE-L"]
    s = np.array([0.1, 0.9])
    out = decisions.apply({"ROUGE-L": s, "BLEU-1": s})
    assert list(out) == ["ROUGE-L-prob", "ROUGE-L-correct"]
    assert out["ROUGE-L-correct"].tolist() == (s >= cal.metrics["ROUGE-L"].threshold).astype(float).tolist()
    with pytest.raises(CalibrationError, match="has no entry for BLEU-1"):
        calibration.Decisions.of(cal, {"BLEU-1": Signature.parse("BLEU-1|tok:ptb")})


#: rows of examples/sample.csv (counting from 1) a person judges wrong: Figure 1's "seven", Dickens, 90 degrees, Berlin
SAMPLE_WRONG = (1, 4, 7, 8)
#: (question, reference, a correct answer, its key fact, other facts of the same type): the CI swap test's rows, in
#: tests/data/key_fact_swaps.json so that an experiment reads them without importing a test
SWAPS = [(d["question"], d["reference"], d["answer"], d["key"], d["others"]) for d in
         json.loads((Path(__file__).parent / "data" / "key_fact_swaps.json").read_text(encoding="utf-8"))]


@pytest.mark.model
@pytest.mark.slow
def test_shipped_judge_decides_the_sample_rows_as_a_person_would():
    from kpqa.scoring import Scorer

    sample = Path(__file__).resolve().parents[1] / "examples" / "sample.csv"
    frame = Scorer(decide=True, device="cpu").score(str(sample)).frame
    expected = [0.0 if row in SAMPLE_WRONG else 1.0 for row in range(1, len(frame) + 1)]
    assert frame["KPQA-judge-correct"].tolist() == expected
    assert ((frame["KPQA-judge-prob"] >= 0.5) == (frame["KPQA-judge-correct"] == 1)).all()


@pytest.mark.model
@pytest.mark.slow
def test_swapping_the_key_fact_of_a_correct_answer_lowers_p_correct_below_one_half():
    from kpqa.scoring import Scorer

    rows = []
    for question, reference, answer, key, others in SWAPS:
        rows.append((question, answer, reference, None))
        rows += [(question, answer.replace(key, other), reference, answer) for other in others]
    frame = Scorer(decide=True, device="cpu").score(
        [{"question": q, "answer": a, "references": [r]} for q, a, r, _ in rows]).frame
    prob = frame["KPQA-judge-prob"].to_numpy()
    swapped = np.array([original is not None for *_, original in rows])
    assert (prob[swapped] < 0.5).all(), frame.loc[swapped & (prob >= 0.5), ["answer", "KPQA-judge-prob"]]
    assert (prob[~swapped] >= 0.5).all(), frame.loc[~swapped & (prob < 0.5), ["answer", "KPQA-judge-prob"]]


def test_class_balanced_fit_equals_an_unweighted_fit_on_balanced_data():
    # 85 % correct, as EVOUNA-TQ: weighting each class by half is the same as repeating the wrong answers until the
    # classes are even, so P(correct) assumes half the answers are correct (calibration.PRIOR)
    rng = np.random.default_rng(3)
    s = rng.random(200)
    y = (rng.random(200) < 0.5 + 0.45 * s).astype(float)
    y[:4] = [0, 0, 1, 1]
    wrong, right = int((y == 0).sum()), int(y.sum())
    assert right > 2 * wrong
    cal = fit_metric("m", "m", s, y)
    # repeat each wrong row right times and each correct row wrong times: both classes weigh wrong * right
    even = fit_metric("m", "m", np.concatenate([np.repeat(s[y == 0], right), np.repeat(s[y == 1], wrong)]),
                      np.concatenate([np.zeros(wrong * right), np.ones(wrong * right)]))
    grid = np.linspace(0, 1, 51)
    np.testing.assert_allclose(cal.prob(grid), even.prob(grid), atol=1e-9)
    assert calibration.PRIOR == 0.5


def test_prior_moves_the_odds_and_the_decisions():
    p = np.array([0.0, 0.2, 0.5, 0.8, 1.0])
    np.testing.assert_allclose(calibration.with_prior(p, 0.5), p)
    # odds 1 -> 9 at a 90 % prior: P = 0.9; 0 and 1 stay
    np.testing.assert_allclose(calibration.with_prior(p, 0.9), [0.0, 0.2 * 9 / (0.2 * 9 + 0.8), 0.9, 0.8 * 9 /
                                                                  (0.8 * 9 + 0.2), 1.0])
    with pytest.raises(UsageError, match="strictly between 0 and 1"):
        calibration.with_prior(p, 1.0)
    rng = np.random.default_rng(5)
    s = rng.random(300)
    cal = fit_metric("m", "m", s, (rng.random(300) < s).astype(float), "logistic")
    shares = [cal.decide(s, prior).mean() for prior in (0.1, 0.3, 0.5, 0.7, 0.9)]
    assert shares == sorted(shares) and shares[0] < shares[-1]  # a higher prior judges more answers correct
    assert cal.decide(s, 0.5).tolist() == (cal.prob(s) >= 0.5).astype(float).tolist()
    params = cal.params
    assert isinstance(params, calibration.LogisticMap) and params.coef > 0
    assert calibration.MetricCalibration.from_dict(asdict(cal)) == cal
    np.testing.assert_array_equal(cal.prob(s), 1 / (1 + np.exp(-(params.coef * s + params.intercept))))


@pytest.mark.model
@pytest.mark.usefixtures("every_entry_decides")
def test_prior_needs_decisions_and_goes_into_their_signatures(tmp_path, capsys):
    from kpqa.scoring import Scorer

    with pytest.raises(UsageError, match="needs decide=True"):
        Scorer(["ROUGE-L"], prior=0.7)
    data = _binary_csv(tmp_path / "labels.csv")
    assert main(["calibrate", str(data), "--metrics", "ROUGE-L", "-o", str(tmp_path / "cal.json"), "--quiet"]) == 0
    capsys.readouterr()
    assert main(["score", str(data), "--metrics", "ROUGE-L", "--calibration", str(tmp_path / "cal.json"),
                 "--prior", "0.8", "-o", str(tmp_path / "out.csv"), "--quiet"]) == 0
    assert "ROUGE-L " in capsys.readouterr().out
    assert "prior:0.8" in json.loads((tmp_path / "out.csv.signatures.json").read_text())["signatures"]["ROUGE-L-correct"]
    _fails(capsys, ["score", str(data), "--metrics", "ROUGE-L", "--calibration", str(tmp_path / "cal.json"),
                    "--prior", "1.5", "-o", str(tmp_path / "bad.csv")],
           "--prior 1.5: must be the expected share of correct answers, strictly between 0 and 1", tmp_path / "bad.csv")


def test_balanced_weights_give_each_source_and_class_its_share():
    y = np.array([1, 1, 1, 0, 1, 0], dtype=float)
    w = calibration.balanced_weights(y, ["a", "a", "a", "a", "b", "b"])
    np.testing.assert_allclose(w, [0.5, 0.5, 0.5, 1.5, 1.5, 1.5])  # a and b weigh 3 each; in each, the classes half
    np.testing.assert_allclose(calibration.balanced_weights(y), [0.75, 0.75, 0.75, 1.5, 0.75, 1.5])  # 4 and 2 rows


def test_calibrate_reuses_checked_score_columns(tmp_path, capsys):
    data = _binary_csv(tmp_path / "labels.csv")
    scored = tmp_path / "scored.csv"
    assert main(["score", str(data), "--metrics", LEXICAL, "-o", str(scored), "--quiet"]) == 0
    for name, inputs in (("fresh", [str(data)]), ("reused", [str(scored), "--reuse-scores"])):
        assert main(["calibrate", *inputs, "--metrics", LEXICAL, "-o", str(tmp_path / f"{name}.json"), "--quiet"]) == 0
    fresh, reused = (json.loads((tmp_path / f"{n}.json").read_text()) for n in ("fresh", "reused"))
    assert fresh["metrics"] == reused["metrics"] and fresh["judges"] == reused["judges"]
    partial = tmp_path / "partial.csv"  # a file with some of the columns: those are checked and taken, F1 scored
    pd.read_csv(scored).drop(columns=["F1"]).to_csv(partial, index=False)
    assert main(["calibrate", str(partial), "--reuse-scores", "--metrics", LEXICAL, "-o", str(tmp_path / "p.json"),
                 "--quiet"]) == 0
    taken = json.loads((tmp_path / "p.json").read_text())["metrics"]
    assert taken == fresh["metrics"] and list(taken) == LEXICAL.split(",")  # in the order asked, F1 scored last
    frame = pd.read_csv(scored)
    frame["ROUGE-L"] += 0.01  # scores of other settings: the spot check finds them
    frame.to_csv(scored, index=False)
    capsys.readouterr()
    _fails(capsys, ["calibrate", str(scored), "--reuse-scores", "--metrics", LEXICAL, "-o", str(tmp_path / "x.json")],
           "column 'ROUGE-L': --reuse-scores: the column holds 0.01, a rescore gives 0", tmp_path / "x.json")


def test_calibrate_never_replaces_its_input(tmp_path, capsys):
    data = _binary_csv(tmp_path / "labels.csv")
    before = data.read_bytes()
    assert main(["calibrate", str(data), "--metrics", LEXICAL, "-o", str(data), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("kpqa: error:") and data.read_bytes() == before


def test_calibrate_reuse_scores_names_a_cell_that_is_not_a_score(tmp_path, capsys):
    data = _binary_csv(tmp_path / "labels.csv")
    scored = tmp_path / "scored.csv"
    assert main(["score", str(data), "--metrics", LEXICAL, "-o", str(scored), "--quiet"]) == 0
    frame = pd.read_csv(scored)
    frame["F1"] = frame["F1"].astype(object)
    frame.loc[6, "F1"] = "n/a"
    frame.to_csv(scored, index=False)
    capsys.readouterr()
    _fails(capsys, ["calibrate", str(scored), "--reuse-scores", "--metrics", LEXICAL, "-o", str(tmp_path / "x.json")],
           "row 7, column 'F1': --reuse-scores: 'n/a' is not a score", tmp_path / "x.json")


def test_prior_without_decide_is_said_in_flags(tmp_path, capsys):
    data = _binary_csv(tmp_path / "labels.csv")
    _fails(capsys, ["score", str(data), "--metrics", "ROUGE-L", "--prior", "0.8", "-o", str(tmp_path / "x.csv")],
           "it needs --decide", tmp_path / "x.csv")


# ------------------------------------------------------------------------------ judges of a kind: logistic, trees

def _xor(n: int, seed: int) -> dict[str, np.ndarray]:
    """Two scores whose labels are their XOR (a quarter of them flipped), and a third that is noise."""
    rng = np.random.default_rng(seed)
    return {"a": rng.random(n), "b": rng.random(n), "c": rng.random(n)}


def _xor_labels(scores: dict[str, np.ndarray], seed: int) -> np.ndarray:
    y = ((scores["a"] > 0.5) ^ (scores["b"] > 0.5)).astype(float)
    flip = np.random.default_rng(seed).random(len(y)) < 0.1
    return np.where(flip, 1 - y, y)


XOR = _xor(400, 1)
XOR_Y = _xor_labels(XOR, 1)
TREES_JUDGE = calibration.fit_judge("j", XOR, dict.fromkeys(XOR, "m|v:1"), XOR_Y, kind="trees")


def test_trees_judge_logit_is_scikit_learns_decision_function():
    """Also the guard on the private structure the trees are read from (``_predictors``, ``_baseline_prediction``):
    a scikit-learn that changes it fails here, or in from_hist_gradient_boosting's own check."""
    from sklearn.ensemble import HistGradientBoostingClassifier

    x = np.stack(list(XOR.values()), axis=1)
    model = HistGradientBoostingClassifier(**calibration.TREES).fit(x, XOR_Y, sample_weight=calibration.balanced_weights(
        XOR_Y))
    assert isinstance(TREES_JUDGE, calibration.TreesJudge) and len(TREES_JUDGE.trees) == model.n_iter_ > 10
    assert TREES_JUDGE.model["params"] == model.get_params()
    rng = np.random.default_rng(2)
    cuts = np.array([t for tree in TREES_JUDGE.trees for t, f in zip(tree.threshold, tree.feature) if f >= 0])
    on_the_cuts = np.stack([rng.choice(np.r_[cuts, np.nextafter(cuts, 2)], 500) for _ in XOR], axis=1)
    missing = np.where(rng.random((300, 3)) < 0.3, np.nan, rng.random((300, 3)))
    for rows in (x, rng.normal(0.5, 2.0, (2000, 3)), on_the_cuts, missing):  # fitting rows, far outside, cuts, NaN
        z = TREES_JUDGE.logit(dict(zip(XOR, rows.T)))
        np.testing.assert_allclose(z, model.decision_function(rows), rtol=0, atol=1e-9)


def test_trees_baseline_is_the_weighted_prior_and_a_changed_model_is_refused():
    from sklearn.ensemble import HistGradientBoostingClassifier

    from kpqa.calibration.trees import flatten, from_hist_gradient_boosting, leaf_sum

    x = np.stack(list(XOR.values()), axis=1)
    model = HistGradientBoostingClassifier(max_iter=5, early_stopping=False, random_state=0).fit(x, XOR_Y)
    baseline, trees = from_hist_gradient_boosting(model)  # unweighted: the log-odds of the share of 1s
    assert baseline == pytest.approx(np.log(XOR_Y.mean() / (1 - XOR_Y.mean())), abs=1e-12) and baseline != 0
    np.testing.assert_allclose(baseline + leaf_sum(flatten(trees), x), model.decision_function(x), atol=1e-12)
    del model._predictors
    with pytest.raises(ValueError, match="no longer holds its trees as kpqa reads them"):
        from_hist_gradient_boosting(model)


def test_trees_beat_a_logistic_judge_on_a_non_linear_problem():
    held = _xor(2000, 3)
    y = _xor_labels(held, 3)
    logistic = calibration.fit_judge("j", XOR, dict.fromkeys(XOR, "m"), XOR_Y)
    accuracy = {kind: float(np.mean(judge.decide(held) == y)) for kind, judge in (("logistic", logistic),
                                                                                  ("trees", TREES_JUDGE))}
    assert accuracy["trees"] > 0.8 > 0.65 > accuracy["logistic"], accuracy  # about 0.9 (the flips) and 0.5
    assert logistic.kind == "logistic" and isinstance(logistic, calibration.LogisticJudge)


def test_a_trees_judge_file_round_trips_and_decides_the_same(tmp_path):
    cal = calibration.fit(XOR, {m: Signature.parse(f"{m}|v:1") for m in XOR}, XOR_Y, judge_kind="trees",
                          judge_inputs=["a", "b", "c"], label_rule="test")
    judge = cal.judges[calibration.JUDGE]
    cal.save(tmp_path / "c.json")
    raw = json.loads((tmp_path / "c.json").read_text())["judges"][calibration.JUDGE]
    assert raw["kind"] == "trees" and raw["model"]["estimator"] == calibration.TREES_ESTIMATOR
    assert set(raw["trees"][0]) == {"feature", "threshold", "left", "right", "missing_left", "value"}
    loaded = Calibration.load(tmp_path / "c.json")
    assert loaded.to_json() == cal.to_json() and loaded.digest == cal.digest
    rows = _xor(500, 4)
    again = loaded.judges[calibration.JUDGE]
    np.testing.assert_array_equal(again.logit(rows), judge.logit(rows))
    np.testing.assert_array_equal(again.decide(rows), judge.decide(rows))
    np.testing.assert_array_equal(again.prob(rows, 0.3), judge.prob(rows, 0.3))
    signatures = calibration.Decisions.of(loaded, dict(loaded.judges[calibration.JUDGE].fitted_on)).signatures({
        m: Signature.parse(f"{m}|v:1") for m in XOR})
    assert "|kind:trees|" in str(signatures[f"{calibration.JUDGE}-correct"])
    raw["trees"][0]["feature"][0] = 3  # a split on a fourth input of three
    (tmp_path / "bad.json").write_text(json.dumps({**json.loads((tmp_path / "c.json").read_text()),
                                                   "judges": {calibration.JUDGE: raw}}))
    with pytest.raises(CalibrationError, match="not a kpqa calibration file.*an input it does not have"):
        Calibration.load(tmp_path / "bad.json")


def test_logistic_judges_name_no_kind_so_old_files_keep_their_text_and_digest():
    path = calibration.default_path()
    cal = Calibration.load(path)
    judge = cal.judges[calibration.JUDGE]
    assert isinstance(judge, calibration.LogisticJudge) and "kind" not in judge.to_dict()
    assert cal.to_json() == path.read_text() and cal.digest == hashlib.sha256(path.read_bytes()).hexdigest()[:12]
    signatures = calibration.Decisions(cal, {}, calibration.JudgeSet((judge,))).signatures({})
    assert "kind" not in str(signatures[f"{calibration.JUDGE}-correct"])


def test_one_serializer_leaves_out_optional_fields_at_their_default_and_writes_them_otherwise():
    from dataclasses import dataclass, field

    from kpqa.calibration.model import OPTIONAL, UNSAVED, plain

    @dataclass
    class Part:  # a part of the file gaining a field: one declaration, and the files from before keep their text
        name: str
        weight: float = field(default=1.0, metadata=OPTIONAL)
        seen: list[str] = field(default_factory=list, metadata=OPTIONAL)
        where: str | None = field(default=None, metadata=UNSAVED)

    assert plain(Part("a", where="f.json")) == {"name": "a"}
    assert plain(Part("a", 0.5, ["q"])) == {"name": "a", "weight": 0.5, "seen": ["q"]}
    assert plain({"x": [Part("b"), (1, 2)]}) == {"x": [{"name": "b"}, [1, 2]]}
    path = calibration.default_path()
    cal = Calibration.load(path)
    entry = next(iter(cal.metrics.values()))
    assert "higher_is_better" not in entry.to_dict()
    lower = calibration.MetricCalibration.from_dict({**entry.to_dict(), "higher_is_better": False})
    assert lower.to_dict() == {**entry.to_dict(), "higher_is_better": False}
    assert list(cal.to_dict())[:5] == ["format", "kpqa_version", "labels", "data", "metrics"] and \
        "path" not in cal.to_dict() and cal.path == str(path)
    wrong = cal.judges[calibration.WRONG_JUDGE].to_dict()
    assert list(wrong)[0] == "kind" and wrong["replaces"] == calibration.JUDGE
    assert "replaces" not in cal.judges[calibration.JUDGE].to_dict()


@pytest.mark.model
def test_deciding_scores_what_the_calibrations_judges_read():
    from kpqa.scoring import DECIDE_METRICS, Scorer

    shipped = Scorer(decide=True, device="cpu")
    assert [m.columns()[0] for m in shipped.metrics] == list(DECIDE_METRICS)
    cal = Calibration.load(calibration.default_path())
    cal.judges[calibration.JUDGE].inputs.append("Equivalence")  # a judge that reads the equivalence model too
    scorer = Scorer(calibration=cal, device="cpu")
    assert [m.columns()[0] for m in scorer.metrics] == [*DECIDE_METRICS, "Equivalence"]
    # a metric list keeps the judge: the list as asked, then the judge's other inputs in its order (issue 49)
    asked = [m.columns()[0] for m in Scorer(["ROUGE-L"], calibration=cal).metrics]
    assert asked == ["ROUGE-L", *[m for m in cal.judges[calibration.JUDGE].inputs if m != "ROUGE-L"]]


@pytest.mark.model
@pytest.mark.usefixtures("every_entry_decides")
def test_calibrate_a_trees_judge_from_score_columns(tmp_path, capsys):
    data = _binary_csv(tmp_path / "labels.csv", rows=60)
    scored = tmp_path / "scored.csv"
    assert main(["score", str(data), "--metrics", LEXICAL, "-o", str(scored), "--quiet"]) == 0
    cal_path = tmp_path / "cal.json"
    assert main(["calibrate", str(scored), "--reuse-scores", "--metrics", "ROUGE-L", "--judge-kind", "trees",
                 "--judge-inputs", "ROUGE-L,F1,Contains", "-o", str(cal_path), "--quiet"]) == 0
    cal = Calibration.load(cal_path)
    judge = cal.judges[calibration.JUDGE]
    assert isinstance(judge, calibration.TreesJudge) and judge.inputs == ["ROUGE-L", "F1", "Contains"]
    assert list(cal.metrics) == ["ROUGE-L", "F1", "Contains"]  # the judge's inputs scored (here: taken) too
    capsys.readouterr()
    out = tmp_path / "judged.csv"
    assert main(["score", str(data), "--metrics", LEXICAL, "--calibration", str(cal_path), "-o", str(out),
                 "--quiet"]) == 0
    frame = pd.read_csv(out)
    np.testing.assert_array_equal(frame[f"{calibration.JUDGE}-correct"], judge.decide(frame))
    labels = frame["scores"].to_numpy()
    assert np.mean(frame[f"{calibration.JUDGE}-correct"] == labels) >= judge.calibration.fit.accuracy - 1e-9
    capsys.readouterr()
    _fails(capsys, ["calibrate", str(scored), "--reuse-scores", "--metrics", LEXICAL, "--judge-inputs",
                    "ROUGE-L,Foo", "-o", str(tmp_path / "x.json")],
           "--judge-inputs ROUGE-L,Foo: unknown metric 'Foo'", tmp_path / "x.json")


def test_judge_inputs_must_be_score_columns():
    s = np.linspace(0, 1, 40)
    with pytest.raises(UsageError, match="judge_inputs='a,z': no score column 'z'"):
        calibration.fit({"a": s}, {"a": Signature.parse("a|v:1")}, (s > 0.5).astype(float), judge_inputs=["a", "z"])
    with pytest.raises(UsageError, match="judge_kind='forest': unknown kind of judge; one of logistic, trees"):
        calibration.fit_judge("j", {"a": s}, {"a": "a"}, (s > 0.5).astype(float), kind="forest")
    assert calibration.fit({"a": s}, {"a": Signature.parse("a|v:1")}, (s > 0.5).astype(float)).judges == {}


@pytest.mark.model
def test_calibrate_takes_a_metric_from_heldout_scores(tmp_path, capsys):
    data = _binary_csv(tmp_path / "labels.csv")
    labels = pd.read_csv(data)["scores"].to_numpy()
    held = tmp_path / "heldout.csv"  # a cross-validation's held-out scores, as `kpqa train-equivalence --folds` writes them
    pd.DataFrame({"source": str(data), "row": np.arange(1, 41), "fold": np.arange(40) % 5, "label": labels,
                  "logit": np.where(labels == 1, 2.0, -2.0) + np.arange(40) / 100}).to_csv(held, index=False)
    out = tmp_path / "cal.json"
    assert main(["calibrate", str(data), "--metrics", LEXICAL, "--judge-inputs", "F1,Contains",
                 "--heldout", f"Contains={held}", "-o", str(out), "--quiet"]) == 0
    fitted = calibration.load(out)
    contains = fitted.metrics["Contains"]
    assert contains.decide(np.array([-2.0, 2.0])).tolist() == [0.0, 1.0]  # fitted on the held-out scores, which
    assert contains.prob(np.array([2.0]))[0] > 0.9  # separate the labels, not on Contains' own 0 / 1
    assert str(contains.fitted_on).startswith("Contains")  # the metric's own signature
    assert [d.path for d in fitted.data] == [str(data)] and fitted.rows == 40
    assert fitted.labels.startswith("'scores' 0/1; Contains: the held-out scores of ") and str(held) in fitted.labels
    assert fitted.judges["KPQA-judge"].inputs == ["F1", "Contains"]
    short = tmp_path / "short.csv"  # a row without a held-out score: one line naming it, nothing written
    pd.read_csv(held).iloc[:-1].to_csv(short, index=False)
    capsys.readouterr()
    _fails(capsys, ["calibrate", str(data), "--metrics", LEXICAL, "--heldout", f"Contains={short}",
                    "-o", str(tmp_path / "x.json")], "row 40: no held-out Contains score in", tmp_path / "x.json")
    bad = tmp_path / "bad.csv"  # a held-out file's cells read as every numeric column is: the first bad one named
    pd.read_csv(held).astype({"row": object}).assign(row=lambda f: f.row.where(f.index != 2, "3rd")).to_csv(
        bad, index=False)
    _fails(capsys, ["calibrate", str(data), "--metrics", LEXICAL, "--heldout", f"Contains={bad}",
                    "-o", str(tmp_path / "x.json")], f"{bad}, row 3, column 'row': row number '3rd' is not a number",
           tmp_path / "x.json")
    _fails(capsys, ["calibrate", str(data), "--metrics", LEXICAL, "--heldout", f"BLEU-1={held}",
                    "-o", str(tmp_path / "x.json")], "--heldout BLEU-1=", tmp_path / "x.json")
    _fails(capsys, ["calibrate", str(data), "--metrics", "Contains", "--heldout", f"Contains={held}",
                    "-o", str(tmp_path / "x.json")], "--metrics must name at least one metric to score",
           tmp_path / "x.json")


@pytest.mark.model
@pytest.mark.usefixtures("every_entry_decides")
def test_the_judge_is_in_meta_evals_binary_table_and_kept_by_a_metric_list(tmp_path, capsys):
    """The calibration names its judge's inputs: ``score --decide --metrics M`` adds them (the judge stays), and
    ``meta-eval`` scores them when the file lacks them, reads them when it has them (unchecked); both decide alike."""
    data = _binary_csv(tmp_path / "labels.csv")
    cal = tmp_path / "cal.json"
    assert main(["calibrate", str(data), "-o", str(cal), "--metrics", "BLEU-1,F1,ROUGE-L",
                 "--judge-inputs", "BLEU-1,F1", "--quiet"]) == 0
    assert main(["score", str(data), "-o", str(tmp_path / "out.csv"), "--metrics", "ROUGE-L", "--calibration",
                 str(cal), "--quiet"]) == 0
    scored = pd.read_csv(tmp_path / "out.csv")
    assert {"BLEU-1", "F1", "KPQA-judge-prob", "KPQA-judge-correct"} <= set(scored.columns)
    labels = pd.read_csv(data)["scores"].to_numpy()
    agree = float(np.mean(scored["KPQA-judge-correct"].to_numpy() == labels))
    Path(f"{tmp_path / 'out.csv'}.signatures.json").unlink()  # with it the columns' signatures are known (test_hostile)
    for source, note in ((data, []), (tmp_path / "out.csv", ["KPQA-judge: inputs from the file's columns; their "
                                                              "signatures are unchecked"])):
        report = tmp_path / "r.json"
        assert main(["meta-eval", str(source), "--metrics", "ROUGE-L", "--calibration", str(cal), "--bootstrap", "0",
                     "-o", str(tmp_path / "r.md"), "--json", str(report), "--quiet"]) == 0
        b = json.loads(report.read_text())["datasets"][0]["binary"]
        assert list(b["results"]) == ["ROUGE-L", "BLEU-1", "F1", "Contains", "KPQA-judge", "majority class"]
        assert b["results"]["KPQA-judge"]["accuracy"]["value"] == pytest.approx(agree, abs=1e-12)
        assert [n for n in b["notes"] if n.startswith("KPQA-judge")] == note


@pytest.mark.model
def test_a_judge_that_cannot_decide_says_why_in_one_warning():
    from stubs import StubWeighter

    from kpqa.errors import KpqaWarning
    from kpqa.scoring import Scorer

    rng = np.random.default_rng(1)
    scores = {m: rng.random(40) for m in ("ROUGE-L-KPQA", "BLEU-1")}
    cal = calibration.fit(scores, {m: Signature.parse(f"{m}|tok:x") for m in scores}, (rng.random(40) > 0.5) * 1.0,
                          judge_inputs=["ROUGE-L-KPQA", "BLEU-1"])
    with pytest.warns(KpqaWarning, match=r"^KPQA-judge left out: it reads ROUGE-L-KPQA, which this run does not score"):
        Scorer(["BLEU-1"], calibration=cal, no_question=True, weighter=StubWeighter())


# ---- a metric whose lower scores are the better answers


@pytest.fixture
def missing_words():
    """``MissingWords``: the share of the best reference's words the answer leaves out (0 is a perfect answer), a
    lower-is-better toy metric registered for one test."""
    from kpqa.metrics import base
    from kpqa.metrics.base import MeanMetric, register

    class MissingWords(MeanMetric):
        """The share of the best reference's words the answer leaves out."""

        name = "MissingWords"
        higher_is_better = False

        def row_scores(self, rows, ctx):
            def missing(cand, ref):
                words = ref.lower().split()
                return sum(w not in cand.lower().split() for w in words) / len(words)
            return np.array([min(missing(c, r) for r in refs) for c, refs in zip(rows.candidates, rows.references)])

    base._load_builtin()
    register("MissingWords")(MissingWords)
    yield MissingWords
    del base._REGISTRY["MissingWords"]


@pytest.mark.model
def test_a_lower_is_better_metric_is_calibrated_and_decided_the_right_way_round(missing_words, tmp_path):
    from kpqa.calibration import Decisions
    from kpqa.scoring import Scorer

    rng = np.random.default_rng(0)
    words = "the quick brown fox jumps over a lazy dog".split()
    refs = [" ".join(rng.choice(words, 4, replace=False)) for _ in range(60)]
    kept = rng.integers(0, 5, 60)  # how many of the reference's 4 words the answer keeps
    answers = [" ".join(r.split()[:k]) or "nothing" for r, k in zip(refs, kept)]
    labels = (kept >= 3).astype(float)  # right when it keeps 3 or 4 words: MissingWords 0.25 or 0
    rows = pd.DataFrame({"question": ["q"] * 60, "answer": answers, "reference1": refs})
    result = Scorer(["MissingWords"]).score(rows)
    scores, signature = result.frame["MissingWords"].to_numpy(), result.signatures["MissingWords"]
    assert signature.get("better") == "lower" and not signature.higher_is_better
    cal = calibration.fit({"MissingWords": scores}, {"MissingWords": signature}, labels)
    entry = cal.metrics["MissingWords"]
    assert not entry.higher_is_better and 0.25 < entry.threshold < 0.5  # correct at MissingWords <= 0.375
    assert entry.fit.accuracy == 1.0 and entry.decide([0.0, 0.25, 0.5, 1.0]).tolist() == [1.0, 1.0, 0.0, 0.0]
    p = entry.prob([0.0, 0.25, 0.5, 0.75, 1.0])
    assert np.all(np.diff(p) < 0) and p[1] > 0.5 > p[2]  # P(correct) falls as the score rises
    assert "correct at <= 0.375" in entry.describe()
    assert cal.rating("MissingWords").p_at_zero is None  # 0 is its best score: the floor-0 rule is not its
    cal.save(tmp_path / "cal.json")
    assert json.loads((tmp_path / "cal.json").read_text())["metrics"]["MissingWords"]["higher_is_better"] is False
    loaded = Calibration.load(tmp_path / "cal.json")
    assert loaded.metrics["MissingWords"] == entry
    decided = Decisions.of(loaded, {"MissingWords": signature}).apply({"MissingWords": scores})
    assert decided["MissingWords-correct"].tolist() == labels.tolist()
    scored = Scorer(["MissingWords"], decide=True, calibration=loaded).score(rows)
    assert scored.frame["MissingWords-correct"].tolist() == labels.tolist()


@pytest.mark.model  # meta-eval's binary section decides with the shipped calibration's judge
def test_meta_eval_ranks_a_lower_is_better_metric_by_correctness(missing_words, tmp_path):
    """AUROC and AP read a lower-is-better score the right way round (a perfect metric scores 1, not 0)."""
    rng = np.random.default_rng(1)
    words = "the quick brown fox jumps over a lazy dog".split()
    refs = [" ".join(rng.choice(words, 4, replace=False)) for _ in range(40)]
    kept = np.arange(40) % 5  # how many of the reference's 4 words the answer keeps
    answers = [" ".join(r.split()[:k]) or "nothing" for r, k in zip(refs, kept)]
    data = tmp_path / "labelled.csv"
    pd.DataFrame({"question": ["q"] * 40, "answer": answers, "reference1": refs,
                  "scores": (kept >= 3).astype(int)}).to_csv(data, index=False)
    report = tmp_path / "report.json"
    assert main(["meta-eval", str(data), "--metrics", "MissingWords", "--bootstrap", "20", "--json", str(report),
                 "-o", str(tmp_path / "r.md"), "--quiet"]) == 0
    results = json.loads(report.read_text())["datasets"][0]["binary"]["results"]["MissingWords"]
    assert results["auroc"]["value"] == 1.0 and results["average_precision"]["value"] == 1.0



@pytest.mark.model
def test_a_calibration_without_the_judge_s_inputs_says_no_judge_was_fitted(tmp_path, capsys):
    """``kpqa calibrate --metrics F1,ROUGE-L`` cannot fit KPQA-judge (its default inputs are not all scored): the
    file has no judge, and a warning says so, naming what it lacks (it was silent)."""
    from kpqa.cli import main

    rows = [(f"question {k}", [f"answer {k}", f"other {k}"][k % 2], f"answer {k}", 1 - k % 2) for k in range(40)]
    pd.DataFrame(rows, columns=["question", "answer", "reference1", "scores"]).to_csv(tmp_path / "l.csv", index=False)
    out = tmp_path / "c.json"
    assert main(["calibrate", str(tmp_path / "l.csv"), "--metrics", "F1,ROUGE-L", "-o", str(out), "--quiet"]) == 0
    assert json.loads(out.read_text())["judges"] == {}
    err = capsys.readouterr().err
    assert "no KPQA-judge fitted: the scores lack ROUGE-L-KPQA, BERTScore-KPQA" in err and "--judge-inputs" in err
