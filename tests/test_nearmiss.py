"""experiments.generators.nearmiss: one part of the key fact changed, the sentence kept; right answers in other words."""
from __future__ import annotations

import re

import pytest

pytest.importorskip("nltk")

from kpqa.train.equivalence import Example  # noqa: E402
from experiments.generators.nearmiss import (NameIndex, _other_option, make_near_misses,  # noqa: E402
                                              near_misses, negate, token_f1)


def _ex(question: str, answer: str, refs: list[str], row: int = 1) -> Example:
    return Example(question, refs, answer, 1, "", question, "people.csv", row)


def _by_kind(rows: list[dict[str, object]]) -> dict[str, dict[str, object]]:
    return {str(r["kind"]): r for r in rows}


def test_a_year_moves_by_a_few_and_the_rest_of_the_sentence_stays() -> None:
    rows = _by_kind(near_misses(_ex("When did the Berlin Wall fall?", "The Berlin Wall fell on November 9, 1989.",
                                    ["November 9, 1989"]), NameIndex([])))
    wrong = rows["date"]
    assert wrong["scores"] == 0
    changed = str(wrong["answer"])
    assert changed.startswith("The Berlin Wall fell on ") and changed != "The Berlin Wall fell on November 9, 1989."
    assert "November 9, 1989" not in changed
    year = _by_kind(near_misses(_ex("When did Apollo 11 land?", "It landed in 1969.", ["1969"]), NameIndex([])))
    new = int(re.search(r"\d{4}", str(year["year"]["answer"])).group())  # type: ignore[union-attr]
    assert new != 1969 and (abs(new - 1969) <= 10 or sorted(str(new)) == sorted("1969"))
    restated = _by_kind(near_misses(_ex("How many legs does a spider have?", "A spider has 8 legs.", ["8"]),
                                    NameIndex([])))["restated"]
    assert restated["scores"] == 1 and restated["answer"] == "A spider has eight legs."


def test_a_number_changes_and_its_unit_is_kept() -> None:
    rows = _by_kind(near_misses(_ex("At what temperature does water boil?", "Water boils at 100 °C at sea level.",
                                    ["100 °C"]), NameIndex([])))
    wrong = str(rows["number"]["answer"])
    assert wrong.endswith("°C at sea level.") and "100 °C" not in wrong


def test_a_name_becomes_its_sibling_seen_in_the_data() -> None:
    names = NameIndex(["Vitamin D helps bones.", "The Atlantic Ocean is large.", "Vitamin C is in oranges."])
    assert ("C", "D") in names.siblings("Vitamin C")
    rows = _by_kind(near_misses(_ex("Which vitamin prevents scurvy?", "Vitamin C prevents scurvy.", ["Vitamin C"]),
                                names))
    assert rows["name"]["answer"] == "Vitamin D prevents scurvy." and rows["name"]["scores"] == 0


def test_the_other_option_of_a_choice_question() -> None:
    question = "Which is larger, the Pacific Ocean or the Atlantic Ocean?"
    assert _other_option(question, "The Pacific Ocean is larger.") == ("Pacific Ocean", "Atlantic Ocean")
    assert _other_option(question, "Both are large.") is None
    rows = _by_kind(near_misses(_ex(question, "The Pacific Ocean is larger.", ["The Pacific Ocean"]), NameIndex([])))
    assert rows["choice"]["answer"] == "The Atlantic Ocean is larger."


@pytest.mark.parametrize("answer, negated", [
    ("Veins carry blood to the heart.", None),
    ("The Titanic did not carry enough lifeboats.", "The Titanic did carry enough lifeboats."),
    ("The Titanic didn't carry enough lifeboats.", "The Titanic did carry enough lifeboats."),
    ("Bats are mammals.", "Bats are not mammals."),
    ("Penguins can't fly.", "Penguins can fly."),
])
def test_negation_added_or_removed_at_the_first_auxiliary(answer: str, negated: str | None) -> None:
    assert negate(answer) == negated


def test_a_polar_answer_is_flipped_and_its_clause_negated() -> None:
    rows = _by_kind(near_misses(_ex("Can penguins fly?", "No, penguins can't fly.", ["No"]), NameIndex([])))
    assert rows["polar"]["answer"] == "Yes, penguins can fly." and "negation" not in rows


def test_alias_and_other_words_are_right_answers() -> None:
    rows = _by_kind(near_misses(_ex("What is the heraldic name for green?", "In heraldry, green is called vert.",
                                    ["vert", "sinople"]), NameIndex([])))
    assert rows["alias"] == {**rows["alias"], "answer": "In heraldry, green is called sinople.", "scores": 1}
    other = _by_kind(near_misses(_ex("Who wrote Hamlet?", "The Bard of Avon did.", ["William Shakespeare"]),
                                 NameIndex([])))
    assert other["other-words"]["scores"] == 1 and token_f1("The Bard of Avon did.", "William Shakespeare") == 0


def test_no_near_miss_holds_a_reference_and_the_output_is_seeded() -> None:
    examples = [_ex("When was the Eiffel Tower built?", "It was finished in 1889 in Paris.", ["1889"], 1),
                _ex("How many legs does a spider have?", "A spider has 8 legs.", ["eight", "8"], 2),
                _ex("Is the sun a star?", "Yes, the Sun is a star.", ["Yes"], 3)]
    rows = make_near_misses(examples, seed=5)
    assert rows == make_near_misses(examples, seed=5)
    wrong = [r for r in rows if r["scores"] == 0]
    assert {r["kind"] for r in wrong} >= {"year", "number", "polar"}
    for r in wrong:
        refs = [str(x) for x in r["references"]]  # type: ignore[attr-defined]
        assert not any(re.search(rf"(?<!\w){re.escape(x)}(?!\w)", str(r["answer"]), re.IGNORECASE) for x in refs
                       if x.lower() not in ("yes", "no")), r


def test_side_writes_the_near_misses_or_the_right_answers_and_the_two_make_the_whole(tmp_path) -> None:
    """``--side wrong|right`` (a training mix weighs the two sides apart): each file holds one label, and together
    they are the rows of ``--side both`` (the default), in its order."""
    import pandas as pd

    from experiments.generators.nearmiss import main

    source = tmp_path / "right.csv"
    pd.DataFrame({"question": ["When was the Eiffel Tower built?", "How many legs does a spider have?",
                               "Is the sun a star?"],
                  "answer": ["It was finished in 1889 in Paris.", "A spider has 8 legs.", "Yes, the Sun is a star."],
                  "reference1": ["1889", "eight", "Yes"], "reference2": ["", "8", ""], "scores": [1, 1, 1]}
                 ).to_csv(source, index=False)
    read = {}
    for side in ("both", "wrong", "right"):
        assert main(["--data", str(source), "--side", side, "--out", str(tmp_path / f"{side}.csv")]) == 0
        read[side] = pd.read_csv(tmp_path / f"{side}.csv", keep_default_na=False)
    assert set(read["wrong"]["scores"]) == {0} and set(read["right"]["scores"]) == {1}
    both = read["both"]
    pd.testing.assert_frame_equal(read["wrong"], both[both["scores"] == 0].reset_index(drop=True))
    pd.testing.assert_frame_equal(read["right"], both[both["scores"] == 1].reset_index(drop=True))
