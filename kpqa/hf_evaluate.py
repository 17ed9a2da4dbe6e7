"""kpqa as a Hugging Face ``evaluate`` metric: ``evaluate.load(kpqa.evaluate_path())``, offline.

``evaluate`` loads this file from the installed package (a local path: nothing is downloaded) and calls
:class:`kpqa.Scorer`, so its numbers are those of :func:`kpqa.score` on the same rows::

    import evaluate, kpqa

    metric = evaluate.load(kpqa.evaluate_path())
    metric.compute(predictions=["There are four steps."], references=[["Four steps are involved."]],
                   questions=["How many steps are involved in a hypothesis test?"], per_row=True, decide=True)

``compute`` takes one reference or a list of references per prediction and returns the corpus scores by column
(with ``decide=True`` also each ``-prob`` column's mean P(correct) and each ``-correct`` column's share judged
correct), ``"signatures"`` (column -> signature) and, with ``per_row=True``, ``"per_row"`` (column -> one value per
prediction). Its other options are :class:`kpqa.Scorer`'s (``metrics``, ``no_question`` for the -KP form, whose
``questions`` may be left out, ``decide``, ``checkpoint``, ``device``, ``precision`` ...): those of
:class:`kpqa.context.ScorerOptions`, the options object every command that scores shares, and the rest passed on
(:func:`kpqa.scoring.build`); a scorer is kept per set of options, so its models load once.
"""
from __future__ import annotations

from typing import Any, Sequence

import datasets
import evaluate

from kpqa.context import DEFAULT_PRECISION, ScorerOptions
from kpqa.scoring import Scorer, build, records

_DESCRIPTION = "KPQA: keyphrase-weighted BLEU-1, ROUGE-L and BERTScore for answers to questions, and their baselines."
_CITATION = """@inproceedings{lee2021kpqa,
  title={KPQA: A Metric for Generative Question Answering Using Keyphrase Weights},
  author={Lee, Hwanhee and Yoon, Seunghyun and Dernoncourt, Franck and Kim, Doo Soon and Bui, Trung and Shin, Joongbo
          and Jung, Kyomin},
  booktitle={NAACL}, year={2021}}"""
_INPUTS = """predictions: generated answers; references: a reference or a list of references per prediction;
questions: the question of each prediction (may be left out with no_question=True or lexical metrics only).
Options: metrics (names or a comma-separated string), per_row, precision (auto, fp32, bf16, fp16, fast: the models'
arithmetic), and the options of kpqa.Scorer."""


def _features(references: Any) -> datasets.Features:
    return datasets.Features({"predictions": datasets.Value("string"), "references": references,
                              "questions": datasets.Value("string")})


def as_lists(references: Any) -> Any:
    """Every prediction's references as a list when any is one (a string: a list of that one). ``evaluate`` picks
    one feature type (a string or a list of strings) for every row, and would read a list as a string or a string
    as a list of letters where the two are mixed, scoring the other rows against the wrong references."""
    if references is None or isinstance(references, str) or not any(isinstance(r, str) for r in references):
        return references
    return [[r] if isinstance(r, str) else list(r) for r in references]


class KPQA(evaluate.Metric):
    """The ``evaluate`` metric (its name: ``kpqa``)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._scorers: dict[str, Scorer] = {}  # one per set of options

    def _info(self) -> evaluate.MetricInfo:
        return evaluate.MetricInfo(
            description=_DESCRIPTION, citation=_CITATION, inputs_description=_INPUTS,
            features=[_features(datasets.Sequence(datasets.Value("string"))), _features(datasets.Value("string"))],
            homepage="https://github.com/hwanheelee1993/KPQA")

    def compute(self, *, predictions: Any = None, references: Any = None, **kwargs: Any) -> dict | None:
        """``evaluate``'s compute, with ``questions`` optional (empty questions when left out)."""
        if predictions is not None and kwargs.get("questions") is None:
            kwargs["questions"] = [""] * len(predictions)
        return super().compute(predictions=predictions, references=as_lists(references), **kwargs)

    def _compute(self, predictions: Sequence[str], references: Sequence[Any], questions: Sequence[str],
                 metrics: str | Sequence[str] | None = None, per_row: bool = False,
                 precision: str = DEFAULT_PRECISION, **options: Any) -> dict:
        names = metrics.split(",") if isinstance(metrics, str) else metrics
        shared, more = ScorerOptions.split({**options, "precision": precision})
        key = repr((None if names is None else tuple(names), shared, sorted(more.items())))
        if key not in self._scorers:
            self._scorers[key] = build(shared, names, **more)
        result = self._scorers[key].score(records(questions, predictions, references))
        out: dict[str, Any] = dict(result.corpus)
        out["signatures"] = {c: str(s) for c, s in result.signatures.items()}
        if per_row:
            out["per_row"] = {c: result.frame[c].tolist() for c in result.corpus}
        return out
