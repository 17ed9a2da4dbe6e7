"""BERTScore (Zhang et al. 2020) and BERTScore-KPQA (Lee et al. 2021, eq. 6-8): weighted greedy cosine matching.

Each candidate token is matched to its most similar reference token (precision) and each reference token to its
most similar candidate token (recall), on L2-normalised hidden states of one encoder layer (:mod:`kpqa.models.encoder`):

    P = sum_i w_i max_j c_i . r_j / sum_i w_i      R = sum_j v_j max_i c_i . r_j / sum_j v_j      F = 2PR / (P + R)

Weights: uniform (default), idf from the references as bert-score computes it (``log((N+1)/(df+1))`` over the N
references of the rows scored, unseen tokens ``log(N+1)``), or KPW (BERTScore-KPQA: candidate tokens weighted by
KPW(Q, candidate), reference tokens by KPW(Q, reference)). As in bert-score, the [CLS]/[SEP] vectors take part in
the matching as targets with weight 0 (they change F by up to 0.03 on MS-MARCO rows, so leaving them out would
not be bert-score), and a candidate or reference without tokens scores 0.

Multiple references: the row takes the reference with the highest F, and reports that reference's P and R
(bert-score takes the maximum of P, R and F separately, so its P and R can come from different references; the F
is the same). No baseline rescaling: bert-score's baseline files do not cover our local encoders, so the scores are
raw cosines (high for any pair of English sentences; correlations are unaffected by rescaling).

Default encoder and layer: MiniLM (all-MiniLM-L6-v2) layer 6, no idf. The layer maximises the mean of Pearson r
and Spearman rho over BOTH human-judgment sets (``python experiments/bertscore_layers.py [--backbone mpnet]``; F, idf
off, r / rho; the paper's BERTScore, with idf: 0.463 / 0.456 and 0.785 / 0.767):

    minilm layer   1            2            3            4            5            6
    MS-MARCO       .385/.379    .379/.369    .372/.360    .394/.388    .441/.447    .445/.457
    NarrativeQA    .745/.743    .758/.754    .757/.754    .751/.759    .723/.748    .781/.780
    mpnet (12 layers): layer 11 .448/.458 and .760/.769 (mean .609; layer 12 .599, layer 6 .571)

idf raises every layer on both sets (minilm layer 6: .465/.472 and .805/.792) but stays off by default, as in
bert-score. Asked for as ``BERTScore:idf=yes`` (also ``:layer=N``, ``:encoder=NAME``:
:attr:`BERTScore.spec_options`), the idf comes from every reference of the input, as bert-score's ``idf=True``
computes it from all the references it is given: the scorer makes a corpus pass first
(:attr:`~kpqa.metrics.base.Metric.reduction`), so a row's score does not depend on how the input is chunked or split
across processes. Backbones without a measured layer use
bert-score's tuned layer for hub names it knows, else 3/4 of the depth read from the config.
"""
from __future__ import annotations

from math import log
from typing import TYPE_CHECKING, ClassVar, Mapping, Sequence

import numpy as np

from kpqa.errors import UsageError
from kpqa.context import DEFAULT_BATCH_SIZE, DEFAULT_DEVICE, DEFAULT_PRECISION, Context
from kpqa.metrics.base import CORPUS_PASS, SUM, DocFreq, Metric, Totals, register
from kpqa.metrics.spec import Option, kp_suffix
from kpqa.models.backbone import DEFAULT_BACKBONE
from kpqa.rows import Rows, regroup, weighted_pairs
from kpqa.signature import Signature

if TYPE_CHECKING:  # pragma: no cover
    from kpqa.models.encoder import Encoder, TokenEmbeddings


#: the names of the per-row statistics of every BERTScore metric (:func:`score_embeddings`' columns)
STATISTICS = ("P", "R", "F")
#: candidate rows of the similarity matrix computed at a time: memory ``BLOCK_ROWS x`` the reference's tokens
BLOCK_ROWS = 256


def best_matches(c: np.ndarray, r: np.ndarray, block: int = BLOCK_ROWS) -> tuple[np.ndarray, np.ndarray]:
    """Per row of ``c`` [m, d] its largest dot product with a row of ``r`` [n, d], and per row of ``r`` its largest
    with a row of ``c``: the maxima of ``c @ r.T`` along each axis, computed ``block`` rows of ``c`` at a time so that
    memory stays ``block x n`` however long the texts are."""
    rows, cols = np.empty(len(c), dtype=np.result_type(c, r)), np.full(len(r), -np.inf, dtype=np.result_type(c, r))
    for start in range(0, len(c), block):
        sim = c[start:start + block] @ r.T
        rows[start:start + block] = sim.max(axis=1)
        np.maximum(cols, sim.max(axis=0), out=cols)
    return rows, cols


