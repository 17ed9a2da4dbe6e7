"""Reading and validating input (:mod:`kpqa.input`)."""
from __future__ import annotations

import gzip
import json

import pandas as pd
import pytest

from kpqa.errors import InputError
from kpqa.input import iter_input, read_input


def _write(tmp_path, name, text, mode="w"):
    path = tmp_path / name
    if mode == "wb":
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    return path


def test_csv_kpqa_layout_skips_empty_references_and_keeps_extra_columns(tmp_path):
    path = _write(
        tmp_path,
        "in.csv",
        "question,answer,reference1,reference2,scores\n"
        "q1,a1,r1,,3.5\n"
        "q2,a2,,r2b,1\n",
    )
    table = read_input(path)
    assert table.rows.references == [["r1"], ["r2b"]]
    assert table.rows.questions == ["q1", "q2"]
    assert list(table.frame.columns) == ["question", "answer", "reference1", "reference2", "scores"]
    assert table.rows.candidate_labels is None and table.rows.entities is None


def test_reference_columns_sorted_numerically(tmp_path):
    path = _write(tmp_path, "in.csv", "answer,reference10,reference2\na,ten,two\n")
    assert read_input(path).rows.references == [["two", "ten"]]


def test_bom_and_quoted_newlines_are_valid(tmp_path):
    text = '\ufeffquestion,answer,reference1\nq,"line one\nline two","r, with comma"\n'
    table = read_input(_write(tmp_path, "bom.csv", text))
    assert table.rows.candidates == ["line one\nline two"]
    assert table.rows.references == [["r, with comma"]]
    assert "question" in table.frame.columns


def test_jsonl_and_records_and_dataframe_agree(tmp_path):
    records = [{"question": "q", "answer": "a b", "references": ["a", "b c"], "id": 7}]
    path = _write(tmp_path, "in.jsonl", "\n".join(json.dumps(r) for r in records) + "\n")
    from_file = read_input(path)
    from_records = read_input(records)
    from_frame = read_input(pd.DataFrame([{"question": "q", "answer": "a b", "reference1": "a", "reference2": "b c"}]))
    for table in (from_file, from_records, from_frame):
        assert table.rows.references == [["a", "b c"]]
        assert table.rows.candidates == ["a b"]
    assert from_file.frame["id"].tolist() == [7]


@pytest.mark.parametrize(("cell", "expected"), [
    ("r1; r2", ["r1", "r2"]), ("r1 ; r2", ["r1", "r2"]), ('["r1; r2", "r3"]', ["r1; r2", "r3"]), ("r1;r2", ["r1;r2"]),
])
def test_a_references_text_cell_is_split_on_a_semicolon_and_a_space(tmp_path, cell, expected):
    frame = pd.DataFrame({"question": ["q"], "answer": ["a"], "references": [cell]})
    frame.to_csv(tmp_path / "r.csv", index=False)
    assert read_input(tmp_path / "r.csv").rows.references == [expected]


@pytest.mark.parametrize("cell", ["r1; ; r2", "r1; r2;", "r1;"])
def test_a_references_cell_that_cannot_be_split_for_certain_is_refused(tmp_path, cell):
    pd.DataFrame({"answer": ["a", "a"], "references": ["r", cell]}).to_csv(tmp_path / "r.csv", index=False)
    with pytest.raises(InputError, match=r"r\.csv, row 2, column 'references': cannot split the cell"):
        read_input(tmp_path / "r.csv")


def test_datasets_dataset():
    datasets = pytest.importorskip("datasets")
    ds = datasets.Dataset.from_list([{"question": "q", "answer": "a", "references": ["r1", "r2"]}])
    assert read_input(ds).rows.references == [["r1", "r2"]]


def test_yang_label_and_entity_columns(tmp_path):
    path = _write(
        tmp_path,
        "yn.csv",
        'question,answer,answer_label,reference1,reference1_label,reference2,reference2_label,entities\n'
        'q,a,yes,r1,No,r2,Depends,"[""Paris"", ""France""]"\n',
    )
    rows = read_input(path).rows
    assert rows.candidate_labels == ["Yes"]
    assert rows.reference_labels == [["No", "Depends"]]
    assert rows.entities == [["Paris", "France"]]


