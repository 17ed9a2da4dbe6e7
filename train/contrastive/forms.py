"""The answer forms of the contrastive data (:mod:`kpqa.train.contrastive`) that need rules beyond a span swap.

Every rule gives a RIGHT and a WRONG answer in the same form, so that a judge cannot learn "this form is always
wrong":

- :func:`polar_echo` / :func:`implicit_pair`: a yes/no question answered without the polar word, by echoing its
  auxiliary with a pronoun ("Does copper attract magnets?" -> "It doesn't."), bare or with the evidence
  (``polar-implicit`` / ``polar-implicit-flip``);
- :func:`long_pair`: a multi-sentence answer that asserts one answer and names the other in passing ("It was X,
  not Y. ..."), or (wrong only) declines or lists both options (``long-asserts`` / ``long-mentions``);
- :func:`alias_pair`: the answer by another name, WordNet synonyms of a one-sense noun or the place of a
  nationality adjective, against a co-hyponym's name (``alias`` / ``alias-wrong``);
- :func:`negation_pair`: a copula question on an adjective answered by a statement, with the adjective, its
  negation or its antonym ("You are ineligible." for "not eligible"; ``negation-paraphrase`` / ``negation-flip``);
- :func:`qualifier_pair`: the answer sentence with the question's qualifier ("the *largest* city") put in other
  words ("the biggest city") or turned into its antonym ("the smallest city") (``qualifier-synonym`` /
  ``qualifier-swap``);
- :func:`role_pair`: "Who replaced Wilkinson?" answered by a statement that keeps the roles, active or passive
  ("Wilkinson was replaced by Oaks."), or swaps the two names (``role-reorder`` / ``role-swap``).

Every function is deterministic given its arguments (a seeded ``random.Random`` where it chooses).
"""
from __future__ import annotations

import random
import re
from collections.abc import Sequence
from functools import lru_cache

#: the negative form of each auxiliary: contracted, then full
AUX_NEGATIVE = {"is": ("isn't", "is not"), "are": ("aren't", "are not"), "was": ("wasn't", "was not"),
                "were": ("weren't", "were not"), "do": ("don't", "do not"), "does": ("doesn't", "does not"),
                "did": ("didn't", "did not"), "can": ("can't", "cannot"), "could": ("couldn't", "could not"),
                "will": ("won't", "will not"), "would": ("wouldn't", "would not"),
                "should": ("shouldn't", "should not"), "has": ("hasn't", "has not"), "have": ("haven't", "have not"),
                "had": ("hadn't", "had not"), "may": ("may not", "may not"), "might": ("might not", "might not"),
                "must": ("mustn't", "must not")}
_SINGULAR_AUX = {"is": "are", "was": "were", "does": "do", "has": "have", "am": "are"}  # -> its plural
_PLURAL_AUX = {"are", "were", "do", "have"}
_DETERMINERS = {"the", "a", "an", "my", "your", "his", "her", "our", "their", "its", "any", "every", "each", "no",
                "mine", "one's"}
_PLURAL_WORDS = {"these", "those", "both", "all", "many", "most", "some", "several", "they", "we", "people"}
_GENDERED = {**dict.fromkeys("mother wife daughter sister girlfriend aunt niece grandmother mum mom girl woman "
                              "stepmother stepdaughter".split(), "she"),
             **dict.fromkeys("father husband son brother boyfriend uncle nephew grandfather dad boy man stepfather "
                              "stepson".split(), "he")}
_NAME_PARTICLES = {"of", "the", "and", "de", "la", "von", "van", "du", "del", "da", "&"}
#: what may come before an echo: (for an affirming echo, for a denying one)
_ECHO_LEADS = (("", "That's right, ", "Indeed, ", "Correct, "), ("", "Actually, ", "I'm afraid ", "In fact, "))


@lru_cache(maxsize=1)
def _wordnet():  # type: ignore[no-untyped-def]
    from kpqa.metrics.meteor import wordnet

    return wordnet()


def _is_person(noun: str) -> bool:
    """Whether the first WordNet sense of a noun is a person (an employer, a landlord)."""
    wn = _wordnet()
    synsets = wn.synsets(noun, "n")
    if not synsets:
        return False
    person = wn.synset("person.n.01")
    return person in synsets[0].closure(lambda s: s.hypernyms() + s.instance_hypernyms())


