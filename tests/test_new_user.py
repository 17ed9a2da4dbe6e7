"""What a new user meets: bad rows (--on-error, --max-chars), the device check, metric names, descriptions and
signatures, the Python API's words and results, the CLI's messages, progress, CJK text, the quick start's output."""
from __future__ import annotations

import io
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from stubs import StubWeighter

import kpqa
from kpqa.cli import build_parser, flags_of, main
from kpqa.errors import InputError, KpqaWarning, Param, UsageError
from kpqa import scoring
from kpqa.scoring import Scorer


# ---- bad rows: strict by default, --on-error scores the others and says why, a text over --max-chars

ROWS = "question,answer,reference1\nwho wrote hamlet,shakespeare wrote it,william shakespeare\n" \
       "q2, ,some reference\nq3,an answer,\nwhat is water,water is wet,water is wet\n"


@pytest.fixture
def bad_rows(tmp_path):
    path = tmp_path / "in.csv"
    path.write_text(ROWS)
    return path


def test_strict_by_default(bad_rows):
    with pytest.raises(InputError, match="row 3, column 'reference1': no non-empty reference"):
        Scorer(["BLEU-1"]).score(bad_rows)


@pytest.mark.parametrize("mode, missing", [("skip", np.nan), ("zero", 0.0)])
def test_on_error_scores_the_other_rows_and_says_why(bad_rows, mode, missing):
    result = Scorer(["BLEU-1", "ROUGE-L"], on_error=mode).score(bad_rows)
    clean = Scorer(["BLEU-1", "ROUGE-L"]).score(pd.read_csv(bad_rows).iloc[[0, 1, 3]].fillna(""))
    assert result.errors == {3: "no non-empty reference (column 'reference1')"} and result.empty == [2]
    np.testing.assert_array_equal(result.frame["ROUGE-L"].to_numpy(),
                                  [clean.frame["ROUGE-L"].iloc[0], 0.0, missing, clean.frame["ROUGE-L"].iloc[2]])
    assert result.frame["error"].tolist() == ["", "", "no non-empty reference (column 'reference1')", ""]
    assert result.corpus == clean.corpus  # the corpus scores are those of the rows scored, the empty answer too


def test_on_error_in_the_cli_lists_the_rows(bad_rows, tmp_path, capsys):
    out = tmp_path / "o.csv"
    assert main(["score", str(bad_rows), "--metrics", "BLEU-1", "--on-error", "skip", "--chunk-rows", "1",
                 "--quiet", "-o", str(out)]) == 0
    printed = capsys.readouterr()
    assert "kpqa: warning: 1 of 4 rows not scored (empty scores; the 'error' column says why): rows 3" in printed.err
    assert "1 of 4 answers empty, scored as such (every metric at its floor, judged wrong): rows 2" in printed.out
    frame = pd.read_csv(out, keep_default_na=False)
    assert frame["error"].tolist() == ["", "", "no non-empty reference (column 'reference1')", ""]


def test_an_empty_answer_is_scored_at_the_floor_and_judged_wrong(tmp_path):
    """A system that said nothing: every metric 0, every decision wrong (P(correct) 0), counted in the corpus
    scores (corpus BLEU counts its reference's length), listed in ``Result.empty``; never a stop."""
    from kpqa.calibration import fit

    frame = pd.DataFrame({"question": ["who wrote hamlet", "what is water", "q3"],
                          "answer": ["shakespeare wrote it", "water is wet", None],
                          "reference1": ["william shakespeare", "water is wet", "wet"]})
    result = Scorer(["BLEU-1", "ROUGE-L", "F1", "Contains"]).score(frame)
    assert result.empty == [3] and not result.errors
    assert [result.frame[c].iloc[2] for c in ("BLEU-1", "ROUGE-L", "F1", "Contains")] == [0.0] * 4
    assert result.corpus["ROUGE-L"] == pytest.approx(result.frame["ROUGE-L"].mean())  # the empty answer counts
    two = Scorer(["BLEU-1"]).score(frame.iloc[:2])
    assert result.corpus["BLEU-1"] < two.corpus["BLEU-1"]  # its reference's length goes into the brevity penalty
    rng = np.random.default_rng(0)
    scores = rng.random(60)
    labels = (scores + rng.normal(0, 0.3, 60) > 0.5).astype(float)
    # a calibration that says "correct" even at a score of 0: the empty answer is still judged wrong
    cal = fit({"F1": scores - 1.0}, {"F1": Scorer(["F1"]).score(frame).signatures["F1"]}, labels)
    judged = Scorer(["F1"], calibration=cal).score(frame)
    assert judged.frame["F1-correct"].tolist()[:2] == [1.0, 1.0]
    assert judged.frame["F1-correct"].iloc[2] == 0.0 and judged.frame["F1-prob"].iloc[2] == 0.0


