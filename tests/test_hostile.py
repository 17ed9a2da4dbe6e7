"""The hostile corpus (tests/data/hostile/, issue 54): inputs a new user brings that once gave a silent wrong result
or an unhelpful refusal, each through the command line (and the library where the issue names it)."""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import kpqa
from kpqa.calibration import Calibration, fit, load
from kpqa.cli import main

HOSTILE = Path(__file__).resolve().parent / "data" / "hostile"
REPO = Path(__file__).resolve().parents[1]


def _run(argv: list[str], capsys: pytest.CaptureFixture) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


# --- 1. read exactly as written or refused -----------------------------------------------------------------------

@pytest.mark.parametrize("name", ["extra_field_first.csv", "extra_field_among_good.csv"])
def test_an_unquoted_comma_is_one_line_naming_line_2_and_the_counts_and_nothing_is_written(name, tmp_path, capsys):
    out = tmp_path / "out.csv"
    code, _, err = _run(["score", str(HOSTILE / name), "--metrics", "F1", "-o", str(out), "--quiet"], capsys)
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("kpqa: error: ")
    assert f"{HOSTILE / name}, row 1: line 2: 4 fields, header has 3" in err
    assert not out.exists() and not Path(f"{out}.signatures.json").exists()


def test_a_tsv_row_with_a_tab_too_many_is_refused_alike(capsys):
    code, _, err = _run(["score", str(HOSTILE / "extra_field.tsv"), "--metrics", "F1", "--quiet"], capsys)
    assert code == 2 and "extra_field.tsv, row 1: line 2: 4 fields, header has 3 (TSV has no quoting" in err


def test_a_row_with_a_field_too_few_is_refused_too(capsys):
    code, _, err = _run(["score", str(HOSTILE / "missing_field.csv"), "--metrics", "F1", "--quiet"], capsys)
    assert code == 2 and "row 1: line 2: 3 fields, header has 4" in err


def test_a_quoted_tsv_field_is_kept_as_text_and_written_back_unchanged(tmp_path, capsys):
    out = tmp_path / "out.tsv"
    code, _, _ = _run(["score", str(HOSTILE / "quoted.tsv"), "--metrics", "F1", "-o", str(out), "--quiet"], capsys)
    assert code == 0
    answers = [line.split("\t")[1] for line in (HOSTILE / "quoted.tsv").read_text(encoding="utf-8").splitlines()]
    written = [line.split("\t")[1] for line in out.read_text(encoding="utf-8").splitlines()]
    assert written == answers == ["answer", '"Hello, world" he said', '"Big Apple"']
    table = kpqa.Scorer(["F1"]).score(str(HOSTILE / "quoted.tsv"))
    # the quotes are text: F1 against "Hello, world" counts 'hello' and 'world' of 4 answer tokens ('"hello', ...)
    assert table.frame["answer"].tolist() == answers[1:]


def test_an_input_column_named_like_a_metric_is_refused_not_overwritten(tmp_path, capsys):
    out = tmp_path / "out.csv"
    code, _, err = _run(["score", str(HOSTILE / "own_f1.csv"), "--metrics", "F1,BLEU-1", "-o", str(out), "--quiet"],
                        capsys)
    assert code == 2 and not out.exists()
    assert "own_f1.csv, column 'F1': the input has a column 'F1', which kpqa writes its F1 scores to" in err
    code, _, _ = _run(["score", str(HOSTILE / "own_f1.csv"), "--metrics", "BLEU-1", "-o", str(out), "--quiet"], capsys)
    assert code == 0 and pd.read_csv(out)["F1"].tolist() == [0.3, 0.9]  # kept as given beside other metrics


