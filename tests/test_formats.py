"""Input and output formats: the extension names the format (CSV, TSV, JSON lines, JSON arrays, Parquet)."""
from __future__ import annotations

import json

import pandas as pd
import pytest

from kpqa.errors import InputError
from kpqa.output import OutputWriter, write_output
from kpqa.input import iter_input, read_input
from kpqa.scoring import Scorer

RECORDS = [
    {"question": "who wrote hamlet", "answer": "shakespeare wrote it", "references": ["william shakespeare", "him"]},
    {"question": "how hot is boiling water", "answer": "100 degrees", "references": ["100 degrees celsius"]},
]


def _flat(records):
    return [{"question": r["question"], "answer": r["answer"],
             **{f"reference{k}": x for k, x in enumerate(r["references"], 1)}} for r in records]


def _inputs(tmp_path):
    flat = pd.DataFrame(_flat(RECORDS)).fillna("")
    (tmp_path / "a.csv").write_text(flat.to_csv(index=False))
    (tmp_path / "a.tsv").write_text(flat.to_csv(index=False, sep="\t"))
    (tmp_path / "a.jsonl").write_text("".join(json.dumps(r) + "\n" for r in RECORDS))
    (tmp_path / "a.json").write_text(json.dumps(RECORDS, indent=1))
    pd.DataFrame(RECORDS).to_parquet(tmp_path / "a.parquet")
    lists = pd.DataFrame({"question": [r["question"] for r in RECORDS], "answer": [r["answer"] for r in RECORDS],
                          "references": [json.dumps(r["references"]) for r in RECORDS]})
    (tmp_path / "lists.csv").write_text(lists.to_csv(index=False))
    return ["a.csv", "a.tsv", "a.jsonl", "a.json", "a.parquet", "lists.csv"]


def test_every_input_format_reads_the_same_rows(tmp_path):
    for name in _inputs(tmp_path):
        for chunk in (1, 100):
            rows = [t.rows for t in iter_input(tmp_path / name, chunk)]
            assert [c for r in rows for c in r.candidates] == ["shakespeare wrote it", "100 degrees"], name
            assert [g for r in rows for g in r.references] == [["william shakespeare", "him"],
                                                               ["100 degrees celsius"]], name


def test_dataframe_with_a_references_list_column():
    table = read_input(pd.DataFrame(RECORDS))
    assert table.rows.references == [["william shakespeare", "him"], ["100 degrees celsius"]]


@pytest.mark.parametrize("suffix, read", [
    (".csv", lambda p: pd.read_csv(p)),
    (".tsv", lambda p: pd.read_csv(p, sep="\t")),
    (".jsonl", lambda p: pd.read_json(p, lines=True)),
    (".json", lambda p: pd.DataFrame(json.loads(p.read_text()))),
    (".parquet", lambda p: pd.read_parquet(p)),
])
def test_output_is_written_in_the_format_its_extension_names(tmp_path, suffix, read):
    _inputs(tmp_path)
    out = tmp_path / f"out{suffix}"
    scorer = Scorer(["BLEU-1", "CIDEr"])
    with OutputWriter(out, last_columns=scorer.columns(scorer.plan_for(tmp_path / "a.jsonl"))) as writer:
        result = scorer.score_file(tmp_path / "a.jsonl", writer.write, chunk_rows=1)
    frame = read(out)
    assert list(frame.columns) == ["question", "answer", "references", "BLEU-1", "CIDEr"]  # the input's, as given
    refs = [json.loads(r) if isinstance(r, str) else list(r) for r in frame["references"]]
    assert refs == [["william shakespeare", "him"], ["100 degrees celsius"]]  # a list column stays a list column
    whole = Scorer(["BLEU-1", "CIDEr"]).score(tmp_path / "a.jsonl")
    assert frame["CIDEr"].tolist() == pytest.approx(whole.frame["CIDEr"].tolist())  # the idf of every row (a corpus pass)
    assert frame["answer"].tolist() == ["shakespeare wrote it", "100 degrees"] and result.rows == 2