def _is_plural(noun: str) -> bool:
    """A plural noun: it ends in -s (not -ss, -us, -is) and WordNet knows it without the ending."""
    wn = _wordnet()
    low = noun.lower()
    if not low.endswith("s") or low.endswith(("ss", "us", "is")):
        return False
    return (wn.morphy(low, "n") not in (None, low)) or bool(wn.synsets(low[:-1], "n")) or \
        (low.endswith("es") and bool(wn.synsets(low[:-2], "n")))


def _noun_head(words: Sequence[str]) -> str | None:
    """The head of a noun phrase without its determiners: its first noun, or the pure nouns right after it
    ("tax office" -> "office"); None when no word is a noun."""
    wn = _wordnet()
    head = None
    for w in words[:4]:
        if head is None:
            if wn.synsets(w, "n"):
                head = w
            elif wn.synsets(w, "v"):
                return None
        elif wn.synsets(w, "n") and not wn.synsets(w, "v") and not wn.synsets(w, "a"):
            head = w
        else:
            break
    return head


def polar_clause(question: str) -> list[str] | None:
    """The words of the question's last sentence that starts with an auxiliary ("My son is 17. Can he work?" ->
    ["Can", "he", "work?"]), or None."""
    for part in reversed(re.split(r"(?<=[.?!])\s+", question.strip())):
        words = part.split()
        if len(words) > 1 and (words[0].lower() in AUX_NEGATIVE or words[0].lower() == "am"):
            return words
    return None


def echo_subject(question: str) -> tuple[str, str] | None:
    """The subject and auxiliary an echo answer uses ("Does copper attract magnets?" -> ("it", "does"); "Can I
    claim?" -> ("you", "can"); "Is Mike Pence older?" -> ("Mike Pence", "is")), or None (no auxiliary first)."""
    words = polar_clause(question)
    if not words:
        return None
    aux = words[0].lower()
    rest = [re.sub(r"^\W+|\W+$", "", w) for w in words[1:]]
    rest = [w for w in rest if w]
    if not rest:
        return None
    low = rest[0].lower()
    if low in ("i", "we", "you"):
        return "you", _SINGULAR_AUX.get(aux, aux)
    if low in ("he", "she", "it", "there"):
        return low, aux
    wn = _wordnet()
    if low in ("this", "that") and not (len(rest) > 1 and wn.synsets(rest[1].lower(), "n")
                                        and not wn.synsets(rest[1].lower(), "v")):
        return "it", aux  # "Is this legal?"; "this employee" is a noun phrase
    if low in _PLURAL_WORDS:
        return "they", _SINGULAR_AUX.get(aux, aux)
    if rest[0][0].isupper() and low not in _DETERMINERS:
        run: list[str] = []
        for w in rest:
            if w[0].isupper() or (run and w.lower() in _NAME_PARTICLES):
                run.append(w)
            else:
                break
        while run and run[-1].lower() in _NAME_PARTICLES:
            run.pop()
        if "and" in (w.lower() for w in run) or "both" in (w.lower() for w in rest):
            return "they", _SINGULAR_AUX.get(aux, aux)
        return " ".join(run), aux
    phrase = rest[1:] if low in _DETERMINERS | {"this", "that"} else rest
    head = _noun_head([w.lower() for w in phrase])
    if head is None:
        return None
    if head in _GENDERED and aux not in _PLURAL_AUX:
        return _GENDERED[head], aux
    if _is_person(head) or _is_plural(head) or aux in _PLURAL_AUX:
        return "they", _SINGULAR_AUX.get(aux, aux)
    return "it", aux


def polar_echo(question: str, yes: bool, contracted: bool = True) -> str | None:
    """The bare echo answer to a yes/no question: "It does." / "It doesn't." / "They weren't." / "You can." (None
    when the question does not start a sentence with an auxiliary)."""
    found = echo_subject(question)
    if not found:
        return None
    subject, aux = found
    verb = aux if yes else AUX_NEGATIVE[aux][0 if contracted else 1]
    return f"{subject[0].upper()}{subject[1:]} {verb}."


_COMMON_STARTS = set("the a an in on at it its this that these those there if when you your we our they their he she "
                     "his her for after before during as by with from some many most all one each".split())


