"""Streamed scoring: chunked reading, incremental atomic output, corpus scores equal to one pass over all rows."""
from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from kpqa.errors import InputError
from kpqa.output import OutputWriter, write_output
from kpqa.input import iter_input, read_input
from kpqa.metrics.bleu import corpus_bleu
from kpqa.scoring import Scorer
from kpqa.text import get_tokenizer

LEXICAL = ["BLEU-1", "BLEU-4", "ROUGE-L", "AEv-0.3-2"]

ROWS = [
    ("how many steps in a test", "there are seven steps in a hypothesis test .", ["four steps are in a test ."]),
    ("who wrote it", "pride and prejudice was written by dickens", ["jane austen wrote it", "it was austen"]),
    ("when", "in 1813", ["it came out in 1813 , in london"]),
    ("what is acetate", "acetate is a salt of acetic acid .", ["acetate is a salt or ester of acetic acid ."]),
    ("where", "the the the the", ["the cat sat on the mat", "a the"]),
    ("why", "because it rains a lot in the north of the country", ["rain"]),
    ("how long", "five to twenty hours of walking", ["walk for 5 to 20 hours to lose 1 pound"]),
]


def _csv(tmp_path, rows=ROWS, name="in.csv"):
    width = max(len(refs) for _, _, refs in rows)
    records = [
        {"question": q, "answer": a, **{f"reference{k + 1}": refs[k] if k < len(refs) else "" for k in range(width)}}
        for q, a, refs in rows
    ]
    path = tmp_path / name
    pd.DataFrame(records).to_csv(path, index=False)
    return path


@pytest.mark.parametrize("chunk_rows", [1, 3, 7, 100])
def test_chunks_cover_every_row_once_in_order(tmp_path, chunk_rows):
    path = _csv(tmp_path)
    chunks = list(iter_input(path, chunk_rows))
    assert [len(c.rows) for c in chunks] == [min(chunk_rows, len(ROWS) - s) for s in range(0, len(ROWS), chunk_rows)]
    whole = read_input(path)
    assert [c for t in chunks for c in t.rows.candidates] == whole.rows.candidates
    assert [r for t in chunks for r in t.rows.references] == whole.rows.references
    assert pd.concat([t.frame for t in chunks]).reset_index(drop=True).equals(whole.frame)


@pytest.mark.parametrize("chunk_rows", [1, 2, 5, 7])
def test_streamed_scores_equal_one_pass(tmp_path, chunk_rows):
    path = _csv(tmp_path)
    scorer = Scorer(LEXICAL)
    whole = scorer.score(path)
    frames = []
    streamed = scorer.score_stream(iter_input(path, chunk_rows), frames.append)
    assert streamed.rows == len(ROWS) and len(frames) == -(-len(ROWS) // chunk_rows)
    out = pd.concat(frames).reset_index(drop=True)
    for column in scorer.columns(scorer.plan_for(path)):
        np.testing.assert_array_equal(out[column].to_numpy(), whole.frame[column].to_numpy())
    assert streamed.corpus == whole.corpus  # exactly: corpus BLEU and AEv sum integer counts over all rows
    assert streamed.signatures == whole.signatures


def test_corpus_bleu_is_not_the_mean_of_chunk_scores(tmp_path):
    # the property the streamed corpus score must keep: BLEU over sums, which no average of chunk BLEUs gives
    tok = get_tokenizer("ptb").tokenize
    cands = [tok(a) for _, a, _ in ROWS]
    refs = [[tok(r) for r in g] for _, _, g in ROWS]
    whole = corpus_bleu(cands, refs)[3]
    halves = [corpus_bleu(cands[:3], refs[:3])[3], corpus_bleu(cands[3:], refs[3:])[3]]
    assert abs(whole - np.mean(halves)) > 1e-3
    streamed = Scorer(["BLEU-4"]).score_stream(iter_input(_csv(tmp_path), 3))
    assert streamed.corpus["BLEU-4"] == pytest.approx(whole, abs=1e-12)


@pytest.mark.parametrize(
    "body, row",
    [
        ("q1,a,r\nq2,a,r\nq3,a,r\nq4,a,\nq5,a,r\n", 4),  # no reference in the second chunk
        ("q1,a,r\nq2,a,r\nq3,a,r\nq4,a,r,extra\nq5,a,r\n", 4),  # malformed CSV line
    ],
)
def test_errors_in_later_chunks_name_the_row_of_the_file(tmp_path, body, row):
    path = tmp_path / "bad.csv"
    path.write_text("question,answer,reference1\n" + body, encoding="utf-8")
    with pytest.raises(InputError) as err:
        list(iter_input(path, 2))
    assert err.value.row == row
    with pytest.raises(InputError) as whole:
        read_input(path)
    assert whole.value.row == row  # the same row as when the file is read whole


def test_bad_utf8_in_a_later_chunk_is_found_before_scoring(tmp_path):
    path = tmp_path / "latin1.csv"
    path.write_bytes(b"question,answer,reference1\nq,a,r\nq,a,r\nq,caf\xe9,r\n")
    with pytest.raises(InputError) as streamed:
        next(iter_input(path, 1))  # the first chunk is fine, but the whole file is checked first
    with pytest.raises(InputError) as whole:
        read_input(path)
    assert str(streamed.value) == str(whole.value)
    assert streamed.value.row == 3


def test_jsonl_chunks_and_errors(tmp_path):
    lines = [json.dumps({"question": q, "answer": a, "references": refs}) for q, a, refs in ROWS]
    path = tmp_path / "in.jsonl"
    path.write_text("\n".join(lines[:4] + [""] + lines[4:]) + "\n", encoding="utf-8")  # a blank line is skipped
    chunks = list(iter_input(path, 3))
    assert [len(c.rows) for c in chunks] == [3, 3, 1]
    assert [r for c in chunks for r in c.rows.references] == [refs for _, _, refs in ROWS]
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines[:3] + ['{"question": "q", "answer": ""', *lines[3:]]) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match="malformed JSON") as err:
        list(iter_input(bad, 2))
    assert err.value.row == 4


