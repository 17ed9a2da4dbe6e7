"""Keyphrase-weight heat maps (kpqa.explain) with a fake weighter: no model needed."""
from __future__ import annotations

import html
import re
import sys

import numpy as np
import pandas as pd
import pytest
from matplotlib import image

from kpqa import explain
from kpqa.errors import InputError, UsageError

QUESTION = "How long do i need to walk in order to loose a pound?"
REFERENCE = "Walk for 5 to 20 hours to lose 1 pound."
CANDIDATE = "You need to walk for 5 to 20 hours in order to loose a pound."


class FakeWeighter:
    """Pieces: words and punctuation marks. A piece's weight: 0.05 when the question has it, else 0.1 per char
    (capped at 1), so 'hours' weighs 0.5 and a question word 0.05."""

    def __init__(self):
        self.seen = []

    def piece_weights(self, pairs):
        self.seen.extend(pairs)
        out = []
        for question, text in pairs:
            spans = [(m.start(), m.end()) for m in re.finditer(r"\w+|[^\w\s]", text)]
            asked = set(re.findall(r"\w+", question.lower()))
            probs = [0.05 if text[s:e].lower() in asked else min(1.0, 0.1 * (e - s)) for s, e in spans]
            out.append((np.array(spans, dtype=np.int64).reshape(-1, 2), np.array(probs, dtype=np.float32)))
        return out

    def word_weights(self, pairs, tokenizer):
        out = []
        for (offsets, probs), (_, text) in zip(self.piece_weights(pairs), pairs):
            spans = np.array([(s, e) for _, s, e in tokenizer.spans(text)], dtype=np.int64).reshape(-1, 2)
            overlap = (offsets[None, :, 0] < spans[:, 1:2]) & (offsets[None, :, 1] > spans[:, 0:1])
            out.append(np.where(overlap, probs[None, :], 0.0).max(axis=1, initial=0.0))
        return out


def _weights(line):
    return {text: w for text, w in line.segments if w is not None}


def test_segments_cover_the_whole_text():
    text = "a bb, c"
    segs = explain.segments(text, [(0, 1), (2, 4), (6, 7)], [0.1, 0.9, 0.5])
    assert segs == [("a", 0.1), (" ", None), ("bb", 0.9), (", ", None), ("c", 0.5)]
    assert "".join(t for t, _ in segs) == text


def test_word_unit_uses_the_metric_tokenizer_and_the_question():
    weighter = FakeWeighter()
    result = explain.explain(QUESTION, REFERENCE, CANDIDATE, weighter)
    assert [line.label for line in result.lines] == ["Question", "Reference", "Candidate"]
    assert weighter.seen == [(QUESTION, REFERENCE), (QUESTION, CANDIDATE)]
    ref, cand = _weights(result.lines[1]), _weights(result.lines[2])
    assert ref["hours"] == pytest.approx(0.5) and cand["walk"] == pytest.approx(0.05)
    assert "." not in ref  # ptb drops punctuation: shown, unweighted
    for line in result.lines[1:]:
        assert "".join(t for t, _ in line.segments) in (REFERENCE, CANDIDATE)


def test_piece_unit_and_normalisation():
    result = explain.explain(QUESTION, [REFERENCE, "Twenty hours."], CANDIDATE, FakeWeighter(), unit="piece",
                             normalize=True)
    assert [line.label for line in result.lines] == ["Question", "Reference 1", "Reference 2", "Candidate"]
    for line in result.lines[1:]:
        weights = [w for _, w in line.segments if w is not None]
        assert min(weights) == 0.0 and max(weights) == 1.0
    assert "." in _weights(result.lines[1])  # the weighter's own pieces include punctuation