def lower_first(text: str) -> str:
    """The text with its first word lowercased when that is a common word ("The treaty ..." -> "the treaty ...",
    "Napoleon ..." unchanged)."""
    first = text.split(" ", 1)[0]
    plain = first.lower() in _COMMON_STARTS and (len(first) == 1 or first[1:].islower())
    return text[0].lower() + text[1:] if plain else text


def implicit_answer(question: str, yes: bool, rng: random.Random, evidence: str = "") -> str | None:
    """An echo answer with a lead-in ("That's right, it was.") and, when given, the evidence after it ("It is:
    ..." / "It is. ...")."""
    echo = polar_echo(question, yes, contracted=rng.random() < 0.7)
    if echo is None:
        return None
    lead = rng.choice(_ECHO_LEADS[0 if yes else 1])
    if lead:
        echo = lead + lower_first(echo)
    if evidence:
        joint = rng.choice((". ", ": ", "; "))
        body = evidence if joint == ". " else lower_first(evidence)
        echo = echo[:-1] + joint + body
    return echo


def implicit_pair(question: str, yes: bool, rng: random.Random, evidence: str = "",
                  wrong_evidence: str | None = None) -> tuple[str, str] | None:
    """(right, wrong) echo answers: the right one affirms or denies as the reference does, the wrong one the
    opposite, both in the same form; ``evidence`` follows the right one, ``wrong_evidence`` (default the same
    evidence) the wrong one."""
    state = rng.getstate()
    right = implicit_answer(question, yes, rng, evidence)
    if right is None:
        return None
    rng.setstate(state)  # the same joint and contraction for the wrong answer
    wrong = implicit_answer(question, not yes, rng, evidence if wrong_evidence is None else wrong_evidence)
    return (right, wrong) if wrong else None


#: assertions of {a} that name {b} in passing; {s} is a sentence that supports {a}
ASSERTS = ("It was {a}, not {b}. {s}",
           "Some say {b}, but it was {a}. {s}",
           "{a}. {b} is sometimes named as well, but the answer is {a}. {s}",
           "The answer is {a}, not {b}, although {b} is often named. {s}",
           "It is sometimes said to be {b}, but that is a mistake: it is {a}. {s}",
           "{s} So the answer is {a}; {b} is a common mix-up.")
#: answers that do not choose between {a} and {b}; {n} is a sentence of the article that names neither
UNDECIDED = ("It is hard to say; {a} and {b} are both given as the answer. {n}",
             "It could be {a} or {b}; the sources do not agree. {n}",
             "{n} Both {a} and {b} are mentioned, and I cannot tell which is right.",
             "Either {a} or {b}. {n}")


def long_pair(span: str, other: str, sentence: str, swapped: str, neighbours: Sequence[str],
              rng: random.Random) -> tuple[str, str, str]:
    """(right, wrong, how) long answers: the right one asserts ``span`` naming ``other`` in passing, with the
    answer ``sentence``; the wrong one (``how``) either ``asserts`` ``other`` naming ``span`` in the same form
    with the ``swapped`` sentence, or is ``undecided`` (declines, or lists both)."""
    template = rng.choice(ASSERTS)
    extra = " ".join(neighbours[: rng.randint(0, 1)])
    right = template.format(a=span, b=other, s=sentence)
    if rng.random() < 0.6 or not neighbours:
        wrong, how = template.format(a=other, b=span, s=swapped), "asserts"
    else:
        a, b = (span, other) if rng.random() < 0.5 else (other, span)
        wrong, how = rng.choice(UNDECIDED).format(a=a, b=b, n=neighbours[-1]), "undecided"
        extra = ""
    if extra:
        right, wrong = f"{right} {extra}", (f"{wrong} {extra}" if how == "asserts" else wrong)
    return right.strip(), wrong.strip(), how


_NATIONALITY = re.compile(r"\b(nationality|nationalities|ethnicity|ethnic|citizen|citizens|people|folks|born|origin|"
                          r"come from|came from|was from|were from|descent)\b", re.IGNORECASE)
_ROMAN = re.compile(r"^[IVXLCDM]+$")


def _lemma_text(name: str) -> str:
    return name.replace("_", " ")


def _same_style(a: str, b: str) -> bool:
    """Both capitalised (names) or both not."""
    return a[:1].isupper() == b[:1].isupper()