@pytest.mark.model
@pytest.mark.parametrize("header, hint", [("answer", "or name yours with columns='question=COLUMN'"),
                                          ("Question,answer", "map your column with columns='question=Question'")])
def test_no_question_column_under_kpqa_is_said_so_not_an_empty_question(tmp_path, header, hint):
    (tmp_path / "in.csv").write_text(f"{header},reference1\n{'q,' * header.count(',')}a b,a c\n")
    for on_error in ("raise", "skip"):
        with pytest.raises(InputError) as e:
            scorer = Scorer(["BLEU-1-KPQA"], on_error=on_error)
            scorer.prepare(kpqa.input.read_input(tmp_path / "in.csv"), scorer.plan())
        assert str(e.value) == (f"{tmp_path / 'in.csv'}, column 'question': no 'question' column, needed by "
                                f"BLEU-1-KPQA (columns: {header.replace(',', ', ')}, reference1); {hint}, or use no_question=True for "
                                "the -KP weighter")


@pytest.mark.model
def test_empty_question_under_kpqa_is_a_row_error_too(tmp_path):
    pytest.importorskip("torch")
    from kpqa.models import shipped

    if not (shipped.resolve() / "metadata.json").exists():
        pytest.fail("the committed checkpoint is missing")
    frame = pd.DataFrame({"question": ["who wrote hamlet", " "], "answer": ["shakespeare", "x"],
                          "reference1": ["shakespeare", "x"]})
    result = Scorer(["ROUGE-L-KPQA"], on_error="zero", device="cpu").score(frame)
    assert result.frame["ROUGE-L-KPQA"].tolist()[1] == 0.0 and result.frame["ROUGE-L-KPQA"].tolist()[0] > 0.9
    # the error column says it in words that hold in Python and on the command line (no parameter, no flag)
    assert result.errors[2] == "empty question, needed by ROUGE-L-KPQA (its -KP form reads no question)"


def test_a_long_text_is_a_bad_row_in_score_calibrate_and_meta_eval(tmp_path, capsys):
    rows = [{"question": f"q{i}", "answer": f"answer {i} " + "x" * (i % 3), "reference1": f"answer {i}",
             "scores": i % 2, "grade": i % 3} for i in range(24)]
    rows[4]["answer"] = "word " * 20  # 100 characters
    path = tmp_path / "labelled.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    where = f"{path}, row 5, column 'answer': text of 100 characters, over the limit of 60 per text"
    for argv in (["score", str(path), "--metrics", "BLEU-1", "-o", str(tmp_path / "out.csv")],
                 ["calibrate", str(path), "--metrics", "BLEU-1,ROUGE-L", "-o", str(tmp_path / "cal.json")],
                 ["meta-eval", str(path), "--metrics", "BLEU-1", "--human-column", "grade", "--bootstrap", "0", "-o",
                  str(tmp_path / "r.md")]):
        assert main(argv + ["--max-chars", "60", "--quiet"]) == 2
        err = capsys.readouterr().err
        assert err == f"kpqa: error: {where} (raise it with --max-chars N)\n", err
        assert main(argv + ["--max-chars", "100", "--quiet"]) == 0
        capsys.readouterr()
    assert main(["score", str(path), "--metrics", "BLEU-1", "--max-chars", "60", "--on-error", "skip", "--quiet",
                 "-o", str(tmp_path / "skip.csv")]) == 0
    assert "1 of 24 rows not scored" in capsys.readouterr().err
    assert pd.read_csv(tmp_path / "skip.csv")["BLEU-1"].isna().tolist() == [i == 4 for i in range(24)]


