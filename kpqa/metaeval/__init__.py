"""Meta-evaluation of whole human-judgment files: load and score (:mod:`~kpqa.metaeval.data`), run the statistics
of :mod:`~kpqa.metaeval.statistics` into a typed :class:`~kpqa.metaeval.report.Report` (:mod:`~kpqa.metaeval.report`), write
Markdown / JSON / figures (:mod:`~kpqa.metaeval.render`).

A human-judgment file is a scoring input (``question, answer, reference1..N``) with a numeric human score column
(``scores`` by default). Requested metrics whose column is already in the file are taken from it; the others are
scored with :class:`~kpqa.scoring.Scorer`.

Systems (needed by rank-pair agreement and Yang et al.'s overall level) come from ``system_column`` when given,
else from a column named ``system`` when the file has one (EVOUNA's layout). Otherwise the KPQA release layout is
recognised: an even number of rows where row ``i`` and row ``i + n/2`` have the
same question and references, and no item repeats within a half, is two systems, rows ``1..n/2`` and
``n/2+1..n`` (``marco_all.csv``: 1,000 rows, all 500 questions and references of the first half repeated in the
same order in the second; the two halves are UniLM and MHPGM, in an order the release does not say). Any other
layout is one system (``nrqa_mhpgm.csv``: 500 rows, 500 distinct questions, one model), where rank-pair and the
overall level are undefined and the report says so. Items are matched across systems by (question, references).

Binary labels (every human score 0 or 1, or ``positive_above`` given) add a "correct or not" section: per metric,
accuracy and Cohen's kappa of the calibrated decisions, AUROC and average precision of the scores, Brier score and
expected calibration error of the calibrated probabilities (:mod:`kpqa.binary`), with bootstrap intervals; beside
them ``KPQA-judge`` (its inputs, which the calibration names, read from the file's columns or scored here),
``Contains`` (scored here when not requested) and the majority class.
Decisions come from the calibration (``Settings.calibration``, default: the one beside the weighter); a metric it
has no entry for gets AUROC and AP only, unless its scores are 0/1 already (EM, Contains: taken as they are).
"""
from __future__ import annotations

from kpqa.metaeval.data import (
    Dataset, ScorerFactory, ScorerOptions, Settings, aev_scores, detect_systems, human_scores, item_keys, load_all,
    load_dataset, scorer_factory,
)
from kpqa.metaeval.render import grid_table, p_text, to_json, to_markdown, write_plots
from kpqa.metaeval.report import (
    SUFFIXES, BinarySection, Breakdown, DatasetReport, Group, HumanRange, OverallSection, RankPairSection, Report,
    ReportSettings, Systems, base_metric, build_report, evaluate, run,
)

__all__ = ["SUFFIXES", "BinarySection", "Breakdown", "Dataset", "DatasetReport", "Group", "HumanRange",
           "OverallSection", "RankPairSection", "Report", "ReportSettings", "ScorerFactory", "ScorerOptions", "Settings",
           "Systems", "aev_scores", "base_metric", "build_report", "detect_systems", "evaluate", "human_scores",
           "item_keys", "load_all", "load_dataset", "run", "scorer_factory", "to_json", "to_markdown", "write_plots",
           "grid_table", "p_text"]
