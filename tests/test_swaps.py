"""Wrong answers made from people's right ones (experiments/generators/swaps.py): the key span found (a short reference in the
answer, or a year / date / number / name shared with a sentence reference, never the question's frame), replaced by
another question's answer of the same type, never by one that matches or holds a reference."""
from __future__ import annotations

import re

import pandas as pd
import pytest

from kpqa.train.equivalence import Example


def _ex(question, answer, references, label=1, row=1, source="people.csv"):
    return Example(question, list(references), answer, label, source=source, row=row)


LONG_WALL = "The wall came down in November 1989 after weeks of protests in the east of the city"


def test_a_short_reference_in_a_right_answer_is_swapped_for_another_questions_name():
    from experiments.generators.swaps import make_swaps

    rows = [_ex("Who wrote The Hobbit?", "The Hobbit was written by J. R. R. Tolkien; Tolkien published it in 1937.",
                ["J. R. R. Tolkien", "Tolkien"], row=1),
            _ex("Who painted the Mona Lisa?", "Leonardo da Vinci", ["Leonardo da Vinci"], row=2),
            _ex("Who painted the Mona Lisa?", "Raphael", ["Leonardo da Vinci"], label=0, row=3)]
    swaps = {r["source_row"]: r for r in make_swaps(rows, seed=13)}
    assert set(swaps) == {"people.csv:1", "people.csv:2"}  # a wrong answer is never a source
    hobbit = swaps["people.csv:1"]
    # both references replaced by the one new value, every occurrence; the name pool's only other entry
    assert hobbit["answer"] == ("The Hobbit was written by Leonardo da Vinci; Leonardo da Vinci published it in "
                                "1937.")
    assert (hobbit["span"], hobbit["span_type"], hobbit["scores"], hobbit["kind"]) == (
        "J. R. R. Tolkien", "name", 0, "swap")
    assert swaps["people.csv:2"]["answer"] in ("J. R. R. Tolkien", "Tolkien")  # both of the Hobbit row's spans


def test_sentence_references_give_a_shared_year_number_or_name_not_the_questions_frame():
    from experiments.generators.swaps import Span, key_spans

    assert key_spans("When did the Berlin Wall fall?", "The Berlin Wall fell in 1989.", [LONG_WALL]) == [
        Span("1989", "year")]
    assert key_spans("How many moons does Mars have?", "Mars has two moons, Phobos and Deimos.",
                     ["Two moons orbit Mars, and both of them are small and shaped like potatoes"]) == [
        Span("two", "number")]
    assert key_spans("What is the capital of Australia?", "Canberra is the capital of Australia.",
                     ["Australia's capital city is Canberra, chosen as a compromise between two cities"]) == [
        Span("Canberra", "name")]
    assert key_spans("When did the Berlin Wall fall?", "It fell on 9 November 1989.",
                     ["The wall fell on 9 November 1989, when the border crossings were opened"]) == [
        Span("9 November 1989", "date")]
    # a name the reference does not hold, or one the question holds, is no key span
    assert key_spans("Who painted the Mona Lisa?", "Raphael painted the Mona Lisa.",
                     ["The Mona Lisa was painted by Leonardo da Vinci in the early sixteenth century"]) == []
    assert key_spans("Is it true that Paris is in France?", "Yes, Paris is in France.", ["Yes"]) == []
    # a one-word capitalised "name" only ever at a sentence's start is an ordinary word
    assert key_spans("What happens if you crack your knuckles a lot?", "Nothing in particular happens.",
                     ["Nothing in particular happens if you crack your knuckles a lot"]) == []