# ---- the device: one check for every model metric

@pytest.mark.model
def test_cuda_without_gpu_is_one_clear_error_for_bertscore(bad_rows, capsys, monkeypatch):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(UsageError, match=r"device='cuda': no CUDA GPU is available \(use device='cpu'"):
        Scorer(["BERTScore"], device="cuda").score(pd.DataFrame({"answer": ["a"], "reference1": ["b"]}))
    assert main(["score", str(bad_rows), "--metrics", "BERTScore", "--device", "cuda", "--quiet", "-o", "-"]) == 2
    err = capsys.readouterr().err
    assert "kpqa: error: --device cuda: no CUDA GPU is available (use --device cpu or 'auto')" in err
    assert "internal error" not in err


def test_unknown_device_is_a_usage_error():
    from kpqa.models.device import pick_device

    with pytest.raises(UsageError, match="device='gpu': unknown device"):
        pick_device("gpu")


# ---- metric names, descriptions and signatures

@pytest.mark.model
def test_metric_names_are_case_insensitive_with_a_suggestion():
    assert Scorer(["bleu-1", "rouge-l-kpqa", "bertscore:idf=yes", "aev-0.3-2"]).score_columns == [
        "BLEU-1", "ROUGE-L-KPQA", "BERTScore:idf=yes", "AEv-0.3-2"]
    with pytest.raises(UsageError, match=r"unknown metric 'ROUGE-K'; did you mean 'ROUGE-L'"):
        Scorer(["ROUGE-K"])
    with pytest.raises(UsageError, match=r"did you mean 'BLEU-1-KPQA'"):
        Scorer(["BLEU-1-KPAQ"])


def test_kpqa_metrics_lists_every_name_with_a_description(capsys):
    assert main(["metrics"]) == 0
    lines = capsys.readouterr().out.splitlines()
    names = {line.split()[0] for line in lines if line.strip() and not line.startswith("*")}
    assert {"BLEU-1-KP", "ROUGE-L-KP", "BERTScore-KP", "BERTScore-P", "AEv-<alpha>-<N>", "EM"} <= names
    bert = next(line for line in lines if line.startswith("BERTScore "))
    assert "*" in bert and ":idf=yes|no" in bert and "BERTScore F" in bert
    assert any(line.startswith("ROUGE-L-KP ") and "without the question" in line for line in lines)


def test_metric_descriptions_are_whole_first_paragraphs():
    from kpqa.metrics.base import describe

    described = {name: text for name, text, _ in describe()}
    assert described["Contains"].endswith("the corpus score is the fraction of rows that contain one.")
    assert not [name for name, text in described.items() if "``" in text or ":func:" in text or "\n" in text]


def test_kp_columns_are_signed_with_their_own_name():
    from kpqa.context import Context
    from kpqa.metrics.base import get_metric

    metric = get_metric("BLEU-1-KP:tok=words")
    assert str(metric.signature(Context())).startswith("BLEU-1-KP|tok:ptb|")
    metric = get_metric("ROUGE-L-KP")
    assert str(metric.signature(Context())).startswith("ROUGE-L-KP|tok:kpw-pieces|beta:1.2|")


# ---- the Python API's words and results

@pytest.mark.model
def test_api_errors_speak_the_apis_words():
    with pytest.raises(UsageError, match=r"^batch_size=0: must be a positive integer$"):
        Scorer(["BLEU-1"], batch_size=0)
    with pytest.raises(UsageError, match=r"^on_error='ignore': must be one of raise, skip, zero$"):
        Scorer(["BLEU-1"], on_error="ignore")
    with pytest.raises(InputError, match=r"use no_question=True for the -KP weighter"):
        Scorer(["BLEU-1-KPQA"]).score(pd.DataFrame({"answer": ["a"], "reference1": ["b"]}))
    error = UsageError("use ", Param("no_question", True), ", ", Param("device", "cpu"), " or ", Param("batch_size", 0))
    assert str(error) == "use no_question=True, device='cpu' or batch_size=0"
    assert error.render(flags_of(build_parser())) == "use --no-question, --device cpu or --batch-size 0"


