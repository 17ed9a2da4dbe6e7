"""The registries find what is there: every metric module's metrics without a hand-kept list of modules, every kind
of judge with its fitter. Each test lists what its registry holds, so a metric or kind that goes missing fails."""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import numpy as np

METRICS = Path(__file__).resolve().parents[1] / "kpqa" / "metrics"


def test_the_metric_registry_lists_every_metric_of_every_module():
    from kpqa.metrics.base import available, describe

    assert available() == [
        "BERTScore", "BERTScore-KPQA", "BERTScore-P", "BERTScore-R", "BLEU-1", "BLEU-1-KPQA", "BLEU-2", "BLEU-3",
        "BLEU-4", "BLEU-4-adapted", "CIDEr", "Contains", "EM", "Equivalence", "F1", "KeyFact-KPQA", "KeyMiss-KPQA",
        "METEOR",
        "ROUGE-L", "ROUGE-L-KPQA", "ROUGE-L-adapted"]
    assert [family for family, _, _ in describe() if "<" in family] == ["AEv-<alpha>-<N>"]


def test_every_module_that_registers_a_metric_is_found_without_a_list():
    # the modules whose source calls register / register_pattern are exactly those the registry imported
    registering = sorted(p.stem for p in METRICS.glob("*.py") if any(
        isinstance(n, ast.Call) and getattr(n.func, "id", "") in {"register", "register_pattern"} for n in ast.walk(ast.parse(p.read_text(encoding="utf-8")))))
    assert registering == ["aev", "bertscore", "bleu", "cider", "equivalence", "kpqa", "meteor", "rouge", "squad",
                           "yang"]
    code = ("import sys; from kpqa.metrics.base import available; available(); "
            "print(sorted(m.split('.')[-1] for m in sys.modules if m.startswith('kpqa.metrics.')))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert set(registering) <= set(ast.literal_eval(loaded))


def test_judge_kinds_are_the_judge_classes_each_with_its_fitter_and_are_built_whole():
    """Each kind fits a judge, and builds it whole: its calibration is made of the fitted judge's own logits on
    the fitting scores (``calibrate``), and ``replaces`` is set when it is made."""
    from kpqa.calibration import JUDGE_KINDS, LogisticJudge, TreesJudge, fit_metric

    assert JUDGE_KINDS == {"logistic": LogisticJudge, "trees": TreesJudge}
    rng = np.random.default_rng(0)
    x = rng.normal(size=(200, 2))
    y = (x[:, 0] + x[:, 1] > 0).astype(float)
    for kind, cls in JUDGE_KINDS.items():
        seen = []
        calibrate = lambda logit: seen.append(logit) or fit_metric("J", "J|logit", logit, y)  # noqa: E731
        judge = cls.fit("J", ["a", "b"], {"a": "a", "b": "b"}, x, y, np.ones(len(y)), calibrate, replaces="K")
        assert type(judge) is cls and judge.kind == kind and judge.replaces == "K"
        logit = judge.logit({"a": x[:, 0], "b": x[:, 1]})
        assert np.mean((logit > 0) == (y == 1)) > 0.9  # a fitted judge, not a stub
        assert np.array_equal(seen[0], logit) and judge.calibration == fit_metric("J", "J|logit", logit, y)


def test_the_format_registry_lists_every_format_by_suffix():
    from kpqa.formats import formats, listing

    assert {suffix: f.name for suffix, f in formats().items()} == {
        ".csv": "csv", ".tsv": "tsv", ".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "json", ".parquet": "parquet"}
    assert [suffix for suffix, f in formats().items() if f.writer is None] == []  # every one is written too
    assert listing() == ".csv, .tsv, .jsonl (or .ndjson), .json (an array of objects), .parquet"


FORMATS = Path(__file__).resolve().parents[1] / "kpqa" / "formats"


def test_every_module_that_registers_a_format_is_found_without_a_list():
    registering = sorted(p.stem for p in FORMATS.glob("*.py") if any(
        isinstance(n, ast.Call) and getattr(n.func, "id", "") == "register"
        for n in ast.walk(ast.parse(p.read_text(encoding="utf-8")))))
    assert registering == ["delimited", "jsonarray", "jsonlines", "parquet"]
    code = ("import sys; from kpqa.formats import formats; formats(); "
            "print(sorted(m.split('.')[-1] for m in sys.modules if m.startswith('kpqa.formats.')))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert set(registering) <= set(ast.literal_eval(loaded))


#: a format in one module: pipe-separated values, read and written through the delimited format's functions
TOY = '''
from functools import partial

from kpqa.formats import Format, Writer, register
from kpqa.formats.delimited import count, read

register(Format("psv", (".psv",), partial(read, sep="|"), partial(count, sep="|"), Writer(sep="|"), rank=60))
'''


def test_adding_a_format_is_adding_one_module(tmp_path, monkeypatch):
    """A module dropped into the package's folder (here: a folder added to its path) is found, and input, output
    and row counts take the new suffix, with no other change."""
    import kpqa.formats
    from kpqa.formats import base
    from kpqa.input import count_rows, iter_input
    from kpqa.output import write_output

    base.formats()  # the built-in modules loaded (and registered) once, in the registry the test leaves as it was
    (tmp_path / "toy_psv.py").write_text(TOY, encoding="utf-8")
    monkeypatch.setattr(kpqa.formats, "__path__", [*kpqa.formats.__path__, str(tmp_path)])
    monkeypatch.setattr(base, "_FORMATS", dict(base._FORMATS))
    monkeypatch.setattr(base, "_LOADED", False)
    monkeypatch.delitem(sys.modules, "kpqa.formats.toy_psv", raising=False)
    try:
        assert base.formats()[".psv"].name == "psv"
        assert base.listing().endswith(", .parquet, .psv")
        (tmp_path / "in.psv").write_text("question|answer|reference1\nq1|a b|a c\nq2|x|y\nq3|z|\n", encoding="utf-8")
        assert count_rows(tmp_path / "in.psv") == 3
        tables = list(iter_input(tmp_path / "in.psv", 2, on_error="skip"))
        assert [t.numbers for t in tables] == [[1, 2], [3]]
        assert [t.rows.candidates for t in tables] == [["a b", "x"], []]
        assert tables[1].errors == {0: "no non-empty reference (column 'reference1')"}
        write_output(tables[0].frame.assign(score=[0.5, 1.0]), tmp_path / "out.psv")
        assert (tmp_path / "out.psv").read_text(encoding="utf-8") == (
            "question|answer|reference1|score\nq1|a b|a c|0.5\nq2|x|y|1.0\n")
    finally:
        sys.modules.pop("kpqa.formats.toy_psv", None)