@pytest.mark.parametrize(
    "name, content, expected",
    [
        ("missing.csv", None, "no such file"),
        ("empty.csv", "", "empty file"),
        ("header.csv", "question,answer,reference1\n", "no data rows"),
        ("noanswer.csv", "question,reference1\nq,r\n", "no 'answer' column"),
        ("noref.csv", "question,answer\nq,a\n", "no reference column"),
        ("emptyref.csv", "question,answer,reference1,reference2\nq,a,r,\nq,a, ,\n", "row 2, column 'reference1': no non-empty reference"),
        ("badlabel.csv", "answer,answer_label,reference1\na,maybe,r\n", "row 1, column 'answer_label'"),
        ("badent.csv", "answer,reference1,entities\na,r,not json\n", "row 1, column 'entities'"),
        ("bad.jsonl", '{"answer": "a", "references": ["r"]}\n{"answer": \n', "row 2: malformed JSON line"),
        ("dup.csv", "question,answer,reference1,answer\nq,a,r,b\n", "column 'answer': duplicate column 'answer'"),
        ("blankline.jsonl", '{"answer": "a", "references": ["r"]}\n\n{"answer": "a", "references": [" "]}\n',
         "row 3, column 'reference1': no non-empty reference"),  # JSONL rows are line numbers, blank lines included
        ("listanswer.jsonl", '{"answer": ["a", "b"], "references": ["r"]}\n', "row 1, column 'answer': expected text, got a list"),
        ("dictref.jsonl", '{"answer": "a", "references": [{"text": "r"}]}\n',
         "row 1, column 'reference1': expected text, got an object"),
    ],
)
def test_bad_input_names_file_row_column(tmp_path, name, content, expected):
    path = tmp_path / name
    if content is not None:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(InputError) as err:
        read_input(path)
    message = str(err.value)
    assert expected in message and str(path) in message and "\n" not in message


def test_streamed_chunks_number_rows_like_the_whole_file(tmp_path):
    path = _write(tmp_path, "gaps.jsonl", '{"answer": "a", "references": ["r"]}\n\n\n' * 3 + '{"answer": 7, "references": ["r"]}\n')
    tables = list(iter_input(path, 2))
    assert [t.numbers for t in tables] == [[1, 4], [7, 10]] and tables[1].rows.candidates == ["a", "7"]
    assert read_input(path).numbers == [1, 4, 7, 10]
    dup = _write(tmp_path, "dup.csv", "answer,reference1,reference1\na,r,s\n")
    with pytest.raises(InputError, match="duplicate column 'reference1'"):
        next(iter_input(dup, 1))


def test_non_utf8_names_the_row(tmp_path):
    path = _write(tmp_path, "latin1.csv", "question,answer,reference1\nq,a,r\nq,caf\xe9,r\n".encode("latin-1"), "wb")
    with pytest.raises(InputError, match=r"row 2: not UTF-8"):
        read_input(path)


@pytest.mark.model
def test_question_check_names_the_jsonl_line(tmp_path):
    from kpqa.scoring import Scorer

    path = _write(tmp_path, "q.jsonl", '{"question": "q", "answer": "a", "references": ["r"]}\n\n'
                                       '{"question": "", "answer": "a", "references": ["r"]}\n')
    for data in (path, read_input(path)):
        with pytest.raises(InputError, match=r"row 3, column 'question': empty question, needed by BLEU-1-KPQA"):
            Scorer(["BLEU-1-KPQA"]).score(data)
    with pytest.raises(InputError, match=r"row 3, column 'question'"):
        Scorer(["BLEU-1-KPQA"]).score_stream(iter_input(path, 1))


