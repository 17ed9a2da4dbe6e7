"""Two systems compared on the same rows (`kpqa/comparison.py`, `kpqa.compare`, `kpqa compare`): the paired bootstrap against a hand
computation, plain-text inputs, the paired-rows check and the CLI's table and JSON."""
from __future__ import annotations

import json

import numpy as np
import pytest

from kpqa import comparison
from kpqa.cli import main
from kpqa.errors import InputError, UsageError
from kpqa.input import read_input, text_files


def test_paired_bootstrap_matches_a_hand_computation_on_a_small_fixed_sample():
    a, b = [0.2, 0.5, 0.9, 0.4, 0.0], [0.6, 0.5, 1.0, 0.1, 0.3]
    d = comparison.paired_difference(a, b, resamples=7, seed=3)
    # by hand: the same 7 resamples of the 5 rows (numpy's generator, seed 3), the mean difference on each
    draws = np.random.default_rng(3).integers(0, 5, size=(7, 5))
    diff = [b[i] - a[i] for i in range(5)]
    means = sorted(sum(diff[i] for i in row) / 5 for row in draws)
    assert d.a == pytest.approx(0.4) and d.b == pytest.approx(0.5) and d.delta == pytest.approx(0.1)
    # percentile with linear interpolation: rank (7 - 1) * 0.025 = 0.15 and (7 - 1) * 0.975 = 5.85
    assert d.ci_low == pytest.approx(means[0] + 0.15 * (means[1] - means[0]))
    assert d.ci_high == pytest.approx(means[5] + 0.85 * (means[6] - means[5]))
    extreme = sum(abs(m - 0.1) >= 0.1 for m in means)  # shifted by the observed difference, 0.1
    assert d.p_value == pytest.approx((extreme + 1) / 8)


def test_paired_bootstrap_of_two_rows_has_the_exact_distribution():
    # differences 0 and 1: a resample's mean is 0, 0.5 or 1 with probabilities 1/4, 1/2, 1/4, so the 95 % interval is
    # [0, 1], and shifted by the observed 0.5 a mean is as far from 0 as 0.5 is when it is 0 or 1: p = 1/2
    d = comparison.paired_difference([0.0, 0.0], [0.0, 1.0], resamples=20000, seed=0)
    assert d.delta == 0.5 and (d.ci_low, d.ci_high) == (0.0, 1.0)
    assert d.p_value == pytest.approx(0.5, abs=0.01)


def test_a_clear_difference_has_a_small_p_value_and_none_a_large_one():
    rng = np.random.default_rng(0)
    a = rng.random(300)
    clear = comparison.paired_difference(a, a + 0.05 + rng.normal(0, 0.02, 300), resamples=500)
    assert clear.p_value < 0.01 and clear.ci_low > 0
    same = comparison.paired_difference(a, a + rng.normal(0, 0.02, 300), resamples=500)
    assert same.p_value > 0.05 and same.ci_low < 0 < same.ci_high


def test_plain_text_files_one_text_a_line(tmp_path):
    for name, text in {"a.txt": "shakespeare\nwater is wet\n", "r1.txt": "william shakespeare\nwater\n",
                       "r2.txt": "\nwet water\n", "q.txt": "who wrote hamlet?\nwhat is water?"}.items():
        (tmp_path / name).write_text(text)
    table = text_files(tmp_path / "a.txt", [tmp_path / "r1.txt", tmp_path / "r2.txt"], tmp_path / "q.txt")
    assert table.rows.candidates == ["shakespeare", "water is wet"]
    assert table.rows.references == [["william shakespeare"], ["water", "wet water"]]
    assert table.rows.questions == ["who wrote hamlet?", "what is water?"]
    (tmp_path / "short.txt").write_text("one\n")
    with pytest.raises(InputError, match=r"short.txt: 1 lines, but the answers \(.*a.txt\) have 2"):
        text_files(tmp_path / "a.txt", [tmp_path / "short.txt"])
    # a byte that is not UTF-8 names its line as the row (a text file has no header line)
    for line in (1, 2):
        (tmp_path / "bad.txt").write_bytes(b"fine\n" * (line - 1) + b"caf\xe9\n")
        with pytest.raises(InputError, match=rf"bad.txt, row {line}: not UTF-8"):
            text_files(tmp_path / "bad.txt", [tmp_path / "r1.txt"])


