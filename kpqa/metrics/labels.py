"""Yang et al.'s labels found automatically, for data without gold ones: the question's type, the opinion of an
answer to a yes-no question, and a reference's entities.

* :func:`question_type` -- ``YES_NO`` / ``ENTITY`` / ``DESCRIPTION`` (DuReader's names) from the question alone:
  English by its first words (an auxiliary first and no "or" choice: yes-no; who / when / where / which / how
  many ...: entity; the rest, queries without a question word included: description), Chinese by its particles
  (吗, 是不是, 能不能 ...: yes-no; 多少, 哪, 谁, 几 ...: entity).
* :func:`opinion` -- ``Yes`` / ``No`` / ``Depends`` of an answer to a yes-no question, read from its first clause.
  An answer that opens with a polar word is read as KeyFact-KPQA and KPQA-judge read it
  (:data:`kpqa.metrics.kpqa.POLAR`: "No, it is not." is No). Without one: a hedge ("it depends", "not always",
  "sometimes") is Depends; a negation ("They can't.", "never", "not", :data:`kpqa.stopwords.NEGATIONS`) or a negated
  form of the question's own predicate ("illegal" for "Is it legal?") is No; any other statement is Yes ("It
  does.", "Ostriches run fast"): an answer to a yes-no question that asserts without denying affirms. Chinese: the
  same order, with 不 / 没 / 别 / 无 / 未 / 否 as negations (less the compounds that do not deny: 不错, 不少, 非常
  ...) and 不一定 / 看情况 / 因人而异 ... as hedges; a leading conditional or attribution clause (如果 ..., 根据 ...)
  is skipped.
* :func:`keyphrase_spans` -- a text's entities from the keyphrase weighter: maximal runs of consecutive tokens whose
  weight is at least ``threshold`` (0.5: where the tagger's K-probability wins), trimmed of function words
  (:data:`kpqa.stopwords.FUNCTION_WORDS`) at both ends, so a span starts and ends on a content token.

:func:`find_labels` puts them together for a batch of rows, gold labels first: a row's gold opinion labels (both
the answer's and its references') and its gold entities are taken where the input has them, the automatic ones
elsewhere; opinions only for yes-no questions, entities only for entity questions (as DuReader's gold ones). The
weights are the context's ``word_weights`` of (question, reference): the pass the KPQA metrics make (the weighter
caches by (question, text)). Chinese text gets no automatic entities (the weighter was trained on English text).
Nothing here imports torch: the weights come in from the weighter stage.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from kpqa.errors import UsageError
from kpqa.context import Context
from kpqa.rows import Rows
from kpqa.metrics.kpqa import POLAR
from kpqa.stopwords import FUNCTION_WORDS, NEGATIONS
from kpqa.text import get_tokenizer

YES_NO, ENTITY, DESCRIPTION = "YES_NO", "ENTITY", "DESCRIPTION"
QUESTION_TYPES = (YES_NO, ENTITY, DESCRIPTION)
YES, NO, DEPENDS = "Yes", "No", "Depends"
OPINIONS = (YES, NO, DEPENDS)
#: the K-probability from which a token belongs to a keyphrase span
SPAN_THRESHOLD = 0.5

# --- English ---------------------------------------------------------------------------------------------------
AUXILIARIES = frozenset(
    "is are was were am do does did can could will would shall should may might must has have had".split()
)
_WH = frozenset("who whom whose what which when where why how".split())
#: how + one of these asks for an entity (a number, a size, a time); "how do / to / is" asks for a description
_HOW_ENTITY = frozenset("many much long old far big tall large high often fast deep wide heavy hot cold soon".split())
#: what + one of these asks for an entity ("what year", "what is the name of")
_WHAT_ENTITY = frozenset(
    "year years time day date month century color colour country city state name size number percentage age "
    "temperature kind type language currency county team company".split()
)
_YES_WORDS = frozenset({"yes", "yeah", "yep", "yup", "absolutely", "definitely", "certainly", "sure", "correct"})
_NO_WORDS = frozenset({"no", "nope", "nah", "never", "incorrect"})
#: the polar word of :data:`kpqa.metrics.kpqa.POLAR` each stands for
_POLAR_OF = {**{w: "yes" for w in _YES_WORDS}, **{w: "no" for w in _NO_WORDS}}
assert set(_POLAR_OF.values()) == set(POLAR)
_HEDGES = re.compile(
    r"\b(it|that|this) (all )?depends\b|\bdepend(s|ing)? (up)?on\b|\bnot (always|necessarily|all|every)\b|"
    r"\bsometimes\b|\bin some cases\b|\bmay or may not\b|\bcan or can ?not\b|\byes and no\b|\bvar(y|ies)\b|"
    r"\bpartly\b|\bpartially\b|\bit'?s complicated\b|\bonly (if|when|in|for|with)\b|\bunless\b",
)
_NEGATED = NEGATIONS - {"won", "t", "don", "ain"} | {
    "never", "cannot", "none", "nothing", "nobody", "neither", "nowhere", "cant", "dont", "doesnt", "isnt",
    "arent", "wasnt", "werent", "wont", "didnt", "couldnt", "shouldnt", "wouldnt", "hasnt", "havent", "hadnt",
}
_NEG_PREFIXES = ("un", "in", "il", "im", "ir", "non", "dis")
_CLAUSE_END = re.compile(r"[.!?;:,\n]|\s(but|however|although|though|because|since|as long as)\s")
_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")

# --- Chinese ---------------------------------------------------------------------------------------------------
_ZH_YES_NO = re.compile(r"(吗|么|嘛)[？?！!。\s]*$|是不是|是否|能不能|会不会|可不可以|可以不|有没有|要不要|好不好|对不对|"
                        r"行不行|算不算|用不用|需不需要|值不值|([\u4e00-\u9fff])不\2")
_ZH_ENTITY = re.compile(r"多少|哪|谁|几|什么时候|多久|多高|多大|多长|多重|多远|什么(?!意思|原因|办法|方法|感觉|区别|作用)|"
                        r"何时|何地|电话|地址|价格|时间|日期|身高")
_ZH_HEDGES = re.compile(r"不一定|看情况|因人而异|视情况|取决于|分情况|不好说|要看|一定程度|因人|不完全|有的|有些")
_ZH_NEGATION = re.compile(r"[不没别无未否非]")
#: compounds with a negation character that do not deny
_ZH_NOT_NEGATION = re.compile(r"不错|不少|不过|不仅|不管|不同|不断|不久|不住|不了解|非常|无论|别人|别的|否则|无数|不然|"
                              r"无线|无锡|非洲|除非|莫非|无疑|没想到")
_ZH_LEAD = re.compile(r"^(如果|只要|要是|根据|据|按照|虽然|一般来说|其实|目前|现在|通常)")
_ZH_CLAUSE = re.compile(r"[，。！？；：,.!?;:\n]+")


def _is_chinese(text: str) -> bool:
    han = len(re.findall(r"[\u4e00-\u9fff]", text))
    return han > 0 and han >= len(re.findall(r"[A-Za-z]", text)) / 4


def question_type(question: str, lang: str | None = None) -> str:
    """``YES_NO``, ``ENTITY`` or ``DESCRIPTION`` for ``question`` (``lang`` "en" or "zh"; None: zh when most of
    its letters are Chinese characters)."""
    if (lang or ("zh" if _is_chinese(question) else "en")) == "zh":
        if _ZH_YES_NO.search(question):
            return YES_NO
        return ENTITY if _ZH_ENTITY.search(question) else DESCRIPTION
    words = _WORD.findall(question.lower())
    if not words:
        return DESCRIPTION
    first = words[0]
    if first in AUXILIARIES or first.endswith("n't"):
        if " or " in f" {' '.join(words)} " or _WH & set(words):
            return ENTITY  # a choice ("Is beer or wine more fattening?") or a wh-question after a clause
        return YES_NO
    for i, w in enumerate(words):
        if w in _WH:
            after = words[i + 1] if i + 1 < len(words) else ""
            if w in ("who", "whom", "whose", "when", "where", "which"):
                return ENTITY
            if w == "how":
                return ENTITY if after in _HOW_ENTITY else DESCRIPTION
            if w == "what":
                rest = set(words[i + 1 : i + 5])
                return ENTITY if rest & _WHAT_ENTITY else DESCRIPTION
            return DESCRIPTION  # why
    return DESCRIPTION


def _first_clause(text: str) -> str:
    low = " ".join(text.lower().replace("’", "'").split())
    match = _CLAUSE_END.search(low)
    return low[: match.start()] if match else low


def _negates_predicate(words: Sequence[str], question: str) -> bool:
    """Whether a word of ``words`` is a negated form of a content word of the question ("illegal" / "legal")."""
    asked = {w for w in _WORD.findall(question.lower()) if w not in FUNCTION_WORDS and len(w) > 2}
    return any(w.startswith(p) and w[len(p):] in asked for w in words for p in _NEG_PREFIXES)


def _opinion_en(answer: str, question: str) -> str:
    words = _WORD.findall(" ".join(answer.lower().replace("’", "'").split()))
    if not words:
        return YES
    polar = _POLAR_OF.get(words[0])
    if polar is not None and words[:3] != ["yes", "and", "no"]:
        return YES if polar == "yes" else NO
    clause = _first_clause(answer)
    if _HEDGES.search(clause):
        return DEPENDS
    head = _WORD.findall(clause)
    if any(w in _NEGATED or w.endswith("n't") for w in head) or _negates_predicate(head, question):
        return NO
    return YES


def _opinion_zh(answer: str) -> str:
    clauses = [c for c in _ZH_CLAUSE.split(answer.strip()) if c]
    if not clauses:
        return YES
    if _ZH_HEDGES.search("".join(clauses[:2])):
        return DEPENDS
    main = next((c for c in clauses if not _ZH_LEAD.match(c)), clauses[0])
    if main.startswith(("是的", "对", "可以", "能", "会", "有")) or main in ("是", "是。"):
        return YES
    if _ZH_NEGATION.search(_ZH_NOT_NEGATION.sub("", main)):
        return NO
    return YES


def opinion(answer: str, question: str = "", lang: str | None = None) -> str:
    """``Yes``, ``No`` or ``Depends``: what ``answer`` says to the yes-no ``question`` (``lang`` "en" or "zh";
    None: zh when most of the answer's letters are Chinese characters)."""
    if (lang or ("zh" if _is_chinese(answer) else "en")) == "zh":
        return _opinion_zh(answer)
    return _opinion_en(answer, question)


def keyphrase_spans(tokens: Sequence[str], weights: Sequence[float] | np.ndarray,
                    threshold: float = SPAN_THRESHOLD) -> list[list[str]]:
    """The distinct maximal runs of ``tokens`` whose weights are all at least ``threshold``, each trimmed of
    function words at both ends (a run of function words alone is dropped), in order of first occurrence."""
    w = np.asarray(weights, dtype=float)
    if len(w) != len(tokens):
        raise ValueError(f"{len(w)} weights for {len(tokens)} tokens")
    spans: list[list[str]] = []
    start = None
    for i in range(len(tokens) + 1):
        inside = i < len(tokens) and w[i] >= threshold
        if inside and start is None:
            start = i
        elif not inside and start is not None:
            run = list(tokens[start:i])
            while run and run[0] in FUNCTION_WORDS:
                run.pop(0)
            while run and run[-1] in FUNCTION_WORDS:
                run.pop()
            if run and run not in spans:
                spans.append(run)
            start = None
    return spans


GOLD, AUTO = "gold", "auto"


@dataclass(frozen=True)
class RowLabels:
    """One row's labels for Yang's bonuses and where they came from (``gold``, ``auto`` or ``""``: none)."""

    qtype: str
    candidate_label: str | None
    reference_labels: list[str | None] | None
    entities: list[list[str]]
    opinion_source: str = ""
    entity_source: str = ""


def language(ctx: Context) -> str | None:
    """``zh`` under the Chinese tokenizer, else None (each text's own letters decide)."""
    return "zh" if ctx.tokenizer == "zh" else None


def _gold_opinions(rows: Rows, i: int) -> tuple[str | None, list[str | None] | None]:
    cand = rows.candidate_labels[i] if rows.candidate_labels is not None else None
    refs = rows.reference_labels[i] if rows.reference_labels is not None else None
    return (cand, refs) if cand and refs and any(refs) else (None, None)


def _auto_entities(rows: Rows, ctx: Context, wanted: list[int]) -> dict[int, list[list[str]]]:
    """The keyphrase spans of every reference of the rows ``wanted``, per row (distinct, in reference order)."""
    if not wanted:
        return {}
    if ctx.word_weights is None:
        raise UsageError("automatic entities need the keyphrase weighter (Context.word_weights is not set)")
    tokenizer = get_tokenizer(ctx.tokenizer)
    pairs = [(rows.questions[i], ref) for i in wanted for ref in rows.references[i]]
    weights = iter(ctx.word_weights(pairs, tokenizer))
    out: dict[int, list[list[str]]] = {}
    for i in wanted:
        spans: list[list[str]] = []
        for ref in rows.references[i]:
            spans += [s for s in keyphrase_spans(tokenizer.tokenize(ref), next(weights)) if s not in spans]
        out[i] = spans
    return out


def find_labels(rows: Rows, ctx: Context) -> list[RowLabels]:
    """Per row: the question type and the opinion labels and entities Yang's bonuses use, gold where the row has
    them (tokenized with the context's tokenizer), found automatically elsewhere."""
    lang = language(ctx)
    tok = get_tokenizer(ctx.tokenizer).tokenize
    types = [question_type(q, lang) for q in rows.questions]
    gold_entities = [[tok(e) for e in rows.entities[i]] if rows.entities is not None else [] for i in range(len(rows))]
    wanted = [i for i, t in enumerate(types) if t == ENTITY and not gold_entities[i] and lang != "zh"
              and not _is_chinese(rows.questions[i])]
    found = _auto_entities(rows, ctx, wanted)
    out = []
    for i, qtype in enumerate(types):
        cand, refs = _gold_opinions(rows, i)
        source = GOLD if cand else ""
        if not cand and qtype == YES_NO:
            question = rows.questions[i]
            cand = opinion(rows.candidates[i], question, lang)
            refs, source = [opinion(r, question, lang) for r in rows.references[i]], AUTO
        entities = gold_entities[i] or found.get(i, [])
        ent_source = GOLD if gold_entities[i] else AUTO if entities else ""
        out.append(RowLabels(qtype, cand, refs, entities, source, ent_source))
    return out