def test_an_empty_or_missing_answer_is_read_as_the_empty_text(tmp_path):
    """A system that said nothing: the answer is "" (blank, whitespace, NaN or a missing field), listed in
    ``Table.empty`` by frame row and by row number; the row is no error and keeps its cells as given."""
    (tmp_path / "a.csv").write_text("question,answer,reference1\nq,a,r\nq,  ,r\nq,,r\n")
    table = read_input(tmp_path / "a.csv")
    assert table.rows.candidates == ["a", "", ""] and table.empty == [1, 2] and table.empty_numbers() == [2, 3]
    assert not table.errors and table.frame["answer"].tolist()[1] == "  "
    (tmp_path / "a.jsonl").write_text('{"question": "q", "answer": "a", "references": ["r"]}\n\n'
                                      '{"question": "q", "answer": NaN, "references": ["r"]}\n'
                                      '{"question": "q", "references": ["r"]}\n')
    table = read_input(tmp_path / "a.jsonl")
    assert table.rows.candidates == ["a", "", ""] and table.empty_numbers() == [3, 4]  # JSONL: line numbers


def test_one_numeric_column_reader_names_the_first_bad_cell_by_the_tables_row_numbers(tmp_path):
    from kpqa.columns import binary_labels, numeric_column

    (tmp_path / "a.jsonl").write_text('{"question": "q", "answer": "a", "references": ["r"], "scores": 1}\n\n'
                                      '{"question": "q", "answer": "b", "references": ["r"], "scores": "x"}\n')
    table = read_input(tmp_path / "a.jsonl")
    where = dict(source=table.source, column="scores", numbers=table.numbers)
    with pytest.raises(InputError) as e:
        numeric_column(table.frame["scores"], **where, what=("human score ",))
    assert str(e.value) == f"{tmp_path / 'a.jsonl'}, row 3, column 'scores': human score 'x' is not a number"
    with pytest.raises(InputError, match="row 3, column 'scores': human label 'x' is not a number"):
        binary_labels(table.frame["scores"], **where)
    assert numeric_column(["1", " ", None, "2.5"], source="s", column="c", blanks=True).tolist()[::3] == [1.0, 2.5]
    with pytest.raises(InputError, match="^s, row 2, column 'c': ' ' is not a number$"):
        numeric_column(["1", " "], source="s", column="c")
    with pytest.raises(InputError, match="row 2, column 'c': human label 2 is not 0 or 1; set positive_above"):
        binary_labels([1, 2], source="s", column="c")
    with pytest.raises(InputError, match="human label 2 is not 0 or 1$"):
        binary_labels([1, 2], source="s", column="c", threshold_hint=False)
    assert binary_labels(["0.2", "0.8"], 0.5, source="s", column="c").tolist() == [0.0, 1.0]


def test_a_200000_character_answer_in_a_csv_is_read_not_refused_by_the_csv_modules_field_limit(tmp_path):
    long = ("word " * 40_000)[:-1] + "."  # 200,000 characters: the default limit of a text with a model metric
    pd.DataFrame({"question": ["q"], "answer": [long], "reference1": ["r"]}).to_csv(tmp_path / "l.csv", index=False)
    assert len(long) == 200_000 and read_input(tmp_path / "l.csv").rows.candidates == [long]
    (tmp_path / "l.tsv").write_text(f"answer\treference1\n{long * 2}\tr\n")
    assert read_input(tmp_path / "l.tsv", max_chars=None).rows.candidates == [long * 2]
    from kpqa.input import count_rows
    assert count_rows(tmp_path / "l.csv") == 1


_CSV = "question,answer,reference1\nq,a,r\n"


@pytest.mark.parametrize("name, content, expected", [
    ("sep.csv", ("sep=,\n" + _CSV).encode(), ": the first line, 'sep=,', is Excel's separator hint, not a header: "
                                              "remove it"),
    ("sep.tsv", ("sep=\t\n" + _CSV.replace(",", "\t")).encode(), ": the first line, 'sep=\\t', is Excel's"),
    ("le.csv", _CSV.encode("utf-16-le"), ": UTF-16 text (a byte-order mark or NUL bytes): save the file as UTF-8"),
    ("bom.csv", _CSV.encode("utf-16"), ": UTF-16 text"),
    ("be.jsonl", '{"answer": "a", "references": ["r"]}\n'.encode("utf-16-be"), ": UTF-16 text"),
    ("gz.csv", gzip.compress(_CSV.encode()), ": a gzip file (it starts with the bytes 1f 8b), not text: decompress it"),
    ("null.jsonl", b'{"answer": "a", "references": ["r"]}\n{"answer": "a", "references": [null, "r"]}\n',
     ", row 2, column 'references': 'references' holds null; give a list of strings"),
])
def test_files_that_are_not_what_they_seem_are_said_to_be_what_they_are(tmp_path, name, content, expected):
    (tmp_path / name).write_bytes(content)
    with pytest.raises(InputError) as e:
        read_input(tmp_path / name)
    assert str(e.value).startswith(str(tmp_path / name) + expected) and "\n" not in str(e.value)