def _usable(lemma: str, span: str) -> bool:
    """A lemma an alias or a sibling may be: not a letter, numeral or Roman numeral, written as the span is
    (capitalised or not), and not the span itself or its singular."""
    wn = _wordnet()
    low, span_low = lemma.lower(), re.sub(r"^the ", "", span.lower())
    if len(lemma) <= 2 or _ROMAN.match(lemma) or re.search(r"\d", lemma) or not _same_style(lemma, span):
        return False
    return low != span_low and low != (wn.morphy(span_low.replace(" ", "_"), "n") or "").replace("_", " ")


def _siblings(synset: object, span: str) -> list[str]:
    """The first lemmas of the synset's co-hyponyms (the other hyponyms, or instances, of its hypernyms), sorted:
    nltk keeps a synset's relations in a set, whose order changes from one process to the next."""
    out: set[str] = set()
    for hyper in synset.hypernyms() + synset.instance_hypernyms():  # type: ignore[attr-defined]
        for sib in hyper.hyponyms() + hyper.instance_hyponyms():
            if sib != synset:
                name = _lemma_text(sib.lemmas()[0].name())
                if _usable(name, span):
                    out.add(name)
    return sorted(out)


def alias_pair(span: str, question: str, rng: random.Random) -> tuple[str, str, str] | None:
    """(alias, sibling, how) of an answer span from WordNet 3.0, or None:

    - ``synonym``: the span names one noun sense only (no sense to guess); the alias is another lemma of it
      ("Ten Commandments" -> "Decalogue", "Galileo" -> "Galileo Galilei"), the sibling the first lemma of a
      co-hyponym ("Copernicus");
    - ``demonym``: a nationality question answered with an adjective whose pertainym is a place ("Welsh" ->
      "Wales"); the alias is "a native of Wales", the sibling a native of another place of the same kind.
    """
    wn = _wordnet()
    key = re.sub(r"^the ", "", span.strip(), flags=re.IGNORECASE).replace(" ", "_")
    if not key or len(span.split()) > 4:
        return None
    adjectives = wn.synsets(key, "a")
    if adjectives and _NATIONALITY.search(question) and span[:1].isupper():
        places = [p for lemma in adjectives[0].lemmas()  # the span's own lemma first; nltk keeps a set
                  for p in sorted(lemma.pertainyms(), key=lambda p: p.name()) if p.name()[:1].isupper()]
        if places:
            place = places[0]
            siblings = [s for s in _siblings(place.synset(), place.name()) if s != _lemma_text(place.name())]
            if siblings:
                lead = rng.choice(("a native of {}", "from {}", "someone from {}"))
                return lead.format(_lemma_text(place.name())), lead.format(rng.choice(siblings)), "demonym"
    nouns = wn.synsets(key, "n")
    if len(nouns) != 1 or len(wn.synsets(key)) != 1 or re.search(r"\d", span):
        return None  # a word of another part of speech too ("anterior"), a number ("7" -> "septet")
    if span[:1].islower() and wn.morphy(key.lower(), "n") != key.lower():
        return None  # a plural: the lemmas are singular
    aliases = [t for t in (_lemma_text(lemma.name()) for lemma in nouns[0].lemmas()) if _usable(t, span)]
    siblings = [s for s in _siblings(nouns[0], span) if s not in aliases]
    if not aliases or not siblings:
        return None
    return rng.choice(aliases), rng.choice(siblings), "synonym"


_COPULAS = {"is", "are", "was", "were", "am"}
#: what may follow a predicative adjective ("eligible for", "legal to", "able to"): not a noun it qualifies
_AFTER_PREDICATE = {"", "to", "for", "in", "of", "with", "about", "on", "at", "by", "from", "if", "when", "as",
                    "under", "during", "after", "before", "without", "while", "because", "since"}
_DEICTIC = {"i": "you", "me": "you", "my": "your", "mine": "yours", "am": "are", "myself": "yourself",
            "we": "you", "us": "you", "our": "your"}
_DEGREE_SAFE = {"high", "low", "long", "short", "old", "new", "first", "last"}
#: adjectives whose first sense's antonym is another sense's ("responsible for" is not "irresponsible for")
_UNSAFE_ANTONYMS = {"sure", "just", "many", "much", "other", "different", "same", "new", "old", "mental",
                    "physical", "financial", "on", "off", "up", "down", "first", "last", "responsible",
                    "instrumental", "critical", "peaceful", "general", "major", "minor", "present", "absent",
                    "due", "free", "open", "close", "direct", "single", "simple", "high", "low", "long", "short"}


