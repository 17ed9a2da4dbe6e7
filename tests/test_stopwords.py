"""Stop-word lists: NLTK's, and the function words the weighter scales down (negations kept)."""
from kpqa.stopwords import FUNCTION_WORDS, NEGATIONS, NLTK_ENGLISH_STOPWORDS, function_word_spans


def test_function_words_are_nltk_less_negations():
    assert {"no", "not", "nor", "t", "don", "isn", "won", "didn"} <= NEGATIONS
    assert not FUNCTION_WORDS & NEGATIONS and FUNCTION_WORDS < NLTK_ENGLISH_STOPWORDS
    assert {"the", "of", "his", "is", "s", "what"} <= FUNCTION_WORDS
    assert not any("'" in w for w in FUNCTION_WORDS)  # words are runs of letters: "don't" is "don" + "t"
    assert len(FUNCTION_WORDS) == 130


def test_spans_are_whole_runs_of_letters_compared_lower_cased():
    text = "The dog's owner isn't at home, Ainsley won 2 of them."
    spans = function_word_spans(text)
    assert [text[a:b] for a, b in spans] == ["The", "s", "at", "of", "them"]
    assert function_word_spans("theory ofsted 42") == []
    assert function_word_spans("the cat", frozenset({"cat"})) == [(4, 7)]