def test_output_writer_adds_columns_that_appear_in_a_later_chunk(tmp_path):
    # JSONL rows with a field that only later rows have: the CSV gets every column, as a one-pass write would
    rows = [("q", "a b", ["a"]), ("q", "b c", ["b"]), ("q", "c d", ["c", "d", "e"]), ("q", "d", ["d", "x"])]
    path = tmp_path / "in.jsonl"
    path.write_text("".join(json.dumps({"question": q, "answer": a, "references": r, "id": i,
                                        **({"note": "late"} if i > 1 else {})}) + "\n"
                            for i, (q, a, r) in enumerate(rows)), encoding="utf-8")
    scorer = Scorer(["BLEU-1", "ROUGE-L"])
    write_output(scorer.score(path).frame, tmp_path / "whole.csv")
    with OutputWriter(tmp_path / "streamed.csv", last_columns=scorer.columns(scorer.plan_for(path))) as out:
        scorer.score_stream(iter_input(path, 2), out.write)
    whole, streamed = (pd.read_csv(tmp_path / f"{n}.csv", dtype=str) for n in ("whole", "streamed"))
    assert list(streamed.columns) == list(whole.columns) == [
        "question", "answer", "references", "id", "note", "BLEU-1", "ROUGE-L"]
    assert streamed["references"].tolist()[2] == '["c", "d", "e"]'  # the list column as given, JSON text in CSV
    pd.testing.assert_frame_equal(streamed, whole)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl", "streamed.csv", "whole.csv"]


def test_output_is_absent_until_every_chunk_is_written(tmp_path):
    out = tmp_path / "out.csv"
    writer = OutputWriter(out)
    writer.write(pd.DataFrame({"a": [1, 2]}))
    assert not out.exists()
    writer.write(pd.DataFrame({"a": [3]}))
    writer.close()
    assert pd.read_csv(out)["a"].tolist() == [1, 2, 3]


def test_cli_error_in_a_later_chunk_leaves_no_output(tmp_path, capsys):
    from kpqa.cli import main

    good = _csv(tmp_path, name="good.csv")
    assert main(["score", str(good), "--metrics", "BLEU-4,ROUGE-L", "--chunk-rows", "2", "--quiet",
                 "-o", str(tmp_path / "good_out.csv")]) == 0
    printed = capsys.readouterr().out
    whole = Scorer(["BLEU-4", "ROUGE-L"]).score(good)
    assert printed.splitlines()[0] == f"{len(ROWS)} rows from {good}"
    assert f"{whole.corpus['BLEU-4']:.4f}" in printed
    out = pd.read_csv(tmp_path / "good_out.csv")
    np.testing.assert_allclose(out["ROUGE-L"], whole.frame["ROUGE-L"], rtol=1e-15)

    bad = _csv(tmp_path, ROWS[:5] + [("q", "a", [" "])] + ROWS[5:], name="bad.csv")
    before = sorted(p.name for p in tmp_path.iterdir())
    assert main(["score", str(bad), "--metrics", "BLEU-4", "--chunk-rows", "2", "--quiet",
                 "-o", str(tmp_path / "bad_out.csv")]) == 2
    assert "row 6" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == before  # no output, no temp file left behind