def _mostly_adjective(word: str) -> bool:
    """Whether a word is first an adjective: its first sense is one, or its adjective senses are seen in SemCor
    at least as often as all its other senses ("large": also a noun, "at large")."""
    wn = _wordnet()
    synsets = wn.synsets(word)
    if not synsets:
        return False
    if synsets[0].pos() in ("a", "s"):
        return True
    seen = [(s.pos() in ("a", "s"), sum(lemma.count() for lemma in s.lemmas() if lemma.name() == word))
            for s in synsets]
    adjective = sum(c for a, c in seen if a)
    return adjective > 0 and adjective >= sum(c for a, c in seen if not a)


def adjective_antonym(word: str, degree: bool = False) -> str | None:
    """The direct WordNet antonym of a word that is first an adjective ("eligible" -> "ineligible", "legal" ->
    "illegal"), or None; ``degree``: for a comparative or superlative, where "high" / "low", "old" / "young" are
    safe ("the highest peak")."""
    wn = _wordnet()
    low = word.lower()
    if not _mostly_adjective(low) or (low in _UNSAFE_ANTONYMS and not (degree and low in _DEGREE_SAFE)):
        return None
    for synset in wn.synsets(low, "a")[:1]:
        for lemma in synset.lemmas():
            if lemma.name().lower() == low:
                antonyms = sorted(a.name() for a in lemma.antonyms())  # nltk keeps a set
                if antonyms and "_" not in antonyms[0]:
                    return antonyms[0]
    return None


def predicate_statements(question: str) -> tuple[str, str, str] | None:
    """For a copula question with a predicative adjective that has an antonym ("Am I eligible for X?"), the
    statements (adjective, antonym, negated adjective) in the echo's person: ("You are eligible for X.", "You are
    ineligible for X.", "You are not eligible for X."), or None."""
    words = polar_clause(question)
    found = echo_subject(question)
    if not words or not found or words[0].lower() not in _COPULAS:
        return None
    subject, verb = found
    if subject == "there":
        return None  # "Are there any bursaries available?": the adjective is not the subject's
    for i in range(2, min(len(words), 6)):
        word = re.sub(r"\W+$", "", words[i])
        follows = re.sub(r"\W+", "", words[i + 1]).lower() if i + 1 < len(words) else ""
        antonym = adjective_antonym(word)
        if antonym and follows in _AFTER_PREDICATE and words[i - 1].lower() not in _DETERMINERS | {"a", "an"} \
                and (i + 1 == len(words) or not re.search(r"[?.!]$", words[i])):
            rest = [_DEICTIC.get(w.lower(), w) for w in words[i + 1:]]
            rest = [("were" if w == "was" and k and words[i + k].lower() == "i" else w) for k, w in enumerate(rest)]
            tail = re.sub(r"\s*[?.!]+$", "", " ".join(["", *rest])) + "."
            head = f"{subject[0].upper()}{subject[1:]} {verb}"
            return f"{head} {word.lower()}{tail}", f"{head} {antonym}{tail}", f"{head} not {word.lower()}{tail}"
    return None


def _choose(statements: tuple[str, str, str], yes: bool, rng: random.Random, antonym_share: float = 0.7
            ) -> tuple[str, str]:
    """(right, wrong) of the (adjective, antonym, negated adjective) statements: when the truth is yes, the
    adjective against its antonym or its negation; when no, the antonym or the negation against the adjective."""
    plain, antonym, negated = statements
    if yes:
        return plain, (antonym if rng.random() < 0.6 else negated)
    return (antonym if rng.random() < antonym_share else negated), plain


def negation_pair(question: str, yes: bool, rng: random.Random) -> tuple[str, str] | None:
    """(right, wrong) statements answering a copula question with an adjective (:func:`_choose`): "Am I eligible?"
    / no -> ("You are ineligible.", "You are eligible.") or ("You are not eligible.", "You are eligible.")."""
    found = predicate_statements(question)
    return None if found is None else _choose(found, yes, rng)