def test_mixed_string_and_list_references_score_the_same_through_the_cli_the_api_and_evaluate(tmp_path, capsys):
    evaluate = pytest.importorskip("evaluate")
    records = [json.loads(line) for line in (HOSTILE / "mixed_references.jsonl").read_text().splitlines()]
    questions = [r["question"] for r in records]
    answers = [r["answer"] for r in records]
    references = [r["references"] for r in records]
    assert isinstance(references[0], str) and isinstance(references[1], list)
    out = tmp_path / "out.csv"
    assert main(["score", str(HOSTILE / "mixed_references.jsonl"), "--metrics", "Contains,F1", "-o", str(out),
                 "--quiet"]) == 0
    cli = pd.read_csv(out)[["Contains", "F1"]].to_dict("list")
    api = kpqa.score(questions, answers, references, metrics=["Contains", "F1"])[["Contains", "F1"]].to_dict("list")
    metric = evaluate.load(kpqa.evaluate_path())
    hf = metric.compute(predictions=answers, references=references, questions=questions, metrics=["Contains", "F1"],
                        per_row=True)["per_row"]
    assert cli == api == hf == {"Contains": [1.0, 1.0], "F1": [0.5, 1.0]}  # "answer is eight" (SQuAD drops "the")


# --- 2. your own column names ------------------------------------------------------------------------------------

def test_columns_maps_capitalised_headers_and_the_output_keeps_them(tmp_path, capsys):
    code, _, err = _run(["score", str(HOSTILE / "capitalised.csv"), "--metrics", "F1", "--quiet"], capsys)
    assert code == 2 and "map your column with --columns answer=Answer" in err
    out = tmp_path / "out.csv"
    code, _, _ = _run(["score", str(HOSTILE / "capitalised.csv"), "--metrics", "F1", "-o", str(out), "--quiet",
                       "--columns", "question=Question,answer=Answer,references=Reference"], capsys)
    assert code == 0
    frame = pd.read_csv(out)
    assert list(frame.columns) == ["Question", "Answer", "Reference", "F1"]
    assert frame["F1"].round(4).tolist() == [0.6667, 1.0]  # "Shakespeare" in "William Shakespeare"; "Tokyo"
    api = kpqa.Scorer(["F1"], columns={"answer": "Answer", "reference1": "Reference", "question": "Question"})
    assert api.score(str(HOSTILE / "capitalised.csv")).frame["F1"].round(4).tolist() == [0.6667, 1.0]


@pytest.mark.parametrize("command", [["score"], ["meta-eval"], ["compare", "B.csv"], ["report", "-o", "r.html"],
                                     ["calibrate", "-o", "c.json"]])
def test_every_command_that_reads_input_takes_columns(command):
    from kpqa.cli import build_parser

    args = build_parser().parse_args([command[0], "A.csv", *command[1:], "--columns", "answer=Answer,question=Q"])
    assert args.columns == {"answer": "Answer", "question": "Q"}


def test_columns_naming_no_column_or_no_field_is_one_line(capsys):
    path = str(HOSTILE / "capitalised.csv")
    code, _, err = _run(["score", path, "--metrics", "F1", "--columns", "answer=Response", "--quiet"], capsys)
    assert code == 2 and "--columns answer=Response: no column 'Response' (columns: Question, Answer, Reference)" in err
    code, _, err = _run(["score", path, "--metrics", "F1", "--columns", "prediction=Answer", "--quiet"], capsys)
    assert code == 2 and "--columns prediction=Answer: the fields are question, answer, references" in err


def test_a_semicolon_separated_header_gets_a_delimiter_hint(capsys):
    code, _, err = _run(["score", str(HOSTILE / "semicolons.csv"), "--metrics", "F1", "--quiet"], capsys)
    assert code == 2 and err.count("\n") == 1
    assert "the header is one column, 'question;answer;reference1', holding ';'" in err


# --- 3. --tokenize auto -------------------------------------------------------------------------------------------