def test_the_two_files_must_answer_the_same_items(tmp_path):
    (tmp_path / "a.csv").write_text("question,answer,reference1\nq1,x,r1\nq2,y,r2\n")
    (tmp_path / "b.csv").write_text("question,answer,reference1\nq1,x,r1\nq3,y,r2\n")
    with pytest.raises(InputError, match=r"a.csv, row 2, column 'question': another question than .*b.csv's"):
        comparison.check_paired(read_input(tmp_path / "a.csv"), read_input(tmp_path / "b.csv"))


def test_kpqa_compare_prints_the_table_and_writes_json(tmp_path, capsys):
    rows = [("who wrote hamlet", "william shakespeare"), ("capital of france", "paris"), ("largest planet", "jupiter")]
    (tmp_path / "a.csv").write_text("question,answer,reference1,scores\n" +
                                    "".join(f"{q},{r} it is,{r},1\n" for q, r in rows))
    (tmp_path / "b.csv").write_text("question,answer,reference1,scores\n" +
                                    "".join(f"{q},no idea,{r},{int(k == 0)}\n" for k, (q, r) in enumerate(rows)))
    assert main(["compare", str(tmp_path / "a.csv"), str(tmp_path / "b.csv"), "--metrics", "F1,ROUGE-L",
                 "--no-judge", "--bootstrap", "200", "--json", str(tmp_path / "c.json"), "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "3 paired rows, 200 bootstrap resamples (seed 0)" in out
    data = json.loads((tmp_path / "c.json").read_text())
    f1 = next(d for d in data["differences"] if d["column"] == "F1")
    assert f1["b"] == 0.0 and f1["delta"] == pytest.approx(-f1["a"]) and f1["ci_high"] < 0
    human = data["differences"][-1]  # the human column both files have, compared beside the metrics
    assert human["column"] == "scores (human)" and (human["a"], human["b"]) == (1.0, pytest.approx(1 / 3))


def test_kpqa_compare_from_python_returns_what_the_command_prints(tmp_path, capsys):
    """``kpqa.compare(...)`` is the command's library function: its table is what ``kpqa compare`` prints and its
    JSON what ``--json`` writes, to the byte (two files, and one file of two systems paired by a key)."""
    import kpqa
    from kpqa.context import ScorerOptions

    rows = [("who wrote hamlet", "william shakespeare"), ("capital of france", "paris"), ("largest planet", "jupiter"),
            ("author of dune", "frank herbert")]
    (tmp_path / "a.csv").write_text("question,answer,reference1,scores\n" +
                                    "".join(f"{q},{r} it is,{r},1\n" for q, r in rows))
    (tmp_path / "b.csv").write_text("question,answer,reference1,scores\n" +
                                    "".join(f"{q},no idea,{r},{int(k == 0)}\n" for k, (q, r) in enumerate(rows[::-1])))
    a, b = str(tmp_path / "a.csv"), str(tmp_path / "b.csv")
    assert main(["compare", a, b, "--metrics", "F1,ROUGE-L", "--no-judge", "--bootstrap", "300", "--seed", "4",
                 "--key", "question", "--tokenize", "whitespace", "--json", str(tmp_path / "c.json"), "--quiet"]) == 0
    printed = capsys.readouterr().out
    result = kpqa.compare([a, b], ["F1", "ROUGE-L"], judge=False, resamples=300, seed=4, key=["question"],
                          options=ScorerOptions(tokenize="whitespace"))
    assert isinstance(result, comparison.Comparison) and kpqa.compare is comparison.compare
    assert result.to_json() == (tmp_path / "c.json").read_text(encoding="utf-8")
    assert printed == result.table() + "\n"
    assert json.loads(result.to_json())["rows"] == 4


def test_two_systems_inside_one_file_compare_as_two_files(tmp_path, capsys):
    """``--system COLUMN``: the rows of each system, in the file's order, compared as two files of them would be."""
    rows = [("who wrote hamlet", "william shakespeare"), ("capital of france", "paris"), ("largest planet", "jupiter")]
    a = [f"{q},{r} it is,{r},1" for q, r in rows]
    b = [f"{q},no idea,{r},{int(k == 0)}" for k, (q, r) in enumerate(rows)]
    header = "question,answer,reference1,scores"
    (tmp_path / "a.csv").write_text("\n".join([header, *a]) + "\n")
    (tmp_path / "b.csv").write_text("\n".join([header, *b]) + "\n")
    mixed = [f"{x},{s}" for pair in zip(a, b) for x, s in zip(pair, ("sysA", "sysB"))]
    (tmp_path / "both.csv").write_text("\n".join([header + ",system", *mixed, "capital of france,paris,paris,1,sysC"]) + "\n")
    common = ["--metrics", "F1,ROUGE-L", "--no-judge", "--bootstrap", "200", "--quiet"]
    assert main(["compare", str(tmp_path / "a.csv"), str(tmp_path / "b.csv"), *common,
                 "--json", str(tmp_path / "files.json")]) == 0
    assert main(["compare", str(tmp_path / "both.csv"), "--system", "system", "--systems", "sysA,sysB", *common,
                 "--json", str(tmp_path / "column.json")]) == 0
    files, column = (json.loads((tmp_path / f).read_text()) for f in ("files.json", "column.json"))
    assert (column["a"], column["b"]) == ("sysA", "sysB")
    assert column["differences"] == files["differences"]
    # three systems and none named; a system that is not there; rows that do not pair
    table = read_input(tmp_path / "both.csv")
    with pytest.raises(UsageError, match=r"system='system': 3 systems .*\(sysA, sysB, sysC\); name two with systems=A,B"):
        comparison.split_systems(table, "system")
    capsys.readouterr()
    assert main(["compare", str(tmp_path / "both.csv"), "--system", "system", *common]) == 2
    err = capsys.readouterr().err  # the CLI says it in its flags
    assert "kpqa: error: --system system: 3 systems" in err and err.rstrip().endswith("name two with --systems A,B")
    with pytest.raises(UsageError, match=r"systems='sysA,sysB,sysC': 3 systems named; name two"):
        comparison.split_systems(table, "system", ["sysA", "sysB", "sysC"])
    with pytest.raises(InputError, match=r"no row of system 'sysD'"):
        comparison.split_systems(table, "system", ["sysA", "sysD"])
    with pytest.raises(InputError, match=r"no column 'model'"):
        comparison.split_systems(table, "model")
    tables, _ = comparison.split_systems(table, "system", ["sysA", "sysC"])
    assert tables[1].numbers == [7]  # rows keep their numbers in the file
    with pytest.raises(InputError, match=r"3 rows, but .*both.csv \(sysC\) has 1"):
        comparison.check_paired(*tables)


def test_scores_read_from_files_signed_differently_are_refused_unless_allowed(tmp_path, capsys):
    """Two ``kpqa score --decide -o`` files whose sidecars sign a compared column differently (another weighter):
    a one-line error, non-zero exit; ``--allow-different-signatures`` compares them and names the difference.
    Without sidecars the scores are compared with a note that their signatures are unchecked."""
    rows = [("who wrote hamlet", "william shakespeare"), ("capital of france", "paris"), ("largest planet", "jupiter")]
    paths = []
    for name, kpw, answer in (("a", "127e61a72fd0", "{r} it is"), ("b", "0664ad2d4bc1", "no idea")):
        path = tmp_path / f"{name}.csv"
        path.write_text("question,answer,reference1,F1\n" +
                        "".join(f"{q},{answer.format(r=r)},{r},{0.5 if name == 'a' else 0.0}\n" for q, r in rows))
        (tmp_path / f"{name}.csv.signatures.json").write_text(json.dumps({"signatures": {
            "F1": f"F1|tok:kpw-pieces|kpw:{kpw}|version:0.1.0"}}))
        paths.append(str(path))
    argv = ["compare", *paths, "--metrics", "F1", "--no-judge", "--bootstrap", "50", "--quiet"]
    assert main(argv) != 0
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "kpw:127e61a72fd0" in err and "kpw:0664ad2d4bc1" in err
    assert "--allow-different-signatures" in err
    assert main(argv + ["--allow-different-signatures"]) == 0
    out = capsys.readouterr().out
    assert "note: signed differently: F1: kpw:127e61a72fd0 in" in out and "unchecked" not in out
    (tmp_path / "b.csv.signatures.json").write_text((tmp_path / "a.csv.signatures.json").read_text())
    assert main(argv) == 0
    assert "note: scores read from both files' columns, signed alike" in capsys.readouterr().out
    for name in "ab":
        (tmp_path / f"{name}.csv.signatures.json").unlink()
    assert main(argv) == 0
    assert "their signatures unchecked" in capsys.readouterr().out