_QUALIFIER_STOP = {"is", "was", "are", "were", "the", "a", "an", "of", "in", "on", "at", "to", "for", "by", "with",
                   "what", "which", "who", "when", "where", "how", "why", "did", "does", "do", "has", "have", "had",
                   "many", "much", "first", "last", "one", "two", "new", "old", "other", "same", "only", "most",
                   "more", "main", "known", "called", "name", "named", "type", "kind", "part", "year", "time",
                   "number", "also", "used", "use", "can", "could", "would", "should", "will", "be", "been",
                   "near", "far", "less", "few", "more", "dependent", "independent", "like", "unlike", "due",
                   "longer"}


#: adjectives that can stand for each other in most sentences (WordNet's synonyms are mostly of rarer senses)
QUALIFIER_SYNONYMS = dict(pair for a, b in (
    ("large", "big"), ("largest", "biggest"), ("larger", "bigger"), ("important", "significant"),
    ("difficult", "hard"), ("main", "principal"), ("fast", "quick"), ("fastest", "quickest"),
    ("famous", "well-known"), ("modern", "contemporary"), ("huge", "enormous"),
    ("strong", "powerful"), ("weak", "feeble"), ("easy", "simple"), ("easier", "simpler"), ("easiest", "simplest"),
    ("dangerous", "hazardous"), ("rare", "uncommon"), ("wide", "broad"), ("widest", "broadest"),
    ("entire", "whole"), ("ill", "sick"), ("intelligent", "clever"), ("cheap", "inexpensive"),
    ("expensive", "costly"), ("false", "untrue"), ("safe", "secure"), ("annual", "yearly"),
) for pair in ((a, b), (b, a)))
QUALIFIER_SYNONYMS.update({"small": "little", "smallest": "tiniest", "final": "last", "correct": "right",
                           "necessary": "needed", "possible": "feasible", "daily": "everyday"})  # one way only
# one way only where the way back has other senses ("principal" of a school; "simpler in structure" is not "easier")
for _drop in ("principal", "simple", "simpler", "simplest", "powerful", "hard", "secure", "quick", "big"):
    QUALIFIER_SYNONYMS.pop(_drop, None)


def _inflect(base: str, suffix: str) -> str | None:
    """A one-syllable adjective with -er / -est ("small" -> "smallest", "big" -> "biggest", "easy" ->
    "easiest"); None for longer words (their comparison takes "more" / "most")."""
    if len(re.findall(r"[aeiouy]+", base.rstrip("e"))) != 1 and not (base.endswith("y") and len(base) <= 5):
        return None
    if base.endswith("e"):
        return base + suffix[1:]
    if base.endswith("y") and len(base) > 2 and base[-2] not in "aeiou":
        return base[:-1] + "i" + suffix
    if re.search(r"[^aeiou][aeiou][^aeiouwy]$", base):
        return base + base[-1] + suffix
    return base + suffix


def adjective_variants(word: str) -> tuple[str | None, str | None]:
    """(synonym, antonym) of an adjective in the same degree ("difficult" -> ("hard", "easy"), "largest" ->
    ("biggest", "smallest")): the synonym from :data:`QUALIFIER_SYNONYMS`, the antonym from WordNet; each None
    when none fits."""
    wn = _wordnet()
    low = word.lower()
    base = wn.morphy(low, "a")
    if not base or not _mostly_adjective(base) or low in _QUALIFIER_STOP:
        return None, None
    if base == low:
        return QUALIFIER_SYNONYMS.get(low), adjective_antonym(low)
    suffix = "est" if low.endswith("est") else "er" if low.endswith("er") else None
    if not base or not suffix or _inflect(base, suffix) != low:
        return None, None
    antonym = adjective_antonym(base, degree=True)
    return QUALIFIER_SYNONYMS.get(low), (_inflect(antonym, suffix) if antonym else None)


def _replace_word(sentence: str, span: str, word: str, new: str) -> str:
    """The sentence with every ``word`` outside the answer span replaced by ``new``, and "a" / "an" before it
    made to agree ("an important" -> "a significant")."""
    at = sentence.find(span)
    parts = [sentence[:at], sentence[at + len(span):]] if at >= 0 else [sentence, ""]
    swapped = [re.sub(rf"\b{re.escape(word)}\b", new, part) for part in parts]
    out = swapped[0] + (span if at >= 0 else "") + swapped[1]

    def article(m: re.Match[str]) -> str:
        a = "an" if new[0] in "aeiou" else "a"
        return (a.capitalize() if m.group(1)[0].isupper() else a) + " " + new

    return re.sub(rf"\b(an|a|An|A) {re.escape(new)}\b", article, out)