@pytest.mark.model
def test_tokenize_auto_works_with_the_default_metrics_on_chinese_rows(tmp_path, capsys):
    out = tmp_path / "out.csv"
    code, _, err = _run(["score", str(HOSTILE / "chinese.csv"), "--tokenize", "auto", "-o", str(out), "--quiet"],
                        capsys)
    assert code == 0, err
    signatures = json.loads(Path(f"{out}.signatures.json").read_text())["signatures"]
    assert signatures["BLEU-1"].startswith("BLEU-1|tok:zh|") and signatures["ROUGE-L"].startswith("ROUGE-L|tok:zh|")


# --- 4. decisions where they mean something -----------------------------------------------------------------------

def test_the_shipped_calibration_rates_the_lexical_baselines_unfit_and_the_judge_fit():
    from kpqa.calibration import Fitness

    cal = load()
    rated = {name: cal.rating(name) for name in [*cal.metrics, *cal.judges]}
    assert {n for n, r in rated.items() if not r.fit} == {"BLEU-1", "BLEU-4", "ROUGE-L", "BERTScore", "BLEU-1-KPQA",
                                                          "BERTScore-KPQA", "Contains", "F1"}
    assert rated["BLEU-4"].p_at_zero is not None and rated["BLEU-4"].p_at_zero > 0.5  # the plateau at zero
    assert rated["KPQA-judge"].fit and rated["KPQA-judge"].p_at_zero is None  # a logit: no floor at 0
    assert rated["ROUGE-L-KPQA"] == Fitness(0.885413, rated["ROUGE-L-KPQA"].p_at_zero, True)


def test_kpqa_calibrate_records_the_rating_and_a_file_without_ratings_keeps_its_digest(tmp_path):
    from kpqa.calibration import rate

    shipped = load()
    assert "fitness" not in shipped.to_dict()  # fitted before ratings: rated when read, its text unchanged
    assert shipped.digest == Calibration.load(shipped.path).digest
    rng = np.random.default_rng(0)
    labels = np.r_[np.zeros(50), np.ones(50)]
    scores = {"good": labels * 0.6 + rng.uniform(0, 0.4, 100), "noise": rng.uniform(0, 1, 100)}
    fitted = fit(scores, {"good": "good|version:x", "noise": "noise|version:x"}, labels)
    assert fitted.fitness["good"].fit and not fitted.fitness["noise"].fit
    fitted.save(tmp_path / "c.json")
    again = Calibration.load(tmp_path / "c.json")
    assert again.fitness == fitted.fitness == {m: rate(e) for m, e in fitted.metrics.items()}


@pytest.mark.model
def test_decide_writes_decisions_only_for_fit_metrics_and_the_judge_row_comes_first(tmp_path, capsys):
    out = tmp_path / "judged.csv"
    code, summary, _ = _run(["score", str(REPO / "examples" / "sample.csv"), "--decide", "-o", str(out), "--quiet"],
                            capsys)
    assert code == 0
    columns = list(pd.read_csv(out).columns)
    assert "BLEU-4-prob" not in columns and "BLEU-4-correct" not in columns and "ROUGE-L-correct" not in columns
    assert [c for c in columns if c.endswith("-correct")] == ["ROUGE-L-KPQA-correct", "KeyFact-KPQA-correct",
                                                              "KPQA-judge-correct"]
    lines = summary.splitlines()
    assert lines[2].split()[0] == "KPQA-judge" and lines[2].split()[2] == "0.5556"
    assert [line.split()[-2] for line in lines if line.startswith("BLEU-4 ")] == ["unfit"]
    assert any(line.startswith("no decisions from BLEU-1, BLEU-4, ROUGE-L, BERTScore, BLEU-1-KPQA, BERTScore-KPQA, "
                               "F1, Contains: ") for line in lines)


# --- 5. compare --key ---------------------------------------------------------------------------------------------