@pytest.mark.parametrize("seed", range(8))
def test_a_swap_is_of_the_same_type_and_never_holds_or_is_held_in_a_reference(seed):
    from experiments.generators.swaps import make_swaps, whole

    rows = [_ex("What is the capital of France?", "It is Paris.", ["Paris"], row=1),
            _ex("Who is a famous heiress?", "Paris Hilton", ["Paris Hilton"], row=2),  # holds the reference
            _ex("Which city is the French capital?", "paris, of course", ["paris"], row=3),  # is the reference
            _ex("What is the third city of France?", "Lyon", ["Lyon"], row=4),
            _ex("When did the Berlin Wall fall?", "In 1989.", ["1989"], row=5),
            _ex("When was the Eiffel Tower finished?", "It was finished in 1889.", ["1889"], row=6),
            _ex("How many legs has a spider?", "A spider has 8 legs.", ["8"], row=7),
            _ex("How many legs has an insect?", "Six legs", ["6", "six"], row=8)]
    swaps = {r["source_row"]: r for r in make_swaps(rows, seed=seed)}
    assert swaps["people.csv:1"]["answer"] == "It is Lyon."
    assert swaps["people.csv:5"]["answer"] == "In 1889." and swaps["people.csv:6"]["answer"] == "It was finished in 1989."
    # numbers: the pool holds "8" and "six" (as its answer writes it: "Six"); no year stands for a number
    assert swaps["people.csv:7"]["answer"] == "A spider has Six legs." and swaps["people.csv:8"]["answer"] == "8 legs"
    assert "people.csv:3" not in swaps  # the "other" pool holds only its own question's "paris"
    assert swaps["people.csv:2"]["answer"] == "Lyon" and swaps["people.csv:4"]["replacement"] in ("Paris",
                                                                                                  "Paris Hilton")
    assert {r["span_type"] for r in swaps.values()} == {"name", "year", "number"}
    for r in swaps.values():
        source = rows[int(r["source_row"].split(":")[1]) - 1]
        assert not any(whole(r["answer"], ref) for ref in source.references)
        assert not any(r["replacement"].lower() in ref.lower() or ref.lower() in r["replacement"].lower()
                       for ref in source.references)


def test_the_ci_swaps_of_the_calibration_test_are_found_and_swapped_within_their_type():
    from experiments.generators.swaps import make_swaps

    rows = [_ex("How many moons does Mars have?", "Mars has two moons, Phobos and Deimos.",
                ["Two moons orbit Mars, both small and irregular in shape"], row=1),
            _ex("How many players are on a soccer team on the field?", "Each team has eleven players on the field.",
                ["There are eleven players per side on the pitch at one time"], row=2),
            _ex("When did the Berlin Wall fall?", "The Berlin Wall fell in November 1989.", [LONG_WALL], row=3),
            _ex("When was the Eiffel Tower finished?", "It was finished in 1889.", ["1889"], row=4)]
    swaps = {r["source_row"]: r for r in make_swaps(rows, seed=13)}
    assert swaps["people.csv:1"]["answer"] == "Mars has eleven moons, Phobos and Deimos."
    assert swaps["people.csv:2"]["answer"] == "Each team has two players on the field."
    # "November 1989" is a date and "1889" a year: neither has another of its type, so neither is swapped
    assert set(swaps) == {"people.csv:1", "people.csv:2"}


def test_the_command_writes_the_human_layout_reproducibly(tmp_path, capsys):
    from experiments.generators.swaps import main

    data = tmp_path / "people.csv"
    pd.DataFrame({"question": ["Who wrote The Hobbit?", "Who painted the Mona Lisa?", "Who painted the Mona Lisa?"],
                  "answer": ["Tolkien wrote it.", "Leonardo da Vinci did.", "Raphael"],
                  "reference1": ["J. R. R. Tolkien", "Leonardo da Vinci", "Leonardo da Vinci"],
                  "reference2": ["Tolkien", "", ""], "scores": ["1.0", "1.0", "0.0"]}).to_csv(data, index=False)
    assert main(["--data", str(data), "--out", str(tmp_path / "a.csv")]) == 0
    assert main(["--data", str(data), "--out", str(tmp_path / "b.csv")]) == 0
    assert (tmp_path / "a.csv").read_bytes() == (tmp_path / "b.csv").read_bytes()
    assert "2 swaps of 2 right answers" in capsys.readouterr().out
    out = pd.read_csv(tmp_path / "a.csv", keep_default_na=False, dtype=str)
    assert list(out.columns) == ["question", "answer", "reference1", "reference2", "scores", "kind", "source_row",
                                 "span", "replacement", "span_type"]
    assert out.answer.tolist() == ["Leonardo da Vinci wrote it.", "Tolkien did."]
    assert out.source_row.tolist() == ["people.csv:1", "people.csv:2"] and set(out.kind) == {"swap"}
    assert set(out.scores) == {"0"} and out.reference2.tolist() == ["Tolkien", ""]
    assert not any(re.search(r"\bTolkien\b", a) for a in out.answer[:1])