def test_write_output_json_array(tmp_path):
    write_output(pd.DataFrame({"a": [1, 2], "b": ["x", "é"]}), tmp_path / "o.json")
    assert json.loads((tmp_path / "o.json").read_text(encoding="utf-8")) == [{"a": 1, "b": "x"}, {"a": 2, "b": "é"}]


def test_unknown_input_format_and_layout_name_the_accepted_ones(tmp_path):
    (tmp_path / "a.xlsx").write_bytes(b"PK\x03\x04")
    with pytest.raises(InputError, match=r"unknown input format '.xlsx'; accepted: .csv, .tsv, .jsonl"):
        read_input(tmp_path / "a.xlsx")
    (tmp_path / "b.csv").write_text("q,a,r\nx,y,z\n")
    with pytest.raises(InputError, match=r"no 'answer' column .*expected the KPQA layout: columns question, answer, "
                                         r"reference1..referenceN \(or references"):
        read_input(tmp_path / "b.csv")
    (tmp_path / "c.json").write_text('[["q", "a", "r"]]')
    with pytest.raises(InputError, match=r"c.json: a .json input must be an array of objects \(or JSON lines"):
        read_input(tmp_path / "c.json")


@pytest.mark.parametrize("suffix", [".jsonl", ".json"])
def test_json_numbers_in_text_fields_are_read_as_written_whatever_the_other_rows_hold(tmp_path, suffix):
    records = ['{"question": 7, "answer": 2024, "references": ["r"], "scores": 1}',
               '{"question": "q", "answer": null, "references": [2024], "scores": 0.5}',
               '{"question": "q", "answer": 1e5, "references": [2024.5, "r"]}',
               '{"question": "q", "answer": Infinity, "references": "1.50"}',
               '{"question": "q", "answer": NaN, "references": ["-0.0"]}']
    path = tmp_path / f"n{suffix}"
    path.write_text("\n".join(records) + "\n" if suffix == ".jsonl" else "[" + ",\n".join(records) + "]\n")
    table = read_input(path)
    assert table.rows.questions[0] == "7"
    assert table.rows.candidates == ["2024", "", "1e5", "Infinity", ""]  # NaN: a missing answer, as pandas writes one
    assert table.rows.references == [["r"], ["2024"], ["2024.5", "r"], ["1.50"], ["-0.0"]]
    assert [float(s) for s in table.frame["scores"].iloc[:2]] == [1.0, 0.5]


def test_a_number_in_a_references_json_list_text_cell_is_read_as_written(tmp_path):
    (tmp_path / "n.csv").write_text('answer,references\na,"[2024, 1e5]"\nb,"[2024.5]"\n')
    assert read_input(tmp_path / "n.csv").rows.references == [["2024", "1e5"], ["2024.5"]]


def test_a_key_given_twice_in_a_json_object_is_refused_naming_the_line_and_the_key(tmp_path):
    good = '{"answer": "a", "references": ["r"]}'
    twice = '{"answer": "Marlowe", "answer": "Shakespeare", "references": ["r"]}'
    (tmp_path / "d.jsonl").write_text(f"{good}\n\n{twice}\n")
    with pytest.raises(InputError) as e:
        read_input(tmp_path / "d.jsonl")
    assert str(e.value) == (f"{tmp_path / 'd.jsonl'}, row 3: key 'answer' given twice in one object (JSON would keep "
                            "the last value; give it once)")
    (tmp_path / "d.json").write_text(f"[\n{good},\n{good}, {twice}\n]\n")
    with pytest.raises(InputError, match=r"d\.json, row 3: line 3: key 'answer' given twice in one object"):
        read_input(tmp_path / "d.json")
    (tmp_path / "n.json").write_text(f'[{{"answer": "a", "references": [{{"text": "r", "text": "s"}}]}}]')
    with pytest.raises(InputError, match=r"n\.json, row 1: line 1: key 'text' given twice"):
        read_input(tmp_path / "n.json")
