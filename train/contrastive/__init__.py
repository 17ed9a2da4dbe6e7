"""Contrastive answer data for fitting and checking correct / incorrect decisions (``kpqa.calibration``) and for
training an answer-equivalence model.

From extractive QA data (SQuAD layout: SQuADShifts Wikipedia and Amazon reviews, SQuAD dev; ConditionalQA, MS-MARCO and HotpotQA for real yes/no
questions) every question gives a reference answer and candidates labelled correct (1) or wrong (0), of these
``kind``s:

correct (the right fact, in other words)
    ``span`` the bare answer span (another annotator's span when there is one); ``clause`` the span in a short
    clause ("It is X."); ``other-sentence`` another sentence of the article that holds the span; ``verbose`` 2-4
    sentences: the span in a clause, then sentences around the answer sentence; ``polar-same`` the right yes/no
    word, bare or before the evidence.
wrong (the reference's wording, the key fact changed)
    ``swap`` the answer sentence with the span replaced by another answer of the same type (year, date, number,
    proper name) from the same article; ``swap-span`` that other answer alone; ``swap-verbose`` a ``verbose``
    answer with the span swapped; ``choice-other`` the other option of a choice question ("Q: A or B?");
    ``polar-flip`` the other yes/no word (bare, or before the evidence); ``polar-wrong-statement`` the right
    polar word followed by the answer sentence with its fact swapped.
rule-made classes (:mod:`kpqa.train.contrastive.forms`), each a right and a wrong side in the same form
    ``polar-implicit`` / ``polar-implicit-flip`` a yes/no question answered by echoing its auxiliary ("It
    doesn't.", "That's right, they were: ..."), as the reference does / the opposite; ``long-asserts`` /
    ``long-mentions`` a multi-sentence answer asserting the reference's answer while naming another in passing /
    asserting the other while naming the reference's, or declining, or listing both; ``alias`` / ``alias-wrong``
    the answer by another name from WordNet ("Decalogue" for "Ten Commandments", "a native of Wales" for "Welsh")
    / a sibling's name ("Copernicus" for "Galileo"), bare, in a clause or in the answer sentence;
    ``negation-paraphrase`` / ``negation-flip`` a yes/no question on an adjective answered by a statement, the
    adjective, its negation or its WordNet antonym ("Am I eligible?" / no: "You are ineligible." / "You are
    eligible."); ``qualifier-synonym`` / ``qualifier-swap`` the answer sentence (or "Yes, <sentence>" to "Q? Is it
    <span>?") with an adjective the question and the sentence share put in other words ("the biggest city" for
    "the largest city") / turned into its antonym ("the smallest city"); ``role-reorder`` / ``role-swap`` "Who
    replaced Wilkinson?" answered by a statement keeping the roles, active or passive ("Wilkinson was replaced by
    Oaks.") / with the two names swapped ("Wilkinson replaced Oaks.").

The reference is the answer sentence (MS-MARCO style) or the bare spans of every annotator (TriviaQA style), half
each. Synthetic polar questions come from a SQuAD question and a candidate fact ("Q Is it X?"). Each question
gets up to ``--form-pairs`` pairs of the rule-made classes (0: the rows of the other kinds only, unchanged).
Questions are split by article into ``fit`` and ``check`` parts (``--check-share``), so no article's text is in
both. The ``train`` part is drawn from other sources only (SQuAD v1.1 train, ConditionalQA train); more SQuAD
train questions (``--train-rare-questions``) give only the pairs of the classes few questions allow. Every choice
is seeded per question (seed, source, id): the output does not depend on the order of the sources. No
human-judgment set is read.

The sources are read through :mod:`kpqa.train.sources` (the readers of ``kpqa train --data``), named
``[LABEL=]NAME:PATH`` (:mod:`.records`); by default the shared data folder's (``--data``). The package: the builder
(:mod:`.build`), its rule tables (:mod:`.forms`, :mod:`.values`), its sources (:mod:`.records`), the command
(:mod:`.__main__`).

    python -m kpqa.train.contrastive --out runs/contrastive               # writes fit.csv and check.csv
    python -m kpqa.train.contrastive --out runs/contrastive --part train  # writes train.csv
"""
from __future__ import annotations

from .build import (FIELDS, FIT_CHECK_SOURCES, FORM_KINDS, KINDS_CORRECT, KINDS_WRONG, TRAIN_SOURCES, Builder, build,
                    build_train, in_check, in_folder, polar_rows, span_type, write)
from .records import Article, Question, Spec

__all__ = ["FIELDS", "FIT_CHECK_SOURCES", "FORM_KINDS", "KINDS_CORRECT", "KINDS_WRONG", "TRAIN_SOURCES", "Article",
           "Builder", "Question", "Spec", "build", "build_train", "in_check", "in_folder", "polar_rows", "span_type",
           "write"]