def greedy_prf(
    cand: np.ndarray,
    cand_w: np.ndarray,
    ref: np.ndarray,
    ref_w: np.ndarray,
    cand_extra: np.ndarray | None = None,
    ref_extra: np.ndarray | None = None,
) -> tuple[float, float, float]:
    """Weighted greedy-matching P, R, F of candidate vectors ``cand`` [m, d] against reference vectors ``ref`` [n, d]
    (both L2-normalised). ``*_extra`` are further match targets of weight 0 (the special tokens). 0s when either
    side has no token or no weight. The similarities are compared in blocks (:func:`best_matches`)."""
    if len(cand) == 0 or len(ref) == 0 or cand_w.sum() <= 0 or ref_w.sum() <= 0:
        return 0.0, 0.0, 0.0
    c = cand if cand_extra is None else np.concatenate([cand, cand_extra])
    r = ref if ref_extra is None else np.concatenate([ref, ref_extra])
    rows, cols = best_matches(c, r)
    p = float(np.dot(cand_w, rows[: len(cand)]) / cand_w.sum())
    r_ = float(np.dot(ref_w, cols[: len(ref)]) / ref_w.sum())
    # 0 where P + R <= 0: there 2PR / (P + R) is no similarity (P, R of opposite signs give values far outside
    # [-1, 1]: 1.47 for a wrong NarrativeQA answer under BERTScore-KPQA), where bert-score divides anyway
    f = 2 * p * r_ / (p + r_) if p + r_ > 0 else 0.0
    return p, r_, f


def idf_weights(references: Sequence[np.ndarray] | DocFreq) -> dict[int, float]:
    """bert-score's idf from the token ids of each reference (or their document frequencies):
    ``log((N+1)/(df+1))``; use ``.get(id, log(N+1))``."""
    freq = references if isinstance(references, DocFreq) else DocFreq.of(ids.tolist() for ids in references)
    return {t: log((freq.docs + 1) / (c + 1)) for t, c in freq.df.items()}


def lookup(idf: Mapping[int, float], ids: np.ndarray, n_docs: int) -> np.ndarray:
    """Idf weight of each token id (``log(n_docs + 1)`` for ids never seen)."""
    unseen = log(n_docs + 1)
    return np.array([idf.get(int(t), unseen) for t in ids], dtype=np.float32)


def best_of(scores: Sequence[tuple[float, float, float]]) -> tuple[float, float, float]:
    """The (P, R, F) of the reference with the highest F (the first on ties)."""
    return max(scores, key=lambda s: s[2])


def score_embeddings(
    cands: Sequence["TokenEmbeddings"],
    refs: Sequence[Sequence["TokenEmbeddings"]],
    cand_w: Sequence[np.ndarray],
    refs_w: Sequence[Sequence[np.ndarray]],
) -> np.ndarray:
    """Per row, [P, R, F] against its best reference (highest F); shape [rows, 3]."""
    out = np.zeros((len(cands), 3))
    for i, (c, w) in enumerate(zip(cands, cand_w)):
        out[i] = best_of(
            [greedy_prf(c.vectors, w, r.vectors, v, c.special, r.special) for r, v in zip(refs[i], refs_w[i])]
        )
    return out


def get_encoder(ctx: Context, backbone: str = DEFAULT_BACKBONE) -> "Encoder":
    """The :class:`~kpqa.models.encoder.Encoder` of ``backbone`` on the context's device and precision, loaded on first
    use and kept in ``ctx.models`` (a scorer's metrics share one per backbone, device and precision; the batch size
    is given per call)."""
    from kpqa.models.encoder import Encoder

    return ctx.models.get(("encoder", backbone, ctx.device, ctx.precision),
                          lambda: Encoder(backbone, device=ctx.device, precision=ctx.precision))


