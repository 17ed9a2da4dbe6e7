"""Tokenizers: the ptb tokenizer against the Java original COCO pipeline, offsets, whitespace and zh."""
from __future__ import annotations

import pytest

from kpqa.errors import UsageError
from kpqa.text import COCO_PUNCTUATION, available_tokenizers, get_tokenizer

# Expected tokens produced by the reference pipeline: pycocoevalcap 1.2's PTBTokenizer (Stanford CoreNLP 3.4.1
# PTBTokenizer, "-preserveLines -lowerCase", run under Java 17), then its punctuation filter, each text on its own
# line. Java and pycocoevalcap are not needed to run these tests.
COCO_TOKENS = [
    ("He didn't think it was worth the effort.", "he did n't think it was worth the effort"),
    ("I can't, won't, cannot; gonna wanna gotta.", "i ca n't wo n't can not gon na wan na got ta"),
    ("it 's pre-tokenized , do n't worry", "it 's pre-tokenized do n't worry"),
    ('"Hello," she said. \'Quoted\' words\' end.', 'hello she said quoted words end'),
    ('Don’t “smart” quotes, John’s ‘x’.', "do n't smart quotes john 's x"),
    ('The U.S. is big. I live in the U.S.', 'the u.s. is big i live in the u.s.'),
    ('It costs $5.50 (about 5%) in 1,000,000 cases.', 'it costs $ 5.50 -lrb- about 5 % -rrb- in 1,000,000 cases'),
    ('3.14 and 1/2 and/or 10:30 a.m. on 12/25/2019', '3.14 and 1/2 and/or 10:30 a.m. on 12/25/2019'),
    ('Mr. Smith went to Washington, D.C. etc. and e.g. this.', 'mr. smith went to washington d.c. etc. and e.g. this'),
    ('well-known -- dash — em–en ... ellipsis… x', 'well-known dash em en ellipsis x'),
    ('[brackets] {braces} (parens) <b>bold</b>', '-lsb- brackets -rsb- -lcb- braces -rcb- -lrb- parens -rrb- <b> bold </b>'),
    ("I'm you're we've they'll she'd it's o'clock", "i 'm you 're we 've they 'll she 'd it 's o'clock"),
    ('café naïve résumé Straße 北京', 'café naïve résumé straße 北京'),
    ('No. 5 and no. it; St. Louis, Jan. 1, Calif. and mass. and Mass.', 'no. 5 and no it st. louis jan. 1 calif. and mass and mass.'),
    ('inches long,32 inches and agents,brokers,and service', 'inches long ,32 inches and agents brokers and service'),
    ('wow!!! what?! hmm?? ok....', 'wow !!! what ?! hmm ?? ok'),
    ('he said -5 and +1 and x-5 and 5-10', 'he said -5 and +1 and x-5 and 5-10'),
    ('€5 £5 ¢5 US$5 5° ½', '$ 5 # 5 cents 5 us$ 5 5 ° 1/2'),
    ('John F. Kennedy and Saturn V. The rocket', 'john f. kennedy and saturn v the rocket'),
    ("the qur'an and ma'am and rock'n'roll and '90s", "the qur an and ma'am and rock 'n' roll and '90s"),
    ('x.25 and e-mail smith@example.com http://www.example.com/path?x=1.', 'x. 25 and e-mail smith@example.com http://www.example.com/path?x=1'),
    ('a.m.-based u.s.-based tv-movie/pilot as-207/208', 'a.m.-based u.s.-based tv-movie/pilot as-207 / 208'),
    ("'tis 'twas 'em y'all", "'t is 't was 'em y' all"),
    ('AT&T at&t R&D &amp; a & b', 'at&t at & t r&d & a & b'),
    ('emoji 😀 here', 'emoji here'),
    ('3.5mm 5x5 1990s 20th', '3.5 mm 5x5 1990s 20th'),
]


@pytest.mark.parametrize(("text", "expected"), COCO_TOKENS)
def test_ptb_matches_coco_pipeline(text, expected):
    assert " ".join(get_tokenizer("ptb").tokenize(text)) == expected


@pytest.mark.parametrize(("text", "_"), COCO_TOKENS)
def test_spans_give_the_tokens_and_point_into_the_original_text(text, _):
    tok = get_tokenizer("ptb")
    spans = tok.spans(text)
    assert [t for t, _, _ in spans] == tok.tokenize(text)
    ends = [0]
    for token, start, end in spans:
        assert ends[-1] <= start < end <= len(text)  # in order, not overlapping
        ends.append(end)
        assert token not in COCO_PUNCTUATION


def test_spans_of_split_and_normalised_tokens():
    assert get_tokenizer("ptb").spans("He didn't (go) to the U.S.") == [
        ("he", 0, 2), ("did", 3, 6), ("n't", 6, 9), ("-lrb-", 10, 11), ("go", 11, 13), ("-rrb-", 13, 14),
        ("to", 15, 17), ("the", 18, 21), ("u.s.", 22, 26),
    ]
    assert get_tokenizer("ptb").spans("gonna \u20ac5") == [("gon", 0, 3), ("na", 3, 5), ("$", 6, 7), ("5", 7, 8)]


def test_ptb_known_difference_phone_numbers_are_split():
    # Java joins "800 493 1058" into one token with non-breaking spaces; pycocoevalcap's BLEU splits it again with
    # str.split (so BLEU agrees with these parts), its ROUGE-L does not. Documented in kpqa.text.
    assert get_tokenizer("ptb").tokenize("call 800 493 1058 .") == ["call", "800", "493", "1058"]


def test_ptb_is_cached_but_returns_fresh_lists():
    tok = get_tokenizer("ptb")
    first = tok.tokenize("The cat sat.")
    first.append("mutated")
    assert tok.tokenize("The cat sat.") == ["the", "cat", "sat"]


def test_empty_and_punctuation_only_texts():
    for name in available_tokenizers():
        assert get_tokenizer(name).tokenize("") == []
    assert get_tokenizer("ptb").tokenize(" ... , !") == []


def test_composed_and_decomposed_spellings_give_the_same_tokens():
    for name in ("ptb", "whitespace"):
        tok = get_tokenizer(name)
        assert tok.tokenize("Un cafe\u0301 noir") == tok.tokenize("un caf\u00e9 noir") == ["un", "caf\u00e9", "noir"]
    assert get_tokenizer("ptb").spans("cafe\u0301!") == [("caf\u00e9", 0, 5)]  # offsets stay in the original text


def test_whitespace_tokenizer():
    tok = get_tokenizer("whitespace")
    assert tok.tokenize("  Hello,  World\tX ") == ["hello,", "world", "x"]
    assert tok.spans("a Bc") == [("a", 0, 1), ("bc", 2, 4)]


def test_zh_tokenizer():
    tok = get_tokenizer("zh")
    text = "北京是中国的首都，ＧＤＰ增长了3.5%。iPhone 12很好！"
    assert tok.tokenize(text) == [
        "北", "京", "是", "中", "国", "的", "首", "都", "gdp", "增", "长", "了", "3.5", "iphone", "12", "很", "好",
    ]
    assert tok.spans("北京abc，") == [("北", 0, 1), ("京", 1, 2), ("abc", 2, 5)]


def test_unknown_tokenizer_is_a_usage_error():
    assert available_tokenizers() == ["ptb", "whitespace", "zh"]
    with pytest.raises(UsageError, match="unknown tokenizer 'moses'"):
        get_tokenizer("moses")
