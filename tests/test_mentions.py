"""experiments.generators.mentions: the right value named but not asserted, and the opposite side."""
from __future__ import annotations

import pytest

pytest.importorskip("nltk")

from kpqa.train.equivalence import Example  # noqa: E402
from experiments.generators.mentions import FRAMES, make_mentions, role_swap  # noqa: E402


def _ex(question: str, answer: str, refs: list[str], row: int) -> Example:
    return Example(question, refs, answer, 1, "", question, "people.csv", row)


EXAMPLES = [
    _ex("Who won the 1966 World Cup final?", "England beat West Germany 4-2 at Wembley.", ["England"], 1),
    _ex("When did the Berlin Wall fall?", "The Berlin Wall fell in 1989.", ["1989"], 2),
    _ex("When did the US declare independence?", "1776", ["1776"], 3),
    _ex("What is the capital of Turkey?", "Ankara", ["Ankara"], 4),
]


def test_a_mention_frames_the_same_words_both_ways_and_only_the_claim_decides_the_label() -> None:
    rows = [r for r in make_mentions(EXAMPLES) if r["kind"] == "mention"]
    assert len(rows) == 8 and [r["scores"] for r in rows] == [1, 0] * 4
    for right, wrong in zip(rows[::2], rows[1::2]):
        key, other = str(right["span"]), str(right["replacement"])
        assert key in str(right["answer"]) and other in str(right["answer"])  # both values named on both sides
        assert key in str(wrong["answer"]) and other in str(wrong["answer"])
        frame = next(f for f in FRAMES if str(right["answer"]).startswith(f.split("{")[0]) and
                     str(right["answer"]).endswith(f.split("}")[-1]))
        source = next(e for e in EXAMPLES if e.question == right["question"])
        assert right["answer"] == frame.format(answer=source.candidate, alt=other)
        assert wrong["answer"] == frame.format(answer=source.candidate.replace(key, other), alt=key)
    berlin = next(r for r in rows if r["question"] == "When did the Berlin Wall fall?" and r["scores"] == 0)
    assert "The Berlin Wall fell in 1989." not in str(berlin["answer"])


def test_a_hedge_offers_the_right_value_beside_another_and_is_wrong() -> None:
    hedges = [r for r in make_mentions(EXAMPLES) if r["kind"] == "hedge"]
    assert len(hedges) == 4 and all(r["scores"] == 0 for r in hedges)
    assert all(str(r["span"]) in str(r["answer"]) and str(r["replacement"]) in str(r["answer"]) for r in hedges)


def test_a_role_swap_exchanges_two_names_around_an_asymmetric_link_only() -> None:
    assert role_swap("England beat West Germany 4-2 at Wembley.", "England") == \
        "West Germany beat England 4-2 at Wembley."
    assert role_swap("The liver produces bile for the Gallbladder.", "Gallbladder") is None  # one name only
    assert role_swap("Beyonce married Jay Z in 2008.", "Jay Z") is None  # symmetric: the same fact
    assert role_swap("Cain and Abel were brothers.", "Abel") is None
    assert role_swap("Rome, then Paris.", "Paris") is None  # a list, not a link
    swaps = [r for r in make_mentions(EXAMPLES) if r["kind"] == "role-swap"]
    assert [(r["answer"], r["scores"]) for r in swaps] == [("West Germany beat England 4-2 at Wembley.", 0)]


def test_rows_are_seeded_so_the_output_depends_on_the_data_and_the_seed_only() -> None:
    assert make_mentions(EXAMPLES) == make_mentions(EXAMPLES)
    assert make_mentions(EXAMPLES, seed=14) != make_mentions(EXAMPLES)


def test_a_file_the_generators_cannot_read_is_one_line_and_exit_2(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    from experiments.generators import mentions, nearmiss, swaps

    empty = tmp_path / "empty.csv"
    empty.write_text("question,answer\n", encoding="utf-8")
    for module in (mentions, nearmiss, swaps):
        for path in (tmp_path / "missing.csv", empty):
            assert swaps.command(module.main, ["--data", str(path), "--out", str(tmp_path / "out.csv")]) == 2
            err = capsys.readouterr().err
            assert err.count("\n") == 1 and err.startswith(f"error: {path}: ") and "Traceback" not in err
    assert not (tmp_path / "out.csv").exists()