def embed_rows(
    rows: Rows, ctx: Context, backbone: str = DEFAULT_BACKBONE, layer: int | None = None
) -> tuple[list["TokenEmbeddings"], list[list["TokenEmbeddings"]]]:
    """One-layer embeddings of the candidates and of each row's references (computed once per batch through
    ``ctx.shared``, e.g. for BERTScore then BERTScore-KPQA)."""
    from kpqa.models.encoder import TokenEmbeddings

    encoder = get_encoder(ctx, backbone)
    layer = encoder.layer if layer is None else layer

    def compute() -> tuple[list[TokenEmbeddings], list[list[TokenEmbeddings]]]:
        flat = [r for g in rows.references for r in g]
        embs = [
            TokenEmbeddings(e.ids, e.offsets, e.vectors[0], e.special[0])
            for e in encoder.encode(list(rows.candidates) + flat, layers=[layer], batch_size=ctx.batch_size)
        ]
        return embs[: len(rows)], regroup(embs[len(rows) :], rows.references)

    return ctx.shared(("embeddings", backbone, encoder.device, encoder.dtype, layer), compute)


def score_idf(
    cands: Sequence["TokenEmbeddings"], refs: Sequence[Sequence["TokenEmbeddings"]],
    idf: bool | Mapping[int, float] | DocFreq,
) -> np.ndarray:
    """[rows, 3] P, R, F with uniform weights (``idf=False``), idf from ``refs`` (True), from document frequencies
    (a :class:`~kpqa.metrics.base.DocFreq`: a whole input's references) or a given idf mapping (unseen ids:
    ``log(N+1)``, N the number of ``refs``)."""
    if idf is False:
        cw = [np.ones(len(e.ids), dtype=np.float32) for e in cands]
        rw = [[np.ones(len(e.ids), dtype=np.float32) for e in g] for g in refs]
    else:
        freq = DocFreq.of(r.ids.tolist() for g in refs for r in g) if idf is True else idf
        table = idf_weights(freq) if isinstance(freq, DocFreq) else freq
        n_docs = freq.docs if isinstance(freq, DocFreq) else sum(len(g) for g in refs)
        cw = [lookup(table, e.ids, n_docs) for e in cands]
        rw = [[lookup(table, e.ids, n_docs) for e in g] for g in refs]
    return score_embeddings(cands, refs, cw, rw)


