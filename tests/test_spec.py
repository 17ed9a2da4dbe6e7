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


# ---- options declared once, on the metric


def test_every_declared_option_is_a_constructor_keyword_with_the_declared_default():
    import inspect

    from kpqa.metrics.base import _REGISTRY, available

    available()
    declared = {name: factory for name, factory in _REGISTRY.items() if getattr(factory, "spec_options", ())}
    assert {"BLEU-1-KPQA", "ROUGE-L-KPQA", "BERTScore", "BERTScore-KPQA", "BLEU-4-adapted",
            "Equivalence"} <= set(declared)
    from kpqa.metrics.aev import AEv

    for factory in [*declared.values(), AEv]:
        parameters = inspect.signature(factory).parameters
        assert "spec" in parameters or factory is AEv
        for option in factory.spec_options:
            if option.keyword in parameters:  # Yang's labels picks the class (from_options)
                assert parameters[option.keyword].default == option.default, (factory, option.key)
            else:
                assert option.key == "labels", (factory, option.key)


@pytest.fixture
def toy_metrics():
    """``Toy`` (its options: ``case``) and ``ToyWeighted``, which adds one option by one declaration; registered for
    one test."""
    import numpy as np

    from kpqa.metrics import base
    from kpqa.metrics.base import MeanMetric, register
    from kpqa.metrics.spec import Option

    class Toy(MeanMetric):
        """The share of the answer's characters in the options' case."""

        name = "Toy"
        spec_options: tuple[Option, ...] = (Option("case", default="upper", choices=("upper", "lower")),)

        def __init__(self, spec: str = "", **settings: object) -> None:
            self.spec, self.settings = spec, {o.key: settings.get(o.keyword, o.default) for o in self.spec_options}

        def columns(self) -> list[str]:
            return [self.name + self.spec]

        def options(self) -> dict[str, object]:
            return dict(self.settings)

        def row_scores(self, rows, ctx):
            case = str.isupper if self.settings["case"] == "upper" else str.islower
            return np.array([sum(map(case, c)) / max(len(c), 1) for c in rows.candidates])

    class ToyWeighted(Toy):
        """Toy, times a weight: the option is its one declaration (parsed, checked, listed and signed by
        kpqa.metrics.spec and Metric.signature) and what it does to the score."""

        name = "ToyWeighted"
        spec_options = (*Toy.spec_options, Option("weight", float, default=1.0))

        def row_scores(self, rows, ctx):
            return self.settings["weight"] * super().row_scores(rows, ctx)

    base._load_builtin()
    register("Toy")(Toy)
    register("ToyWeighted")(ToyWeighted)
    yield Toy, ToyWeighted
    del base._REGISTRY["Toy"], base._REGISTRY["ToyWeighted"]


def test_adding_an_option_to_a_metric_is_one_declaration(toy_metrics):
    from kpqa.context import Context
    from kpqa.metrics.base import describe, get_metric
    from kpqa.rows import Rows

    weighted = get_metric("toyweighted:weight=0.5:case=lower")
    assert weighted.settings == {"case": "lower", "weight": 0.5} and weighted.columns() == [
        "ToyWeighted:weight=0.5:case=lower"]
    assert weighted.score(Rows(["q"], ["abCD"], [["r"]]), Context())["ToyWeighted:weight=0.5:case=lower"][0] == 0.25
    assert get_metric("ToyWeighted").settings == {"case": "upper", "weight": 1.0}
    assert str(weighted.signature(Context(tokenizer="whitespace"))).startswith(
        "ToyWeighted|tok:whitespace|case:lower|weight:0.5|version:")
    assert dict((n, o) for n, _, o in describe())["ToyWeighted"] == ":case=upper|lower :weight=NUMBER"
    for bad, says in (("ToyWeighted:weight=heavy", "the weight option takes numbers, not 'heavy'"),
                      ("ToyWeighted:weight=1:weight=2", "known: case=upper|lower, weight=NUMBER"),
                      ("ToyWeighted:case=title", "the case option takes upper or lower"),
                      ("Toy:weight=2", "bad option 'weight=2' in 'Toy:weight=2'; known: case=upper|lower, once")):
        with pytest.raises(UsageError, match=says):
            get_metric(bad)