def test_score_can_return_corpus_scores_and_signatures():
    result = kpqa.score(None, ["the cat sat"], [["the cat sat down"]], metrics=["BLEU-1", "ROUGE-L"],
                        return_result=True)
    assert isinstance(result, kpqa.Result) and set(result.corpus) == {"BLEU-1", "ROUGE-L"}
    assert str(result.signatures["BLEU-1"]).startswith("BLEU-1|tok:ptb|")
    assert result.frame["BLEU-1"].iloc[0] == pytest.approx(result.corpus["BLEU-1"])


# ---- the CLI's messages: python -m kpqa, extras checked before any input is read, --unit's help

def test_python_dash_m_kpqa():
    proc = subprocess.run([sys.executable, "-m", "kpqa", "--version"], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.strip() == f"kpqa {kpqa.__version__}"


@pytest.mark.parametrize("argv", [
    ["meta-eval", "{d}/human.csv", "--metrics", "BLEU-1", "--plots", "{d}/plots", "--bootstrap", "0"],
    ["explain", "{d}/human.csv", "--row", "1", "--png", "{d}/fig.png"],
    ["explain", "--question", "q", "--reference", "a b", "--candidate", "a", "-o", "{d}/fig.html", "--png",
     "{d}/fig.png"],
])
def test_a_missing_extra_stops_the_command_before_it_reads_anything(argv, tmp_path, monkeypatch, capsys):
    """matplotlib missing (simulated): one line naming the extra, exit 2, and no input read, scored or loaded."""
    pd.DataFrame({"question": ["q"] * 12, "answer": [f"a {i}" for i in range(12)], "reference1": "a",
                  "scores": [i % 3 for i in range(12)]}).to_csv(tmp_path / "human.csv", index=False)
    monkeypatch.setitem(sys.modules, "matplotlib", None)  # import matplotlib -> ModuleNotFoundError

    def never(*args, **kwargs):
        raise AssertionError("input read before the extras were checked")

    monkeypatch.setattr("kpqa.input.iter_input", never)
    monkeypatch.setattr("kpqa.models.weighter.Weighter.load", never)
    code = main([a.format(d=tmp_path) for a in argv])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1, err
    assert "needs matplotlib: pip install 'kpqa[plots]'" in err
    assert not (tmp_path / "plots").exists() and not (tmp_path / "fig.png").exists()
    assert not (tmp_path / "fig.html").exists()


@pytest.mark.model
def test_explain_help_says_what_each_unit_is(capsys):
    with pytest.raises(SystemExit):
        main(["explain", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "the metrics' tokens" not in text
    assert "piece: the weighter's word pieces, the tokens the KPQA metrics use by default" in text


# ---- progress: a total, advanced per block of rows, quiet off a terminal

class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def _count_updates(monkeypatch, updates: list) -> None:
    """Make the scorers' progress bars append each update's row count to ``updates``."""
    real = scoring.progress_bar

    def spy(total):
        bar = real(total)
        original = bar.update
        bar.update = lambda n=1: (updates.append(n), original(n))[1]
        return bar

    monkeypatch.setattr(scoring, "progress_bar", spy)


def test_progress_bar_has_a_total_and_advances_per_block(tmp_path, monkeypatch):
    path = tmp_path / "many.csv"
    path.write_text("question,answer,reference1\n" + "q,a b,\"a\nc\"\n" * 10)  # quoted newlines: 10 rows, 21 lines
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    updates: list[int] = []
    monkeypatch.setattr(scoring, "PROGRESS_ROWS", 3)
    _count_updates(monkeypatch, updates)
    result = Scorer(["BLEU-1"], progress=True).score_file(path, chunk_rows=5)
    assert result.rows == 10 and updates == [3, 2, 3, 2]  # blocks of 3 within chunks of 5
    text = terminal.getvalue()
    assert "10/10" in text and "scoring" in text and "row/s" in text


def test_progress_moves_while_the_weighter_works_through_a_block(tmp_path, monkeypatch):
    """With a weighted metric, the weighter handed to the scorer weighs every text of the block first, reporting
    each of its forward passes (here three), and the bar moves with it; the metric then finds every weight in its
    cache."""
    from stubs import WordWeighter

    class Weighter(WordWeighter):  # caches like the real one and reports three forward passes
        def __init__(self):
            super().__init__()
            self.calls, self.cache = [], {}

        def piece_weights(self, pairs, progress=None):
            todo = list(dict.fromkeys(p for p in pairs if p not in self.cache))
            self.calls.append([t for _, t in todo])
            self.cache.update(zip(todo, super().piece_weights(todo)))
            for done in range(1, 4) if progress is not None else ():
                progress(done, 3)
            return [self.cache[pair] for pair in pairs]

    answers = ["a b c d e f g", "a", "a b c", "a b c d e", "b", "a b", "c d e f g h i j", "a c", "a b c d", "xyzxyz"]
    path = tmp_path / "rows.csv"
    pd.DataFrame({"question": "q", "answer": answers, "reference1": "r"}).to_csv(path, index=False)
    monkeypatch.setattr(sys, "stderr", _Terminal())
    updates: list[int] = []
    _count_updates(monkeypatch, updates)
    weighter = Weighter()
    result = Scorer(["ROUGE-L-KPQA"], weighter=weighter, progress=True).score_file(path)
    assert weighter.calls == [answers + ["r"], []]  # every text once, ahead of the metric, which finds them cached
    assert updates == [2, 3, 2, 3]  # 10 rows * passes done / (3 passes + the metric's own one), then the rest
    assert "kpw:stub" in str(result.signatures["ROUGE-L-KPQA"])  # the signature names the weighter handed in


def test_progress_is_quiet_off_a_terminal(tmp_path, monkeypatch):
    path = tmp_path / "few.csv"
    path.write_text("question,answer,reference1\nq,a,a\n")
    quiet = io.StringIO()
    monkeypatch.setattr(sys, "stderr", quiet)
    Scorer(["BLEU-1"], progress=True).score_file(path)
    assert quiet.getvalue() == ""


# ---- CJK text

def test_cjk_text_under_ptb_warns_and_auto_picks_zh():
    rows = {"question": ["水的沸点是多少"], "answer": ["水在一百度沸腾"], "reference1": ["一百摄氏度，水会沸腾"]}
    with pytest.warns(KpqaWarning, match="Chinese / Japanese.*tokenize='zh' or 'auto'"):
        ptb = Scorer(["BLEU-1"]).score(pd.DataFrame(rows))
    with warnings.catch_warnings():
        warnings.simplefilter("error", KpqaWarning)
        auto = Scorer(["BLEU-1"], tokenize="auto").score(pd.DataFrame(rows))
    assert ptb.frame["BLEU-1"][0] < 1e-9 and auto.frame["BLEU-1"][0] > 0.3
    assert auto.signatures["BLEU-1"].get("tok") == "zh"
    english = Scorer(["BLEU-1"], tokenize="auto").score(pd.DataFrame({"answer": ["a b"], "reference1": ["a c"]}))
    assert english.signatures["BLEU-1"].get("tok") == "ptb"


def test_a_few_cjk_names_among_english_answers_do_not_warn():
    answers = ["The Chipmunks were created by Ross Bagdasarian"] * 150 + ["毛泽东"]
    rows = pd.DataFrame({"question": ["q"] * 151, "answer": answers, "reference1": ["Ross Bagdasarian"] * 151})
    with warnings.catch_warnings():
        warnings.simplefilter("error", KpqaWarning)
        Scorer(["BLEU-1"]).score(rows)  # 1 of 302 texts (0.3%) is CJK: below CJK_WARN_SHARE


# ---- the quick start's output ignored by git

def test_the_quick_start_output_is_ignored_by_git():
    proc = subprocess.run(["git", "check-ignore", "-q", "sample_scores.csv"], cwd=Path(kpqa.__file__).parents[1])
    assert proc.returncode == 0


@pytest.mark.model
@pytest.mark.parametrize("name, says", [("ROUGE-L:foo=1", "ROUGE-L takes no options"),
                                        ("BLEU-4-adapted:foo=1", "known: labels=gold|auto, alpha=NUMBER"),
                                        ("ROUGE-L-KPQA:foo=1", "known: tok=pieces|words")])
def test_an_option_a_metric_does_not_take_is_one_line_naming_its_options(name, says, capsys):
    assert main(["score", "examples/sample.csv", "--metrics", name, "--quiet", "-o", "/dev/null"]) == 2
    err = capsys.readouterr().err
    assert says in err and len(err.strip().splitlines()) == 1 and "internal error" not in err


def test_dir_of_the_package_lists_the_api_before_it_is_imported():
    code = "import kpqa, sys; names = dir(kpqa); print('score' in names, 'Scorer' in names, 'kpqa.scoring' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["True", "True", "False"]  # listed, still not imported


def test_a_missing_input_file_is_said_before_the_heavy_imports():
    code = ("import sys; from kpqa.cli import main; code = main(['score', 'no-such-file.csv']); "
            "print(code, 'torch' in sys.modules, 'kpqa.metrics.bertscore' in sys.modules)")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    # before: the scorer was built first, which imported torch and every metric (seconds)
    assert run.stdout.split() == ["2", "False", "False"] and run.stderr == "kpqa: error: no-such-file.csv: no such file\n"


@pytest.mark.parametrize("command", [["score", "in.csv"], ["meta-eval", "in.csv"], ["calibrate", "in.csv", "-o", "c.json"],
                                     ["compare", "a.csv", "b.csv"]])
def test_every_scoring_command_makes_the_one_options_object_with_precision(command):
    """score, meta-eval, calibrate and compare share their scoring flags (--precision among them), made into one
    kpqa.context.ScorerOptions (kpqa.cli.common.scorer_options)."""
    from kpqa.cli.common import scorer_options
    from kpqa.context import ScorerOptions

    args = build_parser().parse_args([*command, "--precision", "bf16", "--device", "cpu", "--batch-size", "8",
                                      "--function-words", "0.5", "--max-chars", "900", "--tokenize", "whitespace",
                                      "--columns", "answer=Answer", "--checkpoint", "ck", "--quiet"])
    assert scorer_options(args) == ScorerOptions(tokenize="whitespace", checkpoint="ck", device="cpu", batch_size=8,
                                                 precision="bf16", function_word_weight=0.5, max_chars=900,
                                                 columns={"answer": "Answer"}, progress=False)


def test_columns_help_names_every_field():
    """``--columns --help`` lists every field an input column can be mapped to (:data:`kpqa.input.FIELDS`),
    ``incorrect_answers`` included."""
    from kpqa.cli.common import SHARED_OPTIONS
    from kpqa.input import FIELDS

    said = SHARED_OPTIONS["--columns"]["help"]
    assert [f for f in FIELDS if f not in said and f != "reference_labels"] == []
    assert "incorrect_answers" in said


def test_carried_columns_keep_the_types_the_input_gives(tmp_path):
    """``Scorer.score``'s frame carries the input's columns as read: a CSV's as text, exactly as written (``007``),
    a JSONL file's and a DataFrame's with their types (as the docstring says)."""
    import pandas as pd

    from kpqa.scoring import Scorer

    (tmp_path / "c.csv").write_text("question,answer,reference1,id\nq,a,a,007\n")
    (tmp_path / "c.jsonl").write_text('{"question": "q", "answer": "a", "reference1": "a", "id": 7}\n')
    frame = pd.DataFrame({"question": ["q"], "answer": ["a"], "reference1": ["a"], "id": [7]})
    scorer = Scorer(["F1"])
    assert scorer.score(str(tmp_path / "c.csv")).frame["id"].tolist() == ["007"]
    assert scorer.score(str(tmp_path / "c.jsonl")).frame["id"].tolist() == [7]
    assert scorer.score(frame).frame["id"].tolist() == [7]
    assert "exactly as written" in Scorer.score.__doc__
