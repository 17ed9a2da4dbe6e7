"""English stop words: NLTK's list (AEv's stop-word removal) and the function words whose keyphrase weight the
weighter scales down (:class:`kpqa.models.weighter.Weighter`, ``function_word_weight``).

NLTK's English list: 179 words, the ``stopwords`` corpus of nltk_data (Apache-2.0, itself derived from the Snowball
stop list, BSD-3-Clause), copied here because the corpus cannot be downloaded at run time.

:data:`FUNCTION_WORDS` is that list less the negations and the parts of negated contractions (``no``, ``not``,
``nor``, ``don`` / ``t`` of ``don't``, ...): a negation can flip an answer, so it keeps its full weight. ``won``
(of ``won't``) is left out too, since it is also the past of "win".
"""
from __future__ import annotations

import re

NLTK_ENGLISH_STOPWORDS: frozenset[str] = frozenset(
    """
    i me my myself we our ours ourselves you you're you've you'll you'd your yours yourself yourselves he him his
    himself she she's her hers herself it it's its itself they them their theirs themselves what which who whom this
    that that'll these those am is are was were be been being have has had having do does did doing a an the and but
    if or because as until while of at by for with about against between into through during before after above
    below to from up down in out on off over under again further then once here there when where why how all any both
    each few more most other some such no nor not only own same so than too very s t can will just don don't should
    should've now d ll m o re ve y ain aren aren't couldn couldn't didn didn't doesn doesn't hadn hadn't hasn hasn't
    haven haven't isn isn't ma mightn mightn't mustn mustn't needn needn't shan shan't shouldn shouldn't wasn wasn't
    weren weren't won won't wouldn wouldn't
    """.split()
)
NEGATIONS: frozenset[str] = frozenset(
    w for w in NLTK_ENGLISH_STOPWORDS
    if w in {"no", "nor", "not", "t", "don", "ain", "won"} or w.endswith("n't") or w + "'t" in NLTK_ENGLISH_STOPWORDS
)
FUNCTION_WORDS: frozenset[str] = frozenset(w for w in NLTK_ENGLISH_STOPWORDS if "'" not in w) - NEGATIONS

_WORD = re.compile(r"[^\W\d_]+")  # a run of letters: "fletcher's" -> "fletcher", "s"


def function_word_spans(text: str, words: frozenset[str] = FUNCTION_WORDS) -> list[tuple[int, int]]:
    """Character spans of the runs of letters in ``text`` that are in ``words`` (compared lower-cased)."""
    return [m.span() for m in _WORD.finditer(text) if m.group().lower() in words]