def _systems(tmp_path: Path) -> tuple[Path, Path, Path]:
    rows = pd.read_csv(REPO / "examples" / "sample.csv", dtype=str, keep_default_na=False)
    rows["question"] = [f"{q} (#{k})" for k, q in enumerate(rows["question"], 1)]  # the sample asks some twice
    a, b = rows.copy(), rows.copy()
    b["answer"] = b["reference1"]  # system B repeats the reference
    shuffled = b.iloc[[3, 0, 8, 1, 7, 2, 6, 4, 5]]
    for name, frame in (("A.csv", a), ("B.csv", b), ("B_shuffled.csv", shuffled)):
        frame.to_csv(tmp_path / name, index=False)
    return tmp_path / "A.csv", tmp_path / "B.csv", tmp_path / "B_shuffled.csv"


def test_compare_key_pairs_shuffled_rows_as_the_aligned_files_pair(tmp_path, capsys):
    a, b, shuffled = _systems(tmp_path)
    flags = ["--metrics", "F1,BLEU-1", "--no-judge", "--bootstrap", "200", "--quiet"]
    code, _, err = _run(["compare", str(a), str(shuffled), *flags], capsys)
    assert code == 2 and "another question than" in err and "--key" in err
    assert main(["compare", str(a), str(b), *flags, "--json", str(tmp_path / "aligned.json")]) == 0
    assert main(["compare", str(a), str(shuffled), *flags, "--key", "question", "--json",
                 str(tmp_path / "keyed.json")]) == 0
    aligned, keyed = (json.loads((tmp_path / n).read_text()) for n in ("aligned.json", "keyed.json"))
    assert keyed["differences"] == aligned["differences"] and keyed["rows"] == 9
    assert main(["compare", str(a), str(shuffled), *flags, "--key", "--json", str(tmp_path / "default.json")]) == 0
    assert json.loads((tmp_path / "default.json").read_text())["differences"] == aligned["differences"]


def test_compare_key_refuses_a_duplicated_or_missing_key_with_one_line(tmp_path, capsys):
    a, b, _ = _systems(tmp_path)
    frame = pd.read_csv(b, dtype=str, keep_default_na=False)
    frame.iloc[[0, 1, 2, 3, 4, 5, 6, 7, 0]].to_csv(tmp_path / "dup.csv", index=False)
    flags = ["--metrics", "F1", "--no-judge", "--quiet", "--key", "question"]
    code, _, err = _run(["compare", str(a), str(tmp_path / "dup.csv"), *flags], capsys)
    assert code == 2 and err.count("\n") == 1 and "dup.csv, row 9: the key (question) of row 1 again" in err
    frame.iloc[:8].to_csv(tmp_path / "short.csv", index=False)
    code, _, err = _run(["compare", str(a), str(tmp_path / "short.csv"), *flags], capsys)
    assert code == 2 and err.count("\n") == 1 and "A.csv, row 9: no row of" in err


# --- 6. the sidecar, the smaller items ----------------------------------------------------------------------------

def _labelled(tmp_path: Path) -> Path:
    rows = [("who wrote hamlet", "shakespeare", "william shakespeare", 1), ("capital of japan", "tokyo", "tokyo", 1),
            ("capital of france", "berlin", "paris", 0), ("boiling point of water", "50 degrees", "100 degrees", 0)]
    frame = pd.DataFrame([r for _ in range(6) for r in rows], columns=["question", "answer", "reference1", "scores"])
    frame["question"] = [f"{q} ({k})" for k, q in enumerate(frame["question"])]
    frame.to_csv(tmp_path / "in.csv", index=False)
    return tmp_path / "in.csv"