def test_plain_text_files_are_read_one_text_a_line(tmp_path):
    from kpqa.input import text_files

    (tmp_path / "a.txt").write_text("an answer\n\nthird\n")
    (tmp_path / "r.txt").write_text("a reference\nanother\n1e5\n")
    table = text_files(tmp_path / "a.txt", [tmp_path / "r.txt"])
    assert table.rows.candidates == ["an answer", "", "third"] and table.rows.references == [["a reference"],
                                                                                             ["another"], ["1e5"]]


def test_every_optional_field_rows_declares_is_read_from_its_column_and_none_without_it():
    """The reader follows :func:`kpqa.rows.input_fields`: each optional field of ``Rows`` is filled from its column
    (per reference for the labels) and is None when the input lacks the column."""
    from kpqa.rows import input_fields

    frame = pd.DataFrame({"question": ["q"], "answer": ["a"], "reference1": ["r1"], "reference2": [""],
                          "reference3": ["r3"], "answer_label": ["yes"], "reference3_label": ["No"],
                          "entities": ['["Paris", " "]'], "incorrect_answers": ["x; y"]})
    rows = read_input(frame).rows
    assert list(input_fields()) == ["candidate_labels", "reference_labels", "entities", "wrong"]
    assert (rows.candidate_labels, rows.reference_labels, rows.entities, rows.wrong) == (
        ["Yes"], [[None, "No"]], [["Paris"]], [["x", "y"]])
    bare = read_input(frame[["question", "answer", "reference1"]]).rows
    assert [getattr(bare, name) for name in input_fields()] == [None] * 4
    labels_only = read_input(frame[["answer", "reference1", "reference3", "reference3_label"]]).rows
    assert labels_only.candidate_labels == [None] and labels_only.reference_labels == [[None, "No"]]  # one group


def test_a_field_declared_on_rows_reaches_the_reader_and_the_column_mapping(monkeypatch):
    """Adding an optional input field is one declaration on ``Rows``: a toy ``context`` field, declared with its
    column and cell reader, is read, mapped (``columns``) and checked cell by cell with nothing else changed."""
    from dataclasses import dataclass

    import kpqa.input
    import kpqa.rows
    from kpqa.cells import cell_text
    from kpqa.rows import Rows, _optional

    @dataclass
    class WithContext(Rows):
        context: list[str] | None = _optional("context", lambda v, c: cell_text(v, c.source, c.row, c.column))

    monkeypatch.setattr(kpqa.rows, "Rows", WithContext)
    monkeypatch.setattr(kpqa.input, "Rows", WithContext)
    monkeypatch.setattr(kpqa.input, "FIELDS", (*kpqa.input.FIELDS, "context"))
    frame = pd.DataFrame({"Q": ["q", "q2"], "answer": ["a", "b"], "reference1": ["r", "s"], "Ctx": ["text", ["x"]]})
    table = kpqa.input.frame_to_table(frame, columns={"question": "Q", "context": "Ctx"}, on_error="skip")
    assert table.rows.context == ["text"] and table.errors == {1: "expected text, got a list (column 'context')"}
    assert read_input(frame[["answer", "reference1"]]).rows.context is None


def test_parquet_entities_as_a_list_column_are_read(tmp_path):
    """A list column of entities (Parquet gives numpy arrays) is read as the list it is; it used to be refused as
    'not a JSON list' unless the references came as a list too."""
    path = tmp_path / "e.parquet"
    pd.DataFrame({"question": ["q"], "answer": ["a"], "reference1": ["r"],
                  "entities": [["Paris", "France"]]}).to_parquet(path)
    assert read_input(path).rows.entities == [["Paris", "France"]]