def test_html_is_standalone_with_inline_styles_and_escaped_text():
    result = explain.explain("what is <b>?", "x < y & z", "<script>alert(1)</script> y", FakeWeighter(),
                             tokenize="whitespace", scores={"scores": 4.5})
    page = explain.to_html(result)
    assert page.startswith("<!DOCTYPE html>") and "<style" not in page and "<script>" not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    visible = html.unescape(re.sub(r"<[^>]+>", "", page))
    assert "x < y & z" in visible and "<script>alert(1)</script> y" in visible
    assert "scores: 4.500" in page
    spans = re.findall(r'background-color:(#[0-9a-f]{6});color:(#[0-9a-f]{6})[^"]*" title="([0-9.]+)"', page)
    assert spans and all(float(w) <= 1 for _, _, w in spans)


def test_colours_darken_with_weight():
    light, _ = explain._color(0.0)
    dark, text = explain._color(1.0)
    assert sum(int(light[i:i + 2], 16) for i in (1, 3, 5)) > sum(int(dark[i:i + 2], 16) for i in (1, 3, 5))
    assert text == "#ffffff" and explain._color(0.1)[1] == "#000000"


def test_html_colours_are_matplotlibs_reds_without_matplotlib():
    import matplotlib

    reds = matplotlib.colormaps["Reds"]
    assert np.array_equal(explain._RAMP, reds(np.arange(explain.RAMP_STEPS))[:, :3])  # its table, to the bit
    for weight in [*np.linspace(-0.2, 1.2, 2001), np.nextafter(1.0, 0.0)]:
        r, g, b, _ = reds(float(np.clip(weight, 0.0, 1.0)))
        assert explain._color(weight)[0] == f"#{int(r * 255):02x}{int(g * 255):02x}{int(b * 255):02x}"
    assert explain._color(0.0) == ("#fff5f0", "#000000") and explain._color(1.0) == ("#67000c", "#ffffff")
    # #67000c, not ColorBrewer's #67000d: 0.05098039215686274 * 255 truncates to 12, as it did through matplotlib


def test_text_and_png(tmp_path):
    result = explain.explain(QUESTION, REFERENCE, CANDIDATE, FakeWeighter(), scores={"BERTScore-KPQA": 0.93})
    text = explain.to_text(result)
    assert "hours[0.50]" in text and text.endswith("BERTScore-KPQA: 0.930")
    path = explain.to_png(result, tmp_path / "w.png")
    pixels = image.imread(path)
    assert pixels.shape[0] > 50 and pixels.shape[1] > 500
    reddish = (pixels[..., 0] > 0.6) & (pixels[..., 1] < 0.4) & (pixels[..., 2] < 0.4)
    assert reddish.sum() > 50  # 'hours' (0.5) is drawn on a red box


def test_bad_arguments():
    with pytest.raises(UsageError, match=r"^unit=.char.: must be one of word, piece$"):
        explain.explain(QUESTION, REFERENCE, CANDIDATE, FakeWeighter(), unit="char")
    with pytest.raises(UsageError, match="non-empty"):
        explain.explain(QUESTION, " ", CANDIDATE, FakeWeighter())


def test_texts_from_a_csv_row(tmp_path):
    path = tmp_path / "h.csv"
    pd.DataFrame([
        {"question": "q1", "answer": "a1", "reference1": "r1", "reference2": "", "scores": 2.5, "note": "x"},
        {"question": "q2", "answer": "a2", "reference1": "r2", "reference2": "r2b", "scores": 4.0, "note": "y"},
    ]).to_csv(path, index=False)
    assert explain.row_texts(str(path), 2) == ("q2", ["r2", "r2b"], "a2", {"scores": 4.0})
    with pytest.raises(InputError, match=r"h.csv: row=3: the file has 2 rows"):
        explain.row_texts(str(path), 3)