def test_meta_eval_reads_the_signatures_sidecar_as_report_does(tmp_path, capsys):
    from kpqa.scoring import Scorer

    path = _labelled(tmp_path)
    scorer = Scorer(["BLEU-1", "ROUGE-L"])
    result = scorer.score(str(path))
    cal = fit({c: result.frame[c].to_numpy() for c in ("BLEU-1", "ROUGE-L")},
              {c: result.signatures[c] for c in ("BLEU-1", "ROUGE-L")}, result.frame["scores"].to_numpy(float))
    cal.save(tmp_path / "cal.json")
    assert main(["score", str(path), "--metrics", "BLEU-1,ROUGE-L", "-o", str(tmp_path / "scored.csv"),
                 "--quiet"]) == 0
    argv = ["meta-eval", str(tmp_path / "scored.csv"), "--metrics", "BLEU-1,ROUGE-L", "--calibration",
            str(tmp_path / "cal.json"), "--bootstrap", "0", "--json", str(tmp_path / "r.json")]
    capsys.readouterr()
    code, _, err = _run(argv, capsys)
    assert code == 0 and "unchecked" not in err
    signatures = json.loads((tmp_path / "r.json").read_text())["datasets"][0]["signatures"]
    assert signatures["BLEU-1"] == str(result.signatures["BLEU-1"])
    Path(f"{tmp_path / 'scored.csv'}.signatures.json").unlink()  # without it: the columns' signatures are unknown
    code, _, err = _run(argv, capsys)
    assert code == 0 and "BLEU-1: calibrated scores from the input column; their signature is unchecked" in err


def test_compare_help_says_95_percent_once():
    help_text = subprocess.run([sys.executable, "-m", "kpqa", "compare", "--help"], capture_output=True, text=True,
                               check=True, cwd=REPO).stdout
    assert "95 % interval" in " ".join(help_text.split()) and "%%" not in help_text


def test_the_quick_starts_outputs_are_ignored_by_git():
    from test_readme import _quick_start

    outputs = [o for c in _quick_start() for o in re.findall(r" -o (\S+)", c) for o in (o, f"{o}.signatures.json")]
    assert "sample_scores.csv" in outputs and "sample_scores.csv.signatures.json" in outputs
    if shutil.which("git") is None or not (REPO / ".git").exists():
        pytest.skip("not a git checkout")
    ignored = subprocess.run(["git", "check-ignore", *outputs], capture_output=True, text=True, cwd=REPO).stdout
    assert ignored.split() == outputs


def test_texts_are_read_as_nfc_so_a_combining_accent_matches_its_precomposed_letter():
    table = kpqa.score(None, ["Cafe\u0301 au lait"], ["Caf\u00e9 au lait"], metrics=["F1", "EM", "BLEU-1"])
    assert table[["F1", "EM"]].to_numpy().tolist() == [[1.0, 1.0]]
    assert table["answer"].tolist() == ["Cafe\u0301 au lait"]  # the output keeps the cell as given


@pytest.mark.model
def test_an_emoji_is_a_token_of_the_kpqa_metrics_as_it_is_of_f1():
    table = kpqa.score(["What is this?"], ["\u2764\ufe0f the heart \U0001f600"], ["\u2764\ufe0f"],
                       metrics=["F1", "ROUGE-L-KPQA", "BLEU-1-KPQA"])
    assert table["F1"].tolist() == [0.5]
    assert table["ROUGE-L-KPQA"].iloc[0] > 0.05 and table["BLEU-1-KPQA"].iloc[0] > 0.01


def test_is_word_piece_keeps_letters_digits_and_pictographs_not_punctuation_or_degree_signs():
    from kpqa.text import is_word_piece

    assert [is_word_piece(p) for p in ["the", "42", "\u2764", "\U0001f600", "\u266b", ".", "\u00b0", "$", "'"]] == \
        [True, True, True, True, True, False, False, False, False]


def test_importing_kpqa_from_the_folder_holding_the_clone_is_explained_in_the_readme(tmp_path):
    (tmp_path / "kpqa").symlink_to(REPO, target_is_directory=True)
    found = subprocess.run([sys.executable, "-c", "import kpqa; print(kpqa.__file__, kpqa.__path__)"],
                           capture_output=True, text=True, cwd=tmp_path)
    readme = " ".join((REPO / "README.md").read_text(encoding="utf-8").split())
    assert "module 'kpqa' has no attribute 'score'" in readme and "the folder that holds the clone" in readme
    assert found.returncode == 0  # what the README explains: an editable install's finder comes after the folder
