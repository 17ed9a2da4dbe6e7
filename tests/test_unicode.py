"""Non-English text: Chinese through the ``zh`` tokenizer (hand-computed scores and real DuReader rows), accented,
emoji, right-to-left and other scripts through every metric without error, and UTF-8 kept intact end to end."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from kpqa.cli import main
from kpqa.context import Context
from kpqa.rows import Rows
from kpqa.metrics.base import available, get_metric
from kpqa.text import get_tokenizer

ASIDE = ["AEv-0.5-2"]
MIXED = [
    "Café au lait, naïve résumé — déjà vu",
    "The answer is 42 😀👍🏽",
    "👨‍👩‍👧🎉",  # emoji only: no token under ptb / zh
    "Straße in İstanbul, ß and Ǆ",
    "مرحبا بالعالم، الجواب هو نعم",
    "नमस्ते दुनिया उत्तर हाँ है",
    "北京是中国的首都。",
    "ＡＢＣ公司 in Tōkyō",
    "zero\u200bwidth and com\u0301bining marks",
]


def lexical_metrics() -> list[str]:
    return [n for n in available() if not get_metric(n).uses_model] + ASIDE


def score_all(rows: Rows, tokenizer: str) -> dict[str, np.ndarray]:
    """Every lexical metric; rows without an entities column get an empty one (the adapted metrics need it)."""
    if rows.entities is None:
        rows = Rows(rows.questions, rows.candidates, rows.references, entities=[[] for _ in rows.candidates])
    ctx = Context(tokenizer=tokenizer)
    out = {}
    for name in lexical_metrics():
        metric = get_metric(name)
        per_row = metric.score(rows, ctx)
        corpus = metric.corpus_score(rows, ctx)
        out.update(per_row)
        out.update({f"corpus:{k}": np.array([v]) for k, v in corpus.items()})
    return out


def assert_in_range(scores: dict[str, np.ndarray]) -> None:
    for column, values in scores.items():
        upper = 10.0 if column.endswith("CIDEr") else 1.0
        assert np.all(np.isfinite(values)) and np.all((values >= 0) & (values <= upper + 1e-9)), (column, values)


def test_chinese_hand_computed_scores():
    """zh: one token per character. 北京是中国的首都 vs 中国的首都是北京: all 8 characters match (BLEU-1 = 1), the
    longest common subsequence is 中国的首都 (ROUGE-L = 5/8)."""
    rows = Rows(["北京是哪个国家的首都？"], ["北京是中国的首都"], [["中国的首都是北京"]])
    scores = score_all(rows, "zh")
    assert scores["BLEU-1"][0] == pytest.approx(1.0, abs=1e-8)
    assert scores["ROUGE-L"][0] == pytest.approx(5 / 8)
    assert scores["EM"][0] == 0.0


def test_zh_full_width_latin_matches_half_width():
    rows = Rows(["q"], ["ＡＢＣ公司，２０１７年"], [["abc公司 2017年"]])
    scores = score_all(rows, "zh")
    assert scores["BLEU-1"][0] == pytest.approx(1.0, abs=1e-8) and scores["ROUGE-L"][0] == pytest.approx(1.0)


@pytest.mark.parametrize("tokenizer", ["ptb", "whitespace", "zh"])
def test_mixed_scripts_and_emoji_through_every_lexical_metric(tokenizer):
    n = len(MIXED)
    rows = Rows(
        questions=["what?"] * n,
        candidates=MIXED,
        references=[[MIXED[(i + 1) % n], MIXED[i]] for i in range(n)],
        candidate_labels=["Yes"] * n,
        reference_labels=[["No", "Yes"]] * n,
        entities=[[MIXED[i].split()[0]] for i in range(n)],
    )
    scores = score_all(rows, tokenizer)
    assert_in_range(scores)
    has_tokens = [bool(get_tokenizer(tokenizer).tokenize(t)) for t in MIXED]
    for i, ok in enumerate(has_tokens):  # each candidate is also its own second reference
        assert scores["ROUGE-L"][i] == pytest.approx(1.0 if ok else 0.0), (tokenizer, MIXED[i])


def test_emoji_are_dropped_by_ptb_as_in_the_stanford_tokenizer():
    rows = Rows(["q"], ["the answer is 42 😀👍🏽"], [["The answer is 42."]])
    scores = score_all(rows, "ptb")
    assert scores["BLEU-1"][0] == pytest.approx(1.0, abs=1e-8) and scores["ROUGE-L"][0] == pytest.approx(1.0)


def test_nfc_and_nfd_spellings_match():
    rows = Rows(["q"], ["un café noir"], [["un cafe\u0301 noir"]])
    assert score_all(rows, "ptb")["BLEU-1"][0] == pytest.approx(1.0, abs=1e-8)


def _dureader_rows(path, n: int = 8) -> Rows:
    """The first ``n`` questions with two answers or more, half of them yes-no questions (with opinion labels)."""
    questions, candidates, references, cand_labels, ref_labels, entities = [], [], [], [], [], []
    quota = {True: n // 2, False: n - n // 2}
    with open(path, encoding="utf-8") as f:
        for line in f:
            record = json.loads(line)
            answers = [a for a in record.get("answers") or [] if a.strip()]
            yes_no = record.get("question_type") == "YES_NO"
            if len(answers) < 2 or not quota[yes_no]:
                continue
            quota[yes_no] -= 1
            labels = record.get("yesno_answers") or []
            labels = [labels[k] if k < len(labels) else None for k in range(len(answers))]
            questions.append(record["question"])
            candidates.append(answers[0])
            references.append(answers[1:])
            cand_labels.append(labels[0])
            ref_labels.append(labels[1:])
            entities.append([e for group in record.get("entity_answers") or [] for e in group if e.strip()])
            if len(candidates) == n:
                break
    return Rows(questions, candidates, references, cand_labels, ref_labels, entities)


@pytest.mark.shared_data
def test_dureader_rows_through_every_lexical_metric(shared_data):
    rows = _dureader_rows(shared_data("dureader/search.dev.jsonl"))
    assert len(rows) == 8 and any(rows.entities) and any(lbl for lbl in rows.candidate_labels)
    zh = score_all(rows, "zh")
    assert_in_range(zh)
    assert zh["BLEU-1"].max() > 0.2  # answers to the same question share characters
    assert_in_range(score_all(rows, "ptb"))
    same = Rows(rows.questions, rows.candidates, [[c] for c in rows.candidates])
    np.testing.assert_allclose(score_all(same, "zh")["ROUGE-L"], 1.0)


@pytest.mark.shared_data
def test_dureader_through_the_cli_keeps_utf8(shared_data, tmp_path, capsys):
    rows = _dureader_rows(shared_data("dureader/search.dev.jsonl"), n=4)
    source = tmp_path / "zh.jsonl"
    source.write_text("".join(json.dumps({"question": q, "answer": c, "references": r}, ensure_ascii=False) + "\n"
                              for q, c, r in zip(rows.questions, rows.candidates, rows.references)), encoding="utf-8")
    out = tmp_path / "scores.csv"
    assert main(["score", str(source), "--tokenize", "zh", "--metrics", "BLEU-1,ROUGE-L,CIDEr", "--quiet",
                 "-o", str(out)]) == 0, capsys.readouterr().err
    frame = pd.read_csv(out, encoding="utf-8")
    assert frame["answer"].tolist() == rows.candidates and frame["question"].tolist() == rows.questions
    signatures = json.loads((tmp_path / "scores.csv.signatures.json").read_text())["signatures"]
    assert frame["BLEU-1"].between(0, 1).all() and "tok:zh" in signatures["BLEU-1"]


# ------------------------------------------------------------------ model: encoder and weighter on the same texts


@pytest.mark.model
def test_mixed_scripts_through_bertscore_and_the_weighter():
    from kpqa.models import shipped

    if not (shipped.resolve() / "metadata.json").exists():
        pytest.fail(f"the committed weighter checkpoint is missing at {shipped.resolve()}")
    from kpqa.scoring import Scorer

    n = len(MIXED)
    rows = Rows(["what is the answer?"] * n, MIXED, [[MIXED[(i + 1) % n], MIXED[i]] for i in range(n)])
    for tokenizer in ("ptb", "zh"):
        scorer = Scorer(["BERTScore", "BERTScore-KPQA", "BLEU-1-KPQA", "ROUGE-L-KPQA"], tokenize=tokenizer,
                        device="cpu")
        per_row, corpus, _ = scorer.score_rows(rows)
        for column, values in per_row.items():
            assert np.all(np.isfinite(values)) and np.all((values >= 0) & (values <= 1 + 1e-6)), (column, values)
        assert all(np.isfinite(v) for v in corpus.values())


def test_zh_keeps_words_with_combining_marks_whole():
    """Devanagari vowel signs, Arabic harakat and a decomposed accent are marks, not separators."""
    zh = get_tokenizer("zh")
    assert zh.tokenize("नमस्ते दुनिया") == ["नमस्ते", "दुनिया"]
    assert zh.tokenize("مَرْحَبًا بالعالم") == ["مَرْحَبًا", "بالعالم"]
    assert zh.tokenize("cafe\u0301 北京") == ["café", "北", "京"]
