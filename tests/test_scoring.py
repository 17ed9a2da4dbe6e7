"""kpqa.scoring: the Scorer's seam for a keyphrase weighter, and its results (no model loaded)."""
from __future__ import annotations

import pytest
from stubs import WordWeighter

from kpqa.scoring import Scorer
from kpqa.input import iter_input

ROWS = [{"question": "who wrote hamlet", "answer": "shakespeare wrote hamlet", "references": ["william shakespeare"]},
        {"question": "what is water", "answer": "water is wet", "references": ["water is wet", "it is wet"]}]


def test_a_handed_in_weighter_weighs_every_weighted_metric_and_nothing_is_loaded():
    weighter = WordWeighter()  # one piece per word, every weight 1: the KPQA forms are the plain metrics
    scorer = Scorer(["BLEU-1", "BLEU-1-KPQA", "ROUGE-L", "ROUGE-L-KPQA"], weighter=weighter)
    frame = scorer.score(ROWS).frame
    assert frame["BLEU-1-KPQA"].tolist() == pytest.approx(frame["BLEU-1"].tolist(), abs=1e-12)
    assert frame["ROUGE-L-KPQA"].tolist() == pytest.approx(frame["ROUGE-L"].tolist(), abs=1e-12)
    texts = [r["answer"] for r in ROWS] + [t for r in ROWS for t in r["references"]]
    assert set(weighter.asked) == {(r["question"], t) for r in ROWS for t in [r["answer"], *r["references"]]}
    assert len({t for _, t in weighter.asked}) == len(set(texts))
    assert list(scorer.models) == []  # the scorer loaded no model of its own
    assert "kpw:stub|backbone:stub|question:yes" in scorer.signatures(scorer.plan())["BLEU-1-KPQA"]


def test_a_kp_metric_hands_the_weighter_no_question():
    weighter = WordWeighter()
    Scorer(["BLEU-1-KP"], weighter=weighter).score(ROWS)
    assert weighter.asked and {q for q, _ in weighter.asked} == {""}


def test_one_summary_for_a_result_and_a_stream(tmp_path):
    path = tmp_path / "rows.jsonl"
    path.write_text("\n".join(__import__("json").dumps(r) for r in ROWS) + "\n")
    scorer = Scorer(["BLEU-1", "ROUGE-L"])
    whole, streamed = scorer.score(path), scorer.score_stream(iter_input(path, 1))
    assert streamed.rows == 2 and whole.summary() == streamed.summary()
    assert whole.summary().splitlines()[0].split() == "metric score signature".split()
    assert whole.summary(verbose=True).splitlines()[0].startswith("BLEU-1  ")


def test_a_metric_named_twice_is_scored_once():
    import pandas as pd

    from kpqa.scoring import Scorer

    scorer = Scorer(["ROUGE-L", " ROUGE-L", "F1"])
    assert [m.columns()[0] for m in scorer.metrics] == ["ROUGE-L", "F1"]
    rows = pd.DataFrame({"question": ["who wrote hamlet", "capital of france"], "answer": ["shakespeare", "lyon"],
                         "reference1": ["william shakespeare", "paris"]})
    frame = scorer.score(rows).frame
    assert list(frame.columns[-2:]) == ["ROUGE-L", "F1"] and frame["F1"].round(3).tolist() == [0.667, 0.0]