def bertscore(
    cands: Sequence[str],
    refs: Sequence[str | Sequence[str]],
    *,
    backbone: str = DEFAULT_BACKBONE,
    layer: int | None = None,
    idf: bool | Mapping[int, float] = False,
    device: str = DEFAULT_DEVICE,
    batch_size: int = DEFAULT_BATCH_SIZE,
    precision: str = DEFAULT_PRECISION,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """P, R, F arrays, in the shape bert-score users know. ``refs[i]`` is one reference or a list of them; ``idf``
    is False (uniform), True (from ``refs``) or a mapping token id -> weight (ids it lacks get ``log(N+1)``, N the
    number of references)."""
    if len(cands) != len(refs):
        raise UsageError(f"{len(cands)} candidates but {len(refs)} references")
    rows = Rows([""] * len(cands), list(cands), [[r] if isinstance(r, str) else list(r) for r in refs])
    ctx = Context(device=device, batch_size=batch_size, precision=precision)
    out = score_idf(*embed_rows(rows, ctx, backbone, layer), idf)
    return out[:, 0], out[:, 1], out[:, 2]


class _BERTScoreBase(Metric):
    """Shared options: encoder backbone and layer; ``spec`` is the ``:key=value`` part of the name it was asked by."""

    uses_model = True
    spec_options: ClassVar[tuple[Option, ...]] = (
        Option("encoder", arg="backbone", default=DEFAULT_BACKBONE, shown="minilm|mpnet|NAME"),
        Option("layer", int, default=None))

    def __init__(self, backbone: str = DEFAULT_BACKBONE, layer: int | None = None, spec: str = "") -> None:
        from kpqa.models.shipped import require_backbone

        require_backbone(backbone, f"BERTScore with encoder={backbone}")  # before any input is read
        self.backbone, self.layer, self.spec = backbone, layer, spec

    def _layer(self) -> int | str:
        from kpqa.models.encoder import DEFAULT_LAYERS

        return self.layer if self.layer is not None else DEFAULT_LAYERS.get(self.backbone, "default")

    def signature_name(self) -> str:
        return self.columns()[0]

    def token_unit(self, ctx: Context) -> str | None:
        return f"{self.backbone}-pieces"

    def signature(self, ctx: Context) -> Signature:
        """The base signature (the encoder's word pieces as the token unit) with the encoder's precision."""
        from kpqa.models.device import amp_dtype, pick_device, precision_name

        precision = precision_name(amp_dtype(pick_device(ctx.device), ctx.precision))
        return super().signature(ctx).with_fields([("precision", precision)])

    part = "F"  # the statistics are [P, R, F] per row (STATISTICS); the column reports one of them

    def statistics(self) -> tuple[str, ...]:
        return STATISTICS

    def per_row(self, stats: np.ndarray) -> dict[str, np.ndarray]:
        return {self.columns()[0]: np.asarray(stats)[:, STATISTICS.index(self.part)]}

    def corpus(self, totals: Totals) -> dict[str, float]:
        return {self.columns()[0]: totals.mean(STATISTICS.index(self.part))}


@register("BERTScore")
class BERTScore(_BERTScoreBase):
    """BERTScore F (``part="F"``), or its P / R (registered as ``BERTScore-P`` / ``BERTScore-R``)."""

    name = "BERTScore"
    spec_options = (*_BERTScoreBase.spec_options, Option("idf", bool, default=False))

    def __init__(self, backbone: str = DEFAULT_BACKBONE, layer: int | None = None, idf: bool = False,
                 spec: str = "") -> None:
        super().__init__(backbone, layer, spec)
        self.idf = idf
        self.reduction = CORPUS_PASS if idf else SUM  # the idf comes from every reference of the input

    def columns(self) -> list[str]:
        return [(self.name if self.part == "F" else f"{self.name}-{self.part}") + self.spec]

    def options(self) -> dict[str, object]:
        return {"encoder": self.backbone, "layer": self._layer(), "idf": "yes" if self.idf else "no", "rescale": "no"}

    def corpus_key(self) -> tuple[str, str]:
        """BERTScore, -P and -R with idf share the document frequencies of their encoder's tokens."""
        return ("bertscore-idf", self.backbone)

    def corpus_stats(self, rows: Rows, ctx: Context) -> DocFreq:
        """The document frequencies of the encoder's token ids over every reference of ``rows`` (special tokens
        left out: they weigh 0)."""
        flat = [r for g in rows.references for r in g]
        return DocFreq.of(ids.tolist() for ids, _ in get_encoder(ctx, self.backbone).tokenize(flat))

    def stats(self, rows: Rows, ctx: Context) -> np.ndarray:
        """[P, R, F] per row (shared by BERTScore, -P and -R with the same options); with idf, the idf of the
        input's references (:meth:`corpus_of`)."""
        def compute() -> np.ndarray:
            return score_idf(*embed_rows(rows, ctx, self.backbone, self.layer),
                             self.corpus_of(rows, ctx) if self.idf else False)

        return ctx.shared(("bertscore-prf", self.backbone, self.layer, self.idf), compute)


@register("BERTScore-P")
class BERTScorePrecision(BERTScore):
    """BERTScore precision (of the reference with the best F)."""

    part = "P"


@register("BERTScore-R")
class BERTScoreRecall(BERTScore):
    """BERTScore recall (of the reference with the best F)."""

    part = "R"


@register("BERTScore-KPQA")
class BERTScoreKPQA(_BERTScoreBase):
    """BERTScore-KPQA F (eq. 6-8): KPW(Q, text) in place of idf on both sides.

    The column is ``BERTScore-KPQA``, or ``BERTScore-KP`` when built with ``question=False`` for the question-free
    weighter (``get_metric("BERTScore-KP")``)."""

    name = "BERTScore-KPQA"
    requires = frozenset({"weights"})
    kp_form = True

    def __init__(self, backbone: str = DEFAULT_BACKBONE, layer: int | None = None, question: bool = True,
                 spec: str = "") -> None:
        super().__init__(backbone, layer, spec)
        self.question = question
        self.suffix = kp_suffix(question)

    def columns(self) -> list[str]:
        return [f"BERTScore-{self.suffix}{self.spec}"]

    def options(self) -> dict[str, object]:
        return {"encoder": self.backbone, "layer": self._layer(), "rescale": "no"}

    def stats(self, rows: Rows, ctx: Context) -> np.ndarray:
        """[P, R, F] per row."""
        weighter = ctx.weighter
        if weighter is None:
            raise UsageError(f"{self.columns()[0]} needs a keyphrase weighter (Context.weighter is not set)")
        from kpqa.models.alignment import max_overlap_each

        cands, refs = embed_rows(rows, ctx, self.backbone, self.layer)
        kpw = weighter.piece_weights(weighted_pairs(rows, self.question))
        texts = [*cands, *(e for g in refs for e in g)]  # in weighted_pairs' order: candidates, then references
        weights = max_overlap_each([(e.offsets, *kpw[k]) for k, e in enumerate(texts)])  # each text as align's
        return score_embeddings(cands, refs, weights[: len(rows)], regroup(weights[len(rows):], rows.references))