def test_texts_take_a_row_or_the_texts_given_and_say_so_in_the_apis_words(tmp_path):
    path = tmp_path / "h.csv"
    pd.DataFrame([{"question": "q", "answer": "a", "reference1": "r", "scores": 1.5}]).to_csv(path, index=False)
    assert explain.texts(str(path), 1) == ("q", ["r"], "a", {"scores": 1.5})
    assert explain.texts(references=["r1", "r2"], candidate="c") == ("", ["r1", "r2"], "c", {})
    with pytest.raises(UsageError, match=r"^give either input row=N or question/references/candidate, not both$"):
        explain.texts(str(path), 1, candidate="c")
    with pytest.raises(UsageError, match=r"^input needs row=N \(1 = first data row\)$"):
        explain.texts(str(path))
    with pytest.raises(UsageError, match=r"^row needs input$"):
        explain.texts(row=1, references=["r"], candidate="c")
    with pytest.raises(UsageError, match=r"^give references and candidate \(and question\), or input row=N$"):
        explain.texts(question="q", candidate="c")
    with pytest.raises(InputError, match=r"^references: text of 11 characters, over the limit of 10 per text \(raise "
                                         r"it with max_chars=N\)$"):
        explain.texts(references=["short", "x" * 11], candidate="c", max_chars=10)


@pytest.mark.model
@pytest.mark.parametrize("argv,message", [
    (["INPUT", "--row", "1", "--question", "q"], "give either INPUT --row N or --question/--reference/--candidate"),
    (["INPUT"], "INPUT needs --row N"), (["INPUT", "--row", "3"], "h.csv: --row 3: the file has 2 rows"),
    (["--row", "1", "--reference", "r", "--candidate", "a"], "--row needs INPUT"),
    (["--question", "q", "--candidate", "a"], "give --reference and --candidate"),
])
def test_explain_says_which_texts_it_needs_in_flags(tmp_path, capsys, argv, message):
    from kpqa import cli

    path = tmp_path / "h.csv"
    pd.DataFrame([{"question": "q", "answer": "a", "reference1": "r"}] * 2).to_csv(path, index=False)
    assert cli.main(["explain", *[str(path) if a == "INPUT" else a for a in argv]]) == 2
    assert message in capsys.readouterr().err


@pytest.mark.model
def test_explain_command(tmp_path, monkeypatch, capsys):
    from kpqa import cli
    from kpqa.models import weighter as weighter_module

    monkeypatch.setattr(cli, "SUBCOMMANDS", [cli.explain.add])
    loads = []
    monkeypatch.setattr(weighter_module.Weighter, "load",
                        classmethod(lambda cls, checkpoint=None, **kw: loads.append((checkpoint, kw)) or FakeWeighter()))
    assert cli.main(["explain", "--question", QUESTION, "--reference", REFERENCE, "--candidate", CANDIDATE]) == 0
    assert "hours[0.50]" in capsys.readouterr().out
    csv = tmp_path / "h.csv"
    pd.DataFrame([{"question": QUESTION, "answer": CANDIDATE, "reference1": REFERENCE, "scores": 4.7}]).to_csv(csv)
    page, png = tmp_path / "e.html", tmp_path / "e.png"
    assert cli.main(["explain", str(csv), "--row", "1", "-o", str(page), "--png", str(png), "--no-question"]) == 0
    assert "scores: 4.700" in page.read_text() and png.stat().st_size > 1000
    assert loads[-1] == (None, {"no_question": True, "device": "auto", "function_word_weight": 0.2})
    with pytest.MonkeyPatch.context() as blocked:  # -o writes HTML: no matplotlib needed
        blocked.setitem(sys.modules, "matplotlib", None)
        assert cli.main(["explain", str(csv), "--row", "1", "-o", str(tmp_path / "no-mpl.html")]) == 0
    assert (tmp_path / "no-mpl.html").read_text() == explain.to_html(explain.explain(
        QUESTION, REFERENCE, CANDIDATE, FakeWeighter(), scores={"scores": 4.7}))
    assert cli.main(["explain", str(csv), "--row", "1", "--function-words", "1"]) == 0
    assert loads[-1] == (None, {"no_question": False, "device": "auto", "function_word_weight": 1.0})
    assert cli.main(["explain", str(csv)]) == 2
    assert "needs --row" in capsys.readouterr().err