# ------------------------------------------------------------------ resuming an interrupted run (kpqa.resume)

def _score_args(path, out, metrics="BLEU-1,CIDEr"):
    return ["score", str(path), "--metrics", metrics, "--chunk-rows", "2", "--quiet", "-o", str(out)]


@pytest.mark.parametrize("suffix", [".csv", ".json"])
def test_an_interrupted_run_carries_on_to_the_same_output(tmp_path, monkeypatch, capsys, suffix):
    from kpqa.cli import main
    from kpqa.stream import Accumulator

    path = _csv(tmp_path)  # 7 rows: chunks of 2, 2, 2, 1
    whole, out = tmp_path / f"whole{suffix}", tmp_path / f"out{suffix}"
    assert main(_score_args(path, whole)) == 0
    update = Accumulator.update
    chunks: list[int] = []

    def interrupted(self, *args):  # Ctrl-C once the third chunk is written, before it is recorded: the chunk in flight
        if self.chunks == 2:
            raise KeyboardInterrupt
        update(self, *args)

    monkeypatch.setattr(Accumulator, "update", interrupted)
    assert main(_score_args(path, out)) == 130
    partial, state = tmp_path / f".out{suffix}.partial", tmp_path / f".out{suffix}.resume.json"
    assert not out.exists() and partial.exists() and json.loads(state.read_text())["run"]["rows"] == 4
    assert "4 rows scored are kept" in capsys.readouterr().err

    def counted(self, *args):
        chunks.append(self.chunks)
        update(self, *args)

    monkeypatch.setattr(Accumulator, "update", counted)
    assert main(_score_args(path, out) + ["--resume"]) == 0
    assert chunks == [2, 3]  # the two chunks left, not the whole input again
    assert out.read_bytes() == whole.read_bytes()
    assert not partial.exists() and not state.exists()
    assert main(_score_args(path, out) + ["--resume"]) == 2  # nothing left to carry on
    assert "no interrupted run" in capsys.readouterr().err


def test_a_kept_run_of_other_settings_is_started_over(tmp_path, monkeypatch, capsys):
    from kpqa.cli import main
    from kpqa.stream import Accumulator

    path, out = _csv(tmp_path), tmp_path / "out.csv"
    update = Accumulator.update

    def interrupted(self, *args):
        if self.chunks == 1:
            raise KeyboardInterrupt
        update(self, *args)

    monkeypatch.setattr(Accumulator, "update", interrupted)
    assert main(_score_args(path, out)) == 130
    monkeypatch.undo()
    assert main(_score_args(path, out, "BLEU-1,ROUGE-L")) == 0  # other metrics: not the same run
    assert "another input or other settings: starting over" in capsys.readouterr().err
    assert list(pd.read_csv(out).columns)[-2:] == ["BLEU-1", "ROUGE-L"] and len(pd.read_csv(out)) == len(ROWS)


def test_the_resume_key_is_the_scorers_and_an_api_user_can_carry_on_too(tmp_path, capsys):
    """Resume.for_scorer (what ``kpqa score`` calls): the key holds what the scorer writes, so other metrics are
    another run; no output file, or no input file, is nothing to carry on (a UsageError when required)."""
    from kpqa.errors import UsageError
    from kpqa.resume import Resume

    path, out = _csv(tmp_path), tmp_path / "out.csv"
    bleu, rouge = Scorer(["BLEU-1"]), Scorer(["ROUGE-L"])
    one, same, other = (Resume.for_scorer(s, s.plan(), str(path), str(out), 2)
                        for s in (bleu, Scorer(["BLEU-1"]), rouge))
    plan = bleu.plan()
    assert one is not None and one.key == same.key != other.key
    assert Resume.for_scorer(bleu, plan, str(path), str(out), 3).key != one.key  # the chunk size makes the run too
    assert Resume.for_scorer(bleu, plan, str(path), None, 2) is None
    assert Resume.for_scorer(bleu, plan, None, str(out), 2) is None
    with pytest.raises(UsageError, match="resume=True"):
        Resume.for_scorer(bleu, plan, None, str(out), 2, required=True)
    with pytest.raises(UsageError, match="no interrupted run"):
        Resume.for_scorer(bleu, plan, str(path), str(out), 2, required=True)
