"""Contract of kpqa.metrics.spec, the one parser of metric names: options, the -KP names, the metric extended."""
from __future__ import annotations

import pytest

from kpqa.errors import UsageError
from kpqa.metrics.spec import base_metric, base_name, kp_name, kp_suffix, parse_spec, split_kp


def test_parse_spec_keeps_the_options_in_order_and_the_text_as_written():
    spec = parse_spec("BERTScore:layer=5:idf=yes")
    assert (spec.base, spec.options, spec.text) == ("BERTScore", (("layer", "5"), ("idf", "yes")), ":layer=5:idf=yes")
    assert spec.as_dict() == {"layer": "5", "idf": "yes"} and parse_spec("ROUGE-L").options == ()
    for bad in ("BERTScore:layer", "BERTScore:layer=5:layer=6", "BERTScore:=5"):
        with pytest.raises(UsageError, match="bad option"):
            parse_spec(bad)
    with pytest.raises(UsageError, match="known: tok=pieces"):
        parse_spec("BLEU-1-KPQA:lcs=longest", allowed={"tok"}, known="known: tok=pieces|words")


def test_kp_names_round_trip():
    assert split_kp("BLEU-1-KP") == ("BLEU-1-KPQA", True)
    assert split_kp("ROUGE-L-KP:tok=words") == ("ROUGE-L-KPQA:tok=words", True)
    assert split_kp("BLEU-1-KPQA") == ("BLEU-1-KPQA", False) and split_kp("BLEU-1-KPQA", no_question=True)[1]
    assert split_kp("BLEU-1", no_question=True) == ("BLEU-1", False)
    assert kp_name("KeyFact-KPQA") == "KeyFact-KP" and split_kp(kp_name("KeyFact-KPQA"))[0] == "KeyFact-KPQA"
    assert (kp_suffix(True), kp_suffix(False)) == ("KPQA", "KP")


def test_base_name_and_base_metric():
    assert base_name("BLEU-1-KPQA:tok=words") == "BLEU-1-KPQA" and base_name("AEv-0.3-2") == "AEv-0.3-2"
    assert [base_metric(n) for n in ("BLEU-1-KPQA", "ROUGE-L-KP", "BLEU-4-adapted", "BERTScore", "-KPQA")] == \
        ["BLEU-1", "ROUGE-L", "BLEU-4", None, None]