def qualifier_pair(question: str, sentence: str, span: str, rng: random.Random) -> tuple[str, str, str] | None:
    """(right, wrong, qualifier) answer sentences, each one adjective changed: the wrong one changes a qualifier
    the question and the sentence share outside the answer span ("the *largest* city" -> "the smallest city":
    the antonym, in the same degree, wherever it stands outside the span); the right one puts a synonym in its
    place ("the biggest city"), or, when it has none, in the place of another adjective of the sentence (the
    qualifier kept). None when no adjective fits."""
    wn = _wordnet()
    asked = {w.lower() for w in re.findall(r"[A-Za-z]+", question)}
    at = sentence.find(span)
    words = sorted({m.group() for m in re.finditer(r"\b[a-z]{3,}\b", sentence)
                    if not (at <= m.start() < at + len(span))})
    words = [w for w in words if not (wn.morphy(w, "v") or w) != w]  # not an inflected verb ("written")
    variants = {w: adjective_variants(w) for w in words}
    present = set(re.findall(r"[a-z]+", sentence))
    qualifiers = [w for w in words if w in asked and variants[w][1] and variants[w][1] not in present]
    if not qualifiers:
        return None
    word = rng.choice(qualifiers)
    wrong = _replace_word(sentence, span, word, variants[word][1] or "")
    if variants[word][0]:
        return _replace_word(sentence, span, word, variants[word][0] or ""), wrong, word
    others = [w for w in words if w not in asked and variants[w][0]]
    if not others:
        return None
    other = rng.choice(others)
    return _replace_word(sentence, span, other, variants[other][0] or ""), wrong, word



_WHO_DID = re.compile(r"^Who (?:(?P<passive>was|were) )?(?P<verb>[a-z]{3,}ed) (?:by )?"
                      r"(?P<obj>[A-Z][\w.-]*(?: (?:of|the|de|von|van) )?(?: [A-Z][\w.-]*)*)"
                      r"(?P<rest>(?: (?:as|in|to|during|for|from|at|on|after|before|with|into|over)\b[^?]*)?)\?$")
_NOT_NAMES = _COMMON_STARTS | {"i", "what", "which", "who"}
#: verbs whose two roles can be swapped without changing the fact ("A met B") or that are not about two roles
_SYMMETRIC_VERBS = {"met", "married", "fought", "played", "joined", "allied", "faced", "divorced", "called",
                    "named", "resembled", "debated", "partnered", "dated", "used", "needed", "wanted"}


def role_pair(question: str, span: str, rng: random.Random) -> tuple[str, str, str] | None:
    """(right, wrong, form) statements answering "Who <verb>ed <Name> ...?" (or "Who was <verb>ed by <Name>?")
    with the answer span, a name: the right one keeps the roles, said actively or with the phrase order turned
    into the passive ("Who replaced Wilkinson as president?" -> "Dallin H. Oaks replaced Wilkinson as
    president." / "Wilkinson was replaced as president by Dallin H. Oaks."); the wrong one swaps the two names
    in one of the two forms ("Wilkinson replaced Dallin H. Oaks as president."). ``form`` says which forms the
    pair took (``active-passive``, ...). None when the question does not fit, the verb is symmetric ("met") or
    the span is not a name (nor an adjective: "French")."""
    wn = _wordnet()
    m = _WHO_DID.match(question.strip())
    if not m or not span[:1].isupper() or wn.synsets(span, "a") or len(m["obj"].split()) > 4 \
            or m["verb"] in _SYMMETRIC_VERBS \
            or wn.morphy(m["verb"], "v") is None or m["obj"].split()[0].lower() in _NOT_NAMES:
        return None
    verb, obj, rest = m["verb"], m["obj"], m["rest"]
    agent, patient = (obj, span) if m["passive"] else (span, obj)
    be = "were" if m["passive"] == "were" else "was"

    def active(a: str, p: str) -> str:
        return f"{a} {verb} {p}{rest}".rstrip(".") + "."

    def passive(a: str, p: str) -> str:
        return f"{p} {be} {verb}{rest} by {a}".rstrip(".") + "."

    right_form, wrong_form = rng.choice([(active, passive), (passive, active), (passive, passive), (active, active)])
    right, wrong = right_form(agent, patient), wrong_form(patient, agent)
    return right, wrong, f"{right_form.__name__}-{wrong_form.__name__}"
